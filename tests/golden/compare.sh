#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/golden/compare.sh OUTDIR_A OUTDIR_B --- compare two golden sets
# that tests/golden/record.sh wrote: the runs only in one of them, then
# every run whose stdout, stderr or exit status differs, with its command
# and the first GOLDEN_DIFF_LINES (default 12) lines of each diff, and a
# last line "N runs, N identical, N differ, N only in A, N only in B".
# Exit status 0 when the two sets are identical, 1 when they differ, 2 on
# a usage error.
set -u
if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 OUTDIR_A OUTDIR_B (two directories record.sh wrote)" >&2
	exit 2
fi
A=$1 B=$2
LINES=${GOLDEN_DIFF_LINES:-12}

# runs DIR: every run of the set, as IMAGE/SLUG, sorted.
runs() {
	(cd "$1" && find . -name '*.rc' | sed 's#^\./##; s#\.rc$##' | LC_ALL=C sort)
}
runs "$A" >"${TMPDIR:-/tmp}/golden-a.$$"
runs "$B" >"${TMPDIR:-/tmp}/golden-b.$$"
trap 'rm -f "${TMPDIR:-/tmp}/golden-a.$$" "${TMPDIR:-/tmp}/golden-b.$$"' EXIT

only_a=$(LC_ALL=C comm -23 "${TMPDIR:-/tmp}/golden-a.$$" "${TMPDIR:-/tmp}/golden-b.$$")
only_b=$(LC_ALL=C comm -13 "${TMPDIR:-/tmp}/golden-a.$$" "${TMPDIR:-/tmp}/golden-b.$$")
both=$(LC_ALL=C comm -12 "${TMPDIR:-/tmp}/golden-a.$$" "${TMPDIR:-/tmp}/golden-b.$$")
n_only_a=0 n_only_b=0 n_same=0 n_diff=0
[ -n "$only_a" ] && n_only_a=$(echo "$only_a" | wc -l)
[ -n "$only_b" ] && n_only_b=$(echo "$only_b" | wc -l)
[ -n "$only_a" ] && { echo "==== only in $A:"; echo "$only_a"; }
[ -n "$only_b" ] && { echo "==== only in $B:"; echo "$only_b"; }

declare -A by_image
for run in $both; do
	what=
	for ext in rc out err; do
		cmp -s "$A/$run.$ext" "$B/$run.$ext" || what="$what $ext"
	done
	if [ -z "$what" ]; then
		n_same=$((n_same + 1))
		continue
	fi
	n_diff=$((n_diff + 1))
	img=${run%%/*}
	by_image[$img]=$((${by_image[$img]:-0} + 1))
	echo "==== $run differs in:$what"
	echo "     $(cat "$A/$run.cmd" 2>/dev/null)"
	for ext in $what; do
		echo "---- $ext"
		diff "$A/$run.$ext" "$B/$run.$ext" | head -n "$LINES"
	done
done
if [ "$n_diff" -gt 0 ]; then
	echo "==== runs that differ, by image:"
	for img in "${!by_image[@]}"; do
		echo "$img ${by_image[$img]}"
	done | LC_ALL=C sort
fi
total=$((n_same + n_diff + n_only_a + n_only_b))
echo "$total runs, $n_same identical, $n_diff differ, $n_only_a only in A, $n_only_b only in B"
[ "$n_diff" -eq 0 ] && [ "$n_only_a" -eq 0 ] && [ "$n_only_b" -eq 0 ]
