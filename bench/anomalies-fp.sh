#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/anomalies-fp.sh --- false positives of e4time anomalies: ordinary
# activity done by the kernel on a loop mount, one directory per kind,
# and the rules that fire there, counted per kind (a markdown table).
#   bench/anomalies-fp.sh [E4TIME] [DEB...]
# DEB: packages unpacked with dpkg-deb -x (default: up to 5 of
# /var/cache/apt/archives).  Needs root (loop mounts).
set -eu
E4TIME=${1:-tools/e4time}
shift || true
DEBS=("$@")
if [ ${#DEBS[@]} = 0 ]; then
	mapfile -t DEBS < <(ls /var/cache/apt/archives/*.deb 2>/dev/null | head -n 5)
fi
T=$(mktemp -d)
M="$T/mnt"
mkdir "$M"
cleanup() {
	mountpoint -q "$M" && umount "$M"
	rm -rf "$T"
}
trap cleanup EXIT
truncate -s 512M "$T/fp.img"
mkfs.ext4 -q -F "$T/fp.img"
mount -o loop "$T/fp.img" "$M"
mkdir "$M/old" "$M/mvold" "$M/create" "$M/edit" "$M/rename" "$M/cp" "$M/dpkg"
for i in $(seq 1 200); do echo "$i" >"$M/create/f$i"; done
for i in $(seq 1 200); do echo "$i" >"$M/edit/f$i"; done
for i in $(seq 1 200); do echo "$i" >"$M/rename/f$i"; done
sync
sleep 1.1
for i in $(seq 1 200); do echo more >>"$M/edit/f$i"; done
for i in $(seq 1 200); do mv "$M/rename/f$i" "$M/rename/g$i"; done
for i in $(seq 1 200); do cat "$M/create/f$i" >/dev/null; done
cp -r "$M/create" "$M/cp/tree"
mkdir "$M/new"
for i in $(seq 1 200); do echo "$i" >"$M/new/m$i"; done
for i in $(seq 1 200); do mv "$M/new/m$i" "$M/mvold/"; done
mkdir "$M/old/sub"
for i in $(seq 1 50); do echo "$i" >"$M/old/sub/x$i"; done
for d in "${DEBS[@]}"; do dpkg-deb -x "$d" "$M/dpkg/$(basename "$d" .deb)"; done
sync
umount "$M"
"$E4TIME" anomalies -f jsonl "$T/fp.img" >"$T/a.jsonl"
python3 - "$T/a.jsonl" "${#DEBS[@]}" <<'PY'
import collections, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
kinds = ["create", "edit", "rename", "cp", "mvold", "old", "dpkg"]
count = collections.Counter()
files = collections.Counter()
rules = [r["rule"] for r in recs if r["record"] == "summary"]
sev = {r["rule"]: r["severity"] for r in recs if r["record"] == "summary"}
for r in recs:
    if r["record"] != "finding" or not r["path"]:
        continue
    parts = r["path"].split("/")
    kind = parts[1] if len(parts) > 2 and parts[1] in kinds else "other"
    count[(kind, r["rule"])] += 1
print("findings: %s, dpkg packages: %s" % (len([r for r in recs if r["record"] == "finding"]), sys.argv[2]))
print("| rule | severity | " + " | ".join(kinds) + " |")
print("|---|---|" + "---|" * len(kinds))
for rule in rules:
    print("| %s | %s | " % (rule, sev[rule]) +
          " | ".join(str(count[(k, rule)]) for k in kinds) + " |")
PY
echo "entries per kind:"
"$E4TIME" timeline -f jsonl "$T/fp.img" | python3 -c '
import collections, json, sys
c = collections.Counter()
for l in sys.stdin:
    p = json.loads(l)["path"].split("/")
    if len(p) > 2: c[p[1]] += 1
print(" ".join("%s=%d" % kv for kv in sorted(c.items())))'
