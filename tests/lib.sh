# tests/lib.sh --- shared set-up for e4time's ShUnit2 suites.
#
# A suite sources this file, defines test_* functions, and ends with
# ". shunit2".  The Makefile exports E4TIME (the binary) and TOP_SRCDIR.
# Each suite prints "SUITE: N passed, N failed, N skipped" at its end;
# tests/summary.sh adds those lines up.

: "${E4TIME:?E4TIME must name the e4time binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
IMAGES="$TOP_SRCDIR/images"
SUITE=$(basename "$0" .sh)
E4T_SKIPPED=0
E4T_SKIP_THIS=0

# shunit2 calls these; a suite that needs its own defines suite_setup /
# suite_teardown / test_setup instead.
oneTimeSetUp() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/e4time-$SUITE.XXXXXX") || return 1
	if type suite_setup >/dev/null 2>&1; then suite_setup || return 1; fi
	return 0
}

oneTimeTearDown() {
	if type suite_teardown >/dev/null 2>&1; then suite_teardown; fi
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	# shunit2 has counted every test but the skipped ones as passed.
	echo
	echo "$SUITE: $((__shunit_testsPassed - E4T_SKIPPED)) passed," \
		"$__shunit_testsFailed failed, $E4T_SKIPPED skipped"
}

setUp() {
	E4T_SKIP_THIS=0
	if type test_setup >/dev/null 2>&1; then test_setup; fi
	return 0
}

tearDown() {
	if [ "$E4T_SKIP_THIS" = 1 ]; then
		endSkipping
	fi
	return 0
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
}

# run_ro IMAGE ARGS...: as run, and fail if IMAGE changed by a byte.
run_ro() {
	local img="$1" before after
	shift
	before=$(sha256sum <"$img")
	run "$@"
	after=$(sha256sum <"$img")
	assertEquals "e4time $1 changed the image" "$before" "$after"
}

# hex2bytes HEX: the raw bytes (names in .truth files are hex).
hex2bytes() {
	printf '%s' "$1" | xxd -r -p
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
