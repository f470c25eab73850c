#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fromdir.sh: time `e4time export --from-dir` on a mounted tree
# against `find DIR -xdev -exec stat -c %W {} +` (warm cache, in one run,
# alternating), then `e4time import` of such a manifest against
# `e4time backfill --from dosattrib` on the same image, and write
# bench/RESULTS-migrate.md.  The tree is bench/backfill.sh's: directories
# of 1000 files, each with a version-5 user.DOSATTRIB.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/fromdir.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR   where the images and outputs are kept [/var/tmp/e4time-bench-migrate]
#   DIRS        directories of 1000 files [1000: 1,000,000 files]
#   RUNS        timed runs of each command [3]
#   E4TIME      the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench-migrate}
DIRS=${DIRS:-1000}
RUNS=${RUNS:-3}
E4TIME=${E4TIME:-$top/tools/e4time}
RESULTS=$here/RESULTS-migrate.md
FILES=$((DIRS * 1000))

die() { echo "fromdir.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built: run make -C $top"
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"
PYTHON=$(command -v python3) || die "python3 missing"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin"
OUT=$BENCH_DIR/out
cp "$E4TIME" "$BENCH_DIR/bin/e4time-fromdir.tmp"
mv "$BENCH_DIR/bin/e4time-fromdir.tmp" "$BENCH_DIR/bin/e4time-fromdir"
E4TIME=$BENCH_DIR/bin/e4time-fromdir
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
IMG=$BENCH_DIR/tree-$FILES.img
A=$BENCH_DIR/a.img # backfilled: crtimes from DOSATTRIB, the "old disk"
B=$BENCH_DIR/b.img # a fresh copy: import's target
UNDO=$BENCH_DIR/undo.e2undo
mnt=""
cleanup() {
    unmount_mnt
    rm -f "$A" "$B" "$UNDO"
}
trap cleanup EXIT

# As bench/backfill.sh: file i (d/f = i/1000, i%1000) was "created" at
# 2001-01-01T00:00:00Z + i s + i*100 ns, in its user.DOSATTRIB.
fill_dosattrib() {
    "$PYTHON" - "$DIRS" <<'EOF'
import os, struct, sys
NT_UNIX = 116444736000000000
BASE = 978307200
HEAD = b"\x00\x00\x05\x00\x05\x00\x00\x00"
flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
for d in range(int(sys.argv[1])):
    dn = "d%03d" % d
    os.mkdir(dn)
    for f in range(1000):
        i = d * 1000 + f
        nt = (BASE + i) * 10**7 + i + NT_UNIX
        fd = os.open("%s/f%03d" % (dn, f), flags, 0o644)
        os.setxattr(fd, "user.DOSATTRIB", HEAD + struct.pack("<IIQ", 0x11, 0x20, nt))
        os.close(fd)
EOF
}

if [ ! -f "$IMG" ]; then
    log "building $IMG ($FILES files)"
    truncate -s 3G "$IMG.tmp"
    mkfs.ext4 -q -F -N $((FILES + 100000)) "$IMG.tmp"
    mnt=$(mktemp -d /tmp/e4time-fromdir-mnt.XXXXXX)
    mount -o loop "$IMG.tmp" "$mnt"
    (cd "$mnt" && fill_dosattrib)
    umount "$mnt"
    rmdir "$mnt"
    mnt=""
    mv "$IMG.tmp" "$IMG"
fi

copy() { rm -f "$2"; cp --sparse=always "$1" "$2"; cat "$2" > /dev/null; }

# ---- export --from-dir against find -exec stat, on the mounted tree
copy "$IMG" "$A"
"$E4TIME" backfill -q --no-undo --from dosattrib "$A" > /dev/null
mnt=$(mktemp -d /tmp/e4time-fromdir-mnt.XXXXXX)
mount -o loop,ro "$A" "$mnt"
find "$mnt" -xdev > /dev/null # warm the dentry and inode caches
ex_res=$OUT/fromdir.export.runs
fd_res=$OUT/fromdir.find.runs
: > "$ex_res"; : > "$fd_res"
for r in $(seq "$RUNS"); do
    log "run $r: export --from-dir"
    time_cmd "$OUT/fromdir.export.err" "$E4TIME" export -q --from-dir "$mnt" >> "$ex_res"
    log "run $r: find -xdev -exec stat -c %W {} +"
    time_cmd "$OUT/fromdir.find.err" find "$mnt" -xdev -exec stat -c %W {} + >> "$fd_res"
done
"$E4TIME" export --from-dir "$mnt" > "$OUT/fromdir.manifest" 2> "$OUT/fromdir.summary"
ROWS=$(($(wc -l < "$OUT/fromdir.manifest") - 1))
umount "$mnt"
rmdir "$mnt"
mnt=""

# ---- import of that manifest against backfill, each on a fresh copy
im_res=$OUT/fromdir.import.runs
bf_res=$OUT/fromdir.backfill.runs
: > "$im_res"; : > "$bf_res"
for r in $(seq "$RUNS"); do
    copy "$IMG" "$B"; rm -f "$UNDO"
    log "run $r: import"
    time_cmd "$OUT/fromdir.import.err" "$E4TIME" import -z "$UNDO" "$B" "$OUT/fromdir.manifest" >> "$im_res"
    copy "$IMG" "$B"; rm -f "$UNDO"
    log "run $r: backfill"
    time_cmd "$OUT/fromdir.backfill.err" "$E4TIME" backfill -z "$UNDO" --from dosattrib "$B" >> "$bf_res"
done
copy "$IMG" "$B"
"$E4TIME" import -q --no-undo "$B" "$OUT/fromdir.manifest" > /dev/null
CHECK=$("$E4TIME" import -n "$B" "$OUT/fromdir.manifest" 2>&1 | tail -n 1)

ex=$(median "$ex_res" 1); fd=$(median "$fd_res" 1)
im=$(median "$im_res" 1); bf=$(median "$bf_res" 1)
exc=$(median "$ex_res" 4); fdc=$(median "$fd_res" 4)
imc=$(median "$im_res" 4); bfc=$(median "$bf_res" 4)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mib() { awk -v k="$(maxcol "$1" 2)" 'BEGIN { printf "%.0f", k / 1024 }'; }
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "# export --from-dir and import, $(date -u +%Y-%m-%d)"
    echo
    echo "bench/fromdir.sh, e4time $E4_COMMIT, $FILES files ($DIRS directories of 1000),"
    echo "$(nproc) CPUs, shared machine: ratios only (medians of $RUNS runs, alternating;"
    echo "CPU: user + system, every thread; load average $LOAD_START at the start,"
    echo "$LOAD_END at the end)."
    echo
    echo "| what | median wall s | median CPU s | peak RSS MiB | wall ratio | CPU ratio |"
    echo "|---|---|---|---|---|---|"
    echo "| export --from-dir (ext4 loop mount, warm) | $ex | $exc | $(mib "$ex_res") | $(ratio "$ex" "$fd") of find | $(ratio "$exc" "$fdc") of find |"
    echo "| find -xdev -exec stat -c %W {} + | $fd | $fdc | $(mib "$fd_res") | 1 | 1 |"
    echo "| import of that manifest ($ROWS rows), undo file | $im | $imc | $(mib "$im_res") | $(ratio "$im" "$bf") of backfill | $(ratio "$imc" "$bfc") of backfill |"
    echo "| backfill --from dosattrib, undo file | $bf | $bfc | $(mib "$bf_res") | 1 | 1 |"
    echo
    echo "After the import, on a fresh copy: \`$CHECK\`"
    echo
    echo "Export summary: \`$(cat "$OUT/fromdir.summary")\`"
} > "$RESULTS"
cat "$RESULTS"
