#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/check.sh: time `e4time check -n` against `e4time timeline -f
# mactime` on the same kernel-written image of 1,000,000 files (the one
# bench/timeline.sh builds), and `e4time check -y --crtime-from ctime`
# (every inode grown, with an e2undo file) against the timeline of the
# same image on an ext3 of 128-byte inodes the kernel filled and
# tune2fs -I 256 converted; write bench/RESULTS-check.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/check.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR   where the images and outputs are kept [/var/tmp/e4time-bench]
#   RUNS        timed runs of each command, alternating [3]
#   CONV_FILES  files in the converted ext3 image [1000000]
#   SKIP_MILLION 1: no check -n on million.img [0]
#   E4TIME      the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-3}
CONV_FILES=${CONV_FILES:-1000000}
SKIP_MILLION=${SKIP_MILLION:-0}
E4TIME=${E4TIME:-$top/tools/e4time}
RESULTS=$here/RESULTS-check.md

die() { echo "check.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built: run make -C $top"
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin" "$BENCH_DIR/undo"
E4TIME_SRC=$E4TIME
E4TIME=$BENCH_DIR/bin/e4time-check
cp "$E4TIME_SRC" "$E4TIME"
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
export E2FSPROGS_UNDO_DIR=$BENCH_DIR/undo

mnt=""
trap unmount_mnt EXIT

# ratio A B: A / B, two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# alternate NAME IMAGE_FN CMD_A... -- CMD_B...: RUNS runs of each, A then
# B, timings into out/NAME.a and out/NAME.b.  IMAGE_FN is called before
# each run of B (a fresh copy to write).
alternate() {
    local name=$1 prep=$2
    shift 2
    local a=() b=() i
    while [ "$1" != -- ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    : > "$BENCH_DIR/out/$name.a"
    : > "$BENCH_DIR/out/$name.b"
    for i in $(seq 1 "$RUNS"); do
        time_cmd "$BENCH_DIR/out/$name.err" "${a[@]}" >> "$BENCH_DIR/out/$name.a"
        [ -n "$prep" ] && "$prep"
        time_cmd "$BENCH_DIR/out/$name.err" "${b[@]}" >> "$BENCH_DIR/out/$name.b"
        log "$name run $i: $(tail -n1 "$BENCH_DIR/out/$name.a" | cut -d' ' -f1) s / $(tail -n1 "$BENCH_DIR/out/$name.b" | cut -d' ' -f1) s"
    done
}

# ------------------------------------------------- check -n on million.img
if [ "$SKIP_MILLION" != 1 ]; then
    [ -f "$BENCH_DIR/million.img" ] ||
        BUILD_ONLY=1 IMAGES=million "$here/timeline.sh"
    M=$BENCH_DIR/million.img
    log "million.img: warm-up"
    "$E4TIME" timeline -q -f mactime "$M" > /dev/null
    alternate million "" "$E4TIME" timeline -q -f mactime "$M" -- \
        "$E4TIME" check -n -q "$M"
fi

# ------------------------------------- check -y on a converted ext3 image
CONV=$BENCH_DIR/ext3conv-$CONV_FILES.img
WORK=$BENCH_DIR/ext3conv-work.img
if [ ! -f "$CONV" ]; then
    log "$(basename "$CONV"): building ($CONV_FILES files, ext3 -I 128, then tune2fs -I 256)"
    tmp=$CONV.tmp
    rm -f "$tmp"
    truncate -s $(( (CONV_FILES / 1000 + 1) * 8 ))M "$tmp"
    mkfs.ext3 -q -F -I 128 -N $((CONV_FILES + 2000)) "$tmp" 2>/dev/null
    mnt=$(mktemp -d /tmp/e4time-bench-mnt.XXXXXX)
    mount -o loop "$tmp" "$mnt"
    (cd "$mnt" && for d in $(seq -w 0 $((CONV_FILES / 1000 - 1))); do
        mkdir "d$d"; (cd "d$d" && touch f{000..999}); done)
    umount "$mnt"; rmdir "$mnt"; mnt=""
    e2fsck -fp "$tmp" > /dev/null
    E2FSPROGS_UNDO_DIR=/nonexistent tune2fs -I 256 "$tmp" > /dev/null 2>&1 ||
        tune2fs -I 256 "$tmp" > /dev/null
    mv "$tmp" "$CONV"
fi
# A fresh copy to write, synced: check -y fsyncs the image when it closes
# it, and would otherwise wait for the copy's own 300 MiB of dirty pages.
fresh_work() {
    rm -f "$WORK" "$BENCH_DIR"/undo/*
    cp --sparse=always "$CONV" "$WORK"
    sync -f "$WORK"
}
fresh_work
log "$(basename "$CONV"): warm-up"
"$E4TIME" timeline -q -f mactime "$WORK" > /dev/null
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
alternate conv fresh_work "$E4TIME" timeline -q -f mactime "$WORK" -- \
    "$E4TIME" check -y -q --crtime-from ctime "$WORK"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
e2fsck -fn "$WORK" > "$BENCH_DIR/out/conv.fsck" 2>&1 && FSCK=clean || FSCK="NOT clean (see out/conv.fsck)"
AFTER=$("$E4TIME" check -n -q "$WORK" | tail -n 1 || true)

{
    echo "# e4time check: benchmark"
    echo
    echo "bench/check.sh, $(date -u +%Y-%m-%d), commit $E4_COMMIT, $(nproc) CPUs, warm page cache, medians of $RUNS runs alternating with the reference."
    echo
    echo "| image | reference | median s (CPU s) | check | median s (CPU s) | wall ratio | CPU ratio | target |"
    echo "|---|---|---:|---|---:|---:|---:|---:|"
    if [ "$SKIP_MILLION" != 1 ]; then
        a=$(median "$BENCH_DIR/out/million.a" 1); b=$(median "$BENCH_DIR/out/million.b" 1)
        ac=$(median "$BENCH_DIR/out/million.a" 4); bc=$(median "$BENCH_DIR/out/million.b" 4)
        echo "| million.img (1,000,000 files) | timeline -f mactime | $a ($ac) | check -n | $b ($bc) | $(ratio "$b" "$a") | $(ratio "$bc" "$ac") | 1.5 |"
    fi
    a=$(median "$BENCH_DIR/out/conv.a" 1); b=$(median "$BENCH_DIR/out/conv.b" 1)
    ac=$(median "$BENCH_DIR/out/conv.a" 4); bc=$(median "$BENCH_DIR/out/conv.b" 4)
    echo "| ext3 -I 128 + tune2fs -I 256 ($CONV_FILES files) | timeline -f mactime | $a ($ac) | check -y --crtime-from ctime (undo file) | $b ($bc) | $(ratio "$b" "$a") | $(ratio "$bc" "$ac") | 3 |"
    echo
    echo "Load average (1, 5, 15 min) before and after the check -y runs: $LOAD_BEFORE / $LOAD_AFTER. Each copy to write is synced before its run (see fresh_work)."
    echo
    echo "Wall and CPU (user + system) times of each run (s): timeline $(awk '{printf "%s/%s ", $1, $4}' "$BENCH_DIR/out/conv.a")| check $(awk '{printf "%s/%s ", $1, $4}' "$BENCH_DIR/out/conv.b")"
    echo
    echo "After check -y: e2fsck -fn $FSCK; check -n: \`$AFTER\`."
    echo "Statuses of the check runs: million $(awk '{print $3}' "$BENCH_DIR/out/million.b" 2>/dev/null | tr '\n' ' ')/ conv $(awk '{print $3}' "$BENCH_DIR/out/conv.b" | tr '\n' ' ')(-n: 0 clean, 4 problems; -y: 1 fixed)."
} > "$RESULTS"
cat "$RESULTS"
