#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_check.sh --- e4time check, the fsck-style timestamp checker: each
# problem of lib/check/problem.c on an image the kernel wrote and then
# altered as real systems alter them (debugfs sif for encodings the
# kernel no longer writes, i_extra_isize as old kernels and tune2fs -I
# left it); -n leaves the image byte for byte; -p and -y fix; after each
# fix e2fsck -fn is clean, the kernel (a loop mount's stat) shows the
# intended times, a second check -n finds nothing, and e2undo with the
# printed undo file gives back the image byte for byte.  e2fsck's exit
# statuses, the questions on a terminal (a pty), SIGINT, kills at write
# points (the test hook), the damaged corpus, JSON lines.
. "$TOP_SRCDIR/tests/lib.sh"
# sif and shrink (the case directories' helpers); retry, need_mount and
# mkimg are this suite's own, below
# shellcheck source=tests/cases/helpers.sh
. "$TOP_SRCDIR/tests/cases/helpers.sh"

suite_setup() {
	require_tools mkfs.ext4 mkfs.ext3 tune2fs e2fsck e2undo debugfs jq \
		python3 sha256sum || return 1
	unpack samba-dosattrib >/dev/null || return 1
	probe_mount
}

per_test_setup() {
	fresh_undo_dir
	IMG="$TMP/t.img"
	rm -f "$IMG"
}

# retry CMD...: CMD, up to five times a second apart, quietly.
retry() {
	local i
	for i in 1 2 3 4 5; do
		"$@" >"$TMP/retry.log" 2>&1 && return 0
		sleep 1
	done
	cat "$TMP/retry.log"
	return 1
}

# has PATH WHAT: $OUT has a problem line "PATH <INO>: WHAT".
has() {
	grep -qE "^$1 <[0-9]+>: $2" "$OUT"
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] && return 0
	skip_test "loop mounts do not work here"
	return 1
}

# mkimg MKFS_ARGS...: $IMG, 16 MiB, made by mkfs with those arguments,
# then files a, b, d/c written by the kernel (b with a small xattr).
mkimg() {
	truncate -s 16M "$IMG" && "$@" -q -F "$IMG" >/dev/null 2>&1 &&
		mount -o loop "$IMG" "$MNT" || return 1
	# b's xattr first, then its data: the write sets its mtime and
	# ctime to one instant (a setxattr after it would leave ctime later
	# than mtime, by seconds on a loaded machine: then T0006 refuses
	# --crtime-from ctime)
	mkdir "$MNT/d" && echo a >"$MNT/a" && : >"$MNT/b" &&
		python3 -c "import os,sys; os.setxattr(sys.argv[1], 'user.test', b'hello')" \
			"$MNT/b" &&
		echo b >"$MNT/b" && echo c >"$MNT/d/c"
	umount "$MNT"
}


# kstat FMT PATH...: stat -c FMT on a read-only loop mount of $IMG.
kstat() {
	local fmt="$1"
	shift
	mount -o loop,ro "$IMG" "$MNT" || return 1
	(cd "$MNT" && stat -c "$fmt" "$@")
	umount "$MNT"
}

# kns PATH...: each PATH's atime, mtime, ctime and crtime as the kernel
# gives them (statx on a read-only loop mount of $IMG), in nanoseconds:
# seconds * 10^9 + nanoseconds, the sum every program makes (stat -c %.9Y
# prints a tv_nsec of 10^9 or more as it comes).
kns() {
	local line v out
	mount -o loop,ro "$IMG" "$MNT" || return 1
	for line in $(cd "$MNT" && stat -c '%n=%.9X=%.9Y=%.9Z=%.9W' "$@"); do
		out="${line%%=*}"
		line="${line#*=}"
		for v in ${line//=/ }; do
			out+=" $((${v%.*} * 1000000000 + 10#${v#*.}))"
		done
		echo "$out"
	done
	umount "$MNT"
}

# after_fix WHAT ORIG: e2fsck -fn clean, a second check -n finds
# nothing (0), and e2undo with the undo file gives back ORIG.
after_fix() {
	local what="$1" orig="$2" undo
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	assertEquals "$what: e2fsck -fn: $(tail -3 "$TMP/fsck")" 0 $?
	run_ro "$IMG" check -n "$IMG"
	assertEquals "$what: second check -n: $(cat "$OUT")" 0 "$RC"
	undo=$(default_undo "$IMG")
	assertTrue "$what: undo file $undo" "[ -s '$undo' ]"
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertTrue "$what: e2undo gives back the image" "cmp -s '$orig' '$IMG'"
}

test_clean_kernel_image_is_clean() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "status: $(cat "$OUT" "$ERR")" 0 "$RC"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left), 0 warnings"
	run_ro "$IMG" check -p "$IMG"
	assertEquals "preen on a clean image: $(cat "$ERR")" 0 "$RC"
}

test_nsec_out_of_range_preen() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	local before
	# 0xEE6B2800 >> 2 = 10^9 exactly; epoch bits 0
	sif /a mtime_extra 0xEE6B2800
	sif /d/c atime_extra 0xFFFFFFFC
	# 2038-01-19T03:14:07 and 1 s: carried into the 2038 epoch (its bit)
	sif /b ctime 0x7FFFFFFF ctime_extra 0xEE6B2800
	# d: ctime :09 and 10^9 ns, which the kernel shows as :10; crtime
	# :10, equal to it (dropping the excess would make ctime :09, and
	# crtime later than it: T0005)
	sif /d ctime 0x5F000009 ctime_extra 0xEE6B2800 \
		crtime 0x5F00000A crtime_extra 0 \
		mtime 0x5F000008 mtime_extra 0 atime 0x5F000008 atime_extra 0
	cp "$IMG" "$TMP/orig.img"
	before=$(kns a b d d/c) || fail "mount"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: uncorrected: $(cat "$OUT")" 4 "$RC"
	assertTrue "/a: T0001 mtime" "has '/a' 'T0001 mtime'"
	assertTrue "/b: T0001 ctime" "has '/b' 'T0001 ctime'"
	assertTrue "/d: T0001 ctime" "has '/d' 'T0001 ctime'"
	assertNotContains "no T0005 on what the kernel shows" "$(cat "$OUT")" \
		"T0005"
	assertContains "$(cat "$OUT")" "/d/c <"
	assertContains "$(cat "$OUT")" "-> 2038-01-19T03:14:08.000000000Z.  Carry nanoseconds into seconds? no"
	run check -p "$IMG"
	assertEquals "-p: corrected: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertEquals "4 fixes" 4 \
		"$(grep -c 'Carry nanoseconds into seconds? yes$' "$OUT")"
	assertContains "$(cat "$ERR")" "e2undo"
	# the kernel: every time as it showed it before the fix
	assertEquals "the kernel's times" "$before" "$(kns a b d d/c)"
	assertEquals "2038 + 1 s: epoch bit 1 (debugfs)" \
		" ctime: 0x80000000:00000001" \
		"$(debugfs -R 'stat /b' "$IMG" 2>/dev/null | grep '^ ctime:' | cut -c1-27)"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "second -n: no problem: $(cat "$OUT")" 0 "$RC"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left)"
	after_fix "T0001" "$TMP/orig.img"
}

test_pre1970_old_encoding_as_e2fsck() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	# 1901-12-13T20:46:08Z written by a kernel before 4.4: epoch bits 3
	sif /a ctime 0x80000010 ctime_extra 0x00000003 \
		crtime 0x80000010 crtime_extra 0x00000003
	cp "$IMG" "$TMP/orig.img"
	# e2fsck -n says so too (and exits 0: its "no" is fine there)
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	assertContains "e2fsck sees it too" "$(cat "$TMP/fsck")" "likely pre-1970"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: $(cat "$OUT")" 4 "$RC"
	assertContains "$(cat "$OUT")" "T0002 ctime"
	assertContains "$(cat "$OUT")" "T0002 crtime"
	assertContains "$(cat "$OUT")" "2310-04-04T"
	run check -p "$IMG"
	assertEquals "-p: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "1901-12-13T20:46:08.000000000Z"
	assertEquals "the kernel reads 1901" \
		"-2147483632 -2147483632.000000000" "$(kstat '%Z %.9W' a)"
	after_fix "T0002" "$TMP/orig.img"
}

test_crtime_unset_and_after_ctime() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	sif /a crtime 0 crtime_extra 0
	sif /b crtime 0x7fffff00 crtime_extra 0
	cp "$IMG" "$TMP/orig.img"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: $(cat "$OUT")" 4 "$RC"
	assertTrue "/a: T0004 crtime" "has '/a' 'T0004 crtime'"
	assertTrue "/b: T0005 crtime" "has '/b' 'T0005 crtime'"
	assertContains "$(cat "$OUT")" "(needs --crtime-from)"
	# -y without a source: nothing to write, problems left
	run_ro "$IMG" check -y "$IMG"
	assertEquals "-y, no source: $(cat "$OUT")" 4 "$RC"
	# preen never sets crtime
	run_ro "$IMG" check -p --crtime-from ctime "$IMG"
	assertEquals "-p --crtime-from: $(cat "$OUT")" 4 "$RC"
	run check -y --crtime-from ctime "$IMG"
	assertEquals "-y --crtime-from ctime: $(cat "$OUT" "$ERR")" 1 "$RC"
	local line
	for line in $(kstat '%n=%.9W=%.9Z' a b); do
		IFS== read -r n w z <<<"$line"
		assertEquals "$n: crtime is ctime (kernel)" "$z" "$w"
	done
	after_fix "T0004/T0005" "$TMP/orig.img"
}

test_crtime_after_mtime_is_a_warning() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	mount -o loop "$IMG" "$MNT" && touch -m -d 2001-01-01 "$MNT/a" &&
		umount "$MNT"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "a warning: $(cat "$OUT")" 0 "$RC"
	assertTrue "/a: T0006 crtime" "has '/a' 'T0006 crtime'"
	run_ro "$IMG" check -n --strict "$IMG"
	assertEquals "--strict" 4 "$RC"
	run_ro "$IMG" check -n --mtime-tolerance 1000000000 "$IMG"
	assertNotContains "$(cat "$OUT")" "T0006"
	# a warning: -y leaves it, whatever --crtime-from says
	run_ro "$IMG" check -y --crtime-from earliest "$IMG"
	assertEquals "-y: nothing written: $(cat "$OUT" "$ERR")" 0 "$RC"
	assertContains "$(cat "$OUT")" "(a warning: fixed only with --fix T0006)"
	# ctime is later than mtime: only earliest (or mtime) fixes it
	run_ro "$IMG" check -y --strict --fix T0006 --crtime-from ctime "$IMG"
	assertContains "$(cat "$OUT")" "the source time is later"
	cp "$IMG" "$TMP/orig.img"
	run check -y --fix T0006 --crtime-from earliest "$IMG"
	assertEquals "earliest: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left), 1 warnings (1 fixed)"
	assertEquals "crtime is mtime" "$(kstat '%Y' a)" "$(kstat '%W' a)"
	after_fix "T0006" "$TMP/orig.img"
}

# cp -p, rsync -t, tar x, any migration: a tree whose crtimes (the copy)
# are later than its mtimes (kept).  check -n: 0, warnings; -y changes
# nothing whatever --crtime-from says (byte for byte, no undo file);
# --fix T0006 is what changes them.
test_clean_dry_run_means_yes_changes_nothing() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	local i n=0 undo from
	mkdir -p "$TMP/src"
	for i in 1 2 3 4 5 6; do
		echo "$i" >"$TMP/src/f$i"
		touch -m -d "2001-01-0$i" "$TMP/src/f$i"
	done
	mount -o loop "$IMG" "$MNT" && cp -p "$TMP/src/"f? "$MNT/" &&
		umount "$MNT" || fail "cp -p"
	cp "$IMG" "$TMP/orig.img"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: clean: $(cat "$OUT")" 0 "$RC"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left), 6 warnings (0 fixed)"
	undo=$(default_undo "$IMG")
	for from in earliest mtime ctime; do
		rm -f "$undo"
		run check -y --crtime-from $from "$IMG"
		assertEquals "-y --crtime-from $from: $(cat "$OUT" "$ERR")" 0 "$RC"
		assertTrue "-y --crtime-from $from: the image byte for byte" \
			"cmp -s '$TMP/orig.img' '$IMG'"
		assertNotContains "-y --crtime-from $from" "$(cat "$OUT")" \
			"MODIFIED"
		assertNotContains "no undo file" "$(cat "$ERR")" "undo file"
		assertEquals "-y: each warning left, and says how to fix it" 6 \
			"$(grep -c '^/f[1-6] <[0-9]*>: T0006 crtime: .*(a warning: fixed only with --fix T0006)$' "$OUT")"
		n=$((n + 1))
	done
	assertEquals "runs" 3 "$n"
	run_ro "$IMG" check -p --fix T0006 --crtime-from earliest "$IMG"
	assertEquals "-p never fixes a warning" 0 "$RC"
	run_ro "$IMG" check -y --fix T0009 --crtime-from earliest "$IMG"
	assertEquals "another warning named: T0006 left" 0 "$RC"
	# named: the copies' birth times replaced by the older mtimes
	run check -y --fix crtime_after_mtime --crtime-from earliest -f jsonl "$IMG"
	assertEquals "--fix: $(cat "$ERR")" 1 "$RC"
	assertEquals "summary" '{"problems":0,"fixed":0,"left":0,"warnings":6,"warnings_fixed":6}' \
		"$(jq -c 'select(.record=="summary") | {problems, fixed, left, warnings, warnings_fixed}' "$OUT")"
	for i in 1 2 3 4 5 6; do
		assertEquals "f$i: crtime is mtime (kernel)" "$(kstat '%Y' f$i)" \
			"$(kstat '%W' f$i)"
	done
	after_fix "--fix T0006" "$TMP/orig.img"
	# --fix takes warnings with a fix only
	for from in T0001 T0007 T0010 bogus T0006,T0005; do
		run_ro "$IMG" check -n --fix $from "$IMG"
		assertEquals "--fix $from: usage (16)" 16 "$RC"
	done
	assertContains "$(cat "$ERR")" "--fix T0005: an error, not a warning"
	run_ro "$IMG" check -n --fix t0006,T0009 --fix extra_isize_small "$IMG"
	assertEquals "--fix: codes, names, lists" 0 "$RC"
}

# T0005 and T0006 of one inode: one crtime, written by the error's fix;
# the warning is fixed with it, and the counts add up.
test_summary_counts_add_up() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	mount -o loop "$IMG" "$MNT" && touch -m -d 2001-01-01 "$MNT/a" &&
		umount "$MNT"
	# /a: crtime (2012) later than ctime (2004) and mtime (2001); /b:
	# later than ctime only (mtime 2021); /d/c: a bad nsec; /d: a time
	# in 2038, later than the last write (T0007, never fixed)
	sif /a ctime 0x40000000 crtime 0x50000000 crtime_extra 0
	sif /b ctime 0x40000000 crtime 0x50000000 crtime_extra 0 \
		mtime 0x60000000
	sif /d/c atime 0x40000000 atime_extra 0xEE6B2800
	sif /d atime 0x7fffff00
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: $(cat "$OUT")" 4 "$RC"
	assertContains "$(cat "$OUT")" "3 problems (0 fixed, 3 left), 2 warnings (0 fixed)"
	run check -y --crtime-from earliest "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "3 problems (3 fixed, 0 left), 2 warnings (1 fixed)"
	assertTrue "/a's T0006 fixed with its T0005: $(cat "$OUT")" \
		"grep -q '^/a <[0-9]*>: T0006 crtime: .* -> 2001-01-01T00:00:00.000000000Z.  Set crtime? yes$' '$OUT'"
	run_ro "$IMG" check -n -f jsonl "$IMG"
	assertEquals "-n after: the warning left" \
		'{"problems":0,"fixed":0,"left":0,"warnings":1,"warnings_fixed":0}' \
		"$(jq -c 'select(.record=="summary") | {problems, fixed, left, warnings, warnings_fixed}' "$OUT")"
	assertEquals "it is T0007" '"T0007"' \
		"$(jq -c 'select(.record=="problem") | .code' "$OUT")"
}

test_future_times_warned_never_fixed() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	mount -o loop "$IMG" "$MNT" && touch -d 2099-01-01 "$MNT/b" &&
		umount "$MNT"
	run_ro "$IMG" check -y "$IMG"
	assertEquals "warnings only: $(cat "$OUT")" 0 "$RC"
	assertTrue "/b: T0007 atime" "has '/b' 'T0007 atime'"
	assertTrue "/b: T0007 mtime" "has '/b' 'T0007 mtime'"
	assertContains "$(cat "$OUT")" "2 warnings"
	run_ro "$IMG" check -n --strict "$IMG"
	assertEquals "--strict" 4 "$RC"
}

test_ext3_grow_keeps_xattrs() {
	need_mount || return 0
	mkimg mkfs.ext3 -I 256 || fail "image"
	# as kernels before 2.6.23 left them: i_extra_isize 4 with the
	# xattrs after it, and 0
	shrink /b 4 && shrink /a 0 || fail "shrink"
	cp "$IMG" "$TMP/orig.img"
	e2fsck -fn "$IMG" >/dev/null 2>&1
	assertEquals "e2fsck: the shrunk image is valid" 0 $?
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: $(cat "$OUT")" 4 "$RC"
	assertTrue "/a: T0003 crtime" "has '/a' 'T0003 crtime'"
	assertTrue "/b: T0003 crtime" "has '/b' 'T0003 crtime'"
	assertContains "$(cat "$OUT")" "i_extra_isize 4"
	run check -y --crtime-from mtime "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(debugfs -R 'stat /b' "$IMG" 2>/dev/null)" \
		"Size of extra inode fields: 32"
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	assertEquals "xattr intact (kernel)" "b'hello'" \
		"$(python3 -c "import os,sys; print(os.getxattr(sys.argv[1], 'user.test'))" "$MNT/b")"
	assertEquals "crtime of b is its mtime (kernel)" \
		"$(stat -c %Y "$MNT/b")" "$(stat -c %W "$MNT/b")"
	assertEquals "crtime of a is its mtime (kernel)" \
		"$(stat -c %Y "$MNT/a")" "$(stat -c %W "$MNT/a")"
	umount "$MNT"
	after_fix "T0003" "$TMP/orig.img"
}

test_grow_with_metadata_csum() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	shrink /b 4 && shrink /a 0 || fail "shrink"
	# the moved bytes need new inode checksums: e2fsck -fy writes them
	# (and accepts i_extra_isize 0 and 4)
	e2fsck -fy "$IMG" >/dev/null 2>&1
	e2fsck -fn "$IMG" >/dev/null 2>&1
	assertEquals "the shrunk ext4 is valid" 0 $?
	cp "$IMG" "$TMP/orig.img"
	run check -y --crtime-from ctime "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "2 problems (2 fixed, 0 left)"
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	assertEquals "xattr intact (kernel)" "b'hello'" \
		"$(python3 -c "import os,sys; print(os.getxattr(sys.argv[1], 'user.test'))" "$MNT/b")"
	assertEquals "crtime is ctime (kernel)" \
		"$(stat -c '%Z %Z' "$MNT/a" "$MNT/b")" \
		"$(stat -c '%W %W' "$MNT/a" "$MNT/b")"
	umount "$MNT"
	after_fix "T0003, metadata_csum" "$TMP/orig.img"
}

test_ext3_grow_moves_xattrs_to_a_block() {
	need_mount || return 0
	mkimg mkfs.ext3 -I 256 || fail "image"
	# b's xattr moved down with i_extra_isize 4, and one more written
	# in the room that gives (libext2fs places it in the inode): at 32
	# they no longer both fit
	shrink /b 4 || fail "shrink"
	debugfs -w -R "ea_set /b user.c 000000000000000000000000000000000000000000000000000000000007" \
		"$IMG" >/dev/null 2>&1
	assertContains "no xattr block yet" \
		"$(debugfs -R 'stat /b' "$IMG" 2>/dev/null)" "File ACL: 0"
	cp "$IMG" "$TMP/orig.img"
	run check -y --crtime-from mtime "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertNotContains "an xattr block now" \
		"$(debugfs -R 'stat /b' "$IMG" 2>/dev/null)" "File ACL: 0"
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	assertEquals "both xattrs (kernel)" \
		"b'hello' b'000000000000000000000000000000000000000000000000000000000007'" \
		"$(python3 -c "import os,sys; print(os.getxattr(sys.argv[1], 'user.test'), os.getxattr(sys.argv[1], 'user.c'))" "$MNT/b")"
	assertEquals "crtime of b is its mtime (kernel)" \
		"$(stat -c %Y "$MNT/b")" "$(stat -c %W "$MNT/b")"
	umount "$MNT"
	after_fix "T0003, xattr moved" "$TMP/orig.img"
}

# needs_recovery IMG: the superblock says a journal is to be replayed.
needs_recovery() {
	dumpe2fs -h "$1" 2>/dev/null |
		grep -q '^Filesystem features:.*needs_recovery'
}

# replay IMG: its journal replayed as e2fsck replays it (and nothing
# else); it needs no recovery after.
replay() {
	e2fsck -E journal_only -y "$1" >"$TMP/replay" 2>&1
	! needs_recovery "$1"
}

# kill_each_write MAX CHECK ARGS...: check -y ARGS on a copy of
# $TMP/orig.img, killed after its first write, then its second..., up to
# MAX or until it runs to its end (RC then its status); after each kill,
# the journal replayed when the image needs it (REPLAYED counts those;
# with KERNEL set, KERNEL N runs on a copy first, and mounts it), CHECK N
# (the writes made) looks at the image, then the undo file must restore
# the image as the kill left it.  KILLS: the kills.
kill_each_write() {
	local max=$1 check=$2 n
	shift 2
	KILLS=0
	REPLAYED=0
	KUNDO=$(default_undo "$IMG")
	# every write point; every third with E4T_QUICK=1 (the sanitizer
	# build of .ci/run: a killed process runs no code a finished one
	# does not), the other two thirds with E4T_SHARE=rest (CI's normal
	# build; tests/lib.sh, mine)
	local runs=0 want=0 k
	for n in $(seq 1 "$max"); do
		mine $((n - 1)) 3 || continue
		runs=$((runs + 1))
		kill_after "$n" "$@"
		[ "$RC" = 137 ] || break
		KILLS=$((KILLS + 1))
		after_kill "$n" "$check"
	done
	# this build's share of the points up to the last one run
	for ((k = 1; k <= n; k++)); do
		mine $((k - 1)) 3 && want=$((want + 1))
	done
	assertEquals "write points run (this build's share of 1..$n)" \
		"$want" "$runs"
}

# kill_after N ARGS...: check -y ARGS on a copy of $TMP/orig.img, killed
# after N writes (RC 137) or run to its end (RC its status).  KUNDO: the
# undo file's name.
kill_after() {
	local n=$1 undo=$KUNDO
	shift
	cp "$TMP/orig.img" "$IMG"
	rm -f "$undo" "$undo.new"
	(E4TIME_TEST_KILL_AFTER=$n "$E4TIME" check -y "$@" \
		"$IMG" >/dev/null 2>&1) 2>/dev/null
	RC=$?
}

# after_kill N CHECK: the image killed after N writes replayed if it
# needs it, CHECK N, then e2undo on the image as the kill left it.
after_kill() {
	local n=$1 check=$2 undo=$KUNDO
	cp "$IMG" "$TMP/killed.img"
	if needs_recovery "$IMG"; then
		REPLAYED=$((REPLAYED + 1))
		[ -n "${KERNEL:-}" ] && "$KERNEL" "$n"
		replay "$IMG"
		assertTrue "killed after $n writes: replayed: $(cat "$TMP/replay")" $?
	fi
	"$check" "$n"
	cp "$TMP/killed.img" "$IMG"
	# (empty: killed before its first save, so before any write)
	if [ -s "$undo.new" ]; then
		e2undo "$undo.new" "$IMG" >"$TMP/e2undo" 2>&1
		assertTrue "killed after $n writes: e2undo: $(cat "$TMP/e2undo")" $?
	fi
	assertTrue "killed after $n writes: e2undo" \
		"cmp -s '$TMP/orig.img' '$IMG'"
}

# After a kill: e2fsck -fn finds nothing.
after_kill_clean() {
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	assertEquals "killed after $1 writes: e2fsck: $(tail -3 "$TMP/fsck")" 0 $?
}

C60=000000000000000000000000000000000000000000000000000000000007

# mkmoving MKFS_ARGS...: $IMG by mkimg, /b's xattrs to move to a new
# block when it grows (T0003, shrunk to 4 with one more xattr that then
# fits, as in test_ext3_grow_moves_xattrs_to_a_block), and /a, /d with a
# bad mtime nsec (T0001): a batch of two inode-table blocks (1 KiB
# blocks) before the growth.
mkmoving() {
	mkimg "$@" || return 1
	shrink /b 4 || return 1
	# the moved bytes need new inode checksums (metadata_csum)
	e2fsck -fy "$IMG" >/dev/null 2>&1
	debugfs -w -R "ea_set /b user.c $C60" "$IMG" >/dev/null 2>&1
	sif /a mtime_extra 0xEE6B2800
	sif /d mtime_extra 0xEE6B2800
	e2fsck -fn "$IMG" >/dev/null 2>&1 &&
		debugfs -R 'stat /b' "$IMG" 2>/dev/null | grep -q "File ACL: 0"
}

# B_XATTRS: /b's xattrs as Python prints them.
B_XATTRS="b'hello' b'$C60'"

# After a kill (and the replay): /b has both xattrs; e2fsck -fn finds
# nothing, or, with LEAKS_OK set (no journal), at worst a leaked block
# (LEAKS counts them), never a block in use marked free.
after_kill_xattrs() {
	local n=$1 fsck xa
	xa=$(debugfs -R "ea_list /b" "$IMG" 2>/dev/null)
	assertContains "killed after $n writes: user.test" "$xa" "user.test"
	assertContains "killed after $n writes: user.c" "$xa" "user.c"
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	if [ $? != 0 ]; then
		fsck=$(grep -E '^ *[-+][0-9]|differences|count wrong|ACL|xattr|Inode|journal' "$TMP/fsck")
		LEAKS=$((LEAKS + 1))
		[ -n "${LEAKS_OK:-}" ] || {
			fail "killed after $n writes: e2fsck -fn: $fsck"
			return
		}
		assertNotContains "killed after $n writes: a block in use marked free: $fsck" \
			"$fsck" "+"
		assertNotContains "killed after $n writes: $fsck" "$fsck" "Inode"
	fi
}

# kernel_replays N: a copy of the image killed after N writes, mounted:
# the kernel replays the journal; /b has both xattrs, and, grown, its
# crtime is its mtime (KGROWN counts those); e2fsck -fn passes after.
kernel_replays() {
	local n=$1 k="$TMP/kernel.img" xa st
	cp "$IMG" "$k"
	mount -o loop "$k" "$MNT" || {
		fail "killed after $n writes: the kernel does not mount it"
		return
	}
	xa=$(python3 -c "import os,sys; print(os.getxattr(sys.argv[1], 'user.test'), os.getxattr(sys.argv[1], 'user.c'))" "$MNT/b" 2>&1)
	st=$(stat -c '%W %Y' "$MNT/b")
	umount "$MNT"
	KMOUNTS=$((KMOUNTS + 1))
	assertEquals "killed after $n writes, mounted: xattrs" "$B_XATTRS" "$xa"
	case $st in
	"0 "*) ;;
	*)
		KGROWN=$((KGROWN + 1))
		assertEquals "killed after $n writes, mounted: crtime is mtime" \
			"${st#* }" "${st% *}"
		;;
	esac
	assertFalse "killed after $n writes: the kernel recovered" \
		"needs_recovery '$k'"
	e2fsck -fn "$k" >"$TMP/fsck" 2>&1
	assertEquals "killed after $n writes, mounted: e2fsck -fn: $(tail -3 "$TMP/fsck")" \
		0 $?
}

# T0003 moving xattrs to a new block and a batch of two blocks, killed at
# every write, on journaled images of each kind of journal tag and
# checksum (ext4: csum v3, 64-bit tags; ^metadata_csum,^64bit: no
# checksums, 32-bit tags; ext3) and on one without a journal.  With a
# journal each change of several blocks is one jbd2 transaction
# (undo_io.c): after the replay no kill leaves anything for e2fsck, not
# even a leaked block, and the kernel replays it too (mounted); without
# one, the inode-table block is held back, and at worst a block is left
# marked in use with no owner (a leak e2fsck reclaims), never an xattr
# lost.  Before the journal path, a kill there leaked a block.
test_killed_while_moving_xattrs_to_a_block() {
	need_mount || return 0
	[ "${E4T_TEST_HOOKS:-}" = yes ] || {
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return 0
	}
	local kind mkfs ran=0
	for kind in ext4 ext4-32 ext3 ext2; do
		case $kind in
		ext4) mkfs=(mkfs.ext4 -I 256) ;;
		ext4-32) mkfs=(mkfs.ext4 -I 256 -O ^metadata_csum,^64bit) ;;
		ext3) mkfs=(mkfs.ext3 -I 256) ;;
		ext2) mkfs=(mkfs.ext2 -I 256) ;;
		esac
		rm -f "$IMG"
		mkmoving "${mkfs[@]}" || {
			fail "$kind: image"
			continue
		}
		cp "$IMG" "$TMP/orig.img"
		LEAKS=0 KMOUNTS=0 KGROWN=0
		LEAKS_OK='' KERNEL=''
		[ $kind = ext2 ] && LEAKS_OK=1
		[ $kind = ext4 ] && KERNEL=kernel_replays
		kill_each_write 100 after_kill_xattrs --crtime-from mtime
		ran=$((ran + 1))
		assertEquals "$kind: the run ends by itself" 1 "$RC"
		assertTrue "$kind: killed at some points ($KILLS)" "[ $KILLS -ge 4 ]"
		if [ $kind = ext2 ]; then
			assertEquals "$kind: no journal, nothing replayed" 0 "$REPLAYED"
		else
			assertEquals "$kind: no leaked block" 0 "$LEAKS"
			assertTrue "$kind: replayed after some kills ($REPLAYED)" \
				"[ $REPLAYED -ge 2 ]"
		fi
		if [ $kind = ext4 ]; then
			assertEquals "$kind: the kernel mounted each" "$REPLAYED" "$KMOUNTS"
			assertTrue "$kind: the kernel replayed the growth ($KGROWN)" \
				"[ $KGROWN -ge 1 ]"
		fi
		echo "check -y moving xattrs, $kind: killed at $KILLS write points, $REPLAYED replayed, $KMOUNTS mounted, $LEAKS left a leaked block"
	done
	assertEquals "kinds of image" 4 "$ran"
}

# Killed at random times (SIGKILL after a random delay, not at a write:
# in the middle of a system call too), 40 runs (20 with E4T_QUICK=1, the
# other 20 with E4T_SHARE=rest; the delays narrow onto the writes: most
# runs are killed in their middle, where 100 runs over the whole span
# once gave 12) on the ext4 image of
# test_killed_while_moving_xattrs_to_a_block: after the replay, both
# xattrs there and e2fsck -fn clean every time; the undo file restores
# the image as the kill left it.  The seed is printed.
test_killed_at_random_times_journaled() {
	need_mount || return 0
	mkmoving mkfs.ext4 -I 256 || fail "image"
	cp "$IMG" "$TMP/orig.img"
	local i pid delay delay_us t0 t1 span seed=${E4T_SEED:-$(date +%s)} undo
	local mid=0 runs=0 total lo hi
	undo=$(default_undo "$IMG")
	KUNDO=$undo
	echo "random kills: seed $seed (E4T_SEED=$seed to repeat)"
	RANDOM=$seed
	# how long a whole run takes here
	t0=$(date +%s%N)
	"$E4TIME" check -y --crtime-from mtime "$IMG" >/dev/null 2>&1
	t1=$(date +%s%N)
	span=$(((t1 - t0) / 1000))
	[ "$span" -gt 0 ] || span=1000
	LEAKS=0 LEAKS_OK='' KERNEL='' REPLAYED=0
	# 40 runs: 20 in each build with E4T_QUICK=1 and E4T_SHARE=rest
	# (the quarter asserted below is of this build's runs)
	total=$(share 40 20)
	# The delays are drawn from [lo, hi): lo the longest delay seen
	# that killed the run before it wrote (no undo file), hi the
	# shortest that let it finish (the undo file renamed into place).
	# The window narrows onto the writes, so the kills in their middle
	# do not depend on how long start-up takes on a loaded machine (a
	# sanitizer build under load once had 4 in 25 with the whole span).
	lo=0 hi=$span
	for i in $(seq 1 "$total"); do
		cp "$TMP/orig.img" "$IMG"
		rm -f "$undo" "$undo.new"
		[ "$hi" -gt "$lo" ] || { lo=0 hi=$span; }
		delay=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo)))
		delay_us=$delay
		delay=$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))
		# its own process group: with a wrapper script (sanitizer
		# build), the e4time it runs is killed with it
		setsid "$E4TIME" check -y --crtime-from mtime "$IMG" \
			>/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		# (a superblock write's child: its writes made, the lock let go)
		flock "$IMG" true
		runs=$((runs + 1))
		if [ -e "$undo.new" ]; then
			mid=$((mid + 1))
			after_kill "${delay}s" after_kill_xattrs
		else
			if [ -e "$undo" ]; then
				[ "$delay_us" -lt "$hi" ] && hi=$delay_us
			elif [ "$delay_us" -gt "$lo" ]; then
				lo=$delay_us
			fi
			after_kill_xattrs "${delay}s (finished or not started)"
		fi
	done
	assertEquals "runs" "$total" "$runs"
	assertEquals "no leaked block" 0 "$LEAKS"
	assertTrue "a quarter of the kills or more in the middle of the writes ($mid of $total)" "[ $mid -ge $((total / 4)) ]"
	echo "random kills: $mid of $total in the middle of the writes, $REPLAYED replayed (delays narrowed to ${lo}..${hi} us of a ${span} us run)"
}

# Killed inside each write over the superblock, between the image's
# write and the undo file's copy of it (the test hook
# E4TIME_TEST_KILL_IN_SUPER=N kills e4time's process group there, at
# the Nth such write), on the ext4 image of
# test_killed_while_moving_xattrs_to_a_block: every transaction sets and
# clears needs_recovery.  The two writes are one child's, which the kill
# of the group does not stop: the undo file restores the image exactly,
# with no -f.
test_killed_within_superblock_writes() {
	need_mount || return 0
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "e4time built without --enable-test-hooks"
		return 0
	fi
	mkmoving mkfs.ext4 -I 256 || fail "image"
	cp "$IMG" "$TMP/orig.img"
	local n pid undo mid=0
	undo=$(default_undo "$IMG")
	KUNDO=$undo LEAKS=0 LEAKS_OK='' KERNEL='' REPLAYED=0
	for n in $(seq 1 40); do
		cp "$TMP/orig.img" "$IMG"
		rm -f "$undo" "$undo.new"
		E4TIME_TEST_KILL_IN_SUPER=$n setsid "${E4TIME_BIN:-$E4TIME}" check -y \
			--crtime-from mtime "$IMG" >/dev/null 2>&1 &
		pid=$!
		wait "$pid" 2>/dev/null
		flock "$IMG" true
		[ -e "$undo.new" ] || break # finished: no Nth superblock write
		mid=$((mid + 1))
		assertFalse "killed in superblock write $n: the image was written" \
			"cmp -s '$TMP/orig.img' '$IMG'"
		after_kill "in superblock write $n" after_kill_xattrs
	done
	assertTrue "killed within some superblock writes ($mid)" "[ $mid -ge 4 ]"
	assertTrue "the run finished before 40 ($n)" "[ -e '$undo' ]"
	echo "killed within $mid superblock writes, $REPLAYED replayed"
}

# full_disk_runs KIND ARGS...: check -y ARGS --crtime-from mtime on a
# sparse copy of $TMP/orig.img in a small tmpfs filled up, with FREE
# pages left free for each FREE of 0 1 2 4 8 16 32 64 (the undo file in
# the same tmpfs, or none with --no-undo); after each, /b has both
# xattrs and e2fsck -fn passes.  FAILED counts the runs that stopped on
# the full disk (status 8).
full_disk_runs() {
	local kind=$1 scratch free img fsck xa
	shift
	FAILED=0 RUNS=0
	scratch=$(mktemp -d "$TMP/full.XXXXXX")
	mount -t tmpfs -o size=24m tmpfs "$scratch" || {
		rmdir "$scratch"
		return 1
	}
	for free in 0 1 2 4 8 16 32 64; do
		rm -rf "$scratch"/*
		mkdir "$scratch/undo"
		img="$scratch/img"
		cp --sparse=always "$TMP/orig.img" "$img"
		dd if=/dev/zero of="$scratch/fill" bs=4096 >/dev/null 2>&1
		truncate -s -$((free * 4096)) "$scratch/fill"
		E2FSPROGS_UNDO_DIR="$scratch/undo" "$E4TIME" check -y \
			--crtime-from mtime "$@" "$img" >"$TMP/full.out" 2>&1
		[ $? = 8 ] && FAILED=$((FAILED + 1))
		RUNS=$((RUNS + 1))
		rm -f "$scratch/fill"
		xa=$(debugfs -R "ea_list /b" "$img" 2>/dev/null)
		assertContains "$kind $*, $free pages free: user.test: $(cat "$TMP/full.out")" \
			"$xa" "user.test"
		assertContains "$kind $*, $free pages free: user.c" "$xa" "user.c"
		if needs_recovery "$img"; then
			fail "$kind $*, $free pages free: left to recover"
			replay "$img"
		fi
		e2fsck -fn "$img" >"$TMP/fsck" 2>&1
		assertEquals "$kind $*, $free pages free: e2fsck -fn: $(tail -4 "$TMP/fsck")" \
			0 $?
	done
	umount "$scratch"
	rmdir "$scratch"
}

# Out of space on the image's own filesystem (a sparse image, the new
# xattr block landing in a hole) while check -y grows an inode whose
# xattrs move to a block: never an xattr lost, never a block left for
# e2fsck, at any fill level, with and without a journal, with and
# without the undo file.  (Before: the inode was written with its
# xattrs emptied when putting them back failed.)
test_full_disk_keeps_xattrs() {
	need_mount || return 0
	local kind mkfs ran=0 failed=0
	for kind in ext3 ext2; do
		case $kind in
		ext3) mkfs=(mkfs.ext3 -I 256) ;;
		ext2) mkfs=(mkfs.ext2 -I 256) ;;
		esac
		rm -f "$IMG"
		mkmoving "${mkfs[@]}" || {
			fail "$kind: image"
			continue
		}
		cp "$IMG" "$TMP/orig.img"
		full_disk_runs $kind || {
			skip_test "no tmpfs mount here"
			return 0
		}
		ran=$((ran + RUNS))
		failed=$((failed + FAILED))
		full_disk_runs $kind --no-undo
		ran=$((ran + RUNS))
		failed=$((failed + FAILED))
	done
	assertEquals "runs" 32 "$ran"
	assertTrue "some runs stopped on the full disk ($failed)" \
		"[ $failed -ge 4 ]"
	echo "full disk: $failed of $ran runs stopped on it, no xattr lost"
}

test_extra_isize_below_the_kernels() {
	need_mount || return 0
	mkimg mkfs.ext3 -I 256 || fail "image"
	# as kernels before 4.5 wrote them (no i_projid yet): 28, b's xattr
	# right after it; and 24
	shrink /b 28 && shrink /a 24 || fail "shrink"
	cp "$IMG" "$TMP/orig.img"
	e2fsck -fn "$IMG" >/dev/null 2>&1
	assertEquals "e2fsck: the shrunk image is valid" 0 $?
	local before
	before=$(kstat '%W.%w %Y %Z %X' a b d/c) || fail "mount"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n, warnings only: $(cat "$OUT")" 0 "$RC"
	assertTrue "/a: T0009" "has '/a' 'T0009: '"
	assertTrue "/b: T0009" "has '/b' 'T0009: '"
	assertContains "$(cat "$OUT")" "i_extra_isize 28, the kernel's 32"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left), 2 warnings"
	run_ro "$IMG" check -n --strict "$IMG"
	assertEquals "-n --strict" 4 "$RC"
	run_ro "$IMG" check -n -f jsonl "$IMG"
	assertEquals "jsonl record" '"T0009" null 28 32 false' \
		"$(jq -c -r 'select(.code == "T0009" and .path == "/b") | "\(.code|tojson) \(.field) \(.extra_isize) \(.want_extra_isize) \(.fixable)"' "$OUT")"
	run_ro "$IMG" check -n --fix T0009 -f jsonl "$IMG"
	assertEquals "jsonl record, named" '"T0009" null 28 32 true' \
		"$(jq -c -r 'select(.code == "T0009" and .path == "/b") | "\(.code|tojson) \(.field) \(.extra_isize) \(.want_extra_isize) \(.fixable)"' "$OUT")"
	run_ro "$IMG" check -p --fix T0009 "$IMG"
	assertEquals "-p: not preen's" 0 "$RC"
	# a warning: -y alone leaves it
	run_ro "$IMG" check -y "$IMG"
	assertEquals "-y: a warning, left: $(cat "$OUT" "$ERR")" 0 "$RC"
	# no --crtime-from: crtime is stored and kept
	run check -y --fix T0009 "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "0 problems (0 fixed, 0 left), 2 warnings (2 fixed)"
	assertContains "$(debugfs -R 'stat /b' "$IMG" 2>/dev/null)" \
		"Size of extra inode fields: 32"
	assertContains "$(debugfs -R 'stat /a' "$IMG" 2>/dev/null)" \
		"Size of extra inode fields: 32"
	assertEquals "times kept (kernel)" "$before" \
		"$(kstat '%W.%w %Y %Z %X' a b d/c)"
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	assertEquals "xattr intact (kernel)" "b'hello'" \
		"$(python3 -c "import os,sys; print(os.getxattr(sys.argv[1], 'user.test'))" "$MNT/b")"
	umount "$MNT"
	after_fix "T0009" "$TMP/orig.img"
}

test_inline_data_not_grown() {
	need_mount || return 0
	truncate -s 16M "$IMG" &&
		mkfs.ext4 -q -F -I 256 -O inline_data "$IMG" >/dev/null 2>&1 &&
		mount -o loop "$IMG" "$MNT" || fail "image"
	# 100 bytes: 60 in i_block, the rest in system.data
	python3 -c "import sys; open(sys.argv[1], 'w').write('s' * 99 + '\\n')" "$MNT/s"
	python3 -c "import sys; open(sys.argv[1], 'w').write('t' * 99 + '\\n')" "$MNT/t"
	umount "$MNT"
	shrink /s 28 && shrink /t 4 || fail "shrink"
	e2fsck -fy "$IMG" >/dev/null 2>&1
	e2fsck -fn "$IMG" >/dev/null 2>&1
	assertEquals "the shrunk image is valid" 0 $?
	assertContains "inline" "$(debugfs -R 'stat /s' "$IMG" 2>/dev/null)" \
		"Size of inline data: 100"
	run_ro "$IMG" check -y --crtime-from ctime "$IMG"
	assertEquals "-y: T0003 left: $(cat "$OUT" "$ERR")" 4 "$RC"
	assertTrue "/s: T0009" "has '/s' 'T0009: '"
	assertTrue "/t: T0003" "has '/t' 'T0003 crtime'"
	assertEquals "both left to the kernel" 2 \
		"$(grep -c '(inline data: left to the kernel)$' "$OUT")"
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	assertEquals "data intact (kernel)" "$(printf 's%.0s' $(seq 99))" \
		"$(cat "$MNT/s")"
	umount "$MNT"
}

# mkconverted: an ext3 of 128-byte inodes the kernel wrote 60 files
# into, converted with tune2fs -I 256 and -O extents, then written by
# the kernel again (one new file).
mkconverted() {
	local i
	truncate -s 32M "$IMG" &&
		mkfs.ext3 -q -F -I 128 -N 2048 "$IMG" >/dev/null 2>&1 &&
		mount -o loop "$IMG" "$MNT" || return 1
	for i in $(seq 1 60); do echo "$i" >"$MNT/f$i"; done
	# directories spread over the groups: a batch window each
	for i in 1 2 3 4; do
		mkdir "$MNT/d$i" && touch "$MNT/d$i/"g{01..15}
	done
	umount "$MNT"
	# (tune2fs -I wants a freshly checked filesystem; a loop device may
	# take a moment to let the image go: tune2fs would call it mounted)
	retry e2fsck -fp "$IMG" && retry tune2fs -I 256 "$IMG" && retry tune2fs -O extents "$IMG" ||
		return 1
	# the kernel writes an old inode: grown to 32, crtime 0 (1970)
	mount -o loop "$IMG" "$MNT" && echo new >"$MNT/new" &&
		touch "$MNT/f2" && umount "$MNT"
}

test_tune2fs_converted_ext3() {
	need_mount || return 0
	mkconverted || fail "image"
	cp "$IMG" "$TMP/orig.img"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "-n: $(tail -1 "$OUT")" 4 "$RC"
	assertContains "$(cat "$OUT")" "/f1 <"
	assertContains "$(cat "$OUT")" "T0003 crtime"
	assertNotContains "the kernel's new file has crtime" "$(cat "$OUT")" \
		"/new <"
	assertTrue "the kernel grew f2 with crtime 0" "has /f2 'T0004 crtime'"
	assertContains "$(cat "$OUT")" "superblock: T0008"
	run check -y --crtime-from ctime "$IMG"
	assertEquals "-y: $(tail -3 "$OUT") $(cat "$ERR")" 1 "$RC"
	assertEquals "crtime of f7 is ctime (kernel)" "$(kstat '%Z' f7)" \
		"$(kstat '%W' f7)"
	assertEquals "crtime of f2 is ctime (kernel)" "$(kstat '%.9Z' f2)" \
		"$(kstat '%.9W' f2)"
	assertContains "$(dumpe2fs -h "$IMG" 2>/dev/null)" \
		"Desired extra isize:      32"
	after_fix "converted ext3" "$TMP/orig.img"
}

test_crtime_from_dosattrib() {
	cp "$TMP/samba-dosattrib.img" "$IMG"
	local line hex ino k ver create raw path=""
	# a file whose DOSATTRIB create time is before its ctime
	while read -r hex ino k ver create raw; do
		local ct
		ct=$(debugfs -R "stat <$ino>" "$IMG" 2>/dev/null |
			sed -n 's/^ ctime: 0x\([0-9a-f]*\).*/\1/p')
		if [ -n "$ct" ] && [ "${create%.*}" -lt $((16#$ct)) ] &&
			[ "${create%.*}" -gt 0 ]; then
			path=$ino
			break
		fi
	done < <(grep -v '^#' "$IMAGES/samba-dosattrib.truth")
	[ -n "$path" ] || fail "no usable truth line"
	sif "<$path>" crtime 0 crtime_extra 0
	cp "$IMG" "$TMP/orig.img"
	run check -y --crtime-from dosattrib "$IMG"
	assertEquals "-y: $(cat "$OUT" "$ERR")" 1 "$RC"
	assertContains "$(cat "$OUT")" "<$path>: T0004 crtime"
	run stat "$IMG" "<$path>"
	assertContains "$(cat "$OUT")" \
		"crtime: $(date -u -d "@${create%.*}" +%Y-%m-%dT%H:%M:%S).${create#*.}Z"
	# the other Samba files may be later than ctime: not ours to fix
	e2fsck -fn "$IMG" >/dev/null 2>&1
	assertEquals "e2fsck" 0 $?
	undo=$(default_undo "$IMG")
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertTrue "e2undo" "cmp -s '$TMP/orig.img' '$IMG'"
}

test_jsonl_records() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	sif /a mtime_extra 0xEE6B2800
	run_ro "$IMG" check -n -f jsonl "$IMG"
	assertEquals "status" 4 "$RC"
	assertEquals "problem record" \
		'"T0001 bad_nsec error /a mtime false"' \
		"$(jq -c 'select(.record=="problem") | "\(.code) \(.problem) \(.severity) \(.path) \(.field) \(.fixed)"' "$OUT")"
	assertEquals "summary" '{"problems":1,"fixed":0,"left":1}' \
		"$(jq -c 'select(.record=="summary") | {problems, fixed, left}' "$OUT")"
	run check -p -f jsonl "$IMG"
	assertEquals "fixed" "true" \
		"$(jq -c 'select(.record=="problem") | .fixed' "$OUT")"
}

# A time written in the last second before the unmount, with nanoseconds
# of 10^9 or more: T0001's carry makes it one second later than the last
# write, which is not "in the future" (T0007).
test_carry_is_not_the_future() {
	local t=1700000000
	# (no metadata_csum: the last write time is set by hand below, as
	# debugfs sets it to its own close)
	mkfs.ext4 -q -F -I 256 -O ^metadata_csum "$IMG" 4M >/dev/null 2>&1
	echo a >"$TMP/a"
	debugfs -w -f - "$IMG" >/dev/null 2>&1 <<-EOF
		write $TMP/a a
		sif /a mtime $t
		sif /a mtime_extra 0xEE6B2800
	EOF
	set_wtime "$t"
	run_ro "$IMG" check -n -f jsonl "$IMG"
	assertEquals "status: $(head -3 "$ERR")" 4 "$RC"
	assertEquals "/a's mtime: T0001 only" "T0001" \
		"$(jq -r 'select(.record=="problem" and .path=="/a" and .field=="mtime") | .code' "$OUT" | xargs)"
	# a time later than the last write before the carry is
	debugfs -w -R "sif /a mtime $((t + 1))" "$IMG" >/dev/null 2>&1
	set_wtime "$t"
	run_ro "$IMG" check -n -f jsonl "$IMG"
	assertEquals "/a's mtime: T0001 and T0007" "T0001 T0007" \
		"$(jq -r 'select(.record=="problem" and .path=="/a" and .field=="mtime") | .code' "$OUT" | sort | xargs)"
}

# set_wtime T: the superblock's last write time (s_wtime) of $IMG.
set_wtime() {
	python3 - "$IMG" "$1" <<-'PYEOF'
	import struct, sys
	with open(sys.argv[1], "r+b") as f:
	    f.seek(1024 + 0x30)
	    f.write(struct.pack("<I", int(sys.argv[2])))
	PYEOF
}

test_statuses_and_refusals() {
	mkfs.ext4 -q -F -I 256 "$IMG" 4M >/dev/null 2>&1
	run check -n -y "$IMG"
	assertEquals "-n -y: usage (16)" 16 "$RC"
	run check -n --crtime-from nowhere "$IMG"
	assertEquals "bad source: usage (16)" 16 "$RC"
	run check -n "$TMP/missing.img"
	assertEquals "missing image: operational error (8)" 8 "$RC"
	assertContains "$(cat "$ERR")" "missing.img"
	run check "$IMG" </dev/null
	assertEquals "no terminal, no -n/-p/-y (8)" 8 "$RC"
	assertContains "$(cat "$ERR")" "need terminal for interactive repairs"
	# e2fsck owns an image with errors: nothing is fixed
	debugfs -w -R "ssv state 2" "$IMG" >/dev/null 2>&1
	run_ro "$IMG" check -y "$IMG"
	assertEquals "errors flagged: refused (8)" 8 "$RC"
	run_ro "$IMG" check -n "$IMG"
	assertEquals "errors flagged, -n: 4" 4 "$RC"
	assertContains "$(cat "$ERR")" "run e2fsck first"
}

test_dry_run_reads_containers() {
	command -v ewfacquire >/dev/null 2>&1 || {
		skip_test "ewfacquire missing"
		return 0
	}
	mkfs.ext4 -q -F -I 256 "$IMG" 4M >/dev/null 2>&1
	sif '<2>' mtime_extra 0xEE6B2800
	mkdir -p "$TMP/ewf"
	rm -f "$TMP/ewf/"img.E*
	ewfacquire -u -q -t "$TMP/ewf/img" -f encase6 "$IMG" \
		>"$TMP/ewf.log" 2>&1 || fail "ewfacquire: $(cat "$TMP/ewf.log")"
	run_ro "$TMP/ewf/img.E01" check -n "$TMP/ewf/img.E01"
	assertEquals "-n on an E01: $(cat "$OUT" "$ERR")" 4 "$RC"
	assertTrue "/: T0001" "has / 'T0001 mtime'"
	run_ro "$TMP/ewf/img.E01" check -y "$TMP/ewf/img.E01"
	assertEquals "-y on an E01: refused (8)" 8 "$RC"
	assertContains "$(cat "$ERR")" "convert to raw first"
}

# -n on a mounted filesystem: it says so, never "run e2fsck" over the
# journal the mount keeps live; every line says why it is not fixed.
test_dry_run_on_a_mounted_filesystem() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	sif /a mtime 0x40000000 mtime_extra 0xEE6B2800
	local opts n=0
	for opts in rw ro; do
		mount -o loop,$opts "$IMG" "$MNT" || fail "mount $opts"
		run check -n "$IMG"
		umount "$MNT"
		assertEquals "$opts: $(cat "$OUT" "$ERR")" 4 "$RC"
		assertContains "$opts: $(cat "$ERR")" "$(cat "$ERR")" \
			"$IMG: mounted (/dev/loop"
		assertContains "$opts: $(cat "$ERR")" "$(cat "$ERR")" \
			" is mounted on $MNT): check -n reads what is on disk"
		# (not even the advice for an image at rest: recover a copy)
		assertNotContains "$opts: $(cat "$ERR")" "$(cat "$ERR")" \
			"e2fsck"
		if [ $opts = rw ]; then
			assertContains "$opts: $(cat "$ERR")" "$(cat "$ERR")" \
				"its journal is the mount's own"
		fi
		assertTrue "$opts: the line says why: $(cat "$OUT")" \
			"grep -q '^/a <[0-9]*>: T0001 mtime: .* (mounted: unmount it to fix)$' '$OUT'"
		n=$((n + 1))
	done
	assertEquals "runs" 2 "$n"
	# unmounted again: no such line
	run_ro "$IMG" check -n "$IMG"
	assertNotContains "$(cat "$ERR")" "mounted"
	assertContains "$(cat "$OUT")" "Carry nanoseconds into seconds? no"
	# an image file mounted through FUSE (no block device)
	if ! command -v fuse2fs >/dev/null || [ ! -c /dev/fuse ] ||
		! fuse2fs "$IMG" "$MNT" -o ro,fakeroot >"$TMP/fuse.out" 2>&1; then
		echo "(fuse2fs: not tried here)"
		return 0
	fi
	run check -n "$IMG"
	umount "$MNT"
	assertEquals "fuse2fs: $(cat "$OUT" "$ERR")" 4 "$RC"
	# (the mount's source, or the server holding the file)
	assertTrue "fuse2fs: $(cat "$ERR")" \
		"grep -qE '^e4time: $IMG: mounted \\((.* \\(fuse[.a-z0-9]*\\)|FUSE server fuse2fs .*)\\): check -n' '$ERR'"
	assertTrue "fuse2fs: the line says why: $(cat "$OUT")" \
		"grep -q '^/a <[0-9]*>: T0001 mtime: .* (mounted: unmount it to fix)$' '$OUT'"
}

# check -y > LOG 2>&1: the undo file's line (stderr) after every line of
# stdout, one of its own: more stdout than one buffer (150 fixes).
test_undo_line_is_a_line_of_its_own() {
	local i script="" n=150
	mkdir -p "$TMP/many"
	for i in $(seq 1 $n); do
		echo "$i" >"$TMP/many/f$i"
		script+="sif /f$i mtime 0x40000000"$'\n'
		script+="sif /f$i mtime_extra 0xEE6B2800"$'\n'
		# crtime set too: mke2fs -d stamps it with its own start, which
		# a loaded machine can put after the ctime the files got here
		# (T0005 left, no source to fix it)
		script+="sif /f$i crtime 0x40000000"$'\n'
	done
	mkfs.ext4 -q -F -I 256 -N 512 -d "$TMP/many" "$IMG" 8M >/dev/null 2>&1 ||
		fail "mkfs"
	printf '%s' "$script" | debugfs -w -f - "$IMG" >/dev/null 2>&1
	local rc
	"$E4TIME" check -y "$IMG" >"$TMP/log" 2>&1
	rc=$?
	# (the summary and the first other problems say what was left,
	# when the status says so: CI's normal build saw 106 left twice)
	assertEquals "status: $(grep -E 'checked|left|refus|busy|lock' "$TMP/log" | head -5; grep -v 'Carry nanoseconds' "$TMP/log" | grep -m5 '^/f'; tail -3 "$TMP/log")" 1 $rc
	assertEquals "a line per fix" $n \
		"$(grep -c '^/f[0-9]* <[0-9]*>: T0001 mtime: .*Carry nanoseconds into seconds? yes$' "$TMP/log")"
	assertEquals "the undo file's line, whole" 1 \
		"$(grep -c '^e4time: [^ ]*: undo file [^ ]* (to undo: e2undo [^ ]* [^ ]*)$' "$TMP/log")"
	assertContains "after the summary" "$(tail -1 "$TMP/log")" ": undo file "
	assertEquals "no other line: $(grep -vE '^(/f[0-9]+ <|e4time: |.*inodes checked|.*TIMESTAMPS WERE MODIFIED|$)' "$TMP/log" | head -3)" \
		0 "$(grep -cvE '^(/f[0-9]+ <|e4time: |.*inodes checked|.*TIMESTAMPS WERE MODIFIED|$)' "$TMP/log")"
}

# 128-byte inodes: check and info say plainly that no crtime can ever be
# stored there and what would change that; set and backfill too.
test_128_byte_inodes_said_plainly() {
	local img="$TMP/s128.img"
	unpack ext4-128 >/dev/null || fail "image"
	cp "$TMP/ext4-128.img" "$img"
	run_ro "$img" check -n "$img"
	assertEquals "check -n: $(cat "$OUT")" 0 "$RC"
	assertContains "$(cat "$OUT")" "inodes of 128 bytes: no crtime (nor nanoseconds, nor a time outside 1901..2038) can ever be stored in them"
	assertContains "$(cat "$OUT")" "mkfs.ext4 -I 256"
	assertContains "$(cat "$OUT")" "tune2fs -I 256"
	run_ro "$img" check -n -f jsonl "$img"
	assertEquals "jsonl" '{"inode_size":128,"crtime_storable":false}' \
		"$(jq -c 'select(.record=="summary") | {inode_size, crtime_storable}' "$OUT")"
	run_ro "$img" info "$img"
	assertContains "info: $(cat "$OUT")" "$(cat "$OUT")" \
		"Crtime:               never stored: 128-byte inodes have no room for it"
	run_ro "$img" set "$img" /a.txt --crtime @86400
	assertEquals "set: refused" 16 "$RC"
	assertContains "set: $(cat "$ERR")" "$(cat "$ERR")" \
		"128-byte inodes can never store crtime (a filesystem of larger inodes can: a new one made with mkfs.ext4 -I 256"
	run_ro "$img" backfill -n "$img" --from dosattrib
	assertContains "backfill: $(cat "$ERR")" "$(cat "$ERR")" " inode too small"
	assertContains "backfill: $(cat "$ERR")" "$(cat "$ERR")" \
		"128-byte inodes can never store crtime"
	# 256-byte inodes: what info says instead
	mkfs.ext4 -q -F -I 256 "$IMG" 4M >/dev/null 2>&1
	run_ro "$IMG" info -f jsonl "$IMG"
	assertEquals "info of 256-byte inodes" \
		'"stored in inodes whose i_extra_isize is 24 or more (e4time check finds the others: T0003)"' \
		"$(jq -c .crtime "$OUT")"
}

# Inodes of i_extra_isize 0 (tune2fs -I 256): what the kernel shows of
# their birth time (the zeroed bytes: 0), and what set and backfill
# advise (check, not tune2fs).
test_converted_inodes_birth_time() {
	need_mount || return 0
	mkconverted || fail "image"
	assertContains "f1: i_extra_isize 0" \
		"$(debugfs -R 'stat /f1' "$IMG" 2>/dev/null)" \
		"Size of extra inode fields: 0"
	assertEquals "the kernel's birth time: 0, 1970" \
		"0|1970-01-01 00:00:00.000000000 +0000" "$(TZ=UTC kstat '%W|%w' f1)"
	run_ro "$IMG" stat "$IMG" /f1
	assertContains "e4time stat: not stored" "$(cat "$OUT")" "not stored"
	run_ro "$IMG" set "$IMG" /f1 --crtime @86400
	assertEquals "set: refused" 16 "$RC"
	assertContains "set: $(cat "$ERR")" "$(cat "$ERR")" \
		"its i_extra_isize is below 24 (e4time check -y --crtime-from ctime"
	assertNotContains "set: not tune2fs: $(cat "$ERR")" "$(cat "$ERR")" \
		"tune2fs"
	run_ro "$IMG" backfill -n "$IMG" --from dosattrib
	assertContains "backfill: $(cat "$ERR")" "$(cat "$ERR")" \
		"inodes too small for crtime (i_extra_isize below 24): e4time check -n $IMG lists them (T0003); e4time check -y --crtime-from dosattrib $IMG grows them"
}

test_mounted_image_refused() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	sif /a mtime_extra 0xEE6B2800
	mount -o loop,ro "$IMG" "$MNT" || fail "mount"
	local before
	before=$(sha256sum <"$IMG")
	run check -y "$IMG"
	umount "$MNT"
	assertEquals "mounted: operational error (8): $(cat "$ERR")" 8 "$RC"
	assertEquals "nothing written" "$before" "$(sha256sum <"$IMG")"
}

# pty_check ANSWERS ARGS...: e4time ARGS on a terminal (python pty), the
# lines of ANSWERS typed one at each question; output in $OUT, status
# in $RC.
pty_check() {
	local answers="$1"
	shift
	python3 - "$answers" "$E4TIME" "$@" >"$TMP/stdout" 2>&1 <<'EOF'
import os, pty, sys, select
answers = sys.argv[1].split(",")
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], [sys.argv[2]] + sys.argv[3:])
out = b""
while True:
    try:
        r, _, _ = select.select([fd], [], [], 20)
        if not r:
            break
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
    while out.count(b"Fix<y>? ") > 0 and answers:
        os.write(fd, (answers.pop(0) + "\n").encode())
        out = out.replace(b"Fix<y>? ", b"Fix<y>?> ", 1)
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
EOF
	RC=$?
	OUT="$TMP/stdout"
}

test_interactive_questions_on_a_terminal() {
	need_mount || return 0
	mkimg mkfs.ext4 -I 256 || fail "image"
	sif /a mtime_extra 0xEE6B2800
	sif /b mtime_extra 0xEE6B2800
	sif /d/c mtime_extra 0xEE6B2800
	cp "$IMG" "$TMP/orig.img"
	# no to the first, yes to all after it
	pty_check "n,a" check "$IMG"
	assertEquals "status: $(cat "$OUT")" 5 "$RC"
	assertContains "$(cat "$OUT")" "Fix<y>?"
	assertContains "$(cat "$OUT")" "3 problems (2 fixed, 1 left)"
	run_ro "$IMG" check -n "$IMG"
	assertTrue "/a: T0001" "has '/a' 'T0001'"
	assertFalse "/b: T0001" "has '/b' 'T0001'"
}

# SIGINT, and SIGTERM and SIGHUP as SIGINT (as e2fsck takes SIGTERM):
# check -y stops between two inodes (the batch window being written is
# committed), says cancelled, status 32 | 4 | 1.
test_sigint_stops_between_inodes() {
	need_mount || return 0
	[ "${E4T_TEST_HOOKS:-}" = yes ] || {
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return 0
	}
	mkconverted || fail "image"
	cp "$IMG" "$TMP/orig.img"
	local pid undo sig stopped ran=0
	undo=$(default_undo "$IMG")
	for sig in INT TERM HUP; do
		cp "$TMP/orig.img" "$IMG"
		rm -f "$undo"
		# stopped after its first write (in the first batch window),
		# then the signal, then continued
		E4TIME_TEST_STOP_AFTER=1 "$E4TIME" check -y --crtime-from ctime \
			"$IMG" >"$TMP/stdout" 2>"$TMP/stderr" &
		pid=$!
		# the process the hook stopped: e4time, or the child of the
		# sanitizer build's wrapper (lib.sh)
		stopped=$(wait_stopped "$pid") || {
			kill -KILL "$pid" $(pgrep -P "$pid")
			wait "$pid"
			fail "check -y was not stopped by the test hook"
			return
		}
		kill -"$sig" "$stopped"
		kill -CONT "$stopped"
		wait $pid
		RC=$?
		ran=$((ran + 1))
		# cancelled, some fixed, some left: 32 | 4 | 1
		assertEquals "SIG$sig: cancelled: $(tail -2 "$TMP/stdout") $(cat "$TMP/stderr")" \
			37 "$RC"
		assertContains "SIG$sig" "$(cat "$TMP/stdout")" "cancelled"
		e2fsck -fn "$IMG" >/dev/null 2>&1
		assertEquals "SIG$sig: e2fsck after the signal" 0 $?
		run_ro "$IMG" check -n "$IMG"
		assertEquals "SIG$sig: some left" 4 "$RC"
		e2undo "$undo" "$IMG" >/dev/null 2>&1
		assertTrue "SIG$sig: e2undo after the signal" \
			"cmp -s '$TMP/orig.img' '$IMG'"
	done
	assertEquals "signals" 3 "$ran"
}

test_killed_at_write_points() {
	need_mount || return 0
	[ "${E4T_TEST_HOOKS:-}" = yes ] || {
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return 0
	}
	mkconverted || fail "image"
	sif /f3 mtime_extra 0xEE6B2800
	# T0008's fix rewrites the superblock too: the undo file's copy
	# follows every superblock write (undo_io.c, follow_super())
	cp "$IMG" "$TMP/orig.img"
	# every write point, until the run ends by itself
	kill_each_write 200 after_kill_clean --crtime-from ctime
	assertEquals "the run ends by itself" 1 "$RC"
	assertTrue "killed at some points ($KILLS)" "[ $KILLS -ge 3 ]"
	echo "check -y: killed at $KILLS write points, then ran to its end"
}

# check -n on damaged copies of four images (tests/damage_gen.c, seed
# 11 + DAMAGE_SEED, copies 1..DAMAGE_CHECK_COPIES, 12: .ci/run's normal
# build takes other copies than its sanitizer build, fewer): documented
# statuses only, the copy not written.
test_damaged_corpus_read_only() {
	local dg="${DAMAGE_GEN:-}" src out n rc bad=0 ran=0
	local seed=$((11 + ${DAMAGE_SEED:-1})) copies=${DAMAGE_CHECK_COPIES:-12}
	[ -n "$dg" ] && [ -x "$dg" ] || {
		skip_test "tests/damage_gen not built"
		return 0
	}
	for src in ext4-4k ext4-128 ext4-1k-inline samba-dosattrib; do
		unpack "$src" >/dev/null || fail "unpack $src"
		for n in $(seq 1 "$copies"); do
			out="$TMP/dmg.img"
			"$dg" damage "$TMP/$src.img" "$seed" "$n" "$out" >/dev/null 2>&1 ||
				fail "damage_gen $src seed $seed copy $n"
			ran=$((ran + 1))
			run_ro "$out" check -n "$out"
			rc=$RC
			case $rc in
			0 | 4 | 8) ;;
			*)
				bad=$((bad + 1))
				echo "check -n $src seed $seed copy $n: status $rc: $(head -3 "$ERR")"
				;;
			esac
		done
	done
	assertEquals "damaged images checked" $((4 * copies)) "$ran"
	assertEquals "statuses 0, 4 or 8 only" 0 "$bad"
}

. shunit2
