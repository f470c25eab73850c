#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_docs.sh --- the man pages, the README and --help agree: every
# command of `e4time --help` has its SYNOPSIS line and its item in
# e4time(8), and a page of its own, e4time-CMD(8), with SYNOPSIS,
# OPTIONS, EXAMPLES and SEE ALSO, that renders without groff warnings;
# every long option a command's help lists is in that command's page (or
# among the options every command takes, in e4time(8)); and every option
# that heads an item of a command's OPTIONS is one the command accepts.
# `e4time help CMD` prints the usage when its output is not a terminal,
# and runs `man e4time-CMD` when it is.  The README's command table names
# ten commands.  HACKING.md, the map of the tree, names every C source
# and header of lib/ and tools/ and every test hook variable, and no path
# that is not there.
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

# page CMD: the man page of CMD.
page() {
	echo "$TOP_SRCDIR/man/e4time-$1.8"
}

# man_section CMD [SECTION]: the text of CMD's page (only its section
# SECTION, "OPTIONS" say, when given), "\-" as "-".
man_section() {
	python3 - "$(page "$1")" "${2:-}" <<'EOF'
import re, sys
man = open(sys.argv[1]).read().replace("\\-", "-").replace("\\%", "")
if sys.argv[2]:
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH |\Z)" % re.escape(sys.argv[2]),
                  man, re.S | re.M)
    man = m.group(1) if m else ""
print(man)
EOF
}

# in_section FILE SECTION PATTERN: a line of FILE's .SH SECTION matches
# the extended regular expression PATTERN.
in_section() {
	awk -v s=".SH $2" '/^\.SH / { on = ($0 == s); next } on' "$1" |
		grep -qE -- "$3"
}

test_every_command_documented() {
	local c n=0 pages
	while read -r c; do
		n=$((n + 1))
		assertTrue "$c: in e4time(8)'s SYNOPSIS" \
			"in_section '$MAN' SYNOPSIS '^\.B e4time $c\$'"
		assertTrue "$c: an item of e4time(8)'s COMMANDS" \
			"in_section '$MAN' COMMANDS '^\.BR e4time\\\\-$c \(8\)\$'"
		assertTrue "$c: in e4time(8)'s SEE ALSO" \
			"in_section '$MAN' 'SEE ALSO' '^\.BR e4time\\\\-$c \(8\)'"
		assertTrue "$c: a page of its own, $(page "$c")" "[ -s '$(page "$c")' ]"
		"$E4TIME" help "$c" >"$TMP/h.$c"
		assertEquals "$c: e4time help $c" 0 $?
		assertContains "$c: its help is its usage" "$(head -n 1 "$TMP/h.$c")" \
			"Usage: e4time $c "
	done <"$TMP/cmds"
	pages=$(ls "$TOP_SRCDIR"/man/e4time-*.8 | wc -l)
	echo "commands checked: $n, command pages: $pages"
	# (13 when the pages were split)
	assertTrue "commands checked: $n" "[ $n -ge 13 ]"
	assertEquals "a page per command, no other" "$n" "$pages"
}

# Each command's page: its sections, its own title, NAME and SYNOPSIS,
# an example of the command, e4time(8) in SEE ALSO, and no groff warning.
test_command_pages_complete() {
	local c f s n=0
	while read -r c; do
		f=$(page "$c")
		[ -s "$f" ] || continue
		n=$((n + 1))
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" \
			"SEE ALSO"; do
			assertTrue "$c: its page has $s" "grep -qx '.SH $s' '$f'"
		done
		assertTrue "$c: .TH E4TIME-$c" "grep -qi '^\.TH E4TIME\\\\-$c 8 ' '$f'"
		assertTrue "$c: NAME e4time-$c" \
			"in_section '$f' NAME '^e4time\\\\-$c \\\\- '"
		assertTrue "$c: SYNOPSIS .B e4time $c" \
			"in_section '$f' SYNOPSIS '^\.B e4time $c\$'"
		assertTrue "$c: SEE ALSO e4time(8)" \
			"in_section '$f' 'SEE ALSO' '^\.BR e4time \(8\)'"
		assertTrue "$c: an example" "in_section '$f' EXAMPLES '^e4time $c '"
		# (a markdown code span brought over from the README prints
		# its backquotes)
		assertEquals "$c: no backquote" "" "$(grep -n '`' "$f")"
		if command -v groff >/dev/null; then
			assertEquals "$c: groff warnings" "" \
				"$(groff -man -ww -z "$f" 2>&1)"
		fi
	done <"$TMP/cmds"
	echo "command pages checked: $n"
	assertEquals "command pages checked" "$(wc -l <"$TMP/cmds")" "$n"
	if command -v groff >/dev/null; then
		assertEquals "e4time(8): groff warnings" "" \
			"$(groff -man -ww -z "$MAN" 2>&1)"
	fi
	assertEquals "e4time(8): no backquote" "" "$(grep -n '`' "$MAN")"
}

# `e4time help CMD` on a terminal runs `man e4time-CMD` (a fake man on
# PATH records its arguments); without man on PATH, with
# E4TIME_HELP=usage, or when man fails, it prints the usage there too.
test_help_opens_man_page_on_terminal() {
	command -v script >/dev/null || { skip_test "script(1) not installed"; return; }
	local c n=0
	mkdir -p "$TMP/fakebin" "$TMP/noman"
	printf '#!/bin/sh\necho "$*" >>"%s"\n' "$TMP/man.args" >"$TMP/fakebin/man"
	chmod +x "$TMP/fakebin/man"
	: >"$TMP/man.args"
	while read -r c; do
		n=$((n + 1))
		PATH="$TMP/fakebin:$PATH" script -qec "'$E4TIME' help $c" /dev/null \
			</dev/null >"$TMP/tty.out" 2>&1
		assertEquals "$c: help on a terminal: status" 0 $?
		assertNotContains "$c: man shows the page, not the usage" \
			"$(cat "$TMP/tty.out")" "Usage: e4time $c "
	done <"$TMP/cmds"
	sed 's/^/e4time-/' "$TMP/cmds" >"$TMP/man.want"
	assertEquals "man called once per command, with e4time-CMD" \
		"$(cat "$TMP/man.want")" "$(cat "$TMP/man.args")"
	assertTrue "commands run: $n" "[ $n -ge 13 ]"

	: >"$TMP/man.args"
	E4TIME_HELP=usage PATH="$TMP/fakebin:$PATH" \
		script -qec "'$E4TIME' help timeline" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	assertContains "E4TIME_HELP=usage: the usage" "$(cat "$TMP/tty.out")" \
		"Usage: e4time timeline "
	assertEquals "E4TIME_HELP=usage: man not run" "" "$(cat "$TMP/man.args")"

	# (the binary itself: a sanitizer or valgrind wrapper needs PATH)
	script -qec "PATH='$TMP/noman' '${E4TIME_BIN:-$E4TIME}' help stat" \
		/dev/null </dev/null >"$TMP/tty.out" 2>&1
	assertContains "no man on PATH: the usage" "$(cat "$TMP/tty.out")" \
		"Usage: e4time stat "

	# a man that fails (no such page): the usage after its complaint
	printf '#!/bin/sh\necho "No manual entry for $1" >&2\nexit 16\n' \
		>"$TMP/fakebin/man"
	PATH="$TMP/fakebin:$PATH" script -qec "'$E4TIME' help check" /dev/null \
		</dev/null >"$TMP/tty.out" 2>&1
	assertContains "man fails: its complaint" "$(cat "$TMP/tty.out")" \
		"No manual entry for e4time-check"
	assertContains "man fails: the usage" "$(cat "$TMP/tty.out")" \
		"Usage: e4time check "
}

# The README's command table: the ten most useful commands, one row
# each, every one a command (e4time(8) lists them all).
test_readme_commands_are_commands() {
	local c n=0
	for c in $(sed -n 's/^| `\([a-z]*\) .*/\1/p' "$README"); do
		n=$((n + 1))
		assertTrue "README: $c is a command" "grep -qx '$c' '$TMP/cmds'"
	done
	assertEquals "README: commands in its table" 10 "$n"
}

test_help_options_in_man() {
	local c o sec common n=0
	common=$(sed -n '/^.SH COMMON OPTIONS/,/^.SH FILE/p' "$MAN" | sed 's/\\-/-/g; s/\\%//g')
	while read -r c; do
		sec=$(man_section "$c")
		for o in $("$E4TIME" help "$c" | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			n=$((n + 1))
			case "$sec $common" in
			*"$o"*) ;;
			*) fail "$c: $o is in its --help, not in its page e4time-$c(8)" ;;
			esac
		done
	done <"$TMP/cmds"
	echo "options of the commands' --help checked: $n"
	assertTrue "options checked: $n" "[ $n -ge 100 ]"
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
	local c o n=0
	while read -r c; do
		# the options that head an item (.TP) of the page's OPTIONS
		for o in $(man_section "$c" OPTIONS | grep -A1 '^\.TP' |
			grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			n=$((n + 1))
			refuses "$c" "$o" &&
				fail "$c: $o is an item of e4time-$c(8)'s OPTIONS, but $c refuses it"
		done
	done <"$TMP/cmds"
	echo "options of the pages' OPTIONS checked: $n"
	assertTrue "options checked: $n" "[ $n -ge 50 ]"
}

# The problems of e4time check: each code and name of lib/check/problem.c's
# table heads an item of e4time-check(8) (".BR T0001 \" bad_nsec (error,
# preen)\""), and the page has no other.
test_check_problems_in_man() {
	local n
	grep -oE '"T[0-9]{4}", *"[a-z0-9_]+"' "$TOP_SRCDIR/lib/check/problem.c" |
		tr -d '",' | tr -s ' ' | sort >"$TMP/problems"
	sed -nE 's/^\.BR (T[0-9]{4}) " ([a-z0-9_]+) .*/\1 \2/p' "$(page check)" |
		sort >"$TMP/man_problems"
	n=$(wc -l <"$TMP/problems")
	# (nine when this test was written)
	assertTrue "problems in lib/check/problem.c: $n" "[ $n -ge 9 ]"
	assertEquals "problem.c's codes and names against e4time-check(8)'s items" \
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
