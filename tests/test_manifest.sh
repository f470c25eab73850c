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

# entries: import's jsonl records but the summary (the last one)
entries() {
	jq -c 'select(.record != "summary")'
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
	assertContains "$(cat "$ERR")" "entries compared agree to the nanosecond"
}

test_manifest_without_entries_changes_nothing() {
	head -n 1 "$TMP/old.manifest" >"$TMP/header.manifest"
	run_ro "$NEW" import "$NEW" "$TMP/header.manifest"
	# nothing compared: not a success (96), and nothing written
	assertEquals "status: $(cat "$ERR")" 96 "$RC"
	assertContains "$(cat "$ERR")" "import: 0 entries, 0 changed"
	assertContains "$(cat "$ERR")" "no entry was compared with an inode: the manifest has no entry"
}

test_unmatched_entries_are_reported() {
	{ cat "$TMP/old.manifest"
	  echo '{"path":"/not/here","ino":99,"crtime":{"sec":0,"nsec":0}}'; } >"$TMP/extra.manifest"
	run import -f jsonl "$NEW" "$TMP/extra.manifest"
	assertEquals "status 64 for unmatched (left out)" 64 "$RC"
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
	# the inode and the times written, as debugfs reads them
	ino=$(debugfs -R "stat /hello.txt" "$NEW" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
	printf '{"path":"/elsewhere","ino":%s,"crtime":{"sec":3000,"nsec":0},"mtime":{"sec":4000,"nsec":7}}\n' \
		"$ino" >"$TMP/ino.manifest"
	run import --match inode --fields crtime,mtime "$NEW" "$TMP/ino.manifest"
	assertEquals "status: $(cat "$ERR")" 0 "$RC"
	# (the extra field: nanoseconds << 2)
	debugfs -R "stat /hello.txt" "$NEW" >"$TMP/dbg" 2>/dev/null
	assertContains "$(cat "$TMP/dbg")" " mtime: 0x00000fa0:0000001c "
	assertContains "$(cat "$TMP/dbg")" "crtime: 0x00000bb8:00000000 "
	printf '{"path":"/hello.txt","crtime":{"sec":5000,"nsec":0}}\n' >"$TMP/later.manifest"
	run import -f jsonl "$NEW" "$TMP/later.manifest"
	assertEquals "earlier policy: a later time is left" "unchanged" "$(entries <"$OUT" | jq -r .action)"
	run import -f jsonl --policy always "$NEW" "$TMP/later.manifest"
	assertEquals "always" "changed" "$(entries <"$OUT" | jq -r .action)"
}


# A check that cannot pass on nothing: each way of falling short has a
# status of its own (e4time(8), EXIT STATUS), with -n and without.
test_verification_cannot_pass_on_nothing() {
	local m="$TMP/old.manifest" n=0 name want file args line
	run import "$NEW" "$m"
	assertEquals "the import: $(tail -3 "$ERR")" 0 "$RC"
	# every crtime null (a source without birth times); one of them null;
	# one entry not in the image; one that disagrees
	jq -c 'if .crtime then .crtime = null else . end' "$m" >"$TMP/allnull.manifest"
	jq -c 'if .path == "/hello.txt" then .crtime = null else . end' "$m" >"$TMP/onenull.manifest"
	{ cat "$m"; echo '{"path":"/not/here","crtime":{"sec":0,"nsec":0}}'; } >"$TMP/extra.manifest"
	jq -c 'if .path == "/hello.txt" then .crtime.sec += 1 else . end' "$m" >"$TMP/disagree.manifest"
	head -n 1 "$m" >"$TMP/header.manifest"
	: >"$TMP/empty.manifest"
	while IFS='|' read -r name want file args line; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # args: options, split on purpose
		run_ro "$NEW" import -n $args "$NEW" "$TMP/$file.manifest"
		assertEquals "$name: import -n: $(tail -4 "$ERR")" "$want" "$RC"
		[ -z "$line" ] || assertContains "$name: says why" "$(cat "$ERR")" "$line"
		[ "$name" = disagree ] && continue
		# the same status from an import that writes (every time it
		# could set is there already)
		# shellcheck disable=SC2086
		run import $args "$NEW" "$TMP/$file.manifest"
		assertEquals "$name: import: $(tail -4 "$ERR")" "$want" "$RC"
	done <<'CASES'
verified|0|old||0 without a time
typo map|96|old|--map /typo=/data/share|every entry is under no --map or --strip-prefix
header only|96|header||the manifest has no entry
empty file|96|empty||the manifest has no entry
all null|96|allnull||give no time (null) for a field imported
one null|32|onenull||1 matched entries give no time (null)
one unmatched|64|extra||/not/here: not in this image
part outside the map|64|old|--map /dir=/dir|entries under no --map or --strip-prefix: left out
disagree|1|disagree||entries compared agree to the nanosecond
CASES
	assertEquals "cases run" 9 "$n"
}

# jsonl ends with a summary record: the counts that decide the status.
test_jsonl_summary_record() {
	local m="$TMP/old.manifest" total
	total=$(($(wc -l <"$m") - 1))
	run_ro "$NEW" import -n -f jsonl --map /typo=/x "$NEW" "$m"
	assertEquals 96 "$RC"
	assertEquals "the summary, last" \
		"{\"record\":\"summary\",\"dry_run\":true,\"entries\":$total,\"outside_map\":$total,\"unmatched\":0,\"hinted\":0,\"ambiguous\":0,\"compared\":0,\"null\":0,\"agree\":0,\"changed\":0,\"unchanged\":0,\"refused\":0}" \
		"$(tail -n 1 "$OUT")"
	assertEquals "one summary" 1 "$(grep -c '"record":"summary"' "$OUT")"
	{ cat "$m"; echo '{"path":"/not/here","crtime":null}'; } >"$TMP/extra.manifest"
	run import -f jsonl "$NEW" "$TMP/extra.manifest"
	assertEquals 64 "$RC"
	assertEquals "counts" "$((total + 1)) 0 1 $total 0 false" \
		"$(tail -n 1 "$OUT" | jq -r '"\(.entries) \(.outside_map) \(.unmatched) \(.compared) \(.null) \(.dry_run)"')"
	assertEquals "changed: the inodes of the records changed" \
		"$(entries <"$OUT" | jq -s '[.[] | select(.action == "changed") | .ino] | unique | length')" \
		"$(tail -n 1 "$OUT" | jq .changed)"
	# csv: no summary row
	run_ro "$NEW" import -n -f csv "$NEW" "$TMP/extra.manifest"
	assertEquals "csv: a header and a row per entry" "$((total + 2))" "$(wc -l <"$OUT")"
}

# Ambiguous entries are named as unmatched ones are: ten, then a count.
test_ambiguous_and_unmatched_lines_are_capped() {
	local i n=0
	for i in $(seq 1 15); do
		printf '{"path":"/hello.txt","crtime":{"sec":%d,"nsec":0}}\n' "$i"
		printf '{"path":"/nowhere/%d","crtime":{"sec":%d,"nsec":0}}\n' "$i" "$i"
		n=$((n + 1))
	done >"$TMP/many.manifest"
	assertEquals "entries written" 15 "$n"
	run_ro "$NEW" import -n "$NEW" "$TMP/many.manifest"
	assertEquals "15 ambiguous, 15 unmatched: nothing compared" 96 "$RC"
	assertEquals "ten ambiguous named" 10 "$(grep -c ': ambiguous: manifest line' "$ERR")"
	assertContains "$(cat "$ERR")" "... and 5 more ambiguous"
	assertEquals "ten unmatched named" 10 "$(grep -c ': not in this image$' "$ERR")"
	assertContains "$(cat "$ERR")" "... and 5 more not in this image"
	assertContains "$(cat "$ERR")" "15 unmatched, 15 ambiguous"
}

# "N entries under no --map": only when there are some.
test_left_out_line_only_when_some_are() {
	local all indir
	run import --strip-prefix / "$NEW" "$TMP/old.manifest"
	assertEquals "status: $(tail -3 "$ERR")" 0 "$RC"
	assertNotContains "$(cat "$ERR")" "left out"
	all=$(($(wc -l <"$TMP/old.manifest") - 1))
	indir=$(grep -c '"path":"/dir[/"]' "$TMP/old.manifest")
	run_ro "$NEW" import -n --map /dir=/dir "$NEW" "$TMP/old.manifest"
	assertEquals 64 "$RC"
	assertContains "$(cat "$ERR")" \
		"$((all - indir)) entries under no --map or --strip-prefix: left out"
}

# An NFD name renamed NFC (and the reverse), made and renamed through the
# kernel on a loop-mounted ext4: unmatched, with the image's name.
test_unicode_normalization_hint() {
	local img="$TMP/nf.img" m="$TMP/nf.manifest"
	[ "$CAN_MOUNT" = 1 ] || {
		skip_test "loop mounts do not work here"
		return
	}
	mke2fs -q -F -t ext4 -I 256 "$img" 16M >/dev/null 2>&1 || fail "mke2fs"
	mount -o loop "$img" "$MNT" || fail "mount"
	python3 - "$MNT" <<'PY'
import os, sys, unicodedata as u
d = sys.argv[1]
os.mkdir(os.path.join(d, u.normalize("NFD", "Café")))
for p in ["Café/menu.txt", "naïve.txt"]:
    open(os.path.join(d, u.normalize("NFD", p)), "w").write("x")
for p in ["résumé.txt", "Ångström.txt", "gone.txt"]:
    open(os.path.join(d, u.normalize("NFC", p)), "w").write("x")
PY
	umount "$MNT"
	run export "$img"
	cp "$OUT" "$m"
	mount -o loop "$img" "$MNT" || fail "mount"
	python3 - "$MNT" <<'PY'
import os, sys, unicodedata as u
d = sys.argv[1]
for p, to in [("Café", "NFC"), ("naïve.txt", "NFC"), ("résumé.txt", "NFD")]:
    src = u.normalize("NFD" if to == "NFC" else "NFC", p)
    os.rename(os.path.join(d, src), os.path.join(d, u.normalize(to, p)))
os.unlink(os.path.join(d, "gone.txt"))
PY
	# the names the kernel shows now
	(cd "$MNT" && find . -mindepth 1 | sed 's|^\.||' | sort) >"$TMP/kernel.names"
	umount "$MNT"
	assertNotEquals "NFD and NFC differ in bytes" \
		"$(printf 'Cafe\xcc\x81' | xxd -p)" "$(printf 'Caf\xc3\xa9' | xxd -p)"

	run_ro "$img" import -n "$img" "$m"
	assertEquals "unmatched: $(cat "$ERR")" 64 "$RC"
	assertContains "NFD exported, NFC now" "$(cat "$ERR")" \
		"$(printf '/Cafe\xcc\x81: not in this image; /Caf\xc3\xa9 is, the same name after Unicode normalization')"
	assertContains "under the renamed directory" "$(cat "$ERR")" \
		"$(printf '/Cafe\xcc\x81/menu.txt: not in this image; /Caf\xc3\xa9/menu.txt is')"
	assertContains "NFC exported, NFD now" "$(cat "$ERR")" \
		"$(printf '/r\xc3\xa9sum\xc3\xa9.txt: not in this image; /re\xcc\x81sume\xcc\x81.txt is')"
	assertContains "a name that is gone" "$(cat "$ERR")" \
		"/gone.txt: not in this image"
	assertNotContains "has no hint" "$(cat "$ERR")" "/gone.txt: not in this image;"

	run_ro "$img" import -n -f jsonl "$img" "$m"
	assertEquals "unmatched 5, hinted 4" "5 4" \
		"$(tail -n 1 "$OUT" | jq -r '"\(.unmatched) \(.hinted)"')"
	entries <"$OUT" | jq -r 'select(.hint_path) | .hint_path' | sort >"$TMP/hints"
	assertEquals "four hints" 4 "$(wc -l <"$TMP/hints")"
	assertEquals "every hint is a name the kernel shows" "" \
		"$(comm -23 "$TMP/hints" "$TMP/kernel.names")"
}

# Past the ten unmatched entries named, the count says how many more are
# in the image after Unicode normalization (a tree made NFC by mke2fs -d,
# a manifest of its names made NFD).
test_normalization_hints_counted_past_ten() {
	local n
	rm -rf "$TMP/nfc-tree"
	mkdir -p "$TMP/nfc-tree"
	n=$(python3 - "$TMP/nfc-tree" "$TMP/nfd.manifest" <<'PY'
import json, os, sys, unicodedata as u
d, m = sys.argv[1], sys.argv[2]
n = 0
with open(m, "w") as f:
    for i in range(25):
        name = u.normalize("NFC", "café-%d.txt" % i)
        open(os.path.join(d, name), "w").close()
        f.write(json.dumps({"path": "/" + u.normalize("NFD", name),
                            "crtime": {"sec": i, "nsec": 0}}) + "\n")
        n += 1
    f.write(json.dumps({"path": "/gone-é", "crtime": None}) + "\n")
print(n)
PY
)
	assertEquals "names made" 25 "$n"
	mke2fs -q -F -t ext4 -I 256 -d "$TMP/nfc-tree" "$TMP/nfc.img" 8M \
		>/dev/null 2>&1 || fail "mke2fs -d"
	run_ro "$TMP/nfc.img" import -n "$TMP/nfc.img" "$TMP/nfd.manifest"
	assertEquals "nothing compared: $(tail -3 "$ERR")" 96 "$RC"
	assertEquals "ten named, with their hint" 10 \
		"$(grep -c ' is, the same name after Unicode normalization' "$ERR")"
	assertContains "$(cat "$ERR")" \
		"... and 16 more not in this image (15 of them there after Unicode normalization)"
}

. shunit2
