#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ewf_chunk.py E01 N: "OFFSET LENGTH" of chunk N's stored bytes in a
single-segment EWF-E01 file, from its first table section (libewf's
layout: a 76-byte section header, then the entry count, the base offset
and the entries, bit 31 of each the compressed flag).  For
tests/test_damage_chunks.sh."""
import struct, sys

def main():
    path, want = sys.argv[1], int(sys.argv[2])
    data = open(path, 'rb').read()
    off = 13  # file header
    while off + 76 <= len(data):
        stype = data[off:off + 16].rstrip(b'\0')
        nxt, size = struct.unpack_from('<QQ', data, off + 16)
        if stype == b'table':
            n, = struct.unpack_from('<I', data, off + 76)
            base, = struct.unpack_from('<Q', data, off + 76 + 8)
            ents = struct.unpack_from('<%dI' % n, data, off + 76 + 24)
            if want >= n:
                sys.exit('chunk %d: the table holds %d' % (want, n))
            start = ents[want] & 0x7fffffff
            if want + 1 < n:
                end = ents[want + 1] & 0x7fffffff
            else:
                end = off - base  # the last chunk ends at the table
            print(base + start, end - start)
            return
        if nxt == off or nxt == 0:
            break
        off = nxt
    sys.exit('no table section')

main()
