#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test_hash.sh --- timeline and export --hash against the kernel, and
# symlink targets through plaso and mactime.  Images are written by the
# kernel on a loop mount (extents: sparse files, unwritten and
# preallocated extents, a fragmented file with an extent index, a file of
# over 4 GiB with holes, an empty file; inline data; ext3 block maps), then
# every regular file's MD5, SHA-1 and SHA-256 from e4time must be what
# md5sum, sha1sum and sha256sum read on the mount, and every symlink's
# target (fast, slow, inline, hostile bytes) what readlink gives, as
# plaso's bodyfile parser (tests/plaso_bodyfile.py) and TSK's mactime
# read it.
. "$TOP_SRCDIR/tests/lib.sh"

suite_setup() {
	require_tools python3 mkfs.ext4 md5sum sha1sum sha256sum || return 1
	probe_mount
	MNT=$(mktemp -d "$TMP/mnt.XXXXXX")
}

suite_teardown() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
}

need_mount() {
	[ "$CAN_MOUNT" = 1 ] || skip_test "loop mounts do not work here (root and a loop device needed)"
}

# The files, written through the kernel in directory $1.
fill() {
	python3 - "$1" <<'PYEOF'
import os, sys
d = sys.argv[1]
def w(name, data, mode="wb"):
    with open(os.path.join(d, name), mode) as f:
        f.write(data)
w("empty", b"")
w("small", b"hello\n")
w("4096", os.urandom(4096))
w("odd", os.urandom(100001))
# holes: at the start, in the middle, at the end
with open(os.path.join(d, "sparse"), "wb") as f:
    f.seek(3 * 4096 + 17); f.write(b"middle" * 1000)
    f.seek(200000); f.write(b"later")
    f.truncate(400000)
# an unwritten extent inside the size, and one preallocated past it
with open(os.path.join(d, "prealloc"), "wb") as f:
    f.write(b"head")
    os.posix_fallocate(f.fileno(), 0, 65536)
    f.seek(65536); f.write(b"tail")
    f.flush()
    try:
        import fcntl
        FALLOC_FL_KEEP_SIZE = 1
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.fallocate(f.fileno(), FALLOC_FL_KEEP_SIZE,
                       ctypes.c_long(1 << 20), ctypes.c_long(1 << 20))
    except Exception:
        pass
# fragmented: every other block, so that the extents need an index block
with open(os.path.join(d, "frag"), "wb") as f:
    for i in range(0, 1200, 2):
        f.seek(i * 4096); f.write(os.urandom(4096))
# over 4 GiB, mostly holes: in one image only (hashing 4 GiB of zeros
# costs seconds, minutes in the sanitizer build)
if sys.argv[2:] == ["big"]:
    with open(os.path.join(d, "big"), "wb") as f:
        f.write(b"start")
        f.seek((4 << 30) + 12345); f.write(b"past 4 GiB")
        f.truncate((4 << 30) + 65536 + 7)
os.mkdir(os.path.join(d, "dir"))
w("dir/inner", b"inner file\n")
os.mkfifo(os.path.join(d, "fifo"))
# symlinks: fast (< 60 bytes), slow, hostile bytes in name and target
os.symlink("small", os.path.join(d, "fast-link"))
os.symlink("t/" * 50 + "end", os.path.join(d, "slow-link"))
# (not " -> " in a target: plaso splits at the last one)
os.symlink(b"a\nb|c\\x1:d\xc2\x85e", os.path.join(d.encode(), b"odd\x1blink"))
os.symlink(b"x" * 70, os.path.join(d.encode(), b"bad\xffutf8"))
PYEOF
}

# mkimg NAME MKFS-ARGS...: a kernel-written image $TMP/NAME.img.
mkimg() {
	local name=$1 img="$TMP/$1.img"
	shift
	rm -f "$img"
	truncate -s 64M "$img"
	mkfs.ext4 -q -F "$@" "$img" >/dev/null 2>&1 || { fail "mkfs $*"; return 1; }
	mount -o loop "$img" "$MNT" || { skip_test "mount $name"; return 1; }
	fill "$MNT" "$name"
	umount "$MNT"
}

# kernel_sums IMG ALG: "PATH HASH" of every regular file on the mount.
kernel_sums() {
	mount -o loop,ro,noload "$1" "$MNT" || return 1
	(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 "${2}sum") |
		awk '{ sub(/^\.\//, "", $2); print "/" $2, $1 }' | sort
	umount "$MNT"
}

# check_hashes IMG [ALG...]: e4time's hashes, each algorithm (md5, sha1
# and sha256 by default), are the kernel's.
check_hashes() {
	local img=$1 alg algs="md5 sha1 sha256"
	[ $# -gt 1 ] && algs="${*:2}"
	for alg in $algs; do
		kernel_sums "$img" "$alg" >"$TMP/kernel.$alg" || { fail "mount ro"; return; }
		run_ro "$img" timeline -f jsonl --hash "$alg" "$img"
		assertEquals "timeline --hash $alg: $(head -3 "$ERR")" 0 "$RC"
		jq -r --arg a "$alg" 'select(.type == "reg") | "\(.path) \(.[$a])"' "$OUT" |
			sort >"$TMP/e4t.$alg"
		assertEquals "$alg, $(basename "$img"): e4time vs the kernel" \
			"$(cat "$TMP/kernel.$alg")" "$(cat "$TMP/e4t.$alg")"
		assertEquals "$alg: no hash for other types" 0 \
			"$(jq -r --arg a "$alg" 'select(.type != "reg" and .[$a] != null)' "$OUT" | wc -l)"
	done
}

test_hashes_extents() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	mkimg ext4 || return
	check_hashes "$TMP/ext4.img"
}

# libcrypto with no provider of digests (OPENSSL_CONF loading only the
# "base" provider, as a FIPS-only setup refuses MD5): one line, exit 8,
# no output.
test_hash_refused_by_libcrypto() {
	local img alg n=0
	img=$(unpack ext4-4k) || { fail unpack; return; }
	cat >"$TMP/openssl.cnf" <<-'EOF'
		openssl_conf = openssl_init
		[openssl_init]
		providers = provider_sect
		[provider_sect]
		base = base_sect
		[base_sect]
		activate = 1
	EOF
	for alg in md5 sha1 sha256; do
		OPENSSL_CONF=$TMP/openssl.cnf run timeline -f csv --hash "$alg" "$img"
		assertEquals "$alg: status" 8 "$RC"
		assertEquals "$alg: no output" 0 "$(wc -c <"$OUT")"
		assertEquals "$alg: one line: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
		assertContains "$alg: says why" "$(cat "$ERR")" "libcrypto could not compute the digest"
		n=$((n + 1))
	done
	assertEquals "algorithms tried" 3 "$n"
	OPENSSL_CONF=$TMP/openssl.cnf run timeline -f csv "$img"
	assertEquals "no --hash: libcrypto not asked" 0 "$RC"
}

# A file of more than 4 GiB (holes, a write past 4 GiB), in an image of
# its own.
test_hashes_over_4gib() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	mkimg big || return
	check_hashes "$TMP/big.img" md5 sha256
	rm -f "$TMP/big.img"
}

test_hashes_inline_data() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	mkimg inline -O inline_data -I 512 || return
	check_hashes "$TMP/inline.img"
	# the small files really are inline
	debugfs -R "stat /small" "$TMP/inline.img" 2>/dev/null | grep -q "Size of inline data" ||
		fail "/small is not inline"
}

test_hashes_block_maps() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	mkimg ext3 -t ext3 || return
	check_hashes "$TMP/ext3.img"
}

# Every format with --hash carries it; bodyfile and mactime in their MD5
# column (0 where there is none), the others in a column named after it.
test_hash_in_every_format() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	[ -f "$TMP/ext4.img" ] || mkimg ext4 || return
	local img="$TMP/ext4.img" want
	want=$(md5sum <<<"hello" | cut -d' ' -f1)
	run_ro "$img" timeline -f bodyfile --hash md5 "$img"
	assertEquals "bodyfile" "$want" "$(awk -F'|' '$2 == "/small" {print $1}' "$OUT")"
	assertEquals "bodyfile: 0 for a directory" 0 "$(awk -F'|' '$2 == "/dir" {print $1}' "$OUT")"
	run_ro "$img" timeline -f mactime --hash md5 "$img"
	assertEquals "mactime" "$want" "$(awk -F'|' '$2 == "/small" {print $1}' "$OUT")"
	run_ro "$img" timeline -f csv --hash md5 "$img"
	assertEquals "csv" "$want" \
		"$(python3 -c 'import csv,sys; print([r["md5"] for r in csv.DictReader(open(sys.argv[1], encoding="latin-1")) if r["path"] == "/small"][0])' "$OUT")"
	run_ro "$img" timeline -f timesketch --hash md5 "$img"
	assertEquals "timesketch" "$want" "$(jq -r 'select(.path == "/small") | .md5' "$OUT" | sort -u)"
	run_ro "$img" timeline -f timesketch-csv --hash md5 "$img"
	assertEquals "timesketch-csv" "$want" \
		"$(python3 -c 'import csv,sys; print({r["md5"] for r in csv.DictReader(open(sys.argv[1])) if r["path"] == "/small"}.pop())' "$OUT")"
	run_ro "$img" export --hash sha256 "$img"
	assertEquals "export" "$(sha256sum <<<"hello" | cut -d' ' -f1)" \
		"$(jq -r 'select(.path == "/small") | .sha256' "$OUT")"
	# plaso reads the bodyfile's MD5
	run_ro "$img" timeline -f bodyfile --hash md5 "$img"
	python3 "$TOP_SRCDIR/tests/plaso_bodyfile.py" "$OUT" >"$TMP/plaso"
	assertEquals "plaso: no warning" "" "$(grep -v '^ROW ' "$TMP/plaso")"
	assertContains "plaso: the MD5" "$(cat "$TMP/plaso")" " $want "
}

# --hash beside the options of the other timeline work (--flags,
# --deleted, --journal, --sort): each keeps its own keys and columns.
test_hash_with_flags_deleted_journal() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	[ -f "$TMP/ext4.img" ] || mkimg ext4 || return
	local img="$TMP/ext4.img" want o
	want=$(md5sum <<<"hello" | cut -d' ' -f1)
	for o in "" "--sort mtime"; do
		# shellcheck disable=SC2086 # o is a list of options
		run_ro "$img" timeline -f jsonl --hash md5 --flags -d --journal $o "$img"
		assertEquals "jsonl $o: status" 0 "$RC"
		assertEquals "jsonl $o: md5 and flags" "$want true" \
			"$(jq -r 'select(.path == "/small" and .source == null) |
				"\(.md5) \(.flags | type == "array")"' "$OUT")"
		# shellcheck disable=SC2086
		run_ro "$img" timeline -f csv --hash md5 --flags -d $o "$img"
		assertEquals "csv $o: columns" \
			"status,md5,name_source,source,tid,commit_time,flags" \
			"$(head -n 1 "$OUT" | tr -d '\r' | cut -d, -f14-)"
	done
	run_ro "$img" export --hash sha256 "$img"
	assertEquals "export --hash" \
		"$(sha256sum <<<"hello" | cut -d' ' -f1)" \
		"$(jq -r 'select(.path == "/small") | .sha256' "$OUT")"
}

test_hash_threads_agree() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	[ -f "$TMP/ext4.img" ] || mkimg ext4 || return
	local img="$TMP/ext4.img"
	run_ro "$img" timeline -f jsonl --hash sha256 --threads 1 "$img"
	cp "$OUT" "$TMP/t1"
	run_ro "$img" timeline -f jsonl --hash sha256 --threads 2 "$img"
	assertTrue "same rows, one thread or two" "cmp -s '$TMP/t1' '$OUT'"
}

# A file with three names (hard links) is read once, and every name
# carries its hash: in one batch, and with the names in batches of their
# own (test hook: batches of 1 and 2 rows), on one thread and two.
test_hash_hard_links() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local img="$TMP/links.img" want n b t
	rm -f "$img"
	truncate -s 16M "$img"
	mkfs.ext4 -q -F "$img" >/dev/null 2>&1 || { fail "mkfs"; return; }
	mount -o loop "$img" "$MNT" || { skip_test "mount"; return; }
	mkdir "$MNT/d" "$MNT/e"
	head -c 300000 /dev/urandom >"$MNT/three"
	ln "$MNT/three" "$MNT/d/three-b"
	ln "$MNT/three" "$MNT/e/three-c"
	printf 'two\n' >"$MNT/d/two"
	ln "$MNT/d/two" "$MNT/e/two-b"
	printf 'one\n' >"$MNT/one"
	want=$(md5sum <"$MNT/three" | cut -d' ' -f1)
	n=$(find "$MNT" -type f -printf '%i\n' | sort -u | wc -l)
	umount "$MNT"
	check_hashes "$img" md5 sha256
	run_ro "$img" timeline -f jsonl --hash md5 "$img"
	assertEquals "the three names, one hash" "$want $want $want" \
		"$(jq -r 'select(.path | test("three")) | .md5' "$OUT" | xargs)"
	if [ "${E4T_TEST_HOOKS:-}" != yes ]; then
		skip_test "no test hooks (./configure --enable-test-hooks): reads not counted"
		return
	fi
	for b in 0 1 2; do
		for t in 1 2; do
			E4TIME_TEST_HASH_FILES=1 E4TIME_TEST_HASH_BATCH=$b \
				run_ro "$img" timeline -f jsonl --hash md5 --threads $t "$img"
			assertEquals "batch $b, $t threads: status" 0 "$RC"
			assertEquals "batch $b, $t threads: each inode read once" \
				"e4time: test: $n files hashed" "$(cat "$ERR")"
			assertEquals "batch $b, $t threads: the three names" \
				"$want $want $want" \
				"$(jq -r 'select(.path | test("three")) | .md5' "$OUT" | xargs)"
		done
	done
}

test_hash_usage_errors() {
	local img
	img=$(unpack ext4-4k)
	run_ro "$img" timeline --hash sha256 -f bodyfile "$img"
	assertEquals "sha256 in a bodyfile" 2 "$RC"
	assertContains "$(cat "$ERR")" "MD5 only"
	run_ro "$img" timeline --hash crc32 -f jsonl "$img"
	assertEquals "unknown algorithm" 2 "$RC"
	run_ro "$img" timeline --hash md5 -f text "$img"
	assertEquals "text" 2 "$RC"
	assertContains "$(head -n 1 "$ERR")" "text format has no column"
}

# Symlink targets, as the kernel's readlink gives them, out of plaso's
# parser (byte exact when UTF-8) and out of mactime (escaped as written).
test_symlink_targets() {
	need_mount
	[ "$E4T_SKIP_THIS" = 1 ] && return
	local n ran=0
	for n in ext4 inline ext3; do
		# (made by the tests above, or here when run alone)
		if [ ! -f "$TMP/$n.img" ]; then
			case $n in
			ext4) mkimg ext4 ;;
			inline) mkimg inline -O inline_data -I 512 ;;
			ext3) mkimg ext3 -t ext3 ;;
			esac || { fail "$n.img: not made"; continue; }
		fi
		ran=$((ran + 1))
		mount -o loop,ro,noload "$TMP/$n.img" "$MNT" || { fail "mount"; return; }
		python3 - "$MNT" >"$TMP/links" <<'PYEOF'
import os, sys
m = os.fsencode(sys.argv[1])
for dp, dns, fns in os.walk(m):
    for f in fns + dns:
        p = os.path.join(dp, f)
        if os.path.islink(p):
            print(p[len(m):].hex(), os.readlink(p).hex())
PYEOF
		umount "$MNT"
		run_ro "$TMP/$n.img" timeline -f bodyfile "$TMP/$n.img"
		python3 "$TOP_SRCDIR/tests/plaso_bodyfile.py" "$OUT" >"$TMP/plaso"
		assertEquals "$n: plaso, no warning" "" "$(grep -v '^ROW ' "$TMP/plaso")"
		python3 - "$TMP/links" "$TMP/plaso" <<'PYEOF' >"$TMP/bad"
import sys
def shown(b):
    o, i = "", 0
    while i < len(b):
        for n in (4, 3, 2, 1):
            try:
                o += b[i:i + n].decode("utf-8"); i += n; break
            except UnicodeDecodeError:
                pass
        else:
            o += "\\X%02X" % b[i]; i += 1
    return o.encode().hex()
got = {}
for l in open(sys.argv[2]):
    f = l.split()
    if f[2].startswith("l"):
        got[f[3]] = f[4]
n = 0
for l in open(sys.argv[1]):
    p, t = l.split()
    n += 1
    want = shown(bytes.fromhex(t))
    if got.get(shown(bytes.fromhex(p))) != want:
        print("%s: %s, plaso %s" % (bytes.fromhex(p), bytes.fromhex(t),
                                    got.get(shown(bytes.fromhex(p)))))
if n != 4 or len(got) != 4:
    print("%d symlinks on the mount, %d in plaso" % (n, len(got)))
PYEOF
		assertEquals "$n: targets through plaso" "" "$(cat "$TMP/bad")"
		if command -v mactime >/dev/null; then
			run_ro "$TMP/$n.img" timeline -f mactime "$TMP/$n.img"
			mactime -b "$OUT" -d -z UTC >"$TMP/mac" 2>&1
			assertTrue "$n: mactime shows the fast link's target" \
				"grep -q '\"/fast-link -> small\"' '$TMP/mac'"
			assertTrue "$n: mactime shows the hostile target, escaped" \
				"grep -qF '\"/odd\\x1blink -> a\\x0ab|c\\\\x1:d\\x85e\"' '$TMP/mac'"
		fi
	done
	assertEquals "images whose links were compared" 3 "$ran"
}

. shunit2
