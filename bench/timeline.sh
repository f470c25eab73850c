#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/timeline.sh: time `e4time timeline --format mactime` against TSK's
# `fls -r -m /` on two kernel-written ext4 images (1,000,000 files in 1000
# directories; 300,000 files in one directory), and write bench/RESULTS.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/timeline.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR      where the images and outputs are cached [/var/tmp/e4time-bench]
#   RUNS           timed runs of each tool, alternating [BENCH_RUNS, 20]
#   FLS_RUNS       timed runs of fls on million.img [$RUNS]
#   FLS_BIG_RUNS   timed runs of fls on bigdir.img [1]
#   FLS_WARMUP     1: untimed fls warm-up run on each image; 0: skip it on
#                  bigdir.img (its cache is then warmed by e4time's) [1]
#   FLS_TIMEOUT    seconds before one fls run is killed and counted as ">N" [1800]
#   E4TIME         the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
#   IMAGES         which images to run, space separated ["million bigdir"]
#   REBUILD        1: rebuild the images even if cached [0]
#   BUILD_ONLY     1: build (or find cached) the images and stop; no timing
#                  (bench/e01.sh builds million.img this way) [0]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-$BENCH_RUNS}
FLS_RUNS=${FLS_RUNS:-$RUNS}
FLS_BIG_RUNS=${FLS_BIG_RUNS:-1}
FLS_WARMUP=${FLS_WARMUP:-1}
FLS_TIMEOUT=${FLS_TIMEOUT:-1800}
E4TIME=${E4TIME:-$top/tools/e4time}
IMAGES=${IMAGES:-million bigdir}
REBUILD=${REBUILD:-0}
BUILD_ONLY=${BUILD_ONLY:-0}
RESULTS=$here/RESULTS.md

die() { echo "timeline.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built: run make -C $top"
for t in fls mactime mkfs.ext4 tune2fs losetup; do
    command -v "$t" >/dev/null || die "$t missing: apt-get install -y sleuthkit e2fsprogs util-linux"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin"

# Time a copy taken now: the tree may be rebuilt while the benchmark runs.
E4TIME_SRC=$E4TIME
E4TIME=$BENCH_DIR/bin/e4time
cp "$E4TIME_SRC" "$E4TIME"
E4_SUM=$(sha256sum "$E4TIME" | cut -c1-12)
E4_BUILT=$(date -u -r "$E4TIME_SRC" +%Y-%m-%dT%H:%M:%SZ)
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
E4_DIRTY=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo ' (work tree modified)' || true)

# ---------------------------------------------------------------- images
mnt=""
trap unmount_mnt EXIT

# build_image NAME SIZE INODES FILLER: mkfs, loop-mount, run FILLER in the
# mount point, sync, umount; the image is renamed into place only when whole.
build_image() {
    local name=$1 size=$2 inodes=$3 filler=$4
    local img=$BENCH_DIR/$name.img tmp=$BENCH_DIR/$name.img.tmp
    if [ -f "$img" ] && [ "$REBUILD" != 1 ]; then
        log "$name.img: cached in $BENCH_DIR (built in $(cat "$BENCH_DIR/$name.build-seconds" 2>/dev/null || echo '?') s)"
        return
    fi
    rm -f "$img" "$tmp"
    log "$name.img: building ($size sparse, -N $inodes)"
    local t0=$EPOCHREALTIME
    truncate -s "$size" "$tmp"
    mkfs.ext4 -q -F -N "$inodes" "$tmp"
    mnt=$(mktemp -d /tmp/e4time-bench-mnt.XXXXXX)
    mount -o loop "$tmp" "$mnt"
    (cd "$mnt" && "$filler")
    sync
    umount "$mnt"
    rmdir "$mnt"
    mnt=""
    mv "$tmp" "$img"
    local t1=$EPOCHREALTIME
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    log "$name.img: built in $secs s"
    echo "$secs" > "$BENCH_DIR/$name.build-seconds"
}

fill_million() {
    local d
    for d in $(seq -w 0 999); do
        mkdir "d$d"
        (cd "d$d" && touch f{000..999})
    done
}

fill_bigdir() {
    mkdir big
    (cd big && printf 'f%06d\n' {0..299999} | xargs touch)
}

for name in $IMAGES; do
    case $name in
    million) build_image million 3G 1100000 fill_million ;;
    bigdir) build_image bigdir 1G 400000 fill_bigdir ;;
    *) die "unknown image $name (million, bigdir)" ;;
    esac
done
[ "$BUILD_ONLY" = 1 ] && exit 0

# ---------------------------------------------------------------- timing
# timed_run OUTFILE CMD...: appends "WALL_SECONDS PEAK_RSS_KIB RC CPU_S
# LOAD1" to OUTFILE (bench/lib.sh), the command's stderr to OUTFILE.stderr.
timed_run() {
    local out=$1; shift
    time_cmd "$out.stderr" "$@" >> "$out"
}

inodes_used() {
    tune2fs -l "$1" | awk -F: '/^Inode count/ { n = $2 } /^Free inodes/ { f = $2 }
        END { print n - f }'
}

declare -A MED P90 CPUM RSS RMIN RMAX NRUN TO ROWS RC LOAD0 LOAD1
e4_cmd() { "$E4TIME" timeline --format mactime "$1"; }

for name in $IMAGES; do
    img=$BENCH_DIR/$name.img
    fruns=$FLS_RUNS
    [ "$name" = bigdir ] && fruns=$FLS_BIG_RUNS

    # Warm-up runs, untimed: their output is kept for the row checks.
    log "$name: e4time warm-up"
    "$E4TIME" timeline --format mactime "$img" > "$BENCH_DIR/out/$name.e4time.body" \
        2> "$BENCH_DIR/out/$name.e4time.warmup.stderr" || RC[$name,e4warm]=$?
    if [ "$FLS_WARMUP" = 1 ] || [ "$name" != bigdir ]; then
        log "$name: fls warm-up (timeout $FLS_TIMEOUT s)"
        timeout "$FLS_TIMEOUT" fls -r -m / "$img" > "$BENCH_DIR/out/$name.fls.body" \
            2> "$BENCH_DIR/out/$name.fls.warmup.stderr" || RC[$name,flswarm]=$?
    else
        rm -f "$BENCH_DIR/out/$name.fls.body"
    fi

    # Alternating: e4time, fls, e4time, fls, ... (fls's runs stop after
    # $fruns); every run is kept, a slow one too.
    LOAD0[$name]=$(load1)
    for tool in e4time fls; do
        : > "$BENCH_DIR/out/$name.$tool.runs"; : > "$BENCH_DIR/out/$name.$tool.runs.stderr"
    done
    rounds=$RUNS
    [ "$fruns" -gt "$rounds" ] && rounds=$fruns
    for ((i = 1; i <= rounds; i++)); do
        for tool in e4time fls; do
            res=$BENCH_DIR/out/$name.$tool.runs
            n=$RUNS
            [ "$tool" = fls ] && n=$fruns
            [ "$i" -le "$n" ] || continue
            log "$name: $tool run $i/$n (load $(load1))"
            if [ "$tool" = e4time ]; then
                timed_run "$res" "$E4TIME" timeline --format mactime "$img"
            else
                timed_run "$res" timeout "$FLS_TIMEOUT" fls -r -m / "$img"
            fi
            tail -n 1 "$res" | sed 's/^/    wall s, peak KiB, rc, cpu s, load: /' >&2
        done
    done
    LOAD1[$name]=$(load1)
    for tool in e4time fls; do
        res=$BENCH_DIR/out/$name.$tool.runs
        n=$RUNS
        [ "$tool" = fls ] && n=$fruns
        MED[$name,$tool]=$(median "$res" 1)
        P90[$name,$tool]=$(pctl "$res" 1 90)
        CPUM[$name,$tool]=$(median "$res" 4)
        RMIN[$name,$tool]=$(mincol "$res" 1)
        RMAX[$name,$tool]=$(maxcol "$res" 1)
        RSS[$name,$tool]=$(maxcol "$res" 2)
        NRUN[$name,$tool]=$n
        TO[$name,$tool]=$(awk '$3 == 124 { n++ } END { print n + 0 }' "$res")
        RC[$name,$tool]=$(awk '$3 != 0 && $3 != 124 { n++ } END { print n + 0 }' "$res")
    done

    # fls ran only inside the timed runs when its warm-up was skipped: the row
    # count then comes from one more run (only if it finishes in time).
    if [ ! -s "$BENCH_DIR/out/$name.fls.body" ] && [ "${TO[$name,fls]}" = 0 ]; then
        log "$name: fls run for the row count"
        timeout "$FLS_TIMEOUT" fls -r -m / "$img" > "$BENCH_DIR/out/$name.fls.body" || true
    fi
    ROWS[$name,e4time]=$(wc -l < "$BENCH_DIR/out/$name.e4time.body")
    ROWS[$name,fls]=$(wc -l < "$BENCH_DIR/out/$name.fls.body" 2>/dev/null || echo 0)
    ROWS[$name,inodes]=$(inodes_used "$img")
done

# mactime must read e4time's mactime output without complaint.
MACTIME_CHECK="not run"
if [[ " $IMAGES " == *" million "* ]]; then
    log "million: mactime -b on e4time's output"
    set +e
    mactime -b "$BENCH_DIR/out/million.e4time.body" > /dev/null 2> "$BENCH_DIR/out/mactime.stderr"
    mrc=$?
    set -e
    mlines=$(wc -l < "$BENCH_DIR/out/mactime.stderr")
    if [ "$mrc" = 0 ] && [ "$mlines" = 0 ]; then
        MACTIME_CHECK="ok (exit 0, nothing on stderr)"
    else
        MACTIME_CHECK="FAILED (exit $mrc, $mlines stderr lines: $(head -c 300 "$BENCH_DIR/out/mactime.stderr" | tr '\n' ' '))"
    fi
fi

# ---------------------------------------------------------------- report
fmt_med() { # name tool
    local v=${MED[$1,$2]}
    if [ "${TO[$1,$2]}" != 0 ]; then echo ">$FLS_TIMEOUT (timed out ${TO[$1,$2]}/${NRUN[$1,$2]})"; else echo "$v"; fi
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

{
    echo "# e4time timeline benchmark results"
    echo
    echo "Written by \`bench/timeline.sh\` (see \`bench/README.md\`). Overwritten on every run."
    echo
    # the rows bench/layouts.sh keeps here, as they are
    if [ -f "$RESULTS" ] && grep -q '^<!-- layouts.sh: begin -->' "$RESULTS"; then
        sed -n '/^<!-- layouts.sh: begin -->/,/^<!-- layouts.sh: end -->/p' "$RESULTS"
    else
        echo "Other layouts (files per directory, name length, data, inline data, \`-N\`, inode size, flex_bg): run \`bench/layouts.sh\`."
    fi
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "- kernel: $(uname -sr)"
    echo "- e2fsprogs: $(mke2fs -V 2>&1 | head -n 1)"
    echo "- TSK: $(fls -V 2>&1 | head -n 1)"
    echo "- e4time: $("$E4TIME" --version 2>&1 | head -n 1); binary sha256 $E4_SUM built $E4_BUILT, copied at start from $E4TIME_SRC; tree at commit $E4_COMMIT$E4_DIRTY at start"
    echo "- runs: e4time $RUNS, fls $FLS_RUNS on million / $FLS_BIG_RUNS on bigdir, alternating (e4time, fls, e4time, ...), after one untimed warm-up each (page cache warm); every run kept (none dropped for a slow stretch); fls timeout $FLS_TIMEOUT s"
    echo "- load average (1 min): $(for name in $IMAGES; do printf '%s %s at start, %s at end (runs %s); ' "$name" "${LOAD0[$name]}" "${LOAD1[$name]}" "$(loadrange "$BENCH_DIR/out/$name.e4time.runs")"; done)"
    echo "- commands: \`e4time timeline --format mactime IMG > /dev/null\`, \`fls -r -m / IMG > /dev/null\`"
    echo
    echo "| image | tool | runs | median s | p90 s | min s | max s | CPU s (median) | peak RSS MiB | e4time/fls wall (median) | wall (p90) | CPU (median) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for name in $IMAGES; do
        for tool in e4time fls; do
            ratio=" | |"
            if [ "$tool" = e4time ]; then
                if [ "${TO[$name,fls]}" != 0 ]; then
                    ratio=$(awk -v a="${MED[$name,e4time]}" -v b="$FLS_TIMEOUT" 'BEGIN { printf "<%.4f", a / b }')" | - | -"
                else
                    ratio="$(ratio4 "${MED[$name,e4time]}" "${MED[$name,fls]}") | $(ratio4 "${P90[$name,e4time]}" "${P90[$name,fls]}") | $(ratio4 "${CPUM[$name,e4time]}" "${CPUM[$name,fls]}")"
                fi
            fi
            echo "| $name | $tool | ${NRUN[$name,$tool]} | $(fmt_med "$name" "$tool") | ${P90[$name,$tool]} | ${RMIN[$name,$tool]} | ${RMAX[$name,$tool]} | ${CPUM[$name,$tool]} | $(mib "${RSS[$name,$tool]}") | $ratio |"
        done
    done
    echo
    echo "| image | build s | inodes in use | e4time peak RSS bytes / inode | rows e4time | rows fls | e4time runs exit!=0 |"
    echo "|---|---|---|---|---|---|---|"
    for name in $IMAGES; do
        bpi=$(awk -v k="${RSS[$name,e4time]}" -v n="${ROWS[$name,inodes]}" 'BEGIN { printf "%.1f", k * 1024 / n }')
        echo "| $name | $(cat "$BENCH_DIR/$name.build-seconds" 2>/dev/null || echo cached) | ${ROWS[$name,inodes]} | $bpi | ${ROWS[$name,e4time]} | ${ROWS[$name,fls]} | ${RC[$name,e4time]} |"
    done
    echo
    echo "Row check (\`wc -l\`, then the names in bodyfile field 2):"
    echo
    for name in $IMAGES; do
        echo "- $name: $(rowcheck "$BENCH_DIR/out/$name.e4time.body" "$BENCH_DIR/out/$name.fls.body" "$BENCH_DIR/out/rowcheck")"
    done
    echo "- \`mactime -b\` on million's e4time output: $MACTIME_CHECK"
    echo
    echo "Targets:"
    echo
    for name in $IMAGES; do
        case $name in
        million)
            if [ "${TO[$name,fls]}" != 0 ]; then r=0; else
                r=$(awk -v a="${MED[$name,e4time]}" -v b="${MED[$name,fls]}" 'BEGIN { print a / b }'); fi
            if [ "${TO[$name,fls]}" != 0 ]; then r9=0; else
                r9=$(awk -v a="${P90[$name,e4time]}" -v b="${P90[$name,fls]}" 'BEGIN { print a / b }'); fi
            ok=$(awk -v r="$r9" 'BEGIN { print (r <= 0.2) ? "MET" : "MISSED" }')
            echo "- million: e4time at most 0.2x fls's time at the 90th percentile: $ok (p90 ratio $(printf %.4f "$r9"); median ratio $(printf %.4f "$r"))"
            ;;
        bigdir)
            ok=$(awk -v a="${MED[$name,e4time]}" 'BEGIN { print (a < 2) ? "MET" : "MISSED" }')
            echo "- bigdir: e4time under 2 s on the 300,000-entry directory: $ok (${MED[$name,e4time]} s)"
            ;;
        esac
        bpi=$(awk -v k="${RSS[$name,e4time]}" -v n="${ROWS[$name,inodes]}" 'BEGIN { printf "%.1f", k * 1024 / n }')
        ok=$(awk -v b="$bpi" 'BEGIN { print (b < 128) ? "MET" : "MISSED" }')
        echo "- $name: e4time peak memory under 128 bytes per inode: $ok ($bpi B/inode)"
    done
} > "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
