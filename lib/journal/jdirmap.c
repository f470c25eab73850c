/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jdirmap.c --- the blocks a journaled copy of a directory's inode maps
 * (ext4 zeroes a deleted inode's extent tree or block map: the copy from
 * before the deletion still has it).  The index blocks of an extent tree
 * and the indirect, double and triple indirect blocks of a block map are
 * read from the disk: the kernel frees them without zeroing them.  Damaged
 * input is bounded: MAX_BLOCKS blocks, MAX_MAP_READS blocks of a block
 * map read (each once), every block number within the filesystem, and no
 * block twice in the list.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define OFF_FLAGS  0x20
#define OFF_BLOCK  0x28
#define EXT_MAGIC  0xf30a
#define MAX_DEPTH  5
#define MAX_BLOCKS 65536 /* a directory of 64 Ki blocks at most */
/* indirect blocks read at most: 65536 blocks need 259 at 1 KiB blocks */
#define MAX_MAP_READS 1024

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned get_le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

struct blist {
	blk64_t *v;
	size_t n, cap;
};

/* One block of the directory (0: a hole, or one beyond the end). */
static errcode_t add_block(ext2_filsys fs, blk64_t blk, struct blist *l)
{
	if (!blk || blk >= ext2fs_blocks_count(fs->super) || l->n >= MAX_BLOCKS)
		return 0;
	if (e4t_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64))
		return ENOMEM;
	l->v[l->n++] = blk;
	return 0;
}

/* The leaves under an extent node of len bytes at p (depth levels). */
/* NOLINTNEXTLINE(misc-no-recursion): at most MAX_DEPTH deep */
static errcode_t walk_node(ext2_filsys fs, const uint8_t *p, unsigned len,
			   int depth, struct blist *l, unsigned *reads)
{
	unsigned entries, i;
	uint8_t *child = NULL;
	errcode_t err = 0;

	if (len < 12 || get_le16(p) != EXT_MAGIC ||
	    get_le16(p + 6) != (unsigned)depth || depth > MAX_DEPTH)
		return 0;
	entries = get_le16(p + 2);
	if (entries > (len - 12) / 12)
		return 0;
	for (i = 0; i < entries && !err && l->n < MAX_BLOCKS; i++) {
		const uint8_t *e = p + 12 + (size_t)12 * i;

		if (depth == 0) {
			unsigned elen = get_le16(e + 4), k;
			blk64_t start = (blk64_t)get_le16(e + 6) << 32 |
					get_le32(e + 8);

			if (elen > 32768)
				elen -= 32768; /* unwritten */
			for (k = 0; k < elen && l->n < MAX_BLOCKS && !err;
			     k++) {
				if (start + k >= ext2fs_blocks_count(fs->super))
					break;
				err = add_block(fs, start + k, l);
			}
		} else {
			blk64_t at = (blk64_t)get_le16(e + 8) << 32 |
				     get_le32(e + 4);

			/* damage: as many index blocks read as a block map */
			if (at >= ext2fs_blocks_count(fs->super) ||
			    *reads >= MAX_MAP_READS)
				continue;
			++*reads;
			if (!child && !(child = malloc(fs->blocksize)))
				return ENOMEM;
			/* an index block is not zeroed when freed: the disk's
			 */
			if (io_channel_read_blk64(fs->io, at, 1, child))
				continue;
			err = walk_node(fs, child, fs->blocksize, depth - 1, l,
					reads);
		}
	}
	free(child);
	return err;
}

/* A block map's walk: a buffer for each level of indirection, and the
 * indirect blocks read so far (each is read once). */
struct mapwalk {
	ext2_filsys fs;
	struct blist *l;
	uint8_t *buf[3];
	uint32_t read[MAX_MAP_READS];
	unsigned nread;
};

/* Read the indirect block blk for level (1: it lists blocks of the
 * directory, 2: indirect blocks, 3: double indirect ones)?  Not one out
 * of the filesystem, one read before (a cycle, or damage), nor past
 * MAX_MAP_READS or a full list. */
static int map_block_ok(struct mapwalk *w, uint32_t blk)
{
	unsigned i;

	if (!blk || blk >= ext2fs_blocks_count(w->fs->super) ||
	    w->l->n >= MAX_BLOCKS || w->nread >= MAX_MAP_READS)
		return 0;
	for (i = 0; i < w->nread; i++)
		if (w->read[i] == blk)
			return 0;
	w->read[w->nread++] = blk;
	return 1;
}

/* The blocks under the indirect block blk of the given level, in
 * logical order, as the disk holds them (a truncate zeroes the inode's
 * pointers, not the freed blocks'). */
/* NOLINTNEXTLINE(misc-no-recursion): at most 3 levels deep */
static errcode_t walk_ind(struct mapwalk *w, uint32_t blk, int level)
{
	unsigned i, per = w->fs->blocksize / 4;
	uint8_t *buf = w->buf[level - 1];
	errcode_t err = 0;

	if (!map_block_ok(w, blk) ||
	    io_channel_read_blk64(w->fs->io, blk, 1, buf))
		return 0;
	for (i = 0; i < per && !err && w->l->n < MAX_BLOCKS; i++) {
		uint32_t b = get_le32(buf + (size_t)4 * i);

		if (level == 1)
			err = add_block(w->fs, b, w->l);
		else if (b)
			err = walk_ind(w, b, level - 1);
	}
	return err;
}

/* An ext2/ext3 block map: i_block's 12 direct blocks, then those under
 * the indirect, double indirect and triple indirect blocks. */
static errcode_t walk_map(ext2_filsys fs, const uint8_t *ib, struct blist *l)
{
	static const int top[3] = { EXT2_IND_BLOCK, EXT2_DIND_BLOCK,
				    EXT2_TIND_BLOCK };
	struct mapwalk *w;
	errcode_t err = 0;
	unsigned i;

	for (i = 0; i < EXT2_NDIR_BLOCKS && !err; i++)
		err = add_block(fs, get_le32(ib + (size_t)4 * i), l);
	if (err)
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return ENOMEM;
	w->fs = fs;
	w->l = l;
	for (i = 0; i < 3; i++)
		if (!(w->buf[i] = malloc(fs->blocksize)))
			err = ENOMEM;
	for (i = 0; i < 3 && !err; i++)
		err = walk_ind(w, get_le32(ib + (size_t)4 * top[i]),
			       (int)i + 1);
	for (i = 0; i < 3; i++)
		free(w->buf[i]);
	free(w);
	return err;
}

static int cmp_blk(const void *x, const void *y)
{
	blk64_t a = *(const blk64_t *)x, b = *(const blk64_t *)y;

	return a < b ? -1 : a > b;
}

/* Keep the first of each block the list repeats (damage: two pointers to
 * one block), in order. */
static errcode_t drop_repeats(struct blist *l)
{
	blk64_t *s;
	uint8_t *taken;
	size_t i, ns = 0, m = 0;

	if (l->n < 2)
		return 0;
	s = malloc(l->n * sizeof(*s));
	taken = calloc(l->n, 1);
	if (!s || !taken) {
		free(s);
		free(taken);
		return ENOMEM;
	}
	memcpy(s, l->v, l->n * sizeof(*s));
	qsort(s, l->n, sizeof(*s), cmp_blk);
	for (i = 0; i < l->n; i++)
		if (!ns || s[ns - 1] != s[i])
			s[ns++] = s[i];
	for (i = 0; ns < l->n && i < l->n; i++) {
		size_t lo = 0, hi = ns;

		while (lo < hi) { /* the first >= l->v[i]: it is there */
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid] < l->v[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!taken[lo]) {
			taken[lo] = 1;
			l->v[m++] = l->v[i];
		}
	}
	if (ns < l->n) /* else nothing repeats: the list as it was */
		l->n = m;
	free(s);
	free(taken);
	return 0;
}

errcode_t e4t_raw_dir_blocks(struct e4t_image *img, const uint8_t *raw,
			     unsigned len, blk64_t **blocks, size_t *n)
{
	struct blist l = { 0 };
	unsigned reads = 0; /* extent index blocks read */
	uint32_t flags;
	errcode_t err = 0;

	*blocks = NULL;
	*n = 0;
	if (len < OFF_BLOCK + 60 || !LINUX_S_ISDIR(get_le16(raw)))
		return 0;
	flags = get_le32(raw + OFF_FLAGS);
	if (flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (flags & EXT4_EXTENTS_FL)
		err = walk_node(img->fs, raw + OFF_BLOCK, 60,
				(int)get_le16(raw + OFF_BLOCK + 6), &l, &reads);
	else
		err = walk_map(img->fs, raw + OFF_BLOCK, &l);
	if (!err)
		err = drop_repeats(&l);
	if (err) {
		free(l.v);
		return err;
	}
	*blocks = l.v;
	*n = l.n;
	return 0;
}
