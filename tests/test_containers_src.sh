#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_containers_src.sh --- the evidence containers (lib/container/)
# on images the real tools make from images/ext4-4k.img: split raw
# (split(1): .001 and aa suffixes), EWF (ewfacquire: compressed in
# segments, uncompressed), qcow2 and qcow (qemu-img, a backing file
# too), VMDK (sparse, flat with a descriptor, 2 GB extents, stream
# optimized, a child), VHD and VHDX.  Each is read through
# tests/container_cat and compared byte for byte with the raw image;
# what is missing (a piece, a segment, a backing file, an extent) is
# named; a truncated image is an error, not a crash; EWF's stored MD5
# is verified, and found not to match once a data byte is changed.  A
# tool not installed, or a format this build lacks, skips its tests.
. "$TOP_SRCDIR/tests/lib.sh"

: "${CONTAINER_CAT:=$(dirname "$E4TIME")/../tests/container_cat}"

suite_setup() {
	require_tools xz cmp || return 1
	RAW=$(unpack ext4-4k) || return 1
	RAWSIZE=$(stat -c %s "$RAW")
}

# cc ARGS...: container_cat; $OUT, $ERR, $RC
cc() {
	OUT="$TMP/cc.out"
	ERR="$TMP/cc.err"
	"$CONTAINER_CAT" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# need TOOL...: skip the test when one is not installed (or when
# container_cat was not built); 0 when all are there.
need() {
	local t
	if [ ! -x "$CONTAINER_CAT" ]; then
		skip_test "tests/container_cat not built"
		return 1
	fi
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || {
			skip_test "$t not installed"
			return 1
		}
	done
}

# supported FILE NAME: skip the test when this build lacks the library
# FILE's format needs.
supported() {
	cc "$1"
	if grep -q "built without support" "$ERR"; then
		skip_test "this build has no $2"
		return 1
	fi
}

# same_as_raw FILE KIND: FILE opens as KIND, holds the raw image's size,
# and its bytes are the raw image's.
same_as_raw() {
	cc "$1"
	assertEquals "$1: open: $(cat "$ERR")" 0 "$RC"
	assertEquals "$1: kind and size" "$2 $RAWSIZE" \
		"$(cut -d' ' -f1-$(($(wc -w <<<"$2") + 1)) "$OUT")"
	"$CONTAINER_CAT" -d "$1" >"$TMP/dump" 2>"$TMP/dump.err"
	assertEquals "$1: dump: $(cat "$TMP/dump.err")" 0 $?
	cmp -s "$TMP/dump" "$RAW"
	assertEquals "$1: the bytes of the raw image" 0 $?
	rm -f "$TMP/dump"
}

# pieces: the last field of container_cat's line
pieces() {
	awk '{ print $NF }' "$OUT"
}

# fails_naming FILE NAME: opening FILE is E4T_ERR_CONTAINER_PIECE
# naming NAME.
fails_naming() {
	cc "$1"
	assertEquals "$1: status" 1 "$RC"
	assertContains "$1: the missing piece" "$(cat "$ERR")" \
		"missing or short: $2"
}

# ---------------------------------------------------------------- split

test_split_numeric() {
	need split || return 0
	mkdir -p "$TMP/s1"
	split -b 7M -d --numeric-suffixes=1 -a 3 "$RAW" "$TMP/s1/disk.img."
	same_as_raw "$TMP/s1/disk.img.001" "split raw"
	assertEquals "pieces" 5 "$(pieces)"
	# a read across a piece boundary
	"$CONTAINER_CAT" -d -o $((7 * 1048576 - 100)) -l 200 \
		"$TMP/s1/disk.img.001" >"$TMP/part"
	cmp -s "$TMP/part" <(tail -c +$((7 * 1048576 - 99)) "$RAW" | head -c 200)
	assertEquals "across the boundary" 0 $?
}

test_split_zero_and_width() {
	need split || return 0
	mkdir -p "$TMP/s0"
	split -b 10M -d -a 4 "$RAW" "$TMP/s0/disk."
	same_as_raw "$TMP/s0/disk.0000" "split raw"
	assertEquals "pieces" 4 "$(pieces)"
}

test_split_alpha() {
	need split || return 0
	mkdir -p "$TMP/s2"
	(cd "$TMP/s2" && split -b 5M "$RAW")
	same_as_raw "$TMP/s2/xaa" "split raw"
	assertEquals "pieces" 7 "$(pieces)"
}

test_split_hole() {
	need split || return 0
	mkdir -p "$TMP/s3"
	split -b 7M -d --numeric-suffixes=1 -a 3 "$RAW" "$TMP/s3/disk.img."
	mv "$TMP/s3/disk.img.002" "$TMP/s3.002"
	fails_naming "$TMP/s3/disk.img.001" "$TMP/s3/disk.img.002"
	mv "$TMP/s3.002" "$TMP/s3/disk.img.002"
	mv "$TMP/s3/disk.img.004" "$TMP/s3.004"
	fails_naming "$TMP/s3/disk.img.001" "$TMP/s3/disk.img.004"
}

test_split_first_alone_is_raw() {
	need split || return 0
	mkdir -p "$TMP/s4"
	split -b 7M -d --numeric-suffixes=1 -a 3 "$RAW" "$TMP/s4/disk.img."
	rm "$TMP/s4/disk.img.002" "$TMP/s4/disk.img.003"
	cc "$TMP/s4/disk.img.001"
	assertEquals "status" 0 "$RC"
	assertEquals "one raw piece" "raw $((7 * 1048576)) 1" "$(cat "$OUT")"
}

# ---------------------------------------------------------------- EWF

# ewf DIR ARGS...: ewfacquire the raw image into DIR/img.E01...
ewf() {
	local dir=$1
	shift
	mkdir -p "$dir"
	ewfacquire -u -q -t "$dir/img" -f encase6 "$@" "$RAW" \
		>"$TMP/ewfacquire.log" 2>&1
}

test_ewf_segments() {
	need ewfacquire || return 0
	ewf "$TMP/e1" -c empty-block -S 1M -d sha1
	supported "$TMP/e1/img.E01" libewf || return 0
	assertTrue "three segments or more" "[ -f $TMP/e1/img.E03 ]"
	same_as_raw "$TMP/e1/img.E01" "EWF"
	assertEquals "pieces" "$(ls "$TMP/e1" | wc -l)" "$(pieces)"
	cc -v "$TMP/e1/img.E01"
	assertEquals "verify: $(cat "$OUT")" 0 "$RC"
	assertContains "MD5" "$(cat "$OUT")" \
		"stored MD5 $(md5sum <"$RAW" | cut -d' ' -f1)"
	assertContains "SHA1" "$(cat "$OUT")" \
		"SHA1 $(sha1sum <"$RAW" | cut -d' ' -f1)"
}

test_ewf_best_compression() {
	need ewfacquire || return 0
	ewf "$TMP/e2" -c deflate:best
	supported "$TMP/e2/img.E01" libewf || return 0
	same_as_raw "$TMP/e2/img.E01" "EWF"
}

test_ewf_missing_segment() {
	need ewfacquire || return 0
	ewf "$TMP/e3" -c empty-block -S 1M
	supported "$TMP/e3/img.E01" libewf || return 0
	mv "$TMP/e3/img.E02" "$TMP/e3.E02"
	fails_naming "$TMP/e3/img.E01" "$TMP/e3/img.E02"
	mv "$TMP/e3.E02" "$TMP/e3/img.E02"
	mv "$TMP/e3/img.E03" "$TMP/e3.E03"
	fails_naming "$TMP/e3/img.E01" "$TMP/e3/img.E03"
}

test_ewf_altered() {
	need ewfacquire python3 || return 0
	ewf "$TMP/e4" -c none -S 8M
	supported "$TMP/e4/img.E01" libewf || return 0
	# a byte of the volume name in the superblock, found in the segment
	python3 - "$RAW" "$TMP/e4/img.E01" <<'EOF'
import sys
raw = open(sys.argv[1], 'rb').read()
seg = bytearray(open(sys.argv[2], 'rb').read())
pos = seg.find(raw[1024:1024 + 128])
assert pos > 0
seg[pos + 0x78] ^= 1
open(sys.argv[2], 'wb').write(seg)
EOF
	cc -v "$TMP/e4/img.E01"
	assertEquals "verify: $(cat "$OUT")" 3 "$RC"
	assertContains "the message" "$(cat "$OUT")" "MD5 does not match"
	# and reading the chunk is an error, not the altered bytes: through
	# the block cache or not, every time (libewf counts a chunk once)
	cc -d -l 4096 "$TMP/e4/img.E01"
	assertEquals "read of the altered chunk" 1 "$RC"
	cc -d -l 4096 -s 1024 "$TMP/e4/img.E01"
	assertEquals "the altered chunk, 1 KiB at a time" 1 "$RC"
	cc -d -l 4096 -c 0 "$TMP/e4/img.E01"
	assertEquals "the altered chunk without a cache" 1 "$RC"
	# a chunk that was not altered reads as it is
	cc -d -o 1048576 -l 4096 -s 512 "$TMP/e4/img.E01"
	assertEquals "an unaltered chunk: $(cat "$ERR")" 0 "$RC"
	cmp -s "$OUT" <(tail -c +1048577 "$RAW" | head -c 4096)
	assertEquals "an unaltered chunk's bytes" 0 $?
}

# The container's block cache (container.c, 32 KiB blocks): reads of
# 3000 bytes, which straddle blocks now and then, through a cache of 4
# blocks (each block evicted and read again), none, and the default;
# the raw image's bytes every time, each block read once when it fits.
test_ewf_cache() {
	local kib blocks
	need ewfacquire || return 0
	ewf "$TMP/e5" -c deflate:fast
	supported "$TMP/e5/img.E01" libewf || return 0
	for kib in 128 0 16384; do
		"$CONTAINER_CAT" -d -s 3000 -c $kib "$TMP/e5/img.E01" \
			>"$TMP/dump" 2>"$TMP/dump.err"
		assertEquals "cache $kib KiB: $(cat "$TMP/dump.err")" 0 $?
		cmp -s "$TMP/dump" "$RAW"
		assertEquals "cache $kib KiB: the raw image's bytes" 0 $?
	done
	blocks=$(((RAWSIZE + 32767) / 32768))
	assertContains "each block read once" "$(cat "$TMP/dump.err")" \
		" hits, $blocks misses"
	assertNotContains "hits" "$(cat "$TMP/dump.err")" "cache: 0 hits"
	"$CONTAINER_CAT" -d -s 3000 -c 0 "$TMP/e5/img.E01" >/dev/null \
		2>"$TMP/dump.err"
	assertEquals "no cache" "cache: 0 hits, 0 misses" "$(cat "$TMP/dump.err")"
	rm -f "$TMP/dump"
}

# ---------------------------------------------------------------- qcow

test_qcow2() {
	need qemu-img || return 0
	mkdir -p "$TMP/q"
	qemu-img convert -O qcow2 "$RAW" "$TMP/q/img.qcow2"
	supported "$TMP/q/img.qcow2" libqcow || return 0
	same_as_raw "$TMP/q/img.qcow2" "qcow2"
	qemu-img convert -O qcow2 -c "$RAW" "$TMP/q/z.qcow2"
	same_as_raw "$TMP/q/z.qcow2" "qcow2"
	qemu-img convert -O qcow "$RAW" "$TMP/q/v1.qcow"
	same_as_raw "$TMP/q/v1.qcow" "qcow"
}

test_qcow2_backing() {
	need qemu-img || return 0
	mkdir -p "$TMP/qb" "$TMP/qb2"
	qemu-img convert -O qcow2 "$RAW" "$TMP/qb/base.qcow2"
	supported "$TMP/qb/base.qcow2" libqcow || return 0
	(cd "$TMP/qb" &&
		qemu-img create -q -f qcow2 -b base.qcow2 -F qcow2 child.qcow2)
	same_as_raw "$TMP/qb/child.qcow2" "qcow2"
	assertEquals "pieces: child and base" 2 "$(pieces)"
	# the base moved away
	mv "$TMP/qb/child.qcow2" "$TMP/qb2/"
	fails_naming "$TMP/qb2/child.qcow2" "base.qcow2"
}

test_qcow2_truncated() {
	need qemu-img || return 0
	mkdir -p "$TMP/qt"
	qemu-img convert -O qcow2 "$RAW" "$TMP/qt/img.qcow2"
	supported "$TMP/qt/img.qcow2" libqcow || return 0
	head -c 300000 "$TMP/qt/img.qcow2" >"$TMP/qt/t.qcow2"
	cc -d "$TMP/qt/t.qcow2"
	assertEquals "truncated: an error: $(cat "$ERR")" 1 "$RC"
	assertContains "damaged" "$(cat "$ERR")" "damaged or unreadable"
	head -c 1000 "$TMP/qt/img.qcow2" >"$TMP/qt/h.qcow2"
	cc "$TMP/qt/h.qcow2"
	assertEquals "header only: an error" 1 "$RC"
}

# ---------------------------------------------------------------- VMDK

test_vmdk() {
	need qemu-img || return 0
	mkdir -p "$TMP/v"
	qemu-img convert -O vmdk "$RAW" "$TMP/v/mono.vmdk"
	supported "$TMP/v/mono.vmdk" libvmdk || return 0
	same_as_raw "$TMP/v/mono.vmdk" "VMDK"
	for sub in monolithicFlat twoGbMaxExtentSparse twoGbMaxExtentFlat \
		streamOptimized; do
		qemu-img convert -O vmdk -o subformat=$sub "$RAW" \
			"$TMP/v/$sub.vmdk"
		same_as_raw "$TMP/v/$sub.vmdk" "VMDK"
	done
	# the descriptor opened from its own folder
	(cd "$TMP/v" && "$CONTAINER_CAT" -d monolithicFlat.vmdk | cmp -s - "$RAW")
	assertEquals "relative descriptor" 0 $?
}

test_vmdk_missing_extent() {
	need qemu-img || return 0
	mkdir -p "$TMP/vm"
	qemu-img convert -O vmdk -o subformat=monolithicFlat "$RAW" \
		"$TMP/vm/d.vmdk"
	supported "$TMP/vm/d.vmdk" libvmdk || return 0
	mv "$TMP/vm/d-flat.vmdk" "$TMP/"
	fails_naming "$TMP/vm/d.vmdk" "d-flat.vmdk"
}

test_vmdk_child() {
	need qemu-img || return 0
	mkdir -p "$TMP/vc" "$TMP/vc2"
	qemu-img convert -O vmdk "$RAW" "$TMP/vc/base.vmdk"
	supported "$TMP/vc/base.vmdk" libvmdk || return 0
	(cd "$TMP/vc" &&
		qemu-img create -q -f vmdk -b base.vmdk -F vmdk child.vmdk)
	same_as_raw "$TMP/vc/child.vmdk" "VMDK"
	assertEquals "pieces: child and parent" 2 "$(pieces)"
	mv "$TMP/vc/child.vmdk" "$TMP/vc2/"
	fails_naming "$TMP/vc2/child.vmdk" "base.vmdk"
}

# ---------------------------------------------------------------- VHD

test_vhd() {
	need qemu-img || return 0
	mkdir -p "$TMP/h"
	# force_size: the size as given, not rounded to a CHS geometry
	qemu-img convert -O vpc -o force_size=on "$RAW" "$TMP/h/dyn.vhd"
	supported "$TMP/h/dyn.vhd" libvhdi || return 0
	same_as_raw "$TMP/h/dyn.vhd" "VHD"
	qemu-img convert -O vpc -o subformat=fixed,force_size=on "$RAW" \
		"$TMP/h/fixed.vhd"
	same_as_raw "$TMP/h/fixed.vhd" "VHD"
}

test_vhdx() {
	need qemu-img || return 0
	mkdir -p "$TMP/hx"
	qemu-img convert -O vhdx "$RAW" "$TMP/hx/img.vhdx"
	supported "$TMP/hx/img.vhdx" libvhdi || return 0
	same_as_raw "$TMP/hx/img.vhdx" "VHDX"
}

. shunit2
