#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_damage_gen.sh --- every read command on damaged copies of every
# image in images/ (tests/damage_gen.c makes them): random byte and bit
# flips, zeroed and random runs in the superblock, the group
# descriptors, inode-table blocks, directory blocks, extent trees (root
# in the inode, and tree blocks), xattrs (in the inode, and blocks) and
# the journal, checksums fixed after the damage (odd
# copies: the damage reaches the parsers) or left broken (even copies);
# and copies truncated inside or at the start of such an area.
#
# On every copy: stat, timeline in every format (and --deleted), export,
# journal (text with blocks, and jsonl with --stale), audit (text, json,
# csv), history, and backfill -n (a dry run opens the image read-only;
# it reads the xattrs); each under timeout.  Each must end with a documented
# exit status (0, 1, 2, 4, 8, 16: man/e4time.8), never hang, crash or
# leave a sanitizer report, and the copy must not change by a byte.
#
# Deterministic: DAMAGE_SEED (default 1).  DAMAGE_COPIES damaged and
# DAMAGE_TRUNCS truncated copies per image (defaults 4 and 2: under two
# minutes in a normal build); DAMAGE_TIMEOUT seconds per command
# (default 60).  The last lines of the log count copies by kind and
# checksum state, and runs by exit status.
. "$TOP_SRCDIR/tests/lib.sh"

: "${DAMAGE_GEN:?DAMAGE_GEN must name tests/damage_gen}"
: "${DAMAGE_SEED:=1}"
: "${DAMAGE_COPIES:=4}"
: "${DAMAGE_TRUNCS:=2}"
: "${DAMAGE_TIMEOUT:=60}"

suite_setup() {
	require_tools xz timeout sha256sum || return 1
	[ -x "$DAMAGE_GEN" ] || {
		echo "test_damage_gen: $DAMAGE_GEN not built (make check builds it)" >&2
		return 1
	}
	mkdir -p "$TMP/base" || return 1
	: >"$TMP/tally"
}

suite_teardown() {
	[ -s "$TMP/tally" ] || return 0
	echo "damage_gen: seed $DAMAGE_SEED, $DAMAGE_COPIES damaged and" \
		"$DAMAGE_TRUNCS truncated copies per image"
	echo "damage_gen: copies by kind and checksum:" \
		"$(grep '^copy ' "$TMP/tally" | cut -d' ' -f2,3 | sort |
			uniq -c | awk '{ printf "%s %s %s, ", $2, $3, $1 }')"
	echo "damage_gen: $(grep -c '^copy ' "$TMP/tally") copies," \
		"$(grep -c '^run ' "$TMP/tally") runs, by exit status:" \
		"$(grep '^run ' "$TMP/tally" | cut -d' ' -f2 | sort -n |
			uniq -c | awk '{ printf "%s: %s, ", $2, $1 }')"
	# the rare ones in full
	grep -E '^run (2|8) ' "$TMP/tally" | head -n 20
}

# run_d IMAGE ARGS...: e4time ARGS under timeout; a hang, a crash, an
# undocumented status or a sanitizer report fails the test.  So does 8:
# an internal error (out of memory, a bug) is not how damage is told; the
# image's damage is 1 (partial) or 4 (unusable).
run_d() {
	local img=$1
	shift
	OUT="$TMP/stdout"
	ERR="$TMP/stderr"
	timeout -k 5 "$DAMAGE_TIMEOUT" "$E4TIME" "$@" >"$OUT" 2>"$ERR"
	RC=$?
	echo "run $RC $WHAT: e4time $*" >>"$TMP/tally"
	case $RC in
	0 | 1 | 2 | 4 | 16) ;;
	8) fail "$WHAT: e4time $*: status 8 (internal error) for damage: $(head -n 3 "$ERR")" ;;
	124 | 137) fail "$WHAT: e4time $*: hung (killed after ${DAMAGE_TIMEOUT}s)" ;;
	*) fail "$WHAT: e4time $*: status $RC: $(head -n 3 "$ERR")" ;;
	esac
	check_stderr "$WHAT: e4time $*"
	check_reports "$WHAT: e4time $*"
}

# read_all COPY [JDEV]: every read command on COPY.
read_all() {
	local img=$1 j=() f
	[ -n "${2:-}" ] && j=(-j "$2")
	run_d "$img" stat "$img" / "<2>" "<11>" "<12>" "<13>" /d/f01
	for f in bodyfile mactime jsonl timesketch csv text; do
		run_d "$img" timeline -f "$f" "$img"
	done
	run_d "$img" timeline -d -f jsonl "$img"
	run_d "$img" export "$img"
	run_d "$img" journal "${j[@]}" -b "$img"
	run_d "$img" journal "${j[@]}" --stale -f jsonl "$img"
	for f in text json csv; do
		run_d "$img" audit "${j[@]}" -f "$f" "$img"
	done
	run_d "$img" history "${j[@]}" -a "$img" "<12>"
	run_d "$img" anomalies "${j[@]}" -f jsonl "$img"
	run_d "$img" timeline --flags -f csv "$img"
	# a dry run opens the image read-only: the xattr decoders' turn
	run_d "$img" backfill -n --from dosattrib -f jsonl "$img"
}

# damage_image NAME: its damaged and truncated copies, one at a time.
damage_image() {
	local name=$1 base="$TMP/base/$1.img" copy="$TMP/copy.img" jdev=""
	local n line before after
	xz -dc "$IMAGES/$name.img.xz" >"$base" || { fail "unpack $name"; return; }
	if [ -f "$IMAGES/$name-jdev.img.xz" ]; then
		jdev="$TMP/base/$name-jdev.img"
		xz -dc "$IMAGES/$name-jdev.img.xz" >"$jdev" || return
	fi
	for ((n = 0; n < DAMAGE_COPIES + DAMAGE_TRUNCS; n++)); do
		if [ "$n" -lt "$DAMAGE_COPIES" ]; then
			line=$("$DAMAGE_GEN" damage "$base" "$DAMAGE_SEED" "$n" "$copy")
		else
			line=$("$DAMAGE_GEN" truncate "$base" "$DAMAGE_SEED" \
				"$((n - DAMAGE_COPIES))" "$copy")
		fi || { fail "damage_gen on $name, copy $n"; continue; }
		# shellcheck disable=SC2086 # OUT KIND OP CSUM OFFSET
		set -- $line
		WHAT="$name copy $n ($2 $3 at $5, checksum $4)"
		if [ "$3" = truncate ]; then
			echo "copy $2 truncated" >>"$TMP/tally"
		else
			echo "copy $2 csum-$4" >>"$TMP/tally"
		fi
		before=$(sha256sum <"$copy")
		read_all "$copy" "$jdev"
		after=$(sha256sum <"$copy")
		assertEquals "$WHAT: the copy changed" "$before" "$after"
	done
	rm -f "$copy" "$base" ${jdev:+"$jdev"}
}

IMAGE_NAMES=()
for f in "$TOP_SRCDIR"/images/*.img.xz; do
	n=$(basename "$f" .img.xz)
	case $n in *-jdev) continue ;; esac
	IMAGE_NAMES+=("$n")
	eval "test_${n//-/_}() { damage_image $n; }"
done

# One test per image (defined above, which shunit2 cannot see).
suite() {
	local n
	for n in "${IMAGE_NAMES[@]}"; do
		suite_addTest "test_${n//-/_}"
	done
}

. shunit2
