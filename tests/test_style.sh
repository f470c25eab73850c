#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_style.sh --- the C sources stay in the committed .clang-format
# (kernel style), every source file carries its SPDX license line, the
# library never prints, exits or raises, and the man page renders
# without warnings.
. "$TOP_SRCDIR/tests/lib.sh"

SPDX='SPDX-License-Identifier: GPL-2.0-or-later'

# c_sources: every C source and header of the tree (not the generated
# lib/e4time_err.[ch], which an in-tree build leaves in lib/).
c_sources() {
	(cd "$TOP_SRCDIR" && ls lib/*.c lib/*.h lib/*/*.c lib/*/*.h tools/*.c tools/*.h \
		tests/*.c tests/*.h tests/fuzz/*.c tests/fuzz/*.h bench/*.c) |
		grep -v '^lib/e4time_err\.'
}

# source_files: c_sources and every other file of ours that is source:
# scripts, build files, the error table, the man page, suppressions and
# dictionaries (not images, seeds or generated autotools files).
source_files() {
	c_sources
	(cd "$TOP_SRCDIR" && ls lib/*.et tests/*.sh tests/*.py tests/*.supp \
		tests/journal/mke2fs.conf tests/fuzz/*.sh tests/fuzz/*.py \
		tests/fuzz/*.dict tests/golden/*.sh bench/*.sh images/*.sh \
		images/*.py .ci/run configure.ac Makefile.am man/*.8 \
		$(ls m4/*.m4 2>/dev/null))
}

test_clang_format() {
	command -v clang-format >/dev/null ||
		{ skip_test "clang-format not installed"; return; }
	local bad
	# (in batches, two at a time: one clang-format per file cost half a
	# minute of process start-ups on a loaded machine)
	bad=$(cd "$TOP_SRCDIR" && c_sources |
		xargs -n 25 -P 2 clang-format --dry-run --Werror 2>&1 |
		sed -n 's/^\([^: ]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
	assertEquals "not in .clang-format style (run clang-format -i)" "" "$bad"
}

test_man_page_renders_cleanly() {
	command -v groff >/dev/null || { skip_test "groff not installed"; return; }
	local f n=0
	# e4time(8) and a page per command
	for f in "$TOP_SRCDIR"/man/*.8; do
		n=$((n + 1))
		assertEquals "groff warnings: $f" "" "$(groff -ww -man -z "$f" 2>&1)"
	done
	assertTrue "man pages checked: $n" "[ $n -ge 14 ]"
}

test_every_source_file_has_spdx_line() {
	local bad n
	n=$(source_files | wc -l)
	# the first line, or the second after a #! line
	bad=$(cd "$TOP_SRCDIR" && source_files | xargs awk -v spdx="$SPDX" '
		FNR == 1 && /^#!/ { next }
		FNR <= 2 { if (!index($0, spdx)) print FILENAME; nextfile }' |
		tr '\n' ' ')
	assertTrue "no source files found" "[ $n -gt 50 ]"
	assertEquals "no '$SPDX' line at the top" "" "$bad"
}

# outside_test_hooks FILE...: the lines of FILE (as FILE:LINE:text) that
# are not inside an #ifdef E4T_TEST_HOOKS (#if [defined] E4T_TEST_HOOKS)
# block; the block's #else branch counts as outside.
outside_test_hooks() {
	awk '
	FNR == 1 { depth = 0; hook = 0 }
	/^[ \t]*#[ \t]*if/ {
		depth++
		if (!hook && $0 ~ /^[ \t]*#[ \t]*(ifdef[ \t]+E4T_TEST_HOOKS|if[ \t]+(defined[ \t(]*)?E4T_TEST_HOOKS)/)
			hook = depth
		next
	}
	/^[ \t]*#[ \t]*(else|elif)/ { if (hook == depth) hook = 0; next }
	/^[ \t]*#[ \t]*endif/ { if (hook == depth) hook = 0; depth--; next }
	!hook { print FILENAME ":" FNR ":" $0 }
	' "$@"
}

test_library_never_prints_or_exits() {
	local hits
	hits=$(cd "$TOP_SRCDIR" && grep -nE \
		'\b(printf|fprintf|vfprintf|puts|fputs|putchar|putc|fputc|fwrite|perror|exit|_exit|abort)\s*\(' \
		$(c_sources | grep "^lib/.*\.c$") | grep -v snprintf |
		grep -vE '^lib/write/undo_io\.c:[0-9]+:\s*_exit\(.*/\* child \*/$')
	# (the one exception: the end of undo_io.c's forked child, which
	# makes a superblock's two writes and must not run atexit handlers)
	assertEquals "lib/ must return errors, not print them" "" "$hits"
}

# raise() only in the test hooks, behind E4T_TEST_HOOKS.
test_library_never_raises() {
	local hits
	hits=$(cd "$TOP_SRCDIR" && outside_test_hooks $(c_sources | grep "^lib/.*\.c$") |
		grep -E '\braise\s*\(')
	assertEquals "lib/ must not raise signals outside #ifdef E4T_TEST_HOOKS" "" "$hits"
}

test_outside_test_hooks_skips_the_hook_blocks() {
	local f="$TMP/hooks.c"
	printf '%s\n' 'a();' '#ifdef E4T_TEST_HOOKS' '#if X' 'raise(1);' '#endif' \
		'raise(2);' '#else' 'b();' '#endif' '#if defined(E4T_TEST_HOOKS)' \
		'raise(3);' '#endif' 'raise(4);' >"$f"
	assertEquals "$(printf '%s\n' "$f:1:a();" "$f:8:b();" "$f:13:raise(4);")" \
		"$(outside_test_hooks "$f")"
}

. shunit2
