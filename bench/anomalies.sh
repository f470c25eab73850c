#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/anomalies.sh: the cost of `e4time anomalies` as ratios, in one run
# on the same cached images:
#   - million.img (bench/timeline.sh builds it: 1,000,000 files): the
#     inode rules against `timeline -f mactime` (the same tree loaded and
#     walked), anomalies with --no-journal and with the journal rules;
#   - audit-1g.img (bench/audit.sh builds it: a 1 GiB journal full of
#     stale transactions): anomalies with the journal rules against
#     `audit --format json` (the same copies compared).
# One untimed warm-up of each command, then RUNS timed runs of each,
# alternating; medians of wall time (bash EPOCHREALTIME), peak RSS.
# A missing image is said and its part skipped.  Never run in CI.
#
#   bench/anomalies.sh            (RUNS=5, E4TIME=tools/e4time, BENCH_DIR)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-5}
E4TIME=${E4TIME:-$top/tools/e4time}
[ -x "$E4TIME" ] || { echo "anomalies.sh: $E4TIME not built" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "anomalies.sh: /usr/bin/time missing" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# bench NAME IMAGE CMD_A... -- CMD_B...: A against B, alternating.
bench() {
    local name=$1 img=$2 a=() b=() i ma mb ra rb
    shift 2
    while [ "$1" != -- ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    "${a[@]}" "$img" >/dev/null 2>&1 || true
    "${b[@]}" "$img" >/dev/null 2>&1 || true
    : >"$T/a"
    : >"$T/b"
    for i in $(seq 1 "$RUNS"); do
        time_cmd "$T/a.err" "${a[@]}" "$img" >>"$T/a"
        time_cmd "$T/b.err" "${b[@]}" "$img" >>"$T/b"
    done
    ma=$(median "$T/a" 1)
    mb=$(median "$T/b" 1)
    ra=$(median "$T/a" 2)
    rb=$(median "$T/b" 2)
    printf '| %s | `%s` %.3f s (%d MiB) | `%s` %.3f s (%d MiB) | %.2fx |\n' \
        "$name" "${a[*]:1}" "$ma" $((ra / 1024)) \
        "${b[*]:1}" "$mb" $((rb / 1024)) \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN { print a / b }')"
}

echo "# e4time anomalies: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $RUNS"
echo
echo '| image | anomalies | reference | ratio |'
echo '|---|---|---|---|'
M=$BENCH_DIR/million.img
if [ -f "$M" ]; then
    cat "$M" >/dev/null
    bench million "$M" "$E4TIME" anomalies -q --no-journal -- \
        "$E4TIME" timeline -q -f mactime
    bench million "$M" "$E4TIME" anomalies -q -- \
        "$E4TIME" timeline -q -f mactime
else
    echo "| million | not built (bench/timeline.sh builds it) | | |"
fi
A=$BENCH_DIR/audit-1g.img
if [ -f "$A" ]; then
    cat "$A" >/dev/null
    bench audit-1g "$A" "$E4TIME" anomalies -q -- \
        "$E4TIME" audit -q --format json
else
    echo "| audit-1g | not built (bench/audit.sh builds it) | | |"
fi
