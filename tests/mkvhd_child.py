#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mkvhd_child.py PARENT CHILD same|other --- a differencing VHD
# CHILD (footer, dynamic header, an empty BAT, a W2ru parent locator
# ".\dyn.vhd") over the dynamic VHD PARENT, naming PARENT's identifier
# ("same") or another ("other").  The identifiers it makes are fixed, so
# that the fuzz seeds it writes (tests/fuzz/chain_seeds.sh) are the same
# on every run; tests/test_hostile.sh makes its images with it too.
import struct
import sys
import uuid


def csum(b):
    return (~sum(b)) & 0xFFFFFFFF


def main():
    parent, child, same = sys.argv[1], sys.argv[2], sys.argv[3] == "same"
    foot = bytearray(open(parent, "rb").read()[-512:])
    assert foot[:8] == b"conectix", parent + ": not a VHD"
    pid = bytes(foot[68:84]) if same else uuid.UUID(int=7).bytes
    size = struct.unpack(">Q", foot[48:56])[0]
    bs = 0x200000
    n = (size + bs - 1) // bs
    f = bytearray(foot)
    struct.pack_into(">Q", f, 16, 512)  # data offset: the dynamic header
    struct.pack_into(">I", f, 60, 4)  # disk type: differencing
    f[68:84] = uuid.UUID(int=9).bytes
    struct.pack_into(">I", f, 64, 0)
    struct.pack_into(">I", f, 64, csum(f))
    bat_off = 1536
    bat_len = (n * 4 + 511) // 512 * 512
    loc_off = bat_off + bat_len
    name = "dyn.vhd"
    rel = (".\\" + name).encode("utf-16-le")
    d = bytearray(1024)
    d[0:8] = b"cxsparse"
    struct.pack_into(">QQIII", d, 8, 0xFFFFFFFFFFFFFFFF, bat_off, 0x00010000, n, bs)
    d[40:56] = pid
    nm = name.encode("utf-16-be")
    d[64 : 64 + len(nm)] = nm
    struct.pack_into(">4sIIIQ", d, 576, b"W2ru", 512, len(rel), 0, loc_off)
    struct.pack_into(">I", d, 36, csum(d))
    out = bytes(f) + bytes(d) + b"\xff" * bat_len + rel.ljust(512, b"\0") + bytes(f)
    open(child, "wb").write(out)


main()
