#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_stat.sh --- e4time stat against the kernel's ground truth, and the
# raw words, not-stored rules and inode-number specs.
. "$TOP_SRCDIR/tests/lib.sh"

CHECK="$TOP_SRCDIR/tests/check_truth.py"

suite_setup() {
	local n
	for n in ext4-4k ext4-1k-inline ext4-128; do
		unpack "$n" >/dev/null || return 1
	done
}

# stat every live path of the truth in one run, compare every time.
check_stat() {
	local name=$1 img="$TMP/$1.img" hex p
	local -a paths=()
	while read -r hex _; do
		hex2var p "$hex"
		paths+=("$p")
	done < <(truth_lines "$name" | grep ' live$')
	run_ro "$img" stat "$img" "${paths[@]}"
	assertEquals "stat status: $(head -3 "$ERR")" 0 "$RC"
	python3 "$CHECK" stat "$IMAGES/$name.truth" "$OUT" >"$TMP/check" 2>&1
	local rc=$?
	assertEquals "truth check $name: $(head -20 "$TMP/check")" 0 "$rc"
}

test_stat_4k() { check_stat ext4-4k; }
test_stat_1k_inline() { check_stat ext4-1k-inline; }
test_stat_128() { check_stat ext4-128; }

test_raw_words_and_fields() {
	local img="$TMP/ext4-4k.img"
	run_ro "$img" stat "$img" /times/y2038-over
	assertContains "$(cat "$OUT")" "mtime:  2038-01-19T03:14:08.000000000Z"
	assertContains "epoch bit 1 in the raw word" "$(cat "$OUT")" "0x80000000:00000001"
	assertContains "$(cat "$OUT")" "Extra isize: 32"
	assertContains "$(cat "$OUT")" "dtime:  not set"
	run_ro "$img" stat "$img" /times/max
	# The kernel clamps :55.999999999 to :55 at the edge of the range
	# (timestamp_truncate), so the image holds whole seconds here.
	assertContains "$(cat "$OUT")" "2446-05-10T22:38:55.000000000Z      0x7fffffff:00000003"
}

test_128_byte_inode() {
	local img="$TMP/ext4-128.img"
	run_ro "$img" stat "$img" /a.txt
	assertContains "$(cat "$OUT")" "Extra isize: none"
	assertContains "$(cat "$OUT")" "crtime: not stored (128-byte inodes have no crtime)"
	assertContains "$(cat "$OUT")" "(no nanoseconds stored)"
	assertNotContains "$(cat "$OUT")" "1970-01-01"
}

test_inode_number_spec_matches_path() {
	local img="$TMP/ext4-4k.img" ino
	ino=$(truth_lines ext4-4k | awk -v h="$(printf /hello.txt | xxd -p)" '$1 == h {print $2}')
	run_ro "$img" stat "$img" /hello.txt
	local by_path
	by_path=$(tail -n +2 "$OUT")
	run_ro "$img" stat "$img" "<$ino>"
	assertEquals "same inode, same report" "$by_path" "$(tail -n +2 "$OUT")"
	assertEquals "<$ino>" "$(head -n 1 "$OUT")"
}

test_local_time() {
	local img="$TMP/ext4-4k.img"
	TZ=Asia/Kolkata run_ro "$img" stat --local "$img" /times/nsec
	assertContains "$(cat "$OUT")" "2009-02-14T05:01:30.123456789+05:30"
}

test_hostile_name_escaped() {
	local img="$TMP/ext4-4k.img"
	run_ro "$img" stat "$img" "/names/ctrl$(printf '\001\033')[31mred"
	assertEquals 0 "$RC"
	assertEquals '/names/ctrl\x01\x1b[31mred' "$(head -n 1 "$OUT")"
}

. shunit2
