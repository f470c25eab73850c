#!/bin/bash
# test_style.sh --- the C sources stay in the committed .clang-format
# (kernel style), and the man page renders without warnings.
. "$TOP_SRCDIR/tests/lib.sh"

c_sources() {
	(cd "$TOP_SRCDIR" && ls lib/*.c lib/e4time.h tools/*.c tools/*.h \
		tests/*.c tests/*.h lib/xsource.h lib/undo_io.h lib/csum.h lib/jmap.h \
		tests/fuzz/*.c tests/fuzz/*.h) |
		grep -v '^lib/e4time_err\.'
}

test_clang_format() {
	command -v clang-format >/dev/null ||
		{ skip_test "clang-format not installed"; return; }
	local bad
	bad=$(cd "$TOP_SRCDIR" && for f in $(c_sources); do
		clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
	done)
	assertEquals "not in .clang-format style (run clang-format -i)" "" "$bad"
}

test_man_page_renders_cleanly() {
	command -v groff >/dev/null || { skip_test "groff not installed"; return; }
	local warnings
	warnings=$(groff -ww -man -z "$TOP_SRCDIR/man/e4time.8" 2>&1)
	assertEquals "groff warnings" "" "$warnings"
}

test_library_never_prints_or_exits() {
	local hits
	hits=$(grep -nE '\b(printf|fprintf|puts|fputs|putchar|perror|exit|abort)\s*\(' \
		"$TOP_SRCDIR"/lib/*.c | grep -v snprintf)
	assertEquals "lib/ must return errors, not print them" "" "$hits"
}

. shunit2
