#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-reuse-image.sh [OUTDIR] -- build the kernel-written ext4 test image
# ext4-reuse (inode numbers reused, renames) and its ground truth: which
# name each inode had after each step, for timeline --journal.
#
# mkfs.ext4 into a temporary file, loop-mount it, then a fixed list of
# steps, each ended by sync (one journal transaction each; commit=60 keeps
# the commit timer out of the way, noatime keeps reads from writing):
#   1  mkdir /keep/{a,b,c,d,e}; create b/target.txt b/src.txt d/doc.txt
#      e/f.txt
#   2  create a/file_a_0..4.txt          3  append to them
#   4  rm a/file_a_*                      5  create c/new_0..4.txt (they
#      take the freed inode numbers: checked with stat -c %i)
#   6  append to c/new_*                  7  rm e/f.txt
#   8  create e/f.txt again (same inode number, new generation: checked)
#   9  mkdir gone; create gone/x.txt     10  rm -r gone
#  11  create c/late_0.txt c/late_1.txt (they take the inode numbers of
#      gone and gone/x.txt: checked; x.txt's directory is gone: the
#      journal can name no earlier file in it)
#  12  append to b/src.txt b/target.txt  13  mv b/src.txt b/target.txt
#      (a rename over an existing file)
#  14  an editor's atomic save: write d/doc.txt.tmp (it takes the inode
#      number target.txt freed: checked)  15  mv d/doc.txt.tmp d/doc.txt
# The wall clock before and after each step and, after it, every name
# with its inode number and i_generation (lsattr -v) go to the truth;
# then unmount, e2fsck -fn, `e4time journal --stale` (one transaction
# a step at least, when tools/e4time is built), xz -9e.
#
# Writes into OUTDIR (default: the directory of this script):
#   ext4-reuse.img.xz  the image     ext4-reuse.truth  (format below)
#   ext4-reuse.info    kernel, e2fsprogs, dumpe2fs -h, the transactions
#
# Truth format (one record a line, fields separated by one space):
#   step N START END WHAT...   step N ran from START to END (wall clock,
#                              SEC.NNNNNNNNN, `date +%s.%N`); WHAT: the
#                              commands (step 0: the mount)
#   name N INO GEN PATH_HEX    after step N, PATH (hex of its bytes, from
#                              the filesystem root) named inode INO, whose
#                              i_generation was GEN
#
# Needs root (loop mounts). Tools: bash, coreutils, util-linux, e2fsprogs
# (mkfs.ext4, lsattr, dumpe2fs, e2fsck), xz.
set -euo pipefail
export LC_ALL=C TZ=UTC

NAME=ext4-reuse
UUID=5e4a1c00-0000-4000-8000-000000000006

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'make-reuse-image.sh: error: %s\n' "$*" >&2; exit 1; }

[[ $EUID -eq 0 ]] || die "must be run as root (needs loop mounts)"
for t in mkfs.ext4 lsattr dumpe2fs e2fsck losetup mount umount \
         mountpoint stat od xz sha256sum date find sync; do
    command -v "$t" >/dev/null || die "missing tool: $t"
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$SCRIPT_DIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

WORK=$(mktemp -d /tmp/e4time-reuse.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT"
LOOP=""
IMG=$WORK/$NAME.img
TRUTH=$WORK/$NAME.truth

cleanup() {
    local rc=$?
    set +e
    if mountpoint -q "$MNT"; then umount "$MNT" || umount -l "$MNT"; fi
    [[ -z $LOOP ]] || losetup -d "$LOOP"
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

hexpath() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

# Every name on the mounted filesystem after step $1: inode, generation.
record_names() {  # STEP
    local p rel ino gen
    while IFS= read -r -d '' p; do
        rel=${p#"$MNT"}
        [[ -n $rel ]] || rel=/
        ino=$(stat -c %i -- "$p")
        gen=$(lsattr -d -v -- "$p" 2>/dev/null | awk '{print $1}')
        [[ $gen =~ ^[0-9]+$ ]] || die "lsattr -v gave no generation for $rel"
        printf 'name %s %s %s %s\n' "$1" "$ino" "$gen" "$(hexpath "$rel")"
    done < <(find "$MNT" -xdev -print0) | sort -k5,5 >>"$TRUTH"
}

STEP=0
# step WHAT CMDS...: run the commands (bash -c, in $MNT), sync, and record.
step() {  # WHAT SCRIPT
    local start end
    STEP=$((STEP + 1))
    sleep 0.3 # the previous commit's time well before this step's start
    start=$(date +%s.%N)
    (cd "$MNT" && bash -euc "$2")
    sync
    end=$(date +%s.%N)
    log "step $STEP: $1"
    printf 'step %s %s %s %s\n' "$STEP" "$start" "$end" "$1" >>"$TRUTH"
    record_names "$STEP"
}

ino_of() { stat -c %i -- "$MNT/$1"; }
gen_of() { lsattr -d -v -- "$MNT/$1" | awk '{print $1}'; }

log "[$NAME] creating 16 MiB image"
truncate -s 16M "$IMG"
MKFS=(mkfs.ext4 -q -F -b 4096 -I 256 -O 64bit,metadata_csum -L e4treuse
      -U "$UUID" -E lazy_itable_init=0,lazy_journal_init=0)
"${MKFS[@]}" "$IMG"
LOOP=$(losetup --find --show "$IMG")
start=$(date +%s.%N)
mount -t ext4 -o noatime,commit=60 "$LOOP" "$MNT"
sync
end=$(date +%s.%N)
: >"$TRUTH"
printf 'step 0 %s %s mount -o noatime,commit=60\n' "$start" "$end" >>"$TRUTH"
record_names 0

step "mkdir -p keep/a keep/b keep/c keep/d keep/e; create keep/b/target.txt keep/b/src.txt keep/d/doc.txt keep/e/f.txt" \
    'mkdir -p keep/a keep/b keep/c keep/d keep/e
     echo target >keep/b/target.txt; echo src >keep/b/src.txt
     echo "doc v1" >keep/d/doc.txt; echo f1 >keep/e/f.txt'
step "create keep/a/file_a_0.txt .. file_a_4.txt" \
    'for i in 0 1 2 3 4; do echo "a $i" >keep/a/file_a_$i.txt; done'
step "append to keep/a/file_a_*.txt" \
    'for i in 0 1 2 3 4; do echo more >>keep/a/file_a_$i.txt; done'
for i in 0 1 2 3 4; do A_INO[i]=$(ino_of "keep/a/file_a_$i.txt"); done
step "rm keep/a/file_a_*.txt" 'rm keep/a/file_a_*.txt'
step "create keep/c/new_0.txt .. new_4.txt" \
    'for i in 0 1 2 3 4; do echo "new $i" >keep/c/new_$i.txt; done'
for i in 0 1 2 3 4; do
    [[ $(ino_of "keep/c/new_$i.txt") == "${A_INO[i]}" ]] ||
        die "keep/c/new_$i.txt did not take inode ${A_INO[i]} of file_a_$i.txt"
done
step "append to keep/c/new_*.txt" \
    'for i in 0 1 2 3 4; do echo more >>keep/c/new_$i.txt; done'
F_INO=$(ino_of keep/e/f.txt) F_GEN=$(gen_of keep/e/f.txt)
step "rm keep/e/f.txt" 'rm keep/e/f.txt'
step "create keep/e/f.txt again" 'echo f2 >keep/e/f.txt'
[[ $(ino_of keep/e/f.txt) == "$F_INO" ]] ||
    die "the new keep/e/f.txt did not take inode $F_INO"
[[ $(gen_of keep/e/f.txt) != "$F_GEN" ]] ||
    die "the new keep/e/f.txt has the old generation $F_GEN"
step "mkdir keep/gone; create keep/gone/x.txt" \
    'mkdir keep/gone; echo x >keep/gone/x.txt'
G_INO=$(ino_of keep/gone) X_INO=$(ino_of keep/gone/x.txt)
step "rm -r keep/gone" 'rm -r keep/gone'
step "create keep/c/late_0.txt keep/c/late_1.txt" \
    'echo late0 >keep/c/late_0.txt; echo late1 >keep/c/late_1.txt'
[[ $(ino_of keep/c/late_0.txt) == "$G_INO" && $(ino_of keep/c/late_1.txt) == "$X_INO" ]] ||
    die "keep/c/late_0.txt, late_1.txt did not take inodes $G_INO and $X_INO of keep/gone and keep/gone/x.txt"
step "append to keep/b/src.txt keep/b/target.txt" \
    'echo more >>keep/b/src.txt; echo more >>keep/b/target.txt'
T_INO=$(ino_of keep/b/target.txt)
step "mv keep/b/src.txt keep/b/target.txt (over the existing one)" \
    'mv keep/b/src.txt keep/b/target.txt'
step "editor save, part 1: write keep/d/doc.txt.tmp" \
    'echo "doc v2" >keep/d/doc.txt.tmp'
[[ $(ino_of keep/d/doc.txt.tmp) == "$T_INO" ]] ||
    die "keep/d/doc.txt.tmp did not take inode $T_INO of the old target.txt"
step "editor save, part 2: mv keep/d/doc.txt.tmp keep/d/doc.txt" \
    'mv keep/d/doc.txt.tmp keep/d/doc.txt'

log "umount"
umount "$MNT"
losetup -d "$LOOP"
LOOP=""
e2fsck -fn "$IMG" >"$WORK/fsck" 2>&1 || { cat "$WORK/fsck" >&2; die "e2fsck -fn reports problems"; }

# One transaction a step: `e4time journal --stale` (when built next to
# this script) lists the committed transactions; there must be one a step
# at least.
E4TIME=$SCRIPT_DIR/../tools/e4time
if [[ -x $E4TIME ]]; then
    "$E4TIME" journal --stale -f csv "$IMG" >"$WORK/journal.csv"
    ncommits=$(grep -c ',committed\|,stale,\|,live,' "$WORK/journal.csv" || true)
    log "e4time journal: $ncommits transactions"
    ((ncommits >= STEP)) || die "the journal holds $ncommits transactions, fewer than the $STEP steps"
else
    log "tools/e4time not built: the transactions are not counted"
    : >"$WORK/journal.csv"
fi

{
    printf 'kernel: %s\n' "$(uname -r)"
    printf 'e2fsprogs: %s\n' "$(mkfs.ext4 -V 2>&1 | sed -n 1p)"
    printf 'built: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'mkfs: %s\n' "${MKFS[*]}"
    printf 'inodes: file_a_0..4 / new_0..4 %s; f.txt %s; keep/gone / late_0.txt %s; keep/gone/x.txt / late_1.txt %s; old target.txt / doc.txt %s\n' \
        "${A_INO[*]}" "$F_INO" "$G_INO" "$X_INO" "$T_INO"
    printf '\n# dumpe2fs -h %s.img\n' "$NAME"
    dumpe2fs -h "$IMG" 2>&1
    printf '\n# e4time journal --stale -f csv\n'
    cat "$WORK/journal.csv"
} >"$WORK/$NAME.info"

xz -9e -c "$IMG" >"$OUT/$NAME.img.xz"
cp "$TRUTH" "$OUT/$NAME.truth"
cp "$WORK/$NAME.info" "$OUT/$NAME.info"
log "done: $OUT/$NAME.img.xz ($(stat -c %s "$OUT/$NAME.img.xz") bytes), sha256 of the image $(sha256sum <"$IMG" | cut -c1-64)"
