#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""timesketch_import.py csv|jsonl FILE

A test oracle: what Timesketch's importer makes of FILE, following
timesketch/lib/utils.py of google/timesketch at commit
00cd3660983b99c394e31c825e424c0c6264bbaf:

read_and_validate_csv (pandas.read_csv, sep ',', default dialect):
- the header must hold message, datetime and timestamp_desc
  (TIMESKETCH_FIELDS; else RuntimeError: the file is refused);
- pandas' default NA strings ('', 'NA', 'null', 'nan', 'None', ...) are
  missing values: a row whose datetime is missing is skipped, other
  missing cells are dropped from the event (row.dropna());
- datetime goes through pandas.to_datetime(errors="coerce"): a value it
  cannot parse, or one outside pandas' nanosecond range (1677-09-21 to
  2262-04-11), is NaT and the row is dropped;
- timestamp is recomputed as strftime("%s%f") of that datetime (on a
  server in UTC): whole seconds, then six digits of microseconds, so a
  time before 1970 gets a wrong timestamp (-1 s + 0.999999 s reads as
  -1999999 us); datetime becomes Timestamp.isoformat().
  (pandas' type guessing of other columns is not modelled.)

read_and_validate_jsonl:
- each line is a JSON object (a line that is not: DataIngestionError,
  the import stops); without datetime but with timestamp, datetime is
  made from the first 10 digits; without timestamp, from datetime;
- message, datetime and timestamp_desc must then be there (else
  RuntimeError: the import stops).

Prints one line per event, "EVENT " and the event as JSON (sorted keys;
CSV values are strings as pandas would keep them, but timestamp, an
integer); "SKIPPED ..." or "DROPPED ..." for rows left out, "REFUSED ..."
when the import fails.
"""
import csv
import datetime
import io
import json
import re
import sys

MANDATORY = ("message", "datetime", "timestamp_desc")
# pandas' default na_values (pandas/_libs/parsers.pyx STR_NA_VALUES)
NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
      "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None",
      "n/a", "nan", "null"}
ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)"
                 r"(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$")
NS_MIN = -9223372036854775807  # pandas Timestamp.min, ns since the epoch
NS_MAX = 9223372036854775807


def to_ns(text):
    """ISO 8601 -> nanoseconds since the epoch, or None (NaT)."""
    m = ISO.match(text)
    if not m:
        return None
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    frac = int(((m.group(7) or "") + "000000000")[:9])
    off = 0
    z = m.group(8)
    if z and z != "Z":
        z = z.replace(":", "")
        off = (int(z[1:3]) * 3600 + int(z[3:5]) * 60) * (-1 if z[0] == "-"
                                                         else 1)
    days = (datetime.date(y, mo, d) - datetime.date(1970, 1, 1)).days
    ns = ((days * 86400 + h * 3600 + mi * 60 + s - off) * 10**9 + frac)
    if ns < NS_MIN or ns > NS_MAX:
        return None
    return ns


def isoformat(ns):
    sec, frac = divmod(ns, 10**9)
    dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=sec)
    out = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        out += ".%06d" % (frac // 1000)
        if frac % 1000:
            out += "%03d" % (frac % 1000)
    return out + "+00:00"


def read_csv(data):
    text = data.decode("utf-8")  # pandas' default encoding, strict
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        print("REFUSED empty file")
        return
    head = rows[0]
    missing = [f for f in MANDATORY if f not in head]
    if missing:
        print("REFUSED Missing mandatory CSV headers: " + ", ".join(missing))
        return
    for n, r in enumerate(rows[1:], 1):
        if len(r) > len(head):
            print("REFUSED row %d: %d fields for %d columns" %
                  (n, len(r), len(head)))
            return
        ev = {k: v for k, v in zip(head, r) if v not in NA}
        if "datetime" not in ev:
            print("SKIPPED row %d: no datetime" % n)
            continue
        ns = to_ns(ev["datetime"])
        if ns is None:
            print("DROPPED row %d: datetime %s" % (n, ev["datetime"]))
            continue
        sec, frac = divmod(ns, 10**9)
        ev["timestamp"] = int("%d%06d" % (sec, frac // 1000))
        ev["datetime"] = isoformat(ns)
        print("EVENT " + json.dumps(ev, sort_keys=True))


def read_jsonl(data):
    for n, line in enumerate(data.decode("utf-8").split("\n")[:-1], 1):
        try:
            d = json.loads(line)
        except ValueError as e:
            print("REFUSED Error parsing JSON at line %d: %s" % (n, e))
            return
        if "datetime" not in d and "timestamp" in d:
            epoch = int(str(d["timestamp"])[:10])
            d["datetime"] = datetime.datetime.fromtimestamp(epoch).isoformat()
        if "timestamp" not in d and "datetime" in d:
            ns = to_ns(d["datetime"])
            if ns is None:
                print("SKIPPED line %d: datetime" % n)
                continue
            d["timestamp"] = ns // 1000
        missing = [x for x in MANDATORY if x not in d]
        if missing:
            print("REFUSED Missing field(s) at line %d: %s" %
                  (n, ",".join(missing)))
            return
        print("EVENT " + json.dumps(d, sort_keys=True))


def main():
    data = open(sys.argv[2], "rb").read()
    try:
        (read_csv if sys.argv[1] == "csv" else read_jsonl)(data)
    except UnicodeDecodeError as e:
        print("REFUSED not UTF-8: %s" % e)


main()
