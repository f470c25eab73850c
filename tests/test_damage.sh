#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_damage.sh --- e4time on bad input: things that are not images,
# truncated images, damaged inodes, directory blocks, inode tables and
# superblocks, a journal that needs recovery, a directory loop.
#
# Every run goes through timeout (a hang is a failure) and must not die
# of a signal (status >= 128).  Every image is hashed before and after:
# reading must not change a byte, damaged or not.
#
# The base image is built at set-up with mke2fs -d (no mount):
#   /dir/b.txt /dir/sub/c.txt   small tree
#   /many/                      200 entries, 3 directory blocks
#   /a.txt                      written last with debugfs, so its inode
#                               is not in the inode table block of /
. "$TOP_SRCDIR/tests/lib.sh"

TIMEOUT=60
BS=4096

# ro_t IMAGE ARGS...: as run_t, and fail if IMAGE (a file) changed.
ro_t() {
	local img="$1" before="" after=""
	shift
	[ -f "$img" ] && before=$(sha256sum <"$img")
	run_t "$@"
	[ -f "$img" ] && after=$(sha256sum <"$img")
	assertEquals "e4time $1 changed the image" "$before" "$after"
}

# ino_of IMAGE PATH: the inode number debugfs gives for PATH.
ino_of() {
	debugfs -R "stat $2" "$1" 2>/dev/null | awk '/^Inode:/ { print $2; exit }'
}

# inode_pos IMAGE PATH: "BLOCK OFFSET" of PATH's inode, from debugfs imap.
inode_pos() {
	local blk off
	read -r blk off < <(debugfs -R "imap $2" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-fA-F]*\).*/\1 \2/p')
	[ -n "$off" ] && echo "$blk $((off))"
}

# dir_blocks IMAGE PATH: the physical blocks of a directory, in order.
dir_blocks() {
	debugfs -R "blocks $2" "$1" 2>/dev/null
}

# names_in_block IMAGE BLOCK: the /many entry names a block holds.
names_in_block() {
	dd if="$1" bs=$BS skip="$2" count=1 status=none |
		grep -ao 'entry-[0-9]*-with-a-rather-long-name\.txt'
}

# reachable_below IMAGE BLOCK: the paths of $TMP/all.paths that / still
# reaches when every block from BLOCK on is lost (sorted).
reachable_below() {
	local img=$1 cut=$2 p d b ok
	declare -A readable=()
	while read -r p; do
		debugfs -R "stat $p" "$img" 2>/dev/null | grep -q "Type: directory" || continue
		ok=1
		for b in $(dir_blocks "$img" "$p"); do
			[ "$b" -lt "$cut" ] || ok=0
		done
		readable[$p]=$ok
	done <"$TMP/all.paths"
	while read -r p; do
		ok=1
		d=$p
		while [ "$d" != / ]; do
			d=${d%/*}
			[ -z "$d" ] && d=/
			[ "${readable[$d]:-0}" = 1 ] || ok=0
		done
		[ "$ok" = 1 ] && echo "$p"
	done <"$TMP/all.paths"
}

# damaged NAME: a fresh copy of the base image, $TMP/NAME.img.
damaged() {
	cp "$BASE" "$TMP/$1.img" && echo "$TMP/$1.img"
}

# poke IMAGE OFFSET BYTES...: write bytes (printf escapes) at OFFSET.
poke() {
	local img=$1 off=$2
	shift 2
	# shellcheck disable=SC2059 # the bytes are the format
	printf "$@" | dd of="$img" bs=1 seek="$off" conv=notrunc status=none
}

# junk N: N bytes of fixed junk (no zero bytes, no '/' in it).
junk() {
	local i
	for ((i = 0; i < $1; i += 4)); do printf '\xde\xad\xbe\xef'; done | head -c "$1"
}

suite_setup() {
	local i
	require_tools mke2fs debugfs jq timeout || return 1
	SRC="$TMP/src"
	BASE="$TMP/base.img"
	mkdir -p "$SRC/dir/sub" "$SRC/many" || return 1
	echo b >"$SRC/dir/b.txt"
	echo c >"$SRC/dir/sub/c.txt"
	for i in $(seq -w 1 200); do
		echo "$i" >"$SRC/many/entry-$i-with-a-rather-long-name.txt"
	done
	mke2fs -q -F -t ext4 -b $BS -I 256 -O metadata_csum,64bit \
		-d "$SRC" "$BASE" 8M >"$TMP/mke2fs.log" 2>&1 || {
		cat "$TMP/mke2fs.log" >&2
		return 1
	}
	echo hello >"$TMP/a.txt"
	debugfs -w -R "write $TMP/a.txt a.txt" "$BASE" >"$TMP/debugfs.log" 2>&1
	A_INO=$(ino_of "$BASE" /a.txt)
	DIR_INO=$(ino_of "$BASE" /dir)
	MANY_INO=$(ino_of "$BASE" /many)
	read -r A_BLK A_OFF < <(inode_pos "$BASE" /a.txt)
	read -r ROOT_BLK _ < <(inode_pos "$BASE" /)
	read -r -a MANY_BLKS < <(dir_blocks "$BASE" /many)
	if [ -z "$A_INO" ] || [ -z "$A_OFF" ] || [ "${#MANY_BLKS[@]}" -lt 3 ] ||
		[ "$A_BLK" = "$ROOT_BLK" ]; then
		echo "test_damage: unexpected base image: a.txt <$A_INO> at" \
			"$A_BLK+$A_OFF, / at $ROOT_BLK, /many in ${MANY_BLKS[*]}" >&2
		return 1
	fi
	A_POS=$((A_BLK * BS + A_OFF))
	# Every path of the base image, from the source tree.
	{
		echo /
		echo /lost+found
		echo /a.txt
		(cd "$SRC" && find . -mindepth 1) | sed 's|^\.||'
	} | LC_ALL=C sort >"$TMP/all.paths"
	# path -> inode of the intact image, for the zeroed-table case.
	timeout -k 5 "$TIMEOUT" "$E4TIME" timeline --format jsonl "$BASE" \
		>"$TMP/base.jsonl" 2>"$TMP/base.err" || {
		echo "test_damage: e4time fails on the intact image:" >&2
		cat "$TMP/base.err" >&2
		return 1
	}
}

# paths: the "path" of every jsonl row of $OUT, sorted.
paths() {
	jq -r .path <"$OUT" | LC_ALL=C sort
}

# missing_paths EXPECTED_FILE: expected paths that $OUT does not list.
missing_paths() {
	paths | LC_ALL=C comm -23 "$1" -
}

# first_err_has WHAT...: stderr's first line contains every WHAT.
first_err_has() {
	local first w
	first=$(head -n 1 "$ERR")
	for w in "$@"; do
		assertContains "first stderr line names '$w': '$first'" "$first" "$w"
	done
}

# --- not an image -----------------------------------------------------------

# not_an_image FILE: both commands, status 4, one stderr line naming FILE.
not_an_image() {
	local img=$1 cmd
	for cmd in timeline stat; do
		if [ "$cmd" = stat ]; then
			ro_t "$img" stat "$img" /a.txt
		else
			ro_t "$img" timeline "$img"
		fi
		assertEquals "$cmd $img: status" 4 "$RC"
		assertEquals "$cmd $img: nothing on stdout" "" "$(cat "$OUT")"
		assertEquals "$cmd $img: one line on stderr: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
		first_err_has "$img"
	done
}

test_missing_image_file() {
	not_an_image "$TMP/no-such.img"
}

test_directory_as_image() {
	mkdir -p "$TMP/a-directory"
	not_an_image "$TMP/a-directory"
	assertContains "says it is a directory" "$(cat "$ERR")" "irectory"
}

test_empty_file() {
	: >"$TMP/empty.img"
	not_an_image "$TMP/empty.img"
	assertContains "says it is empty" "$(cat "$ERR")" "empty"
}

test_random_bytes() {
	head -c 1048576 /dev/urandom >"$TMP/random.img"
	# No chance of an ext2 magic number (0xEF53 at byte 1080).
	poke "$TMP/random.img" 1080 '\x00\x00'
	not_an_image "$TMP/random.img"
}

test_text_file() {
	printf 'this is not an ext4 image\njust some text\n' >"$TMP/text.img"
	not_an_image "$TMP/text.img"
}

test_too_short_for_a_superblock() {
	head -c 1500 "$BASE" >"$TMP/short.img"
	not_an_image "$TMP/short.img"
}

# --- truncated images ------------------------------------------------------

test_truncated_to_1mib() {
	# The inode table and / survive; directory blocks past 1 MiB do not.
	local img="$TMP/trunc1m.img"
	head -c 1048576 "$BASE" >"$img"
	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "status: $(head -n 3 "$ERR")" 1 "$RC"
	first_err_has "$img"
	assertContains "says the image is short" "$(cat "$ERR")" "shorter"
	reachable_below "$BASE" 256 >"$TMP/trunc1m.paths"
	assertEquals "rows: what the surviving directory blocks reach" \
		"$(cat "$TMP/trunc1m.paths")" "$(paths)"

	ro_t "$img" stat "$img" /a.txt
	assertTrue "stat: status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	first_err_has "$img"
	assertContains "stat still shows /a.txt" "$(cat "$OUT")" "Inode: $A_INO "
}

test_truncated_to_100kib() {
	# Superblock and group descriptors only: no inode can be read.
	local img="$TMP/trunc100k.img"
	head -c 102400 "$BASE" >"$img"
	ro_t "$img" timeline --format jsonl "$img"
	assertTrue "timeline: status 1 or 4, got $RC" "[ $RC -eq 1 -o $RC -eq 4 ]"
	first_err_has "$img"
	assertContains "says the image is short" "$(cat "$ERR")" "shorter"
	assertEquals "no rows" "" "$(cat "$OUT")"

	ro_t "$img" stat "$img" /a.txt "<$A_INO>"
	assertTrue "stat: status 1 or 4, got $RC" "[ $RC -eq 1 -o $RC -eq 4 ]"
	first_err_has "$img"
	assertEquals "stat: no inode shown" "" "$(grep 'Inode: ' "$OUT")"
}

test_truncated_last_inode_table() {
	# 1 KiB blocks, no flex_bg, no uninit_bg: four groups, each with its
	# inode table inside it.  Cut at 20 MiB, group 3's table is gone; all
	# the files live in group 0 and must still be listed.
	local full="$TMP/groups.img" img="$TMP/groups-cut.img"
	mke2fs -q -F -t ext4 -b 1024 -I 256 -O ^metadata_csum,^uninit_bg,^flex_bg \
		-d "$SRC" "$full" 32M >"$TMP/mke2fs2.log" 2>&1 || {
		fail "mke2fs: $(cat "$TMP/mke2fs2.log")"
		return
	}
	head -c $((20 * 1048576)) "$full" >"$img"
	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "status: $(head -n 3 "$ERR")" 1 "$RC"
	first_err_has "$img"
	grep -v -x /a.txt "$TMP/all.paths" >"$TMP/groups.paths"
	assertEquals "every file (all in group 0) listed" "" \
		"$(missing_paths "$TMP/groups.paths" | head -n 5)"
}

# --- damaged inodes ----------------------------------------------------------

test_damaged_inode() {
	local img
	img=$(damaged badinode)
	# 64 bytes of junk in the middle of /a.txt's 256-byte inode.
	junk 64 | dd of="$img" bs=1 seek=$((A_POS + 96)) conv=notrunc status=none

	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "timeline: status" 1 "$RC"
	first_err_has "$img" "<$A_INO>"
	grep -v -x /a.txt "$TMP/all.paths" >"$TMP/others.paths"
	assertEquals "timeline: every other file listed" "" \
		"$(missing_paths "$TMP/others.paths" | head -n 5)"
	assertEquals "timeline: a row marked inode_csum_bad, /a.txt's" "/a.txt" \
		"$(jq -r 'select(.inode_csum_bad) | .path' <"$OUT")"

	ro_t "$img" stat "$img" /a.txt
	assertEquals "stat: status" 1 "$RC"
	assertContains "stat: checksum warning" "$(cat "$OUT")" \
		"WARNING: inode checksum does not verify"
	first_err_has "$img" "<$A_INO>"
}

test_impossible_extra_isize() {
	local img
	img=$(damaged extraisize)
	poke "$img" $((A_POS + 128)) '\xe8\x03' # i_extra_isize = 1000

	ro_t "$img" stat "$img" /a.txt
	assertEquals "stat: status" 1 "$RC"
	assertContains "stat: says so" "$(cat "$OUT")" "Extra isize: 1000 (impossible)"
	assertContains "stat: no crtime" "$(cat "$OUT")" \
		"crtime: not stored (i_extra_isize is impossible)"
	assertEquals "stat: no _extra words shown" "" \
		"$(grep -E '^  (a|m|c)time: .*0x[0-9a-f]{8}:[0-9a-f]{8}' "$OUT")"
	first_err_has "$img"

	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "timeline: status" 1 "$RC"
	first_err_has "$img" "<$A_INO>"
	assertContains "timeline: says what" "$(cat "$ERR")" "i_extra_isize"
	assertEquals "timeline: /a.txt's crtime not shown" "null" \
		"$(jq -c 'select(.path == "/a.txt") | .crtime' <"$OUT")"
	assertEquals "timeline: every file listed" "" "$(missing_paths "$TMP/all.paths")"
}

test_zeroed_inode_table_block() {
	local img
	img=$(damaged zeroitable)
	dd if=/dev/zero of="$img" bs=$BS seek="$A_BLK" count=1 conv=notrunc status=none
	# The files whose inodes were in that block are gone; the rest stay.
	jq -r --argjson lo $(((A_BLK - ROOT_BLK) * BS / 256 + 1)) \
		--argjson hi $(((A_BLK - ROOT_BLK + 1) * BS / 256)) \
		'select(.ino < $lo or .ino > $hi) | .path' <"$TMP/base.jsonl" |
		LC_ALL=C sort >"$TMP/kept.paths"
	assertTrue "some files survive" "[ -s '$TMP/kept.paths' ]"
	assertNotContains "a.txt is in the zeroed block" "$(cat "$TMP/kept.paths")" "/a.txt"

	ro_t "$img" timeline --format jsonl "$img"
	assertTrue "timeline: status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	assertEquals "timeline: the others listed" "" "$(missing_paths "$TMP/kept.paths" | head -n 5)"
	# Its name is still there: a name-only row, no times (as fls lists it).
	assertEquals "timeline: /a.txt a name-only row without times" \
		'/a.txt name-only null null' \
		"$(jq -r 'select(.path == "/a.txt") | "\(.path) \(.status) \(.mtime) \(.crtime)"' <"$OUT")"
	assertEquals "timeline: status (a name without its inode)" 1 "$RC"
	first_err_has "$img"
}

test_zeroed_inode_stat() {
	# /a.txt names an inode that is now all zeros: not in use.  stat must
	# not show it as a file with 1970 times and exit 0.
	local img
	img=$(damaged zeroitable2)
	dd if=/dev/zero of="$img" bs=$BS seek="$A_BLK" count=1 conv=notrunc status=none
	ro_t "$img" stat "$img" /a.txt
	assertEquals "stat: status" 1 "$RC"
	first_err_has "$img"
	assertNotContains "stat: no invented 1970 times" "$(cat "$OUT")" "1970-01-01"
}

# --- damaged directory blocks ------------------------------------------------

test_damaged_directory_block() {
	local img blk
	img=$(damaged baddir)
	blk=${MANY_BLKS[1]}
	# The second half of /many's middle block: rec_len garbage.
	junk 2048 | dd of="$img" bs=1 seek=$((blk * BS + BS / 2)) conv=notrunc status=none
	{
		names_in_block "$BASE" "${MANY_BLKS[0]}"
		names_in_block "$BASE" "${MANY_BLKS[2]}"
	} | sed 's|^|/many/|' | LC_ALL=C sort >"$TMP/otherblocks.paths"
	assertTrue "the other blocks hold entries" \
		"[ $(wc -l <"$TMP/otherblocks.paths") -gt 100 ]"

	ro_t "$img" timeline --format jsonl "$img" /many
	assertEquals "status" 1 "$RC"
	first_err_has "$img" "<$MANY_INO>"
	assertContains "says the block is corrupted" "$(cat "$ERR")" "corrupted"
	assertContains "names the block" "$(cat "$ERR")" "$blk"
	assertEquals "entries of the other blocks listed" "" \
		"$(missing_paths "$TMP/otherblocks.paths" | head -n 5)"
	assertTrue "the first half of the damaged block still read" \
		"[ $(paths | wc -l) -gt $(($(wc -l <"$TMP/otherblocks.paths") + 10)) ]"

	# --deleted: the inodes whose entries were lost come back as orphans.
	ro_t "$img" timeline --deleted --format jsonl "$img"
	assertEquals "--deleted: status" 1 "$RC"
	assertEquals "--deleted: the 200 inodes of /many, by name or as orphans" 200 \
		"$(jq -r 'select((.path | startswith("/many/")) or .status == "orphan") | .ino' <"$OUT" | sort -u | wc -l)"

	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "whole tree: status" 1 "$RC"
	grep -E '^/dir|^/a.txt' "$TMP/all.paths" >"$TMP/dir.paths"
	assertEquals "whole tree: /dir and /a.txt still listed" "" \
		"$(missing_paths "$TMP/dir.paths")"
}

test_directory_block_checksum_only() {
	local img blk name
	img=$(damaged dircsum)
	blk=${MANY_BLKS[1]}
	name=$(names_in_block "$BASE" "$blk" | head -n 1)
	# Its first name starts at byte 8: change a digit, keep the name valid.
	poke "$img" $((blk * BS + 8 + 6)) 'X'
	ro_t "$img" timeline --format jsonl "$img" /many
	assertEquals "status" 1 "$RC"
	first_err_has "$img" "<$MANY_INO>"
	assertContains "checksum warning" "$(head -n 1 "$ERR")" "checksum"
	assertEquals "one warning" 1 "$(wc -l <"$ERR")"
	assertEquals "all 200 entries and /many listed" 201 "$(paths | wc -l)"
	assertEquals "the changed name listed" "/many/${name:0:6}X${name:7}" \
		"$(paths | grep -F "/many/${name:0:6}X")"
	grep -v -x -F "/many/$name" "$TMP/all.paths" | grep '^/many/' >"$TMP/many.paths"
	assertEquals "every other entry listed" "" "$(missing_paths "$TMP/many.paths" | head -n 5)"
}

# paths_consistent: every row but the first is a name inside a listed
# directory: no empty name (a trailing '/'), no '/' inside a name.
paths_consistent() {
	jq -r 'select(.type == "dir") | .path' <"$OUT" | LC_ALL=C sort >"$TMP/dirs.rows"
	tail -n +2 <(jq -r .path <"$OUT") | while read -r p; do
		case $p in
		*/) echo "empty name: '$p'" ;;
		*) grep -qxF -- "${p%/*}" "$TMP/dirs.rows" || [ "${p%/*}" = "" ] ||
			echo "no such directory row for '$p'" ;;
		esac
	done | head -n 3
}

test_bad_names_in_directory_entry() {
	local img blk0 name
	blk0=${MANY_BLKS[0]}
	# /many's first entry (after . and ..) is at byte 24 of its block.
	name=$(names_in_block "$BASE" "$blk0" | head -n 1)

	img=$(damaged emptyname)
	poke "$img" $((blk0 * BS + 24 + 6)) '\x00' # name_len = 0
	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "name_len 0: status" 1 "$RC"
	first_err_has "$img" "<$MANY_INO>"
	assertEquals "name_len 0: rows consistent" "" "$(paths_consistent)"
	grep -v -x -F "/many/$name" "$TMP/all.paths" >"$TMP/rest.paths"
	assertEquals "name_len 0: the rest listed" "" "$(missing_paths "$TMP/rest.paths" | head -n 3)"

	img=$(damaged slashname)
	poke "$img" $((blk0 * BS + 24 + 8 + 3)) '/' # "ent/y-..."
	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "'/' in a name: status" 1 "$RC"
	first_err_has "$img" "<$MANY_INO>"
	assertEquals "'/' in a name: rows consistent" "" "$(paths_consistent)"
	assertEquals "'/' in a name: the rest listed" "" "$(missing_paths "$TMP/rest.paths" | head -n 3)"
}

test_directory_extent_header_damaged() {
	# /many's extent header magic zeroed: its blocks cannot be found.  On
	# a filesystem without metadata_csum nothing else tells.
	local img="$TMP/nocsum.img" pos many
	mke2fs -q -F -t ext4 -b $BS -I 256 -O ^metadata_csum -d "$SRC" "$img" 8M \
		>"$TMP/mke2fs3.log" 2>&1 || {
		fail "mke2fs: $(cat "$TMP/mke2fs3.log")"
		return
	}
	pos=$(inode_pos "$img" /many | awk -v bs=$BS '{ print $1 * bs + $2 }')
	many=$(ino_of "$img" /many)
	assertEquals "extent magic where expected" "0af3" \
		"$(dd if="$img" bs=1 skip=$((pos + 0x28)) count=2 status=none | xxd -p)"
	poke "$img" $((pos + 0x28)) '\x00\x00'

	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "status" 1 "$RC"
	first_err_has "$img" "<$many>"
	grep -v -e '^/many/' -e '^/a.txt$' "$TMP/all.paths" >"$TMP/nomany.paths"
	assertEquals "the rest listed" "" "$(missing_paths "$TMP/nomany.paths" | head -n 3)"
	assertEquals "/many itself listed" "/many" "$(paths | grep -x /many)"
}

# --- superblock, journal ------------------------------------------------------

test_superblock_bad_checksum() {
	local img
	img=$(damaged sbcsum)
	poke "$img" $((1024 + 0x78)) 'X' # s_volume_name[0]
	ro_t "$img" timeline --format jsonl "$img"
	assertTrue "status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	first_err_has "$img" "Superblock checksum"
	assertEquals "every file listed" "" "$(missing_paths "$TMP/all.paths")"

	ro_t "$img" stat "$img" /a.txt
	assertTrue "stat: status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	first_err_has "$img" "Superblock checksum"
	assertContains "stat: /a.txt shown" "$(cat "$OUT")" "Inode: $A_INO "
}

test_journal_needs_recovery() {
	local img
	img=$(damaged recovery)
	debugfs -w -R "feature needs_recovery" "$img" >/dev/null 2>&1
	assertTrue "flag set" \
		"dumpe2fs -h '$img' 2>/dev/null | grep -q 'features:.*needs_recovery'"
	ro_t "$img" timeline --format jsonl "$img"
	assertTrue "status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	first_err_has "$img" "needs recovery"
	assertEquals "every file listed" "" "$(missing_paths "$TMP/all.paths")"
	# The note is not a warning that -q hides.
	ro_t "$img" timeline -q --format jsonl "$img"
	assertContains "-q: still says so" "$(cat "$ERR")" "needs recovery"
	assertTrue "flag still set (no replay)" \
		"dumpe2fs -h '$img' 2>/dev/null | grep -q 'features:.*needs_recovery'"
}

test_orphan_list_loop() {
	# s_last_orphan -> /a.txt, whose i_dtime points back at itself.
	local img
	img=$(damaged orphanloop)
	debugfs -w -f - "$img" >/dev/null 2>&1 <<-EOF
		ssv last_orphan $A_INO
		sif <$A_INO> dtime $A_INO
	EOF
	assertTrue "orphan list set" \
		"dumpe2fs -h '$img' 2>/dev/null | grep -q 'First orphan inode: *$A_INO\$'"
	ro_t "$img" timeline --deleted --format jsonl "$img"
	assertTrue "status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	assertEquals "every file listed" "" "$(missing_paths "$TMP/all.paths")"
	ro_t "$img" stat "$img" /a.txt /dir/b.txt
	assertTrue "stat: status 0 or 1, got $RC" "[ $RC -eq 0 -o $RC -eq 1 ]"
	assertEquals "stat: both shown" 2 "$(grep -c '^  Inode: ' "$OUT")"
}

# --- directory loops ------------------------------------------------------------

test_directory_loop() {
	local img
	img=$(damaged loop)
	debugfs -w -R "link /dir /dir/sub/loop" "$img" >/dev/null 2>&1
	assertEquals "loop made" "$DIR_INO" "$(ino_of "$img" /dir/sub/loop)"

	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "status" 1 "$RC"
	first_err_has "$img" "<$DIR_INO>"
	assertContains "says it is a loop" "$(head -n 1 "$ERR")" "loop"
	assertEquals "every file, and the loop's name once" \
		"$( (cat "$TMP/all.paths" && echo /dir/sub/loop) | LC_ALL=C sort)" "$(paths)"

	ro_t "$img" timeline --format jsonl "$img" /dir/sub/loop
	assertEquals "from the loop: status" 1 "$RC"
	assertEquals "from the loop: 5 rows" 5 "$(paths | wc -l)"

	# / linked below itself.
	img=$(damaged rootloop)
	debugfs -w -R "link / /dir/sub/up" "$img" >/dev/null 2>&1
	ro_t "$img" timeline --format jsonl "$img"
	assertEquals "root loop: status" 1 "$RC"
	first_err_has "$img" "<2>"
	assertEquals "root loop: every file once, plus the link" \
		"$( (cat "$TMP/all.paths" && echo /dir/sub/up) | LC_ALL=C sort)" "$(paths)"
}

. shunit2
