#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_audit.sh --- e4time journal, audit and history against journals
# the kernel wrote under a known workload: create N files and sync; R
# rounds reading every file, each ended by sync; append to W files and
# sync; R2 more rounds.  The counts the workload implies are asserted.
# Images are made here through loop mounts (skipped, visibly, where that
# is impossible).
. "$TOP_SRCDIR/tests/lib.sh"

N=12
R=3
W=4
R2=2

# workload MOUNTOPTS NAME TRANSACTIONS: make $TMP/NAME-live.img (copied
# while still mounted: the journal needs recovery) and
# $TMP/NAME-clean.img.  The counts asserted hold when the journal holds
# the TRANSACTIONS the workload's own syncs make; a sync by another
# process (another suite, at once) commits in the middle of a step and
# moves changes into transactions of their own (a file's write apart
# from its creation reads as one more data update).  logdump, not
# e4time, counts the commits: up to three tries, then the tests that
# need the grouping skip visibly (need_grouping).
workload() {
	local opts="$1" name="$2" want="$3" try got
	for try in 1 2 3; do
		workload_once "$opts" "$name" || return 1
		got=$(debugfs -R logdump "$TMP/$name-live.img" 2>/dev/null |
			grep -c 'type 2 (commit block)')
		[ "$got" = "$want" ] && return 0
		echo "workload $name, try $try: $got transactions, not $want (a sync elsewhere)" >&2
	done
	echo "$got" >"$TMP/$name.regrouped"
}

# need_grouping NAME: skip unless workload NAME has its own transactions
need_grouping() {
	[ -f "$TMP/$1.regrouped" ] &&
		skip_test "other processes' syncs regrouped the $1 workload's transactions in 3 tries ($(cat "$TMP/$1.regrouped"), not as planned)"
}

workload_once() {
	local opts="$1" name="$2" img="$TMP/$2.img" i r files=""
	rm -f "$img"
	truncate -s 16M "$img"
	mkfs.ext4 -q -F -b 1024 "$img" >/dev/null 2>&1 || return 1
	mount -o "loop,commit=300,$opts" "$img" "$MNT" || return 1
	mkdir "$MNT/d"
	for i in $(seq -f %02g 1 $N); do
		echo "file $i" >"$MNT/d/f$i"
		files="$files $MNT/d/f$i"
	done
	sync
	for r in $(seq 1 $R); do
		sleep 0.02
		cat $files >/dev/null
		sync
	done
	for i in $(seq 1 $W); do printf x >>"$MNT/d/f$(printf %02d "$i")"; done
	sync
	for r in $(seq 1 $R2); do
		sleep 0.02
		cat $files >/dev/null
		sync
	done
	# the kernel's birth time of d/f03 (history's journal crtime)
	stat -c %W "$MNT/d/f03" >"$TMP/$name-f03.btime"
	cp --sparse=always "$img" "$TMP/$name-live.img"
	umount "$MNT"
	cp --sparse=always "$img" "$TMP/$name-clean.img"
}

suite_setup() {
	require_tools jq debugfs mkfs.ext4 || return 1
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || return 0
	# created; R rounds; written; R2 rounds.  relatime: the first
	# round after the creation and the first after the write.
	# noatime: the creation and the write.
	workload strictatime strict $((1 + R + 1 + R2)) &&
		workload relatime rel 4 &&
		workload noatime noat 2 || return 1
	truncate -s 8M "$TMP/nojournal.img"
	mkfs.ext4 -q -F -O ^has_journal "$TMP/nojournal.img" >/dev/null 2>&1
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] || skip_test "loop mounts impossible here"
}

# summary IMAGE FIELD: a number from audit's JSON summary
summary() {
	jq -r ".summary.$2" "$1"
}

audit_json() {
	run_ro "$1" audit -f json "$1"
	assertEquals "audit status: $(cat "$ERR")" 0 "$RC"
	cp "$OUT" "$TMP/audit.json"
}

test_strictatime_live() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping strict
	[ "$E4T_SKIP_THIS" = 1 ] && return
	audit_json "$TMP/strict-live.img"
	assertEquals "atime-only updates" $(((R + R2) * N)) \
		"$(summary "$TMP/audit.json" changes.atime)"
	assertEquals "data updates" $W "$(summary "$TMP/audit.json" changes.mtime)"
	assertEquals "atime-only transactions" $((R + R2)) \
		"$(summary "$TMP/audit.json" atime_only_transactions)"
	assertEquals "relatime would skip" $(((R + R2) * N - N - W)) \
		"$(summary "$TMP/audit.json" relatime_would_skip)"
	assertEquals "state" live "$(jq -r .journal.state "$TMP/audit.json")"
	assertEquals "top entry" "$((R + R2))" \
		"$(jq -r '.top[0].atime_only' "$TMP/audit.json")"
	assertEquals "top path" /d/f01 "$(jq -r '.top[0].path' "$TMP/audit.json")"
}

test_strictatime_clean_stale() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping strict
	[ "$E4T_SKIP_THIS" = 1 ] && return
	audit_json "$TMP/strict-clean.img"
	assertEquals "state" clean "$(jq -r .journal.state "$TMP/audit.json")"
	assertEquals "atime-only updates from stale transactions" \
		$(((R + R2) * N)) "$(summary "$TMP/audit.json" changes.atime)"
	assertEquals "data updates" $W "$(summary "$TMP/audit.json" changes.mtime)"
	run_ro "$TMP/strict-clean.img" audit --no-stale -f json "$TMP/strict-clean.img"
	assertEquals "clean journal, live log only: nothing" 0 \
		"$(jq -r .summary.inode_updates "$OUT")"
}

test_older_home_block() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping strict
	[ "$E4T_SKIP_THIS" = 1 ] && return
	# The home block of f01..f04 as mkfs left it (zeros): older than
	# every journal copy, so the first copy is compared with it.
	local img="$TMP/older.img" blk bs
	cp "$TMP/strict-live.img" "$img"
	blk=$(debugfs -R "imap /d/f01" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
	bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	dd if=/dev/zero of="$img" bs="$bs" seek="$blk" count=1 conv=notrunc 2>/dev/null
	run_ro "$img" audit -f json "$img"
	# the zeroed inodes cannot be named: partial
	assertEquals "audit status: $(cat "$ERR")" 1 "$RC"
	cp "$OUT" "$TMP/audit.json"
	assertEquals "one block compared with disk" 1 \
		"$(summary "$TMP/audit.json" disk_baselines)"
	assertEquals "its four inodes created" 4 \
		"$(summary "$TMP/audit.json" changes.created)"
	assertEquals "atime counts unchanged" $(((R + R2) * N)) \
		"$(summary "$TMP/audit.json" changes.atime)"
	audit_json "$TMP/strict-clean.img"
	assertEquals "clean: home blocks are the last copies" 0 \
		"$(summary "$TMP/audit.json" disk_baselines)"
}

test_relatime() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping rel
	[ "$E4T_SKIP_THIS" = 1 ] && return
	audit_json "$TMP/rel-live.img"
	assertEquals "relatime: first read after create and after write" \
		$((N + W)) "$(summary "$TMP/audit.json" changes.atime)"
	assertEquals "data updates" $W "$(summary "$TMP/audit.json" changes.mtime)"
	assertEquals "relatime would skip nothing" 0 \
		"$(summary "$TMP/audit.json" relatime_would_skip)"
	grep -q 'relatime pattern' "$TMP/audit.json"
	assertTrue "advice names the relatime pattern" $?
}

test_noatime() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping noat
	[ "$E4T_SKIP_THIS" = 1 ] && return
	audit_json "$TMP/noat-live.img"
	assertEquals "noatime: no atime updates" 0 \
		"$(summary "$TMP/audit.json" changes.atime)"
	assertEquals "data updates" $W "$(summary "$TMP/audit.json" changes.mtime)"
}

test_text_and_csv() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	run_ro "$TMP/strict-live.img" audit "$TMP/strict-live.img"
	assertEquals 0 "$RC"
	grep -q "atime-only share" "$OUT"
	assertTrue "text summary" $?
	audit_json "$TMP/strict-live.img"
	run_ro "$TMP/strict-live.img" audit -f csv "$TMP/strict-live.img"
	assertEquals 0 "$RC"
	assertEquals "csv: header + one row per transaction" \
		"$(($(jq '.transactions|length' "$TMP/audit.json") + 1))" \
		"$(wc -l <"$OUT")"
}

test_journal_matches_logdump() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/strict-live.img" ours theirs
	run_ro "$img" journal -f jsonl "$img"
	assertEquals 0 "$RC"
	ours=$(tail -n +2 "$OUT" | jq -r '"\(.tid) \(.first_block)"' | tr '\n' ' ')
	theirs=$(debugfs -R logdump "$img" 2>/dev/null |
		awk '/Found expected sequence .*descriptor block/ {
			sub(",", "", $4); if (!seen[$4]++) printf "%s %s ", $4, $NF }')
	assertEquals "transactions and their first block, as logdump" \
		"$theirs" "$ours"
	assertEquals "every transaction verified" "" \
		"$(tail -n +2 "$OUT" | jq -r 'select(.csum != "ok") | .tid')"
}

test_history_shows_timestomp() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] || need_grouping strict
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/stomp.img"
	cp "$TMP/strict-clean.img" "$img"
	debugfs -w -R "sif /d/f03 crtime 20000101" "$img" >/dev/null 2>&1
	run_ro "$img" history "$img" /d/f03
	assertEquals "history status: $(cat "$ERR")" 0 "$RC"
	# created, R reads, the append (f03 is one of the W), R2 reads, disk
	assertEquals "journal copies, then disk" $((1 + R + 1 + R2 + 1)) \
		"$(grep -cE '^(tid|on disk)' "$OUT")"
	grep -q '^  crtime  2000-01-01T00:00:00.000000000Z  <-- CRTIME CHANGED' "$OUT"
	assertTrue "disk crtime called out: $(cat "$OUT")" $?
	# the kernel's own birth time (not today's year: the suite may
	# have started on 31 December)
	grep -q "^  crtime  $(date -u -d "@$(cat "$TMP/strict-f03.btime")" +%Y-%m-%dT%H:%M:%S)\." "$OUT"
	assertTrue "the journal's crtime is shown too: $(cat "$OUT")" $?
}

# A write the kernel allocates at writeback (delayed allocation): one
# commit journals the new mtime with size 0, the next the size and block
# map with mtime unchanged.  The label names what changed (no "mtime").
test_history_change_labels() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/delalloc.img" line try back=0
	# A sync by another process (another suite, at once) in the 2.5 s
	# writes the data back before the commit: the size then comes in the
	# mtime's commit, and there is no data change to label.  Up to three
	# tries, then a visible SKIP (as test_fast_commit).
	for try in 1 2 3; do
		truncate -s 16M "$img"
		mkfs.ext4 -q -F "$img" >/dev/null 2>&1
		mount -o loop,commit=1 "$img" "$MNT" || {
			fail "mount"
			return
		}
		echo hello >"$MNT/f"
		sleep 2.5 # committed, not yet written back
		sync
		umount "$MNT"
		run_ro "$img" history "$img" /f
		assertEquals "history status: $(cat "$ERR")" 0 "$RC"
		line=$(grep -E '^tid .*: data change;' "$OUT")
		back=0
		[ -n "$line" ] && break
		# written back with the mtime: no copy of size 0 (the label
		# is the test, and there is nothing to label)
		if ! grep -qE '^  links .*, size 0$' "$OUT"; then
			echo "try $try: the data was written back with the mtime (a sync elsewhere)" >&2
			back=1
			rm -f "$img"
			continue
		fi
		break
	done
	if [ "$back" = 1 ]; then
		skip_test "other processes' syncs wrote the data back before the commit in 3 tries"
		return
	fi
	assertEquals "one data change: $(cat "$OUT")" 1 "$(grep -c . <<<"$line")"
	assertContains "names the groups" "$line" \
		": data change; changed: size/i_blocks, block map, checksum"
	assertNotContains "mtime did not change" "$line" "mtime"
	assertEquals "mtime the same in both copies" 1 \
		"$(grep '^  mtime' "$OUT" | sort -u | wc -l)"
	run_ro "$img" history -f jsonl "$img" /f
	assertEquals "jsonl: class and groups" 'mtime ["size","blocks","csum"]' \
		"$(jq -c 'select(.record=="copy" and .change=="mtime") | [.change, .groups]' "$OUT" | jq -r '"\(.[0]) \(.[1] | tojson)"')"
}

test_external_journal() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local j="$TMP/jdev.img" f="$TMP/ext.img" loop i
	truncate -s 8M "$j"
	truncate -s 32M "$f"
	mke2fs -q -O journal_dev -b 4096 "$j" >/dev/null 2>&1
	loop=$(losetup -f --show "$j") || { skip_test "no loop device"; return; }
	mke2fs -q -t ext4 -b 4096 -J device="$loop" "$f" >/dev/null 2>&1
	if ! mount -o "loop,strictatime,commit=300,journal_path=$loop" "$f" "$MNT"; then
		losetup -d "$loop"
		skip_test "external journal mount refused"
		return
	fi
	for i in 1 2 3; do echo $i >"$MNT/f$i"; done
	sync
	for i in 1 2; do
		sleep 0.02
		cat "$MNT/f1" "$MNT/f2" "$MNT/f3" >/dev/null
		sync
	done
	cp --sparse=always "$j" "$TMP/jdev-live.img"
	cp --sparse=always "$f" "$TMP/ext-live.img"
	umount "$MNT"
	losetup -d "$loop"
	run_ro "$TMP/jdev-live.img" audit -f json -j "$TMP/jdev-live.img" "$TMP/ext-live.img"
	assertEquals "external journal: $(cat "$ERR")" 0 "$RC"
	assertEquals "external" false "$(jq -r .journal.internal "$OUT")"
	assertEquals "2 rounds x 3 files" 6 "$(jq -r .summary.changes.atime "$OUT")"
	run_ro "$TMP/ext-live.img" audit "$TMP/ext-live.img"
	assertEquals "without -j" 4 "$RC"
	grep -q "external journal: give it with --journal" "$ERR"
	assertTrue "says how: $(cat "$ERR")" $?
	run_ro "$TMP/ext-live.img" audit -j "$TMP/strict-live.img" "$TMP/ext-live.img"
	assertEquals "not a journal device" 4 "$RC"
	grep -q "Not an external journal device" "$ERR"
	assertTrue "names it: $(cat "$ERR")" $?
	mke2fs -q -O journal_dev -b 4096 "$TMP/other.img" 2048 >/dev/null 2>&1
	run_ro "$TMP/ext-live.img" audit -j "$TMP/other.img" "$TMP/ext-live.img"
	assertEquals "another filesystem's journal" 4 "$RC"
	grep -q "does not belong to this filesystem" "$ERR"
	assertTrue "UUID: $(cat "$ERR")" $?
}

test_fast_commit() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/fc.img" try full=0
	# A sync(2) by any other process (the other suites run beside this
	# one) forces a full commit, which folds the fsyncs the workload
	# made into it: the journal says so (a full commit after the
	# mount's), and then the workload runs again, three times at most.
	for try in 1 2 3; do
		rm -f "$img"
		truncate -s 16M "$img"
		mkfs.ext4 -q -F -O fast_commit "$img" >/dev/null 2>&1
		mount -o loop,commit=300 "$img" "$MNT" || { skip_test "mount"; return; }
		# 4 files, 3 rounds of append + fsync each: 12 fsyncs
		python3 - "$MNT" <<'PY'
import os, sys
for k in range(3):
    for i in range(4):
        fd = os.open(os.path.join(sys.argv[1], "g%d" % i),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.write(fd, b"x" * 100)
        os.fsync(fd)
        os.close(fd)
PY
		cp --sparse=always "$img" "$TMP/fc-live.img"
		umount "$MNT"
		run_ro "$TMP/fc-live.img" journal -f jsonl "$TMP/fc-live.img"
		assertEquals "journal: $(cat "$ERR")" 0 "$RC"
		full=$(tail -n +2 "$OUT" | jq -s '[.[] | select(.state != "fast_commit") | .tid] | unique | length')
		[ "$full" -le 1 ] && break
		echo "fast commit, try $try: $full full commits (another process's sync): again"
	done
	if [ "$full" -gt 1 ]; then
		skip_test "other processes' syncs forced full commits in 3 tries"
		return
	fi
	assertTrue "fast commits with INODE records, checksums verified" \
		"[ $(tail -n +2 "$OUT" | jq -s '[.[] | select(.state == "fast_commit" and .csum == "ok" and (.fc_inodes|length) > 0)] | length') -ge 8 ]"
	assertEquals "no time on fast commits" "" \
		"$(tail -n +2 "$OUT" | jq -r 'select(.state == "fast_commit" and .commit_time != null) | .tid')"
	run_ro "$TMP/fc-live.img" audit -f json "$TMP/fc-live.img"
	assertEquals "audit: $(cat "$ERR")" 0 "$RC"
	# 12 fsync'd writes, seen once each when every fsync is a fast
	# commit; the kernel's own fallback to a full commit may journal an
	# inode twice or fold two writes
	local u
	u=$(jq -r .summary.inode_updates "$OUT")
	assertTrue "the fsync'd writes seen (12 expected, 8..16 allowed): $u" \
		"[ $u -ge 8 ] && [ $u -le 16 ]"
	assertEquals "no atime updates" 0 "$(jq -r .summary.changes.atime "$OUT")"
}

test_no_journal_checksums() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/nocsum.img" i files=""
	truncate -s 16M "$img"
	mkfs.ext4 -q -F -O ^metadata_csum "$img" >/dev/null 2>&1
	mount -o loop,strictatime,commit=300 "$img" "$MNT" || { skip_test "mount"; return; }
	for i in 1 2 3 4 5; do echo "$i" >"$MNT/h$i"; files="$files $MNT/h$i"; done
	sync
	for i in 1 2 3; do sleep 0.02; cat $files >/dev/null; sync; done
	umount "$MNT"
	run_ro "$img" journal --stale -f jsonl "$img"
	assertEquals 0 "$RC"
	assertEquals "no checksums: stale taken on structure" "none" \
		"$(tail -n +2 "$OUT" | jq -r .csum | sort -u)"
	run_ro "$img" audit -f json "$img"
	assertEquals "3 rounds x 5 files from a clean journal without checksums" \
		15 "$(jq -r .summary.changes.atime "$OUT")"
}

test_wrapped_journal() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/wrap.img" i r files=""
	truncate -s 64M "$img"
	mkfs.ext4 -q -F -b 1024 -J size=1 "$img" >/dev/null 2>&1
	mount -o loop,strictatime,commit=300 "$img" "$MNT" || { skip_test "mount"; return; }
	for i in $(seq 1 200); do echo "$i" >"$MNT/w$i"; files="$files $MNT/w$i"; done
	sync
	for r in $(seq 1 40); do sleep 0.01; cat $files >/dev/null; sync; done
	cp --sparse=always "$img" "$TMP/wrap-live.img"
	umount "$MNT"
	img="$TMP/wrap-live.img"
	run_ro "$img" journal --stale -f jsonl "$img"
	assertEquals "journal: $(cat "$ERR")" 0 "$RC"
	# 40 rounds of 50 inode-table blocks do not fit in 1024 blocks
	assertTrue "the log wrapped: a transaction runs past the end" \
		"[ $(tail -n +2 "$OUT" | jq -s '[.[] | select(.first_block + .journal_blocks > 1024)] | length') -ge 1 ]"
	run_ro "$img" audit -f json "$img"
	assertEquals "audit: $(cat "$ERR")" 0 "$RC"
	# a round is one transaction, or two when jbd2 has to commit early
	# for log space: never more than the 200 files in one
	assertEquals "no transaction with more than 200 atime updates" "" \
		"$(jq -r '.transactions[] | select(.changes.atime > 200) | .tid' "$OUT")"
	assertEquals "only atime updates" \
		"$(jq -r .summary.inode_updates "$OUT")" "$(jq -r .summary.changes.atime "$OUT")"
	assertTrue "several rounds compared" \
		"[ $(jq -r .summary.changes.atime "$OUT") -ge 1000 ]"
}

test_bad_input() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	run_ro "$TMP/nojournal.img" audit "$TMP/nojournal.img"
	assertEquals "no journal: image status" 4 "$RC"
	grep -q "nojournal.img: journal: Filesystem has no journal" "$ERR"
	assertTrue "one-line error: $(cat "$ERR")" $?
	run audit "$TMP/absent.img"
	assertEquals "missing image" 4 "$RC"
	run audit -f xml "$TMP/strict-live.img"
	assertEquals "bad format" 2 "$RC"
	run_ro "$TMP/strict-live.img" history "$TMP/strict-live.img" /no/such
	assertEquals "no such file" 1 "$RC"
}

. shunit2
