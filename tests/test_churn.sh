#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_churn.sh --- e4time audit and history on the committed churn images
# (images/churn-*.img.xz, made by images/make-churn-images.sh through loop
# mounts, counts in images/README-churn.md): every count the workload
# implies, as the .info file records it and images/jbd2-oracle.py
# confirmed on the journal the kernel wrote, per class, per transaction
# and per inode (tests/check_churn.py); the live copy through the live
# log, the clean copy through the stale scan, and nothing from a clean
# journal with --no-stale.  Every run leaves the image byte-identical.
# With E4T_QUICK=1 (CI's sanitizer build) history runs on one inode of
# each expected answer, not all 21 (check_churn.py --sample).
. "$TOP_SRCDIR/tests/lib.sh"

# check_churn.py's --sample, with E4T_QUICK=1
SAMPLE=$(reps "" --sample)

suite_setup() {
	require_tools xz python3 sha256sum debugfs
	probe_mount
}

# churn NAME: check images/churn-NAME (and, for an external journal, its
# -jdev device image), with and without the stale scan.
churn() {
	local name="churn-$1" img jdev="" before inos
	img=$(unpack "$name") || fail "unpack $name"
	case "$1" in
	extjournal-*) jdev=$(unpack "$name-jdev") || fail "unpack $name-jdev" ;;
	esac
	before=$(sha256sum <"$img")
	for opt in "" --no-stale; do
		# shellcheck disable=SC2086 # $opt, $SAMPLE, $jdev: none or one word
		python3 "$TOP_SRCDIR/tests/check_churn.py" $opt $SAMPLE "$E4TIME" \
			"$img" "$IMAGES/$name.info" $jdev >"$TMP/churn$opt.out" 2>&1
		RC=$?
		check_reports "check_churn $opt $name"
		assertEquals "$name $opt: $(grep -v '^ok' "$TMP/churn$opt.out")" 0 "$RC"
	done
	# how many inodes' histories the run with the stale scan compared:
	# all 21, or with --sample one of each expected answer
	inos=$(sed -n 's/^ok: .*: history of \([0-9]*\) of the 21 workload inodes.*/\1/p' \
		"$TMP/churn.out")
	if [ -n "$SAMPLE" ]; then
		assertTrue "$name: inodes' histories compared: ${inos:-none}" \
			"[ ${inos:-0} -ge 2 ] && [ ${inos:-0} -le 4 ]"
	else
		assertEquals "$name: inodes' histories compared" 21 "${inos:-none}"
	fi
	assertEquals "$name: the image changed" "$before" "$(sha256sum <"$img")"
	[ -z "$jdev" ] ||
		assertEquals "$name: the journal device changed" \
			"$(xz -dc "$IMAGES/$name-jdev.img.xz" | sha256sum)" \
			"$(sha256sum <"$jdev")"
	rm -f "$img" ${jdev:+"$jdev"}
}

test_strictatime_live() { churn strictatime-live; }
test_strictatime_clean() { churn strictatime-clean; }
test_relatime_live() { churn relatime-live; }
test_relatime_clean() { churn relatime-clean; }
test_lazytime_live() { churn lazytime-live; }
test_lazytime_clean() { churn lazytime-clean; }
test_lazytime_strictatime_live() { churn lazytime-strictatime-live; }
test_lazytime_strictatime_clean() { churn lazytime-strictatime-clean; }
test_noatime_live() { churn noatime-live; }
test_noatime_clean() { churn noatime-clean; }
test_1k_blocks_live() { churn 1k-live; }
test_1k_blocks_clean() { churn 1k-clean; }
test_no_checksums_live() { churn nocsum-live; }
test_no_checksums_clean() { churn nocsum-clean; }
test_external_journal_live() { churn extjournal-live; }
test_external_journal_clean() { churn extjournal-clean; }
test_fast_commit_live() { churn fastcommit-live; }
test_fast_commit_clean() { churn fastcommit-clean; }
test_wrapped_live() { churn wrapped-live; }
test_wrapped_clean() { churn wrapped-clean; }
test_async_commit_live() { churn asynccommit-live; }
test_async_commit_clean() { churn asynccommit-clean; }

# Damaged copies of churn-strictatime-live, with the kernel as the judge:
# its journal (4 KiB blocks, checksums v3, 16-byte tags) holds tids 2-8,
# each a descriptor, two inode-table blocks and a commit, from journal
# block 1: tid T (3..8) is descriptor 4T-1, data 4T and 4T+1 (home
# blocks 35 and 36; d/f01 is inode 13, in block 35), commit 4T+2.  The
# damaged copy is loop-mounted, so the kernel recovers it: when it mounts,
# d/f01's atime through the mount must be that of the last copy of inode
# 13 that e4time history calls live (what recovery replays), and `e4time
# journal` exits 0; when the kernel refuses the journal, `e4time journal`
# must say it is damaged (exit 1, a warning naming a journal block).

# flip IMAGE JBLOCK OFFSET: invert one byte of journal block JBLOCK.
flip() {
	local fsblk pos v
	fsblk=$(debugfs -R "bmap <8> $2" "$1" 2>/dev/null) || return 1
	pos=$((fsblk * 4096 + $3))
	v=$(od -An -tu1 -j "$pos" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # an octal escape built on purpose
	printf "$(printf '\\%03o' $((v ^ 0xff)))" |
		dd of="$1" bs=1 seek="$pos" conv=notrunc status=none
}

# damaged WHAT JBLOCK OFFSET: flip, then compare with the kernel.
damaged() {
	local what="$1" img copy katime last
	[ "$CAN_MOUNT" = 1 ] || { skip_test "loop mounts impossible here"; return; }
	img=$(unpack churn-strictatime-live) || fail "unpack"
	flip "$img" "$2" "$3" || { fail "$what: debugfs bmap"; return; }
	run_ro "$img" journal "$img"
	local jrc=$RC jerr
	jerr=$(grep -v 'needs recovery' "$ERR")
	run_ro "$img" history "$img" '<13>'
	last=$(awk '/^tid /{live = ($3 ~ /^live/)} /^on disk/{live = 0}
		/^  atime /{if (live) t = $2} END{print t}' "$OUT")
	copy="$TMP/kernel.img"
	cp "$img" "$copy"
	if mount -o loop,noatime "$copy" "$MNT" 2>/dev/null; then
		katime=$(stat -c %x "$MNT/d/f01")
		umount "$MNT"
		# "2026-12-03 14:27:32.091281363 +0000" -> ISO 8601
		katime=$(echo "$katime" | sed -E 's/^([0-9-]+) ([0-9:.]+) \+0000$/\1T\2Z/')
		assertEquals "$what: atime the kernel recovered vs e4time's last live copy" \
			"$katime" "$last"
		assertEquals "$what: the kernel recovers it, e4time journal: $jerr" 0 "$jrc"
	else
		assertEquals "$what: the kernel refuses the journal; e4time journal's status" \
			1 "$jrc"
		assertContains "$what: a warning naming a journal block" \
			"$jerr" "journal block"
	fi
	rm -f "$img" "$copy"
}

test_damage_bad_commit_checksum() { damaged "commit checksum of tid 5" 22 16; }
test_damage_bad_descriptor_checksum() { damaged "descriptor checksum of tid 5" 19 4092; }
test_damage_wrong_tid_in_descriptor() { damaged "descriptor tid of tid 5" 19 8; }
test_damage_wrong_tid_in_commit() { damaged "commit tid of tid 5" 22 8; }
test_damage_bad_data_checksum() { damaged "data block of tid 5 (inode 13's)" 20 100; }
test_damage_magic_of_descriptor() { damaged "descriptor magic of tid 6" 23 0; }
test_damage_commit_checksum_of_last() { damaged "commit checksum of tid 8" 34 16; }

# Every churn image in images/ is tested above (a new one must be added).
test_every_churn_image_is_tested() {
	local f name fn
	for f in "$IMAGES"/churn-*.info; do
		name=$(basename "$f" .info)
		name=${name#churn-}
		fn=$(echo "$name" | sed 's/^1k-/1k_blocks-/; s/^nocsum-/no_checksums-/;
			s/^extjournal-/external_journal-/; s/^fastcommit-/fast_commit-/;
			s/^asynccommit-/async_commit-/' | tr - _)
		grep -q "^test_$fn()" "$0" ||
			fail "images/churn-$name has no test (test_$fn)"
	done
}

. shunit2
