#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_names.sh --- hostile file names through every output of every
# command that writes names, each parsed back to the exact bytes; and
# no terminal escape sequence written raw to a terminal.
#
# The image: churn-strictatime-clean (images/README-churn.md), whose
# /d/f01../d/f20 (inodes 13..32, each with 5 atime-only updates in the
# journal, so that audit lists them all) are renamed, in the directory
# block, to 3-byte hostile names: | newline CR tab, an ESC sequence, C0
# controls and DEL, backslash, %, quotes, comma, colon, invalid UTF-8
# (bytes, overlong, surrogate), C1 CSI as UTF-8 and as a raw byte, a
# bidi override, NEL; checksums are then fixed (tests/damage_gen fix).
# Each file also gets a user.birth xattr (debugfs ea_set), for backfill.
#
# Parsed back: stat (the filespec line of each block), timeline in
# bodyfile, mactime, jsonl, timesketch, csv and text, timeline --deleted
# jsonl, export, backfill -n --format jsonl and text, audit top files in
# text and json (audit's csv lists transactions, no names), history.
# Every parse must find exactly one row per name with the name's bytes.
# The terminal: every command and format written to a pty (script(1)):
# no C0 control but newline (and the CR the pty adds), no DEL, no C1
# control (raw or UTF-8 encoded).
. "$TOP_SRCDIR/tests/lib.sh"

: "${DAMAGE_GEN:?DAMAGE_GEN must name tests/damage_gen}"

# The names, in hex, of f01..f20.
NAMES_HEX="617c62 610a62 610d62 610962 1b5b6d 01027f 615c62 253743 222722
612c62 fffefd c29b6d 9b316d 613a62 c3a921 e280ae c0af78 eda080 5c7834 2dc285"

suite_setup() {
	require_tools xz debugfs python3 || return 1
	IMG="$TMP/names.img"
	xz -dc "$IMAGES/churn-strictatime-clean.img.xz" >"$IMG" || return 1
	NAMES_HEX="$NAMES_HEX" python3 - "$IMG" <<'EOF' || return 1
import os, struct, subprocess, sys
img = sys.argv[1]
names = [bytes.fromhex(h) for h in os.environ["NAMES_HEX"].split()]
assert len(names) == 20 and all(len(n) == 3 for n in names)
blk = int(subprocess.run(["debugfs", "-R", "blocks <12>", img],
                         capture_output=True, text=True).stdout.split()[0])
bs = 4096
with open(img, "r+b") as f:
    f.seek(blk * bs)
    b = bytearray(f.read(bs))
    off = done = 0
    while off < bs - 12:
        ino, rec, nl, ft = struct.unpack_from("<IHBB", b, off)
        name = bytes(b[off + 8:off + 8 + nl])
        if ino and nl == 3 and name[:1] == b"f" and name[1:].isdigit():
            b[off + 8:off + 11] = names[int(name[1:]) - 1]
            done += 1
        if rec == 0:
            break
        off += rec
    assert done == 20, done
    f.seek(blk * bs)
    f.write(b)
EOF
	"$DAMAGE_GEN" fix "$IMG" || return 1
	local i
	for i in $(seq 13 32); do
		echo "ea_set <$i> user.birth 10000000$i"
	done >"$TMP/ea.cmds"
	debugfs -w -f "$TMP/ea.cmds" "$IMG" >/dev/null 2>&1 || return 1
	# expected: "INO HEXPATH" per renamed file
	i=13
	for h in $NAMES_HEX; do
		echo "$i 2f642f$h"
		i=$((i + 1))
	done >"$TMP/expected"
}

# parse_back FORMAT FILE: "INO HEXPATH" for every row of FILE that is in
# /d/ (sorted), or a line "ERROR ..." when a row does not parse.
parse_back() {
	python3 - "$1" "$2" <<'EOF'
import csv, io, json, re, sys
fmt, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
out = []

def err(msg):
    print("ERROR " + msg)

def text_unescape(s):
    # \\ \n \t \r \xHH (text format, stat, audit, history)
    o = bytearray()
    i = 0
    while i < len(s):
        c = s[i:i + 1]
        if c == b"\\":
            n = s[i + 1:i + 2]
            if n == b"x":
                o += bytes.fromhex(s[i + 2:i + 4].decode())
                i += 4
                continue
            o += {b"\\": b"\\", b"n": b"\n", b"t": b"\t", b"r": b"\r"}[n]
            i += 2
            continue
        o += c
        i += 1
    return bytes(o)

def body_fields(line):
    # bodyfile: \xhh a code point (controls), \XHH a byte that is not
    # UTF-8, \\, \|; | separates
    fields, cur, i = [], bytearray(), 0
    while i < len(line):
        c = line[i:i + 1]
        if c == b"\\":
            n = line[i + 1:i + 2]
            if n == b"x":
                cur += chr(int(line[i + 2:i + 4], 16)).encode("utf-8")
                i += 4
                continue
            if n == b"X":
                cur += bytes.fromhex(line[i + 2:i + 4].decode())
                i += 4
                continue
            if n not in (b"\\", b"|"):
                raise ValueError("bad escape \\" + n.decode("latin-1"))
            cur += n
            i += 2
            continue
        if c == b"|":
            fields.append(bytes(cur))
            cur = bytearray()
        else:
            cur += c
        i += 1
    fields.append(bytes(cur))
    return fields

def json_path(o):
    if "path_hex" in o:
        return bytes.fromhex(o["path_hex"])
    return o["path"].encode("utf-8")

def add(ino, p):
    if p.startswith(b"/d/"):
        out.append("%d %s" % (ino, p.hex()))

lines = data.split(b"\n")
if lines and lines[-1] == b"":
    lines.pop()
try:
    if fmt == "bodyfile":
        if lines[0] != b"# extended bodyfile 3 format":
            err("no header")
        for l in lines[1:]:
            f = body_fields(l)
            if len(f) != 11:
                err("%d fields: %r" % (len(f), l)); continue
            add(int(f[2]), f[1])
    elif fmt == "mactime":
        for l in lines:
            f = l.split(b"|")
            if len(f) != 11:
                err("%d fields: %r" % (len(f), l)); continue
            # mactime decodes %XX (%7C, %25); the rest is as in the
            # bodyfile, and no raw control
            name = re.sub(rb"%([0-9A-Fa-f]{2})",
                          lambda m: bytes.fromhex(m.group(1).decode()), f[1])
            if re.search(rb"[\x00-\x1f\x7f]", name):
                err("raw control in %r" % l)
            add(int(f[2]), body_fields(name.replace(b"|", b"\\|"))[0])
    elif fmt == "timesketch-csv":
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"),
                                           newline="")))
        h = rows[0]
        if h[:3] != ["message", "datetime", "timestamp_desc"]:
            err("no header")
        for r in rows[1:]:
            o = dict(zip(h, r))
            if len(r) != len(h):
                err("%d fields: %r" % (len(r), r)); continue
            add(int(o["inode"]), bytes.fromhex(o["path_hex"]) if o["path_hex"]
                else o["path"].encode("utf-8"))
    elif fmt in ("jsonl", "export", "timesketch", "backfill"):
        for l in lines:
            o = json.loads(l)
            if "e4time_manifest" in o:
                continue
            add(o["inode"] if fmt == "timesketch" else o["ino"], json_path(o))
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(data.decode("latin-1"),
                                           newline="")))
        if rows[0][0] != "path":
            err("no header")
        for r in rows[1:]:
            if len(r) != 14:
                err("%d fields: %r" % (len(r), r)); continue
            add(int(r[1]), r[0].encode("latin-1"))
    elif fmt in ("text", "backfill-text"):
        for l in lines[1:] if fmt == "text" else lines:
            if fmt == "text":
                m = re.match(rb".* (\d+) [-dlcbps?][-rwxsStT]{9} +\d+ (/.*)$", l)
            else:
                m = re.match(rb".*<(\d+)> (/.*?)(: .*)?$", l)
            if not m:
                if fmt == "text":
                    err("row does not parse: %r" % l)
                continue
            add(int(m.group(1)), text_unescape(m.group(2)))
    elif fmt == "stat":
        for blk in data.split(b"\n\n"):
            first = blk.split(b"\n")[0]
            m = re.search(rb"Inode: (\d+) ", blk)
            if not m:
                err("block without an inode: %r" % blk[:80]); continue
            add(int(m.group(1)), text_unescape(first))
    elif fmt == "audit-text":
        top = False
        for l in lines:
            if l.startswith(b"Top files"):
                top = True
                continue
            if top:
                m = re.match(rb"^\s+\d+\s+<(\d+)> (.*)$", l)
                if not m:
                    break
                add(int(m.group(1)), text_unescape(m.group(2)))
    elif fmt == "audit-json":
        o = json.loads(data)
        files = None
        for k in ("top_files", "top", "files"):
            if k in o:
                files = o[k]
        if files is None:
            err("no list of files in %s" % list(o.keys()))
        for f in files or []:
            add(f["ino"], json_path(f))
    elif fmt == "history":
        m = re.match(rb"^History of <(\d+)> (.*)$", lines[0])
        if not m:
            err("first line: %r" % lines[0])
        else:
            add(int(m.group(1)), text_unescape(m.group(2)))
except Exception as e:
    err("%s: %s" % (type(e).__name__, e))
for l in sorted(set(out)):
    print(l)
# timesketch: one line per time, the rest one row per name
if not fmt.startswith("timesketch") and len(out) != len(set(out)):
    err("%d rows for %d names" % (len(out), len(set(out))))
EOF
}

# Outputs known not to give every name back (see the tests that use
# them): a test that finds one of these broken is skipped, loudly, as a
# KNOWN FAILURE instead of failing; once fixed it passes.
KNOWN_BROKEN=" "

# known_or_fail KEY WHAT PROBLEMS: fail, or skip when KEY is known broken.
known_or_fail() {
	[ -z "$3" ] && return 0
	case $KNOWN_BROKEN in
	*" $1 "*) skip_test "KNOWN FAILURE: $2: $3" ;;
	*) fail "$2: $3" ;;
	esac
}

# back_problems FORMAT: what is wrong with $OUT parsed back ("": nothing).
back_problems() {
	parse_back "$1" "$OUT" >"$TMP/got"
	if [ "$RC" != 0 ]; then
		echo "status $RC: $(head -n 3 "$ERR")"
	elif grep -q '^ERROR' "$TMP/got"; then
		echo "rows break: $(grep '^ERROR' "$TMP/got" | head -n 3)"
	elif [ "$(sort "$TMP/expected")" != "$(cat "$TMP/got")" ]; then
		echo "names differ (INO HEXPATH):" \
			"$(diff <(sort "$TMP/expected") "$TMP/got" | grep '^[<>]' | head -n 6 | tr '\n' ' ')"
	fi
}

# check_back FORMAT WHAT [KEY]: $OUT parsed back gives every name exactly.
check_back() {
	known_or_fail "${3:-$1}" "$2" "$(back_problems "$1")"
}

test_timeline_formats_parse_back() {
	local f
	for f in bodyfile mactime jsonl timesketch csv text timesketch-csv; do
		run_ro "$IMG" timeline -f "$f" "$IMG"
		check_back "$f" "timeline -f $f"
	done
	run_ro "$IMG" timeline -d -f jsonl "$IMG"
	check_back jsonl "timeline -d -f jsonl"
}

# TSK's mactime itself: every row of the mactime format survives
# `mactime -b` (one output row for each distinct time of each name), and
# each name comes out escaped as e4time wrote it (mactime decodes only
# %XX: | and % come back raw), which parses back to the exact bytes.
# mactime_problems: what is wrong, "" when nothing.
mactime_problems() {
	run_ro "$IMG" timeline -f mactime "$IMG"
	assertEquals "status: $(head -3 "$ERR")" 0 "$RC"
	mactime -b "$OUT" -d -y -z UTC >"$TMP/mac.csv" 2>"$TMP/mac.err"
	assertEquals "mactime status: $(head -3 "$TMP/mac.err")" 0 "$?"
	python3 - "$OUT" "$TMP/mac.csv" "$TMP/expected" <<'PYEOF'
import csv, io, re, sys
body, macout, expected = sys.argv[1:4]

def unescape(b):
    # the bodyfile's escapes, which mactime leaves as they are
    o, i = bytearray(), 0
    while i < len(b):
        if b[i:i + 1] == b"\\":
            n = b[i + 1:i + 2]
            if n == b"x":
                o += chr(int(b[i + 2:i + 4], 16)).encode("utf-8")
                i += 4
            elif n == b"X":
                o += bytes.fromhex(b[i + 2:i + 4].decode())
                i += 4
            else:
                o += n
                i += 2
        else:
            o += b[i:i + 1]
            i += 1
    return bytes(o)

want = set()
for l in open(body, "rb").read().split(b"\n")[:-1]:
    f = l.split(b"|")
    name = re.sub(rb"%([0-9A-Fa-f]{2})",
                  lambda m: bytes.fromhex(m.group(1).decode()), f[1])
    for t in f[7:11]:
        want.add((int(t), int(f[2]), name))
rows = list(csv.reader(io.StringIO(open(macout, "rb").read()
                                   .decode("utf-8", "surrogateescape"),
                                   newline="")))
assert rows[0][0] == "Date", rows[0]
got = [(int(r[6]), r[7].encode("utf-8", "surrogateescape"))
       for r in rows[1:]]
bad = []
if len(got) != len(want):
    bad.append("%d rows out of mactime, %d distinct times in" %
               (len(got), len(want)))
names = {}
for ino, n in got:
    if re.search(rb"[\x00-\x1f\x7f]", n):
        bad.append("raw control from mactime: %r" % n)
    names.setdefault(ino, set()).add(unescape(n))
for l in open(expected):
    ino, h = l.split()
    if names.get(int(ino)) != {bytes.fromhex(h)}:
        bad.append("<%s>: %r" % (ino, names.get(int(ino))))
print("\n".join(bad))
PYEOF
}

test_mactime_tool_keeps_every_row() {
	command -v mactime >/dev/null || { skip_test "mactime (sleuthkit) not installed"; return; }
	mactime_problems >"$TMP/mac.bad"
	assertEquals "mactime -b: rows and names" "" "$(cat "$TMP/mac.bad")"
}

# plaso's bodyfile parser (tests/plaso_bodyfile.py, an oracle that
# follows plaso/parsers/bodyfile.py line by line): every row read, no
# warning, every UTF-8 name exact; a name that is not UTF-8 arrives with
# \XHH for each byte that is not (plaso holds names as text).
test_plaso_reads_every_name() {
	local f
	for f in "" --deleted; do
		run_ro "$IMG" timeline -f bodyfile $f "$IMG"
		python3 "$TOP_SRCDIR/tests/plaso_bodyfile.py" "$OUT" >"$TMP/plaso"
		assertEquals "plaso: no refusal, warning or stop ($f)" "" \
			"$(grep -v '^ROW ' "$TMP/plaso" | head -n 3)"
		assertEquals "plaso: every row ($f)" "$(($(wc -l <"$OUT") - 1))" \
			"$(grep -c '^ROW ' "$TMP/plaso")"
	done
	python3 - "$TMP/plaso" "$TMP/expected" <<'PYEOF' >"$TMP/plaso.bad"
import sys
got = {}
for l in open(sys.argv[1]):
    f = l.split()
    got.setdefault(f[1], []).append(bytes.fromhex(f[3]))

def shown(b):
    # what plaso holds: the UTF-8 text, each byte that is not UTF-8 as \XHH
    o, i = "", 0
    while i < len(b):
        for n in (4, 3, 2, 1):
            try:
                o += b[i:i + n].decode("utf-8")
                i += n
                break
            except UnicodeDecodeError:
                pass
        else:
            o += "\\X%02X" % b[i]
            i += 1
    return o.encode("utf-8")

for l in open(sys.argv[2]):
    ino, h = l.split()
    want = shown(bytes.fromhex(h))
    if got.get(ino) != [want]:
        print("<%s> %r: plaso reads %r" % (ino, want, got.get(ino)))
PYEOF
	assertEquals "plaso's names" "" "$(cat "$TMP/plaso.bad")"
}

# Timesketch's importer (tests/timesketch_import.py, an oracle of its
# CSV and JSON lines readers): every row of both formats imported, and
# every name there, exact in path (or path_hex), in the message too
# (U+FFFD for bytes that are not UTF-8, as in path).
test_timesketch_imports_every_name() {
	local f
	for f in timesketch timesketch-csv; do
		run_ro "$IMG" timeline -f "$f" "$IMG"
		python3 "$TOP_SRCDIR/tests/timesketch_import.py" \
			"$([ $f = timesketch ] && echo jsonl || echo csv)" "$OUT" >"$TMP/ts"
		assertEquals "$f: every row imported" "" "$(grep -v '^EVENT ' "$TMP/ts" | head -3)"
		python3 - "$TMP/ts" "$TMP/expected" <<'PYEOF' >"$TMP/ts.bad"
import json, sys
names = {}
bad = []
for l in open(sys.argv[1]):
    e = json.loads(l[6:])
    p = e["path"]
    b = bytes.fromhex(e["path_hex"]) if "path_hex" in e else p.encode()
    if e["message"] != "%s (%s)" % (p, e["field"]):
        bad.append("message %r, path %r" % (e["message"], p))
    if p.startswith("/d/"):
        names.setdefault(str(e["inode"]), set()).add(b)
for l in open(sys.argv[2]):
    ino, h = l.split()
    if names.get(ino) != {bytes.fromhex(h)}:
        bad.append("<%s>: %r" % (ino, names.get(ino)))
print("\n".join(bad[:5]))
PYEOF
		assertEquals "$f: names" "" "$(cat "$TMP/ts.bad")"
	done
}

test_export_parses_back() {
	run_ro "$IMG" export "$IMG"
	check_back export "export"
}

test_backfill_dry_run_parses_back() {
	# backfill's jsonl has no path_hex: invalid UTF-8 becomes U+FFFD
	run_ro "$IMG" backfill -n --from xattr:user.birth:epoch -f jsonl "$IMG"
	check_back backfill "backfill -n -f jsonl" backfill-jsonl
}

test_stat_filespec_lines_parse_back() {
	local args=() h p
	for h in $NAMES_HEX; do
		hex2var p "$h"
		args+=("/d/$p")
	done
	run_ro "$IMG" stat "$IMG" "${args[@]}"
	check_back stat "stat"
}

test_audit_top_files_parse_back() {
	run_ro "$IMG" audit -t 20 "$IMG"
	check_back audit-text "audit (text)"
	# audit's json "top" has no path_hex: invalid UTF-8 becomes U+FFFD
	run_ro "$IMG" audit -t 20 -f json "$IMG"
	check_back audit-json "audit -f json"
}

# history's first line, "History of <INO> FILESPEC", writes the
# filespec as given, unescaped (tools/cmd_history.c).
test_history_names_parse_back() {
	local ino=13 h bad=""
	for h in $NAMES_HEX; do
		run_ro "$IMG" history "$IMG" "/d/$(hex2bytes "$h")"
		echo "$ino 2f642f$h" >"$TMP/expected.one"
		parse_back history "$OUT" >"$TMP/got"
		if [ "$RC" != 0 ]; then
			bad="$bad /d/<$h>: status $RC;"
		elif [ "$(cat "$TMP/expected.one")" != "$(cat "$TMP/got")" ]; then
			bad="$bad /d/<$h>: $(head -n 1 "$TMP/got");"
		fi
		ino=$((ino + 1))
	done
	known_or_fail history "history" "$bad"
}

# tty_check ARGS...: e4time ARGS with stdout and stderr on a pty; TTY_BAD
# lists (in hex) the terminal control bytes that got through raw, TTY_RC
# is e4time's exit status (script -e) and TTY_NAMES the number of times
# a file of /d/ is named (/d/ followed by the name, whatever its
# escaping).
tty_check() {
	local cmd q a
	cmd="'$E4TIME'"
	for a in "$@"; do
		printf -v q '%q' "$a"
		cmd="$cmd $q"
	done
	# script(1) runs its command with $SHELL, which need not be bash
	# (CI's is sh): %q quoting ($'...') needs bash.
	SHELL=$BASH script -qec "$cmd" /dev/null </dev/null >"$TMP/tty.out" 2>&1
	TTY_RC=$?
	TTY_NAMES=$(grep -ao '/d/' "$TMP/tty.out" | wc -l)
	python3 - "$TMP/tty.out" <<'EOF' >"$TMP/tty.bad"
import re, sys
d = open(sys.argv[1], "rb").read().replace(b"\r\n", b"\n")
bad = []
for m in re.finditer(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", d):
    bad.append(m.group(0).hex())
# C1 controls as raw bytes that are not part of valid UTF-8
for m in re.finditer(rb"[\x80-\x9f]", d):
    s = max(0, m.start() - 3)
    try:
        d[s:m.end() + 3].decode("utf-8")
    except UnicodeDecodeError:
        chunk = d[s:m.end()]
        if not re.search(rb"[\xc2-\xf4][\x80-\xbf]*$", chunk):
            bad.append(m.group(0).hex())
if bad:
    print(" ".join(sorted(set(bad))))
EOF
	TTY_BAD=$(cat "$TMP/tty.bad")
	check_reports "e4time $* (on a pty)"
}

# tty_ran WHAT STATUS NAMES: fails WHAT unless e4time exited with STATUS
# and named files of /d/ at least NAMES times.
tty_ran() {
	assertEquals "$1 on a terminal: exit status" "$2" "$TTY_RC"
	assertTrue "$1 on a terminal: /d/ named $TTY_NAMES times, not at least $3" \
		"[ $TTY_NAMES -ge $3 ]"
}

# on_tty WHAT STATUS NAMES ARGS...: fails WHAT when a control byte got
# through raw, or as tty_ran.
on_tty() {
	local what=$1 status=$2 names=$3
	shift 3
	tty_check "$@"
	assertEquals "$what on a terminal: raw control bytes" "" "$TTY_BAD"
	tty_ran "$what" "$status" "$names"
}

test_terminal_gets_no_raw_escapes() {
	command -v script >/dev/null || { skip_test "script (util-linux) not installed"; return; }
	local f args=() h p
	for h in $NAMES_HEX; do
		hex2var p "$h"
		args+=("/d/$p")
	done
	on_tty "timeline (default format)" 0 20 timeline "$IMG"
	for f in bodyfile jsonl timesketch text timesketch-csv; do
		on_tty "timeline -f $f" 0 20 timeline -f "$f" "$IMG"
	done
	on_tty "export" 0 20 export "$IMG"
	on_tty "backfill -n" 0 20 backfill -n --from xattr:user.birth:epoch "$IMG"
	on_tty "backfill -n -f jsonl" 0 20 backfill -n --from xattr:user.birth:epoch -f jsonl "$IMG"
	on_tty "stat" 0 20 stat "$IMG" "${args[@]}"
	on_tty "stat, not found (stderr)" 1 1 stat "$IMG" $'/d/\033]0;title\007' $'/\x9b31m'
	on_tty "audit" 0 20 audit -t 20 "$IMG"
	on_tty "audit -f json" 0 20 audit -t 20 -f json "$IMG"
	# (csv: one row per transaction, no names)
	on_tty "audit -f csv" 0 0 audit -f csv "$IMG"
}

test_terminal_history_gets_no_raw_escapes() {
	command -v script >/dev/null || { skip_test "script (util-linux) not installed"; return; }
	tty_check history "$IMG" $'/d/\033[m'
	known_or_fail tty-history "history on a terminal: raw control bytes" "$TTY_BAD"
	tty_ran history 0 1
}

# csv and mactime keep a name's bytes when redirected (csv quotes,
# mactime escapes only %, | and C0), but on a terminal every format's
# controls, C1 controls and invalid bytes become \xHH (lb_flush()).
test_terminal_csv_and_mactime() {
	command -v script >/dev/null || { skip_test "script (util-linux) not installed"; return; }
	local f
	for f in csv mactime jsonl bodyfile; do
		tty_check timeline -f "$f" "$IMG"
		known_or_fail "tty-$f" "timeline -f $f on a terminal: raw control bytes" "$TTY_BAD"
		tty_ran "timeline -f $f" 0 20
	done
}

# Names that fake a status: files the kernel wrote, named as e4time's
# suffixes read ("live (deleted)", "a (journal tid 5)", ...), next to a
# file "live" that debugfs rm deletes (its name stays in slack, so the
# deleted row is "/s/live (deleted)").  In text, bodyfile and mactime the
# '(' of such a name's suffix is \x28: every row, its suffixes stripped
# from the end and its escapes undone, gives back the name, inode and
# status jsonl gives, and no two rows print the same.
test_names_that_fake_a_status() {
	if ! can_mount; then
		skip_test "loop mounts not available (root and loop devices)"
		return
	fi
	local img="$TMP/fake.img" mnt f n
	truncate -s 8M "$img"
	mkfs.ext4 -q -F -b 1024 -O ^metadata_csum "$img" >/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "mount"; return; }
	mkdir "$mnt/s"
	for n in "live" "live (deleted)" "b (orphan)" "c (deleted-realloc)" \
		"d (name only)" "e (deleted, no inode)" "f (earlier file)" \
		"g (journal tid 5)" "h (journal tid 5) (deleted)" "i (deleted" \
		"j (journal tid x)" "k(deleted)"; do
		echo "$n" >"$mnt/s/$n"
	done
	sync
	umount "$mnt"
	rmdir "$mnt"
	debugfs -w -R "rm /s/live" "$img" >/dev/null 2>&1
	run_ro "$img" timeline -d -f jsonl "$img"
	jq -r 'select(.path | startswith("/s/")) |
		"\(.ino) \(.status) \(.path | @base64)"' "$OUT" |
		sort >"$TMP/fake.want"
	assertEquals "11 live rows, 1 deleted" "11 1" \
		"$(grep -c ' live ' "$TMP/fake.want") $(grep -c ' deleted ' "$TMP/fake.want")"
	for f in text bodyfile mactime; do
		run_ro "$img" timeline -d -f "$f" "$img"
		assertEquals "$f: $(head -3 "$ERR")" 0 "$RC"
		assertEquals "$f: rows parse back" "$(cat "$TMP/fake.want")" \
			"$(python3 - "$f" "$OUT" <<'PYEOF'
import base64, re, sys
fmt, path = sys.argv[1], sys.argv[2]
SUF = re.compile(rb" \((orphan|deleted|deleted-realloc|name only|"
                 rb"deleted, no inode|earlier file|journal tid \d+)\)$")
def unesc(s, code_point):
    o, i = bytearray(), 0
    while i < len(s):
        if s[i:i + 1] == b"\\":
            n = s[i + 1:i + 2]
            if n in (b"x", b"X"):
                v = int(s[i + 2:i + 4], 16)
                o += chr(v).encode() if n == b"x" and code_point else bytes([v])
                i += 4
                continue
            o += {b"n": b"\n", b"t": b"\t", b"r": b"\r"}.get(n, n)
            i += 2
            continue
        o += s[i:i + 1]
        i += 1
    return bytes(o)
out = []
for l in open(path, "rb").read().split(b"\n"):
    if fmt == "text":
        m = re.match(rb".* (\d+) [-dlcbps?][-rwxsStT]{9} +\d+ (/s/.*)$", l)
        if not m:
            continue
        ino, p = m.group(1), m.group(2)
    else:
        f = l.split(b"|")
        if len(f) != 11 or not f[1].startswith(b"/s/"):
            continue
        ino, p = f[2], f[1]
        if fmt == "mactime":
            p = re.sub(rb"%([0-9A-F]{2})", lambda m: bytes.fromhex(m.group(1).decode()), p)
    status = "live"
    while True:
        m = SUF.search(p)
        if not m:
            break
        if status == "live" and not m.group(1).startswith(b"journal"):
            status = m.group(1).decode()
        p = p[:m.start()]
    name = unesc(p, fmt != "text")
    out.append("%s %s %s" % (ino.decode(), status,
                             base64.b64encode(name).decode()))
print("\n".join(sorted(out)))
PYEOF
)"
		assertEquals "$f: every row differs" 12 \
			"$(grep ' /s/\|^[^|]*|/s/' "$OUT" | sed 's/^.* \([0-9]* [-a-z]\{10\} *[0-9]* \/s\/\)/\1/' | sort -u | grep -c .)"
	done
	run_ro "$img" timeline -d -f text "$img"
	assertContains "$(cat "$OUT")" '/s/live \x28deleted)'
	assertContains "$(cat "$OUT")" '/s/live (deleted)'
	assertContains "$(cat "$OUT")" '/s/h (journal tid 5) \x28deleted)'
	assertContains "$(cat "$OUT")" '/s/i (deleted'
}

# fscrypt: an encrypted directory made by the kernel (v2 policy, AES-256
# names, the ioctls from Python), files with short and long names (a
# ciphertext over 149 bytes is abbreviated with its SHA-256), in a
# one-block directory and an htree, on a filesystem with dir_index (the
# kernel then puts the dirhash in the name) and one without; the key
# removed, `find` on the mount lists the no-key names: e4time's paths are
# the same, the encrypted rows say so (jsonl "encrypted", csv column),
# and a deleted entry's name in slack is a no-key name too.
FSC_PY="$TOP_SRCDIR/tests/fscrypt.py"

# nokey_case NAME MKFS_FEATURES: build, list without the key, compare.
nokey_case() {
	local img="$TMP/$1.img" mnt id i ino gone
	truncate -s 16M "$img"
	mkfs.ext4 -q -F -b 1024 -O "$2" "$img" >/dev/null 2>&1
	mnt=$(mktemp -d "$TMP/mnt.XXXXXX")
	mount -o loop "$img" "$mnt" || { fail "$1: mount"; return; }
	id=$(python3 "$FSC_PY" add "$mnt") && mkdir "$mnt/secret" &&
		python3 "$FSC_PY" set "$mnt/secret" "$id" || {
		umount "$mnt"
		skip_test "$1: fscrypt refused here"
		return
	}
	mkdir "$mnt/secret/sub"
	echo a >"$mnt/secret/a"
	echo gone >"$mnt/secret/gone_soon"
	echo z >"$mnt/secret/zz"
	echo l >"$mnt/secret/$(printf 'L%.0s' $(seq 1 200))"
	echo m >"$mnt/secret/$(printf 'M%.0s' $(seq 1 120))"
	for i in $(seq 1 60); do echo "$i" >"$mnt/secret/sub/file_number_$i"; done
	ino=$(stat -c %i "$mnt/secret/gone_soon")
	sync
	python3 "$FSC_PY" remove "$mnt" "$id"
	echo 2 >/proc/sys/vm/drop_caches
	(cd "$mnt" && find secret -printf '/%p %i\n') | sort >"$TMP/$1.find"
	umount "$mnt"
	rmdir "$mnt"
	assertEquals "$1: entries listed" 67 "$(grep -c . "$TMP/$1.find")"
	run_ro "$img" timeline -f jsonl "$img"
	assertEquals "$1: $(head -3 "$ERR")" 0 "$RC"
	assertEquals "$1: paths as find lists them without the key" \
		"$(cat "$TMP/$1.find")" \
		"$(jq -r 'select(.path | startswith("/secret")) | "\(.path) \(.ino)"' "$OUT" | sort)"
	assertEquals "$1: every row in it encrypted" 67 \
		"$(jq -r 'select(.path | startswith("/secret")) | select(.encrypted)' "$OUT" | grep -c '^{')"
	assertEquals "$1: no other" 67 "$(grep -c '"encrypted":true' "$OUT")"
	run_ro "$img" timeline -f csv "$img"
	assertEquals "$1: csv column" "encrypted true false" \
		"$(head -1 "$OUT" | tr -d '\r' | awk -F, '{print $NF}') $(grep -c ',true.$' "$OUT" | sed 's/^67$/true/') $(grep '^/lost+found,' "$OUT" | tr -d '\r' | awk -F, '{print $NF}')"
	# unlink /secret/gone_soon as ext2fs_unlink would (merge its record
	# into the one before, free its inode): its no-key name from slack
	gone=$(grep " $ino\$" "$TMP/$1.find")
	assertNotNull "$1: the file to delete" "$gone"
	python3 - "$img" "$ino" <<'PYEOF'
import struct, subprocess, sys
img, ino = sys.argv[1], int(sys.argv[2])
blk = int(subprocess.run(["debugfs", "-R", "blocks /secret", img],
                         capture_output=True, text=True).stdout.split()[0])
with open(img, "r+b") as f:
    f.seek(blk * 1024)
    b = bytearray(f.read(1024))
    off = prev = 0
    while off < 1024:
        i, rl = struct.unpack_from("<IH", b, off)
        if i == ino:
            struct.pack_into("<H", b, prev + 4,
                             struct.unpack_from("<H", b, prev + 4)[0] + rl)
            break
        prev, off = off, off + rl
    else:
        sys.exit("entry not found")
    f.seek(blk * 1024)
    f.write(b)
PYEOF
	debugfs -w -R "kill_file <$ino>" "$img" >/dev/null 2>&1
	run_ro "$img" timeline -d -f jsonl "$img"
	assertEquals "$1: the deleted no-key name" \
		"${gone% *} $ino deleted slack true" \
		"$(jq -r 'select(.status == "deleted") | "\(.path) \(.ino) \(.status) \(.name_source) \(.encrypted)"' "$OUT")"
}

test_encrypted_dir_nokey_names() {
	if ! can_mount || [ ! -e /sys/fs/ext4/features/encryption ]; then
		skip_test "loop mounts or ext4 encryption not available"
		return
	fi
	nokey_case enc-dirindex encrypt,^metadata_csum
	nokey_case enc-linear encrypt,^dir_index
}

. shunit2
