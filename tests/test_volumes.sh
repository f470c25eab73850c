#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_volumes.sh --- partitioned disks made by sfdisk (GPT with names,
# MBR with an extended and a logical partition), kernel-written ext4
# images placed in them with dd: e4time volumes lists what sfdisk and
# blkid say; every command reads a partition (--volume by index, pN, GPT
# name, PARTUUID, or alone) exactly as it reads the bare image; several
# ext4 partitions and no --volume is exit 2 naming the choices; what is
# not ext4 is named ("LUKS2 encrypted: ..."); a write through a partition
# leaves an undo file that stock e2undo replays; -o in sectors is said in
# sectors.  Reads leave the disks byte-identical.
. "$TOP_SRCDIR/tests/lib.sh"

SECT=512

suite_setup() {
	require_tools xz sfdisk blkid python3 jq e2undo || return 1
	A=$(unpack ext4-4k)    # 32 MiB
	B=$(unpack ext4-128)   # 8 MiB
	# GPT: p1 "root" (ext4-4k), p2 "data" (ext4-128), p3 "vault" (a
	# LUKS2 header), sectors from 2048
	GPT="$TMP/gpt.img"
	truncate -s 64M "$GPT"
	sfdisk -q "$GPT" >/dev/null <<-EOF || return 1
		label: gpt
		start=2048, size=65536, type=linux, name="root"
		start=67584, size=16384, type=linux, name="data"
		start=83968, size=8192, type=linux, name="vault"
	EOF
	dd if="$A" of="$GPT" bs=$SECT seek=2048 conv=notrunc status=none
	dd if="$B" of="$GPT" bs=$SECT seek=67584 conv=notrunc status=none
	printf 'LUKS\272\276\000\002' |
		dd of="$GPT" bs=$SECT seek=83968 conv=notrunc status=none
	# MBR: p1 primary, empty; p2 extended holding p5 (ext4-4k) and p6
	# (empty)
	MBR="$TMP/mbr.img"
	truncate -s 80M "$MBR"
	sfdisk -q "$MBR" >/dev/null <<-EOF || return 1
		label: dos
		start=2048, size=4096, type=83
		start=8192, size=150000, type=5
		start=10240, size=65536, type=83
		start=77824, size=8192, type=83
	EOF
	dd if="$A" of="$MBR" bs=$SECT seek=10240 conv=notrunc status=none
	fresh_undo_dir
}

# same_as_bare WHAT BARE DISK ARGS...: e4time CMD on DISK with ARGS reads
# what it reads on BARE: stdout identical, same status.
same_as_bare() {
	local what=$1 bare=$2 disk=$3 cmd=$4
	shift 4
	run_ro "$bare" "$cmd" "$bare" "$@"
	cp "$OUT" "$TMP/bare.out"
	local rc=$RC
	run_ro "$disk" "$cmd" "$disk" "$VOLUME" "$@"
	assertEquals "$what: status" "$rc" "$RC"
	cmp -s "$TMP/bare.out" "$OUT" ||
		fail "$what: output differs from the bare image's ($(diff "$TMP/bare.out" "$OUT" | head -3))"
}

test_volumes_lists_what_sfdisk_and_blkid_say() {
	run_ro "$GPT" volumes -f jsonl "$GPT"
	assertEquals "status" 0 "$RC"
	cp "$OUT" "$TMP/v.json"
	assertEquals "three volumes" 3 "$(wc -l <"$TMP/v.json")"
	local n start size name uuid
	for n in 1 2 3; do
		start=$(sfdisk -J "$GPT" | jq -r ".partitiontable.partitions[$((n - 1))].start")
		size=$(sfdisk -J "$GPT" | jq -r ".partitiontable.partitions[$((n - 1))].size")
		name=$(sfdisk -J "$GPT" | jq -r ".partitiontable.partitions[$((n - 1))].name")
		uuid=$(sfdisk -J "$GPT" | jq -r ".partitiontable.partitions[$((n - 1))].uuid")
		assertEquals "p$n start" $((start * SECT)) \
			"$(jq -r "select(.index==$n).start" "$TMP/v.json")"
		assertEquals "p$n length" $((size * SECT)) \
			"$(jq -r "select(.index==$n).length" "$TMP/v.json")"
		assertEquals "p$n name" "$name" \
			"$(jq -r "select(.index==$n).part_name" "$TMP/v.json")"
		assertEquals "p$n PARTUUID" "${uuid,,}" \
			"$(jq -r "select(.index==$n).part_uuid" "$TMP/v.json")"
		assertEquals "p$n is pN" "p$n" \
			"$(jq -r "select(.index==$n).name" "$TMP/v.json")"
	done
	assertEquals "p1 holds ext4" ext4 "$(jq -r 'select(.index==1).fs' "$TMP/v.json")"
	assertEquals "p1's UUID as blkid says" "$(blkid -p -o value -s UUID "$A")" \
		"$(jq -r 'select(.index==1).uuid' "$TMP/v.json")"
	assertEquals "p1's label as blkid says" "$(blkid -p -o value -s LABEL "$A")" \
		"$(jq -r 'select(.index==1).label' "$TMP/v.json")"
	assertEquals "p1's type" "Linux filesystem" \
		"$(jq -r 'select(.index==1).type' "$TMP/v.json")"
	assertEquals "p3 holds LUKS2" LUKS2 "$(jq -r 'select(.index==3).fs' "$TMP/v.json")"
	# text and csv say the same
	run_ro "$GPT" volumes "$GPT"
	assertEquals "text status" 0 "$RC"
	assertContains "text names p2" "$(cat "$OUT")" "p2"
	assertContains "text says GPT's name of the type" "$(cat "$OUT")" "Linux filesystem"
	run_ro "$GPT" volumes -f csv "$GPT"
	assertEquals "csv: header and three rows" 4 "$(wc -l <"$OUT")"
}

test_mbr_with_logical_partitions() {
	run_ro "$MBR" volumes -f jsonl "$MBR"
	assertEquals "status" 0 "$RC"
	assertEquals "p1 p5 p6 (the extended one is a container)" "p1 p5 p6" \
		"$(jq -r .name "$OUT" | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "p5 starts where sfdisk put it" $((10240 * SECT)) \
		"$(jq -r 'select(.name=="p5").start' "$OUT")"
	assertEquals "p5 holds ext4" ext4 "$(jq -r 'select(.name=="p5").fs' "$OUT")"
	# the only ext4 volume is used, and named on stderr
	VOLUME=-q
	same_as_bare "MBR, no --volume" "$A" "$MBR" timeline
	run_ro "$MBR" timeline "$MBR"
	assertContains "stderr names the volume" "$(cat "$ERR")" "(p5)"
}

test_every_read_command_reads_a_partition_as_the_bare_image() {
	local spec
	for spec in 1 p1 root; do
		VOLUME=--volume=$spec
		same_as_bare "timeline --volume $spec" "$A" "$GPT" timeline
	done
	VOLUME=--volume=$(sfdisk --part-uuid "$GPT" 1)
	same_as_bare "timeline by PARTUUID" "$A" "$GPT" timeline
	VOLUME=--volume=p2
	same_as_bare "p2: timeline -f jsonl" "$B" "$GPT" timeline -f jsonl
	VOLUME=--volume=root
	same_as_bare "stat /" "$A" "$GPT" stat / '<2>' '<11>'
	same_as_bare "journal" "$A" "$GPT" journal
	same_as_bare "audit" "$A" "$GPT" audit
	same_as_bare "history" "$A" "$GPT" history '<2>'
	same_as_bare "anomalies" "$A" "$GPT" anomalies -f jsonl
	# export: the same rows after the header, which names the disk
	run_ro "$A" export "$A"
	tail -n +2 "$OUT" >"$TMP/bare.manifest"
	run_ro "$GPT" export --volume root "$GPT"
	assertEquals "export: status" 0 "$RC"
	assertContains "export: the header names the disk" "$(head -n 1 "$OUT")" \
		"\"image\":\"$GPT\""
	tail -n +2 "$OUT" | cmp -s - "$TMP/bare.manifest" ||
		fail "export: rows differ from the bare image's"
	same_as_bare "info -f jsonl" "$A" "$GPT" info -f jsonl
	same_as_bare "set -n" "$A" "$GPT" set -n --crtime 2001-01-01T00:00:00Z '<2>'
}

test_several_ext_volumes_need_a_choice() {
	run_ro "$GPT" timeline "$GPT"
	assertEquals "exit 2" 2 "$RC"
	assertEquals "one line" 1 "$(wc -l <"$ERR")"
	assertContains "names the choices" "$(cat "$ERR")" "1 (p1), 2 (p2)"
	run_ro "$GPT" timeline --volume p9 "$GPT"
	assertEquals "no such volume: exit 2" 2 "$RC"
	assertContains "says so" "$(cat "$ERR")" "--volume 'p9'"
}

test_volume_all() {
	run_ro "$A" timeline -f jsonl "$A"
	cp "$OUT" "$TMP/all.want"
	run_ro "$B" timeline -f jsonl "$B"
	cat "$OUT" >>"$TMP/all.want"
	run_ro "$GPT" timeline -f jsonl --volume all "$GPT"
	assertEquals "jsonl: status" 0 "$RC"
	jq -c 'del(.volume)' "$OUT" >"$TMP/all.got"
	jq -c . "$TMP/all.want" >"$TMP/all.want2"
	cmp -s "$TMP/all.want2" "$TMP/all.got" ||
		fail "jsonl: the rows of p1 then p2, as the bare images give them"
	assertEquals "jsonl: each row names its volume" "p1 p2" \
		"$(jq -r .volume "$OUT" | uniq | tr '\n' ' ' | sed 's/ $//')"
	run_ro "$GPT" timeline -f bodyfile --volume all "$GPT"
	assertEquals "bodyfile: one header" 1 "$(grep -c '^#' "$OUT")"
	assertEquals "bodyfile: p1's root prefixed" 1 "$(grep -c '^0|p1:/|' "$OUT")"
	assertEquals "bodyfile: p2's root prefixed" 1 "$(grep -c '^0|p2:/|' "$OUT")"
	run_ro "$GPT" timeline -f csv --volume all "$GPT"
	assertEquals "csv: one header, with the volume column" 1 \
		"$(grep -c '^volume,path,' "$OUT")"
	run_ro "$GPT" export --volume all "$GPT"
	assertEquals "export: one manifest header" 1 \
		"$(grep -c e4time_manifest "$OUT")"
	run_ro "$GPT" audit -f jsonl --volume all "$GPT"
	assertEquals "audit: status" 0 "$RC"
	assertEquals "audit: a summary per volume" "p1 p2" \
		"$(jq -r 'select(.record=="summary").volume' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
	run_ro "$B" audit -f jsonl "$B"
	jq -c 'select(.record=="summary")' "$OUT" >"$TMP/sum.want"
	run_ro "$GPT" audit -f jsonl --volume all "$GPT"
	assertEquals "audit: p2's summary is the bare image's" "$(cat "$TMP/sum.want")" \
		"$(jq -c 'select(.volume=="p2" and .record=="summary") | del(.volume)' "$OUT")"
	run_ro "$GPT" audit -f csv --volume all "$GPT"
	assertEquals "audit csv: one header" 1 "$(grep -c '^volume,tid,' "$OUT")"
	run_ro "$GPT" stat --volume all "$GPT" /
	assertEquals "stat --volume all: usage error" 2 "$RC"
}

# flip_byte FILE OFFSET: invert one byte.
flip_byte() {
	python3 - "$1" "$2" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    b = f.read(1)
    f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0xff]))
PY
}

test_damaged_partition_tables() {
	local d="$TMP/bad.img" size
	cp "$GPT" "$d"
	flip_byte "$d" $((SECT + 40)) # the primary header's first usable LBA
	run_ro "$d" volumes -f jsonl "$d"
	assertEquals "primary GPT header damaged: status" 0 "$RC"
	assertEquals "the backup's three partitions" 3 "$(wc -l <"$OUT")"
	assertContains "said on stderr" "$(cat "$ERR")" "backup header"
	VOLUME=--volume=p1
	same_as_bare "timeline through the backup GPT" "$A" "$d" timeline
	size=$(stat -c %s "$d")
	flip_byte "$d" $((size - SECT + 40)) # and the backup's
	run_ro "$d" timeline --volume p1 "$d"
	assertEquals "both GPT headers damaged: no p1 (exit 2)" 2 "$RC"
	run_ro "$d" volumes "$d"
	assertContains "both damaged: said" "$(cat "$ERR")" "GPT"
	# an MBR whose extended chain loops: said, no hang, and the sound
	# entries kept (issue 27)
	cp "$MBR" "$d"
	# the EBR at sector 8192 points its next entry at itself
	python3 - "$d" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(8192 * 512 + 446 + 16)
    f.write(bytes([0, 0, 0, 0, 5, 0, 0, 0]) + struct.pack("<II", 0, 2048))
PY
	run_ro "$d" volumes -f jsonl "$d"
	assertEquals "a looping extended chain: status" 0 "$RC"
	assertContains "said" "$(cat "$ERR")" "loops back to sector 8192"
	assertEquals "p1 and p5 kept (p6 is past the loop)" "p1 p5" \
		"$(jq -r .name "$OUT" | tr '\n' ' ' | sed 's/ $//')"
	VOLUME=--volume=p5
	same_as_bare "timeline of p5 before the loop" "$A" "$d" timeline
	# an extended partition at sector 0 hides no primary
	cp "$MBR" "$d"
	python3 - "$d" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(446 + 16 + 8)  # slot 2 (the extended one): its start
    f.write(struct.pack("<I", 0))
    f.seek(446 + 8)       # slot 1: p1 moves onto A's copy at 10240
    f.write(struct.pack("<II", 10240, 65536))
PY
	run_ro "$d" volumes -f jsonl "$d"
	assertEquals "extended at 0: status" 0 "$RC"
	assertContains "said" "$(cat "$ERR")" "extended partition at sector 0"
	assertEquals "p1 kept" "p1" "$(jq -r .name "$OUT" | tr '\n' ' ' | sed 's/ $//')"
	VOLUME=--volume=p1
	same_as_bare "timeline of p1 beside it" "$A" "$d" timeline
}

test_what_is_not_ext4_is_named() {
	run_ro "$GPT" timeline --volume vault "$GPT"
	assertEquals "LUKS2: exit 4" 4 "$RC"
	assertContains "LUKS2: what to do" "$(cat "$ERR")" \
		"p3: LUKS2 encrypted: open it (cryptsetup open)"
}

test_offset_inside_a_volume_and_said_in_sectors() {
	run_ro "$GPT" timeline -o 2047 "$GPT"
	assertEquals "wrong -o: exit 4" 4 "$RC"
	assertContains "said in sectors" "$(cat "$ERR")" "at sector 2047 (byte 1048064)"
	run_ro "$GPT" stat -o 2048 "$GPT" /
	assertEquals "right -o: the file at that sector, as before" 0 "$RC"
	run_ro "$GPT" stat --volume p1 -o 0 "$GPT" /
	assertEquals "-o 0 inside p1" 0 "$RC"
}

test_write_through_a_partition_and_undo_with_e2undo() {
	local disk="$TMP/wgpt.img" before undo
	cp "$GPT" "$disk"
	before=$(sha256sum <"$disk")
	run set --volume p1 --crtime 2001-02-03T04:05:06Z "$disk" /
	assertEquals "set: status" 0 "$RC"
	cp "$ERR" "$TMP/set.err"
	run stat -f jsonl --volume p1 "$disk" /
	assertEquals "crtime written" "2001-02-03T04:05:06.000000000Z" \
		"$(jq -r .crtime.iso "$OUT")"
	# run the command e4time said, as printed
	undo=$(sed -n 's/.*(to undo: \(e2undo .*\))$/\1/p' "$TMP/set.err")
	assertContains "says how to undo, with the partition's offset" \
		"$undo" "e2undo -o $((2048 * SECT)) "
	[ -n "$undo" ] && eval "$undo" >/dev/null 2>&1
	assertEquals "e2undo restores the disk" "$before" "$(sha256sum <"$disk")"
}

test_the_gpt_disk_in_evidence_containers() {
	local d="$TMP/ev" f
	mkdir -p "$d"
	if command -v ewfacquire >/dev/null; then
		ewfacquire -u -t "$d/disk" -c none -S 20MiB -f encase6 "$GPT" \
			>/dev/null 2>&1
		assertTrue "E01 in several segments" "[ -f $d/disk.E02 ]"
		VOLUME=--volume=p1
		same_as_bare "E01: timeline of p1" "$A" "$d/disk.E01" timeline
		VOLUME=--volume=data
		same_as_bare "E01: stat in p2" "$B" "$d/disk.E01" stat / '<11>'
		run_ro "$d/disk.E01" set -n --volume p1 --crtime 2001-01-01T00:00:00Z \
			"$d/disk.E01" /
		assertEquals "E01: writing refused" 16 "$RC"
		assertContains "E01: says why" "$(cat "$ERR")" "evidence containers"
		run_ro "$d/disk.E01" timeline --volume p1 --verify-container "$d/disk.E01"
		assertEquals "E01: verified" 0 "$RC"
		assertContains "E01: said" "$(cat "$ERR")" "verified"
		mv "$d/disk.E02" "$d/moved"
		run timeline --volume p1 "$d/disk.E01"
		assertEquals "E01 without E02: exit 4" 4 "$RC"
		assertContains "names the missing piece" "$(cat "$ERR")" "disk.E02"
		mv "$d/moved" "$d/disk.E02"
	else
		echo "SKIP: ${_shunit_test_}: E01 part: ewfacquire (ewf-tools) is not installed"
	fi
	split -b 20M -d -a 3 --numeric-suffixes=1 "$GPT" "$d/raw."
	VOLUME=--volume=p1
	same_as_bare "split raw: timeline of p1" "$A" "$d/raw.001" timeline
	if command -v qemu-img >/dev/null; then
		for f in qcow2 vmdk vhdx; do
			qemu-img convert -O $f "$GPT" "$d/disk.$f"
			VOLUME=--volume=p2
			same_as_bare "$f: timeline of p2" "$B" "$d/disk.$f" timeline -f jsonl
		done
	else
		echo "SKIP: ${_shunit_test_}: VM disks: qemu-img (qemu-utils) is not installed"
	fi
}

# lvm_q ARGS...: the lvm tools on our two loop devices only, keeping no
# state and activating nothing (no device-mapper here).
lvm_q() {
	local f="\"a|^$LOOP1\$|\", \"a|^$LOOP2\$|\", \"r|.*|\""
	lvm "$@" --config "devices { filter=[ $f ] global_filter=[ $f ] use_devicesfile=0 obtain_device_list_from_udev=0 hints=\"none\" } activation { udev_sync=0 udev_rules=0 } backup { backup=0 archive=0 }" 2>/dev/null
}

# make_lvm_disk: $LVD, a GPT disk whose p1 and p2 are the PVs of VG $VG:
# on p1, root (2 segments, "other" between them) holds ext4-128 and
# "one" (1 segment) ext4-4k; "stripe" is striped over p1 and p2; on p2,
# "back" (2 segments, the second before the first) holds ext4-128 too.
make_lvm_disk() {
	LVD="$TMP/lvm.img"
	VG=e4tv$$
	truncate -s 128M "$LVD"
	printf 'label: gpt\nstart=2048, size=122880, type=lvm, name="pv1"\nstart=124928, size=122880, type=lvm, name="pv2"\n' |
		sfdisk -q "$LVD" >/dev/null || return 1
	LOOP1=$(losetup -f --show -o $((2048 * SECT)) --sizelimit $((122880 * SECT)) "$LVD" 2>/dev/null) ||
		return 1
	LOOP2=$(losetup -f --show -o $((124928 * SECT)) --sizelimit $((122880 * SECT)) "$LVD" 2>/dev/null) || {
		losetup -d "$LOOP1"
		return 1
	}
	local ok=0
	lvm_q pvcreate "$LOOP1" "$LOOP2" >/dev/null &&
		lvm_q vgcreate -s 4M "$VG" "$LOOP1" "$LOOP2" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n root -L 4M "$VG" "$LOOP1" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n other -L 4M "$VG" "$LOOP1" >/dev/null &&
		lvm_q lvextend --driverloaded n -L +4M "$VG/root" "$LOOP1" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n one -L 32M "$VG" "$LOOP1" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n stripe -i 2 -I 64k -L 8M "$VG" "$LOOP1" "$LOOP2" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n back -L 4M "$VG" "$LOOP2:5-5" >/dev/null &&
		lvm_q lvextend --driverloaded n -L +4M "$VG/back" "$LOOP2:2-2" >/dev/null &&
		ok=1
	# root's segments: PV extent ranges, and where extents start
	PE_START=$(lvm_q pvs --noheadings --units b --nosuffix -o pe_start "$LOOP1" | tr -d ' ')
	RANGES=$(lvm_q lvs --noheadings --segments -o seg_pe_ranges "$VG/root" | tr -d ' ' | sed 's/.*://')
	ONE=$(lvm_q lvs --noheadings --segments -o seg_pe_ranges "$VG/one" | tr -d ' ' | sed 's/.*://')
	PE_START2=$(lvm_q pvs --noheadings --units b --nosuffix -o pe_start "$LOOP2" | tr -d ' ')
	BACK=$(lvm_q lvs --noheadings --segments -o seg_pe_ranges "$VG/back" | tr -d ' ' | sed 's/.*://')
	losetup -d "$LOOP1" "$LOOP2"
	[ "$ok" = 1 ] && [ -n "$PE_START" ] && [ -n "$RANGES" ] &&
		[ -n "$PE_START2" ] && [ -n "$BACK" ] || return 1
	# ext4-128 (8 MiB) into root's two 4 MiB segments, ext4-4k into one
	local r i=0 first
	for r in $RANGES; do
		first=${r%-*}
		dd if="$B" of="$LVD" bs=4M skip=$i count=1 conv=notrunc status=none \
			oflag=seek_bytes seek=$((2048 * SECT + PE_START + first * 4194304))
		i=$((i + 1))
	done
	first=${ONE%-*}
	dd if="$A" of="$LVD" bs=4M conv=notrunc status=none \
		oflag=seek_bytes seek=$((2048 * SECT + PE_START + first * 4194304))
	i=0
	for r in $BACK; do
		first=${r%-*}
		dd if="$B" of="$LVD" bs=4M skip=$i count=1 conv=notrunc status=none \
			oflag=seek_bytes seek=$((124928 * SECT + PE_START2 + first * 4194304))
		i=$((i + 1))
	done
	return 0
}

test_lvm_in_a_gpt_partition() {
	if ! command -v lvm >/dev/null || ! command -v losetup >/dev/null ||
		[ "$(id -u)" != 0 ] || ! make_lvm_disk; then
		skip_test "cannot make an LVM2 PV here (lvm tools, root, loop devices)"
		return
	fi
	run_ro "$LVD" volumes -f jsonl "$LVD"
	assertEquals "status" 0 "$RC"
	cp "$OUT" "$TMP/lv.json"
	assertEquals "p1 is the PV" "LVM2 PV of $VG" \
		"$(jq -r 'select(.name=="p1").type' "$TMP/lv.json")"
	assertEquals "root: two extents" 2 \
		"$(jq -r "select(.name==\"$VG/root\").extents" "$TMP/lv.json")"
	assertEquals "root holds ext4" ext4 \
		"$(jq -r "select(.name==\"$VG/root\").fs" "$TMP/lv.json")"
	assertContains "stripe is refused, and why" \
		"$(jq -r "select(.name==\"$VG/stripe\").note" "$TMP/lv.json")" "stripes"
	VOLUME=--volume=$VG/root
	same_as_bare "timeline of a 2-segment LV" "$B" "$LVD" timeline
	same_as_bare "stat of a 2-segment LV" "$B" "$LVD" stat / '<12>'
	same_as_bare "journal of a 2-segment LV" "$B" "$LVD" journal
	run_ro "$LVD" timeline --volume "$VG/stripe" "$LVD"
	assertEquals "striped LV: exit 4" 4 "$RC"
	assertContains "says why" "$(cat "$ERR")" "linear LVs only"
	# writing into a 2-segment LV: in the image, where each segment lies,
	# with an undo file that stock e2undo replays on the whole image
	local w="$TMP/lvw.img" before undo first
	cp "$LVD" "$w"
	before=$(sha256sum <"$w")
	run set -n --volume "$VG/root" --mtime 2001-01-01T00:00:00Z "$w" /
	assertEquals "dry run into a 2-segment LV" 0 "$RC"
	assertEquals "the dry run leaves the image" "$before" "$(sha256sum <"$w")"
	# ext4-128: 128-byte inodes, no crtime; its inode table is in the
	# first segment (unit_undo writes across segments)
	run set --volume "$VG/root" --mtime 2001-01-01T00:00:00Z "$w" / '<12>'
	assertEquals "write into a 2-segment LV" 0 "$RC"
	cp "$ERR" "$TMP/set.err"
	run stat -f jsonl --volume "$VG/root" "$w" / '<12>'
	assertEquals "written" "2001-01-01T00:00:00.000000000Z 2001-01-01T00:00:00.000000000Z" \
		"$(jq -r .mtime.iso "$OUT" | tr '\n' ' ' | sed 's/ $//')"
	# only root's segments changed: not "other", between them
	local r s e bad=0 off
	for off in $(cmp -l "$LVD" "$w" | awk '{ print $1 - 1 }'); do
		local in=0
		for r in $RANGES; do
			s=$((2048 * SECT + PE_START + ${r%-*} * 4194304))
			e=$((2048 * SECT + PE_START + (${r#*-} + 1) * 4194304))
			[ "$off" -ge "$s" ] && [ "$off" -lt "$e" ] && in=1
		done
		[ "$in" = 1 ] || bad=$((bad + 1))
	done
	assertEquals "bytes changed outside root's segments" 0 "$bad"
	cmp -s "$LVD" "$w" && fail "nothing was written"
	undo=$(sed -n 's/.*(to undo: \(e2undo .*\))$/\1/p' "$TMP/set.err")
	first=${RANGES%%-*}
	assertContains "e2undo at the LV's first segment" "$undo" \
		"e2undo -o $((2048 * SECT + PE_START + first * 4194304)) "
	[ -n "$undo" ] && eval "$undo" >/dev/null 2>&1
	assertEquals "e2undo restores the whole image" "$before" "$(sha256sum <"$w")"
	# a segment before the first in the image: e2undo cannot place it
	run set -n --volume "$VG/back" --crtime 2001-01-01T00:00:00Z "$w" /
	assertEquals "write into an LV whose segments go back: refused" 16 "$RC"
	assertContains "says why" "$(cat "$ERR")" "before the first"
	run set --volume "$VG/back" --crtime 2001-01-01T00:00:00Z "$w" /
	assertEquals "and without -n" 16 "$RC"
	assertEquals "nothing written" "$before" "$(sha256sum <"$w")"
	VOLUME=--volume=$VG/one
	same_as_bare "timeline of a 1-segment LV" "$A" "$LVD" timeline
	run set --volume "$VG/one" --crtime 2001-01-01T00:00:00Z "$TMP/lvw.img" /
	assertEquals "write into a 1-segment LV" 0 "$RC"
	run stat -f jsonl --volume "$VG/one" "$TMP/lvw.img" /
	assertEquals "written" "2001-01-01T00:00:00.000000000Z" "$(jq -r .crtime.iso "$OUT")"
}

# lvm_on DEV ARGS...: the lvm tools on DEV alone (lvm_q's settings).
lvm_on() {
	local d=$1 f
	shift
	f="\"a|^$d\$|\", \"r|.*|\""
	LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@" --config "devices { filter=[ $f ] global_filter=[ $f ] use_devicesfile=0 obtain_device_list_from_udev=0 hints=\"none\" } activation { udev_sync=0 udev_rules=0 } backup { backup=0 archive=0 }" 2>/dev/null
}

# make_dup_disk: $DUP, a GPT disk whose p1 and p2 are PVs of two VGs
# both named vgdup (made apart, as two machines would), each with an LV
# "a": p1's holds ext4-128, p2's ext4-1k-inline.  $UUID1 and $UUID2 are
# the LVs' UUIDs.
make_dup_disk() {
	local p l i=0 pe first f
	DUP="$TMP/dup.img"
	BOOT=$(unpack ext4-1k-inline) || return 1
	truncate -s 128M "$DUP"
	printf 'label: gpt\nstart=2048, size=122880, type=lvm\nstart=124928, size=122880, type=lvm\n' |
		sfdisk -q "$DUP" >/dev/null || return 1
	for p in 2048 124928; do
		i=$((i + 1))
		l=$(losetup -f --show -o $((p * SECT)) --sizelimit $((122880 * SECT)) "$DUP" 2>/dev/null) ||
			return 1
		lvm_on "$l" pvcreate "$l" >/dev/null &&
			lvm_on "$l" vgcreate -s 4M vgdup "$l" >/dev/null &&
			lvm_on "$l" lvcreate --driverloaded n -an -Zn -n a -L 8M vgdup >/dev/null
		pe=$(lvm_on "$l" pvs --noheadings --units b --nosuffix -o pe_start "$l" | tr -d ' ')
		first=$(lvm_on "$l" lvs --noheadings --segments -o seg_pe_ranges vgdup/a | tr -d ' ' | sed 's/.*://; s/-.*//')
		eval "UUID$i=\$(lvm_on \"\$l\" lvs --noheadings -o lv_uuid vgdup/a | tr -d ' ')"
		losetup -d "$l"
		[ -n "$pe" ] && [ -n "$first" ] || return 1
		if [ $i = 1 ]; then f=$B; else f=$BOOT; fi
		dd if="$f" of="$DUP" bs=1M conv=notrunc status=none \
			oflag=seek_bytes seek=$((p * SECT + pe + first * 4194304))
	done
	[ -n "$UUID1" ] && [ -n "$UUID2" ] && [ "$UUID1" != "$UUID2" ]
}

test_lvm_same_name_twice_is_a_choice() {
	if ! command -v lvm >/dev/null || [ "$(id -u)" != 0 ] || ! make_dup_disk; then
		skip_test "cannot make LVM2 PVs here (lvm tools, root, loop devices)"
		return
	fi
	run_ro "$DUP" volumes -f jsonl "$DUP"
	assertEquals "volumes: status" 0 "$RC"
	cp "$OUT" "$TMP/dup.json"
	assertEquals "two vgdup/a" 2 "$(jq -r 'select(.name=="vgdup/a").index' "$TMP/dup.json" | wc -l)"
	local i1 i2 w="$TMP/dupw.img" before cmd n=0
	i1=$(jq -r 'select(.name=="vgdup/a") | .index' "$TMP/dup.json" | head -1)
	i2=$(jq -r 'select(.name=="vgdup/a") | .index' "$TMP/dup.json" | tail -1)
	# reads and set: a usage error naming both, by index and LV UUID
	for cmd in "timeline" "stat / <12>" "info"; do
		# shellcheck disable=SC2086 # the command and its arguments
		set -- $cmd
		run_ro "$DUP" "$1" --volume vgdup/a "$DUP" "${@:2}"
		assertEquals "$cmd: usage error" 2 "$RC"
		assertEquals "$cmd: one line" 1 "$(wc -l <"$ERR")"
		assertContains "$cmd: the choices" "$(cat "$ERR")" \
			"--volume 'vgdup/a': Several volumes have this name: choose one by its index or UUID:"
		assertContains "$cmd: the first" "$(cat "$ERR")" "$i1 (LV UUID $UUID1, ext4)"
		assertContains "$cmd: the second" "$(cat "$ERR")" "$i2 (LV UUID $UUID2, ext4)"
		n=$((n + 1))
	done
	assertEquals "commands tried" 3 "$n"
	cp "$DUP" "$w"
	before=$(sha256sum <"$w")
	run set --volume vgdup/a --mtime 2001-01-01T00:00:00Z "$w" /
	assertEquals "set: usage error" 2 "$RC"
	assertContains "set: says so" "$(cat "$ERR")" "$i2 (LV UUID $UUID2"
	assertEquals "set: nothing written" "$before" "$(sha256sum <"$w")"
	# by index or by UUID: the one named
	VOLUME=--volume=$i1
	same_as_bare "the first by index" "$B" "$DUP" timeline
	VOLUME=--volume=$UUID2
	same_as_bare "the second by UUID" "$BOOT" "$DUP" timeline
	run set --volume "$UUID1" --mtime 2001-01-01T00:00:00Z "$w" /
	assertEquals "set by UUID: $(cat "$ERR")" 0 "$RC"
	run stat -f jsonl --volume "$i1" "$w" /
	assertEquals "written to the first" "2001-01-01T00:00:00.000000000Z" "$(jq -r .mtime.iso "$OUT")"
	run stat -f jsonl --volume "$i2" "$w" /
	assertNotEquals "not to the second" "2001-01-01T00:00:00.000000000Z" "$(jq -r .mtime.iso "$OUT")"
	# p2's metadata text damaged: volumes says which PV, in one line,
	# lists the rest and exits 1
	python3 - "$DUP" "$TMP/dupbad.img" $((124928 * SECT)) <<'EOF'
import sys
src, dst, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
n, i = 0, start
while True:
    i = b.find(b"logical_volumes {", i)
    if i < 0:
        break
    b[i + 16] = ord("]")
    n += 1
assert n >= 1, n
open(dst, "wb").write(b)
EOF
	run_ro "$TMP/dupbad.img" volumes "$TMP/dupbad.img"
	assertEquals "damaged PV: exit 1" 1 "$RC"
	assertEquals "one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "names the image" "$(cat "$ERR")" "$TMP/dupbad.img: "
	assertContains "names the PV" "$(cat "$ERR")" "p2: LVM2 physical volume"
	assertContains "and why" "$(cat "$ERR")" "logical_volumes"
	assertContains "p1's LV still listed" "$(cat "$OUT")" "vgdup/a"
	run_ro "$TMP/dupbad.img" volumes -f jsonl "$TMP/dupbad.img"
	assertEquals "jsonl: exit 1" 1 "$RC"
	assertContains "p2 listed, refused" "$(jq -r 'select(.name=="p2").note' "$OUT")" \
		"LVM2 metadata cannot be read"
	VOLUME=--volume=vgdup/a
	same_as_bare "the sound PV's LV, now alone" "$B" "$TMP/dupbad.img" timeline -q
}

# make_kinds: $KD, one PV (no partition table) of VG $KVG whose
# metadata, restored by vgcfgrestore (lvm2 checks it; lvcreate makes
# none of these without device-mapper), holds what e4time does not map:
# a snapshot of orig, a raid1 and a mirror (2 legs each; ext4-128 in
# each first leg), a thin pool and a thin LV.  $KD.lvs: lvs -a's
# name,size in bytes.
make_kinds() {
	local l ok=0
	KD="$TMP/kinds.img"
	KVG=e4tk$$
	rm -f "$KD"
	truncate -s 200M "$KD"
	l=$(losetup -f --show "$KD" 2>/dev/null) || return 1
	lvm_on "$l" pvcreate "$l" >/dev/null &&
		lvm_on "$l" vgcreate -s 4M "$KVG" "$l" >/dev/null &&
		lvm_on "$l" lvcreate --driverloaded n -an -Zn -n orig -L 16M "$KVG" >/dev/null &&
		lvm_on "$l" vgcfgbackup -f "$TMP/kinds.vg" "$KVG" >/dev/null &&
		python3 - "$TMP/kinds.vg" <<'EOF' &&
import sys
p = sys.argv[1]
def lv(name, status, segs):
    s = "%s {\nid = \"%s\"\nstatus = [%s]\nflags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\n%s\n}\n}\n"
    uid = (name.replace("_", "") + "x" * 32)[:32]
    uid = "-".join([uid[:6], uid[6:10], uid[10:14], uid[14:18], uid[18:22], uid[22:26], uid[26:32]])
    return s % (name, uid, ", ".join('"%s"' % x for x in status), segs)
def lin(n, at):
    return 'extent_count = %d\ntype = "striped"\nstripe_count = 1\nstripes = ["pv0", %d]' % (n, at)
rw, vis = ["READ", "WRITE"], ["READ", "WRITE", "VISIBLE"]
x = ""
x += lv("snap", rw, lin(2, 4))
x += lv("snapshot0", ["READ"], 'extent_count = 4\ntype = "snapshot"\nchunk_size = 8\norigin = "orig"\ncow_store = "snap"')
x += lv("r1", vis, 'extent_count = 2\ntype = "raid1"\ndevice_count = 2\nregion_size = 1024\nraids = ["r1_rmeta_0", "r1_rimage_0", "r1_rmeta_1", "r1_rimage_1"]')
x += lv("r1_rmeta_0", rw, lin(1, 6)) + lv("r1_rimage_0", rw, lin(2, 7))
x += lv("r1_rmeta_1", rw, lin(1, 9)) + lv("r1_rimage_1", rw, lin(2, 10))
x += lv("mir", vis, 'extent_count = 2\ntype = "mirror"\nmirror_count = 2\nregion_size = 1024\nmirrors = ["mir_mimage_0", 0, "mir_mimage_1", 0]')
x += lv("mir_mimage_0", rw, lin(2, 12)) + lv("mir_mimage_1", rw, lin(2, 14))
x += lv("pool", vis, 'extent_count = 4\ntype = "thin-pool"\nmetadata = "pool_tmeta"\npool = "pool_tdata"\ntransaction_id = 1\nchunk_size = 128\ndiscards = "passdown"\nzero_new_blocks = 1')
x += lv("thin1", vis, 'extent_count = 8\ntype = "thin"\nthin_pool = "pool"\ntransaction_id = 0\ndevice_id = 1')
x += lv("pool_tmeta", rw, lin(1, 16)) + lv("pool_tdata", rw, lin(4, 17))
t = open(p).read()
i = t.index("logical_volumes {") + len("logical_volumes {\n")
open(p, "w").write(t[:i] + x + t[i:])
EOF
		lvm_on "$l" vgcfgrestore --force -f "$TMP/kinds.vg" "$KVG" >/dev/null &&
		lvm_on "$l" lvs -a --noheadings --units b --nosuffix --separator , \
			-o lv_name,lv_size "$KVG" | tr -d ' []' >"$KD.lvs" &&
		PE=$(lvm_on "$l" pvs --noheadings --units b --nosuffix -o pe_start "$l" | tr -d ' ') &&
		ok=1
	losetup -d "$l"
	[ "$ok" = 1 ] && [ -n "$PE" ] || return 1
	# ext4-128 in the first leg of each: r1_rimage_0 at extent 7,
	# mir_mimage_0 at 12
	dd if="$B" of="$KD" bs=1M conv=notrunc status=none oflag=seek_bytes \
		seek=$((PE + 7 * 4194304))
	dd if="$B" of="$KD" bs=1M conv=notrunc status=none oflag=seek_bytes \
		seek=$((PE + 12 * 4194304))
}

test_lvm_refused_kinds_sized_and_legs_read() {
	if ! command -v lvm >/dev/null || [ "$(id -u)" != 0 ] || ! make_kinds; then
		skip_test "cannot make LVM2 metadata here (lvm tools, root, loop devices)"
		return
	fi
	run_ro "$KD" volumes -f jsonl "$KD"
	assertEquals "volumes: status" 0 "$RC"
	cp "$OUT" "$TMP/kinds.json"
	# every LV's length is what lvs says, refused or not
	local name size n=0 lv leg
	while IFS=, read -r name size; do
		assertEquals "$name: length as lvs says" "$size" \
			"$(jq -r "select(.name==\"$KVG/$name\").length" "$TMP/kinds.json")"
		n=$((n + 1))
	done <"$KD.lvs"
	assertEquals "LVs lvs lists (-a: not snapshot0)" 14 "$n"
	for name in pool thin1 snap; do
		assertNotEquals "$name: refused" null \
			"$(jq -r "select(.name==\"$KVG/$name\").note" "$TMP/kinds.json")"
	done
	assertEquals "snap: the snapshot of orig" "snapshot of $KVG/orig" \
		"$(jq -r "select(.name==\"$KVG/snap\").type" "$TMP/kinds.json")"
	assertContains "snap: read the origin" \
		"$(jq -r "select(.name==\"$KVG/snap\").note" "$TMP/kinds.json")" "read the origin, $KVG/orig"
	run_ro "$KD" timeline --volume "$KVG/snap" "$KD"
	assertEquals "snap: refused" 4 "$RC"
	assertContains "snap: why" "$(cat "$ERR")" "copy-on-write store"
	run_ro "$KD" timeline --volume "$KVG/thin1" "$KD"
	assertEquals "thin: refused" 4 "$RC"
	assertContains "thin: why" "$(cat "$ERR")" "thin LV"
	# raid1 and mirror: a leg read, and which said
	for lv in r1:r1_rimage_0 mir:mir_mimage_0; do
		leg=${lv#*:}
		lv=${lv%%:*}
		assertEquals "$lv holds ext4" ext4 \
			"$(jq -r "select(.name==\"$KVG/$lv\").fs" "$TMP/kinds.json")"
		assertContains "$lv: the leg, in volumes" \
			"$(jq -r "select(.name==\"$KVG/$lv\").note" "$TMP/kinds.json")" \
			"read from leg 1 of 2, $KVG/$leg (each leg is a full copy)"
		VOLUME=--volume=$KVG/$lv
		same_as_bare "$lv: timeline" "$B" "$KD" timeline
		run_ro "$KD" stat --volume "$KVG/$lv" "$KD" /
		assertEquals "$lv: stat" 0 "$RC"
		assertContains "$lv: the leg, on stderr" "$(cat "$ERR")" \
			"read from leg 1 of 2, $KVG/$leg"
		# never written: the other leg would differ
		cp "$KD" "$TMP/kw.img"
		run set --volume "$KVG/$lv" --mtime 2001-01-01T00:00:00Z "$TMP/kw.img" /
		assertEquals "$lv: set refused" 16 "$RC"
		assertContains "$lv: set says why" "$(cat "$ERR")" "a write to one leg"
		cmp -s "$KD" "$TMP/kw.img" || fail "$lv: set wrote"
		n=$((n + 1))
	done
	assertEquals "legged LVs (after the 14)" 16 "$n"
}

# make_laptop: $LAP, a disk laid out as Ubuntu's installer does with
# LVM: p1 EFI System (FAT32), p2 /boot (ext4-1k-inline), p3 an LVM2 PV
# of vgubuntu: root (ext4-4k, extended into a second segment, "other"
# between them) and swap_1 (mkswap).
make_laptop() {
	local ranges r i=0 first pe
	LAP="$TMP/laptop.img"
	BOOT=$(unpack ext4-1k-inline)
	truncate -s 96M "$LAP"
	printf 'label: gpt\nstart=2048, size=8192, type=uefi, name="EFI System Partition"\nstart=10240, size=16384, type=linux\nstart=26624, size=147456, type=lvm\n' |
		sfdisk -q "$LAP" >/dev/null || return 1
	truncate -s 4M "$TMP/efi.img"
	mkfs.vfat -F 32 -n EFI "$TMP/efi.img" >/dev/null 2>&1 || return 1
	dd if="$TMP/efi.img" of="$LAP" bs=$SECT seek=2048 conv=notrunc status=none
	dd if="$BOOT" of="$LAP" bs=$SECT seek=10240 conv=notrunc status=none
	LOOP1=$(losetup -f --show -o $((26624 * SECT)) --sizelimit $((147456 * SECT)) "$LAP" 2>/dev/null) ||
		return 1
	LOOP2=/dev/null-none # (lvm_q's filter names two)
	local ok=0
	lvm_q pvcreate "$LOOP1" >/dev/null &&
		lvm_q vgcreate -s 4M vgubuntu "$LOOP1" >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n root -L 16M vgubuntu >/dev/null &&
		lvm_q lvcreate --driverloaded n -an -Zn -n swap_1 -L 8M vgubuntu >/dev/null &&
		lvm_q lvextend --driverloaded n -L +16M vgubuntu/root >/dev/null &&
		ok=1
	pe=$(lvm_q pvs --noheadings --units b --nosuffix -o pe_start "$LOOP1" | tr -d ' ')
	ranges=$(lvm_q lvs --noheadings --segments -o seg_pe_ranges vgubuntu/root | tr -d ' ' | sed 's/.*://')
	SWAP=$(lvm_q lvs --noheadings --segments -o seg_pe_ranges vgubuntu/swap_1 | tr -d ' ' | sed 's/.*://')
	losetup -d "$LOOP1"
	[ "$ok" = 1 ] && [ -n "$ranges" ] && [ -n "$SWAP" ] || return 1
	for r in $ranges; do
		first=${r%-*}
		# each range is 4 extents (16 MiB) of ext4-4k
		dd if="$A" of="$LAP" bs=16M skip=$i count=1 conv=notrunc status=none \
			iflag=fullblock oflag=seek_bytes \
			seek=$((26624 * SECT + pe + first * 4194304))
		i=$((i + 1))
	done
	truncate -s 8M "$TMP/swap.img"
	mkswap "$TMP/swap.img" >/dev/null 2>&1
	dd if="$TMP/swap.img" of="$LAP" bs=1M conv=notrunc status=none \
		oflag=seek_bytes seek=$((26624 * SECT + pe + ${SWAP%-*} * 4194304))
	return 0
}

test_an_ubuntu_laptop_e01_in_one_command() {
	if ! command -v lvm >/dev/null || ! command -v ewfacquire >/dev/null ||
		! command -v mkfs.vfat >/dev/null || ! command -v mkswap >/dev/null ||
		[ "$(id -u)" != 0 ] || ! make_laptop; then
		skip_test "needs lvm2, ewf-tools, dosfstools, mkswap, root and loop devices"
		return
	fi
	ewfacquire -u -t "$TMP/laptop" -c deflate:fast -S 20MiB -f encase6 "$LAP" \
		>/dev/null 2>&1
	local e01="$TMP/laptop.E01"
	run_ro "$e01" volumes -f jsonl "$e01"
	assertEquals "volumes: status" 0 "$RC"
	assertEquals "what the laptop holds" \
		"p1 FAT|p2 ext4|p3 LVM2_member|vgubuntu/root ext4|vgubuntu/swap_1 swap" \
		"$(jq -r '"\(.name) \(.fs)"' "$OUT" | tr '\n' '|' | sed 's/|$//')"
	assertEquals "root: two segments" 2 \
		"$(jq -r 'select(.name=="vgubuntu/root").extents' "$OUT")"
	VOLUME=--volume=vgubuntu/root
	same_as_bare "the laptop's root" "$A" "$e01" timeline -f mactime
	run_ro "$e01" timeline "$e01"
	assertEquals "two ext4 volumes: choose" 2 "$RC"
	assertContains "the choices" "$(cat "$ERR")" "2 (p2), 4 (vgubuntu/root)"
	run_ro "$e01" timeline -f jsonl --volume all "$e01"
	assertEquals "--volume all: status" 0 "$RC"
	assertEquals "--volume all: /boot and root" "p2 vgubuntu/root" \
		"$(jq -r .volume "$OUT" | uniq | tr '\n' ' ' | sed 's/ $//')"
	run_ro "$e01" timeline --volume vgubuntu/swap_1 "$e01"
	assertEquals "swap: not ext4" 4 "$RC"
	assertContains "swap: said" "$(cat "$ERR")" "swap"
}

. shunit2
