#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_truth.py FORMAT TRUTH OUTPUT [--deleted]

Parse e4time's output in FORMAT (bodyfile, mactime, jsonl, timesketch,
csv, text, stat) back into rows, and compare every time of every file,
to the nanosecond, with the ground truth that images/make-images.sh
recorded through statx while the image was mounted.

Truth lines: path_hex ino type mode uid gid size links atime mtime ctime
crtime status; times "SEC.NNNNNNNNN" with SEC the floor and NNNNNNNNN the
non-negative fraction; crtime "-" when statx had no birth time.

Prints one line per mismatch and ends with "N checked, N mismatched";
exits 1 on any mismatch.
"""
import calendar
import csv
import io
import json
import re
import sys

FIELDS = ("atime", "mtime", "ctime", "crtime")
# Times the kernel does not change when a file is unlinked and evicted
# (the truncate at eviction sets mtime and ctime for extent files).
DELETED_FIELDS = ("atime", "crtime")


def parse_truth_time(text):
    if text == "-":
        return None
    sec, frac = text.split(".")
    return (int(sec), int(frac))


def load_truth(path):
    live, deleted = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            row = {
                "path": bytes.fromhex(p[0]),
                "ino": int(p[1]),
                "type": p[2],
                "size": int(p[6]),
            }
            for i, name in enumerate(FIELDS):
                row[name] = parse_truth_time(p[8 + i])
            if p[12] == "deleted":
                deleted.append(row)
            else:
                live[row["path"]] = row
    return live, deleted


def decimal_time(text):
    """'-0.000000001' -> (-1, 999999999); '' (and the bodyfile's crtime
    '0', without a fraction) -> None."""
    if text in ("", "0"):
        return None
    neg = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    total = int(whole) * 10**9 + int((frac + "000000000")[:9])
    if neg:
        total = -total
    return (total // 10**9, total % 10**9)


def iso_time(text):
    """'2009-02-13T23:31:30.123456789Z' (or with ' ') -> (sec, nsec)."""
    m = re.fullmatch(
        r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?",
        text)
    if not m:
        raise ValueError("not an ISO time: %r" % text)
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    frac = (m.group(7) or "") + "000000000"
    sec = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    zone = m.group(8)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        sec -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return (sec, int(frac[:9]))


def unescape_backslash(s):
    """bodyfile and text escapes: \\xHH, \\n, \\t, \\r, \\\\, \\|, \\:"""
    out = bytearray()
    b = s.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):
            n = chr(b[i + 1])
            if n == "x":
                out.append(int(b[i + 2:i + 4], 16))
                i += 4
                continue
            out += {"n": b"\n", "t": b"\t", "r": b"\r"}.get(
                n, n.encode("latin-1"))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def unescape_body(s):
    """both bodyfiles' name escapes: \\xhh a code point (U+0000-001F,
    U+007F-009F), \\XHH a byte that is not UTF-8, \\\\, \\| (mactime:
    %7C and %25 decoded first, as mactime does)"""
    out = bytearray()
    b = s.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):
            n = chr(b[i + 1])
            if n == "x":
                out += chr(int(b[i + 2:i + 4], 16)).encode("utf-8")
                i += 4
                continue
            if n == "X":
                out.append(int(b[i + 2:i + 4], 16))
                i += 4
                continue
            if n not in "\\|":
                raise ValueError("bad escape in %r" % s)
            out += n.encode()
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def strip_target(name, mode):
    """a symlink's " -> TARGET" (plaso splits at the last one)"""
    if mode.startswith("l") or mode.startswith("l/"):
        i = name.rfind(b" -> ")
        if i < 0:
            raise ValueError("symlink without a target: %r" % name)
        return name[:i]
    return name


def split_unescaped(line, sep="|"):
    fields, cur, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line):
            cur += line[i:i + 2]
            i += 2
            continue
        if line[i] == sep:
            fields.append(cur)
            cur = ""
        else:
            cur += line[i]
        i += 1
    fields.append(cur)
    return fields


def strip_status(path):
    for suffix, status in ((b" (deleted)", "deleted"), (b" (orphan)", "orphan")):
        if path.endswith(suffix):
            return path[:-len(suffix)], status
    return path, "live"


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.decode("utf-8", "surrogateescape").split("\n")[:-1]


def parse_bodyfile(path):
    rows = []
    lines = read_lines(path)
    if not lines or lines[0] != "# extended bodyfile 3 format":
        raise ValueError("missing extended bodyfile 3 header")
    for line in lines[1:]:
        f = split_unescaped(line)
        if len(f) != 11:
            raise ValueError("bodyfile line with %d fields: %r" % (len(f), line))
        name = strip_target(unescape_body(f[1]), f[3])
        name, status = strip_status(name)
        row = {"path": name, "status": status, "ino": int(f[2])}
        for i, fld in enumerate(FIELDS):
            row[fld] = decimal_time(f[7 + i])
        rows.append(row)
    return rows


def parse_mactime(path):
    rows = []
    for line in read_lines(path):
        f = line.split("|")
        if len(f) != 11:
            raise ValueError("mactime line with %d fields: %r" % (len(f), line))
        raw = re.sub(r"%([0-9A-Fa-f]{2})",
                     lambda m: chr(int(m.group(1), 16)), f[1])
        if re.search(r"[\x00-\x1f\x7f]", raw):
            raise ValueError("raw control in %r" % line)
        name = strip_target(unescape_body(raw), f[3])
        name, status = strip_status(name)
        row = {"path": name, "status": status, "ino": int(f[2])}
        for i, fld in enumerate(FIELDS):
            row[fld] = int(f[7 + i])
        rows.append(row)
    return rows


def json_path(obj):
    if "path_hex" in obj:
        return bytes.fromhex(obj["path_hex"])
    return obj["path"].encode("utf-8")


def parse_jsonl(path):
    rows = []
    for line in read_lines(path):
        o = json.loads(line)
        row = {"path": json_path(o), "status": o["status"], "ino": o["ino"]}
        for fld in FIELDS:
            t = o[fld]
            row[fld] = None if t is None else (t["sec"], t["nsec"])
            if t is not None and iso_time(t["iso"]) != row[fld]:
                raise ValueError("iso %s disagrees with sec/nsec" % t["iso"])
        rows.append(row)
    return rows


def timesketch_csv_objects(path):
    """timesketch-csv rows as the JSON lines' objects"""
    with open(path, newline="", encoding="utf-8") as f:
        for o in csv.DictReader(f):
            for k in ("timestamp", "nanoseconds", "inode"):
                o[k] = int(o[k])
            if not o["path_hex"]:
                del o["path_hex"]
            yield o


def parse_timesketch(path, objects=None):
    by_key = {}
    if objects is None:
        objects = (json.loads(line) for line in read_lines(path))
    for o in objects:
        for key in ("message", "datetime", "timestamp_desc", "timestamp"):
            if key not in o:
                raise ValueError("timesketch line without %s" % key)
        if not o["datetime"].endswith("+00:00"):
            raise ValueError("datetime without +00:00: %s" % o["datetime"])
        key = (json_path(o), o["inode"], o["status"])
        row = by_key.setdefault(key, {"path": key[0], "ino": key[1],
                                      "status": key[2], "atime": None,
                                      "mtime": None, "ctime": None,
                                      "crtime": None})
        usec = o["timestamp"]
        sec = usec // 10**6
        if (usec % 10**6) != o["nanoseconds"] // 1000:
            raise ValueError("timestamp and nanoseconds disagree: %r" % o)
        if iso_time(o["datetime"]) != (sec, (usec % 10**6) * 1000):
            raise ValueError("datetime disagrees with timestamp: %r" % o)
        if o["field"] in FIELDS:
            row[o["field"]] = (sec, o["nanoseconds"])
    return list(by_key.values())


def parse_csv(path):
    rows = []
    with open(path, newline="", encoding="utf-8",
              errors="surrogateescape") as f:
        reader = csv.DictReader(f)
        for o in reader:
            row = {"path": o["path"].encode("utf-8", "surrogateescape"),
                   "status": o["status"], "ino": int(o["ino"])}
            for fld in FIELDS:
                row[fld] = iso_time(o[fld]) if o[fld] else None
            rows.append(row)
    return rows


TEXT_TIME = r"(-|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9})"


def parse_text(path):
    rows = []
    lines = read_lines(path)
    pat = re.compile(r"\s+".join([TEXT_TIME] * 4) +
                     r"\s+(\d+) (\S{10})\s+(\d+) (.*)$")
    for line in lines[1:]:
        m = pat.match(line)
        if not m:
            raise ValueError("text line not understood: %r" % line)
        name, status = strip_status(unescape_backslash(m.group(8)))
        row = {"path": name, "status": status, "ino": int(m.group(5))}
        # text columns: crtime, mtime, atime, ctime
        for i, fld in enumerate(("crtime", "mtime", "atime", "ctime")):
            t = m.group(1 + i)
            row[fld] = None if t == "-" else iso_time(t)
        rows.append(row)
    return rows


def parse_stat(path):
    """e4time stat output for many files, each block starting with the
    escaped spec on its own line."""
    rows, row = [], None
    for line in read_lines(path):
        if line and not line.startswith(" "):
            row = {"path": unescape_backslash(line), "status": "live"}
            rows.append(row)
            continue
        m = re.match(r"\s+Inode: (\d+)", line)
        if m:
            row["ino"] = int(m.group(1))
            continue
        m = re.match(r"\s+(atime|mtime|ctime|crtime):\s+(\S+)", line)
        if m:
            fld, val = m.group(1), m.group(2)
            row[fld] = None if val == "not" else iso_time(val)
    return rows


PARSERS = {
    "bodyfile": parse_bodyfile, "mactime": parse_mactime,
    "jsonl": parse_jsonl, "timesketch": parse_timesketch,
    "csv": parse_csv, "text": parse_text, "stat": parse_stat,
    "timesketch-csv":
        lambda p: parse_timesketch(p, timesketch_csv_objects(p)),
}


def expected(fmt, t):
    """What FORMAT must show for truth time t."""
    if fmt == "mactime":
        if t is None or t[0] < 0:
            return 0
        return t[0]
    return t


def main():
    fmt, truth_path, out_path = sys.argv[1:4]
    want_deleted = "--deleted" in sys.argv[4:]
    live, deleted = load_truth(truth_path)
    rows = PARSERS[fmt](out_path)
    checked = bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print("MISMATCH " + msg)

    seen = {}
    for r in rows:
        if r["status"] == "live":
            if r["path"] in seen:
                fail("%r listed twice" % r["path"])
            seen[r["path"]] = r
    for p, t in live.items():
        r = seen.get(p)
        if r is None:
            fail("%r missing from %s output" % (p, fmt))
            continue
        checked += 1
        if r.get("ino") != t["ino"]:
            fail("%r inode %s, truth %s" % (p, r.get("ino"), t["ino"]))
        for fld in FIELDS:
            if r.get(fld) != expected(fmt, t[fld]):
                fail("%r %s: %s shows %r, truth %r" %
                     (p, fld, fmt, r.get(fld), t[fld]))
    if fmt != "stat":
        for p in seen:
            if p not in live:
                fail("%r listed but not in the truth" % p)
    if want_deleted:
        for t in deleted:
            cands = [r for r in rows
                     if r["ino"] == t["ino"] and r["status"] == "deleted"]
            checked += 1
            if len(cands) != 1:
                fail("deleted inode %d: %d rows" % (t["ino"], len(cands)))
                continue
            for fld in DELETED_FIELDS:
                if cands[0][fld] != expected(fmt, t[fld]):
                    fail("deleted <%d> %s: %r, truth %r" %
                         (t["ino"], fld, cands[0][fld], t[fld]))
    print("%d checked, %d mismatched" % (checked, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
