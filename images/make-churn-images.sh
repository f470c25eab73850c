#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-churn-images.sh [OUTDIR] -- build the kernel-written "atime churn"
# images of e4time's jbd2 journal reader and audit (e4time audit / history /
# journal), with their ground truth.
#
# Every image: mkfs.ext4 into a temporary file, attach it to a loop device,
# mount it with an atime option and commit=300, run a fixed workload through
# the real ext4 driver (sync after every step), record statx of every
# workload file, copy the backing file WHILE STILL MOUNTED (the "-live"
# copy: the journal needs recovery), unmount, copy again (the "-clean" copy:
# s_start = 0, the transactions are stale), then check both copies:
#   - images/jbd2-oracle.py (an independent python reading of the journal)
#     must find exactly the inode changes the workload implies (the
#     "expect." lines of the .info); a mismatch stops the script;
#   - the home inodes must hold the final statx times; a copy of the live
#     image must replay with e2fsck -fy and then pass e2fsck -fn with the
#     same times; the clean image must pass e2fsck -fn.
# Then compress with xz -9e and write NAME.info and README-churn.md.
#
# The workload (N files, R read rounds, W appends, R2 read rounds):
#   mkdir d; printf 'churn file NN\n' > d/fNN for NN = 01..N; sync
#   R times:  sleep 0.05; cat d/f01 ... d/fN >/dev/null; sync
#   sleep 0.05; printf x >> d/f01 ... d/fW; sync
#   R2 times: sleep 0.05; cat d/f01 ... d/fN >/dev/null; sync
# Files are read by explicit path (no glob, no readdir: the directory's
# atime never changes). commit=300 keeps the commit timer out of the way:
# sync ends every step.
#
# Writes into OUTDIR (default: the directory of this script):
#   churn-NAME.img.xz, churn-NAME.info (see README-churn.md), README-churn.md
#
# Needs root (loop mounts). Tools: bash, coreutils, util-linux, e2fsprogs,
# xz, python3 (for jbd2-oracle.py and the fsync loop of the fast-commit
# image). Takes about a minute.
set -euo pipefail
export LC_ALL=C TZ=UTC

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'make-churn-images.sh: error: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "must be run as root (needs loop mounts)"
# Run in a private mount namespace: other processes on the machine never
# see (and never walk: a readdir would change the directory's atime) our
# mounts. They can still run `sync`, which commits our running transaction:
# see MAX_ATTEMPTS.
if [[ -z ${E4T_CHURN_PRIVATE_NS:-} ]] && command -v unshare >/dev/null; then
    E4T_CHURN_PRIVATE_NS=1 exec unshare --mount --propagation private -- bash "${BASH_SOURCE[0]}" "$@"
fi
for t in mkfs.ext4 debugfs dumpe2fs e2fsck losetup mount umount mountpoint \
         stat cp xz sha256sum dmesg python3; do
    command -v "$t" >/dev/null || die "missing tool: $t"
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORACLE=$SCRIPT_DIR/jbd2-oracle.py
[[ -f $ORACLE ]] || die "missing $ORACLE"
OUT=${1:-$SCRIPT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# Workload parameters (the standard workload)
N=20 R=3 W=5 R2=2
# The wrapped image: as many rounds as it takes to go round its log
WRAP_R=200 WRAP_R2=20
# The fast-commit image: appends, each followed by fsync
FC_APPENDS=12
# A `sync` run by anything else on the machine commits our running
# transaction too, and can split a step in two: the checks then fail and
# the image is made again, up to this many times (each retry is noted).
MAX_ATTEMPTS=6
MISMATCH=""

KERNEL=$(uname -r)
E2FSPROGS=$(mkfs.ext4 -V 2>&1 | sed -n 1p)
BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)

WORK=$(mktemp -d /tmp/e4time-churn.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT"
LOOPS=()

cleanup() {
    local rc=$? l
    set +e
    if mountpoint -q "$MNT"; then
        log "cleanup: umount $MNT"
        umount "$MNT" || umount -l "$MNT"
    fi
    for l in "${LOOPS[@]}"; do
        [[ -n $l ]] || continue
        log "cleanup: losetup -d $l"
        losetup -d "$l"
    done
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

NOTES=$WORK/notes   # findings that go into README-churn.md
: >"$NOTES"
note() { log "NOTE: $*"; printf -- '- %s\n' "$*" >>"$NOTES"; }

# ------------------------------------------------------------ loop, mount

attach() {  # IMG -> prints the loop device
    local l
    l=$(losetup --find --show "$1")
    LOOPS+=("$l")
    log "losetup: ${1##*/} -> $l"
    printf '%s\n' "$l"
}

detach() {  # LOOP
    local i
    losetup -d "$1"
    for i in "${!LOOPS[@]}"; do
        [[ ${LOOPS[$i]} != "$1" ]] || LOOPS[$i]=""
    done
}

DMESG_MARK=0
MOUNT_CMD=""
do_mount() {  # OPTIONS LOOP
    # a marker line in the kernel log: mount_dmesg takes what follows it
    DMESG_MARK="e4time-churn-$$-$RANDOM: mount"
    echo "$DMESG_MARK" >/dev/kmsg
    MOUNT_CMD="mount -t ext4 -o $1 $2 MNT"
    log "mount -t ext4 -o $1 $2 $MNT"
    mount -t ext4 -o "$1" "$2" "$MNT"
}

# Kernel messages since do_mount's marker about loop devices $2..., into $1.
mount_dmesg() {  # FILE LOOP...
    local f=() dev
    for dev in "${@:2}"; do f+=(-e "(${dev##*/})" -e "${dev##*/}:" -e "${dev##*/}-8"); done
    dmesg | awk -v m="$DMESG_MARK" 'index($0, m) { on = 1; next } on' \
        | grep -F "${f[@]}" -e "$MNT" \
        | sed 's/^\[ *[0-9.]*\] /    /' >"$1" || true
}

# ------------------------------------------------------------ workload

FILES=()
set_files() {
    local i
    FILES=()
    for ((i = 1; i <= N; i++)); do FILES+=("$MNT/d/$(printf 'f%02d' "$i")"); done
}

STEPS=""   # the workload as run, for .info
step() { STEPS+="$*"$'\n'; }

create_files() {
    local f
    mkdir "$MNT/d"
    for f in "${FILES[@]}"; do printf 'churn file %s\n' "${f##*/f}" >"$f"; done
    sync
    step "mkdir d; printf 'churn file NN\\n' > d/fNN for NN = 01..$(printf %02d "$N"); sync"
}

read_rounds() {  # COUNT
    local r
    for ((r = 1; r <= $1; r++)); do
        sleep 0.05
        cat "${FILES[@]}" >/dev/null
        sync
    done
    step "$1 x { sleep 0.05; cat d/f01 ... d/f$(printf %02d "$N") >/dev/null; sync }"
}

append_files() {  # COUNT
    local i
    sleep 0.05
    for ((i = 0; i < $1; i++)); do printf x >>"${FILES[$i]}"; done
    sync
    step "sleep 0.05; printf x >> d/f01 ... d/f$(printf %02d "$1"); sync"
}

standard_workload() {  # R R2
    create_files
    read_rounds "$1"
    append_files "$W"
    read_rounds "$2"
}

# statx of d and every workload file: path ino size atime mtime ctime crtime
record_stat() {  # FILE
    local p
    for p in "$MNT/d" "${FILES[@]}"; do
        printf '%s ' "${p#"$MNT"/}"
        stat --printf '%i %s %.9X %.9Y %.9Z %.9W\n' -- "$p"
    done >"$1"
}

# ------------------------------------------------------------ checks

# Compare the home-inode times of IMG (jbd2-oracle.py --times) with the
# recorded statx; prints "equal" or the differences.
home_times() {  # IMG STATFILE
    local inos
    inos=$(awk '{ print $2 }' "$2")
    # shellcheck disable=SC2086
    python3 "$ORACLE" "$1" --times $inos >"$WORK/home.times"
    if awk 'NR == FNR { t[$2] = $4 " " $5 " " $6 " " $7; next }
            { if (t[$1] != $2 " " $3 " " $4 " " $5) { bad = 1; print "ino " $1 ": disk " $2 " " $3 " " $4 " " $5 " statx " t[$1] } }
            END { exit bad }' "$2" "$WORK/home.times" >"$WORK/home.diff"; then
        echo equal
    else
        echo "DIFFERENT: $(tr '\n' ';' <"$WORK/home.diff")"
    fi
}

oracle_kv() {  # IMG [JDEV] -> key=value lines
    if [[ -n ${2:-} ]]; then
        python3 "$ORACLE" --kv --journal "$2" "$1"
    else
        python3 "$ORACLE" --kv "$1"
    fi
}

kv() { sed -n "s/^$1=//p" "$2"; }   # KEY FILE

# Check the oracle's findings against the expect.* lines of an .info body.
# EXPECT is a file of "key=value" lines; keys:
#   atime_only data created deleted crtime ctime other relatime_would_skip
#   transactions atime_only_transactions fc_commits fc_inode_records
#   inode.INO
check_expect() {  # NAME KVFILE EXPECTFILE
    local name=$1 kvf=$2 ex=$3 key val got bad=0
    while IFS='=' read -r key val; do
        case $key in
            atime_only) got=$(kv changes.atime "$kvf") ;;
            data) got=$(kv changes.mtime "$kvf") ;;
            created|deleted|crtime|ctime|other) got=$(kv "changes.$key" "$kvf") ;;
            relatime_would_skip|transactions) got=$(kv "$key" "$kvf") ;;
            atime_only_transactions) got=$(kv changes.atime_only_transactions "$kvf") ;;
            atime_only_with_fc) got=$(kv changes_with_fc.atime "$kvf") ;;
            data_with_fc) got=$(kv changes_with_fc.mtime "$kvf") ;;
            fc_commits) got=$(kv fc.commits "$kvf") ;;
            fc_inode_records) got=$(kv fc.inode_records "$kvf") ;;
            inode.*) got=$(kv "$key" "$kvf"); [[ -n $got ]] || got=- ;;
            *) die "check_expect: unknown key $key" ;;
        esac
        if [[ $got != "$val" ]]; then
            log "$name: expect.$key=$val but the journal says $got"
            bad=1
        fi
    done <"$ex"
    for key in csum_bad_tids uncommitted_tids; do
        got=$(kv "$key" "$kvf")
        [[ $got == - ]] || { log "$name: $key=$got"; bad=1; }
    done
    for key in data_csum_bad fc.crc_bad; do
        got=$(kv "$key" "$kvf")
        [[ $got == 0 ]] || { log "$name: $key=$got"; bad=1; }
    done
    if ((bad != 0)); then
        MISMATCH="$name: $(grep -v '^inode\.' "$kvf" | tr '\n' ' ')"
        return 1
    fi
    log "$name: journal matches the expected counts"
}

# e2fsck on the clean image, replay of a copy of the live one.
fsck_clean() {  # IMG [JDEV]
    local j=()
    [[ -z ${2:-} ]] || j=(-j "$2")
    if e2fsck -fn "${j[@]}" "$1" >"$WORK/fsck.out" 2>&1; then
        echo "e2fsck -fn: clean (exit 0)"
    else
        die "e2fsck -fn $1 failed: $(tail -n 5 "$WORK/fsck.out")"
    fi
}

fsck_replay() {  # LIVEIMG STATFILE [JDEV] -> description
    local c=$WORK/replay.img jc="" j=() rc
    cp --sparse=always "$1" "$c"
    if [[ -n ${3:-} ]]; then
        jc=$WORK/replay-jdev.img
        cp --sparse=always "$3" "$jc"
        j=(-j "$jc")
    fi
    set +e
    e2fsck -fy "${j[@]}" "$c" >"$WORK/replay.out" 2>&1
    rc=$?
    set -e
    ((rc <= 1)) || die "e2fsck -fy on a copy of $1: exit $rc: $(tail -n 5 "$WORK/replay.out")"
    e2fsck -fn "${j[@]}" "$c" >"$WORK/replay2.out" 2>&1 \
        || die "e2fsck -fn after replay of $1 not clean"
    local ht
    ht=$(home_times "$c" "$2")
    [[ $ht == equal ]] || die "$1: after replay, home-inode times $ht"
    echo "e2fsck -fy on a copy: journal replayed (exit $rc: $(grep -c -i 'recovering journal' "$WORK/replay.out") 'recovering journal' line), then e2fsck -fn clean; home-inode times after replay vs final statx: $ht"
    rm -f "$c" "$jc"
}

# ------------------------------------------------------------ .info

# debugfs -R REQUEST IMG, killed after 10 s, at most 600 lines.
debugfs_capped() {  # REQUEST IMG
    local rc
    { timeout 10 debugfs -R "$1" "$2" 2>&1; echo "$?" >"$WORK/debugfs.rc"; } \
        | head -n 601 >"$WORK/debugfs.out" || true
    rc=$(cat "$WORK/debugfs.rc")
    head -n 600 "$WORK/debugfs.out"
    (($(wc -l <"$WORK/debugfs.out") <= 600)) || echo "[... output cut at 600 lines]"
    ((rc != 124)) || echo "[debugfs did not finish in 10 s: killed]"
    rm -f "$WORK/debugfs.out" "$WORK/debugfs.rc"
}

# write_info NAME COPY(live|clean) IMG STATFILE EXPECTFILE KVFILE CHECKS [JDEV]
write_info() {
    local name=$1 copy=$2 img=$3 st=$4 ex=$5 kvf=$6 checks=$7 jdev=${8:-}
    local info=$WORK/$name.info ino p
    {
        echo "# $name: kernel-written ext4 image for e4time's journal audit (make-churn-images.sh)"
        echo "image: $name.img.xz$([[ -z $jdev ]] || echo " with its external journal ${JDEV_NAME[$name]}.img.xz")"
        if [[ $copy == live ]]; then
            echo "copy: live: cp --sparse=always of the backing file while still mounted, after the last sync (needs_recovery; the journal is to be replayed)"
        else
            echo "copy: clean: after umount (s_start = 0; every transaction is stale)"
        fi
        echo "kernel: $KERNEL"
        echo "e2fsprogs: $E2FSPROGS"
        echo "built: $BUILD_DATE"
        echo "mke2fs: ${MKFS_CMD[$name]}"
        echo "mount: $MOUNT_CMD"
        echo "workload: ${WL_PARAMS[$name]}"
        printf '%s' "${WL_STEPS[$name]}" | sed 's/^/  step: /'
        echo
        echo "# expected counts (machine-readable): implied by the workload, checked against"
        echo "# the journal the kernel wrote with images/jbd2-oracle.py (classes of lib/journal.h;"
        echo "# atime_only = E4T_CH_ATIME, data = E4T_CH_MTIME; first copies are baselines)"
        sed 's/^/expect./' "$ex"
        echo "journal.s_start=$(kv start "$WORK/$name.jsb")"
        echo "journal.s_sequence=$(kv sequence "$WORK/$name.jsb")"
        echo "journal.live_tids=$(kv live_tids "$kvf")"
        echo "journal.stale_tids=$(kv stale_tids "$kvf")"
        echo "journal.transactions=$(kv transactions "$kvf")"
        echo "journal.blocks_in_transactions=$(kv journal_blocks "$kvf")"
        echo "journal.overwritten_copies=$(kv overwritten "$kvf")"
        [[ -z ${EXTRA_KV[$name]:-} ]] || printf '%s' "${EXTRA_KV[$name]}"
        echo
        echo "# workload files: path ino expected changes (class:count, from the workload)"
        while read -r p ino _; do
            echo "file $p ino=$ino changes=$(kv "inode.$ino" "$ex")"
        done <"$st"
        echo
        echo "# final statx through the mount after the last sync (SEC.NNNNNNNNN)"
        echo "# path ino size atime mtime ctime crtime"
        cat "$st"
        echo
        echo "# checks"
        printf '%s\n' "$checks" | sed 's/^/- /'
        echo
        if [[ -n ${NOTE_INFO[$name]:-} ]]; then
            echo "# notes"
            printf '%s' "${NOTE_INFO[$name]}"
            echo
        fi
        echo "# kernel messages"
        cat "$WORK/$name.dmesg"
        echo
        if [[ -s $WORK/$name.jbd2info ]]; then
            echo "# /proc/fs/jbd2/*/info before umount"
            sed 's/^/    /' "$WORK/$name.jbd2info"
            echo
        fi
        if [[ -s $WORK/$name.fcinfo ]]; then
            echo "# /proc/fs/ext4/*/fc_info before umount"
            sed 's/^/    /' "$WORK/$name.fcinfo"
            echo
        fi
        echo "# dumpe2fs -h $name.img"
        dumpe2fs -h "$img" 2>&1
        if [[ -n $jdev ]]; then
            echo
            echo "# dumpe2fs -h ${JDEV_NAME[$name]}.img (the external journal)"
            dumpe2fs -h "$jdev" 2>&1
        fi
        echo
        if [[ $copy == live ]]; then
            echo "# debugfs -R 'logdump$([[ -z $jdev ]] || echo " -f JDEV")' $name.img"
            debugfs_capped "logdump${jdev:+ -f $jdev}" "$img"
        elif [[ -z $jdev ]]; then
            echo "# debugfs -R 'logdump -O' $name.img (-O: the old, checkpointed blocks too)"
            debugfs_capped "logdump -O" "$img"
        else
            echo "# debugfs -R 'logdump -f JDEV' $name.img (not -O: see README-churn.md)"
            debugfs_capped "logdump -f $jdev" "$img"
        fi
        echo
        echo "# jbd2-oracle.py -v $name.img$([[ -z $jdev ]] || echo " --journal JDEV")"
        if [[ -n $jdev ]]; then
            python3 "$ORACLE" -v --journal "$jdev" "$img"
        else
            python3 "$ORACLE" -v "$img"
        fi
    } >"$info"
}

# ------------------------------------------------------------ expected counts

# model_expect MODE SCENARIO COPY R R2 IPB LOGLEN STATFILE > key=value lines
#
# A model of what the workload makes the kernel journal, independent of the
# journal itself: per file the atime / mtime state; a read updates atime when
# MODE is strict, or relatime and atime <= mtime (noatime: never); every
# step that changes an inode is one full transaction journaling the
# inode-table blocks of the changed inodes (IPB inodes a block; a
# transaction takes 2 + that many journal blocks: descriptor and commit).
# SCENARIO standard: create, R reads, W appends, R2 reads. SCENARIO
# fastcommit: create, R reads, FC_APPENDS appends each with fsync (one fast
# commit with one INODE record each, no full commit); the clean copy then
# has the full commit umount made. Only the newest transactions that fit in
# LOGLEN journal blocks are still in the log (the wrapped image); the oldest
# one found is compared with nothing (a baseline), as is every first copy.
# Counts follow lib/journal.h's classes: atime_only (E4T_CH_ATIME), data
# (E4T_CH_MTIME) over the full transactions; *_with_fc also over the
# fast-commit records (a fast commit comes before the full commit of its tid).
model_expect() {
    python3 - "$@" "$N" "$W" "$FC_APPENDS" <<'EOF'
import sys
mode, scen, copy, R, R2, ipb, L, statf, N, W, FCA = sys.argv[1:]
R, R2, ipb, L, N, W, FCA = map(int, (R, R2, ipb, L, N, W, FCA))
rows = [l.split() for l in open(statf)]
dino = int(rows[0][1])
inos = [int(r[1]) for r in rows[1:]]
assert len(inos) == N
clock = 0
at = {}
mt = {}
# steps: [type ("full"/"fc"), kind, changed {ino: class}, snapshot {ino: (atime, mtime)}]
steps = []


def snap():
    return {i: (at[i], mt[i]) for i in inos}


clock += 1
for i in inos:
    at[i] = mt[i] = clock
steps.append(("full", "create", {i: "created" for i in inos}, snap()))


def reads():
    global clock
    clock += 1
    ch = {}
    for i in inos:
        if mode == "strict" or (mode == "relatime" and at[i] <= mt[i]):
            at[i] = clock
            ch[i] = "atime"
    if ch:  # no inode changed: sync commits nothing
        steps.append(("full", "read", ch, snap()))


for _ in range(R):
    reads()
if scen == "standard":
    clock += 1
    for i in inos[:W]:
        mt[i] = clock
    steps.append(("full", "append", {i: "mtime" for i in inos[:W]}, snap()))
    for _ in range(R2):
        reads()
else:
    dirty = []
    for k in range(FCA):
        i = inos[k % W]
        clock += 1
        mt[i] = clock
        steps.append(("fc", "fsync", {i: "mtime"}, snap()))
        if i not in dirty:
            dirty.append(i)
    if copy == "clean":
        steps.append(("full", "umount", {i: "mtime" for i in dirty}, snap()))


def blocks(chg):
    return {(i - 1) // ipb for i in chg}


# the full transactions still in the log: newest first, while they fit
full = [s for s in steps if s[0] == "full"]
used = visible = 0
for s in reversed(full):
    n = 2 + len(blocks(s[2])) + (6 if s[1] == "create" else 0)  # create: bitmaps, gdt, dir
    if used + n > L:
        break
    used += n
    visible += 1
vis = set(id(s[2]) for s in full[len(full) - visible:])


def run(with_fc):
    last = {}  # ino -> (atime, mtime) of the copy before
    res = {"atime": 0, "mtime": 0}
    per = {}
    skip = atrans = ntrans = 0
    for typ, kind, chg, st in steps:
        if typ == "fc":
            if not with_fc:
                continue
            here = list(chg)
        else:
            if id(chg) not in vis:
                continue
            ntrans += 1
            bl = blocks(chg)
            here = [i for i in inos if (i - 1) // ipb in bl]
        had_atime = False
        for i in here:
            new, old = st[i], last.get(i)
            last[i] = new
            if old is None or old == new:
                continue
            if new[1] != old[1]:
                c = "mtime"
            else:
                c = "atime"
                had_atime = True
                if old[0] > new[1]:  # atime after mtime: relatime would not
                    skip += 1
            res[c] += 1
            per.setdefault(i, {}).setdefault(c, 0)
            per[i][c] += 1
        if typ == "full" and kind == "read" and had_atime:
            atrans += 1
    return res, per, skip, atrans, ntrans


res, _, skip, atrans, ntrans = run(False)
resfc, per, _, _, _ = run(True)
print("atime_only=%d" % res["atime"])
print("data=%d" % res["mtime"])
for k in ("created", "deleted", "crtime", "ctime", "other"):
    print("%s=0" % k)
print("relatime_would_skip=%d" % skip)
print("transactions=%d" % ntrans)
print("atime_only_transactions=%d" % atrans)
if scen == "fastcommit":
    print("atime_only_with_fc=%d" % resfc["atime"])
    print("data_with_fc=%d" % resfc["mtime"])
    print("fc_commits=%d" % FCA)
    print("fc_inode_records=%d" % FCA)
print("inode.%d=-" % dino)
for i in inos:
    v = per.get(i, {})
    print("inode.%d=%s" % (i, ",".join("%s:%d" % kv for kv in sorted(v.items())) or "-"))
EOF
}

# ------------------------------------------------------------ one image pair

declare -A MKFS_CMD WL_PARAMS WL_STEPS EXTRA_KV EXTRA_CHECKS NOTE_INFO JDEV_NAME SHA XZ
BUILT=()

# mkfs_img IMG SIZE UUID-SUFFIX MKFS-ARGS...: sets LAST_MKFS
mkfs_img() {
    local img=$1 size=$2 uuid=5e4a1c00-0000-4000-8000-00000000c0$3
    shift 3
    rm -f "$img"
    truncate -s "$size" "$img"
    LAST_MKFS="truncate -s $size IMG; mkfs.ext4 -q -F -U $uuid -E lazy_itable_init=0 $* IMG"
    log "mkfs.ext4 -q -F -U $uuid -E lazy_itable_init=0 $* ${img##*/}"
    mkfs.ext4 -q -F -U "$uuid" -E lazy_itable_init=0 "$@" "$img"
}

# Journal superblock fields of IMG into FILE (key=value).
jsb_fields() {  # IMG FILE [JDEV]
    local args=("$1")
    [[ -z ${3:-} ]] || args=(--journal "$3" "$1")
    python3 - "$ORACLE" "${args[@]}" >"$2" <<'EOF'
import sys, importlib.util
spec = importlib.util.spec_from_file_location("o", sys.argv[1])
o = importlib.util.module_from_spec(spec)
spec.loader.exec_module(o)
a = sys.argv[2:]
jd = None
if a[0] == "--journal":
    jd, a = a[1], a[2:]
fs = o.Fs(a[0])
j = o.Journal(fs, jd)
for k in ("start", "sequence", "maxlen", "first", "log_end", "fc_blocks", "head"):
    print("%s=%d" % (k, getattr(j, k)))
print("ipb=%d" % fs.ipb)
EOF
}

compress() {  # NAME IMG
    SHA[$1]=$(sha256sum <"$2" | cut -d' ' -f1)
    xz -9e -T1 -c "$2" >"$OUT/$1.img.xz.tmp"
    mv "$OUT/$1.img.xz.tmp" "$OUT/$1.img.xz"
    XZ[$1]=$(stat -c %s "$OUT/$1.img.xz")
    BUILT+=("$1")
    log "$1.img.xz: ${XZ[$1]} bytes"
}

# counts_ok COPY NAME IMG STATFILE MODE SCENARIO R R2 [JDEV]: expected
# counts from the model, checked against the oracle's reading.
counts_ok() {
    local copy=$1 name=$2 img=$3 st=$4 mode=$5 scen=$6 r=$7 r2=$8 jdev=${9:-}
    local kvf=$WORK/$name.kv jsb=$WORK/$name.jsb ex=$WORK/$name.expect
    jsb_fields "$img" "$jsb" "$jdev"
    model_expect "$mode" "$scen" "$copy" "$r" "$r2" "$(kv ipb "$jsb")" \
        "$(($(kv log_end "$jsb") - $(kv first "$jsb")))" "$st" >"$ex"
    oracle_kv "$img" "$jdev" >"$kvf"
    check_expect "$name" "$kvf" "$ex"
}

# finish COPY NAME IMG STATFILE MODE SCENARIO R R2 [JDEV]: (after
# counts_ok) e2fsck, home times, .info, xz.
finish() {
    local copy=$1 name=$2 img=$3 st=$4 mode=$5 scen=$6 r=$7 r2=$8 jdev=${9:-}
    local checks kvf=$WORK/$name.kv jsb=$WORK/$name.jsb ex=$WORK/$name.expect fl ht
    fl=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem features: *//p')
    checks="jbd2-oracle.py finds exactly the expect.* counts (per class, per inode, transactions); no bad checksum, no uncommitted transaction; $(kv commit_csum_verified "$kvf") commit checksums verified"
    checks+=$'\n'"journal superblock: s_start=$(kv start "$jsb") s_sequence=$(kv sequence "$jsb"); log blocks [$(kv first "$jsb"), $(kv log_end "$jsb")), fast-commit blocks $(kv fc_blocks "$jsb"); live tids $(kv live_tids "$kvf"), stale tids $(kv stale_tids "$kvf")"
    if [[ $copy == live ]]; then
        [[ $fl == *needs_recovery* ]] || die "$name: live copy without needs_recovery"
        [[ $(kv start "$jsb") != 0 ]] || die "$name: live copy with s_start 0"
        checks+=$'\n'"dumpe2fs -h: needs_recovery set; Journal start $(kv start "$jsb") (not 0)"
        ht=$(home_times "$img" "$st")
        [[ $ht == equal || $scen == fastcommit ]] || die "$name: live copy: home-inode times $ht"
        checks+=$'\n'"home-inode times before replay vs final statx: $ht"
        checks+=$'\n'"$(fsck_replay "$img" "$st" "$jdev")"
    else
        [[ $fl != *needs_recovery* ]] || die "$name: clean copy with needs_recovery"
        [[ $(kv start "$jsb") == 0 ]] || die "$name: clean copy with s_start != 0"
        checks+=$'\n'"dumpe2fs -h: no needs_recovery; Journal start 0"
        ht=$(home_times "$img" "$st")
        [[ $ht == equal ]] || die "$name: clean copy: home-inode times $ht"
        checks+=$'\n'"home-inode times vs final statx: $ht"
        checks+=$'\n'"$(fsck_clean "$img" "$jdev")"
    fi
    [[ -z ${EXTRA_CHECKS[$name]:-} ]] || checks+=$'\n'"${EXTRA_CHECKS[$name]}"
    write_info "$name" "$copy" "$img" "$st" "$ex" "$kvf" "$checks" "$jdev"
    compress "$name" "$img"
    [[ -z $jdev ]] || compress "${JDEV_NAME[$name]}" "$jdev"
    cp "$WORK/$name.info" "$OUT/$name.info"
}

# Before umount: /proc figures of the mounted journal.
proc_info() {  # BASE LOOP
    local dev=${2##*/} f
    : >"$WORK/$1.jbd2info"
    for f in /proc/fs/jbd2/"$dev"*/info; do
        [[ -f $f ]] && cat "$f" >>"$WORK/$1.jbd2info"
    done
    cat /proc/fs/ext4/"$dev"/fc_info >"$WORK/$1.fcinfo" 2>/dev/null || : >"$WORK/$1.fcinfo"
}

fc_workload() {  # COUNT: appends of one byte, each followed by fsync
    python3 - "$MNT/d" "$1" "$W" <<'EOF'
import os, sys, time
d, n, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
time.sleep(0.05)
for k in range(n):  # no sleep: keep the window for someone else's sync short
    fd = os.open(os.path.join(d, "f%02d" % (k % w + 1)), os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"y")
    os.fsync(fd)
    os.close(fd)
EOF
    step "sleep 0.05; $1 x { python3: open(d/fNN, O_WRONLY|O_APPEND), write 'y', fsync, close } for NN = 01..$(printf %02d "$W") in turn, no sleep between; NO sync afterwards"
}

# Machine-readable facts of a run beyond the expected counts (sets EXTRA):
# how many transactions jbd2 committed while mounted, and for the wrapped
# image the journal geometry and how many journal blocks the workload wrote.
extra_kv() {  # BASE R R2 LIVEIMG CLEANIMG [LIVEJDEV]
    local base=$1 r=$2 r2=$3 jsb=$WORK/extra.jsb ipb L rb ab after head first create
    EXTRA="kernel.jbd2_transactions=$(awk 'NR == 1 { print $1 }' "$WORK/$base.jbd2info")"$'\n'
    [[ $base == wrapped ]] || return 0
    jsb_fields "$5" "$jsb"
    ipb=$(kv ipb "$jsb") first=$(kv first "$jsb") L=$(($(kv log_end "$jsb") - $(kv first "$jsb")))
    head=$(kv head "$jsb")
    rb=$((2 + $(awk -v b="$ipb" 'NR > 1 { k[int(($2 - 1) / b)] = 1 } END { print length(k) }' "$WORK/$base.stat")))
    ab=$((2 + $(awk -v b="$ipb" -v w="$W" 'NR > 1 && NR <= w + 1 { k[int(($2 - 1) / b)] = 1 } END { print length(k) }' "$WORK/$base.stat")))
    after=$(((r + r2) * rb + ab))
    # s_head of the clean copy is where the next transaction would start:
    # the creation transaction took what makes the sum land there
    create=$(( ((head - first - after) % L + L) % L ))
    EXTRA+="wrap.log_blocks=$L"$'\n'
    EXTRA+="wrap.transactions_made=$((1 + r + 1 + r2))"$'\n'
    EXTRA+="wrap.blocks_per_read_round=$rb"$'\n'
    EXTRA+="wrap.blocks_append=$ab"$'\n'
    EXTRA+="wrap.blocks_create=$create"$'\n'
    EXTRA+="wrap.blocks_written=$((create + after))"$'\n'
    EXTRA+="wrap.laps=$(awk -v a=$((create + after)) -v l="$L" 'BEGIN { printf "%.2f", a / l }')"$'\n'
    EXTRA+="wrap.clean_s_head=$head"$'\n'
    (( create + after > L )) || die "wrapped: the log did not wrap ($((create + after)) blocks written, log $L)"
}

# run_case BASE MODE OPTS SIZE UUID SCENARIO R R2 MKFS-ARGS...
#   MODE: strict, relatime or noatime (what the model assumes)
#   SCENARIO: standard, or fastcommit (FC_APPENDS fsync'd appends after the
#   R rounds), or extjournal (standard, external journal device)
# Makes churn-BASE-live and churn-BASE-clean.
run_case() {
    local attempt
    for ((attempt = 1; attempt <= MAX_ATTEMPTS; attempt++)); do
        if build_case "$@"; then return 0; fi
        note "churn-$1: attempt $attempt: the journal did not match the model, image rebuilt: $MISMATCH"
    done
    die "churn-$1: $MAX_ATTEMPTS attempts, none matched the expected counts (last: $MISMATCH)"
}

# One attempt of run_case; returns 1 when the journal does not match the
# model (the images are then not written).
build_case() {
    local base=$1 mode=$2 opts=$3 size=$4 uuid=$5 scen=$6 r=$7 r2=$8 mopts=$3
    shift 8
    local img=$WORK/fs.img jimg=$WORK/jdev.img loop jloop="" n copy
    local live=churn-$base-live clean=churn-$base-clean
    log "----- $base ($opts)"
    if [[ $scen == extjournal ]]; then
        rm -f "$jimg"
        truncate -s 8M "$jimg"
        local ju=5e4a1c00-0000-4000-8000-0000000a00${uuid}
        log "mkfs.ext4 -q -F -O journal_dev -b 4096 -U $ju jdev.img (8 MiB)"
        mkfs.ext4 -q -F -O journal_dev -b 4096 -U "$ju" "$jimg"
        jloop=$(attach "$jimg")
        mkfs_img "$img" "$size" "$uuid" "$@" -J device="$jloop"
        LAST_MKFS="truncate -s 8M JDEV; mkfs.ext4 -q -F -O journal_dev -b 4096 -U $ju JDEV; losetup JDEV as /dev/loopJ; ${LAST_MKFS//device=$jloop/device=/dev/loopJ}"
        opts="journal_path=$jloop,$opts"
    else
        mkfs_img "$img" "$size" "$uuid" "$@"
    fi
    loop=$(attach "$img")
    do_mount "$opts" "$loop"
    [[ -z $jloop ]] || MOUNT_CMD=${MOUNT_CMD//$jloop//dev/loopJ}
    set_files
    STEPS=""
    case $scen in
        standard|extjournal) standard_workload "$r" "$r2" ;;
        fastcommit) create_files; read_rounds "$r"; fc_workload "$FC_APPENDS" ;;
    esac
    record_stat "$WORK/$base.stat"
    proc_info "$base" "$loop"
    cp --sparse=always "$img" "$WORK/$live.img"
    [[ -z $jloop ]] || cp --sparse=always "$jimg" "$WORK/$live-jdev.img"
    mount_dmesg "$WORK/$base.dmesg" "$loop" ${jloop:+"$jloop"}
    umount "$MNT"
    detach "$loop"
    cp --sparse=always "$img" "$WORK/$clean.img"
    if [[ -n $jloop ]]; then
        detach "$jloop"
        cp --sparse=always "$jimg" "$WORK/$clean-jdev.img"
    fi
    for n in "$live" "$clean"; do
        MKFS_CMD[$n]=$LAST_MKFS
        WL_PARAMS[$n]="N=$N R=$r W=$W R2=$r2$([[ $scen != fastcommit ]] || echo " FC_APPENDS=$FC_APPENDS (no W appends, no R2 rounds)") (mount options: $mopts)"
        WL_STEPS[$n]=$STEPS
        cp "$WORK/$base.dmesg" "$WORK/$n.dmesg"
        cp "$WORK/$base.jbd2info" "$WORK/$n.jbd2info"
        cp "$WORK/$base.fcinfo" "$WORK/$n.fcinfo"
        [[ -z $jloop ]] || JDEV_NAME[$n]=$n-jdev
    done
    local ms=standard
    [[ $scen != fastcommit ]] || ms=fastcommit
    extra_kv "$base" "$r" "$r2" "$WORK/$live.img" "$WORK/$clean.img" ${jloop:+"$WORK/$live-jdev.img"}
    for n in "$live" "$clean"; do EXTRA_KV[$n]=$EXTRA; done
    for copy in live clean; do
        n=churn-$base-$copy
        if ! counts_ok "$copy" "$n" "$WORK/$n.img" "$WORK/$base.stat" "$mode" "$ms" "$r" "$r2" \
            ${jloop:+"$WORK/$n-jdev.img"}; then
            rm -f "$img" "$jimg" "$WORK/$live.img" "$WORK/$clean.img" "$WORK/$live-jdev.img" "$WORK/$clean-jdev.img"
            return 1
        fi
    done
    for copy in live clean; do
        n=churn-$base-$copy
        finish "$copy" "$n" "$WORK/$n.img" "$WORK/$base.stat" "$mode" "$ms" "$r" "$r2" \
            ${jloop:+"$WORK/$n-jdev.img"}
    done
    rm -f "$img" "$jimg" "$WORK/$live.img" "$WORK/$clean.img" "$WORK/$live-jdev.img" "$WORK/$clean-jdev.img"
}

# ------------------------------------------------------------ the matrix

SZ=16M
B4=(-b 4096 -I 256)

run_case strictatime strict strictatime,commit=300 "$SZ" 01 standard "$R" "$R2" "${B4[@]}"
run_case relatime relatime relatime,commit=300 "$SZ" 02 standard "$R" "$R2" "${B4[@]}"
run_case lazytime relatime lazytime,commit=300 "$SZ" 03 standard "$R" "$R2" "${B4[@]}"
run_case lazytime-strictatime strict lazytime,strictatime,commit=300 "$SZ" 04 standard "$R" "$R2" "${B4[@]}"
run_case noatime noatime noatime,commit=300 "$SZ" 05 standard "$R" "$R2" "${B4[@]}"

# ------------------------------------------------------------ variants

run_case 1k strict strictatime,commit=300 "$SZ" 06 standard "$R" "$R2" -b 1024 -I 256
run_case nocsum strict strictatime,commit=300 "$SZ" 07 standard "$R" "$R2" "${B4[@]}" -O ^metadata_csum
run_case extjournal strict strictatime,commit=300 "$SZ" 08 extjournal "$R" "$R2" "${B4[@]}"
run_case fastcommit strict strictatime,commit=300 "$SZ" 09 fastcommit "$R" 0 "${B4[@]}" -O fast_commit
run_case wrapped strict strictatime,commit=300 "$SZ" 10 standard "$WRAP_R" "$WRAP_R2" -b 1024 -I 256 -J size=1

# journal_async_commit: journal checksums v1 on a ^metadata_csum fs. The
# kernel refuses it in data=ordered mode: then data=writeback.
async_probe() {
    local img=$WORK/probe.img loop o
    ASYNC_OPTS=""
    mkfs_img "$img" 8M 99 "${B4[@]}" -O ^metadata_csum
    loop=$(attach "$img")
    for o in journal_checksum,journal_async_commit data=writeback,journal_checksum,journal_async_commit; do
        if mount -t ext4 -o "$o,strictatime,commit=300" "$loop" "$MNT" 2>/dev/null; then
            ASYNC_OPTS=$o,strictatime,commit=300
            umount "$MNT"
            break
        fi
        note "asynccommit: kernel $KERNEL refuses -o $o: \"$(dmesg | grep -F "(${loop##*/})" | tail -n 1 | sed 's/^\[ *[0-9.]*\] //')\""
    done
    detach "$loop"
    rm -f "$img"
}
async_probe
if [[ -n $ASYNC_OPTS ]]; then
    run_case asynccommit strict "$ASYNC_OPTS" "$SZ" 11 standard "$R" "$R2" "${B4[@]}" -O ^metadata_csum
else
    note "asynccommit: no image (the kernel accepts journal_async_commit in no mode tried)"
fi

# ------------------------------------------------------------ README-churn.md

row() {  # NAME
    local n=$1 ex=$WORK/$1.expect kvf=$WORK/$1.kv
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "${XZ[$n]}" \
        "$(kv atime_only "$ex")" "$(kv data "$ex")$([[ -z $(kv data_with_fc "$ex") ]] || echo " ($(kv data_with_fc "$ex") with FC)")" \
        "$(kv transactions "$ex")" "$(kv live_tids "$kvf")" "$(kv stale_tids "$kvf")" "$(kv start "$WORK/$n.jsb")"
}
wk() { printf '%s' "${EXTRA_KV[churn-wrapped-live]:-}" | sed -n "s/^$1=//p"; }

{
    cat <<EOF
# Atime-churn test images (journal audit)

Small ext4 images whose jbd2 journals were written by the real Linux ext4
driver, for \`e4time journal\`, \`e4time history\` and \`e4time audit\`. They
are made by \`make-churn-images.sh\` (run as root: \`sudo
images/make-churn-images.sh [OUTDIR]\`; about two minutes). Re-running it
makes new images: times, checksums and hash seeds differ, the counts do not
(the script stops if the journal the kernel wrote does not match them).
Decompress with \`xz -dk\` or \`xz -dc NAME.img.xz > /tmp/NAME.img\`.

Made on: $BUILD_DATE, kernel \`$KERNEL\`, $E2FSPROGS.

## The workload

N = $N files, R = $R read rounds, W = $W appends, R2 = $R2 read rounds:

    mkdir d; printf 'churn file NN\n' > d/fNN     (NN = 01..20); sync
    R times:  sleep 0.05; cat d/f01 d/f02 ... d/f20 >/dev/null; sync
    sleep 0.05; printf x >> d/f01 ... d/f05; sync
    R2 times: sleep 0.05; cat d/f01 ... d/f20 >/dev/null; sync

Files are read by explicit path (no glob, no \`ls\`: no readdir, so the
directory's atime never changes); the filesystem is mounted with the atime
option and \`commit=300\`, so the 5 s commit timer never fires and \`sync\`
ends every step. The copy named \`-live\` is \`cp --sparse=always\` of the loop
device's backing file while still mounted, after the last sync (the journal
needs recovery); \`-clean\` is the same file after umount.
Every filesystem is 16 MiB, \`mkfs.ext4 -q -F -U 5e4a1c00-0000-4000-8000-00000000c0NN
-E lazy_itable_init=0\` plus the options in the table (4 KiB blocks,
256-byte inodes and the ext4 defaults of Debian 12 unless said: 64bit,
metadata_csum, so journal checksums v3 and 16-byte tags). Inode numbers: \`d\`
is 12, \`d/f01\`..\`d/f20\` are 13..32 in every image.

| image(s) | mkfs / mount | what is special |
|---|---|---|
| churn-strictatime-{live,clean} | \`-b 4096 -I 256\` / \`strictatime,commit=300\` | every read updates atime |
| churn-relatime-{live,clean} | same / \`relatime,commit=300\` | atime only when atime <= mtime |
| churn-lazytime-{live,clean} | same / \`lazytime,commit=300\` (lazytime implies relatime) | |
| churn-lazytime-strictatime-{live,clean} | same / \`lazytime,strictatime,commit=300\` | |
| churn-noatime-{live,clean} | same / \`noatime,commit=300\` | reads change nothing |
| churn-1k-{live,clean} | \`-b 1024 -I 256\` / strictatime | 4 inodes a block: 5 inode-table blocks a round |
| churn-nocsum-{live,clean} | \`-O ^metadata_csum\` / strictatime | journal without checksums, 12-byte tags |
| churn-extjournal-{live,clean} + \`-jdev\` | \`-J device=\` an 8 MiB \`-O journal_dev\` device / \`journal_path=\`,strictatime | external journal |
| churn-fastcommit-{live,clean} | \`-O fast_commit\` / strictatime | $FC_APPENDS appends with fsync: fast commits |
| churn-wrapped-{live,clean} | \`-b 1024 -I 256 -J size=1\` / strictatime | R = $WRAP_R, R2 = $WRAP_R2: the log wraps |
| churn-asynccommit-{live,clean} | \`-O ^metadata_csum\` / \`$ASYNC_OPTS\` | journal checksum v1 + async commit |

## Expected counts

Classes are those of \`lib/journal.h\` (\`enum e4t_change\`, first match wins):
\`atime_only\` = E4T_CH_ATIME (atime changed, and nothing else but the
checksum / i_version words), \`data\` = E4T_CH_MTIME. Every journaled copy of an inode is compared
with the copy before it; the first copy of an inode in the journal is a
baseline and counts nothing, so the creations (in the first transaction)
count 0 \`created\`. What the workload implies:

- strictatime (and lazytime,strictatime): atime_only = (R + R2) x N = $(((R + R2) * N)), data = W = $W;
- relatime and lazytime: atime_only = N + W = $((N + W)) (the first read after
  the creation and the first read after the append), data = W;
- noatime: atime_only = 0, data = W.

\`relatime_would_skip\` counts the atime-only changes whose old atime was
after both mtime and ctime (and less than 24 h older): $(( (R - 1) * N + (N - W) + (R2 - 1) * N )) for
strictatime. \`transactions\` counts the committed full transactions in the
journal (live and stale), \`atime_only_transactions\` the read rounds that
changed something.

| image | xz bytes | atime_only | data | transactions | live tids | stale tids | s_start |
|---|---:|---:|---:|---:|---|---|---:|
EOF
    for n in "${BUILT[@]}"; do
        [[ $n == *-jdev ]] || row "$n"
    done
    cat <<EOF

Sizes and sha256 of the decompressed images:

| image | xz bytes | sha256 (\`xz -dc NAME.img.xz \| sha256sum\`) |
|---|---:|---|
EOF
    for n in "${BUILT[@]}"; do
        printf '| %s.img.xz | %s | `%s` |\n' "$n" "${XZ[$n]}" "${SHA[$n]}"
    done
    cat <<EOF

## NAME.info

Plain text. Header lines (\`image:\`, \`copy:\`, \`kernel:\`, \`mke2fs:\`,
\`mount:\`, \`workload:\` and one \`step:\` line a workload step), then the
machine-readable block:

- \`expect.KEY=VALUE\`: what the workload implies (from a model of the workload
  in the script, not read from the journal), checked against the journal with
  \`jbd2-oracle.py\`: \`atime_only\`, \`data\`, \`created\`, \`deleted\`, \`crtime\`,
  \`ctime\`, \`other\`, \`relatime_would_skip\`, \`transactions\`,
  \`atime_only_transactions\`, and per inode \`expect.inode.INO=class:count,...\`
  (\`-\`: no change). The fast-commit images add \`atime_only_with_fc\`,
  \`data_with_fc\` (the fast-commit INODE records compared too, a fast commit
  ordered before the full commit of its tid; the per-inode lines include
  them), \`fc_commits\` and \`fc_inode_records\`.
- \`journal.KEY=VALUE\`: what the journal holds: \`s_start\`, \`s_sequence\`,
  \`live_tids\` (the log recovery replays, from s_start), \`stale_tids\` (found
  by scanning), \`transactions\`, \`blocks_in_transactions\`,
  \`overwritten_copies\` (stale copies whose journal block a newer transaction
  reused).
- \`kernel.jbd2_transactions\`: commits jbd2 counted while mounted
  (\`/proc/fs/jbd2/DEV/info\`); \`wrap.*\` for the wrapped image (below).

Then \`file PATH ino=INO changes=...\` for \`d\` and each file, the final statx
of each (\`path ino size atime mtime ctime crtime\`, SEC.NNNNNNNNN, taken
through the mount after the last sync), the checks that were run, kernel
messages, \`/proc/fs/jbd2/*/info\` and \`/proc/fs/ext4/*/fc_info\` before
umount, \`dumpe2fs -h\` (of the journal device too), \`debugfs logdump\` and
\`jbd2-oracle.py -v\`.

## Checks run on every image

- \`jbd2-oracle.py\` (shipped here; Python 3 standard library; an independent
  reading of the journal: live walk from s_start, scan for stale
  transactions, every checksum verified: v1 crc32_be, v2/v3 crc32c; the
  fast-commit area decoded; inode slots of inode-table copies compared)
  finds exactly the \`expect.\` counts, per class, per inode and per
  transaction count, with no bad or missing commit and no bad checksum.
- live copies: \`needs_recovery\` set, \`Journal start\` not 0; a copy replays
  with \`e2fsck -fy\` and is then clean under \`e2fsck -fn\`, with the home
  inodes holding the final statx times (\`jbd2-oracle.py IMG --times INO...\`).
- clean copies: no \`needs_recovery\`, \`Journal start\` 0, \`e2fsck -fn\`
  clean, home inodes = final statx.

## What the kernel did

- One step, one transaction: every step that changed an inode became exactly
  one transaction (\`sync\` writes back, then commits the one running
  transaction); no step was split, and \`/proc/fs/jbd2/*/info\` counts as many
  commits as the model predicts (7 for strictatime: tid 2 = mkdir and the
  creations, 3..5 the R rounds, 6 the appends, 7..8 the R2 rounds). A step
  that changes nothing commits nothing: the relatime rounds after the first,
  every noatime round (relatime: 4 transactions, noatime: 2).
- The first tid after mkfs is 2 (mke2fs leaves s_sequence 1). The creation
  transaction (4 KiB blocks) journals 8 blocks: the superblock (block 0),
  the group descriptors (1), the block and inode bitmaps (3, 19), the two
  inode-table blocks (35, 36) and the directory blocks of / and \`d\` (4,
  1291): 10 journal blocks with descriptor and commit. A read round journals only the inode-table blocks of the
  files: with 4 KiB blocks and 256-byte inodes, 16 inodes a block, so 2 blocks
  (inodes 1-16 and 17-32): 4 journal blocks a round; with 1 KiB blocks 5
  blocks (7 journal blocks a round).
- An append (\`printf x >>\`) changes mtime, ctime and size in one
  transaction (class data). \`d\` (inode 12) never changes after its creation
  (the paths are looked up, never listed). No inode other than the files
  changes; the neighbours in the same blocks (1-11) come out unchanged.
- Live copies: \`s_start\` stays at the first transaction of the mount (tid
  2 at log block 1, 2 for the external journal: the whole workload is in
  the live log). jbd2 moves the log tail
  only when a checkpoint or a commit frees a large part of the log, so with a
  small workload nothing is ever stale while mounted. The home inode-table
  blocks are current in the live copies (\`sync\` writes the checkpointed
  buffers back after the commit), so the disk copy equals the last journal
  copy, except in the fast-commit image.
- Clean copies: umount sets \`s_start\` 0, writes \`s_head\` (0x58: the block
  after the last commit, where the next mount resumes logging, so earlier
  transactions stay readable) and sets \`s_sequence\` to the last tid + 2:
  jbd2 marks the journal empty with \`++j_transaction_sequence\`, so the tid
  after the last one is never used. A reader must not take s_sequence - 1
  for the last transaction.
- lazytime: with a \`sync\` after every step it makes no difference: sync's
  writeback (WB_SYNC_ALL) flushes the in-memory timestamps of I_DIRTY_TIME
  inodes, so lazytime,strictatime journals the same $(((R + R2) * N)) updates as strictatime
  and lazytime the same $((N + W)) as relatime, with the same transactions. The
  effect shows without sync (checked by hand while writing this script, not
  in an image): mounted \`lazytime,strictatime,commit=1\`, a read round
  followed by 3 s of waiting left nothing in the journal (only the creation
  transaction); the atime updates were journaled by the next \`sync\`. Plain
  strictatime would have committed them within the 1 s commit interval.
- nocsum (\`-O ^metadata_csum\`): journal features \`journal_64bit\` only:
  12-byte tags (8 + 4 for 64bit), no tail checksum in descriptors, commit
  blocks without checksum (chksum_type 0).
- asynccommit: $(if [[ -n $ASYNC_OPTS ]]; then echo "the kernel refuses \`journal_async_commit\` in data=ordered mode (\"can't mount with journal_async_commit in data=ordered mode\"), so the image is mounted \`$ASYNC_OPTS\`. On a ^metadata_csum filesystem \`journal_checksum\` gives checksum v1: journal features \`journal_checksum journal_64bit journal_async_commit\` (compat 0x1, incompat 0x6), 12-byte tags, and each commit block holds chksum_type 1 (crc32), chksum_size 4 and the crc32_be of the transaction's descriptor and data blocks (seed ~0); all verified by the oracle."; else echo "the kernel refused journal_async_commit: no image."; fi)
- extjournal: a 4 MiB journal device is refused at mount (\`JBD2: Journal too
  short (blocks 2-1024)\`: the log needs at least 1024 blocks), so the device
  is 8 MiB (2048 blocks). The jbd2 superblock is device block 1 (the
  journal_dev's ext2 superblock is at byte 1024 of block 0), and the log's
  block numbers are device block numbers: s_first = 2, s_maxlen = 2048, the
  first descriptor at device block 2. The filesystem's \`s_journal_dev\` is
  the dev_t of the loop device the journal had at mkfs time (0x0700 = loop0,
  say), meaningless elsewhere: match the journal by \`s_journal_uuid\`
  (5e4a1c00-0000-4000-8000-0000000a0008). mkfs.ext4 gives the journal device
  journal checksums v3 like an internal journal.
  debugfs 1.47.0 \`logdump -O -f JDEV\` on the clean external journal never ends
  (it prints "Found expected sequence 0, type 4 (V2 superblock) at block 1"
  over and over), so the clean .info has \`logdump -f\` without -O.
- fastcommit: \`mke2fs -O fast_commit\` made a journal of 1040 blocks: 1024
  log blocks and a 16-block fast-commit area ("Fast commit length: 16"). The
  log wraps at block 1024 (s_maxlen - 16); the fast commits are in blocks
  1025..1039 (block 1024 itself is never used: j_fc_first = j_last + 1).
  Each fsync after a one-byte append was one fast commit of one block
  (\`fc_info\`: $FC_APPENDS commits, 0 ineligible, $FC_APPENDS blocks): a HEAD tag
  (features 0, tid; only in the first fast commit after the full commit), an
  INODE tag (le32 inode number + the raw inode, 160 bytes = 128 +
  i_extra_isize 32) and a TAIL tag (tid, crc32c from seed 0) padding the
  block. No ADD_RANGE: the byte went into the already allocated block. All
  $FC_APPENDS carry tid 6, the running transaction, and no full commit of
  tid 6 exists in the live copy: the home inodes of f01..f05 there still
  hold the state of tid 5 (old mtime, ctime, size); \`e2fsck -fy\` replays the
  fast commits and then the times equal statx. After umount the jbd2
  fast-commit flag (incompat 0x20) is cleared and a full commit of tid 6
  holds the 5 appended inodes; the fast-commit blocks stay as stale records.
  Compared in order (fast commits before the full commit of the same tid),
  that full commit's copies equal the last fast-commit copies: 12 data
  changes with the records, 5 without them. dumpe2fs 1.47.0 prints the
  fast-commit journal feature as \`FEATURE_I5\`.
- wrapped: log of $(wk wrap.log_blocks) blocks (1 KiB, \`-J size=1\`, the smallest mke2fs accepts);
  $(wk wrap.transactions_made) transactions made (tids 2..$(( $(wk wrap.transactions_made) + 1 )): creation $(wk wrap.blocks_create) blocks,
  $WRAP_R + $WRAP_R2 read rounds of $(wk wrap.blocks_per_read_round) blocks, the append
  $(wk wrap.blocks_append) blocks), $(wk wrap.blocks_written) journal blocks written = $(wk wrap.laps) times the log
  (the clean copy's s_head, $(wk wrap.clean_s_head), agrees). The journal holds the
  newest transactions that fit: $(kv stale_tids "$WORK/churn-wrapped-clean.kv") in the clean copy; the
  partly overwritten one before them has lost its descriptor and is not
  found. In the live copy the kernel had moved the tail: s_start =
  $(kv start "$WORK/churn-wrapped-live.jsb") (tid $(kv sequence "$WORK/churn-wrapped-live.jsb")), so tids $(kv live_tids "$WORK/churn-wrapped-live.kv") are live and
  $(kv stale_tids "$WORK/churn-wrapped-live.kv") are stale although the filesystem was mounted: an
  audit that reads only the live log sees $(( $(kv transactions "$WORK/churn-wrapped-live.kv") - $(python3 -c "import sys; a,b=sys.argv[1].split('-'); print(int(b)-int(a)+1)" "$(kv stale_tids "$WORK/churn-wrapped-live.kv")") )) transactions, with the stale scan
  $(kv transactions "$WORK/churn-wrapped-live.kv"). The expected counts cover both (the oldest found
  transaction is a baseline): $(kv atime_only "$WORK/churn-wrapped-live.expect") atime-only, $(kv data "$WORK/churn-wrapped-live.expect") data changes.
- Other processes: anyone's \`sync\` commits our running transaction too and
  can split a step in two. Seen once while writing this script (other tests
  were running): the creation step came out as two transactions, split right
  after \`mkdir d\`; in the second one \`d\` differed from its first copy only
  in i_version and the checksum, because the first files were created in
  the same clock tick as the mkdir, so mtime and ctime were rewritten with
  the same value. Such a change is not an atime update (jbd2-oracle.py
  classes it \`other\`; an audit that took "only atime, checksum and
  i_version bytes differ" without requiring atime itself would count it as
  atime-only). The script therefore runs in a private mount namespace
  (nobody else can walk the mount) and rebuilds an image whose journal does
  not match the model, up to $MAX_ATTEMPTS times, noting each retry below.
  Tried with another process running \`sync\` every 0.3 s: the eight image
  pairs made before the fast-commit one all came out right at the first
  attempt (a step lasts milliseconds); the fast-commit image failed all
  attempts while its 12 fsyncs were 0.05 s apart (someone else's sync
  turns the fast commits made so far into a full commit), so they now run
  back to back (each append still changes the size; mtime changes when the
  clock ticks). Best run on a quiet machine.
- debugfs 1.47.0 \`logdump -O\` on a clean internal journal follows the old
  transactions in log order from the log's first block and stops at the
  first block without the magic: on churn-wrapped-clean it shows the
  commit block of tid 146 at block 1, then tids 147..223, and stops at the
  head (block 538), never reaching 78..145 which lie after it. It also prints "short read (read 0, expected N) while
  reading journal" on stderr; harmless.
EOF
    if [[ -s $NOTES ]]; then
        echo
        echo "Notes from this run:"
        echo
        cat "$NOTES"
    fi
} >"$WORK/README-churn.md"
cp "$WORK/README-churn.md" "$OUT/README-churn.md"

log "done: $(( ${#BUILT[@]} )) images in $OUT"
ls -l "$OUT"/churn-* "$OUT"/README-churn.md >&2
