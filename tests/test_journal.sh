#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_journal.sh --- e4time journal against hand-made journals: every tag
# layout (8/10/12/14/16 bytes), SAME_UUID, LAST_TAG and escaped copies,
# revokes with 32- and 64-bit records, checksums v1/v2/v3, a live log
# that wraps (blocks and tids), fast commits, stale transactions in
# clean and live journals, escaped copies that look like journal
# metadata, a live journal without its fast_commit flag, and damage:
# bad checksums, a tid out of place, bad revoke counts, a descriptor
# without LAST_TAG, home blocks past the filesystem, a truncated image,
# a bad journal superblock.
#
# tests/mkjournal.py builds each image (mke2fs, then a journal written
# by hand) and prints what a correct reader finds, following the
# kernel's recovery; "mkjournal.py --check" compares that with
# "e4time journal IMAGE --format jsonl [--stale]" (first line the
# journal, then one transaction a line, warnings on stderr as
# "e4time: IMAGE: ... (journal block J: ...)", status 0 clean / 1 damage
# found / 4 no usable journal).  Every run goes through run_ro: the
# image must stay byte-identical.  Needs python3 (standard library
# only), mke2fs and debugfs.
#
# The oracle is itself checked: test_oracle_e2fsck_* let e2fsck replay
# each journal and compare the home blocks with what mkjournal.py says
# recovery writes; test_oracle_kernel_* do the same through a loop
# mount when this runs as root with loop devices.  They run no e4time
# code: with E4T_QUICK=1 (CI's sanitizer build, beside the normal build
# that runs them) they are left out, as check-san leaves out the suites
# that check no C code; the log says how many.
. "$TOP_SRCDIR/tests/lib.sh"

MKJ="$TOP_SRCDIR/tests/mkjournal.py"
TIMEOUT=60

suite_setup() {
	require_tools python3 mke2fs debugfs timeout || return 1
	probe_mount
	# every e4time of this suite under timeout(1): a reader that loops
	# on a damaged journal fails its test (status 124 or 137)
	cat >"$TMP/bin/e4time-timeout" <<EOF || return 1
#!/bin/sh
exec timeout -k 5 $TIMEOUT '$E4TIME' "\$@"
EOF
	chmod +x "$TMP/bin/e4time-timeout" || return 1
	E4TIME="$TMP/bin/e4time-timeout"
}

# build NAME: $TMP/NAME.img and its expectations $TMP/NAME.json, once.
# Status 77: this system cannot build it (mkjournal.py says why).
build() {
	local n=$1 rc
	[ -s "$TMP/$n.json" ] && return 0
	python3 "$MKJ" "$n" "$TMP/$n.img" >"$TMP/$n.json" 2>"$TMP/$n.build"
	rc=$?
	[ "$rc" = 0 ] || rm -f "$TMP/$n.json"
	return "$rc"
}

# check_journal NAME [--stale]: e4time journal on NAME's image against
# its expectations.
check_journal() {
	local n=$1 stale=${2:-} rc
	build "$n"
	rc=$?
	if [ "$rc" = 77 ]; then
		skip_test "$(cat "$TMP/$n.build")"
		return
	fi
	assertEquals "mkjournal.py $n: $(tail -n 5 "$TMP/$n.build")" 0 "$rc" ||
		return
	run_ro "$TMP/$n.img" journal "$TMP/$n.img" --format jsonl $stale
	if [ "$RC" -ge 124 ]; then
		fail "journal $n $stale: hung or crashed (status $RC): $(head -n 3 "$ERR")"
		return
	fi
	python3 "$MKJ" --check "$TMP/$n.json" "$OUT" "$ERR" "$RC" \
		"$TMP/$n.img" $stale >"$TMP/check" 2>&1
	rc=$?
	assertEquals "journal $n $stale:
$(head -n 30 "$TMP/check")
stderr: $(head -n 5 "$ERR")" 0 "$rc"
}

# oracle HOW NAME: mkjournal.py's account of NAME against real recovery.
oracle() {
	local how=$1 n=$2 out rc
	if [ "$how" = kernel ] && [ "$CAN_MOUNT" != 1 ]; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	if ! command -v e2fsck >/dev/null; then
		skip_test "e2fsck not installed"
		return
	fi
	out=$(python3 "$MKJ" --verify "$how" "$n" "$TMP/oracle-$n.img" 2>&1)
	rc=$?
	rm -f "$TMP/oracle-$n.img"*
	if [ "$rc" = 77 ]; then
		skip_test "$out"
		return
	fi
	assertEquals "mkjournal.py --verify $how $n: $out" 0 "$rc"
}

SCENARIOS=$(python3 "$MKJ" --list 2>/dev/null)

test_scenarios_listed() {
	assertNotNull "mkjournal.py --list gave nothing" "$SCENARIOS"
}

GENERATED=""
for n in $SCENARIOS; do
	eval "test_${n}() { check_journal $n; }"
	eval "test_${n}_stale() { check_journal $n --stale; }"
	GENERATED="$GENERATED test_${n} test_${n}_stale"
done
ORACLES=0
for how in e2fsck kernel; do
	for n in $(python3 "$MKJ" --list-verify $how 2>/dev/null); do
		eval "test_oracle_${how}_${n}() { oracle $how $n; }"
		ORACLES=$((ORACLES + 1))
		[ "$(reps 1 0)" = 1 ] || continue
		GENERATED="$GENERATED test_oracle_${how}_${n}"
	done
done
[ "$(reps 1 0)" = 1 ] ||
	echo "E4T_QUICK=1: the $ORACLES oracle tests (mkjournal.py against e2fsck" \
		"and the kernel, no e4time code) left to the normal build"

# The same journal read twice gives the same output, and the default
# (no --stale) never shows a stale transaction.
test_output_is_stable() {
	build stale_live || { fail "cannot build stale_live"; return; }
	run_ro "$TMP/stale_live.img" journal "$TMP/stale_live.img" \
		--format jsonl --stale
	cp "$OUT" "$TMP/first"
	assertEquals "journal --stale: exit status" 0 "$RC"
	# (identical empty outputs would prove nothing)
	assertTrue "journal --stale listed no stale transaction" \
		"[ $(grep -c '"state": *"stale"' "$TMP/first") -gt 0 ]"
	run_ro "$TMP/stale_live.img" journal "$TMP/stale_live.img" \
		--format jsonl --stale
	assertTrue "identical output" "cmp -s '$TMP/first' '$OUT'"
	run_ro "$TMP/stale_live.img" journal "$TMP/stale_live.img" \
		--format jsonl
	assertEquals "no stale transaction without --stale" 0 \
		"$(grep -c '"state": *"stale"' "$OUT")"
}

suite() {
	local f
	for f in $GENERATED $(grep -oE '^test_[a-z0-9_]+\(\)' "$0" | tr -d '()'); do
		suite_addTest "$f"
	done
}

. shunit2
