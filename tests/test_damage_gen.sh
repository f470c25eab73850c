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
# On every copy: stat, timeline in every format (and --deleted, and
# --flags), export, journal (text with blocks, and jsonl with --stale),
# audit (text, json, csv), history, anomalies, and backfill -n (a dry run
# opens the image read-only; it reads the xattrs); each under timeout.
# Each must end with a documented exit status (0, 1, 2, 4, 8, 16:
# man/e4time.8), never hang, crash or leave a sanitizer report, and the
# copy must not change by a byte.
#
# With E4T_QUICK=1 (.ci/run's sanitizer build, where a process costs
# 0.1 s of start and leak check before any work) a copy runs every
# command once, not every format: copy N of the I-th image runs timeline
# in format N+I mod 6, journal's two forms in turn, audit in format N+I
# mod 3 (10 runs, not 18).  The parsers that the damage reaches are the
# same whatever the format; over the images' copies every format still
# runs (test_every_format_ran), and the formatters run on whole images in
# their own suites
# (DAMAGE_ROTATE=1 gives the same turns in any build: .ci/run's normal
# build takes it for its own copies).
#
# Deterministic: DAMAGE_SEED (default 1).  DAMAGE_COPIES damaged and
# DAMAGE_TRUNCS truncated copies per image (defaults 4 and 2: under two
# minutes in a normal build), numbered from DAMAGE_FIRST (default 0: a
# copy's number chooses the kind of area damaged, going round the
# image's kinds, and whether its checksum is fixed, so .ci/run gives its
# two builds other numbers); DAMAGE_TIMEOUT seconds per command
# (default 60).  The last lines of the log count copies by kind and
# checksum state, and runs by exit status.
. "$TOP_SRCDIR/tests/lib.sh"

: "${DAMAGE_GEN:?DAMAGE_GEN must name tests/damage_gen}"
: "${DAMAGE_SEED:=1}"
: "${DAMAGE_COPIES:=4}"
: "${DAMAGE_TRUNCS:=2}"
: "${DAMAGE_FIRST:=0}"
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
		"$DAMAGE_TRUNCS truncated copies per image from number" \
		"$DAMAGE_FIRST, $RUNS_PER_COPY runs" \
		"a copy$([ "$ROTATE" = 1 ] && echo " (E4T_QUICK=1: formats in turn)")"
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
	RUNS=$((RUNS + 1))
	case $RC in
	0 | 1 | 2 | 4 | 16) ;;
	8) fail "$WHAT: e4time $*: status 8 (internal error) for damage: $(head -n 3 "$ERR")" ;;
	124 | 137) fail "$WHAT: e4time $*: hung (killed after ${DAMAGE_TIMEOUT}s)" ;;
	*) fail "$WHAT: e4time $*: status $RC: $(head -n 3 "$ERR")" ;;
	esac
	check_stderr "$WHAT: e4time $*"
	check_reports "$WHAT: e4time $*"
}

# E4T_QUICK=1 or DAMAGE_ROTATE=1 (.ci/run's normal build): each copy
# one format of each command (above), else all.
ROTATE=${DAMAGE_ROTATE:-$(reps 0 1)}
# runs a copy: stat, timeline x6, -d, export, journal x2, audit x3,
# history, anomalies, --flags, backfill; or one of each of the x ones
RUNS_PER_COPY=$((ROTATE ? 10 : 18))

# pick K ITEM...: the ITEMs, or with ROTATE the one K mod their count.
pick() {
	local k=$1
	shift
	if [ "$ROTATE" = 1 ]; then
		shift $((k % $#))
		echo "$1"
	else
		echo "$@"
	fi
}

# read_all COPY JDEV K: every read command on COPY (JDEV: its external
# journal, or empty); with ROTATE, the formats of turn K.
read_all() {
	local img=$1 k=$3 j=() f
	[ -n "${2:-}" ] && j=(-j "$2")
	run_d "$img" stat "$img" / "<2>" "<11>" "<12>" "<13>" /d/f01
	for f in $(pick "$k" bodyfile mactime jsonl timesketch csv text); do
		run_d "$img" timeline -f "$f" "$img"
	done
	run_d "$img" timeline -d -f jsonl "$img"
	run_d "$img" export "$img"
	for f in $(pick "$k" blocks stale); do
		case $f in
		blocks) run_d "$img" journal "${j[@]}" -b "$img" ;;
		stale) run_d "$img" journal "${j[@]}" --stale -f jsonl "$img" ;;
		esac
	done
	for f in $(pick "$k" text json csv); do
		run_d "$img" audit "${j[@]}" -f "$f" "$img"
	done
	run_d "$img" history "${j[@]}" -a "$img" "<12>"
	run_d "$img" anomalies "${j[@]}" -f jsonl "$img"
	run_d "$img" timeline --flags -f csv "$img"
	# a dry run opens the image read-only: the xattr decoders' turn
	run_d "$img" backfill -n --from dosattrib -f jsonl "$img"
}

# damage_image NAME I: its damaged and truncated copies, one at a time
# (I: the image's place in IMAGE_NAMES, for the formats' turns).
damage_image() {
	local name=$1 base="$TMP/base/$1.img" copy="$TMP/copy.img" jdev=""
	local idx=$2 n num line before after copies=0
	RUNS=0
	xz -dc "$IMAGES/$name.img.xz" >"$base" || { fail "unpack $name"; return; }
	if [ -f "$IMAGES/$name-jdev.img.xz" ]; then
		jdev="$TMP/base/$name-jdev.img"
		xz -dc "$IMAGES/$name-jdev.img.xz" >"$jdev" || return
	fi
	for ((n = 0; n < DAMAGE_COPIES + DAMAGE_TRUNCS; n++)); do
		# (named as damage_gen numbers them: seed, damage or truncate N)
		if [ "$n" -lt "$DAMAGE_COPIES" ]; then
			num="damage $((DAMAGE_FIRST + n))"
		else
			num="truncate $((DAMAGE_FIRST + n - DAMAGE_COPIES))"
		fi
		# shellcheck disable=SC2086 # "damage N" or "truncate N"
		line=$("$DAMAGE_GEN" ${num% *} "$base" "$DAMAGE_SEED" \
			"${num#* }" "$copy") ||
			{ fail "damage_gen on $name, seed $DAMAGE_SEED $num"; continue; }
		# shellcheck disable=SC2086 # OUT KIND OP CSUM OFFSET
		set -- $line
		WHAT="$name seed $DAMAGE_SEED $num ($2 $3 at $5, checksum $4)"
		if [ "$3" = truncate ]; then
			echo "copy $2 truncated" >>"$TMP/tally"
		else
			echo "copy $2 csum-$4" >>"$TMP/tally"
		fi
		before=$(sha256sum <"$copy")
		read_all "$copy" "$jdev" $((n + idx))
		after=$(sha256sum <"$copy")
		assertEquals "$WHAT: the copy changed" "$before" "$after"
		copies=$((copies + 1))
	done
	assertEquals "$name: copies checked" $((DAMAGE_COPIES + DAMAGE_TRUNCS)) "$copies"
	assertEquals "$name: runs" $((copies * RUNS_PER_COPY)) "$RUNS"
	rm -f "$copy" "$base" ${jdev:+"$jdev"}
}

IMAGE_NAMES=()
for f in "$TOP_SRCDIR"/images/*.img.xz; do
	n=$(basename "$f" .img.xz)
	case $n in *-jdev) continue ;; esac
	eval "test_${n//-/_}() { damage_image $n ${#IMAGE_NAMES[@]}; }"
	IMAGE_NAMES+=("$n")
done

# Last: every format of every command ran on damaged copies (with
# ROTATE, in turn, over the images' copies).
test_every_format_ran() {
	local want got=0
	for want in "timeline -f bodyfile" "timeline -f mactime" \
		"timeline -f jsonl" "timeline -f timesketch" "timeline -f csv" \
		"timeline -f text" "timeline -d -f jsonl" "timeline --flags -f csv" \
		"stat" "export" "journal( -j [^ ]*)? -b" \
		"journal( -j [^ ]*)? --stale -f jsonl" "audit( -j [^ ]*)? -f text" \
		"audit( -j [^ ]*)? -f json" "audit( -j [^ ]*)? -f csv" "history" \
		"anomalies" "backfill -n"; do
		if grep -qE "^run [0-9]+ .*: e4time $want " "$TMP/tally"; then
			got=$((got + 1))
		else
			fail "no run of e4time $want on a damaged copy"
		fi
	done
	assertEquals "commands and formats run" 18 "$got"
}

# One test per image (defined above, which shunit2 cannot see), then
# test_every_format_ran.
suite() {
	local n
	for n in "${IMAGE_NAMES[@]}"; do
		suite_addTest "test_${n//-/_}"
	done
	suite_addTest test_every_format_ran
}

. shunit2
