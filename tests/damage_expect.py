#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""damage_expect.py INTACT.jsonl LOST OUT_ROWS OUT_NAMES: what timeline
must list once something is lost, from its jsonl rows of the intact
image.  LOST is "inodes:LO-HI" (an inode-table piece: those inodes are
gone) or "paths:FILE" (names lost with a directory block, one a line).

OUT_ROWS gets the rows that must be listed exactly as on the intact
image (sorted lines): every row whose inode is not lost, whose name is
not lost, and whose directories (every ancestor) keep their inodes and
names.  OUT_NAMES gets the paths that must be name-only rows (sorted):
the rows whose own inode is lost but whose ancestors are not.
For tests/test_damage_chunks.sh."""
import json
import sys


def main():
    intact, lost, out_rows, out_names = sys.argv[1:5]
    lines = [l.rstrip('\n') for l in open(intact) if l.strip()]
    rows = [(l, json.loads(l)) for l in lines]
    ino_of = {r['path']: r['ino'] for _, r in rows}
    kind, arg = lost.split(':', 1)
    lo = hi = 0
    lost_paths = set()
    if kind == 'inodes':
        lo, hi = (int(x) for x in arg.split('-'))
    else:
        lost_paths = {l.strip() for l in open(arg) if l.strip()}

    def ino_lost(path):
        return lo <= ino_of.get(path, 0) <= hi and lo > 0

    def ancestors(path):
        while path not in ('/', ''):
            path = path.rsplit('/', 1)[0] or '/'
            yield path

    keep, names = [], []
    for line, r in rows:
        p = r['path']
        if any(ino_lost(a) or a in lost_paths for a in ancestors(p)):
            continue
        if p in lost_paths:
            continue
        if ino_lost(p):
            names.append(p)
        else:
            keep.append(line)
    with open(out_rows, 'w') as f:
        f.writelines(l + '\n' for l in sorted(keep))
    with open(out_names, 'w') as f:
        f.writelines(p + '\n' for p in sorted(names))


main()
