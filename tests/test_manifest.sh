#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_manifest.sh --- e4time export and import: the migration case
# (export from one image, the same tree in a new image with new crtimes,
# import puts every crtime back), matching, policies, bad manifests.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools debugfs mke2fs e2fsck e2undo jq python3 || return 1
	OLD=$(unpack ext4-4k) || return 1
	run export "$OLD"
	cp "$OUT" "$TMP/old.manifest"
	# the same tree, copied without mounting: new inodes, new crtimes
	mkdir -p "$TMP/tree"
	debugfs -R "rdump / $TMP/tree" "$OLD" >/dev/null 2>&1 || return 1
	rm -rf "$TMP/tree/lost+found"
	# rdump keeps neither fifos nor hard links: put them back
	mkfifo "$TMP/tree/fifo" || return 1
	ln -f "$TMP/tree/hardlink-a" "$TMP/tree/dir/hardlink-b" || return 1
	mke2fs -q -F -t ext4 -b 4096 -I 256 -d "$TMP/tree" "$TMP/new0.img" 32M \
		>/dev/null 2>&1 || return 1
	probe_mount
}

per_test_setup() {
	fresh_undo_dir
	NEW="$TMP/new.img"
	cp "$TMP/new0.img" "$NEW"
}

# crtime_diff A.manifest B.manifest: paths in both whose crtime differs
crtime_diff() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
def load(p):
    rows = [json.loads(l) for l in open(p, encoding="utf-8")][1:]
    return {bytes.fromhex(r["path_hex"]) if "path_hex" in r
            else r["path"].encode(): r["crtime"] for r in rows}
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = [p for p in a if p in b and (a[p] or {}).get("sec") is not None
       and (a[p]["sec"], a[p]["nsec"]) != (b[p]["sec"], b[p]["nsec"])]
print(len([p for p in a if p in b]), len(bad), bad[:3])
EOF
}

test_export_is_header_and_timeline_rows() {
	run_ro "$OLD" export "$OLD"
	assertEquals 0 "$RC"
	assertEquals "header" 1 "$(head -n 1 "$OUT" | jq .e4time_manifest)"
	run_ro "$OLD" timeline -f jsonl "$OLD"
	assertEquals "rows are timeline's jsonl" "$(cat "$OUT")" \
		"$(tail -n +2 "$TMP/old.manifest")"
}

test_migration_restores_every_crtime() {
	local before r
	before=$(sha256sum <"$NEW")
	r=$(crtime_diff "$TMP/old.manifest" <(cd "$TMP" && "$E4TIME" export "$NEW"))
	assertNotEquals "the copy has new crtimes" "0" "$(echo "$r" | cut -d' ' -f2)"
	run import "$NEW" "$TMP/old.manifest"
	assertEquals "status: $(tail -3 "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "0 unmatched, 0 ambiguous"
	run export "$NEW"
	r=$(crtime_diff "$TMP/old.manifest" "$OUT")
	assertEquals "every path matched, no crtime differs" \
		"$(($(wc -l <"$TMP/old.manifest") - 1)) 0 []" "$r"
	e2fsck -fn "$NEW" >/dev/null 2>&1
	assertEquals "e2fsck -fn clean" 0 $?
	if [ "$CAN_MOUNT" = 1 ]; then
		mount -o loop,ro "$NEW" "$MNT"
		assertEquals "kernel sees the old crtime" \
			"$(jq -r 'select(.path == "/hello.txt") | "\(.crtime.sec).\(.crtime.nsec)"' "$TMP/old.manifest" | awk -F. '{printf "%s.%09d", $1, $2}')" \
			"$(stat -c %.9W "$MNT/hello.txt")"
		umount "$MNT"
	fi
	e2undo "$(default_undo "$NEW")" "$NEW" >/dev/null 2>&1
	assertEquals "e2undo restores byte-identical" "$before" "$(sha256sum <"$NEW")"
}

test_import_from_stdin_and_dry_run() {
	run_ro "$NEW" import -n "$NEW" <"$TMP/old.manifest"
	# -n is the check of a migration: 1 while entries disagree
	assertEquals "status 1 (disagree)" 1 "$RC"
	assertContains "$(cat "$OUT")" "would set /hello.txt <"
	assertContains "$(cat "$ERR")" "would change"
	assertContains "$(cat "$ERR")" "matched entries agree to the nanosecond"
}

test_manifest_without_entries_changes_nothing() {
	head -n 1 "$TMP/old.manifest" >"$TMP/header.manifest"
	run_ro "$NEW" import "$NEW" "$TMP/header.manifest"
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	assertContains "$(cat "$ERR")" "import: 0 entries, 0 changed"
}

test_unmatched_entries_are_reported() {
	{ cat "$TMP/old.manifest"
	  echo '{"path":"/not/here","ino":99,"crtime":{"sec":0,"nsec":0}}'; } >"$TMP/extra.manifest"
	run import -f jsonl "$NEW" "$TMP/extra.manifest"
	assertEquals "status 1 for unmatched" 1 "$RC"
	assertEquals "one unmatched" 1 "$(jq -s '[.[] | select(.action == "unmatched")] | length' "$OUT")"
	assertEquals "/not/here" "$(jq -r 'select(.action == "unmatched") | .path' "$OUT")"
}

test_ambiguous_entries_are_skipped() {
	# two names of one inode in the new image, with different times
	printf '%s\n' \
		'{"path":"/hardlink-a","crtime":{"sec":1000,"nsec":0}}' \
		'{"path":"/dir/hardlink-b","crtime":{"sec":2000,"nsec":0}}' \
		'{"path":"/hello.txt","crtime":{"sec":3000,"nsec":5}}' >"$TMP/amb.manifest"
	run import -f jsonl "$NEW" "$TMP/amb.manifest"
	assertEquals 1 "$RC"
	assertEquals "two ambiguous" 2 "$(jq -s '[.[] | select(.action == "ambiguous")] | length' "$OUT")"
	assertEquals "the other applied" "changed" "$(jq -r 'select(.path == "/hello.txt") | .action' "$OUT")"
	run stat "$NEW" /hello.txt /hardlink-a
	assertContains "$(cat "$OUT")" "crtime: 1970-01-01T00:50:00.000000005Z"
	assertNotContains "$(cat "$OUT")" "crtime: 1970-01-01T00:16:40"
}

test_malformed_manifest_writes_nothing() {
	printf '%s\n' '{"path":"/hello.txt","crtime":{"sec":3000,"nsec":5}}' \
		'{"path":"/dir","crtime":{"sec":1,"nsec":1000000000}}' >"$TMP/bad.manifest"
	run_ro "$NEW" import "$NEW" "$TMP/bad.manifest"
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "bad.manifest:2: Malformed manifest line"
	for line in '{"path":"relative"}' '{"path":"/a","crtime":{"sec":"x","nsec":0}}' \
		'{"path":"/a"' '[1,2]' '{"path":"/a\u0000b"}' '{"path":"/a","path_hex":"zz"}' \
		'{"path":"/a","crtime":{"sec":99999999999,"nsec":0}}' \
		'{"e4time_manifest":4294967297}' '{"path" "/a"}' \
		'{"path":"/a","crtime":{"sec" 1,"nsec":0}}'; do
		printf '%s\n' "$line" >"$TMP/bad.manifest"
		run_ro "$NEW" import "$NEW" "$TMP/bad.manifest"
		assertEquals "refused: $line" 2 "$RC"
	done
}

test_match_by_inode_fields_and_policy() {
	local ino
	ino=$(cd "$TMP" && "$E4TIME" export "$NEW" | jq -r 'select(.path == "/hello.txt") | .ino')
	printf '{"path":"/elsewhere","ino":%s,"crtime":{"sec":3000,"nsec":0},"mtime":{"sec":4000,"nsec":7}}\n' \
		"$ino" >"$TMP/ino.manifest"
	run import --match inode --fields crtime,mtime "$NEW" "$TMP/ino.manifest"
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	run stat "$NEW" /hello.txt
	assertContains "$(cat "$OUT")" "mtime:  1970-01-01T01:06:40.000000007Z"
	assertContains "$(cat "$OUT")" "crtime: 1970-01-01T00:50:00.000000000Z"
	printf '{"path":"/hello.txt","crtime":{"sec":5000,"nsec":0}}\n' >"$TMP/later.manifest"
	run import -f jsonl "$NEW" "$TMP/later.manifest"
	assertEquals "earlier policy: a later time is left" "unchanged" "$(jq -r .action "$OUT")"
	run import -f jsonl --policy always "$NEW" "$TMP/later.manifest"
	assertEquals "always" "changed" "$(jq -r .action "$OUT")"
}

. shunit2
