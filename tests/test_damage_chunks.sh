#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_damage_chunks.sh --- one bad piece must not blank the timeline.
#
# Kernel-written ext4 images (mount -o loop, files written, umount), then
# one piece damaged: an inode-table block zeroed (only unused inodes, or
# a few used ones), a directory block zeroed, and, through E01 files that
# ewfacquire makes, a compressed chunk overwritten (libewf then fails the
# chunk's read: the read error path).  On every case timeline must list
# every row that does not lie in the damaged piece exactly as on the
# intact image (tests/damage_expect.py says which), a name whose inode was
# lost as a name-only row, at least as many rows as fls -r -m (The Sleuth
# Kit), exit 1 and say on stderr what was lost.
#
# Two images:
#   csum.raw   mkfs.ext4's defaults (metadata_csum, uninit_bg: the inode
#              scan reads only the inodes below itable_unused)
#   plain.raw  ^metadata_csum,^uninit_bg: every inode-table block is read,
#              unused ones too (the layout of the report in issue 27)
# Files: /d1 (40 files), /d2/sub (40 files), /big (300 long names, a few
# directory blocks), /a.txt.
. "$TOP_SRCDIR/tests/lib.sh"

TIMEOUT=60
BS=4096
CHUNK_BLOCKS=8 # ewfacquire's default chunk: 64 sectors, 32 KiB

# itable IMAGE: the first block of group 0's inode table.
itable() {
	debugfs -R stats "$1" 2>/dev/null |
		sed -n 's/^ Group  0:.*inode table at \([0-9]*\).*/\1/p'
}

# dir_blocks IMAGE PATH: the physical blocks of a directory.
dir_blocks() {
	debugfs -R "blocks $2" "$1" 2>/dev/null
}

# fls_rows IMAGE: the rows of allocated names fls -r -u -m lists (its
# virtual $OrphanFiles directory left out: no file of the image), to
# compare with timeline's rows, which are the live names (and /) without
# --deleted.  Without -u fls also lists "deleted" names it reads in the
# kernel's htree index blocks (such as "/big/^ (deleted)"): one or two by
# the directory's hash seed, which once made fls's count 388 to
# timeline's 387 on an intact image.
fls_rows() {
	fls -r -u -m / "$1" 2>/dev/null | grep -vc '/\$OrphanFiles'
}

populate() {
	local mnt=$1 i
	mkdir -p "$mnt/d1" "$mnt/d2/sub" "$mnt/big" || return 1
	for i in $(seq 1 40); do echo "$i" >"$mnt/d1/f$i"; done
	for i in $(seq 1 40); do echo "$i" >"$mnt/d2/sub/g$i"; done
	for i in $(seq -w 1 300); do
		echo "$i" >"$mnt/big/entry-$i-with-a-rather-long-name.txt"
	done
	echo a >"$mnt/a.txt"
}

# mkimage NAME MKFS_OPTS...: $TMP/NAME.raw, written by the kernel, its
# timeline ($TMP/NAME.jsonl, sorted) and, with ewfacquire, $TMP/NAME.E01.
mkimage() {
	local name=$1 img="$TMP/$1.raw" mnt="$TMP/mnt"
	shift
	truncate -s 32M "$img" &&
		mkfs.ext4 -q -F -b $BS -I 256 "$@" "$img" >/dev/null 2>&1 &&
		mkdir -p "$mnt" && mount -o loop "$img" "$mnt" || return 1
	populate "$mnt"
	umount "$mnt" || return 1
	"$E4TIME" timeline --format jsonl "$img" 2>"$TMP/$name.err" |
		LC_ALL=C sort >"$TMP/$name.jsonl"
	if [ -s "$TMP/$name.err" ] || [ "$(wc -l <"$TMP/$name.jsonl")" -lt 380 ]; then
		echo "$SUITE: timeline of the intact $name image:" \
			"$(head -n 3 "$TMP/$name.err")" >&2
		return 1
	fi
	if command -v ewfacquire >/dev/null 2>&1; then
		ewfacquire -u -q -c deflate:fast -f encase6 -S 1G \
			-t "$TMP/$name" "$img" >"$TMP/ewf.log" 2>&1 || {
			cat "$TMP/ewf.log" >&2
			return 1
		}
	fi
}

suite_setup() {
	require_tools mkfs.ext4 debugfs dumpe2fs jq fls python3 timeout || return 1
	if ! can_mount; then
		echo "$SUITE: loop mounts are needed (the images are kernel-written)" >&2
		return 1
	fi
	mkimage csum || return 1
	mkimage plain -O ^metadata_csum,^uninit_bg || return 1
	BIG_INO=$(jq -r 'select(.path == "/big") | .ino' <"$TMP/csum.jsonl")
	CASES=0
}

# ewf_or_skip: skip the test without ewfacquire.
ewf_or_skip() {
	command -v ewfacquire >/dev/null 2>&1 && return 0
	skip_test "ewfacquire (ewf-tools) is not installed"
	return 1
}

# zero_block IMAGE BLOCK: one filesystem block zeroed.
zero_block() {
	dd if=/dev/zero of="$1" bs=$BS seek="$2" count=1 conv=notrunc status=none
}

# spoil_chunk E01 N: 8 bytes in the middle of chunk N's stored bytes
# overwritten: the chunk no longer decompresses or checksums.
spoil_chunk() {
	local off len
	read -r off len < <(python3 "$TOP_SRCDIR/tests/ewf_chunk.py" "$1" "$2")
	if [ -z "$len" ] || [ "$len" -lt 16 ]; then
		fail "chunk $2 of $1: not found in the table"
		return 1
	fi
	printf 'XXXXXXXX' | dd of="$1" bs=1 seek=$((off + len / 2)) conv=notrunc status=none
}

# check_case WHAT IMAGE INTACT LOST [STATUS]: run timeline on IMAGE and
# compare with what tests/damage_expect.py says of INTACT (the intact
# image's sorted jsonl) and LOST ("inodes:LO-HI" or "paths:FILE").
check_case() {
	local what=$1 img=$2 intact=$3 lost=$4 want=${5:-1} fls_n
	python3 "$TOP_SRCDIR/tests/damage_expect.py" "$intact" "$lost" \
		"$TMP/want.rows" "$TMP/want.names"
	run_t timeline --format jsonl "$img"
	assertEquals "$what: status: $(head -n 3 "$ERR")" "$want" "$RC"
	jq -c 'select(.status != "name-only")' <"$OUT" | LC_ALL=C sort >"$TMP/got.rows"
	jq -r 'select(.status == "name-only") | .path' <"$OUT" | LC_ALL=C sort >"$TMP/got.names"
	assertEquals "$what: the rows outside the damage, as on the intact image" "" \
		"$(diff "$TMP/want.rows" "$TMP/got.rows" | head -n 6)"
	assertEquals "$what: the names whose inode was lost, name-only" "" \
		"$(diff "$TMP/want.names" "$TMP/got.names" | head -n 6)"
	fls_n=$(fls_rows "$img")
	assertTrue "$what: rows $(wc -l <"$OUT") >= fls's $fls_n" \
		"[ $(wc -l <"$OUT") -ge $fls_n ]"
	assertTrue "$what: fls listed something" "[ $fls_n -gt 0 ]"
	CASES=$((CASES + 1))
}

# --- raw images: a block zeroed ---------------------------------------------

test_raw_zeroed_unused_inode_block() {
	# Zeros read as unused inodes: nothing is lost, nothing to say.
	local img="$TMP/a.raw" t
	cp "$TMP/plain.raw" "$img"
	t=$(itable "$img")
	zero_block "$img" $((t + 100))
	check_case "zeroed unused inode block" "$img" "$TMP/plain.jsonl" inodes:0-0 0
	assertEquals "nothing on stderr" "" "$(cat "$ERR")"
}

test_raw_zeroed_used_inode_block() {
	# inodes 17-32: files of /d1
	local img="$TMP/b.raw" t
	cp "$TMP/csum.raw" "$img"
	t=$(itable "$img")
	zero_block "$img" $((t + 1))
	check_case "zeroed inode block (inodes 17-32)" "$img" "$TMP/csum.jsonl" inodes:17-32
	assertTrue "some names lost their inode" "[ -s '$TMP/want.names' ]"
	assertContains "names a lost inode" "$(cat "$ERR")" "<17>"
	assertContains "says it is not in use" "$(cat "$ERR")" "not in use"
}

# big_block IMAGE: a block of /big (not its first) whose chunk holds no
# block of another directory and no inode-table block; "" if none.
big_block() {
	local img=$1 t b c other p ok
	t=$(itable "$img")
	other=$(for p in / /lost+found /d1 /d2 /d2/sub; do dir_blocks "$img" "$p"; done)
	for b in $(dir_blocks "$img" /big | tr ' ' '\n' | tail -n +2); do
		c=$((b / CHUNK_BLOCKS))
		ok=1
		for p in $other; do
			[ $((p / CHUNK_BLOCKS)) -eq "$c" ] && ok=0
		done
		[ $((c * CHUNK_BLOCKS + CHUNK_BLOCKS)) -le "$t" ] ||
			[ $((c * CHUNK_BLOCKS)) -ge $((t + 512)) ] || ok=0
		if [ "$ok" = 1 ]; then
			echo "$b"
			return
		fi
	done
}

# big_names_in IMAGE BLOCK...: the /big paths those blocks name.
big_names_in() {
	local img=$1 b
	shift
	for b in "$@"; do
		dd if="$img" bs=$BS skip="$b" count=1 status=none |
			grep -ao 'entry-[0-9]*-with-a-rather-long-name\.txt'
	done | sed 's|^|/big/|' | LC_ALL=C sort -u
}

test_raw_zeroed_directory_block() {
	local img="$TMP/c.raw" b
	cp "$TMP/csum.raw" "$img"
	b=$(big_block "$img")
	assertNotNull "a block of /big" "$b"
	[ -n "$b" ] || return
	big_names_in "$img" "$b" >"$TMP/c.lost"
	assertTrue "the block names files" "[ -s '$TMP/c.lost' ]"
	zero_block "$img" "$b"
	check_case "zeroed block $b of /big" "$img" "$TMP/csum.jsonl" "paths:$TMP/c.lost"
	assertContains "names the directory" "$(cat "$ERR")" "<$BIG_INO>"
	assertContains "names the block" "$(cat "$ERR")" "$b"
}

# One entry's rec_len broken in the middle of a block of /big (bits
# flipped, the block's checksum left failing): the entries after it are
# read again from the next sound one (as fls and fsck's salvage do);
# only the broken entry's name is lost.
test_raw_bad_rec_len_mid_block() {
	local img="$TMP/r.raw" b name
	cp "$TMP/csum.raw" "$img"
	b=$(big_block "$img")
	assertNotNull "a block of /big" "$b"
	[ -n "$b" ] || return
	# the 5th entry of the block: rec_len 0x0003 (not a multiple of 4)
	name=$(python3 - "$img" "$b" "$BS" <<'PYEOF'
import struct, sys
img, blk, bs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(img, "r+b") as f:
    f.seek(blk * bs)
    buf = f.read(bs)
    off = n = 0
    while off < bs:
        ino, rl, nl, ft = struct.unpack_from("<IHBB", buf, off)
        if n == 4:
            f.seek(blk * bs + off + 4)
            f.write(struct.pack("<H", 3))
            print(buf[off + 8:off + 8 + nl].decode())
            break
        off += rl
        n += 1
PYEOF
)
	assertNotNull "an entry broken" "$name"
	echo "/big/$name" >"$TMP/r.lost"
	check_case "rec_len of /big/$name broken in block $b" "$img" \
		"$TMP/csum.jsonl" "paths:$TMP/r.lost"
	assertContains "names the block" "$(cat "$ERR")" "$b"
	assertContains "says the entries after it were read" "$(cat "$ERR")" \
		"entries after it read"
}

# --- E01: a chunk that does not read ----------------------------------------

# lost_inodes IMAGE CHUNK: "LO-HI", the inodes in the chunk's blocks of
# the inode table, as e4time names them.
lost_inodes() {
	local t first last
	t=$(itable "$1")
	first=$(($2 * CHUNK_BLOCKS))
	last=$((first + CHUNK_BLOCKS - 1))
	[ "$first" -lt "$t" ] && first=$t
	echo "$(((first - t) * BS / 256 + 1))-$(((last - t + 1) * BS / 256))"
}

test_e01_chunk_of_unused_inodes() {
	# The case of issue 27: the group's first inodes read, the rest from
	# after the bad chunk on too.  Nine chunks, one at a time.
	ewf_or_skip || return
	local t c n=0 img="$TMP/d1.E01" range
	t=$(itable "$TMP/plain.raw")
	for c in $(seq $(((t + 64) / CHUNK_BLOCKS + 1)) $(((t + 64) / CHUNK_BLOCKS + 9))); do
		cp "$TMP/plain.E01" "$img"
		spoil_chunk "$img" "$c" || return
		range=$(lost_inodes "$TMP/plain.raw" "$c")
		check_case "chunk $c (inodes $range, unused)" "$img" "$TMP/plain.jsonl" "inodes:$range"
		assertEquals "chunk $c: no name lost its inode" "" "$(cat "$TMP/want.names")"
		assertContains "chunk $c: names the inodes" "$(cat "$ERR")" "inodes $range not read"
		assertContains "chunk $c: names the blocks" "$(cat "$ERR")" \
			"inode table blocks $((c * CHUNK_BLOCKS))-$((c * CHUNK_BLOCKS + CHUNK_BLOCKS - 1))"
		assertContains "chunk $c: names the bytes" "$(cat "$ERR")" \
			"bytes $((c * CHUNK_BLOCKS * BS))-$(((c + 1) * CHUNK_BLOCKS * BS - 1))"
		assertNotContains "chunk $c: / is not said to be unused" "$(cat "$ERR")" "not in use"
		n=$((n + 1))
	done
	assertEquals "chunks damaged" 9 "$n"
}

test_e01_chunk_of_used_inodes() {
	# The chunk after the one holding / (inode 2): files of /d1, /d2.
	ewf_or_skip || return
	local t c img="$TMP/d2.E01" range
	t=$(itable "$TMP/csum.raw")
	c=$((t / CHUNK_BLOCKS + 1))
	range=$(lost_inodes "$TMP/csum.raw" "$c")
	cp "$TMP/csum.E01" "$img"
	spoil_chunk "$img" "$c" || return
	check_case "chunk $c (inodes $range, some used)" "$img" "$TMP/csum.jsonl" "inodes:$range"
	assertTrue "some names lost their inode" "[ -s '$TMP/want.names' ]"
	assertContains "names the inodes" "$(cat "$ERR")" "inodes $range not read"
	assertContains "a name's inode could not be read" "$(cat "$ERR")" \
		"its inode table block could not be read"
	assertNotContains "no inode said to be unused" "$(cat "$ERR")" "not in use"
}

test_e01_chunk_holding_root() {
	# / itself is lost: say that it could not be read, not "not in use".
	ewf_or_skip || return
	local t c img="$TMP/d0.E01"
	t=$(itable "$TMP/csum.raw")
	c=$((t / CHUNK_BLOCKS))
	cp "$TMP/csum.E01" "$img"
	spoil_chunk "$img" "$c" || return
	run_t timeline --format jsonl "$img"
	assertEquals "status" 1 "$RC"
	assertContains "/ could not be read" "$(cat "$ERR")" "/: Evidence container is damaged"
	assertNotContains "/ is not said to be unused" "$(cat "$ERR")" "not in use"
	assertTrue "rows $(wc -l <"$OUT") >= fls's" "[ $(wc -l <"$OUT") -ge $(fls_rows "$img") ]"
}

test_e01_chunk_of_a_directory() {
	ewf_or_skip || return
	local img="$TMP/d3.E01" b c p
	b=$(big_block "$TMP/csum.raw")
	assertNotNull "a block of /big" "$b"
	[ -n "$b" ] || return
	c=$((b / CHUNK_BLOCKS))
	# every /big block in that chunk is lost
	big_names_in "$TMP/csum.raw" $(for p in $(dir_blocks "$TMP/csum.raw" /big); do
		[ $((p / CHUNK_BLOCKS)) -eq "$c" ] && echo "$p"
	done) >"$TMP/d3.lost"
	cp "$TMP/csum.E01" "$img"
	spoil_chunk "$img" "$c" || return
	check_case "chunk $c (block $b of /big)" "$img" "$TMP/csum.jsonl" "paths:$TMP/d3.lost"
	assertContains "names the directory" "$(cat "$ERR")" "<$BIG_INO>"
	assertContains "names the block" "$(cat "$ERR")" "$b"
}

test_e01_chunk_in_a_later_group_two_threads() {
	# 1 KiB blocks, eight groups: the chunk of a later group's inode
	# table (32 blocks, 128 inodes) that holds a file's inode.  --threads 2 splits the groups
	# between two threads: the same rows and the same warnings.
	ewf_or_skip || return
	local img="$TMP/groups.raw" e01="$TMP/groups-bad.E01" mnt="$TMP/mnt"
	local d i t c range ipg ino g blk first
	truncate -s 64M "$img" &&
		mkfs.ext4 -q -F -b 1024 -I 256 -O ^metadata_csum,^uninit_bg,^flex_bg "$img" \
			>/dev/null 2>&1 && mount -o loop "$img" "$mnt" || {
		fail "mkfs or mount"
		return
	}
	for d in 1 2 3 4 5 6; do
		mkdir "$mnt/dir$d"
		for i in $(seq 1 30); do echo "$i" >"$mnt/dir$d/f$i"; done
	done
	umount "$mnt"
	"$E4TIME" timeline --format jsonl "$img" 2>/dev/null | LC_ALL=C sort >"$TMP/groups.jsonl"
	ewfacquire -u -q -c deflate:fast -f encase6 -S 1G -t "$TMP/groups" "$img" \
		>/dev/null 2>&1 || {
		fail "ewfacquire"
		return
	}
	# the chunk holding /dir2/f1's inode, in a group after the first
	ipg=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/Inodes per group/ {print $2 + 0}')
	ino=$(debugfs -R "stat /dir2/f1" "$img" 2>/dev/null | awk '/^Inode:/ { print $2; exit }')
	g=$(((ino - 1) / ipg))
	assertTrue "/dir2/f1 <$ino> is not in group 0" "[ $g -gt 0 ]"
	t=$(debugfs -R stats "$img" 2>/dev/null |
		sed -n "s/^ Group  *$g:.*inode table at \([0-9]*\).*/\1/p")
	blk=$(debugfs -R "imap /dir2/f1" "$img" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
	c=$((blk / 32)) # 32 KiB chunks of 1 KiB blocks
	first=$((c * 32))
	[ "$first" -lt "$t" ] && first=$t
	range="$((g * ipg + (first - t) * 4 + 1))-$((g * ipg + (c * 32 + 32 - t) * 4))"
	cp "$TMP/groups.E01" "$e01"
	spoil_chunk "$e01" "$c" || return
	check_case "chunk $c (group $g, inodes $range)" "$e01" "$TMP/groups.jsonl" "inodes:$range"
	assertTrue "some names lost their inode" "[ -s '$TMP/want.names' ]"
	assertContains "names the inodes" "$(cat "$ERR")" "inodes $range not read"
	cp "$OUT" "$TMP/t1.out"
	cp "$ERR" "$TMP/t1.err"
	run_t timeline --format jsonl --threads 2 "$e01"
	assertEquals "--threads 2: status" 1 "$RC"
	assertTrue "--threads 2: the same rows" "cmp -s '$TMP/t1.out' '$OUT'"
	assertTrue "--threads 2: the same warnings" "cmp -s '$TMP/t1.err' '$ERR'"
}

# The chunk that holds the first inode-table block of each group after
# the first spoilt in turn: --threads 1 and --threads 2 give the same
# rows and warnings whichever group the two threads split at.  (The
# first thread's scan reads into the second's first group before it
# stops: a table that failed there was salvaged and told by both.)
test_e01_chunk_at_each_group_start_two_threads() {
	ewf_or_skip || return
	local img="$TMP/groups.raw" e01="$TMP/gstart.E01" g t n=0 ngroups
	[ -f "$TMP/groups.E01" ] || {
		fail "no $TMP/groups.E01 (made by the test before)"
		return
	}
	ngroups=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^Block count/ { print int(($2 + 8191) / 8192) }')
	assertEquals "groups" 8 "$ngroups"
	for ((g = 1; g < ngroups; g++)); do
		t=$(debugfs -R stats "$img" 2>/dev/null |
			sed -n "s/^ Group  *$g:.*inode table at \([0-9]*\).*/\1/p")
		cp "$TMP/groups.E01" "$e01"
		spoil_chunk "$e01" $((t / 32)) || return
		run_t timeline --format jsonl --threads 1 "$e01"
		cp "$OUT" "$TMP/g1.out"
		cp "$ERR" "$TMP/g1.err"
		assertContains "group $g: told" "$(cat "$ERR")" "inode table block"
		run_t timeline --format jsonl --threads 2 "$e01"
		assertTrue "group $g: the same rows" "cmp -s '$TMP/g1.out' '$OUT'"
		assertEquals "group $g: the same warnings" "$(cat "$TMP/g1.err")" "$(cat "$ERR")"
		n=$((n + 1))
	done
	assertEquals "groups whose table's first chunk was spoilt" 7 "$n"
}

test_every_case_ran() {
	# shunit2 runs the tests in the order they are defined: this one last.
	# raw: unused inode block, used inode block, directory block, an
	# entry's rec_len broken
	local want=4
	# E01: nine chunks of unused inodes, one of used, one of a directory,
	# one in a later group
	command -v ewfacquire >/dev/null 2>&1 && want=$((want + 9 + 1 + 1 + 1))
	assertEquals "cases compared with the intact image and fls" "$want" "$CASES"
}

. shunit2
