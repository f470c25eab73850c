#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/tick-grid.py --- do kernel-written nanoseconds sit on the clock
# tick's grid?  For the images of one boot (tests/mkinnocent.sh's trees,
# tests/mkstomped.sh's image), reads every live inode's times with
# `e4time timeline -f jsonl` and prints, per image, how many of them have
# nanoseconds that leave the boot's remainder modulo the tick (TICK ns,
# default 4,000,000: CONFIG_HZ=250), the remainder being the commonest
# one of ctime (whole seconds left out) over all the images.  Measured
# for the rule the issue proposed ("a time off the grid while the
# inode's other times are on it"): bench/RESULTS-innocent.md.
#
#   bench/tick-grid.py E4TIME IMAGE... [--list STOMPED.LIST]
#
# Columns: inodes (live, past the reserved ones); ctime, crtime on the
# grid; the candidates (ctime and crtime on the grid, atime or mtime off
# it and not a whole second); those set more than 1 s after creation.
# With --list (TECHNIQUE PATH lines), the candidates among the stomped
# files, per technique.
import collections
import json
import os
import subprocess
import sys

TICK = int(os.environ.get("TICK", "4000000"))
NS = 10**9


def load(e4time, img):
    out = subprocess.run([e4time, "timeline", "-f", "jsonl", img],
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("status") == "live" and r["ino"] > 11 and r.get("crtime"):
            rows.append(r)
    return rows


def ns(r, f):
    return r[f]["sec"] * NS + r[f]["nsec"]


args = sys.argv[1:]
stomped = {}
if "--list" in args:
    i = args.index("--list")
    for line in open(args[i + 1]):
        t, p = line.split()
        stomped[p] = t
    del args[i:i + 2]
e4time, imgs = args[0], args[1:]
data = [(img, load(e4time, img)) for img in imgs]
rem = collections.Counter(ns(r, "ctime") % TICK for _, rows in data
                          for r in rows if ns(r, "ctime") % NS)
R = rem.most_common(1)[0][0]
print("tick %d ns, the boot's remainder %d" % (TICK, R))
print()
print("| image | inodes | ctime on grid | crtime on grid "
      "| candidates | set > 1 s after creation |")
print("|---|---:|---:|---:|---:|---:|")


def on(v):
    return v % TICK == R


def pct(k, n):
    return "%d (%.0f%%)" % (k, 100.0 * k / n) if n else "0"


found = collections.Counter()
for img, rows in data:
    n = len(rows)
    cand = [r for r in rows
            if on(ns(r, "ctime")) and on(ns(r, "crtime")) and
            any(not on(ns(r, f)) and ns(r, f) % NS for f in ("atime", "mtime"))]
    later = [r for r in cand if ns(r, "ctime") - ns(r, "crtime") > NS]
    print("| %s | %d | %s | %s | %d | %d |" % (
        os.path.basename(img)[:-4] if img.endswith(".img") else img, n,
        pct(sum(on(ns(r, "ctime")) for r in rows), n),
        pct(sum(on(ns(r, "crtime")) for r in rows), n), len(cand),
        len(later)))
    for r in cand:
        if r["path"] in stomped:
            found[stomped[r["path"]]] += 1
if stomped:
    print()
    techs = collections.Counter(stomped.values())
    for t in techs:
        print(t, techs[t], found[t])
