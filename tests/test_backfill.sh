#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_backfill.sh --- e4time backfill: the create times a real Samba
# server stored end up, exactly, as the inodes' crtime (checked through
# e4time and through the kernel); policies; every other source; damaged
# values are skipped with a reason and never written.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools e2fsck e2undo debugfs jq || return 1
	unpack samba-dosattrib >/dev/null && unpack ext4-4k >/dev/null &&
		unpack ext4-128 >/dev/null || return 1
	probe_mount
}

per_test_setup() {
	fresh_undo_dir
	SMB="$TMP/smb.img"
	cp "$TMP/samba-dosattrib.img" "$SMB"
}

samba_truth() {
	grep -v '^#' "$IMAGES/samba-dosattrib.truth"
}

# truth time "SEC.NNNNNNNNN" (floor convention) -> ISO 8601 as e4time prints
iso_of() {
	local sec=${1%.*} frac=${1#*.}
	printf '%s.%sZ' "$(date -u -d "@$sec" +%Y-%m-%dT%H:%M:%S)" "$frac"
}

test_samba_create_times_become_crtime() {
	local before hex ino k ver create raw path want n=0
	before=$(sha256sum <"$SMB")
	# always: the 2040 and 2110 create times are later than the crtime
	run backfill "$SMB" --from dosattrib --policy always
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "backfill from dosattrib:"
	e2fsck -fn "$SMB" >/dev/null 2>&1
	assertEquals "e2fsck -fn clean" 0 $?
	while read -r hex ino k ver create raw; do
		path=$(hex2bytes "$hex")
		want=$(iso_of "$create")
		run stat "$SMB" "$path"
		assertContains "$path" "$(cat "$OUT")" "crtime: $want"
		n=$((n + 1))
	done < <(samba_truth)
	assertTrue "truth lines read" "[ $n -ge 8 ]"
	if [ "$CAN_MOUNT" = 1 ]; then
		mount -o loop,ro "$SMB" "$MNT" || fail "mount"
		while read -r hex ino k ver create raw; do
			path=$(hex2bytes "$hex")
			assertEquals "kernel birth time of $path" "$create" \
				"$(stat -c %W "$MNT$path").$(stat -c %.9W "$MNT$path" | sed 's/.*\.//')"
		done < <(samba_truth | grep -v ' -1\.\| -[0-9]*\.')
		umount "$MNT"
	else
		skip_test "cannot loop-mount here"
	fi
	e2undo "$(default_undo "$SMB")" "$SMB" >/dev/null 2>&1
	assertEquals "e2undo restores byte-identical" "$before" "$(sha256sum <"$SMB")"
}

test_samba_pre_1970_through_the_kernel() {
	[ "$CAN_MOUNT" = 1 ] || { skip_test "cannot loop-mount here"; return; }
	run backfill "$SMB" --from dosattrib --policy always
	mount -o loop,ro "$SMB" "$MNT" || { fail "mount"; return; }
	assertEquals "-147034495.000000000" "$(stat -c %.9W "$MNT/dir/pre-1970.txt")"
	assertEquals "-1.000000000" "$(stat -c %.9W "$MNT/one second before epoch.txt")"
	assertEquals "4417977600.000000000" "$(stat -c %.9W "$MNT/y2110.txt")"
	umount "$MNT"
}

test_policies() {
	run backfill -f jsonl "$SMB" --from dosattrib --policy missing
	assertEquals "missing: every crtime is set already" 0 \
		"$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	run backfill -f jsonl "$SMB" --from dosattrib
	assertEquals "earlier: the later 2040 and 2110 stay" 2 \
		"$(jq -s '[.[] | select(.reason == "not_earlier")] | length' "$OUT")"
	run backfill "$SMB" --from dosattrib --policy always
	run backfill -f jsonl "$SMB" --from dosattrib --policy always
	assertEquals "always, after backfill: all equal" 0 \
		"$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	assertEquals "already_equal" "$(samba_truth | wc -l)" \
		"$(jq -s '[.[] | select(.reason == "already_equal")] | length' "$OUT")"
	run backfill -f jsonl "$SMB" /y2k.txt --from xattr:user.DOSATTRIB:epoch \
		--policy always
	assertEquals "not epoch text: invalid, skipped" "invalid_value" \
		"$(jq -r .reason "$OUT")"
}

test_earlier_policy_keeps_earlier_crtime() {
	# a crtime already earlier than the source stays
	run set "$SMB" /y2k.txt --crtime 1990-01-01T00:00:00Z
	run backfill -f jsonl "$SMB" /y2k.txt --from dosattrib
	assertEquals "not_earlier" "$(jq -r .reason "$OUT")"
	run stat "$SMB" /y2k.txt
	assertContains "$(cat "$OUT")" "crtime: 1990-01-01T00:00:00.000000000Z"
}

test_dry_run_changes_nothing() {
	run_ro "$SMB" backfill -n "$SMB" --from dosattrib --policy always
	assertEquals 0 "$RC"
	assertEquals "every file listed" "$(samba_truth | wc -l)" "$(grep -c '^would set ' "$OUT")"
	assertContains "$(cat "$ERR")" "would change"
}

# ea_set IMAGE PATH NAME HEXBYTES
ea_set() {
	printf '%s' "$4" | xxd -r -p >"$TMP/ea.val"
	debugfs -w -R "ea_set -f $TMP/ea.val $2 $3" "$1" >/dev/null 2>&1
}

le64() { # value -> 16 hex digits little-endian
	printf '%016x' "$1" | sed 's/../& /g' | awk '{for (i = NF; i > 0; i--) printf "%s", $i}'
}

test_other_sources() {
	local img="$TMP/src.img"
	cp "$TMP/ext4-4k.img" "$img"
	ea_set "$img" /hello.txt user.crtime_usec "$(le64 946684800123456)"
	ea_set "$img" /dir/sub/deep.txt user.birth "$(printf '2001-09-09T01:46:40.5Z' | xxd -p)"
	ea_set "$img" /times/nsec user.epoch "$(printf '%s' '-1.25' | xxd -p)"
	ea_set "$img" /times/split user.usec "$(le64 1000000)"
	ea_set "$img" /times/epoch user.nt "$(le64 116444736000000001)"
	# AppleDouble v2, one entry (id 8, File Dates Info at 38, 16 bytes):
	# create = 0 seconds after 2000-01-01
	ea_set "$img" /fifo user.org.netatalk.Metadata \
		"0005160700020000$(printf '%032d' 0)0001000000080000002600000010000000000000000000000000000000000000"
	run backfill "$img" --from systemd
	assertContains "$(cat "$OUT")" "/hello.txt <12>: crtime"
	assertContains "$(cat "$OUT")" "-> 2000-01-01T00:00:00.123456000Z (systemd)"
	run backfill "$img" --from xattr:user.birth:iso8601
	assertContains "$(cat "$OUT")" "-> 2001-09-09T01:46:40.500000000Z"
	run backfill "$img" --from xattr:user.epoch:epoch
	assertContains "$(cat "$OUT")" "-> 1969-12-31T23:59:58.750000000Z"
	run backfill "$img" --from xattr:user.usec:usec-le
	assertContains "$(cat "$OUT")" "-> 1970-01-01T00:00:01.000000000Z"
	run backfill "$img" --from xattr:user.nt:nttime-le
	assertContains "$(cat "$OUT")" "-> 1970-01-01T00:00:00.000000100Z"
	run backfill "$img" --from netatalk
	assertContains "$(cat "$OUT")" "/fifo <"
	assertContains "$(cat "$OUT")" "-> 2000-01-01T00:00:00.000000000Z (netatalk"
	e2fsck -fn "$img" >/dev/null 2>&1
	assertEquals "e2fsck -fn clean" 0 $?
}

test_damaged_values_are_skipped() {
	local img="$TMP/bad.img" before
	cp "$TMP/ext4-4k.img" "$img"
	ea_set "$img" /hello.txt user.DOSATTRIB "000005000500"   # truncated v5
	ea_set "$img" /times/nsec user.DOSATTRIB "0000070007000000110000002000000080a9d424eb53bf01"
	ea_set "$img" /times/split user.DOSATTRIB "$(printf '0x20' | xxd -p)"  # legacy text
	before=$(sha256sum <"$img")
	run backfill -f jsonl "$img" --from dosattrib
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals "nothing changed" 0 "$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	assertEquals "two invalid" 2 "$(jq -s '[.[] | select(.reason == "invalid_value")] | length' "$OUT")"
	assertEquals "legacy text has no time" "no_create_time" \
		"$(jq -r 'select(.path == "/times/split") | .reason' "$OUT")"
	assertContains "$(cat "$ERR")" "/hello.txt <12>: user.DOSATTRIB:"
	local after
	after=$(sha256sum <"$img")
	e2undo "$(default_undo "$img")" "$img" >/dev/null 2>&1
	assertEquals "only the undo bookkeeping: image as before" "$before" "$(sha256sum <"$img")"
	: "$after"
}

test_bad_checksum_in_a_written_block() {
	# /big-htree/f0001..f0005 are inodes 33..37, one inode-table block:
	# all get a create time, the middle one a checksum that fails. The
	# block is written once, with the four others changed and the bad
	# inode exactly as it was.
	local img="$TMP/blk.img" f before dump_before
	cp "$TMP/ext4-4k.img" "$img"
	for f in 1 2 3 4 5; do
		ea_set "$img" /big-htree/f000$f user.crtime_usec \
			"$(le64 $((946684800000000 + f * 1000001)))"
	done
	debugfs -w -R "sif /big-htree/f0003 checksum 0x1" "$img" >/dev/null 2>&1
	before=$(sha256sum <"$img")
	dump_before=$(debugfs -R "inode_dump /big-htree/f0003" "$img" 2>/dev/null)
	run backfill -f jsonl "$img" --from systemd --policy always
	assertEquals "partial: one unreadable" 1 "$RC"
	assertEquals "four changed" 4 \
		"$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	assertEquals "unreadable" "$(jq -r 'select(.path == "/big-htree/f0003") | .reason' "$OUT")"
	for f in 1 2 4 5; do
		run stat "$img" /big-htree/f000$f
		assertContains "f000$f" "$(cat "$OUT")" \
			"crtime: 2000-01-01T00:00:0$f.00000${f}000Z"
	done
	assertEquals "bad inode untouched" "$dump_before" \
		"$(debugfs -R "inode_dump /big-htree/f0003" "$img" 2>/dev/null)"
	e2undo "$(default_undo "$img")" "$img" >/dev/null 2>&1
	assertEquals "e2undo restores byte-identical" "$before" "$(sha256sum <"$img")"
}

# Two threads, taking chunks of whole inode-table blocks in turns (2000
# files make 31 chunks), report and write exactly what one does; a damaged
# inode late in the order is reported in its place.
test_threads_give_identical_results() {
	local src="$TMP/thr-src" img="$TMP/thr.img" cmds="$TMP/thr.cmds" d f ino
	rm -rf "$src"
	mkdir -p "$src"
	: >"$cmds"
	for d in $(seq 1 40); do
		mkdir "$src/d$d"
		# (one touch per directory: 2,000 of them took a minute of
		# process start-ups on a loaded machine)
		(cd "$src/d$d" && touch $(seq -f 'f%g' 1 50))
		for f in $(seq 1 50); do
			printf 'ea_set /d%s/f%s user.birth 2001-%02d-%02dT01:02:03.%sZ\n' \
				"$d" "$f" $((d % 12 + 1)) $((f % 28 + 1)) "$f" >>"$cmds"
		done
	done
	mke2fs -q -F -t ext4 -I 256 -N 4096 -d "$src" "$img" 32M ||
		{ fail "mke2fs -d failed"; return; }
	debugfs -w -f "$cmds" "$img" >/dev/null 2>&1
	ino=$(debugfs -R "stat /d33/f7" "$img" 2>/dev/null | awk '/^Inode:/ {print $2}')
	debugfs -w -R "sif <$ino> checksum 0x1" "$img" >/dev/null 2>&1
	cp "$img" "$img.2"
	run_ro "$img" backfill -n -f jsonl --threads 1 "$img" --from xattr:user.birth:iso8601 --policy always
	cp "$OUT" "$TMP/thr1.out"
	cp "$ERR" "$TMP/thr1.err"
	assertEquals "partial" 1 "$RC"
	assertEquals "files would change" 1999 \
		"$(jq -s '[.[] | select(.action == "would_change")] | length' "$OUT")"
	run_ro "$img" backfill -n -f jsonl --threads 2 "$img" --from xattr:user.birth:iso8601 --policy always
	assertTrue "same report" "cmp -s '$TMP/thr1.out' '$OUT'"
	assertTrue "same messages" "cmp -s '$TMP/thr1.err' '$ERR'"
	assertContains "$(cat "$ERR")" "/d33/f7 <$ino>: Inode checksum does not verify: skipped"
	run backfill --threads 1 "$img" --from xattr:user.birth:iso8601 --policy always -z "$TMP/thr1.e2undo"
	cp "$OUT" "$TMP/thr1.out"
	run backfill --threads 2 "$img.2" --from xattr:user.birth:iso8601 --policy always -z "$TMP/thr2.e2undo"
	assertTrue "same changes reported" "cmp -s '$TMP/thr1.out' '$OUT'"
	run_ro "$img" timeline -f jsonl "$img"
	cp "$OUT" "$TMP/thr1.tl"
	run_ro "$img.2" timeline -f jsonl "$img.2"
	assertTrue "same times written" "cmp -s '$TMP/thr1.tl' '$OUT'"
	assertContains "$(cat "$OUT")" '"path":"/d40/f50"'
	e2undo "$TMP/thr2.e2undo" "$img.2" >/dev/null 2>&1
	e2undo "$TMP/thr1.e2undo" "$img" >/dev/null 2>&1
	assertTrue "e2undo: both as before" "cmp -s '$img' '$img.2'"
}

test_128_byte_inodes_are_skipped() {
	local img="$TMP/s128.img"
	cp "$TMP/ext4-128.img" "$img"
	ea_set "$img" /a.txt user.crtime_usec "$(le64 946684800123456)"
	run_ro "$img" backfill -f jsonl "$img" --from systemd
	assertEquals "inode_too_small" "$(jq -r 'select(.path == "/a.txt") | .reason' "$OUT")"
}

test_bad_source_spec_is_usage_error() {
	run_ro "$SMB" backfill "$SMB" --from bogus
	assertEquals 2 "$RC"
	run_ro "$SMB" backfill "$SMB" --from xattr:user.x:nope
	assertEquals 2 "$RC"
	run_ro "$SMB" backfill "$SMB"
	assertEquals "--from required" 2 "$RC"
	run_ro "$SMB" backfill "$SMB" --from dosattrib --policy sometimes
	assertEquals 2 "$RC"
}

test_refuses_mounted() {
	[ "$CAN_MOUNT" = 1 ] || { skip_test "cannot loop-mount here"; return; }
	mount -o loop,ro "$SMB" "$MNT" || { fail "mount"; return; }
	run backfill "$SMB" --from dosattrib
	umount "$MNT"
	assertEquals 16 "$RC"
}

. shunit2
