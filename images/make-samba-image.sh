#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-samba-image.sh [OUTDIR] -- build the Samba-written ext4 test image of
# e4time (samba-dosattrib) and its ground truth.
#
# A real smbd (listening on 127.0.0.1/::1 port 44445 only, private config,
# guest access, force user = root) exports a freshly made, loop-mounted ext4
# file system. smbclient creates files and a directory through SMB2 and sets
# their creation times with `utimes`; Samba stores them in the
# `user.DOSATTRIB` xattr. The script then reads every xattr back on the
# mounted file system, decodes the NTTIME create time itself, checks it
# against what it set and what `allinfo` reports, records the kernel's birth
# time (statx), unmounts, runs e2fsck -fn and compresses with xz -9e.
#
# Writes into OUTDIR (default: the directory of this script):
#   samba-dosattrib.img.xz   the image
#   samba-dosattrib.truth    ground truth (format: README-samba.md)
#   samba-dosattrib.info     versions, dumpe2fs -h, allinfo outputs, xattr dump
#
# Needs root (loop mounts) and samba, smbclient, attr (installed with
# apt-get if missing). Tools: bash, coreutils, util-linux, e2fsprogs, xz.
# Only loopback addresses are used.
set -euo pipefail
export LC_ALL=C TZ=UTC

NAME=samba-dosattrib
PORT=44445
UUID=5e4a1c00-0000-4000-8000-000000000005

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'make-samba-image.sh: error: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "must be run as root (needs loop mounts)"

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$SCRIPT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# ------------------------------------------------------------------ tools
need_pkgs=()
command -v smbd >/dev/null || need_pkgs+=(samba)
command -v smbclient >/dev/null || need_pkgs+=(smbclient)
command -v getfattr >/dev/null || need_pkgs+=(attr)
if ((${#need_pkgs[@]})); then
    log "apt-get install -y ${need_pkgs[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${need_pkgs[@]}" >&2 ||
        { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y "${need_pkgs[@]}" >&2; }
fi
for t in smbd smbclient getfattr mkfs.ext4 dumpe2fs debugfs e2fsck losetup \
         mount umount mountpoint setfattr stat od xz sha256sum date timeout; do
    command -v "$t" >/dev/null || die "missing tool: $t"
done

SMBD_VERSION=$(smbd --version)
SMBCLIENT_VERSION=$(smbclient --version)
log "smbd: $SMBD_VERSION, smbclient: $SMBCLIENT_VERSION"
KERNEL=$(uname -r)
E2FSPROGS=$(mkfs.ext4 -V 2>&1 | sed -n 1p)
BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# ------------------------------------------------------------------ cleanup
WORK=$(mktemp -d /tmp/e4time-samba.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT"
LOOP=""
SMBD_PID=""

descendants() {  # PID: print PID's descendants (deepest first)
    local c
    for c in $(pgrep -P "$1" || true); do
        descendants "$c"
        echo "$c"
    done
}

stop_smbd() {
    [[ -n $SMBD_PID ]] || return 0
    local kids i
    kids=$(descendants "$SMBD_PID")
    log "stopping smbd (pid $SMBD_PID${kids:+, children $(echo $kids)})"
    kill -TERM "$SMBD_PID" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        alive=0
        for p in $SMBD_PID $kids; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        ((alive)) || break
        sleep 0.1
    done
    # only the processes this script started (smbd and its children), by id
    for p in $SMBD_PID $kids; do
        if kill -0 "$p" 2>/dev/null; then
            log "smbd pid $p still alive: SIGKILL"
            kill -KILL "$p" 2>/dev/null || true
        fi
    done
    wait "$SMBD_PID" 2>/dev/null || true
    SMBD_PID=""
}

cleanup() {
    local rc=$?
    set +e
    stop_smbd
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

# ------------------------------------------------------------------ helpers
hexof() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

# u_le HEX BYTEOFFSET NBYTES: little-endian unsigned integer (NBYTES <= 8;
# 8-byte values >= 2^63 come out negative in bash arithmetic)
u_le() {
    local hex=$1 off=$2 n=$3 i v=""
    for ((i = n - 1; i >= 0; i--)); do
        v+=${hex:$(((off + i) * 2)):2}
    done
    echo $((16#$v))
}

# nt_to_unix NTTIME: SEC.NNNNNNNNN, floor seconds, non-negative fraction
nt_to_unix() {
    local d=$(($1 - 116444736000000000)) s r
    s=$((d / 10000000))
    r=$((d % 10000000))
    if ((r < 0)); then
        r=$((r + 10000000))
        s=$((s - 1))
    fi
    printf '%d.%09d' "$s" $((r * 100))
}

# decode_dosattrib HEX: prints "VERSION CREATE" where CREATE is SEC.NNNNNNNNN
# or "-" (no valid create time); follows REFERENCE.md section 3.
decode_dosattrib() {
    local hex=$1 nbytes=$((${#1} / 2)) i nul=-1 off ver ver2 s flags cof nt
    for ((i = 0; i < nbytes; i++)); do
        if [[ ${hex:$((i * 2)):2} == 00 ]]; then nul=$i; break; fi
    done
    ((nul >= 0)) || { echo "? -"; return; }       # Samba 3.0-3.4: text only
    off=$((nul + 1)); off=$(((off + 1) & ~1))
    ((off + 4 <= nbytes)) || { echo "? -"; return; }
    ver=$(u_le "$hex" "$off" 2)
    ver2=$(u_le "$hex" $((off + 2)) 2)
    ((ver == ver2)) || log "WARNING: DOSATTRIB version $ver != switch $ver2"
    s=$(((off + 4 + 3) & ~3))
    case $ver in
        3) cof=28 ;;
        4) cof=16 ;;
        5) cof=8 ;;
        *) echo "$ver -"; return ;;
    esac
    if ((s + cof + 8 > nbytes)); then echo "$ver -"; return; fi
    flags=$(u_le "$hex" "$s" 4)
    nt=$(u_le "$hex" $((s + cof)) 8)
    # valid flag XATTR_DOSINFO_CREATE_TIME (0x10); 0, 2^64-1, 2^64-2 = unset
    if ((!(flags & 0x10) || nt == 0 || nt == -1 || nt == -2 || nt < 0)); then
        echo "$ver -"
    else
        echo "$ver $(nt_to_unix "$nt")"
    fi
}

SMB=(smbclient -N -p "$PORT" "//127.0.0.1/e4t")
smbc() {  # smbclient with one command string; output to stdout
    local o
    o=$("${SMB[@]}" -c "$1" 2>&1) || { printf '%s\n' "$o" >&2; die "smbclient -c '$1' failed"; }
    printf '%s\n' "$o"
    if grep -q 'NT_STATUS_' <<<"$o"; then die "smbclient -c '$1': $(grep NT_STATUS_ <<<"$o")"; fi
}

# ------------------------------------------------------------------ image
IMG=$WORK/$NAME.img
log "mkfs.ext4 $IMG (32 MiB)"
truncate -s 32M "$IMG"
mkfs.ext4 -q -F -b 4096 -I 256 -O 64bit,metadata_csum -U "$UUID" -L e4tsmb "$IMG"
LOOP=$(losetup --find --show "$IMG")
log "losetup: $IMG -> $LOOP; mount at $MNT"
mount -t ext4 "$LOOP" "$MNT"

# ------------------------------------------------------------------ smbd
SD=$WORK/samba
mkdir -p "$SD"/{private,lock,state,cache,pid,ncalrpc}
CONF=$SD/smb.conf
cat >"$CONF" <<EOF
[global]
    server role = standalone server
    interfaces = lo 127.0.0.1
    bind interfaces only = yes
    smb ports = $PORT
    disable netbios = yes
    private dir = $SD/private
    lock directory = $SD/lock
    state directory = $SD/state
    cache directory = $SD/cache
    pid directory = $SD/pid
    ncalrpc dir = $SD/ncalrpc
    log file = $SD/log.%m
    map to guest = Bad User
    server min protocol = SMB2
    ea support = yes
    store dos attributes = yes
    load printers = no
    printing = bsd
    printcap name = /dev/null
    disable spoolss = yes

[e4t]
    path = $MNT
    read only = no
    guest ok = yes
    force user = root
EOF
log "starting smbd on 127.0.0.1:$PORT"
# No --no-process-group: on SIGTERM the smbd parent does kill(0, SIGTERM),
# which with --no-process-group hits this script's own process group (it
# killed the script in a first attempt). Without it, smbd -F calls
# setpgid(0, 0) and its TERM stays within smbd's own group.
smbd --foreground --configfile="$CONF" --debug-stdout -d 1 \
    >"$SD/smbd.out" 2>&1 </dev/null &
SMBD_PID=$!
ok=0
for ((i = 0; i < 60; i++)); do
    kill -0 "$SMBD_PID" 2>/dev/null || { cat "$SD/smbd.out" >&2; die "smbd exited"; }
    if timeout 10 "${SMB[@]}" -c ls >/dev/null 2>&1; then ok=1; break; fi
    sleep 0.5
done
((ok)) || { cat "$SD/smbd.out" >&2; die "smbd did not answer on port $PORT"; }
log "smbd is up (pid $SMBD_PID, pgid $(ps -o pgid= -p "$SMBD_PID" | tr -d ' '), ours $(ps -o pgid= -p $$ | tr -d ' '))"
[[ $(ps -o pgid= -p "$SMBD_PID") != "$(ps -o pgid= -p $$)" ]] || die "smbd shares our process group"

# ------------------------------------------------------------------ content
# path (from the fs root) | type | create time to set with utimes (UTC), or "-"
SPEC=(
    "/y2k.txt|f|1999-12-31 23:59:59"
    "/billennium.txt|f|2001-09-09 01:46:40"
    "/dir|d|2010-06-15 12:00:00"
    "/dir/pre-1970.txt|f|1965-05-05 05:05:05"
    "/one second before epoch.txt|f|1969-12-31 23:59:59"
    "/leap-2040.txt|f|2040-02-29 12:00:00"
    "/y2110.txt|f|2110-01-01 00:00:00"
    "/empty.txt|f|2020-02-02 20:20:20"
    "/untouched.txt|f|-"
    "/ea-block.txt|L|2005-05-05 05:05:05"
)
# Types: d = mkdir through Samba, f = put through Samba, L = created LOCALLY
# on the mounted fs (not through Samba) with a 64-byte user.e4t-pad xattr
# that fills the 256-byte inode's in-inode xattr space, so the DOSATTRIB
# that Samba writes on utimes lands in an external xattr block (File ACL).

SRC=$WORK/src
mkdir "$SRC"
smbpath() { local p=${1#/}; printf '%s' "${p//\//\\}"; }  # /a/b -> a\b

for e in "${SPEC[@]}"; do
    IFS='|' read -r path type when <<<"$e"
    sp=$(smbpath "$path")
    if [[ $type == L ]]; then
        log "local create $path with user.e4t-pad (64 bytes)"
        printf 'e4time samba fixture: %s\n' "$path" >"$MNT$path"
        setfattr -n user.e4t-pad -v "0x$(printf 'e4time-pad-%04d-' $(seq 1 4) | od -An -v -tx1 | tr -d ' \n')" "$MNT$path"
    elif [[ $type == d ]]; then
        log "smbclient mkdir \"$sp\""
        smbc "mkdir \"$sp\"" >&2
    else
        if [[ $path == /empty.txt ]]; then
            : >"$SRC/data"
        else
            printf 'e4time samba fixture: %s\n' "$path" >"$SRC/data"
        fi
        log "smbclient put -> \"$sp\""
        smbc "put \"$SRC/data\" \"$sp\"" >&2
    fi
done

for e in "${SPEC[@]}"; do
    IFS='|' read -r path type when <<<"$e"
    [[ $when != - ]] || continue
    sp=$(smbpath "$path")
    # smbclient parses [YY]YY:MM:DD-HH:MM:SS with strptime + mktime (TZ=UTC)
    ts=$(date -u -d "$when" +%Y:%m:%d-%H:%M:%S)
    log "smbclient utimes \"$sp\" $ts -1 -1 -1"
    smbc "utimes \"$sp\" $ts -1 -1 -1" >&2
done

# allinfo, as Samba reports it back
ALLINFO=$WORK/allinfo
: >"$ALLINFO"
for e in "${SPEC[@]}"; do
    IFS='|' read -r path type when <<<"$e"
    sp=$(smbpath "$path")
    {
        printf '### allinfo "%s"\n' "$sp"
        smbc "allinfo \"$sp\""
        echo
    } >>"$ALLINFO"
done

# ------------------------------------------------------------------ truth
TRUTH=$WORK/$NAME.truth
NOTES=$WORK/notes
: >"$NOTES"
note() { log "NOTE: $*"; printf -- '- %s\n' "$*" >>"$NOTES"; }
fail=0
{
    echo "# path_hex ino kernel_crtime dosattrib_version dosattrib_create dosattrib_hex"
} >"$TRUTH"
for e in "${SPEC[@]}"; do
    IFS='|' read -r path type when <<<"$e"
    f=$MNT$path
    raw=$(getfattr --absolute-names -n user.DOSATTRIB -e hex "$f" 2>/dev/null |
          sed -n 's/^user\.DOSATTRIB=0x//p')
    [[ -n $raw ]] || die "$path: no user.DOSATTRIB xattr"
    raw=${raw,,}
    read -r ino kcr < <(stat -c '%i %.9W' "$f")
    [[ $kcr =~ ^[0-9]+\.[0-9]{9}$ ]] || die "$path: unexpected birth time '$kcr'"
    read -r ver cr < <(decode_dosattrib "$raw")
    printf '%s %s %s %s %s %s\n' "$(hexof "$path")" "$ino" "$kcr" "$ver" "$cr" "$raw" >>"$TRUTH"

    # check against what we set
    if [[ $when != - ]]; then
        want="$(date -u -d "$when" +%s).000000000"
        if [[ $cr != "$want" ]]; then
            log "MISMATCH $path: set $when ($want), DOSATTRIB has $cr"; fail=1
        fi
    else
        note "$path (no utimes): DOSATTRIB v$ver create time $cr, kernel crtime $kcr"
    fi
    # check against allinfo (whole seconds: smbclient prints no fraction)
    sp=$(smbpath "$path")
    ai=$(awk -v h="### allinfo \"$sp\"" '$0 == h {on = 1; next}
            on && /^create_time:/ {sub(/^create_time:[ \t]*/, ""); print; exit}' "$ALLINFO")
    ais=$(date -u -d "$ai" +%s) || die "$path: cannot parse allinfo create_time '$ai'"
    # smbclient rounds to the nearest second (seen: .664 printed as +1 s)
    if [[ $cr != - ]]; then
        cs=${cr%.*} cns=${cr#*.}
        if ((10#$cns >= 500000000)); then cs_round=$((cs + 1)); else cs_round=$cs; fi
    fi
    if [[ $cr != - && $ais != "$cs" && $ais != "$cs_round" ]]; then
        log "MISMATCH $path: allinfo create_time $ai ($ais) vs DOSATTRIB $cr"; fail=1
    fi
    log "$path: ino $ino kernel $kcr DOSATTRIB v$ver create $cr allinfo '$ai'"
done
((fail == 0)) || die "create times do not match (see above)"

# every xattr on the file system (also shows whether Samba stored anything
# else, or touched the share root / lost+found)
XDUMP=$WORK/xattrs
(cd "$MNT" && getfattr -R -d -m - -e hex . 2>&1) >"$XDUMP" || true
STATS=$WORK/stats
(cd "$MNT" && find . -xdev -printf '%p\n' | sort | while read -r p; do
    stat -c '%n ino=%i birth=%.9W atime=%.9X mtime=%.9Y ctime=%.9Z' "$p"; done) >"$STATS"

# ------------------------------------------------------------------ finish
stop_smbd
sync
umount "$MNT"
losetup -d "$LOOP"
LOOP=""
log "e2fsck -fn"
E2FSCK_OUT=$(e2fsck -fn "$IMG" 2>&1) || { printf '%s\n' "$E2FSCK_OUT" >&2; die "e2fsck -fn not clean"; }
DEBUGFS=$WORK/debugfs
: >"$DEBUGFS"
for e in "${SPEC[@]}"; do
    IFS='|' read -r path type when <<<"$e"
    {
        printf '### debugfs: stat / ea_list "%s"\n' "$path"
        debugfs -R "stat \"$path\"" "$IMG" 2>/dev/null | grep -E '^(Inode|File ACL|Size of extra| *crtime)' || true
        debugfs -R "ea_list \"$path\"" "$IMG" 2>/dev/null || true
        echo
    } >>"$DEBUGFS"
done
SHA=$(sha256sum <"$IMG" | cut -d' ' -f1)

INFO=$WORK/$NAME.info
{
    echo "# $NAME.info -- made by make-samba-image.sh on $BUILD_DATE"
    echo "smbd --version: $SMBD_VERSION"
    echo "smbclient --version: $SMBCLIENT_VERSION"
    echo "samba package: $(dpkg-query -W -f='${Version}' samba 2>/dev/null || echo '?')"
    echo "kernel: $KERNEL"
    echo "e2fsprogs: $E2FSPROGS"
    echo "sha256 of the decompressed image: $SHA"
    echo
    echo "## e2fsck -fn"
    printf '%s\n' "$E2FSCK_OUT"
    echo
    echo "## notes"
    cat "$NOTES"
    echo
    echo "## smb.conf (paths are the temporary build directory)"
    cat "$CONF"
    echo
    echo "## smbclient allinfo (after utimes)"
    cat "$ALLINFO"
    echo "## getfattr -R -d -m - -e hex (mounted, before unmount)"
    cat "$XDUMP"
    echo
    echo "## stat (mounted, before unmount)"
    cat "$STATS"
    echo
    echo "## debugfs (unmounted image)"
    cat "$DEBUGFS"
    echo "## dumpe2fs -h"
    dumpe2fs -h "$IMG" 2>&1
} >"$INFO"

log "xz -9e"
xz -9e -T1 -c "$IMG" >"$WORK/$NAME.img.xz"
mv "$WORK/$NAME.img.xz" "$OUT/$NAME.img.xz"
mv "$TRUTH" "$OUT/$NAME.truth"
mv "$INFO" "$OUT/$NAME.info"
log "done: $OUT/$NAME.img.xz ($(stat -c %s "$OUT/$NAME.img.xz") bytes), sha256(img) $SHA"
cat "$OUT/$NAME.truth"
