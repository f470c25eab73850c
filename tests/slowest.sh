#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/slowest.sh [N] [DIR] --- the N (20) slowest tests of the last
# make check in DIR (tests/ of the build tree, "tests"): the "TIME: SUITE
# TEST MS ms" lines tests/lib.sh writes into each suite's log, slowest
# first, then each suite's total.  For finding where CI's time goes.
n=${1:-20}
dir=${2:-tests}
# ("?": shunit2's last tearDown, outside any test, timing the last test
# again)
grep -h '^TIME: ' "$dir"/*.log | grep -v '^TIME: [^ ]* ? ' | sort -k4,4nr | head -n "$n" |
	awk '{ printf "%8.1f s  %s %s\n", $4 / 1000, $2, $3 }'
echo "per suite:"
grep -h '^TIME: ' "$dir"/*.log | grep -v '^TIME: [^ ]* ? ' |
	awk '{ t[$2] += $4 } END { for (s in t) printf "%8.1f s  %s\n", t[s] / 1000, s }' |
	sort -nr
