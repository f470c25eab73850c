# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lib.sh: timing helpers shared by the benchmark scripts (sourced).

# time_cmd ERRFILE CMD...: run CMD (stdout dropped, stderr appended to
# ERRFILE) and print "WALL_SECONDS PEAK_RSS_KIB RC CPU_SECONDS". Wall time
# is bash's EPOCHREALTIME around /usr/bin/time (microseconds; time(1)'s %e
# has 10 ms steps); peak RSS is time(1)'s %M; CPU is user + system, every
# thread (on a shared machine wall time also counts the waits for a CPU).
time_cmd() {
    local err=$1; shift
    local tf rc t0 t1 last
    tf=$(mktemp)
    t0=$EPOCHREALTIME
    set +e
    /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" > /dev/null 2>> "$err"
    rc=$?
    set -e
    t1=$EPOCHREALTIME
    last=$(tail -n 1 "$tf")
    rm -f "$tf"
    awk -v a="$t0" -v b="$t1" -v l="$last" -v rc="$rc" \
        'BEGIN { split(l, f, " "); printf "%.3f %d %d %.2f\n", b - a, f[2], rc, f[3] + f[4] }'
}

# median FILE COLUMN; maxcol / mincol FILE COLUMN
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
             if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
maxcol() { awk -v c="$2" 'BEGIN { m = 0 } $c > m { m = $c } END { print m }' "$1"; }
mincol() { awk -v c="$2" 'NR == 1 || $c < m { m = $c } END { print m }' "$1"; }
