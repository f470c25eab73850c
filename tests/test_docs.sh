#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_docs.sh --- the man page, the README and --help agree: every
# command of `e4time --help` has its SYNOPSIS line and section in
# e4time(8) and its row in the README's command table; every long option
# a command's help lists is in that command's section of the man page
# (or among the options every command takes); and every option that
# heads an item of a command's section is one the command accepts.
# HACKING.md, the map of the tree, names every C source and header of
# lib/ and tools/ and every test hook variable, and no path that is not
# there.
. "$TOP_SRCDIR/tests/lib.sh"

MAN="$TOP_SRCDIR/man/e4time.8"
README="$TOP_SRCDIR/README.md"
HACKING="$TOP_SRCDIR/HACKING.md"

suite_setup() {
	require_tools python3 || return 1
	"$E4TIME" --help >"$TMP/help" || return 1
	# the commands: the lines of "Commands:" in --help
	sed -n '/^Commands:/,/^$/p' "$TMP/help" | awk 'NF && !/:$/ {print $1}' \
		>"$TMP/cmds"
	[ -s "$TMP/cmds" ]
}

# man_section CMD: the text of ".SS CMD" in the man page, "\-" as "-".
man_section() {
	python3 - "$MAN" "$1" <<'EOF'
import re, sys
man = open(sys.argv[1]).read().replace("\\-", "-").replace("\\%", "")
m = re.search(r"^\.SS %s\n(.*?)(?=^\.S[SH] )" % re.escape(sys.argv[2]),
              man, re.S | re.M)
print(m.group(1) if m else "")
EOF
}

test_every_command_documented() {
	local c
	while read -r c; do
		assertTrue "$c: in the man page's SYNOPSIS" \
			"sed -n '/^.SH SYNOPSIS/,/^.SH DESCRIPTION/p' '$MAN' | grep -q '^.B e4time $c\$'"
		assertTrue "$c: a section of its own in the man page" \
			"grep -q '^.SS $c\$' '$MAN'"
		assertTrue "$c: a row in the README's command table" \
			"grep -q '^| \`$c ' '$README'"
		"$E4TIME" help "$c" >"$TMP/h.$c"
		assertEquals "$c: e4time help $c" 0 $?
		assertContains "$c: its help is its usage" "$(head -n 1 "$TMP/h.$c")" \
			"Usage: e4time $c "
	done <"$TMP/cmds"
}

test_help_options_in_man() {
	local c o sec common
	common=$(sed -n '/^.SH COMMON OPTIONS/,/^.SH FILE/p' "$MAN" | sed 's/\\-/-/g; s/\\%//g')
	while read -r c; do
		sec=$(man_section "$c")
		for o in $("$E4TIME" help "$c" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			case "$sec $common" in
			*"$o"*) ;;
			*) fail "$c: $o is in its --help, not in its man section" ;;
			esac
		done
	done <"$TMP/cmds"
}

# refuses CMD OPTION: CMD says "bad option" of OPTION with and without
# an argument (an option that takes one is refused without it).
refuses() {
	"$E4TIME" "$1" "$2" </dev/null >/dev/null 2>"$TMP/err1"
	"$E4TIME" "$1" "$2=x" </dev/null >/dev/null 2>"$TMP/err2"
	grep -q "bad option or missing argument: '$2'" "$TMP/err1" &&
		grep -q "bad option or missing argument: '$2=x'" "$TMP/err2"
}

test_man_options_accepted() {
	local c o
	while read -r c; do
		# the options that head an item (.TP) of the command's section
		for o in $(man_section "$c" | grep -A1 '^\.TP' |
			grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			refuses "$c" "$o" &&
				fail "$c: $o is an item of its man section, but $c refuses it"
		done
	done <"$TMP/cmds"
	return 0
}

# The problems of e4time check: each code and name of lib/check/problem.c's
# table heads an item of the man page (".BR T0001 \" bad_nsec (error,
# preen)\""), and the man page has no other.
test_check_problems_in_man() {
	local n
	grep -oE '"T[0-9]{4}", *"[a-z0-9_]+"' "$TOP_SRCDIR/lib/check/problem.c" |
		tr -d '",' | tr -s ' ' | sort >"$TMP/problems"
	sed -nE 's/^\.BR (T[0-9]{4}) " ([a-z0-9_]+) .*/\1 \2/p' "$MAN" |
		sort >"$TMP/man_problems"
	n=$(wc -l <"$TMP/problems")
	# (nine when this test was written)
	assertTrue "problems in lib/check/problem.c: $n" "[ $n -ge 9 ]"
	assertEquals "problem.c's codes and names against e4time(8)'s items" \
		"$(cat "$TMP/problems")" "$(cat "$TMP/man_problems")"
}

# lib_tools_sources: every .c and .h of lib/ and tools/, as git lists
# them in a checkout (TOP_SRCDIR its top), else as find finds them (a
# release tarball); not compile_et's lib/e4time_err.[ch].
lib_tools_sources() {
	local top
	top=$(cd "$TOP_SRCDIR" && pwd -P)
	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
		git -C "$top" ls-files -- lib tools
	else
		(cd "$top" && find lib tools -type f)
	fi | grep -E '\.[ch]$' | grep -vE '^lib/e4time_err\.[ch]$' | sort -u
}

# hacking_paths: the paths of the tree HACKING.md names (lib/..., tools/...,
# tests/..., man/..., images/..., bench/...), placeholders (NAME) and
# patterns (tests/test_*.sh) left out.
hacking_paths() {
	grep -oE '(^|[^A-Za-z0-9_./-])(lib|tools|tests|man|images|bench)/[A-Za-z0-9_./*-]*' \
		"$HACKING" | sed -E 's|^[^a-z]||; s|[./]+$||' | grep -vE 'NAME|[*]' | sort -u
}

# Each C file of lib/ and tools/ heads an item of HACKING.md's map:
# "- `lib/fs/tree.c`: what it is for".
test_hacking_names_every_source_file() {
	local f n=0 missing=""
	lib_tools_sources >"$TMP/sources"
	sed -nE 's#^- `((lib|tools)/[^`]*)`:.*#\1#p' "$HACKING" | sort -u >"$TMP/named"
	while read -r f; do
		n=$((n + 1))
		grep -qxF "$f" "$TMP/named" || missing="$missing $f"
	done <"$TMP/sources"
	echo "HACKING.md: $n C files of lib/ and tools/ checked"
	# (142 when HACKING.md was written: a listing that finds next to
	# nothing is a broken test, not a covered tree)
	assertTrue "C files of lib/ and tools/ checked: $n" "[ $n -ge 130 ]"
	[ -z "$missing" ] || echo "HACKING.md does not name:$missing"
	assertEquals "files HACKING.md does not name (add a line each)" "" \
		"${missing# }"
}

test_hacking_names_no_missing_path() {
	local p n=0 stale=""
	hacking_paths >"$TMP/named"
	while read -r p; do
		n=$((n + 1))
		# a path of the tree, or a program built from P.c (tools/e4time)
		[ -e "$TOP_SRCDIR/$p" ] || [ -e "$TOP_SRCDIR/$p.c" ] ||
			stale="$stale $p"
	done <"$TMP/named"
	echo "HACKING.md: $n paths checked"
	assertTrue "paths HACKING.md names: $n" "[ $n -ge 150 ]"
	[ -z "$stale" ] || echo "HACKING.md names what is not there:$stale"
	assertEquals "paths HACKING.md names that do not exist" "" "${stale# }"
}

# Every E4TIME_TEST_ variable of lib/ and tools/ is in HACKING.md's table
# of test hooks, and the table names no other.
test_hacking_names_every_test_hook() {
	local v n=0 missing="" stale=""
	(cd "$TOP_SRCDIR" && lib_tools_sources | xargs grep -ohE 'E4TIME_TEST_[A-Z0-9_]+') |
		sort -u >"$TMP/hooks"
	while read -r v; do
		n=$((n + 1))
		grep -q "^| .*\`$v[=\`]" "$HACKING" || missing="$missing $v"
	done <"$TMP/hooks"
	echo "HACKING.md: $n test hook variables checked"
	# undo_io.c's three and write.c's one at least
	assertTrue "test hook variables checked: $n" "[ $n -ge 4 ]"
	assertEquals "test hooks HACKING.md does not name" "" "${missing# }"
	for v in $(grep -oE 'E4TIME_TEST_[A-Z0-9_]+' "$HACKING" | sort -u); do
		grep -qxF "$v" "$TMP/hooks" || stale="$stale $v"
	done
	assertEquals "test hooks HACKING.md names that the code does not read" \
		"" "${stale# }"
}

. shunit2
