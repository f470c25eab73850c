#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_backup_sb.sh --- damaged superblocks read as e2fsck reads them
# (issue 25, item 4): images the kernel wrote (mkfs.ext4 with
# metadata_csum, a loop mount, files in several groups), then the primary
# superblock zeroed, one byte of it changed (its checksum fails), its
# geometry made impossible (checksum fixed), or group 0's descriptor
# pointing outside the filesystem.  Every read command must then give
# what it gives on the intact image, through the first good backup, with
# one more stderr line naming it; -b/-B name a superblock as e2fsck's do
# (4 KiB blocks: 32768; 1 KiB: 8193); every write refuses and leaves the
# image byte for byte, with no undo file; with no good backup, one line
# and the documented status, and check never prints a summary of inodes
# it did not check.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools mkfs.ext4 dumpe2fs python3 sha256sum cmp xz || return 1
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || return 0
	mkdir -p "$TMP/intact" "$TMP/intact1k" || return 1
	# 4 KiB blocks, 4 groups of 32 inodes: the 50 files fill group 0
	# and go on in groups 1 and 2, whose descriptors in the backups
	# still say (as mke2fs wrote them) that no inode there is in use
	mkimg "$TMP/intact/disk.img" 512M 4096 -N 128 || return 1
	mkimg "$TMP/intact1k/disk.img" 32M 1024 -N 64 || return 1
	# no journal: nothing later than the superblock's last write
	mkdir -p "$TMP/intact_nj" &&
		mkimg "$TMP/intact_nj/disk.img" 24M 1024 -N 96 -O ^has_journal ||
		return 1
	IPG=$(dumpe2fs -h "$TMP/intact/disk.img" 2>/dev/null |
		awk -F: '/^Inodes per group/ { print $2 + 0 }')
	"$E4TIME" export "$TMP/intact/disk.img" >"$TMP/manifest" || return 1
}

per_test_setup() {
	fresh_undo_dir
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] && return 0
	skip_test "loop mounts do not work here (the images are the kernel's)"
	return 1
}

# mkimg IMAGE SIZE BLOCKSIZE MKFS_ARGS...: mkfs.ext4, then the kernel
# writes 10 directories of 4 files, a symbolic link and a file with a
# time of its own.
mkimg() {
	local img=$1 size=$2 bs=$3 i j
	shift 3
	# a second after mkfs: the files' times are later than the
	# backups' last write (mke2fs's)
	truncate -s "$size" "$img" &&
		mkfs.ext4 -q -F -b "$bs" -I 256 -O metadata_csum "$@" "$img" \
			>/dev/null 2>&1 && sleep 1 &&
		mount -o loop "$img" "$MNT" || return 1
	for i in 0 1 2 3 4 5 6 7 8 9; do
		mkdir "$MNT/d$i" || break
		for j in 0 1 2 3; do
			echo "$i.$j" >"$MNT/d$i/f$j" || break 2
		done
	done
	ln -s d1/f1 "$MNT/link" &&
		touch -d "2001-02-03 04:05:06.123456789" "$MNT/d2/f2"
	i=$?
	umount "$MNT" || return 1
	return $i
}

# copy NAME [SRC]: a copy of the intact image (SRC: intact or intact1k),
# as $TMP/NAME/disk.img (the same base name: outputs that name the image
# compare).  Prints its path.
copy() {
	mkdir -p "$TMP/$1" &&
		cp --sparse=always "$TMP/${2:-intact}/disk.img" "$TMP/$1/disk.img" &&
		echo "$TMP/$1/disk.img"
}

# poke IMAGE OFFSET BYTES: write the bytes (printf escapes) at OFFSET.
poke() {
	# shellcheck disable=SC2059 # the bytes are the format
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# flip IMAGE OFFSET: the byte at OFFSET inverted (changed, whatever it
# was: a UUID's byte is random).
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	poke "$1" "$2" "$(printf '\\x%02x' $((b ^ 0xff)))"
}

# sb_field IMAGE OFFSET VALUE: the primary superblock's 32-bit field at
# OFFSET set to VALUE, and its checksum made right again (crc32c, as
# ext2fs_superblock_csum_set() computes it).
sb_field() {
	python3 - "$@" <<'EOF'
import struct, sys
img, off, val = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
def crc32c(crc, data):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc
with open(img, "r+b") as f:
    f.seek(1024)
    sb = bytearray(f.read(1024))
    old = struct.unpack_from("<I", sb, 0x3FC)[0]
    if crc32c(0xFFFFFFFF, bytes(sb[:0x3FC])) != old:
        sys.exit("sb_field: the checksum is not computed as libext2fs does")
    struct.pack_into("<I", sb, off, val)
    struct.pack_into("<I", sb, 0x3FC, crc32c(0xFFFFFFFF, bytes(sb[:0x3FC])))
    f.seek(1024)
    f.write(sb)
EOF
}

# in_dir IMAGE ARGS...: e4time ARGS, run in IMAGE's directory (ARGS name
# it disk.img), as run does; X in ARGS is the image.
in_dir() {
	local dir a args=()
	dir=$(dirname "$1")
	shift
	for a in "$@"; do
		[ "$a" = X ] && a=disk.img
		args+=("$a")
	done
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	(cd "$dir" && "$E4TIME" "${args[@]}") >"$OUT" 2>"$ERR"
	RC=$?
	check_stderr "e4time ${args[*]}"
	check_reports "e4time ${args[*]}"
}

# The read commands compared, one per line, X the image; and the status
# each gives on the intact image and through a backup the primary being
# unusable (check -n: e2fsck -n's 4).
READS="info X
stat X /d0/f0 /d2/f2 /d9/f3 /link /d9 <2>
timeline X
timeline -f jsonl X
check -n X
check -n -f jsonl X
anomalies X
history X /d2/f2
journal X
audit X"
N_READS=10

# info's lines the kernel writes in the primary only.
PRIMARY_ONLY='^(Last mounted|Last mounted on|Last written|Mount count):'

# intact_out INTACT LINE: $TMP/out.intact, what LINE prints on INTACT
# (run once: the intact images do not change), status 0, no stderr.
intact_out() {
	local key
	key=$(printf '%s\n%s' "$1" "$2" | sha256sum | cut -c1-16)
	if [ ! -f "$TMP/cache.$key" ]; then
		# shellcheck disable=SC2086 # the words of the command line
		in_dir "$1" $2
		assertEquals "intact: $2: status" 0 "$RC"
		assertEquals "intact: $2: stderr" "" "$(cat "$ERR")"
		cp "$OUT" "$TMP/cache.$key"
	fi
	cp "$TMP/cache.$key" "$TMP/out.intact"
}

# same_as_intact IMAGE REASON BLOCK [INTACT [READS N]]: every read
# command (of READS, N of them) on IMAGE prints what it prints on the
# intact image, the only more on stderr being the line that names the
# backup used (info: and the note on the times the backup holds), and
# exits 1 (check -n: 4).
same_as_intact() {
	local img=$1 why=$2 blk=$3 intact=${4:-$TMP/intact/disk.img}
	local reads=${5:-$READS} nreads=${6:-$N_READS}
	local line n=0 want_rc want_err
	while read -r line; do
		intact_out "$intact" "$line"
		# shellcheck disable=SC2086
		in_dir "$img" $line
		want_rc=1
		[ "${line#check}" != "$line" ] && want_rc=4
		assertEquals "$why: $line: status" "$want_rc" "$RC"
		want_err="e4time: disk.img: primary superblock unusable ($why); using the backup at block $blk"
		assertEquals "$why: $line: first stderr line" "$want_err" \
			"$(head -n 1 "$ERR")"
		if [ "${line%% *}" = info ]; then
			assertContains "$why: info: the note" "$(sed -n 2p "$ERR")" \
				"the backup superblock at block $blk: its last mount"
			assertEquals "$why: info: stderr lines" 2 "$(wc -l <"$ERR")"
			assertEquals "$why: info: all but the primary's own fields" \
				"$(grep -vE "$PRIMARY_ONLY" "$TMP/out.intact")" \
				"$(grep -vE "$PRIMARY_ONLY" "$OUT")"
		else
			assertEquals "$why: $line: stderr lines" 1 "$(wc -l <"$ERR")"
			assertEquals "$why: $line: stdout as on the intact image" \
				"" "$(diff "$TMP/out.intact" "$OUT" | head -n 5)"
		fi
		n=$((n + 1))
	done <<<"$reads"
	assertEquals "$why: read commands compared" "$nreads" "$n"
}

test_files_in_groups_the_backup_says_unused() {
	need_mount || return
	local ino n=0 beyond=0
	for ino in $("$E4TIME" timeline -f jsonl "$TMP/intact/disk.img" |
		grep -o '"ino":[0-9]*' | cut -d: -f2 | sort -un); do
		n=$((n + 1))
		[ "$ino" -gt "$IPG" ] && beyond=$((beyond + 1))
	done
	assertTrue "inodes listed: $n" "[ $n -ge 50 ]"
	assertTrue "inodes beyond group 0 ($IPG per group): $beyond" "[ $beyond -ge 20 ]"
}

test_zeroed_primary() {
	need_mount || return
	local img
	img=$(copy zeroed)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	same_as_intact "$img" "bad magic" 32768
}

test_one_byte_of_the_primary_changed() {
	need_mount || return
	local img
	img=$(copy badcsum)
	# s_uuid[0]: the checksum fails, and the seed of every inode's and
	# directory block's checksum with it (read through this superblock,
	# not one inode would verify)
	flip "$img" $((1024 + 0x68))
	same_as_intact "$img" "bad checksum" 32768
}

test_impossible_geometry() {
	need_mount || return
	local img
	img=$(copy geometry)
	sb_field "$img" 0x20 0 || fail "s_blocks_per_group"
	run stat "$img" /d0/f0
	assertContains "the checksum verifies" "$(cat "$ERR")" "impossible geometry"
	same_as_intact "$img" "impossible geometry" 32768
}

test_group_descriptor_out_of_place() {
	need_mount || return
	local img
	img=$(copy gdt)
	# group 0's inode table (bg_inode_table_lo, the descriptors at
	# block 1) beyond the filesystem: ext2fs_check_desc() rejects it
	poke "$img" $((4096 + 8)) '\xf0\xff\xff\x0f'
	same_as_intact "$img" "group descriptors out of place" 32768
}

test_info_shows_the_backups_fields() {
	need_mount || return
	local img want got
	img=$(copy zeroed_info)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	run info "$img"
	# dumpe2fs on that backup: the truth of what it holds
	want=$(dumpe2fs -h -o superblock=32768 -o blocksize=4096 \
		"$TMP/intact/disk.img" 2>/dev/null | awk -F': *' '/^Mount count/ { print $2 }')
	got=$(awk -F': *' '/^Mount count/ { print $2 }' "$OUT")
	assertEquals "the backup's mount count" "$want" "$got"
	run info "$TMP/intact/disk.img"
	assertEquals "the primary's mount count (mounted once)" 1 \
		"$(awk -F': *' '/^Mount count/ { print $2 }' "$OUT")"
	# -b on the intact image: the same as the fallback shows
	run info "$img"
	cp "$OUT" "$TMP/info.fallback"
	run info -b 32768 -B 4096 "$TMP/intact/disk.img"
	assertEquals "-b 32768 -B 4096: status" 0 "$RC"
	assertEquals "-b: info as through the fallback" "" \
		"$(diff "$TMP/info.fallback" "$OUT")"
}

# explicit IMAGE OPTS...: stat, timeline and check -n through OPTS print
# what they print on the intact image, status 0, nothing on stderr.
explicit() {
	local img=$1 line n=0
	shift
	for line in "stat X /d0/f0 /d2/f2 /d9/f3" "timeline X" "check -n X"; do
		intact_out "$TMP/intact/disk.img" "$line"
		# shellcheck disable=SC2086
		in_dir "$img" "${line%% *}" "$@" ${line#* }
		assertEquals "$* $line: status" 0 "$RC"
		assertEquals "$* $line: stderr" "" "$(cat "$ERR")"
		assertEquals "$* $line: stdout" "" "$(diff "$TMP/out.intact" "$OUT" | head -n 5)"
		n=$((n + 1))
	done
	assertEquals "$*: commands" 3 "$n"
}

test_explicit_superblock() {
	need_mount || return
	local img
	img=$(copy zeroed_b)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	explicit "$img" -b 32768 -B 4096
	explicit "$img" --superblock 32768 --block-size 4096
	explicit "$img" -b 32768 # each block size in turn, as e2fsck
	explicit "$TMP/intact/disk.img" -b 32768 -B 4096
	# group 3's backup
	explicit "$img" -b $((3 * 32768)) -B 4096

	# no superblock there: one line, status 4 (check: 8, no summary)
	run stat -b 12345 "$img" /d0/f0
	assertEquals "-b 12345: status" 4 "$RC"
	assertEquals "-b 12345: one line" \
		"e4time: $img: -b 12345: No ext2/ext3/ext4 superblock at that block" \
		"$(cat "$ERR")"
	run check -n -b 32768 -B 1024 "$img"
	assertEquals "check -b 32768 -B 1024: status" 8 "$RC"
	assertEquals "check: no output" "" "$(cat "$OUT")"
	assertEquals "check: one line" \
		"e4time: $img: -b 32768 -B 1024: No ext2/ext3/ext4 superblock at that block" \
		"$(cat "$ERR")"
	# -B alone: the primary's size
	run stat -B 1024 "$TMP/intact/disk.img" /d0/f0
	assertEquals "-B 1024 on a 4 KiB image: status" 4 "$RC"
	assertEquals "-B 1024: one line" 1 "$(wc -l <"$ERR")"
	run stat -B 4096 "$TMP/intact/disk.img" /d0/f0
	assertEquals "-B 4096: status" 0 "$RC"
	# bad values are usage errors
	local bad n=0
	for bad in "-b 0" "-b x" "-b -1" "-B 1000" "-B 131072" "-B 512" "--block-size 3072"; do
		# shellcheck disable=SC2086
		run stat $bad "$img" /d0/f0
		assertEquals "$bad: status" 2 "$RC"
		n=$((n + 1))
	done
	assertEquals "bad values" 7 "$n"
	run volumes -b 32768 "$img"
	assertEquals "volumes -b: status" 2 "$RC"
	# journal's -b is --blocks; --superblock is the superblock
	run journal -b --superblock 32768 --block-size 4096 "$img"
	assertEquals "journal -b --superblock: status" 0 "$RC"
	assertContains "journal -b: the blocks" "$(cat "$OUT")" "Journal:"
}

test_1k_blocks_backup_at_8193() {
	need_mount || return
	local img
	img=$(copy zeroed1k intact1k)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	same_as_intact "$img" "bad magic" 8193 "$TMP/intact1k/disk.img"
	run stat -b 8193 -B 1024 "$img" /d2/f2
	assertEquals "-b 8193 -B 1024: status" 0 "$RC"
	assertEquals "-b 8193 -B 1024: nothing on stderr" "" "$(cat "$ERR")"
	assertContains "-b 8193: /d2/f2's time" "$(cat "$OUT")" \
		"2001-02-03T04:05:06.123456789Z"
}

test_no_journal() {
	need_mount || return
	local img
	img=$(copy zeroed_nj intact_nj)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	# the anomalies' "after the last write" and check's T0007 take no
	# limit from a backup's last write
	same_as_intact "$img" "bad magic" 8193 "$TMP/intact_nj/disk.img" \
		"$(grep -vE '^(history|journal|audit) ' <<<"$READS")" $((N_READS - 3))
}

test_volume_in_a_partition_table() {
	need_mount || return
	command -v sfdisk >/dev/null || {
		skip_test "sfdisk not installed"
		return
	}
	local disk="$TMP/parted/disk.img" before
	mkdir -p "$TMP/parted"
	# the 1 KiB image as partition 1 of an MBR disk, its primary zeroed
	truncate -s 40M "$disk" &&
		printf 'label: dos\nstart=2048, type=83\n' | sfdisk -q "$disk" &&
		dd if="$TMP/intact1k/disk.img" of="$disk" bs=1M seek=1 \
			conv=notrunc,sparse status=none &&
		dd if=/dev/zero of="$disk" bs=1024 seek=$((1024 + 1)) count=1 \
			conv=notrunc status=none || fail "the disk"
	run volumes "$disk"
	assertEquals "volumes: status" 0 "$RC"
	assertTrue "volumes: p1 holds ext4 (its backup): $(cat "$OUT")" \
		"grep -qE '^1 +p1 .* ext4 ' '$OUT'"
	# the only ext2/3/4 volume, picked, read through its backup
	in_dir "$TMP/intact1k/disk.img" timeline X
	cp "$OUT" "$TMP/out.intact"
	run timeline "$disk"
	assertEquals "timeline: status" 1 "$RC"
	assertEquals "timeline: as on the intact filesystem" "" \
		"$(diff "$TMP/out.intact" "$OUT" | head -n 5)"
	assertEquals "timeline: stderr" \
		"e4time: $disk: volume 1 (p1): ext4
e4time: $disk: primary superblock unusable (bad magic); using the backup at block 8193" \
		"$(cat "$ERR")"
	run stat --volume p1 -b 8193 -B 1024 "$disk" /d2/f2
	assertEquals "--volume p1 -b 8193: status" 0 "$RC"
	assertContains "--volume p1 -b 8193: /d2/f2's time" "$(cat "$OUT")" \
		"2001-02-03T04:05:06.123456789Z"
	before=$(sha256sum <"$disk")
	run set --volume p1 "$disk" /d2/f2 --crtime 2000-01-01T00:00:00Z
	assertEquals "set: refused" 16 "$RC"
	assertEquals "set: the disk as it was" "$before" "$(sha256sum <"$disk")"
}

test_live_journal_said_through_the_backup() {
	local img
	# the kernel's image copied while mounted: needs_recovery is set in
	# the primary only; through the backup the journal says it
	img=$(unpack churn-1k-live) || fail "unpack"
	run stat "$img" /
	assertContains "intact: needs recovery" "$(cat "$ERR")" "Journal needs recovery"
	run stat -b 8193 -B 1024 "$img" /
	assertContains "-b 8193: needs recovery" "$(cat "$ERR")" "Journal needs recovery"
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	run stat "$img" /
	assertEquals "zeroed: status" 1 "$RC"
	assertContains "zeroed: the backup" "$(head -n 1 "$ERR")" \
		"primary superblock unusable (bad magic); using the backup at block 8193"
	assertContains "zeroed: needs recovery" "$(sed -n 2p "$ERR")" "Journal needs recovery"
}

# refuses IMAGE WHY [OPTS...]: every write, and the dry runs that check
# what a write would, refuse IMAGE in one line, status 16 (check: 8),
# and leave it byte for byte, with no undo file.
refuses() {
	local img=$1 why=$2 line n=0 want mtime
	shift 2
	cp --sparse=always "$img" "$TMP/before.img"
	mtime=$(stat -c %y "$img")
	while read -r line; do
		# shellcheck disable=SC2086 # the words of the command line
		run ${line/@IMG@/"$* $img"}
		want=16
		[ "${line#check}" != "$line" ] && want=8
		assertEquals "$why: $line: status" "$want" "$RC"
		assertEquals "$why: $line: one stderr line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
		assertContains "$why: $line: refused" "$(cat "$ERR")" \
			"e4time: $img: refusing to write: "
		assertContains "$why: $line: the backup said" "$(cat "$ERR")" \
			"A backup superblock is for reading only"
		# (a write would change it; the bytes are compared below)
		assertEquals "$why: $line: not written to" "$mtime" "$(stat -c %y "$img")"
		assertEquals "$why: $line: no undo file" "" "$(ls -A "$E2FSPROGS_UNDO_DIR")"
		n=$((n + 1))
	done <<EOF
set @IMG@ /d0/f0 --crtime 2000-01-01T00:00:00Z
set -n @IMG@ /d0/f0 --crtime 2000-01-01T00:00:00Z
backfill --from dosattrib @IMG@
backfill -n --from dosattrib @IMG@
import @IMG@ $TMP/manifest
import -n @IMG@ $TMP/manifest
check -y @IMG@
check -p @IMG@
EOF
	assertEquals "$why: writes refused" 8 "$n"
	assertTrue "$why: the image as it was, byte for byte" \
		"cmp -s '$TMP/before.img' '$img'"
}

test_writes_refuse() {
	need_mount || return
	local img
	img=$(copy zeroed_w)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	refuses "$img" "bad magic"
	assertContains "the block named" "$(cat "$ERR")" \
		"primary superblock unusable (bad magic), a backup at block 32768"
	img=$(copy badcsum_w)
	flip "$img" $((1024 + 0x68))
	refuses "$img" "bad checksum"
	# -b on an intact image: a write goes through the primary only
	refuses "$TMP/intact/disk.img" "-b" -b 32768 -B 4096
	assertContains "-b named" "$(cat "$ERR")" "refusing to write: -b 32768: "
}

test_no_good_backup() {
	need_mount || return
	local img blk line n=0 want_rc
	img=$(copy nobackup)
	dd if=/dev/zero of="$img" bs=1024 seek=1 count=1 conv=notrunc status=none
	for blk in $(dumpe2fs "$TMP/intact/disk.img" 2>/dev/null |
		sed -n 's/.*Backup superblock at \([0-9]*\),.*/\1/p'); do
		dd if=/dev/zero of="$img" bs=4096 seek="$blk" count=1 conv=notrunc status=none
		n=$((n + 1))
	done
	assertEquals "backups zeroed (groups 1 and 3)" 2 "$n"
	n=0
	while read -r line; do
		# shellcheck disable=SC2086
		in_dir "$img" $line
		want_rc=4
		[ "${line#check}" != "$line" ] && want_rc=8
		assertEquals "$line: status" "$want_rc" "$RC"
		assertEquals "$line: no output" "" "$(cat "$OUT")"
		assertEquals "$line: one line" \
			"e4time: disk.img: No ext2/ext3/ext4 superblock found at offset 0, nor a good backup" \
			"$(cat "$ERR")"
		n=$((n + 1))
	done <<<"$READS"
	assertEquals "read commands" "$N_READS" "$n"
}

test_bad_checksum_and_no_good_backup() {
	need_mount || return
	local img blk
	img=$(copy badcsum_nobackup)
	flip "$img" $((1024 + 0x68))
	for blk in 32768 98304; do
		dd if=/dev/zero of="$img" bs=4096 seek="$blk" count=1 conv=notrunc status=none
	done
	# read as it is, with the damage said (as before)
	run stat "$img" /d0/f0
	assertEquals "stat: status" 1 "$RC"
	assertContains "stat: the checksum said" "$(cat "$ERR")" \
		"Superblock checksum does not verify"
	# check: not one inode verifies (the seed is the UUID's): no
	# summary says they were checked
	run check -n "$img"
	assertEquals "check -n: status" 8 "$RC"
	assertNotContains "check -n: no summary" "$(cat "$OUT")" "inodes checked"
	assertContains "check -n: said" "$(cat "$ERR")" "inodes could be checked"
	run check -n -f jsonl "$img"
	assertEquals "check -n -f jsonl: status" 8 "$RC"
	assertNotContains "check -n -f jsonl: no summary" "$(cat "$OUT")" '"summary"'
}

. shunit2
