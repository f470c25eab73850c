#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_completion.sh --- completion/e4time, called as bash calls it
# (COMP_WORDS, COMP_CWORD, then COMPREPLY): every command; every option
# each command's --help lists, and only options the command accepts;
# each command's --format values as its "unknown format" error lists
# them; --volume's choices as `e4time volumes -f csv IMAGE` names them,
# on a GPT disk; files where an image or a file goes.
. "$TOP_SRCDIR/tests/lib.sh"

COMPLETION="$TOP_SRCDIR/completion/e4time"

suite_setup() {
	# shellcheck source=completion/e4time
	. "$COMPLETION" || return 1
	E4TIME_COMPLETION_BIN=$E4TIME
	"$E4TIME" --help >"$TMP/help" || return 1
	sed -n '/^Commands:/,/^$/p' "$TMP/help" | awk 'NF && !/:$/ {print $1}' \
		>"$TMP/cmds"
	[ "$(wc -l <"$TMP/cmds")" -ge 13 ]
}

# comp WORD...: the completions of the last WORD after the others, one
# a line, sorted, in $TMP/reply.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_e4time
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort >"$TMP/reply"
}

test_every_command() {
	local c n=0
	comp e4time ""
	while read -r c; do
		grep -qx -- "$c" "$TMP/reply" || fail "command $c not completed"
		n=$((n + 1))
	done <"$TMP/cmds"
	assertEquals "commands checked" "$(wc -l <"$TMP/cmds")" "$n"
	comp e4time ti
	assertEquals "ti" "timeline" "$(cat "$TMP/reply")"
	comp e4time help exi
	assertEquals "help exi" "exit-status" "$(cat "$TMP/reply")"
}

# help_opts CMD: the options CMD's --help names (long ones anywhere,
# short ones where a line lists options), one a line.
help_opts() {
	"$E4TIME" "$1" --help >"$TMP/h.$1" 2>&1
	{
		grep -oE -- '--[a-z][a-z0-9-]+' "$TMP/h.$1"
		grep -E '^ +-' "$TMP/h.$1" | grep -oE -- '(^| )-[a-zA-Z]\b' | tr -d ' '
	} | LC_ALL=C sort -u
}

test_help_options_completed() {
	local c o n=0 opts
	while read -r c; do
		comp e4time "$c" -
		opts=$(cat "$TMP/reply")
		for o in $(help_opts "$c"); do
			# named in the prose, not options of the command: export
			# has no --format and refers to backfill's --from;
			# volumes lists what --volume takes
			case "$c $o" in
			"export --format" | "export --from" | "volumes --volume") continue ;;
			esac
			grep -qx -- "$o" "$TMP/reply" ||
				fail "$c: its --help lists $o, the completion lacks it"
			n=$((n + 1))
		done
		[ -n "$opts" ] || fail "$c: no option completed"
	done <"$TMP/cmds"
	assertTrue "options checked ($n)" "[ $n -ge 150 ]"
}

# Every option completed is one the command accepts, and takes a value
# exactly when the completion completes one: "e4time CMD OPT" alone is
# getopt's "bad option or missing argument" just for those, and
# "e4time CMD OPT [VALUE]" never is.
test_completed_options_accepted() {
	local c o n=0 missing
	while read -r c; do
		comp e4time "$c" -
		for o in $(cat "$TMP/reply"); do
			case $o in -h | --help) continue ;; esac
			"$E4TIME" "$c" "$o" </dev/null >/dev/null 2>"$TMP/err"
			missing=no
			grep -q "bad option or missing argument" "$TMP/err" && missing=yes
			if _e4time_takes_arg "$c" "$o"; then
				assertEquals "$c $o takes a value" yes "$missing"
				"$E4TIME" "$c" "$o" x </dev/null >/dev/null 2>"$TMP/err"
			else
				assertEquals "$c $o takes no value: $(head -1 "$TMP/err")" no "$missing"
			fi
			grep -q "bad option or missing argument" "$TMP/err" &&
				fail "$c: $o is completed, $c refuses it"
			n=$((n + 1))
		done
	done <"$TMP/cmds"
	assertTrue "options tried ($n)" "[ $n -ge 150 ]"
}

test_formats_per_command() {
	local c n=0 want
	while read -r c; do
		"$E4TIME" "$c" -f e4t-no-such-format /dev/null >/dev/null 2>"$TMP/err"
		want=$(sed -n "s/.*unknown format 'e4t-no-such-format' (\(.*\))\$/\1/p" "$TMP/err" |
			tr -d ' ' | tr , '\n' | LC_ALL=C sort)
		comp e4time "$c" -f ""
		if [ -z "$want" ]; then
			assertEquals "$c: no formats, none completed" "" "$(cat "$TMP/reply")"
			continue
		fi
		assertEquals "$c: --format values" "$want" "$(cat "$TMP/reply")"
		comp e4time "$c" --format = ""
		assertEquals "$c: --format= values" "$want" "$(cat "$TMP/reply")"
		n=$((n + 1))
	done <"$TMP/cmds"
	# every command but export and set
	assertEquals "commands with formats" "$(($(wc -l <"$TMP/cmds") - 2))" "$n"
	comp e4time timeline --format=time
	assertEquals "--format=time" "--format=timesketch
--format=timesketch-csv" "$(cat "$TMP/reply")"
}

test_volume_choices_from_the_image() {
	require_tools sfdisk mkfs.ext4 xz || { skip_test "sfdisk, mkfs.ext4, xz needed"; return; }
	local disk=$TMP/gpt.img names
	truncate -s 40M "$disk"
	sfdisk -q "$disk" >/dev/null <<-EOF || { fail sfdisk; return; }
		label: gpt
		start=2048, size=32768, name=first
		start=36864, size=32768, name=second
	EOF
	xz -dc "$IMAGES/ext4-4k.img.xz" |
		dd of="$disk" bs=512 seek=2048 conv=notrunc status=none
	names=$("$E4TIME" volumes -f csv "$disk" | awk -F, 'NR > 1 {print $2}' | LC_ALL=C sort)
	assertEquals "volumes names them" "p1
p2" "$names"
	comp e4time info "$disk" --volume ""
	assertEquals "info --volume" "$names" "$(cat "$TMP/reply")"
	comp e4time timeline -f csv "$disk" --volume ""
	assertEquals "timeline --volume: all too" "all
$names" "$(cat "$TMP/reply")"
	comp e4time stat "$disk" --volume=p
	assertEquals "--volume=p" "--volume=p1
--volume=p2" "$(cat "$TMP/reply")"
	comp e4time info /nonexistent.img --volume ""
	assertEquals "no image, no choice" "" "$(cat "$TMP/reply")"
}

test_files_elsewhere() {
	mkdir -p "$TMP/files/sub"
	: >"$TMP/files/disk.img"
	comp e4time timeline "$TMP/files/di"
	assertEquals "IMAGE" "$TMP/files/disk.img" "$(cat "$TMP/reply")"
	comp e4time set -n --crtime @0 "$TMP/files/di"
	assertEquals "IMAGE after an option's value" "$TMP/files/disk.img" "$(cat "$TMP/reply")"
	comp e4time timeline "$TMP/files/disk.img" /
	assertEquals "FILESPEC: a path in the image, no guess" "" "$(cat "$TMP/reply")"
	comp e4time import "$TMP/files/disk.img" "$TMP/files/di"
	assertEquals "import's MANIFEST" "$TMP/files/disk.img" "$(cat "$TMP/reply")"
	comp e4time export --from-dir "$TMP/files/s"
	assertEquals "--from-dir: directories" "$TMP/files/sub" "$(cat "$TMP/reply")"
	comp e4time timeline --hash s
	assertEquals "--hash" "sha1
sha256" "$(cat "$TMP/reply")"
}

. shunit2
