#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_timeline.sh --- e4time timeline against the kernel's ground truth:
# every time of every file, to the nanosecond, in every format, on every
# image in images/; plus filters, sorting, subtrees, deleted inodes and
# the escaping of hostile names.
. "$TOP_SRCDIR/tests/lib.sh"

CHECK="$TOP_SRCDIR/tests/check_truth.py"
IMGS="ext4-4k ext4-1k-inline ext4-128"
FMTS="bodyfile mactime jsonl timesketch csv text timesketch-csv"

suite_setup() {
	local n
	for n in $IMGS; do
		unpack "$n" >/dev/null || return 1
	done
}

# check_format IMAGE_NAME FORMAT [--deleted]
check_format() {
	local name=$1 fmt=$2 deleted=${3:-}
	local img="$TMP/$name.img"

	run_ro "$img" timeline -f "$fmt" ${deleted:+-d} "$img"
	assertEquals "timeline -f $fmt on $name: $(head -3 "$ERR")" 0 "$RC"
	python3 "$CHECK" "$fmt" "$IMAGES/$name.truth" "$OUT" $deleted \
		>"$TMP/check" 2>&1
	local rc=$?
	assertEquals "truth check, $name, $fmt: $(head -20 "$TMP/check")" 0 "$rc"
}

for n in $IMGS; do
	for f in $FMTS; do
		eval "test_${n//-/_}_${f//-/_}() { check_format $n $f; }"
		eval "test_${n//-/_}_${f//-/_}_deleted() { check_format $n $f --deleted; }"
	done
done

# jq over the jsonl timeline of the 4k image
jsonl_4k() {
	run_ro "$TMP/ext4-4k.img" timeline -f jsonl "$@" "$TMP/ext4-4k.img"
	assertEquals "status: $(head -3 "$ERR")" 0 "$RC"
}

test_default_format_is_bodyfile_on_a_pipe() {
	run_ro "$TMP/ext4-4k.img" timeline "$TMP/ext4-4k.img"
	assertEquals "# extended bodyfile 3 format" "$(head -n 1 "$OUT")"
}

test_128_byte_inodes_have_no_crtime_anywhere() {
	local img="$TMP/ext4-128.img"
	run_ro "$img" timeline -f jsonl "$img"
	assertEquals "every crtime null" 0 \
		"$(jq -s '[.[] | select(.crtime != null)] | length' "$OUT")"
	run_ro "$img" timeline -f bodyfile "$img"
	# (0, the bodyfile's "no time": an empty last field makes plaso
	# refuse the file)
	assertEquals "every bodyfile crtime 0" 0 \
		"$(tail -n +2 "$OUT" | awk -F'|' '$11 != "0"' | wc -l)"
	run_ro "$img" timeline -f csv "$img"
	assertEquals "every csv crtime empty" 0 \
		"$(python3 -c 'import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["crtime"]))' "$OUT")"
	run_ro "$img" stat "$img" /a.txt
	assertContains "$(cat "$OUT")" "crtime: not stored (128-byte inodes have no crtime)"
}

test_invalid_utf8_name_is_flagged_and_reversible() {
	jsonl_4k
	local hex
	hex=$(jq -r 'select(.path_utf8 == false) | .path_hex' "$OUT")
	assertEquals "one name is not UTF-8" 1 "$(printf '%s\n' "$hex" | grep -c .)"
	assertEquals "bytes survive" "/names/bad-utf8-$(printf '\377\376')" \
		"$(hex2bytes "$hex")"
	assertEquals "display path has U+FFFD" "/names/bad-utf8-��" \
		"$(jq -r 'select(.path_utf8 == false) | .path' "$OUT")"
}

test_hostile_names_never_break_lines() {
	local img="$TMP/ext4-4k.img" f lines
	lines=$(truth_lines ext4-4k | grep -c ' live$')
	for f in bodyfile mactime jsonl csv; do
		run_ro "$img" timeline -f "$f" "$img"
		case $f in
		bodyfile) assertEquals "$f rows" $((lines + 1)) "$(wc -l <"$OUT")" ;;
		csv) ;;	# quoted newlines are legal in CSV; parsed above
		*) assertEquals "$f rows" "$lines" "$(wc -l <"$OUT")" ;;
		esac
	done
	run_ro "$img" timeline -f text "$img"
	assertFalse "no raw ESC reaches the text output" "grep -q $'\033' '$OUT'"
	assertEquals "text rows" $((lines + 1)) "$(wc -l <"$OUT")"
}

test_mactime_warns_about_pre_1970() {
	run_ro "$TMP/ext4-4k.img" timeline -f mactime "$TMP/ext4-4k.img"
	assertEquals 0 "$RC"
	assertContains "$(cat "$ERR")" "before 1970 written as 0"
	assertContains "$(cat "$ERR")" "mactime sorts wrongly"
}

test_mactime_reads_our_bodyfile() {
	command -v mactime >/dev/null || { skip_test "mactime (sleuthkit) not installed"; return; }
	run_ro "$TMP/ext4-4k.img" timeline -f mactime "$TMP/ext4-4k.img"
	mactime -b "$OUT" -d >"$TMP/mac.csv" 2>"$TMP/mac.err"
	local rc=$?
	assertEquals "mactime status: $(head -3 "$TMP/mac.err")" 0 "$rc"
	assertTrue "mactime lists hello.txt" "grep -q '/hello.txt' '$TMP/mac.csv'"
}

# Both Timesketch formats through an oracle of Timesketch's importer
# (tests/timesketch_import.py): every row imported, and the CSV's
# events are the JSON lines' ones, but for what Timesketch's CSV reader
# (pandas) does to them: times after 2262-04-11 are dropped, and the
# timestamp it recomputes for times before 1970 is wrong (its datetime
# is right).
test_timesketch_imports_both_formats() {
	local img="$TMP/ext4-4k.img"
	run_ro "$img" timeline -d -f timesketch "$img"
	python3 "$TOP_SRCDIR/tests/timesketch_import.py" jsonl "$OUT" >"$TMP/ts.jsonl"
	run_ro "$img" timeline -d -f timesketch-csv "$img"
	python3 "$TOP_SRCDIR/tests/timesketch_import.py" csv "$OUT" >"$TMP/ts.csv"
	assertEquals "jsonl: every line an event" "" "$(grep -v '^EVENT ' "$TMP/ts.jsonl" | head -3)"
	assertEquals "csv: only times after 2262 dropped" "" \
		"$(grep -v '^EVENT ' "$TMP/ts.csv" | grep -v '^DROPPED row [0-9]*: datetime 2[3-4]' | head -3)"
	python3 - "$TMP/ts.jsonl" "$TMP/ts.csv" <<'PYEOF' >"$TMP/ts.diff"
import json, sys
def events(path, csv):
    out = set()
    for l in open(path):
        if not l.startswith("EVENT "):
            continue
        e = json.loads(l[6:])
        if e["datetime"][:4] > "2262":
            continue
        pre1970 = e["datetime"] < "1970"
        out.add((e["message"], e["timestamp_desc"], int(e["nanoseconds"]),
                 e["path"], e.get("path_hex", ""), int(e["inode"]),
                 e["field"], e["status"],
                 None if pre1970 else int(e["timestamp"])))
    return out
j, c = events(sys.argv[1], False), events(sys.argv[2], True)
for x in sorted(j ^ c, key=repr)[:5]:
    print("only in %s: %r" % ("jsonl" if x in j else "csv", x))
PYEOF
	assertEquals "the same events" "" "$(cat "$TMP/ts.diff")"
}

# A journal that needs recovery: the advice is to recover a copy.
test_recovery_advice_names_a_copy() {
	local img
	img=$(unpack churn-1k-live)
	run_ro "$img" timeline -f jsonl "$img"
	assertEquals "status" 0 "$RC"
	assertContains "$(cat "$ERR")" "recover a copy, never the evidence: cp --sparse=always IMAGE COPY && e2fsck -y -E journal_only COPY"
}

test_since_until_on_mtime_to_the_nanosecond() {
	jsonl_4k --field mtime --since 2038-01-19T03:14:08Z --until 2242-03-16T12:56:31Z
	assertEquals "/times/y2038-over /times/y2106-max /times/y2106-over /times/y2242-max" \
		"$(jq -r .path "$OUT" | sort | xargs)"
	jsonl_4k --field mtime --since 2009-02-13T23:31:30.123456789Z --until 2009-02-13T23:31:30.123456789Z
	assertEquals "/times/nsec" "$(jq -r .path "$OUT")"
	jsonl_4k --field mtime --since 2009-02-13T23:31:30.12345679Z --until 2009-02-13T23:31:31Z
	assertEquals "one nanosecond later: nothing" "" "$(cat "$OUT")"
	jsonl_4k --field mtime --until 1969-12-31T23:59:59.999999999Z
	assertEquals "/times/just-before-epoch /times/pre-epoch-min" \
		"$(jq -r .path "$OUT" | sort | xargs)"
}

# --field with several fields keeps a row when any of them is in range;
# any is all five.
test_field_list_and_any() {
	jsonl_4k --field mtime --until 1969-12-31T23:59:59.999999999Z
	local m a
	m=$(jq -r .path "$OUT" | sort)
	jsonl_4k --field atime --until 1969-12-31T23:59:59.999999999Z
	a=$(jq -r .path "$OUT" | sort)
	jsonl_4k --field mtime,atime --until 1969-12-31T23:59:59.999999999Z
	assertEquals "mtime,atime: the union" "$(printf '%s\n%s\n' "$m" "$a" | sort -u | grep .)" \
		"$(jq -r .path "$OUT" | sort)"
	jsonl_4k --field any --since 1970-01-02
	assertEquals "any: every file" "$(truth_lines ext4-4k | grep -c ' live$')" "$(wc -l <"$OUT")"
	run_ro "$TMP/ext4-4k.img" timeline --field mtime,bogus "$TMP/ext4-4k.img"
	assertEquals "a bad field" 2 "$RC"
}

test_since_defaults_to_crtime() {
	jsonl_4k --since 2446-01-01
	assertEquals "no file was created after 2446" "" "$(cat "$OUT")"
	jsonl_4k --until 1970-01-02
	assertEquals "no file was created before 1970" "" "$(cat "$OUT")"
	jsonl_4k --since 1970-01-02
	assertEquals "every file" "$(truth_lines ext4-4k | grep -c ' live$')" "$(wc -l <"$OUT")"
}

test_sort_by_mtime() {
	jsonl_4k --sort mtime
	assertEquals "rows kept" "$(truth_lines ext4-4k | grep -c ' live$')" "$(wc -l <"$OUT")"
	assertEquals "nondecreasing" true \
		"$(jq -s '[.[] | .mtime.sec * 1000000000 + .mtime.nsec] as $t | $t == ($t | sort)' "$OUT")"
	assertEquals "first is the earliest" "/times/pre-epoch-min" "$(jq -r .path "$OUT" | head -n 1)"
	assertEquals "last is the latest" "/times/max" "$(jq -r .path "$OUT" | tail -n 1)"
}

test_sort_with_no_row() {
	jsonl_4k --sort mtime --since 2400-01-01
	assertEquals "no row" "" "$(cat "$OUT")"
}

test_subtree() {
	run_ro "$TMP/ext4-4k.img" timeline -f jsonl "$TMP/ext4-4k.img" /times/
	assertEquals "start directory first" "/times" "$(jq -r .path "$OUT" | head -n 1)"
	assertEquals "only the subtree" 0 "$(jq -r .path "$OUT" | grep -vc '^/times')"
	assertEquals "all of it" "$(truth_lines ext4-4k | grep -c '^2f74696d6573')" "$(wc -l <"$OUT")"
	run_ro "$TMP/ext4-4k.img" timeline -f jsonl "$TMP/ext4-4k.img" /hello.txt
	assertEquals "a file alone" "/hello.txt" "$(jq -r .path "$OUT")"
}

test_hard_links_listed_under_each_name() {
	jsonl_4k
	assertEquals "same inode" 1 \
		"$(jq -r 'select(.path == "/hardlink-a" or .path == "/dir/hardlink-b") | .ino' "$OUT" | sort -u | wc -l)"
	assertEquals "two names" 2 \
		"$(jq -r 'select(.path == "/hardlink-a" or .path == "/dir/hardlink-b") | .links' "$OUT" | grep -c '^2$')"
}

test_htree_directory_complete() {
	run_ro "$TMP/ext4-4k.img" timeline -f jsonl "$TMP/ext4-4k.img" /big-htree
	assertEquals 3001 "$(wc -l <"$OUT")"
	assertEquals 3000 "$(jq -r .path "$OUT" | grep -c '^/big-htree/f[0-9]\{4\}$')"
}

test_deleted_rows_marked() {
	jsonl_4k -d
	assertTrue "a deleted row" "jq -e 'select(.status == \"deleted\")' '$OUT' >/dev/null"
	assertEquals "deleted rows have a dtime" 0 \
		"$(jq -s '[.[] | select(.status == "deleted" and .dtime == null)] | length' "$OUT")"
}

# flip_byte FILE OFFSET: the byte at OFFSET inverted, in place.
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the octal escape is the format
	printf "\\$(printf '%03o' $((b ^ 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# Directory block checksums (leaf blocks checked with the CRC32C
# instruction, htree nodes by libext2fs): intact blocks pass, a changed
# byte in a leaf or in an htree root is reported with its block.
test_dir_block_checksums() {
	local img="$TMP/dcsum.img" m i leaf root
	probe_mount
	[ "$CAN_MOUNT" = 1 ] || { skip_test "loop mounts impossible here"; return; }
	truncate -s 8M "$img" && mkfs.ext4 -q -F -b 1024 -O metadata_csum "$img" ||
		{ fail "mkfs"; return; }
	m=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$m" || { fail "mount"; return; }
	mkdir "$m/small" "$m/big" && touch "$m/small/a" "$m/small/b" &&
		(cd "$m/big" && for i in $(seq 1 300); do
			: >"file_with_a_long_name_$i"
		done)
	umount "$m"
	run_ro "$img" timeline -f jsonl "$img"
	assertEquals "intact: exit" 0 "$RC"
	assertNotContains "intact" "$(cat "$ERR")" "checksum"
	leaf=$(debugfs -R "blocks /small" "$img" 2>/dev/null | awk '{print $1}')
	root=$(debugfs -R "blocks /big" "$img" 2>/dev/null | awk '{print $1}')
	assertTrue "htree" "debugfs -R 'htree /big' '$img' 2>/dev/null | grep -q 'Root node'"
	# the last byte of the leaf's tail checksum; a byte in the root's
	# dx entries (libext2fs checks htree nodes): each byte inverted (a
	# fixed value was already there one run in 256: the checksum's bytes
	# change with the filesystem's UUID)
	flip_byte "$img" $((leaf * 1024 + 1023))
	flip_byte "$img" $((root * 1024 + 40))
	run_ro "$img" timeline -f jsonl "$img"
	assertContains "leaf" "$(cat "$ERR")" "Directory block checksum does not verify (block $leaf)"
	assertContains "htree root" "$(cat "$ERR")" "Directory block checksum does not verify (block $root)"
	assertEquals "rows" 306 "$(wc -l <"$OUT")"
}

# Two threads read the inode table of a many-group image exactly as one
# does: same rows, same order, same warnings.
test_threads_give_identical_output() {
	local src="$TMP/threads-src" img="$TMP/threads.img" i ino
	mkdir -p "$src"
	for i in $(seq 1 40); do
		mkdir -p "$src/d$i"
		touch "$src/d$i/a" "$src/d$i/b" "$src/d$i/c"
	done
	mke2fs -q -F -t ext4 -b 1024 -N 512 -d "$src" "$img" 64M ||
		{ fail "mke2fs -d failed"; return; }
	assertTrue "several groups" \
		"[ $(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/Inode count/ {print $2}') -gt 128 ]"
	run_ro "$img" timeline -f jsonl --threads 1 "$img"
	cp "$OUT" "$TMP/t1.out"
	run_ro "$img" timeline -f jsonl --threads 2 "$img"
	assertEquals "rows" 162 "$(wc -l <"$OUT")"
	assertTrue "identical rows" "cmp -s '$TMP/t1.out' '$OUT'"
	# damage the highest inode, which the second thread reads: its
	# warning is replayed in order
	ino=$(jq -s 'map(.ino) | max' "$OUT")
	debugfs -w -R "sif <$ino> checksum 0x1234" "$img" >/dev/null 2>&1
	run_ro "$img" timeline -f jsonl --threads 1 "$img"
	cp "$ERR" "$TMP/t1.err"
	cp "$OUT" "$TMP/t1.out"
	assertEquals "damage found" 1 "$RC"
	run_ro "$img" timeline -f jsonl --threads 2 "$img"
	assertEquals "damage found by the worker" 1 "$RC"
	assertContains "$(cat "$ERR")" "<$ino>: Inode checksum does not verify"
	assertTrue "identical warnings" "cmp -s '$TMP/t1.err' '$ERR'"
	assertTrue "identical rows" "cmp -s '$TMP/t1.out' '$OUT'"
	# Group descriptors that say group 0 has no inode in use: the two
	# threads' parts of the one record array (sized from them) overflow
	# and one thread reads again; same rows, same warnings.
	debugfs -w -R "set_bg 0 free_inodes_count $(dumpe2fs -h "$img" 2>/dev/null |
		awk -F: '/Inodes per group/ {print $2 + 0}')" "$img" >/dev/null 2>&1
	debugfs -w -R "set_bg 0 checksum calc" "$img" >/dev/null 2>&1
	run_ro "$img" timeline -f jsonl --threads 1 "$img"
	cp "$ERR" "$TMP/t1.err"
	cp "$OUT" "$TMP/t1.out"
	assertEquals "rows, undercounted" 162 "$(wc -l <"$OUT")"
	run_ro "$img" timeline -f jsonl --threads 2 "$img"
	assertTrue "identical warnings, undercounted" "cmp -s '$TMP/t1.err' '$ERR'"
	assertTrue "identical rows, undercounted" "cmp -s '$TMP/t1.out' '$OUT'"
}

# With two threads the walk runs in parts (test_parts_give_identical_
# output), or with --sort or -d on a second thread that hands its rows
# over in batches (lib/fs/treepipe.c); rows and warnings come out as
# with one thread, over more rows than the batches hold, and a write
# error stops both.
test_walk_thread_gives_identical_output() {
	local src="$TMP/pipe-src" img="$TMP/pipe.img" i f t rc1 rc2
	for i in 1 2 3 4 5 6; do
		mkdir -p "$src/d$i"
		(cd "$src/d$i" && seq -f 'file%04g' 1 1000 | xargs touch)
	done
	mke2fs -q -F -t ext4 -b 1024 -N 8192 -d "$src" "$img" 64M >/dev/null ||
		{ fail "mke2fs -d failed"; return; }
	# names of an inode not in use, early and late, and a loop
	debugfs -w -R "ln <8000> /d1/unused-early" "$img" >/dev/null 2>&1
	debugfs -w -R "ln <8001> /d6/unused-late" "$img" >/dev/null 2>&1
	debugfs -w -R "link /d2 /d4/loop" "$img" >/dev/null 2>&1
	for f in mactime jsonl; do
		for t in 1 2; do
			run_ro "$img" timeline -f $f --threads $t "$img"
			cp "$OUT" "$TMP/pipe.t$t.out"
			cp "$ERR" "$TMP/pipe.t$t.err"
			eval "rc$t=$RC"
		done
		assertEquals "$f: status" 1 "$rc2"
		assertEquals "$f: status, one thread" 1 "$rc1"
		# 6009, and the two names of unused inodes as name-only rows
		assertEquals "$f: rows" 6011 "$(wc -l <"$TMP/pipe.t2.out")"
		assertEquals "$f: three warnings" 3 "$(wc -l <"$TMP/pipe.t2.err")"
		assertContains "$f: loop" "$(cat "$TMP/pipe.t2.err")" "loop"
		assertTrue "$f: identical rows" \
			"cmp -s '$TMP/pipe.t1.out' '$TMP/pipe.t2.out'"
		assertTrue "$f: identical warnings" \
			"cmp -s '$TMP/pipe.t1.err' '$TMP/pipe.t2.err'"
	done
	# --sort and --deleted go through the same walk
	run_ro "$img" timeline -f csv --sort mtime -d --threads 1 "$img"
	cp "$OUT" "$TMP/pipe.t1.out"
	run_ro "$img" timeline -f csv --sort mtime -d --threads 2 "$img"
	assertTrue "sorted, deleted: identical rows" \
		"cmp -s '$TMP/pipe.t1.out' '$OUT'"
	# a full disk: the walk stops, nothing hangs, the same error
	for t in 1 2; do
		timeout 60 "$E4TIME" timeline -f mactime --threads $t "$img" \
			>/dev/full 2>"$TMP/pipe.full$t.err"
		eval "rc$t=$?"
	done
	assertEquals "full disk: status" 8 "$rc2"
	assertEquals "full disk: status, one thread" "$rc1" "$rc2"
	assertContains "full disk: said" "$(cat "$TMP/pipe.full2.err")" \
		"No space left on device"
	# (two threads walk in parts: the warnings before the error may
	# differ, test_parts_give_identical_output; the walk on a second
	# thread, with --sort, gives the same)
	assertEquals "full disk: identical error" \
		"$(grep 'No space' "$TMP/pipe.full1.err")" \
		"$(grep 'No space' "$TMP/pipe.full2.err")"
	for t in 1 2; do
		timeout 60 "$E4TIME" timeline -f mactime --sort mtime \
			--threads $t "$img" >/dev/full 2>"$TMP/pipe.full$t.err"
		eval "rc$t=$?"
	done
	assertEquals "full disk, sorted: status" "$rc1" "$rc2"
	assertTrue "full disk, sorted: identical messages" \
		"cmp -s '$TMP/pipe.full1.err' '$TMP/pipe.full2.err'"
}

# The walk cut into parts that threads walk and format at once, written
# in order (lib/fs/treepart.c, tools/partrun.c): with parts of 1 to 500
# rows (test hook E4TIME_TEST_PART_ROWS) on 2, 3 and 8 threads, every
# format and export -d (the orphan and deleted records in parts too)
# give the rows, warnings (names of unused inodes, a loop, a symlink
# whose target cannot be read, mactime's times before 1970) and status
# of one thread; a full disk stops it with the same error.  Shared
# (tests/lib.sh, mine): the sanitizer build runs every third of the 45
# combinations, the normal build of CI the others.
test_parts_give_identical_output() {
	local src="$TMP/parts-src" img="$TMP/parts.img" i pr t f runs=0 rc1 k=0
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	for i in 1 2 3; do
		mkdir -p "$src/d$i/sub"
		(cd "$src/d$i" && seq -f 'file%03g' 1 300 | xargs touch)
		(cd "$src/d$i/sub" && seq -f 's%02g' 1 40 | xargs touch)
	done
	ln -s d1/file001 "$src/fast-link"
	ln -s "$(printf 'x%.0s' $(seq 1 200))" "$src/slow-link"
	touch -d 1960-01-01 "$src/d2/file007"
	mke2fs -q -F -t ext4 -b 1024 -N 2048 -d "$src" "$img" 16M >/dev/null ||
		{ fail "mke2fs -d failed"; return; }
	debugfs -w -R "ln <2000> /d1/unused-early" "$img" >/dev/null 2>&1
	debugfs -w -R "ln <2001> /d3/sub/unused-late" "$img" >/dev/null 2>&1
	debugfs -w -R "link /d2 /d3/loop" "$img" >/dev/null 2>&1
	# the slow symlink's block zeroed: its target cannot be read
	debugfs -w -R "sif /slow-link block[0] 0" "$img" >/dev/null 2>&1
	# a deleted file and an orphan for export -d
	debugfs -w -R "rm /d1/file002" "$img" >/dev/null 2>&1
	debugfs -w -R "unlink /d1/file003" "$img" >/dev/null 2>&1
	for f in mactime bodyfile jsonl csv export; do
		if [ $f = export ]; then
			set -- export -d
		else
			set -- timeline -f $f
		fi
		run_ro "$img" "$@" --threads 1 "$img"
		rc1=$RC
		sed '1s/"exported":"[^"]*"//' "$OUT" >"$TMP/parts.t1.out"
		cp "$ERR" "$TMP/parts.t1.err"
		assertEquals "$f: status, one thread" 1 "$rc1"
		for pr in 1 7 500; do
			for t in 2 3 8; do
				# shared: every third in the sanitizer build
				k=$((k + 1))
				mine $k 3 || continue
				E4TIME_TEST_PART_ROWS=$pr run_ro "$img" "$@" \
					--threads $t "$img"
				runs=$((runs + 1))
				sed -i '1s/"exported":"[^"]*"//' "$OUT"
				assertEquals "$f $pr rows a part, $t threads: status" \
					"$rc1" "$RC"
				assertTrue "$f $pr rows a part, $t threads: rows" \
					"cmp -s '$TMP/parts.t1.out' '$OUT'"
				assertTrue "$f $pr rows a part, $t threads: warnings" \
					"cmp -s '$TMP/parts.t1.err' '$ERR'"
			done
		done
	done
	assertEquals "runs (this build's share)" "$(share 45 15)" "$runs"
	# what the one-thread runs said, so that the comparison means it
	run_ro "$img" timeline -f mactime --threads 1 "$img"
	# 3 x (300 files, sub, its 40) and the three directories, /,
	# lost+found, two links, two unused inodes' names, the loop's name,
	# less the deleted and the unlinked file
	assertEquals "rows" 1031 "$(wc -l <"$OUT")"
	assertContains "unused inode" "$(cat "$ERR")" "<2001>"
	assertContains "loop" "$(cat "$ERR")" "loop"
	assertContains "symlink" "$(cat "$ERR")" "slow-link: symlink target"
	assertContains "before 1970" "$(cat "$ERR")" "before 1970"
	# the walk was cut and run on the threads asked for
	E4TIME_TEST_PART_ROWS=7 E4TIME_TEST_PARTS_SAY=1 run_ro "$img" \
		timeline -f mactime --threads 3 "$img"
	assertContains "cut" "$(cat "$ERR")" "parts on 3 threads"
	assertTrue "many parts: $(grep -o '[0-9]* parts' "$ERR")" \
		"[ $(grep -o '[0-9]* parts' "$ERR" | cut -d' ' -f1) -gt 100 ]"
	# a full disk: nothing hangs, the same error
	for t in 1 4; do
		E4TIME_TEST_PART_ROWS=7 timeout 60 "$E4TIME" timeline \
			-f mactime --threads $t "$img" \
			>/dev/full 2>"$TMP/parts.full$t.err"
		eval "rc$t=$?"
	done
	assertEquals "full disk: status" 8 "$rc4"
	assertEquals "full disk: status, one thread" "$rc1" "$rc4"
	# (the warnings before the error may differ: a part's are written
	# before its rows, one thread's as its rows fill 64 KiB)
	assertEquals "full disk: identical error" \
		"$(grep 'No space' "$TMP/parts.full1.err")" \
		"$(grep 'No space' "$TMP/parts.full4.err")"
	assertContains "full disk: said" "$(cat "$TMP/parts.full4.err")" \
		"writing the timeline: No space left on device"
}

# --threads takes 0 to 64.
# jsonl and csv are one description of a row written two ways
# (fmt_records.c): with every option that adds a key or a column, each
# csv row holds what its jsonl row holds, column by column.
test_csv_and_jsonl_agree() {
	local img name images=0
	for name in ext4-reuse ext4-4k; do
		img=$(unpack "$name") || {
			fail "unpack $name"
			return
		}
		run_ro "$img" timeline -f jsonl -d --journal --flags --hash sha256 "$img"
		cp "$OUT" "$TMP/agree.$name.jsonl"
		run_ro "$img" timeline -f csv -d --journal --flags --hash sha256 "$img"
		cp "$OUT" "$TMP/agree.$name.csv"
		images=$((images + 1))
	done
	assertEquals "images" 2 "$images"
	python3 - "$TMP"/agree.ext4-reuse.jsonl "$TMP"/agree.ext4-reuse.csv \
		"$TMP"/agree.ext4-4k.jsonl "$TMP"/agree.ext4-4k.csv \
		>"$TMP/agree.out" 2>&1 <<'PYEOF'
import csv, json, sys

cols = ("path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,crtime,"
        "dtime,status,sha256,name_source,source,tid,commit_time,"
        "generation,flags").split(",")
bad = rows = journal = flags = named = hashed = 0

def cell(v):
    if v is None:
        return ""
    if isinstance(v, dict):
        return v["iso"]
    if isinstance(v, list):
        return " ".join(v)
    return str(v)

args = sys.argv[1:]
for jpath, cpath in zip(args[0::2], args[1::2]):
    js = [json.loads(l) for l in open(jpath, encoding="utf-8")]
    with open(cpath, newline="", encoding="utf-8", errors="replace") as f:
        r = csv.reader(f)
        header = next(r)
        cs = list(r)
    if header != cols:
        print("%s: header %s" % (cpath, header))
        bad += 1
    if len(js) != len(cs):
        print("%s: %d jsonl rows, %d csv rows" % (cpath, len(js), len(cs)))
        bad += 1
    for j, c in zip(js, cs):
        rows += 1
        want = dict(j)
        want.setdefault("source", "disk")
        for k, v in zip(cols, c):
            if k == "path" and "path_hex" in j:
                continue  # csv keeps the bytes, jsonl U+FFFD
            if cell(want.get(k)) != v:
                print("%s: %s: %s: jsonl %r, csv %r" % (cpath, j["path"], k, want.get(k), v))
                bad += 1
        journal += "tid" in j
        flags += bool(j.get("flags"))
        named += "name_source" in j
        hashed += bool(j.get("sha256"))
print("rows %d journal %d flags %d named %d hashed %d bad %d"
      % (rows, journal, flags, named, hashed, bad))
PYEOF
	local last
	last=$(tail -n 1 "$TMP/agree.out")
	assertEquals "csv and jsonl agree: $(head -5 "$TMP/agree.out")" 0 \
		"$(echo "$last" | sed -n 's/.* bad \([0-9]*\)$/\1/p')"
	# the rows that add keys and columns were there to compare
	echo "$last" | awk '{ exit !($2 > 100 && $4 > 0 && $6 > 0 && $8 > 0 && $10 > 0) }'
	assertTrue "rows of every kind compared: $last" $?
}

test_threads_option_range() {
	local n
	for n in 0 1 2 3 64; do
		run_ro "$TMP/ext4-4k.img" timeline --threads $n "$TMP/ext4-4k.img"
		assertEquals "--threads $n" 0 "$RC"
	done
	for n in 65 -1 x 2x ''; do
		"$E4TIME" timeline --threads "$n" "$TMP/ext4-4k.img" >/dev/null \
			2>"$TMP/threads.err"
		assertEquals "--threads '$n': usage" 2 "$?"
		assertContains "--threads '$n': said" "$(cat "$TMP/threads.err")" \
			"use 0 (choose) or 1 to 64"
	done
}

# slow_then_fast IMG SAVE THREADS: timeline -f jsonl of IMG with the
# directories read through libext2fs' block iteration (test hook
# E4TIME_TEST_DIR_SCAN_SLOW), its output in SAVE.out and SAVE.err and its
# status in RC1; then as e4time reads them ($OUT, $ERR, $RC).
slow_then_fast() {
	E4TIME_TEST_DIR_SCAN_SLOW=1 run_ro "$1" timeline -f jsonl \
		--threads "$3" "$1"
	RC1=$RC
	cp "$OUT" "$2.out"
	cp "$ERR" "$2.err"
	run_ro "$1" timeline -f jsonl --threads "$3" "$1"
}

# Directories are read from the block maps packed during the inode pass
# (e4t_dir_scan_root): one read per run of blocks.  A directory longer
# than a read, bad checksums, an extent past the end of the filesystem,
# one past the end of the image and one over blocks that are not entries
# give the same rows and warnings as the block iteration of libext2fs
# (test hook E4TIME_TEST_DIR_SCAN_SLOW), and fewer reads.
test_directory_block_maps() {
	local src="$TMP/maps-src" img="$TMP/maps.img" big s rc1
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	mkdir -p "$src/big" "$src/s1" "$src/s2" "$src/s3"
	(cd "$src/big" && seq -f 'a-rather-long-file-name-to-fill-blocks-%05g' 1 5000 |
		xargs touch)
	touch "$src/s1/x" "$src/s2/y" "$src/s3/z"
	mke2fs -q -F -t ext4 -b 4096 -d "$src" "$img" 64M >/dev/null ||
		{ fail "mke2fs -d failed"; return; }
	big=$(debugfs -R "blocks /big" "$img" 2>/dev/null | awk '{ print $1 }')
	assertEquals "/big: 65 blocks in one extent (three reads)" \
		"(0-64):$big-$((big + 64))" \
		"$(debugfs -R "stat /big" "$img" 2>/dev/null | sed -n '/EXTENTS/{n;p}')"
	# a bad checksum in the 41st block of /big
	printf '\x55' | dd of="$img" bs=1 seek=$(((big + 40) * 4096 + 4095)) \
		conv=notrunc 2>/dev/null
	# /s1 over 3 blocks (two are not its), /s2 past the filesystem,
	# /s3 on the last block, which the image no longer holds
	debugfs -w -R "sif /s1 block[4] 3" "$img" >/dev/null 2>&1
	debugfs -w -R "sif /s2 block[5] 20000" "$img" >/dev/null 2>&1
	debugfs -w -R "sif /s3 block[5] 16383" "$img" >/dev/null 2>&1
	truncate -s $((16383 * 4096)) "$img"
	for s in 1 2; do
		slow_then_fast "$img" "$TMP/maps.slow" $s
		rc1=$RC1
		assertEquals "status" 1 "$RC"
		assertEquals "status, libext2fs' iteration" 1 "$rc1"
		assertEquals "rows" 5009 "$(wc -l <"$OUT")"
		assertContains "checksum" "$(cat "$ERR")" \
			"checksum does not verify (block $((big + 40)))"
		assertContains "past the filesystem" "$(cat "$ERR")" \
			"(directory names block 20000)"
		assertContains "past the image" "$(cat "$ERR")" \
			"short read (reading block 16383)"
		assertTrue "$s threads: same rows" \
			"cmp -s '$TMP/maps.slow.out' '$OUT'"
		assertTrue "$s threads: same warnings" \
			"cmp -s '$TMP/maps.slow.err' '$ERR'"
	done
	if ! command -v strace >/dev/null; then
		skip_test "strace missing: reads not counted"
		return
	fi
	# LeakSanitizer cannot run under ptrace: no leak check here (the
	# runs above had one)
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
		E4TIME_TEST_DIR_SCAN_SLOW=1 strace -f -c -e trace=pread64 \
		-o "$TMP/maps.slow.st" "$E4TIME" timeline --threads 1 "$img" \
		>/dev/null 2>&1
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
		strace -f -c -e trace=pread64 -o "$TMP/maps.st" \
		"$E4TIME" timeline --threads 1 "$img" >/dev/null 2>&1
	assertTrue "fewer reads: $(awk '/pread64/ { print $4 }' "$TMP/maps.st") against $(awk '/pread64/ { print $4 }' "$TMP/maps.slow.st")" \
		"[ $(awk '/pread64/ { print $4 }' "$TMP/maps.st") -lt $(awk '/pread64/ { print $4 }' "$TMP/maps.slow.st") ]"
}

# The blocks of the next directories are read ahead in one go while they
# lie close together (e4t_dir_ahead): 300 directories made one after the
# other by mke2fs -d take a dozen reads, not 300.  With the image cut
# short inside such a read, that read fails and each directory's run is
# read as before: the same rows, status and warnings as libext2fs' block
# iteration (test hook E4TIME_TEST_DIR_SCAN_SLOW), one thread or two.
test_directories_read_ahead() {
	local src="$TMP/ra-src" img="$TMP/ra.img" cut="$TMP/ra-cut.img"
	local i last rc1 runs=0 reads
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks)"
		return
	fi
	for i in $(seq -w 1 300); do
		mkdir -p "$src/d$i"
		touch "$src/d$i/f"
	done
	mke2fs -q -F -t ext4 -b 4096 -d "$src" "$img" 32M >/dev/null ||
		{ fail "mke2fs -d failed"; return; }
	last=$(debugfs -R "blocks /d300" "$img" 2>/dev/null | awk '{ print $1 }')
	assertEquals "/d300's block 10 after /d290's" "$last" \
		"$(($(debugfs -R "blocks /d290" "$img" 2>/dev/null |
			awk '{ print $1 }') + 10))"
	cp "$img" "$cut"
	truncate -s $(((last - 5) * 4096)) "$cut"
	for i in 1 2; do
		slow_then_fast "$cut" "$TMP/ra.slow" $i
		rc1=$RC1
		runs=$((runs + 1))
		assertEquals "$i: status" 1 "$RC"
		assertEquals "$i: status, libext2fs' iteration" 1 "$rc1"
		assertEquals "$i: rows (/, lost+found, 300 directories, 294 files)" \
			596 "$(wc -l <"$OUT")"
		assertContains "$i: the last directory's block" "$(cat "$ERR")" \
			"short read (reading block $last)"
		assertTrue "$i: same rows" "cmp -s '$TMP/ra.slow.out' '$OUT'"
		assertTrue "$i: same warnings" "cmp -s '$TMP/ra.slow.err' '$ERR'"
		run_ro "$img" timeline -f jsonl --threads $i "$img"
		assertEquals "$i: whole image, status" 0 "$RC"
		assertEquals "$i: whole image, rows" 602 "$(wc -l <"$OUT")"
	done
	assertEquals "runs" 2 "$runs"
	if ! command -v strace >/dev/null; then
		skip_test "strace missing: reads not counted"
		return
	fi
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0" \
		strace -f -c -e trace=pread64 -o "$TMP/ra.st" \
		"$E4TIME" timeline --threads 1 "$img" >/dev/null 2>&1
	reads=$(awk '/pread64/ { print $4 }' "$TMP/ra.st")
	assertTrue "300 directories in $reads reads (at most 30)" \
		"[ ${reads:-999} -le 30 ]"
}

# --threads 1 reads each directory as the walk reaches it, holding no
# stream of every name (E4T_TREE_WALK_READS): the same rows, status and
# warnings as two threads (the order of a directory's warnings aside),
# deep trees and long names included; a directory the walk never reaches
# (its name unlinked, its inode still in use) is still read, and its bad
# block still told.
test_one_thread_reads_directories_as_it_walks() {
	local src="$TMP/wr-src" img="$TMP/wr.img" blk ino i d rc1 runs=0
	mkdir -p "$src/names" "$src/away/inner"
	d=$src/deep
	for i in $(seq 1 60); do
		d=$d/level$i
	done
	mkdir -p "$d"
	touch "$d/bottom"
	(cd "$src/names" &&
		seq -f 'a-long-name-of-sixty-bytes-or-so-to-take-many-blocks-%06g' \
			1 400 | xargs touch)
	touch "$src/away/inner/x" "$src/away/y"
	mke2fs -q -F -t ext4 -b 1024 -O metadata_csum -d "$src" "$img" 8M \
		>/dev/null || { fail "mke2fs -d failed"; return; }
	ino=$(debugfs -R "stat /away" "$img" 2>/dev/null |
		sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	blk=$(debugfs -R "blocks /away" "$img" 2>/dev/null | awk '{ print $1 }')
	# /away's name gone, its inode in use: no walk reaches it
	debugfs -w -R "unlink /away" "$img" >/dev/null 2>&1
	# and a byte of its block changed: its checksum no longer verifies
	printf '\x55' | dd of="$img" bs=1 seek=$((blk * 1024 + 1000)) \
		conv=notrunc 2>/dev/null
	# one of /names' blocks too, where the walk reads it
	blk=$(debugfs -R "blocks /names" "$img" 2>/dev/null | awk '{ print $3 }')
	printf '\x55' | dd of="$img" bs=1 seek=$((blk * 1024 + 1000)) \
		conv=notrunc 2>/dev/null
	for f in jsonl mactime; do
		run_ro "$img" timeline -f $f --threads 1 "$img"
		rc1=$RC
		cp "$OUT" "$TMP/wr.t1.out"
		sort "$ERR" >"$TMP/wr.t1.err"
		run_ro "$img" timeline -f $f --threads 2 "$img"
		runs=$((runs + 1))
		assertEquals "$f: status" 1 "$rc1"
		assertEquals "$f: status, two threads" 1 "$RC"
		assertTrue "$f: the same rows" "cmp -s '$TMP/wr.t1.out' '$OUT'"
		assertEquals "$f: the same warnings" "$(sort "$ERR")" \
			"$(cat "$TMP/wr.t1.err")"
		assertContains "$f: the unreached directory's block" \
			"$(cat "$TMP/wr.t1.err")" "<$ino>: Directory block checksum"
		assertContains "$f: the deep file" "$(cat "$TMP/wr.t1.out")" \
			"/level60/bottom"
	done
	assertEquals "runs" 2 "$runs"
	# 400 names, 60 levels and the bottom file, /, lost+found, names,
	# deep; the names of the bad block are lost in both runs
	assertTrue "rows: $(wc -l <"$TMP/wr.t1.out")" \
		"[ $(wc -l <"$TMP/wr.t1.out") -gt 300 ]"
}

suite() {
	local n f
	for n in $IMGS; do
		for f in $FMTS; do
			suite_addTest "test_${n//-/_}_${f//-/_}"
			suite_addTest "test_${n//-/_}_${f//-/_}_deleted"
		done
	done
	for f in $(grep -oE '^test_[a-z0-9_]+\(\)' "$0" | tr -d '()'); do
		suite_addTest "$f"
	done
}

. shunit2
