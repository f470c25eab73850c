#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/formats.sh: `e4time timeline --format FMT` for every format on
# million.img (1,000,000 files, bench/timeline.sh builds it), on the
# default threads and on one, and the same runs of another build (OLD) to
# tell what a change to the formatters cost: alternating, every run kept,
# medians and 90th percentiles of wall and CPU time, the load average.
# The outputs of both builds are compared byte for byte (a format whose
# output changed is named).  Writes bench/RESULTS-formats.md.
#
# Never run in CI. See bench/README.md.
#
#   bench/formats.sh                  # this tree's build alone
#   OLD=/path/to/old/e4time bench/formats.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR  where million.img is [/var/tmp/e4time-bench]
#   IMAGE      the image [$BENCH_DIR/million.img]
#   FORMATS    ["bodyfile mactime jsonl csv timesketch timesketch-csv"]
#   THREADS    thread counts ["0 1"] (0: e4time chooses)
#   RUNS       timed runs of each, alternating [BENCH_RUNS, 20]
#   E4TIME     the binary (a copy taken at start is timed) [<repo>/tools/e4time]
#   OLD        a binary to compare with (a copy is timed) [none]
#   RESULTS    where to write [bench/RESULTS-formats.md]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
IMAGE=${IMAGE:-$BENCH_DIR/million.img}
FORMATS=${FORMATS:-bodyfile mactime jsonl csv timesketch timesketch-csv}
THREADS=${THREADS:-0 1}
RUNS=${RUNS:-$BENCH_RUNS}
E4TIME=${E4TIME:-$top/tools/e4time}
OLD=${OLD:-}
RESULTS=${RESULTS:-$here/RESULTS-formats.md}

die() { echo "formats.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -f "$IMAGE" ] || die "$IMAGE: none (BUILD_ONLY=1 IMAGES=million bench/timeline.sh makes it)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"
work=$(mktemp -d "${TMPDIR:-/tmp}/e4time-formats.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$E4TIME" "$work/new"
bins="new"
if [ -n "$OLD" ]; then
    cp "$OLD" "$work/old"
    bins="new old"
fi

# Same output from both builds?  One run each, kept aside.
same=""
for f in $FORMATS; do
    "$work/new" timeline -q -f "$f" "$IMAGE" > "$work/out.new" 2>/dev/null || true
    if [ -n "$OLD" ]; then
        "$work/old" timeline -q -f "$f" "$IMAGE" > "$work/out.old" 2>/dev/null || true
        if cmp -s "$work/out.new" "$work/out.old"; then
            same="$same $f:same"
        else
            same="$same $f:DIFFERENT"
        fi
    fi
    printf '%s %s\n' "$f" "$(wc -l < "$work/out.new")" >> "$work/lines"
done

for r in $(seq 1 "$RUNS"); do
    log "round $r/$RUNS (load $(load1))"
    for f in $FORMATS; do
        for t in $THREADS; do
            for b in $bins; do
                time_cmd "$work/err" "$work/$b" timeline -q -f "$f" \
                    --threads "$t" "$IMAGE" >> "$work/t.$f.$t.$b"
            done
        done
    done
done

{
    echo "# e4time timeline: every format"
    echo
    echo "Written by \`bench/formats.sh\` (see \`bench/README.md\`). Overwritten on every run."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo); kernel $(uname -r)"
    echo "- image: \`$IMAGE\` ($(sed -n 's/^Inode count: *//p' <(dumpe2fs -h "$IMAGE" 2>/dev/null)) inodes)"
    echo "- new: tree at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'), binary sha256 $(sha256sum "$work/new" | cut -c1-12)"
    [ -n "$OLD" ] && echo "- old: \`$OLD\`, binary sha256 $(sha256sum "$work/old" | cut -c1-12); outputs:$same"
    echo "- runs: $RUNS rounds, in each every format and thread count, new then old; wall s / CPU s (user + system), medians and 90th percentiles (nearest rank) of every run; 1-min load average over the runs"
    echo "- rows: $(tr '\n' ' ' < "$work/lines")"
    echo
    if [ -n "$OLD" ]; then
        echo "| format | threads | new wall / CPU | new p90 wall / CPU | old wall / CPU | old p90 wall / CPU | new/old wall | new/old CPU | load |"
        echo "|---|---|---|---|---|---|---|---|---|"
    else
        echo "| format | threads | wall / CPU | p90 wall / CPU | load |"
        echo "|---|---|---|---|---|"
    fi
    for f in $FORMATS; do
        for t in $THREADS; do
            n=$work/t.$f.$t.new
            line="| $f | $t | $(median "$n" 1) / $(median "$n" 4) | $(pctl "$n" 1 90) / $(pctl "$n" 4 90)"
            if [ -n "$OLD" ]; then
                o=$work/t.$f.$t.old
                line="$line | $(median "$o" 1) / $(median "$o" 4) | $(pctl "$o" 1 90) / $(pctl "$o" 4 90)"
                line="$line | $(ratio4 "$(median "$n" 1)" "$(median "$o" 1)") | $(ratio4 "$(median "$n" 4)" "$(median "$o" 4)")"
                line="$line | $(cat "$n" "$o" > "$work/both"; loadrange "$work/both") |"
            else
                line="$line | $(loadrange "$n") |"
            fi
            echo "$line"
        done
    done
    if [ -s "$work/err" ]; then
        echo
        echo "Standard error of the timed runs (first lines):"
        echo
        head -n 5 "$work/err" | sed 's/^/    /'
    fi
} > "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
