#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_docs.sh --- the man page, the README and --help agree: every
# command of `e4time --help` has its SYNOPSIS line and section in
# e4time(8) and its row in the README's command table; every long option
# a command's help lists is in that command's section of the man page
# (or among the options every command takes); and every option that
# heads an item of a command's section is one the command accepts.
. "$TOP_SRCDIR/tests/lib.sh"

MAN="$TOP_SRCDIR/man/e4time.8"
README="$TOP_SRCDIR/README.md"

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

. shunit2
