#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_reports.sh --- the report formats of stat, journal, audit,
# history, backfill and import: each command in text, jsonl and csv (and
# audit's json) on the bundled images, the jsonl and csv parsed back (python3 json, csv) and
# checked: the keys and columns e4time(8) lists, and values that agree
# with the text output (times to the nanosecond, inode numbers, counts)
# and with each other; hostile names stay escaped; a bad --format names
# the formats the command takes.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	local n
	for n in ext4-4k churn-strictatime-live churn-fastcommit-live \
		samba-dosattrib; do
		unpack "$n" >/dev/null || return 1
	done
	CHECK="$TMP/check.py"
	cat >"$CHECK" <<-'PY'
	import csv, io, json, re, sys

	def fail(msg):
	    print(msg)
	    sys.exit(1)

	def eq(what, want, got):
	    if want != got:
	        fail("%s: want %r, got %r" % (what, want, got))

	def jsonl(path):
	    with open(path, "rb") as f:
	        return [json.loads(l) for l in f.read().decode().splitlines()]

	def csv_rows(path, header):
	    with open(path, "rb") as f:
	        data = f.read()
	    if not data.endswith(b"\r\n"):
	        fail("csv: lines must end in CR LF")
	    rows = list(csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")))
	    eq("csv header", header, rows[0])
	    return [dict(zip(rows[0], r)) for r in rows[1:]]

	def text(path):
	    with open(path, "rb") as f:
	        return f.read().decode("utf-8", "surrogateescape")

	OBJ_LISTS = ("blocks", "fc_inodes")  # arrays of objects: their number

	def csv_val(v, key=None):
	    # a jsonl value as csv writes it
	    if key in OBJ_LISTS and isinstance(v, list):
	        return str(len(v))
	    if v is None:
	        return ""
	    if v is True or v is False:
	        return "1" if v else "0"
	    if isinstance(v, dict) and "iso" in v:
	        return v["iso"]
	    if isinstance(v, list):
	        return " ".join(str(x) for x in v)
	    return str(v)

	def same_row(what, rec, row, cols):
	    for c in cols:
	        if c in rec:
	            v = rec[c]
	        elif "changes" in rec and c in rec["changes"]:
	            v = rec["changes"][c]
	        else:
	            v = None
	        eq("%s: column %s" % (what, c), csv_val(v, c), row[c])

	FIELDS = ["atime", "mtime", "ctime", "crtime", "dtime"]
	STAT_KEYS = (["record", "spec", "ino", "type", "mode", "flags", "uid", "gid",
	              "size", "links", "inode_size", "extra_isize"] +
	             [k for f in FIELDS for k in (f, f + "_raw")] +
	             ["csum_bad", "extra_isize_bad", "orphan_list", "in_use"])

	def check_stat(txt, jl, cs, specs_file):
	    t = text(txt)
	    blocks = t.split("\n\n")
	    recs = jsonl(jl)
	    specs = open(specs_file, "rb").read().split(b"\0")[:-1]
	    eq("stat: records", len(specs), len(recs))
	    eq("stat: text blocks", len(specs), len(blocks))
	    rows = csv_rows(cs, STAT_KEYS[1:])
	    eq("stat: csv rows", len(specs), len(rows))
	    for spec, rec, blk, row in zip(specs, recs, blocks, rows):
	        keys = [k for k in rec if not k.startswith("spec_")]
	        eq("stat: keys", STAT_KEYS, keys)
	        eq("stat: record", "inode", rec["record"])
	        try:
	            s = spec.decode()
	            eq("stat: spec", s, rec["spec"])
	            if "spec_hex" in rec:
	                fail("stat: spec_hex on valid UTF-8")
	        except UnicodeDecodeError:
	            eq("stat: spec_hex", spec.hex(), rec["spec_hex"])
	            eq("stat: spec_utf8", False, rec["spec_utf8"])
	        eq("stat: csv spec (bytes)", spec,
	           row["spec"].encode("utf-8", "surrogateescape"))
	        m = re.search(r"Inode: (\d+)   Type: (\S+)   Mode: (\d+)", blk)
	        eq("stat: ino", int(m.group(1)), rec["ino"])
	        eq("stat: type", m.group(2), rec["type"])
	        eq("stat: mode", m.group(3), rec["mode"])
	        m = re.search(r"User: (\d+)   Group: (\d+)   Size: (\d+)   Links: (\d+)", blk)
	        eq("stat: uid gid size links", [int(x) for x in m.groups()],
	           [rec["uid"], rec["gid"], rec["size"], rec["links"]])
	        for f in FIELDS:
	            m = re.search(r"^  %s: +(.*?) +(0x[0-9a-f:]+)" % f, blk, re.M)
	            if m and re.match(r"\d{4}-", m.group(1)):
	                eq("stat: %s iso" % f, m.group(1), rec[f]["iso"])
	                sec, nsec = rec[f]["sec"], rec[f]["nsec"]
	                eq("stat: %s sec.nsec" % f, m.group(1)[20:29], "%09d" % nsec)
	            else:
	                eq("stat: %s shown" % f, None, rec[f])
	            eq("stat: %s raw" % f, m.group(2) if m else None, rec[f + "_raw"])
	        same_row("stat csv", rec, row, [c for c in STAT_KEYS[1:] if c != "spec"])

	JT_KEYS = ["tid", "state", "committed", "csum", "commit_time", "first_block",
	           "journal_blocks", "blocks", "revoked", "fc_inodes"]

	def check_journal(txt, jl, cs):
	    t = text(txt)
	    recs = jsonl(jl)
	    n = int(re.search(r"Transactions found: (\d+)", t).group(1))
	    eq("journal: first record", ["journal"], list(recs[0]))
	    eq("journal: journal keys", ["internal", "blocksize", "maxlen", "first",
	       "log_end", "fc_blocks", "sequence", "start", "csum", "live",
	       "features", "uuid"], list(recs[0]["journal"]))
	    trans = recs[1:]
	    eq("journal: transactions", n, len(trans))
	    lines = [l for l in t.splitlines() if l.startswith("tid ")]
	    eq("journal: text rows", n, len(lines))
	    rows = csv_rows(cs, JT_KEYS)
	    eq("journal: csv rows", n, len(rows))
	    for rec, line, row in zip(trans, lines, rows):
	        eq("journal: keys", JT_KEYS, list(rec))
	        w = line.split()
	        eq("journal: tid", int(w[1]), rec["tid"])
	        eq("journal: state", w[2], rec["state"])
	        if rec["commit_time"]:
	            eq("journal: commit time", w[3], rec["commit_time"])
	        eq("journal: copies", int(re.search(r"(\d+) copies", line).group(1)),
	           len(rec["fc_inodes"] if rec["state"] == "fast_commit" else rec["blocks"]))
	        eq("journal: csum", re.search(r"csum (\S+)", line).group(1), rec["csum"])
	        same_row("journal csv", rec, row, JT_KEYS)

	CHANGES = ["created", "deleted", "crtime", "mtime", "ctime", "atime", "other"]
	AT_KEYS = ["record", "tid", "state", "commit_time", "journal_blocks",
	           "itable_blocks", "changes", "atime_only"]
	SUM_KEYS = ["record", "inode_updates", "atime_only", "atime_only_transactions",
	            "atime_only_blocks", "relatime_would_skip", "journal_blocks",
	            "baseline_blocks", "disk_baselines", "unusable_blocks", "changes",
	            "advice"]

	def check_audit(txt, jl, cs, js):
	    t = text(txt)
	    recs = jsonl(jl)
	    doc = json.load(open(js))
	    kinds = [r["record"] for r in recs]
	    nt = kinds.count("transaction")
	    eq("audit: record order", ["journal"] + ["transaction"] * nt +
	       ["summary"] + ["top"] * kinds.count("top"), kinds)
	    j = dict(recs[0]); del j["record"]
	    eq("audit: journal record = json journal", doc["journal"], j)
	    trans = recs[1:1 + nt]
	    eq("audit: transactions", len(doc["transactions"]), nt)
	    rows = csv_rows(cs, AT_KEYS[1:6] + CHANGES + ["atime_only"])
	    eq("audit: csv rows", nt, len(rows))
	    lines = [l for l in t.splitlines() if re.match(r"\d+ ", l)]
	    eq("audit: text rows", nt, len(lines))
	    for rec, d, row, line in zip(trans, doc["transactions"], rows, lines):
	        eq("audit: transaction keys", AT_KEYS, list(rec))
	        eq("audit: changes keys", CHANGES, list(rec["changes"]))
	        for k in ("tid", "state", "commit_time", "itable_blocks", "atime_only", "changes"):
	            eq("audit: %s = json" % k, d[k], rec[k])
	        eq("audit: journal_blocks = json blocks", d["blocks"], rec["journal_blocks"])
	        w = line.split()
	        eq("audit: text tid", int(w[0]), rec["tid"])
	        eq("audit: text changes", [int(x) for x in w[-7:] if x.isdigit()][-7:]
	           if not line.endswith("atime only") else [int(x) for x in w[-9:-2]],
	           [rec["changes"][c] for c in CHANGES])
	        same_row("audit csv", rec, row, list(row))
	    s = recs[1 + nt]
	    eq("audit: summary keys", SUM_KEYS, list(s))
	    for k in SUM_KEYS[1:-1]:
	        eq("audit: summary %s = json" % k, doc["summary"][k], s[k])
	    eq("audit: advice = json", doc["advice"], s["advice"])
	    eq("audit: text inode updates",
	       int(re.search(r"inode updates: +(\d+)", t).group(1)), s["inode_updates"])
	    for c in CHANGES:
	        eq("audit: text %s" % c,
	           int(re.search(r"^    %s +(\d+)$" % c, t, re.M).group(1)),
	           s["changes"][c])
	    tops = recs[2 + nt:]
	    eq("audit: tops", len(doc["top"]), len(tops))
	    for i, (r, d) in enumerate(zip(tops, doc["top"])):
	        eq("audit: top rank", i + 1, r["rank"])
	        for k in d:
	            eq("audit: top %s" % k, d[k], r[k])

	HC_KEYS = ["record", "ino", "path", "source", "tid", "state", "commit_time",
	           "change", "groups", "links", "mode", "size"] + FIELDS + ["crtime_changed"]

	HCLASS = {"first copy": "first", "crtime rewritten": "crtime",
	          "data change": "mtime", "metadata change": "ctime",
	          "atime only": "atime", "other bytes change": "other"}
	HGROUP = {"size": "size/i_blocks", "blocks": "block map",
	          "mode": "mode/owner/links/flags", "xattr": "xattrs",
	          "csum": "checksum", "version": "i_version",
	          "other": "other bytes"}
	HGROUP.update({g: g for g in ("atime", "mtime", "ctime", "crtime",
	                              "dtime", "generation")})

	def check_history(txt, jl, cs):
	    t = text(txt)
	    recs = jsonl(jl)
	    eq("history: heading keys", ["record", "ino", "path"], list(recs[0]))
	    m = re.match(r"History of <(\d+)> (.*)", t)
	    eq("history: heading ino", int(m.group(1)), recs[0]["ino"])
	    eq("history: heading path", m.group(2), recs[0]["path"])
	    copies = recs[1:-1]
	    s = recs[-1]
	    eq("history: summary", ["record", "ino", "copies", "crtime_changes"], list(s))
	    eq("history: copies", s["copies"], len(copies))
	    heads = re.findall(r"^(tid (\d+) (\w+)|on disk).*?: (first copy|unchanged|[^;\n]+)(?:; changed: (.*))?$", t, re.M)
	    eq("history: text copies", len(copies), len(heads))
	    rows = csv_rows(cs, HC_KEYS[1:])
	    eq("history: csv rows", len(copies), len(rows))
	    textblocks = re.split(r"^(?=tid |on disk)", t, flags=re.M)[1:]
	    crt = 0
	    prev = None
	    for rec, h, blk, row in zip(copies, heads, textblocks, rows):
	        eq("history: copy keys", HC_KEYS, list(rec))
	        eq("history: copy record", "copy", rec["record"])
	        if h[0] == "on disk":
	            eq("history: source", "disk", rec["source"])
	        else:
	            eq("history: tid", int(h[1]), rec["tid"])
	            eq("history: state", h[2], rec["state"])
	        ch = HCLASS.get(h[3], h[3])
	        eq("history: change", ch, rec["change"])
	        # the label lists exactly the groups that changed, no class
	        # word that reads as a field
	        got = h[4].split(", ") if h[4] else []
	        eq("history: changed groups", [HGROUP[g] for g in rec["groups"]], got)
	        if prev is not None and rec["change"] not in ("first", "unchanged"):
	            iso = lambda r, f: r[f]["iso"] if r[f] else None
	            differ = [f for f in FIELDS if iso(rec, f) != iso(prev, f)]
	            eq("history: times labelled changed", differ,
	               [g for g in got if g in FIELDS])
	        prev = rec
	        m = re.search(r"links (\d+), mode (\d+), size (\d+)", blk)
	        eq("history: links mode size", [int(m.group(1)), m.group(2), int(m.group(3))],
	           [rec["links"], rec["mode"], rec["size"]])
	        for f in FIELDS:
	            m = re.search(r"^  %s +(\S+)" % f, blk, re.M)
	            eq("history: %s" % f, m.group(1) if m else None,
	               rec[f]["iso"] if rec[f] else None)
	        crt += rec["crtime_changed"]
	        same_row("history csv", rec, row, HC_KEYS[1:])
	    eq("history: crtime changes", crt, s["crtime_changes"])

	def path_bytes(rec):
	    if "path_hex" in rec:
	        return bytes.fromhex(rec["path_hex"])
	    return rec["path"].encode()

	def csv_bytes(v):
	    return v.encode("utf-8", "surrogateescape")

	# the keys of a record (jsonl) in the order of the columns (csv)
	def same_rows(what, recs, rows, cols):
	    eq("%s: csv rows" % what, len(recs), len(rows))
	    for rec, row in zip(recs, rows):
	        keys = [k for k in rec if k not in ("path_hex", "path_utf8")]
	        eq("%s: keys in order" % what, [c for c in cols if c in keys], keys)
	        if "path_hex" not in rec and "\ufffd" in rec["path"]:
	            # import's jsonl has no path_hex, as it never had: csv
	            # keeps the bytes jsonl turned into U+FFFD
	            eq("%s: csv path" % what, rec["path"],
	               csv_bytes(row["path"]).decode("utf-8", "replace"))
	        else:
	            eq("%s: csv path" % what, path_bytes(rec), csv_bytes(row["path"]))
	        same_row(what + " csv", rec, row, cols[1:])

	BF_COLS = ["path", "ino", "action", "reason", "detail", "source", "xattr",
	           "version", "crtime", "source_time"]
	BF_REASONS = {"no_xattr": "no xattr", "no_create_time": "no create time in it",
	              "invalid_value": "invalid value", "not_earlier": "not earlier",
	              "crtime_already_set": "crtime already set",
	              "already_equal": "already equal",
	              "inode_too_small": "inode too small", "unreadable": "unreadable"}

	def check_backfill(txt, txterr, jl, cs):
	    recs = jsonl(jl)
	    rows = csv_rows(cs, BF_COLS)
	    same_rows("backfill", recs, rows, BF_COLS)
	    ch = [r for r in recs if r["action"] == "would_change"]
	    sk = [r for r in recs if r["action"] == "skipped"]
	    eq("backfill: actions", len(recs), len(ch) + len(sk))
	    lines = text(txt).splitlines()
	    eq("backfill: text lines", len(ch), len(lines))
	    for r, l in zip(ch, lines):
	        m = re.match(r"would set (.*) <(\d+)>: crtime (\S+) -> (\S+) \((\S+)( v(\d+))?\)$", l)
	        if not m:
	            fail("backfill: text line %r" % l)
	        eq("backfill: text ino", r["ino"], int(m.group(2)))
	        eq("backfill: text crtime", r["crtime"]["iso"], m.group(3))
	        eq("backfill: text source_time", r["source_time"]["iso"], m.group(4))
	        eq("backfill: text source", r["source"], m.group(5))
	        eq("backfill: text version", r.get("version"),
	           int(m.group(7)) if m.group(7) else None)
	    e = text(txterr)
	    m = re.search(r"backfill from \S+: (\d+) files scanned, (\d+) would change(; skipped: (.*))?$", e, re.M)
	    if not m:
	        fail("backfill: no summary in %r" % e)
	    eq("backfill: scanned", len(recs), int(m.group(1)))
	    eq("backfill: would change", len(ch), int(m.group(2)))
	    skipped = {}
	    for part in (m.group(4) or "").split(", "):
	        if part:
	            n, why = part.split(" ", 1)
	            skipped[why] = int(n)
	    want = {}
	    for r in sk:
	        want[BF_REASONS[r["reason"]]] = want.get(BF_REASONS[r["reason"]], 0) + 1
	    eq("backfill: skipped by reason", want, skipped)

	IM_COLS = ["path", "line", "ino", "action", "field", "from", "to", "detail"]

	def check_import(txt, txterr, jl, cs):
	    recs = jsonl(jl)
	    # the last record is the summary (no csv row), the only one
	    # with a "record" key
	    summary = recs.pop() if recs else {}
	    eq("import: the summary last", "summary", summary.get("record"))
	    eq("import: one summary", [], [r for r in recs if "record" in r])
	    rows = csv_rows(cs, IM_COLS)
	    same_rows("import", recs, rows, IM_COLS)
	    ch = [r for r in recs if r["action"] == "would_change"]
	    lines = text(txt).splitlines()
	    eq("import: text lines", len(ch), len(lines))
	    for r, l in zip(ch, lines):
	        m = re.match(r"would set (.*) <(\d+)>: (\w+) (\S+) -> (\S+)$", l)
	        if not m:
	            fail("import: text line %r" % l)
	        eq("import: text", [r["ino"], r["field"], r["from"], r["to"]],
	           [int(m.group(2)), m.group(3), m.group(4), m.group(5)])
	    e = text(txterr)
	    m = re.search(r"import: (\d+) entries, (\d+) would change, (\d+) unchanged, "
	                  r"(\d+) refused, (\d+) unmatched, (\d+) ambiguous", e)
	    if not m:
	        fail("import: no summary in %r" % e)
	    n = lambda a: len([r for r in recs if r["action"] == a])
	    eq("import: would change (inodes)", len(set(r["ino"] for r in ch)),
	       int(m.group(2)))
	    eq("import: unchanged, refused, unmatched, ambiguous",
	       [n("unchanged"), n("refused"), n("unmatched"), n("ambiguous")],
	       [int(m.group(i)) for i in range(3, 7)])
	    eq("import: unmatched named", n("unmatched"),
	       len(re.findall(r"not in this image$", e, re.M)))
	    eq("import: the summary's counts",
	       [len(set(r["ino"] for r in ch)), n("unchanged"), n("refused"),
	        n("unmatched"), n("ambiguous"), 0, True],
	       [summary.get(k) for k in ("changed", "unchanged", "refused",
	        "unmatched", "ambiguous", "outside_map", "dry_run")])
	    eq("import: entries", int(m.group(1)), summary.get("entries"))
	    if not ch or not n("unmatched"):
	        fail("import: the test wants changed and unmatched entries")

	cmd = sys.argv[1]
	globals()["check_" + cmd](*sys.argv[2:])
	PY
}

# fmt3 IMAGE ARGS...: e4time ARGS in text, jsonl and csv, into
# $TMP/r.text, r.jsonl, r.csv; each must exit 0.
fmt3() {
	local img=$1 f
	shift
	for f in text jsonl csv; do
		run_ro "$img" "$@" -f "$f"
		assertEquals "$* -f $f: $(head -3 "$ERR")" 0 "$RC"
		cp "$OUT" "$TMP/r.$f"
	done
}

# fmt3w STATUS IMAGE ARGS...: as fmt3 for a writing command's dry run
# (-n), each run exiting STATUS; stderr kept too (r.text.err).
fmt3w() {
	local want=$1 img=$2 f
	shift 2
	for f in text jsonl csv; do
		run_ro "$img" "$@" -f "$f"
		assertEquals "$* -f $f: $(head -3 "$ERR")" "$want" "$RC"
		cp "$OUT" "$TMP/r.$f"
		cp "$ERR" "$TMP/r.$f.err"
	done
}

check() {
	local rc
	python3 "$CHECK" "$@" >"$TMP/check.out" 2>&1
	rc=$?
	assertEquals "check $1: $(head -20 "$TMP/check.out")" 0 "$rc"
}

test_stat() {
	local img="$TMP/ext4-4k.img" hex
	local -a specs=(/ '<2>' '<11>' /hello.txt /dir/sub/deep.txt)
	# every hostile name of /names (invalid UTF-8, controls, quotes, ...)
	local p
	while read -r hex _; do
		hex2var p "$hex"
		specs+=("$p")
	done < <(truth_lines ext4-4k | awk '$1 ~ /^2f6e616d65732f/')
	printf '%s\0' "${specs[@]}" >"$TMP/specs"
	fmt3 "$img" stat "$img" "${specs[@]}"
	check stat "$TMP/r.text" "$TMP/r.jsonl" "$TMP/r.csv" "$TMP/specs"
}

test_journal() {
	local img
	for img in "$TMP/churn-fastcommit-live.img" "$TMP/churn-strictatime-live.img"; do
		fmt3 "$img" journal --stale "$img"
		check journal "$TMP/r.text" "$TMP/r.jsonl" "$TMP/r.csv"
	done
}

test_audit() {
	local img
	for img in "$TMP/churn-strictatime-live.img" "$TMP/churn-fastcommit-live.img"; do
		fmt3 "$img" audit -t 5 "$img"
		run_ro "$img" audit -t 5 -f json "$img"
		assertEquals "audit -f json (alias): $(head -3 "$ERR")" 0 "$RC"
		check audit "$TMP/r.text" "$TMP/r.jsonl" "$TMP/r.csv" "$OUT"
	done
}

test_history() {
	local img spec
	for img in "$TMP/churn-strictatime-live.img" "$TMP/churn-fastcommit-live.img"; do
		for spec in '<13>' /d/f02; do
			fmt3 "$img" history -a "$img" "$spec"
			check history "$TMP/r.text" "$TMP/r.jsonl" "$TMP/r.csv"
		done
	done
}

# A hostile name in history's heading: escaped in text, a JSON string
# (with path_hex when not UTF-8) in jsonl, its bytes in csv.
test_history_hostile_names() {
	local img="$TMP/ext4-4k.img" hex name rc
	while read -r hex _; do
		name=$(hex2bytes "$hex")
		fmt3 "$img" history "$img" "$name"
		python3 - "$TMP/r.jsonl" "$TMP/r.csv" "$hex" >"$TMP/check.out" 2>&1 <<-'PY'
		import csv, io, json, sys
		name = bytes.fromhex(sys.argv[3])
		h = json.loads(open(sys.argv[1], "rb").readline())
		try:
		    assert h["path"] == name.decode() and "path_hex" not in h, h
		except UnicodeDecodeError:
		    assert h["path_hex"] == name.hex() and h["path_utf8"] is False, h
		data = open(sys.argv[2], "rb").read().decode("utf-8", "surrogateescape")
		rows = list(csv.reader(io.StringIO(data, newline="")))
		assert len(rows) > 1 and all(r[1].encode("utf-8", "surrogateescape") == name
		                             for r in rows[1:]), rows
		PY
		rc=$?
		assertEquals "history $hex: $(cat "$TMP/check.out")" 0 "$rc"
		assertEquals "text heading escaped" 0 \
			"$(head -n 1 "$TMP/r.text" | LC_ALL=C grep -c '[[:cntrl:]]')"
	done < <(truth_lines ext4-4k | awk '$1 ~ /^2f6e616d65732f/')
}

test_backfill() {
	local img p t
	for img in "$TMP/samba-dosattrib.img" "$TMP/ext4-4k.img"; do
		for p in earlier missing always; do
			fmt3w 0 "$img" backfill -n "$img" --from dosattrib --policy "$p"
			check backfill "$TMP/r.text" "$TMP/r.text.err" "$TMP/r.jsonl" "$TMP/r.csv"
		done
	done
	# the records come in the same order whatever the threads
	img="$TMP/samba-dosattrib.img"
	for f in jsonl csv; do
		for t in 1 2; do
			run_ro "$img" backfill -n --threads "$t" -f "$f" "$img" --from dosattrib
			cp "$OUT" "$TMP/t$t"
		done
		assertTrue "backfill -f $f: --threads 1 and 2 agree" "cmp -s '$TMP/t1' '$TMP/t2'"
	done
}

# import: an image's own export with every time moved, and two entries
# no path matches (one with a comma and a quote, for csv's quoting)
test_import() {
	local img="$TMP/ext4-4k.img" fields
	run_ro "$img" export "$img"
	assertEquals 0 "$RC"
	{ sed -E 's/"sec":-?[0-9]+/"sec":1000000000/g' "$OUT"
	  echo '{"path":"/not/here","ino":99,"crtime":{"sec":0,"nsec":0}}'
	  echo '{"path":"/a, \"b\"","crtime":{"sec":0,"nsec":0}}'; } >"$TMP/moved.manifest"
	for fields in crtime crtime,atime,mtime,ctime; do
		# two unmatched: left out (64)
		fmt3w 64 "$img" import -n --policy always --fields "$fields" "$img" \
			"$TMP/moved.manifest"
		check import "$TMP/r.text" "$TMP/r.text.err" "$TMP/r.jsonl" "$TMP/r.csv"
	done
}

test_bad_format_names_the_formats() {
	local img="$TMP/ext4-4k.img" c
	for c in stat history; do
		run "$c" -f json "$img" /
		assertEquals "$c -f json" 2 "$RC"
		assertContains "$c: $(cat "$ERR")" "$(cat "$ERR")" "unknown format 'json' (text, jsonl, csv)"
	done
	run journal -f json "$img"
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "unknown format 'json' (text, jsonl, csv)"
	run audit -f xml "$img"
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "unknown format 'xml' (text, jsonl, csv, json)"
	run backfill -f json "$img" --from dosattrib
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "backfill: unknown format 'json' (text, jsonl, csv)"
	run import -f json "$img" /dev/null
	assertEquals 2 "$RC"
	assertContains "$(cat "$ERR")" "import: unknown format 'json' (text, jsonl, csv)"
	for c in stat journal audit history backfill import; do
		run help "$c"
		assertContains "help $c lists jsonl" "$(cat "$OUT")" "jsonl"
		assertContains "help $c lists csv" "$(cat "$OUT")" "csv"
	done
}

# audit --stale is the default: the same report as without it.
test_audit_stale_is_default() {
	local img="$TMP/churn-strictatime-live.img"
	run_ro "$img" audit -f jsonl "$img"
	cp "$OUT" "$TMP/a1"
	run_ro "$img" audit --no-stale --stale -f jsonl "$img"
	assertEquals "--stale undoes --no-stale" "$(cat "$TMP/a1")" "$(cat "$OUT")"
}

. shunit2
