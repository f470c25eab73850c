#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/anomalies-innocent.sh --- e4time anomalies on the innocent corpus
# at full scale (tests/mkinnocent.sh: cp -a, cp -r, rsync -a, a tar pipe,
# Python's tarfile, unzip, two Maildirs, gzip, mke2fs -d, atomic saves,
# log rotation, rsync --inplace, dpkg -i, container layers, a tar backup
# restored) and on the stomped corpus (tests/mkstomped.sh): counts
# per rule per tree, as markdown; then how many of each image's times
# sit on the clock tick's grid (bench/tick-grid.py).  Run by hand (root, loop mounts, some
# GiB of space and many minutes), not in make check; test_innocent.sh
# asserts the same targets at a small scale.
#   bench/anomalies-innocent.sh [E4TIME] [NFILES] [SRC]
# Defaults: tools/e4time, 70000 files of /usr/share, no forced commits
# (STORM=0: the default 5 s commit interval, the trees being large),
# 4G images (SIZE), 30 stomped files per technique (NPER).
set -eu
E4TIME=${1:-tools/e4time}
N=${2:-70000}
SRC=${3:-/usr/share}
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
STORM=${STORM:-0} SIZE=${SIZE:-4G} bash "$TOP/tests/mkinnocent.sh" "$T" "$N" "$SRC"
WAIT=${WAIT:-12} bash "$TOP/tests/mkstomped.sh" "$T" "${NPER:-30}"
for t in $(cut -d' ' -f1 "$T/manifest") stomped; do
	"$E4TIME" anomalies -f jsonl "$T/$t.img" >"$T/$t.jsonl"
done
echo "Run of $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), Linux $(uname -r)"
echo
python3 "$TOP/tests/anom_counts.py" "$T" --markdown
echo
echo "Stomped: technique, files, named at strong, at medium (not strong):"
echo
python3 "$TOP/tests/anom_counts.py" --recall "$T/stomped.list" "$T/stomped.jsonl"
echo
echo "The clock-tick grid (bench/tick-grid.py):"
echo
python3 "$TOP/bench/tick-grid.py" "$E4TIME" $(for t in $(cut -d' ' -f1 "$T/manifest") stomped; do
	echo "$T/$t.img"
done) --list "$T/stomped.list"
