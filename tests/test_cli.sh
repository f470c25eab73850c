#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_cli.sh --- e4time's command line: help and version, usage errors,
# image offsets, file specifications, subtrees, the --since/--until/
# --field/--sort filters, the default output format.  Every command run
# on an image goes through run_ro (the image must stay byte-identical).
#
# The image is built at set-up with mke2fs -d (no mount), and debugfs -w
# gives a few files known times:
#   /a.txt          mtime 2020-01-01T00:00:00Z  crtime 2010-01-01  atime 2030-01-01
#   /dir/b.txt      mtime 2021-06-01T12:00:00Z  crtime 2011-01-01
#   /dir/sub/c.txt  mtime 2019-03-15T08:00:00Z  crtime 2012-01-01
# Every other file has mtime 2024-06-01 (touch -d) and crtime "now".
. "$TOP_SRCDIR/tests/lib.sh"

# ino_of PATH: the inode number debugfs gives for PATH in $IMG.
ino_of() {
	debugfs -R "stat $1" "$IMG" 2>/dev/null | awk '/^Inode:/ { print $2; exit }'
}

suite_setup() {
	local i
	require_tools mke2fs debugfs jq || return 1
	SRC="$TMP/src"
	IMG="$TMP/cli.img"
	DISK="$TMP/disk.img"
	mkdir -p "$SRC/dir/sub" "$SRC/many" || return 1
	echo hello >"$SRC/a.txt"
	echo b >"$SRC/dir/b.txt"
	echo c >"$SRC/dir/sub/c.txt"
	for i in $(seq -w 1 200); do
		echo "$i" >"$SRC/many/entry-$i-with-a-rather-long-name.txt"
	done
	find "$SRC" -exec touch -h -d '2024-06-01 00:00:00 UTC' {} + || return 1
	mke2fs -q -F -t ext4 -b 4096 -I 256 -O metadata_csum,64bit \
		-d "$SRC" "$IMG" 8M >"$TMP/mke2fs.log" 2>&1 || {
		cat "$TMP/mke2fs.log" >&2
		return 1
	}
	# Known times, written before any read test.
	debugfs -w -f - "$IMG" >"$TMP/debugfs.log" 2>&1 <<-'EOF'
		sif /a.txt mtime 20200101000000
		sif /a.txt crtime 20100101000000
		sif /a.txt atime 20300101000000
		sif /dir/b.txt mtime 20210601120000
		sif /dir/b.txt crtime 20110101000000
		sif /dir/sub/c.txt mtime 20190315080000
		sif /dir/sub/c.txt crtime 20120101000000
	EOF
	[ "$(debugfs -R 'stat /a.txt' "$IMG" 2>/dev/null | grep -c '0x5e0be100')" -ge 1 ] || {
		echo "test_cli: debugfs sif did not set /a.txt's mtime" >&2
		return 1
	}
	A_INO=$(ino_of /a.txt)
	DIR_INO=$(ino_of /dir)
	[ -n "$A_INO" ] && [ -n "$DIR_INO" ] || return 1
	# A whole "disk": 1 MiB (2048 sectors) before the filesystem.
	{ head -c 1048576 /dev/zero && cat "$IMG"; } >"$DISK" || return 1
	# Every path the image holds, from the source tree (not from e4time).
	{
		echo /
		echo /lost+found
		(cd "$SRC" && find . -mindepth 1) | sed 's|^\.||'
	} | LC_ALL=C sort >"$TMP/all.paths"
}

# paths: the "path" of every jsonl row of $OUT, in output order.
paths() {
	jq -r .path <"$OUT"
}

# err_lines: stderr without the usage reminder lines.
err_lines() {
	grep -av -e '^Usage: ' -e "^Try '" "$ERR" | tr -d '\000'
}

# usage_err IMAGE|- WANT ARGS...: ARGS is a usage error; status 2, nothing
# on stdout, one error line "e4time: ..." that matches the ERE WANT.
usage_err() {
	local img=$1 want=$2 errs n
	shift 2
	if [ "$img" = - ]; then run "$@"; else run_ro "$img" "$@"; fi
	errs=$(err_lines)
	assertEquals "e4time $*: status" 2 "$RC"
	assertEquals "e4time $*: nothing on stdout" "" "$(cat "$OUT")"
	n=$(printf '%s' "$errs" | grep -c '')
	assertEquals "e4time $*: one error line, got: $errs" 1 "$n"
	printf '%s' "$errs" | grep -Eq -e "$want"
	assertTrue "e4time $*: the error names /$want/: $errs" $?
	case $(head -n 1 "$ERR" | tr -d '\000') in
	"e4time: "*) ;;
	*) fail "e4time $*: first stderr line should be 'e4time: ...': $(head -n 1 "$ERR" | cat -v)" ;;
	esac
	assertContains "e4time $*: usage reminder" "$(tr -d '\000' <"$ERR")" "Usage: e4time"
	if LC_ALL=C tr -d '\n' <"$ERR" | LC_ALL=C grep -aq '[[:cntrl:]]'; then
		fail "e4time $*: control characters on stderr: $(cat -v "$ERR" | head -n 1)"
	fi
}

# --- help, version --------------------------------------------------------

test_no_arguments_is_usage_error() {
	run
	assertEquals "status" 2 "$RC"
	assertEquals "nothing on stdout" "" "$(cat "$OUT")"
	assertContains "usage on stderr" "$(cat "$ERR")" "Usage: e4time COMMAND"
	assertContains "commands listed" "$(cat "$ERR")" "timeline"
}

test_help_forms() {
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run $args
		assertEquals "e4time $args: status" 0 "$RC"
		assertEquals "e4time $args: nothing on stderr" "" "$(cat "$ERR")"
		assertContains "e4time $args: usage on stdout" "$(cat "$OUT")" "$want"
	done <<-'EOF'
		--help|Usage: e4time COMMAND
		help|Usage: e4time COMMAND
		help stat|Usage: e4time stat
		help timeline|Usage: e4time timeline
		stat --help|Usage: e4time stat
		timeline --help|Usage: e4time timeline
		stat -h|Usage: e4time stat
	EOF
	run --help
	assertContains "--help lists stat" "$(cat "$OUT")" "stat"
	assertContains "--help lists timeline" "$(cat "$OUT")" "timeline"
	assertContains "--help gives the exit statuses" "$(cat "$OUT")" "Exit status"
	run help timeline
	assertContains "help timeline names the formats" "$(cat "$OUT")" "jsonl"
	assertContains "help timeline names --since" "$(cat "$OUT")" "--since"
}

test_help_unknown_command() {
	run help nosuch
	assertEquals "help nosuch: status" 2 "$RC"
	assertEquals "help nosuch: nothing on stdout" "" "$(cat "$OUT")"
	assertContains "help nosuch: names it" "$(head -n 1 "$ERR")" "nosuch"
	run nosuch
	assertEquals "nosuch: status" 2 "$RC"
	assertEquals "nosuch: nothing on stdout" "" "$(cat "$OUT")"
	assertContains "nosuch: names it" "$(head -n 1 "$ERR")" "'nosuch'"
}

test_version() {
	run --version
	assertEquals "status" 0 "$RC"
	assertEquals "nothing on stderr" "" "$(cat "$ERR")"
	assertTrue "version line: $(cat "$OUT")" \
		"grep -Eq '^e4time [0-9]+(\.[0-9]+)+' '$OUT'"
	assertEquals "one line" 1 "$(wc -l <"$OUT")"
}

# --- usage errors ---------------------------------------------------------

test_unknown_long_option() {
	usage_err "$IMG" "--bogus" timeline --bogus "$IMG"
}

test_unknown_short_option() {
	usage_err "$IMG" "-x|'x'" stat -x "$IMG" /a.txt
}

test_option_missing_its_argument() {
	# The error names the option as typed (or its short form), and says
	# it lacks an argument.
	usage_err "$IMG" "--format|'-f'" timeline "$IMG" --format
	assertContains "--format: says argument" "$(err_lines)" "argument"
	usage_err "$IMG" "-o" timeline "$IMG" -o
	# Long-only options have no short form to fall back on.
	usage_err "$IMG" "--since" timeline "$IMG" --since
	usage_err "$IMG" "--sort" timeline "$IMG" --sort
	usage_err "$IMG" "--offset" stat "$IMG" /a.txt --offset
}

test_missing_image_argument() {
	usage_err - "image" timeline
	usage_err - "image" stat
	usage_err "$IMG" "file" stat "$IMG"
}

test_timeline_three_arguments() {
	usage_err "$IMG" "FILESPEC" timeline "$IMG" /dir /a.txt
}

test_unknown_format() {
	usage_err "$IMG" "nosuch" timeline --format nosuch "$IMG"
}

test_since_not_a_time() {
	usage_err "$IMG" "yesterday" timeline --since yesterday "$IMG"
}

test_since_impossible_date() {
	usage_err "$IMG" "2009-02-30" timeline --since 2009-02-30 "$IMG"
	usage_err "$IMG" "2009-13-01" timeline --until 2009-13-01 "$IMG"
}

test_unknown_field() {
	usage_err "$IMG" "nosuch" timeline --field nosuch "$IMG"
}

test_unknown_sort_field() {
	usage_err "$IMG" "nosuch" timeline --sort nosuch "$IMG"
}

test_sector_offset_not_a_number() {
	usage_err "$IMG" "abc" timeline -o abc "$IMG"
	usage_err "$IMG" "abc" stat -o abc "$IMG" /a.txt
}

test_negative_byte_offset() {
	usage_err "$IMG" "-5" timeline --offset -5 "$IMG"
}

# --- offsets --------------------------------------------------------------

test_offsets_find_the_filesystem() {
	local bare
	run_ro "$IMG" timeline --format csv "$IMG"
	assertEquals "bare image: status" 0 "$RC"
	bare=$(cat "$OUT")
	assertTrue "bare image lists /dir/sub/c.txt" "grep -q '^/dir/sub/c.txt,' '$OUT'"

	run_ro "$DISK" timeline --format csv -o 2048 "$DISK"
	assertEquals "-o 2048: status: $(head -n 3 "$ERR")" 0 "$RC"
	assertEquals "-o 2048: same rows as the bare image" "$bare" "$(cat "$OUT")"

	run_ro "$DISK" timeline --format csv --sector-offset 2048 "$DISK"
	assertEquals "--sector-offset 2048: status" 0 "$RC"
	assertEquals "--sector-offset 2048: same rows" "$bare" "$(cat "$OUT")"

	run_ro "$DISK" timeline --format csv --offset 1048576 "$DISK"
	assertEquals "--offset 1048576: status: $(head -n 3 "$ERR")" 0 "$RC"
	assertEquals "--offset 1048576: same rows as the bare image" "$bare" "$(cat "$OUT")"

	run_ro "$DISK" stat -o 2048 "$DISK" /a.txt
	assertEquals "stat -o 2048: status" 0 "$RC"
	assertContains "stat -o 2048 finds /a.txt" "$(cat "$OUT")" "Inode: $A_INO "
}

test_sector_offset_as_mmls_prints_it() {
	# mmls prints starts zero-padded ("0000002048"); TSK's -o takes them
	# as decimal, so must e4time's -o (which it says is "as TSK's -o").
	run_ro "$IMG" timeline --format csv "$IMG"
	cp "$OUT" "$TMP/bare.csv"
	run_ro "$DISK" timeline --format csv -o 0000002048 "$DISK"
	assertEquals "-o 0000002048: status: $(head -n 1 "$ERR")" 0 "$RC"
	assertTrue "-o 0000002048: same rows as the bare image" \
		"cmp -s '$TMP/bare.csv' '$OUT'"
}

test_wrong_offset_is_image_error() {
	run_ro "$DISK" timeline -o 1 "$DISK"
	assertEquals "-o 1: status" 4 "$RC"
	assertEquals "-o 1: nothing on stdout" "" "$(cat "$OUT")"
	assertEquals "-o 1: one line on stderr: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "-o 1: names the image" "$(head -n 1 "$ERR")" "$DISK"
	assertTrue "-o 1: names the offset: $(head -n 1 "$ERR")" \
		"head -n 1 '$ERR' | grep -Eq 'offset (512|1)([^0-9]|\$)|sector 1([^0-9]|\$)'"

	run_ro "$DISK" stat --offset 4096 "$DISK" /a.txt
	assertEquals "--offset 4096: status" 4 "$RC"
	assertContains "--offset 4096: names the image" "$(head -n 1 "$ERR")" "$DISK"
	assertContains "--offset 4096: names the offset" "$(head -n 1 "$ERR")" "4096"

	run_ro "$IMG" timeline --offset 99999999999 "$IMG"
	assertEquals "offset past the end: status" 4 "$RC"
	assertContains "offset past the end: names the image" "$(head -n 1 "$ERR")" "$IMG"
	assertContains "offset past the end: names the offset" "$(head -n 1 "$ERR")" "99999999999"
}

# --- file specifications ---------------------------------------------------

test_spec_absolute_path() {
	run_ro "$IMG" stat "$IMG" /a.txt
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals "first line is the spec" "/a.txt" "$(head -n 1 "$OUT")"
	assertContains "inode" "$(cat "$OUT")" "Inode: $A_INO "
	assertContains "mtime set by debugfs" "$(cat "$OUT")" \
		"mtime:  2020-01-01T00:00:00.000000000Z"
	assertContains "crtime set by debugfs" "$(cat "$OUT")" \
		"crtime: 2010-01-01T00:00:00.000000000Z"
	assertEquals "nothing on stderr" "" "$(cat "$ERR")"
}

test_spec_inode_number() {
	local by_path
	run_ro "$IMG" stat "$IMG" /a.txt
	by_path=$(tail -n +2 "$OUT")
	run_ro "$IMG" stat "$IMG" "<$A_INO>"
	assertEquals "status" 0 "$RC"
	assertEquals "first line is the spec" "<$A_INO>" "$(head -n 1 "$OUT")"
	assertEquals "<$A_INO> reports what /a.txt does" "$by_path" "$(tail -n +2 "$OUT")"

	# timeline from <DIR_INO>: the same inodes as from /dir.
	run_ro "$IMG" timeline --format jsonl "$IMG" /dir
	by_path=$(jq -r .ino <"$OUT")
	run_ro "$IMG" timeline --format jsonl "$IMG" "<$DIR_INO>"
	assertEquals "timeline <$DIR_INO>: status" 0 "$RC"
	assertEquals "timeline <$DIR_INO>: same inodes as /dir" "$by_path" "$(jq -r .ino <"$OUT")"
	assertEquals "timeline <$DIR_INO>: first row is the start" "$DIR_INO" "$(jq -r .ino <"$OUT" | head -n 1)"
}

test_spec_trailing_slash() {
	run_ro "$IMG" stat "$IMG" /dir/
	assertEquals "stat /dir/: status" 0 "$RC"
	assertContains "stat /dir/: the directory" "$(cat "$OUT")" "Inode: $DIR_INO "
	assertContains "stat /dir/: a directory" "$(cat "$OUT")" "Type: dir"

	run_ro "$IMG" timeline --format jsonl "$IMG" /dir/
	assertEquals "timeline /dir/: status" 0 "$RC"
	assertEquals "timeline /dir/: rows" \
		"$(printf '%s\n' /dir /dir/b.txt /dir/sub /dir/sub/c.txt)" \
		"$(paths | LC_ALL=C sort)"
	assertEquals "timeline /dir/: first row, no trailing slash" "/dir" "$(paths | head -n 1)"
	assertNotContains "timeline /dir/: no double slash" "$(paths)" "//"
}

# spec_not_found SPEC: stat and timeline say so, status 1, naming both.
spec_not_found() {
	local spec=$1 cmd
	for cmd in stat timeline; do
		run_ro "$IMG" "$cmd" "$IMG" "$spec"
		assertEquals "$cmd $spec: status" 1 "$RC"
		assertEquals "$cmd $spec: one line on stderr: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
		assertContains "$cmd $spec: names the image" "$(head -n 1 "$ERR")" "$IMG"
		assertContains "$cmd $spec: names the spec" "$(head -n 1 "$ERR")" "$spec"
		assertEquals "$cmd $spec: no rows" "" "$(grep -v '^#' "$OUT")"
	done
}

test_spec_no_such_path() {
	spec_not_found /nosuch
	spec_not_found /dir/nosuch
	spec_not_found /a.txt/below-a-file
}

test_spec_inode_zero() {
	spec_not_found "<0>"
}

test_spec_inode_out_of_range() {
	spec_not_found "<99999999>"
}

test_spec_relative_path() {
	spec_not_found nosuch-relative
	spec_not_found "<12"
}

test_stat_several_specs_one_missing() {
	run_ro "$IMG" stat "$IMG" /a.txt /nosuch /dir/b.txt
	assertEquals "status" 1 "$RC"
	assertEquals "the specs shown" "$(printf '%s\n' /a.txt /dir/b.txt)" \
		"$(grep '^/' "$OUT")"
	assertEquals "two inodes shown" 2 "$(grep -c '^  Inode: ' "$OUT")"
	assertContains "b.txt's mtime" "$(cat "$OUT")" "mtime:  2021-06-01T12:00:00.000000000Z"
	assertEquals "one error line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "error names the image" "$(head -n 1 "$ERR")" "$IMG"
	assertContains "error names /nosuch" "$(head -n 1 "$ERR")" "/nosuch"
}

# --- subtrees -------------------------------------------------------------

test_timeline_subtree() {
	local p bad=
	run_ro "$IMG" timeline --format jsonl "$IMG" /dir
	assertEquals "status" 0 "$RC"
	assertEquals "first row is the start directory" "/dir" "$(paths | head -n 1)"
	assertEquals "first row's inode" "$DIR_INO" "$(jq -r .ino <"$OUT" | head -n 1)"
	for p in $(paths | tail -n +2); do
		case $p in /dir/*) ;; *) bad="$bad $p" ;; esac
	done
	assertEquals "only paths under /dir" "" "$bad"
	assertEquals "every path under /dir, once" \
		"$(grep -E '^/dir(/|$)' "$TMP/all.paths")" "$(paths | LC_ALL=C sort)"

	run_ro "$IMG" timeline --format jsonl "$IMG" /dir/sub
	assertEquals "/dir/sub: rows in order" \
		"$(printf '%s\n' /dir/sub /dir/sub/c.txt)" "$(paths)"

	run_ro "$IMG" timeline --format jsonl "$IMG" /many
	assertEquals "/many: 201 rows" 201 "$(paths | wc -l)"
	assertEquals "/many: first row" "/many" "$(paths | head -n 1)"

	run_ro "$IMG" timeline --format jsonl "$IMG" /a.txt
	assertEquals "a file: status" 0 "$RC"
	assertEquals "a file: one row, itself" "/a.txt" "$(paths)"
}

test_timeline_whole_tree() {
	run_ro "$IMG" timeline --format jsonl "$IMG"
	assertEquals "status: $(head -n 3 "$ERR")" 0 "$RC"
	assertEquals "first row is /" "/" "$(paths | head -n 1)"
	assertEquals "every path once" "$(cat "$TMP/all.paths")" "$(paths | LC_ALL=C sort)"
	assertEquals "nothing on stderr" "" "$(cat "$ERR")"
}

# --- filters and sorting ----------------------------------------------------

test_since_until_on_mtime() {
	run_ro "$IMG" timeline --format jsonl --field mtime \
		--since 2019-01-01 --until 2021-12-31T23:59:59Z "$IMG"
	assertEquals "status" 0 "$RC"
	assertEquals "the three files with mtimes in 2019..2021" \
		"$(printf '%s\n' /a.txt /dir/b.txt /dir/sub/c.txt)" \
		"$(paths | LC_ALL=C sort)"
	assertEquals "their mtimes" "$(printf '%s\n' 1552636800 1577836800 1622548800)" \
		"$(jq -r .mtime.sec <"$OUT" | sort -n)"

	# Bounds are inclusive, in every time syntax.
	local t
	for t in 2020-01-01T00:00:00Z 2020-01-01T00:00:00.000000000Z \
		2020-01-01T02:00:00+02:00 @1577836800 @1577836800.0 20200101 \
		202001010000 20200101000000; do
		run_ro "$IMG" timeline --format jsonl --field mtime --since "$t" --until "$t" "$IMG"
		assertEquals "--since = --until = $t: status: $(head -n 1 "$ERR")" 0 "$RC"
		assertEquals "--since = --until = $t: exactly /a.txt" "/a.txt" "$(paths)"
	done

	run_ro "$IMG" timeline --format jsonl --field mtime --since @1577836800.000000001 \
		--until 2020-12-31 "$IMG"
	assertEquals "one nanosecond later: not /a.txt" "" "$(paths | grep -x /a.txt)"

	run_ro "$IMG" timeline --format jsonl --field mtime --since 2021-01-01 --until 2020-01-01 "$IMG"
	assertEquals "since after until: status" 0 "$RC"
	assertEquals "since after until: no rows" "" "$(cat "$OUT")"
}

test_since_until_default_field_is_crtime() {
	run_ro "$IMG" timeline --format jsonl --until 2012-12-31 "$IMG"
	assertEquals "status" 0 "$RC"
	assertEquals "crtimes before 2013" \
		"$(printf '%s\n' /a.txt /dir/b.txt /dir/sub/c.txt)" \
		"$(paths | LC_ALL=C sort)"
	run_ro "$IMG" timeline --format jsonl --field crtime --since 2011-01-01 --until 2011-01-01 "$IMG"
	assertEquals "crtime 2011-01-01 exactly" "/dir/b.txt" "$(paths)"
	# --field atime: only /a.txt's atime is in 2030.
	run_ro "$IMG" timeline --format jsonl --field atime --since 2029-01-01 "$IMG"
	assertEquals "atime after 2029" "/a.txt" "$(paths)"
	# No file has a dtime: a dtime filter keeps nothing.
	run_ro "$IMG" timeline --format jsonl --field dtime --since 1970-01-01 "$IMG"
	assertEquals "dtime filter: status" 0 "$RC"
	assertEquals "dtime filter: no rows" "" "$(cat "$OUT")"
}

test_filter_on_subtree_csv() {
	run_ro "$IMG" timeline --format csv --field mtime --until 2022-01-01 "$IMG" /dir
	assertEquals "status" 0 "$RC"
	assertEquals "csv header" "path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,dtime,status" \
		"$(head -n 1 "$OUT" | tr -d '\r')"
	assertEquals "rows under /dir with mtime before 2022" \
		"$(printf '%s\n' /dir/b.txt /dir/sub/c.txt)" \
		"$(tail -n +2 "$OUT" | tr -d '\r' | awk -F, '{ print $1 }' | LC_ALL=C sort)"
	assertEquals "their mtime column" \
		"$(printf '%s\n' 2019-03-15T08:00:00.000000000Z 2021-06-01T12:00:00.000000000Z)" \
		"$(tail -n +2 "$OUT" | tr -d '\r' | awk -F, '{ print $10 }' | sort)"
}

test_sort_by_mtime() {
	local n
	run_ro "$IMG" timeline --format jsonl --sort mtime "$IMG"
	assertEquals "status" 0 "$RC"
	n=$(wc -l <"$TMP/all.paths")
	assertEquals "every row, sorted" "$n" "$(paths | wc -l)"
	assertEquals "the oldest three first" \
		"$(printf '%s\n' /dir/sub/c.txt /a.txt /dir/b.txt)" "$(paths | head -n 3)"
	assertTrue "mtimes never go down" \
		"jq -r '[.mtime.sec, .mtime.nsec] | @tsv' <'$OUT' | sort -n -k1,1 -k2,2 -s -c"

	# csv, parsed: the mtime column is in order.
	run_ro "$IMG" timeline --format csv --sort mtime "$IMG"
	assertTrue "csv mtime column sorted" \
		"tail -n +2 '$OUT' | tr -d '\r' | awk -F, '{ print \$10 }' | LC_ALL=C sort -c"
}

test_sort_with_filter() {
	run_ro "$IMG" timeline --format jsonl --sort crtime --until 2012-12-31 "$IMG"
	assertEquals "status" 0 "$RC"
	assertEquals "crtime order" \
		"$(printf '%s\n' /a.txt /dir/b.txt /dir/sub/c.txt)" "$(paths)"
	run_ro "$IMG" timeline --format jsonl --sort atime --field mtime --until 2021-12-31 "$IMG"
	assertEquals "sorted by atime, filtered on mtime: /a.txt (2030) last" \
		"/a.txt" "$(paths | tail -n 1)"
	assertEquals "three rows" 3 "$(paths | wc -l)"
}

test_sort_by_absent_time_keeps_walk_order() {
	local walk
	run_ro "$IMG" timeline --format jsonl "$IMG"
	walk=$(paths)
	run_ro "$IMG" timeline --format jsonl --sort dtime "$IMG"
	assertEquals "status" 0 "$RC"
	assertEquals "no dtime anywhere: the walk's order" "$walk" "$(paths)"
}

# --- default format -------------------------------------------------------

test_default_format_not_a_terminal_is_bodyfile() {
	run_ro "$IMG" timeline "$IMG" /dir
	assertEquals "status" 0 "$RC"
	assertEquals "bodyfile header first" "# extended bodyfile 3 format" "$(head -n 1 "$OUT")"
	assertTrue "bodyfile rows" "grep -q '^0|/dir/sub/c.txt|' '$OUT'"
	assertEquals "5 lines" 5 "$(wc -l <"$OUT")"
}

test_default_format_terminal_is_text() {
	local before after
	command -v script >/dev/null 2>&1 || {
		skip_test "script(1) is not installed: no terminal to test with"
		return
	}
	before=$(sha256sum <"$IMG")
	script -qec "'$E4TIME' timeline '$IMG' /dir" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	RC=$?
	after=$(sha256sum <"$IMG")
	assertEquals "image unchanged" "$before" "$after"
	if [ "$RC" -ne 0 ] && ! grep -q . "$TMP/tty.out"; then
		skip_test "script(1) cannot make a terminal here"
		return
	fi
	tr -d '\r' <"$TMP/tty.out" >"$TMP/tty.txt"
	assertEquals "status" 0 "$RC"
	assertTrue "text header first: $(head -n 1 "$TMP/tty.txt")" \
		"head -n 1 '$TMP/tty.txt' | grep -q '^crtime (UTC) .* PATH\$'"
	assertNotContains "no bodyfile header" "$(cat "$TMP/tty.txt")" "# extended bodyfile"
	assertTrue "a text row for c.txt" \
		"grep -Eq '^2012-01-01 00:00:00\.000000000 +2019-03-15 08:00:00\.000000000 .* /dir/sub/c\.txt\$' '$TMP/tty.txt'"
	# --format still wins on a terminal.
	script -qec "'$E4TIME' timeline --format csv '$IMG' /dir" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	assertEquals "--format csv on a terminal" "path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,dtime,status" \
		"$(head -n 1 "$TMP/tty.out" | tr -d '\r')"
}

# --- output errors ----------------------------------------------------------

test_write_error_is_reported() {
	local before after cmd
	[ -w /dev/full ] || {
		skip_test "no /dev/full"
		return
	}
	before=$(sha256sum <"$IMG")
	for cmd in "timeline $IMG" "timeline --format jsonl --sort mtime $IMG" "stat $IMG /a.txt"; do
		# shellcheck disable=SC2086
		"$E4TIME" $cmd >/dev/full 2>"$TMP/stderr"
		RC=$?
		assertEquals "$cmd >/dev/full: status" 8 "$RC"
		assertContains "$cmd >/dev/full: says why: $(cat "$TMP/stderr")" \
			"$(cat "$TMP/stderr")" "No space left on device"
	done
	"$E4TIME" --help >/dev/full 2>"$TMP/stderr"
	assertNotEquals "--help >/dev/full: a failed write is not success" 0 $?
	after=$(sha256sum <"$IMG")
	assertEquals "image unchanged" "$before" "$after"
}

# An output buffer that runs out of memory (tools/linebuf.h; test hook
# E4TIME_TEST_LB_FAIL=N: the Nth growth of a buffer fails) cuts the output
# short, never silently: the run exits 8 with a line saying so, or (the
# failed buffer was not needed after all) gives the whole output; never a
# crash, never a different output with success.
test_output_out_of_memory_is_reported() {
	local cmd n runs=0 cut=0 rc0
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	local cmds=("timeline $IMG" "timeline -f jsonl $IMG"
		"timeline -f csv --threads 1 $IMG" "timeline -f text $IMG"
		"timeline -f mactime --sort mtime $IMG" "export $IMG"
		"info $IMG" "info -f jsonl $IMG" "check -n $IMG"
		"stat $IMG /a.txt" "anomalies -f jsonl $IMG"
		"volumes -f jsonl $IMG")
	for cmd in "${cmds[@]}"; do
		# shellcheck disable=SC2086 # the command's words
		"$E4TIME" $cmd >"$TMP/oom-ref.out" 2>"$TMP/oom-ref.err"
		rc0=$?
		for n in 1 2 3; do
			# shellcheck disable=SC2086
			E4TIME_TEST_LB_FAIL=$n "$E4TIME" $cmd >"$TMP/oom.out" \
				2>"$TMP/oom.err"
			RC=$?
			runs=$((runs + 1))
			assertTrue "$cmd ($n): no crash ($RC)" "[ $RC -lt 128 ]"
			if [ "$RC" = 8 ] && [ "$rc0" != 8 ]; then
				cut=$((cut + 1))
				assertEquals "$cmd ($n): one line says why" 1 \
					"$(grep -c -e 'out of memory' -e 'Cannot allocate memory' "$TMP/oom.err")"
			else
				assertEquals "$cmd ($n): the same status" "$rc0" "$RC"
				assertTrue "$cmd ($n): the whole output" \
					"cmp -s '$TMP/oom-ref.out' '$TMP/oom.out'"
			fi
		done
	done
	assertEquals "runs" $((${#cmds[@]} * 3)) "$runs"
	assertTrue "some runs were cut short ($cut)" "[ $cut -gt 0 ]"
}

# The csv record writer that cannot be set up (out of memory for its
# cells) does not exit: no rows, exit 8, one line saying why.
test_record_writer_out_of_memory_is_reported() {
	local cmd runs=0
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	local cmds=("timeline -f csv $IMG" "timeline -f csv --threads 2 $IMG"
		"timeline -f timesketch-csv $IMG" "info -f csv $IMG"
		"stat -f csv $IMG /a.txt" "anomalies -f csv $IMG"
		"volumes -f csv $IMG")
	for cmd in "${cmds[@]}"; do
		# shellcheck disable=SC2086 # the command's words
		E4TIME_TEST_REPORT_NOMEM=1 "$E4TIME" $cmd >"$TMP/rnm.out" \
			2>"$TMP/rnm.err"
		RC=$?
		runs=$((runs + 1))
		assertEquals "$cmd: status" 8 "$RC"
		assertEquals "$cmd: one line says why: $(cat "$TMP/rnm.err")" 1 \
			"$(grep -c -e 'out of memory' -e 'Cannot allocate memory' "$TMP/rnm.err")"
		assertEquals "$cmd: no rows" 0 "$(wc -l <"$TMP/rnm.out")"
	done
	assertEquals "runs" ${#cmds[@]} "$runs"
}

. shunit2
