#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/hash.sh: time `e4time timeline --hash ALG -f jsonl` against
# `find -type f -exec ALGsum {} +` on a loop mount of the same
# kernel-written image (about 4 GB of data: a few large files, many
# medium ones, many small ones, some with three hard links), warm page
# cache, alternating; check that both give the same hash for every name;
# measure the page cache read rate (cat IMG) and each tool's one-core
# speed; optionally (COLD=1) one round each with the image evicted from
# the page cache. Writes bench/RESULTS-hash.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/hash.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR  where the image and outputs are kept [/var/tmp/e4time-bench]
#   LARGE_MB   large files, MiB each ["900 600 300"]
#   MID        files of 5 MiB [360]
#   SMALL      small files of 1 byte to 64 KiB [20000]
#   LINKS      small files given two more names (hard links) [100]
#   RUNS       timed runs of each, alternating [3]
#   ALGS       which hashes ["sha256 md5"]
#   COLD       1: also one cold round each (evicts only the image) [0]
#   BUILD_ONLY 1: build the image and stop [0]
#   E4TIME     the binary (a copy taken at start is timed) [<repo>/tools/e4time]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
LARGE_MB=${LARGE_MB:-900 600 300}
MID=${MID:-360}
SMALL=${SMALL:-20000}
LINKS=${LINKS:-100}
RUNS=${RUNS:-3}
ALGS=${ALGS:-sha256 md5}
COLD=${COLD:-0}
BUILD_ONLY=${BUILD_ONLY:-0}
E4TIME=${E4TIME:-$top/tools/e4time}
RESULTS=$here/RESULTS-hash.md

die() { echo "hash.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (loop mounts)"
if [ -n "${CI:-}" ]; then die "not meant for CI"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built"
command -v jq >/dev/null || die "jq missing"

mkdir -p "$BENCH_DIR/bin" "$BENCH_DIR/out"
cp "$E4TIME" "$BENCH_DIR/bin/e4time-hash"
E4TIME=$BENCH_DIR/bin/e4time-hash
large_sum=0
for m in $LARGE_MB; do large_sum=$((large_sum + m)); done
img=$BENCH_DIR/hash-mix-${LARGE_MB// /+}-$MID-$SMALL-$LINKS.img
mnt=$(mktemp -d /tmp/e4time-hash-mnt.XXXXXX)
trap unmount_mnt EXIT

if [ ! -f "$img" ]; then
	# data plus a quarter for metadata and slack; sparse
	truncate -s $(((large_sum + MID * 5 + SMALL / 32) * 5 / 4 + 256))M "$img.tmp"
	mkfs.ext4 -q -F "$img.tmp"
	mount -o loop "$img.tmp" "$mnt"
	mkdir "$mnt/large" "$mnt/mid" "$mnt/small" "$mnt/links"
	n=0
	for m in $LARGE_MB; do
		n=$((n + 1))
		head -c "${m}M" /dev/urandom >"$mnt/large/l$n"
	done
	for ((i = 1; i <= MID; i++)); do
		head -c 5M /dev/urandom >"$mnt/mid/f$i"
	done
	# 1 byte to 64 KiB, 200 files a directory
	for ((i = 1; i <= SMALL; i++)); do
		d=$mnt/small/d$((i / 200))
		[ -d "$d" ] || mkdir "$d"
		head -c $((i * 7919 % 65536 + 1)) /dev/urandom >"$d/s$i"
	done
	for ((i = 1; i <= LINKS && i <= SMALL; i++)); do
		ln "$mnt/small/d$((i / 200))/s$i" "$mnt/links/a$i"
		ln "$mnt/small/d$((i / 200))/s$i" "$mnt/links/b$i"
	done
	sync
	umount "$mnt"
	mv "$img.tmp" "$img"
fi
[ "$BUILD_ONLY" = 1 ] && { ls -ls "$img"; exit 0; }

mount -o loop,ro "$img" "$mnt"
data_mb=$(du -sm "$mnt" | cut -f1)
nfiles=$(find "$mnt" -type f | wc -l)
img_mb=$(du -sm "$img" | cut -f1)

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { awk -v mb="$1" -v s="$2" 'BEGIN { printf "%.0f", mb / s }'; }
load() { cut -d' ' -f1 /proc/loadavg; }

# warm: the image file (e4time) and the mounted files (the reference)
cat "$img" >/dev/null
find "$mnt" -type f -exec cat {} + >/dev/null
: >"$BENCH_DIR/out/hash.cat"
for ((i = 1; i <= 3; i++)); do
	time_cmd /dev/null cat "$img" >>"$BENCH_DIR/out/hash.cat"
done
cat_s=$(median "$BENCH_DIR/out/hash.cat" 1)
big=$(find "$mnt/large" -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2)
big_mb=$(du -sm "$big" | cut -f1)

{
	echo "# e4time --hash against find -exec ALGsum"
	echo
	echo "bench/hash.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), e4time $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'),"
	echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), warm page cache, medians of $RUNS runs alternating."
	echo "Image ($img_mb MiB allocated): files of $LARGE_MB MiB, $MID files of 5 MiB, $SMALL files"
	echo "of 1 byte to 64 KiB, $LINKS of them with two more hard links: $nfiles names, $data_mb MiB"
	echo "of data, written by the kernel through a loop mount."
	echo "Reading the image file from the page cache (cat IMG): $cat_s s, $(rate "$img_mb" "$cat_s") MiB/s."
	echo
	echo "| hash | e4time wall | find -exec wall | wall ratio | e4time CPU | find CPU | CPU ratio | load (1 min) | same hashes |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
} >"$RESULTS.tmp"

for alg in $ALGS; do
	e=$BENCH_DIR/out/hash.$alg.e4
	r=$BENCH_DIR/out/hash.$alg.ref
	: >"$e"
	: >"$r"
	loads=""
	for ((i = 1; i <= RUNS; i++)); do
		loads="$loads $(load)"
		time_cmd /dev/null "$E4TIME" timeline -q --hash "$alg" -f jsonl "$img" >>"$e"
		(cd "$mnt" && time_cmd /dev/null find . -type f -exec "${alg}sum" {} +) >>"$r"
	done
	"$E4TIME" timeline -q --hash "$alg" -f jsonl "$img" |
		jq -r --arg a "$alg" 'select(.[$a] != null) | "\(.[$a])  .\(.path)"' |
		LC_ALL=C sort >"$e.sums"
	(cd "$mnt" && find . -type f -exec "${alg}sum" {} +) | LC_ALL=C sort >"$r.sums"
	same=no
	cmp -s "$e.sums" "$r.sums" && same="yes ($(wc -l <"$e.sums") names)"
	ew=$(median "$e" 1) rw=$(median "$r" 1) ec=$(median "$e" 4) rc=$(median "$r" 4)
	echo "| $alg | $ew s | $rw s | $(ratio "$ew" "$rw") | $ec s | $rc s | $(ratio "$ec" "$rc") |$loads | $same |" >>"$RESULTS.tmp"
done

# one core: e4time on one thread, and each tool on the largest file alone
{
	echo
	echo "One core (medians of $RUNS, alternating; wall time, and in brackets MiB of data per"
	echo "second of CPU, user + system):"
	echo
	echo "| hash | e4time --threads 1, whole image | find -exec sum, whole image | e4time, largest file ($big_mb MiB) | ALGsum, largest file |"
	echo "|---|---:|---:|---:|---:|"
} >>"$RESULTS.tmp"
for alg in $ALGS; do
	o1=$BENCH_DIR/out/hash.$alg.one
	ob=$BENCH_DIR/out/hash.$alg.bige
	rb=$BENCH_DIR/out/hash.$alg.bigr
	: >"$o1"
	: >"$ob"
	: >"$rb"
	for ((i = 1; i <= RUNS; i++)); do
		time_cmd /dev/null "$E4TIME" timeline -q --threads 1 --hash "$alg" -f jsonl "$img" >>"$o1"
		time_cmd /dev/null "$E4TIME" timeline -q --hash "$alg" -f jsonl "$img" "/large/${big##*/}" >>"$ob"
		time_cmd /dev/null "${alg}sum" "$big" >>"$rb"
	done
	w1=$(median "$o1" 1) wb=$(median "$ob" 1) wr=$(median "$rb" 1)
	c1=$(median "$o1" 4) cb=$(median "$ob" 4) cr=$(median "$rb" 4)
	rw=$(median "$BENCH_DIR/out/hash.$alg.ref" 1)
	rc=$(median "$BENCH_DIR/out/hash.$alg.ref" 4)
	echo "| $alg | $w1 s ($(rate "$data_mb" "$c1") MiB/s) | $rw s ($(rate "$data_mb" "$rc") MiB/s) | $wb s ($(rate "$big_mb" "$cb") MiB/s) | $wr s ($(rate "$big_mb" "$cr") MiB/s) |" >>"$RESULTS.tmp"
done

if [ "$COLD" = 1 ]; then
	# evict the image file's pages (and, by unmounting, the mounted
	# files' and the loop device's) between runs; other files stay
	{
		echo
		echo "Cold (the image evicted from the page cache before each run; one run each):"
		echo
		echo "| hash | e4time wall | find -exec wall | wall ratio | e4time CPU | find CPU | cat IMG cold |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
	} >>"$RESULTS.tmp"
	evict() {
		mountpoint -q "$mnt" && umount "$mnt"
		dd if="$img" iflag=nocache count=0 status=none
	}
	for alg in $ALGS; do
		evict
		ce=$(time_cmd /dev/null "$E4TIME" timeline -q --hash "$alg" -f jsonl "$img")
		evict
		mount -o loop,ro "$img" "$mnt"
		cr=$(cd "$mnt" && time_cmd /dev/null find . -type f -exec "${alg}sum" {} +)
		evict
		cc=$(time_cmd /dev/null cat "$img" | cut -d' ' -f1)
		read -r ew _ _ ec <<<"$ce"
		read -r rw _ _ rc <<<"$cr"
		echo "| $alg | $ew s | $rw s | $(ratio "$ew" "$rw") | $ec s | $rc s | $cc s ($(rate "$img_mb" "$cc") MiB/s) |" >>"$RESULTS.tmp"
		mount -o loop,ro "$img" "$mnt"
	done
fi
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
