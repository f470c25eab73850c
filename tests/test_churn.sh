#!/bin/bash
# test_churn.sh --- e4time audit and history on the committed churn images
# (images/churn-*.img.xz, made by images/make-churn-images.sh through loop
# mounts, counts in images/README-churn.md): every count the workload
# implies, as the .info file records it and images/jbd2-oracle.py
# confirmed on the journal the kernel wrote, per class, per transaction
# and per inode (tests/check_churn.py); the live copy through the live
# log, the clean copy through the stale scan, and nothing from a clean
# journal with --no-stale.  Every run leaves the image byte-identical.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools xz python3 sha256sum
}

# churn NAME: check images/churn-NAME (and, for an external journal, its
# -jdev device image), with and without the stale scan.
churn() {
	local name="churn-$1" img jdev="" before
	img=$(unpack "$name") || fail "unpack $name"
	case "$1" in
	extjournal-*) jdev=$(unpack "$name-jdev") || fail "unpack $name-jdev" ;;
	esac
	before=$(sha256sum <"$img")
	for opt in "" --no-stale; do
		# shellcheck disable=SC2086 # $opt and $jdev: none or one word
		python3 "$TOP_SRCDIR/tests/check_churn.py" $opt "$E4TIME" \
			"$img" "$IMAGES/$name.info" $jdev >"$TMP/churn.out" 2>&1
		RC=$?
		check_reports "check_churn $opt $name"
		assertEquals "$name $opt: $(grep -v '^ok' "$TMP/churn.out")" 0 "$RC"
	done
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
