#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_strict.sh --- issue 17, items 8 and 9: import without a root
# directory, strict numbers on the command line and in manifests,
# duplicate keys and empty lines in manifests, path lookup as the kernel
# does it (case-insensitive directories, a slash after a file), stat's
# labels, and the man page's set examples against real output.
#
# The image is built at set-up with mke2fs -d (no mount):
#   /a.txt, /dir/b.txt, /ld -> dir (symbolic link)
# Reading commands go through run_ro (the image must stay byte-identical).
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools mke2fs mkfs.ext4 debugfs e2fsck xz || return 1
	SRC="$TMP/src"
	IMG="$TMP/strict.img"
	mkdir -p "$SRC/dir" || return 1
	echo a >"$SRC/a.txt"
	echo b >"$SRC/dir/b.txt"
	ln -s dir "$SRC/ld" || return 1
	mke2fs -q -F -t ext4 -b 4096 -I 256 -O metadata_csum,64bit \
		-d "$SRC" "$IMG" 8M >"$TMP/mke2fs.log" 2>&1 || {
		cat "$TMP/mke2fs.log" >&2
		return 1
	}
	A_INO=$(ino_of "$IMG" /a.txt)
	[ -n "$A_INO" ] || return 1
	HEADER='{"e4time_manifest":1}'
	probe_mount
}

per_test_setup() {
	fresh_undo_dir
}

# ino_of IMAGE PATH: the inode number debugfs gives for PATH.
ino_of() {
	debugfs -R "stat $2" "$1" 2>/dev/null | awk '/^Inode:/ { print $2; exit }'
}

# one_error WHAT STATUS: $RC is STATUS, stderr is one line naming $IMG.
one_error() {
	assertEquals "$1: status: $(cat "$ERR")" "$2" "$RC"
	assertEquals "$1: one line on stderr: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "$1: names the image" "$(head -n 1 "$ERR")" "$IMG"
}

# --- 8: import when the root directory is not in use --------------------

test_import_without_root_as_timeline() {
	local img="$TMP/noroot.img" before rc_tl rc_bf
	cp "$IMG" "$img"
	# As e2fsprogs' f_noroot: the root inode cleared.
	debugfs -w -R "clri <2>" "$img" >/dev/null 2>&1
	run_ro "$img" timeline "$img"
	rc_tl=$RC
	run_ro "$img" backfill -n "$img" --from dosattrib
	rc_bf=$RC
	assertEquals "timeline and backfill agree" "$rc_tl" "$rc_bf"
	assertEquals "timeline: status 1" 1 "$rc_tl"

	local IMG=$img
	run_ro "$img" import -n "$img" /dev/null
	one_error "import -n IMG /dev/null" "$rc_tl"
	assertContains "says why" "$(cat "$ERR")" "/: Inode is not in use"
	printf '%s\n{"path":"/a.txt","crtime":{"sec":0,"nsec":0}}\n' \
		"$HEADER" >"$TMP/noroot.manifest"
	run_ro "$img" import -n "$img" "$TMP/noroot.manifest"
	one_error "import -n" "$rc_tl"
	# the writing run: the same, nothing written, no undo file
	before=$(sha256sum <"$img")
	run import "$img" "$TMP/noroot.manifest"
	one_error "import" "$rc_tl"
	assertEquals "import wrote nothing" "$before" "$(sha256sum <"$img")"
	assertEquals "no undo file" "" "$(ls "$E2FSPROGS_UNDO_DIR")"
}

# --- 9a: numbers on the command line ----------------------------------------

# bad_number ARGS...: a usage error (2) that names the number, nothing read.
bad_number() {
	run_ro "$IMG" "$@"
	assertEquals "e4time $*: status" 2 "$RC"
	assertEquals "e4time $*: nothing on stdout" "" "$(cat "$OUT")"
	assertContains "e4time $*: not a number" "$(head -n 1 "$ERR")" "not a number"
	assertContains "e4time $*: usage reminder" "$(cat "$ERR")" "Usage: e4time"
}

test_offset_numbers_strict() {
	local a
	for a in 0x 0X 0x1g 0x-1 '0x 1' 0x0x10 ' 1' +1 1k ''; do
		bad_number stat --offset "$a" "$IMG" /a.txt
		bad_number stat -o "$a" "$IMG" /a.txt
	done
	bad_number timeline --offset 18446744073709551616 "$IMG"
	# still numbers: 0x0, leading zeros, hexadecimal digits
	run_ro "$IMG" stat --offset 0x0 "$IMG" /a.txt
	assertEquals "--offset 0x0: status" 0 "$RC"
	run_ro "$IMG" stat -o 000 "$IMG" /a.txt
	assertEquals "-o 000: status" 0 "$RC"
	run_ro "$IMG" stat --offset 0xA "$IMG" /a.txt
	assertEquals "--offset 0xA: no filesystem there" 4 "$RC"
}

# --- 9b, 9c, 9d: manifests --------------------------------------------------

# import_lines LINE...: import -n from a manifest of these lines.  A
# manifest taken is status 1, not 0: its entry's crtime is not the
# image's, and import -n checks that they agree (a malformed one is 2).
import_lines() {
	printf '%s\n' "$@" >"$TMP/m.manifest"
	run_ro "$IMG" import -n "$IMG" "$TMP/m.manifest"
}

# malformed LINENO WANT LINE...: import refuses the manifest (2), one line
# naming the manifest's line and holding WANT.
malformed() {
	local lineno=$1 want=$2
	shift 2
	import_lines "$@"
	assertEquals "$*: status" 2 "$RC"
	assertEquals "$*: one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
	assertContains "$*: names the line" "$(cat "$ERR")" "m.manifest:$lineno: "
	assertContains "$*: says why" "$(cat "$ERR")" "$want"
	assertEquals "$*: nothing on stdout" "" "$(cat "$OUT")"
}

entry() {
	printf '{"path":"/a.txt","crtime":{"sec":%s,"nsec":0}%s}' "$1" "${2:-}"
}

test_manifest_numbers_rfc8259() {
	local n
	for n in 0100 -01 +1 .5 1. 00 -; do
		malformed 2 "Malformed manifest line" "$HEADER" "$(entry "$n")"
	done
	# numbers of skipped keys too
	for n in 0100 -01 +1 .5 1. 1e 1.5e+ 0x10; do
		malformed 2 "Malformed manifest line" "$HEADER" \
			"$(entry 0 ",\"mode\":$n")"
	done
	for n in 0 -0; do
		import_lines "$HEADER" "$(entry "$n")"
		assertEquals "sec $n: status: $(cat "$ERR")" 1 "$RC"
		assertContains "sec $n: taken" "$(cat "$OUT")" \
			"/a.txt <$A_INO>: crtime"
		assertContains "sec $n: the epoch" "$(cat "$OUT")" \
			"-> 1970-01-01T00:00:00.000000000Z"
	done
	import_lines "$HEADER" "$(entry 0 ',"x":-1.5e+3,"y":0.25,"z":1E5')"
	assertEquals "valid skipped numbers: status: $(cat "$ERR")" 1 "$RC"
}

test_manifest_duplicate_keys() {
	malformed 2 'duplicate key "path"' "$HEADER" \
		'{"path":"/a.txt","path":"/dir/b.txt","crtime":null}'
	malformed 2 'duplicate key "sec"' "$HEADER" \
		'{"path":"/a.txt","crtime":{"sec":1,"nsec":0,"sec":2}}'
	malformed 3 'duplicate key "crtime"' "$HEADER" "$(entry 0)" \
		'{"path":"/a.txt","crtime":null,"crtime":null}'
	# the same key however it is escaped, in skipped objects too
	malformed 2 'duplicate key "sec"' "$HEADER" \
		'{"path":"/a.txt","crtime":{"sec":1,"nsec":0,"\u0073ec":1}}'
	malformed 2 'duplicate key "b"' "$HEADER" \
		"$(entry 0 ',"x":[{"a":1,"b":2,"b":2}]')"
	malformed 1 'duplicate key "e4time_manifest"' \
		'{"e4time_manifest":1,"e4time_manifest":1}' "$(entry 0)"
	import_lines "$HEADER" "$(entry 0 ',"x":{"sec":1},"y":{"sec":1}')"
	assertEquals "one key in two objects: status: $(cat "$ERR")" 1 "$RC"
}

# many_keys N [TAIL]: an entry with N keys export does not write (k0 ..
# k(N-1)), then TAIL.
many_keys() {
	python3 -c 'import sys
n = int(sys.argv[1])
sys.stdout.write("{\"path\":\"/a.txt\",\"crtime\":{\"sec\":0,\"nsec\":0}")
sys.stdout.write("".join(",\"k%d\":0" % i for i in range(n)))
sys.stdout.write(sys.argv[2] + "}")' "$1" "${2:-}"
}

# import -n of a manifest whose line has 200,000 keys, under timeout 20
# (the keys were compared each with every other: 80,000 took 4.8 s,
# 200,000 half a minute; a hash table makes it linear, well under 1 s).
test_manifest_many_keys_linear() {
	local n=200000
	printf '%s\n' "$HEADER" "$(many_keys $n)" >"$TMP/m.manifest"
	assertEquals "keys written" $((n + 4)) \
		"$(tail -n 1 "$TMP/m.manifest" | grep -o '":' | wc -l)"
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	timeout 20 "$E4TIME" import -n "$IMG" "$TMP/m.manifest" >"$OUT" 2>"$ERR"
	RC=$?
	check_reports "import of $n keys"
	assertEquals "$n keys: status (124: too slow): $(cat "$ERR")" 1 "$RC"
	assertContains "taken" "$(cat "$OUT")" "/a.txt <$A_INO>: crtime"
	# a key twice among them: found, plain and escaped
	printf '%s\n' "$HEADER" "$(many_keys $n ',"k7":1')" >"$TMP/m.manifest"
	timeout 20 "$E4TIME" import -n "$IMG" "$TMP/m.manifest" >"$OUT" 2>"$ERR"
	assertEquals "duplicate among $n: status" 2 $?
	assertContains "named" "$(cat "$ERR")" 'duplicate key "k7"'
	printf '%s\n' "$HEADER" "$(many_keys $n ',"k\u0031999":1')" \
		>"$TMP/m.manifest"
	timeout 20 "$E4TIME" import -n "$IMG" "$TMP/m.manifest" >"$OUT" 2>"$ERR"
	assertEquals "escaped duplicate among $n: status" 2 $?
	assertContains "named" "$(cat "$ERR")" 'duplicate key "k1999"'
}

test_manifest_empty_lines_before_header() {
	import_lines "" "" "$HEADER" "" "$(entry 0)" ""
	assertEquals "empty lines skipped: status: $(cat "$ERR")" 1 "$RC"
	assertContains "the entry taken" "$(cat "$OUT")" "/a.txt <$A_INO>: crtime"
	import_lines "" "$(entry 0)"
	assertEquals "no header, an empty line first: status" 1 "$RC"
	# the header is still only the first line that is not empty
	malformed 3 "Malformed manifest line" "" "$(entry 0)" "$HEADER"
	# a line of blanks is not empty (MANIFESTS says so)
	malformed 1 "Malformed manifest line" " " "$HEADER" "$(entry 0)"
}

# --- 9e: case-insensitive directories ------------------------------------

# check_casefold IMAGE: the lookups in /d (casefold) and /e (not).
check_casefold() {
	local img=$1 alpha sub ete_nfd p
	alpha=$(ino_of "$img" /d/Alpha)
	sub=$(ino_of "$img" /d/Sub)
	local IMG=$img
	for p in /d/alpha /d/ALPHA /d/Alpha /d/aLpHa; do
		run_ro "$img" stat "$img" "$p"
		assertEquals "stat $p: status: $(cat "$ERR")" 0 "$RC"
		assertContains "stat $p: /d/Alpha's inode" "$(cat "$OUT")" \
			"Inode: $alpha "
		assertEquals "stat $p: shown as typed" "$p" "$(head -n 1 "$OUT")"
	done
	# the whole path: Sub is casefold too; NFD input finds NFC names
	ete_nfd=$(printf 'e\314\201te\314\201')
	for p in /d/sub/ÉTÉ "/d/SUB/$ete_nfd"; do
		run_ro "$img" stat "$img" "$p"
		assertEquals "stat $p: status: $(cat "$ERR")" 0 "$RC"
		assertContains "stat $p: found" "$(cat "$OUT")" "Type: reg"
	done
	# / itself and /e are not casefold: exact names only
	for p in /D/alpha /e/beta; do
		run_ro "$img" stat "$img" "$p"
		one_error "stat $p" 1
		assertContains "stat $p: not found" "$(cat "$ERR")" "No such file"
	done
	run_ro "$img" stat "$img" /e/Beta
	assertEquals "stat /e/Beta: status" 0 "$RC"
	# set and timeline look paths up the same way
	run_ro "$img" set -n "$img" /d/ALPHA --crtime @0
	assertEquals "set -n /d/ALPHA: status: $(cat "$ERR")" 0 "$RC"
	assertContains "set -n /d/ALPHA: as typed, the inode" "$(cat "$OUT")" \
		"would set /d/ALPHA <$alpha>: crtime"
	run_ro "$img" timeline -f jsonl "$img" /d/SUB
	assertEquals "timeline /d/SUB: status" 0 "$RC"
	assertEquals "timeline /d/SUB: the start as typed, stored names below" \
		"$(printf '%s\n' "/d/SUB $sub" "/d/SUB/Été")" \
		"$(jq -r 'if .ino == '"$sub"' then "\(.path) \(.ino)" else .path end' <"$OUT")"
	run_ro "$img" stat "$img" /d/alpha/
	one_error "stat /d/alpha/" 1
	assertContains "stat /d/alpha/: not a directory" "$(cat "$ERR")" \
		"Not a directory"
}

test_casefold_lookup_libext2fs_image() {
	local img="$TMP/cf-debugfs.img" rc
	rm -f "$img"
	: >"$TMP/empty"
	truncate -s 16M "$img"
	if ! mkfs.ext4 -q -F -O casefold "$img" >/dev/null 2>&1; then
		skip_test "mkfs.ext4 -O casefold failed (e2fsprogs too old?)"
		return
	fi
	# The casefold flag set on empty directories (as chattr +F needs),
	# then the files made in them; e2fsck checks the result.
	debugfs -w -f - "$img" >"$TMP/debugfs.log" 2>&1 <<-EOF
		mkdir d
		set_inode_field d flags 0x40080000
		mkdir e
		cd d
		write $TMP/empty Alpha
		mkdir Sub
		set_inode_field Sub flags 0x40080000
		cd Sub
		write $TMP/empty Été
		cd /e
		write $TMP/empty Beta
	EOF
	e2fsck -fn "$img" >"$TMP/e2fsck.log" 2>&1
	rc=$?
	assertEquals "e2fsck -fn: a clean casefold image: $(cat "$TMP/e2fsck.log")" 0 "$rc"
	check_casefold "$img"
}

test_casefold_lookup_kernel_image() {
	local img="$TMP/cf-kernel.img" ok=1
	rm -f "$img"
	truncate -s 16M "$img"
	mkfs.ext4 -q -F -O casefold "$img" >/dev/null 2>&1 || ok=0
	if [ "$CAN_MOUNT" != 1 ] || [ "$ok" = 0 ] ||
		! mount -o loop "$img" "$MNT" 2>/dev/null; then
		skip_test "cannot mount a casefold filesystem here (CONFIG_UNICODE?)"
		return
	fi
	mkdir "$MNT/d" "$MNT/e" && chattr +F "$MNT/d" &&
		touch "$MNT/d/Alpha" && mkdir "$MNT/d/Sub" &&
		touch "$MNT/d/Sub/Été" "$MNT/e/Beta"
	ok=$?
	umount "$MNT"
	assertEquals "the kernel made the tree" 0 "$ok"
	check_casefold "$img"
}

# --- 9f: a slash after a file ------------------------------------------------

test_slash_after_file_is_not_a_directory() {
	local p
	for p in /a.txt/ /a.txt/. /a.txt// /a.txt/x /dir/b.txt/; do
		run_ro "$IMG" stat "$IMG" "$p"
		one_error "stat $p" 1
		assertContains "stat $p: ENOTDIR" "$(cat "$ERR")" \
			"$p: Not a directory"
		assertEquals "stat $p: nothing shown" "" "$(cat "$OUT")"
		run_ro "$IMG" timeline -f jsonl "$IMG" "$p"
		one_error "timeline $p" 1
	done
	run_ro "$IMG" set -n "$IMG" /a.txt/ --crtime @0
	assertEquals "set -n /a.txt/: status" 1 "$RC"
	assertContains "set -n /a.txt/: says so" "$(cat "$ERR")" \
		"/a.txt/: Not a directory"
	assertContains "set -n /a.txt/: nothing written" "$(cat "$ERR")" \
		"nothing written"
	run_ro "$IMG" backfill -n "$IMG" /a.txt/ --from dosattrib
	one_error "backfill -n /a.txt/" 1
	run_ro "$IMG" history "$IMG" /a.txt/
	one_error "history /a.txt/" 1
	# directories, and links to them, still take a slash
	for p in /dir/ /dir// /ld/ /ld/b.txt; do
		run_ro "$IMG" stat "$IMG" "$p"
		assertEquals "stat $p: status: $(cat "$ERR")" 0 "$RC"
	done
	run_ro "$IMG" stat "$IMG" /ld
	assertContains "stat /ld: the link itself" "$(cat "$OUT")" "Type: lnk"
	run_ro "$IMG" stat "$IMG" /ld/
	assertContains "stat /ld/: the directory" "$(cat "$OUT")" "Type: dir"
}

# --- 9g: stat's labels ---------------------------------------------------------

test_stat_label_once() {
	local img="$TMP/badcsum.img"
	cp "$IMG" "$img"
	debugfs -w -R "sif <$A_INO> checksum 0x1234" "$img" >/dev/null 2>&1
	local IMG=$img
	run_ro "$img" stat "$img" "<$A_INO>"
	one_error "stat <$A_INO>" 1
	assertContains "the label once" "$(cat "$ERR")" \
		"$img: <$A_INO>: Inode checksum does not verify"
	assertNotContains "not twice" "$(cat "$ERR")" "<$A_INO>: <$A_INO>"
	run_ro "$img" stat "$img" /a.txt
	one_error "stat /a.txt" 1
	assertContains "a path and its inode, as set says it" "$(cat "$ERR")" \
		"$img: /a.txt <$A_INO>: Inode checksum does not verify"
}

# --- 9h: the man page's examples are real output -----------------------------

# man_text: the example blocks of e4time(8) and its command pages
# (e4time-set(8), e4time-backfill(8), ...), folded lines joined, escapes
# undone.
man_text() {
	awk '
		/^\.EX/ { ex = 1; next }
		/^\.EE/ { if (line != "") print line; line = ""; ex = 0; next }
		!ex { next }
		{
			gsub(/\\-/, "-"); gsub(/\\\(aq/, "\047"); gsub(/\\&/, "")
			gsub(/\\e/, "\\")
			if ($0 ~ /^    / && line != "") {
				sub(/^ +/, ""); line = line " " $0
			} else {
				if (line != "") print line
				line = $0
			}
		}' "$TOP_SRCDIR"/man/e4time*.8
}

# in_man WHAT FILE: every line of FILE is a line of an example.
in_man() {
	local l
	while IFS= read -r l; do
		grep -qxF -- "$l" "$TMP/man.txt" ||
			fail "$1: not in e4time(8) nor its command pages: '$l'"
	done <"$2"
}

test_man_set_examples_are_real_output() {
	local rc
	man_text >"$TMP/man.txt"
	xz -dc "$IMAGES/ext4-4k.img.xz" >"$TMP/disk.img"
	xz -dc "$IMAGES/ext4-128.img.xz" >"$TMP/old.img"
	(cd "$TMP" && "$E4TIME" set disk.img /hello.txt '<15>' \
		--crtime 2009-02-13T23:31:30.123456789Z) >"$TMP/set.out" 2>"$TMP/set.err"
	rc=$?
	assertEquals "set: status: $(cat "$TMP/set.err")" 0 "$rc"
	assertEquals "set: two lines" 2 "$(wc -l <"$TMP/set.out")"
	in_man "set" "$TMP/set.out"
	(cd "$TMP" && "$E4TIME" set -n disk.img /hello.txt \
		--crtime 2009-02-13T23:31:30.123456789Z) >/dev/null 2>"$TMP/dry.err"
	in_man "set -n" "$TMP/dry.err"
	(cd "$TMP" && "$E4TIME" set old.img '<12>' \
		--crtime 2009-02-13T23:31:30.123456789Z) >/dev/null 2>"$TMP/old.err"
	rc=$?
	assertEquals "set on 128-byte inodes: status" 16 "$rc"
	in_man "set refused" "$TMP/old.err"
	check_reports "set examples"
}

test_man_backfill_example_is_real_output() {
	local rc
	man_text >"$TMP/man.txt"
	xz -dc "$IMAGES/samba-dosattrib.img.xz" >"$TMP/disk.img"
	(cd "$TMP" && "$E4TIME" backfill -n disk.img --from dosattrib \
		--policy always) >"$TMP/bf.out" 2>"$TMP/bf.err"
	rc=$?
	assertEquals "backfill -n: status: $(cat "$TMP/bf.err")" 0 "$rc"
	grep -E '^would set /(y2k|y2110)\.txt ' "$TMP/bf.out" >"$TMP/bf.some"
	assertEquals "the two lines shown" 2 "$(wc -l <"$TMP/bf.some")"
	in_man "backfill" "$TMP/bf.some"
	grep 'backfill from' "$TMP/bf.err" >"$TMP/bf.summary"
	in_man "backfill summary" "$TMP/bf.summary"
	check_reports "backfill example"
}

. shunit2
