# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cases/helpers.sh --- what a case's recipe may call
# (tests/test_cases.sh sources this, then the recipe, in a subshell with
# set -e, its working directory the case's own temporary directory).
#
# Set for the recipe: IMG (the image to build, absent), MNT (an empty
# mount point), CASE_DIR (the case's directory in the source tree),
# E4TIME (the binary), TOP_SRCDIR.  A recipe that needs a loop mount
# calls need_mount first: where mounts are impossible the case is
# skipped, visibly.  The runner unmounts MNT if a recipe fails mounted.

# need_mount: exit 77 (the runner's skip) when loop mounts are impossible.
need_mount() {
	[ "${CAN_MOUNT:-0}" = 1 ] && return 0
	echo "loop mounts impossible here" >&2
	exit 77
}

# mkfs_img SIZE MKFS ARGS...: a fresh $IMG of SIZE made by MKFS ARGS.
mkfs_img() {
	local size=$1
	shift
	rm -f "$IMG"
	truncate -s "$size" "$IMG"
	"$@" -q -F "$IMG" >/dev/null 2>&1
}

# mkimg MKFS_ARGS...: tests/test_check.sh's mkimg: $IMG, 16 MiB, made by
# mkfs with those arguments, then files a, b, d/c written by the kernel
# (b with a small xattr, set before its data: mtime and ctime one
# instant).  Left unmounted.
mkimg() {
	mkfs_img 16M "$@"
	mount -o loop "$IMG" "$MNT"
	mkdir "$MNT/d"
	echo a >"$MNT/a"
	: >"$MNT/b"
	python3 -c "import os,sys; os.setxattr(sys.argv[1], 'user.test', b'hello')" \
		"$MNT/b"
	echo b >"$MNT/b"
	echo c >"$MNT/d/c"
	umount "$MNT"
}

# sif PATH FIELD VALUE...: debugfs -w set_inode_field, pairs of FIELD
# VALUE, on the unmounted $IMG (tests/test_check.sh's sif).
sif() {
	local path="$1" cmds=""
	shift
	while [ $# -ge 2 ]; do
		cmds+="sif $path $1 $2"$'\n'
		shift 2
	done
	printf '%s' "$cmds" | debugfs -w -f - "$IMG" >/dev/null 2>&1
}

# shrink PATH NEW: tests/test_check.sh's shrink: i_extra_isize of PATH
# set to NEW as an old kernel left it, the in-inode xattrs moved along
# (no metadata_csum: no checksum to redo).
shrink() {
	python3 - "$IMG" "$1" "$2" <<'EOF'
import re, subprocess, sys
img, path, new = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = subprocess.run(["debugfs", "-R", "imap " + path, img],
                     capture_output=True, text=True).stdout
m = re.search(r"located at block (\d+), offset 0x([0-9a-f]+)", out)
sb = subprocess.run(["dumpe2fs", "-h", img], capture_output=True,
                    text=True).stdout
bs = int(re.search(r"Block size:\s+(\d+)", sb).group(1))
isz = int(re.search(r"Inode size:\s+(\d+)", sb).group(1))
pos = int(m.group(1)) * bs + int(m.group(2), 16)
with open(img, "r+b") as f:
    f.seek(pos)
    ino = bytearray(f.read(isz))
    old = int.from_bytes(ino[128:130], "little")
    region = bytes(ino[128 + old:isz])
    ino[128 + new:isz] = (region + bytes(isz))[:isz - 128 - new]
    ino[128:130] = new.to_bytes(2, "little")
    f.seek(pos)
    f.write(ino)
EOF
}

# retry CMD...: CMD, up to five times a second apart (a loop device may
# take a moment to let the image go).
retry() {
	local _
	for _ in 1 2 3 4 5; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 1
	done
	"$@"
}
