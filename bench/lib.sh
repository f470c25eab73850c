# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lib.sh: timing helpers shared by the benchmark scripts (sourced).

# unmount_mnt: unmount the script's loop mount $mnt and remove the mount
# point, if there is one (each script's EXIT trap calls it).
unmount_mnt() {
    if [ -n "${mnt:-}" ]; then
        mountpoint -q "$mnt" && umount "$mnt" || true
        rmdir "$mnt" 2>/dev/null || true
    fi
}

# Timed runs of each command: 20 by default, alternating (e4time, peer,
# e4time, peer, ...) so that a slow stretch of the machine falls on both;
# every run is reported, none dropped. BENCH_RUNS=N (or a script's RUNS)
# runs fewer for a quick look.
BENCH_RUNS=${BENCH_RUNS:-20}

# load1: the 1-minute load average now (/proc/loadavg).
load1() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }

# time_cmd ERRFILE CMD...: run CMD (stdout dropped, stderr appended to
# ERRFILE) and print "WALL_SECONDS PEAK_RSS_KIB RC CPU_SECONDS LOAD1" (LOAD1:
# the 1-minute load average when the run started). Wall time
# is bash's EPOCHREALTIME around /usr/bin/time (microseconds; time(1)'s %e
# has 10 ms steps); peak RSS is time(1)'s %M; CPU is user + system, every
# thread (on a shared machine wall time also counts the waits for a CPU).
time_cmd() {
    local err=$1; shift
    local tf rc t0 t1 last ld
    tf=$(mktemp)
    ld=$(load1)
    t0=$EPOCHREALTIME
    set +e
    /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" > /dev/null 2>> "$err"
    rc=$?
    set -e
    t1=$EPOCHREALTIME
    last=$(tail -n 1 "$tf")
    rm -f "$tf"
    awk -v a="$t0" -v b="$t1" -v l="$last" -v rc="$rc" -v ld="$ld" \
        'BEGIN { split(l, f, " "); printf "%.3f %d %d %.2f %s\n", b - a, f[2], rc, f[3] + f[4], ld }'
}

# median FILE COLUMN; maxcol / mincol FILE COLUMN
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
             if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# pctl FILE COLUMN P: the P-th percentile of a column (nearest rank: the
# smallest value at or above P% of the runs; with 20 runs, p90 is the 18th)
pctl() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk -v p="$3" '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
             r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}
# ratio A B: A / B to 4 places ("-" when B is 0 or not a number)
ratio4() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.4f", a / b }'; }
# loadrange FILE: the 1-minute load average over the runs of FILE
# (column 5), as "MIN-MAX"
loadrange() { awk '$5 != "" { if (n++ == 0 || $5 < lo) lo = $5; if ($5 > hi) hi = $5 }
    END { if (n) printf "%s-%s", lo, hi; else printf "?" }' "$1"; }
maxcol() { awk -v c="$2" 'BEGIN { m = 0 } $c > m { m = $c } END { print m }' "$1"; }
mincol() { awk -v c="$2" 'NR == 1 || $c < m { m = $c } END { print m }' "$1"; }

# Row check. fls also lists what is not a live name: "(deleted...)" entries
# it finds in directory slack, its virtual /$OrphanFiles, and (in htree
# directories) whatever it misreads in the index blocks; e4time lists "/",
# which fls does not. Counts each kind, then compares the rows of the names
# both list, byte for byte.
#
# rowcheck E4TIME_BODY FLS_BODY TMP_PREFIX
rowcheck() {
    local a=$1 b=$2 tmp=$3
    [ -s "$b" ] || { echo "fls output missing (timed out?)"; return; }
    cut -d'|' -f2 "$a" | LC_ALL=C sort > "$tmp.e"
    cut -d'|' -f2 "$b" | LC_ALL=C sort > "$tmp.f"
    LC_ALL=C comm -23 "$tmp.e" "$tmp.f" > "$tmp.only_e"
    LC_ALL=C comm -13 "$tmp.e" "$tmp.f" > "$tmp.only_f"
    local n_e n_f n_del n_orph n_other same
    n_e=$(wc -l < "$tmp.only_e")
    n_f=$(wc -l < "$tmp.only_f")
    n_del=$(grep -a -c ' (deleted' "$tmp.only_f" || true)
    n_orph=$(grep -a -c '^/\$OrphanFiles$' "$tmp.only_f" || true)
    n_other=$((n_f - n_del - n_orph))
    cat "$tmp.only_e" "$tmp.only_f" > "$tmp.skip"
    awk -F'|' 'NR == FNR { skip[$0] = 1; next } !($2 in skip)' "$tmp.skip" "$a" | LC_ALL=C sort > "$tmp.ea"
    awk -F'|' 'NR == FNR { skip[$0] = 1; next } !($2 in skip)' "$tmp.skip" "$b" | LC_ALL=C sort > "$tmp.fa"
    local n_both
    n_both=$(wc -l < "$tmp.ea")
    if cmp -s "$tmp.ea" "$tmp.fa"; then
        same="identical"
        rm -f "$tmp.ea" "$tmp.fa"
    else
        same="DIFFERENT in $(diff -a "$tmp.ea" "$tmp.fa" | grep -a -c '^<' || true) rows (see diff $tmp.ea $tmp.fa)"
    fi
    echo "rows e4time $(wc -l < "$a"), fls $(wc -l < "$b");" \
        "$n_both rows of names both list: $same;" \
        "only e4time: $n_e ($(head -n 3 "$tmp.only_e" | cat -v | tr '\n' ' '| sed 's/ $//'));" \
        "only fls: $n_f = $n_del \"(deleted...)\" + $n_orph \$OrphanFiles + $n_other other$( [ "$n_other" = 0 ] || echo " ")$( [ "$n_other" = 0 ] || echo "(live-looking names misread from htree index blocks?, e.g. $(grep -a -v -e ' (deleted' -e '^/\$OrphanFiles$' "$tmp.only_f" | head -n 4 | cat -v | tr '\n' ' ' | sed 's/ $//'))")"
    rm -f "$tmp.e" "$tmp.f" "$tmp.only_e" "$tmp.only_f" "$tmp.skip"
}
