#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_hostile.sh --- evidence laid out as people lay it out, and
# evidence built to hurt (issue 27): nothing blocks on a FIFO or a
# character device, a qcow2 overlay reads through a raw backing file,
# a too deep chain says so, and backing files outside the evidence's
# directory are refused unless --parent-dir allows them.  Fixtures are
# made here by qemu-img from images/ext4-4k.img; a tool not installed,
# or a format this build lacks, skips its test visibly.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools xz cmp timeout mkfifo || return 1
	RAW=$(unpack ext4-4k) || return 1
}

# need TOOL...: skip the test when one is not installed.
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || {
			skip_test "$t not installed"
			return 1
		}
	done
}

# qcow_ok FILE: skip the test when this build has no libqcow.
qcow_ok() {
	run info "$1"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no libqcow"
		return 1
	fi
}

# trun ARGS...: run under timeout 10 (124: it blocked).
trun() {
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	timeout 10 "$E4TIME" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	check_stderr "e4time $*"
	check_reports "e4time $*"
}

# one_line_error FILE WHAT: $ERR is one line naming FILE and saying WHAT;
# the status is 4 (the image could not be opened).
one_line_error() {
	assertEquals "$1: status (124: it blocked): $(cat "$ERR")" 4 "$RC"
	assertEquals "$1: one line" 1 "$(wc -l <"$ERR")"
	assertContains "$1: named" "$(cat "$ERR")" "$1"
	assertContains "$1: what is wrong" "$(cat "$ERR")" "$2"
}

test_fifo_never_blocks() {
	local d="$TMP/fifo" cmd n=0
	mkdir -p "$d"
	mkfifo "$d/pipe.img" "$d/pipe.000"
	for cmd in volumes info timeline; do
		trun "$cmd" "$d/pipe.img"
		one_line_error "$d/pipe.img" "Not a regular file or block device"
		n=$((n + 1))
	done
	assertEquals "commands tried" 3 "$n"
	# a character device
	trun volumes /dev/zero
	one_line_error /dev/zero "Not a regular file or block device"
	# a split piece that is a FIFO
	rm -f "$d/pipe.000"
	cp "$RAW" "$d/s.000"
	mkfifo "$d/s.001"
	trun info "$d/s.000"
	one_line_error "$d/s.000" "s.001: Not a regular file or block device"
}

test_qcow2_backing_fifo() {
	local d="$TMP/qf"
	need qemu-img || return 0
	mkdir -p "$d"
	mkfifo "$d/fifo"
	# -u: qemu-img does not open the backing file (it would block)
	(cd "$d" && qemu-img create -q -f qcow2 -u -F qcow2 -b fifo \
		over.qcow2 16M)
	qcow_ok "$d/over.qcow2" || return 0
	trun info "$d/over.qcow2"
	one_line_error "$d/over.qcow2" "fifo: Not a regular file or block device"
	trun volumes "$d/over.qcow2"
	one_line_error "$d/over.qcow2" "fifo: Not a regular file or block device"
}

. shunit2
