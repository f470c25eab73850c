#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/layouts.sh: `e4time timeline --format mactime` against TSK's
# `fls -r -m /` on kernel-written ext4 images of several layouts (a base
# layout and one-factor variations of it), e4time's peak RSS per inode,
# --threads 2 against 1, and the floor (bench/layouts-floor.c: the inode
# tables and directory blocks read from the page cache, one bodyfile line
# formatted per name). Writes bench/RESULTS-layouts.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/layouts.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR  image cache and outputs [/var/tmp/e4time-bench]
#   LAYOUTS    which layouts, space separated [all but ten-million]
#   RUNS       rounds per layout: each times e4time, fls, e4time
#              --threads 1, the floor, e4time --threads 2, in turn
#              [BENCH_RUNS, 20; fewer for a quick look]
#   FLS_RUNS   rounds that time fls too [RUNS]
#   FLS_TIMEOUT seconds before one fls run is killed, shown as ">N" [900]
#   E4TIME     the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
#   REBUILD    1: rebuild the images even if cached [0]
#   BUILD_ONLY 1: build (or find cached) the images and stop [0]
#   RESULTS    where to write the results [bench/RESULTS-layouts.md]
#   SUMMARY    where to keep one row per layout [bench/RESULTS.md]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
ALL="base fpd10 fpd10n fpd100k name40 data inline nsized inode1024 noflex usr"
LAYOUTS=${LAYOUTS:-$ALL}
RUNS=${RUNS:-$BENCH_RUNS}
FLS_RUNS=${FLS_RUNS:-$RUNS}
FLS_TIMEOUT=${FLS_TIMEOUT:-900}
E4TIME=${E4TIME:-$top/tools/e4time}
REBUILD=${REBUILD:-0}
BUILD_ONLY=${BUILD_ONLY:-0}
RESULTS=${RESULTS:-$here/RESULTS-layouts.md}
SUMMARY=${SUMMARY:-$here/RESULTS.md}
LDIR=$BENCH_DIR/layouts

die() { echo "layouts.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
for t in fls mkfs.ext4 tune2fs cc; do
    command -v "$t" >/dev/null || die "$t missing: apt-get install -y sleuthkit e2fsprogs gcc"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"
mkdir -p "$LDIR" "$BENCH_DIR/out" "$BENCH_DIR/bin"

# layout NAME: "SIZE|MKFS_OPTIONS|DIRS FILES_PER_DIR NAME_LEN DATA_BYTES DATA_EVERY|what"
layout() {
    case $1 in
    base)      echo "17G||1000 1000 8 0 0|1000 dirs x 1000 empty files, 8-byte names, mkfs defaults (256-byte inodes, flex_bg)" ;;
    fpd10)     echo "17G||100000 10 8 0 0|100,000 dirs x 10 files (in /: fls cannot read it)" ;;
    fpd10n)    echo "17G||100000 10 8 0 0 1000|1000 dirs x 100 dirs x 10 files" ;;
    fpd100k)   echo "17G||10 100000 8 0 0|10 dirs x 100,000 files (htree)" ;;
    name40)    echo "17G||1000 1000 40 0 0|40-byte names" ;;
    data)      echo "17G||1000 1000 8 100 10|every tenth file 100 bytes (one data block)" ;;
    inline)    echo "17G|-O inline_data|1000 1000 8 100 1|inline_data, every file 100 bytes (inline)" ;;
    nsized)    echo "8G|-N 1010000|1000 1000 8 0 0|8 GiB, mkfs -N 1010000 (inode tables sized to the files)" ;;
    inode1024) echo "17G|-I 1024|1000 1000 8 0 0|1024-byte inodes" ;;
    noflex)    echo "17G|-O ^flex_bg|1000 1000 8 0 0|flex_bg off" ;;
    ten-million) echo "170G||10000 1000 8 0 0|10,000 dirs x 1000 files (10,000,000)" ;;
    usr)       echo "17G||USR ${USR_COPIES:-6}|${USR_COPIES:-6} copies of this machine's /usr by \`cp -a --attributes-only\` (real names, symlinks, hard links, depth; files empty)" ;;
    *) die "unknown layout $1 ($ALL ten-million)" ;;
    esac
}

MKFILES=$BENCH_DIR/bin/mkfiles
cc -O2 -o "$MKFILES" "$here/mkfiles.c" || die "bench/mkfiles.c does not build"

mnt=""
trap unmount_mnt EXIT

# build NAME: mkfs, loop-mount (noinit_itable: the unused inode tables of a
# sparse file read as zeros anyway), bench/mkfiles through the kernel, sync,
# umount, e2fsck -fn; renamed into place only when whole.
build() {
    local name=$1 spec size opts args
    spec=$(layout "$name")
    IFS='|' read -r size opts args _ <<< "$spec"
    local img=$LDIR/$name.img tmp=$LDIR/$name.img.tmp
    if [ -f "$img" ] && [ "$REBUILD" != 1 ]; then
        log "$name: cached ($(cat "$LDIR/$name.build" 2>/dev/null))"
        return
    fi
    rm -f "$img" "$tmp"
    log "$name: building ($size sparse, mkfs.ext4 $opts, mkfiles $args)"
    local t0=$EPOCHREALTIME
    truncate -s "$size" "$tmp"
    # shellcheck disable=SC2086
    nice mkfs.ext4 -q -F $opts "$tmp"
    mnt=$(mktemp -d /tmp/e4time-bench-mnt.XXXXXX)
    mount -o loop,noinit_itable "$tmp" "$mnt"
    case $args in
    USR\ *)
        # a tree a real system made: /usr, copied by cp (no data: the
        # timeline reads inodes and directories only)
        local k
        for ((k = 1; k <= ${args#USR }; k++)); do
            nice cp -a --attributes-only /usr "$mnt/usr$k"
        done ;;
    *)
        # shellcheck disable=SC2086
        (cd "$mnt" && nice "$MKFILES" $args) ;;
    esac
    sync
    umount "$mnt"
    rmdir "$mnt"
    mnt=""
    nice e2fsck -fn "$tmp" > "$LDIR/$name.fsck" 2>&1 || die "$name: e2fsck -fn not clean ($LDIR/$name.fsck)"
    mv "$tmp" "$img"
    local secs
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    echo "built in $secs s, $(du -k "$img" | awk '{ printf "%.0f MiB", $1 / 1024 }') in use, $(date -u +%Y-%m-%dT%H:%MZ)" > "$LDIR/$name.build"
    log "$name: $(cat "$LDIR/$name.build")"
}

for name in $LAYOUTS; do build "$name"; done
[ "$BUILD_ONLY" = 1 ] && exit 0

# ---------------------------------------------------------------- timing
E4TIME_SRC=$E4TIME
E4TIME=$BENCH_DIR/bin/e4time-layouts
cp "$E4TIME_SRC" "$E4TIME"
E4_SUM=$(sha256sum "$E4TIME" | cut -c1-12)
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
E4_DIRTY=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo ' (work tree modified)' || true)
OLD=""
if [ -n "${E4TIME_OLD:-}" ]; then
    OLD=$BENCH_DIR/bin/e4time-layouts-old
    cp "$E4TIME_OLD" "$OLD"
    OLD_SUM=$(sha256sum "$OLD" | cut -c1-12)
fi
FLOOR=$BENCH_DIR/bin/layouts-floor
cc -O2 -o "$FLOOR" "$here/layouts-floor.c" -lext2fs -lcom_err || die "bench/layouts-floor.c does not build"

inodes_used() {
    tune2fs -l "$1" | awk -F: '/^Inode count/ { n = $2 } /^Free inodes/ { f = $2 }
        END { print n - f }'
}
# run RESFILE CMD...: appends "WALL PEAK_KIB RC CPU" (bench/lib.sh)
run() { local r=$1; shift; time_cmd "$r.stderr" "$@" >> "$r"; }

OUT=$BENCH_DIR/out/layouts
mkdir -p "$OUT"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A LSTART LEND
for name in $LAYOUTS; do
    img=$LDIR/$name.img
    LSTART[$name]=$(load1)
    log "$name: warm-up, outputs kept"
    "$E4TIME" timeline --format mactime "$img" > "$OUT/$name.e4time.body" 2> "$OUT/$name.e4time.stderr" || true
    for k in e4 e4t1 e4t2 fls floor old oldt1 oldt2; do : > "$OUT/$name.$k.runs"; : > "$OUT/$name.$k.runs.stderr"; done
    # fls's warm-up: its output kept for the row check; timed, not counted
    # (its rc tells a timeout: then fls is not run again)
    log "$name: fls warm-up (timeout $FLS_TIMEOUT s)"
    time_cmd "$OUT/$name.fls.runs.stderr" sh -c 'timeout "$1" fls -r -m / "$2" > "$3"' sh \
        "$FLS_TIMEOUT" "$img" "$OUT/$name.fls.body" > "$OUT/$name.fls.warmup"
    fruns=$FLS_RUNS
    if [ "$(cut -d' ' -f3 "$OUT/$name.fls.warmup")" != 0 ]; then
        cat "$OUT/$name.fls.warmup" >> "$OUT/$name.fls.runs"; fruns=0
    fi
    "$FLOOR" "$img" > "$OUT/$name.floor.body"
    [ -z "$OLD" ] || { "$OLD" timeline --format mactime "$img" > "$OUT/$name.old.body" 2>/dev/null || true; }
    for ((i = 1; i <= RUNS; i++)); do
        log "$name: round $i/$RUNS (load $(load1))"
        run "$OUT/$name.e4.runs" "$E4TIME" timeline --format mactime "$img"
        [ "$i" -gt "$fruns" ] || run "$OUT/$name.fls.runs" timeout "$FLS_TIMEOUT" fls -r -m / "$img"
        # one thread and the floor take turns to come first: the first
        # after fls starts on memory the host has taken back meanwhile
        # (a VM's free page reporting), the second on what the first
        # has just freed
        if ((i % 2)); then
            run "$OUT/$name.e4t1.runs" "$E4TIME" timeline --threads 1 --format mactime "$img"
            run "$OUT/$name.floor.runs" "$FLOOR" "$img"
        else
            run "$OUT/$name.floor.runs" "$FLOOR" "$img"
            run "$OUT/$name.e4t1.runs" "$E4TIME" timeline --threads 1 --format mactime "$img"
        fi
        run "$OUT/$name.e4t2.runs" "$E4TIME" timeline --threads 2 --format mactime "$img"
        if [ -n "$OLD" ]; then
            run "$OUT/$name.old.runs" "$OLD" timeline --format mactime "$img"
            run "$OUT/$name.oldt1.runs" "$OLD" timeline --threads 1 --format mactime "$img"
            run "$OUT/$name.oldt2.runs" "$OLD" timeline --threads 2 --format mactime "$img"
        fi
    done
    LEND[$name]=$(load1)
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- report
r2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
bpi() { awk -v k="$1" -v n="$2" 'BEGIN { printf "%.1f", k * 1024 / n }'; }
{
    echo "# e4time timeline on layouts"
    echo
    echo "Written by \`bench/layouts.sh\` (see \`bench/README.md\`). Overwritten on every run."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); load average at start $LOAD0, at end $LOAD1"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM; kernel $(uname -r); $(mke2fs -V 2>&1 | head -n 1); TSK $(fls -V 2>&1 | head -n 1)"
    echo "- e4time: binary sha256 $E4_SUM, tree at commit $E4_COMMIT$E4_DIRTY$([ -z "$OLD" ] || echo "; old: $E4TIME_OLD, sha256 $OLD_SUM")"
    echo "- runs: $RUNS rounds per layout after one untimed warm-up of each, alternating e4time (default threads), fls (after one warm-up, in the first $FLS_RUNS rounds; timeout $FLS_TIMEOUT s: a run with rc 124 timed out, and a warm-up that timed out is the only fls run), e4time --threads 1 and the floor (taking turns to come first), e4time --threads 2$([ -z "$OLD" ] || echo ", the old e4time (default, 1 and 2 threads)"); medians and 90th percentiles (nearest rank) of every run, none dropped for a slow stretch; wall s / CPU s (user + system); the 1-min load average at each layout's start and end in the second table"
    echo "- images: written by the kernel through a loop mount (\`mount -o loop,noinit_itable\`) by \`bench/mkfiles.c\` (mkdir, open O_CREAT, write, close), then sync, umount, \`e2fsck -fn\` clean; sparse, in \`$LDIR\`"
    echo "- floor: \`bench/layouts-floor.c\`: pread of the inode tables' used parts and of every directory block, one bodyfile line formatted per name (no checksums, no escaping)"
    echo
    echo "| layout | inodes | e4time s (wall / CPU) | fls s | e4time/fls wall | CPU | e4time p90 s | fls p90 s | e4time/fls wall p90 | floor s | e4time/floor CPU | B/inode | --threads 1 s | --threads 1 / floor wall (p90) | --threads 2 s | 2 threads gain (wall t1/t2) |$([ -z "$OLD" ] || echo " old e4time s | old/fls wall | old B/inode | old 2 threads gain |")"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|$([ -z "$OLD" ] || echo "---|---|---|---|")"
    for name in $LAYOUTS; do
        o=$OUT/$name
        n=$(inodes_used "$LDIR/$name.img")
        e=$(median "$o.e4.runs" 1); ec=$(median "$o.e4.runs" 4)
        f=$(median "$o.fls.runs" 1); fc=$(median "$o.fls.runs" 4)
        e9=$(pctl "$o.e4.runs" 1 90); f9=$(pctl "$o.fls.runs" 1 90)
        to=$(awk '$3 == 124 { n++ } END { print n + 0 }' "$o.fls.runs")
        bad=$(awk '$3 != 0 && $3 != 124 { print $3; exit }' "$o.fls.runs")
        fshow="$f / $fc"
        [ "$to" = 0 ] || fshow=">$FLS_TIMEOUT (timed out)"
        [ -z "$bad" ] || { fshow="fls failed (exit $bad: $(grep -m1 . "$o.fls.runs.stderr" | tr -d '|' | cut -c1-80))"; f=0; fc=0; f9=0; }
        fl=$(median "$o.floor.runs" 1); flc=$(median "$o.floor.runs" 4)
        t1=$(median "$o.e4t1.runs" 1); t1c=$(median "$o.e4t1.runs" 4)
        t2=$(median "$o.e4t2.runs" 1); t2c=$(median "$o.e4t2.runs" 4)
        rss=$(maxcol "$o.e4.runs" 2)
        extra=""
        if [ -n "$OLD" ]; then
            od=$(median "$o.old.runs" 1); odc=$(median "$o.old.runs" 4)
            extra=" $od / $odc | $(r2 "$od" "$f") | $(bpi "$(maxcol "$o.old.runs" 2)" "$n") | $(r2 "$(median "$o.oldt1.runs" 1)" "$(median "$o.oldt2.runs" 1)") |"
        fi
        echo "| $name | $n | $e / $ec | $fshow | $(r2 "$e" "$f") | $(r2 "$ec" "$fc") | $e9 | $f9 | $(r2 "$e9" "$f9") | $fl / $flc | $(r2 "$ec" "$flc") | $(bpi "$rss" "$n") | $t1 / $t1c | $(r2 "$t1" "$fl") ($(r2 "$(pctl "$o.e4t1.runs" 1 90)" "$(pctl "$o.floor.runs" 1 90)")) | $t2 / $t2c | $(r2 "$t1" "$t2") |$extra"
    done
    echo
    echo "| layout | what | image | e4time exit!=0 | rows: e4time, fls, floor | load (1 min) start, end; over the e4time runs |"
    echo "|---|---|---|---|---|---|"
    for name in $LAYOUTS; do
        o=$OUT/$name
        bad=$(cat "$o".e4*.runs | awk '$3 != 0 { n++ } END { print n + 0 }')
        echo "| $name | $(layout "$name" | cut -d'|' -f4); \`mkfs.ext4 $(layout "$name" | cut -d'|' -f2)\` $(layout "$name" | cut -d'|' -f1) | $(cat "$LDIR/$name.build") | $bad | $(wc -l < "$o.e4time.body"), $(wc -l < "$o.fls.body"), $(wc -l < "$o.floor.body") | ${LSTART[$name]}, ${LEND[$name]}; $(loadrange "$o.e4.runs") |"
    done
    if [ -n "$OLD" ]; then
        echo
        echo "Old and new e4time outputs (warm-up runs):"
        for name in $LAYOUTS; do
            if cmp -s "$OUT/$name.e4time.body" "$OUT/$name.old.body"; then s=identical; else s=DIFFERENT; fi
            echo "- $name: $s"
        done
    fi
    echo
    echo "Row check (bench/lib.sh rowcheck):"
    echo
    for name in $LAYOUTS; do
        echo "- $name: $(rowcheck "$OUT/$name.e4time.body" "$OUT/$name.fls.body" "$OUT/rowcheck")"
    done
    echo
    echo "Targets (1,000,000-file layouts): e4time at most 0.2x fls (wall, 90th percentile of each), at most 128 B/inode, --threads 1 at most 1.3x the floor (wall median):"
    echo
    for name in $LAYOUTS; do
        o=$OUT/$name
        n=$(inodes_used "$LDIR/$name.img")
        r=$(r2 "$(pctl "$o.e4.runs" 1 90)" "$(pctl "$o.fls.runs" 1 90)")
        b=$(bpi "$(maxcol "$o.e4.runs" 2)" "$n")
        sp="$(awk -v r="$r" 'BEGIN { print (r <= 0.2) ? "MET" : "MISSED" }') ($r)"
        if awk '$3 == 124 { t = 1 } END { exit !t }' "$o.fls.runs"; then
            sp="MET (fls timed out: < $(r2 "$(median "$o.e4.runs" 1)" "$FLS_TIMEOUT"))"
        elif awk '$3 != 0 { t = 1 } END { exit !t }' "$o.fls.runs"; then
            sp="no ratio (fls failed)"
        fi
        fr=$(r2 "$(median "$o.e4t1.runs" 1)" "$(median "$o.floor.runs" 1)")
        echo "- $name: speed $sp, memory $(awk -v b="$b" 'BEGIN { print (b <= 128) ? "MET" : "MISSED" }') ($b B/inode), one thread $(awk -v r="$fr" 'BEGIN { print (r <= 1.3) ? "MET" : "MISSED" }') ($fr x the floor)"
    done
} > "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"

# ------------------------------------------- summary rows in RESULTS.md
# One row per layout between the markers of $SUMMARY: this run's layouts
# replace their rows, the others' stay (bench/timeline.sh keeps the block).
for name in $LAYOUTS; do
    o=$OUT/$name
    n=$(inodes_used "$LDIR/$name.img")
    e=$(median "$o.e4.runs" 1); f=$(median "$o.fls.runs" 1)
    r=$(r2 "$e" "$f")
    if awk '$3 == 124 { t = 1 } END { exit !t }' "$o.fls.runs"; then
        f=">$FLS_TIMEOUT (timed out)"; r="< $(r2 "$e" "$FLS_TIMEOUT")"
    elif awk '$3 != 0 { t = 1 } END { exit !t }' "$o.fls.runs"; then
        f="fails (exit $(awk '$3 != 0 { print $3; exit }' "$o.fls.runs"))"; r="-"
    fi
    echo "$name|| $name | $(layout "$name" | cut -d'|' -f4) | $n | $e | $f | $r | $(r2 "$(median "$o.e4.runs" 4)" "$(median "$o.floor.runs" 4)") | $(bpi "$(maxcol "$o.e4.runs" 2)" "$n") | $(r2 "$(median "$o.e4t1.runs" 1)" "$(median "$o.e4t2.runs" 1)") | $(date -u +%Y-%m-%d), $E4_COMMIT |"
done > "$OUT/summary.rows"
python3 - "$SUMMARY" "$OUT/summary.rows" "$ALL ten-million" <<'PY'
import sys
path, rows_file, order = sys.argv[1], sys.argv[2], sys.argv[3].split()
begin, end = "<!-- layouts.sh: begin -->", "<!-- layouts.sh: end -->"
try:
    text = open(path).read()
except FileNotFoundError:
    text = ""
rows = {}
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    block, tail = rest.split(end, 1)
    for line in block.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 2 and cells[1] in order:
            rows[cells[1]] = line
else:
    head, tail = text.rstrip("\n") + "\n\n", "\n"
for line in open(rows_file):
    name, row = line.rstrip("\n").split("||", 1)
    rows[name] = "|" + row
table = [begin,
         "Layouts of 1,000,000 files (and one of 10,000,000), by `bench/layouts.sh`; "
         "each row from its latest run (details, old binary, floor and "
         "row checks: [RESULTS-layouts.md](RESULTS-layouts.md)). Wall medians, "
         "warm page cache; floor: `bench/layouts-floor.c` (CPU ratio); "
         "threads gain: wall of `--threads 1` / `--threads 2`.",
         "",
         "| layout | what | inodes | e4time s | fls s | e4time/fls | e4time/floor CPU | B/inode | threads gain | run |",
         "|---|---|---|---|---|---|---|---|---|---|"]
table += [rows[n] for n in order if n in rows]
open(path, "w").write(head + "\n".join(table) + "\n" + end + tail)
PY
log "summary rows written to $SUMMARY"
