# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib.sh --- shared set-up for e4time's ShUnit2 suites.
#
# A suite sources this file, defines test_* functions, and ends with
# ". shunit2".  The Makefile exports E4TIME (the binary) and TOP_SRCDIR.
# Each suite prints "SUITE: N passed, N failed, N skipped" at its end;
# tests/summary.sh adds those lines up.
#
# Sanitizers and valgrind: in a --enable-sanitizers build (make check
# sets ASAN_OPTIONS) and with E4TIME_WRAPPER (make check-valgrind:
# "valgrind ... --log-file=%q{E4T_REPORTS}/..."), every e4time a suite
# runs, in pipes and under timeout(1) too, goes through a script that
# records a report (status 86).  A report fails the test that ran the
# process (check_reports after every run and every test, check_stderr),
# whatever the test expected of the status.

: "${E4TIME:?E4TIME must name the e4time binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
IMAGES="$TOP_SRCDIR/images"
SUITE=$(basename "$0" .sh)
E4T_SKIPPED=0
E4T_SKIP_THIS=0
E4T_REPORTS_OUTSIDE=0 # reports found outside any test: failures
VALGRIND_NOTES='^==[0-9]+== (Warning: noted but unhandled ioctl 0x4c05 |   This could cause spurious value errors|   See README_MISSING_SYSCALL_OR_IOCTL)'

# shunit2 (2.1.8) counts with expr(1): `expr N + 1` twice for every
# assert passed, failed or skipped, `expr "$cond" : '\([0-9]*\)'` once
# for every assertTrue/assertFalse.  A process for each is about 10 ms of
# CPU here (1,000 asserts: 56 s, 11 s without them), much of a suite's
# time where a loop asserts a lot (test_completion, test_check's kill
# points).  The same answers from bash: expr as a function for those two
# forms (any other goes to expr(1)), and shunit2's three counters without
# a command substitution (shunit_counters, from oneTimeSetUp, once
# shunit2 has defined its own).
expr() {
	if [ $# = 3 ] && [ "$2" = + ] && [[ $1$3 =~ ^[0-9]+$ ]]; then
		echo $(($1 + $3))
	elif [ $# = 3 ] && [ "$2" = : ] && [ "$3" = '\([0-9]*\)' ]; then
		[[ $1 =~ ^[0-9]* ]]
		echo "${BASH_REMATCH[0]}"
	else
		command expr "$@"
	fi
}

shunit_counters() {
	[ "${SHUNIT_VERSION:-}" = 2.1.8 ] || return 0
	_shunit_assertPass() {
		__shunit_assertsPassed=$((__shunit_assertsPassed + 1))
		__shunit_assertsTotal=$((__shunit_assertsTotal + 1))
	}
	_shunit_incFailedCount() {
		__shunit_assertsFailed=$((__shunit_assertsFailed + 1))
		__shunit_assertsTotal=$((__shunit_assertsTotal + 1))
	}
	_shunit_assertSkip() {
		__shunit_assertsSkipped=$((__shunit_assertsSkipped + 1))
		__shunit_assertsTotal=$((__shunit_assertsTotal + 1))
	}
}

# shunit2 calls these; a suite that needs its own defines suite_setup /
# suite_teardown / per_test_setup instead.  (Not test_setup: shunit2 runs
# every function whose name starts with "test" as a test, and counts it
# passed; a suite that still defines one fails here.)
oneTimeSetUp() {
	shunit_counters
	if type test_setup >/dev/null 2>&1; then
		echo "$SUITE: test_setup would run as a test: name it per_test_setup" >&2
		return 1
	fi
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/e4time-$SUITE.XXXXXX") || return 1
	reports_setup || return 1
	direct_python || return 1
	if type suite_setup >/dev/null 2>&1; then suite_setup || return 1; fi
	return 0
}

oneTimeTearDown() {
	if type suite_teardown >/dev/null 2>&1; then suite_teardown; fi
	# Reports from processes that no test ran (set-up, tear-down).
	check_reports "$SUITE set-up or tear-down"
	# (shunit2 calls this twice: count them once.)
	__shunit_testsFailed=$((__shunit_testsFailed + E4T_REPORTS_OUTSIDE))
	E4T_REPORTS_OUTSIDE=0
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	# shunit2 has counted every test but the skipped ones as passed.
	echo
	echo "$SUITE: $((__shunit_testsPassed - E4T_SKIPPED)) passed," \
		"$__shunit_testsFailed failed, $E4T_SKIPPED skipped"
}

setUp() {
	E4T_SKIP_THIS=0
	# (bash's clock, in microseconds: no process)
	E4T_T0=${EPOCHREALTIME/./}
	leaks_setup
	if type per_test_setup >/dev/null 2>&1; then per_test_setup; fi
	return 0
}

tearDown() {
	if [ "$E4T_SKIP_THIS" = 1 ]; then
		endSkipping
	fi
	check_reports "${_shunit_test_:-?}"
	# How long the test took (the set-up's per_test_setup included): a
	# line tests/slowest.sh reads from the logs.
	echo "TIME: $SUITE ${_shunit_test_:-?} $(((${EPOCHREALTIME/./} - E4T_T0) / 1000)) ms"
	return 0
}

# run_t ARGS...: e4time ARGS as run does, under timeout ($TIMEOUT
# seconds, 60): a hang or a crash fails the test (for damaged and hostile
# input).
run_t() {
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	timeout -k 5 "${TIMEOUT:-60}" "$E4TIME" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
		fail "e4time $*: hung (killed after ${TIMEOUT:-60}s)"
	elif [ "$RC" -ge 128 ]; then
		fail "e4time $*: crashed (status $RC, signal $((RC - 128))): $(head -n 3 "$ERR")"
	fi
	check_stderr "e4time $*"
	check_reports "e4time $*"
}

# reps FULL SAMPLE: FULL, or SAMPLE with E4T_QUICK=1 (.ci/run's
# sanitizer build, whose suites run beside the normal build's): how many
# times a loop repeats one code path (random kills, kill points), where
# the normal build's full count has already shown the rare cases and the
# sanitizer build needs only the path.  Every test still runs.
reps() {
	if [ "${E4T_QUICK:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# Shared loops.  E4T_SHARE=rest (.ci/run's normal build, beside the
# sanitizer build's E4T_QUICK=1): the loops that E4T_QUICK=1 samples
# (kill points, random kills, the images of a repeated path) run here
# only what the sample leaves out, so that in one CI run every point
# runs exactly once over the two builds, as DAMAGE_FIRST does for the
# damaged copies.  Without E4T_QUICK and E4T_SHARE (a plain make check)
# every point runs, as before.  The sample stays small (a point costs
# two to three times as much in the sanitizer build), so the rest is
# most of the loop; each loop asserts the count of its own share.
#
# mine I N: whether point I (0, 1, ...) of a loop runs in this build,
# when E4T_QUICK=1's sample is every Nth point (I mod N = 0).
mine() {
	if [ "${E4T_QUICK:-0}" = 1 ]; then
		[ $(($1 % $2)) = 0 ]
	elif [ "${E4T_SHARE:-}" = rest ]; then
		[ $(($1 % $2)) != 0 ]
	fi
}

# share FULL SAMPLE: how many runs of a loop of FULL runs in this build:
# FULL, SAMPLE with E4T_QUICK=1, FULL - SAMPLE with E4T_SHARE=rest.
share() {
	if [ "${E4T_QUICK:-0}" = 1 ]; then
		echo "$2"
	elif [ "${E4T_SHARE:-}" = rest ]; then
		echo $(($1 - $2))
	else
		echo "$1"
	fi
}

# share_list "FULL..." "SAMPLE...": the words of a loop over FULL that
# run in this build: FULL, SAMPLE with E4T_QUICK=1, the words of FULL
# not in SAMPLE with E4T_SHARE=rest.
share_list() {
	local w out=()
	if [ "${E4T_QUICK:-0}" = 1 ]; then
		echo "$2"
	elif [ "${E4T_SHARE:-}" = rest ]; then
		for w in $1; do
			[[ " $2 " == *" $w "* ]] || out+=("$w")
		done
		echo "${out[*]}"
	else
		echo "$1"
	fi
}

# LeakSanitizer in the sanitizer build: its check at a process's exit
# costs about 40 ms for e4time --version, 85 ms for a timeline of a
# small image (twice the rest of ASan's cost), and finds nothing that
# one run of the same path does not.  The suites of E4T_LEAKS_OFF repeat
# a few paths over many images, copies or kill points: in them it is
# off (detect_leaks=0), but in the tests of E4T_LEAKS_KEEP (SUITE:TEST,
# one or two of each, which run its commands to their end); everywhere
# else (the unit tests, the suites that run each command once a case:
# cli, timeline, cases, damage, hostile, journal, ...) it is on, so that
# every command and its error paths still run under it in CI.  The same
# tests go without ASan's use-after-return detection
# (detect_stack_use_after_return=0: its fake stacks cost 15-25% of a
# timeline's or check's CPU under ASan), on in the others.  ASan and
# UBSan stay on everywhere.  E4T_LEAKS=all: both on in every test.
# (HACKING.md, Hardening; .ci/run.)
E4T_LEAKS_OFF="test_damage_gen test_check test_crash test_deleted test_status
	test_volumes test_safety test_backup_sb test_churn test_strict"
E4T_LEAKS_KEEP="test_damage_gen:test_ext4_4k test_damage_gen:test_ext4_1k_inline
	test_damage_gen:test_ext4_128 test_damage_gen:test_ext4_reuse
	test_damage_gen:test_samba_dosattrib
	test_check:test_ext3_grow_moves_xattrs_to_a_block
	test_check:test_statuses_and_refusals test_check:test_crtime_unset_and_after_ctime
	test_crash:test_undo_disk_full_midway
	test_crash:test_undo_full_check_yes_answers_what_was_written
	test_deleted:test_kernel_journal_names_and_states
	test_deleted:test_committed_images_deleted_file
	test_status:test_good_image test_status:test_damaged_inode
	test_volumes:test_every_read_command_reads_a_partition_as_the_bare_image
	test_volumes:test_damaged_partition_tables
	test_safety:test_undo_file_is_the_image test_safety:test_fuse_mount_ro
	test_backup_sb:test_zeroed_primary test_backup_sb:test_writes_refuse
	test_churn:test_wrapped_live test_churn:test_damage_bad_commit_checksum
	test_strict:test_slash_after_file_is_not_a_directory
	test_strict:test_manifest_duplicate_keys"

# leaks_setup: ASAN_OPTIONS for the test about to run (setUp): leak and
# use-after-return detection off in a test of E4T_LEAKS_OFF's suites but
# E4T_LEAKS_KEEP.
leaks_setup() {
	[ -n "${E4T_ASAN_BASE:-}" ] || return 0
	ASAN_OPTIONS=$E4T_ASAN_BASE
	if [ "${E4T_LEAKS:-}" != all ] &&
		[[ " ${E4T_LEAKS_OFF//$'\n'/ } " == *[[:space:]]"$SUITE"[[:space:]]* ]] &&
		[[ " ${E4T_LEAKS_KEEP//$'\n'/ } " != *[[:space:]]"$SUITE:${_shunit_test_:-}"[[:space:]]* ]]; then
		ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0:detect_stack_use_after_return=0"
	fi
	export ASAN_OPTIONS
}

# direct_python: python3 as the system's binary when the one on PATH is a
# version manager's shim (pyenv's runs several bash scripts first: 0.1 s
# a call idle, seconds on a busy machine, and the suites call python3
# hundreds of times); the tests need only the standard library.
direct_python() {
	local py
	py=$(command -v python3) || return 0
	case $py in
	*/shims/*) ;;
	*) return 0 ;;
	esac
	[ -x /usr/bin/python3 ] || return 0
	ln -sf /usr/bin/python3 "$TMP/bin/python3" || return 1
	PATH="$TMP/bin:$PATH"
	export PATH
}

# reports_setup: $E4T_REPORTS for sanitizer and valgrind reports.  In a
# sanitizer build (ASAN_OPTIONS set) or with E4TIME_WRAPPER, $E4TIME
# becomes a script that runs the binary (under the wrapper) and leaves a
# report when it exits with 86, the status every sanitizer and valgrind
# report ends with: a report fails its test even when a pipeline or a
# test that expects a failure hides the status.  ASan and LSan reports
# go to files in $E4T_REPORTS (log_path), valgrind's too (the wrapper's
# --log-file=%q{E4T_REPORTS}/...); UBSan's go to stderr whatever
# log_path says (gcc 12's runtime, with ASan).
reports_setup() {
	E4T_REPORTS="$TMP/reports"
	mkdir -p "$E4T_REPORTS/seen" "$TMP/bin" || return 1
	export E4T_REPORTS
	[ -n "${ASAN_OPTIONS+set}" ] || [ -n "${E4TIME_WRAPPER:-}" ] || return 0
	if [ -n "${ASAN_OPTIONS+set}" ]; then
		export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$E4T_REPORTS/asan"
		E4T_ASAN_BASE=$ASAN_OPTIONS
	fi
	# The wrapper is split on blanks: no blanks in its paths.
	cat >"$TMP/bin/e4time" <<EOF || return 1
#!/bin/sh
${E4TIME_WRAPPER:-} '$E4TIME' "\$@"
rc=\$?
if [ \$rc -eq 86 ]; then
	echo "e4time \$*: exit status 86: a sanitizer or valgrind report" \\
		>"\$E4T_REPORTS/exit86.\$\$"
fi
exit \$rc
EOF
	chmod +x "$TMP/bin/e4time" || return 1
	E4TIME_BIN="$E4TIME" # the binary itself, without the wrapper
	E4TIME="$TMP/bin/e4time"
	return 0
}

# check_reports WHAT: fail (the current test, naming WHAT) when a
# sanitizer or valgrind report was written since the last check, and
# copy it into the log.  Returns 1 then.
check_reports() {
	local f found=0
	[ -d "${E4T_REPORTS:-}" ] || return 0
	for f in "$E4T_REPORTS"/*; do
		# valgrind -q opens its log at start: empty means clean.  Its
		# warning about the loop-device ioctl that looks for a mounted
		# image (LOOP_GET_STATUS64, no wrapper in valgrind 3.19) is no
		# error: an error it caused would be reported as one.
		[ -f "$f" ] && [ -s "$f" ] || continue
		grep -qvE "$VALGRIND_NOTES" "$f" || continue
		found=1
		echo "---- report ${f##*/} (found after $1):"
		cat "$f"
		mv "$f" "$E4T_REPORTS/seen/"
	done
	[ "$found" = 0 ] && return 0
	if [ -z "${_shunit_test_:-}" ]; then
		echo "ASSERT: $1: a sanitizer or valgrind report (above)"
		E4T_REPORTS_OUTSIDE=$((E4T_REPORTS_OUTSIDE + 1))
	else
		fail "$1: a sanitizer or valgrind report (in the log above)"
	fi
	return 1
}

# skip_test REASON: the rest of this test is skipped, visibly.
skip_test() {
	echo "SKIP: ${_shunit_test_:-?}: $*"
	E4T_SKIPPED=$((E4T_SKIPPED + 1))
	E4T_SKIP_THIS=1
	startSkipping
}

# require_tools CMD...: fail the suite's set-up, saying which, if one is
# missing.
require_tools() {
	local f
	for f in "$@"; do
		command -v "$f" >/dev/null 2>&1 || {
			echo "$SUITE: $f is needed" >&2
			return 1
		}
	done
}

# unpack NAME: a fresh copy of images/NAME.img.xz in $TMP; prints its path.
unpack() {
	local out="$TMP/$1.img"
	xz -dc "$IMAGES/$1.img.xz" >"$out" || return 1
	echo "$out"
}

# run ARGS...: e4time with stdout in $OUT, stderr in $ERR, status in $RC.
run() {
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	"$E4TIME" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	check_stderr "e4time $*"
	check_reports "e4time $*"
}

# check_stderr WHAT: fail when $ERR holds a sanitizer or valgrind report
# (one that went to stderr: options set by hand, no log file).
check_stderr() {
	# (an empty stderr, most runs', costs no process; nor one without
	# the words every report has, read by bash: a damaged image's runs
	# all warn)
	[ -s "$ERR" ] || return 0
	# (read stops at a NUL, with status 0: then grep reads it all)
	local text=
	if ! IFS= read -r -d '' text <"$ERR"; then
		case $text in
		*Sanitizer* | *"runtime error: "* | *==*) ;;
		*) return 0 ;;
		esac
	fi
	if grep -vE "$VALGRIND_NOTES" "$ERR" |
		grep -qE 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error: |^==[0-9]+== '; then
		cat "$ERR"
		if [ -z "${_shunit_test_:-}" ]; then
			echo "ASSERT: $1: a sanitizer or valgrind report on stderr"
			E4T_REPORTS_OUTSIDE=$((E4T_REPORTS_OUTSIDE + 1))
		else
			fail "$1: a sanitizer or valgrind report on stderr (above)"
		fi
	fi
}

# untouched_mark FILE...: prepare FILEs for untouched_check; prints the
# state to pass to it.  A regular file it can touch gets an mtime of
# 2001-09-09T01:46:40.123456789Z: any write(2), truncate or fallocate
# sets it to the present, so an mtime still at that value after a run
# proves the run wrote nothing at all (stronger than equal bytes, and no
# hash of a large image twice per run).  Anything else (a block device,
# a file on a read-only mount) is hashed.
untouched_mark() {
	local f regular=() lines=
	local -A touched=()
	for f in "$@"; do
		[ -f "$f" ] && [ ! -L "$f" ] && regular+=("$f")
	done
	# one touch for them all; file by file only when one could not be
	# touched (a read-only mount)
	if [ "${#regular[@]}" -gt 0 ] &&
		! touch -m -d @1000000000.123456789 -- "${regular[@]}" 2>/dev/null; then
		regular=()
		for f in "$@"; do
			[ -f "$f" ] && [ ! -L "$f" ] &&
				touch -m -d @1000000000.123456789 -- "$f" 2>/dev/null &&
				regular+=("$f")
		done
	fi
	for f in "${regular[@]}"; do
		touched[$f]=1
	done
	for f in "$@"; do
		if [ -n "${touched[$f]:-}" ]; then
			lines+="m"$'\t'"$f"$'\n'
		elif [ -e "$f" ]; then
			lines+="h"$'\t'"$f"$'\n'
		else
			lines+="a"$'\t'"$f"$'\n'
		fi
	done
	untouched_state <<<"${lines%$'\n'}"
}

# untouched_state: the state of each "METHOD<tab>FILE" line read (m: size
# and mtime; h: the bytes' SHA-256; a: absent), after it (a tab between).
# One stat(1) for all the m files (each a process costs about 10 ms of
# CPU; run_ro marks and checks around every read-only run).
untouched_state() {
	local how f hows=() files=() mfiles=() name rest i
	local -A mstate=()
	while IFS=$'\t' read -r how f; do
		[ -n "$how$f" ] || continue
		hows+=("$how")
		files+=("$f")
		[ "$how" = m ] && mfiles+=("$f")
	done
	if [ "${#mfiles[@]}" -gt 0 ]; then
		while IFS=$'\t' read -r name rest; do
			mstate[$name]=$rest
		done < <(stat -c $'%n\t%s %.9Y' -- "${mfiles[@]}" 2>/dev/null)
	fi
	for ((i = 0; i < ${#files[@]}; i++)); do
		how=${hows[i]} f=${files[i]}
		case $how in
		m) printf '%s\t%s\t%s\n' "$how" "$f" "${mstate[$f]:-gone}" ;;
		h) printf '%s\t%s\t%s\n' "$how" "$f" "$(sha256sum <"$f" 2>&1)" ;;
		*) if [ -e "$f" ]; then
			printf '%s\t%s\tpresent\n' "$how" "$f"
		else
			printf '%s\t%s\t\n' "$how" "$f"
		fi ;;
		esac
	done
}

# untouched_check STATE: silent when every file is as untouched_mark left
# it, else prints what changed and returns 1.
untouched_check() {
	local now line lines=
	while IFS= read -r line; do
		[[ $line == *$'\t'*$'\t'* ]] || continue
		lines+="${line%$'\t'*}"$'\n'
	done <<<"$1"
	now=$(untouched_state <<<"${lines%$'\n'}")
	[ "$1" = "$now" ] && return 0
	diff <(echo "$1") <(echo "$now") | grep '^[<>]'
	return 1
}

# run_ro IMAGE ARGS...: as run, and fail if IMAGE was written to
# (untouched_mark: not a byte, not even with the same bytes).
run_ro() {
	local img="$1" state
	shift
	state=$(untouched_mark "$img")
	run "$@"
	untouched_check "$state" >"$TMP/untouched" ||
		fail "e4time $1 wrote to the image: $(cat "$TMP/untouched")"
}

# hex2bytes HEX: the raw bytes (names in .truth files are hex).
hex2bytes() {
	local b
	hex2var b "$1"
	printf '%s' "$b"
}

# hex2var VAR HEX: VAR set to the bytes HEX spells (no NUL), with no
# process started: loops over thousands of names call it.
hex2var() {
	local __h=$2 __e=""
	while [ -n "$__h" ]; do
		__e+="\\x${__h:0:2}"
		__h=${__h:2}
	done
	printf -v "$1" '%b' "$__e"
}

# truth_lines IMAGE_NAME: the non-comment lines of images/NAME.truth.
truth_lines() {
	grep -v '^#' "$IMAGES/$1.truth"
}

# probe_mount: CAN_MOUNT=1 when loop mounts work; MNT, an empty mount point.
probe_mount() {
	CAN_MOUNT=0
	can_mount && CAN_MOUNT=1
	MNT="$TMP/mnt"
	mkdir -p "$MNT"
}

# fresh_undo_dir: E2FSPROGS_UNDO_DIR, empty, for writing commands' undo files.
fresh_undo_dir() {
	export E2FSPROGS_UNDO_DIR="$TMP/undo"
	rm -rf "$E2FSPROGS_UNDO_DIR"
	mkdir -p "$E2FSPROGS_UNDO_DIR"
}

# can_mount: loop mounts work here (root, loop device, ext4).
can_mount() {
	[ "$(id -u)" = 0 ] || return 1
	local probe="$TMP/probe.img" mnt="$TMP/probe.mnt"
	truncate -s 4M "$probe" && mkfs.ext4 -q -F "$probe" >/dev/null 2>&1 &&
		mkdir -p "$mnt" && mount -o loop,ro "$probe" "$mnt" 2>/dev/null &&
		umount "$mnt"
}

# default_undo IMAGE [OFFSET]: the undo file a writing command makes for
# IMAGE when no -z is given: $E2FSPROGS_UNDO_DIR/e4time-BASE-HASH.e2undo,
# HASH the 32-bit FNV-1a of the image's full name and then the offset's
# 8 bytes, little-endian (lib/write/undo_path.c).
default_undo() {
	python3 - "$1" "${2:-0}" "$E2FSPROGS_UNDO_DIR" <<'PYEOF'
import os, sys
name, off, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
h = 2166136261
for c in os.fsencode(os.path.realpath(name)) + off.to_bytes(8, "little"):
    h = ((h ^ c) * 16777619) & 0xFFFFFFFF
print("%s/e4time-%s-%08x.e2undo" % (d, os.path.basename(name), h))
PYEOF
}

# wait_stopped PID: the process stopped by the test hook's SIGSTOP
# (E4TIME_TEST_STOP_AFTER): PID itself, or its child when PID is the
# wrapper of a sanitizer or valgrind build; printed, or status 1 after
# 10 s.  Signals go to the process it prints.
wait_stopped() {
	local i p
	for i in $(seq 1 200); do
		for p in "$1" $(pgrep -P "$1"); do
			if [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = T ]; then
				echo "$p"
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}
