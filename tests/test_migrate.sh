#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_migrate.sh --- migration from any filesystem: export --from-dir on
# a mounted tree (XFS, btrfs, NTFS through ntfs-3g and ntfs3, made here and
# loop-mounted), the files copied with rsync -aHAX into a subdirectory of
# a new ext4 image, import --map into it, and the kernel as the judge on
# both ends: a loop mount of the target shows every birth time the source
# showed, to the nanosecond.  Then import -n agrees (status 0).  Also
# path maps on a tree of this machine: a subtree move, whole components,
# ambiguity, --strip-prefix, bad --map syntax.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools mke2fs jq python3 || return 1
	MOUNTS=()
	probe_mount
}

suite_teardown() {
	local m
	for m in "${MOUNTS[@]}"; do
		mountpoint -q "$m" && umount "$m"
	done
	return 0
}

per_test_setup() {
	fresh_undo_dir
}

# mount_img IMG [OPTIONS]: a loop mount of IMG on a new mount point
# (MP), unmounted at the end of the suite at the latest.  (mount -o loop
# sets autoclear: umount frees the loop device.)
mount_img() {
	local img=$1
	shift
	MP=$(mktemp -d "$TMP/mnt.XXXXXX") || return 1
	mount -o loop"${1:+,$1}" "$img" "$MP" 2>/dev/null || return 1
	MOUNTS+=("$MP")
}

# new_ext4 IMG: an empty ext4 image with 256-byte inodes (crtimes).
new_ext4() {
	mke2fs -q -F -t ext4 -I 256 "$1" 64M >/dev/null 2>&1
}

# populate DIR HOSTILE: files, directories, a hard link, a symlink, an
# empty directory; with HOSTILE=1 names with a newline, '|' and a byte
# that is not UTF-8.  A pause between them: birth times that differ.
populate() {
	local d=$1
	mkdir -p "$d/share/docs/deep" "$d/share/empty" "$d/other"
	echo one >"$d/share/docs/a.txt"
	sleep 0.01
	echo two >"$d/share/docs/deep/b.txt"
	ln "$d/share/docs/a.txt" "$d/share/a-link.txt"
	ln -s docs/a.txt "$d/share/sym"
	echo out >"$d/other/x"
	if [ "$2" = 1 ]; then
		echo nl >"$d/share/new
line"
		echo pipe >"$d/share/p|q"
		echo bad >"$d/share/$(printf 'bad\xff\xfe')"
	fi
	sleep 0.01
	echo late >"$d/share/docs/late.txt"
}

# kernel_btimes DIR: "HEXPATH SEC.NSEC" for DIR and every name below,
# from statx through stat(1) (%.9W: nanoseconds; a symlink's own times).
kernel_btimes() {
	(cd "$1" && find . -print0 | sort -z | while IFS= read -r -d '' p; do
		printf '%s %s\n' "$(printf '%s' "$p" | xxd -p | tr -d '\n')" \
			"$(stat -c %.9W -- "$p")"
	done)
}

# migrate FSTYPE MKFS...: the whole case on a source made by MKFS.
migrate() {
	local fstype=$1 hostile=$2 src tgt m ms
	shift 2
	[ "$CAN_MOUNT" = 1 ] || {
		skip_test "loop mounts do not work here"
		return
	}
	command -v "$1" >/dev/null || {
		skip_test "$1 is missing (install the package that has it)"
		return
	}
	command -v rsync >/dev/null || {
		skip_test "rsync is missing"
		return
	}
	truncate -s 300M "$TMP/$fstype.img"
	"$@" "$TMP/$fstype.img" >/dev/null 2>&1 || {
		skip_test "$* failed"
		return
	}
	mount_img "$TMP/$fstype.img" || {
		skip_test "cannot mount $fstype here"
		return
	}
	src=$MP
	populate "$src" "$hostile"
	[ "$(stat -c %W "$src/share/docs/a.txt")" != 0 ] || {
		skip_test "this kernel gives no birth times on $fstype"
		return
	}
	tgt="$TMP/target-$fstype.img"
	new_ext4 "$tgt" || fail "mke2fs"
	mount_img "$tgt" || fail "mount the target"
	mkdir -p "$MP/data"
	sleep 0.05
	rsync -aHAX "$src/share/" "$MP/data/share/" || fail "rsync"
	umount "$MP"

	run export --from-dir "$src"
	assertEquals "export status: $(cat "$ERR")" 0 "$RC"
	m="$TMP/$fstype.manifest"
	cp "$OUT" "$m"
	assertContains "summary on stderr" "$(cat "$ERR")" "0 without a birth time"
	assertEquals "the hard link: both names" 2 \
		"$(jq -s '[.[] | select(.links == 2 and .type == "reg")] | length' "$m")"

	# the share alone, as e4time-export(8)'s recipe: its / is /data/share
	run export --from-dir "$src/share"
	assertEquals "export status: $(cat "$ERR")" 0 "$RC"
	ms="$TMP/$fstype-share.manifest"
	cp "$OUT" "$ms"

	run import -n --map /=/data/share "$tgt" "$ms"
	assertEquals "before: they disagree (1): $(cat "$ERR")" 1 "$RC"
	run import --map /=/data/share "$tgt" "$ms"
	assertEquals "import status: $(cat "$ERR")" 0 "$RC"
	assertNotContains "none left out: no line" "$(cat "$ERR")" "left out"

	mount_img "$tgt" ro || fail "mount the target again"
	assertEquals "the kernel shows the source's birth times on the target" \
		"$(kernel_btimes "$src/share")" "$(kernel_btimes "$MP/data/share")"
	umount "$MP"

	run import -n --map /=/data/share "$tgt" "$ms"
	assertEquals "import -n agrees: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "entries compared agree to the nanosecond"
	# the whole source's manifest: what is not under /share is left out,
	# so it does not verify (64), and says how many
	run import -n --map /share=/data/share "$tgt" "$m"
	assertEquals "entries left out: $(cat "$ERR")" 64 "$RC"
	assertContains "$(cat "$ERR")" \
		"$(jq -s '[.[] | select(.path != null and (.path | startswith("/share") | not))] | length' "$m") entries under no --map or --strip-prefix: left out"
	umount "$src"
}

test_xfs_to_ext4() {
	migrate xfs 1 mkfs.xfs -q -f
}

test_btrfs_to_ext4() {
	migrate btrfs 1 mkfs.btrfs -q -f
}

# ntfs-3g (FUSE): statx gives no birth time; system.ntfs_crtime (100 ns)
# does, and is the source's truth here.
test_ntfs3g_to_ext4() {
	local img="$TMP/ntfs.img" src tgt m want got
	[ "$CAN_MOUNT" = 1 ] || {
		skip_test "loop mounts do not work here"
		return
	}
	command -v mkntfs >/dev/null && command -v ntfs-3g >/dev/null || {
		skip_test "mkntfs or ntfs-3g missing (package ntfs-3g)"
		return
	}
	[ -c /dev/fuse ] && command -v rsync >/dev/null || {
		skip_test "no /dev/fuse or no rsync"
		return
	}
	truncate -s 64M "$img"
	mkntfs -q -f -F "$img" >/dev/null 2>&1 || {
		skip_test "mkntfs failed"
		return
	}
	src=$(mktemp -d "$TMP/ntfs.XXXXXX")
	ntfs-3g "$img" "$src" 2>/dev/null || {
		skip_test "ntfs-3g cannot mount here (FUSE)"
		return
	}
	MOUNTS+=("$src")
	populate "$src" 0
	tgt="$TMP/target-ntfs.img"
	new_ext4 "$tgt" || fail "mke2fs"
	mount_img "$tgt" || fail "mount the target"
	mkdir -p "$MP/data"
	sleep 0.05
	rsync -aH "$src/share/" "$MP/data/share/" || fail "rsync"
	umount "$MP"

	run export --from-dir "$src"
	assertEquals "export status: $(cat "$ERR")" 0 "$RC"
	m="$TMP/ntfs.manifest"
	cp "$OUT" "$m"
	assertEquals "every crtime of share from system.ntfs_crtime" "" \
		"$(jq -r 'select(.path != null and (.path | startswith("/share"))) | select(.crtime_from != "ntfs_crtime") | .path' "$m")"
	# the source's truth: the xattr itself, decoded here
	want=$(cd "$src/share" && find . -print0 | sort -z | python3 -c '
import os, sys
for p in sys.stdin.buffer.read().split(b"\0")[:-1]:
    v = int.from_bytes(os.getxattr(p, "system.ntfs_crtime",
                                   follow_symlinks=False), "little")
    v -= 116444736000000000
    print("%d.%09d" % (v // 10**7, v % 10**7 * 100))')
	# the share alone, as e4time-export(8)'s recipe
	"$E4TIME" export --from-dir "$src/share" >"$TMP/ntfs-share.manifest" ||
		fail "export the share"
	run import --map /=/data/share "$tgt" "$TMP/ntfs-share.manifest"
	assertEquals "import status: $(cat "$ERR")" 0 "$RC"
	mount_img "$tgt" ro || fail "mount the target again"
	got=$(cd "$MP/data/share" && find . -print0 | sort -z | while IFS= read -r -d '' p; do
		stat -c %.9W -- "$p"
	done)
	umount "$MP"
	assertEquals "the target's birth times are ntfs-3g's creation times" \
		"$want" "$got"
	run import -n --map /=/data/share "$tgt" "$TMP/ntfs-share.manifest"
	assertEquals "import -n agrees: $(cat "$ERR")" 0 "$RC"
	# --crtime-from: a source the user names comes before ntfs_crtime
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.crtime_usec",
	    (978307200123456).to_bytes(8, "little"))' "$src/share/docs/late.txt" ||
		fail "setxattr user.crtime_usec on ntfs-3g"
	run export --from-dir "$src" --crtime-from systemd
	assertEquals "export status: $(cat "$ERR")" 0 "$RC"
	assertEquals "from user.crtime_usec" "source 978307200 123456000" \
		"$(jq -r 'select(.path == "/share/docs/late.txt") | "\(.crtime_from) \(.crtime.sec) \(.crtime.nsec)"' "$OUT")"
	assertEquals "the others from system.ntfs_crtime" "ntfs_crtime" \
		"$(jq -r 'select(.path == "/share/docs/a.txt") | .crtime_from' "$OUT")"
	umount "$src"
}

# ntfs3 (the kernel's NTFS driver): the birth time through statx where
# the driver gives it, else from system.ntfs_crtime (100 ns either way);
# the kernel on the target must show the same.
test_ntfs3_to_ext4() {
	local img="$TMP/ntfs3.img" src tgt m want got
	[ "$CAN_MOUNT" = 1 ] || {
		skip_test "loop mounts do not work here"
		return
	}
	command -v mkntfs >/dev/null && command -v rsync >/dev/null || {
		skip_test "mkntfs (package ntfs-3g) or rsync missing"
		return
	}
	grep -qw ntfs3 /proc/filesystems || modprobe ntfs3 2>/dev/null
	grep -qw ntfs3 /proc/filesystems || {
		skip_test "this kernel has no ntfs3 driver"
		return
	}
	truncate -s 64M "$img"
	mkntfs -q -f -F "$img" >/dev/null 2>&1 || {
		skip_test "mkntfs failed"
		return
	}
	src=$(mktemp -d "$TMP/ntfs3.XXXXXX")
	mount -t ntfs3 -o loop "$img" "$src" 2>/dev/null || {
		skip_test "mount -t ntfs3 failed"
		return
	}
	MOUNTS+=("$src")
	populate "$src" 0
	# the source's truth: statx's birth time, or the driver's xattr
	want=$(cd "$src/share" && find . -print0 | sort -z | while IFS= read -r -d '' p; do
		w=$(stat -c %.9W -- "$p")
		case $w in
		0 | 0.000000000 | -) w=$(python3 -c 'import os, sys
v = int.from_bytes(os.getxattr(sys.argv[1], "system.ntfs_crtime",
                               follow_symlinks=False), "little")
v -= 116444736000000000
print("%d.%09d" % (v // 10**7, v % 10**7 * 100))' "$p") ;;
		esac
		echo "$w"
	done)
	tgt="$TMP/target-ntfs3.img"
	new_ext4 "$tgt" || fail "mke2fs"
	mount_img "$tgt" || fail "mount the target"
	mkdir -p "$MP/data"
	sleep 0.05
	rsync -aH "$src/share/" "$MP/data/share/" || fail "rsync"
	umount "$MP"

	run export --from-dir "$src"
	assertEquals "export status: $(cat "$ERR")" 0 "$RC"
	assertContains "summary on stderr" "$(cat "$ERR")" "0 without a birth time"
	# the share alone, as e4time-export(8)'s recipe
	m="$TMP/ntfs3.manifest"
	"$E4TIME" export --from-dir "$src/share" >"$m" || fail "export the share"
	run import --map /=/data/share "$tgt" "$m"
	assertEquals "import status: $(cat "$ERR")" 0 "$RC"
	mount_img "$tgt" ro || fail "mount the target again"
	got=$(cd "$MP/data/share" && find . -print0 | sort -z | while IFS= read -r -d '' p; do
		stat -c %.9W -- "$p"
	done)
	umount "$MP"
	assertEquals "the target's birth times are ntfs3's creation times" \
		"$want" "$got"
	run import -n --map /=/data/share "$tgt" "$m"
	assertEquals "import -n agrees: $(cat "$ERR")" 0 "$RC"
	umount "$src"
}

# A tree of this machine (its own birth times), as an image made with
# mke2fs -d: new birth times there (mke2fs's whole seconds, which may be
# earlier: the imports below use --policy always).
local_tree() {
	SRV="$TMP/srv"
	rm -rf "$SRV"
	mkdir -p "$SRV/old/share/sub" "$SRV/older"
	echo a >"$SRV/old/share/a"
	echo b >"$SRV/old/share/sub/b"
	echo c >"$SRV/older/c"
	sleep 0.02
	mkdir -p "$TMP/img-tree/data/share/sub" "$TMP/img-tree/old/share"
	cp -a "$SRV/old/share/." "$TMP/img-tree/data/share/"
	cp -a "$SRV/old/share/." "$TMP/img-tree/old/share/"
	cp -a "$SRV/old/share/." "$TMP/img-tree/"
	IMG="$TMP/local.img"
	mke2fs -q -F -t ext4 -I 256 -d "$TMP/img-tree" "$IMG" 16M \
		>/dev/null 2>&1 || fail "mke2fs -d"
	"$E4TIME" export --from-dir "$SRV" >"$TMP/srv.manifest" 2>/dev/null
}

test_subtree_move_whole_components() {
	local want
	local_tree
	run import -f jsonl --policy always --map /old/share=/data/share "$IMG" "$TMP/srv.manifest"
	# /, /old, /older, /older/c: left out (64)
	assertEquals "status: $(cat "$ERR")" 64 "$RC"
	assertEquals "share and its three names changed" 4 \
		"$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	assertContains "/older is not under /old" "$(cat "$ERR")" \
		"import: 4 entries under no --map"
	want=$(stat -c %.9W "$SRV/old/share/sub/b")
	run stat "$IMG" /data/share/sub/b
	assertContains "$(cat "$OUT")" "$(date -u -d "@$want" +%Y-%m-%dT%H:%M:%S.%N)"
	run import -n --map /old/share=/data/share "$IMG" "$TMP/srv.manifest"
	assertEquals "they agree, but 4 are left out: $(cat "$ERR")" 64 "$RC"
	assertContains "$(cat "$ERR")" "import -n: 4 of 4 entries compared agree"
}

test_longest_prefix_wins_and_strip_prefix() {
	local_tree
	# /old=/nowhere would leave everything unmatched; /old/share wins
	run import -f jsonl -p always --map /old=/nowhere --map /old/share=/data/share \
		"$IMG" "$TMP/srv.manifest"
	assertEquals "unmatched: /nowhere (64)" 64 "$RC"
	assertEquals "four changed by the longer OLD" 4 \
		"$(jq -s '[.[] | select(.action == "changed")] | length' "$OUT")"
	assertEquals "/old itself went to /nowhere" "/nowhere" \
		"$(jq -r 'select(.action == "unmatched") | .path' "$OUT")"
	run import -f jsonl -p always --strip-prefix /old/share "$IMG" \
		"$TMP/srv.manifest"
	assertEquals "left out: $(cat "$ERR")" 64 "$RC"
	assertEquals "/old/share is / now" "/ /a /sub /sub/b" \
		"$(jq -r 'select(.record != "summary") | .path' "$OUT" | sort | tr '\n' ' ' | sed 's/ $//')"
	assertContains "$(cat "$ERR")" "import: 4 entries under no --map"
	# a manifest of the share alone, as / of it: --map /=/data/share
	"$E4TIME" export --from-dir "$SRV/old/share" >"$TMP/share.manifest" \
		2>/dev/null
	run import -f jsonl -p always --map /=/data/share "$IMG" \
		"$TMP/share.manifest"
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals "/ is /data/share" \
		"/data/share /data/share/a /data/share/sub /data/share/sub/b" \
		"$(jq -r 'select(.record != "summary") | .path' "$OUT" | sort | tr '\n' ' ' | sed 's/ $//')"
}

test_ambiguous_maps() {
	local_tree
	# two source trees onto one target: /old/share/a and /older/.. differ
	echo d >"$SRV/older/a"
	"$E4TIME" export --from-dir "$SRV" >"$TMP/srv2.manifest" 2>/dev/null
	run import -f jsonl --map /old/share=/data/share \
		--map /older=/data/share "$IMG" "$TMP/srv2.manifest"
	# ambiguous (1), and /, /old, /older/c left out (64)
	assertEquals "ambiguous, and left out" 64 "$RC"
	assertEquals "/data/share/a twice, skipped" 2 \
		"$(jq -s '[.[] | select(.action == "ambiguous" and .path == "/data/share/a")] | length' "$OUT")"
}

test_bad_map_is_a_usage_error() {
	local_tree
	for bad in "--map /a" "--map a=/b" "--map /a=b" "--map =/b" \
		"--strip-prefix rel" "--map /a=/b --map /a/=/c"; do
		# shellcheck disable=SC2086
		run import $bad "$IMG" "$TMP/srv.manifest"
		assertEquals "$bad: 2" 2 "$RC"
		assertContains "$bad: the option named" "$(head -n 1 "$ERR")" \
			"${bad%% *}"
	done
	assertContains "$(cat "$ERR")" "that prefix was given before"
}

test_from_dir_usage_and_errors() {
	run export
	assertEquals "no image, no --from-dir: 2" 2 "$RC"
	run export --from-dir "$TMP" "$TMP/x.img"
	assertEquals "--from-dir and an IMAGE: 2" 2 "$RC"
	run export --from-dir "$TMP" --since 2020-01-01
	assertEquals "--from-dir --since: 2" 2 "$RC"
	run export --cross-mounts "$TMP/x.img"
	assertEquals "--cross-mounts without --from-dir: 2" 2 "$RC"
	run export --from-dir "$TMP" --crtime-from bogus
	assertEquals "a bad source: 2" 2 "$RC"
	run export --from-dir "$TMP/does-not-exist"
	assertEquals "no such directory: 4" 4 "$RC"
	assertEquals "one line naming it" 1 "$(grep -c "does-not-exist" "$ERR")"
	assertEquals "no output but nothing" "" "$(cat "$OUT")"
}

# Hostile names survive both ways: a manifest of a tree of this machine,
# imported into an image of the same names.
test_hostile_names_both_ways() {
	local t="$TMP/hostile" n
	rm -rf "$t" "$TMP/h-img"
	mkdir -p "$t"
	populate "$t" 1
	sleep 0.02
	cp -a "$t" "$TMP/h-img"
	mke2fs -q -F -t ext4 -I 256 -d "$TMP/h-img" "$TMP/h.img" 16M \
		>/dev/null 2>&1 || fail "mke2fs -d"
	"$E4TIME" export --from-dir "$t" >"$TMP/h.manifest" 2>/dev/null
	n=$(grep -c . "$TMP/h.manifest")
	run import -f jsonl -p always "$TMP/h.img" "$TMP/h.manifest"
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertEquals "every name matched (but /lost+found is not there)" 0 \
		"$(jq -s '[.[] | select(.action == "unmatched")] | length' "$OUT")"
	assertEquals "the newline, the pipe and the bad byte" 3 \
		"$(jq -s '[.[] | select(.path == "/share/new\nline" or .path == "/share/p|q" or .path == "/share/bad\ufffd\ufffd")] | length' "$OUT")"
	run import -n "$TMP/h.img" "$TMP/h.manifest"
	assertEquals "then they agree: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "$((n - 1)) of $((n - 1)) entries compared agree"
}

. shunit2
