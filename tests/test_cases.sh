#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_cases.sh --- e4time check's problems and e4time anomalies' rules,
# data-driven as e2fsprogs' tests/f_*/: a directory per case,
# tests/cases/check/CODE/ and tests/cases/anomalies/RULE/, each with a
# recipe (bash, sourced after tests/cases/helpers.sh: builds $IMG, the
# kernel writing what it can through a loop mount, debugfs -w what it
# cannot) and an expect file (tests/cases/README says its lines).  One
# test per case directory: the recipe builds the image, the read command
# (check -n -f jsonl, anomalies -f jsonl) must report what expect says
# and leave the image byte for byte (SHA-256 before and after).  Then:
# as many cases ran as there are directories, and every problem code of
# lib/check/problem.c and every rule anomalies --list-rules prints has a
# directory or a line in tests/cases/NOCASE saying why not.  A case whose
# recipe needs a loop mount is skipped, visibly, where mounts are
# impossible.
. "$TOP_SRCDIR/tests/lib.sh"

CASES="$TOP_SRCDIR/tests/cases"
CASE_KINDS="check anomalies"
CASES_RAN=0

suite_setup() {
	require_tools mkfs.ext4 mkfs.ext3 tune2fs e2fsck debugfs dumpe2fs jq \
		python3 sha256sum timeout || return 1
	probe_mount
	export CAN_MOUNT
	known_ids check >"$TMP/known.check" && known_ids anomalies >"$TMP/known.anomalies"
}

# known KIND ID: ID is a problem code (check) or rule id (anomalies): a
# typo in an expect file's "absent" line would otherwise pass unseen.
known() {
	grep -qxF "$2" "$TMP/known.$1" ||
		fail "$1: expect names $2, no such $([ "$1" = check ] && echo code || echo rule)"
}

per_test_setup() {
	fresh_undo_dir
}

# case_lines FILE: FILE's lines without comments and blank lines.
case_lines() {
	sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' "$1"
}

# build_case KIND NAME: the recipe run in $TMP/work; sets CASE_IMG.
# Returns 77 when the recipe asks to be skipped, 1 when it failed.
build_case() {
	local dir="$CASES/$1/$2" work="$TMP/work" rc
	rm -rf "$work"
	mkdir -p "$work/mnt"
	CASE_IMG="$work/img"
	(
		cd "$work" || exit 1
		IMG="$CASE_IMG" MNT="$work/mnt" CASE_DIR="$dir"
		export IMG MNT CASE_DIR E4TIME TOP_SRCDIR
		set -e
		# shellcheck source=tests/cases/helpers.sh
		. "$CASES/helpers.sh"
		# shellcheck disable=SC1090,SC1091 # one per case
		. "$dir/recipe"
	) >"$TMP/recipe.log" 2>&1
	rc=$?
	if mountpoint -q "$work/mnt"; then
		umount "$work/mnt" || umount -l "$work/mnt"
		[ "$rc" = 0 ] && rc=1 &&
			echo "the recipe left $work/mnt mounted" >>"$TMP/recipe.log"
	fi
	if [ "$rc" = 77 ]; then
		skip_test "$1/$2: $(tail -n 1 "$TMP/recipe.log")"
		return 77
	fi
	if [ "$rc" != 0 ] || [ ! -s "$CASE_IMG" ]; then
		fail "$1/$2: the recipe failed (status $rc, image $([ -s "$CASE_IMG" ] || echo not) made): $(tail -n 5 "$TMP/recipe.log")"
		return 1
	fi
	return 0
}

# read_case KIND NAME CMD...: e4time CMD... -f jsonl ARGS IMAGE (ARGS the
# expect file's "args" line) into $OUT; the image must keep every byte.
read_case() {
	local kind=$1 name=$2 before after args
	shift 2
	args=$(case_lines "$CASES/$kind/$name/expect" | sed -n 's/^args[[:space:]]\{1,\}//p')
	before=$(sha256sum <"$CASE_IMG")
	# shellcheck disable=SC2086 # options, split on blanks
	run_t "$@" -f jsonl $args "$CASE_IMG"
	after=$(sha256sum <"$CASE_IMG")
	assertEquals "$kind/$name: e4time $* changed the image" "$before" "$after"
}

# check_case NAME: check -n -f jsonl; the problem codes it reports are
# exactly the expect file's, each line's path (and field) among their
# records, and the exit status the expect file's "status".
check_case() {
	local name=$1 exp="$CASES/check/$1/expect" want_status code path field
	local n=0 want got
	read_case check "$name" check -n
	want_status=$(case_lines "$exp" | awk '$1 == "status" { print $2 }')
	assertEquals "check/$name: exit status: $(head -c 300 "$ERR")" \
		"${want_status:-missing status line}" "$RC"
	want=$(case_lines "$exp" | awk '$1 ~ /^T[0-9]+$/ { print $1 }' | sort -u | tr '\n' ' ')
	got=$(jq -r 'select(.record=="problem") | .code' "$OUT" | sort -u | tr '\n' ' ')
	assertEquals "check/$name: the codes reported" "$want" "$got"
	while read -r code path field; do
		case $code in T[0-9]*) ;; *) continue ;; esac
		n=$((n + 1))
		known check "$code"
		[ -n "$path" ] || continue
		assertEquals "check/$name: $code $path ${field:-}: $(jq -c 'select(.record=="problem") | [.code, .path, .field]' "$OUT" | tr '\n' ' ')" \
			1 "$(jq -s --arg c "$code" --arg p "$path" --arg f "${field:-}" \
				'[.[] | select(.record=="problem" and .code==$c and
					(.path // "") == $p and
					($f == "" or (.field // "") == $f))] | if length > 0 then 1 else 0 end' "$OUT")"
	done < <(case_lines "$exp")
	assertTrue "check/$name: expect names no code ($n)" "[ $n -ge 1 ]"
}

# anomalies_case NAME: anomalies -f jsonl (status 0): every "RULE
# SEVERITY [PATH]" line of expect among its findings, no finding of an
# "absent RULE [PATH]" line.
anomalies_case() {
	local name=$1 exp="$CASES/anomalies/$1/expect" a b c n=0 hits
	read_case anomalies "$name" anomalies
	assertEquals "anomalies/$name: exit status: $(head -c 300 "$ERR")" 0 "$RC"
	while read -r a b c; do
		case $a in
		args) continue ;;
		absent)
			n=$((n + 1))
			known anomalies "$b"
			hits=$(jq -r --arg r "$b" --arg p "${c:-}" \
				'select(.record=="finding" and .rule==$r and ($p == "" or .path==$p)) | .path' "$OUT")
			assertEquals "anomalies/$name: $b must not fire${c:+ on $c}" "" "$hits"
			;;
		*)
			n=$((n + 1))
			known anomalies "$a"
			case $b in strong | medium | info) ;; *) fail "anomalies/$name: $a: severity '$b'" ;; esac
			hits=$(jq -r --arg r "$a" --arg s "$b" --arg p "${c:-}" \
				'select(.record=="finding" and .rule==$r and .severity==$s and ($p == "" or .path==$p)) | .path' "$OUT")
			assertNotEquals "anomalies/$name: $a ($b)${c:+ on $c} must fire: found $(jq -r 'select(.record=="finding") | "\(.path) \(.rule)"' "$OUT" | tr '\n' ',')" \
				"" "$hits"
			;;
		esac
	done < <(case_lines "$exp")
	assertTrue "anomalies/$name: expect names no rule ($n)" "[ $n -ge 1 ]"
}

# run_case KIND NAME: one case directory.
run_case() {
	CASES_RAN=$((CASES_RAN + 1))
	build_case "$1" "$2" || return 0
	"${1}_case" "$2"
	rm -rf "$TMP/work"
}

# The case directories, and a test for each (defined here, which
# shunit2 cannot see: suite() adds them).
CASE_TESTS=()
CASES_FOUND=0
for kind in $CASE_KINDS; do
	for d in "$CASES/$kind"/*/; do
		[ -d "$d" ] || continue
		name=$(basename "$d")
		CASES_FOUND=$((CASES_FOUND + 1))
		# (a name no code or rule has: found, never run, so the count
		# test fails, and the map test names it)
		case $name in *[!A-Za-z0-9-]*) continue ;; esac
		fn="test_${kind}_${name//-/_}"
		CASE_TESTS+=("$fn")
		eval "$fn() { run_case $kind '$name'; }"
	done
done

# known_ids KIND: the problem codes (lib/check/problem.c's table: check
# has no option that lists them) or the rule ids (--list-rules).
known_ids() {
	case $1 in
	check)
		grep -oE '^[[:space:]]*\[E4T_P_[A-Z0-9_]+\] = \{ "T[0-9]+"' \
			"$TOP_SRCDIR/lib/check/problem.c" | grep -oE 'T[0-9]+'
		;;
	anomalies)
		"$E4TIME" anomalies --list-rules |
			sed -nE 's/^([a-z0-9-]+) \((strong|medium|info), (inode|journal)\)$/\1/p'
		;;
	esac
}

# Every problem code and rule id has a case directory or a NOCASE line
# with a reason; every directory and NOCASE line names one; each case
# directory has its recipe (a comment saying what it is first) and
# expect.
test_every_problem_and_rule_has_a_case_or_a_reason() {
	local kind id rest n nocase=0 withcase=0 missing="" stale="" both="" bad=""
	for kind in $CASE_KINDS; do
		known_ids "$kind" >"$TMP/ids.$kind"
		n=$(wc -l <"$TMP/ids.$kind")
		# (9 problems and 15 rules when this test was written)
		assertTrue "$kind: ids found: $n" "[ $n -ge 9 ]"
		while read -r id; do
			if [ -d "$CASES/$kind/$id" ]; then
				withcase=$((withcase + 1))
				grep -qE "^${kind}/${id}[[:space:]]" "$CASES/NOCASE" &&
					both="$both $kind/$id"
			elif grep -qE "^${kind}/${id}[[:space:]]+[^[:space:]]" "$CASES/NOCASE"; then
				nocase=$((nocase + 1))
			else
				missing="$missing $kind/$id"
			fi
		done <"$TMP/ids.$kind"
		for id in "$CASES/$kind"/*/; do
			[ -d "$id" ] || continue
			id=$(basename "$id")
			grep -qxF "$id" "$TMP/ids.$kind" || stale="$stale $kind/$id"
			[ -f "$CASES/$kind/$id/expect" ] &&
				head -n 1 "$CASES/$kind/$id/recipe" 2>/dev/null | grep -q '^# ..' ||
				bad="$bad $kind/$id"
		done
	done
	while read -r id rest; do
		kind=${id%%/*}
		grep -qxF "${id#*/}" "$TMP/ids.$kind" 2>/dev/null || stale="$stale NOCASE:$id"
	done < <(case_lines "$CASES/NOCASE")
	echo "cases: $withcase problems and rules with a case directory, $nocase in NOCASE:"
	case_lines "$CASES/NOCASE" | sed 's/^/  NOCASE /'
	assertEquals "with no case directory and no NOCASE line" "" "${missing# }"
	assertEquals "a case directory or NOCASE line naming no code or rule" "" "${stale# }"
	assertEquals "both a case directory and a NOCASE line" "" "${both# }"
	assertEquals "case directories without recipe (a comment first) or expect" "" "${bad# }"
	assertEquals "directories found against ids with one" "$CASES_FOUND" "$withcase"
}

# Last: every case directory found ran (each test counts itself in).
test_zz_as_many_cases_ran_as_directories() {
	echo "cases: $CASES_FOUND directories, $CASES_RAN ran," \
		"$E4T_SKIPPED skipped"
	assertTrue "case directories found: $CASES_FOUND" "[ $CASES_FOUND -ge 1 ]"
	assertEquals "cases run against directories" "$CASES_FOUND" "$CASES_RAN"
}

suite() {
	local t
	for t in "${CASE_TESTS[@]}"; do
		suite_addTest "$t"
	done
	suite_addTest test_every_problem_and_rule_has_a_case_or_a_reason
	suite_addTest test_zz_as_many_cases_ran_as_directories
}

# shellcheck disable=SC1091 # on PATH
. shunit2
