/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_batch.c --- the batch writer (lib/write/write.c) on a real image
 * (images/ext4-4k.img.xz, unpacked into $TMPDIR): several inodes of one
 * inode-table block changed, one with a bad checksum in the middle and one
 * with an impossible time, both refused and left byte for byte as they
 * were; a window left and come back to; what libext2fs reads afterwards.
 * And the inode checksum it uses (lib/fs/csum.c) against libext2fs', on every
 * inode of every test image, then on damaged copies of them.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fs/csum_int.h"
#include "lib/e4time.h"
#include "unit.h"

/* /big-htree/f0001 .. f0006: inodes 33..38, one 4 KiB block of 16 */
#define FIRST	 33
#define BAD_CSUM 35
#define BAD_TIME 38
#define BASE_SEC 1000000000LL

static char path[PATH_MAX];

/* Byte offset of inode ino in the image. */
static off_t inode_offset(ext2_filsys fs, ext2_ino_t ino)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	dgrp_t g = (ino - 1) / ipg;

	return (off_t)ext2fs_inode_table_loc(fs, g) * fs->blocksize +
	       (off_t)((ino - 1) % ipg) * EXT2_INODE_SIZE(fs->super);
}

static int read_raw(off_t off, unsigned char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = pread(fd, buf, n, off);
	close(fd);
	return got == (ssize_t)n ? 0 : -1;
}

/* Flip the low checksum byte of the inode at off. */
static int spoil_checksum(off_t off)
{
	int fd = open(path, O_RDWR);
	unsigned char c;
	int ok;

	if (fd < 0)
		return -1;
	off += offsetof(struct ext2_inode_large, i_checksum_lo);
	ok = pread(fd, &c, 1, off) == 1;
	c ^= 0xff;
	ok = ok && pwrite(fd, &c, 1, off) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static void crtime_at(int64_t sec, uint32_t nsec, struct e4t_ts *ts)
{
	memset(ts, 0, E4T_NFIELDS * sizeof(*ts));
	ts[E4T_CRTIME].sec = sec;
	ts[E4T_CRTIME].nsec = nsec;
}

static void test_batch(void)
{
	struct e4t_write_opts wo = { .no_undo = 1 };
	struct e4t_ts ts[E4T_NFIELDS];
	struct e4t_image *img;
	struct e4t_batch *b;
	struct ext2_inode_large *raw;
	struct e4t_inode in;
	unsigned char before_csum[256], before_time[256], now[256];
	off_t off_csum, off_time;
	unsigned isz;
	errcode_t err;
	ext2_ino_t ino;

	err = e4t_image_open(path, 0, &img);
	CHECK(!err, "open: %s", error_message(err));
	if (err)
		return;
	isz = img->inode_size;
	off_csum = inode_offset(img->fs, BAD_CSUM);
	off_time = inode_offset(img->fs, BAD_TIME);
	CHECK(isz == 256 && img->fs->blocksize == 4096, "geometry %u %u", isz,
	      img->fs->blocksize);
	CHECK(off_csum / 4096 == inode_offset(img->fs, FIRST) / 4096 &&
		      off_time / 4096 == off_csum / 4096,
	      "inodes %d..%d share a block", FIRST, BAD_TIME);
	e4t_image_close(img);
	CHECK(!spoil_checksum(off_csum), "spoil checksum");
	CHECK(!read_raw(off_csum, before_csum, isz), "read");
	CHECK(!read_raw(off_time, before_time, isz), "read");

	err = e4t_image_open_write(path, 0, &wo, &img);
	CHECK(!err, "open for writing: %s", error_message(err));
	if (err)
		return;
	err = e4t_batch_begin(img, NULL, &b);
	CHECK(!err, "begin: %s", error_message(err));
	if (err) {
		e4t_image_close_write(img);
		return;
	}
	for (ino = FIRST; ino < BAD_TIME; ino++) {
		crtime_at(BASE_SEC + ino, ino, ts);
		err = e4t_batch_set(b, ino, 1U << E4T_CRTIME, ts);
		if (ino == BAD_CSUM)
			CHECK(err == E4T_ERR_INODE_CSUM, "<%u>: %s", ino,
			      error_message(err));
		else
			CHECK(!err, "<%u>: %s", ino, error_message(err));
	}
	crtime_at(BASE_SEC, E4T_NSEC_PER_SEC, ts);
	err = e4t_batch_set(b, BAD_TIME, 1U << E4T_CRTIME, ts);
	CHECK(err == E4T_ERR_NSEC_RANGE, "bad time: %s", error_message(err));
	/* The window shows what was set, before any write. */
	err = e4t_batch_inode(b, FIRST + 1, &raw);
	CHECK(!err && raw->i_crtime == BASE_SEC + FIRST + 1,
	      "window holds the change");
	/* Back to an earlier block, then again to this one: the second
	 * visit reads the first one's writes. */
	crtime_at(BASE_SEC, 5, ts);
	err = e4t_batch_set(b, EXT2_ROOT_INO, 1U << E4T_CRTIME, ts);
	CHECK(!err, "root: %s", error_message(err));
	crtime_at(BASE_SEC - 1, 7, ts);
	err = e4t_batch_set(b, FIRST + 3, 1U << E4T_CRTIME, ts);
	CHECK(!err, "second visit: %s", error_message(err));
	err = e4t_batch_inode(b, FIRST, &raw);
	CHECK(!err && raw->i_crtime == BASE_SEC + FIRST,
	      "earlier write read back");
	err = e4t_batch_end(b);
	CHECK(!err, "end: %s", error_message(err));
	CHECK(img->written == 6, "written %lu", img->written);
	err = e4t_image_close_write(img);
	CHECK(!err, "close: %s", error_message(err));

	/* What a fresh handle reads: checksums that verify, the times. */
	err = e4t_image_open(path, 0, &img);
	CHECK(!err, "reopen: %s", error_message(err));
	if (err)
		return;
	for (ino = FIRST; ino < BAD_TIME; ino++) {
		int64_t want = ino == FIRST + 3 ? BASE_SEC - 1 : BASE_SEC + ino;
		uint32_t nsec = ino == FIRST + 3 ? 7 : ino;

		if (ino == BAD_CSUM)
			continue;
		err = e4t_image_read_inode(img, ino, &in);
		CHECK(!err && !(in.flags & E4T_INO_CSUM_BAD),
		      "<%u> checksum verifies", ino);
		CHECK(in.ts[E4T_CRTIME].sec == want &&
			      in.ts[E4T_CRTIME].nsec == nsec,
		      "<%u> crtime %lld.%09u", ino,
		      (long long)in.ts[E4T_CRTIME].sec, in.ts[E4T_CRTIME].nsec);
	}
	err = e4t_image_read_inode(img, EXT2_ROOT_INO, &in);
	CHECK(!err && in.ts[E4T_CRTIME].sec == BASE_SEC &&
		      in.ts[E4T_CRTIME].nsec == 5 &&
		      !(in.flags & E4T_INO_CSUM_BAD),
	      "root crtime");
	e4t_image_close(img);
	CHECK(!read_raw(off_csum, now, isz) && !memcmp(now, before_csum, isz),
	      "bad-checksum inode left byte for byte");
	CHECK(!read_raw(off_time, now, isz) && !memcmp(now, before_time, isz),
	      "refused inode left byte for byte");
}

static void test_read_only(void)
{
	struct e4t_ts ts[E4T_NFIELDS];
	struct e4t_image *img;
	struct e4t_batch *b;
	struct ext2_inode_large *raw;
	errcode_t err;

	err = e4t_image_open(path, 0, &img);
	CHECK(!err, "open: %s", error_message(err));
	if (err)
		return;
	err = e4t_batch_begin(img, NULL, &b);
	CHECK(!err, "begin: %s", error_message(err));
	if (!err) {
		err = e4t_batch_inode(b, EXT2_ROOT_INO, &raw);
		CHECK(!err && LINUX_S_ISDIR(raw->i_mode), "root read");
		err = e4t_batch_inode(b, img->fs->super->s_inodes_count + 1,
				      &raw);
		CHECK(err == E4T_ERR_INO_RANGE, "range: %s",
		      error_message(err));
		crtime_at(BASE_SEC, 0, ts);
		err = e4t_batch_set(b, EXT2_ROOT_INO, 1U << E4T_CRTIME, ts);
		CHECK(err == EXT2_ET_RO_FILSYS, "read-only: %s",
		      error_message(err));
		CHECK(!e4t_batch_end(b), "end");
	}
	e4t_image_close(img);
}

/* Do e4time's and libext2fs' checksums agree on this inode? */
static int same_csum(ext2_filsys fs, ext2_ino_t ino,
		     const struct ext2_inode_large *raw, unsigned isz)
{
	unsigned char a[EXT2_MIN_BLOCK_SIZE * 4], b[sizeof(a)];

	if (isz > sizeof(a))
		return 0;
	memset(a, 0, sizeof(a));
	memcpy(a, raw, isz);
	memcpy(b, a, sizeof(a));
	if (e4t_inode_csum_verify(fs, ino, (struct ext2_inode_large *)a) !=
	    ext2fs_inode_csum_verify(fs, ino, (struct ext2_inode_large *)b))
		return 0;
	e4t_inode_csum_set(fs, ino, (struct ext2_inode_large *)a);
	if (ext2fs_inode_csum_set(fs, ino, (struct ext2_inode_large *)b))
		return 0;
	return !memcmp(a, b, sizeof(a)) &&
	       e4t_inode_csum_verify(fs, ino, (struct ext2_inode_large *)a);
}

static void test_csum(const char *image)
{
	static const uint16_t extra[] = { 0, 2, 4, 6, 28, 32, 96, 1000 };
	struct e4t_image *img;
	struct e4t_batch *b;
	struct ext2_inode_large *raw;
	unsigned char copy[EXT2_MIN_BLOCK_SIZE * 4];
	unsigned bad = 0, n = 0, isz, i;
	ext2_ino_t ino;
	errcode_t err;

	err = e4t_image_open(path, 0, &img);
	CHECK(!err, "%s: open: %s", image, error_message(err));
	if (err)
		return;
	isz = img->inode_size;
	err = e4t_batch_begin(img, NULL, &b);
	CHECK(!err && isz <= sizeof(copy), "%s: begin", image);
	srand(5);
	for (ino = 1; !err && ino <= img->fs->super->s_inodes_count; ino++) {
		if (e4t_batch_inode(b, ino, &raw))
			continue;
		n++;
		bad += !same_csum(img->fs, ino, raw, isz);
		if (ino % 7)
			continue;
		/* damaged: a byte anywhere, and every kind of extra_isize */
		memcpy(copy, raw, isz);
		copy[rand() % isz] ^= (unsigned char)(1 + rand() % 255);
		bad += !same_csum(img->fs, ino, (void *)copy, isz);
		/* and its last byte (where a zero tail is shifted over) */
		copy[isz - 1] ^= 0x80;
		bad += !same_csum(img->fs, ino, (void *)copy, isz);
		for (i = 0; isz > 128 && i < sizeof(extra) / sizeof(*extra);
		     i++) {
			((struct ext2_inode_large *)copy)->i_extra_isize =
				extra[i];
			bad += !same_csum(img->fs, ino, (void *)copy, isz);
		}
	}
	memset(copy, 0, sizeof(copy));
	bad += !same_csum(img->fs, 12, (void *)copy, isz);
	CHECK(n > 100 && !bad, "%s: %u of %u inodes checksummed otherwise",
	      image, bad, n);
	e4t_batch_end(b);
	e4t_image_close(img);
}

static int unpack(const char *top, const char *image)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "xz -dc '%s/images/%s.img.xz' > '%s'", top,
		 image, path);
	return system(cmd);
}

/* A fresh ext4 image with inodes of isz bytes at path. */
static int mkfs_inodes(unsigned isz)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd),
		 "mke2fs -q -F -t ext4 -I %u -N 256 '%s' 4M >/dev/null 2>&1",
		 isz, path);
	return system(cmd);
}

/* Each inode once: later names of an inode point at its first. */
static void test_duplicates(void)
{
	static const ext2_ino_t ino[] = { 12, 0, 13, 12, 12, 0, 13, 14 };
	static const long want[] = { -1, -1, -1, 0, 0, -1, 2, -1 };
	long dup[8];
	size_t i;

	CHECK(e4t_find_duplicates(ino, 8, dup) == 0, "find_duplicates");
	for (i = 0; i < 8; i++)
		CHECK(dup[i] == want[i], "dup_of[%zu] = %ld, not %ld", i,
		      dup[i], want[i]);
	CHECK(e4t_find_duplicates(ino, 0, dup) == 0, "no inodes");
}

int main(void)
{
	static const char *const images[] = { "ext4-4k", "ext4-1k-inline",
					      "ext4-128", "samba-dosattrib" };
	const char *top = getenv("TOP_SRCDIR"), *tmp = getenv("TMPDIR");
	unsigned i;

	if (!top)
		top = ".";
	if (!tmp)
		tmp = "/tmp";
	snprintf(path, sizeof(path), "%s/e4time-unit-batch.%ld.img", tmp,
		 (long)getpid());
	for (i = 0; i < sizeof(images) / sizeof(*images); i++) {
		CHECK(unpack(top, images[i]) == 0, "unpack %s", images[i]);
		test_csum(images[i]);
	}
	/* inodes of 512 and 1024 bytes (the checksum over the inode in
	 * place, in chunks of another size): fresh from mke2fs */
	for (i = 512; i <= 1024; i *= 2) {
		char name[32];

		snprintf(name, sizeof(name), "mke2fs -I %u", i);
		CHECK(mkfs_inodes(i) == 0, "%s", name);
		test_csum(name);
	}
	CHECK(unpack(top, "ext4-4k") == 0, "unpack ext4-4k");
	test_read_only();
	test_batch();
	test_duplicates();
	unlink(path);
	return unit_report("unit_batch");
}
