#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_set.sh --- e4time set: what it writes is what the kernel reads
# (stat %W through a loop mount), e2fsck stays clean, e2undo restores the
# image byte for byte, and every refusal leaves the image untouched.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools e2fsck e2undo debugfs flock || return 1
	unpack ext4-4k >/dev/null && unpack ext4-128 >/dev/null || return 1
	probe_mount
}

per_test_setup() {
	fresh_undo_dir
	IMG="$TMP/w.img"
	# a new file each time: no lock of an earlier test's holder on it
	rm -f "$IMG"
	cp "$TMP/ext4-4k.img" "$IMG"
}

fsck_clean() {
	e2fsck -fn "$1" >"$TMP/fsck.out" 2>&1
	assertEquals "e2fsck -fn: $(tail -5 "$TMP/fsck.out")" 0 $?
}

# kernel_times PATH...: "%.9W %.9X %.9Y" of each, through a ro loop mount
kernel_times() {
	mount -o loop,ro "$IMG" "$MNT" || return 1
	(cd "$MNT" && stat -c '%.9W %.9X %.9Y' "$@")
	umount "$MNT"
}

test_set_crtime_is_what_the_kernel_reads() {
	run set "$IMG" /hello.txt --crtime 1965-05-05T05:05:05.123456789Z
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$OUT")" "/hello.txt <12>: crtime "
	assertContains "$(cat "$OUT")" " -> 1965-05-05T05:05:05.123456789Z"
	run set "$IMG" /times/nsec --crtime 2040-02-29T12:00:00.000000001Z
	run set "$IMG" /dir/sub/deep.txt --crtime 2110-01-01T00:00:00.999999999Z
	assertEquals 0 "$RC"
	fsck_clean "$IMG"
	[ "$CAN_MOUNT" = 1 ] || { skip_test "cannot loop-mount here"; return; }
	assertEquals "-147034494.876543211
2214129600.000000001
4417977600.999999999" "$(kernel_times hello.txt times/nsec dir/sub/deep.txt | cut -d' ' -f1)"
}

test_set_every_field() {
	run set "$IMG" /times/split --crtime @-1.5 --atime 2038-01-19T03:14:08.5Z \
		--mtime 2242-03-16T12:56:32.25Z --ctime 2001-01-01T00:00:00Z
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals 4 "$(grep -c ' -> ' "$OUT")"
	fsck_clean "$IMG"
	run stat "$IMG" /times/split
	assertContains "$(cat "$OUT")" "ctime:  2001-01-01T00:00:00.000000000Z"
	[ "$CAN_MOUNT" = 1 ] || { skip_test "cannot loop-mount here"; return; }
	assertEquals "-1.500000000 2147483648.500000000 8589934592.250000000" \
		"$(kernel_times times/split)"
}

test_e2undo_restores_byte_identical() {
	local before
	before=$(sha256sum <"$IMG")
	run set "$IMG" /hello.txt /dir/hardlink-b --crtime 2000-01-01T00:00:00.5Z \
		--mtime @0
	assertEquals 0 "$RC"
	local undo; undo=$(default_undo "$IMG")
	assertTrue "undo file at the default place" "[ -s '$undo' ]"
	assertContains "the undo file is named" "$(cat "$ERR")" "e2undo $undo $IMG"
	assertNotEquals "image changed" "$before" "$(sha256sum <"$IMG")"
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertEquals "e2undo status" 0 $?
	assertEquals "byte-identical after e2undo" "$before" "$(sha256sum <"$IMG")"
}

test_run_that_writes_nothing_keeps_the_undo_file() {
	local before undo; undo=$(default_undo "$IMG")
	before=$(sha256sum <"$IMG")
	run set "$IMG" /hello.txt --crtime @86400
	assertEquals 0 "$RC"
	run set "$IMG" /hello.txt /no/such --crtime @5
	assertEquals "refused target" 1 "$RC"
	assertNotContains "no undo advice when nothing was written" \
		"$(cat "$ERR")" "to undo"
	run backfill "$IMG" --from systemd
	assertEquals "nothing to backfill" 0 "$RC"
	assertEquals "no stray .new file" "$(basename "$undo")" "$(ls "$E2FSPROGS_UNDO_DIR")"
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertEquals "the first run's undo file still restores" "$before" \
		"$(sha256sum <"$IMG")"
}

test_undo_file_option_and_no_undo() {
	local before
	before=$(sha256sum <"$IMG")
	run set -z "$TMP/mine.e2undo" "$IMG" /hello.txt --crtime @86400
	assertEquals 0 "$RC"
	assertTrue "-z file written" "[ -s '$TMP/mine.e2undo' ]"
	assertEquals "nothing in the default place" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
	e2undo "$TMP/mine.e2undo" "$IMG" >/dev/null 2>&1
	assertEquals "restored" "$before" "$(sha256sum <"$IMG")"
	run set --no-undo "$IMG" /hello.txt --crtime @86400
	assertEquals 0 "$RC"
	assertEquals "--no-undo: no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
	assertNotContains "$(cat "$ERR")" "undo file"
}

test_no_undo_dir_is_refused() {
	local before
	before=$(sha256sum <"$IMG")
	E2FSPROGS_UNDO_DIR=none run set "$IMG" /hello.txt --crtime @86400
	assertEquals "refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "give -z FILE, or --no-undo"
	E2FSPROGS_UNDO_DIR="$TMP/no-such-dir" run set "$IMG" /hello.txt --crtime @86400
	assertEquals "unwritable dir refused" 16 "$RC"
	assertEquals "unchanged" "$before" "$(sha256sum <"$IMG")"
}

test_dry_run_writes_nothing() {
	run_ro "$IMG" set -n "$IMG" /hello.txt --crtime @86400
	assertEquals 0 "$RC"
	assertContains "$(cat "$OUT")" "would set /hello.txt <12>: crtime"
	assertContains "$(cat "$ERR")" "dry run, nothing written"
	assertEquals "no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
}

test_refuse_mounted() {
	[ "$CAN_MOUNT" = 1 ] || { skip_test "cannot loop-mount here"; return; }
	local before
	before=$(sha256sum <"$IMG")
	mount -o loop,ro "$IMG" "$MNT" || { fail "mount"; return; }
	run set "$IMG" /hello.txt --crtime @86400
	umount "$MNT"
	assertEquals "refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "$IMG: refusing to write: "
	assertContains "$(cat "$ERR")" "is mounted on $MNT: Filesystem is mounted"
	assertEquals "unchanged" "$before" "$(sha256sum <"$IMG")"
}

test_refuse_needs_recovery() {
	debugfs -w -R "feature needs_recovery" "$IMG" >/dev/null 2>&1
	run_ro "$IMG" set "$IMG" /hello.txt --crtime @86400
	assertEquals "refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "e2fsck -E journal_only"
}

test_refuse_bad_checksum_writes_nothing() {
	debugfs -w -R "sif /hello.txt checksum 0x1" "$IMG" >/dev/null 2>&1
	run_ro "$IMG" set "$IMG" /times/nsec /hello.txt --crtime @86400
	assertEquals "refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "/hello.txt <12>: Inode checksum does not verify"
	assertContains "$(cat "$ERR")" "nothing written"
}

test_refuse_128_byte_inodes() {
	local img="$TMP/s128.img"
	cp "$TMP/ext4-128.img" "$img"
	run_ro "$img" set "$img" /a.txt --crtime @86400
	assertEquals "crtime refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "tune2fs -I 256"
	run_ro "$img" set "$img" /a.txt --mtime @86400.5
	assertEquals "nanoseconds refused" 16 "$RC"
	run_ro "$img" set "$img" /a.txt --mtime 2038-01-19T03:14:08Z
	assertEquals "beyond 2038 refused" 16 "$RC"
	run set "$img" /a.txt --mtime @86400
	assertEquals "whole seconds within 32 bits are fine" 0 "$RC"
	fsck_clean "$img"
}

test_out_of_range_is_usage_error() {
	run_ro "$IMG" set "$IMG" /hello.txt --crtime 1901-12-13T20:45:51Z
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "outside the range ext4 can store"
	run_ro "$IMG" set "$IMG" /hello.txt --crtime 2446-05-10T22:38:56Z
	assertEquals 2 "$RC"
	run_ro "$IMG" set "$IMG" /hello.txt
	assertEquals "nothing to set" 2 "$RC"
}

test_missing_target_writes_nothing() {
	run_ro "$IMG" set "$IMG" /hello.txt /no/such --crtime @86400
	assertEquals 1 "$RC"
	assertContains "$(cat "$ERR")" "/no/such: No such file"
	assertContains "$(cat "$ERR")" "nothing written"
}

test_reference_copies_like_touch_r() {
	run set "$IMG" /hello.txt --reference /times/nsec
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	run stat "$IMG" /hello.txt /times/nsec
	assertEquals "same mtime" 1 "$(grep 'mtime:' "$OUT" | awk '{print $2}' | sort -u | wc -l)"
	assertEquals "same crtime" 1 "$(grep 'crtime:' "$OUT" | awk '{print $2}' | sort -u | wc -l)"
	run set "$IMG" /hello.txt --reference /times/split --fields crtime
	assertEquals 1 "$(grep -c ' -> ' "$OUT")"
}

test_second_writer_is_refused() {
	# -o: the lock is flock's own, and goes with it when it is killed
	flock -o "$IMG" sleep 5 &
	local holder=$!
	sleep 0.5
	run_ro "$IMG" set "$IMG" /hello.txt --crtime @86400
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	assertEquals "refused" 16 "$RC"
	assertContains "$(cat "$ERR")" "Another e4time is writing"
}

test_offset_and_e2undo_with_offset() {
	local disk="$TMP/disk.img" before
	{ head -c 1048576 /dev/zero; cat "$IMG"; } >"$disk"
	before=$(sha256sum <"$disk")
	run set -o 2048 "$disk" /hello.txt --crtime @86400.25
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "e2undo -o 1048576 "
	run stat --offset 1048576 "$disk" /hello.txt
	assertContains "$(cat "$OUT")" "crtime: 1970-01-02T00:00:00.250000000Z"
	e2undo -o 1048576 "$(default_undo "$disk" 1048576)" "$disk" >/dev/null 2>&1
	assertEquals "restored" "$before" "$(sha256sum <"$disk")"
}

# One inode named twice (a hard link's two names, a path and its <INO>,
# a path given twice; issue 17): each inode is written once, its lines
# printed once, under the first FILESPEC naming it; every later one is
# noted on stderr.  (Before, the second write of an inode read libext2fs'
# cached copy with a stale checksum and stopped half way, status 8.)
test_set_one_inode_named_twice() {
	local before undo; undo=$(default_undo "$IMG")
	before=$(sha256sum <"$IMG")
	run set "$IMG" /hardlink-a /dir/hardlink-b /hello.txt '<12>' /hello.txt \
		/dir/sub/deep.txt --crtime 2009-02-13T23:31:30.123456789Z
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals "one line per inode: $(cat "$OUT")" "/hardlink-a <16>
/hello.txt <12>
/dir/sub/deep.txt <15>" "$(sed 's/: crtime .*//' "$OUT")"
	assertContains "$(cat "$ERR")" \
		"/dir/hardlink-b <16>: same inode as /hardlink-a <16>: set once"
	assertContains "$(cat "$ERR")" \
		"<12>: same inode as /hello.txt <12>: set once"
	assertEquals "three notes: $(cat "$ERR")" 3 "$(grep -c 'set once' "$ERR")"
	run stat "$IMG" '<16>' '<12>' '<15>'
	assertEquals "all three written" 3 \
		"$(grep -c 'crtime: 2009-02-13T23:31:30.123456789Z' "$OUT")"
	fsck_clean "$IMG"
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertEquals "e2undo restores" "$before" "$(sha256sum <"$IMG")"
	run_ro "$IMG" set -n "$IMG" /hello.txt '<12>' --crtime @0
	assertEquals "dry run: status" 0 "$RC"
	assertEquals "dry run: one line" 1 "$(wc -l <"$OUT")"
	assertContains "$(cat "$ERR")" "<12>: same inode as /hello.txt <12>: set once"
}

# A write that fails after the checks (here the undo file's filesystem
# runs full at the second inode's region): set stops, prints the lines
# of what it wrote and no others, says how many of how many and that the
# undo file restores them; the undo file does.
test_set_write_fails_midway() {
	[ "$(id -u)" = 0 ] || { skip_test "tmpfs needs root"; return; }
	local img="$TMP/mid.img" small="$TMP/small" before i
	# not sparse: each 1 MiB region costs 1 MiB of undo file
	cp --sparse=never "$IMG" "$img"
	: >"$TMP/empty"
	# 600 more inodes: the last one's inode-table block is in the
	# table's second MiB, another region than /hello.txt's
	for i in $(seq 1 600); do echo "write $TMP/empty /dir/m$i"; done |
		debugfs -w -f - "$img" >/dev/null 2>&1
	run stat "$img" /dir/m600
	assertContains "$(cat "$OUT")" "Inode: 3644 "
	before=$(sha256sum <"$img")
	mkdir -p "$small"
	mount -t tmpfs -o size=1200k tmpfs "$small" ||
		{ skip_test "cannot mount a tmpfs"; return; }
	run set -z "$small/u" "$img" /hello.txt /dir/m600 --crtime @7
	assertEquals "status: $(cat "$ERR")" 8 "$RC"
	assertEquals "only what was written: $(cat "$OUT")" \
		"/hello.txt <12>: crtime " "$(cut -c1-24 "$OUT")"
	assertContains "$(cat "$ERR")" "$small/u.new: No space left for the undo file"
	assertContains "$(cat "$ERR")" \
		"stopped after 1 of 2 inodes, those printed above: the undo file restores them"
	assertContains "$(cat "$ERR")" "undo file $small/u (to undo: e2undo $small/u $img)"
	run stat "$img" /hello.txt /dir/m600
	assertEquals "one written, one not" 1 "$(grep -c 'crtime: 1970-01-01T00:00:07' "$OUT")"
	e2undo "$small/u" "$img" >/dev/null 2>&1
	assertEquals "e2undo status" 0 $?
	assertEquals "e2undo restores" "$before" "$(sha256sum <"$img")"
	umount "$small"
}

. shunit2
