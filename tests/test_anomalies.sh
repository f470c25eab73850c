#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_anomalies.sh --- e4time anomalies (and timeline --flags) on images
# written here by the kernel through a loop mount, each manipulation done
# for real (touch -d, touch -t, tar -x of a ustar archive, cp -a, mv into
# an older directory, a future date, a back-dating and a forward-dating
# caught by the journal),
# beside a control set of ordinary activity (create, append, rename, cp,
# chmod, hard link, mkdir, mv) that must give no strong or medium finding;
# then raw writes the kernel cannot make (debugfs sif, e4time set).
# Skipped, visibly, where loop mounts are impossible.
. "$TOP_SRCDIR/tests/lib.sh"

# make_real: $TMP/real.img (clean) and $TMP/real-live.img (copied while
# mounted, after the back-dating: the journal still live).
make_real() {
	local img="$TMP/real.img" m="$MNT"
	truncate -s 32M "$img"
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1 || return 1
	mount -o loop "$img" "$m" || return 1
	# control: ordinary activity
	mkdir "$m/old" "$m/ctl" "$m/d"
	# made now, stomped after the sleep: old files by then (times set a
	# moment after the creation are a copy's, see test_set_at_create)
	echo td >"$m/d/touch-d"
	echo tt >"$m/d/touch-t"
	echo one >"$m/ctl/a"
	echo two >>"$m/ctl/a"
	mv "$m/ctl/a" "$m/ctl/b"
	cp "$m/ctl/b" "$m/ctl/c"
	chmod 600 "$m/ctl/c"
	ln "$m/ctl/b" "$m/ctl/hard"
	# committed now, not whenever the 5 s commit timer falls: the
	# journal always holds touch-d's and touch-t's copies from before
	# their back-dating (journal-backdated), however loaded the machine
	sync
	sleep 2.1
	mkdir "$m/ctl/new"
	echo x >"$m/ctl/new/x"
	mv "$m/ctl/new/x" "$m/old/x" # into an older directory
	cat "$m/ctl/b" >/dev/null
	# manipulations, in a directory of ordinary files
	for f in n1 n2 n3 n4; do echo "$f" >"$m/d/$f"; done
	touch -d '2019-03-04 05:06:07.123456789' "$m/d/touch-d"
	touch -t 201903040506.07 "$m/d/touch-t"
	# dropped and stomped at once: what a copy looks like (in a
	# transaction begun here, so that the 5 s commit timer cannot fall
	# between the two, however loaded the machine: a CI run once saw
	# the creation committed alone, journal-set-at-create)
	sync
	mkdir "$m/drop"
	echo dropped >"$m/drop/f"
	touch -d '2019-03-04 05:06:07.123456789' "$m/drop/f"
	mkdir -p "$TMP/src"
	echo tarred >"$TMP/src/tarred"
	touch -d '2018-01-01 00:00:00.5' "$TMP/src/tarred"
	tar --format=ustar -cf "$TMP/u.tar" -C "$TMP/src" tarred
	tar -xf "$TMP/u.tar" -C "$m/d"
	echo src >"$m/d/cpsrc"
	sleep 1.1
	cat "$m/d/cpsrc" >/dev/null # atime moves past mtime (relatime)
	cp -a "$m/d/cpsrc" "$m/d/cp-a"
	echo future >"$m/d/future"
	touch -d '2035-01-01 00:00:00.25' "$m/d/future"
	# the journal catches a back-dating: created, committed, back-dated
	mkdir "$m/j"
	echo victim >"$m/j/victim"
	echo keep >"$m/j/keep"
	echo inplace >"$m/j/inplace"
	sync
	sleep 2.1
	touch -d '2015-06-07 08:09:10.111' "$m/j/victim"
	# rsync --inplace: an existing file rewritten, committed, its
	# times set back a moment later
	echo rewritten >"$m/j/inplace"
	sync
	touch -m -d '2015-06-07 08:09:10.111' "$m/j/inplace"
	# a copy: created, committed, its times set a moment later
	echo copied >"$m/j/copy"
	sync
	touch -d '2015-06-07 08:09:10.111' "$m/j/copy"
	sync
	cp --sparse=always "$img" "$TMP/real-live.img"
	umount "$m"
}

suite_setup() {
	require_tools jq python3 debugfs mkfs.ext4 tar || return 1
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || return 0
	make_real || return 1
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] || skip_test "loop mounts impossible here"
}

# anom IMAGE ARGS...: anomalies -f jsonl into $TMP/a.jsonl, read-only,
# status 0.
anom() {
	local img="$1"
	shift
	run_ro "$img" anomalies -f jsonl "$img" "$@"
	assertEquals "anomalies $*: $(cat "$ERR")" 0 "$RC"
	cp "$OUT" "$TMP/a.jsonl"
}

# rules_of PATH: the rules that fired on PATH, sorted, space-separated.
rules_of() {
	jq -r --arg p "$1" 'select(.record=="finding" and .path==$p) | .rule' \
		"$TMP/a.jsonl" | sort | tr '\n' ' '
}

test_control_set_has_no_strong_or_medium_finding() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img
	for img in "$TMP/real.img" "$TMP/real-live.img"; do
		anom "$img" -s medium /ctl
		assertEquals "/ctl: $(cat "$TMP/a.jsonl")" 0 \
			"$(jq -s '[.[] | select(.record=="finding")] | length' "$TMP/a.jsonl")"
		anom "$img" -s medium /old
		assertEquals "/old (mv into an older directory)" 0 \
			"$(jq -s '[.[] | select(.record=="finding")] | length' "$TMP/a.jsonl")"
		# copied while mounted: the last write is the journal's
		# latest commit, not the superblock's (the mount)
		anom "$img" -s medium --no-journal /ctl
		assertEquals "/ctl --no-journal" 0 \
			"$(jq -s '[.[] | select(.record=="finding")] | length' "$TMP/a.jsonl")"
	done
	# nor the root, lost+found, or the ordinary files of /d
	anom "$TMP/real.img"
	local p
	for p in / /lost+found /d/n1 /d/n2 /d/n3 /d/n4 /d/cpsrc /j/keep /ctl/b; do
		assertEquals "$p" "" "$(rules_of "$p")"
	done
}

test_touch_d() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	# (the fixture syncs before the touch: the journal holds the
	# copy from before it)
	assertEquals "atime-equals-mtime crtime-after-mtime journal-backdated " \
		"$(rules_of /d/touch-d)"
	assertEquals "the evidence" \
		"2019-03-04T05:06:07.123456789Z 2019-03-04T05:06:07.123456789Z true" \
		"$(jq -r 'select(.rule=="atime-equals-mtime" and .path=="/d/touch-d") |
			"\(.evidence.atime.iso) \(.evidence.mtime.iso) \(.evidence.ctime.sec > .evidence.mtime.sec)"' \
			"$TMP/a.jsonl")"
}

# An existing file rewritten and its times set back a moment later (as
# rsync --inplace, cp -p or tar do onto it), with a commit between the
# two: the copy's journal-set-at-create, not journal-backdated.
test_rewritten_then_set_back_is_a_copy() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	# (crtime-after-mtime, info: as every copy's)
	assertEquals "/j/inplace" "crtime-after-mtime journal-set-at-create " \
		"$(rules_of /j/inplace)"
	assertEquals "the earlier copy a write's, the later one set back" \
		"true true" \
		"$(jq -r 'select(.path=="/j/inplace" and .rule=="journal-set-at-create") | .evidence |
			"\(.old_mtime.iso == .old_ctime.iso) \(.old_mtime.sec > .mtime.sec)"' \
			"$TMP/a.jsonl")"
}

test_touch_t_gives_whole_seconds_ustar_is_a_copy() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	assertEquals "touch -t" \
		"atime-equals-mtime crtime-after-mtime journal-backdated mtime-nsec-zero " \
		"$(rules_of /d/touch-t)"
	# tar set the whole second as it created the file: how copies
	# look (tests/test_innocent.sh's rsync --inplace and dpkg trees)
	assertEquals "tar -x of a ustar archive" \
		"crtime-after-mtime " "$(rules_of /d/tarred)"
	# the directory's baseline in the evidence: its other entries
	# (n1-n4, touch-d, tarred, cpsrc, cp-a, future): 9, 8 of them
	# with nanoseconds (all but tarred)
	assertEquals "baseline" "0 9 8" \
		"$(jq -r 'select(.rule=="mtime-nsec-zero" and .path=="/d/touch-t") |
			"\(.evidence.mtime.nsec) \(.evidence.dir_entries) \(.evidence.dir_nonzero)"' \
			"$TMP/a.jsonl")"
}

test_cp_a_is_copied() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	assertEquals "cp -a" "crtime-after-mtime " "$(rules_of /d/cp-a)"
	assertEquals "info" "info" \
		"$(jq -r 'select(.path=="/d/cp-a") | .severity' "$TMP/a.jsonl")"
}

test_future_date() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	assertEquals "touch -d 2035" \
		"mtime-after-ctime time-after-last-write " \
		"$(rules_of /d/future)"
	assertEquals "reference" "last_write" \
		"$(jq -r 'select(.record=="finding" and .rule=="time-after-last-write") |
			.evidence.reference' "$TMP/a.jsonl")"
}

# The back-dating of /j/victim, between two journaled copies: in the live
# journal of the copy taken while mounted, and among the stale
# transactions a clean unmount leaves in the journal area.
test_journal_backdated_live_and_stale() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img tids
	for img in "$TMP/real-live.img" "$TMP/real.img"; do
		# the touch -d and touch -t of /d too (test_touch_d)
		anom "$img" -s strong
		assertEquals "$img: strong findings" "/d/touch-d journal-backdated
/d/touch-t journal-backdated
/j/victim journal-backdated" \
			"$(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' "$TMP/a.jsonl" | sort)"
		anom "$img" -s strong /j
		assertEquals "$img: strong findings in /j" "/j/victim journal-backdated" \
			"$(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' "$TMP/a.jsonl")"
		# both copies: tids and commit times, old mtime later than new
		assertEquals "$img: evidence" "true true true true" \
			"$(jq -r 'select(.record=="finding") | .evidence |
				"\(.old_tid < .new_tid) \(.old_commit_time != null and .new_commit_time != null) \(.old_mtime.sec > .mtime.sec) \(.ctime.sec >= .old_ctime.sec)"' \
				"$TMP/a.jsonl")"
		# the tids are those of history's copies of the inode
		tids=$(jq -r 'select(.record=="finding") | "\(.evidence.old_tid) \(.evidence.new_tid)"' "$TMP/a.jsonl")
		run_ro "$img" history -f jsonl "$img" /j/victim
		local t
		for t in $tids; do
			assertEquals "$img: tid $t in history" 1 \
				"$(jq -s "[.[] | select(.record==\"copy\" and .tid==$t)] | length" "$OUT")"
		done
		# the text names both tids and commit times
		run_ro "$img" anomalies -r journal-backdated "$img"
		for t in $tids; do
			assertContains "$img: text" "$(cat "$OUT")" "tid $t committed "
		done
	done
	anom "$TMP/real.img" --no-journal -s strong
	assertEquals "--no-journal" 0 \
		"$(jq -s '[.[] | select(.record=="finding")] | length' "$TMP/a.jsonl")"
}

# Times set a moment after the inode's creation, by the program that made
# it (cp -a, tar, unzip, mail delivery): no strong or medium finding; the
# journal's view of it is journal-set-at-create (info).  A file dropped
# and stomped at once looks the same: crtime-after-mtime still says the
# times predate the inode.
test_set_at_create() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	anom "$TMP/real.img"
	assertEquals "dropped and stomped at once" "crtime-after-mtime " \
		"$(rules_of /drop/f)"
	local img
	for img in "$TMP/real-live.img" "$TMP/real.img"; do
		anom "$img"
		assertEquals "$img: set a moment after its creation" \
			"crtime-after-mtime journal-set-at-create " \
			"$(rules_of /j/copy)"
		assertEquals "$img: its evidence" "true true" \
			"$(jq -r 'select(.rule=="journal-set-at-create" and .path=="/j/copy") | .evidence |
				"\(.old_mtime.sec > .mtime.sec) \(.ctime.sec - .crtime.sec <= 1)"' "$TMP/a.jsonl")"
	done
	# anomalies reads the journal before the tree and decides "a copy's"
	# afterwards: with one of the two rules on, the other's findings
	# neither show nor turn into its own (4 runs)
	local n=0
	for img in "$TMP/real-live.img" "$TMP/real.img"; do
		anom "$img" -r journal-set-at-create
		assertEquals "$img -r journal-set-at-create" \
			"/j/copy journal-set-at-create
/j/inplace journal-set-at-create" \
			"$(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' \
				"$TMP/a.jsonl" | sort)"
		anom "$img" -r journal-backdated
		assertEquals "$img -r journal-backdated: not /j/copy" "" \
			"$(rules_of /j/copy)"
		assertEquals "$img -r journal-backdated: not /j/inplace" "" \
			"$(rules_of /j/inplace)"
		n=$((n + 2))
	done
	assertEquals "runs" 4 "$n"
	run anomalies --list-rules
	assertContains "--list-rules: what produces journal-backdated" \
		"$(cat "$OUT")" "are journal-set-at-create"
	assertContains "--list-rules: journal-set-at-create" "$(cat "$OUT")" \
		"journal-set-at-create (info, journal)"
}

# Raw writes the kernel cannot make: debugfs sif, e4time set.
test_raw_writes() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/raw.img"
	cp "$TMP/real.img" "$img"
	debugfs -w -R "sif /ctl/b crtime 20300101000000" "$img" >/dev/null 2>&1
	debugfs -w -R "sif /ctl/c crtime 19990101000000" "$img" >/dev/null 2>&1
	run set --no-undo "$img" /old/x --crtime 2001-02-03T04:05:06Z
	assertEquals "set: $(cat "$ERR")" 0 "$RC"
	# (a changed crtime may also make atime-equals-mtime fire: crtime is
	# then no longer the time atime and mtime were created with; and the
	# disk now differs from the inode's last copy in the journal)
	anom "$img" -s medium
	local r
	for r in crtime-after-ctime time-after-last-write journal-crtime-changed; do
		assertContains "sif crtime 2030: $r" "$(rules_of /ctl/b)" "$r "
	done
	for r in crtime-before-mkfs journal-crtime-changed; do
		assertContains "sif crtime 1999: $r" "$(rules_of /ctl/c)" "$r "
	done
	assertNotContains "sif crtime 1999" "$(rules_of /ctl/c)" "after"
	for r in crtime-before-mkfs crtime-nsec-zero journal-crtime-changed; do
		assertContains "e4time set whole second: $r" "$(rules_of /old/x)" "$r "
	done
	assertEquals "mkfs_time in the evidence" "mkfs_time true" \
		"$(jq -r 'select(.rule=="crtime-before-mkfs" and .path=="/ctl/c") |
			"\(.evidence.reference) \(.evidence.reference_time != null)"' "$TMP/a.jsonl")"
}

# Raw writes after the last mount: the disk differs from the inode's last
# copy in the journal, where the kernel would have changed ctime too.
test_raw_write_after_the_journal() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/after.img"
	cp "$TMP/real.img" "$img"
	run set --no-undo "$img" /j/keep --mtime 2001-01-01T00:00:00.5Z
	assertEquals "set: $(cat "$ERR")" 0 "$RC"
	debugfs -w -R "sif /d/n2 crtime 20240101000000" "$img" >/dev/null 2>&1
	debugfs -w -R "sif /d/n3 atime 20000101000000" "$img" >/dev/null 2>&1
	anom "$img" -r journal-time-without-ctime,journal-crtime-changed
	assertEquals "findings" \
		"/d/n2 journal-crtime-changed journal disk
/d/n3 journal-time-without-ctime journal disk
/j/keep journal-time-without-ctime journal disk" \
		"$(jq -r 'select(.record=="finding") |
			"\(.path) \(.rule) \(.evidence.old_source) \(.evidence.new_source)"' \
			"$TMP/a.jsonl" | sort)"
	assertEquals "the last copy's tid and commit time; mtime; ctime kept" \
		"true 2001-01-01T00:00:00.500000000Z true" \
		"$(jq -r 'select(.path=="/j/keep") | .evidence |
			"\(.old_tid != null and .old_commit_time != null) \(.mtime.iso) \(.ctime.iso == .old_ctime.iso)"' \
			"$TMP/a.jsonl")"
	run_ro "$img" anomalies -r journal-time-without-ctime "$img"
	assertContains "text" "$(cat "$OUT")" "the home block on disk: mtime 2001-01-01T00:00:00.500000000Z"
	# every rule: the journal is clean and undamaged, so the disk's
	# difference is the strong rule's
	anom "$img" -s strong
	assertEquals "strong" \
		"/d/n2 crtime-before-mkfs
/d/n2 journal-crtime-changed
/d/n3 journal-disk-time-without-ctime
/d/touch-d journal-backdated
/d/touch-t journal-backdated
/j/keep journal-disk-time-without-ctime
/j/victim journal-backdated" \
		"$(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' \
			"$TMP/a.jsonl" | sort)"
}

# e4time set on the unmounted filesystem, then the kernel journals the
# inode again: its crtime differs from the copy in the stale transactions.
test_journal_crtime_changed() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/jcr.img"
	cp "$TMP/real.img" "$img"
	run set --no-undo "$img" /j/keep --crtime 2024-01-01T00:00:00.5Z
	assertEquals "set: $(cat "$ERR")" 0 "$RC"
	mount -o loop "$img" "$MNT" || {
		fail "mount"
		return
	}
	chmod 600 "$MNT/j/keep"
	sync
	umount "$MNT"
	anom "$img" -r journal-crtime-changed
	assertEquals "finding" "/j/keep 2024-01-01T00:00:00.500000000Z true" \
		"$(jq -r 'select(.record=="finding") |
			"\(.path) \(.evidence.crtime.iso) \(.evidence.old_crtime.iso != .evidence.crtime.iso and .evidence.old_tid != .evidence.new_tid)"' \
			"$TMP/a.jsonl")"
}

test_rule_and_severity_filters() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	run anomalies -r no-such-rule "$TMP/real.img"
	assertEquals "unknown rule" 2 "$RC"
	assertContains "names it" "$(cat "$ERR")" "no-such-rule"
	run anomalies -s loud "$TMP/real.img"
	assertEquals "unknown severity" 2 "$RC"
	anom "$TMP/real.img" -r mtime-nsec-zero --rule crtime-after-mtime
	assertEquals "two rules" "crtime-after-mtime mtime-nsec-zero" \
		"$(jq -r 'select(.record=="finding") | .rule' "$TMP/a.jsonl" | sort -u | tr '\n' ' ' | sed 's/ $//')"
	assertEquals "summaries of the chosen rules" 2 \
		"$(jq -s '[.[] | select(.record=="summary")] | length' "$TMP/a.jsonl")"
	anom "$TMP/real.img" -s medium
	assertEquals "no info" 0 \
		"$(jq -s '[.[] | select(.severity=="info")] | length' "$TMP/a.jsonl")"
	anom "$TMP/real.img" /d/touch-t
	assertEquals "FILESPEC" "/d/touch-t" \
		"$(jq -r 'select(.record=="finding") | .path' "$TMP/a.jsonl" | sort -u)"
}

test_text_jsonl_csv_agree() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/real.img"
	anom "$img"
	run_ro "$img" anomalies -f csv "$img"
	assertEquals "csv status" 0 "$RC"
	cp "$OUT" "$TMP/a.csv"
	run_ro "$img" anomalies "$img"
	assertEquals "text status" 0 "$RC"
	cp "$OUT" "$TMP/a.txt"
	python3 - "$TMP/a.jsonl" "$TMP/a.csv" "$TMP/a.txt" >"$TMP/check" 2>&1 <<-'PY'
		import csv, json, sys
		recs = [json.loads(l) for l in open(sys.argv[1])]
		finds = [r for r in recs if r["record"] == "finding"]
		sums = {r["rule"]: r["findings"] for r in recs if r["record"] == "summary"}
		rows = list(csv.DictReader(open(sys.argv[2], newline="")))
		assert len(rows) == len(finds), (len(rows), len(finds))
		for r, f in zip(rows, finds):
		    assert r["rule"] == f["rule"] and int(r["ino"]) == f["ino"], (r, f)
		    assert r["path"] == (f["path"] or "")
		    for k in ("atime", "mtime", "ctime", "crtime"):
		        assert r[k] == (f["evidence"][k]["iso"] if k in f["evidence"] else ""), (k, r, f)
		for rule, n in sums.items():
		    assert n == sum(1 for f in finds if f["rule"] == rule)
		# most severe first
		order = {"strong": 0, "medium": 1, "info": 2}
		sev = [order[f["severity"]] for f in finds]
		assert sev == sorted(sev), sev
		text = open(sys.argv[3]).read()
		for rule, n in sums.items():
		    line = [l for l in text.splitlines() if l.split()[1:2] == [rule]]
		    assert line and line[-1].split()[-1] == str(n), (rule, line)
		print("ok")
	PY
	assertEquals "$(cat "$TMP/check")" ok "$(tail -n 1 "$TMP/check")"
}

# timeline --flags: the rules that fire on each row's inode, the journal
# rules included, as anomalies finds them (each rule once a row).
test_timeline_flags() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/real.img" want
	anom "$img"
	jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' "$TMP/a.jsonl" |
		sort -u >"$TMP/want"
	assertContains "the back-dating is among them" "$(cat "$TMP/want")" \
		"/j/victim journal-backdated"
	run_ro "$img" timeline --flags -f jsonl "$img"
	assertEquals "jsonl status" 0 "$RC"
	jq -r '.path as $p | .flags[] | "\($p) \(.)"' "$OUT" | sort >"$TMP/got"
	assertEquals "jsonl flags" "$(cat "$TMP/want")" "$(cat "$TMP/got")"
	assertEquals "every row has flags" 0 \
		"$(jq -s '[.[] | select(.flags == null)] | length' "$OUT")"
	run_ro "$img" timeline --flags --sort crtime -f jsonl "$img"
	jq -r '.path as $p | .flags[] | "\($p) \(.)"' "$OUT" | sort >"$TMP/got"
	assertEquals "sorted: the same flags" "$(cat "$TMP/want")" "$(cat "$TMP/got")"
	run_ro "$img" timeline --flags -f timesketch "$img" /d/touch-t
	assertEquals "timesketch tag on each line" \
		'["mtime-nsec-zero","atime-equals-mtime","crtime-after-mtime","journal-backdated"]' \
		"$(jq -c 'select(.path=="/d/touch-t") | .tag' "$OUT" | sort -u)"
	run_ro "$img" timeline --flags -f csv "$img"
	python3 - "$OUT" "$TMP/want" >"$TMP/check" 2>&1 <<-'PY'
		import csv, sys
		rows = list(csv.DictReader(open(sys.argv[1], newline="")))
		assert list(rows[0].keys())[-1] == "flags"
		got = sorted("%s %s" % (r["path"], f) for r in rows for f in r["flags"].split())
		want = sorted(l.rstrip("\n") for l in open(sys.argv[2]))
		assert got == want, (got, want)
		print("ok")
	PY
	assertEquals "$(cat "$TMP/check")" ok "$(tail -n 1 "$TMP/check")"
	run timeline --flags -f bodyfile "$img"
	assertEquals "bodyfile --flags" 2 "$RC"
	run timeline --flags -f text "$img"
	assertEquals "text --flags" 2 "$RC"
}

# Forward-dating caught by the journal: a file committed, then its mtime
# set ahead of the new ctime (touch -d into the future).  An append and a
# chmod (mtime and ctime forward, mtime not after ctime), a back-dating
# and a file dropped and dated ahead at once (a copy's) are not it.
test_journal_forward_dated() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/fwd.img"
	truncate -s 32M "$img"
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1
	mount -o loop "$img" "$MNT" || {
		fail "mount"
		return
	}
	echo a >"$MNT/victim"
	echo b >"$MNT/keep"
	echo c >"$MNT/past"
	sync
	sleep 2.1
	touch -d '2031-02-03 04:05:06.5' "$MNT/victim"
	touch -d '2020-01-01' "$MNT/past"
	echo more >>"$MNT/keep"
	chmod 600 "$MNT/keep"
	echo d >"$MNT/copy"
	touch -d '2032-01-01' "$MNT/copy"
	sync
	umount "$MNT"
	anom "$img" -r journal-forward-dated,journal-backdated
	assertEquals "findings" "/past journal-backdated
/victim journal-forward-dated" \
		"$(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' \
			"$TMP/a.jsonl" | sort)"
	assertEquals "evidence: old and new mtime, new ctime" \
		"2031-02-03T04:05:06.500000000Z true true" \
		"$(jq -r 'select(.record=="finding" and .rule=="journal-forward-dated") | .evidence |
			"\(.mtime.iso) \(.old_mtime.iso < .ctime.iso) \(.ctime.iso < .mtime.iso)"' \
			"$TMP/a.jsonl")"
	run anomalies --list-rules
	assertContains "--list-rules" "$(cat "$OUT")" \
		"journal-forward-dated (strong, journal)"
}

# Every report says what the journal covers: the transactions readable,
# their tids and commit times, whether older ones were overwritten, the
# in-use inodes with a copy; and says so when there is no journal, when
# it is empty and when it was not read.
test_journal_coverage() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/real.img" n t cov
	anom "$img"
	cov=$(jq -c 'select(.record=="coverage")' "$TMP/a.jsonl")
	assertEquals "one coverage record" 1 "$(printf '%s\n' "$cov" | grep -c .)"
	assertEquals "read, undamaged, from the first tid" "read false 2" \
		"$(jq -r '"\(.journal) \(.wrapped) \(.first_tid)"' <<<"$cov")"
	n=$(jq -r .transactions <<<"$cov")
	assertTrue "transactions: $n" "[ ${n:-0} -ge 2 ]"
	assertEquals "commit times and inodes" "true true true" \
		"$(jq -r '"\(.first_commit <= .last_commit) \(.last_tid > .first_tid) \(.inodes_with_copy > 10)"' <<<"$cov")"
	run_ro "$img" anomalies "$img"
	t=$(cat "$OUT")
	assertContains "text: tids" "$t" \
		"transactions  $n readable, tid 2 to $(jq -r .last_tid <<<"$cov")"
	assertContains "text: commits" "$t" \
		"committed     $(jq -r .first_commit <<<"$cov") to $(jq -r .last_commit <<<"$cov")"
	assertContains "text: wrapped" "$t" "wrapped       no:"
	assertContains "text: inodes" "$t" \
		"inodes        $(jq -r .inodes_with_copy <<<"$cov") in use with a copy"
	# a 1 MiB journal filled past its end: the first transactions gone
	img="$TMP/wrap.img"
	truncate -s 32M "$img"
	mkfs.ext4 -q -F -b 1024 -J size=1 "$img" >/dev/null 2>&1
	mount -o loop "$img" "$MNT" || {
		fail "mount"
		return
	}
	local r i
	for r in $(seq 15); do
		mkdir "$MNT/r$r"
		for i in $(seq 300); do : >"$MNT/r$r/f$i"; done
		sync
	done
	umount "$MNT"
	anom "$img"
	assertEquals "wrapped" "read true true" \
		"$(jq -r 'select(.record=="coverage") | "\(.journal) \(.wrapped) \(.first_tid > 2)"' "$TMP/a.jsonl")"
	run_ro "$img" anomalies "$img"
	assertContains "text: wrapped" "$(cat "$OUT")" \
		"wrapped       yes: older transactions were overwritten"
	# an empty journal, no journal, the journal not read
	img="$TMP/empty.img"
	truncate -s 16M "$img"
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1
	anom "$img"
	assertEquals "empty" "empty 0" \
		"$(jq -r 'select(.record=="coverage") | "\(.journal) \(.transactions)"' "$TMP/a.jsonl")"
	run_ro "$img" anomalies "$img"
	assertContains "text: empty" "$(cat "$OUT")" \
		"Journal coverage: empty: no readable transaction"
	img="$TMP/nojournal.img"
	truncate -s 16M "$img"
	mkfs.ext4 -q -F -O ^has_journal "$img" >/dev/null 2>&1
	anom "$img"
	assertEquals "none" "none 0 null" \
		"$(jq -r 'select(.record=="coverage") | "\(.journal) \(.transactions) \(.first_tid)"' "$TMP/a.jsonl")"
	run_ro "$img" anomalies "$img"
	assertContains "text: none" "$(cat "$OUT")" \
		"Journal coverage: none: the image has no journal"
	anom "$TMP/real.img" --no-journal
	assertEquals "not read" "not_read" \
		"$(jq -r 'select(.record=="coverage") | .journal' "$TMP/a.jsonl")"
	run_ro "$TMP/real.img" anomalies --no-journal "$TMP/real.img"
	assertContains "text: not read" "$(cat "$OUT")" \
		"Journal coverage: not read"
}

test_bad_input() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	run anomalies "$TMP/real.img" /no/such
	assertEquals "missing FILESPEC" 1 "$RC"
	assertContains "names it" "$(cat "$ERR")" "/no/such"
	run anomalies "$TMP/nothing.img"
	assertEquals "no image" 4 "$RC"
	printf 'not a filesystem' >"$TMP/junk.img"
	run anomalies "$TMP/junk.img"
	assertEquals "not ext4" 4 "$RC"
	run anomalies --list-rules
	assertEquals "--list-rules" 0 "$RC"
	assertContains "$(cat "$OUT")" "crtime-after-ctime (strong, inode)"
}

. shunit2
