#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_jnames.py TRUTH JSONL CSV TEXT --- the names of timeline -d
--journal's rows on a kernel-written image against the record of its
steps (images/make-reuse-image.sh: "step N START END WHAT" and, after
each step, "name N INO GEN PATH_HEX").

A journal row (source journal or journal-predelete) was committed during
the step whose wall-clock window holds its commit time; it must carry the
name its file (inode and generation, the row's "generation") had after
that step, or, when that step deleted the file, the last name the file had
before.  Its status: live when that file is the inode's now, deleted-
realloc when another file has the inode number now, deleted when none.
A name whose directory is gone (no journaled entry can give it) must be
"<INO>" with " (earlier file)" in text.  Disk rows: the generation now.
csv: the same rows, the same generations; text: the same paths, with
" (journal tid N)", " (earlier file)" and the status.  Prints "checked N
journal rows, M disk rows" and every mismatch; exit status 1 on one.
"""
import calendar
import csv
import json
import sys
from decimal import Decimal

SLACK = Decimal("0.1")  # the commit clock is coarse: a tick at most


def iso_to_dec(s):
    # 2026-12-05T05:44:36.325440789Z
    base, frac = s.rstrip("Z").split(".")
    sec = calendar.timegm(tuple(int(x) for x in
                                base.replace("T", "-").replace(":", "-")
                                .split("-")) + (0, 0, 0))
    return Decimal(sec) + Decimal("0." + frac)


def main():
    truth, jsonl, csvf, text = sys.argv[1:5]
    steps = []          # (n, start, end)
    names = {}          # step -> {(ino, gen): [path]}
    for line in open(truth, encoding="utf-8"):
        w = line.split()
        if w[0] == "step":
            steps.append((int(w[1]), Decimal(w[2]), Decimal(w[3])))
            names[int(w[1])] = {}
        elif w[0] == "name":
            path = bytes.fromhex(w[4]).decode("utf-8", "surrogateescape")
            names[int(w[1])].setdefault((int(w[2]), int(w[3])), []).append(path)
    last = max(names)
    final = names[last]
    final_inos = {ino for ino, _ in final}
    final_paths = {p for ps in final.values() for p in ps}
    rows = [json.loads(x) for x in open(jsonl, encoding="utf-8")]
    errors = []
    njournal = ndisk = 0
    want_text = []

    def step_of(t):
        hit = [n for n, a, b in steps if a - SLACK <= t <= b + SLACK]
        return hit[0] if len(hit) == 1 else None

    for r in rows:
        ino, gen = r["ino"], r.get("generation")
        r.setdefault("source", "disk")
        if r["source"] == "disk":
            if gen is not None and r["status"] == "live":
                ndisk += 1
                if r["path"] not in final.get((ino, gen), []):
                    errors.append("disk row %s <%d>: generation %s is not "
                                  "the one the truth has" % (r["path"], ino, gen))
            want_text.append(r["path"] + {"live": "", "deleted": " (deleted)",
                             "deleted-realloc": " (deleted-realloc)",
                             "orphan": " (orphan)"}[r["status"]])
            continue
        njournal += 1
        t = iso_to_dec(r["commit_time"])
        s = step_of(t)
        if s is None:
            errors.append("<%d> tid %d: commit time %s in no step" %
                          (ino, r["tid"], r["commit_time"]))
            continue
        exp = None
        for k in range(s, -1, -1):
            if (ino, gen) in names[k]:
                exp = names[k][(ino, gen)]
                break
        if exp is None:
            errors.append("<%d> generation %s: no file of the truth" %
                          (ino, gen))
            continue
        if (ino, gen) in final:
            status = "live"
        elif ino in final_inos:
            status = "deleted-realloc"
        else:
            status = "deleted"
        earlier = status != "live" and r["source"] == "journal" and \
            not any(p.rsplit("/", 1)[0] in final_paths or
                    p.rsplit("/", 1)[0] == "" for p in exp)
        if earlier:
            exp = ["<%d>" % ino]
        if r["path"] not in exp or r["status"] != status:
            errors.append("<%d> tid %d (step %d): %s %s, the truth: %s %s" %
                          (ino, r["tid"], s, r["path"], r["status"],
                           " or ".join(exp), status))
        want_text.append("%s (journal tid %d)%s%s" % (
            r["path"], r["tid"], " (earlier file)" if earlier else "",
            {"live": "", "deleted": " (deleted)",
             "deleted-realloc": " (deleted-realloc)"}[r["status"]]))

    # csv: the same rows in the same order, the same generations
    with open(csvf, newline="", encoding="utf-8") as f:
        crow = list(csv.DictReader(f))
    if len(crow) != len(rows):
        errors.append("csv: %d rows, jsonl %d" % (len(crow), len(rows)))
    for c, r in zip(crow, rows):
        g = "" if r.get("generation") is None else str(r["generation"])
        if (c["path"], c.get("generation"), c["status"]) != (r["path"], g,
                                                         r["status"]):
            errors.append("csv row %s %s %s, jsonl %s %s %s" %
                          (c["path"], c.get("generation"), c["status"],
                           r["path"], g, r["status"]))
    # text: the path column, as jsonl's rows say it
    lines = open(text, encoding="utf-8").read().splitlines()[1:]
    # four times of 29 characters and a space, inode, mode, size
    got = [ln[4 * 30 + 35:] for ln in lines]
    if got != want_text:
        for a, b in zip(got, want_text):
            if a != b:
                errors.append("text: %r, expected %r" % (a, b))
                break
        if len(got) != len(want_text):
            errors.append("text: %d rows, jsonl %d" % (len(got),
                                                       len(want_text)))
    for e in errors:
        print("MISMATCH " + e)
    print("checked %d journal rows, %d disk rows" % (njournal, ndisk))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
