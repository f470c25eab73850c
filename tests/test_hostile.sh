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

: "${CONTAINER_CAT:=$(dirname "$E4TIME")/../tests/container_cat}"

suite_setup() {
	require_tools xz cmp timeout mkfifo || return 1
	[ -x "$CONTAINER_CAT" ] || {
		echo "$SUITE: tests/container_cat is needed" >&2
		return 1
	}
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

# same_bytes FILE EXPECTED: FILE reads (container_cat) as the bytes of
# the raw file EXPECTED.
same_bytes() {
	"$CONTAINER_CAT" -d "$1" >"$TMP/dump" 2>"$TMP/dump.err"
	assertEquals "$1: read: $(cat "$TMP/dump.err")" 0 $?
	cmp -s "$TMP/dump" "$2"
	assertEquals "$1: the bytes of $2" 0 $?
	rm -f "$TMP/dump"
}

test_qcow2_on_raw_backing() {
	local d="$TMP/qr"
	need qemu-img qemu-io || return 0
	mkdir -p "$d"
	cp "$RAW" "$d/base.raw"
	(cd "$d" && qemu-img create -q -f qcow2 -F raw -b base.raw over.qcow2)
	qcow_ok "$d/over.qcow2" || return 0
	assertEquals "info: $(cat "$ERR")" 0 "$RC"
	same_bytes "$d/over.qcow2" "$d/base.raw"
	run timeline "$d/over.qcow2"
	assertEquals "timeline: $(cat "$ERR")" 0 "$RC"
	run timeline "$d/base.raw"
	cp "$OUT" "$TMP/want.tl"
	run timeline "$d/over.qcow2"
	assertEquals "timeline: the raw image's" "$(cat "$TMP/want.tl")" \
		"$(cat "$OUT")"
	# the overlay holds a cluster of its own, and a zero cluster
	qemu-io -f qcow2 -c "write -P 0x41 65536 4096" \
		-c "write -z 1048576 65536" "$d/over.qcow2" >/dev/null
	qemu-img convert -O raw "$d/over.qcow2" "$d/want.raw"
	same_bytes "$d/over.qcow2" "$d/want.raw"
	# a qcow2 on that one
	(cd "$d" && qemu-img create -q -f qcow2 -F qcow2 -b over.qcow2 top.qcow2)
	qemu-io -f qcow2 -c "write -P 0x42 200000 4096" "$d/top.qcow2" \
		>/dev/null
	qemu-img convert -O raw "$d/top.qcow2" "$d/want2.raw"
	same_bytes "$d/top.qcow2" "$d/want2.raw"
}

test_qcow2_chain_too_deep() {
	local d="$TMP/qd" i
	need qemu-img || return 0
	mkdir -p "$d"
	qemu-img convert -O qcow2 "$RAW" "$d/q0.qcow2"
	qcow_ok "$d/q0.qcow2" || return 0
	for i in $(seq 1 99); do
		qemu-img create -q -f qcow2 -u -F qcow2 -b "q$((i - 1)).qcow2" \
			"$d/q$i.qcow2" 32M
	done
	assertEquals "files made" 100 "$(ls "$d" | wc -l)"
	trun info "$d/q99.qcow2"
	one_line_error "$d/q99.qcow2" "deeper than 16"
	# 16 deep reads
	trun info "$d/q15.qcow2"
	assertEquals "16 deep: $(cat "$ERR")" 0 "$RC"
}

test_parent_outside_refused() {
	local d="$TMP/po" f n=0
	need qemu-img || return 0
	mkdir -p "$d/ev/sub" "$d/host"
	cp "$RAW" "$d/host/base.raw"
	cp "$RAW" "$d/ev/sub/inner.raw"
	# -u: qemu-img opens no backing file
	qemu-img create -q -f qcow2 -u -F raw -b "$d/host/base.raw" \
		"$d/ev/abs.qcow2" 32M
	qemu-img create -q -f qcow2 -u -F raw -b /etc/shadow \
		"$d/ev/shadow.qcow2" 32M
	qemu-img create -q -f qcow2 -u -F raw -b /dev/zero \
		"$d/ev/zero.qcow2" 32M
	ln -s ../host/base.raw "$d/ev/link.raw"
	qemu-img create -q -f qcow2 -u -F raw -b link.raw "$d/ev/link.qcow2" 32M
	qemu-img create -q -f qcow2 -u -F raw -b ../host/base.raw \
		"$d/ev/up.qcow2" 32M
	qcow_ok "$d/ev/abs.qcow2" || return 0
	for f in abs shadow zero link up; do
		trun info "$d/ev/$f.qcow2"
		one_line_error "$d/ev/$f.qcow2" "outside the evidence's directory"
		n=$((n + 1))
	done
	assertEquals "backing files tried" 5 "$n"
	# --parent-dir allows a directory (the links followed)
	for f in abs link up; do
		trun info --parent-dir "$d/host" "$d/ev/$f.qcow2"
		assertEquals "$f: allowed: $(cat "$ERR")" 0 "$RC"
		assertContains "$f: read" "$(cat "$OUT")" "e4t4k"
	done
	trun info --parent-dir "$d/host" "$d/ev/shadow.qcow2"
	assertEquals "shadow: still outside" 4 "$RC"
	trun info --parent-dir "$d/nonesuch" "$d/ev/abs.qcow2"
	assertEquals "--parent-dir: no such directory: usage" 2 "$RC"
	# below the child's directory is inside
	qemu-img create -q -f qcow2 -u -F raw -b sub/inner.raw \
		"$d/ev/in.qcow2" 32M
	trun info "$d/ev/in.qcow2"
	assertEquals "below: $(cat "$ERR")" 0 "$RC"
	# an absolute name whose file lies beside the child too: that one
	cp "$RAW" "$d/ev/base.raw"
	trun info "$d/ev/abs.qcow2"
	assertEquals "beside: $(cat "$ERR")" 0 "$RC"
}

# A VMDK descriptor's extents are parents too: one named outside the
# evidence's directory (absolute, or a symbolic link leading out) is
# refused unless --parent-dir allows it, a FIFO never blocks.
test_vmdk_extent_outside_refused() {
	local d="$TMP/vx" f n=0
	need qemu-img || return 0
	mkdir -p "$d/ev" "$d/host"
	qemu-img convert -O vmdk -o subformat=monolithicFlat "$RAW" "$d/ev/f.vmdk"
	run info "$d/ev/f.vmdk"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no libvmdk"
		return 0
	fi
	assertEquals "intact: $(cat "$ERR")" 0 "$RC"
	assertEquals "one extent" 1 "$(grep -ac '^RW .* FLAT "f-flat.vmdk"' "$d/ev/f.vmdk")"
	mv "$d/ev/f-flat.vmdk" "$d/host/"
	# abs: the descriptor names the host's file; link: beside, leading out
	sed "s|\"f-flat.vmdk\"|\"$d/host/f-flat.vmdk\"|" "$d/ev/f.vmdk" >"$d/ev/abs.vmdk"
	sed "s|\"f-flat.vmdk\"|\"l-flat.vmdk\"|" "$d/ev/f.vmdk" >"$d/ev/link.vmdk"
	ln -s ../host/f-flat.vmdk "$d/ev/l-flat.vmdk"
	for f in abs link; do
		trun info "$d/ev/$f.vmdk"
		one_line_error "$d/ev/$f.vmdk" "outside the evidence's directory"
		n=$((n + 1))
	done
	assertEquals "extents tried" 2 "$n"
	trun info --parent-dir "$d/host" "$d/ev/link.vmdk"
	assertEquals "link: allowed: $(cat "$ERR")" 0 "$RC"
	assertContains "link: read" "$(cat "$OUT")" "e4t4k"
	# a name with a directory is never handed to libvmdk (it reads past
	# its buffer joining it): said, with what to do
	trun info --parent-dir "$d/host" "$d/ev/abs.vmdk"
	one_line_error "$d/ev/abs.vmdk" \
		"$d/host/f-flat.vmdk: The VMDK descriptor names an extent file with a directory"
	cp "$d/host/f-flat.vmdk" "$d/ev/f-flat.vmdk"
	mkdir -p "$d/ev/sub"
	cp "$d/host/f-flat.vmdk" "$d/ev/sub/f-flat.vmdk"
	sed "s|\"f-flat.vmdk\"|\"sub/f-flat.vmdk\"|" "$d/ev/f.vmdk" >"$d/ev/sub.vmdk"
	trun info "$d/ev/sub.vmdk"
	one_line_error "$d/ev/sub.vmdk" "link the extent beside the descriptor"
	rm -f "$d/ev/f-flat.vmdk"
	mkfifo "$d/ev/p-flat.vmdk"
	sed "s|\"f-flat.vmdk\"|\"p-flat.vmdk\"|" "$d/ev/f.vmdk" >"$d/ev/fifo.vmdk"
	trun info "$d/ev/fifo.vmdk"
	one_line_error "$d/ev/fifo.vmdk" "Not a regular file"
}

# mkdiff PARENT CHILD same|other: a differencing VHD CHILD over the
# dynamic VHD PARENT, naming PARENT's identifier or another
# (tests/mkvhd_child.py).
mkdiff() {
	python3 "$TOP_SRCDIR/tests/mkvhd_child.py" "$@"
}

test_vhd_parent_identifier() {
	local d="$TMP/vd"
	need qemu-img || return 0
	mkdir -p "$d"
	qemu-img convert -O vpc -o force_size=on "$RAW" "$d/dyn.vhd"
	run info "$d/dyn.vhd"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no libvhdi"
		return 0
	fi
	mkdiff "$d/dyn.vhd" "$d/good.vhd" same
	mkdiff "$d/dyn.vhd" "$d/bad.vhd" other
	same_bytes "$d/good.vhd" "$RAW"
	trun info "$d/bad.vhd"
	one_line_error "$d/bad.vhd" \
		"dyn.vhd: The parent image's identifier does not match"
}

test_split_lone_first_piece_names_the_next() {
	local d="$TMP/sp"
	need split || return 0
	mkdir -p "$d"
	split -d -a 3 -b 8M "$RAW" "$d/d."
	assertTrue "four pieces" "[ -f $d/d.003 ]"
	rm -f "$d/d.001" "$d/d.002" "$d/d.003"
	run timeline "$d/d.000"
	assertEquals "status: $(cat "$ERR")" 1 "$RC"
	assertContains "names the missing piece" "$(cat "$ERR")" \
		"shorter than the filesystem it holds: the split piece $d/d.001 is missing"
	# volumes: the filesystem runs past the last piece, said so
	run volumes "$d/d.000"
	assertEquals "volumes: exit 1: $(cat "$ERR")" 1 "$RC"
	assertEquals "volumes: one line" 1 "$(wc -l <"$ERR")"
	assertContains "volumes: names the missing piece" "$(cat "$ERR")" \
		"disk: Image is shorter than the filesystem it holds: its ext4 filesystem is 33554432 bytes, the volume 8388608: the split piece $d/d.001 is missing"
	run volumes -q "$d/d.000"
	assertEquals "volumes -q: still exit 1" 1 "$RC"
	# two pieces of three: the third is named
	split -d -a 3 -b 12M "$RAW" "$d/t."
	rm -f "$d/t.002"
	run timeline "$d/t.000"
	assertContains "the third" "$(cat "$ERR")" "split piece $d/t.002 is missing"
	run volumes "$d/t.000"
	assertContains "volumes: the third" "$(cat "$ERR")" "split piece $d/t.002 is missing"
	# a partitioned disk whose partition runs past the pieces there are
	if command -v sfdisk >/dev/null 2>&1; then
		truncate -s 40M "$d/g.img"
		printf 'label: gpt\nstart=2048, size=65536, type=linux\n' |
			sfdisk -q "$d/g.img" >/dev/null
		dd if="$RAW" of="$d/g.img" bs=512 seek=2048 conv=notrunc status=none
		split -d -a 3 -b 16M "$d/g.img" "$d/g."
		rm -f "$d/g.img" "$d/g.001" "$d/g.002"
		run volumes "$d/g.000"
		assertEquals "gpt: volumes: exit 1" 1 "$RC"
		# (the partition is read up to the end, and said so)
		assertContains "gpt: volumes names the piece" "$(cat "$ERR")" \
			"p1: Image is shorter than the filesystem it holds: its ext4 filesystem is 33554432 bytes, the volume 15728640: the split piece $d/g.001 is missing"
		run timeline --volume p1 "$d/g.000"
		assertEquals "gpt: timeline: exit 1" 1 "$RC"
		assertContains "gpt: timeline names the piece" "$(cat "$ERR")" \
			"the split piece $d/g.001 is missing"
	else
		echo "SKIP: ${_shunit_test_}: a partitioned split disk: sfdisk is not installed"
	fi
	# empty pieces, an empty file
	: >"$d/e.000"
	: >"$d/e.001"
	: >"$d/empty.img"
	for f in e.000 empty.img; do
		trun info "$d/$f"
		one_line_error "$d/$f" "holds no bytes"
	done
}

test_ewf_truncated_single_segment() {
	local d="$TMP/ew"
	if ! command -v ewfacquire >/dev/null 2>&1; then
		skip_test "ewfacquire not installed"
		return 0
	fi
	mkdir -p "$d"
	ewfacquire -u -q -t "$d/img" -f encase6 -c empty-block "$RAW" \
		>"$TMP/ewfacquire.log" 2>&1
	run info "$d/img.E01"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no libewf"
		return 0
	fi
	assertEquals "whole: $(cat "$ERR")" 0 "$RC"
	head -c 300000 "$d/img.E01" >"$d/t.E01"
	trun info "$d/t.E01"
	one_line_error "$d/t.E01" "t.E01: The segment ends early: it is truncated"
	# a missing segment is still named as such
	ewfacquire -u -q -t "$d/s" -f encase6 -c empty-block -S 1M "$RAW" \
		>"$TMP/ewfacquire.log" 2>&1
	rm -f "$d/s.E03"
	trun info "$d/s.E01"
	one_line_error "$d/s.E01" "s.E03: A piece of the container is missing"
}

# A byte changed in a chunk of zeros of an uncompressed E01: libewf
# hands the chunk over as zeros, so the stored MD5 matches what is
# read, and the chunk's checksum fails: that is what is said.
test_verify_chunk_failure_with_matching_hash() {
	local d="$TMP/ev"
	if ! command -v ewfacquire >/dev/null 2>&1; then
		skip_test "ewfacquire not installed"
		return 0
	fi
	mkdir -p "$d"
	ewfacquire -u -q -t "$d/n" -f encase6 -c none -S 8M "$RAW" \
		>"$TMP/ewfacquire.log" 2>&1
	run info "$d/n.E01"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no libewf"
		return 0
	fi
	run info --verify-container "$d/n.E01"
	assertEquals "intact: $(cat "$ERR")" 0 "$RC"
	python3 - "$RAW" "$d/n.E01" <<'PY'
import sys
raw = open(sys.argv[1], 'rb').read()
seg = bytearray(open(sys.argv[2], 'rb').read())
C = 32768
pos = seg.find(raw[0:C])
assert pos > 0
assert seg[pos + C + 4:pos + 2 * C + 4] == raw[C:2 * C]
k = next(k for k in range(1, 200) if raw[k * C:(k + 1) * C] == bytes(C))
seg[pos + k * (C + 4) + 100] ^= 1
open(sys.argv[2], 'wb').write(seg)
PY
	run info --verify-container "$d/n.E01"
	assertEquals "status: $(cat "$ERR")" 1 "$RC"
	assertContains "the chunk" "$(cat "$ERR")" \
		"Chunks of the container fail their checksums"
	assertContains "how many" "$(cat "$ERR")" "1 chunk fails the checksum"
	assertNotContains "no hash mismatch" "$(cat "$ERR")" "does not match"
}

. shunit2
