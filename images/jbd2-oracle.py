#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jbd2-oracle.py -- an independent reading of the jbd2 journal of an ext4
image, used by make-churn-images.sh to check the expected counts of the
churn images against what the kernel wrote (not against e4time).

    jbd2-oracle.py [--journal JDEV.img] [--no-stale] [--json] [-v] IMAGE

It reads the ext4 superblock and group descriptors, the journal (internal:
through the journal inode's extent tree; external: the file given with
--journal), walks the live log from s_start as the kernel's recovery does,
then (unless --no-stale) scans the log area for older, stale transactions,
verifies every checksum the journal carries (v1 crc32_be in the commit
block, v2/v3 crc32c), and decodes the fast-commit area.  Then it compares
every journaled copy of every inode-table block with the copy of the same
block in the transaction before (oldest first), slot by slot, and classifies
each changed inode like lib/journal.h's enum e4t_change, first match wins:

    created  a free slot (links 0 or dtime set or all zero) became an inode
    deleted  links went to 0 / dtime set
    crtime   crtime changed
    mtime    mtime, size, blocks count or i_block changed
    ctime    mode, owner, links, flags, xattrs, ctime changed
    atime    atime (0x08, 0x8C) changed, and nothing else but the checksum
             and i_version words
    other    anything else (e.g. i_version and checksum only)

The first copy of a block has nothing before it (a baseline): not counted.
Copies that are unusable (bad data checksum, or a stale copy whose journal
block a newer transaction reused) are skipped.  Fast-commit INODE records
are listed, not compared.  Python 3 standard library only; slow (pure-python
CRCs), meant for images of a few MiB.
"""
import argparse
import json
import struct
import sys

JBD2_MAGIC = 0xC03B3998
DESC, COMMIT, SB1, SB2, REVOKE = 1, 2, 3, 4, 5
F_ESCAPE, F_SAME_UUID, F_DELETED, F_LAST = 1, 2, 4, 8
COMPAT_CHECKSUM = 0x1
INC_REVOKE, INC_64BIT, INC_ASYNC, INC_CSUM2, INC_CSUM3, INC_FC = 1, 2, 4, 8, 0x10, 0x20


def _table(poly, reflected):
    t = []
    for i in range(256):
        if reflected:
            c = i
            for _ in range(8):
                c = (c >> 1) ^ poly if c & 1 else c >> 1
        else:
            c = i << 24
            for _ in range(8):
                c = ((c << 1) ^ poly) & 0xFFFFFFFF if c & 0x80000000 else (c << 1) & 0xFFFFFFFF
        t.append(c)
    return t


_C32C = _table(0x82F63B78, True)
_C32BE = _table(0x04C11DB7, False)


def crc32c(crc, data):
    """Linux crc32c(): raw state in, raw state out (no inversions)."""
    t = _C32C
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def crc32_be(crc, data):
    t = _C32BE
    for b in data:
        crc = t[((crc >> 24) ^ b) & 0xFF] ^ ((crc << 8) & 0xFFFFFFFF)
    return crc


def be32(b, o):
    return struct.unpack_from(">I", b, o)[0]


def le16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def le32(b, o):
    return struct.unpack_from("<I", b, o)[0]


class Fs:
    def __init__(self, path):
        self.f = open(path, "rb")
        self.f.seek(1024)
        sb = self.f.read(1024)
        if le16(sb, 0x38) != 0xEF53:
            raise SystemExit("%s: not ext2/3/4" % path)
        self.sb = sb
        self.bs = 1024 << le32(sb, 0x18)
        self.blocks = le32(sb, 0x04)
        self.ipg = le32(sb, 0x28)
        self.bpg = le32(sb, 0x20)
        self.first_data = le32(sb, 0x14)
        self.isz = le16(sb, 0x58) if le32(sb, 0x4C) >= 1 else 128
        self.compat = le32(sb, 0x5C)
        self.incompat = le32(sb, 0x60)
        self.ro_compat = le32(sb, 0x64)
        self.journal_uuid = sb[0xD0:0xE0]
        self.journal_inum = le32(sb, 0xE0)
        self.journal_dev = le32(sb, 0xE4)
        self.uuid = sb[0x68:0x78]
        is64 = self.incompat & 0x80
        if is64:
            self.blocks |= le32(sb, 0x150) << 32
        self.descsz = le16(sb, 0xFE) if is64 else 32
        if self.descsz < 32:
            self.descsz = 32
        ngroups = (self.blocks - self.first_data + self.bpg - 1) // self.bpg
        gdt = (self.first_data + 1) * self.bs
        self.itables = []  # (first block, nblocks, first ino)
        ipb = self.bs // self.isz
        self.ipb = ipb
        nblk = (self.ipg * self.isz + self.bs - 1) // self.bs
        for g in range(ngroups):
            d = self.pread(gdt + g * self.descsz, self.descsz)
            it = le32(d, 0x08)
            if is64 and self.descsz >= 64:
                it |= le32(d, 0x28) << 32
            self.itables.append((it, nblk, g * self.ipg + 1))

    def pread(self, off, n):
        self.f.seek(off)
        return self.f.read(n)

    def block(self, b):
        return self.pread(b * self.bs, self.bs)

    def inode(self, ino):
        g, i = divmod(ino - 1, self.ipg)
        it = self.itables[g][0]
        return self.pread(it * self.bs + i * self.isz, self.isz)

    def itable_first_ino(self, fsblock):
        """First inode number held by fsblock if it is an inode-table block."""
        for it, n, ino0 in self.itables:
            if it <= fsblock < it + n:
                return ino0 + (fsblock - it) * self.ipb
        return None

    def extent_map(self, raw):
        """Logical -> physical block map of an inode with extents."""
        out = {}

        def walk(node):
            if le16(node, 0) != 0xF30A:
                raise SystemExit("bad extent header")
            n, depth = le16(node, 2), le16(node, 6)
            for k in range(n):
                e = node[12 + 12 * k: 24 + 12 * k]
                if depth == 0:
                    lblk, ln = le32(e, 0), le16(e, 4)
                    if ln > 32768:
                        ln -= 32768
                    phys = (le16(e, 6) << 32) | le32(e, 8)
                    for i in range(ln):
                        out[lblk + i] = phys + i
                else:
                    child = (le16(e, 8) << 32) | le32(e, 4)
                    walk(self.block(child))

        walk(raw[0x28:0x28 + 60])
        return out


class Journal:
    def __init__(self, fs, jpath=None):
        self.fs = fs
        if jpath:
            # external journal (mke2fs -O journal_dev): its ext2 superblock
            # is at byte 1024 and the jbd2 superblock in the next block
            # (block 1, or 2 with 1 KiB blocks).  The log's block numbers
            # are device block numbers (s_first is 2 or 3), as the kernel's
            # jbd2_journal_bmap() uses them for a journal without an inode.
            self.jf = open(jpath, "rb")
            self.map = None
            self.sbraw = self.read(2 if fs.bs == 1024 else 1)
        else:
            raw = fs.inode(fs.journal_inum)
            if not le32(raw, 0x20) & 0x80000:
                raise SystemExit("journal inode without extents: not supported")
            self.map = fs.extent_map(raw)
            self.jf = None
            self.sbraw = self.read(0)
        self._parse_sb()
        if jpath and self.uuid != fs.journal_uuid:
            raise SystemExit("external journal: uuid does not match the filesystem's s_journal_uuid")

    def read(self, jblock):
        if self.map is None:
            self.jf.seek(jblock * self.fs.bs)
            d = self.jf.read(self.fs.bs)
        else:
            d = self.fs.block(self.map[jblock])
        return d + bytes(self.fs.bs - len(d))

    def _parse_sb(self):
        s = self.sbraw
        if be32(s, 0) != JBD2_MAGIC or be32(s, 4) not in (SB1, SB2):
            raise SystemExit("bad journal superblock")
        self.bs = be32(s, 0x0C)
        self.maxlen = be32(s, 0x10)
        self.first = be32(s, 0x14)
        self.sequence = be32(s, 0x18)
        self.start = be32(s, 0x1C)
        self.errno = be32(s, 0x20)
        self.compat = be32(s, 0x24)
        self.incompat = be32(s, 0x28)
        self.uuid = s[0x30:0x40]
        self.nr_users = be32(s, 0x40)
        self.csum_type = s[0x50]
        self.num_fc = be32(s, 0x54)
        self.head = be32(s, 0x58)
        # fast commit: the jbd2 flag is cleared on clean unmount; the ext4
        # compat flag 0x400 still says where the area is.
        fc = (self.incompat & INC_FC) or (self.fs.compat & 0x400)
        self.fc_blocks = (self.num_fc or 256) if fc else 0
        self.log_end = self.maxlen - self.fc_blocks
        if self.incompat & INC_CSUM3:
            self.csum = 3
        elif self.incompat & INC_CSUM2:
            self.csum = 2
        elif self.compat & COMPAT_CHECKSUM:
            self.csum = 1
        else:
            self.csum = 0
        self.seed = crc32c(0xFFFFFFFF, self.uuid) if self.csum >= 2 else None
        if self.csum == 3:
            self.tagsz = 16
        else:
            self.tagsz = 8 + (4 if self.incompat & INC_64BIT else 0) + (2 if self.csum == 2 else 0)
        self.sb_csum_ok = None
        if self.csum >= 2:
            z = bytearray(s[:1024])
            z[0xFC:0x100] = b"\0\0\0\0"
            self.sb_csum_ok = crc32c(0xFFFFFFFF, bytes(z)) == be32(s, 0xFC)

    def nxt(self, b):
        b += 1
        return self.first if b >= self.log_end else b

    def _block_csum_ok(self, blk, off):
        """descriptor/revoke tail or commit h_chksum[0] at off."""
        if self.csum < 2:
            return None
        z = bytearray(blk)
        z[off:off + 4] = b"\0\0\0\0"
        return crc32c(self.seed, bytes(z)) == be32(blk, off)

    def walk(self, start, tid, stop_at_commit=False):
        """Walk the log from journal block start expecting tid, as the kernel's
        recovery does.  Returns (transactions, end block)."""
        out = []
        b = start
        seen = 0
        cur = None
        crc1 = 0xFFFFFFFF
        while seen < self.log_end - self.first:
            blk = self.read(b)
            if be32(blk, 0) != JBD2_MAGIC or be32(blk, 8) != tid:
                break
            typ = be32(blk, 4)
            if cur is None:
                cur = dict(tid=tid, first=b, nblocks=0, blocks=[], revoked=[],
                           committed=False, csum_bad=False, commit_sec=0, commit_nsec=0)
            if typ == DESC:
                if self._block_csum_ok(blk, self.bs - 4) is False:
                    cur["csum_bad"] = True
                    break
                if self.csum == 1:
                    crc1 = crc32_be(crc1, blk)
                end = self.bs - (4 if self.csum >= 2 else 0)
                o = 12
                d = b
                cur["nblocks"] += 1
                seen += 1
                while o + self.tagsz <= end:
                    if self.csum == 3:
                        lo, flags, hi, tcs = struct.unpack_from(">IIII", blk, o)
                    else:
                        lo, tcs, flags = struct.unpack_from(">IHH", blk, o)
                        hi = be32(blk, o + 8) if self.incompat & INC_64BIT else 0
                    fsb = lo | (hi << 32 if self.incompat & INC_64BIT else 0)
                    d = self.nxt(d)
                    data = self.read(d)
                    if flags & F_ESCAPE:
                        data = struct.pack(">I", JBD2_MAGIC) + data[4:]
                    ok = None
                    if self.csum >= 2:
                        c = crc32c(crc32c(self.seed, struct.pack(">I", tid)), self.read(d) if not flags & F_ESCAPE else data)
                        ok = (c == tcs) if self.csum == 3 else ((c & 0xFFFF) == tcs)
                    if self.csum == 1:
                        crc1 = crc32_be(crc1, self.read(d))
                    cur["blocks"].append(dict(fsblock=fsb, jblock=d, escaped=bool(flags & F_ESCAPE),
                                              csum_ok=ok, data=data))
                    cur["nblocks"] += 1
                    seen += 1
                    o += self.tagsz
                    if not flags & F_SAME_UUID:
                        o += 16
                    if flags & F_LAST:
                        break
                b = self.nxt(d)
            elif typ == REVOKE:
                if self._block_csum_ok(blk, self.bs - 4) is False:
                    cur["csum_bad"] = True
                    break
                used = be32(blk, 12)
                rs = 8 if self.incompat & INC_64BIT else 4
                o = 16
                while o + rs <= used:
                    cur["revoked"].append(struct.unpack_from(">Q" if rs == 8 else ">I", blk, o)[0])
                    o += rs
                cur["nblocks"] += 1
                seen += 1
                b = self.nxt(b)
            elif typ == COMMIT:
                ok = self._block_csum_ok(blk, 0x10)
                if self.csum == 1:
                    ok = blk[0x0C] == 1 and be32(blk, 0x10) == crc1
                if ok is False:
                    cur["csum_bad"] = True
                cur["commit_csum_ok"] = ok
                cur["committed"] = True
                cur["commit_sec"] = struct.unpack_from(">q", blk, 0x30)[0]
                cur["commit_nsec"] = be32(blk, 0x38)
                cur["nblocks"] += 1
                seen += 1
                out.append(cur)
                cur = None
                crc1 = 0xFFFFFFFF
                b = self.nxt(b)
                tid = (tid + 1) & 0xFFFFFFFF
                if stop_at_commit:
                    break
            else:
                break
        return out, b

    def load(self, stale=True):
        live = []
        if self.start:
            live, self.live_end = self.walk(self.start, self.sequence)
        for t in live:
            t["live"] = True
        trans = {t["tid"]: t for t in live}
        if stale:
            # every block that starts with the magic is a journal metadata
            # block (data blocks that did are stored escaped)
            starts = {}
            for b in range(self.first, self.log_end):
                blk = self.read(b)
                if be32(blk, 0) != JBD2_MAGIC or be32(blk, 4) not in (DESC, REVOKE):
                    continue
                tid = be32(blk, 8)
                if tid in trans:
                    continue
                starts.setdefault(tid, []).append(b)
            for tid, bl in starts.items():
                best = None
                for b in bl:
                    ts, _ = self.walk(b, tid, stop_at_commit=True)
                    if ts and ts[0]["tid"] == tid and (best is None or ts[0]["nblocks"] > best["nblocks"]):
                        best = ts[0]
                if best:
                    best["live"] = False
                    trans[tid] = best
        # order: tids modulo 2^32 around s_sequence
        def key(t):
            return (t["tid"] - self.sequence) & 0xFFFFFFFF if t["tid"] - self.sequence < 2**31 else t["tid"]
        seq = self.sequence
        order = sorted(trans.values(), key=lambda t: ((t["tid"] - seq + 2**31) & 0xFFFFFFFF))
        # a stale copy whose journal block a newer transaction reused
        owner = {}
        for t in order:
            for b in self._jblocks_of(t):
                owner[b] = t["tid"]
        for t in order:
            for bl in t["blocks"]:
                bl["overwritten"] = owner.get(bl["jblock"]) != t["tid"]
        self.trans = order
        return order

    def _jblocks_of(self, t):
        b = t["first"]
        for _ in range(t["nblocks"]):
            yield b
            b = self.nxt(b)

    def fast_commits(self):
        """Fast-commit area [log_end + 1, maxlen): TLVs, little-endian."""
        if not self.fc_blocks:
            return []
        out = []
        cur = dict(tags=[], inodes=[])
        crc = 0
        for jb in range(self.log_end + 1, self.maxlen):
            blk = self.read(jb)
            o = 0
            while o + 4 <= self.bs:
                tag, ln = le16(blk, o), le16(blk, o + 2)
                val = blk[o + 4:o + 4 + ln]
                if tag == 0 or tag > 9 or o + 4 + ln > self.bs:
                    return out  # end of the written area
                if tag == 8:  # TAIL: crc over everything up to the tid
                    crc = crc32c(crc, blk[o:o + 4 + 4])
                    tid, fcrc = le32(val, 0), le32(val, 4)
                    cur.update(tid=tid, crc_ok=(crc == fcrc), tail_jblock=jb)
                    out.append(cur)
                    cur = dict(tags=[], inodes=[])
                    crc = 0
                    break  # the tail pads to the end of the block
                crc = crc32c(crc, blk[o:o + 4 + ln])
                name = {1: "add_range", 2: "del_range", 3: "creat", 4: "link", 5: "unlink",
                        6: "inode", 7: "pad", 9: "head"}[tag]
                if tag == 9:
                    cur["head_tid"] = le32(val, 4)
                if tag == 6:
                    cur["inodes"].append(dict(ino=le32(val, 0), jblock=jb, offset=o + 8, len=ln - 4,
                                              raw=val[4:]))
                cur["tags"].append(name)
                o += 4 + ln
        return out


# inode byte groups
def _groups(isz, extra):
    g = {}

    def put(name, off, n):
        for i in range(off, off + n):
            g[i] = name
    put("mode", 0x00, 2); put("mode", 0x02, 2); put("size", 0x04, 4)
    put("atime", 0x08, 4); put("ctime", 0x0C, 4); put("mtime", 0x10, 4)
    put("dtime", 0x14, 4); put("mode", 0x18, 2); put("mode", 0x1A, 2)
    put("size", 0x1C, 4); put("mode", 0x20, 4); put("version", 0x24, 4)
    put("blocks", 0x28, 60); put("generation", 0x64, 4); put("xattr", 0x68, 4)
    put("size", 0x6C, 4); put("other", 0x70, 4); put("size", 0x74, 2)
    put("xattr", 0x76, 2); put("mode", 0x78, 2); put("mode", 0x7A, 2)
    put("csum", 0x7C, 2); put("other", 0x7E, 2)
    if isz > 128:
        put("other", 0x80, 2)
        fields = [(0x82, "csum", 2), (0x84, "ctime", 4), (0x88, "mtime", 4), (0x8C, "atime", 4),
                  (0x90, "crtime", 8), (0x98, "version", 4), (0x9C, "mode", 4)]
        for off, name, n in fields:
            if off + n <= 0x80 + extra:
                put(name, off, n)
        put("xattr", 0x80 + extra, isz - 0x80 - extra)
    return g


def classify(old, new, isz):
    if old == new:
        return None, set()
    extra = le16(new, 0x80) if isz > 128 else 0
    g = _groups(isz, extra)
    what = set(g.get(i, "other") for i in range(isz) if old[i] != new[i])

    def free(r):
        return le16(r, 0x1A) == 0 or le32(r, 0x14) != 0 or not any(r)
    if free(old) and not free(new):
        return "created", what
    if not free(old) and free(new):
        return "deleted", what
    if "crtime" in what:
        return "crtime", what
    if what & {"mtime", "size", "blocks"}:
        return "mtime", what
    if what & {"mode", "xattr", "ctime"}:
        return "ctime", what
    if "atime" in what and what <= {"atime", "csum", "version"}:
        return "atime", what
    # i_version and checksum only (a directory changed within one clock
    # tick: mtime and ctime kept their values) is not an atime update
    return "other", what


def _ts(raw, base_off, extra_off, extra):
    s, n = _xtime(raw, base_off, extra_off, extra).split(".")
    return int(s) * 10**9 + int(n)


def relatime_would_skip(old, new, isz):
    """An atime update relatime would not have made: the old atime was
    after both mtime and ctime, and less than 24 h older than the new."""
    extra = le16(new, 0x80) if isz > 128 else 0
    oa = _ts(old, 0x08, 0x8C, extra)
    na = _ts(new, 0x08, 0x8C, extra)
    m = _ts(new, 0x10, 0x88, extra)
    c = _ts(new, 0x0C, 0x84, extra)
    return oa > m and oa > c and na - oa < 86400 * 10**9


def audit(fs, j, fcs=None):
    """Compare every usable inode copy with the copy of the same inode
    before it.  fcs: also the fast-commit INODE records (a fast commit
    comes before the full commit of the same tid); they cover the first
    128 + i_extra_isize bytes of the inode, the rest is kept from before."""
    last = {}  # ino -> raw inode of the previous usable copy
    isz = fs.isz
    res = dict(changes={}, per_trans=[], per_inode={}, relatime_would_skip=0)
    seq = j.sequence
    items = []
    for t in j.trans:
        if t["committed"] and not t["csum_bad"]:
            items.append((((t["tid"] - seq + 2**31) & 0xFFFFFFFF, 1), "full", t))
    for f in fcs or []:
        if f.get("crc_ok"):
            items.append((((f["tid"] - seq + 2**31) & 0xFFFFFFFF, 0), "fc", f))
    items.sort(key=lambda x: x[0])  # stable: log / area order within a key

    def compare(pt, ino, new):
        prev = last.get(ino)
        last[ino] = new
        if prev is None:
            return
        c, what = classify(prev, new, isz)
        if c is None:
            return
        if c == "atime" and relatime_would_skip(prev, new, isz):
            res["relatime_would_skip"] += 1
        pt["changes"][c] = pt["changes"].get(c, 0) + 1
        pt["inodes"].setdefault(c, []).append(ino)
        res["changes"][c] = res["changes"].get(c, 0) + 1
        res["per_inode"].setdefault(ino, {}).setdefault(c, 0)
        res["per_inode"][ino][c] += 1

    for _, kind, t in items:
        if kind == "fc":
            pt = dict(tid=t["tid"], live=None, fast_commit=True, first=t["tail_jblock"], nblocks=0,
                      commit=0, fsblocks=[], itable=0, changes={}, inodes={})
            for rec in t["inodes"]:
                prev = last.get(rec["ino"])
                new = bytearray(prev if prev is not None else bytes(isz))
                n = min(len(rec["raw"]), isz)
                new[:n] = rec["raw"][:n]
                compare(pt, rec["ino"], bytes(new))
            res["per_trans"].append(pt)
            continue
        pt = dict(tid=t["tid"], live=t["live"], first=t["first"], nblocks=t["nblocks"],
                  commit=t["commit_sec"] + t["commit_nsec"] / 1e9,
                  fsblocks=[b["fsblock"] for b in t["blocks"]], itable=0, changes={}, inodes={})
        for b in t["blocks"]:
            ino0 = fs.itable_first_ino(b["fsblock"])
            if ino0 is None:
                continue
            if b["csum_ok"] is False or b["overwritten"]:
                pt.setdefault("unusable", 0)
                pt["unusable"] += 1
                continue
            pt["itable"] += 1
            for k in range(fs.bs // isz):
                compare(pt, ino0 + k, b["data"][k * isz:(k + 1) * isz])
        res["per_trans"].append(pt)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--journal")
    ap.add_argument("--no-stale", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--kv", action="store_true", help="key=value summary lines")
    ap.add_argument("--times", metavar="INO", type=int, nargs="+",
                    help="only print the times of these inodes from their home blocks")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    fs = Fs(a.image)
    if a.times:
        for ino in a.times:
            print(inode_times(fs, ino))
        return
    j = Journal(fs, a.journal)
    j.load(stale=not a.no_stale)
    fcs = j.fast_commits()
    res = audit(fs, j)
    resfc = audit(fs, j, fcs) if fcs else res
    live = [t["tid"] for t in j.trans if t["live"]]
    stale = [t["tid"] for t in j.trans if not t["live"]]
    summary = dict(
        journal=dict(blocksize=j.bs, maxlen=j.maxlen, first=j.first, log_end=j.log_end,
                     fc_blocks=j.fc_blocks, sequence=j.sequence, start=j.start, head=j.head,
                     compat=j.compat, incompat=j.incompat, csum=j.csum, tag_bytes=j.tagsz,
                     sb_csum_ok=j.sb_csum_ok),
        live_tids=live, stale_tids=stale,
        transactions=len(j.trans),
        journal_blocks=sum(t["nblocks"] for t in j.trans),
        csum_bad=[t["tid"] for t in j.trans if t["csum_bad"]],
        uncommitted=[t["tid"] for t in j.trans if not t["committed"]],
        data_csum_bad=sum(1 for t in j.trans for b in t["blocks"] if b["csum_ok"] is False and not b["overwritten"]),
        overwritten=sum(1 for t in j.trans for b in t["blocks"] if b["overwritten"]),
        changes=res["changes"],
        fast_commits=[dict(tid=f.get("tid"), crc_ok=f.get("crc_ok"), tags=f["tags"],
                           inodes=[i["ino"] for i in f["inodes"]]) for f in fcs],
        per_inode={str(k): v for k, v in sorted(res["per_inode"].items())},
    )
    if a.kv:
        for k in ("transactions", "journal_blocks", "data_csum_bad", "overwritten"):
            print("%s=%d" % (k, summary[k]))
        print("live_tids=%s" % _ranges(live))
        print("stale_tids=%s" % _ranges(stale))
        print("csum_bad_tids=%s" % _ranges(summary["csum_bad"]))
        print("commit_csum_verified=%d" % sum(1 for t in j.trans if t.get("commit_csum_ok")))
        print("uncommitted_tids=%s" % _ranges(summary["uncommitted"]))
        for c in ("created", "deleted", "crtime", "mtime", "ctime", "atime", "other"):
            print("changes.%s=%d" % (c, res["changes"].get(c, 0)))
        print("relatime_would_skip=%d" % res["relatime_would_skip"])
        print("changes.atime_only_transactions=%d" % sum(
            1 for pt in res["per_trans"] if pt["changes"] and set(pt["changes"]) == {"atime"}
            and pt["itable"] == len(pt["fsblocks"])))
        for c in ("created", "deleted", "crtime", "mtime", "ctime", "atime", "other"):
            print("changes_with_fc.%s=%d" % (c, resfc["changes"].get(c, 0)))
        print("fc.commits=%d" % len(fcs))
        print("fc.crc_bad=%d" % sum(1 for f in fcs if not f.get("crc_ok")))
        print("fc.inode_records=%d" % sum(len(f["inodes"]) for f in fcs))
        for k, v in sorted(resfc["per_inode"].items()):
            print("inode.%d=%s" % (k, ",".join("%s:%d" % kv for kv in sorted(v.items()))))
        return
    if a.json:
        summary["per_trans"] = res["per_trans"]
        json.dump(summary, sys.stdout, indent=1, sort_keys=True)
        print()
        return
    jj = summary["journal"]
    print("journal: bs %d maxlen %d first %d log_end %d fc_blocks %d sequence %d start %d head %d "
          "compat 0x%x incompat 0x%x csum v%d tag %d sb_csum %s" % (
              jj["blocksize"], jj["maxlen"], jj["first"], jj["log_end"], jj["fc_blocks"], jj["sequence"],
              jj["start"], jj["head"], jj["compat"], jj["incompat"], jj["csum"], jj["tag_bytes"],
              jj["sb_csum_ok"]))
    print("transactions: %d (live %s; stale %s), %d journal blocks" % (
        len(j.trans), _ranges(live), _ranges(stale), summary["journal_blocks"]))
    print("bad: commit/descriptor csum %s, uncommitted %s, data csum %d, overwritten copies %d" % (
        summary["csum_bad"], summary["uncommitted"], summary["data_csum_bad"], summary["overwritten"]))
    for pt in resfc["per_trans"]:
        if pt.get("fast_commit"):
            if pt["changes"]:
                print("  tid %d fast commit (tail at jblock %d): %s" % (
                    pt["tid"], pt["first"],
                    " ".join("%s=%d%s" % (k, v, _inos(pt["inodes"][k])) for k, v in sorted(pt["changes"].items()))))
            continue
        if a.verbose or pt["changes"]:
            print("  tid %d %s jblock %d+%d itable %d: %s%s" % (
                pt["tid"], "live" if pt["live"] else "stale", pt["first"], pt["nblocks"], pt["itable"],
                " ".join("%s=%d%s" % (k, v, _inos(pt["inodes"][k])) for k, v in sorted(pt["changes"].items())),
                (" fsblocks %s" % pt["fsblocks"]) if a.verbose else ""))
    print("changes: %s" % " ".join("%s=%d" % kv for kv in sorted(res["changes"].items())))
    if fcs:
        print("changes with the fast-commit records: %s" % " ".join(
            "%s=%d" % kv for kv in sorted(resfc["changes"].items())))
    for f in fcs:
        print("fast commit tid %s crc %s: %s inodes %s" % (
            f.get("tid"), "ok" if f.get("crc_ok") else "BAD", ",".join(f["tags"]),
            [i["ino"] for i in f["inodes"]]))


def _xtime(raw, base_off, extra_off, extra):
    sec = struct.unpack_from("<i", raw, base_off)[0]
    if extra_off is None or extra_off + 4 > 0x80 + extra:
        return "%d.%09d" % (sec, 0)
    x = le32(raw, extra_off)
    sec += (x & 3) << 32
    return "%d.%09d" % (sec, x >> 2)


def inode_times(fs, ino):
    """ino atime mtime ctime crtime (SEC.NNNNNNNNN) of the home copy."""
    r = fs.inode(ino)
    extra = le16(r, 0x80) if fs.isz > 128 else 0
    cr = _xtime(r, 0x90, 0x94, extra) if extra >= 24 else "-"
    return "%d %s %s %s %s" % (ino, _xtime(r, 0x08, 0x8C, extra), _xtime(r, 0x10, 0x88, extra),
                               _xtime(r, 0x0C, 0x84, extra), cr)


def _inos(l):
    return "(" + _ranges(sorted(l)) + ")"


def _ranges(l):
    out = []
    for x in l:
        if out and out[-1][1] + 1 == x:
            out[-1][1] = x
        else:
            out.append([x, x])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in out) or "-"


if __name__ == "__main__":
    main()
