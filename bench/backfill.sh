#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/backfill.sh: time `e4time backfill --from dosattrib` (crtime from
# Samba's user.DOSATTRIB, with an e2undo file) against the read-only scan
# `e4time timeline -f mactime` on a kernel-written ext4 image of 1,000,000
# files that each carry a version-5 DOSATTRIB xattr, and write
# bench/RESULTS-backfill.md.
#
# Needs root (loop mounts). Never run in CI. See bench/README.md.
#
#   sudo bench/backfill.sh
#
# Environment knobs (defaults in brackets):
#   BENCH_DIR   where the image, copies and outputs are kept [/var/tmp/e4time-bench]
#   RUNS        timed runs of each command, alternating scan/backfill [3]
#   E4TIME      the binary to time; a copy taken at start is timed [<repo>/tools/e4time]
#   REBUILD     1: rebuild the image even if cached [0]
#   PROFILE     auto: perf-profile one backfill run when the 3x target is
#               missed; 1: always; 0: never [auto]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/e4time-bench}
RUNS=${RUNS:-3}
E4TIME=${E4TIME:-$top/tools/e4time}
REBUILD=${REBUILD:-0}
PROFILE=${PROFILE:-auto}
RESULTS=$here/RESULTS-backfill.md
TARGET=3 # backfill's median at most TARGET x the scan's

die() { echo "backfill.sh: $*" >&2; exit 1; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (loop mounts): sudo $0"
if [ -n "${CI:-}" ]; then die "not meant for CI (CI=$CI)"; fi
[ -x "$E4TIME" ] || die "$E4TIME not built: run make -C $top"
for t in mkfs.ext4 e2fsck e2undo tune2fs sha256sum; do
    command -v "$t" >/dev/null || die "$t missing: apt-get install -y e2fsprogs coreutils"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install -y time"
PYTHON=$(command -v /usr/bin/python3 || command -v python3 || true)
[ -n "$PYTHON" ] || die "python3 missing: apt-get install -y python3"

mkdir -p "$BENCH_DIR/out" "$BENCH_DIR/bin"
OUT=$BENCH_DIR/out

# Time a copy taken now: the tree may be rebuilt while the benchmark runs.
# Its own name, so a timeline.sh running at the same time keeps its binary.
E4TIME_SRC=$E4TIME
E4TIME=$BENCH_DIR/bin/e4time-backfill
cp "$E4TIME_SRC" "$E4TIME.tmp"
mv "$E4TIME.tmp" "$E4TIME"
E4_SUM=$(sha256sum "$E4TIME" | cut -c1-12)
E4_BUILT=$(date -u -r "$E4TIME_SRC" +%Y-%m-%dT%H:%M:%SZ)
E4_COMMIT=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
E4_DIRTY=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo ' (work tree modified)' || true)

IMG=$BENCH_DIR/dosattrib.img
COPY=$BENCH_DIR/dosattrib.copy.img
UNDO=$BENCH_DIR/undo.e2undo

# ---------------------------------------------------------------- image
mnt=""
cleanup() {
    unmount_mnt
    rm -f "$COPY" "$UNDO"
}
trap cleanup EXIT

# 1000 directories x 1000 files, each created and given its user.DOSATTRIB
# in one process (open, fsetxattr, close): Samba 4.17's version-5 layout,
# 24 bytes: "" (attrib_hex), pad, u16 version 5, u16 level 5, pad to 4,
# u32 valid_flags 0x11 (ATTRIB | CREATE_TIME), u32 attrib 0x20 (ARCHIVE),
# u64 create time in NTTIME. File i (0..999999, d/f = i/1000, i%1000) was
# "created" at 2001-01-01T00:00:00Z + i s + i*100 ns.
fill_dosattrib() {
    "$PYTHON" - <<'EOF'
import os, struct
NT_UNIX = 116444736000000000
BASE = 978307200  # 2001-01-01T00:00:00Z
HEAD = b"\x00\x00\x05\x00\x05\x00\x00\x00"
flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
for d in range(1000):
    dn = "d%03d" % d
    os.mkdir(dn)
    for f in range(1000):
        i = d * 1000 + f
        nt = (BASE + i) * 10**7 + i + NT_UNIX
        fd = os.open("%s/f%03d" % (dn, f), flags, 0o644)
        os.setxattr(fd, "user.DOSATTRIB", HEAD + struct.pack("<IIQ", 0x11, 0x20, nt))
        os.close(fd)
EOF
}

if [ -f "$IMG" ] && [ "$REBUILD" != 1 ]; then
    log "dosattrib.img: cached in $BENCH_DIR (built in $(cat "$BENCH_DIR/dosattrib.build-seconds" 2>/dev/null || echo '?') s)"
else
    rm -f "$IMG" "$IMG.tmp" "$BENCH_DIR/dosattrib.sha256"
    log "dosattrib.img: building (3G sparse, -N 1100000, 1,000,000 files with user.DOSATTRIB)"
    t0=$EPOCHREALTIME
    truncate -s 3G "$IMG.tmp"
    mkfs.ext4 -q -F -N 1100000 "$IMG.tmp"
    mnt=$(mktemp -d /tmp/e4time-bench-mnt.XXXXXX)
    mount -o loop "$IMG.tmp" "$mnt"
    (cd "$mnt" && fill_dosattrib)
    sync
    umount "$mnt"
    rmdir "$mnt"
    mnt=""
    e2fsck -fn "$IMG.tmp" > "$OUT/backfill.build-fsck" 2>&1 ||
        die "e2fsck -fn on the new image is not clean: see $OUT/backfill.build-fsck"
    mv "$IMG.tmp" "$IMG"
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$BENCH_DIR/dosattrib.build-seconds"
    log "dosattrib.img: built in $(cat "$BENCH_DIR/dosattrib.build-seconds") s (e2fsck -fn clean)"
fi
if [ ! -s "$BENCH_DIR/dosattrib.sha256" ] || [ "$IMG" -nt "$BENCH_DIR/dosattrib.sha256" ]; then
    log "dosattrib.img: sha256"
    sha256sum < "$IMG" | cut -d' ' -f1 > "$BENCH_DIR/dosattrib.sha256"
fi
IMG_SUM=$(cat "$BENCH_DIR/dosattrib.sha256")

inodes_used() {
    tune2fs -l "$1" | awk -F: '/^Inode count/ { n = $2 } /^Free inodes/ { f = $2 }
        END { print n - f }'
}
INODES_USED=$(inodes_used "$IMG")

# fresh_copy: a new sparse copy of the image (untimed), on disk, then read
# once so that the timed run finds it in the page cache.
fresh_copy() {
    rm -f "$COPY"
    cp --sparse=always "$IMG" "$COPY"
    sync "$COPY"
    cat "$COPY" > /dev/null
}

# ---------------------------------------------------------------- timing
# timed_run OUTFILE ERRFILE CMD...: appends "WALL_SECONDS PEAK_RSS_KIB RC"
# (no newline: the caller adds columns) to OUTFILE; the command's stderr
# goes to ERRFILE (bench/lib.sh).
timed_run() {
    local out=$1 err=$2; shift 2
    : > "$err"
    printf '%s' "$(time_cmd "$err" "$@" | cut -d' ' -f1-3)" >> "$out"
}

# "backfill from dosattrib: N files scanned, M changed" -> "N M"
summary_counts() {
    sed -n 's/.*backfill from dosattrib: \([0-9]*\) files scanned, \([0-9]*\) changed.*/\1 \2/p' "$1" | tail -n 1
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
mib_b() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1048576 }'; }

scan_res=$OUT/backfill.scan.runs
bf_res=$OUT/backfill.undo.runs
nu_res=$OUT/backfill.noundo.runs
: > "$scan_res"; : > "$bf_res"; : > "$nu_res"

# The checks, on the copy that the first backfill run wrote.
FSCK_CHECK="not run"
UNDO_CHECK="not run"
SAMPLE_CHECK="not run"
check_backfilled() {
    log "check: e2fsck -fn after backfill"
    if e2fsck -fn "$COPY" > "$OUT/backfill.fsck" 2>&1; then
        FSCK_CHECK="clean (exit 0)"
    else
        FSCK_CHECK="NOT CLEAN (exit $?, see $OUT/backfill.fsck)"
    fi
    # File d123/f456 is i = 123456: 2001-01-01 + 123456 s + 12345600 ns.
    local want got
    want=$(date -u -d @$((978307200 + 123456)) +%Y-%m-%dT%H:%M:%S).012345600
    got=$("$E4TIME" stat "$COPY" /d123/f456 2>&1 | awk '/crtime/ { print; exit }')
    if [[ "$got" == *"$want"* ]]; then
        SAMPLE_CHECK="ok (/d123/f456 crtime $want)"
    else
        SAMPLE_CHECK="FAILED (/d123/f456: want $want, got: $got)"
    fi
    log "check: e2undo, then sha256 against the original"
    local sum
    if e2undo "$UNDO" "$COPY" > "$OUT/backfill.e2undo" 2>&1; then
        sum=$(sha256sum < "$COPY" | cut -d' ' -f1)
        if [ "$sum" = "$IMG_SUM" ]; then
            UNDO_CHECK="ok (byte-identical to the original, sha256 ${IMG_SUM:0:16}...)"
        else
            UNDO_CHECK="DIFFERENT (sha256 ${sum:0:16}... vs original ${IMG_SUM:0:16}...)"
        fi
    else
        UNDO_CHECK="e2undo FAILED (exit $?, see $OUT/backfill.e2undo)"
    fi
}

for ((i = 1; i <= RUNS; i++)); do
    log "run $i/$RUNS: scan (timeline -f mactime)"
    fresh_copy
    timed_run "$scan_res" "$OUT/backfill.scan.$i.stderr" "$E4TIME" timeline -f mactime "$COPY"
    echo >> "$scan_res"
    tail -n 1 "$scan_res" | sed 's/^/    wall s, peak KiB, rc: /' >&2

    log "run $i/$RUNS: backfill --from dosattrib --policy always -z UNDO"
    fresh_copy
    rm -f "$UNDO"
    timed_run "$bf_res" "$OUT/backfill.undo.$i.stderr" \
        "$E4TIME" backfill "$COPY" --from dosattrib --policy always -z "$UNDO"
    usize=$(stat -c %s "$UNDO" 2>/dev/null || echo 0)
    counts=$(summary_counts "$OUT/backfill.undo.$i.stderr")
    echo " $usize ${counts:-? ?}" >> "$bf_res"
    tail -n 1 "$bf_res" | sed 's/^/    wall s, peak KiB, rc, undo bytes, scanned, changed: /' >&2
    if [ "$i" = 1 ]; then check_backfilled; fi
done

log "once: backfill --no-undo"
fresh_copy
timed_run "$nu_res" "$OUT/backfill.noundo.stderr" \
    "$E4TIME" backfill "$COPY" --from dosattrib --policy always --no-undo
counts=$(summary_counts "$OUT/backfill.noundo.stderr")
echo " 0 ${counts:-? ?}" >> "$nu_res"
tail -n 1 "$nu_res" | sed 's/^/    wall s, peak KiB, rc, undo bytes, scanned, changed: /' >&2

MED_SCAN=$(median "$scan_res" 1)
MED_BF=$(median "$bf_res" 1)
RATIO=$(awk -v a="$MED_BF" -v b="$MED_SCAN" 'BEGIN { printf "%.2f", a / b }')
MET=$(awk -v r="$RATIO" -v t="$TARGET" 'BEGIN { print (r <= t) ? "MET" : "MISSED" }')
log "median scan $MED_SCAN s, backfill $MED_BF s: ratio $RATIO ($MET)"

# ---------------------------------------------------------------- profile
# When the target is missed: one backfill run (with its undo file) under
# `perf record -g` for the self time of each function (e4time, libext2fs
# and libc are built without frame pointers, so call chains do not unwind
# reliably: the phases come from uprobes instead), one under `perf stat`
# for the syscall counts,
# one with uprobes on e4time's phase functions for their wall time, and
# one timed `backfill -n` (tree load + xattr reads + output, no writes).
PROFILED=0
if [ "$PROFILE" = 1 ] || { [ "$PROFILE" = auto ] && [ "$MET" = MISSED ]; }; then
    if command -v perf >/dev/null; then
        PROFILED=1
        log "profile: backfill -n (dry run: no writes), timed"
        fresh_copy
        dry_res=$OUT/backfill.dryrun.runs
        : > "$dry_res"
        timed_run "$dry_res" "$OUT/backfill.dryrun.stderr" "$E4TIME" backfill "$COPY" --from dosattrib --policy always -n
        echo >> "$dry_res"

        log "profile: perf record -g on one backfill run"
        fresh_copy; rm -f "$UNDO"
        perf record -q -g -o "$OUT/backfill.perf.data" -- \
            "$E4TIME" backfill "$COPY" --from dosattrib --policy always -z "$UNDO" \
            > /dev/null 2> "$OUT/backfill.perf.stderr" || true
        perf report -i "$OUT/backfill.perf.data" --no-children --stdio \
            --sort dso,symbol -g none --percent-limit 0.2 \
            > "$OUT/backfill.perf.self.txt" 2> /dev/null || true

        log "profile: perf stat (syscalls) on one backfill run"
        fresh_copy; rm -f "$UNDO"
        perf stat -x, -o "$OUT/backfill.perf.stat" \
            -e syscalls:sys_enter_pread64,syscalls:sys_enter_pwrite64,syscalls:sys_enter_fsync \
            -- "$E4TIME" backfill "$COPY" --from dosattrib --policy always -z "$UNDO" \
            > /dev/null 2> /dev/null || true

        log "profile: uprobes on the phase functions, one backfill run"
        fresh_copy; rm -f "$UNDO"
        probes=""
        for fn in e4t_image_open_write e4t_tree_load e4t_tree_walk run_chunk finish_write; do
            if perf probe -q -x "$E4TIME" -a "bfb_$fn=$fn" 2> /dev/null &&
               perf probe -q -x "$E4TIME" -a "bfb_${fn}_ret=$fn%return" 2> /dev/null; then
                probes="$probes $fn"
            fi
        done
        t_start=$EPOCHREALTIME
        perf record -q -e 'probe_*:bfb_*' -o "$OUT/backfill.phases.data" -- \
            "$E4TIME" backfill "$COPY" --from dosattrib --policy always -z "$UNDO" \
            > /dev/null 2> /dev/null || true
        perf script -i "$OUT/backfill.phases.data" -F time,event 2> /dev/null |
            awk '{ t = $1; sub(/:$/, "", t); e = $2; sub(/^.*:bfb_/, "", e); sub(/:$/, "", e)
                   if (e ~ /_ret__return$/) { sub(/_ret__return$/, "", e); x[e] = t } else if (!(e in s)) s[e] = t
                   if (first == "") first = t; last = t }
                 END { for (e in s) printf "%s %.3f\n", e, x[e] - s[e] }' > "$OUT/backfill.phases"
        perf probe -q -d 'probe_*:bfb_*' 2> /dev/null || true
    else
        log "profile: perf missing (apt-get install -y linux-perf), skipped"
    fi
fi

# ---------------------------------------------------------------- report
# top_self N: the top N of the self-time list as "pct|object|symbol".
# libext2fs ships without symbols for its static functions: an address is
# named after the next exported symbol above it (gcc puts a static helper
# just before its exported caller, e.g. the slice-by-8 CRC32C before
# ext2fs_crc32c_le), and addresses that share a name are summed.
top_self() {
    local lib
    lib=$(ldd "$E4TIME" | awk '/libext2fs/ { print $3 }')
    {
        [ -n "$lib" ] && nm -D --defined-only "$lib" 2> /dev/null |
            awk '$2 ~ /^[Tt]$/ { print "SYM", $1, $3 }'
        awk '$1 ~ /%$/ { print "ROW", $1, $2, $4 }' "$OUT/backfill.perf.self.txt" 2> /dev/null
    } | awk '
        function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
            for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v }
        $1 == "SYM" { n++; a[n] = hex($2); nm[n] = $3; next }
        { pct = $2; sub(/%$/, "", pct); obj = $3; sym = $4
          if (obj ~ /^libext2fs/ && sym ~ /^0x/) {
              v = hex(sym); best = ""; bv = -1
              for (i = 1; i <= n; i++) if (a[i] > v && (bv < 0 || a[i] < bv)) { bv = a[i]; best = nm[i] }
              if (best != "") sym = "(static, before " best ")"
          }
          k = obj "|" sym; tot[k] += pct }
        END { for (k in tot) printf "%.2f|%s\n", tot[k], k }' | sort -t'|' -k1,1gr | head -n "$1"
}
phase() { awk -v f="$1" '$1 == f { print $2 }' "$OUT/backfill.phases" 2> /dev/null; }
statcount() { awk -F, -v e="$1" '$3 == e { print $1 }' "$OUT/backfill.perf.stat" 2> /dev/null; }

row() { # label file
    local f=$2
    echo "| $1 | $(wc -l < "$f") | $(median "$f" 1) | $(mincol "$f" 1) | $(maxcol "$f" 1) | $(mib "$(maxcol "$f" 2)") |"
}

{
    echo "# e4time backfill benchmark results"
    echo
    echo "Written by \`bench/backfill.sh\` (see \`bench/README.md\`). Overwritten on every run."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- machine: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
    echo "- kernel: $(uname -sr)"
    echo "- e2fsprogs: $(mke2fs -V 2>&1 | head -n 1)"
    echo "- e4time: $("$E4TIME" --version 2>&1 | head -n 1); binary sha256 $E4_SUM built $E4_BUILT, copied at start from $E4TIME_SRC; tree at commit $E4_COMMIT$E4_DIRTY at start"
    echo "- image: \`dosattrib.img\`, 3 GiB sparse, \`mkfs.ext4 -N 1100000\`, 1000 directories x 1000 files, each with a 24-byte version-5 \`user.DOSATTRIB\` (create time 2001-01-01 + i s + i*100 ns), written by the kernel through a loop mount; $INODES_USED inodes in use; built in $(cat "$BENCH_DIR/dosattrib.build-seconds" 2>/dev/null || echo '?') s"
    echo "- runs: $RUNS of each, alternating scan / backfill, each on its own fresh \`cp --sparse=always\` copy read once before timing (page cache warm)"
    echo "- commands: scan \`e4time timeline -f mactime COPY > /dev/null\`; backfill \`e4time backfill COPY --from dosattrib --policy always -z UNDO > /dev/null\` (undo file deleted first); once \`--no-undo\` instead of \`-z UNDO\`"
    echo
    echo "| command | runs | median s | min s | max s | peak RSS MiB |"
    echo "|---|---|---|---|---|---|"
    row "scan (timeline -f mactime)" "$scan_res"
    row "backfill, undo file" "$bf_res"
    row "backfill, --no-undo" "$nu_res"
    echo
    echo "Each backfill run (wall s, peak RSS KiB, exit status, undo file bytes, files scanned, changed, from the summary on stderr):"
    echo
    echo "| run | wall s | peak RSS MiB | exit | undo file MiB | scanned | changed |"
    echo "|---|---|---|---|---|---|---|"
    n=0
    while read -r w r rc u s c; do
        n=$((n + 1))
        echo "| undo $n | $w | $(mib "$r") | $rc | $(mib_b "$u") | $s | $c |"
    done < "$bf_res"
    while read -r w r rc u s c; do
        echo "| no-undo | $w | $(mib "$r") | $rc | - | $s | $c |"
    done < "$nu_res"
    echo
    NU=$(head -n 1 "$nu_res" | cut -d' ' -f1)
    echo "- undo file's cost: backfill median $MED_BF s with it, $NU s without (+$(awk -v a="$MED_BF" -v b="$NU" 'BEGIN { printf "%.2f s, %.0f%%", a - b, (a - b) * 100 / b }'))"
    echo "- \`e2fsck -fn\` after backfill (run 1's copy): $FSCK_CHECK"
    echo "- sample crtime after backfill: $SAMPLE_CHECK"
    echo "- \`e2undo UNDO COPY\` (run 1): $UNDO_CHECK"
    echo
    echo "Target:"
    echo
    echo "- backfill's median at most ${TARGET}x the scan's: $MET (backfill $MED_BF s / scan $MED_SCAN s = ${RATIO}x)"
    if [ "$PROFILED" = 1 ]; then
        DRY=$(median "$dry_res" 1)
        echo
        if [ "$MET" = MISSED ]; then echo "## Profile (target missed)"; else echo "## Profile"; fi
        echo
        echo "Wall time split of the backfill, from separate runs (each on a fresh copy):"
        echo
        echo "| step | s | how |"
        echo "|---|---|---|"
        echo "| read scan | $MED_SCAN | \`timeline -f mactime\` median |"
        echo "| backfill -n: tree load + xattr reads + decode + per-file output, no writes | $DRY | one \`backfill -n\` run |"
        echo "| + inode writes | $(awk -v a="$NU" -v b="$DRY" 'BEGIN { printf "%.2f", a - b }') | \`--no-undo\` minus \`-n\` |"
        echo "| + undo file | $(awk -v a="$MED_BF" -v b="$NU" 'BEGIN { printf "%.2f", a - b }') | backfill median minus \`--no-undo\` |"
        echo
        echo "Phases of one backfill run with its undo file (uprobes on entry and return):"
        echo
        echo "| phase | function | s |"
        echo "|---|---|---|"
        echo "| open (read-only look, reopen with the undo manager) | \`e4t_image_open_write\` | $(phase e4t_image_open_write) |"
        echo "| tree load | \`e4t_tree_load\` | $(phase e4t_tree_load) |"
        echo "| walk: each file's inode and first name | \`e4t_tree_walk\` | $(phase e4t_tree_walk) |"
        echo "| files in inode order, on one or two threads: xattr reads, inode writes (+ undo copies), report (first chunk's start to last chunk's end) | \`run_chunk\` | $(phase run_chunk) |"
        echo "| close (superblock, syncs the image and the undo file) | \`finish_write\` | $(phase finish_write) |"
        echo
        echo "Syscalls of one backfill run with its undo file (\`perf stat\`): $(statcount syscalls:sys_enter_pread64) pread64, $(statcount syscalls:sys_enter_pwrite64) pwrite64, $(statcount syscalls:sys_enter_fsync) fsync."
        echo
        echo "Self time by function, one backfill run with its undo file (\`perf record -g\`; full list in \`$OUT/backfill.perf.self.txt\`):"
        echo
        echo "| self % | object | symbol |"
        echo "|---|---|---|"
        top_self 20 | while IFS='|' read -r p d s; do echo "| $p | $d | \`$s\` |"; done
    fi
} > "$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
cat "$RESULTS"
