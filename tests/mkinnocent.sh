#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mkinnocent.sh --- the innocent corpus of e4time anomalies: trees
# written by real programs through the kernel (a loop mount of a fresh
# ext4 with a journal), one image each, unmounted so that the journal
# holds their history.  Nobody sets a time by hand here: every strong or
# medium finding on these images is a false positive.
#
#   tests/mkinnocent.sh OUTDIR NFILES [SRC]
#
# SRC (default /usr/share/doc): the source tree; its first top-level
# directories, in name order, up to NFILES entries, are copied to
# OUTDIR/src (cp -a: its times as the packages set them; every other
# file then gets atime = mtime, as dpkg leaves a file nobody has read)
# and every tree is made from that copy.  Writes OUTDIR/TREE.img for each tree and
# OUTDIR/manifest (TREE FILES per line: the inodes the tree's programs
# made, as find(1) counts them on the mount).  Needs root (loop mounts).
#
# STORM (environment; default 0.02, 0: none): while a program writes a
# tree, a loop syncs the filesystem every STORM seconds, so that its
# creates and its time settings land in many commits, as they do at the
# default 5 s commit interval when a tree is some hundred times larger
# (what the full-scale benchmark, bench/anomalies-innocent.sh, copies).
# TREES (environment): the trees to make (default: all, in this order).
# SIZE (environment): each image's size (default 512M).
set -eu
OUT=$1
N=$2
SRC=${3:-/usr/share/doc}
STORM=${STORM:-0.02}
SIZE=${SIZE:-512M}
ALL="cp-a cp-r rsync-a tar-pipe py-tarfile unzip maildir-py maildir-dovecot gzip mke2fs-d atomic-save logrotate rsync-inplace dpkg-i oci-layers tar-restore"
TREES=${TREES:-$ALL}
M="$OUT/mnt"
STORM_PID=

mkdir -p "$OUT" "$M"
: >"$OUT/manifest"

cleanup() {
	storm_stop
	mountpoint -q "$M" && umount "$M"
	return 0
}
trap cleanup EXIT

# The source: whole package directories of SRC, in name order, until
# NFILES entries.
if [ ! -d "$OUT/src" ]; then
	mkdir "$OUT/src"
	n=0
	for d in "$SRC"/*; do
		[ -d "$d" ] && [ ! -L "$d" ] || continue
		k=$(find "$d" | wc -l)
		[ $((n + k)) -gt "$N" ] && [ "$n" -gt 0 ] && continue
		cp -a "$d" "$OUT/src/"
		n=$((n + k))
		[ "$n" -ge "$((N * 9 / 10))" ] && break
	done
	# every other file as dpkg leaves it until it is first read: atime
	# equal to mtime (both set from the package)
	python3 - "$OUT/src" <<-'PY'
		import os, sys
		k = 0
		for d, _, fs in sorted(os.walk(sys.argv[1])):
		    for f in sorted(fs):
		        p = os.path.join(d, f)
		        if os.path.islink(p):
		            continue
		        k += 1
		        if k % 2:
		            st = os.stat(p)
		            os.utime(p, ns=(st.st_mtime_ns, st.st_mtime_ns))
	PY
fi

# The sync loop stops by itself when its flag file is gone (killing it
# could leave a sync(1) holding the mount point).
storm_start() {
	[ "$STORM" = 0 ] && return 0
	: >"$OUT/storm.on"
	(while [ -e "$OUT/storm.on" ]; do
		sync -f "$M" 2>/dev/null || true
		sleep "$STORM"
	done) &
	STORM_PID=$!
}

storm_stop() {
	[ -n "$STORM_PID" ] || return 0
	rm -f "$OUT/storm.on"
	wait "$STORM_PID" 2>/dev/null || true
	STORM_PID=
}

# fresh TREE: a new image for TREE, mounted on $M.
fresh() {
	rm -f "$OUT/$1.img"
	truncate -s "$SIZE" "$OUT/$1.img"
	mkfs.ext4 -q -F "$OUT/$1.img" >/dev/null
	# (noinit_itable: no zeroing of the inode tables behind our back)
	mount -o loop,noinit_itable "$OUT/$1.img" "$M"
}

# done_tree TREE: count what the tree's programs made (everything but
# the root and lost+found), unmount.
done_tree() {
	storm_stop
	echo "$1 $(find "$M" -mindepth 1 -path "$M/lost+found" -prune -o -print | wc -l)" \
		>>"$OUT/manifest"
	umount "$M"
}

# Archives and mail are made outside the images, once.
zip_of_src() {
	[ -f "$OUT/src.zip" ] || (cd "$OUT/src" && zip -qry "$OUT/src.zip" .)
}

tar_of_src() {
	[ -f "$OUT/src.tar" ] || tar -cf "$OUT/src.tar" -C "$OUT/src" .
}

# maildir: a quarter as many messages as NFILES, bodies from the
# source's files; Python's mailbox.Maildir (tmp/, write, utime to the message's
# date, link into new/ or cur/, unlink): half of the messages dated now,
# half converted from an mbox with their received date.
maildir_py() {
	python3 - "$OUT/src" "$1" "$N" <<-'PY'
		import mailbox, os, sys, time, email.message
		src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
		files = [os.path.join(d, f) for d, _, fs in sorted(os.walk(src))
		         for f in sorted(fs)]
		files = [f for f in files if os.path.isfile(f) and not os.path.islink(f)]
		box = mailbox.Maildir(dst, create=True)
		for i in range(n // 4):
		    m = mailbox.MaildirMessage()
		    m["From"] = "a%d@example.org" % i
		    m["Subject"] = "message %d" % i
		    with open(files[i % len(files)], "rb") as f:
		        m.set_payload(f.read(4096).decode("ascii", "ignore"))
		    if i % 2:
		        m.set_date(time.time() - 86400 * (1 + i % 400) - i * 7.3)
		        m.set_subdir("cur")
		        m.add_flag("S")
		    box.add(m)
	PY
}

# dovecot: half as many messages as NFILES, each written in tmp/, its mtime set to the received
# date (seconds), renamed into cur/ (Dovecot's own Maildir++ layout
# keeps received dates in mtimes).
maildir_dovecot() {
	python3 - "$OUT/src" "$1" "$N" <<-'PY'
		import os, sys, time
		src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
		for d in ("tmp", "new", "cur"):
		    os.makedirs(os.path.join(dst, d))
		now = int(time.time())
		for i in range(n // 2):
		    name = "%d.M%dP%d.host,S=100,W=102" % (now - 3600 * i, i, os.getpid())
		    tmp = os.path.join(dst, "tmp", name)
		    with open(tmp, "wb") as f:
		        f.write(b"From: a@example.org\n\nbody %d\n" % i)
		    received = now - 3600 * i
		    os.utime(tmp, (received, received))
		    os.rename(tmp, os.path.join(dst, "cur", name + ":2,S"))
	PY
}

# atomic saves: files written once, then saved again and again the way
# editors and most programs do it (a temporary file, rename over
# the old one; no fsync: the sync loop commits), a few rounds.
atomic_save() {
	python3 - "$1" "$N" <<-'PY'
		import os, sys, time
		dst, n = sys.argv[1], int(sys.argv[2])
		os.makedirs(dst)
		for r in range(4):
		    for i in range(n // 8):
		        p = os.path.join(dst, "doc%d.txt" % i)
		        tmp = p + ".swp"
		        with open(tmp, "w") as f:
		            f.write("round %d of %d\n" % (r, i))
		        os.rename(tmp, p)
		    time.sleep(0.2)
	PY
}

# log rotation: logs written, rotated by a rename chain (log.3.gz to
# log.4.gz, ... log to log.1), log.2 compressed by gzip (which gives the
# .gz its input's times), a few rounds (as savelog and logrotate do it).
logrotate() {
	python3 - "$1" "$N" <<-'PY'
		import os, subprocess, sys, time
		dst, n = sys.argv[1], int(sys.argv[2]) // 30 + 1
		os.makedirs(dst)
		logs = [os.path.join(dst, "app%d.log" % i) for i in range(n)]
		for r in range(6):
		    for p in logs:
		        with open(p, "a") as f:
		            f.write("round %d line\n" % r)
		    time.sleep(0.3)
		    gz = []
		    for p in logs:
		        if os.path.exists(p + ".4.gz"):
		            os.unlink(p + ".4.gz")
		        for k in (3, 2):
		            if os.path.exists(p + ".%d.gz" % k):
		                os.rename(p + ".%d.gz" % k, p + ".%d.gz" % (k + 1))
		        if os.path.exists(p + ".1"):
		            os.rename(p + ".1", p + ".2")
		            gz.append(p + ".2")
		        os.rename(p, p + ".1")
		        open(p, "w").close()
		    if gz:
		        subprocess.run(["gzip"] + gz, check=True)
	PY
}

# rsync --inplace: the source as it is a while later (every 5th file
# edited, its mtime now; every 7th touched, contents kept), made once.
src_later() {
	[ -d "$OUT/src2" ] && return 0
	cp -a "$OUT/src" "$OUT/src2"
	python3 - "$OUT/src2" <<-'PY'
		import os, sys
		k = 0
		for d, _, fs in sorted(os.walk(sys.argv[1])):
		    for f in sorted(fs):
		        p = os.path.join(d, f)
		        if os.path.islink(p):
		            continue
		        k += 1
		        if k % 5 == 0:
		            with open(p, "a") as fh:
		                fh.write("edited\n")
		        elif k % 7 == 0:
		            os.utime(p)
	PY
}

# dpkg: one small package per top-level directory of the source (its
# files in /usr/share/doc/NAME), version 1, and version 2 of every other
# one (every 3rd file edited), built once with dpkg-deb -b.
debs_of_src() {
	[ -d "$OUT/debs" ] && return 0
	mkdir -p "$OUT/debs/1" "$OUT/debs/2" "$OUT/debroot"
	local d name k=0 v
	for d in "$OUT/src"/*; do
		[ -d "$d" ] || continue
		k=$((k + 1))
		name=$(basename "$d" | tr 'A-Z_+' 'a-z--' | tr -cd 'a-z0-9.-')
		name="e4t-$name"
		for v in 1 2; do
			[ "$v" = 2 ] && [ $((k % 2)) = 1 ] && continue
			r="$OUT/debroot/$name-$v"
			mkdir -p "$r/DEBIAN" "$r/usr/share/doc"
			cp -a "$d" "$r/usr/share/doc/$name"
			if [ "$v" = 2 ]; then
				find "$r/usr/share/doc/$name" -type f | awk 'NR % 3 == 0' |
					while read -r f; do echo "v2" >>"$f"; done
			fi
			printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: e4t <e4t@example.org>\nDescription: innocent corpus package\n' \
				"$name" "$v" >"$r/DEBIAN/control"
			dpkg-deb -Zgzip -z1 --root-owner-group -b "$r" "$OUT/debs/$v/$name.deb" >/dev/null
		done
	done
	rm -rf "$OUT/debroot"
}

# dpkg -i into a root of its own (its own /var/lib/dpkg): every package
# installed, then version 2 of every other one (an upgrade: each file
# unpacked as .dpkg-new, renamed over the old one).
dpkg_tree() {
	mkdir -p "$1/var/lib/dpkg/info" "$1/var/lib/dpkg/updates" "$1/var/lib/dpkg/triggers"
	: >"$1/var/lib/dpkg/status"
	: >"$1/var/lib/dpkg/available"
	dpkg --root="$1" --force-all --log=/dev/null -i "$OUT"/debs/1/*.deb >/dev/null 2>&1
	sleep 2
	dpkg --root="$1" --force-all --log=/dev/null -i "$OUT"/debs/2/*.deb >/dev/null 2>&1
}

# container image layers (OCI, as containerd's and podman's naive
# appliers apply them): layer 1 the source, layer 2 a later build of it
# (every 6th file edited, every 9th deleted: a .wh. file; one directory
# emptied: .wh..wh..opq; some new files), both tar --xattrs, made once.
layers_of_src() {
	[ -f "$OUT/layer2.tar" ] && return 0
	tar --xattrs --format=posix -cf "$OUT/layer1.tar" -C "$OUT/src" .
	rm -rf "$OUT/upper"
	mkdir "$OUT/upper"
	python3 - "$OUT/src" "$OUT/upper" <<-'PY'
		import os, shutil, sys
		src, up = sys.argv[1], sys.argv[2]
		k = 0
		opq = None
		for d, ds, fs in sorted(os.walk(src)):
		    ds.sort()
		    rel = os.path.relpath(d, src)
		    if opq is None and rel != "." and len(fs) >= 3:
		        opq = rel
		        os.makedirs(os.path.join(up, rel), exist_ok=True)
		        open(os.path.join(up, rel, ".wh..wh..opq"), "w").close()
		        with open(os.path.join(up, rel, "NEW"), "w") as f:
		            f.write("only this\n")
		        continue
		    for f in sorted(fs):
		        p = os.path.join(d, f)
		        if os.path.islink(p):
		            continue
		        k += 1
		        if k % 6 and k % 9:
		            continue
		        os.makedirs(os.path.join(up, rel), exist_ok=True)
		        if k % 9 == 0:
		            open(os.path.join(up, rel, ".wh." + f), "w").close()
		        else:
		            shutil.copy2(p, os.path.join(up, rel, f))
		            with open(os.path.join(up, rel, f), "a") as fh:
		                fh.write("layer 2\n")
		            with open(os.path.join(up, rel, f + ".new"), "w") as fh:
		                fh.write("new in layer 2\n")
	PY
	tar --xattrs --format=posix -cf "$OUT/layer2.tar" -C "$OUT/upper" .
}

# apply_layer TAR DIR: one pass over the layer, as containerd's naive
# applier (archive.Apply) and podman's (storage's ApplyLayer) do it: a
# .wh..wh..opq empties its directory, a .wh.NAME removes NAME, any other
# entry replaces what is there (an existing file unlinked first, an
# existing directory kept), a file's times set once it is written, the
# directories' at the end.
apply_layer() {
	python3 - "$1" "$2" <<-'PY'
		import os, shutil, sys, tarfile
		layer, root = sys.argv[1], sys.argv[2]
		dirs = []
		with tarfile.open(layer) as tf:
		    for m in tf:
		        name = os.path.normpath(m.name)
		        if name == ".":
		            dirs.append((root, m))
		            continue
		        path = os.path.join(root, name)
		        base = os.path.basename(name)
		        parent = os.path.dirname(path)
		        if base == ".wh..wh..opq":
		            for e in os.listdir(parent):
		                p = os.path.join(parent, e)
		                if os.path.isdir(p) and not os.path.islink(p):
		                    shutil.rmtree(p)
		                else:
		                    os.unlink(p)
		            continue
		        if base.startswith(".wh."):
		            p = os.path.join(parent, base[4:])
		            if os.path.isdir(p) and not os.path.islink(p):
		                shutil.rmtree(p)
		            elif os.path.lexists(p):
		                os.unlink(p)
		            continue
		        if os.path.lexists(path) and not (m.isdir() and os.path.isdir(path)):
		            if os.path.isdir(path) and not os.path.islink(path):
		                shutil.rmtree(path)
		            else:
		                os.unlink(path)
		        if m.isdir():
		            os.makedirs(path, exist_ok=True)
		            os.chmod(path, m.mode)
		            dirs.append((path, m))
		            continue
		        if m.issym():
		            os.symlink(m.linkname, path)
		            os.utime(path, (m.mtime, m.mtime), follow_symlinks=False)
		            continue
		        if m.islnk():
		            os.link(os.path.join(root, os.path.normpath(m.linkname)), path)
		            continue
		        if not m.isfile():
		            continue
		        with tf.extractfile(m) as src, open(path, "wb") as dst:
		            shutil.copyfileobj(src, dst)
		        os.chmod(path, m.mode)
		        at = float(m.pax_headers.get("atime", m.mtime))
		        os.utime(path, (at, m.mtime))
		for path, m in reversed(dirs):
		    if not os.path.isdir(path):
		        continue
		    at = float(m.pax_headers.get("atime", m.mtime))
		    os.utime(path, (at, m.mtime))
	PY
}

# a backup restored: a pax archive of the source (mtime, atime and ctime
# in nanoseconds; tar --atime-preserve leaves the source's atimes alone),
# extracted with tar -xpf (which restores atime and mtime), made once.
backup_of_src() {
	[ -f "$OUT/backup.tar" ] || tar --format=posix --atime-preserve=system --xattrs \
		-cf "$OUT/backup.tar" -C "$OUT/src" .
}

for t in $TREES; do
	case $t in
	mke2fs-d)
		rm -f "$OUT/$t.img"
		truncate -s "$SIZE" "$OUT/$t.img"
		mkfs.ext4 -q -F -d "$OUT/src" "$OUT/$t.img" >/dev/null
		echo "$t $(find "$OUT/src" -mindepth 1 | wc -l)" >>"$OUT/manifest"
		continue
		;;
	esac
	fresh "$t"
	storm_start
	case $t in
	cp-a) cp -a "$OUT/src" "$M/t" ;;
	cp-r) cp -r "$OUT/src" "$M/t" ;;
	rsync-a) rsync -a "$OUT/src/" "$M/t/" ;;
	tar-pipe)
		mkdir "$M/t"
		(cd "$OUT/src" && tar -cf - .) | (cd "$M/t" && tar -xf -)
		;;
	py-tarfile)
		tar_of_src
		python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
			"$OUT/src.tar" "$M/t"
		;;
	unzip)
		zip_of_src
		unzip -q "$OUT/src.zip" -d "$M/t"
		;;
	maildir-py) maildir_py "$M/t" ;;
	maildir-dovecot) maildir_dovecot "$M/t" ;;
	gzip)
		# copies made now (cp) and copies keeping their times (cp -a),
		# then compressed: gzip gives each .gz its input's times
		mkdir "$M/t"
		k=0
		for d in "$OUT/src"/*; do
			k=$((k + 1))
			[ "$k" -gt 40 ] && break
			if [ $((k % 2)) = 0 ]; then
				cp -a "$d" "$M/t/"
			else
				cp -r "$d" "$M/t/"
			fi
		done
		find "$M/t" -type f ! -name '*.gz' -exec gzip -q {} +
		;;
	atomic-save) atomic_save "$M/t" ;;
	logrotate) logrotate "$M/t" ;;
	rsync-inplace)
		# an older copy of the tree first (committed), later brought up
		# to date in place
		src_later
		rsync -a "$OUT/src/" "$M/t/"
		sync -f "$M"
		sleep 2
		rsync -a --inplace "$OUT/src2/" "$M/t/"
		;;
	dpkg-i)
		debs_of_src
		dpkg_tree "$M/t"
		;;
	oci-layers)
		layers_of_src
		mkdir "$M/t"
		apply_layer "$OUT/layer1.tar" "$M/t"
		apply_layer "$OUT/layer2.tar" "$M/t"
		;;
	tar-restore)
		backup_of_src
		mkdir "$M/t"
		tar --xattrs -xpf "$OUT/backup.tar" -C "$M/t"
		;;
	*)
		echo "mkinnocent.sh: no tree '$t'" >&2
		exit 2
		;;
	esac
	done_tree "$t"
done
