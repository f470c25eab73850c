#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/damage.sh --- rows listed on damaged images: e4time timeline
# against The Sleuth Kit's fls -r -m / (issue 27: a damaged piece must
# cost only what lies in it).  Run by hand (root: loop mounts), not CI:
#
#   make && sudo bench/damage.sh [OUT.md]
#
# Two kernel-written images (tests/test_damage_chunks.sh's layout: /d1
# and /d2/sub of 40 files, /big of 300 long names, /a.txt), mkfs.ext4's
# defaults ("csum") and ^metadata_csum,^uninit_bg ("plain"), damaged one
# piece at a time:
#   itable   each of group 0's first inode-table blocks zeroed
#   dir      each block of /big, /d1 and /d2/sub zeroed
#   gen      tests/damage_gen damage, copies 1..$GEN_N (every kind of
#            metadata area, random bytes, flips, zeroed runs; checksums
#            fixed in odd copies)
#   trunc    tests/damage_gen truncate, copies 1..$TRUNC_N
#   e01      through an E01 (ewfacquire, deflate): 8 bytes of one
#            compressed chunk overwritten (tests/ewf_chunk.py), each of
#            the first $E01_N chunks
# Per case: the rows each lists (fls's virtual $OrphanFiles left out),
# the status e4time gave.  Writes the table to OUT.md (default
# bench/RESULTS-damage.md) with, per class, the rows summed, the ratio
# e4time/fls, the cases where e4time listed fewer, and the worst case.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
E4TIME=${E4TIME:-$top/tools/e4time}
DAMAGE_GEN=${DAMAGE_GEN:-$top/tests/damage_gen}
OUTMD=${1:-$top/bench/RESULTS-damage.md}
GEN_N=${GEN_N:-60}
TRUNC_N=${TRUNC_N:-20}
E01_N=${E01_N:-40}
ITABLE_N=${ITABLE_N:-16}
BS=4096

if [ -n "${CI:-}" ]; then
	echo "damage.sh: not meant for CI (CI=$CI)" >&2
	exit 1
fi
for t in fls debugfs mkfs.ext4 python3 timeout; do
	command -v "$t" >/dev/null || {
		echo "damage.sh: $t is needed" >&2
		exit 1
	}
done
[ -x "$E4TIME" ] && [ -x "$DAMAGE_GEN" ] || {
	echo "damage.sh: build first (make; make tests/damage_gen)" >&2
	exit 1
}
. "$top/bench/lib.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/e4time-bench-damage.XXXXXX")
mnt=""
trap 'unmount_mnt; rm -rf "$W"' EXIT

populate() {
	local m=$1 i
	mkdir -p "$m/d1" "$m/d2/sub" "$m/big"
	for i in $(seq 1 40); do echo "$i" >"$m/d1/f$i"; done
	for i in $(seq 1 40); do echo "$i" >"$m/d2/sub/g$i"; done
	for i in $(seq -w 1 300); do
		echo "$i" >"$m/big/entry-$i-with-a-rather-long-name.txt"
	done
	echo a >"$m/a.txt"
}

mkimage() { # NAME MKFS_OPTS...
	local name=$1 img="$W/$1.raw"
	shift
	truncate -s 32M "$img"
	mkfs.ext4 -q -F -b $BS -I 256 "$@" "$img" >/dev/null 2>&1
	mnt="$W/mnt"
	mkdir -p "$mnt"
	mount -o loop "$img" "$mnt"
	populate "$mnt"
	umount "$mnt"
	rmdir "$mnt"
	mnt=""
}

fls_rows() { fls -r -m / "$1" 2>/dev/null | grep -vc '/\$OrphanFiles' || true; }
e4t_rows() { # IMAGE: rows, the status, and stderr's first line
	local rc
	set +e
	timeout 120 "$E4TIME" timeline -f mactime "$1" >"$W/e.out" 2>"$W/e.err"
	rc=$?
	set -e
	echo "$(wc -l <"$W/e.out") $rc $(head -n 1 "$W/e.err" | sed "s|$W/||g")"
}

# case CLASS IMAGE-NAME WHAT FILE: one row of $W/rows
case_row() {
	local e n rc msg f
	e=$(e4t_rows "$4")
	read -r n rc msg <<<"$e"
	f=$(fls_rows "$4")
	if [ "$n" -lt "$f" ]; then
		echo "$1 $2 $3 $n $f $rc # $msg" >>"$W/rows"
	else
		echo "$1 $2 $3 $n $f $rc" >>"$W/rows"
	fi
}

: >"$W/rows"
mkimage csum
mkimage plain -O ^metadata_csum,^uninit_bg
for name in csum plain; do
	img="$W/$name.raw"
	case_row intact $name - "$img"
	it=$(debugfs -R stats "$img" 2>/dev/null |
		sed -n 's/^ Group  0:.*inode table at \([0-9]*\).*/\1/p')
	for i in $(seq 0 $((ITABLE_N - 1))); do
		cp --sparse=always "$img" "$W/d.raw"
		dd if=/dev/zero of="$W/d.raw" bs=$BS seek=$((it + i)) count=1 \
			conv=notrunc status=none
		case_row itable $name "block+$i" "$W/d.raw"
	done
	for dir in /big /d1 /d2/sub; do
		for b in $(debugfs -R "blocks $dir" "$img" 2>/dev/null); do
			cp --sparse=always "$img" "$W/d.raw"
			dd if=/dev/zero of="$W/d.raw" bs=$BS seek="$b" count=1 \
				conv=notrunc status=none
			case_row dir $name "$dir@$b" "$W/d.raw"
		done
	done
	for n in $(seq 1 "$GEN_N"); do
		line=$("$DAMAGE_GEN" damage "$img" 27 "$n" "$W/d.raw")
		set -- $line
		case_row gen $name "$2/$3/$4" "$W/d.raw"
	done
	for n in $(seq 1 "$TRUNC_N"); do
		line=$("$DAMAGE_GEN" truncate "$img" 27 "$n" "$W/d.raw")
		set -- $line
		case_row trunc $name "$2@$5" "$W/d.raw"
	done
	if command -v ewfacquire >/dev/null; then
		ewfacquire -u -q -c deflate:fast -f encase6 -S 1G \
			-t "$W/$name" "$img" >/dev/null 2>&1
		for c in $(seq 0 $((E01_N - 1))); do
			cp "$W/$name.E01" "$W/d.E01"
			read -r off len < <(python3 "$top/tests/ewf_chunk.py" "$W/d.E01" "$c")
			printf 'XXXXXXXX' | dd of="$W/d.E01" bs=1 \
				seek=$((off + len / 2)) conv=notrunc status=none
			case_row e01 $name "chunk$c" "$W/d.E01"
		done
	fi
done

{
	echo "# Rows listed on damaged images: e4time timeline vs fls -r -m /"
	echo
	echo "\`bench/damage.sh\`, $(date -u +%Y-%m-%d), $("$E4TIME" --version 2>/dev/null | head -1),"
	echo "$(fls -V 2>&1 | head -1). Two kernel-written 32 MiB ext4 images"
	echo "(381 names each; \`csum\`: mkfs.ext4's defaults, \`plain\`:"
	echo "^metadata_csum,^uninit_bg), one piece damaged at a time (see the script)."
	echo "Rows: \`e4time timeline -f mactime | wc -l\` and \`fls -r -m / | wc -l\`"
	echo "without fls's virtual \$OrphanFiles; fls lists the E01 cases through"
	echo "libewf as e4time does."
	echo
	echo "| class | cases | e4time rows | fls rows | ratio | cases e4time < fls | worst case (e4time/fls) | e4time exit statuses |"
	echo "|---|---:|---:|---:|---:|---:|---|---|"
	awk '
	{ k = $1; n[k]++; e[k] += $4; f[k] += $5
	  if ($4 < $5) less[k]++
	  r = ($5 > 0) ? $4 / $5 : 1
	  if (!(k in worst) || r < worst[k]) { worst[k] = r; wc[k] = $2 " " $3 " (" $4 "/" $5 ")" }
	  st[k, $6]++; codes[$6] = 1
	  if (!(k in order)) { order[k] = ++no; keys[no] = k } }
	END {
	  for (i = 1; i <= no; i++) { k = keys[i]; s = ""
	    for (c in codes) if ((k, c) in st) s = s (s ? ", " : "") c ": " st[k, c]
	    printf "| %s | %d | %d | %d | %.3f | %d | %s | %s |\n", k, n[k], e[k], f[k], f[k] ? e[k] / f[k] : 0, less[k] + 0, wc[k], s }
	}' "$W/rows"
	echo
	echo "Every case, \`class image what e4time-rows fls-rows e4time-status\`"
	echo "(and, where e4time listed fewer, the first line it printed on stderr):"
	echo
	echo '```'
	cat "$W/rows"
	echo '```'
} >"$OUTMD"
echo "damage.sh: $(wc -l <"$W/rows") cases, written to $OUTMD"
