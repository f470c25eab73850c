/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jdead.c --- what the journal held of files the disk no longer has:
 * the last copy of an inode (full inode-table blocks and fast-commit
 * inode records, in the verified transactions) up to a transaction,
 * of any generation or of a given one; and the deleted directories whose
 * first block the journal holds.  (The blocks a journaled copy of a
 * directory's inode maps: jdirmap.c.)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define OFF_LINKS      0x1a
#define OFF_GENERATION 0x64

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned get_le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD);
}

/* Where each request's inode lies: block and offset, by request. */
struct home {
	blk64_t blk;
	unsigned off;
	size_t req;
};

static int cmp_home(const void *x, const void *y)
{
	const struct home *a = x, *b = y;

	if (a->blk != b->blk)
		return a->blk < b->blk ? -1 : 1;
	return a->req < b->req ? -1 : a->req > b->req;
}

static void offer(struct e4t_jcopy_req *r, unsigned isize, const uint8_t *raw,
		  size_t ti)
{
	if (ti > r->max_trans || !get_le16(raw) || !get_le16(raw + OFF_LINKS) ||
	    (r->match_gen && get_le32(raw + OFF_GENERATION) != r->gen))
		return;
	memcpy(r->raw, raw, isize);
	if (!r->have)
		r->first = ti;
	r->trans = ti;
	r->have = 1;
}

errcode_t e4t_journal_inode_copies(struct e4t_image *img, struct e4t_journal *j,
				   struct e4t_jcopy_req *reqs, size_t n)
{
	ext2_filsys fs = img->fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super), bs = fs->blocksize;
	unsigned ipb = bs / isize, ipg = fs->super->s_inodes_per_group;
	size_t nt = e4t_journal_count(j), ti, bi, i, nh = 0;
	struct home *h, *byino;
	uint8_t *buf, *fc;
	errcode_t err = 0;

	for (i = 0; i < n; i++)
		reqs[i].have = 0;
	if (!n || !ipb || !ipg)
		return 0;
	h = calloc(n, sizeof(*h));
	byino = calloc(n, sizeof(*byino));
	buf = malloc(bs);
	fc = malloc(isize);
	if (!h || !byino || !buf || !fc || n > UINT32_MAX) {
		err = ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		ext2_ino_t ino = reqs[i].ino;
		unsigned idx;

		if (ino == 0 || ino > fs->super->s_inodes_count)
			continue;
		idx = (ino - 1) % ipg;
		h[nh].blk =
			ext2fs_inode_table_loc(fs, (ino - 1) / ipg) + idx / ipb;
		h[nh].off = (idx % ipb) * isize;
		h[nh].req = i;
		nh++;
	}
	if (nh)
		qsort(h, nh, sizeof(*h), cmp_home);
	/* by inode, for fast-commit records: req holds the inode number,
	 * off the request */
	for (i = 0; i < nh; i++) {
		byino[i].blk = 0;
		byino[i].req = reqs[h[i].req].ino;
		byino[i].off = (unsigned)h[i].req;
	}
	if (nh)
		qsort(byino, nh, sizeof(*byino), cmp_home);
	for (ti = 0; ti < nt && !err; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t))
			continue;
		for (bi = 0; bi < t->nblocks && !err; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			size_t k = E4T_LOWER_BOUND(h, nh, struct home, blk,
						   b->fsblock);

			if (k >= nh || h[k].blk != b->fsblock ||
			    (b->flags & E4T_JB_UNUSABLE))
				continue;
			err = e4t_journal_read_copy(j, b, buf);
			for (; !err && k < nh && h[k].blk == b->fsblock; k++)
				if (h[k].off + isize <= bs)
					offer(&reqs[h[k].req], isize,
					      buf + h[k].off, ti);
		}
		for (bi = 0; bi < t->nfc_inodes && !err; bi++) {
			const struct e4t_fc_inode *fi = &t->fc_inodes[bi];
			unsigned len = fi->len < isize ? fi->len : isize;
			size_t k = E4T_LOWER_BOUND(byino, nh, struct home, req,
						   fi->ino);

			if (len < OFF_GENERATION + 4 ||
			    (unsigned)fi->offset + len > bs || k >= nh ||
			    byino[k].req != fi->ino)
				continue;
			err = e4t_journal_read(j, fi->jblock, 1, buf);
			if (err)
				break;
			memset(fc, 0, isize);
			memcpy(fc, buf + fi->offset, len);
			for (; k < nh && byino[k].req == fi->ino; k++)
				offer(&reqs[byino[k].off], isize, fc, ti);
		}
	}
out:
	free(h);
	free(byino);
	free(buf);
	free(fc);
	return err;
}

struct dot {
	ext2_ino_t dir, parent;
	size_t trans;
};

static int cmp_dot(const void *x, const void *y)
{
	const struct dot *a = x, *b = y;

	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	return a->trans < b->trans ? -1 : a->trans > b->trans;
}

/* Does the block begin as a directory's first block: "." of dir, then
 * ".." (each with file type 2 under the filetype feature)? */
static ext2_ino_t dot_of(ext2_filsys fs, const uint8_t *b,
			 ext2_ino_t *parent_ret)
{
	ext2_ino_t dir = get_le32(b), parent = get_le32(b + 12);
	int ft = ext2fs_has_feature_filetype(fs->super);

	if (!dir || dir > fs->super->s_inodes_count || !parent ||
	    parent > fs->super->s_inodes_count || get_le16(b + 4) != 12 ||
	    b[6] != 1 || b[8] != '.' || get_le16(b + 16) < 12 ||
	    get_le16(b + 16) > fs->blocksize - 12 || b[18] != 2 ||
	    b[20] != '.' || b[21] != '.')
		return 0;
	if (ft && (b[7] != EXT2_FT_DIR || b[19] != EXT2_FT_DIR))
		return 0;
	*parent_ret = parent;
	return dir;
}

/* Is blk in an inode table (those copies are most of a journal)? */
static int in_itable(ext2_filsys fs, const blk64_t *starts, size_t n,
		     blk64_t blk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the last start <= blk */
		size_t mid = lo + (hi - lo) / 2;

		if (starts[mid] <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && blk < starts[lo - 1] + fs->inode_blocks_per_group;
}

static int cmp_blk(const void *x, const void *y)
{
	blk64_t a = *(const blk64_t *)x, b = *(const blk64_t *)y;

	return a < b ? -1 : a > b;
}

errcode_t e4t_journal_dot_dirs(struct e4t_image *img, struct e4t_journal *j,
			       e4t_jdot_fn fn, void *priv)
{
	ext2_filsys fs = img->fs;
	size_t nt = e4t_journal_count(j), ti, bi, i, n = 0, cap = 0;
	dgrp_t g, ng = fs->group_desc_count;
	blk64_t *it = calloc(ng ? ng : 1, sizeof(*it));
	uint8_t *buf = malloc(fs->blocksize);
	struct dot *v = NULL;
	errcode_t err = 0;

	if (!it || !buf) {
		err = ENOMEM;
		goto out;
	}
	for (g = 0; g < ng; g++)
		it[g] = ext2fs_inode_table_loc(fs, g);
	qsort(it, ng, sizeof(*it), cmp_blk);
	for (ti = 0; ti < nt && !err; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t))
			continue;
		for (bi = 0; bi < t->nblocks && !err; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			ext2_ino_t dir, parent = 0;

			if ((b->flags & E4T_JB_UNUSABLE) ||
			    in_itable(fs, it, ng, b->fsblock))
				continue;
			err = e4t_journal_read_copy(j, b, buf);
			dir = err ? 0 : dot_of(fs, buf, &parent);
			if (!dir)
				continue;
			if (e4t_grow(&v, &cap, n + 1, sizeof(*v), 64)) {
				err = ENOMEM;
				break;
			}
			v[n].dir = dir;
			v[n].parent = parent;
			v[n++].trans = ti;
		}
	}
	if (!err && n)
		qsort(v, n, sizeof(*v), cmp_dot);
	for (i = 0; !err && i < n; i++)
		if ((i + 1 == n || v[i + 1].dir != v[i].dir) &&
		    fn(v[i].dir, v[i].parent, v[i].trans, priv))
			break;
out:
	free(it);
	free(buf);
	free(v);
	return err;
}
