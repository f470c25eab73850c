#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_safety.sh --- the write path refuses what would lose data or write
# where e4time promises not to (issue 17): an undo path that names the
# image, an input, a device or a directory; bytes in use through a
# partition of a loop device or a second loop device on the same file;
# two writers through a file and a loop device; two images of the same
# base name; multiple-mount protection.  Every refusal is exit 16, one
# line naming what was refused, the image byte-identical, no undo file.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools e2undo debugfs flock losetup python3 || return 1
	unpack ext4-4k >/dev/null || return 1
	BASE_SUM=$(sha256sum <"$TMP/ext4-4k.img")
	probe_mount
	LOOPS=()
	HOLDERS=()
}

suite_teardown() {
	local l
	grep -q " $TMP/" /proc/self/mounts 2>/dev/null &&
		grep " $TMP/" /proc/self/mounts | awk '{print $2}' |
		sort -r | xargs -r -n1 umount 2>/dev/null
	for l in "${HOLDERS[@]}"; do kill "$l" 2>/dev/null; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
}

# fresh: a new copy of the image in $IMG, an empty undo directory.
fresh() {
	fresh_undo_dir
	IMG="$TMP/w.img"
	cp "$TMP/ext4-4k.img" "$IMG"
}

# refused WHAT TEXT: the last run was refused (16) with one line holding
# TEXT, wrote no undo file, and left $IMG as it was.
refused() {
	assertEquals "$1: status: $(cat "$ERR")" 16 "$RC"
	assertEquals "$1: one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "$1" "$(cat "$ERR")" "$2"
	assertEquals "$1: no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
}

unchanged() {
	assertEquals "$1: the image is unchanged" "$BASE_SUM" \
		"$(sha256sum <"${2:-$IMG}")"
}

# loop ARGS...: losetup -f --show ARGS, remembered for the tear-down.
loop() {
	local l
	l=$(losetup -f --show "$@") || return 1
	LOOPS+=("$l")
	echo "$l"
}

unloop() {
	losetup -d "$1"
}

need_loops() {
	[ "$CAN_MOUNT" = 1 ] && return 0
	skip_test "cannot loop-mount here"
	return 1
}

# --- 1: -z never replaces what is not an undo file -----------------------

test_undo_file_is_the_image() {
	fresh
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$IMG"
	refused "-z IMAGE" "$IMG: refusing to write: undo file $IMG: Is the image"
	unchanged "-z IMAGE"
	ln "$IMG" "$TMP/hardlink.img"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/hardlink.img"
	refused "-z a hard link of the image" "Is the image"
	unchanged "-z a hard link"
	rm -f "$TMP/hardlink.img"
}

test_undo_file_is_the_manifest() {
	fresh
	printf '{"e4time_manifest":1}\n{"path":"/hello.txt","crtime":{"sec":86400,"nsec":0}}\n' \
		>"$TMP/m.manifest"
	cp "$TMP/m.manifest" "$TMP/m.copy"
	run import "$IMG" "$TMP/m.manifest" -z "$TMP/m.manifest"
	refused "-z MANIFEST" "undo file $TMP/m.manifest: Is the image, or a file this command reads"
	unchanged "-z MANIFEST"
	assertTrue "the manifest is intact" "cmp -s '$TMP/m.manifest' '$TMP/m.copy'"
}

test_undo_file_is_another_file() {
	fresh
	echo "my notes" >"$TMP/notes.txt"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/notes.txt"
	refused "-z a text file" "undo file $TMP/notes.txt: Exists and is not an e2undo file"
	assertEquals "the file is intact" "my notes" "$(cat "$TMP/notes.txt")"
	unchanged "-z a text file"
}

test_undo_file_is_a_device() {
	fresh
	mknod "$TMP/null" c 1 3 || { fail "mknod"; return; }
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/null"
	refused "-z CHARDEV" "undo file $TMP/null: Not a regular file"
	assertTrue "still a character device" "[ -c '$TMP/null' ]"
	unchanged "-z CHARDEV"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z /dev/null
	refused "-z /dev/null" "undo file /dev/null: Not a regular file"
	assertTrue "/dev/null is still a character device" "[ -c /dev/null ]"
	unchanged "-z /dev/null"
}

# An undo file of an earlier run is replaced, as e2fsprogs does.
test_undo_file_replaces_an_undo_file() {
	fresh
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/u"
	assertEquals "first: $(cat "$ERR")" 0 "$RC"
	run set "$IMG" /hello.txt --crtime 2001-01-01 -z "$TMP/u"
	assertEquals "second: $(cat "$ERR")" 0 "$RC"
	e2undo "$TMP/u" "$IMG" >/dev/null 2>&1
	run stat "$IMG" /hello.txt
	assertContains "the second run's undo file" "$(cat "$OUT")" \
		"crtime: 2000-01-01T00:00:00.000000000Z"
	rm -f "$TMP/u"
}

# --- 6: every undo path is checked before the first write ----------------

test_undo_file_is_a_directory() {
	fresh
	mkdir -p "$TMP/somedir"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/somedir"
	refused "-z DIR" "undo file $TMP/somedir: Cannot create the undo file there: Is a directory"
	unchanged "-z DIR"
	assertEquals "the directory is empty" "" "$(ls "$TMP/somedir")"
}

test_undo_file_in_a_missing_directory() {
	fresh
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z /nonexistent/u
	refused "-z /nonexistent/u" "undo file /nonexistent/u: Cannot create the undo file there: No such file or directory"
	unchanged "-z /nonexistent/u"
}

test_undo_dir_is_a_file() {
	fresh
	: >"$TMP/plainfile"
	E2FSPROGS_UNDO_DIR="$TMP/plainfile" run set "$IMG" /hello.txt \
		--crtime 2000-01-01
	refused "E2FSPROGS_UNDO_DIR=FILE" "undo directory $TMP/plainfile: No writable undo directory"
	assertContains "$(cat "$ERR")" ": Not a directory"
	unchanged "E2FSPROGS_UNDO_DIR=FILE"
}

test_undo_dir_read_only() {
	fresh
	mkdir -p "$TMP/ro"
	mount -t tmpfs -o ro,size=4m tmpfs "$TMP/ro" 2>/dev/null || {
		skip_test "cannot mount a tmpfs here"
		return
	}
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/ro/u"
	umount "$TMP/ro"
	refused "-z on a read-only filesystem" "undo file $TMP/ro/u: Cannot create the undo file there: Read-only file system"
	unchanged "-z read-only"
}

# --- 3: two images of one base name never share an undo file ------------

test_same_base_name_at_once() {
	fresh
	mkdir -p "$TMP/a" "$TMP/b"
	cp "$IMG" "$TMP/a/w.img"
	cp "$IMG" "$TMP/b/w.img"
	"$E4TIME" set "$TMP/a/w.img" /hello.txt --crtime 2000-01-01 \
		>"$TMP/a.out" 2>"$TMP/a.err" &
	local pa=$!
	"$E4TIME" set "$TMP/b/w.img" /hello.txt --crtime 2001-01-01 \
		>"$TMP/b.out" 2>"$TMP/b.err"
	local rb=$?
	wait $pa
	local ra=$?
	check_reports "two runs at once"
	assertEquals "a: $(cat "$TMP/a.err")" 0 $ra
	assertEquals "b: $(cat "$TMP/b.err")" 0 $rb
	assertEquals "two undo files" 2 "$(ls "$E2FSPROGS_UNDO_DIR" | wc -l)"
	assertNotEquals "named apart" "$(default_undo "$TMP/a/w.img")" \
		"$(default_undo "$TMP/b/w.img")"
	e2undo "$(default_undo "$TMP/a/w.img")" "$TMP/a/w.img" >/dev/null 2>&1
	assertEquals "a restored" 0 $?
	e2undo "$(default_undo "$TMP/b/w.img")" "$TMP/b/w.img" >/dev/null 2>&1
	assertEquals "b restored" 0 $?
	unchanged "a" "$TMP/a/w.img"
	unchanged "b" "$TMP/b/w.img"
	rm -rf "$TMP/a" "$TMP/b"
}

# A NAME.new that a live process holds is never removed.
test_held_undo_new_is_left_alone() {
	fresh
	: >"$TMP/u.new"
	flock -o "$TMP/u.new" sleep 30 &
	local holder=$!
	sleep 0.3
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/u"
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	refused "held NAME.new" "undo file $TMP/u.new: Another e4time is writing this undo file"
	assertTrue "NAME.new is still there" "[ -e '$TMP/u.new' ]"
	unchanged "held NAME.new"
	# Let go, and the empty NAME.new is taken over.
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/u"
	assertEquals "after: $(cat "$ERR")" 0 "$RC"
	assertFalse "NAME.new renamed" "[ -e '$TMP/u.new' ]"
	rm -f "$TMP/u"
}

# --- 2: the same bytes mounted under another name -----------------------

# A GPT disk image, the filesystem in partition 1 (sector 2048).
make_disk() {
	DISK="$TMP/disk.img"
	truncate -s 40M "$DISK"
	printf 'label: gpt\nstart=2048, size=65536\n' |
		sfdisk -q "$DISK" >/dev/null 2>&1 || return 1
	dd if="$TMP/ext4-4k.img" of="$DISK" bs=512 seek=2048 conv=notrunc \
		status=none
}

# part_node LOOP: a node for LOOP's first partition (made here: no udev).
part_node() {
	local n=${1#/dev/} i
	for i in $(seq 1 25); do
		[ -e "/sys/block/$n/${n}p1/dev" ] && break
		partx -u "$1" >/dev/null 2>&1
		sleep 0.2
	done
	[ -e "/sys/block/$n/${n}p1/dev" ] || return 1
	rm -f "$TMP/${n}p1"
	mknod "$TMP/${n}p1" b $(tr : ' ' <"/sys/block/$n/${n}p1/dev") &&
		echo "$TMP/${n}p1"
}

test_partition_of_a_loop_device_mounted() {
	need_loops || return
	command -v sfdisk >/dev/null && command -v partx >/dev/null || {
		skip_test "sfdisk or partx missing"
		return
	}
	fresh_undo_dir
	make_disk || { fail "sfdisk"; return; }
	local sum l p
	sum=$(sha256sum <"$DISK")
	l=$(loop -P "$DISK") || { fail "losetup -P"; return; }
	p=$(part_node "$l") || { fail "no partition on $l"; unloop "$l"; return; }
	# ro,noload: the kernel writes nothing, so the bytes must not move.
	mount -o ro,noload "$p" "$MNT" || { fail "mount $p"; unloop "$l"; return; }
	run set -o 2048 "$DISK" /hello.txt --crtime 2000-01-01
	refused "the disk image at -o 2048" "is mounted on $MNT: Filesystem is mounted"
	run set "$l" -o 2048 /hello.txt --crtime 2000-01-01
	refused "the loop device at -o 2048" "is mounted on $MNT"
	run set "$p" /hello.txt --crtime 2000-01-01
	refused "the partition" "refusing to write: "
	assertContains "$(cat "$ERR")" "Filesystem is mounted"
	umount "$MNT"
	assertEquals "the disk image is unchanged" "$sum" "$(sha256sum <"$DISK")"
	# Mounted read-write, the same.
	mount "$p" "$MNT" || { fail "mount rw"; unloop "$l"; return; }
	run set -o 2048 "$DISK" /hello.txt --crtime 2000-01-01
	refused "rw: the disk image" "is mounted on $MNT"
	umount "$MNT"
	# Unmounted: written, and e2undo gives the image back.
	sum=$(sha256sum <"$DISK")
	run set -o 2048 "$DISK" /hello.txt --crtime 2000-01-01 -z "$TMP/du"
	assertEquals "unmounted: $(cat "$ERR")" 0 "$RC"
	unloop "$l"
	e2undo -o 1048576 "$TMP/du" "$DISK" >/dev/null 2>&1
	assertEquals "restored" "$sum" "$(sha256sum <"$DISK")"
	rm -f "$DISK" "$TMP/du" "$p"
}

# Writing partition 1 while partition 2 (other bytes) is mounted is fine.
test_other_partition_mounted() {
	need_loops || return
	command -v sfdisk >/dev/null && command -v partx >/dev/null || {
		skip_test "sfdisk or partx missing"
		return
	}
	fresh_undo_dir
	DISK="$TMP/disk2.img"
	truncate -s 80M "$DISK"
	printf 'label: gpt\nstart=2048, size=65536\nstart=67584, size=65536\n' |
		sfdisk -q "$DISK" >/dev/null 2>&1 || { fail "sfdisk"; return; }
	dd if="$TMP/ext4-4k.img" of="$DISK" bs=512 seek=2048 conv=notrunc status=none
	dd if="$TMP/ext4-4k.img" of="$DISK" bs=512 seek=67584 conv=notrunc status=none
	local l
	l=$(loop -o $((67584 * 512)) --sizelimit $((65536 * 512)) "$DISK") ||
		{ fail "losetup"; return; }
	mount -o ro,noload "$l" "$MNT" || { fail "mount"; unloop "$l"; return; }
	run set -o 2048 "$DISK" /hello.txt --crtime 2000-01-01 -z "$TMP/du"
	assertEquals "partition 1 is written: $(cat "$ERR")" 0 "$RC"
	run set -o 67584 "$DISK" /hello.txt --crtime 2000-01-01 -z "$TMP/du2"
	refused "partition 2" "$l is mounted on $MNT"
	umount "$MNT"
	unloop "$l"
	rm -f "$DISK" "$TMP/du" "$TMP/du2"
}

test_second_loop_device_on_the_same_file() {
	need_loops || return
	fresh
	local l1 l2
	l1=$(loop "$IMG") || { fail "losetup"; return; }
	mount -o ro,noload "$l1" "$MNT" || { fail "mount"; unloop "$l1"; return; }
	l2=$(loop "$IMG") || { fail "losetup 2"; umount "$MNT"; unloop "$l1"; return; }
	run set "$l2" /hello.txt --crtime 2000-01-01
	refused "the second loop device" "$l2: refusing to write: $l1 is mounted on $MNT"
	run set "$IMG" /hello.txt --crtime 2000-01-01
	refused "the file" "$l1 is mounted on $MNT"
	umount "$MNT"
	unloop "$l2"
	unloop "$l1"
	unchanged "second loop device"
}

# --- 7: one writer at a time, whatever name the bytes are reached by ----

test_lock_through_a_loop_device() {
	need_loops || return
	fresh
	local l holder
	l=$(loop "$IMG") || { fail "losetup"; return; }
	# A writer through the file holds the file's lock...
	flock -o "$IMG" sleep 30 &
	holder=$!
	sleep 0.3
	run set "$l" /hello.txt --crtime 2000-01-01
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	refused "the loop device while the file is locked" \
		"$l: refusing to write: Another e4time is writing to this image"
	# ...and a writer through the device holds it exclusively.
	python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(30)' "$l" >"$TMP/held" &
	holder=$!
	for _ in $(seq 1 50); do grep -q held "$TMP/held" && break; sleep 0.1; done
	run set "$IMG" /hello.txt --crtime 2000-01-01
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	refused "the file while the device is claimed" \
		"$l is in exclusive use"
	unloop "$l"
	unchanged "lock through a loop device"
}

# --- multiple-mount protection ------------------------------------------

test_mmp_in_use() {
	need_loops || return
	fresh_undo_dir
	local img="$TMP/mmp.img"
	rm -f "$img"
	mkfs.ext4 -q -F -O mmp "$img" 16M >/dev/null 2>&1 || { fail "mkfs"; return; }
	mount -o loop "$img" "$MNT" || { fail "mount"; return; }
	# A copy taken while mounted: its MMP block says in use.
	cp "$img" "$TMP/mmp-copy.img"
	umount "$MNT"
	local sum
	sum=$(sha256sum <"$TMP/mmp-copy.img")
	run set "$TMP/mmp-copy.img" '<2>' --crtime 2000-01-01
	refused "MMP in use" "refusing to write: MMP: in use on node '$(uname -n)'"
	assertContains "$(cat "$ERR")" "Multiple-mount protection says the filesystem is in use"
	assertEquals "unchanged" "$sum" "$(sha256sum <"$TMP/mmp-copy.img")"
	# Cleanly unmounted: written.
	run set "$img" '<2>' --crtime 2000-01-01 -z "$TMP/mu"
	assertEquals "clean MMP: $(cat "$ERR")" 0 "$RC"
	rm -f "$img" "$TMP/mmp-copy.img" "$TMP/mu"
}

# --- issue 24: mounts no loop device shows, processes holding the file ---

# fuse_mount IMAGE OPTS: fuse2fs IMAGE (as given: a relative name stays
# relative in mountinfo) on $MNT; FUSE_PID is its server.  Status 1, and
# the test skipped visibly, when FUSE cannot mount here.
fuse_mount() {
	local p
	FUSE_PID=
	if ! command -v fuse2fs >/dev/null || [ ! -c /dev/fuse ]; then
		skip_test "no fuse2fs or /dev/fuse here"
		return 1
	fi
	if ! fuse2fs "$1" "$MNT" -o "$2,fakeroot" >"$TMP/fuse.out" 2>&1; then
		skip_test "fuse2fs cannot mount here: $(head -1 "$TMP/fuse.out")"
		return 1
	fi
	for p in $(pgrep -x fuse2fs); do
		ls -l "/proc/$p/fd" 2>/dev/null | grep -q -- "-> $TMP/" &&
			FUSE_PID=$p
	done
	[ -n "$FUSE_PID" ] || fail "no fuse2fs server found"
}

# fuse_umount: unmount $MNT and wait for the server to have let go.
fuse_umount() {
	local i
	umount "$MNT"
	for i in $(seq 1 100); do
		[ -n "$FUSE_PID" ] && [ -d "/proc/$FUSE_PID" ] || break
		sleep 0.05
	done
}

# A FUSE mount read-write, its source relative (fuse2fs run in the
# image's directory): no loop device, no name to match.  set and check -y
# are refused, the image untouched.
test_fuse_mount_rw() {
	fresh
	cd "$TMP" || return
	fuse_mount w.img rw
	local rc=$? sum
	cd - >/dev/null || return
	[ $rc = 0 ] || return
	sum=$(sha256sum <"$IMG")
	run set "$IMG" /hello.txt --crtime 2001-01-01
	refused "set" "$IMG: refusing to write: FUSE server fuse2fs (PID $FUSE_PID) has $IMG open for writing (fd "
	assertContains "$(cat "$ERR")" "Filesystem is mounted"
	run check -y "$IMG"
	assertEquals "check -y: status: $(cat "$ERR")" 8 "$RC"
	assertContains "check -y" "$(cat "$ERR")" \
		"refusing to write: FUSE server fuse2fs (PID $FUSE_PID)"
	assertEquals "check -y: no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
	assertEquals "the mounted image is untouched" "$sum" "$(sha256sum <"$IMG")"
	fuse_umount
}

# Read-only, by a relative name e4time's directory does not resolve: the
# FUSE server holding the file (and /dev/fuse) is what tells.
test_fuse_mount_ro() {
	fresh
	cd "$TMP" || return
	fuse_mount w.img ro
	local rc=$?
	cd / || return
	[ $rc = 0 ] || { cd - >/dev/null; return; }
	run set "$IMG" /hello.txt --crtime 2001-01-01
	cd - >/dev/null || return
	refused "ro" "$IMG: refusing to write: FUSE server fuse2fs (PID $FUSE_PID) has $IMG open read-only (fd "
	fuse_umount
	unchanged "fuse ro"
}

# Mounted by another name of the same file: its mountinfo source, stat()ed,
# is the image.
test_fuse_mount_by_another_name() {
	local how src n=0
	for how in hard symlink; do
		fresh
		src="$TMP/other-name.img"
		rm -f "$src"
		if [ $how = hard ]; then
			ln "$IMG" "$src"
		else
			ln -s "$IMG" "$src"
		fi
		fuse_mount "$src" ro || return
		run set "$IMG" /hello.txt --crtime 2001-01-01
		refused "$how link" "$IMG: refusing to write: $src is mounted on $MNT (fuse.ext4)"
		fuse_umount
		unchanged "$how link"
		rm -f "$src"
		n=$((n + 1))
	done
	assertEquals "cases run" 2 "$n"
}

# A process with the file open for writing (a VM on the raw file, dd):
# refused, naming it; open read-only, it is no writer.
test_process_holding_the_image() {
	fresh
	local holder
	sleep 30 7<>"$IMG" &
	holder=$!
	sleep 0.2
	run set "$IMG" /hello.txt --crtime 2001-01-01
	refused "held O_RDWR" "$IMG: refusing to write: sleep (PID $holder) has $IMG open for writing (fd 7): Image is open for writing in another process"
	run set -n "$IMG" /hello.txt --crtime 2001-01-01
	refused "held O_RDWR, -n" "sleep (PID $holder) has $IMG open for writing"
	kill $holder
	wait $holder 2>/dev/null
	unchanged "held O_RDWR"
	sleep 30 7<"$IMG" &
	holder=$!
	sleep 0.2
	run set "$IMG" /hello.txt --crtime 2001-01-01 -z "$TMP/ru"
	assertEquals "held O_RDONLY is written: $(cat "$ERR")" 0 "$RC"
	kill $holder
	wait $holder 2>/dev/null
	rm -f "$TMP/ru"
}

# The same through a loop device: a process writing /dev/loopN writes the
# image's bytes.
test_process_holding_a_loop_device() {
	need_loops || return
	fresh
	local l holder
	l=$(loop "$IMG") || { fail "losetup"; return; }
	sleep 30 7<>"$l" &
	holder=$!
	sleep 0.2
	run set "$IMG" /hello.txt --crtime 2001-01-01
	refused "the file" "$IMG: refusing to write: sleep (PID $holder) has $l open for writing (fd 7)"
	run set "$l" /hello.txt --crtime 2001-01-01
	refused "the device" "$l: refusing to write: sleep (PID $holder) has $l open for writing (fd 7)"
	kill $holder
	wait $holder 2>/dev/null
	unloop "$l"
	unchanged "loop device held"
}

# The name swapped between the checks and the write (mv a.img a.orig;
# ln other.img a.img): the file checked is the file written, and a mounted
# other.img is left alone.
test_name_swapped_before_the_write() {
	need_loops || return
	[ "${E4T_TEST_HOOKS:-}" = yes ] || {
		skip_test "e4time built without --enable-test-hooks"
		return
	}
	fresh
	local other="$TMP/other.img" pid stopped osum
	cp "$TMP/ext4-4k.img" "$other"
	mount -o ro,noload "$other" "$MNT" || { fail "mount"; return; }
	osum=$(sha256sum <"$other")
	E4TIME_TEST_STOP_BEFORE_WRITE_OPEN=1 "$E4TIME" set -z "$TMP/su" \
		"$IMG" /hello.txt --crtime 2001-01-01 >/dev/null 2>"$TMP/race.err" &
	pid=$!
	stopped=$(wait_stopped "$pid") || {
		kill -KILL "$pid"
		umount "$MNT"
		fail "e4time did not stop before the write open"
		return
	}
	mv "$IMG" "$TMP/w.orig"
	ln "$other" "$IMG"
	kill -CONT "$stopped"
	wait "$pid"
	assertEquals "written: $(cat "$TMP/race.err")" 0 $?
	assertEquals "the mounted other file is untouched" "$osum" \
		"$(sha256sum <"$other")"
	assertNotEquals "the file checked got the write" "$BASE_SUM" \
		"$(sha256sum <"$TMP/w.orig")"
	umount "$MNT"
	e2undo "$TMP/su" "$TMP/w.orig" >/dev/null 2>&1
	unchanged "undone" "$TMP/w.orig"
	rm -f "$other" "$TMP/w.orig" "$TMP/su" "$IMG"
}

# --- issue 24: refusals that should not happen, and their messages ------

# two_parts: $DISK, a GPT disk image whose partitions 1 (sector 2048) and
# 2 (sector 67584) each hold ext4-4k, on a loop device with partitions
# ($PL); $P1 and $P2 their nodes (/dev/${PL}pN, or made here without
# udev).
two_parts() {
	DISK="$TMP/twoparts.img"
	rm -f "$DISK"
	truncate -s 80M "$DISK"
	printf 'label: gpt\nstart=2048, size=65536\nstart=67584, size=65536\n' |
		sfdisk -q "$DISK" >/dev/null 2>&1 || return 1
	dd if="$TMP/ext4-4k.img" of="$DISK" bs=512 seek=2048 conv=notrunc status=none &&
		dd if="$TMP/ext4-4k.img" of="$DISK" bs=512 seek=67584 conv=notrunc status=none ||
		return 1
	PL=$(loop -P "$DISK") || return 1
	P1=$(part_dev "$PL" 1) && P2=$(part_dev "$PL" 2)
}

# part_dev LOOP N: a node of LOOP's partition N.
part_dev() {
	local n=${1#/dev/} i num
	for i in $(seq 1 25); do
		[ -e "/sys/block/$n/${n}p$2/dev" ] && break
		partx -u "$1" >/dev/null 2>&1
		sleep 0.2
	done
	num=$(cat "/sys/block/$n/${n}p$2/dev" 2>/dev/null) || return 1
	for i in $(seq 1 25); do
		[ -b "/dev/${n}p$2" ] &&
			[ "$(stat -c '%t:%T' "/dev/${n}p$2")" = "$(printf '%x:%x' ${num%:*} ${num#*:})" ] &&
			{ echo "/dev/${n}p$2"; return 0; }
		sleep 0.1
	done
	rm -f "$TMP/${n}p$2"
	mknod "$TMP/${n}p$2" b ${num%:*} ${num#*:} && echo "$TMP/${n}p$2"
}

need_parts() {
	need_loops || return 1
	command -v sfdisk >/dev/null && command -v partx >/dev/null && return 0
	skip_test "sfdisk or partx missing"
	return 1
}

# hold DEV: a process that holds DEV open with O_EXCL, as mkfs or a mount
# in another namespace does; its pid in $HOLDER (killed by let_go).
hold() {
	rm -f "$TMP/held"
	python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(60)' "$1" >"$TMP/held" &
	HOLDER=$!
	HOLDERS+=("$HOLDER")
	for _ in $(seq 1 100); do grep -q held "$TMP/held" && return 0; sleep 0.1; done
	return 1
}

let_go() {
	kill "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
}

# btime FS PATH: the kernel's birth time of PATH, FS (a partition) mounted
# read-only with nothing replayed.
btime() {
	mkdir -p "$TMP/mnt2"
	mount -o ro,noload "$1" "$TMP/mnt2" || return 1
	stat -c %W "$TMP/mnt2/$2"
	umount "$TMP/mnt2"
}

# claimed_while_writing: a write to partition 2 through the disk image,
# its first pwrite held up by strace: meanwhile partition 2 (whose bytes
# it writes; the whole device, busy with partition 1, cannot be claimed)
# is claimed.
claimed_while_writing() {
	if ! command -v strace >/dev/null || [ "${P2#/dev/}" = "$P2" ]; then
		echo "SKIP: ${_shunit_test_}: the claim kept: no strace, or no /dev node for $P2"
		return
	fi
	local pid rc
	# LeakSanitizer cannot run under ptrace
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
		strace -f -o /dev/null -e trace=pwrite64 \
		-e inject=pwrite64:delay_enter=10000000:when=1 "$E4TIME" \
		set -o 67584 "$DISK" /hello.txt --crtime 1999-01-01 -z "$TMP/p2c" \
		>"$TMP/p2c.out" 2>"$TMP/p2c.err" &
	pid=$!
	# NAME.new is made after the claims (and the checks): wait for it,
	# however loaded the machine
	for _ in $(seq 1 600); do [ -e "$TMP/p2c.new" ] && break; sleep 0.05; done
	assertTrue "the undo file is being written" "[ -e '$TMP/p2c.new' ]"
	assertFalse "$P2 is claimed while written" \
		"python3 -c 'import os, sys; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)' '$P2' 2>/dev/null"
	assertTrue "still writing after the probe" "kill -0 $pid"
	wait $pid
	rc=$?
	assertEquals "the held-up write: $(cat "$TMP/p2c.err")" 0 $rc
	assertEquals "p2 written (the kernel's btime)" 915148800 "$(btime "$P2" hello.txt)"
}

# Partition 1 mounted: partition 2 is written, through the disk image at
# its offset and through its own node; partition 1 is not.
test_other_partition_of_a_loop_device_mounted() {
	need_parts || return
	fresh_undo_dir
	two_parts || { fail "two partitions on a loop device"; return; }
	mount "$P1" "$MNT" || { fail "mount $P1"; return; }
	echo "kept" >"$MNT/keep.txt"
	sync
	run set -o 67584 "$DISK" /hello.txt --crtime 2000-01-01 -z "$TMP/p2a"
	assertEquals "p2 through the image: $(cat "$ERR")" 0 "$RC"
	assertEquals "p2 written (the kernel's btime)" 946684800 "$(btime "$P2" hello.txt)"
	claimed_while_writing
	run set "$P2" /hello.txt --crtime 2001-01-01 -z "$TMP/p2b"
	assertEquals "p2 through $P2: $(cat "$ERR")" 0 "$RC"
	assertEquals "p2 written again" 978307200 "$(btime "$P2" hello.txt)"
	# Partition 1 itself is still refused, by both names.
	run set -o 2048 "$DISK" /hello.txt --crtime 2000-01-01 -z "$TMP/p1a"
	assertEquals "p1 through the image: refused" 16 "$RC"
	assertContains "p1 through the image" "$(cat "$ERR")" "$P1 is mounted on $MNT"
	run set "$P1" /hello.txt --crtime 2000-01-01 -z "$TMP/p1b"
	assertEquals "p1 through $P1: refused" 16 "$RC"
	assertContains "p1 through $P1" "$(cat "$ERR")" "Filesystem is mounted"
	assertFalse "no undo file for p1" "[ -e '$TMP/p1a' ] || [ -e '$TMP/p1b' ]"
	# Partition 1 stayed mounted and whole.
	assertTrue "p1 still mounted" "grep -q '^$P1 $MNT ' /proc/self/mounts"
	assertEquals "p1's file" "kept" "$(cat "$MNT/keep.txt")"
	umount "$MNT"
	e2fsck -fn "$P1" >"$TMP/fsck.out" 2>&1
	assertEquals "p1 is clean: $(cat "$TMP/fsck.out")" 0 $?
	unloop "$PL"
	rm -f "$DISK" "$TMP"/p2? "$TMP"/p1?
}

# The whole loop device claimed by another (no partition of it is): its
# partitions' bytes are in use.
test_whole_loop_device_claimed() {
	need_parts || return
	fresh_undo_dir
	two_parts || { fail "two partitions on a loop device"; return; }
	local sum
	sum=$(sha256sum <"$DISK")
	hold "$PL" || { fail "hold $PL"; let_go; unloop "$PL"; return; }
	run set -o 67584 "$DISK" /hello.txt --crtime 2000-01-01
	assertEquals "p2 through the image: refused" 16 "$RC"
	assertContains "p2 through the image" "$(cat "$ERR")" "$PL is in exclusive use"
	run set "$P2" /hello.txt --crtime 2000-01-01
	assertEquals "p2 through $P2: refused" 16 "$RC"
	let_go
	assertEquals "no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
	assertEquals "the disk is unchanged" "$sum" "$(sha256sum <"$DISK")"
	unloop "$PL"
	rm -f "$DISK"
}

# A logical volume of two segments with another volume between them: in
# use is what is in each segment, not what lies between.
test_two_segment_volume_with_the_gap_in_use() {
	need_loops || return
	command -v lvm >/dev/null || {
		skip_test "lvm tools missing"
		return
	}
	fresh_undo_dir
	local lvd="$TMP/lv.img" vg=e4ts$$ l cfg f pe root other r i=0 sum
	rm -f "$lvd"
	truncate -s 32M "$lvd"
	l=$(loop "$lvd") || { fail "losetup"; return; }
	f="\"a|^$l\$|\", \"r|.*|\""
	cfg="devices { filter=[ $f ] global_filter=[ $f ] use_devicesfile=0 obtain_device_list_from_udev=0 hints=\"none\" } activation { udev_sync=0 udev_rules=0 } backup { backup=0 archive=0 }"
	# root: extents 0 and 2; other: extent 1 (no device-mapper needed)
	lvm pvcreate "$l" --config "$cfg" >/dev/null 2>&1 &&
		lvm vgcreate -s 4M "$vg" "$l" --config "$cfg" >/dev/null 2>&1 &&
		lvm lvcreate --driverloaded n -an -Zn -n root -L 4M "$vg" --config "$cfg" >/dev/null 2>&1 &&
		lvm lvcreate --driverloaded n -an -Zn -n other -L 4M "$vg" --config "$cfg" >/dev/null 2>&1 &&
		lvm lvextend --driverloaded n -L +4M "$vg/root" --config "$cfg" >/dev/null 2>&1 ||
		{ fail "lvm"; unloop "$l"; return; }
	pe=$(lvm pvs --config "$cfg" --noheadings --units b --nosuffix -o pe_start "$l" 2>/dev/null | tr -d ' ')
	root=$(lvm lvs --config "$cfg" --noheadings --segments -o seg_pe_ranges "$vg/root" 2>/dev/null | tr -d ' ' | sed 's/.*://')
	other=$(lvm lvs --config "$cfg" --noheadings --segments -o seg_pe_ranges "$vg/other" 2>/dev/null | tr -d ' ' | sed 's/.*://')
	unloop "$l"
	assertEquals "root's segments" "0-0 2-2" "$(echo $root)"
	assertEquals "other between them" "1-1" "$other"
	# ext4-128 (8 MiB) into root's two segments
	unpack ext4-128 >/dev/null || { fail "unpack"; return; }
	for r in $root; do
		dd if="$TMP/ext4-128.img" of="$lvd" bs=4M skip=$i count=1 conv=notrunc \
			status=none oflag=seek_bytes seek=$((pe + ${r%-*} * 4194304))
		i=$((i + 1))
	done
	# "other" held exclusively, through a loop device over its bytes only
	l=$(loop -o $((pe + 4194304)) --sizelimit 4194304 "$lvd") || { fail "losetup other"; return; }
	hold "$l" || { fail "hold $l"; let_go; unloop "$l"; return; }
	run set --volume "$vg/root" --mtime 2001-01-01T00:00:00Z "$lvd" / -z "$TMP/lvu"
	assertEquals "root, with other in use: $(cat "$ERR")" 0 "$RC"
	let_go
	unloop "$l"
	run stat -f jsonl --volume "$vg/root" "$lvd" /
	assertEquals "root written" "2001-01-01T00:00:00.000000000Z" "$(jq -r .mtime.iso "$OUT")"
	# The bytes of root's second segment held: refused, nothing written.
	sum=$(sha256sum <"$lvd")
	l=$(loop -o $((pe + 2 * 4194304)) --sizelimit 4194304 "$lvd") || { fail "losetup seg 2"; return; }
	hold "$l" || { fail "hold $l"; let_go; unloop "$l"; return; }
	run set --volume "$vg/root" --mtime 2002-01-01T00:00:00Z "$lvd" / -z "$TMP/lvu2"
	let_go
	assertEquals "root's second segment in use: refused" 16 "$RC"
	assertContains "names it" "$(cat "$ERR")" "$l is in exclusive use"
	assertEquals "nothing written" "$sum" "$(sha256sum <"$lvd")"
	assertFalse "no undo file" "[ -e '$TMP/lvu2' ]"
	unloop "$l"
	rm -f "$lvd" "$TMP/lvu" "$TMP/ext4-128.img"
}

# -z naming the image by a name that resolves to it: it is the image
# (not "Less than 1.1 MiB free", /proc's room).
test_undo_file_is_the_image_by_proc_fd() {
	fresh
	ln -s "$IMG" "$TMP/link.img"
	exec 7<"$IMG"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z /proc/self/fd/7
	exec 7<&-
	refused "-z /proc/self/fd/7" "undo file /proc/self/fd/7: Is the image"
	unchanged "-z /proc/self/fd/7"
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/link.img"
	refused "-z a symbolic link to the image" "undo file $TMP/link.img: Is the image"
	unchanged "-z a symbolic link"
	rm -f "$TMP/link.img"
}

# A NAME.new that is no undo file (here a hard link to another image) is
# not called an undo file of an interrupted run, and is left as it is.
test_undo_new_that_is_not_an_undo_file() {
	fresh
	local other="$TMP/other.img" sum
	cp "$TMP/ext4-4k.img" "$other"
	ln "$other" "$TMP/u.new"
	sum=$(sha256sum <"$other")
	run set "$IMG" /hello.txt --crtime 2000-01-01 -z "$TMP/u"
	refused "NAME.new, another image" \
		"undo file $TMP/u.new: Exists and is not an e2undo file"
	assertNotContains "not an interrupted run's" "$(cat "$ERR")" "interrupted"
	assertEquals "the other image is untouched" "$sum" "$(sha256sum <"$other")"
	assertEquals "still its hard link" 2 "$(stat -c %h "$other")"
	assertFalse "no undo file" "[ -e '$TMP/u' ]"
	unchanged "NAME.new, another image"
	rm -f "$other" "$TMP/u.new"
}

. shunit2
