#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/deleted.sh IMAGE... --- time `e4time timeline --deleted --journal`
# against `timeline` plus `audit` run separately, on each IMAGE, in one
# run: medians of $RUNS (default 3) timed runs after one untimed warm-up
# (warm page cache), alternating; wall time by bash's EPOCHREALTIME.
# Prints, per image, the three medians and the ratio
#   (timeline --deleted --journal) / (timeline + audit).
# Read-only: the images are never written.  Use the images bench/timeline.sh
# (million.img) and bench/audit.sh (audit-1g.img) build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
E4TIME=${E4TIME:-$here/../tools/e4time}
RUNS=${RUNS:-3}
[ $# -ge 1 ] || { echo "usage: $0 IMAGE..." >&2; exit 2; }
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
cp "$E4TIME" "$bin"
chmod 755 "$bin"

# secs CMD...: wall seconds of CMD (output discarded)
secs() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || true
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| image | timeline | audit | timeline --deleted --journal | ratio |"
echo "|---|---:|---:|---:|---:|"
for img in "$@"; do
	"$bin" timeline -f mactime "$img" >/dev/null 2>&1 || true
	"$bin" audit -f json "$img" >/dev/null 2>&1 || true
	"$bin" timeline -d --journal -f mactime "$img" >/dev/null 2>&1 || true
	tl=() au=() dj=()
	for ((r = 0; r < RUNS; r++)); do
		tl+=("$(secs "$bin" timeline -f mactime "$img")")
		au+=("$(secs "$bin" audit -f json "$img")")
		dj+=("$(secs "$bin" timeline -d --journal -f mactime "$img")")
	done
	mt=$(printf '%s\n' "${tl[@]}" | median)
	ma=$(printf '%s\n' "${au[@]}" | median)
	md=$(printf '%s\n' "${dj[@]}" | median)
	echo "| $(basename "$img") | $mt s | $ma s | $md s | $(awk -v d="$md" -v t="$mt" -v a="$ma" 'BEGIN { printf "%.2fx", d / (t + a) }') |"
done
