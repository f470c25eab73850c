#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_status.sh --- one exit status per condition, whatever the command:
# every command runs against each condition (a missing image, a file
# that is not ext2/3/4, a bad option, a wrong number of arguments, an
# unknown or malformed FILESPEC, a damaged inode, a superblock checksum
# that does not verify, a filesystem without a journal, a read-only
# image file) and must give the status e4time(8) gives that condition.
# Every run must leave the images unwritten (not a byte), but the writes that are
# meant to happen (none here: writers run with -n, or are refused).
# And the man page's EXIT STATUS says what `e4time help exit-status`
# (tools/exit_status.c, the table) says.
. "$TOP_SRCDIR/tests/lib.sh"

CMDS="stat timeline export journal audit history info set backfill import anomalies"
WRITERS="set backfill import"

suite_setup() {
	require_tools xz debugfs mke2fs python3 || return 1
	GOOD=$(unpack ext4-4k) || return 1
	# the image's manifest: import's input
	"$E4TIME" export "$GOOD" >"$TMP/good.manifest" || return 1
	# one entry that matches nothing
	{
		head -n 1 "$TMP/good.manifest"
		grep '"path":"/hello.txt"' "$TMP/good.manifest" |
			sed 's|"path":"/hello.txt"|"path":"/nope"|'
	} >"$TMP/nope.manifest"
	head -c 4M /dev/urandom >"$TMP/random.img"
	# /hello.txt <12> with a checksum that does not verify
	cp "$GOOD" "$TMP/badinode.img"
	debugfs -w -R "sif <12> checksum 0x1234" "$TMP/badinode.img" \
		>/dev/null 2>&1 || return 1
	# the volume name changed under the superblock's checksum
	cp "$GOOD" "$TMP/badsb.img"
	printf 'X' | dd of="$TMP/badsb.img" bs=1 seek=$((1024 + 0x78)) \
		conv=notrunc status=none
	# ext2: no journal
	mkdir -p "$TMP/src"
	echo hello >"$TMP/src/hello.txt"
	mke2fs -q -F -t ext2 -I 256 -d "$TMP/src" "$TMP/ext2.img" 4M \
		>/dev/null 2>&1 || return 1
	UNDO_DIR="$TMP/undo"
	mkdir -p "$UNDO_DIR"
	export E2FSPROGS_UNDO_DIR="$UNDO_DIR"
}

# args CMD IMAGE [SPEC]: the command line of CMD on IMAGE (FILESPEC SPEC,
# or for import a manifest naming it), writers as dry runs.
args() {
	local cmd=$1 img=$2 spec=${3:-}
	case $cmd in
	stat) echo "stat $img ${spec:-/hello.txt}" ;;
	timeline | export | anomalies) echo "$cmd $img $spec" ;;
	journal | audit | info) echo "$cmd $img" ;;
	history) echo "history $img ${spec:-<12>}" ;;
	set) echo "set -n $img ${spec:-/hello.txt} --crtime 2000-01-01T00:00:00Z" ;;
	backfill) echo "backfill -n --from dosattrib $img $spec" ;;
	import)
		if [ "$spec" = /nope ]; then
			echo "import -n $img $TMP/nope.manifest"
		else
			echo "import -n $img $TMP/good.manifest"
		fi
		;;
	esac
}

# expect WHAT STATUS CMD...: CMD... (e4time arguments, split on blanks)
# exits with STATUS and leaves the images untouched.
expect() {
	local what=$1 want=$2 state
	shift 2
	# (tests/lib.sh: an mtime no write can leave in place)
	state=$(untouched_mark "$GOOD" "$TMP"/*.img)
	# shellcheck disable=SC2068 # split on purpose: no blank in the paths
	run $@
	assertEquals "$what: e4time $*: status ($(head -c 300 "$ERR"))" \
		"$want" "$RC"
	untouched_check "$state" >"$TMP/untouched"
	assertTrue "$what: e4time $*: an image was written: $(cat "$TMP/untouched")" $?
}

test_missing_image() {
	local c
	for c in $CMDS; do
		expect "missing image" 4 "$(args "$c" "$TMP/nothing.img")"
	done
}

test_not_ext() {
	local c
	for c in $CMDS; do
		expect "not ext2/3/4" 4 "$(args "$c" "$TMP/random.img")"
	done
}

test_bad_option() {
	local c
	for c in $CMDS; do
		expect "bad option" 2 "$c --bogus-option $GOOD"
		expect "no arguments" 2 "$c"
	done
}

test_good_image() {
	local c
	for c in $CMDS; do
		expect "intact image" 0 "$(args "$c" "$GOOD")"
	done
}

test_unknown_filespec() {
	local c
	for c in stat timeline export history set backfill anomalies; do
		expect "unknown FILESPEC" 1 "$(args "$c" "$GOOD" /nope)"
	done
	# import's only entry is not in the image: left out (64), and so
	# nothing was compared (96)
	expect "unknown path, the only entry" 96 "$(args import "$GOOD" /nope)"
	for c in stat timeline export history set backfill anomalies; do
		expect "malformed FILESPEC" 1 "$(args "$c" "$GOOD" nope)"
		expect "inode out of range" 1 "$(args "$c" "$GOOD" '<99999999>')"
	done
}

test_damaged_inode() {
	local c
	# the readers that read <12> report it and go on
	# (audit reads the names of its top files)
	for c in stat timeline export history backfill audit anomalies; do
		expect "damaged inode" 1 "$(args "$c" "$TMP/badinode.img")"
	done
	# those that do not read inodes do not see it
	for c in journal info; do
		expect "damaged inode, not read" 0 "$(args "$c" "$TMP/badinode.img")"
	done
	# set refuses to write a damaged inode; import refuses the entry
	expect "damaged inode" 16 "$(args set "$TMP/badinode.img")"
	expect "damaged inode" 1 "$(args import "$TMP/badinode.img")"
}

test_superblock_checksum() {
	local c
	for c in stat timeline export journal audit history info anomalies; do
		expect "superblock checksum" 1 "$(args "$c" "$TMP/badsb.img")"
	done
	# a write is refused, and so is a dry run, which checks what a
	# write would
	for c in $WRITERS; do
		expect "superblock checksum" 16 "$(args "$c" "$TMP/badsb.img")"
	done
}

test_no_journal() {
	local c
	for c in journal audit history; do
		expect "no journal" 4 "$(args "$c" "$TMP/ext2.img" '<2>')"
	done
	for c in stat timeline export info anomalies; do
		expect "no journal, not needed" 0 "$(args "$c" "$TMP/ext2.img" /hello.txt)"
	done
}

test_read_only_image_file() {
	local ro="$TMP/ro" c line
	mkdir -p "$ro"
	if ! mount -t tmpfs -o size=16m tmpfs "$ro" 2>/dev/null; then
		skip_test "cannot mount a tmpfs here"
		return
	fi
	cp "$GOOD" "$ro/good.img"
	cp "$TMP/good.manifest" "$ro/good.manifest"
	mount -o remount,ro "$ro" || {
		umount "$ro"
		skip_test "cannot remount a tmpfs read-only"
		return
	}
	for c in $CMDS; do
		line=$(args "$c" "$ro/good.img")
		expect "read-only image file, read" 0 "$line"
	done
	expect "read-only image file" 16 \
		"set $ro/good.img /hello.txt --crtime 2000-01-01T00:00:00Z"
	expect "read-only image file" 16 \
		"backfill --from dosattrib $ro/good.img"
	expect "read-only image file" 16 "import $ro/good.img $ro/good.manifest"
	assertEquals "no undo file left" "" "$(ls -A "$UNDO_DIR")"
	umount "$ro"
}

# The man page's EXIT STATUS holds every condition of the table, under
# its status, and no status the table lacks.
test_man_page_is_the_table() {
	local man="$TOP_SRCDIR/man/e4time.8"
	"$E4TIME" help exit-status >"$TMP/table" || fail "help exit-status"
	python3 - "$man" "$TMP/table" <<'EOF' >"$TMP/diff"
import re, sys
man = open(sys.argv[1]).read()
sec = man.split(".SH EXIT STATUS", 1)[1].split("\n.SH ", 1)[0]
# status -> its paragraph, troff markup gone, one line
paras = {}
for m in re.finditer(r"^\.TP\n\.B (\d+)\n(.*?)(?=^\.TP\n|\Z)", sec,
                     re.S | re.M):
    text = re.sub(r"^\.[A-Z]+ ?", "", m.group(2), flags=re.M)
    text = text.replace("\\-", "-").replace("\\%", "").replace('"', "")
    paras[int(m.group(1))] = " ".join(text.split())
table = {}
status = None
for line in open(sys.argv[2]):
    m = re.match(r"^\s*(\d+)  ", line)
    if m:
        status = int(m.group(1))
        table.setdefault(status, [])
        continue
    m = re.match(r"^    \S+\s+(.*)$", line)
    if m and status is not None:
        table[status].append(" ".join(m.group(1).split()))
if sorted(paras) != sorted(table):
    print("statuses: man %s, table %s" % (sorted(paras), sorted(table)))
for s, conds in table.items():
    for c in conds:
        if c not in paras.get(s, ""):
            print("%d: not in the man page: %s" % (s, c))
EOF
	assertEquals "man page and table" "" "$(cat "$TMP/diff")"
}

. shunit2
