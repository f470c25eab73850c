#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/deleted.sh [IMAGE...] --- time `e4time timeline --deleted --journal`
# against `timeline` plus `audit` run separately, on each IMAGE, in one
# run: medians and 90th percentiles (nearest rank) of $RUNS (default 3)
# timed runs after one untimed warm-up (warm page cache), alternating,
# none dropped; wall time by bash's EPOCHREALTIME, CPU time (user +
# system) by /usr/bin/time (bench/lib.sh).  Prints, per image, the
# medians and the ratios
#   (timeline --deleted --journal) / (timeline + audit)
# of wall and of CPU time, the same of the 90th percentiles of wall time,
# the 1-minute load average over the runs, and before and after.
# Read-only: the images are never written.
#
# Without IMAGE: million-j1g.img, built here when it is not cached
# (needs root: loop mounts), then audit-1g.img (bench/audit.sh) and
# million.img (bench/timeline.sh) when they are there.
#
# million-j1g.img: 1,000,000 files in 1000 directories (as million.img)
# on a filesystem with a 1 GiB journal, then kernel-written churn, each
# step synced: every file's atime set (touch -a: every inode-table block
# journaled), one file in 10 renamed (rename(2) from python3: directory
# blocks and inodes), one in 20 deleted (unlink: names and inodes freed),
# every atime set again, and one file in 50 of the rest written to; then
# unmounted (the log, wrapped, holds stale transactions only).
#
# Environment: BENCH_DIR [/var/tmp/e4time-bench], RUNS [3], E4TIME
# [tools/e4time; a copy is timed], REBUILD [0], BUILD_ONLY [0].
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
E4TIME=${E4TIME:-$here/../tools/e4time}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
REBUILD=${REBUILD:-0}
BUILD_ONLY=${BUILD_ONLY:-0}

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
die() { echo "deleted.sh: $*" >&2; exit 1; }

mnt="" bin=""
cleanup() {
	unmount_mnt
	[ -z "$bin" ] || rm -f "$bin"
}
trap cleanup EXIT

# million-j1g.img (see above); BENCH_DIR/million-j1g.build says how.
build_million_j1g() {
	local img=$BENCH_DIR/million-j1g.img tmp=$BENCH_DIR/million-j1g.tmp.img
	local t0 d
	if [ -f "$img" ] && [ -f "$BENCH_DIR/million-j1g.build" ] &&
		[ "$REBUILD" != 1 ]; then
		log "million-j1g.img: cached ($(tr '\n' ' ' <"$BENCH_DIR/million-j1g.build"))"
		return
	fi
	[ "$(id -u)" = 0 ] || die "building million-j1g.img needs root (loop mounts)"
	rm -f "$img" "$tmp"
	t0=$EPOCHREALTIME
	log "million-j1g.img: mkfs (4 GiB sparse, 1 GiB journal)"
	truncate -s 4G "$tmp"
	mkfs.ext4 -q -F -b 4096 -I 256 -N 1100000 -J size=1024 \
		-E lazy_itable_init=0 "$tmp"
	mnt=$(mktemp -d /tmp/e4time-bench-dj.XXXXXX)
	mount -o loop "$tmp" "$mnt"
	log "million-j1g.img: 1,000,000 files"
	(cd "$mnt" && for d in $(seq -w 0 999); do
		mkdir "d$d"
		(cd "d$d" && touch f{000..999})
	done)
	sync
	log "million-j1g.img: churn: atimes"
	(cd "$mnt" && printf '%s\0' d*/ | xargs -0 -n 50 sh -c \
		'for d; do touch -a -- "$d"f*; done' sh)
	sync
	log "million-j1g.img: churn: renames, deletes"
	python3 - "$mnt" <<'PYEOF'
import os, sys
top = sys.argv[1]
for d in sorted(os.listdir(top)):
    if not d.startswith("d"):
        continue
    p = os.path.join(top, d)
    for i in range(0, 1000, 10):
        os.rename(os.path.join(p, "f%03d" % i), os.path.join(p, "renamed_%03d" % i))
    if d.endswith("99"):
        os.sync()
for d in sorted(os.listdir(top)):
    if not d.startswith("d"):
        continue
    p = os.path.join(top, d)
    for i in range(5, 1000, 20):
        os.unlink(os.path.join(p, "f%03d" % i))
PYEOF
	sync
	log "million-j1g.img: churn: atimes again, writes"
	sleep 1
	(cd "$mnt" && printf '%s\0' d*/ | xargs -0 -n 50 sh -c \
		'for d; do touch -a -- "$d"*; done' sh)
	sync
	(cd "$mnt" && for d in d*/; do
		for f in "$d"f*2; do echo data >>"$f"; done
	done)
	sync
	umount "$mnt"
	rmdir "$mnt"
	mnt=""
	mv "$tmp" "$img"
	{
		echo "build_seconds=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
		echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "kernel=$(uname -r)"
	} >"$BENCH_DIR/million-j1g.build"
	log "million-j1g.img: built ($(tr '\n' ' ' <"$BENCH_DIR/million-j1g.build"))"
}

if [ $# -eq 0 ]; then
	mkdir -p "$BENCH_DIR"
	build_million_j1g
	[ "$BUILD_ONLY" = 1 ] && exit 0
	set -- "$BENCH_DIR/million-j1g.img"
	for i in audit-1g million; do
		[ ! -f "$BENCH_DIR/$i.img" ] || set -- "$@" "$BENCH_DIR/$i.img"
	done
fi
[ -x "$E4TIME" ] || die "$E4TIME: not built"
bin=$(mktemp)
cp "$E4TIME" "$bin"
chmod 755 "$bin"

# med FILE COLUMN: the median of a column of time_cmd lines
med() { median "$1" "$2"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| image | timeline s (CPU) | audit s (CPU) | timeline --deleted --journal s (CPU) | rows | ratio wall | ratio CPU | p90 s: timeline / audit / -d --journal | ratio wall p90 | load (1 min) over the runs |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---|"
for img in "$@"; do
	"$bin" timeline -f mactime "$img" >/dev/null 2>&1 || true
	"$bin" audit -f json "$img" >/dev/null 2>&1 || true
	rows=$("$bin" timeline -d --journal -f mactime "$img" 2>/dev/null | wc -l) || true
	res=$(mktemp -d)
	for ((r = 0; r < RUNS; r++)); do
		time_cmd /dev/null "$bin" timeline -f mactime "$img" >>"$res/tl"
		time_cmd /dev/null "$bin" audit -f json "$img" >>"$res/au"
		time_cmd /dev/null "$bin" timeline -d --journal -f mactime "$img" >>"$res/dj"
	done
	tw=$(med "$res/tl" 1) tc=$(med "$res/tl" 4)
	aw=$(med "$res/au" 1) ac=$(med "$res/au" 4)
	dw=$(med "$res/dj" 1) dc=$(med "$res/dj" 4)
	t9=$(pctl "$res/tl" 1 90) a9=$(pctl "$res/au" 1 90) d9=$(pctl "$res/dj" 1 90)
	load=$(loadrange "$res/dj")
	rm -rf "$res"
	echo "| $(basename "$img") | $tw ($tc) | $aw ($ac) | $dw ($dc) | $rows |" \
		"$(awk -v d="$dw" -v t="$tw" -v a="$aw" 'BEGIN { printf "%.2fx", d / (t + a) }') |" \
		"$(awk -v d="$dc" -v t="$tc" -v a="$ac" 'BEGIN { printf "%.2fx", ((t + a) > 0 ? d / (t + a) : 0) }') |" \
		"$t9 / $a9 / $d9 | $(awk -v d="$d9" -v t="$t9" -v a="$a9" 'BEGIN { printf "%.2fx", d / (t + a) }') | $load |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
