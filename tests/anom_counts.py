#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/anom_counts.py --- count e4time anomalies findings per rule and
# severity for each tree of a corpus (tests/mkinnocent.sh).
#
#   anom_counts.py DIR [--markdown]
#   anom_counts.py --recall LIST JSONL
#
# DIR/manifest: TREE FILES per line; DIR/TREE.jsonl: `e4time anomalies
# -f jsonl` of DIR/TREE.img.  Prints one line per tree:
#   TREE FILES STRONG MEDIUM INFO rule=count,...
# or, with --markdown, a table: one row per tree, the counts per rule of
# the rules that fired anywhere, and the totals per severity.
# With --recall (tests/mkstomped.sh): LIST has TECHNIQUE PATH per stomped
# file; one line per technique: TECHNIQUE FILES AT_STRONG AT_MEDIUM
# (files named by a strong finding; by a medium one and no strong), then
# "total" likewise, then "other STRONG MEDIUM": findings on files not in
# LIST.
import collections
import json
import sys


def recall(listf, jsonlf):
    tech = collections.OrderedDict()
    where = {}
    for line in open(listf):
        t, p = line.split()
        tech.setdefault(t, []).append(p)
        where[p] = t
    best = {}
    other = collections.Counter()
    for line in open(jsonlf):
        r = json.loads(line)
        if r["record"] != "finding" or r["severity"] == "info":
            continue
        p = r["path"]
        if p not in where:
            other[r["severity"]] += 1
            continue
        if r["severity"] == "strong" or p not in best:
            best[p] = r["severity"]
    tot = [0, 0, 0]
    for t, ps in tech.items():
        s = sum(1 for p in ps if best.get(p) == "strong")
        m = sum(1 for p in ps if best.get(p) == "medium")
        print(t, len(ps), s, m)
        tot = [tot[0] + len(ps), tot[1] + s, tot[2] + m]
    print("total", *tot)
    print("other", other["strong"], other["medium"])


if sys.argv[1] == "--recall":
    recall(sys.argv[2], sys.argv[3])
    sys.exit(0)
d = sys.argv[1]
md = "--markdown" in sys.argv[2:]
trees = []
for line in open(d + "/manifest"):
    name, files = line.split()
    trees.append((name, int(files)))
sev_of = {}
order = []
per = {}
for name, files in trees:
    c = collections.Counter()
    for line in open("%s/%s.jsonl" % (d, name)):
        r = json.loads(line)
        if r["record"] == "summary":
            if r["rule"] not in sev_of:
                sev_of[r["rule"]] = r["severity"]
                order.append(r["rule"])
        elif r["record"] == "finding":
            c[r["rule"]] += 1
    per[name] = c


def sev_total(c, sev):
    return sum(n for rule, n in c.items() if sev_of.get(rule) == sev)


if not md:
    for name, files in trees:
        c = per[name]
        print(name, files, sev_total(c, "strong"), sev_total(c, "medium"),
              sev_total(c, "info"),
              ",".join("%s=%d" % (r, c[r]) for r in order if c[r]) or "-")
    sys.exit(0)
fired = [r for r in order if any(per[n][r] for n, _ in trees)]
short = {"strong": "S", "medium": "M", "info": "I"}
print("| tree | files | strong | medium | info | " +
      " | ".join("%s (%s)" % (r, short[sev_of[r]]) for r in fired) + " |")
print("|---|---:|---:|---:|---:|" + "---:|" * len(fired))
for name, files in trees:
    c = per[name]
    print("| %s | %d | %d | %d | %d | " % (
        name, files, sev_total(c, "strong"), sev_total(c, "medium"),
        sev_total(c, "info")) + " | ".join(str(c[r]) for r in fired) + " |")
