#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""plaso_bodyfile.py BODYFILE

A test oracle: what plaso's bodyfile parser makes of BODYFILE, line by
line, following plaso/parsers/bodyfile.py of log2timeline/plaso at commit
974ee53c1d0764a734c804e707f5d7eccdffa1c0 (BodyfileParser.ParseFileObject
and _ParseValues) and the dfvfs TextFile it reads through
(dfvfs/helpers/text_file.py at 019af690a081411ae117bbd1724ee4a602f5e094):

- the file is read as UTF-8, strictly, one line at a time, the '\\n' kept
  at the end of the line (so the last value, crtime, ends with it); a
  line that is not UTF-8 stops the parse (on the first line: the parser
  refuses the file);
- lines starting with '#' are comments (more than 10 before the first
  row: refused);
- a line is split at every '|'; fewer than 11 values is a warning (on the
  first row: refused); the MD5 is the first value ('0': none; else 32 hex
  digits, or a warning / refusal on the first row); crtime, ctime, mtime,
  atime are popped from the end as floats ('' is none; a value float()
  refuses is a warning, on the first row a refusal), then size, GID and
  UID as base-10 integers, the mode and the inode ('N-M' keeps N);
- the name is every value left, joined with '|'; if it holds a raw
  U+0000-001F or U+007F-009F it is kept as it is (a warning); otherwise
  each \\xhh (lower-case hex) of those code points is decoded, then \\|,
  then \\\\;
- with a mode starting with 'l', ' -> ' splits the symlink target off,
  at the last one (rpartition);
- a time that is 0 (or none) makes no event.

Prints, for each row: "ROW INODE MODE NAME_HEX TARGET_HEX MD5 TIMES" with
NAME and TARGET as UTF-8 bytes in hex ('-' for an empty target), MD5 '-'
for none, TIMES the four floats as repr or '-' (atime mtime ctime
crtime); "WARNING ..." for each warning, "REFUSED ..." when plaso would
not parse the file at all, and "STOPPED ..." when it stops early.
"""
import re
import sys

NON_PRINTABLE = list(range(0, 0x20)) + list(range(0x7f, 0xa0))
ESCAPE = str.maketrans({v: "\\x{0:02x}".format(v) for v in NON_PRINTABLE})
MD5_RE = re.compile(r"^[0-9a-fA-F]{32}$")


class Refused(Exception):
    pass


def pop_float(values, what, lineno, first, warn):
    v = values.pop(-1) or None
    if v is not None:
        try:
            v = float(v)
        except ValueError:
            msg = "invalid %s value in line: %d" % (what, lineno)
            if first:
                raise Refused(msg)
            warn(msg)
            v = None
    return v


def pop_int(values, what, lineno, first, warn):
    v = values.pop(-1) or None
    if v is not None:
        try:
            v = int(v, 10)
        except ValueError:
            msg = "invalid %s value in line: %d" % (what, lineno)
            if first:
                raise Refused(msg)
            warn(msg)
            v = None
    return v


def parse_values(values, lineno, first, out, warn):
    if len(values) < 11:
        msg = "invalid number of values: %d in line: %d" % (len(values),
                                                             lineno)
        if first:
            raise Refused(msg)
        warn(msg)
        return
    md5 = values.pop(0)
    if md5 == "0":
        md5 = None
    elif md5 and not MD5_RE.match(md5):
        msg = "invalid MD5 value: %s in line: %d" % (md5, lineno)
        if first:
            raise Refused(msg)
        warn(msg)
    crtime = pop_float(values, "creation time", lineno, first, warn)
    ctime = pop_float(values, "inode change time", lineno, first, warn)
    mtime = pop_float(values, "modification time", lineno, first, warn)
    atime = pop_float(values, "access time", lineno, first, warn)
    pop_int(values, "size", lineno, first, warn)
    pop_int(values, "group identifier (GID)", lineno, first, warn)
    pop_int(values, "user identifier (UID)", lineno, first, warn)
    mode = values.pop(-1) or None
    inode = values.pop(-1) or None
    if "-" in inode:
        inode, _, _ = inode.partition("-")
    try:
        inode = int(inode, 10)
    except (TypeError, ValueError):
        warn("invalid inode value: %s in line: %d" % (inode, lineno))
        inode = None
    filename = "|".join(values)
    if filename != filename.translate(ESCAPE):
        warn("filename in line: %d contains unescaped control characters"
             % lineno)
    else:
        for c in NON_PRINTABLE:
            filename = filename.replace("\\x{0:02x}".format(c), chr(c))
        filename = filename.replace("\\|", "|")
        filename = filename.replace("\\\\", "\\")
    target = ""
    if mode and mode[0] == "l" and " -> " in filename:
        filename, _, target = filename.rpartition(" -> ")

    def t(v):
        return repr(v) if v else "-"

    out.append("ROW %s %s %s %s %s %s %s %s %s" % (
        inode, mode, filename.encode("utf-8").hex(),
        target.encode("utf-8").hex() or "-", md5 or "-",
        t(atime), t(mtime), t(ctime), t(crtime)))


def main():
    data = open(sys.argv[1], "rb").read()
    # TextFile: split at b"\n", the end of line kept on each line
    raw_lines = [l + b"\n" for l in data.split(b"\n")]
    if data.endswith(b"\n"):
        raw_lines.pop()
    elif raw_lines:
        raw_lines[-1] = raw_lines[-1][:-1]
    out = []
    warn = lambda m: out.append("WARNING " + m)
    first = True
    comments = 0
    try:
        for lineno, raw in enumerate(raw_lines):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                if lineno == 0:
                    raise Refused("unable to read line: 0 with error: %s" % e)
                out.append("STOPPED unable to read line: %d: %s" % (lineno, e))
                break
            if lineno == 0 and line[:1] == "\ufeff":
                line = line[1:]
            if line[:1] == "#":
                comments += 1
                if first and comments > 10:
                    raise Refused("more than 10 leading comment lines.")
                continue
            parse_values(line.split("|"), lineno, first, out, warn)
            first = False
    except Refused as e:
        print("REFUSED " + str(e))
        return
    for l in out:
        print(l)


main()
