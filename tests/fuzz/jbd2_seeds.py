#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/jbd2_seeds.py OUTDIR --- the seeds of the jbd2 harness
# (tests/fuzz/jbd2.c says the input format): the journals the kernel
# wrote in the churn images of images/, and those of the scenarios of
# tests/mkjournal.py (needs mke2fs and debugfs), each as records of its
# non-zero journal blocks (trailing zeros cut), on the base of the same
# kind (block size, fast commits, external).
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
IMAGES = os.path.join(TOP, "images")

# base index (jbd2.c) -> churn images whose journal goes on it
CHURN = {
    0: ["churn-strictatime-live", "churn-strictatime-clean",
        "churn-relatime-live", "churn-noatime-clean"],
    1: ["churn-fastcommit-live", "churn-fastcommit-clean"],
    2: ["churn-1k-live"],
    3: ["churn-nocsum-live"],
    4: ["churn-asynccommit-live"],
}
EXTERNAL = {5: ["churn-extjournal-live", "churn-extjournal-clean"]}


def unpack(name, tmp):
    out = os.path.join(tmp, name + ".img")
    with open(out, "wb") as f:
        subprocess.run(["xz", "-dc", os.path.join(IMAGES, name + ".img.xz")],
                       stdout=f, check=True)
    return out


def geometry(img):
    with open(img, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    bs = 1024 << struct.unpack_from("<I", sb, 0x18)[0]
    compat = struct.unpack_from("<I", sb, 0x5C)[0]
    return bs, bool(compat & 0x400)


def journal_blocks(img, bs):
    """The journal's blocks, in journal order, as (offset, bytes)."""
    out = subprocess.run(["debugfs", "-R", "blocks <8>", img],
                         capture_output=True, text=True, check=True).stdout
    with open(img, "rb") as f:
        for b in out.split():
            f.seek(int(b) * bs)
            yield f.read(bs)


def device_blocks(path, bs):
    with open(path, "rb") as f:
        while True:
            d = f.read(bs)
            if not d:
                return
            yield d


def seed(base, blocks):
    out = bytearray([base])
    for jb, d in enumerate(blocks):
        d = d.rstrip(b"\0")
        if d:
            out += struct.pack("<HH", jb, len(d)) + d
    return bytes(out)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for base, names in CHURN.items():
            for n in names:
                img = unpack(n, tmp)
                bs, _ = geometry(img)
                with open(os.path.join(outdir, n), "wb") as f:
                    f.write(seed(base, journal_blocks(img, bs)))
        for base, names in EXTERNAL.items():
            for n in names:
                dev = unpack(n + "-jdev", tmp)
                bs, _ = geometry(unpack(n, tmp))
                with open(os.path.join(outdir, n), "wb") as f:
                    f.write(seed(base, device_blocks(dev, bs)))
        mkj = os.path.join(TOP, "tests", "mkjournal.py")
        names = subprocess.run([sys.executable, mkj, "--list"], capture_output=True,
                               text=True, check=True).stdout.split()
        for n in names:
            img = os.path.join(tmp, "mkj-" + n + ".img")
            p = subprocess.run([sys.executable, mkj, n, img], capture_output=True)
            if p.returncode != 0:
                print("skipped %s (status %d)" % (n, p.returncode))
                continue
            bs, fc = geometry(img)
            base = 1 if fc else (2 if bs == 1024 else 0)
            with open(os.path.join(outdir, "mkjournal-" + n), "wb") as f:
                f.write(seed(base, journal_blocks(img, bs)))


if __name__ == "__main__":
    main()
