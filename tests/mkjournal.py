#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mkjournal.py --- hand-made jbd2 journals: an independent oracle
# for "e4time journal".
#
#   mkjournal.py --list [-v]                  scenario names [and what
#                                            verified them]
#   mkjournal.py --list-verify e2fsck|kernel  the scenarios verified so
#   mkjournal.py SCENARIO OUT.img            build; print EXPECT (JSON)
#   mkjournal.py --verify e2fsck|kernel SCENARIO OUT.img
#                                            build, let e2fsck (-E
#                                            journal_only) or the kernel
#                                            (loop mount) replay a copy,
#                                            compare the home blocks
#   mkjournal.py --check EXPECT STDOUT STDERR RC IMAGE [--stale]
#                                            compare "e4time journal
#                                            --format jsonl" with EXPECT
#
# Python 3 standard library only; needs mke2fs and debugfs.  Each
# scenario makes a small ext4 image with mke2fs (fixed UUID, hash seed,
# E2FSPROGS_FAKE_TIME, MKE2FS_CONFIG=tests/journal/mke2fs.conf), then
# writes a journal by hand into the journal inode's blocks (found with
# debugfs "blocks <8>"; they need not be contiguous): the journal
# superblock (sequence, start, features, checksum), descriptor, data,
# revoke and commit blocks, fast-commit blocks, and the ext4 superblock's
# needs_recovery flag (with its crc32c when metadata_csum is on).
#
# EXPECT says what a correct reader finds, following the recovery of
# Linux 6.18 (fs/jbd2/recovery.c do_one_pass, fc_do_one_pass; fs/ext4/
# fast_commit.c ext4_fc_replay_scan).  kernel_recover() below is a
# line-by-line model of that code; it reads the finished image (not the
# builder's notes), and the builder's own account of every transaction
# must agree with it or the scenario is refused (exit 3).  The model in
# turn was checked against real recovery:
#
# VERIFIED with "mkjournal.py --verify e2fsck|kernel" (e2fsprogs 1.47.0,
# e2fsck -fy -E journal_only; Linux 6.18, losetup + mount -o ro, which
# still replays): after recovery every journaled home block holds exactly
# what the model says (the last unrevoked, checksum-clean copy with its
# escape undone, or its old contents), and the fast-commit inodes hold
# the INODE records' times.
#   e2fsck and kernel agree with the model: tags8 tags12 tags10 tags14
#     tags16 tags16_32 revoke32 revoke64 csum_v1 csum_v1_1k wrap
#     fast_commit fc_clean stale_clean stale_live bad_commit_csum
#     bad_commit_csum_v1 bad_commit_csum_old bad_desc_csum
#     bad_desc_csum_old bad_revoke_csum bad_data_csum bad_data_csum_v2
#     wrong_tid revoke_count_big revoke_count_odd no_last_tag escaped
#     fc_flag_clear_live
#     bad_sb_magic bad_sb_blocksize bad_sb_csum (nothing replayed)
#   kernel only: wrap_fc.  e2fsck 1.47.0 wraps the log at maxlen instead
#     of maxlen - num_fc_blks, stops at the gap block and replays only
#     the first transaction; checked against flavour "e2fsck-1.47".
#   out_of_fs: the kernel replays up to the first home block past the
#     device, where __getblk() fails ("JBD2: Out of memory during
#     recovery"): the rest is abandoned and the mount refused; e2fsck
#     fails those writes one by one and replays the rest (flavour
#     "e2fsck").  Both checked.
#   truncated: no ground truth (mount and e2fsck refuse a device shorter
#     than the filesystem); the model only.
# The kernel refuses the mount after bad_commit_csum* (j_failed_commit:
# "journal transaction 2 ... is corrupt", though transaction 1 is
# replayed), bad_desc_csum, bad_revoke_csum, revoke_count_big (nothing
# replayed), bad_data_csum* (all but the bad block replayed) and
# out_of_fs; EXPECT's "kernel" part says so ("mount": "refused").
#
# Exit status: 0 done; 1 a check or verification failed; 2 usage;
# 3 the builder and the recovery model disagree (a bug here);
# 77 the scenario cannot be built on this system (skip).

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MKE2FS_CONF = os.path.join(HERE, "journal", "mke2fs.conf")

JBD2_MAGIC = 0xC03B3998
MAGIC_BE = struct.pack(">I", JBD2_MAGIC)
DESCRIPTOR, COMMIT, SB_V1, SB_V2, REVOKE = 1, 2, 3, 4, 5
FLAG_ESCAPE, FLAG_SAME_UUID, FLAG_DELETED, FLAG_LAST_TAG = 1, 2, 4, 8
COMPAT_CHECKSUM = 0x1
INCOMPAT_REVOKE, INCOMPAT_64BIT, INCOMPAT_ASYNC = 0x1, 0x2, 0x4
INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3, INCOMPAT_FAST_COMMIT = 0x8, 0x10, 0x20
FC_ADD_RANGE, FC_DEL_RANGE, FC_CREAT, FC_LINK, FC_UNLINK = 1, 2, 3, 4, 5
FC_INODE, FC_PAD, FC_TAIL, FC_HEAD = 6, 7, 8, 9
FC_REPLAY_STOP, FC_REPLAY_CONTINUE = 0, 1
EXT4_COMPAT_FAST_COMMIT = 0x400
EXT4_INCOMPAT_RECOVER = 0x4
EXT4_INCOMPAT_64BIT = 0x80
EXT4_INCOMPAT_CSUM_SEED = 0x2000
EXT4_RO_COMPAT_METADATA_CSUM = 0x400
JBD2_MIN_JOURNAL_BLOCKS = 1024
# errnos as the model reports them
EFSBADCRC, EFSCORRUPTED, EINVAL, EIO = "EFSBADCRC", "EFSCORRUPTED", \
    "EINVAL", "EIO"
ECANCELED, EOPNOTSUPP = "ECANCELED", "EOPNOTSUPP"

BASE_TIME = 1700000000  # 2023-11-14T22:13:20Z
FS_UUID = "4e34c7a1-0d5f-4b5e-9a2c-6b1f0e7d3a51"


# ------------------------------------------------------------------ #
# CRCs: the kernel's crc32c(seed, p, len) and crc32_be(seed, p, len),
# neither inverted before nor after (callers pass ~0 when they want to).

def _table_le(poly):
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        t.append(c)
    return t


def _table_be(poly):
    t = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ poly) if c & 0x80000000 else c << 1
            c &= 0xFFFFFFFF
        t.append(c)
    return t


_T_CRC32C = _table_le(0x82F63B78)
_T_CRC32BE = _table_be(0x04C11DB7)


def crc32c(crc, data):
    t = _T_CRC32C
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def crc32_be(crc, data):
    t = _T_CRC32BE
    for b in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ t[((crc >> 24) ^ b) & 0xFF]
    return crc


assert crc32c(0xFFFFFFFF, b"123456789") ^ 0xFFFFFFFF == 0xE3069283
assert crc32_be(0xFFFFFFFF, b"123456789") ^ 0xFFFFFFFF == 0xFC891918


def be32(b, o):
    return struct.unpack_from(">I", b, o)[0]


def be16(b, o):
    return struct.unpack_from(">H", b, o)[0]


def be64(b, o):
    return struct.unpack_from(">Q", b, o)[0]


def le32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def le16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def tid_gt(x, y):
    d = (x - y) & 0xFFFFFFFF
    return d != 0 and d < 0x80000000


def tid_geq(x, y):
    return ((x - y) & 0xFFFFFFFF) < 0x80000000


def iso(sec, nsec):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + \
        ".%09dZ" % nsec


def uuid_str(u):
    h = u.hex()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def feature_names(compat, incompat):
    names = []
    if compat & COMPAT_CHECKSUM:
        names.append("checksum")
    for bit, name in ((INCOMPAT_REVOKE, "revoke"), (INCOMPAT_64BIT, "64bit"),
                      (INCOMPAT_ASYNC, "async_commit"),
                      (INCOMPAT_CSUM_V2, "csum_v2"),
                      (INCOMPAT_CSUM_V3, "csum_v3"),
                      (INCOMPAT_FAST_COMMIT, "fast_commit")):
        if incompat & bit:
            names.append(name)
    return names


class CannotBuild(Exception):
    """The scenario needs something this system lacks (exit 77)."""


class ModelMismatch(Exception):
    """The builder's account and the recovery model disagree (exit 3)."""


def run(cmd, env=None, check=True):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if check and p.returncode != 0:
        raise RuntimeError("%s: status %d: %s" % (" ".join(cmd), p.returncode,
                                                   p.stderr.strip()))
    return p


def debugfs(img, req):
    return run(["debugfs", "-R", req, img]).stdout


# ------------------------------------------------------------------ #
# The filesystem: mke2fs, then what the builder needs to know of it.

class FS:
    def __init__(self, path, bs=4096, size_mb=16, features="", jsize_mb=None,
                 populate=None):
        for tool in ("mke2fs", "debugfs"):
            if shutil.which(tool) is None:
                raise CannotBuild("%s not installed" % tool)
        self.path = path
        env = dict(os.environ, MKE2FS_CONFIG=MKE2FS_CONF,
                   E2FSPROGS_FAKE_TIME=str(BASE_TIME))
        if jsize_mb is None:
            jsize_mb = 4 if bs == 4096 else 1
        cmd = ["mke2fs", "-q", "-F", "-t", "ext4", "-b", str(bs), "-I", "256",
               "-U", FS_UUID, "-E", "hash_seed=" + FS_UUID,
               "-J", "size=%d" % jsize_mb]
        if features:
            cmd += ["-O", features]
        if populate:
            cmd += ["-d", populate]
        if os.path.exists(path):
            os.unlink(path)
        with open(path, "wb") as f:
            f.truncate(size_mb << 20)
        p = run(cmd + [path, "%dM" % size_mb], env=env, check=False)
        if p.returncode != 0:
            if "fast_commit" in features and "Invalid filesystem option" in \
                    p.stderr:
                raise CannotBuild("mke2fs does not know fast_commit")
            raise RuntimeError("mke2fs failed: " + p.stderr.strip())
        sb = self.read_bytes(1024, 1024)
        self.bs = 1024 << le32(sb, 0x18)
        assert self.bs == bs
        self.compat = le32(sb, 0x5C)
        self.incompat = le32(sb, 0x60)
        self.ro_compat = le32(sb, 0x64)
        self.blocks_count = le32(sb, 0x04)
        if self.incompat & EXT4_INCOMPAT_64BIT:
            self.blocks_count |= le32(sb, 0x150) << 32
        self.uuid = bytes(sb[0x68:0x78])
        self.inode_size = le16(sb, 0x58)
        self.has_fc = bool(self.compat & EXT4_COMPAT_FAST_COMMIT)
        if self.incompat & EXT4_INCOMPAT_CSUM_SEED:
            self.csum_seed = le32(sb, 0x270)
        else:
            self.csum_seed = crc32c(0xFFFFFFFF, self.uuid)
        if le32(sb, 0xE0) != 8:
            raise RuntimeError("journal inode is not 8")
        self.jmap = [int(x) for x in debugfs(path, "blocks <8>").split()]
        self.jsb0 = self.read_block(self.jmap[0])
        self.base = path + ".base"  # the image before the journal
        shutil.copyfile(path, self.base)
        self._free = None

    def read_bytes(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return bytearray(f.read(n))

    def read_block(self, b, path=None):
        with open(path or self.path, "rb") as f:
            f.seek(b * self.bs)
            return f.read(self.bs)

    def write_block(self, b, data):
        assert len(data) == self.bs
        with open(self.path, "r+b") as f:
            f.seek(b * self.bs)
            f.write(data)

    def free_blocks(self, n):
        """n free data blocks well away from the metadata: home blocks."""
        goal = self.blocks_count * 3 // 4
        out = debugfs(self.path, "ffb %d %d" % (n, goal))
        found = [int(x) for x in out.split(":", 1)[1].split()]
        if len(found) < n:
            raise RuntimeError("ffb found only %d blocks" % len(found))
        return found

    def inode_of(self, path):
        out = debugfs(self.path, "stat " + path)
        return int(out.split("Inode:")[1].split()[0])

    def inode_pos(self, ino):
        out = debugfs(self.path, "imap <%d>" % ino)
        blk = int(out.split("located at block")[1].split(",")[0])
        off = int(out.split("offset")[1].split()[0], 16)
        return blk * self.bs + off

    def raw_inode(self, ino, path=None):
        pos = self.inode_pos(ino)
        with open(path or self.path, "rb") as f:
            f.seek(pos)
            return bytearray(f.read(self.inode_size))

    def inode_csum(self, ino, raw):
        """Inode raw with its metadata_csum checksum set."""
        raw = bytearray(raw)
        if not self.ro_compat & EXT4_RO_COMPAT_METADATA_CSUM:
            return raw
        extra = le16(raw, 0x80) if len(raw) > 128 else 0
        raw[0x7C:0x7E] = b"\0\0"
        if extra >= 4:
            raw[0x82:0x84] = b"\0\0"
        c = crc32c(self.csum_seed, struct.pack("<I", ino))
        c = crc32c(c, raw[0x64:0x68])
        c = crc32c(c, raw)
        struct.pack_into("<H", raw, 0x7C, c & 0xFFFF)
        if extra >= 4:
            struct.pack_into("<H", raw, 0x82, c >> 16)
        return raw

    def set_needs_recovery(self, on):
        sb = self.read_bytes(1024, 1024)
        inc = le32(sb, 0x60)
        inc = (inc | EXT4_INCOMPAT_RECOVER) if on else \
            (inc & ~EXT4_INCOMPAT_RECOVER)
        struct.pack_into("<I", sb, 0x60, inc)
        if self.ro_compat & EXT4_RO_COMPAT_METADATA_CSUM:
            struct.pack_into("<I", sb, 0x3FC, crc32c(0xFFFFFFFF, sb[:0x3FC]))
        with open(self.path, "r+b") as f:
            f.seek(1024)
            f.write(sb)


def pattern(text, bs):
    """A recognisable block: text repeated, then the block number-ish."""
    t = ("[" + text + "] ").encode()
    return (t * (bs // len(t) + 1))[:bs]


# ------------------------------------------------------------------ #
# The builder

class Tag:
    def __init__(self, fsblock, content=None, escape=False, bad_csum=False,
                 hi_garbage=0, uuid=False):
        self.fsblock = fsblock
        self.content = content
        self.escape = escape        # content starts with the jbd2 magic
        self.bad_csum = bad_csum    # its tag checksum is wrong
        self.hi_garbage = hi_garbage  # tag3 blocknr_high in a 32-bit journal
        self.uuid = uuid            # a 16-byte UUID follows (no SAME_UUID)


class Trans:
    def __init__(self, tid, role):
        self.tid = tid
        self.role = role  # live, stale, end, after, hidden
        self.jblocks = []  # every block it wrote, in log order
        self.descs = []    # (jblock, [tag dicts])
        self.revokes = []  # (jblock, [fs blocks], parsed like the kernel)
        self.commit_jb = None
        self.commit_time = None
        self.csum_bad = False
        self.crc = 0xFFFFFFFF  # v1: crc32_be over descriptors and data
        self.fc = None         # fast commits: dict
        self.presence = None
        self.fields = None
        self.states = None
        self.optional_flags = {}


class Journal:
    def __init__(self, fs, csum=3, is64=None, revoke=True, fc_flag=None,
                 async_commit=False, fc_area=True):
        self.fs = fs
        self.bs = fs.bs
        jsb = fs.jsb0
        if be32(jsb, 0) != JBD2_MAGIC:
            raise RuntimeError("mke2fs made no journal superblock")
        self.maxlen = be32(jsb, 0x10)
        self.first = be32(jsb, 0x14)
        self.uuid = bytes(jsb[0x30:0x40])
        self.num_fc = be32(jsb, 0x54) if fs.has_fc else 0
        if fs.has_fc and self.num_fc == 0:
            raise CannotBuild("mke2fs left s_num_fc_blks at 0")
        if not fc_area:
            # a live journal without the journal's fast_commit flag:
            # recovery has no fast-commit area and wraps at maxlen
            # (journal_load_superblock), whatever the ext4 flag says
            self.num_fc = 0
        # Fast commit as the kernel sees it: the journal's flag.  A clean
        # journal has it cleared; the ext4 superblock still says where
        # the area is.
        self.fc_flag = fs.has_fc if fc_flag is None else fc_flag
        self.log_end = self.maxlen - self.num_fc
        self.fc_first = self.maxlen - self.num_fc + 1
        if is64 is None:
            is64 = bool(fs.incompat & EXT4_INCOMPAT_64BIT)
        self.csum = csum
        self.is64 = is64
        self.compat = COMPAT_CHECKSUM if csum == 1 else 0
        self.incompat = (INCOMPAT_REVOKE if revoke else 0) | \
            (INCOMPAT_64BIT if is64 else 0) | \
            (INCOMPAT_ASYNC if async_commit else 0) | \
            {0: 0, 1: 0, 2: INCOMPAT_CSUM_V2, 3: INCOMPAT_CSUM_V3}[csum] | \
            (INCOMPAT_FAST_COMMIT if self.fc_flag else 0)
        self.seed = crc32c(0xFFFFFFFF, self.uuid)
        if csum == 3:
            self.tag_bytes = 16
        else:
            self.tag_bytes = 12 + (2 if csum == 2 else 0) - \
                (0 if is64 else 4)
        self.blocks = {}
        self.owner = {}
        self.trans = []
        self.cur = self.first
        self.fc_list = []
        # expectations the scenario adds
        self.exit = [0]
        self.exit_stale = None
        self.warn = []
        self.fatal = False
        self.replay_aborts = False
        self.no_header = False
        self.sb_seq = None
        self.sb_start = None
        self.truncate_at = None
        self.sb_damage = None
        self.verify = []
        self.notes = []
        self.fc_inode_checks = []

    # -- log positions --
    def wrap(self, b):
        if b >= self.log_end:
            b -= self.log_end - self.first
        return b

    def take(self):
        b = self.cur
        self.cur = self.wrap(self.cur + 1)
        return b

    def put(self, jb, data, t):
        assert len(data) == self.bs and jb < self.maxlen
        self.blocks[jb] = bytes(data)
        self.owner[jb] = t
        if t is not None:
            t.jblocks.append(jb)

    def header(self, buf, btype, tid):
        struct.pack_into(">III", buf, 0, JBD2_MAGIC, btype, tid)

    # -- transactions --
    def begin(self, tid, role="live", at=None):
        if at is not None:
            self.cur = at
        t = Trans(tid & 0xFFFFFFFF, role)
        self.trans.append(t)
        return t

    def data_for(self, t, tg):
        if tg.content is not None:
            c = tg.content
        else:
            c = pattern("e4time journal test: tid %u fsblock %d" %
                        (t.tid, tg.fsblock), self.bs)
        if tg.escape:
            c = MAGIC_BE + c[4:]
        return c

    def desc(self, t, tags, no_last=False, bad_csum=False, tid=None):
        bs = self.bs
        djb = self.take()
        buf = bytearray(bs)
        self.header(buf, DESCRIPTOR, t.tid if tid is None else tid)
        pos = 12
        entries = []
        datas = []
        limit = bs - (4 if self.csum >= 2 else 0)
        for i, tg in enumerate(tags):
            content = self.data_for(t, tg)
            escaped = content[:4] == MAGIC_BE
            copy = b"\0\0\0\0" + content[4:] if escaped else content
            flags = FLAG_ESCAPE if escaped else 0
            with_uuid = i == 0 or tg.uuid
            if not with_uuid:
                flags |= FLAG_SAME_UUID
            if i == len(tags) - 1 and not no_last:
                flags |= FLAG_LAST_TAG
            csum = 0
            if self.csum >= 2:
                csum = crc32c(crc32c(self.seed, struct.pack(">I", t.tid)),
                              copy)
                if tg.bad_csum:
                    csum ^= 0x5A5A
            lo = tg.fsblock & 0xFFFFFFFF
            hi = tg.fsblock >> 32
            assert self.is64 or hi == 0
            if self.csum == 3:
                tb = struct.pack(">IIII", lo, flags,
                                 hi if self.is64 else tg.hi_garbage, csum)
            else:
                tb = struct.pack(">IHH", lo, csum & 0xFFFF if self.csum == 2
                                 else 0, flags)
                if self.is64:
                    tb += struct.pack(">I", hi)
                if self.csum == 2:
                    tb += b"\0\0"
            assert len(tb) == self.tag_bytes
            buf[pos:pos + len(tb)] = tb
            pos += len(tb)
            if with_uuid:
                buf[pos:pos + 16] = self.uuid
                pos += 16
            if pos > limit:
                raise RuntimeError("descriptor overflows")
            datas.append(copy)
            entries.append({"fsblock": tg.fsblock, "escaped": escaped,
                            "bad_csum": tg.bad_csum, "copy": copy,
                            "home": content})
        if self.csum >= 2:
            c = crc32c(self.seed, buf)
            if bad_csum:
                c ^= 1
            struct.pack_into(">I", buf, bs - 4, c)
        if bad_csum:
            t.csum_bad = True
        self.put(djb, buf, t)
        t.crc = crc32_be(t.crc, buf)
        for e, copy in zip(entries, datas):
            e["jblock"] = self.take()
            self.put(e["jblock"], copy, t)
            t.crc = crc32_be(t.crc, copy)
        t.descs.append((djb, entries))
        return djb

    def revoke(self, t, fsblocks, rcount=None, bad_csum=False):
        bs = self.bs
        jb = self.take()
        buf = bytearray(bs)
        self.header(buf, REVOKE, t.tid)
        rec = 8 if self.is64 else 4
        pos = 16
        for b in fsblocks:
            struct.pack_into(">Q" if rec == 8 else ">I", buf, pos, b)
            pos += rec
        assert pos <= bs - (4 if self.csum >= 2 else 0)
        struct.pack_into(">I", buf, 12, pos if rcount is None else rcount)
        if self.csum >= 2:
            c = crc32c(self.seed, buf)
            if bad_csum:
                c ^= 1
            struct.pack_into(">I", buf, bs - 4, c)
        if bad_csum:
            t.csum_bad = True
        self.put(jb, buf, t)
        # what the kernel takes from it: records up to r_count, none at
        # all when r_count runs into the tail (scan_revoke_records)
        r = pos if rcount is None else rcount
        names = []
        off = 16
        if r > bs - (4 if self.csum >= 2 else 0):
            r = 0
        while off + rec <= r:
            names.append(be64(buf, off) if rec == 8 else be32(buf, off))
            off += rec
        t.revokes.append((jb, names))
        return jb

    def commit(self, t, sec=None, nsec=None, bad_csum=False, tid=None):
        bs = self.bs
        if sec is None:
            sec = BASE_TIME + 100 + 10 * (t.tid & 0xFFFF)
        if nsec is None:
            nsec = (t.tid * 123456789 + 987) % 1000000000
        jb = self.take()
        buf = bytearray(bs)
        self.header(buf, COMMIT, t.tid if tid is None else tid)
        struct.pack_into(">QI", buf, 0x30, sec, nsec)
        if self.csum == 1:
            buf[0x0C] = 1
            buf[0x0D] = 4
            struct.pack_into(">I", buf, 0x10, t.crc ^ (1 if bad_csum else 0))
        elif self.csum >= 2:
            c = crc32c(self.seed, buf)
            struct.pack_into(">I", buf, 0x10, c ^ (1 if bad_csum else 0))
        if bad_csum:
            t.csum_bad = True
        self.put(jb, buf, t)
        t.commit_jb = jb
        t.commit_time = (sec, nsec)
        return jb

    def raw(self, jb, data, t=None):
        """Any block (a stale leftover, garbage)."""
        self.put(jb, data, t)

    # -- fast commits (fs/ext4/fast_commit.c, 6.x layout) --
    def fast_commit(self, tid, records, at_block=None, role="fast_commit",
                    head=True):
        """records: list of ("inode", ino, raw) / ("add_range", ino, lblk,
        len, pblk) / ("pad",).  Lays out one fast commit ending with its
        TAIL, as ext4_fc_perform_commit does."""
        bs = self.bs
        t = Trans(tid, role)
        t.fc = {"inodes": [], "blocks": []}
        blk = self.fc_first if at_block is None else at_block
        state = {"buf": bytearray(bs), "off": 0, "crc": 0, "blk": blk}
        t.fc["first"] = blk

        def flush():
            self.put(state["blk"], state["buf"], t)
            t.fc["blocks"].append(state["blk"])
            state["blk"] += 1
            state["buf"] = bytearray(bs)
            state["off"] = 0

        def reserve(n):
            remaining = bs - 4 - state["off"]
            if n <= remaining:
                return
            # PAD to the end of the block (ext4_fc_reserve_space)
            o = state["off"]
            struct.pack_into("<HH", state["buf"], o, FC_PAD, remaining)
            state["crc"] = crc32c(state["crc"], state["buf"][o:bs])
            flush()

        def tlv(tag, value):
            reserve(4 + len(value))
            o = state["off"]
            b = state["buf"]
            struct.pack_into("<HH", b, o, tag, len(value))
            b[o + 4:o + 4 + len(value)] = value
            state["crc"] = crc32c(state["crc"], b[o:o + 4 + len(value)])
            state["off"] += 4 + len(value)
            return o

        if head:
            tlv(FC_HEAD, struct.pack("<II", 0, tid))
        for r in records:
            if r[0] == "inode":
                ino, raw = r[1], r[2]
                o = tlv(FC_INODE, struct.pack("<I", ino) + bytes(raw))
                t.fc["inodes"].append({"ino": ino, "jblock": state["blk"],
                                       "offset": o + 8, "len": len(raw)})
            elif r[0] == "add_range":
                ino, lblk, n, pblk = r[1:]
                ext = struct.pack("<IHHI", lblk, n, pblk >> 32,
                                  pblk & 0xFFFFFFFF)
                tlv(FC_ADD_RANGE, struct.pack("<I", ino) + ext)
            elif r[0] == "pad":
                reserve(bs)  # pads the rest of this block
        reserve(12)
        o = state["off"]
        b = state["buf"]
        struct.pack_into("<HHI", b, o, FC_TAIL, bs - o - 4, tid)
        crc = crc32c(state["crc"], b[o:o + 8])
        struct.pack_into("<I", b, o + 8, crc)
        flush()
        t.fc["nblocks"] = len(t.fc["blocks"])
        self.fc_list.append(t)
        return t

    # -- writing it out --
    def finish(self, seq, start, head=0):
        fs = self.fs
        self.sb_seq = seq & 0xFFFFFFFF
        self.sb_start = start
        zero = bytes(self.bs)
        for jb in range(1, self.maxlen):
            fs.write_block(fs.jmap[jb], self.blocks.get(jb, zero))
        sb = bytearray(fs.jsb0)
        struct.pack_into(">I", sb, 0x04, SB_V2)
        struct.pack_into(">IIIIII", sb, 0x18, self.sb_seq, start, 0,
                         self.compat, self.incompat, 0)
        sb[0x50] = 4 if self.csum >= 2 else 0
        struct.pack_into(">I", sb, 0x58, head)
        struct.pack_into(">I", sb, 0xFC, 0)
        if self.csum >= 2:
            struct.pack_into(">I", sb, 0xFC, crc32c(0xFFFFFFFF, sb[:1024]))
        if self.sb_damage == "magic":
            struct.pack_into(">I", sb, 0, 0xC03B3999)
        elif self.sb_damage == "blocksize":
            struct.pack_into(">I", sb, 0x0C, self.bs * 2)
        elif self.sb_damage == "csum":
            struct.pack_into(">I", sb, 0xFC, be32(sb, 0xFC) ^ 0x1000)
        fs.write_block(fs.jmap[0], bytes(sb))
        fs.set_needs_recovery(start != 0)
        if self.truncate_at is not None:
            jb, extra = self.truncate_at
            with open(fs.path, "r+b") as f:
                f.truncate(fs.jmap[jb] * self.bs + extra)


# ------------------------------------------------------------------ #
# Reading the finished image back, as the kernel would

class JImage:
    """The journal of an image, read through the journal inode's map."""

    def __init__(self, fs, path=None):
        self.fs = fs
        self.path = path or fs.path
        self.bs = fs.bs
        self.size = os.path.getsize(self.path)
        self.fs_size = self.size  # the device: the image file
        self.sb = self.block(0)
        sb = self.sb
        self.magic_ok = be32(sb, 0) == JBD2_MAGIC and \
            be32(sb, 4) in (SB_V1, SB_V2) and be32(sb, 0x0C) == self.bs
        self.maxlen = be32(sb, 0x10)
        self.first = be32(sb, 0x14)
        self.seq = be32(sb, 0x18)
        self.start = be32(sb, 0x1C)
        self.compat = be32(sb, 0x24)
        self.incompat = be32(sb, 0x28)
        self.uuid = bytes(sb[0x30:0x40])
        self.num_fc = be32(sb, 0x54)
        self.csum3 = bool(self.incompat & INCOMPAT_CSUM_V3)
        self.csum2 = bool(self.incompat & INCOMPAT_CSUM_V2)
        self.csum23 = self.csum2 or self.csum3
        self.v1 = bool(self.compat & COMPAT_CHECKSUM)
        self.is64 = bool(self.incompat & INCOMPAT_64BIT)
        self.fc = bool(self.incompat & INCOMPAT_FAST_COMMIT)
        self.async_commit = bool(self.incompat & INCOMPAT_ASYNC)
        self.seed = crc32c(0xFFFFFFFF, self.uuid)
        if self.csum3:
            self.tag_bytes = 16
        else:
            self.tag_bytes = 12 + (2 if self.csum2 else 0) - \
                (0 if self.is64 else 4)
        self.sb_csum_ok = True
        if self.csum23:
            s = bytearray(sb[:1024])
            s[0xFC:0x100] = b"\0\0\0\0"
            self.sb_csum_ok = crc32c(0xFFFFFFFF, s) == be32(sb, 0xFC)

    def block(self, jb):
        """Journal block jb, or None when the image ends before it."""
        if jb >= len(self.fs.jmap):
            return None
        off = self.fs.jmap[jb] * self.bs
        if off + self.bs > self.size:
            return None
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(self.bs)

    def tags(self, buf):
        """count_tags() / the replay loop: (offset, flags, blocknr)."""
        size = self.bs - (4 if self.csum23 else 0)
        pos = 12
        out = []
        while pos + self.tag_bytes <= size:
            flags = be16(buf, pos + 6)
            blocknr = be32(buf, pos)
            if self.is64:
                blocknr |= be32(buf, pos + 8) << 32
            out.append((pos, flags, blocknr))
            pos += self.tag_bytes
            if not flags & FLAG_SAME_UUID:
                pos += 16
            if flags & FLAG_LAST_TAG:
                break
        return out

    def tail_ok(self, buf):
        if not self.csum23:
            return True
        b = bytearray(buf)
        b[-4:] = b"\0\0\0\0"
        return crc32c(self.seed, b) == be32(buf, self.bs - 4)

    def commit_csum_ok(self, buf):
        if not self.csum23:
            return True
        b = bytearray(buf)
        b[0x10:0x14] = b"\0\0\0\0"
        return crc32c(self.seed, b) == be32(buf, 0x10)

    def tag_csum_ok(self, buf, pos, data, seq):
        if not self.csum23:
            return True
        c = crc32c(crc32c(self.seed, struct.pack(">I", seq)), data)
        if self.csum3:
            return be32(buf, pos + 12) == c
        return be16(buf, pos + 4) == c & 0xFFFF


SCAN, REVOKE_PASS, REPLAY = 0, 1, 2


class Failed(Exception):
    def __init__(self, err, why):
        Exception.__init__(self, why)
        self.err = err
        self.why = why


def kernel_recover(ji, flavour="kernel"):
    """Linux 6.18 jbd2_journal_recover() on the journal of ji: what is
    replayed, where the log ends, and why.  flavour "e2fsck": e2fsck's
    copy, whose writes past the end of the device fail one by one where
    the kernel's __getblk() fails and aborts the replay (-ENOMEM);
    "e2fsck-1.47": also wraps at maxlen even with fast commits."""
    e2fsck_1_47 = flavour == "e2fsck-1.47"
    device_blocks = ji.fs_size // ji.bs
    res = {"recovery": "none", "error": None, "why": None,
           "start_tid": ji.seq, "end_tid": None, "end_jblock": None,
           "end_reason": None, "failed_commit": None,
           "replayed": {}, "revoke_hits": [], "csum_skipped": [],
           "fc": None, "replay_order": []}
    if not ji.magic_ok:
        res["recovery"] = "refused"
        res["why"] = "no valid journal superblock"
        return res
    if ji.csum23 and not ji.sb_csum_ok:
        res["recovery"] = "refused"
        res["why"] = "journal superblock checksum"
        return res
    if ji.start == 0:
        return res
    j_last = ji.maxlen
    j_fc_first = j_fc_last = None
    if ji.fc:
        j_fc_last = ji.maxlen
        if not e2fsck_1_47:
            j_last = ji.maxlen - ji.num_fc
        j_fc_first = ji.maxlen - ji.num_fc + 1
    total = ji.maxlen

    def wrap(b):
        if b >= j_last:
            b -= j_last - ji.first
        return b

    def jread(b):
        if b >= total:
            raise Failed(EFSCORRUPTED, "journal block %d beyond maxlen" % b)
        buf = ji.block(b)
        if buf is None:
            raise Failed(EIO, "cannot read journal block %d" % b)
        return buf

    info = {"end": None, "head": None}
    revoked = {}

    def do_one_pass(pas):
        nxt = ji.seq
        blk = ji.start
        crc32_sum = 0xFFFFFFFF
        need_check_commit_time = False
        last_trans_commit_time = 0
        success = None
        block_error = False
        while True:
            if pas != SCAN and tid_geq(nxt, info["end"]):
                break
            here = blk
            buf = jread(blk)
            blk = wrap(blk + 1)
            if be32(buf, 0) != JBD2_MAGIC:
                if pas == SCAN and res["end_reason"] is None:
                    res["end_jblock"], res["end_reason"] = here, "no magic"
                break
            btype = be32(buf, 4)
            seq = be32(buf, 8)
            if seq != nxt:
                if pas == SCAN and res["end_reason"] is None:
                    res["end_jblock"] = here
                    res["end_reason"] = "tid %u, expected %u" % (seq, nxt)
                break
            if btype == DESCRIPTOR:
                if ji.csum23 and not ji.tail_ok(buf):
                    if pas != SCAN:
                        raise Failed(EFSBADCRC, "descriptor %d" % here)
                    need_check_commit_time = True
                if pas != REPLAY:
                    if pas == SCAN and ji.v1 and \
                            not need_check_commit_time and \
                            info["end"] is None:
                        # calc_chksums
                        n = len(ji.tags(buf))
                        crc32_sum = crc32_be(crc32_sum, buf)
                        ioerr = False
                        for _ in range(n):
                            io = blk
                            blk = wrap(blk + 1)
                            try:
                                d = jread(io)
                            except Failed:
                                ioerr = True
                                break
                            crc32_sum = crc32_be(crc32_sum, d)
                        if ioerr:
                            pass  # "break" out of the switch: next block
                        continue
                    blk = wrap(blk + len(ji.tags(buf)))
                    continue
                for pos, flags, blocknr in ji.tags(buf):
                    io = blk
                    blk = wrap(blk + 1)
                    try:
                        d = jread(io)
                    except Failed as e:
                        success = e.err
                        continue
                    r = revoked.get(blocknr)
                    if r is not None and not tid_gt(nxt, r):
                        res["revoke_hits"].append((blocknr, nxt, io))
                        continue
                    if not ji.tag_csum_ok(buf, pos, d, seq):
                        success = EFSBADCRC
                        block_error = True
                        res["csum_skipped"].append((blocknr, nxt, io))
                        continue
                    if blocknr >= device_blocks:
                        if flavour == "kernel":
                            raise Failed("ENOMEM", "home block %d beyond "
                                         "the device: __getblk fails, "
                                         "\"JBD2: Out of memory during "
                                         "recovery\"" % blocknr)
                        continue
                    if flags & FLAG_ESCAPE:
                        d = MAGIC_BE + d[4:]
                    res["replayed"][blocknr] = (io, nxt, bool(
                        flags & FLAG_ESCAPE), d)
                    res["replay_order"].append((blocknr, nxt, io))
                continue
            elif btype == COMMIT:
                commit_time = be64(buf, 0x30)
                if need_check_commit_time:
                    if commit_time >= last_trans_commit_time:
                        raise Failed(EFSBADCRC,
                                     "invalid checksum in transaction %u "
                                     "(commit at journal block %d)" %
                                     (nxt, here))
                    # ignore_crc_mismatch: likely stale, end with success
                    res["end_jblock"] = here
                    res["end_reason"] = "bad checksum in tid %u taken " \
                        "for stale data (commit time older)" % nxt
                    break  # goto done
                chksum_error = False
                if pas == SCAN and ji.v1:
                    found = be32(buf, 0x10)
                    if info["end"] is not None:
                        res["failed_commit"] = info["end"]
                        continue  # break out of the switch
                    if not ((crc32_sum == found and buf[0x0C] == 1 and
                             buf[0x0D] == 4) or
                            (buf[0x0C] == 0 and buf[0x0D] == 0 and
                             found == 0)):
                        chksum_error = True
                    else:
                        crc32_sum = 0xFFFFFFFF
                if chksum_error or (pas == SCAN and
                                    not ji.commit_csum_ok(buf)):
                    if commit_time < last_trans_commit_time:
                        res["end_jblock"] = here
                        res["end_reason"] = "bad commit checksum in tid " \
                            "%u taken for stale data (commit time " \
                            "older)" % nxt
                        break  # goto ignore_crc_mismatch -> done
                    info["end"] = nxt
                    info["head"] = here
                    if not ji.async_commit:
                        res["failed_commit"] = nxt
                        res["end_jblock"] = here
                        res["end_reason"] = "bad commit checksum in tid %u" \
                            % nxt
                        continue  # break out of the switch
                if pas == SCAN:
                    last_trans_commit_time = commit_time
                nxt = (nxt + 1) & 0xFFFFFFFF
                continue
            elif btype == REVOKE:
                if pas == SCAN and not ji.tail_ok(buf):
                    need_check_commit_time = True
                if pas != REVOKE_PASS:
                    continue
                rcount = be32(buf, 12)
                if rcount > ji.bs - (4 if ji.csum23 else 0):
                    raise Failed(EINVAL, "revoke block %d: r_count %d" %
                                 (here, rcount))
                rec = 8 if ji.is64 else 4
                off = 16
                while off + rec <= rcount:
                    b = be64(buf, off) if rec == 8 else be32(buf, off)
                    off += rec
                    if b not in revoked or tid_gt(nxt, revoked[b]):
                        revoked[b] = nxt
                continue
            else:
                if pas == SCAN:
                    res["end_jblock"] = here
                    res["end_reason"] = "block type %d" % btype
                break
        # done:
        if pas == SCAN:
            if info["end"] is None:
                info["end"] = nxt
        elif info["end"] != nxt:
            if success is None:
                success = EIO
        if ji.fc and pas != REVOKE_PASS:
            err = fc_do_one_pass(pas)
            if err:
                success = err
        if block_error and success is None:
            success = EIO
        return success

    fc_state = {}

    def fc_do_one_pass(pas):
        expected = info["end"]
        b = j_fc_first
        err = None
        while b <= j_fc_last:
            try:
                buf = jread(b)
            except Failed as e:
                err = e.err
                break
            r = fc_replay(buf, pas, b - j_fc_first, expected)
            b += 1
            if isinstance(r, str) or r == FC_REPLAY_STOP:
                err = r if isinstance(r, str) else None
                break
        return err

    inode_size = le16(ji.fs.read_bytes(1024, 1024), 0x58)

    def fc_len_ok(tag, n):
        if tag == FC_ADD_RANGE:
            return n == 16
        if tag == FC_DEL_RANGE:
            return n == 12
        if tag in (FC_CREAT, FC_LINK, FC_UNLINK):
            return 1 <= n - 8 <= 255
        if tag == FC_INODE:
            return 128 <= n - 4 <= inode_size
        if tag == FC_PAD:
            return True
        if tag == FC_TAIL:
            return n >= 8
        if tag == FC_HEAD:
            return n == 8
        return False

    def fc_replay(buf, pas, off, expected):
        st = fc_state
        if pas == SCAN:
            if st.get("expected_off", 0) == 0:
                st.update(cur_tag=0, num_tags=0, crc=0, inodes=[],
                          cur_inodes=[], blocks=0)
                if le16(buf, 0) != FC_HEAD:
                    return 0
            if off != st.get("expected_off", 0):
                return EFSCORRUPTED
            st["expected_off"] = off + 1
            ret = FC_REPLAY_CONTINUE
            cur = 0
            while cur <= ji.bs - 4:
                tag, n = le16(buf, cur), le16(buf, cur + 2)
                val = cur + 4
                if n > ji.bs - val or not fc_len_ok(tag, n):
                    return FC_REPLAY_STOP if st["num_tags"] else ECANCELED
                if tag in (FC_ADD_RANGE, FC_DEL_RANGE, FC_LINK, FC_UNLINK,
                           FC_CREAT, FC_INODE, FC_PAD):
                    st["cur_tag"] += 1
                    st["crc"] = crc32c(st["crc"], buf[cur:val + n])
                    if tag == FC_INODE:
                        st["cur_inodes"].append(
                            (le32(buf, val), j_fc_first + off, val + 4,
                             n - 4, bytes(buf[val + 4:val + n])))
                elif tag == FC_TAIL:
                    st["cur_tag"] += 1
                    st["crc"] = crc32c(st["crc"], buf[cur:val + 4])
                    if le32(buf, val) == expected and \
                            le32(buf, val + 4) == st["crc"]:
                        st["num_tags"] = st["cur_tag"]
                        st["inodes"] += st["cur_inodes"]
                        st["cur_inodes"] = []
                        st["blocks"] = off + 1
                    else:
                        ret = FC_REPLAY_STOP if st["num_tags"] else EFSBADCRC
                    st["crc"] = 0
                elif tag == FC_HEAD:
                    if le32(buf, val) != 0:
                        ret = EOPNOTSUPP
                    elif le32(buf, val + 4) != expected:
                        ret = FC_REPLAY_STOP
                    else:
                        st["cur_tag"] += 1
                        st["crc"] = crc32c(st["crc"], buf[cur:val + n])
                else:
                    ret = FC_REPLAY_STOP if st["num_tags"] else ECANCELED
                if isinstance(ret, str) or ret == FC_REPLAY_STOP:
                    break
                cur = val + n
            return ret
        # PASS_REPLAY: the tags counted in the scan
        if not st.get("num_tags"):
            return 0
        res["fc"] = {"tid": expected, "inodes": st["inodes"],
                     "nblocks": st["blocks"]}
        return FC_REPLAY_STOP

    stage = SCAN
    try:
        res["recovery"] = "ok"
        err = do_one_pass(SCAN)
        if err:
            raise Failed(err, "scan pass: " + err)
        res["end_tid"] = info["end"]
        stage = REVOKE_PASS
        err = do_one_pass(REVOKE_PASS)
        if err:
            raise Failed(err, "revoke pass: " + err)
        stage = REPLAY
        err = do_one_pass(REPLAY)
        if err:
            raise Failed(err, "replay pass: " + err)
    except Failed as e:
        # jbd2_journal_recover() syncs what the replay pass wrote
        # whatever the error; an error in an earlier pass replays nothing
        res["recovery"] = "fails"
        res["error"] = e.err
        res["why"] = e.why
        res["end_tid"] = info["end"]
        if stage != REPLAY:
            res["replayed"] = {}
            res["fc"] = None
    res["revoked"] = revoked
    return res


# ------------------------------------------------------------------ #
# EXPECT from the builder, checked against the model

def expect_of(j, name, desc):
    fs = j.fs
    ji = JImage(fs)
    model = kernel_recover(ji)
    seq = j.sb_seq

    def order_key(t):
        return ((t.tid - seq) ^ 0x80000000) & 0xFFFFFFFF

    live = [t for t in j.trans if t.role == "live"]
    # revoke semantics: a record in live transaction R cancels the copies
    # of that block in every live transaction T with R >= T.
    live_revokes = {}
    for t in live:
        for _, names in t.revokes:
            for b in names:
                if b not in live_revokes or tid_gt(t.tid, live_revokes[b]):
                    live_revokes[b] = t.tid

    def tx(t):
        blocks = []
        for djb, entries in t.descs:
            if j.owner.get(djb) is not t:
                continue  # its descriptor was overwritten: tags unknown
            for e in entries:
                flags = []
                if e["escaped"]:
                    flags.append("escaped")
                if e["bad_csum"]:
                    flags.append("csum_bad")
                if t.role == "live" and e["fsblock"] in live_revokes and \
                        tid_geq(live_revokes[e["fsblock"]], t.tid):
                    flags.append("revoked")
                if e["fsblock"] >= fs.blocks_count:
                    flags.append("out_of_fs")
                if j.owner.get(e["jblock"]) is not t:
                    flags.append("overwritten")
                    t.optional_flags.setdefault(e["jblock"], []).append(
                        "csum_bad")
                blocks.append({"fsblock": e["fsblock"], "jblock": e["jblock"],
                               "flags": flags})
        revoked = []
        for rjb, names in t.revokes:
            if j.owner.get(rjb) is t:
                revoked += names
        surviving = [b for b in t.jblocks if j.owner.get(b) is t]
        structural = [d for d, _ in t.descs] + [r for r, _ in t.revokes] + \
            ([t.commit_jb] if t.commit_jb is not None else [])
        firsts = [b for b in t.jblocks if b in structural and b in surviving]
        first = firsts[0] if firsts else (t.jblocks[0] if t.jblocks else None)
        nblocks = len(t.jblocks) - t.jblocks.index(first) if first is not None \
            else 0
        committed = t.commit_jb is not None and j.owner.get(t.commit_jb) is t
        if j.csum == 0:
            csum = "none"
        else:
            csum = "bad" if t.csum_bad else "ok"
        ct = None
        if committed and t.commit_time != (0, 0):
            ct = iso(*t.commit_time)
        state = {"live": "live", "stale": "stale"}.get(t.role, "live")
        d = {"tid": t.tid, "state": state, "committed": committed,
             "csum": csum, "commit_time": ct, "first_block": first,
             "journal_blocks": nblocks, "blocks": blocks,
             "revoked": revoked, "fc_inodes": []}
        d["_presence"] = t.presence or {"live": "must", "stale": "must"}.get(
            t.role, "may")
        d["_stale_only"] = t.role in ("stale", "after")
        if t.role == "after":
            d["_presence"] = "may"
        if t.role in ("end", "after"):
            d["_not_live"] = True
            d["_states"] = ["live", "stale"]
            d["_fields"] = t.fields or ["csum"] if t.role == "end" else \
                t.fields or []
        if t.states:
            d["_states"] = t.states
        if t.fields is not None:
            d["_fields"] = t.fields
        if t.optional_flags:
            d["_optional_flags"] = {str(k): v for k, v in
                                    t.optional_flags.items()}
        return d

    def fctx(t):
        return {"tid": t.tid, "state": "fast_commit", "committed": True,
                "csum": "ok", "commit_time": None,
                "first_block": t.fc["first"],
                "journal_blocks": t.fc["nblocks"], "blocks": [],
                "revoked": [], "fc_inodes": t.fc["inodes"],
                "_presence": "must" if t.role == "fast_commit" else "may",
                "_stale_only": t.role != "fast_commit",
                "_states": ["fast_commit"] if t.role == "fast_commit"
                else ["fast_commit", "stale"]}

    txs = sorted([t for t in j.trans if t.role != "hidden"], key=order_key)
    out = [tx(t) for t in txs]
    # fast commits after the full commit with the tid before theirs
    for t in j.fc_list:
        if t.role == "hidden":
            continue
        f = fctx(t)
        k = order_key(t)
        i = 0
        while i < len(out) and ((out[i]["tid"] - seq) ^ 0x80000000) & \
                0xFFFFFFFF < k:
            i += 1
        out.insert(i, f)

    # --- the builder's account against the model ---
    if not j.fatal and j.sb_damage is None and j.truncate_at is None:
        if j.sb_start == 0:
            if model["recovery"] != "none":
                raise ModelMismatch("clean journal but model: %s" % model)
        else:
            if model["recovery"] != "ok" and not j.csum_errors_ok() and \
                    not j.replay_aborts:
                raise ModelMismatch("model: recovery %s (%s)" % (
                    model["recovery"], model["why"]))
            if j.replay_aborts and model["recovery"] != "fails":
                raise ModelMismatch("model: the replay does not abort")
            want_live = [t.tid for t in sorted(live, key=order_key)]
            n = (model["end_tid"] - seq) & 0xFFFFFFFF
            got_live = [(seq + i) & 0xFFFFFFFF for i in range(n)]
            if want_live != got_live:
                raise ModelMismatch("live tids: builder %s, model %s (%s)" % (
                    want_live, got_live, model["end_reason"]))
            want = {}
            for t in sorted(live, key=order_key):
                for _, entries in t.descs:
                    for e in entries:
                        b = e["fsblock"]
                        if b in live_revokes and \
                                tid_geq(live_revokes[b], t.tid):
                            continue
                        if e["bad_csum"]:
                            continue
                        want[b] = (e["jblock"], t.tid, e["home"])
            got = {b: (v[0], v[1], v[3]) for b, v in
                   model["replayed"].items()}
            if want != got and not j.replay_aborts:
                raise ModelMismatch("replay: builder %s, model %s" % (
                    sorted((b, v[:2]) for b, v in want.items()),
                    sorted((b, v[:2]) for b, v in got.items())))
            fcw = [t for t in j.fc_list if t.role == "fast_commit"]
            fcm = model["fc"]
            if fcw or fcm:
                if not (fcw and fcm and len(fcw) == 1 and
                        fcm["tid"] == fcw[0].tid and
                        [(i[0], i[1], i[2]) for i in fcm["inodes"]] ==
                        [(i["ino"], i["jblock"], i["offset"])
                         for i in fcw[0].fc["inodes"]]):
                    raise ModelMismatch("fast commit: builder %s, model %s" %
                                        ([t.fc for t in fcw], fcm))
    elif j.fatal:
        if model["recovery"] != "fails" or model["replayed"]:
            raise ModelMismatch("expected recovery to fail, model: %s %s" %
                                (model["recovery"], model["why"]))

    hdr = {"internal": True, "blocksize": j.bs, "maxlen": j.maxlen,
           "first": j.first, "log_end": j.log_end, "fc_blocks": j.num_fc,
           "sequence": j.sb_seq, "start": j.sb_start, "csum": j.csum,
           "live": j.sb_start != 0,
           "features": feature_names(j.compat, j.incompat),
           "uuid": uuid_str(j.uuid)}
    journaled = sorted({e["fsblock"] for t in j.trans for _, es in t.descs
                        for e in es if e["fsblock"] < fs.blocks_count})
    if model["recovery"] == "fails" or model["failed_commit"] is not None:
        mount = "refused"
    elif model["recovery"] == "refused":
        mount = "refused"
    else:
        mount = "ok"
    kern = {"recovery": model["recovery"], "error": model["error"],
            "mount": mount,
            "why": model["why"], "end_tid": model["end_tid"],
            "end_jblock": model["end_jblock"],
            "end_reason": model["end_reason"],
            "failed_commit": model["failed_commit"],
            "replayed": [{"fsblock": b, "jblock": v[0], "tid": v[1],
                          "escaped": v[2]}
                         for b, v in sorted(model["replayed"].items())],
            "not_replayed": [b for b in journaled
                             if b not in model["replayed"]],
            "fc": None if not model["fc"] else
            {"tid": model["fc"]["tid"],
             "inodes": [i[0] for i in model["fc"]["inodes"]]}}
    return {"scenario": name, "description": desc, "journal": hdr,
            "no_header": j.no_header,
            "transactions": out, "exit": j.exit,
            "exit_stale": j.exit_stale if j.exit_stale is not None
            else j.exit,
            "warn": j.warn, "kernel": kern, "verify": j.verify,
            "notes": j.notes}


Journal.csum_errors_ok = lambda self: any(
    e["bad_csum"] for t in self.trans if t.role == "live"
    for _, es in t.descs for e in es)


# ------------------------------------------------------------------ #
# Scenarios

SCENARIOS = {}


def scenario(name, desc, verify=("e2fsck", "kernel")):
    def reg(fn):
        SCENARIOS[name] = (fn, desc, list(verify))
        return fn
    return reg


def t_time(i):
    return BASE_TIME + 1000 + 60 * i, (i * 111111111 + 7) % 1000000000


def three_transactions(j, B, tid0, at, two_desc_in=1, escape=True,
                       uuid_again=False, zero_time_in=None):
    """Three committed transactions; the second has two descriptor
    blocks; one copy is escaped; one tag repeats the UUID."""
    j.cur = at
    ts = []
    k = 0
    for i in range(3):
        t = j.begin(tid0 + i)
        n = 3
        tags = [Tag(B[k + x]) for x in range(n)]
        k += n
        if i == 0 and escape:
            tags[1].escape = True
        if i == 2 and uuid_again:
            tags[2].uuid = True
        j.desc(t, tags)
        if i == two_desc_in:
            j.desc(t, [Tag(B[k]), Tag(B[k + 1])])
            k += 2
        if zero_time_in == i:
            j.commit(t, 0, 0)
        else:
            j.commit(t, *t_time(i))
        ts.append(t)
    return ts


def tags_scenario(ctx, bs, feats, csum, is64, tid0, at, zero_time=False):
    fs = FS(ctx, bs=bs, features=feats)
    j = Journal(fs, csum=csum, is64=is64)
    B = fs.free_blocks(12)
    three_transactions(j, B, tid0, at, uuid_again=True,
                       zero_time_in=1 if zero_time else None)
    j.finish(tid0, at)
    return j


@scenario("tags8", "1k blocks, no checksums, 32-bit: 8-byte tags; three "
          "transactions, one with two descriptors, one escaped copy, one "
          "commit time of 0 (unknown), a repeated UUID")
def sc_tags8(ctx):
    return tags_scenario(ctx, 1024, "^64bit,^metadata_csum", 0, False, 7, 40,
                         zero_time=True)


@scenario("tags12", "4k blocks, no checksums, 64bit: 12-byte tags")
def sc_tags12(ctx):
    return tags_scenario(ctx, 4096, "^metadata_csum", 0, True, 100, 500)


@scenario("tags10", "4k blocks, csum_v2, 32-bit: 10-byte tags, 16-bit "
          "data checksums")
def sc_tags10(ctx):
    return tags_scenario(ctx, 4096, "^64bit", 2, False, 3, 2)


@scenario("tags14", "1k blocks, csum_v2, 64bit: 14-byte tags")
def sc_tags14(ctx):
    return tags_scenario(ctx, 1024, "", 2, True, 0x7FFFFFF0, 900)


@scenario("tags16", "4k blocks, csum_v3, 64bit: 16-byte tags")
def sc_tags16(ctx):
    return tags_scenario(ctx, 4096, "", 3, True, 55, 123)


@scenario("tags16_32", "4k blocks, csum_v3 without 64bit: 16-byte tags "
          "whose blocknr_high holds garbage the kernel ignores")
def sc_tags16_32(ctx):
    fs = FS(ctx, bs=4096, features="^64bit")
    j = Journal(fs, csum=3, is64=False)
    B = fs.free_blocks(12)
    j.cur = 300
    for i in range(3):
        t = j.begin(20 + i)
        tags = [Tag(B[3 * i + x], hi_garbage=0xDEAD0000 + x)
                for x in range(3)]
        if i == 1:
            tags[0].escape = True
        j.desc(t, tags)
        j.commit(t, *t_time(i))
    j.finish(20, 300)
    j.notes.append("tag3 blocknr_high is only read with INCOMPAT_64BIT "
                   "(recovery.c read_tag_block)")
    return j


@scenario("revoke32", "4k, no 64bit (4-byte revoke records), csum_v3: "
          "revokes of a block from an earlier transaction, of a block in "
          "the same transaction, a block journaled again after its revoke, "
          "and a revoke in an uncommitted transaction (not applied)")
def sc_revoke32(ctx):
    return revoke_scenario(ctx, "^64bit", False)


@scenario("revoke64", "4k, 64bit (8-byte revoke records, one >= 2^32), "
          "no checksums; same revokes as revoke32, two revoke blocks in "
          "one transaction")
def sc_revoke64(ctx):
    return revoke_scenario(ctx, "^metadata_csum", True)


def revoke_scenario(ctx, feats, is64):
    fs = FS(ctx, bs=4096, features=feats)
    j = Journal(fs, csum=0 if is64 else 3, is64=is64)
    A, Bb, C, D, E, F = fs.free_blocks(6)
    j.cur = 200
    t1 = j.begin(41)
    j.desc(t1, [Tag(A), Tag(Bb), Tag(C)])
    j.commit(t1, *t_time(1))
    t2 = j.begin(42)
    j.revoke(t2, [A])                       # A's copy in 41: not replayed
    j.desc(t2, [Tag(D)])
    if is64:
        j.revoke(t2, [(1 << 32) + 17, F])   # a second revoke block
    j.commit(t2, *t_time(2))
    t3 = j.begin(43)
    j.desc(t3, [Tag(E), Tag(F)])            # E revoked in its own
    j.revoke(t3, [E])                       # transaction: not replayed
    j.commit(t3, *t_time(3))
    t4 = j.begin(44)
    j.desc(t4, [Tag(A)])                    # A again after its revoke
    j.commit(t4, *t_time(4))
    t5 = j.begin(45, role="end")            # no commit: its revoke of C
    j.revoke(t5, [C])                       # is not applied
    j.desc(t5, [Tag(Bb)])
    t5.fields = []
    j.finish(41, 200)
    return j


@scenario("csum_v1", "4k, 64bit, COMPAT_CHECKSUM (crc32_be over "
          "descriptors and data in the commit block); a revoke block "
          "(not covered) and two descriptors in one transaction")
def sc_csum_v1(ctx):
    fs = FS(ctx, bs=4096, features="^metadata_csum")
    j = Journal(fs, csum=1, is64=True)
    B = fs.free_blocks(12)
    ts = three_transactions(j, B, 1000, 700)
    # a fourth with a revoke of one of the first transaction's blocks
    t = j.begin(1003)
    j.revoke(t, [B[0]])
    j.desc(t, [Tag(B[11], escape=True)])
    j.commit(t, *t_time(4))
    j.finish(1000, 700)
    return j


@scenario("csum_v1_1k", "1k, 32-bit, COMPAT_CHECKSUM")
def sc_csum_v1_1k(ctx):
    fs = FS(ctx, bs=1024, features="^64bit,^metadata_csum")
    j = Journal(fs, csum=1, is64=False)
    B = fs.free_blocks(12)
    three_transactions(j, B, 9, 1)
    j.finish(9, 1)
    return j


@scenario("wrap", "4k, csum_v3: the live log starts near the end of the "
          "log area, a transaction wraps to s_first, and the tids wrap "
          "from 0xfffffffe to 1; stale transactions before s_start and "
          "an older lap after the end")
def sc_wrap(ctx):
    fs = FS(ctx, bs=4096, features="")
    j = Journal(fs, csum=3, is64=True)
    B = fs.free_blocks(24)
    end = j.log_end
    # older lap, after where the live log will end
    j.cur = 30
    for k, tid in enumerate((0xFFFFFFF0, 0xFFFFFFF1)):
        t = j.begin(tid, role="stale")
        j.desc(t, [Tag(B[16 + 2 * k]), Tag(B[17 + 2 * k])])
        j.commit(t, *t_time(-10 + k))
    # checkpointed transactions just before s_start
    j.cur = end - 20
    for k, tid in enumerate((0xFFFFFFFB, 0xFFFFFFFC, 0xFFFFFFFD)):
        t = j.begin(tid, role="stale")
        j.desc(t, [Tag(B[20 + k])])
        j.commit(t, *t_time(-5 + k))
    start = j.cur
    # the live log
    t = j.begin(0xFFFFFFFE)
    j.desc(t, [Tag(B[0]), Tag(B[1])])
    j.commit(t, *t_time(0))
    t = j.begin(0xFFFFFFFF)                  # wraps inside its data
    j.desc(t, [Tag(B[x]) for x in range(2, 10)])
    j.commit(t, *t_time(1))
    t = j.begin(0)
    j.desc(t, [Tag(B[10]), Tag(B[11], escape=True)])
    j.revoke(t, [B[0]])
    j.commit(t, *t_time(2))
    t = j.begin(1)
    j.desc(t, [Tag(B[12])])
    j.commit(t, *t_time(3))
    assert j.cur < 30
    # the log ends at an unwritten block before the older lap
    j.finish(0xFFFFFFFE, start)
    return j


@scenario("wrap_fc", "4k, csum_v3, fast commit area of 16 blocks: the "
          "live log wraps at maxlen - num_fc_blks (the kernel), not at "
          "maxlen (e2fsck 1.47.0)", verify=("kernel", "e2fsck-1.47"))
def sc_wrap_fc(ctx):
    fs = FS(ctx, bs=4096, features="fast_commit")
    j = Journal(fs, csum=3, is64=True)
    B = fs.free_blocks(12)
    start = j.log_end - 3
    j.cur = start
    t = j.begin(70)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(0))
    t = j.begin(71)                         # wraps after its descriptor
    j.desc(t, [Tag(B[1]), Tag(B[2]), Tag(B[3])])
    j.commit(t, *t_time(1))
    t = j.begin(72)
    j.desc(t, [Tag(B[4])])
    j.commit(t, *t_time(2))
    j.finish(70, start)
    j.notes.append("e2fsck 1.47.0 wraps at maxlen: it reads the gap block "
                   "maxlen - num_fc_blks, finds no magic and replays tid 70 "
                   "only")
    return j


def fc_fs(ctx, populate=True):
    src = tempfile.mkdtemp(prefix="mkjournal-src.")
    try:
        for name, text in (("a.txt", "alpha\n"), ("b.txt", "bravo " * 900)):
            p = os.path.join(src, name)
            with open(p, "w") as f:
                f.write(text)
            os.utime(p, (BASE_TIME - 500, BASE_TIME - 400))
        return FS(ctx, bs=4096, features="fast_commit",
                  populate=src if populate else None)
    finally:
        shutil.rmtree(src)


def fc_inode_copy(fs, ino, when):
    """The raw inode (128 + i_extra_isize bytes) with new times."""
    raw = fs.raw_inode(ino)
    sec, nsec = when
    extra = le16(raw, 0x80)
    for base, ext in ((0x08, 0x8C), (0x0C, 0x84), (0x10, 0x88)):
        struct.pack_into("<I", raw, base, sec & 0xFFFFFFFF)
        if 128 + extra >= ext + 4:
            struct.pack_into("<I", raw, ext, nsec << 2 | ((sec >> 32) & 3))
    raw = fs.inode_csum(ino, raw)
    return bytes(raw[:128 + extra])


@scenario("fc_flag_clear_live", "4k, csum_v3, the filesystem has "
          "fast_commit but the live journal's fast_commit flag is clear (as "
          "a kernel without fast commits leaves it): recovery has no "
          "fast-commit area and the log, a transaction of which runs "
          "through the area's blocks, wraps at maxlen")
def sc_fc_flag_clear_live(ctx):
    fs = FS(ctx, bs=4096, features="fast_commit")
    j = Journal(fs, csum=3, is64=True, fc_flag=False, fc_area=False)
    B = fs.free_blocks(20)
    area = j.maxlen - be32(fs.jsb0, 0x54)    # where the area would start
    start = area - 3
    j.cur = start
    t = j.begin(30)
    j.desc(t, [Tag(B[0]), Tag(B[1])])
    j.commit(t, *t_time(0))                 # its commit in the area
    t = j.begin(31)                          # the area, then wraps
    j.desc(t, [Tag(B[2 + x]) for x in range(16)])
    j.commit(t, *t_time(1))
    t = j.begin(32)
    j.desc(t, [Tag(B[18])])
    j.commit(t, *t_time(2))
    assert j.cur < start
    j.finish(30, start)
    return j


@scenario("fast_commit", "4k, csum_v3, fast_commit: two live full "
          "transactions, then a fast commit (HEAD, ADD_RANGE, INODE, PAD; "
          "INODE, TAIL) of the next tid holding two inodes, and a leftover "
          "block of an older fast commit after it")
def sc_fast_commit(ctx):
    fs = fc_fs(ctx)
    j = Journal(fs, csum=3, is64=True)
    B = fs.free_blocks(6)
    ia, ib = fs.inode_of("/a.txt"), fs.inode_of("/b.txt")
    ext_a = debugfs(fs.path, "blocks <%d>" % ia).split()
    j.cur = 50
    for i in range(2):
        t = j.begin(5 + i)
        j.desc(t, [Tag(B[2 * i]), Tag(B[2 * i + 1])])
        j.commit(t, *t_time(i))
    ra = fc_inode_copy(fs, ia, (BASE_TIME + 7777, 123456789))
    rb = fc_inode_copy(fs, ib, (BASE_TIME + 8888, 987654321))
    # an older fast commit (tid 6, before 6 committed) whose third block
    # is left over: written first, then mostly overwritten
    old = j.fast_commit(6, [("inode", ia, ra), ("pad",), ("inode", ib, rb),
                            ("pad",), ("inode", ia, ra)], role="hidden")
    assert old.fc["nblocks"] == 3
    fc = j.fast_commit(7, [("add_range", ia, 0, 1, int(ext_a[0])),
                           ("inode", ia, ra), ("pad",), ("inode", ib, rb)])
    assert fc.fc["nblocks"] == 2
    j.fc_inode_checks = [(ia, ra), (ib, rb)]
    j.finish(5, 50)
    return j


@scenario("fc_clean", "4k, fast_commit, clean journal: the journal "
          "superblock's fast_commit flag is clear (as after unmount); the "
          "area is found from the ext4 superblock; nothing is live")
def sc_fc_clean(ctx):
    fs = fc_fs(ctx, populate=False)
    j = Journal(fs, csum=3, is64=True, fc_flag=False)
    j.finish(12, 0)
    return j


@scenario("stale_clean", "4k, csum_v3, clean journal (s_start 0): a lap "
          "of transactions, the last two partly overwritten by a newer lap "
          "that restarted at s_first (a wrapped transaction losing its tail "
          "and commit; a two-descriptor transaction losing its first "
          "descriptor)")
def sc_stale_clean(ctx):
    fs = FS(ctx, bs=4096, features="")
    j = Journal(fs, csum=3, is64=True)
    B = fs.free_blocks(30)
    end = j.log_end
    # lap 1: tids 10..13 from end-24, ending at 12
    j.cur = end - 24
    for k, tid in enumerate((10, 11)):
        t = j.begin(tid, role="stale")
        j.desc(t, [Tag(B[3 * k + x]) for x in range(3)])
        j.commit(t, *t_time(k))
    j.cur = end - 5
    t12 = j.begin(12, role="stale")         # wraps: 4 data at the end,
    j.desc(t12, [Tag(B[6 + x]) for x in range(6)])  # 2 at 1, 2
    j.commit(t12, *t_time(2))
    t13 = j.begin(13, role="stale")
    j.desc(t13, [Tag(B[12]), Tag(B[13]), Tag(B[14])])
    j.desc(t13, [Tag(B[15]), Tag(B[16])])
    j.commit(t13, *t_time(3))
    assert j.cur == 12, j.cur
    # lap 2 from s_first: tids 14, 15
    j.cur = j.first
    t = j.begin(14, role="stale")
    j.desc(t, [Tag(B[20])])
    j.commit(t, *t_time(4))
    t = j.begin(15, role="stale")
    j.desc(t, [Tag(B[21]), Tag(B[22])])
    j.commit(t, *t_time(5))
    assert j.cur == 8
    t12.presence = "may"                    # its commit is gone
    t12.fields = ["committed", "blocks"]
    # a clean unmount leaves s_sequence at the last tid + 2
    # (jbd2_journal_destroy: j_tail_sequence = ++j_transaction_sequence)
    j.finish(17, 0)
    return j


@scenario("stale_live", "4k, csum_v2, live journal: checkpointed "
          "transactions before s_start, an older lap far after the live "
          "end, the live log ending at an unwritten block")
def sc_stale_live(ctx):
    fs = FS(ctx, bs=4096, features="")
    j = Journal(fs, csum=2, is64=True)
    B = fs.free_blocks(20)
    j.cur = 600
    for k, tid in enumerate((30, 31)):
        t = j.begin(tid, role="stale")
        j.desc(t, [Tag(B[k]), Tag(B[k + 10])])
        j.commit(t, *t_time(k))
    j.cur = 1
    for k, tid in enumerate((40, 41, 42)):
        t = j.begin(tid, role="stale")
        j.desc(t, [Tag(B[2 + k])])
        j.commit(t, *t_time(10 + k))
    start = j.cur
    t = j.begin(43)
    j.desc(t, [Tag(B[5]), Tag(B[6], escape=True)])
    j.commit(t, *t_time(20))
    t = j.begin(44)
    j.desc(t, [Tag(B[7])])
    j.desc(t, [Tag(B[8]), Tag(B[2])])       # B[2] also in stale 40
    j.commit(t, *t_time(21))
    j.finish(43, start)
    return j


# --- damage ---

def damage_base(ctx, csum=3, feats=""):
    fs = FS(ctx, bs=4096, features=feats if csum >= 2 else
            (feats + ",^metadata_csum").strip(","))
    j = Journal(fs, csum=csum, is64=True)
    return fs, j, fs.free_blocks(16)


def bad_second_commit(ctx, csum):
    """Three transactions; the second's commit checksum is wrong."""
    fs, j, B = damage_base(ctx, csum=csum)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0]), Tag(B[1])])
    j.commit(t, *t_time(1))
    t = j.begin(2, role="end")
    j.desc(t, [Tag(B[2])])
    cjb = j.commit(t, *t_time(2), bad_csum=True)
    t = j.begin(3, role="after")
    j.desc(t, [Tag(B[3])])
    j.commit(t, *t_time(3))
    j.exit = [1]
    j.warn = [[cjb]]
    j.finish(1, 10)
    return j


@scenario("bad_commit_csum", "csum_v3: the second transaction's commit "
          "checksum is wrong (its commit time newer): the kernel replays "
          "the first only and records the second as failed")
def sc_bad_commit_csum(ctx):
    return bad_second_commit(ctx, csum=3)


@scenario("bad_commit_csum_v1", "COMPAT_CHECKSUM: the second "
          "transaction's crc32_be is wrong")
def sc_bad_commit_csum_v1(ctx):
    return bad_second_commit(ctx, csum=1)


@scenario("bad_commit_csum_old", "csum_v3: a bad commit checksum with a "
          "commit time older than the transaction before: the kernel takes "
          "it for stale data and ends the log there without an error")
def sc_bad_commit_csum_old(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(5))
    t = j.begin(2, role="end")
    j.desc(t, [Tag(B[1])])
    j.commit(t, *t_time(1), bad_csum=True)
    j.exit = [0, 1]
    j.finish(1, 10)
    return j


@scenario("bad_desc_csum", "csum_v3: the second transaction's descriptor "
          "checksum is wrong and its commit time is newer: the kernel's "
          "recovery fails (EFSBADCRC), nothing at all is replayed",
          verify=("e2fsck", "kernel"))
def sc_bad_desc_csum(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t.states = ["live", "stale"]
    t.fields = ["committed", "csum", "blocks"]
    t = j.begin(2, role="end")
    djb = j.desc(t, [Tag(B[1])], bad_csum=True)
    j.commit(t, *t_time(2))
    j.fatal = True
    j.exit = [1]
    j.warn = [[djb]]
    j.finish(1, 10)
    return j


@scenario("bad_desc_csum_old", "csum_v3: a bad descriptor checksum in a "
          "transaction whose commit time is older: the kernel takes it for "
          "stale blocks left by lazy journal init and ends the log there")
def sc_bad_desc_csum_old(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(5))
    t = j.begin(2, role="end")
    j.desc(t, [Tag(B[1])], bad_csum=True)
    j.commit(t, *t_time(1))
    j.exit = [0, 1]
    j.finish(1, 10)
    return j


@scenario("bad_revoke_csum", "csum_v3: a revoke block with a bad checksum "
          "(commit time newer): recovery fails like a bad descriptor")
def sc_bad_revoke_csum(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t.states = ["live", "stale"]
    t.fields = ["committed", "csum", "blocks"]
    t = j.begin(2, role="end")
    rjb = j.revoke(t, [B[0]], bad_csum=True)
    j.desc(t, [Tag(B[1])])
    j.commit(t, *t_time(2))
    j.fatal = True
    j.exit = [1]
    j.warn = [[rjb]]
    j.finish(1, 10)
    return j


@scenario("bad_data_csum", "csum_v3: one data block's tag checksum is "
          "wrong: only that block is skipped, later transactions still "
          "replay, and recovery reports EFSBADCRC at the end (the kernel "
          "then refuses the mount, the blocks already written)")
def sc_bad_data_csum(ctx):
    return bad_data(ctx, 3)


@scenario("bad_data_csum_v2", "csum_v2 (16-bit tag checksums): as "
          "bad_data_csum")
def sc_bad_data_csum_v2(ctx):
    return bad_data(ctx, 2)


def bad_data(ctx, csum):
    fs, j, B = damage_base(ctx, csum=csum)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t = j.begin(2)
    j.desc(t, [Tag(B[1]), Tag(B[2], bad_csum=True), Tag(B[3])])
    bad = t.descs[0][1][1]["jblock"]
    j.commit(t, *t_time(2))
    t = j.begin(3)
    j.desc(t, [Tag(B[4]), Tag(B[2])])
    j.commit(t, *t_time(3))
    j.exit = [1]
    j.warn = [[bad, bad - 2]]  # the data block (or its descriptor)
    j.finish(1, 10)
    return j


@scenario("wrong_tid", "csum_v3: the block after the second transaction "
          "is a descriptor with a tid newer than the next one expected: the "
          "live log ends there")
def sc_wrong_tid(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    for i in range(2):
        t = j.begin(1 + i)
        j.desc(t, [Tag(B[i])])
        j.commit(t, *t_time(i))
    t = j.begin(103, role="after")
    djb = j.desc(t, [Tag(B[5])])
    j.commit(t, *t_time(3))
    t = j.begin(4, role="after")
    j.desc(t, [Tag(B[6])])
    j.commit(t, *t_time(4))
    j.exit = [1]
    j.warn = [[djb]]
    j.finish(1, 10)
    return j


@scenario("revoke_count_big", "csum_v3: a revoke block whose r_count is "
          "larger than the block: the kernel's revoke pass fails (EINVAL) "
          "and nothing is replayed")
def sc_revoke_count_big(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t.states = ["live", "stale"]
    t.fields = ["committed", "csum", "blocks"]
    t = j.begin(2)
    rjb = j.revoke(t, [B[0]], rcount=j.bs - 2)
    j.trans[0].fields = ["committed", "csum"]  # is B[0] revoked? moot
    j.desc(t, [Tag(B[1])])
    j.commit(t, *t_time(2))
    t.states = ["live", "stale"]
    t.fields = ["committed", "blocks"]
    j.fatal = True
    j.exit = [1]
    j.warn = [[rjb]]
    j.finish(1, 10)
    return j


@scenario("revoke_count_odd", "csum_v3: r_count not a multiple of the "
          "8-byte record: the kernel reads the whole records and ignores "
          "the rest")
def sc_revoke_count_odd(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0]), Tag(B[1]), Tag(B[2]), Tag(B[3])])
    j.commit(t, *t_time(1))
    t = j.begin(2)
    rjb = j.revoke(t, [B[0], B[1], B[2]], rcount=16 + 2 * 8 + 5)
    j.desc(t, [Tag(B[4])])
    j.commit(t, *t_time(2))
    j.exit = [1]
    j.warn = [[rjb]]
    j.finish(1, 10)
    return j


@scenario("no_last_tag", "csum_v3: a descriptor whose last tag lacks "
          "LAST_TAG: the kernel counts every tag that fits in the block "
          "(zeros included), skips that many blocks, finds no commit and "
          "ends the log: the transaction is not replayed")
def sc_no_last_tag(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t = j.begin(2, role="end")
    djb = j.desc(t, [Tag(B[1]), Tag(B[2]), Tag(B[3])], no_last=True)
    j.commit(t, *t_time(2))
    t.fields = []
    t = j.begin(3, role="after")
    j.desc(t, [Tag(B[4])])
    j.commit(t, *t_time(3))
    j.exit = [1]
    j.warn = [[djb]]
    j.finish(1, 10)
    return j


@scenario("out_of_fs", "csum_v3, 64bit: tags whose home blocks lie beyond "
          "the filesystem (just past the end, and above 2^32)")
def sc_out_of_fs(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    far1 = fs.blocks_count + 3
    far2 = (1 << 32) + 77
    j.desc(t, [Tag(B[0]), Tag(far1), Tag(far2), Tag(B[1])])
    j.commit(t, *t_time(1))
    t = j.begin(2)
    j.desc(t, [Tag(B[2])])
    j.commit(t, *t_time(2))
    j.exit = [1]
    j.warn = [[12, 10], [13, 10]]  # the data blocks, or the descriptor
    j.replay_aborts = True
    j.notes.append("the kernel replays fsblock %d, then fails at %d: "
                   "__getblk() of a block past the device returns NULL, "
                   "'JBD2: Out of memory during recovery', the rest of the "
                   "replay is abandoned and the mount refused; e2fsck "
                   "skips the two and replays the rest" % (B[0], far1))
    j.finish(1, 10)
    return j


def fake_header(bs, btype, tid, tail=b""):
    """A filesystem block that looks like jbd2 metadata: the magic, a
    block type and a tid, then tail, then a pattern."""
    head = struct.pack(">III", JBD2_MAGIC, btype, tid) + tail
    return head + pattern("not journal metadata", bs)[len(head):]


@scenario("escaped", "csum_v3: home blocks that look like journal "
          "metadata (a descriptor and a commit block of the next live tid, "
          "a revoke block naming a live copy) are journaled escaped, in "
          "live and stale transactions: the journal copies start with "
          "zeros, the tags carry ESCAPE, recovery puts the magic back; a "
          "scan that took them for headers would find transactions that "
          "do not exist")
def sc_escaped(ctx):
    fs, j, B = damage_base(ctx)
    bs = j.bs
    # stale, checkpointed before s_start: a copy that looks like a revoke
    # block of live tid 9 naming B[4] (journaled by tid 9)
    j.cur = 1
    for k, tid in enumerate((6, 7)):
        t = j.begin(tid, role="stale")
        tags = [Tag(B[8 + 2 * k]), Tag(B[9 + 2 * k])]
        if k == 0:
            tags[1].content = fake_header(bs, REVOKE, 9,
                                          struct.pack(">IQ", 24, B[4]))
        j.desc(t, tags)
        j.commit(t, *t_time(k))
    start = j.cur
    # live: tid 8 journals a fake descriptor and a fake commit of tid 9
    t = j.begin(8)
    j.desc(t, [Tag(B[0], content=fake_header(
                   bs, DESCRIPTOR, 9, struct.pack(">IIII", B[5], 0, 0, 0))),
               Tag(B[1]),
               Tag(B[2], content=fake_header(bs, COMMIT, 9))])
    j.commit(t, *t_time(3))
    t = j.begin(9)
    j.desc(t, [Tag(B[4]), Tag(B[3], content=fake_header(bs, DESCRIPTOR,
                                                        10))])
    j.commit(t, *t_time(4))
    for t in j.trans:
        for _, es in t.descs:
            for e in es:
                assert e["escaped"] == (e["home"][:4] == MAGIC_BE)
    j.finish(8, start)
    return j


@scenario("truncated", "csum_v3: the image ends inside the journal, in "
          "the middle of the third transaction's data", verify=())
def sc_truncated(ctx):
    fs, j, B = damage_base(ctx)
    j.cur = j.maxlen // 2
    for i in range(2):
        t = j.begin(1 + i)
        j.desc(t, [Tag(B[2 * i]), Tag(B[2 * i + 1])])
        j.commit(t, *t_time(i))
    t = j.begin(3, role="end")
    j.desc(t, [Tag(B[5]), Tag(B[6]), Tag(B[7])])
    j.commit(t, *t_time(3))
    cut = t.descs[0][1][1]["jblock"]
    t.presence = "may"
    t.fields = []
    # every journal block from cut on must lie past the cut
    if any(fs.jmap[b] < fs.jmap[cut] for b in range(cut, j.maxlen)):
        raise RuntimeError("journal map not increasing")
    j.truncate_at = (cut, 100)
    j.exit = [1]
    j.warn = [[cut]]
    j.finish(1, j.maxlen // 2)
    return j


def bad_sb(ctx, what):
    fs, j, B = damage_base(ctx)
    j.cur = 10
    t = j.begin(1)
    j.desc(t, [Tag(B[0])])
    j.commit(t, *t_time(1))
    t.presence = "may"
    t.states = ["live", "stale"]
    t.fields = []
    j.sb_damage = what
    if what == "csum":
        # The fields still read: listed, with a warning naming the
        # superblock (journal block 0) that the kernel refuses it
        # (load_superblock: -EFSBADCRC); status 1 (partial).
        j.exit = [1]
        j.warn = [[0]]
    else:
        # Nothing can be read without a magic or with another block
        # size: the journal cannot be opened, status 4, as for a missing
        # journal or another filesystem's (e4time(8), EXIT STATUS).
        j.exit = [4]
        j.no_header = True  # an error, in whatever words, naming it
    j.finish(1, 10)
    return j


@scenario("bad_sb_magic", "the journal superblock's magic is wrong",
          )
def sc_bad_sb_magic(ctx):
    return bad_sb(ctx, "magic")


@scenario("bad_sb_blocksize", "the journal superblock's block size is not "
          "the filesystem's")
def sc_bad_sb_blocksize(ctx):
    return bad_sb(ctx, "blocksize")


@scenario("bad_sb_csum", "the journal superblock's checksum (csum_v3) is "
          "wrong", )
def sc_bad_sb_csum(ctx):
    return bad_sb(ctx, "csum")


# ------------------------------------------------------------------ #
# Building

def build(name, out):
    fn, desc, verify = SCENARIOS[name]
    j = fn(out)
    j.verify = verify
    return j, expect_of(j, name, desc)


# ------------------------------------------------------------------ #
# Verification against real recovery

def compare_home(j, fs, out, work, model):
    """The journaled home blocks of work: the replayed copies, else the
    contents before the journal was written."""
    want = {}
    ji = JImage(fs, out)
    for r in model["replayed"]:
        d = ji.block(r["jblock"])
        if r["escaped"]:
            d = MAGIC_BE + d[4:]
        want[r["fsblock"]] = d
    bad = []
    journaled = {e["fsblock"] for t in j.trans for _, es in t.descs
                 for e in es if e["fsblock"] < fs.blocks_count}
    for b in sorted(journaled):
        got = fs.read_block(b, work)
        w = want.get(b, fs.read_block(b, fs.base))
        if got != w:
            src = "replayed copy" if b in want else "old contents"
            bad.append("fsblock %d: not the %s (starts %r)" %
                       (b, src, got[:48]))
    return bad


def verify(name, out, how):
    j, exp = build(name, out)
    fs = j.fs
    work = out + ".verify"
    shutil.copyfile(out, work)
    log = []
    model = exp["kernel"]
    if how.startswith("e2fsck"):
        if shutil.which("e2fsck") is None:
            raise CannotBuild("e2fsck not installed")
        p = run(["e2fsck", "-fy", "-E", "journal_only", work], check=False)
        log.append("e2fsck status %d: %s %s" % (p.returncode,
                                                p.stdout.strip(),
                                                p.stderr.strip()))
        # e2fsck's flavour of the model; 1.47.0 wraps at maxlen with
        # fast commits, a later e2fsck may wrap as the kernel
        flavours = ["e2fsck-1.47", "e2fsck"] if how == "e2fsck-1.47" \
            else ["e2fsck"]
        for fl in flavours:
            m = kernel_recover(JImage(fs, out), flavour=fl)
            model = {"replayed": [{"fsblock": b, "jblock": v[0],
                                   "tid": v[1], "escaped": v[2]}
                                  for b, v in sorted(m["replayed"].items())]}
            if not compare_home(j, fs, out, work, model):
                log.append("e2fsck replayed as the model's %s flavour" % fl)
                break
    elif how == "kernel":
        if os.geteuid() != 0:
            raise CannotBuild("not root: no loop mount")
        # A read-write loop device: "mount -o loop,ro" makes a read-only
        # one, and ext4 then refuses to recover ("write access
        # unavailable").  Mounted ro, the kernel still replays.
        mnt = tempfile.mkdtemp(prefix="mkjournal-mnt.")
        dev = None
        try:
            dev = run(["losetup", "-f", "--show", work]).stdout.strip()
            p = run(["mount", "-t", "ext4", "-o", "ro", dev, mnt],
                    check=False)
            log.append("mount status %d: %s" % (p.returncode,
                                                p.stderr.strip()))
            if p.returncode == 0:
                run(["umount", mnt])
        finally:
            if dev:
                run(["losetup", "-d", dev], check=False)
            os.rmdir(mnt)
    else:
        raise ValueError(how)
    bad = compare_home(j, fs, out, work, model)
    fcm = exp["kernel"].get("fc")
    if fcm and how != "e2fsck-1.47":
        for ino, raw in j.fc_inode_checks:
            got = fs.raw_inode(ino, work)
            for o, n in ((0x08, 12), (0x84, 12)):
                if got[o:o + n] != raw[o:o + n]:
                    bad.append("inode %d bytes 0x%x..: %s, want %s" %
                               (ino, o, got[o:o + n].hex(),
                                raw[o:o + n].hex()))
    os.unlink(work)
    os.unlink(fs.base)
    return bad, log


# ------------------------------------------------------------------ #
# Checking e4time's output against EXPECT

TX_FIELDS = ("tid", "state", "committed", "csum", "commit_time",
             "first_block", "journal_blocks", "blocks", "revoked",
             "fc_inodes")


def check(exp, stdout, stderr, rc, image, stale):
    bad = []
    lines = [x for x in stdout.splitlines() if x.strip()]
    objs = []
    for i, x in enumerate(lines):
        try:
            objs.append(json.loads(x))
        except ValueError as e:
            bad.append("stdout line %d is not JSON (%s): %s" % (i + 1, e,
                                                                 x[:120]))
    exits = exp["exit_stale"] if stale else exp["exit"]
    if rc not in exits:
        bad.append("exit status %d, expected %s" % (rc, " or ".join(
            str(e) for e in exits)))
    # warnings
    wlines = [x for x in stderr.splitlines() if x.strip()]
    for x in wlines:
        if not x.startswith("e4time: "):
            bad.append("stderr line not in the e4time: form: %s" % x)
    for alts in exp["warn"]:
        if not any("journal block %d:" % a in stderr for a in alts):
            bad.append("no warning naming journal block %s" %
                       " or ".join(str(a) for a in alts))
    if exits == [0] and any("journal block" in x for x in wlines):
        bad.append("warnings although nothing is damaged: %s" %
                   wlines[:3])
    if exp["no_header"]:
        if "journal" not in stderr.lower():
            bad.append("no error about the journal on stderr")
        return bad
    if not objs or "journal" not in objs[0]:
        bad.append("first line is not {\"journal\":...}")
        return bad
    hdr = objs[0]["journal"]
    for k, v in exp["journal"].items():
        got = hdr.get(k)
        if k == "features":
            if sorted(got or []) != sorted(v):
                bad.append("journal.features %s, expected %s" % (got, v))
        elif got != v:
            bad.append("journal.%s %r, expected %r" % (k, got, v))
    txs = objs[1:]
    for o in txs:
        if "tid" not in o:
            bad.append("not a transaction line: %s" % json.dumps(o)[:120])
    txs = [o for o in txs if "tid" in o]
    wanted = [t for t in exp["transactions"] if stale or not t["_stale_only"]]
    used = set()

    def states(t):
        return t.get("_states", [t["state"]])

    order = []
    for t in wanted:
        hits = [i for i, o in enumerate(txs) if i not in used and
                o.get("tid") == t["tid"] and o.get("state") in states(t)]
        if not hits:
            if t["_presence"] == "must":
                bad.append("tid %d (%s) missing" % (t["tid"], t["state"]))
            continue
        i = hits[0]
        used.add(i)
        order.append(i)
        o = txs[i]
        fields = t.get("_fields", [f for f in TX_FIELDS if f != "tid"])
        for f in fields:
            if f == "state":
                continue
            want, got = t[f], o.get(f)
            if f == "blocks":
                opt = t.get("_optional_flags", {})
                if got is None or len(got) != len(want):
                    bad.append("tid %d blocks: %s, expected %s" % (
                        t["tid"], json.dumps(got), json.dumps(want)))
                    continue
                for gb, wb in zip(got, want):
                    gf = set(gb.get("flags", []))
                    wf = set(wb["flags"])
                    extra = gf - wf - set(opt.get(str(wb["jblock"]), []))
                    if gb.get("fsblock") != wb["fsblock"] or \
                            gb.get("jblock") != wb["jblock"] or \
                            not wf <= gf or extra:
                        bad.append("tid %d block %s, expected %s" % (
                            t["tid"], json.dumps(gb), json.dumps(wb)))
            elif f == "revoked":
                if sorted(got or []) != sorted(want):
                    bad.append("tid %d revoked %s, expected %s" % (
                        t["tid"], got, want))
            elif f == "fc_inodes":
                if (got or []) != want:
                    bad.append("tid %d fc_inodes %s, expected %s" % (
                        t["tid"], got, want))
            elif got != want:
                bad.append("tid %d %s %r, expected %r" % (t["tid"], f, got,
                                                         want))
        if t.get("_not_live") and o.get("state") == "live" and \
                o.get("csum") != "bad" and o.get("committed"):
            bad.append("tid %d is live and sound, but recovery does not "
                       "replay it" % t["tid"])
    if order != sorted(order):
        bad.append("transactions not in the expected order: %s, "
                   "expected %s" % ([txs[i].get("tid") for i in sorted(order)],
                                    [txs[i].get("tid") for i in order]))
    for i, o in enumerate(txs):
        if i not in used:
            bad.append("unexpected transaction tid %s state %s" % (
                o.get("tid"), o.get("state")))
    return bad


# ------------------------------------------------------------------ #

def main(argv):
    if argv[1:2] == ["--list-verify"] and len(argv) == 3:
        for n, (fn, d, v) in SCENARIOS.items():
            if argv[2] in v or (argv[2] == "e2fsck" and "e2fsck-1.47" in v):
                print(n)
        return 0
    if argv[1:2] == ["--list"]:
        for n, (fn, d, v) in SCENARIOS.items():
            if argv[2:3] == ["-v"]:
                print("%-22s verify: %-22s %s" % (n, ",".join(v) or "-", d))
            else:
                print(n)
        return 0
    if argv[1:2] == ["--check"]:
        if len(argv) < 7:
            sys.stderr.write("usage: --check EXPECT STDOUT STDERR RC IMAGE "
                             "[--stale]\n")
            return 2
        with open(argv[2]) as f:
            exp = json.load(f)
        with open(argv[3], errors="replace") as f:
            out = f.read()
        with open(argv[4], errors="replace") as f:
            err = f.read()
        bad = check(exp, out, err, int(argv[5]), argv[6],
                    "--stale" in argv[7:])
        for b in bad:
            print(b)
        return 1 if bad else 0
    try:
        if argv[1:2] == ["--verify"]:
            if len(argv) != 5 or argv[3] not in SCENARIOS:
                sys.stderr.write("usage: --verify e2fsck|kernel SCENARIO "
                                 "OUT.img\n")
                return 2
            how, name, out = argv[2], argv[3], argv[4]
            if how not in SCENARIOS[name][2] and not (
                    how == "e2fsck" and "e2fsck-1.47" in SCENARIOS[name][2]):
                raise CannotBuild("%s is not verified with %s" % (name, how))
            if how == "e2fsck" and "e2fsck-1.47" in SCENARIOS[name][2]:
                how = "e2fsck-1.47"
            bad, log = verify(name, out, how)
            for x in log:
                print(x)
            for b in bad:
                print("MISMATCH " + b)
            return 1 if bad else 0
        if len(argv) != 3 or argv[1] not in SCENARIOS:
            sys.stderr.write("usage: mkjournal.py SCENARIO OUT.img | --list "
                             "| --verify HOW SCENARIO OUT.img | --check ...\n")
            return 2
        j, exp = build(argv[1], argv[2])
        os.unlink(j.fs.base)
        print(json.dumps(exp, sort_keys=True))
        return 0
    except CannotBuild as e:
        sys.stderr.write("mkjournal.py: cannot build: %s\n" % e)
        return 77
    except ModelMismatch as e:
        sys.stderr.write("mkjournal.py: builder and recovery model "
                         "disagree: %s\n" % e)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
