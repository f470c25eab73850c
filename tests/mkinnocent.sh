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
ALL="cp-a cp-r rsync-a tar-pipe py-tarfile unzip maildir-py maildir-dovecot gzip mke2fs-d atomic-save logrotate"
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
	*)
		echo "mkinnocent.sh: no tree '$t'" >&2
		exit 2
		;;
	esac
	done_tree "$t"
done
