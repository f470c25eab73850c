#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/hash.sh: time `e4time timeline --hash ALG -f jsonl` against
# `find -type f -exec ALGsum {} +` on a loop mount of the same
# kernel-written image, warm page cache, alternating; check that both give
# the same hash for every file; write bench/RESULTS-hash.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/hash.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR  where the image and outputs are kept [/var/tmp/e4time-bench]
#   BIG_MB     one large file of this many MiB [1200]
#   MID        files of 5 MiB [100]
#   SMALL      small files, i*50 bytes each [2000]
#   RUNS       timed runs of each, alternating [3]
#   ALGS       which hashes ["sha256 md5"]
#   E4TIME     the binary (a copy taken at start is timed) [<repo>/tools/e4time]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
BIG_MB=${BIG_MB:-1200}
MID=${MID:-100}
SMALL=${SMALL:-2000}
RUNS=${RUNS:-3}
ALGS=${ALGS:-sha256 md5}
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
img=$BENCH_DIR/hash-$BIG_MB-$MID-$SMALL.img
mnt=$(mktemp -d /tmp/e4time-hash-mnt.XXXXXX)
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT

if [ ! -f "$img" ]; then
	truncate -s $((BIG_MB + MID * 5 + 1024))M "$img.tmp"
	mkfs.ext4 -q -F "$img.tmp"
	mount -o loop "$img.tmp" "$mnt"
	mkdir "$mnt/big" "$mnt/mid" "$mnt/small"
	head -c "${BIG_MB}M" /dev/urandom >"$mnt/big/blob"
	for i in $(seq 1 "$MID"); do
		head -c 5M /dev/urandom >"$mnt/mid/f$i"
	done
	for i in $(seq 1 "$SMALL"); do
		head -c $((i * 50)) /dev/urandom >"$mnt/small/s$i"
	done
	sync
	umount "$mnt"
	mv "$img.tmp" "$img"
fi

mount -o loop,ro "$img" "$mnt"
# warm: the image file (e4time) and the mounted files (the reference)
cat "$img" >/dev/null
find "$mnt" -type f -exec cat {} + >/dev/null
data_mb=$(du -sm "$mnt" | cut -f1)
t0=$EPOCHREALTIME
cat "$img" >/dev/null
t1=$EPOCHREALTIME
cache_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')

{
	echo "# e4time --hash against find -exec ALGsum"
	echo
	echo "bench/hash.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), e4time $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'),"
	echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), warm page cache, medians of $RUNS runs alternating."
	echo "Image: one ${BIG_MB} MiB file, $MID files of 5 MiB, $SMALL small files (${data_mb} MiB of data),"
	echo "written by the kernel through a loop mount. Reading the whole image file from the page"
	echo "cache (cat): ${cache_s} s."
	echo
	echo "| hash | e4time timeline --hash | find -exec sum | ratio | same hashes |"
	echo "|---|---:|---:|---:|---|"
} >"$RESULTS"

for alg in $ALGS; do
	: >"$BENCH_DIR/out/hash.$alg.e4"
	: >"$BENCH_DIR/out/hash.$alg.ref"
	for ((i = 1; i <= RUNS; i++)); do
		time_cmd /dev/null "$E4TIME" timeline -q --hash "$alg" -f jsonl "$img" >>"$BENCH_DIR/out/hash.$alg.e4"
		(cd "$mnt" && time_cmd /dev/null find . -type f -exec "${alg}sum" {} +) >>"$BENCH_DIR/out/hash.$alg.ref"
	done
	"$E4TIME" timeline -q --hash "$alg" -f jsonl "$img" |
		jq -r --arg a "$alg" 'select(.[$a] != null) | "\(.[$a])  .\(.path)"' |
		LC_ALL=C sort >"$BENCH_DIR/out/hash.$alg.e4sums"
	(cd "$mnt" && find . -type f -exec "${alg}sum" {} +) | LC_ALL=C sort >"$BENCH_DIR/out/hash.$alg.refsums"
	same=no
	cmp -s "$BENCH_DIR/out/hash.$alg.e4sums" "$BENCH_DIR/out/hash.$alg.refsums" &&
		same="yes ($(wc -l <"$BENCH_DIR/out/hash.$alg.e4sums") files)"
	e=$(median "$BENCH_DIR/out/hash.$alg.e4" 1)
	r=$(median "$BENCH_DIR/out/hash.$alg.ref" 1)
	echo "| $alg | $e s | $r s | $(awk -v a="$e" -v b="$r" 'BEGIN { printf "%.2f", a / b }') | $same |" >>"$RESULTS"
done
cat "$RESULTS"
