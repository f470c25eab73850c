#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_crash.sh --- crash-safe writes.  backfill and import are killed
# (SIGKILL) after N writes to the image, for many N: the killed image
# passes e2fsck -fn (every inode-table block written whole, with valid
# inode checksums), and e2undo with the undo file left behind (NAME.new)
# gives back the image byte for byte (sha256), with no -f and no
# "Incomplete undo record".  The undo file's filesystem runs full: the
# command stops at once, says so on one line naming the undo file, exits
# 8, and the image is the original (nothing written yet) or exactly what
# the undo file restores.  A second writer is refused (16) while the
# first one holds the image.
#
# The kill points come from the test hook of lib/write/undo_io.c:
# E4TIME_TEST_KILL_AFTER=N (E4TIME_TEST_STOP_AFTER=N) makes e4time send
# itself SIGKILL (SIGSTOP) right after its Nth write to the image has
# returned.  That is exact and needs no timing; a few kills at random
# times (from outside, at any instruction) complete the picture.  The
# hook is built only with ./configure --enable-test-hooks (make check
# says so in E4T_TEST_HOOKS=yes); without it the tests that need it are
# skipped, visibly, and the others run.
#
# The image is made here: a 32 MiB ext4 (4 KiB blocks, 16 groups in
# flex groups of 2) with 40 directories of 96 files, loop-mounted to
# write them; every other run of 32 files has an xattr (and a manifest
# line), so the writes are ~90 runs of blocks over 7 MiB of inode tables.
# Without loop mounts the suite is skipped.  E4T_CRASH_EVERY=1 kills at
# every N instead of a spread of them (slower: a minute or two).
. "$TOP_SRCDIR/tests/lib.sh"

NDIRS=40
NFILES=96
BIRTH=1000000000 # the xattr's time, minus a file's number

suite_setup() {
	require_tools mkfs.ext4 e2fsck e2undo sha256sum python3 setsid ||
		return 1
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || return 0
	BASE="$TMP/base.img"
	MANIFEST="$TMP/manifest.jsonl"
	truncate -s 32M "$BASE" &&
		mkfs.ext4 -q -F -b 4096 -g 512 -G 2 -N 16384 -I 256 \
			"$BASE" >/dev/null 2>&1 &&
		mount -o loop "$BASE" "$MNT" || return 1
	python3 - "$MNT" "$MANIFEST" "$NDIRS" "$NFILES" "$BIRTH" <<'EOF' || {
import os, sys
mnt, manifest, ndirs, nfiles, birth = sys.argv[1], sys.argv[2], \
	int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with open(manifest, 'w') as m:
	for d in range(ndirs):
		os.mkdir('%s/d%02d' % (mnt, d))
		for f in range(nfiles):
			rel = '/d%02d/f%03d' % (d, f)
			open(mnt + rel, 'w').close()
			if (f // 32) % 2:
				continue
			t = birth - d * 1000 - f
			os.setxattr(mnt + rel, 'user.birth', str(t).encode())
			m.write('{"path":"%s","crtime":{"sec":%d,"nsec":%d}}\n'
				% (rel, t, f * 1000))
EOF
		umount "$MNT"
		return 1
	}
	umount "$MNT" || return 1
	BASE_SUM=$(sha256sum <"$BASE")
	IMG="$TMP/crash.img"
	return 0
}

per_test_setup() {
	fresh_undo_dir
	UNDO=$(default_undo "$TMP/crash.img")
}

need_image() {
	[ "$CAN_MOUNT" = 1 ] && return 0
	skip_test "cannot loop-mount here: no image to write"
	return 1
}

# need_hooks: the binary has the test hooks, or the test is skipped.
need_hooks() {
	[ "${E4T_TEST_HOOKS:-}" = yes ] && return 0
	skip_test "e4time built without --enable-test-hooks (E4T_TEST_HOOKS=${E4T_TEST_HOOKS:-unset})"
	return 1
}

fresh_image() {
	rm -f "$IMG"
	cp --sparse=always "$BASE" "$IMG"
}

# fresh_dense_image: the same without holes, so that each region saved
# costs the undo file a whole 1 MiB (a sparse image's cost only its data).
fresh_dense_image() {
	rm -f "$IMG"
	cp --sparse=never "$BASE" "$IMG"
}

BACKFILL=(backfill -q --from xattr:user.birth:epoch --policy always)
IMPORT=(import -q --policy always)

# run_writer ARGS...: e4time ARGS on $IMG (the import reads $MANIFEST),
# stdout dropped, stderr in $ERR, status in $RC.  KILL_AFTER=N: with the
# test hook.
run_writer() {
	local exe="$E4TIME"
	ERR="$TMP/stderr"
	# Under valgrind (make check-valgrind), a process that kills itself
	# is still leak-checked by valgrind, which then reports the stacks
	# of the threads it had running as "possibly lost": an artefact of
	# the kill, not a leak.  Killed runs go without valgrind; every run
	# that ends by itself keeps it.
	[ -n "${KILL_AFTER:-}" ] && [ -n "${E4TIME_WRAPPER:-}" ] &&
		exe="${E4TIME_BIN:-$E4TIME}"
	# (a subshell: the shell's "Killed" notice stays out of the log)
	if [ "$1" = import ]; then
		(E4TIME_TEST_KILL_AFTER=${KILL_AFTER:-} \
			"$exe" "$@" "$IMG" "$MANIFEST" >/dev/null 2>"$ERR") \
			2>/dev/null
	else
		(E4TIME_TEST_KILL_AFTER=${KILL_AFTER:-} \
			"$exe" "$@" "$IMG" >/dev/null 2>"$ERR") 2>/dev/null
	fi
	RC=$?
	check_stderr "e4time $*"
	check_reports "e4time $*"
}

# check_restores WHAT UNDOFILE: the image passes e2fsck -fn as it is, and
# e2undo (no -f) with UNDOFILE gives back the original byte for byte,
# without a word about an incomplete record.  (The checks compare bytes
# with cmp; a finished run's restored image is also compared by sha256.)
check_restores() {
	local what="$1" undo="$2" out
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	assertEquals "$what: e2fsck -fn on the image as left: $(tail -3 "$TMP/fsck")" \
		0 $?
	assertFalse "$what: the image was written" "cmp -s '$BASE' '$IMG'"
	out=$(e2undo "$undo" "$IMG" 2>&1)
	assertEquals "$what: e2undo: $out" 0 $?
	assertNotContains "$what: e2undo: $out" "$out" "Incomplete"
	# byte for byte: cmp (faster than sha256 on a loaded machine)
	assertTrue "$what: e2undo gives back the original" \
		"cmp -s '$BASE' '$IMG'"
}

# kill_point N ARGS...: the writer killed after N image writes must leave
# an image that e2fsck passes and that its undo file (NAME.new) restores.
# Status 0 when it was killed; 1 when it finished first (N is past its
# last write: then its undo file, renamed, restores the image too); 2 on
# any other status.
kill_point() {
	local n="$1"
	shift
	fresh_image
	rm -f "$UNDO" "$UNDO.new"
	KILL_AFTER=$n run_writer "$@"
	if [ "$RC" = 0 ]; then
		assertFalse "$1 finished: no NAME.new" "[ -e '$UNDO.new' ]"
		check_restores "$1 finished" "$UNDO"
		assertEquals "$1 finished, undone: sha256" "$BASE_SUM" \
			"$(sha256sum <"$IMG")"
		return 1
	fi
	if [ "$RC" != 137 ]; then
		fail "$1 killed after $n writes: status $RC: $(cat "$ERR")"
		return 2
	fi
	KILLS=$((KILLS + 1))
	assertTrue "$1 killed after $n writes: NAME.new left" \
		"[ -s '$UNDO.new' ]"
	assertFalse "$1 killed after $n writes: no finished undo file" \
		"[ -e '$UNDO' ]"
	check_restores "$1 killed after $n writes" "$UNDO.new"
	return 0
}

# kill_series ARGS...: kill points from 1 on (all of them with
# E4T_CRASH_EVERY=1; else 1..6, then a third more each time) until the
# writer finishes on its own, then bisection to the last write, so that
# the last kill point is right after it (before close).  The series is
# shared (tests/lib.sh, mine): with E4T_QUICK=1 (the sanitizer build of
# .ci/run: a killed process runs no code a finished one does not, so the
# sanitizer learns little from more kills) every 8th point of it (1, 13,
# 117, 1165, ...) and no bisection; with E4T_SHARE=rest (CI's normal
# build) the other points and the bisection (which then starts from the
# first of its own points that finished).  KILLS: how many were killed;
# WRITES: the writer's number of image writes (with E4T_QUICK=1, at
# least that many).
kill_series() {
	local n=1 k=0 lo=0 hi mid rc runs=0 want=0 i
	KILLS=0
	while :; do
		if [ "${E4T_CRASH_EVERY:-0}" = 1 ] || mine $k 8; then
			runs=$((runs + 1))
			kill_point $n "$@"
			rc=$?
			[ $rc = 2 ] && return 1
			[ $rc = 1 ] && break
			lo=$n
		fi
		k=$((k + 1))
		if [ "${E4T_CRASH_EVERY:-0}" = 1 ] || [ $n -lt 6 ]; then
			n=$((n + 1))
		else
			n=$((n + n / 3))
		fi
	done
	hi=$n
	# this build's share of the series' points up to the one that
	# finished
	for ((i = 0; i <= k; i++)); do
		{ [ "${E4T_CRASH_EVERY:-0}" = 1 ] || mine $i 8; } && want=$((want + 1))
	done
	assertEquals "$1: points of the series run (this build's share of $((k + 1)))" \
		"$want" "$runs"
	local sampled=0
	if [ "${E4T_QUICK:-0}" = 1 ] && [ "${E4T_CRASH_EVERY:-0}" != 1 ]; then
		sampled=1 hi=$((lo + 1))
	fi
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		kill_point $mid "$@"
		rc=$?
		[ $rc = 2 ] && return 1
		if [ $rc = 0 ]; then lo=$mid; else hi=$mid; fi
	done
	WRITES=$lo
	if [ "$sampled" = 0 ]; then
		echo "$1: $WRITES image writes; killed at $KILLS points, the last" \
			"right after the last write"
	else
		echo "$1: $WRITES image writes or more; killed at $KILLS points"
	fi
}

# The counts asserted below: the whole series' with E4T_SHARE=rest too
# (its share is all but every 8th point: 21 of 24 kills for backfill, 19
# of 22 for import), the sample's (3: 1, 13 and 117) with E4T_QUICK=1.
test_backfill_killed_after_n_writes() {
	need_image && need_hooks || return 0
	kill_series "${BACKFILL[@]}" --threads 1
	assertTrue "backfill killed at 15 points or more ($KILLS)" \
		"[ $KILLS -ge $(reps 15 3) ]"
}

test_backfill_two_threads_killed_after_n_writes() {
	need_image && need_hooks || return 0
	kill_series "${BACKFILL[@]}" --threads 2
	assertTrue "backfill (2 threads) killed at 15 points or more ($KILLS)" \
		"[ $KILLS -ge $(reps 15 3) ]"
}

test_import_killed_after_n_writes() {
	need_image && need_hooks || return 0
	kill_series "${IMPORT[@]}"
	assertTrue "import killed at 10 points or more ($KILLS)" \
		"[ $KILLS -ge $(reps 10 3) ]"
}

# Kills from outside at random times: inside a system call, between the
# undo file's writes, before the first one.  Whatever the point, the
# image passes e2fsck, and it is either untouched (then the undo file is
# empty or has no keys) or restored exactly by the undo file.
test_killed_at_random_times() {
	need_image || return 0
	local i pid delay out written=0
	for i in 1 2 3 4 5 6 7 8; do
		fresh_image
		rm -f "$UNDO" "$UNDO.new"
		delay=$(printf '0.%03d' $((RANDOM % 150)))
		# its own process group: with a wrapper script (sanitizer
		# build), the e4time it runs is killed with it
		setsid "$E4TIME" "${BACKFILL[@]}" "$IMG" >/dev/null \
			2>"$TMP/stderr" &
		pid=$!
		sleep "$delay"
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		# a superblock write's child, if one was running, has made
		# its three writes and let go of e4time's lock
		flock "$IMG" true
		e2fsck -fn "$IMG" >/dev/null 2>&1
		assertEquals "killed after ${delay}s: e2fsck -fn" 0 $?
		if [ -e "$UNDO" ]; then
			continue # finished before the kill
		fi
		if cmp -s "$BASE" "$IMG"; then
			continue # killed before its first write
		fi
		written=$((written + 1))
		out=$(e2undo "$UNDO.new" "$IMG" 2>&1)
		assertEquals "killed after ${delay}s: e2undo: $out" 0 $?
		assertTrue "killed after ${delay}s: e2undo restores" \
			"cmp -s '$BASE' '$IMG'"
	done
	echo "random kills: $written of 8 in the middle of the writes"
}

# SIGINT, SIGTERM and SIGHUP alike: a writer stopped by the test hook
# after its first write, sent the signal and continued, stops between two
# writes (the chunk being written is committed), says so, finishes its
# undo file (renamed: NAME, no NAME.new) and then dies of the signal
# (status 128 + N); the image passes e2fsck -fn and the undo file
# restores it.  Before, SIGTERM and SIGHUP (and SIGINT) killed it
# outright, leaving NAME.new.
test_signals_stop_writers_cleanly() {
	need_image && need_hooks || return 0
	local sig num pid stopped ran=0 what
	for what in backfill import; do
		for sig in INT TERM HUP; do
			num=$(kill -l "$sig")
			fresh_image
			rm -f "$UNDO" "$UNDO.new"
			if [ $what = import ]; then
				E4TIME_TEST_STOP_AFTER=1 "$E4TIME" "${IMPORT[@]}" \
					"$IMG" "$MANIFEST" >/dev/null 2>"$TMP/stderr" &
			else
				E4TIME_TEST_STOP_AFTER=1 "$E4TIME" "${BACKFILL[@]}" \
					--threads 1 "$IMG" >/dev/null 2>"$TMP/stderr" &
			fi
			pid=$!
			stopped=$(wait_stopped "$pid") || {
				kill -KILL "$pid" $(pgrep -P "$pid")
				wait "$pid"
				fail "$what: not stopped by the test hook"
				continue
			}
			kill -"$sig" "$stopped"
			kill -CONT "$stopped"
			wait "$pid"
			RC=$?
			ran=$((ran + 1))
			assertEquals "$what SIG$sig: status: $(cat "$TMP/stderr")" \
				$((128 + num)) "$RC"
			assertContains "$what SIG$sig" "$(cat "$TMP/stderr")" \
				"stopped by a signal"
			assertFalse "$what SIG$sig: no NAME.new" "[ -e '$UNDO.new' ]"
			check_restores "$what SIG$sig" "$UNDO"
		done
	done
	assertEquals "writers and signals" 6 "$ran"
}

# After a kill, NAME.new is the only way back: the next run refuses to
# replace it (16), and goes ahead once it is replayed and removed.
# (Killed after its first write, the first transaction's log: the image
# needs no recovery, which the next run would refuse first.)
test_killed_run_undo_file_is_kept() {
	need_image && need_hooks || return 0
	local size
	fresh_image
	KILL_AFTER=1 run_writer "${BACKFILL[@]}"
	assertEquals "killed" 137 "$RC"
	size=$(stat -c %s "$UNDO.new")
	run_writer "${BACKFILL[@]}"
	assertEquals "the next run is refused: $(cat "$ERR")" 16 "$RC"
	assertEquals "one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "$(cat "$ERR")" "$UNDO.new: Undo file of an interrupted run"
	assertEquals "NAME.new untouched" "$size" "$(stat -c %s "$UNDO.new")"
	check_restores "replayed" "$UNDO.new"
	rm -f "$UNDO.new"
	run_writer "${BACKFILL[@]}"
	assertEquals "then it runs: $(cat "$ERR")" 0 "$RC"
	# an empty NAME.new (killed before it saved anything) is no obstacle
	fresh_image
	rm -f "$UNDO"
	: >"$UNDO.new"
	run_writer "${BACKFILL[@]}"
	assertEquals "an empty NAME.new is replaced: $(cat "$ERR")" 0 "$RC"
	check_restores "after an empty NAME.new" "$UNDO"
}

# UNDO_DIR_SIZE: a tmpfs of that size as the undo directory.
full_undo_dir() {
	mkdir -p "$TMP/small"
	mount -t tmpfs -o "size=$1" tmpfs "$TMP/small" || return 1
	export E2FSPROGS_UNDO_DIR="$TMP/small"
	UNDO=$(default_undo "$TMP/crash.img")
}

# The undo file's filesystem is full after a few regions: the command
# stops (8) with one line naming the undo file; what reached the image
# before is all in the undo file, which restores the original exactly.
# (5 MiB: a transaction saves the regions of the journal's log and of
# the superblock too, before its first write.)
test_undo_disk_full_midway() {
	need_image || return 0
	local cmd
	for cmd in backfill import; do
		full_undo_dir 5m || { fail "tmpfs"; return; }
		fresh_dense_image
		if [ $cmd = backfill ]; then
			run_writer "${BACKFILL[@]}"
		else
			run_writer "${IMPORT[@]}"
		fi
		assertEquals "$cmd: status: $(cat "$ERR")" 8 "$RC"
		assertEquals "$cmd: the error, then the undo line: $(cat "$ERR")" \
			2 "$(wc -l <"$ERR")"
		assertContains "$cmd: $(cat "$ERR")" "$(head -1 "$ERR")" \
			"$UNDO.new: No space left for the undo file: stopped, nothing more was written to the image"
		assertContains "$cmd: $(cat "$ERR")" "$(tail -1 "$ERR")" \
			"undo file $UNDO (to undo: e2undo $UNDO"
		assertFalse "$cmd: no NAME.new left" "[ -e '$UNDO.new' ]"
		check_restores "$cmd: undo file full" "$UNDO"
		umount "$TMP/small"
	done
}

# No room for even the first region: refused before anything is written
# (16, one line naming the undo file); the previous undo file stays.
test_undo_disk_full_at_once() {
	need_image || return 0
	full_undo_dir 64k || { fail "tmpfs"; return; }
	fresh_image
	printf 'E2UNDO02previous' >"$UNDO"
	run_writer "${BACKFILL[@]}"
	assertEquals "status: $(cat "$ERR")" 16 "$RC"
	assertEquals "one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "$(cat "$ERR")" \
		"refusing to write: undo file $UNDO: Less than 1.1 MiB free"
	assertEquals "the image is the original" "$BASE_SUM" \
		"$(sha256sum <"$IMG")"
	assertEquals "the previous undo file stays" E2UNDO02previous \
		"$(cat "$UNDO")"
	assertFalse "no NAME.new left" "[ -e '$UNDO.new' ]"
	umount "$TMP/small"
}

# The first writer is stopped in the middle of its writes (the hook's
# SIGSTOP), holding the image: a second one, through another name of the
# same file, is refused at once, writes nothing and leaves the first's
# undo file alone; the first then finishes.
# (The first writer stopped after its first write, the first
# transaction's log: stopped later, inside a commit, the image needs
# recovery, and the second is refused for that first.)
test_second_writer_refused() {
	need_image && need_hooks || return 0
	local pid stopped size sum
	fresh_image
	ln -s "$IMG" "$TMP/other-name.img"
	E4TIME_TEST_STOP_AFTER=1 "$E4TIME" "${BACKFILL[@]}" "$IMG" \
		>/dev/null 2>"$TMP/first.err" &
	pid=$!
	stopped=$(wait_stopped "$pid") || {
		kill -KILL "$pid"
		fail "the first writer did not stop"
		return
	}
	size=$(stat -c %s "$UNDO.new")
	sum=$(sha256sum <"$IMG")
	for args in "backfill -q --from xattr:user.birth:epoch --policy always" \
		"import -q --policy always" "set -q --crtime @0"; do
		ERR="$TMP/stderr"
		# shellcheck disable=SC2086
		if [ "${args%% *}" = import ]; then
			"$E4TIME" $args "$TMP/other-name.img" "$MANIFEST" \
				>/dev/null 2>"$ERR"
		elif [ "${args%% *}" = set ]; then
			"$E4TIME" $args "$TMP/other-name.img" /d01/f001 \
				>/dev/null 2>"$ERR"
		else
			"$E4TIME" $args "$TMP/other-name.img" >/dev/null 2>"$ERR"
		fi
		RC=$?
		check_reports "second writer"
		assertEquals "${args%% *}: refused: $(cat "$ERR")" 16 "$RC"
		assertEquals "${args%% *}: one line: $(cat "$ERR")" 1 \
			"$(wc -l <"$ERR")"
		assertContains "$(cat "$ERR")" \
			"refusing to write: Another e4time is writing to this image"
		assertEquals "${args%% *}: the image is as the first left it" \
			"$sum" "$(sha256sum <"$IMG")"
		assertEquals "${args%% *}: the first's undo file untouched" \
			"$size" "$(stat -c %s "$UNDO.new")"
	done
	kill -CONT "$stopped"
	wait "$pid"
	assertEquals "the first finishes: $(cat "$TMP/first.err")" 0 $?
	check_reports "first writer"
	check_restores "the first writer" "$UNDO"
}

# The same through a loop device on the image file, both ways: a writer
# stopped mid-write on the file refuses one through a loop device
# attached since (the lock is on the backing file), and one stopped on
# the loop device refuses one through the file (its exclusive claim on
# the device).
test_second_writer_through_a_loop_device() {
	need_image && need_hooks || return 0
	local pid stopped sum l target first other
	for target in file loop; do
		fresh_image
		l=
		first=$IMG
		if [ $target = loop ]; then
			l=$(losetup -f --show "$IMG") || { fail "losetup"; return; }
			first=$l other=$IMG
		fi
		rm -f "$TMP/u1" "$TMP/u1.new"
		E4TIME_TEST_STOP_AFTER=1 "$E4TIME" "${BACKFILL[@]}" -z "$TMP/u1" \
			"$first" >/dev/null 2>"$TMP/first.err" &
		pid=$!
		stopped=$(wait_stopped "$pid") || {
			kill -KILL "$pid"
			[ -n "$l" ] && losetup -d "$l"
			fail "$target: the first writer did not stop"
			return
		}
		# (attached after the first started: only the lock on the
		# backing file stands in the way)
		if [ $target = file ]; then
			l=$(losetup -f --show "$IMG") || { fail "losetup"; return; }
			other=$l
		fi
		sum=$(sha256sum <"$IMG")
		run set -q --crtime @0 -z "$TMP/u2" "$other" /d01/f001
		assertEquals "$target: refused: $(cat "$ERR")" 16 "$RC"
		assertEquals "$target: one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
		if [ $target = file ]; then
			assertContains "$(cat "$ERR")" \
				"$l: refusing to write: Another e4time is writing to this image"
		else
			assertContains "$(cat "$ERR")" "$l is in exclusive use"
		fi
		assertEquals "$target: the image is as the first left it" \
			"$sum" "$(sha256sum <"$IMG")"
		assertFalse "$target: no second undo file" "[ -e '$TMP/u2' ]"
		kill -CONT "$stopped"
		wait "$pid"
		assertEquals "$target: the first finishes: $(cat "$TMP/first.err")" 0 $?
		check_reports "first writer"
		losetup -d "$l"
		check_restores "the first writer ($target)" "$TMP/u1"
	done
}

# --- what is printed when the undo file fills (e4time issue 24, item 3) ---
#
# Images of 6000 files made by mke2fs -d (no mount needed): 60
# directories of 100 empty files, each with a user.birth xattr and a
# manifest line, all with a crtime (E2FSPROGS_FAKE_TIME, 2033) later than
# their ctime (check's T0005, and T0006 against mtime).  No journal (the
# windows written in place, not in its transactions).  No flex_bg: each
# group's inode table lies in a 1 MiB region of the undo file of its own,
# so the 3 MiB undo directory fills at the third group, mid-run, and the
# window that fails wrote nothing (a window whose blocks lie in two
# regions can write its first region's before the second's save fails:
# those inodes are on the image, not printed).  Layout big: 1024 inodes
# a group (a window holds a chunk); small: 64 (a chunk's window moves on,
# and fails, in the middle of it).

UF_DIRS=60
UF_FILES=100

# uf_image LAYOUT: $UF_BASE (and $UF_MANIFEST), made once; status 1 (the
# test skipped, visibly) when user xattrs cannot be set under $TMP.
uf_image() {
	local layout=(-g 1024 -N 8192) size=32M
	[ "$1" = small ] && layout=(-g 256 -N 8192) size=128M
	UF_BASE="$TMP/uf-$1.img"
	UF_MANIFEST="$TMP/uf-manifest.jsonl"
	[ -s "$UF_BASE" ] && return 0
	[ -s "$UF_MANIFEST" ] && uf_mkfs "${layout[@]}" $size && return 0
	rm -rf "$TMP/uf-tree"
	mkdir "$TMP/uf-tree" || return 1
	python3 - "$TMP/uf-tree" "$UF_MANIFEST" "$UF_DIRS" "$UF_FILES" <<'EOF' || {
import os, sys
tree, manifest, ndirs, nfiles = sys.argv[1], sys.argv[2], \
	int(sys.argv[3]), int(sys.argv[4])
with open(manifest, 'w') as m:
	for d in range(ndirs):
		os.mkdir('%s/d%02d' % (tree, d))
		for f in range(nfiles):
			rel = '/d%02d/f%03d' % (d, f)
			open(tree + rel, 'w').close()
			t = 1000000000 - d * 1000 - f
			os.setxattr(tree + rel, 'user.birth', str(t).encode())
			m.write('{"path":"%s","crtime":{"sec":%d,"nsec":%d}}\n'
				% (rel, t, f * 1000))
EOF
		skip_test "no user xattrs under $TMP"
		return 1
	}
	uf_mkfs "${layout[@]}" $size
}

# uf_mkfs MKFS_ARGS... SIZE: $UF_BASE, from the tree.
uf_mkfs() {
	E2FSPROGS_FAKE_TIME=2000000000 mkfs.ext4 -q -F -b 4096 -I 256 \
		-O ^flex_bg,^resize_inode,^has_journal -d "$TMP/uf-tree" \
		"$UF_BASE" "$@" >/dev/null 2>&1 && return 0
	fail "mke2fs -d"
	return 1
}

# uf_changed BASE IMG: the inodes whose bytes differ between the two
# images, one a line, in order (the inode tables as dumpe2fs finds them).
uf_changed() {
	python3 - "$1" "$2" <<'EOF'
import re, subprocess, sys
base, img = sys.argv[1], sys.argv[2]
sb = subprocess.run(["dumpe2fs", base], capture_output=True, text=True).stdout
bs = int(re.search(r"Block size:\s+(\d+)", sb).group(1))
isz = int(re.search(r"Inode size:\s+(\d+)", sb).group(1))
ipg = int(re.search(r"Inodes per group:\s+(\d+)", sb).group(1))
tables = [int(t) for t in re.findall(r"Inode table at (\d+)-", sb)]
with open(base, "rb") as a, open(img, "rb") as b:
	for g, t in enumerate(tables):
		a.seek(t * bs)
		b.seek(t * bs)
		x, y = a.read(ipg * isz), b.read(ipg * isz)
		for i in range(ipg):
			if x[i * isz:(i + 1) * isz] != y[i * isz:(i + 1) * isz]:
				print(g * ipg + i + 1)
EOF
}

# uf_printed KIND FMT: the inodes the output ($TMP/uf.out) says were
# written, in order: KIND import or backfill, each line (each "changed"
# record); check, each line that ends "? yes" (each "fixed":true record).
uf_printed() {
	python3 - "$1" "$2" "$TMP/uf.out" <<'EOF' | sort -nu
import json, re, sys
kind, fmt, out = sys.argv[1], sys.argv[2], sys.argv[3]
for line in open(out):
	if fmt == "jsonl":
		r = json.loads(line)
		if r.get("action") == "changed" or r.get("fixed") is True:
			print(r["ino"])
	elif kind != "check" or line.rstrip("\n").endswith("? yes"):
		m = re.match(r"^/\S* <(\d+)>: ", line)
		if m:
			print(m.group(1))
EOF
}

# uf_run FMT CMD ARGS...: e4time CMD ARGS -f FMT (import: on the
# manifest) on a copy of $UF_BASE, its undo file on a 3 MiB tmpfs; it
# stops with status 8, what it prints as written is what the image holds
# (each inode whose bytes changed, and no other), the summary is there
# with that count and says why it stopped, the undo file it names gives
# back the image.  Status 1 when the tmpfs cannot be mounted (skipped).
uf_run() {
	local fmt="$1" kind="$2" out="$TMP/uf.out" err="$TMP/uf.err"
	local what undo n
	shift
	what="$* -f $fmt"
	mkdir -p "$TMP/small"
	mount -t tmpfs -o size=3m tmpfs "$TMP/small" 2>/dev/null || {
		skip_test "cannot mount a tmpfs for the undo file"
		return 1
	}
	export E2FSPROGS_UNDO_DIR="$TMP/small"
	IMG="$TMP/uf.img"
	rm -f "$IMG"
	cp --sparse=never "$UF_BASE" "$IMG"
	ERR=$err
	if [ "$kind" = import ]; then
		"$E4TIME" "$@" -f "$fmt" "$IMG" "$UF_MANIFEST" >"$out" 2>"$err"
	else
		"$E4TIME" "$@" -f "$fmt" "$IMG" >"$out" 2>"$err"
	fi
	RC=$?
	check_stderr "e4time $what"
	check_reports "e4time $what"
	assertEquals "$what: status 8 (undo file full): $(cat "$err")" 8 "$RC"
	assertContains "$what: the error: $(cat "$err")" "$(cat "$err")" \
		"e2undo.new: No space left for the undo file"
	uf_changed "$UF_BASE" "$IMG" >"$TMP/uf.changed"
	uf_printed "$kind" "$fmt" >"$TMP/uf.printed"
	n=$(wc -l <"$TMP/uf.changed")
	assertTrue "$what: stopped mid-run ($n inodes written)" \
		"[ $n -gt 0 ] && [ $n -lt 6000 ]"
	assertEquals "$what: the inodes printed as written are those written" \
		"$(cat "$TMP/uf.changed")" "$(cat "$TMP/uf.printed")"
	n=$(wc -l <"$TMP/uf.printed")
	case "$kind $fmt" in
	import*)
		assertContains "$what: summary: $(cat "$err")" "$(cat "$err")" \
			"import: 6000 entries, $n changed, 0 unchanged, 0 refused, 0 unmatched, 0 ambiguous, 0 without a time; stopped: No space left for the undo file"
		if [ "$fmt" = jsonl ]; then
			# and the summary record last, with the same count
			assertEquals "$what: a record per inode, the summary" \
				"$((n + 1))" "$(wc -l <"$out")"
			assertContains "$what: summary: $(tail -1 "$out")" \
				"$(tail -1 "$out")" \
				"\"changed\":$n,\"unchanged\":0,\"refused\":0,\"stopped\":\"No space left for the undo file"
		else
			assertEquals "$what: a line per inode" "$n" \
				"$(wc -l <"$out")"
		fi
		;;
	backfill*)
		assertContains "$what: summary: $(cat "$err")" "$(cat "$err")" \
			"files scanned, $n changed; skipped: "
		assertContains "$what: summary: $(cat "$err")" "$(cat "$err")" \
			" no xattr; stopped: No space left for the undo file"
		# a failed window is not a file that could not be read
		assertNotContains "$what: $(cat "$err")" "$(cat "$err")" \
			"unreadable"
		;;
	"check text")
		# two fixes an inode, T0005 and T0006 (with it): written, or not
		assertContains "$what: summary: $(tail -3 "$out")" \
			"$(tail -3 "$out")" \
			"6060 problems ($n fixed, $((6060 - n)) left), 12128 warnings ($n fixed); stopped: No space left for the undo file"
		assertEquals "$what: a '? yes' per fix written" $((2 * n)) \
			"$(grep -c '? yes$' "$out")"
		assertEquals "$what: the others not written" \
			$((2 * (6060 - n))) \
			"$(grep -c '? not written (the run stopped)$' "$out")"
		assertEquals "$what: a line per problem" 18188 \
			"$(grep -c ' <[0-9]*>: T000' "$out")"
		;;
	"check jsonl")
		assertContains "$what: summary: $(tail -1 "$out")" \
			"$(tail -1 "$out")" \
			"\"fixed\":$n,\"left\":$((6060 - n)),\"warnings\":12128,\"warnings_fixed\":$n,\"cancelled\":false,\"stopped\":\"No space left for the undo file"
		;;
	esac
	undo=$(sed -n 's/.*: undo file \(.*\) (to undo: .*/\1/p' "$err")
	assertTrue "$what: the undo file named: $(cat "$err")" "[ -s '$undo' ]"
	e2fsck -fn "$IMG" >"$TMP/fsck" 2>&1
	assertEquals "$what: e2fsck -fn: $(tail -3 "$TMP/fsck")" 0 $?
	e2undo "$undo" "$IMG" >/dev/null 2>&1
	assertEquals "$what: e2undo" 0 $?
	assertTrue "$what: e2undo gives back the image byte for byte" \
		"cmp -s '$UF_BASE' '$IMG'"
	umount "$TMP/small"
	return 0
}

# import, on one thread and on two (then a chunk after the one that
# failed may have written: it is printed too), text and jsonl.
test_undo_full_import_prints_what_was_written() {
	local n=0 t fmt
	uf_image big || return 0
	for t in 1 2; do
		for fmt in text jsonl; do
			uf_run $fmt import --policy always --threads $t || return 0
			n=$((n + 1))
		done
	done
	uf_image small || return 0
	uf_run text import --policy always --threads 1 || return 0
	assertEquals "runs" 5 $((n + 1))
}

test_undo_full_backfill_prints_what_was_written() {
	local n=0 t fmt
	uf_image big || return 0
	for t in 1 2; do
		for fmt in text jsonl; do
			uf_run $fmt backfill --from xattr:user.birth:epoch \
				--policy always --threads $t || return 0
			n=$((n + 1))
		done
	done
	uf_image small || return 0
	for t in 1 2; do
		uf_run text backfill --from xattr:user.birth:epoch \
			--policy always --threads $t || return 0
		n=$((n + 1))
	done
	assertEquals "runs" 6 "$n"
}

# check -y: "? yes" only for a fix written, every problem's line still
# there; the summary (fixed, left) after the error; jsonl the same.
test_undo_full_check_yes_answers_what_was_written() {
	local n=0 fmt
	uf_image big || return 0
	for fmt in text jsonl; do
		uf_run $fmt check -y --crtime-from ctime || return 0
		n=$((n + 1))
	done
	uf_image small || return 0
	uf_run text check -y --crtime-from ctime || return 0
	assertEquals "runs" 3 $((n + 1))
}

. shunit2
