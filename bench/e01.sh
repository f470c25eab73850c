#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/e01.sh: time `e4time timeline --format mactime` against TSK's
# `fls -r -m /` on the million-file image (bench/timeline.sh builds it)
# acquired as a compressed E01 (ewfacquire, deflate:fast), e4time with its
# container block cache (the default size) and without (E4TIME_CACHE_MB=0),
# and write bench/RESULTS-e01.md.
#
# Needs root (timeline.sh's loop mount, when million.img is not cached).
# Never run in CI. See bench/README.md.
#
#   sudo bench/e01.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR   where the images and outputs are cached [/var/tmp/e4time-bench]
#   RUNS        timed runs of each tool, alternating [BENCH_RUNS, 20]
#   FLS_RUNS    timed runs of fls [$RUNS]
#   CACHE_MB    E4TIME_CACHE_MB of the cached e4time runs; empty: e4time's
#               default []
#   E4TIME      the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
#   REBUILD     1: rebuild million.img and the E01 even if cached [0]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-$BENCH_RUNS}
FLS_RUNS=${FLS_RUNS:-$RUNS}
CACHE_MB=${CACHE_MB:-}
E4TIME=${E4TIME:-$top/tools/e4time}
REBUILD=${REBUILD:-0}
RESULTS=$here/RESULTS-e01.md

die() { echo "e01.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (timeline.sh's loop mount): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built: run make -C $top"
for t in fls ewfacquire ewfinfo; do
    command -v "$t" >/dev/null || die "$t missing: apt-get install -y sleuthkit ewf-tools"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin" "$BENCH_DIR/e01"

E4TIME_SRC=$E4TIME
E4TIME=$BENCH_DIR/bin/e4time-e01
cp "$E4TIME_SRC" "$E4TIME"
E4_SUM=$(sha256sum "$E4TIME" | cut -c1-12)
E4_BUILT=$(date -u -r "$E4TIME_SRC" +%Y-%m-%dT%H:%M:%SZ)
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
E4_DIRTY=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo ' (work tree modified)' || true)

# ---------------------------------------------------------------- images
# million.img as timeline.sh builds and caches it (1000 x 1000 empty files).
BUILD_ONLY=1 IMAGES=million REBUILD="$REBUILD" BENCH_DIR="$BENCH_DIR" \
    E4TIME="$E4TIME_SRC" "$here/timeline.sh"
img=$BENCH_DIR/million.img
e01=$BENCH_DIR/e01/million.E01

# One segment (-S far above the image's size), EnCase 6, deflate fast,
# 32 KiB chunks (ewfacquire's default 64 sectors).
if [ ! -f "$e01" ] || [ "$REBUILD" = 1 ] || [ "$img" -nt "$e01" ]; then
    rm -f "$BENCH_DIR"/e01/million.E*
    log "million.E01: ewfacquire -c deflate:fast -f encase6"
    t0=$EPOCHREALTIME
    ewfacquire -u -q -c deflate:fast -f encase6 -S 7EiB -t "$BENCH_DIR/e01/million" \
        "$img" > "$BENCH_DIR/e01/ewfacquire.log" 2>&1 ||
        die "ewfacquire failed: see $BENCH_DIR/e01/ewfacquire.log"
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$BENCH_DIR/e01/build-seconds"
fi
E01_SECS=$(cat "$BENCH_DIR/e01/build-seconds" 2>/dev/null || echo '?')
E01_SIZE=$(stat -c %s "$e01")
E01_CHUNK=$(ewfinfo "$e01" | awk -F':[ \t]*' '/Sectors per chunk/ { print $2 * 512 }')
log "million.E01: $E01_SIZE bytes, built in $E01_SECS s"

# ---------------------------------------------------------------- checks
out=$BENCH_DIR/out
log "warm-up: e4time on million.img and million.E01, fls on million.E01"
"$E4TIME" timeline --format mactime "$img" > "$out/e01.raw.body" 2> /dev/null || true
E4TIME_CACHE_MB=0 "$E4TIME" timeline --format mactime "$e01" > "$out/e01.nocache.body" 2> /dev/null || true
env ${CACHE_MB:+E4TIME_CACHE_MB=$CACHE_MB} "$E4TIME" timeline --format mactime "$e01" \
    > "$out/e01.e4time.body" 2> "$out/e01.e4time.warmup.stderr" || true
env ${CACHE_MB:+E4TIME_CACHE_MB=$CACHE_MB} "$E4TIME" timeline --threads 2 --format mactime "$e01" \
    > "$out/e01.threads2.body" 2> /dev/null || true
fls -r -m / "$e01" > "$out/e01.fls.body" 2> "$out/e01.fls.warmup.stderr" || true
[ -s "$out/e01.fls.body" ] || die "fls read nothing from $e01: see $out/e01.fls.warmup.stderr"

same() { if cmp -s "$1" "$2"; then echo "byte-identical"; else echo "DIFFERENT"; fi; }
SAME_RAW=$(same "$out/e01.e4time.body" "$out/e01.raw.body")
SAME_NOCACHE=$(same "$out/e01.nocache.body" "$out/e01.raw.body")
SAME_T2=$(same "$out/e01.threads2.body" "$out/e01.raw.body")
rm -f "$out/e01.nocache.body" "$out/e01.threads2.body"

# ---------------------------------------------------------------- timing
declare -A MED P90 RSS RMIN RMAX CPU NRUN RC
# Alternating: e4time (no cache), e4time, fls, e4time (no cache), ...;
# every run kept, a slow one too.
LOAD_START=$(load1)
for tool in e4time-nocache e4time fls; do
    : > "$out/e01.$tool.runs"; : > "$out/e01.$tool.runs.stderr"
done
rounds=$RUNS
[ "$FLS_RUNS" -gt "$rounds" ] && rounds=$FLS_RUNS
for ((i = 1; i <= rounds; i++)); do
    for tool in e4time-nocache e4time fls; do
        res=$out/e01.$tool.runs
        n=$RUNS
        [ "$tool" = fls ] && n=$FLS_RUNS
        [ "$i" -le "$n" ] || continue
        log "$tool run $i/$n (load $(load1))"
        case $tool in
        e4time-nocache)
            time_cmd "$res.stderr" env E4TIME_CACHE_MB=0 "$E4TIME" timeline --format mactime "$e01" >> "$res" ;;
        e4time)
            time_cmd "$res.stderr" env ${CACHE_MB:+E4TIME_CACHE_MB=$CACHE_MB} "$E4TIME" timeline --format mactime "$e01" >> "$res" ;;
        fls)
            time_cmd "$res.stderr" fls -r -m / "$e01" >> "$res" ;;
        esac
        tail -n 1 "$res" | sed 's/^/    wall s, peak KiB, rc, cpu s, load: /' >&2
    done
done
LOAD_END=$(load1)
for tool in e4time-nocache e4time fls; do
    res=$out/e01.$tool.runs
    n=$RUNS
    [ "$tool" = fls ] && n=$FLS_RUNS
    MED[$tool]=$(median "$res" 1)
    P90[$tool]=$(pctl "$res" 1 90)
    RMIN[$tool]=$(mincol "$res" 1)
    RMAX[$tool]=$(maxcol "$res" 1)
    RSS[$tool]=$(maxcol "$res" 2)
    CPU[$tool]=$(median "$res" 4)
    NRUN[$tool]=$n
    RC[$tool]=$(awk '$3 != 0 { n++ } END { print n + 0 }' "$res")
done

# ---------------------------------------------------------------- report
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
R=$(ratio "${MED[e4time]}" "${MED[fls]}")
R0=$(ratio "${MED[e4time-nocache]}" "${MED[fls]}")
R9=$(ratio "${P90[e4time]}" "${P90[fls]}")
R09=$(ratio "${P90[e4time-nocache]}" "${P90[fls]}")
CACHE_SHOWN=${CACHE_MB:-default ($(grep -Eo 'E4T_CACHE_DEFAULT_MB[[:space:]]+[0-9]+' "$top/lib/container/container.h" | awk '{ print $2 }'))}

{
    echo "# e4time timeline on an E01: benchmark results"
    echo
    echo "Written by \`bench/e01.sh\` (see \`bench/README.md\`). Overwritten on every run."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "- kernel: $(uname -sr)"
    echo "- libewf: $(ewfacquire -V 2>&1 | head -n 1); TSK: $(fls -V 2>&1 | head -n 1)"
    echo "- e4time: $("$E4TIME" --version 2>&1 | head -n 1); binary sha256 $E4_SUM built $E4_BUILT; tree at commit $E4_COMMIT$E4_DIRTY at start"
    echo "- image: million.img (bench/timeline.sh: 3 GiB, 1000 x 1000 empty files), acquired as \`million.E01\`: \`ewfacquire -c deflate:fast -f encase6\`, one segment, $E01_CHUNK-byte chunks, $(awk -v s="$E01_SIZE" 'BEGIN { printf "%.1f MiB", s / 1048576 }'), made in $E01_SECS s"
    echo "- runs: $RUNS of e4time each way, $FLS_RUNS of fls, alternating (no cache, cache, fls, ...), after one untimed warm-up each (page cache warm); every run kept (none dropped for a slow stretch)"
    echo "- load average (1 min): $LOAD_START at start, $LOAD_END at end ($(loadrange "$out/e01.e4time.runs") over the runs)"
    echo "- commands: \`e4time timeline --format mactime million.E01 > /dev/null\` with E4TIME_CACHE_MB=0 (no cache) and $CACHE_SHOWN MiB; \`fls -r -m / million.E01 > /dev/null\`"
    echo
    echo "| tool | runs | median s | p90 s | min s | max s | CPU s (median) | peak RSS MiB | / fls wall (median) | wall (p90) | CPU (median) | runs exit!=0 |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for tool in e4time e4time-nocache fls; do
        r=" | |"
        [ "$tool" = fls ] || r="$(ratio "${MED[$tool]}" "${MED[fls]}") | $(ratio "${P90[$tool]}" "${P90[fls]}") | $(ratio "${CPU[$tool]}" "${CPU[fls]}")"
        label=$tool
        [ "$tool" = e4time ] && label="e4time (cache $CACHE_SHOWN MiB)"
        [ "$tool" = e4time-nocache ] && label="e4time (no cache)"
        echo "| $label | ${NRUN[$tool]} | ${MED[$tool]} | ${P90[$tool]} | ${RMIN[$tool]} | ${RMAX[$tool]} | ${CPU[$tool]} | $(mib "${RSS[$tool]}") | $r | ${RC[$tool]} |"
    done
    echo
    echo "Checks:"
    echo
    echo "- e4time's mactime output of million.E01 against million.img's: $SAME_RAW (cache); $SAME_NOCACHE (no cache); $SAME_T2 (\`--threads 2\`, cache)"
    echo "- rows (\`wc -l\`, then the names in bodyfile field 2): $(rowcheck "$out/e01.e4time.body" "$out/e01.fls.body" "$out/e01.rowcheck")"
    echo
    echo "Target:"
    echo
    echo "- e4time at most 0.3x fls's time on million.E01 at the 90th percentile: $(awk -v r="$R9" 'BEGIN { print (r <= 0.3) ? "MET" : "MISSED" }') (p90 ratio $R9, median $R; without the cache $R09, median $R0)"
} > "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
