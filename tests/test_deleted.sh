#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_deleted.sh --- timeline --deleted: names of deleted files from
# directory slack, against The Sleuth Kit's fls and the kernel.
#
# Images are built here: mkfs.ext4 -d from a tree (a linear directory, one
# made an htree by e2fsck -D, an inline-data directory), files removed
# with debugfs "rm" (e2fsprogs' ext2fs_unlink leaves the name in slack),
# one freed inode taken again by debugfs "write" (deleted-realloc).  fls
# -r -d -p on the same image: every name fls finds that was a real file
# there, e4time finds, with the same inode and marking, and e4time
# invents none.  As root with loop devices, files written by the kernel,
# their times taken with stat(1) before debugfs removes them: a deleted
# row has the name, the inode and those times; and on this kernel (Linux
# 5.13 and later wipe the name on unlink) a kernel rm leaves no name, and
# the row is "<INO>" with name_source "none" when the journal no longer
# holds the directory block, and the journal's name when it does: with
# --journal, the inode's journaled states give the times stat(1) saw
# before the deletion (live log and stale transactions).  Random bytes in
# slack give no name.  A deleted inode named from the journal is shown as
# the journal held it before the deletion (mode, size, owner, the four
# times stat(1) gave), with its name's transaction (source
# journal-predelete), in linear and inline-data directories (i_block and
# the system.data xattr of the directory's journaled inode).  On
# images/ext4-reuse, every journal row carries the name of its own file
# (inode numbers used again, renames: tests/check_jnames.py).  Every run
# goes through run_ro: the image stays byte-identical.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools mkfs.ext4 debugfs e2fsck fls jq python3 || return 1
	probe_mount
	local d="$TMP/src" i
	mkdir -p "$d/lin" "$d/htree" "$d/inl/sub" || return 1
	for i in 1 2 3 4 5 6; do echo "$i" >"$d/lin/file_$i.txt"; done
	for i in $(seq 1 200); do echo "$i" >"$d/htree/name_number_$i"; done
	echo a >"$d/inl/a1"
	echo b >"$d/inl/b2"
	echo c >"$d/inl/c3"
	truncate -s 16M "$TMP/base.img" &&
		mkfs.ext4 -q -F -b 1024 -O inline_data,dir_index,^metadata_csum \
			-U 0e4d0e4d-1414-4141-8e4d-0e4d0e4d1414 \
			-E hash_seed=14141414-0e4d-4d0e-a14a-141414141414 \
			-d "$d" "$TMP/base.img" >/dev/null 2>&1 || return 1
	# an htree: e2fsck -D indexes the big directory
	e2fsck -fyD "$TMP/base.img" >/dev/null 2>&1
	debugfs -R "stat /htree" "$TMP/base.img" 2>/dev/null |
		grep -q 'Flags: 0x[0-9a-f]*1[0-9a-f]\{3\}$' || {
		echo "test_deleted: /htree is not indexed" >&2
		return 1
	}
	"$E4TIME" timeline -f jsonl "$TMP/base.img" >"$TMP/base.jsonl" ||
		return 1
	cp "$TMP/base.img" "$TMP/rm.img"
	for i in /lin/file_2.txt /lin/file_5.txt /htree/name_number_17 \
		/htree/name_number_150 /htree/name_number_151 /inl/b2; do
		debugfs -w -R "rm $i" "$TMP/rm.img" >/dev/null 2>&1 || return 1
	done
	echo new >"$TMP/newfile"
	debugfs -w -R "write $TMP/newfile /newfile" "$TMP/rm.img" \
		>/dev/null 2>&1 || return 1
}

# deleted_rows IMAGE: "INO PATH STATUS SOURCE" of every non-live jsonl row
deleted_rows() {
	run_ro "$1" timeline -d -f jsonl "$1"
	assertEquals "timeline -d: $(head -3 "$ERR")" 0 "$RC"
	jq -r 'select(.status != "live") |
		"\(.ino) \(.path) \(.status) \(.name_source)"' "$OUT" | sort
}

# fls_rows IMAGE: "INO /PATH deleted|deleted-realloc" of fls -r -d -p
fls_rows() {
	fls -r -d -p "$1" | sed -n \
		-e 's#^[^ ]* \* \([0-9]*\)(realloc):\t\(.*\)$#\1 /\2 deleted-realloc#p' \
		-e 's#^[^ ]* \* \([0-9]*\):\t\(.*\)$#\1 /\2 deleted#p' |
		grep -v ' /\$OrphanFiles/' | sort
}

test_slack_names_linear_htree_inline() {
	local rows
	rows=$(deleted_rows "$TMP/rm.img")
	# the base image's inode numbers: the names were theirs
	local p ino
	for p in /lin/file_2.txt /lin/file_5.txt /htree/name_number_17 \
		/htree/name_number_151 /inl/b2; do
		ino=$(jq -r --arg p "$p" 'select(.path == $p) | .ino' \
			"$TMP/base.jsonl")
		assertContains "$p: $rows" "$rows" "$ino $p deleted slack"
	done
	ino=$(jq -r 'select(.path == "/htree/name_number_150") | .ino' \
		"$TMP/base.jsonl")
	assertContains "$rows" "$ino /htree/name_number_150 deleted-realloc slack"
	assertEquals "newfile has the freed inode" "$ino" \
		"$(debugfs -R 'stat /newfile' "$TMP/rm.img" 2>/dev/null |
			sed -n 's/^Inode: \([0-9]*\) .*/\1/p')"
}

test_times_before_deletion() {
	# debugfs rm sets dtime only: the deleted row has the live times
	run_ro "$TMP/rm.img" timeline -d -f jsonl "$TMP/rm.img"
	local p
	for p in /lin/file_2.txt /htree/name_number_17 /inl/b2; do
		assertEquals "$p times" \
			"$(jq -c --arg p "$p" 'select(.path == $p) |
				[.ino, .size, .atime, .mtime, .ctime, .crtime]' \
				"$TMP/base.jsonl")" \
			"$(jq -c --arg p "$p" 'select(.path == $p) |
				[.ino, .size, .atime, .mtime, .ctime, .crtime]' "$OUT")"
		assertNotEquals "$p dtime" null \
			"$(jq -c --arg p "$p" 'select(.path == $p) | .dtime' "$OUT")"
	done
}

# Every name fls finds that was a real file, e4time finds, marked alike;
# every name e4time gives was a real file with that inode.
test_fls_names_are_found() {
	local e f real
	e=$(deleted_rows "$TMP/rm.img" | awk '$4 == "slack" {print $1, $2, $3}')
	f=$(fls_rows "$TMP/rm.img")
	real=$(jq -r '"\(.ino) \(.path)"' "$TMP/base.jsonl" | sort)
	assertNotNull "fls found names" "$f"
	local ino path st
	while read -r ino path st; do
		grep -qxF "$ino $path" <<<"$real" || continue # fls's false entry
		assertContains "fls: $ino $path $st; e4time: $e" \
			"$e" "$ino $path $st"
	done <<<"$f"
	while read -r ino path st; do
		assertTrue "e4time invented $ino $path" \
			"grep -qxF '$ino $path' <<<'$real'"
	done <<<"$e"
	assertEquals "6 names" 6 "$(grep -c . <<<"$e")"
}

test_bodyfile_names_as_fls_prints_them() {
	run_ro "$TMP/rm.img" timeline -d -f bodyfile "$TMP/rm.img"
	local e f real
	e=$(grep ' (deleted' "$OUT" | cut -d'|' -f2,3 | grep -v '|<' | sort)
	# fls's own false entries (a name read from an htree index block,
	# "/htree/^" here) are left out: those that were real files stay
	real=$(jq -r '"\(.path) (deleted\(if .path == "/htree/name_number_150" then "-realloc" else "" end))|\(.ino)"' \
		"$TMP/base.jsonl")
	f=$(fls -m / -r -d "$TMP/rm.img" | cut -d'|' -f2,3 | grep -xFf <(echo "$real") | sort)
	assertEquals "fls's false entry is there" 1 \
		"$(fls -m / -r -d "$TMP/rm.img" | cut -d'|' -f2,3 | grep -cvxFf <(echo "$real"))"
	assertEquals "fls -m names" "$f" "$e"
}

test_csv_and_timesketch_name_source() {
	run_ro "$TMP/rm.img" timeline -d -f csv "$TMP/rm.img"
	assertEquals "csv header" \
		"path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,dtime,status,name_source,source,tid,commit_time" \
		"$(head -1 "$OUT" | tr -d '\r')"
	assertContains "$(cat "$OUT")" "/inl/b2,"
	assertContains "$(grep '^/inl/b2,' "$OUT")" ",deleted,slack,disk,,"
	run_ro "$TMP/rm.img" timeline -d -f timesketch "$TMP/rm.img"
	assertEquals "timesketch slack rows" slack \
		"$(jq -r 'select(.path == "/inl/b2") | .name_source' "$OUT" |
			sort -u)"
}

test_without_deleted_nothing_changes() {
	run_ro "$TMP/rm.img" timeline -f csv "$TMP/rm.img"
	assertEquals "csv header" \
		"path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,dtime,status" \
		"$(head -1 "$OUT" | tr -d '\r')"
	run_ro "$TMP/rm.img" timeline -f jsonl "$TMP/rm.img"
	assertEquals "no name_source, no deleted row" 0 \
		"$(grep -c 'name_source\|"deleted' "$OUT")"
	# the rows are the live names TSK lists (fls -u: allocated only)
	assertEquals "the live names, as fls -r -u" \
		"$(fls -r -u -p "$TMP/rm.img" | cut -f2- | grep -v '^\$OrphanFiles' |
			sed 's|^|/|' | sort)" \
		"$(jq -r 'select(.path != "/") | .path' "$OUT" | sort)"
	# a subtree never shows deleted rows
	run_ro "$TMP/rm.img" timeline -d -f jsonl "$TMP/rm.img" /lin
	assertEquals "subtree" 0 "$(grep -c 'name_source\|"deleted' "$OUT")"
}

test_random_slack_gives_no_name() {
	local img="$TMP/noise.img" blk i
	cp "$TMP/base.img" "$img"
	# /lin's one block: live entries, then fill every gap with noise
	blk=$(debugfs -R "blocks /lin" "$img" 2>/dev/null | awk '{print $1}')
	python3 - "$img" "$blk" <<'PYEOF'
import random, struct, sys
img, blk = sys.argv[1], int(sys.argv[2])
bs = 1024
random.seed(14)
with open(img, "r+b") as f:
    f.seek(blk * bs)
    b = bytearray(f.read(bs))
    off = 0
    while off + 8 <= bs:
        ino, rl, nl = struct.unpack_from("<IHB", b, off)
        used = 8 + ((nl + 3) & ~3)
        for i in range(off + used, off + rl):
            b[i] = random.randrange(256)
        off += rl
    f.seek(blk * bs)
    f.write(b)
PYEOF
	run_ro "$img" timeline -d -f jsonl "$img"
	assertEquals "no slack name from noise: $(head -3 "$ERR")" 0 \
		"$(grep -c '"name_source":"slack"' "$OUT")"
}

# The kernel: files written and stat'ed on a loop mount; debugfs rm keeps
# the names, the kernel's rm (5.13 and later) wipes them.
test_kernel_files_debugfs_and_kernel_rm() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/k.img" mnt i
	truncate -s 32M "$img"
	# a fixed hash seed: the same htree leaves every run (a name first in
	# its block loses its inode number on unlink, and then its name)
	mkfs.ext4 -q -F -O dir_index -U 0e4d0e4d-1414-4141-8e4d-0e4d0e4d1415 \
		-E hash_seed=14141414-0e4d-4d0e-a14a-141414141415 "$img" \
		>/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir -p "$mnt/d/sub" "$mnt/big"
	for i in 1 2 3 4 5; do echo "x$i" >"$mnt/d/f$i"; done
	echo in >"$mnt/d/sub/inner"
	for i in $(seq 1 300); do echo "$i" >"$mnt/big/a_longer_name_$i"; done
	touch -d '2001-02-03 04:05:06.123456789' "$mnt/d/f2"
	sync
	(cd "$mnt" && stat -c '%i /%n %.9X %.9Y %.9Z' d/f2 d/f4 \
		d/sub/inner big/a_longer_name_77) >"$TMP/k.truth"
	rm "$mnt/d/f3"
	sync
	umount "$mnt"
	rmdir "$mnt"
	# debugfs rm on a copy: names stay
	cp "$img" "$TMP/k-rm.img"
	for i in /d/f2 /d/f4 /d/sub/inner /big/a_longer_name_77; do
		debugfs -w -R "rm $i" "$TMP/k-rm.img" >/dev/null 2>&1
	done
	run_ro "$TMP/k-rm.img" timeline -d -f jsonl "$TMP/k-rm.img"
	local ino path at mt ct
	while read -r ino path at mt ct; do
		assertEquals "$path" "$ino $path deleted slack $at $mt $ct" \
			"$(jq -r --arg p "$path" 'select(.path == $p) |
				"\(.ino) \(.path) \(.status) \(.name_source) \(.atime.sec).\(.atime.nsec) \(.mtime.sec).\(.mtime.nsec) \(.ctime.sec).\(.ctime.nsec)"' "$OUT" |
				awk '{ for (i = 5; i <= 7; i++) { split($i, a, "."); $i = sprintf("%s.%09d", a[1], a[2]) } print }')"
	done <"$TMP/k.truth"
	# the kernel's rm of /d/f3 left no name in slack; the journal has it
	run_ro "$img" timeline -d -f jsonl "$img"
	assertEquals "kernel rm leaves no name" 0 \
		"$(grep -c '"name_source":"slack"' "$OUT")"
	assertEquals "one deleted inode, named by the journal" \
		"/d/f3 journal" \
		"$(jq -r 'select(.status == "deleted") | "\(.path) \(.name_source)"' "$OUT")"
	assertEquals "fls finds no name either" "" "$(fls_rows "$img")"
}

# Entries whose inode number is 0 but whose name is left (older kernels
# and ext2fs_unlink() zero the inode of the first entry of a block; some
# tools zero it in any entry; dfvfs's image.vhd has three, which fls and
# debugfs show).  Hand-built: Linux 5.13 and later wipe the whole entry,
# so the kernel writes the files, then debugfs rm removes them (the first
# entry of an htree leaf block loses its inode number, the others merge
# into the entry before), and the inode field of three merged entries is
# zeroed by hand.  Every such name fls -r -d and debugfs ls -d list is a
# row "deleted-noinode" with inode 0 and no times, and no other.
test_noinode_names_as_fls_and_debugfs() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/noino.img" mnt n i firsts e f dbg
	truncate -s 8M "$img"
	mkfs.ext4 -q -F -b 1024 -O ^metadata_csum \
		-U 0e4d0e4d-1414-4141-8e4d-0e4d0e4d1428 \
		-E hash_seed=14141414-0e4d-4d0e-a14a-141414141428 "$img" \
		>/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir "$mnt/docs" "$mnt/big"
	for n in another_file .another_file.swp another_file~ passwords.txt \
		passwords.txt~ keep.txt; do
		echo "$n" >"$mnt/docs/$n"
	done
	for i in $(seq 1 300); do echo "$i" >"$mnt/big/name_$i"; done
	sync
	umount "$mnt"
	rmdir "$mnt"
	# the first entries of /big's leaf blocks 2 and 5 (the kernel's
	# htree, from the fixed hash seed)
	firsts=$(python3 - "$img" <<'PYEOF'
import struct, subprocess, sys
img = sys.argv[1]
blks = subprocess.run(["debugfs", "-R", "blocks /big", img],
                      capture_output=True, text=True).stdout.split()
with open(img, "rb") as f:
    for k in (2, 5):
        f.seek(int(blks[k]) * 1024)
        b = f.read(1024)
        ino, rl, nl = struct.unpack_from("<IHB", b, 0)
        print("/big/" + b[8:8 + nl].decode())
PYEOF
)
	assertEquals "two first entries" 2 "$(grep -c . <<<"$firsts")"
	for n in $firsts /docs/.another_file.swp /docs/another_file~ \
		/docs/passwords.txt~; do
		debugfs -w -R "rm $n" "$img" >/dev/null 2>&1
	done
	# zero the inode of the three merged entries of /docs
	python3 - "$img" <<'PYEOF'
import struct, subprocess, sys
img = sys.argv[1]
names = [b".another_file.swp", b"another_file~", b"passwords.txt~"]
blk = int(subprocess.run(["debugfs", "-R", "blocks /docs", img],
                         capture_output=True, text=True).stdout.split()[0])
with open(img, "r+b") as f:
    f.seek(blk * 1024)
    b = bytearray(f.read(1024))
    done = 0
    for off in range(0, 1024 - 8, 4):
        ino, rl, nl = struct.unpack_from("<IHB", b, off)
        if ino and nl and bytes(b[off + 8:off + 8 + nl]) in names:
            struct.pack_into("<I", b, off, 0)
            done += 1
    assert done == 3, done
    f.seek(blk * 1024)
    f.write(b)
PYEOF
	run_ro "$img" timeline -d -f jsonl "$img"
	assertEquals "$(head -3 "$ERR")" 0 "$RC"
	e=$(jq -r 'select(.status == "deleted-noinode") |
		"\(.ino) \(.path) \(.type) \(.name_source) \(.atime) \(.mtime) \(.ctime) \(.crtime) \(.dtime)"' \
		"$OUT" | sort)
	f=$(fls -r -d -p "$img" | sed -n 's#^r/- \* 0:\t\(.*\)$#0 /\1 reg slack null null null null null#p' | sort)
	assertEquals "5 names" 5 "$(grep -c . <<<"$f")"
	assertEquals "as fls -r -d" "$f" "$e"
	# debugfs ls -d: "<0> (REC) NAME" in slack, " 0  (REC) NAME" first
	dbg=$( (debugfs -R "ls -d /docs" "$img"
		debugfs -R "ls -d /big" "$img") 2>/dev/null |
		grep -o '\(<0>\|^ *0 \|    0 \) *([0-9]*) [^ ]\+' |
		awk '{print $NF}' | sort)
	assertEquals "as debugfs ls -d" \
		"$(awk '{sub(".*/", "", $2); print $2}' <<<"$f" | sort)" "$dbg"
	# text, bodyfile and mactime: the suffix, inode 0, no times (as fls -m)
	run_ro "$img" timeline -d -f text "$img"
	assertEquals "text" 5 "$(grep -c ' 0 -\{10\} \+0 /.* (deleted, no inode)$' "$OUT")"
	run_ro "$img" timeline -d -f mactime "$img"
	assertEquals "mactime as fls -m" \
		"$(fls -m / -r -d "$img" | grep '^0|[^|]*|0|r/-' |
			sed 's/ (deleted)|/ (deleted, no inode)|/' | sort)" \
		"$(grep '(deleted, no inode)' "$OUT" | sort)"
	run_ro "$img" timeline -d -f bodyfile "$img"
	assertEquals "bodyfile" 5 \
		"$(grep -c '^0|/[^|]* (deleted, no inode)|0|----------|0|0|0||||0$' "$OUT")"
	# without --deleted, nothing
	run_ro "$img" timeline -f jsonl "$img"
	assertEquals "not without -d" 0 "$(grep -c noinode "$OUT")"
}

# The kernel wipes names on unlink, but the journal keeps the directory
# blocks and the inodes as they were: names, parent paths, inodes and
# the times stat(1) gave before the deletion, from the live log (image
# copied while mounted) and from stale transactions (after unmount).
test_kernel_journal_names_and_states() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/j.img" mnt i
	truncate -s 64M "$img"
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir -p "$mnt/docs/sub"
	for i in 1 2 3 4 5; do echo "data $i" >"$mnt/docs/report_$i.txt"; done
	echo secret >"$mnt/docs/sub/secret.txt"
	chmod 600 "$mnt/docs/report_2.txt"
	chown 1000:1001 "$mnt/docs/report_2.txt"
	touch -a -d '2003-04-05 06:07:08.5' "$mnt/docs/sub/secret.txt"
	sync
	(cd "$mnt" && stat -c '%i /%n %s %.9X %.9Y %.9Z %.9W %a %u %g' \
		docs/report_2.txt docs/sub/secret.txt) >"$TMP/j.truth"
	sleep 1
	rm "$mnt/docs/report_2.txt" "$mnt/docs/sub/secret.txt"
	sync
	cp "$img" "$TMP/j-live.img"
	umount "$mnt"
	rmdir "$mnt"
	local f ino path size at mt ct cr mode uid gid tid
	for f in "$TMP/j-live.img" "$img"; do
		run_ro "$f" timeline -d --journal -f jsonl "$f"
		assertEquals "$f: $(head -3 "$ERR")" 0 "$RC"
		while read -r ino path size at mt ct cr mode uid gid; do
			# the deleted row: the inode before the deletion, the
			# disk's links count and dtime, the name's transaction
			assertEquals "$f: deleted row of $path" \
				"$ino deleted journal 0 true $size $at $mt $ct $cr $mode $uid $gid" \
				"$(jq -r --arg p "$path" 'select(.path == $p and .source == "journal-predelete") |
					"\(.ino) \(.status) \(.name_source) \(.links) \(.dtime != null) \(.size) \(.atime.sec).\(.atime.nsec) \(.mtime.sec).\(.mtime.nsec) \(.ctime.sec).\(.ctime.nsec) \(.crtime.sec).\(.crtime.nsec) \(.mode | ltrimstr("0")) \(.uid) \(.gid)"' "$OUT" |
					awk '{ for (i = 7; i <= 10; i++) { split($i, a, "."); $i = sprintf("%s.%09d", a[1], a[2]) } print }')"
			tid=$(jq -r --arg p "$path" 'select(.path == $p and .source == "journal-predelete") | "\(.tid) \(.commit_time != null)"' "$OUT")
			assertEquals "$f: $path name's tid" true "${tid#* }"
			# the journal's states: the one before the deletion is
			# the deleted row's, not a row again; the deletion's
			# own copy (links 0, size 0) is one
			assertEquals "$f: $path state before deletion once" 1 \
				"$(jq -r --arg p "$path" 'select(.path == $p) |
					"\(.atime.sec).\(.atime.nsec) \(.mtime.sec).\(.mtime.nsec) \(.ctime.sec).\(.ctime.nsec) \(.size)"' "$OUT" |
					awk '{ split($3, a, "."); $3 = sprintf("%s.%09d", a[1], a[2]) } 1' |
					grep -c " ${ct} ${size}$")"
			assertEquals "$f: $path deletion's copy" "0 0" \
				"$(jq -r --arg p "$path" 'select(.path == $p and .source == "journal") | "\(.links) \(.size)"' "$OUT" | tail -1)"
		done <"$TMP/j.truth"
		# fls cannot: the kernel wiped the names
		assertEquals "$f: fls finds no name" "" "$(fls_rows "$f")"
		read -r ino path size at mt ct cr mode uid gid <"$TMP/j.truth"
		tid=$(jq -r 'select(.path == "/docs/report_2.txt" and .source == "journal-predelete") | .tid' "$OUT")
		run_ro "$f" timeline -d --journal -f bodyfile "$f"
		assertContains "$(cat "$OUT")" "|/docs/report_2.txt (journal tid "
		assertEquals "$f: bodyfile row before the deletion" \
			"0|/docs/report_2.txt (journal tid $tid) (deleted)|$ino|-rw-------|$uid|$gid|$size|$at|$mt|$ct|$cr" \
			"$(grep -Fx "0|/docs/report_2.txt (journal tid $tid) (deleted)|$ino|-rw-------|$uid|$gid|$size|$at|$mt|$ct|$cr" "$OUT")"
		run_ro "$f" timeline -d --journal -f csv "$f"
		assertEquals "$f: csv header" \
			"path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,dtime,status,name_source,source,tid,commit_time,generation" \
			"$(head -1 "$OUT" | tr -d '\r')"
		assertContains "$f: csv" "$(grep '^/docs/report_2.txt,' "$OUT")" \
			",deleted,journal,journal-predelete,$tid,"
	done
	# without --journal: no journal state row; the name and the inode
	# before the deletion still from the journal
	run_ro "$img" timeline -d -f jsonl "$img"
	assertEquals "no journal rows" 0 "$(grep -c '"source":"journal"' "$OUT")"
	assertEquals "name from the journal" \
		"journal journal-predelete 1049522828.500000000" \
		"$(jq -r 'select(.path == "/docs/sub/secret.txt") | "\(.name_source) \(.source) \(.atime.sec).\(.atime.nsec)"' "$OUT")"
}

# An inline-data directory's entries are in its inode: the journal's
# copies of the directory's inode give the names of the files deleted
# from it, from i_block and from the system.data xattr, and their inodes
# before the deletion.
test_kernel_inline_dir_journal_names() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/inl-k.img" mnt i
	truncate -s 32M "$img"
	mkfs.ext4 -q -F -O inline_data "$img" >/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir -p "$mnt/small"
	# f1..f4 fit in i_block, f5..f7 go to the system.data xattr
	for i in 1 2 3 4 5 6 7; do echo "d$i" >"$mnt/small/f$i"; done
	touch -m -d '2011-12-13 14:15:16.25' "$mnt/small/f2"
	sync
	(cd "$mnt" && stat -c '%i /%n %s %.9X %.9Y %.9Z %.9W' \
		small/f2 small/f7) >"$TMP/inl.truth"
	sleep 1
	rm "$mnt/small/f2" "$mnt/small/f7"
	sync
	cp "$img" "$TMP/inl-k-live.img"
	umount "$mnt"
	rmdir "$mnt"
	assertEquals "/small is inline" 1 \
		"$(debugfs -R 'stat /small' "$img" 2>/dev/null | grep -c 'Flags: 0x10000000')"
	local f ino path size at mt ct cr
	for f in "$TMP/inl-k-live.img" "$img"; do
		run_ro "$f" timeline -d -f jsonl "$f"
		assertEquals "$f: $(head -3 "$ERR")" 0 "$RC"
		while read -r ino path size at mt ct cr; do
			assertEquals "$f: $path" \
				"$ino deleted journal journal-predelete $size $at $mt $ct $cr" \
				"$(jq -r --arg p "$path" 'select(.path == $p) |
					"\(.ino) \(.status) \(.name_source) \(.source) \(.size) \(.atime.sec).\(.atime.nsec) \(.mtime.sec).\(.mtime.nsec) \(.ctime.sec).\(.ctime.nsec) \(.crtime.sec).\(.crtime.nsec)"' "$OUT" |
					awk '{ for (i = 6; i <= 9; i++) { split($i, a, "."); $i = sprintf("%s.%09d", a[1], a[2]) } print }')"
		done <"$TMP/inl.truth"
		assertEquals "$f: only those" 2 \
			"$(jq -r 'select(.status != "live") | .path' "$OUT" | grep -c '^/small/')"
	done
}

# The committed images: /deleted-file was written, synced, its truth line
# recorded, then deleted by the kernel: its name, and its times before the
# deletion (the last journaled state with links above 0, on the deleted
# row), come from the journal.
test_committed_images_deleted_file() {
	local n img line ino size at mt ct cr
	for n in ext4-4k ext4-1k-inline; do
		img=$(unpack "$n") || { fail "unpack $n"; continue; }
		line=$(truth_lines "$n" | awk '$NF == "deleted"')
		read -r _ ino _ _ _ _ size _ at mt ct cr _ <<<"$line"
		run_ro "$img" timeline -d --journal -f jsonl "$img"
		assertEquals "$n: $(head -3 "$ERR")" 0 "$RC"
		assertEquals "$n: the deleted row" \
			"$ino deleted journal $size $at $mt $ct $cr" \
			"$(jq -r 'select(.path == "/deleted-file" and .source == "journal-predelete") |
				"\(.ino) \(.status) \(.name_source) \(.size) \(.atime.sec).\(.atime.nsec) \(.mtime.sec).\(.mtime.nsec) \(.ctime.sec).\(.ctime.nsec) \(.crtime.sec).\(.crtime.nsec)"' "$OUT" |
				awk '{ for (i = 5; i <= 8; i++) { split($i, a, "."); $i = sprintf("%s.%09d", a[1], a[2]) } print }')"
		assertEquals "$n: that state not a journal row again" 0 \
			"$(jq -r --arg a "${at%.*}" 'select(.path == "/deleted-file" and .source == "journal" and .links > 0 and (.atime.sec | tostring) == $a and .size == '"$size"')' "$OUT" | grep -c .)"
	done
}

# images/ext4-reuse (make-reuse-image.sh): the kernel deleted files and
# created others that took their inode numbers, deleted a file and made
# one of the same name (the same number, a new generation), renamed a
# file over another, saved as an editor does (a temporary file renamed
# over), and deleted a directory whose file's number a new file took.
# Every journal row of timeline -d --journal carries the name its file
# (inode and generation) had when the row's transaction committed, or
# the last before a deletion, and is deleted / deleted-realloc when the
# file is not the inode's now; "<INO> (journal tid N) (earlier file)"
# when the file's directory is gone; jsonl and csv give the generation
# (tests/check_jnames.py, against the record of the steps).
test_reused_inode_journal_names() {
	local img out
	img=$(unpack ext4-reuse) || {
		fail "unpack ext4-reuse"
		return
	}
	run_ro "$img" timeline -d --journal -f csv "$img"
	cp "$OUT" "$TMP/reuse.csv"
	run_ro "$img" timeline -d --journal -f text "$img"
	cp "$OUT" "$TMP/reuse.txt"
	run_ro "$img" timeline -d --journal -f jsonl "$img"
	assertEquals "$(head -3 "$ERR")" 0 "$RC"
	out=$(python3 "$TOP_SRCDIR/tests/check_jnames.py" \
		"$IMAGES/ext4-reuse.truth" "$OUT" "$TMP/reuse.csv" \
		"$TMP/reuse.txt" 2>&1)
	assertEquals "$out" 0 "$?"
	# every journal row of the image was checked
	# 45 states, and the name of a deleted directory's file whose inode a
	# new file took (timeline -d: the old file's last journaled inode,
	# journal-predelete); the 7 other such names are those of 7 of the
	# states, not shown twice
	assertEquals "rows checked" "checked 46 journal rows, 18 disk rows" \
		"$(tail -1 <<<"$out")"
	assertContains "the issue's case" "$(cat "$TMP/reuse.txt")" \
		"/keep/a/file_a_0.txt (journal tid 5) (deleted-realloc)"
	assertContains "no name known" "$(cat "$TMP/reuse.txt")" \
		"<28> (journal tid 10) (earlier file) (deleted-realloc)"
	# the deleted directory's file, from its journaled block
	assertContains "a deleted directory's file" "$(cat "$TMP/reuse.txt")" \
		"/keep/gone/x.txt (journal tid 10) (deleted-realloc)"
	assertNotContains "no state of an earlier file under the new name" \
		"$(cat "$TMP/reuse.txt")" "/keep/c/new_0.txt (journal tid 5)"
	# history tells the same files apart: a deletion, then a creation
	run_ro "$img" history "$img" '<22>'
	assertEquals "history <22>" "first copy created deleted created" \
		"$(grep -o ': first copy\|: deleted\|: created' "$OUT" | cut -c3- | tr '\n' ' ' | sed 's/ $//')"
}

# kernel_deletions IMG TRUTH [mkfs.ext4 options...]: files and nested
# directories written by the kernel on a loop mount, stat(1) of each
# taken before the deletion ("f|d INO PATH ATIME MTIME CTIME CRTIME"),
# then rm of 12 files, rm -r of nested directories (one file moved out
# first), a rename, a hard link removed, and new files that take the
# freed inode numbers; TRUTH.live: the inodes in use at the end.
kernel_deletions() {
	local img=$1 truth=$2 mnt i d
	shift 2
	rm -f "$img"
	truncate -s 64M "$img"
	mkfs.ext4 -q -F "$@" "$img" >/dev/null 2>&1 || return 1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || return 1
	mkdir -p "$mnt/keep" "$mnt/tree/a/b/c" "$mnt/tree/x/y" "$mnt/ren/olddir"
	for i in $(seq -w 1 12); do echo "tmp $i" >"$mnt/keep/file_tmp_$i.txt"; done
	echo stay >"$mnt/keep/stay.txt"
	echo link >"$mnt/keep/link_a"
	ln "$mnt/keep/link_a" "$mnt/keep/link_b"
	sync # the directories' files: a transaction of their own
	for d in tree/a tree/a/b tree/a/b/c tree/x tree/x/y; do
		for i in 1 2 3 4; do echo "$d $i" >"$mnt/$d/f_$i.dat"; done
	done
	# an htree: 150 long names in 1 KiB blocks
	for i in $(seq 1 150); do
		echo "$i" >"$mnt/tree/x/y/a_rather_long_file_name_number_$i.txt"
	done
	echo out >"$mnt/tree/a/moved_out.txt"
	echo r >"$mnt/ren/old_name.txt"
	echo r >"$mnt/ren/olddir/inner.txt"
	touch -d '2005-06-07 08:09:10.5' "$mnt/tree/a/b/c/f_2.dat"
	sync
	(cd "$mnt" && for p in keep/file_tmp_*.txt $(find tree/a tree/x | sort); do
		[ "$p" = tree/a/moved_out.txt ] && continue
		if [ -d "$p" ]; then printf 'd '; else printf 'f '; fi
		stat -c '%i /%n %.9X %.9Y %.9Z %.9W' "$p"
	done) >"$truth" || return 1
	lsattr -d "$mnt/tree/x/y" | cut -d' ' -f1 >"$truth.attr"
	sleep 1
	mv "$mnt/tree/a/moved_out.txt" "$mnt/keep/moved_out.txt"
	mv "$mnt/ren/old_name.txt" "$mnt/ren/new_name.txt"
	mv "$mnt/ren/olddir" "$mnt/ren/newdir"
	rm "$mnt/keep/link_b" "$mnt"/keep/file_tmp_*.txt
	rm -r "$mnt/tree/a" "$mnt/tree/x"
	sync
	for i in $(seq 1 20); do echo "new $i" >"$mnt/keep/new_$i.txt"; done
	sync
	find "$mnt" -xdev -printf '%i\n' | sort -u >"$truth.live"
	umount "$mnt"
	rmdir "$mnt"
}

# check_kernel_deletions IMG TRUTH: "expected E found F false X wrong W
# fls N" of e4time's deleted names on IMG against TRUTH: found, a truth
# name with its inode, status (deleted-realloc when the inode is in use
# now) and times (a file's four; a directory's crtime: rm -r changed its
# mtime and ctime before its last journaled copy); false, a name that is
# no file of the truth; wrong, a truth name with another inode, status
# or time; fls N, the names fls -r -d gives that were files of the truth.
# A name "<DIR>/NAME" (a deleted directory whose own name is gone) is the
# truth's directory of inode DIR, and NAME under it.
check_kernel_deletions() {
	run_ro "$1" timeline -d -f jsonl "$1"
	assertEquals "timeline -d: $(head -3 "$ERR")" 0 "$RC"
	cp "$OUT" "$TMP/kd.rows"
	fls_rows "$1" >"$TMP/kd.fls"
	python3 - "$2" "$2.live" "$OUT" "$TMP/kd.fls" <<'PYEOF'
import json, sys
truth, live, rows, fls = sys.argv[1:5]
want = {}
dirs = {}
for ln in open(truth):
    k, ino, path, at, mt, ct, cr = ln.split()
    want[path] = (k, int(ino), at, mt, ct, cr)
    if k == "d":
        dirs[int(ino)] = path
inuse = {int(x) for x in open(live) if x.strip()}
def t(r, f):
    v = r.get(f)
    return None if v is None else "%d.%09d" % (v["sec"], v["nsec"])
found = false = wrong = 0
nodir = [0]
untimed = [0]
for ln in open(rows):
    r = json.loads(ln)
    path = r["path"]
    if r["status"] == "live" or "/" not in path:
        continue
    if path.startswith("<"):  # "<DIR>/NAME": a directory without a name
        d, rest = path[1:].split(">/", 1)
        path = dirs.get(int(d), "<%s>" % d) + "/" + rest
        nodir[0] += 1
    w = want.get(path)
    if w is None:
        false += 1
        print("FALSE", r["ino"], r["path"], r["status"], file=sys.stderr)
        continue
    k, ino, at, mt, ct, cr = w
    st = "deleted-realloc" if ino in inuse else "deleted"
    got = [r["ino"], r["status"], t(r, "crtime")]
    exp = [ino, st, cr]
    if k == "f":
        got += [t(r, "atime"), t(r, "mtime"), t(r, "ctime")]
        exp += [at, mt, ct]
    if all(x is None for x in got[2:]):
        # no times at all: the journal no longer holds a copy of the
        # inode from before (a wrapped journal), and says nothing wrong
        got, exp = got[:2], exp[:2]
        untimed[0] += 1
    if got != exp:
        wrong += 1
        print("WRONG", r["path"], got, "expected", exp, file=sys.stderr)
        continue
    found += 1
nfls = sum(1 for ln in open(fls) if ln.split()[1] in want)
print("expected %d found %d false %d wrong %d fls %d" %
      (len(want), found, false, wrong, nfls))
print("under <DIR>/: %d" % nodir[0], file=sys.stderr)
print("without times: %d" % untimed[0], file=sys.stderr)
PYEOF
}

# Issue 28, items 1 and 2: names whose inode a new file took are
# deleted-realloc rows with the old file's times; the files of deleted
# directories (rm -r, nested) are named under the directory's path; a
# rename, a removed hard link and a file moved out of a deleted directory
# give no deleted name.
test_kernel_reused_and_deleted_dirs() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local res e f
	kernel_deletions "$TMP/kd.img" "$TMP/kd.truth" || {
		fail "making the image"
		return
	}
	# 12 files, 5 directories, 170 files in them
	assertEquals "truth lines" 187 "$(grep -c . "$TMP/kd.truth")"
	assertContains "/tree/x/y is an htree" "$(cat "$TMP/kd.truth.attr")" I
	res=$(check_kernel_deletions "$TMP/kd.img" "$TMP/kd.truth" 2>"$TMP/kd.why")
	echo "kernel deletions: $res" >&2
	assertEquals "$(head -5 "$TMP/kd.why")" \
		"expected 187 found 187 false 0 wrong 0" "${res% fls *}"
	assertContains "every name with its times" "$(cat "$TMP/kd.why")" \
		"without times: 0"
	# fls names none of them (the kernel wiped the names): e4time >= fls
	e=$(sed 's/.* found \([0-9]*\) .*/\1/' <<<"$res")
	f=${res##* fls }
	assertTrue "e4time $e >= fls $f" "[ $e -ge $f ]"
	# the reused inodes: as many deleted-realloc rows (20 new files
	# took 20 of the 187 inodes freed)
	assertEquals "deleted-realloc rows" \
		"$(awk '{print $2}' "$TMP/kd.truth" | grep -cxFf "$TMP/kd.truth.live")" \
		"$(jq -r 'select(.status == "deleted-realloc") | .path' "$TMP/kd.rows" | grep -c .)"
	assertEquals "the issue's case" \
		"deleted-realloc journal journal-predelete" \
		"$(jq -r 'select(.path == "/keep/file_tmp_01.txt") | "\(.status) \(.name_source) \(.source)"' "$TMP/kd.rows")"
	assertEquals "no name of a live file" 0 \
		"$(jq -r 'select(.status != "live") | .path' "$TMP/kd.rows" |
			grep -c 'old_name\|olddir\|link_b\|moved_out')"
	assertEquals "text" 1 "$("$E4TIME" timeline -d -f text "$TMP/kd.img" |
		grep -c '/tree/a/b/c/f_2.dat (journal tid [0-9]*) (deleted')"
}

# Issue 28: the subtrees of deleted directories that were inline-data
# (small directories in their inode: the journaled copies of the inode
# hold their entries) or block-mapped (ext3, ext4 without extents: the
# journaled inode's i_block lists the blocks) are rebuilt as those of
# extent-mapped ones: every file and directory of the truth, with its
# inode, status and times, no false name, and at least as many as fls.
test_kernel_inline_and_blockmap_deleted_dirs() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local n=0 opts res e f
	for opts in "-O inline_data" "-O ^extent,^64bit" "-t ext3"; do
		# shellcheck disable=SC2086 # the options are words
		kernel_deletions "$TMP/kb.img" "$TMP/kb.truth" $opts || {
			fail "$opts: making the image"
			continue
		}
		case $opts in
		*inline*) assertEquals "$opts: an inline directory" 1 \
			"$(debugfs -R 'stat /ren/newdir' "$TMP/kb.img" 2>/dev/null |
				grep -c 'Flags: 0x10000000')" ;;
		*) assertEquals "$opts: block-mapped" 0 \
			"$(debugfs -R 'stat /keep' "$TMP/kb.img" 2>/dev/null |
				grep -c 'Flags: 0x80000')" ;;
		esac
		assertEquals "$opts: truth lines" 187 "$(grep -c . "$TMP/kb.truth")"
		res=$(check_kernel_deletions "$TMP/kb.img" "$TMP/kb.truth" 2>"$TMP/kb.why")
		echo "kernel deletions $opts: $res" >&2
		assertEquals "$opts: $(head -5 "$TMP/kb.why")" \
			"expected 187 found 187 false 0 wrong 0" "${res% fls *}"
		assertContains "$opts: every name with its times" \
			"$(cat "$TMP/kb.why")" "without times: 0"
		e=$(sed 's/.* found \([0-9]*\) .*/\1/' <<<"$res")
		f=${res##* fls }
		assertTrue "$opts: e4time $e >= fls $f" "[ $e -ge $f ]"
		n=$((n + 1))
	done
	assertEquals "cases" 3 "$n"
}

# dir_block_names IMG BLOCKS: "LOGICAL NAME" of each entry in the
# directory blocks BLOCKS lists (in logical order) on IMG, 1 KiB blocks,
# but . and .. (htree index blocks hold none: a fake entry of inode 0).
dir_block_names() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
with open(sys.argv[1], "rb") as f:
    for i, b in enumerate(int(x) for x in open(sys.argv[2])):
        f.seek(b * 1024)
        d, off = f.read(1024), 0
        while off + 8 <= len(d):
            ino, rl, nl = struct.unpack_from("<IHB", d, off)
            if rl < 8:
                break
            name = d[off + 8:off + 8 + nl].decode()
            if ino and name not in (".", ".."):
                print(i, name)
            off += rl
EOF
}

# blockmap_found TRUTH WHERE ROWS CUT [REF]: "names N found F false X
# rows R before CUT: B of C past CUT: P of Q [differ D]" of the deleted
# rows under /big/ in ROWS against TRUTH ("INO NAME", ls -i) and WHERE
# ("LOGICAL NAME"): found, a name of the truth with its inode; false, any
# other; before and past CUT, the names found of the blocks before the
# CUT-th and from it on, of those there; differ, the names found of the
# blocks before the CUT-th with other rows than in the rows REF (not as
# many, or not the same).
blockmap_found() {
	python3 - "$@" <<'EOF'
import json, sys
truth, where, rows, cut = sys.argv[1:5]
want = {}
for ln in open(truth):
    ino, name = ln.split()
    want[name] = int(ino)
early, late = set(), set()
for ln in open(where):
    i, name = ln.split()
    (late if int(i) >= int(cut) else early).add(name)
def read(path):
    by = {}
    for ln in open(path):
        r = json.loads(ln)
        if r["status"] != "live" and r["path"].startswith("/big/"):
            by.setdefault(r["path"][5:], []).append(ln)
    return by
found, false, n = set(), 0, 0
by = read(rows)
for name, v in by.items():
    n += len(v)
    for ln in v:
        r = json.loads(ln)
        if want.get(name) != r["ino"]:
            false += 1
            print("FALSE", r["path"], r["ino"], file=sys.stderr)
        else:
            found.add(name)
out = "names %d found %d false %d rows %d before %s: %d of %d past %s: %d of %d" % (
    len(want), len(found), false, n, cut, len(found & early), len(early),
    cut, len(found & late), len(late))
if len(sys.argv) > 5:
    ref = read(sys.argv[5])
    out += " differ %d" % sum(sorted(by[x]) != sorted(ref.get(x, []))
                              for x in found & early)
print(out)
EOF
}

# A block-mapped directory (ext4 without extents) of more blocks than its
# 12 direct blocks and its indirect block map (268 at 1 KiB blocks): 6,000
# files of 60-character names in 610-odd blocks, the rest of them under
# the double indirect block.  After rm -r, the journal's copy of its inode
# from before maps them all (the indirect blocks as the disk holds them):
# every name the kernel created, with its inode, and none else; those of
# the blocks past the 268th too.  The journal is 32 MiB: the default 4 MiB
# one wraps (the creation's and the deletion's inode-table and directory
# blocks) and gave no name of the directory at all.  Then the double
# indirect block damaged on a copy (its first pointer to itself, its last
# past the end, the others all to its first indirect block): the names of
# the blocks up to the 524th, each with the rows it had, and no false
# one; not all those of the blocks past it (some, from copies of the
# blocks before it made before an htree split moved them: a sync every
# 1,000 files commits such copies).
test_kernel_blockmap_dir_past_indirect() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/kdi.img" mnt res late size dind early
	rm -f "$img"
	truncate -s 128M "$img"
	mkfs.ext4 -q -F -b 1024 -O ^extent,^64bit -J size=32 "$img" \
		>/dev/null 2>&1 || { fail "mkfs"; return; }
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir "$mnt/big"
	(cd "$mnt/big" && for i in $(seq -w 1 6000); do
		: >"file_with_a_rather_long_name_padded_to_sixty_chars_num_$i"
		case $i in *000) sync ;; esac
	done)
	sync
	(cd "$mnt/big" && ls -i) >"$TMP/kdi.truth"
	size=$(stat -c %s "$mnt/big")
	assertTrue "more than 524 blocks: $size" "[ $size -gt $((524 * 1024)) ]"
	assertNotContains "block-mapped (no extents flag)" \
		"$(lsattr -d "$mnt/big" | cut -d' ' -f1)" e
	umount "$mnt"
	dind=$(debugfs -R 'stat /big' "$img" 2>/dev/null |
		sed -n 's/.*(DIND):\([0-9]*\).*/\1/p')
	assertNotNull "a double indirect block" "$dind"
	# the directory's blocks in logical order, and their names, as the
	# kernel wrote them
	seq 0 $((size / 1024 - 1)) | sed 's#^#bmap /big #' >"$TMP/kdi.cmds"
	debugfs -f "$TMP/kdi.cmds" "$img" 2>/dev/null | grep -x '[0-9]*' |
		grep -vx 0 >"$TMP/kdi.blocks"
	assertEquals "its blocks" "$(grep -c . "$TMP/kdi.cmds")" \
		"$(grep -c . "$TMP/kdi.blocks")"
	dir_block_names "$img" "$TMP/kdi.blocks" >"$TMP/kdi.where"
	assertEquals "its names" 6000 "$(grep -c . "$TMP/kdi.where")"
	mount -o loop "$img" "$mnt" || { fail "mount again"; return; }
	rm -r "$mnt/big"
	sync
	umount "$mnt"
	rmdir "$mnt"
	run_ro "$img" timeline -d --journal -f jsonl "$img"
	assertEquals "timeline -d --journal: $(head -3 "$ERR")" 0 "$RC"
	cp "$OUT" "$TMP/kdi.rows"
	res=$(blockmap_found "$TMP/kdi.truth" "$TMP/kdi.where" "$OUT" 268)
	echo "block-mapped directory past its indirect block: $res" >&2
	# 6,000 names; the blocks past the 268th hold more than half of them
	assertContains "$res" "$res" "names 6000 found 6000 false 0 "
	late=$(sed 's/.* past 268: \([0-9]*\) of.*/\1/' <<<"$res")
	assertTrue "names past block 268: $res" "[ $late -gt 2000 ]"
	assertContains "every one of them" "$res" "past 268: $late of $late"
	# damaged: a cycle, one indirect block 254 times, a block past the end
	cp "$img" "$TMP/kdi-bad.img"
	python3 - "$TMP/kdi-bad.img" "$dind" <<'EOF' || fail "damaging"
import struct, sys
img, dind = sys.argv[1], int(sys.argv[2])
with open(img, "r+b") as f:
    f.seek(dind * 1024)
    first = struct.unpack("<I", f.read(4))[0]
    f.seek(dind * 1024)
    f.write(struct.pack("<256I", dind, *[first] * 254, 0xffffffff))
EOF
	run_ro "$TMP/kdi-bad.img" timeline -d --journal -f jsonl "$TMP/kdi-bad.img"
	assertEquals "damaged: $(head -3 "$ERR")" 0 "$RC"
	res=$(blockmap_found "$TMP/kdi.truth" "$TMP/kdi.where" "$OUT" 524 \
		"$TMP/kdi.rows")
	echo "its double indirect block damaged: $res" >&2
	early=$(awk '$1 < 524' "$TMP/kdi.where" | grep -c .)
	assertContains "damaged: the names up to block 524, none false" "$res" \
		" false 0 rows "
	assertContains "damaged: the names up to block 524" "$res" \
		"before 524: $early of $early "
	assertContains "damaged: their rows as before" "$res" " differ 0"
	late=$(sed -n 's/.* past 524: \([0-9]*\) of \([0-9]*\) .*/\1 \2/p' <<<"$res")
	assertTrue "damaged: not all those past it: $res" \
		"[ -n '$late' ] && [ ${late% *} -lt ${late#* } ]"
}

# fscrypt's ioctls from Python (v2 policy, AES-256 names; as
# tests/test_names.sh): add a key, set a directory's policy, remove it.
FSC_PY="$TOP_SRCDIR/tests/fscrypt.py"

# Issue 28: the journal's names of files deleted from an encrypted
# directory, and from an encrypted directory removed with rm -r, are the
# no-key names the kernel lists without the key (as live names are), and
# their rows say encrypted.  The kernel writes the files, the key is
# removed, `find` lists the no-key names (the truth), the files are
# removed by those names: short names, one whose ciphertext is over 149
# bytes (abbreviated with its SHA-256), on a filesystem with dir_index
# (the dirhash in the name) and one without.
test_kernel_encrypted_journal_names() {
	if [ "$CAN_MOUNT" != 1 ] || [ ! -e /sys/fs/ext4/features/encryption ]; then
		skip_test "loop mounts or ext4 encryption not available"
		return
	fi
	local feat img mnt id i sub ren n=0
	for feat in encrypt,^metadata_csum encrypt,^dir_index; do
		img="$TMP/enc.img"
		rm -f "$img"
		truncate -s 16M "$img"
		mkfs.ext4 -q -F -b 1024 -O "$feat" "$img" >/dev/null 2>&1
		mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
		mount -o loop "$img" "$mnt" || { fail "$feat: mount"; return; }
		id=$(python3 "$FSC_PY" add "$mnt") && mkdir "$mnt/secret" &&
			python3 "$FSC_PY" set "$mnt/secret" "$id" || {
			umount "$mnt"
			skip_test "$feat: fscrypt refused here"
			return
		}
		mkdir "$mnt/secret/sub" "$mnt/secret/keep"
		for i in 1 2 3 4; do
			echo "$i" >"$mnt/secret/file_$i"
			echo "$i" >"$mnt/secret/sub/inner_$i"
		done
		echo r >"$mnt/secret/keep/old_name"
		sub=$(stat -c %i "$mnt/secret/sub")
		ren=$(stat -c %i "$mnt/secret/keep/old_name")
		echo l >"$mnt/secret/$(printf 'L%.0s' $(seq 1 200))"
		sync
		python3 "$FSC_PY" remove "$mnt" "$id"
		echo 2 >/proc/sys/vm/drop_caches
		(cd "$mnt" && find secret -mindepth 1 -printf '%i /%p\n') |
			sort >"$TMP/enc.all"
		sleep 1
		# by their no-key names: two file_*, the long one, and sub
		(cd "$mnt/secret" && for i in *; do
			# (a no-key name may begin with "-": base64url)
			[ -f "$i" ] && echo "$(stat -c %i -- "$i") /secret/$i"
		done) >"$TMP/enc.files"
		# keep/old_name, renamed with the key: its no-key name before
		ren=$(grep "^$ren " "$TMP/enc.all")
		{
			awk 'length($2) < 100' "$TMP/enc.files" | head -2
			awk 'length($2) > 100' "$TMP/enc.files"
		} >"$TMP/enc.truth"
		sub=$(awk -v i="$sub" '$1 == i {print $2}' "$TMP/enc.all")
		grep -F " $sub" "$TMP/enc.all" >>"$TMP/enc.truth"
		while read -r i path; do
			[ -d "$mnt$path" ] && rm -r "$mnt$path"
			[ -f "$mnt$path" ] && rm "$mnt$path"
		done <"$TMP/enc.truth"
		python3 "$FSC_PY" add "$mnt" >/dev/null &&
			mv "$mnt/secret/keep/old_name" "$mnt/secret/keep/new_name"
		sync
		umount "$mnt"
		rmdir "$mnt"
		assertNotNull "$feat: the file renamed" "$ren"
		# 2 short names, the long one, sub and its 4 files
		assertEquals "$feat: deleted" 8 "$(grep -c . "$TMP/enc.truth")"
		assertEquals "$feat: a long name" 1 \
			"$(awk 'length($2) > 200' "$TMP/enc.truth" | grep -c .)"
		run_ro "$img" timeline -d -f jsonl "$img"
		assertEquals "$feat: $(head -3 "$ERR")" 0 "$RC"
		assertEquals "$feat: the no-key names find listed" \
			"$(sort "$TMP/enc.truth")" \
			"$(jq -r 'select(.status != "live") | "\(.ino) \(.path)"' "$OUT" | sort)"
		assertEquals "$feat: every deleted row encrypted, from the journal" \
			"8 journal true" \
			"$(jq -r 'select(.status == "deleted") | "\(.name_source) \(.encrypted)"' "$OUT" |
				sort | uniq -c | awk '{print $1, $2, $3}')"
		# --journal: the renamed file's earlier state under its no-key
		# name of then, through the encrypted directory's no-key name;
		# no deleted name and state twice
		run_ro "$img" timeline -d --journal -f jsonl "$img"
		assertEquals "$feat: $(head -3 "$ERR")" 0 "$RC"
		assertEquals "$feat: the earlier name" "$ren journal" \
			"$(jq -r --arg i "${ren%% *}" 'select((.ino | tostring) == $i and .name_source == "journal") | "\(.ino) \(.path) \(.name_source)"' "$OUT" | sort -u)"
		assertEquals "$feat: rows shown twice" "" "$(dup_states "$OUT")"
		n=$((n + 1))
	done
	assertEquals "cases" 2 "$n"
}

# dup_states JSONL: the deleted rows that repeat another's name, inode,
# status, mode, owner, size and four times (one line each extra copy)
dup_states() {
	jq -r 'select(.status != "live") |
		"\(.path) \(.ino) \(.status) \(.mode) \(.uid) \(.gid) \(.size) \(.atime) \(.mtime) \(.ctime) \(.crtime)"' "$1" |
		sort | uniq -d
}

# Issue 28: with --journal, the old file of a reused inode number is
# shown by its journaled states (after the new file's row); the
# deleted-realloc row of its journal name (its state before the deletion)
# is not shown again when one of those states is that state under that
# name.  On the committed image and on kernel-written ones (files whose
# inodes new files took, rm -r, a wrapped journal): no deleted name with
# its inode, status and times twice, and every reused name still there.
# timeline -d --journal reads the journal on its own thread while the
# tree loads, and the deleted names while that thread reads the entries
# (jthread.c, dprefetch.c): the rows, warnings and exit status must be
# --threads 1's, undamaged and on damaged copies (tests/damage_gen: the
# journal's warnings come from the other thread, and are given after the
# tree's as on one thread).
test_journal_threads_change_nothing() {
	local name img k n=0 warned=0 names
	# CI's sanitizer build (E4T_QUICK=1): one image, its 7 runs; CI's
	# normal build (E4T_SHARE=rest): the other two (tests/lib.sh)
	names=$(share_list "churn-1k-live churn-wrapped-live ext4-reuse" churn-1k-live)
	for name in $names; do
		img=$(unpack "$name") || {
			fail "unpack $name"
			return
		}
		for k in none 0 1 2 3 4 5; do
			if [ "$k" = none ]; then
				cp "$img" "$TMP/thr.img"
			else
				"$DAMAGE_GEN" damage "$img" 5 "$k" "$TMP/thr.img" \
					>/dev/null || {
					fail "damage_gen $name $k"
					continue
				}
			fi
			run_ro "$TMP/thr.img" timeline -d --journal -f jsonl --threads 1 "$TMP/thr.img"
			cp "$OUT" "$TMP/thr1.out"
			cp "$ERR" "$TMP/thr1.err"
			local rc1=$RC
			run_ro "$TMP/thr.img" timeline -d --journal -f jsonl "$TMP/thr.img"
			assertEquals "$name $k: status" "$rc1" "$RC"
			assertTrue "$name $k: the same rows" "cmp -s '$TMP/thr1.out' '$OUT'"
			assertTrue "$name $k: the same warnings, in order" \
				"cmp -s '$TMP/thr1.err' '$ERR'"
			[ -s "$ERR" ] && warned=$((warned + 1))
			n=$((n + 1))
		done
	done
	assertEquals "runs compared" $((7 * $(wc -w <<<"$names"))) "$n"
	echo "threads: $n runs compared, $warned with warnings" >&2
	assertTrue "some runs warned (damage reached the journal or the tree)" \
		"[ $warned -gt 0 ]"
}

# The journal's directory entries are read in batches of directories
# (lib/journal/jnames.c: one batch's entries held at a time); a
# directory's entries depend on its own blocks only, so batches of one
# directory each (the test hook) give the same rows, warnings and status
# as the one batch a small image takes: deleted names (timeline -d),
# every entry with its intervals (--journal) and both at once.
test_journal_batches_change_nothing() {
	local name img a n=0 names
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	# CI's sanitizer build (E4T_QUICK=1): one image; the normal build
	# (E4T_SHARE=rest): the others
	names=$(share_list "ext4-reuse churn-wrapped-live ext4-1k-inline churn-1k-live" ext4-reuse)
	for name in $names; do
		img=$(unpack "$name") || {
			fail "unpack $name"
			return
		}
		for a in "-d" "-d --journal" "--journal --threads 1"; do
			# shellcheck disable=SC2086 # the options, split
			run_ro "$img" timeline $a -f jsonl "$img"
			cp "$OUT" "$TMP/b1.out"
			cp "$ERR" "$TMP/b1.err"
			local rc1=$RC
			# shellcheck disable=SC2086
			E4TIME_TEST_JN_BATCH=1 run_ro "$img" timeline $a -f jsonl "$img"
			assertEquals "$name $a: status" "$rc1" "$RC"
			assertTrue "$name $a: the same rows" "cmp -s '$TMP/b1.out' '$OUT'"
			assertTrue "$name $a: the same warnings" \
				"cmp -s '$TMP/b1.err' '$ERR'"
			assertTrue "$name $a: rows" "[ -s '$OUT' ]"
			n=$((n + 1))
		done
	done
	assertEquals "runs compared" $((3 * $(wc -w <<<"$names"))) "$n"
}

# timeline --journal keeps a journaled state as its place in the journal
# when the journal can be mapped (a raw image) and whole when it cannot
# (an evidence container): the same image as qcow2 gives the same rows.
test_journal_container_same_rows() {
	local name img a n=0 names rc1
	command -v qemu-img >/dev/null || {
		skip_test "no qemu-img (qemu-utils)"
		return
	}
	names=$(share_list "ext4-reuse churn-wrapped-live churn-fastcommit-live" ext4-reuse)
	for name in $names; do
		img=$(unpack "$name") || {
			fail "unpack $name"
			return
		}
		qemu-img convert -O qcow2 "$img" "$TMP/jc.qcow2" || {
			fail "qemu-img convert $name"
			continue
		}
		for a in "-d --journal -f jsonl" "--journal --threads 1 -f csv"; do
			# shellcheck disable=SC2086 # the options, split
			run_ro "$img" timeline $a "$img"
			cp "$OUT" "$TMP/jc-raw.out"
			rc1=$RC
			# shellcheck disable=SC2086
			run_ro "$TMP/jc.qcow2" timeline $a "$TMP/jc.qcow2"
			assertEquals "$name $a: status" "$rc1" "$RC"
			assertTrue "$name $a: the same rows from qcow2" \
				"cmp -s '$TMP/jc-raw.out' '$OUT'"
			assertTrue "$name $a: journal rows" \
				"grep -q 'journal' '$OUT'"
			n=$((n + 1))
		done
	done
	assertEquals "runs compared" $((2 * $(wc -w <<<"$names"))) "$n"
}

test_journal_reused_no_duplicate_rows() {
	local img n=0 d r
	img=$(unpack ext4-reuse) || {
		fail "unpack ext4-reuse"
		return
	}
	cp "$img" "$TMP/dup-reuse.img"
	if [ "$CAN_MOUNT" = 1 ]; then
		kernel_deletions "$TMP/dup-k.img" "$TMP/dup-k.truth" ||
			fail "making the image"
		kernel_deletions "$TMP/dup-w.img" "$TMP/dup-w.truth" -J size=1 ||
			fail "making the image"
	fi
	for img in "$TMP"/dup-*.img; do
		run_ro "$img" timeline -d --journal -f jsonl "$img"
		assertEquals "$img: $(head -3 "$ERR")" 0 "$RC"
		cp "$OUT" "$TMP/dup.rows"
		d=$(dup_states "$TMP/dup.rows")
		echo "$img: $(grep -c . <<<"$d") rows shown twice, $(jq -c 'select(.status == "deleted-realloc")' "$TMP/dup.rows" | grep -c .) deleted-realloc rows" >&2
		assertEquals "$img: rows shown twice" "" "$d"
		# the names timeline -d gives are all there with --journal
		run_ro "$img" timeline -d -f jsonl "$img"
		r=$(jq -r 'select(.status == "deleted-realloc") | "\(.path) \(.ino)"' "$OUT" | sort -u)
		assertNotNull "$img: reused names" "$r"
		assertEquals "$img: the same reused names" "$r" \
			"$(jq -r 'select(.status == "deleted-realloc" and (.path | startswith("<") | not)) | "\(.path) \(.ino)"' "$TMP/dup.rows" |
				grep -xFf <(echo "$r") | sort -u)"
		n=$((n + 1))
	done
	if [ "$CAN_MOUNT" = 1 ]; then
		assertEquals "cases" 3 "$n"
	else
		assertEquals "cases" 1 "$n"
	fi
}

# jtids IMG: the tids of the transactions e4time journal --stale finds
jtids() {
	"$E4TIME" journal --stale "$1" 2>/dev/null | awk '$1 == "tid" {print $2}'
}

# churn IMG MIN: one transaction after another on IMG mounted, until no
# transaction of tid MIN or below is left in its journal (at most 600)
churn() {
	local mnt i=0
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$1" "$mnt" || return 1
	while [ $i -lt 600 ]; do
		i=$((i + 1))
		echo "$i" >"$mnt/keep/churn_$((i % 7))"
		sync -f "$mnt/keep"
		[ "$(jtids "$1" | head -1)" -gt "$2" ] && break
	done
	find "$mnt" -xdev -printf '%i\n' | sort -u >"$3"
	umount "$mnt"
	rmdir "$mnt"
	[ $i -lt 600 ]
}

# A small journal that wrapped: first past the transaction that created
# the files (their inode copies of then are gone), then past every
# transaction of the deletions: what is still in it gives names, with
# the right inode and times, and nothing false.
test_kernel_wrapped_journal_no_false_names() {
	if [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local res found first last n=0
	kernel_deletions "$TMP/kw.img" "$TMP/kw.truth" -J size=1 || {
		fail "making the image"
		return
	}
	first=$(jtids "$TMP/kw.img" | head -1)
	last=$(jtids "$TMP/kw.img" | tail -1)
	assertTrue "transactions $first..$last" "[ $((last - first)) -ge 3 ]"
	for stage in "$first" "$last"; do
		churn "$TMP/kw.img" "$stage" "$TMP/kw.truth.live" || {
			fail "churn"
			return
		}
		res=$(check_kernel_deletions "$TMP/kw.img" "$TMP/kw.truth" 2>"$TMP/kw.why")
		echo "wrapped journal past tid $stage (oldest now $(jtids "$TMP/kw.img" | head -1)): $res" >&2
		assertContains "$(head -5 "$TMP/kw.why")" "$res" " false 0 wrong 0 "
		found=$(sed 's/.* found \([0-9]*\) .*/\1/' <<<"$res")
		assertTrue "e4time $found >= fls ${res##* fls }" \
			"[ $found -ge ${res##* fls } ]"
		# past the first transaction only, the one that created the
		# directories' files is there: its names, under "<DIR>/" (the
		# names of the directories were in the first); how many other
		# names (and their inodes' copies) are left depends on how the
		# kernel grouped the commits
		[ $n = 0 ] && assertTrue "names found: $res" "[ $found -gt 0 ]"
		[ $n = 0 ] && assertFalse "names under <DIR>/: $(cat "$TMP/kw.why")" \
			"grep -qx 'under <DIR>/: 0' '$TMP/kw.why'"
		n=$((n + 1))
	done
	assertEquals "stages" 2 "$n"
}

. shunit2
