#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fscrypt.py add|set|remove PATH [ARG] --- fscrypt v2 by ioctl, for
# tests that need an encrypted directory without fscryptctl:
#   add MOUNT            adds the test key (bytes 0..63) to the
#                        filesystem; prints its identifier (hex)
#   set DIR ID           sets an AES-256-XTS/CTS v2 policy with key ID on
#                        the empty directory DIR
#   remove MOUNT ID      removes the key: the names are no-key names then
# (FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_SET_ENCRYPTION_POLICY,
# FS_IOC_REMOVE_ENCRYPTION_KEY of linux/fscrypt.h).
import fcntl
import os
import struct
import sys

cmd, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY)
if cmd == "add":
    key = bytes(range(64))
    arg = bytearray(struct.pack("<II32sII32s", 2, 0, b"", 64, 0, b"") + key)
    fcntl.ioctl(fd, 0xC0506617, arg)
    print(bytes(arg[8:24]).hex())
elif cmd == "set":
    fcntl.ioctl(fd, 0x800C6613, struct.pack("<BBBB4s16s", 2, 1, 4, 2, b"",
                                            bytes.fromhex(sys.argv[3])))
else:
    fcntl.ioctl(fd, 0xC0406618, bytearray(struct.pack(
        "<II16s16sI20s", 2, 0, bytes.fromhex(sys.argv[3]), b"", 0, b"")))
