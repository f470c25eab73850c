#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/golden/record.sh OUTDIR --- record a golden set: every reading
# command of e4time (and the dry runs of the writing ones) on every image
# of images/*.img.xz, each run's stdout, stderr and exit status in
# OUTDIR/IMAGE/SLUG.{out,err,rc} (SLUG: the arguments, IMAGE left out;
# SLUG.cmd holds the command line).  OUTDIR/_global holds the runs that
# take no image (help, --version, usage errors).  Deterministic: TZ=UTC,
# LC_ALL=C, images under relative names in a temporary directory, and
# the export time of manifests replaced by <EXPORTED>.  Compare two sets
# with tests/golden/compare.sh; tests/golden/README says how.
#
# Environment: E4TIME (default: tools/e4time of this tree), IMAGES
# (default: images/ of this tree).  Fails (status 1) if a run changed an
# image: every run here must be read-only.
set -u
if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)
E4TIME=${E4TIME:-$TOP/tools/e4time}
IMAGES=${IMAGES:-$TOP/images}
[ -x "$E4TIME" ] || { echo "$0: $E4TIME: not built" >&2; exit 2; }
E4TIME=$(cd "$(dirname "$E4TIME")" && pwd)/$(basename "$E4TIME")
mkdir -p "$1" || exit 2
OUTDIR=$(cd "$1" && pwd)
if [ -n "$(ls -A "$OUTDIR")" ]; then
	echo "$0: $OUTDIR is not empty" >&2
	exit 2
fi

export TZ=UTC LC_ALL=C
unset E2FSPROGS_UNDO_DIR E4TIME_WRAPPER ASAN_OPTIONS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e4time-golden.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2
# Dry runs write no undo file; should one appear, it is found here.
mkdir undo && export E2FSPROGS_UNDO_DIR="$WORK/undo"
status=0

# run SLUG ARGS...: e4time ARGS with stdin from $STDIN (default
# /dev/null), into $D/SLUG.{out,err,rc,cmd}.
run() {
	local slug=$1 f
	shift
	slug=$(printf '%s' "$slug" | tr -c 'A-Za-z0-9._,=+-' '_')
	if [ -e "$D/$slug.rc" ]; then
		echo "$0: duplicate slug $D/$slug" >&2
		exit 2
	fi
	printf 'e4time' >"$D/$slug.cmd"
	printf " '%s'" "$@" >>"$D/$slug.cmd"
	[ -n "${STDIN:-}" ] && printf ' < %s' "$STDIN" >>"$D/$slug.cmd"
	echo >>"$D/$slug.cmd"
	"$E4TIME" "$@" <"${STDIN:-/dev/null}" >"$D/$slug.out" 2>"$D/$slug.err"
	echo $? >"$D/$slug.rc"
	for f in "$D/$slug.out" "$D/$slug.err"; do
		sed -i -e "s#$WORK#<WORK>#g" -e "s#$E4TIME#<E4TIME>#g" \
			-e 's/"exported":"[^"]*"/"exported":"<EXPORTED>"/g' "$f"
	done
}

# r ARGS...: run with the arguments as slug, image name left out.
r() {
	local a slug=
	for a in "$@"; do
		[ "$a" = "$IMG" ] && continue
		slug="${slug:+${slug}_}$a"
	done
	run "$slug" "$@"
}

# ---- no image ----
D="$OUTDIR/_global"
mkdir -p "$D"
IMG=
for a in --help -h --version -V help "help bogus" "" bogus "timeline" \
	"stat" "set" "backfill" "import /nonexistent.img" \
	"timeline /nonexistent.img" "journal /nonexistent.img" \
	"help exit-status" "info /nonexistent.img"; do
	# shellcheck disable=SC2086 # split on purpose
	run "${a:-noargs}" $a
done
run anomalies_--list-rules anomalies --list-rules
for c in stat timeline set backfill export import journal audit history info volumes \
	check anomalies; do
	run "help_$c" help "$c"
	run "${c}_--help" "$c" --help
	run "${c}_-h" "$c" -h
	run "${c}_bogus-option" "$c" --bogus-option
done

# ---- each image ----
TIMES="2009-02-13T23:31:30.123456789Z"
SOURCES="dosattrib netatalk systemd xattr:user.birth:iso8601 \
xattr:user.epoch:epoch xattr:user.usec:usec-le xattr:user.nt:nttime-le"

per_image() {
	local img=$1 name=$2 jdev=$3 f p s m fields fmt pol spec inos
	IMG=$img
	D="$OUTDIR/$name"
	mkdir -p "$D"
	local J=()
	[ -n "$jdev" ] && J=(-j "$jdev")

	# stat
	r stat "$img" /
	r stat "$img" '<1>' '<2>' '<3>' '<4>' '<5>' '<6>' '<7>' '<8>' '<9>' \
		'<10>' '<11>' '<12>' '<13>' '<14>' '<15>' '<16>' '<17>' '<18>' \
		'<19>' '<20>' '<21>' '<22>' '<23>' '<24>' '<25>' '<26>' '<27>' \
		'<28>' '<29>' '<30>' '<31>' '<32>' '<33>' '<34>' '<35>' '<36>'
	r stat -q "$img" /hello.txt /dir/sub/deep.txt /nonexistent '<0>' \
		'<99999999>' bogus
	# every inode timeline --deleted names, in one run
	inos=$("$E4TIME" timeline -q -f jsonl -d "$img" 2>/dev/null |
		grep -oE '"ino":[0-9]+' | cut -d: -f2 | sort -nu | sed 's/.*/<&>/')
	# shellcheck disable=SC2086 # one argument per inode
	[ -n "$inos" ] && run stat_every-inode-timeline-d-lists stat "$img" $inos
	for f in jsonl csv; do
		r stat -f "$f" "$img" / '<2>' '<11>' '<12>' '<13>' /hello.txt \
			/dir/sub/deep.txt
		r stat -q -f "$f" "$img" /nonexistent '<0>' '<7>'
	done
	r stat -f bogus "$img" /

	# timeline
	r timeline "$img"
	for f in text bodyfile mactime jsonl timesketch csv; do
		r timeline -f "$f" "$img"
		r timeline -f "$f" -d "$img"
		r timeline -f "$f" "$img" /dir
	done
	for s in atime mtime ctime crtime dtime btime; do
		r timeline -f csv -d --sort "$s" "$img"
		r timeline -f csv -d --field "$s" --since 2000-01-01 --until @1800000000.5 "$img"
	done
	r timeline -f csv --since 2026-12-03 "$img"
	r timeline -f csv --until 1970-01-01T00:00:00Z "$img"
	r timeline -f csv --field mtime --since 19011214 --until 20380119031407 "$img"
	r timeline -f text "$img" '<2>'
	r timeline -f text "$img" '<12>'
	r timeline -f text "$img" //
	r timeline -f text "$img" /nonexistent
	# --journal: the journaled states, each under the name of its file
	for f in text bodyfile jsonl csv; do
		r timeline -f "$f" -d --journal "$img"
	done
	r timeline -f jsonl --journal "$img"
	r timeline -f jsonl -d --journal --sort mtime "$img"
	r timeline -f jsonl -d --threads 1 "$img"
	r timeline -f jsonl -d --threads 2 "$img"
	r timeline -f jsonl -d -q "$img"
	# --flags (the anomaly rules per row), timesketch-csv, --hash
	for f in jsonl csv timesketch timesketch-csv; do
		r timeline -f "$f" --flags "$img"
		r timeline -f "$f" --flags -d "$img"
	done
	r timeline -f jsonl --flags -d --sort crtime "$img"
	r timeline -f csv --flags -d --journal "$img"
	r timeline -f timesketch-csv -d "$img"
	r timeline -f bodyfile --hash md5 "$img"
	r timeline -f jsonl -d --hash sha256 "$img"
	r timeline -f csv --hash sha1 "$img"
	r timeline -f bogus "$img"
	r timeline --since notatime "$img"
	r timeline --threads 3 "$img"

	# export
	r export "$img"
	r export -d "$img"
	r export --sort crtime "$img"
	r export "$img" /dir
	r export -f jsonl "$img"

	# journal
	r journal "${J[@]}" "$img"
	r journal "${J[@]}" -b "$img"
	r journal "${J[@]}" --stale "$img"
	r journal "${J[@]}" --stale -b "$img"
	r journal "${J[@]}" -f jsonl "$img"
	r journal "${J[@]}" --stale -f jsonl "$img"
	r journal "${J[@]}" -q --stale "$img"
	r journal "${J[@]}" -f csv "$img"
	r journal "${J[@]}" --stale -f csv "$img"
	r journal "${J[@]}" -f bogus "$img"
	[ -n "$jdev" ] && r journal "$img"

	# audit
	for f in text json jsonl csv; do
		r audit "${J[@]}" -f "$f" "$img"
		r audit "${J[@]}" -f "$f" --no-stale "$img"
	done
	r audit "${J[@]}" "$img"
	r audit "${J[@]}" -t 3 "$img"
	r audit "${J[@]}" -t 0 -q "$img"
	r audit "${J[@]}" -f jsonl -t 3 "$img"
	r audit "${J[@]}" -f bogus "$img"
	[ -n "$jdev" ] && r audit "$img"

	# history
	for spec in '<2>' '<11>' '<12>' '<13>' '<20>' /hello.txt /nonexistent; do
		r history "${J[@]}" "$img" "$spec"
		r history "${J[@]}" -a "$img" "$spec"
	done
	for f in jsonl csv; do
		for spec in '<2>' '<12>' '<13>' /hello.txt; do
			r history "${J[@]}" -f "$f" "$img" "$spec"
			r history "${J[@]}" -a -f "$f" "$img" "$spec"
		done
	done
	r history "${J[@]}" -f bogus "$img" '<2>'

	# anomalies
	for f in text jsonl csv; do
		r anomalies "${J[@]}" -f "$f" "$img"
		r anomalies "${J[@]}" -f "$f" --no-journal "$img"
	done
	r anomalies "${J[@]}" -s strong "$img"
	r anomalies "${J[@]}" -s medium -f jsonl "$img"
	r anomalies "${J[@]}" -r crtime-after-ctime,journal-backdated "$img"
	r anomalies "${J[@]}" -f jsonl "$img" /dir
	r anomalies "${J[@]}" --threads 1 -q "$img"
	r anomalies "${J[@]}" -r bogus "$img"

	# check, read-only (-n)
	r check -n "$img"
	r check -n -f jsonl "$img"
	r check -n --strict "$img"
	r check -n --mtime-tolerance 0 -f jsonl "$img"
	r check -n --crtime-from earliest "$img"
	r check -n --threads 1 -q "$img"

	# info
	r info "$img"
	r info -f jsonl "$img"
	r info -f csv "$img"
	r info -f bogus "$img"
	# volumes
	r volumes "$img"
	r volumes -f jsonl "$img"
	r volumes -f csv "$img"

	# set, dry runs
	r set -n "$img" '<12>' --crtime "$TIMES"
	r set -n "$img" / '<12>' '<13>' --atime "$TIMES" --mtime @0 --ctime 19700101
	r set -n "$img" '<12>' --reference '<2>'
	r set -n "$img" '<12>' --reference '<2>' --fields crtime,mtime
	r set -n "$img" /nonexistent --crtime "$TIMES"
	r set -n "$img" '<12>'

	# backfill, dry runs
	for s in $SOURCES; do
		for p in earlier missing always; do
			for fmt in text jsonl csv; do
				r backfill -n --from "$s" --policy "$p" -f "$fmt" "$img"
			done
		done
	done
	r backfill -n --from dosattrib "$img" /dir
	r backfill -n --from dosattrib -q "$img"
	r backfill -n --from xattr:user.x:nope "$img"
	r backfill -n "$img"

	# import, dry runs: the image's own manifest, one with every time
	# moved to 2001 (earlier) and one to 2033 (later)
	"$E4TIME" export -q "$img" >"$name.same.manifest" 2>/dev/null
	sed -E 's/"sec":-?[0-9]+/"sec":1000000000/g' "$name.same.manifest" \
		>"$name.early.manifest"
	sed -E 's/"sec":-?[0-9]+/"sec":2000000000/g' "$name.same.manifest" \
		>"$name.late.manifest"
	for m in same early late; do
		for p in earlier missing always; do
			for fields in crtime crtime,atime,mtime,ctime; do
				for fmt in text jsonl csv; do
					r import -n --policy "$p" --fields "$fields" -f "$fmt" \
						"$img" "$name.$m.manifest"
					r import -n --match inode --policy "$p" --fields "$fields" \
						-f "$fmt" "$img" "$name.$m.manifest"
				done
			done
		done
	done
	STDIN="$name.early.manifest" r import -n "$img"
	STDIN="$name.early.manifest" r import -n -q "$img" -
	{ head -n 2 "$name.same.manifest"; echo '{"path":'; } >"$name.bad.manifest"
	r import -n "$img" "$name.bad.manifest"
	r import -n "$img" "$name.nonexistent.manifest"
	r import -n --match bogus "$img" "$name.same.manifest"
	rm -f "$name".*.manifest
}

for xz in "$IMAGES"/*.img.xz; do
	name=$(basename "$xz" .img.xz)
	xz -dc "$xz" >"$name.img" || { echo "$0: $xz: cannot unpack" >&2; exit 2; }
done
# one_image NAME: per_image on NAME.img, checking that it did not change.
one_image() {
	local name=$1 jdev= before after
	case $name in
	*-jdev) ;;
	*) [ -f "$name-jdev.img" ] && jdev="$name-jdev.img" ;;
	esac
	before=$(sha256sum "$name.img" ${jdev:+"$jdev"})
	per_image "$name.img" "$name" "$jdev"
	after=$(sha256sum "$name.img" ${jdev:+"$jdev"})
	if [ "$before" != "$after" ]; then
		echo "$0: $name: the image changed: a run wrote to it" >&2
		return 1
	fi
}

# The images in GOLDEN_JOBS parallel jobs (default: the processors).
JOBS=${GOLDEN_JOBS:-$(nproc)}
running=0
for xz in "$IMAGES"/*.img.xz; do
	name=$(basename "$xz" .img.xz)
	(one_image "$name" || touch "$WORK/failed") &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
[ -e "$WORK/failed" ] && status=1

# One image at an offset: 1 MiB (2048 sectors) of zeros before it.
{ head -c 1048576 /dev/zero; cat ext4-4k.img; } >offset.img
IMG=offset.img
D="$OUTDIR/ext4-4k-at-1MiB"
mkdir -p "$D"
r timeline -f csv -d -o 2048 offset.img
r timeline -f csv -d --offset 1048576 offset.img
r timeline -f csv --offset 0x100000 offset.img
r timeline -f csv offset.img
r timeline -f csv -o 4096 offset.img
r timeline -f csv -o 99999999 offset.img
r stat -o 2048 offset.img '<12>'
r journal --stale -o 2048 offset.img
r audit -o 2048 offset.img
r history -o 2048 offset.img '<12>'
r stat -f jsonl -o 2048 offset.img '<12>'
r history -f csv -o 2048 offset.img '<12>'
r info -f jsonl -o 2048 offset.img
r anomalies -f jsonl -o 2048 offset.img
r check -n -o 2048 offset.img
r timeline -f jsonl --flags -d -o 2048 offset.img
r volumes -f jsonl offset.img
r export --offset 1048576 offset.img
r set -n -o 2048 offset.img '<12>' --crtime "$TIMES"
r backfill -n -o 2048 --from dosattrib offset.img

if [ -n "$(ls -A undo)" ]; then
	echo "$0: a dry run wrote an undo file: $(ls undo)" >&2
	status=1
fi
echo "recorded $(find "$OUTDIR" -name '*.rc' | wc -l) runs into $OUTDIR"
exit $status
