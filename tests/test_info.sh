#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_info.sh --- e4time info against dumpe2fs -h, on kernel-written
# images (4 KiB, 128-byte inodes, 1 KiB with inline data, an external
# journal) and an ext2 made by mke2fs: the same geometry, features,
# inode size, extra_isize, journal size and superblock times; text and
# jsonl say the same; the image is not changed.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools xz dumpe2fs mke2fs jq python3 || return 1
	mkdir -p "$TMP/src"
	echo hello >"$TMP/src/hello.txt"
	mke2fs -q -F -t ext2 -L "plain ext2" -d "$TMP/src" "$TMP/ext2.img" 4M \
		>/dev/null 2>&1
}

# dumpe2fs_field IMAGE FIELD: the value of "FIELD:" in dumpe2fs -h.
dumpe2fs_field() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p" | head -n 1
}

# epoch_of DUMPE2FS_DATE: seconds ("" for n/a).
epoch_of() {
	[ -z "$1" ] || [ "$1" = "n/a" ] && return
	TZ=UTC date -d "$1" +%s
}

check_image() {
	local img=$1 name=$2 j f want got
	run_ro "$img" info -f jsonl "$img"
	assertEquals "$name: status" 0 "$RC"
	j="$TMP/$name.json"
	cp "$OUT" "$j"
	assertEquals "$name: one record" 1 "$(wc -l <"$j")"
	for f in "block_size:Block size" "blocks:Block count" \
		"inodes:Inode count" "inodes_per_group:Inodes per group" \
		"blocks_per_group:Blocks per group" "mount_count:Mount count"; do
		want=$(dumpe2fs_field "$img" "${f#*:}")
		got=$(jq -r ".${f%%:*}" "$j")
		assertEquals "$name: ${f%%:*}" "$want" "$got"
	done
	want=$(dumpe2fs_field "$img" "Inode size")
	assertEquals "$name: inode_size" "${want:-128}" "$(jq -r .inode_size "$j")"
	want=$(dumpe2fs_field "$img" "Desired extra isize")
	assertEquals "$name: want_extra_isize" "${want:-0}" \
		"$(jq -r .want_extra_isize "$j")"
	want=$(dumpe2fs_field "$img" "Required extra isize")
	assertEquals "$name: min_extra_isize" "${want:-0}" \
		"$(jq -r .min_extra_isize "$j")"
	assertEquals "$name: features" \
		"$(dumpe2fs_field "$img" "Filesystem features")" \
		"$(jq -r .features "$j")"
	assertEquals "$name: uuid" "$(dumpe2fs_field "$img" "Filesystem UUID")" \
		"$(jq -r .uuid "$j")"
	want=$(dumpe2fs_field "$img" "Filesystem volume name")
	[ "$want" = "<none>" ] && want=
	assertEquals "$name: label" "$want" "$(jq -r .label "$j")"
	for f in "mkfs_time:Filesystem created" "mount_time:Last mount time" \
		"write_time:Last write time"; do
		want=$(epoch_of "$(dumpe2fs_field "$img" "${f#*:}")")
		got=$(jq -r ".${f%%:*} // empty" "$j")
		[ -n "$got" ] && got=$(date -d "$got" +%s)
		assertEquals "$name: ${f%%:*}" "$want" "$got"
	done
	want=$(dumpe2fs_field "$img" "Journal size")
	if [ -n "$want" ]; then
		assertContains "$name: journal" "$(jq -r .journal "$j")" "internal"
	fi
	# text says the same
	run_ro "$img" info "$img"
	assertEquals "$name: text status" 0 "$RC"
	assertContains "$name: text features" "$(cat "$OUT")" \
		"$(jq -r .features "$j")"
	assertContains "$name: text inodes" "$(cat "$OUT")" \
		"$(printf '%-22s%s' 'Inodes:' "$(jq -r .inodes "$j")")"
}

test_kernel_images() {
	local i img
	for i in ext4-4k ext4-128 ext4-1k-inline churn-fastcommit-clean; do
		img=$(unpack "$i")
		check_image "$img" "$i"
	done
}

test_ext2_no_journal() {
	check_image "$TMP/ext2.img" ext2
	assertEquals "ext2: no journal" none "$(jq -r .journal "$TMP/ext2.json")"
	assertEquals "ext2: never mounted" null "$(jq -r .mount_time "$TMP/ext2.json")"
	run_ro "$TMP/ext2.img" info "$TMP/ext2.img"
	assertContains "ext2: text says never" "$(cat "$OUT")" "never"
}

test_external_journal() {
	local img
	img=$(unpack churn-extjournal-clean)
	check_image "$img" extjournal
	assertContains "external journal named" \
		"$(jq -r .journal "$TMP/extjournal.json")" "external"
}

test_usage() {
	run info -f bodyfile "$TMP/ext2.img"
	assertEquals "bodyfile is not a format of info" 2 "$RC"
	run info -f csv "$TMP/ext2.img"
	assertEquals "csv: status" 0 "$RC"
	assertEquals "csv: a header and one row" 2 "$(wc -l <"$OUT")"
	python3 - "$OUT" "$TMP/ext2.json" <<'PY' >"$TMP/csvdiff"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
j = json.load(open(sys.argv[2]))
for k, v in j.items():
    if k == "record":
        continue
    want = "" if v is None else str(v)
    if rows[0].get(k) != want:
        print("%s: csv %r, jsonl %r" % (k, rows[0].get(k), want))
PY
	assertEquals "csv says what jsonl says" "" "$(cat "$TMP/csvdiff")"
	run info
	assertEquals "no image" 2 "$RC"
	run info "$TMP/ext2.img" extra
	assertEquals "two arguments" 2 "$RC"
	run help info
	assertContains "help" "$(cat "$OUT")" "Usage: e4time info"
}

. shunit2
