#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-images.sh [OUTDIR] -- build the kernel-written ext4 test images of
# e4time and their ground truth.
#
# For each image: mkfs.ext4 into a temporary file, attach it to a loop
# device, mount it (strictatime), create a fixed list of files with the
# real kernel ext4 driver, check that the kernel stored the timestamps we
# asked for, record the ground truth with GNU stat (statx) right before
# unmounting, unmount, check with e2fsck -fn, and compress with xz -9e.
#
# Writes into OUTDIR (default: the directory of this script):
#   NAME.img.xz  the image          NAME.truth  ground truth (see README.md)
#   NAME.info    kernel version, dumpe2fs -h of the final image, and
#                debugfs notes      README.md   generated description
#
# Needs root (loop mounts). Tools: bash, coreutils, util-linux (losetup,
# mount), e2fsprogs, xz. No python.
set -euo pipefail
export LC_ALL=C TZ=UTC

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'make-images.sh: error: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "must be run as root (needs loop mounts)"
for t in mkfs.ext4 debugfs dumpe2fs e2fsck losetup mount umount mountpoint \
         stat touch od xz sha256sum dmesg; do
    command -v "$t" >/dev/null || die "missing tool: $t"
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$SCRIPT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

KERNEL=$(uname -r)
E2FSPROGS=$(mkfs.ext4 -V 2>&1 | sed -n 1p)
BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)

WORK=$(mktemp -d /tmp/e4time-images.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT"
LOOP=""

cleanup() {
    local rc=$?
    set +e
    if mountpoint -q "$MNT"; then
        log "cleanup: umount $MNT"
        umount "$MNT" || umount -l "$MNT"
    fi
    if [[ -n $LOOP ]]; then
        log "cleanup: losetup -d $LOOP"
        losetup -d "$LOOP"
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

NOTES=$WORK/notes       # free-form findings that go into README.md
: >"$NOTES"
note() { log "NOTE: $*"; printf -- '- %s\n' "$*" >>"$NOTES"; }

# ---------------------------------------------------------------- mounting

DMESG_MARK=0
attach_and_mount() {  # IMG
    LOOP=$(losetup --find --show "$1")
    log "losetup: $1 -> $LOOP"
    DMESG_MARK=$(dmesg | wc -l)
    log "mount -o strictatime $LOOP $MNT"
    mount -t ext4 -o strictatime "$LOOP" "$MNT"
}

# Kernel messages about our loop device or mount point since the last call
# (appended to $1).
mount_dmesg() {  # FILE
    local all
    all=$(dmesg)
    printf '%s\n' "$all" | tail -n +"$((DMESG_MARK + 1))" \
        | grep -F -e "(${LOOP##*/})" -e "${LOOP##*/}:" -e "$MNT" \
        | sed 's/^\[ *[0-9.]*\] //' >>"$1" || true
    DMESG_MARK=$(printf '%s\n' "$all" | wc -l)
}

unmount_and_detach() {
    sync
    log "umount $MNT"
    umount "$MNT"
    log "losetup -d $LOOP"
    losetup -d "$LOOP"
    LOOP=""
}

# ------------------------------------------------------------ ground truth

# "%.9X"-style signed decimal (as GNU stat prints it: the exact value, so
# 1969-12-31T23:59:59.999999999Z is "-0.000000001") -> "SEC.NNNNNNNNN" with
# SEC = floor(time) and NNNNNNNNN the non-negative fraction ("-1.999999999").
norm_time() {  # DECIMAL FLOOR_SECONDS
    local s=$1 floor=$2 neg=0 int frac sec nsec
    if [[ $s == -* ]]; then neg=1; s=${s#-}; fi
    int=${s%.*} frac=${s#*.}
    [[ $int =~ ^[0-9]+$ && $frac =~ ^[0-9]{9}$ ]] || die "bad stat time '$1'"
    if ((neg == 0)); then
        sec=$((10#$int)) nsec=$((10#$frac))
    elif ((10#$frac == 0)); then
        sec=$((-10#$int)) nsec=0
    else
        sec=$((-10#$int - 1)) nsec=$((1000000000 - 10#$frac))
    fi
    # Cross-check with stat's own integer seconds (%X), which is the floor.
    ((sec == floor)) || die "time normalisation mismatch: '$1' -> $sec, stat says $floor"
    printf '%d.%09d' "$sec" "$nsec"
}

hexpath() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

# One truth line for the file at mount path $1 (not followed), whose path
# relative to the filesystem root is $2, with status $3.
truth_line() {  # MOUNTPATH RELPATH STATUS
    local f type
    mapfile -t f < <(stat --printf '%i\n%f\n%a\n%u\n%g\n%s\n%h\n%.9X\n%.9Y\n%.9Z\n%.9W\n%X\n%Y\n%Z\n%W\n%w\n' -- "$1")
    ((${#f[@]} == 16)) || die "stat failed on $2"
    case $(( 0x${f[1]} & 0xF000 )) in
        32768) type=reg ;;  16384) type=dir ;;     # 0x8000 0x4000
        40960) type=lnk ;;  4096) type=fifo ;;     # 0xA000 0x1000
        8192) type=chr ;;   24576) type=blk ;;     # 0x2000 0x6000
        49152) type=sock ;;                        # 0xC000
        *) die "unknown file type ${f[1]} for $2" ;;
    esac
    local at mt ct cr
    at=$(norm_time "${f[7]}" "${f[11]}")
    mt=$(norm_time "${f[8]}" "${f[12]}")
    ct=$(norm_time "${f[9]}" "${f[13]}")
    if [[ ${f[15]} == - ]]; then cr=-; else cr=$(norm_time "${f[10]}" "${f[14]}"); fi
    printf '%s %s %s %s %s %s %s %s %s %s %s %s %s\n' "$(hexpath "$2")" \
        "${f[0]}" "$type" "${f[2]}" "${f[3]}" "${f[4]}" "${f[5]}" "${f[6]}" \
        "$at" "$mt" "$ct" "$cr" "$3"
}

TRUTH_HEADER='# path_hex ino type mode uid gid size links atime mtime ctime crtime status'

# Write the truth of every name reachable from / into $1 (deleted lines, if
# any, were collected before in $1.deleted). The walk is listed first (into
# a file outside the mount) and stat'ed afterwards, so that the directory
# atime updates caused by find's readdir (strictatime) happen before stat.
record_truth() {  # TRUTHFILE
    local list=$WORK/walk p rel
    find "$MNT" -print0 >"$list"
    {
        printf '%s\n' "$TRUTH_HEADER"
        while IFS= read -r -d '' p; do
            rel=${p#"$MNT"}
            [[ -n $rel ]] || rel=/
            truth_line "$p" "$rel" live
        done <"$list" | sort
        if [[ -f $1.deleted ]]; then cat "$1.deleted"; fi
    } >"$1"
    rm -f "$1.deleted"
    log "truth: $(($(wc -l <"$1") - 1)) lines"
}

# Create /NAME with content, sync, record its truth line (status deleted),
# rm it, sync. Sets DELETED_INO.
make_deleted() {  # NAME CONTENT TRUTHFILE
    log "create and delete /$1"
    printf '%s' "$2" >"$MNT/$1"
    sync
    truth_line "$MNT/$1" "/$1" deleted >>"$3.deleted"
    DELETED_INO=$(stat -c %i -- "$MNT/$1")
    rm -- "$MNT/$1"
    sync
}

# touch -d DATE both atime and mtime, then check that the kernel kept it.
# Sets CLAMPED=1 (and records a note) if stat shows something else.
set_time() {  # IMAGE PATH DATE
    local img=$1 p=$2 d=$3 want got_a got_m
    touch -d "$d" -- "$p"
    want=$(date -u -d "$d" +%s.%N)
    check_time "$img" "$p" "$d" "$want" "$want"
}

check_time() {  # IMAGE PATH DATE-TEXT WANT_ATIME WANT_MTIME
    local img=$1 p=$2 d=$3 f got_a got_m
    mapfile -t f < <(stat --printf '%.9X\n%.9Y\n%X\n%Y\n' -- "$p")
    got_a=$(norm_time "${f[0]}" "${f[2]}")
    got_m=$(norm_time "${f[1]}" "${f[3]}")
    if [[ $got_a == "$4" && $got_m == "$5" ]]; then
        log "time ok: ${p#"$MNT"} = $got_a / $got_m ($d)"
    else
        note "$img: ${p#"$MNT"}: asked for atime $4 mtime $5 ($d); kernel stored atime $got_a ($(stat -c %x -- "$p")) mtime $got_m ($(stat -c %y -- "$p"))"
    fi
}

# Check pre-1970 normalisation against stat's human-readable %x.
check_human() {  # PATH
    local f human back
    mapfile -t f < <(stat --printf '%.9X\n%X\n%x\n' -- "$1")
    human=${f[2]}
    back=$(date -u -d "$human" +%s.%N)
    [[ $back == "$(norm_time "${f[0]}" "${f[1]}")" ]] \
        || die "normalisation of ${1#"$MNT"} disagrees with %x: $human -> $back vs ${f[0]}"
    log "human check ok: ${1#"$MNT"}: stat %.9X=${f[0]} %x='$human' -> $back"
}

debugfs_flags() {  # IMG PATH -> hex flags
    debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p'
}

write_info() {  # IMG NAME
    {
        printf 'kernel: %s\n' "$KERNEL"
        printf 'e2fsprogs: %s\n' "$E2FSPROGS"
        printf 'built: %s\n' "$BUILD_DATE"
        printf '\n# dumpe2fs -h %s.img\n' "$2"
        dumpe2fs -h "$1" 2>&1
    } >"$WORK/$2.info"
}

# debugfs time "0xSSSSSSSS:EEEEEEEE" (or "0xSSSSSSSS") -> SEC.NNNNNNNNN, as
# the kernel decodes it: signed 32-bit seconds plus (extra & 3) << 32, and
# nanoseconds = extra >> 2.
decode_debugfs_time() {  # TEXT
    local lo=${1%%:*} ex=0 sec
    [[ $1 == *:* ]] && ex=$((0x${1#*:}))
    sec=$((lo))
    ((sec >= 2147483648)) && sec=$((sec - 4294967296))
    printf '%d.%09d' "$((sec + ((ex & 3) << 32)))" "$((ex >> 2))"
}

# Append debugfs views of a deleted inode to NAME.info, and compare the
# times left on disk with its truth line (recorded just before rm).
info_deleted() {  # IMG NAME INO
    local img=$1 name=$2 ino=$3 st f v
    st=$(debugfs -R "stat <$ino>" "$img" 2>/dev/null)
    declare -A disk
    for f in atime mtime ctime crtime; do
        v=$(sed -n "s/^ *$f: \(0x[0-9a-f]*\(:[0-9a-f]*\)\{0,1\}\) .*/\1/p" <<<"$st")
        [[ -n $v ]] && disk[$f]=$(decode_debugfs_time "$v") || disk[$f]=-
    done
    disk[size]=$(sed -n 's/^User:.*  Size: \([0-9]*\)$/\1/p' <<<"$st")
    disk[links]=$(sed -n 's/^Links: \([0-9]*\) .*/\1/p' <<<"$st")
    local t; local -a tf
    t=$(awk -v ino="$ino" '$1 !~ /^#/ && $13 == "deleted" && $2 == ino' "$WORK/$name.truth")
    read -r -a tf <<<"$t"
    {
        printf '\n# debugfs -R "stat <%s>" (the deleted file, after unmount)\n' "$ino"
        printf '%s\n' "$st"
        printf '\n# deleted inode %s: truth (stat just before rm) vs on disk after rm (decoded from debugfs)\n' "$ino"
        printf 'truth:   size %s links %s atime %s mtime %s ctime %s crtime %s\n' \
            "${tf[6]}" "${tf[7]}" "${tf[8]}" "${tf[9]}" "${tf[10]}" "${tf[11]}"
        printf 'on disk: size %s links %s atime %s mtime %s ctime %s crtime %s\n' \
            "${disk[size]}" "${disk[links]}" "${disk[atime]}" "${disk[mtime]}" "${disk[ctime]}" "${disk[crtime]}"
    } >>"$WORK/$name.info"
    local changed=() i=8
    for f in atime mtime ctime crtime; do
        [[ ${tf[i]} == "${disk[$f]}" ]] || changed+=("$f ${tf[i]} -> ${disk[$f]}")
        i=$((i + 1))
    done
    [[ ${tf[6]} == "${disk[size]}" ]] || changed+=("size ${tf[6]} -> ${disk[size]}")
    if ((${#changed[@]})); then
        note "$name: deleted inode $ino: on disk after rm the kernel left: $(IFS=';'; printf '%s' "${changed[*]}" | sed 's/;/; /g') (links 0, dtime set); the truth line keeps the values from before rm"
    else
        note "$name: deleted inode $ino: all four times and the size on disk after rm equal the truth line"
    fi
}

finish_image() {  # IMG NAME
    local img=$1 name=$2
    log "e2fsck -fn $name.img"
    e2fsck -fn "$img" >"$WORK/$name.fsck" 2>&1 || { cat "$WORK/$name.fsck" >&2; die "e2fsck reports problems on $name"; }
    write_info "$img" "$name"
}

# ===================================================== image 1: ext4-4k

TIMES_4K=(
    "pre-epoch-min|1901-12-13 20:45:52 UTC"
    "just-before-epoch|1969-12-31 23:59:59.999999999 UTC"
    "epoch|1970-01-01 00:00:00 UTC"
    "y2038-max|2038-01-19 03:14:07 UTC"
    "y2038-over|2038-01-19 03:14:08 UTC"
    "y2106-max|2106-02-07 06:28:15 UTC"
    "y2106-over|2106-02-07 06:28:16 UTC"
    "y2242-max|2242-03-16 12:56:31 UTC"
    "y2242-over|2242-03-16 12:56:32 UTC"
    "max|2446-05-10 22:38:55.999999999 UTC"
    "nsec|2009-02-13 23:31:30.123456789 UTC"
)

# Files in /names/ (exact bytes, from printf escapes).
NAMES=(
    "$(printf 'with space')"
    "$(printf 'pipe|name')"
    "$(printf 'new\nline')"
    "$(printf 'tab\tname')"
    "$(printf 'ctrl\001\033[31mred')"
    "$(printf 'bad-utf8-\377\376')"
    "$(printf 'percent%%25name')"
    "$(printf 'back\\slash')"
    "$(printf 'quote"\047')"
    "$(printf '\303\274n\303\257c\303\266d\303\251')"
)

SLOW_TARGET=$(printf 'slow-symlink-target/%03d/' $(seq 1 12) | head -c 120)
((${#SLOW_TARGET} == 120)) || die "slow symlink target is ${#SLOW_TARGET} bytes"

make_4k() {
    local name=ext4-4k img=$WORK/ext4-4k.img truth=$WORK/ext4-4k.truth
    local dm=$WORK/ext4-4k.dmesg
    : >"$dm"
    log "[$name] creating 32 MiB image"
    truncate -s 32M "$img"
    local mkfs=(mkfs.ext4 -q -F -b 4096 -I 256 -O 64bit,metadata_csum -L e4t4k
                -U 5e4a1c00-0000-4000-8000-000000000001 -E lazy_itable_init=0)
    log "${mkfs[*]} $name.img"
    "${mkfs[@]}" "$img"
    attach_and_mount "$img"
    mount_dmesg "$dm"

    log "[$name] regular files, hard link, symlinks, fifo"
    printf 'hello\n' >"$MNT/hello.txt"
    mkdir -p "$MNT/dir/sub"
    printf 'deep file in /dir/sub\n' >"$MNT/dir/sub/deep.txt"
    printf 'one inode, two names\n' >"$MNT/hardlink-a"
    ln "$MNT/hardlink-a" "$MNT/dir/hardlink-b"
    ln -s hello.txt "$MNT/fast-symlink"
    ln -s "$SLOW_TARGET" "$MNT/slow-symlink"
    mkfifo "$MNT/fifo"

    log "[$name] /names/ (${#NAMES[@]} awkward names)"
    mkdir "$MNT/names"
    local n
    for n in "${NAMES[@]}"; do
        printf 'x\n' >"$MNT/names/$n"
    done

    log "[$name] /big-htree/ with 3000 empty files"
    mkdir "$MNT/big-htree"
    (cd "$MNT/big-htree" && touch f{0000..2999})

    log "[$name] /times/"
    mkdir "$MNT/times"
    local e
    for e in "${TIMES_4K[@]}"; do
        : >"$MNT/times/${e%%|*}"
        set_time "$name" "$MNT/times/${e%%|*}" "${e#*|}"
    done
    : >"$MNT/times/split"
    touch -a -d '2001-01-01 00:00:00.5 UTC' "$MNT/times/split"
    touch -m -d '2002-02-02 02:02:02.25 UTC' "$MNT/times/split"
    check_time "$name" "$MNT/times/split" "split" \
        "$(date -u -d '2001-01-01 00:00:00.5 UTC' +%s.%N)" \
        "$(date -u -d '2002-02-02 02:02:02.25 UTC' +%s.%N)"
    check_human "$MNT/times/pre-epoch-min"
    check_human "$MNT/times/just-before-epoch"

    make_deleted deleted-file "this file was deleted after the truth was recorded
$(seq 1 50)
" "$truth"
    DEL_4K=$DELETED_INO

    log "[$name] sanity checks while mounted"
    [[ $(cat "$MNT/hello.txt") == hello ]] || die "hello.txt"
    [[ $(readlink "$MNT/slow-symlink") == "$SLOW_TARGET" ]] || die "slow-symlink"
    [[ $(stat -c %i "$MNT/hardlink-a") == $(stat -c %i "$MNT/dir/hardlink-b") ]] || die "hard link"
    [[ $(find "$MNT/names" -mindepth 1 -printf x | wc -c) == "${#NAMES[@]}" ]] || die "names"
    [[ $(find "$MNT/big-htree" -mindepth 1 -printf x | wc -c) == 3000 ]] || die "big-htree"
    lsattr -d "$MNT/big-htree" >&2 || true
    INO_HELLO_4K=$(stat -c %i "$MNT/hello.txt")
    INO_HTREE_4K=$(stat -c %i "$MNT/big-htree")

    sync
    record_truth "$truth"
    mount_dmesg "$dm"
    unmount_and_detach

    log "[$name] checks on the unmounted image"
    local fl
    fl=$(debugfs_flags "$img" /big-htree)
    (( fl & 0x1000 )) || die "/big-htree has no htree index flag (flags $fl)"
    log "big-htree flags $fl (0x1000 = EXT4_INDEX_FL): htree ok"
    debugfs -R "htree /big-htree" "$img" 2>/dev/null | head -n 8 >&2 || true
    local st
    fl=$(debugfs_flags "$img" /slow-symlink)
    st=$(debugfs -R "stat /slow-symlink" "$img" 2>/dev/null)
    [[ $st == *'Fast link dest'* ]] && die "slow-symlink is a fast symlink"
    log "slow-symlink flags $fl: stored in a block"
    st=$(debugfs -R "stat /fast-symlink" "$img" 2>/dev/null)
    [[ $st == *'Fast link dest: "hello.txt"'* ]] || die "fast-symlink is not a fast symlink"
    log "fast-symlink: in the inode"
    finish_image "$img" "$name"
    {
        printf '\n# debugfs -R "stat /big-htree"\n'
        debugfs -R "stat /big-htree" "$img" 2>&1 | grep -v '^debugfs '
    } >>"$WORK/$name.info"
    info_deleted "$img" "$name" "$DEL_4K"
}

# ============================================== image 2: ext4-1k-inline

make_1k_inline() {
    local name=ext4-1k-inline img=$WORK/ext4-1k-inline.img truth=$WORK/ext4-1k-inline.truth
    local dm=$WORK/ext4-1k-inline.dmesg
    : >"$dm"
    log "[$name] creating 8 MiB image"
    truncate -s 8M "$img"
    local mkfs=(mkfs.ext4 -q -F -b 1024 -I 256 -O inline_data,metadata_csum,^64bit
                -U 5e4a1c00-0000-4000-8000-000000000002)
    log "${mkfs[*]} $name.img"
    "${mkfs[@]}" "$img"
    attach_and_mount "$img"
    mount_dmesg "$dm"

    log "[$name] files"
    printf 'twenty bytes inline\n' >"$MNT/small.txt"           # 20 bytes
    [[ $(stat -c %s "$MNT/small.txt") == 20 ]] || die "small.txt size"
    mkdir "$MNT/inline-dir"
    printf 'a\n' >"$MNT/inline-dir/a.txt"
    printf 'bb\n' >"$MNT/inline-dir/b.txt"
    printf 'ccc\n' >"$MNT/inline-dir/c.txt"
    (yes 'e4time larger.bin test data, 64 KiB in blocks' || true) | head -c 65536 >"$MNT/larger.bin"
    ln "$MNT/small.txt" "$MNT/inline-dir/link-to-small"

    mkdir "$MNT/times"
    local e
    for e in "y2038-over|2038-01-19 03:14:08 UTC" \
             "pre-epoch-min|1901-12-13 20:45:52 UTC" \
             "nsec|2009-02-13 23:31:30.123456789 UTC"; do
        : >"$MNT/times/${e%%|*}"
        set_time "$name" "$MNT/times/${e%%|*}" "${e#*|}"
    done
    check_human "$MNT/times/pre-epoch-min"

    make_deleted deleted-file 'deleted, inline data
' "$truth"
    DEL_1K=$DELETED_INO
    INO_SMALL_1K=$(stat -c %i "$MNT/small.txt")
    INO_INLINEDIR_1K=$(stat -c %i "$MNT/inline-dir")

    sync
    record_truth "$truth"
    mount_dmesg "$dm"
    unmount_and_detach

    log "[$name] checks on the unmounted image"
    local p fl
    for p in /small.txt /inline-dir /inline-dir/a.txt /inline-dir/b.txt /inline-dir/c.txt /times; do
        fl=$(debugfs_flags "$img" "$p")
        (( fl & 0x10000000 )) || die "$p is not inline (flags $fl)"
        log "$p flags $fl: inline data"
    done
    fl=$(debugfs_flags "$img" /larger.bin)
    (( fl & 0x10000000 )) && die "/larger.bin is inline"
    log "/larger.bin flags $fl: not inline"
    finish_image "$img" "$name"
    {
        printf '\n# debugfs -R "stat /inline-dir"\n'
        debugfs -R "stat /inline-dir" "$img" 2>&1 | grep -v '^debugfs '
    } >>"$WORK/$name.info"
    info_deleted "$img" "$name" "$DEL_1K"
}

# ===================================================== image 3: ext4-128

make_128() {
    local name=ext4-128 img=$WORK/ext4-128.img truth=$WORK/ext4-128.truth
    local dm=$WORK/ext4-128.dmesg
    : >"$dm"
    log "[$name] creating 8 MiB image"
    truncate -s 8M "$img"
    local mkfs=(mkfs.ext4 -q -F -I 128 -b 4096 -U 5e4a1c00-0000-4000-8000-000000000003)
    log "${mkfs[*]} $name.img"
    "${mkfs[@]}" "$img" >"$WORK/$name.mkfs-stderr" 2>&1 || { cat "$WORK/$name.mkfs-stderr" >&2; die mkfs; }
    if [[ -s $WORK/$name.mkfs-stderr ]]; then
        cat "$WORK/$name.mkfs-stderr" >&2
        note "$name: mkfs.ext4 -I 128 printed: $(tr '\n' ' ' <"$WORK/$name.mkfs-stderr" | sed 's/  */ /g;s/ $//')"
    fi
    attach_and_mount "$img"
    mount_dmesg "$dm"

    printf 'a\n' >"$MNT/a.txt"
    mkdir "$MNT/dir"
    printf 'b\n' >"$MNT/dir/b.txt"
    mkdir "$MNT/times"
    : >"$MNT/times/y2038-max"
    set_time "$name" "$MNT/times/y2038-max" "2038-01-19 03:14:07 UTC"
    : >"$MNT/times/pre-epoch"
    set_time "$name" "$MNT/times/pre-epoch" "1960-01-01 00:00:00 UTC"
    check_human "$MNT/times/pre-epoch"
    : >"$MNT/times/nsec"
    touch -d "2009-02-13 23:31:30.123456789 UTC" "$MNT/times/nsec"
    # 128-byte inodes have no nanoseconds: expect the kernel to drop them.
    check_time "$name" "$MNT/times/nsec" "2009-02-13 23:31:30.123456789 UTC (nanoseconds expected to be dropped)" \
        1234567890.000000000 1234567890.000000000
    [[ $(stat -c %w "$MNT/a.txt") == - ]] || note "$name: statx reports a birth time on 128-byte inodes"
    INO_A_128=$(stat -c %i "$MNT/a.txt")

    sync
    record_truth "$truth"
    mount_dmesg "$dm"
    unmount_and_detach
    finish_image "$img" "$name"
}

# =================================================================== main

log "kernel $KERNEL, $E2FSPROGS, output to $OUT"
make_4k
make_1k_inline
make_128

for name in ext4-4k ext4-1k-inline ext4-128; do
    if [[ -s $WORK/$name.dmesg ]]; then
        while IFS= read -r l; do
            case $l in
                *imestamp*|*2038*|*time*) note "$name: dmesg at mount: $l" ;;
            esac
        done <"$WORK/$name.dmesg"
    fi
done

log "checking truth files"
for name in ext4-4k ext4-1k-inline ext4-128; do
    t=$WORK/$name.truth
    [[ $(head -n1 "$t") == "$TRUTH_HEADER" ]] || die "$name.truth header"
    bad=$(grep -v '^#' "$t" | awk 'NF != 13' | wc -l)
    ((bad == 0)) || die "$name.truth: $bad lines without 13 fields"
done

declare -A SHA
for name in ext4-4k ext4-1k-inline ext4-128; do
    SHA[$name]=$(sha256sum <"$WORK/$name.img" | cut -d' ' -f1)
    log "xz -9e $name.img -> $OUT/$name.img.xz (sha256 of raw image ${SHA[$name]})"
    xz -9e -T1 -c "$WORK/$name.img" >"$OUT/$name.img.xz.tmp"
    mv "$OUT/$name.img.xz.tmp" "$OUT/$name.img.xz"
    cp "$WORK/$name.truth" "$OUT/$name.truth"
    cp "$WORK/$name.info" "$OUT/$name.info"
done
printf '*.img\n' >"$OUT/.gitignore"

size_of() { stat -c %s "$OUT/$1"; }
total=$(( $(size_of ext4-4k.img.xz) + $(size_of ext4-1k-inline.img.xz) + $(size_of ext4-128.img.xz) ))
((total < 3 * 1024 * 1024)) || die "compressed images total $total bytes (>= 3 MiB)"

[[ -s $NOTES ]] || printf -- '- none: every timestamp asked for was stored as asked, and no timestamp warnings in dmesg.\n' >"$NOTES"

dmesg_block() {
    if [[ -s $WORK/$1.dmesg ]]; then sed 's/^/    /' "$WORK/$1.dmesg"; else printf '    (nothing)\n'; fi
}

log "writing $OUT/README.md"
cat >"$OUT/README.md" <<EOF
# Test images

Small ext4 images written by the real Linux ext4 driver (not by mke2fs or
debugfs), with the ground truth of every timestamp recorded through
\`statx\` while the image was mounted. They are produced by
\`make-images.sh\` (run as root: \`sudo images/make-images.sh [OUTDIR]\`;
OUTDIR defaults to this directory). Re-running it makes new images: the
content is the same (and the inode numbers came out the same in repeated
runs: each image has a single flex group), but the mkfs, ctime, crtime and
atime values,
the hash seed and checksums differ, so commit images and truth together.

Made on: $BUILD_DATE, kernel \`$KERNEL\`, $E2FSPROGS, coreutils \`$(stat --version | sed -n 1p)\`.

| image | xz size | sha256 of the decompressed image (\`xz -dc NAME.img.xz \| sha256sum\`) |
| --- | ---: | --- |
| ext4-4k.img.xz | $(size_of ext4-4k.img.xz) | \`${SHA[ext4-4k]}\` |
| ext4-1k-inline.img.xz | $(size_of ext4-1k-inline.img.xz) | \`${SHA[ext4-1k-inline]}\` |
| ext4-128.img.xz | $(size_of ext4-128.img.xz) | \`${SHA[ext4-128]}\` |

Each image comes with \`NAME.truth\` (ground truth, below) and \`NAME.info\`
(kernel version, \`dumpe2fs -h\` of the final unmounted image, and
\`debugfs\` views of the deleted inode and of the notable directory). The raw
\`.img\` files are not kept (\`.gitignore\`); use \`xz -dk\` or
\`xz -dc NAME.img.xz > /tmp/NAME.img\`.

Every image is mounted \`-o loop,strictatime\` (an explicit \`losetup\` plus
\`mount -o strictatime\`), filled, unmounted, and passes \`e2fsck -fn\`.

## ext4-4k

32 MiB, \`mkfs.ext4 -q -F -b 4096 -I 256 -O 64bit,metadata_csum -L e4t4k -U 5e4a1c00-0000-4000-8000-000000000001 -E lazy_itable_init=0\`.
256-byte inodes: nanoseconds, crtime and the extra epoch bits (1901..2446).

- \`/hello.txt\` ("hello\\n", inode $INO_HELLO_4K), \`/dir/sub/deep.txt\`
- \`/hardlink-a\` and \`/dir/hardlink-b\`: one inode, two names (links 2)
- \`/fast-symlink\` -> \`hello.txt\` (in the inode); \`/slow-symlink\` -> a
  120-byte target \`$SLOW_TARGET\` (in a data block)
- \`/fifo\` (mkfifo)
- \`/names/\`: one file per awkward name: \`with space\`, \`pipe|name\`,
  \`new\\nline\` (LF), \`tab\\tname\` (TAB), \`ctrl\\x01\\x1b[31mred\`,
  \`bad-utf8-\\xff\\xfe\` (invalid UTF-8), \`percent%25name\`, \`back\\slash\`
  (one backslash), \`quote"'\`, and UTF-8 \`ünïcödé\`.
- \`/big-htree/\` (inode $INO_HTREE_4K): 3000 empty files \`f0000\`..\`f2999\`;
  an htree (indexed) directory, checked with debugfs (flag 0x1000).
- \`/times/\`: atime = mtime set with \`touch -d\` to
  \`pre-epoch-min\` 1901-12-13 20:45:52, \`just-before-epoch\`
  1969-12-31 23:59:59.999999999, \`epoch\` 1970-01-01 00:00:00, \`y2038-max\`
  2038-01-19 03:14:07, \`y2038-over\` 03:14:08, \`y2106-max\` 2106-02-07
  06:28:15, \`y2106-over\` 06:28:16, \`y2242-max\` 2242-03-16 12:56:31,
  \`y2242-over\` 12:56:32, \`max\` 2446-05-10 22:38:55.999999999, \`nsec\`
  2009-02-13 23:31:30.123456789 (all UTC); \`split\`: atime 2001-01-01
  00:00:00.5, mtime 2002-02-02 02:02:02.25.
- \`/deleted-file\` (inode $DEL_4K): written, synced, its truth line recorded,
  then removed and synced. Nothing is created after it, so the freed inode
  is not reused; see "What the kernel did" for what rm changed in it.

## ext4-1k-inline

8 MiB, \`mkfs.ext4 -q -F -b 1024 -I 256 -O inline_data,metadata_csum,^64bit -U 5e4a1c00-0000-4000-8000-000000000002\`.

- \`/small.txt\` (20 bytes, inode $INO_SMALL_1K) with inline data
- \`/inline-dir/\` (inode $INO_INLINEDIR_1K): an inline directory holding
  \`a.txt\`, \`b.txt\`, \`c.txt\` (inline files) and \`link-to-small\`, a hard
  link to \`/small.txt\`; its entries overflow i_block into the
  \`system.data\` xattr. \`/times/\` is an inline directory too.
- \`/larger.bin\`: 64 KiB in blocks (not inline)
- \`/times/y2038-over\`, \`/times/pre-epoch-min\`, \`/times/nsec\` as in ext4-4k
- \`/deleted-file\` (inode $DEL_1K): deleted as in ext4-4k; its data was inline (and stays in the freed inode).

Inline flag (0x10000000) checked with debugfs on small.txt, inline-dir and
its files, and /times; not set on larger.bin.

## ext4-128

8 MiB, \`mkfs.ext4 -q -F -I 128 -b 4096 -U 5e4a1c00-0000-4000-8000-000000000003\`.
128-byte inodes: no crtime (\`statx\` has no birth time: crtime \`-\`), no
nanoseconds, times limited to 1901-12-13 20:45:52 .. 2038-01-19 03:14:07.

- \`/a.txt\` (inode $INO_A_128), \`/dir/b.txt\`
- \`/times/y2038-max\` 2038-01-19 03:14:07, \`/times/pre-epoch\` 1960-01-01
  00:00:00, \`/times/nsec\` touched to 2009-02-13 23:31:30.123456789 (the
  kernel keeps whole seconds only: 1234567890.000000000)

## What the kernel did (clamping, warnings)

$(cat "$NOTES")

Why: the VFS (\`timestamp_truncate()\`) clamps a time to the filesystem's
range and sets the nanoseconds to 0 when the seconds are exactly the
smallest or largest second the filesystem can store (for 256-byte inodes
1901-12-13 20:45:52 and 2446-05-10 22:38:55; for 128-byte inodes
2038-01-19 03:14:07), so 2446-05-10 22:38:55.999999999 is stored as
...:55.000000000, and 128-byte inodes keep whole seconds only. On unlink
ext4 frees the inode: links 0, dtime set, ctime set to the deletion time;
for a file with extents, the truncate at eviction also sets mtime to that
time and the size to 0, while an inline-data file keeps its size, mtime and
inline data. The truth lines of deleted files are the values from before
\`rm\`; \`NAME.info\` has both, decoded.

Kernel messages while the images were mounted:

ext4-4k:

$(dmesg_block ext4-4k)

ext4-1k-inline:

$(dmesg_block ext4-1k-inline)

ext4-128:

$(dmesg_block ext4-128)

## Truth format (\`NAME.truth\`)

Recorded with GNU stat (statx) after all writes, immediately before
unmount. The walk (\`find MNT -print0\`) is listed first and stat'ed
afterwards, so the directory atime updates caused by find's own readdir
(strictatime) are already in the recorded values; stat itself changes no
time. Nothing reads the mount after that.

First line: \`$TRUTH_HEADER\`. Then one line per name reachable from \`/\`
(a hard link gives one line per name), the root \`/\` itself, and the
deleted file. Fields are separated by a single space, 13 per line:

| field | meaning |
| --- | --- |
| path_hex | path from the filesystem root, starting with \`/\` (root is \`/\` = \`2f\`), as lowercase hex of its raw bytes (\`/a\` -> \`2f61\`); decode with \`printf %s HEX \| xxd -r -p\` |
| ino | inode number |
| type | \`reg dir lnk fifo chr blk sock\` |
| mode | permission bits in octal incl. suid/sgid/sticky (\`stat %a\`, e.g. \`644\`, \`755\`) |
| uid gid | numeric owner |
| size | \`stat %s\` |
| links | \`stat %h\` |
| atime mtime ctime | \`SEC.NNNNNNNNN\` |
| crtime | \`SEC.NNNNNNNNN\`, or \`-\` when statx has no birth time (\`%w\` is \`-\`) |
| status | \`live\`, or \`deleted\` for the deleted file |

Times: \`SEC\` is the floor of the time in seconds since 1970-01-01T00:00:00Z
(signed) and \`NNNNNNNNN\` the non-negative fraction in nanoseconds, always 9
digits. So 1969-12-31T23:59:59.999999999Z is \`-1.999999999\`, and
1901-12-13T20:45:52Z is \`-2147483648.000000000\`. This is the convention of
\`date +%s.%N\`. GNU stat's \`%.9X\` prints the exact signed value instead
(\`-0.000000001\` for 1969-12-31T23:59:59.999999999Z); make-images.sh turns
it into floor + fraction, checks the seconds against stat's \`%X\` (which is
the floor), and checks the pre-1970 files against stat's human form \`%x\`.

The \`deleted\` line holds what stat showed just before \`rm\`: inode number,
size, links and times of the live file. Unlink and the freeing of the inode
then changed ctime (and set dtime, links 0, size 0); atime, mtime and crtime
are unchanged on disk. The \`NAME.info\` file shows the inode as debugfs sees
it after deletion.
EOF

log "done:"
ls -l "$OUT"/*.xz "$OUT"/*.truth "$OUT"/*.info "$OUT"/README.md >&2
