#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/audit.sh: time `e4time audit IMAGE --format json` against debugfs's
# `logdump -a` on a kernel-written ext4 image whose 1 GiB journal is full of
# atime-only transactions, and report seconds, journal GB/s and the ratio.
#
# Needs root (loop mounts). Never run in CI.
#
#   sudo bench/audit.sh
#
# The image (built once, about 3 minutes, cached in $BENCH_DIR as
# audit-1g.img with audit-1g.build):
#   truncate -s 3G; mkfs.ext4 -b 4096 -I 256 -N 131072 -J size=1024
#   (a 1 GiB journal: 262144 blocks) -E lazy_itable_init=0;
#   mount -o strictatime,commit=300; 100 directories x 1000 files of 2
#   bytes (100,000 files), sync; then $ROUNDS rounds of: sleep 0.05, cat
#   every file by explicit path (xargs from a list kept outside the image,
#   no readdir), sync. Each round is one transaction holding the 6,250
#   inode-table blocks of the files (100,000 inodes / 16 a block, plus
#   descriptors: about 24.5 MiB), so 48 rounds write about 1.15 GiB of
#   journal: the log wraps and every block of it holds a transaction.
#   The copy is taken WHILE MOUNTED after the last sync (cp --sparse=always
#   of the backing file): the journal needs recovery.
#
# Live and stale: with a sync after every round the kernel writes the
# checkpointed home blocks back at once, and at the next commit moves the
# log tail as soon as that frees a third of the log
# (j_max_transaction_buffers): so at any time at most about the newest
# third of the log is live (replayed by recovery, walked by debugfs
# logdump; 7 transactions, 17% of the log in the build made here) and the
# rest are stale transactions (found only by scanning, as e4time's audit
# does). A "whole log live" image
# cannot be made with this workload. The report gives both the journal
# size and the part debugfs walks (from s_start to the end of the live log).
#
# Timing: one untimed warm-up run of each command (the image is in the page
# cache), then RUNS timed runs of each, alternating; wall time by bash's
# EPOCHREALTIME around /usr/bin/time (peak RSS from %M). GB/s = 10^9 bytes
# a second: for e4time the whole journal (it scans every block of it), for
# debugfs both the whole journal and the live part it walks. Results to
# stdout and $RESULTS.
#
# Floor: bench/audit-floor.c (built here with cc -O2, x86-64) reads the
# journal's own extents of the same image in the same loop, as a plain
# pread() of 1 MiB at a time, and mapped (mmap, MAP_POPULATE) with a
# CRC32C of every block: what any reader that checksums every journal
# block pays on this machine, before it compares anything.
#
# Second image: when $BENCH_DIR/j128-live.img exists (a 128 MiB journal,
# 20,000 files read 22 times under strictatime, copied while mounted; the
# recipe is below), both tools are timed on it in the same loop too.
#   truncate -s 1G j128.img && mkfs.ext4 -q -F -J size=128 j128.img
#   mount -o loop,strictatime,commit=300 j128.img /mnt && mkdir /mnt/d
#   (cd /mnt/d && seq 1 20000 | xargs -n 1000 touch) && sync
#   for r in $(seq 1 22); do
#       find /mnt/d -type f -print0 | xargs -0 cat >/dev/null; sync; done
#   cp --sparse=always j128.img j128-live.img && umount /mnt
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR   image cache and outputs [/var/tmp/e4time-bench]
#   RUNS        timed runs of each command [3]
#   ROUNDS      read rounds of the build [48]
#   E4TIME      the binary to time; a copy taken at start is timed [$top/tools/e4time]
#   REBUILD     1: rebuild the image even if cached [0]
#   RESULTS     where the report goes [bench/RESULTS-audit.md]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-48}
E4TIME=${E4TIME:-$top/tools/e4time}
REBUILD=${REBUILD:-0}
RESULTS=${RESULTS:-$here/RESULTS-audit.md}
NDIRS=100
NPERDIR=1000

die() { echo "audit.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
for t in mkfs.ext4 debugfs dumpe2fs losetup mount umount xargs sha256sum; do
    command -v "$t" >/dev/null || die "$t missing: apt-get install -y e2fsprogs util-linux findutils coreutils"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin"
OUT=$BENCH_DIR/out
IMG=$BENCH_DIR/audit-1g.img
BUILD=$BENCH_DIR/audit-1g.build

# Time a copy of e4time taken now (the tree may be rebuilt meanwhile; a
# name of its own: other work trees share $BENCH_DIR); the benchmark still
# runs the debugfs part when e4time or its audit command is missing.
E4_OK=0
E4_NOTE=""
TMPBIN=()
if [ -x "$E4TIME" ]; then
    E4TIME_SRC=$E4TIME
    E4TIME=$(mktemp "$BENCH_DIR/bin/e4time-audit.XXXXXX")
    TMPBIN+=("$E4TIME")
    cp "$E4TIME_SRC" "$E4TIME"
    chmod 755 "$E4TIME"
    E4_SUM=$(sha256sum "$E4TIME" | cut -c1-12)
    E4_BUILT=$(date -u -r "$E4TIME_SRC" +%Y-%m-%dT%H:%M:%SZ)
    E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
    E4_DIRTY=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo ' (work tree modified)' || true)
    E4_NOTE="$("$E4TIME" --version 2>&1 | head -n 1); binary sha256 $E4_SUM built $E4_BUILT, copied at start from $E4TIME_SRC; tree at commit $E4_COMMIT$E4_DIRTY"
    E4_OK=1
else
    E4_NOTE="$E4TIME not built (make -C $top): e4time not timed"
fi

# ---------------------------------------------------------------- image
mnt="" loop=""
cleanup() {
    set +e
    unmount_mnt
    [ -z "$loop" ] || losetup -d "$loop"
    [ "${#TMPBIN[@]}" = 0 ] || rm -f "${TMPBIN[@]}"
}
trap cleanup EXIT

build_image() {
    local tmp=$BENCH_DIR/audit-1g.tmp.img list=$BENCH_DIR/audit-1g.files t0 t1 r d
    rm -f "$IMG" "$BUILD" "$tmp"
    log "audit-1g.img: building (3 GiB sparse, 1 GiB journal, $((NDIRS * NPERDIR)) files, $ROUNDS strictatime rounds)"
    t0=$EPOCHREALTIME
    truncate -s 3G "$tmp"
    mkfs.ext4 -q -F -b 4096 -I 256 -N 131072 -J size=1024 -E lazy_itable_init=0 "$tmp"
    loop=$(losetup --find --show "$tmp")
    mnt=$(mktemp -d /tmp/e4time-bench-audit.XXXXXX)
    mount -t ext4 -o strictatime,commit=300 "$loop" "$mnt"
    # the list of paths, relative to the mount point, outside the image
    : >"$list"
    awk -v nd="$NDIRS" -v nf="$NPERDIR" 'BEGIN { ORS = "\0"
        for (d = 0; d < nd; d++) for (f = 0; f < nf; f++) printf "d%03d/f%04d%s", d, f, ORS }' >"$list"
    (
        cd "$mnt"
        for ((d = 0; d < NDIRS; d++)); do mkdir "$(printf 'd%03d' "$d")"; done
        # 2-byte files, created through xargs: one process per 1000 names
        xargs -0 -n 1000 sh -c 'for f; do printf "x\n" > "$f"; done' sh <"$list"
    )
    sync
    log "audit-1g.img: files made; $ROUNDS read rounds"
    for ((r = 1; r <= ROUNDS; r++)); do
        sleep 0.05
        (cd "$mnt" && xargs -0 -n 5000 cat <"$list" >/dev/null)
        sync
        if ((r % 8 == 0)); then log "  round $r/$ROUNDS"; fi
    done
    local jinfo
    jinfo=$(cat /proc/fs/jbd2/"${loop##*/}"-8/info 2>/dev/null || true)
    cp --sparse=always "$tmp" "$IMG.tmp"
    umount "$mnt"
    rmdir "$mnt"
    mnt=""
    losetup -d "$loop"
    loop=""
    rm -f "$tmp"
    mv "$IMG.tmp" "$IMG"
    t1=$EPOCHREALTIME
    {
        echo "build_seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
        echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "kernel=$(uname -r)"
        echo "rounds=$ROUNDS"
        echo "files=$((NDIRS * NPERDIR))"
        echo "jbd2_transactions=$(printf '%s\n' "$jinfo" | awk 'NR == 1 { print $1 }')"
        echo "jbd2_logged_blocks_per_transaction=$(printf '%s\n' "$jinfo" | awk '/logged blocks per transaction/ { print $1 }')"
        echo "sha256=$(sha256sum "$IMG" | cut -d' ' -f1)"
    } >"$BUILD"
    log "audit-1g.img: built in $(sed -n 's/^build_seconds=//p' "$BUILD") s"
}

if [ -f "$IMG" ] && [ -f "$BUILD" ] && [ "$REBUILD" != 1 ]; then
    log "audit-1g.img: cached in $BENCH_DIR (built $(sed -n 's/^built=//p' "$BUILD"))"
else
    build_image
fi
bval() { sed -n "s/^$1=//p" "$BUILD"; }

# ---------------------------------------------------------------- journal facts
dumpe2fs -h "$IMG" >"$OUT/audit.dumpe2fs" 2>&1
jfield() { sed -n "s/^$1: *//p" "$OUT/audit.dumpe2fs"; }
J_BLOCKS=$(jfield 'Total journal blocks')
J_BS=$(jfield 'Block size')
J_START=$(jfield 'Journal start')
J_SEQ=$(jfield 'Journal sequence')
J_BYTES=$((J_BLOCKS * J_BS))
# the live log as debugfs walks it: from s_start to "No magic number at block N"
debugfs -R logdump "$IMG" >"$OUT/audit.logdump" 2>&1 || true
LIVE_END=$(sed -n 's/^No magic number at block \([0-9]*\).*/\1/p' "$OUT/audit.logdump" | tail -n 1)
LIVE_TRANS=$(grep -c 'commit block' "$OUT/audit.logdump" || true)
if [ -n "$LIVE_END" ] && [ "$J_START" != 0 ]; then
    LIVE_BLOCKS=$(((LIVE_END - J_START + J_BLOCKS - 1) % (J_BLOCKS - 1)))
else
    LIVE_BLOCKS=0
fi
LIVE_BYTES=$((LIVE_BLOCKS * J_BS))
LOGGED=$(awk -v n="$(bval jbd2_transactions)" -v b="$(bval jbd2_logged_blocks_per_transaction)" 'BEGIN { print n * b }')
# the journal's extents (leaf lines of the journal inode's extent tree)
mapfile -t J_RUNS < <(debugfs -R "ex <8>" "$IMG" 2>/dev/null | awk '
    $1 ~ /\/$/ && $1 + 0 == $2 + 0 && $6 == "-" && $9 == "-" { print $8 ":" $10 - $8 + 1 }')
J_RUN_BLOCKS=0
for r in "${J_RUNS[@]}"; do J_RUN_BLOCKS=$((J_RUN_BLOCKS + ${r#*:})); done
FLOOR_OK=0
FLOOR_NOTE="not measured"
if [ "$J_RUN_BLOCKS" != "$J_BLOCKS" ]; then
    FLOOR_NOTE="not measured: the journal's extents ($J_RUN_BLOCKS blocks) do not add up to $J_BLOCKS blocks"
elif [ "$(uname -m)" != x86_64 ] || ! command -v cc >/dev/null; then
    FLOOR_NOTE="not measured: needs cc on x86-64"
else
    FLOOR=$(mktemp "$BENCH_DIR/bin/audit-floor.XXXXXX")
    TMPBIN+=("$FLOOR")
    if cc -O2 -o "$FLOOR" "$here/audit-floor.c"; then
        FLOOR_OK=1
        FLOOR_NOTE="${#J_RUNS[@]} extents: ${J_RUNS[*]} (start:blocks)"
    else
        FLOOR_NOTE="not measured: bench/audit-floor.c does not build"
    fi
fi

# ---------------------------------------------------------------- timing
# timed_run OUTFILE CMD...: appends "WALL_SECONDS PEAK_RSS_KIB RC CPU_SECONDS"
# to OUTFILE (bench/lib.sh), the command's stderr to OUTFILE.stderr.
timed_run() {
    local out=$1; shift
    time_cmd "$out.stderr" "$@" >> "$out"
}

log "warming the page cache"
cat "$IMG" >/dev/null

E4_CMD=("$E4TIME" audit "$IMG" --format json)
DF_CMD=(debugfs -R "logdump -a" "$IMG")
E4_STATUS="not run"
if [ "$E4_OK" = 1 ]; then
    log "e4time audit warm-up"
    set +e
    "${E4_CMD[@]}" >"$OUT/audit.e4time.json" 2>"$OUT/audit.e4time.warmup.stderr"
    rc=$?
    set -e
    if [ "$rc" = 0 ]; then
        E4_STATUS="ok"
    else
        E4_OK=0
        E4_STATUS="e4time audit failed (exit $rc: $(head -c 300 "$OUT/audit.e4time.warmup.stderr" | tr '\n' ' ')): not timed"
        log "$E4_STATUS"
    fi
fi
log "debugfs logdump -a warm-up"
debugfs -R "logdump -a" "$IMG" >"$OUT/audit.logdump-a" 2>&1 || true
DF_LINES=$(wc -l <"$OUT/audit.logdump-a")
DF_OUTBYTES=$(wc -c <"$OUT/audit.logdump-a")
rm -f "$OUT/audit.logdump-a"

E4_RES=$OUT/audit.e4time.runs
DF_RES=$OUT/audit.debugfs.runs
FR_RES=$OUT/audit.floor-read.runs
FC_RES=$OUT/audit.floor-mapcrc.runs
S_IMG=$BENCH_DIR/j128-live.img
S_E4=$OUT/audit.j128.e4time.runs
S_DF=$OUT/audit.j128.debugfs.runs
S_OK=0
if [ -f "$S_IMG" ] && [ "$E4_OK" = 1 ]; then
    S_OK=1
    cat "$S_IMG" >/dev/null
    "$E4TIME" audit "$S_IMG" --format json >"$OUT/audit.j128.e4time.json" 2>/dev/null || true
    debugfs -R "logdump -a" "$S_IMG" >/dev/null 2>&1 || true
    S_BLOCKS=$(dumpe2fs -h "$S_IMG" 2>/dev/null | sed -n 's/^Total journal blocks: *//p')
    S_BS=$(dumpe2fs -h "$S_IMG" 2>/dev/null | sed -n 's/^Block size: *//p')
    S_BYTES=$((S_BLOCKS * S_BS))
fi
for f in "$E4_RES" "$DF_RES" "$FR_RES" "$FC_RES" "$S_E4" "$S_DF"; do : >"$f"; : >"$f.stderr"; done
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 1; i <= RUNS; i++)); do
    if [ "$E4_OK" = 1 ]; then
        log "e4time audit run $i/$RUNS"
        timed_run "$E4_RES" "${E4_CMD[@]}"
        tail -n 1 "$E4_RES" | sed 's/^/    wall s, peak KiB, rc: /' >&2
    fi
    log "debugfs logdump -a run $i/$RUNS"
    timed_run "$DF_RES" "${DF_CMD[@]}"
    tail -n 1 "$DF_RES" | sed 's/^/    wall s, peak KiB, rc: /' >&2
    if [ "$FLOOR_OK" = 1 ]; then
        log "floor: read, map+crc run $i/$RUNS"
        timed_run "$FR_RES" "$FLOOR" read "$IMG" "$J_BS" "${J_RUNS[@]}"
        timed_run "$FC_RES" "$FLOOR" map+crc "$IMG" "$J_BS" "${J_RUNS[@]}"
    fi
    if [ "$S_OK" = 1 ]; then
        log "j128-live.img: e4time audit, debugfs logdump -a run $i/$RUNS"
        timed_run "$S_E4" "$E4TIME" audit "$S_IMG" --format json
        timed_run "$S_DF" debugfs -R "logdump -a" "$S_IMG"
    fi
done

LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
gbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.3f", b / 1e9 / s; else print "nan" }'; }
DF_MED=$(median "$DF_RES" 1)
if [ "$E4_OK" = 1 ]; then
    E4_MED=$(median "$E4_RES" 1)
    RATIO=$(awk -v a="$E4_MED" -v b="$DF_MED" 'BEGIN { printf "%.3f", a / b }')
else
    E4_MED=nan RATIO=nan
fi

{
    echo "# e4time audit benchmark results"
    echo
    echo "Written by \`bench/audit.sh\`. Overwritten on every run."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "- kernel: $(uname -sr); image built on $(bval kernel) at $(bval built) in $(bval build_seconds) s"
    echo "- e2fsprogs: $(debugfs -V 2>&1 | head -n 1)"
    echo "- e4time: $E4_NOTE; audit: $E4_STATUS"
    echo "- image: $IMG (live copy: needs recovery), sha256 $(bval sha256 | cut -c1-16)..., $(bval files) files, $(bval rounds) strictatime read rounds with sync"
    echo "- journal: $J_BLOCKS blocks of $J_BS bytes = $J_BYTES bytes; the kernel committed $(bval jbd2_transactions) transactions of $(bval jbd2_logged_blocks_per_transaction) logged blocks on average = $LOGGED blocks ($(awk -v a="$LOGGED" -v b="$J_BLOCKS" 'BEGIN { printf "%.2f", a / b }') x the log)"
    echo "- live log: s_start $J_START, s_sequence $J_SEQ, $LIVE_TRANS transactions, $LIVE_BLOCKS blocks = $LIVE_BYTES bytes ($(awk -v a="$LIVE_BLOCKS" -v b="$J_BLOCKS" 'BEGIN { printf "%.0f", 100 * a / b }')% of the log); the rest of the log holds stale transactions"
    echo "- debugfs \`logdump -a\` output: $DF_LINES lines, $DF_OUTBYTES bytes (it walks the live log only, and reads descriptor and commit blocks, not the journaled copies)"
    echo "- runs: $RUNS timed runs of each command after one untimed warm-up each (page cache warm), alternating"
    echo "- commands: \`e4time audit IMG --format json > /dev/null\`, \`debugfs -R \"logdump -a\" IMG > /dev/null\`"
    echo
    echo "- load average: $LOAD0 at the start of the timed runs, $LOAD1 at the end ($(nproc) CPUs)"
    echo
    echo "| command | runs | median s | min s | max s | median CPU s | peak RSS MiB | journal GB/s (whole log) | GB/s of the part walked |"
    echo "|---|---|---|---|---|---|---|---|---|"
    if [ "$E4_OK" = 1 ]; then
        echo "| e4time audit | $RUNS | $E4_MED | $(sort -g "$E4_RES" | head -n 1 | cut -d' ' -f1) | $(maxcol "$E4_RES" 1) | $(median "$E4_RES" 4) | $(awk -v k="$(maxcol "$E4_RES" 2)" 'BEGIN { printf "%.1f", k / 1024 }') | $(gbps "$J_BYTES" "$E4_MED") | $(gbps "$J_BYTES" "$E4_MED") (whole log) |"
    else
        echo "| e4time audit | 0 | - | - | - | - | - | - | - |"
    fi
    echo "| debugfs logdump -a | $RUNS | $DF_MED | $(sort -g "$DF_RES" | head -n 1 | cut -d' ' -f1) | $(maxcol "$DF_RES" 1) | $(median "$DF_RES" 4) | $(awk -v k="$(maxcol "$DF_RES" 2)" 'BEGIN { printf "%.1f", k / 1024 }') | $(gbps "$J_BYTES" "$DF_MED") | $(gbps "$LIVE_BYTES" "$DF_MED") (live log) |"
    if [ "$FLOOR_OK" = 1 ]; then
        echo "| floor: pread of the journal, 1 MiB at a time | $RUNS | $(median "$FR_RES" 1) | $(sort -g "$FR_RES" | head -n 1 | cut -d' ' -f1) | $(maxcol "$FR_RES" 1) | $(median "$FR_RES" 4) | - | $(gbps "$J_BYTES" "$(median "$FR_RES" 1)") | (whole log) |"
        echo "| floor: mmap of the journal + CRC32C of every block | $RUNS | $(median "$FC_RES" 1) | $(sort -g "$FC_RES" | head -n 1 | cut -d' ' -f1) | $(maxcol "$FC_RES" 1) | $(median "$FC_RES" 4) | - | $(gbps "$J_BYTES" "$(median "$FC_RES" 1)") | (whole log) |"
    fi
    echo
    echo "e4time / debugfs (median wall time): $RATIO"
    echo
    echo "e4time's peak RSS counts the journal it maps (page cache pages shared with the kernel, read in place, not memory it allocates)."
    echo
    echo "Floor (bench/audit-floor.c, same loop): $FLOOR_NOTE."
    if [ "$S_OK" = 1 ]; then
        S_E4M=$(median "$S_E4" 1)
        S_DFM=$(median "$S_DF" 1)
        echo
        echo "Second image, same loop: $S_IMG, journal $S_BLOCKS blocks of $S_BS bytes = $S_BYTES bytes"
        echo
        echo "| command | runs | median s | min s | max s | median CPU s | journal GB/s (whole log) |"
        echo "|---|---|---|---|---|---|---|"
        echo "| e4time audit | $RUNS | $S_E4M | $(sort -g "$S_E4" | head -n 1 | cut -d' ' -f1) | $(maxcol "$S_E4" 1) | $(median "$S_E4" 4) | $(gbps "$S_BYTES" "$S_E4M") |"
        echo "| debugfs logdump -a | $RUNS | $S_DFM | $(sort -g "$S_DF" | head -n 1 | cut -d' ' -f1) | $(maxcol "$S_DF" 1) | $(median "$S_DF" 4) | $(gbps "$S_BYTES" "$S_DFM") |"
        echo
        echo "e4time / debugfs on it (median wall time): $(awk -v a="$S_E4M" -v b="$S_DFM" 'BEGIN { printf "%.3f", a / b }')"
    fi
    echo
    echo "Exit codes != 0: e4time $(awk '$3 != 0 { n++ } END { print n + 0 }' "$E4_RES"), debugfs $(awk '$3 != 0 { n++ } END { print n + 0 }' "$DF_RES")."
} >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
