#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check_churn.py E4TIME IMAGE INFO [JOURNAL] --- compare what e4time audit
and e4time history report on a kernel-written churn image (images/churn-*)
with the counts its .info file says the workload implies (expect.* lines,
confirmed on the journal by images/jbd2-oracle.py, see
images/README-churn.md).

Checks: the summary's change counts by class (the fast-commit images'
*_with_fc figures, as e4time compares fast-commit INODE records too),
relatime_would_skip, atime_only_transactions, the full transactions and
which tids are live and stale, and for every workload inode the classes
that history finds between its journal copies.  With --no-stale on a clean
journal nothing is compared.  With --sample (E4T_QUICK=1: CI's sanitizer
build, where each e4time process costs 0.1 s before any work) history runs
on one inode of each expectation the .info file holds (the lowest-numbered
of the inodes with the same classes: 2 to 4 of the 21), not on every one:
the same path on the same journal, with every kind of answer checked.
Prints one line per mismatch and exits 1 if there is one; E4TIME's own
failures exit 2.  The last line says how many inodes' histories it
compared.
"""
import collections
import json
import re
import subprocess
import sys


def read_info(path):
    expect, journal, inodes = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"expect\.inode\.(\d+)=(\S+)$", line)
            if m:
                counts = collections.Counter()
                if m.group(2) != "-":
                    for part in m.group(2).split(","):
                        cls, n = part.split(":")
                        counts[cls] = int(n)
                inodes[int(m.group(1))] = counts
                continue
            m = re.match(r"(expect|journal)\.(\w+)=(\S+)$", line)
            if m:
                (expect if m.group(1) == "expect" else journal)[
                    m.group(2)] = m.group(3)
    return expect, journal, inodes


def tids(spec):
    """'2-8' -> {2..8}; '-' -> empty."""
    out = set()
    if spec == "-":
        return out
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def e4time(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       check=False)
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace"))
        print("FAIL: %s: exit %d" % (" ".join(cmd), p.returncode))
        sys.exit(2)
    return p.stdout.decode()


def main():
    args = sys.argv[1:]
    no_stale = "--no-stale" in args
    sample = "--sample" in args
    args = [a for a in args if a not in ("--no-stale", "--sample")]
    exe, image, info = args[:3]
    jopt = ["-j", args[3]] if len(args) > 3 else []
    expect, journal, inodes = read_info(info)
    bad = []

    def check(what, got, want):
        if got != want:
            bad.append("%s: e4time %r, expected %r" % (what, got, want))

    cmd = [exe, "audit", "-f", "json"] + jopt
    if no_stale:
        cmd.append("--no-stale")
    audit = json.loads(e4time(cmd + [image]))
    summ = audit["summary"]
    ch = summ["changes"]
    fc = "atime_only_with_fc" in expect
    live = tids(journal["live_tids"])
    stale = tids(journal["stale_tids"])

    if no_stale:
        # only the live log: a clean journal has nothing to compare
        if not live:
            check("inode updates (--no-stale, clean)",
                  summ["inode_updates"], 0)
            check("transactions (--no-stale, clean)",
                  len(audit["transactions"]), 0)
        else:
            want = {t for t in live}
            got = {t["tid"] for t in audit["transactions"]
                   if t["state"] != "fast_commit"}
            check("tids (--no-stale)", got, want)
        report(image, bad)
        return

    check("atime", ch["atime"],
          int(expect["atime_only_with_fc" if fc else "atime_only"]))
    check("mtime", ch["mtime"], int(expect["data_with_fc" if fc else "data"]))
    for cls in ("created", "deleted", "crtime", "ctime", "other"):
        if cls in expect:
            check(cls, ch[cls], int(expect[cls]))
    check("summary atime_only", summ["atime_only"], ch["atime"])
    check("relatime_would_skip", summ["relatime_would_skip"],
          int(expect["relatime_would_skip"]))
    check("atime_only_transactions", summ["atime_only_transactions"],
          int(expect["atime_only_transactions"]))
    full = [t for t in audit["transactions"] if t["state"] != "fast_commit"]
    check("full transactions", len(full), int(expect["transactions"]))
    check("live tids", {t["tid"] for t in full if t["live"]}, live)
    check("stale tids", {t["tid"] for t in full if not t["live"]}, stale)
    check("journal state", audit["journal"]["state"],
          "live" if live else "clean")
    if fc:
        fcs = [t for t in audit["transactions"]
               if t["state"] == "fast_commit"]
        check("fast commits", len(fcs), int(expect["fc_commits"]))

    # per inode: the class of each journal copy after the first
    checked = sorted(inodes.items())
    if sample:
        kinds = {}
        for ino, want in checked:
            kinds.setdefault(tuple(sorted(want.items())), (ino, want))
        checked = sorted(kinds.values())
    for ino, want in checked:
        out = e4time([exe, "history", "-f", "jsonl"] + jopt +
                     [image, "<%d>" % ino])
        got = collections.Counter()
        for line in out.splitlines():
            r = json.loads(line)
            if (r["record"] == "copy" and r["source"] != "disk" and
                    r["change"] != "first"):
                got[r["change"]] += 1
        check("inode %d history" % ino, dict(got), dict(want))
    if not checked:
        bad.append("no workload inode in the .info file")
    report(image, bad, "history of %d of the %d workload inodes%s" %
           (len(checked), len(inodes), " (--sample)" if sample else ""))


def report(image, bad, what="audit"):
    for b in bad:
        print("FAIL: %s: %s" % (image, b))
    if bad:
        sys.exit(1)
    print("ok: %s: %s" % (image, what))


if __name__ == "__main__":
    main()
