#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/memory.sh: the peak memory (maximum RSS, /usr/bin/time -v) of
# every e4time command that reads the whole filesystem, on one image, in
# bytes per inode in use (inodes in use: Inode count - Free inodes, from
# tune2fs -l).  The target is at most 128 B/inode on a million files.
#
#   bench/memory.sh IMAGE            (any ext4 image; bench/layouts.sh
#                                     and bench/timeline.sh make some)
#
# Environment: E4TIME (the binary, default tools/e4time of this tree),
# CMDS (the commands, one per line, as e4time arguments before IMAGE;
# default: the list below), TARGET (B/inode, default 128).
# Prints one markdown table row per command: arguments, exit status,
# max RSS (KiB), B/inode, MET or MISSED.  Needs no root (reads only).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
E4TIME=${E4TIME:-$top/tools/e4time}
TARGET=${TARGET:-128}
[ $# -eq 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
img=$1
[ -r "$img" ] || { echo "memory.sh: $img: not readable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "memory.sh: /usr/bin/time missing: apt-get install -y time" >&2; exit 2; }
command -v tune2fs >/dev/null || { echo "memory.sh: tune2fs missing: apt-get install -y e2fsprogs" >&2; exit 2; }

DEFAULT_CMDS="timeline
timeline -f jsonl
timeline --sort crtime
timeline --sort crtime -f jsonl
timeline --sort mtime -d
timeline -d
timeline -d --journal
timeline --flags -f jsonl
timeline --threads 1
export
anomalies
anomalies -f jsonl
anomalies --no-journal
audit
journal
info
check -n"
CMDS=${CMDS:-$DEFAULT_CMDS}

sb=$(tune2fs -l "$img")
count=$(awk -F: '/^Inode count:/ { gsub(/ /, "", $2); print $2 }' <<<"$sb")
free=$(awk -F: '/^Free inodes:/ { gsub(/ /, "", $2); print $2 }' <<<"$sb")
used=$((count - free))
[ "$used" -gt 0 ] || { echo "memory.sh: $img: no inode in use?" >&2; exit 2; }

echo "image: $img ($used inodes in use of $count); e4time: $E4TIME" \
    "($(cd "$top" && git describe --always --dirty 2>/dev/null || echo '?'))"
echo
echo "| command | exit | max RSS (KiB) | B/inode | <= $TARGET |"
echo "|---|---|---|---|---|"
tf=$(mktemp)
trap 'rm -f "$tf"' EXIT
n=0
while IFS= read -r c; do
    [ -n "$c" ] || continue
    set +e
    # shellcheck disable=SC2086 # the arguments are split on purpose
    /usr/bin/time -v -o "$tf" "$E4TIME" $c "$img" > /dev/null 2>&1
    rc=$?
    set -e
    kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
    bpi=$(awk -v k="$kib" -v u="$used" 'BEGIN { printf "%.0f", k * 1024 / u }')
    ok=MET
    [ "$bpi" -le "$TARGET" ] || ok=MISSED
    echo "| \`$c\` | $rc | $kib | $bpi | $ok |"
    n=$((n + 1))
done <<<"$CMDS"
echo
echo "$n commands measured"
