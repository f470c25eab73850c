#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/run.sh HARNESS.c... -- LIBSOURCE... --- make fuzz: build
# every harness with clang and libFuzzer (ASan and UBSan too, the
# library instrumented for coverage), run each for FUZZ_SECONDS on its
# corpus (tests/fuzz/corpus/NAME/ and regress/NAME/, new inputs kept in
# tests/fuzz/out/corpus/NAME/ of the build tree), FUZZ_JOBS at a time,
# and print a table: harness, seconds, executions, result.  A crash
# leaves tests/fuzz/out/crash-NAME-*: fix it, then commit the input as
# tests/fuzz/regress/NAME/<what> (make check replays it).  Exit 1 on a
# crash.
#
# Environment (make fuzz sets it): TOP_SRCDIR; FUZZ_CC (empty: no clang
# with libFuzzer, skipped); FUZZ_CPPFLAGS, FUZZ_LIBS; FUZZ_SECONDS
# (default 60); FUZZ_JOBS (default: the number of CPUs).
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
: "${FUZZ_CC:=}"
: "${FUZZ_CPPFLAGS:=}"
: "${FUZZ_LIBS:=}"
: "${FUZZ_SECONDS:=60}"
: "${FUZZ_JOBS:=$(nproc 2>/dev/null || echo 1)}"

if [ -z "$FUZZ_CC" ]; then
	echo "make fuzz: skipped: no clang that links -fsanitize=fuzzer" \
		"(Debian: apt-get install clang-14 libfuzzer-14-dev, then" \
		"configure again, or configure FUZZ_CC=...)"
	exit 0
fi

harnesses=()
libsrc=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	harnesses+=("$1")
	shift
done
[ $# -gt 0 ] && shift
for f in "$@"; do
	case "$f" in *.c) libsrc+=("$f") ;; esac
done

OUT=tests/fuzz/out
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
CFLAGS="-g -O1 -fno-omit-frame-pointer $SAN -DE4T_LIBFUZZER"
mkdir -p "$OUT/obj" "$OUT/bin" "$OUT/corpus" "$OUT/log" || exit 1

# The library, instrumented for coverage.
objs=()
for f in "${libsrc[@]}"; do
	src="$TOP_SRCDIR/$f"
	[ -f "$src" ] || src="$f" # generated (lib/e4time_err.c)
	obj="$OUT/obj/$(basename "$f" .c).o"
	# shellcheck disable=SC2086 # flags are words
	$FUZZ_CC $CFLAGS -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS \
		-c "$src" -o "$obj" || exit 1
	objs+=("$obj")
done
rm -f "$OUT/libe4time-fuzz.a"
ar rcs "$OUT/libe4time-fuzz.a" "${objs[@]}" || exit 1

names=()
for h in "${harnesses[@]}"; do
	name=$(basename "$h" .c)
	# shellcheck disable=SC2086
	$FUZZ_CC $CFLAGS -fsanitize=fuzzer $FUZZ_CPPFLAGS \
		-I"$TOP_SRCDIR/tests/fuzz" "$TOP_SRCDIR/$h" \
		"$OUT/libe4time-fuzz.a" $FUZZ_LIBS -o "$OUT/bin/$name" || exit 1
	names+=("$name")
done

# run_one NAME: one harness for FUZZ_SECONDS.
run_one() {
	local name=$1 dict="$TOP_SRCDIR/tests/fuzz/$1.dict" dirs
	dirs=("$OUT/corpus/$name")
	[ -d "$TOP_SRCDIR/tests/fuzz/corpus/$name" ] &&
		dirs+=("$TOP_SRCDIR/tests/fuzz/corpus/$name")
	[ -d "$TOP_SRCDIR/tests/fuzz/regress/$name" ] &&
		dirs+=("$TOP_SRCDIR/tests/fuzz/regress/$name")
	mkdir -p "$OUT/corpus/$name"
	ASAN_OPTIONS=detect_leaks=1:print_stacktrace=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$OUT/bin/$name" -max_total_time="$FUZZ_SECONDS" \
		-print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$OUT/crash-$name-" \
		$([ -f "$dict" ] && echo "-dict=$dict") \
		"${dirs[@]}" >"$OUT/log/$name.log" 2>&1
	echo $? >"$OUT/log/$name.status"
}
export -f run_one
export OUT FUZZ_SECONDS TOP_SRCDIR
echo "make fuzz: ${#names[@]} harnesses, ${FUZZ_SECONDS}s each," \
	"$FUZZ_JOBS at a time (logs in $OUT/log/)"
printf '%s\n' "${names[@]}" | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run_one {}'

crashed=0
printf '%-12s %8s %14s %8s %s\n' harness seconds executions corpus result |
	tee "$OUT/results.txt"
for name in "${names[@]}"; do
	log="$OUT/log/$name.log"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	corpus=$(ls "$OUT/corpus/$name" | wc -l)
	result=ok
	if [ "$(cat "$OUT/log/$name.status")" != 0 ]; then
		result="CRASH: $(ls "$OUT"/crash-"$name"-* 2>/dev/null | head -n 1)"
		crashed=1
	fi
	printf '%-12s %8s %14s %8s %s\n' "$name" "${secs:-?}" "${execs:-?}" \
		"$corpus" "$result" | tee -a "$OUT/results.txt"
done
if [ "$crashed" = 1 ]; then
	echo "make fuzz: a harness crashed: see $OUT/log/NAME.log;" \
		"tests/fuzz/replay NAME FILE reproduces it without libFuzzer"
	exit 1
fi
exit 0
