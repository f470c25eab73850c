#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mkstomped.sh --- the stomped corpus of e4time anomalies: one
# image, written by the kernel through a loop mount, with NPER files per
# stomping technique in /s/TECHNIQUE/ and ordinary files beside them in
# /base/.  The files are created and committed, then, WAIT seconds later
# (default 8: they are old files by then, not a copy's new ones), each
# technique is applied to its files; the debugfs ones after the unmount.
# The journal is large enough to hold every earlier copy.
#
#   tests/mkstomped.sh OUTDIR NPER
#
# Writes OUTDIR/stomped.img and OUTDIR/stomped.list (TECHNIQUE PATH per
# stomped file).  Techniques: touch-d, touch-t, touch-r (times of a file
# of the host), touch-m (mtime only), touch-a (atime only), utime-ns
# (os.utime with nanoseconds), backdate-restore (touch -d, committed,
# then the original times put back), sif-crtime, sif-mtime (debugfs sif
# on the unmounted image).  Needs root.
set -eu
OUT=$1
NPER=$2
WAIT=${WAIT:-8}
TECH="touch-d touch-t touch-r touch-m touch-a utime-ns backdate-restore sif-crtime sif-mtime"
IMG="$OUT/stomped.img"
M="$OUT/smnt"

mkdir -p "$OUT" "$M"
cleanup() {
	mountpoint -q "$M" && umount "$M"
	return 0
}
trap cleanup EXIT

rm -f "$IMG"
truncate -s 512M "$IMG"
mkfs.ext4 -q -F "$IMG" >/dev/null
mount -o loop,noinit_itable "$IMG" "$M"
mkdir "$M/base" "$M/s"
: >"$OUT/stomped.list"
for i in $(seq 1 $((NPER * 3))); do echo "ordinary $i" >"$M/base/b$i"; done
for t in $TECH; do
	mkdir "$M/s/$t"
	for i in $(seq 1 "$NPER"); do
		echo "$t $i" >"$M/s/$t/f$i"
		echo "$t /s/$t/f$i" >>"$OUT/stomped.list"
	done
done
sync
sleep "$WAIT"
for i in $(seq 1 "$NPER"); do
	touch -d '2019-03-04 05:06:07.123456789' "$M/s/touch-d/f$i"
	touch -t 201903040506.07 "$M/s/touch-t/f$i"
	touch -r /etc/hostname "$M/s/touch-r/f$i"
	touch -m -d '2020-02-02 02:02:02' "$M/s/touch-m/f$i"
	touch -a -d '2020-02-02 02:02:02' "$M/s/touch-a/f$i"
	touch -r "$M/s/backdate-restore/f$i" "$OUT/restore-ref.$i"
	touch -d '2018-08-08 08:08:08.5' "$M/s/backdate-restore/f$i"
done
python3 - "$M/s/utime-ns" "$NPER" <<-'PY'
	import os, sys
	for i in range(1, int(sys.argv[2]) + 1):
	    t = 1546300800 * 10**9 + i * 7919 * 10**9 + i * 123457
	    os.utime(os.path.join(sys.argv[1], "f%d" % i), ns=(t, t))
PY
sync
sleep 1.1
for i in $(seq 1 "$NPER"); do
	touch -r "$OUT/restore-ref.$i" "$M/s/backdate-restore/f$i"
	rm -f "$OUT/restore-ref.$i"
done
sync
umount "$M"
for i in $(seq 1 "$NPER"); do
	echo "sif /s/sif-crtime/f$i crtime 20190304050607"
	echo "sif /s/sif-mtime/f$i mtime 20190304050607"
done >"$OUT/sif.cmds"
debugfs -w -f "$OUT/sif.cmds" "$IMG" >/dev/null 2>&1
