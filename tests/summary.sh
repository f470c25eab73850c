#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/summary.sh LOG... --- add up the "NAME: N passed, N failed[, N
# skipped]" lines that the C unit tests and the ShUnit2 suites print, and
# print one line "N passed, N failed, N skipped".  A log without such a
# line (a suite that crashed) counts as one failure.
passed=0 failed=0 skipped=0
for log in "$@"; do
	line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "no result line in $log: counted as failed" >&2
		failed=$((failed + 1))
		continue
	fi
	set -- $(echo "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/')
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + ${3:-0}))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
