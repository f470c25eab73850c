#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_innocent.sh --- e4time anomalies on the innocent corpus (trees
# written by real programs through the kernel: cp -a, rsync -a, tar,
# Python's tarfile, unzip, Maildirs, gzip, mke2fs -d, atomic saves, log
# rotation, rsync --inplace onto an older copy, dpkg -i with an upgrade,
# two container image layers applied, a tar backup restored;
# tests/mkinnocent.sh) and on the stomped corpus (touch -d/-t/
# -r/-m/-a, os.utime with nanoseconds, a back-dating undone, debugfs sif;
# tests/mkstomped.sh), at a small scale: the targets as counts.
#   innocent: strong <= 1 per 100,000 files of a tree (0 at this scale),
#             medium <= 1 per 100 files;
#   stomped:  >= 95% of the stomped files named by a strong finding, no
#             strong finding on an ordinary file beside them.
# bench/anomalies-innocent.sh makes the same corpus at full scale.
# Skipped, visibly, where loop mounts are impossible.
. "$TOP_SRCDIR/tests/lib.sh"

# (the sanitizer build of .ci/run, E4T_QUICK=1, runs the rules' code on
# smaller trees: the normal build asserts the targets at 2000)
NFILES=${E4T_INNOCENT_FILES:-$(reps 2000 600)}
NTREES=16 # tests/mkinnocent.sh's trees
NPER=20   # stomped files per technique
NTECH=9   # tests/mkstomped.sh's techniques

suite_setup() {
	require_tools jq python3 debugfs mkfs.ext4 tar rsync zip unzip gzip dpkg dpkg-deb || return 1
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || return 0
	local t
	bash "$TOP_SRCDIR/tests/mkinnocent.sh" "$TMP/c" "$NFILES" >"$TMP/mk.log" 2>&1 || {
		cat "$TMP/mk.log"
		return 1
	}
	for t in $(cut -d' ' -f1 "$TMP/c/manifest"); do
		"$E4TIME" anomalies -f jsonl "$TMP/c/$t.img" >"$TMP/c/$t.jsonl" || return 1
	done
	python3 "$TOP_SRCDIR/tests/anom_counts.py" "$TMP/c" >"$TMP/counts" || return 1
	python3 "$TOP_SRCDIR/tests/anom_counts.py" "$TMP/c" --markdown
	bash "$TOP_SRCDIR/tests/mkstomped.sh" "$TMP/c" "$NPER" >"$TMP/mks.log" 2>&1 || {
		cat "$TMP/mks.log"
		return 1
	}
	"$E4TIME" anomalies -f jsonl "$TMP/c/stomped.img" >"$TMP/c/stomped.jsonl" || return 1
	python3 "$TOP_SRCDIR/tests/anom_counts.py" --recall "$TMP/c/stomped.list" \
		"$TMP/c/stomped.jsonl" >"$TMP/recall" || return 1
	cat "$TMP/recall"
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] || skip_test "loop mounts impossible here"
}

test_every_tree_was_made() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	assertEquals "trees" "$NTREES" "$(wc -l <"$TMP/c/manifest")"
	local t files n=0
	while read -r t files; do
		n=$((n + 1))
		# (atomic saves and log rotation make fewer, by design)
		assertTrue "$t: $files files" "[ $files -ge $((NFILES / 10)) ]"
		assertTrue "$t.img" "[ -s $TMP/c/$t.img ]"
	done <"$TMP/c/manifest"
	assertEquals "trees checked" "$NTREES" "$n"
}

test_innocent_trees_strong() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local t files strong medium info rules n=0
	while read -r t files strong medium info rules; do
		n=$((n + 1))
		assertTrue "$t: $strong strong findings on $files files ($rules)" \
			"[ $strong -le $((files / 100000)) ]"
	done <"$TMP/counts"
	assertEquals "trees counted" "$NTREES" "$n"
}

test_innocent_trees_medium() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local t files strong medium info rules n=0
	while read -r t files strong medium info rules; do
		n=$((n + 1))
		assertTrue "$t: $medium medium findings on $files files ($rules)" \
			"[ $medium -le $((files / 100)) ]"
	done <"$TMP/counts"
	assertEquals "trees counted" "$NTREES" "$n"
}

test_stomped_recall_at_strong() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local t files s m n=0
	while read -r t files s m; do
		case $t in
		total)
			assertEquals "stomped files" $((NPER * NTECH)) "$files"
			assertTrue "recall at strong: $s of $files" \
				"[ $((s * 100)) -ge $((files * 95)) ]"
			;;
		other)
			assertEquals "strong findings on ordinary files" 0 "$files"
			;;
		*) n=$((n + 1)) ;;
		esac
	done <"$TMP/recall"
	assertEquals "techniques" "$NTECH" "$n"
}

. shunit2
