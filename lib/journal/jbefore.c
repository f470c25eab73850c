/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbefore.c --- deleted inodes as the journal last held them before
 * their deletion: of every copy of the inode in the verified
 * transactions (full inode-table blocks and fast-commit inode records),
 * the last whose links count is not zero and whose generation is the
 * one the inode has on disk now (the kernel keeps i_generation when it
 * frees an inode and draws a new one when it allocates it again: a copy
 * of an earlier file of the same number is not taken).  One pass over
 * the journal for every inode asked for; only the inode-table blocks
 * that hold one of them are read.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define OFF_LINKS      0x1a
#define OFF_GENERATION 0x64

struct want {
	blk64_t home;
	unsigned off;
	ext2_ino_t ino;
	uint32_t gen;
	size_t slot; /* its copy in the store */
	size_t trans;
	int have;
};

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned get_le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static int cmp_home(const void *x, const void *y)
{
	const struct want *a = x, *b = y;

	if (a->home != b->home)
		return a->home < b->home ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_ino(const void *x, const void *y)
{
	ext2_ino_t a = *(const ext2_ino_t *)x, b = *(const ext2_ino_t *)y;

	return a < b ? -1 : a > b;
}

/* The first wanted inode of home block blk, or NULL. */
static struct want *first_of(struct want *w, size_t n, blk64_t blk)
{
	size_t i = E4T_LOWER_BOUND(w, n, struct want, home, blk);

	return i < n && w[i].home == blk ? &w[i] : NULL;
}

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD);
}

/* A copy of w's inode (isize bytes) in transaction ti: kept when live. */
static void offer(struct want *w, uint8_t *store, unsigned isize,
		  const uint8_t *raw, size_t ti)
{
	if (!get_le16(raw + OFF_LINKS) || !get_le16(raw) ||
	    get_le32(raw + OFF_GENERATION) != w->gen)
		return;
	memcpy(store + w->slot * isize, raw, isize);
	w->trans = ti;
	w->have = 1;
}

/* The wanted inodes that can be read now, with their generation, by
 * home block; *ret NULL when none. */
static errcode_t wanted(ext2_filsys fs, const ext2_ino_t *inos, size_t n,
			struct want **ret, size_t *nret)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	unsigned ipb = fs->blocksize / isize,
		 ipg = fs->super->s_inodes_per_group;
	ext2_ino_t *sorted;
	struct want *w;
	struct ext2_inode_large *raw;
	size_t i, k = 0;

	*ret = NULL;
	*nret = 0;
	if (!n || !ipb || !ipg)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	w = calloc(n, sizeof(*w));
	raw = calloc(1, isize > sizeof(*raw) ? isize : sizeof(*raw));
	if (!sorted || !w || !raw) {
		free(sorted);
		free(w);
		free(raw);
		return ENOMEM;
	}
	memcpy(sorted, inos, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_ino);
	for (i = 0; i < n; i++) {
		ext2_ino_t ino = sorted[i];
		unsigned idx;

		if (ino == 0 || ino > fs->super->s_inodes_count ||
		    (i && sorted[i - 1] == ino))
			continue;
		/* only an inode deleted now (links 0) has a "before" */
		if (ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)raw,
					   (int)isize) ||
		    raw->i_links_count)
			continue;
		idx = (ino - 1) % ipg;
		w[k].ino = ino;
		w[k].gen = raw->i_generation;
		w[k].home =
			ext2fs_inode_table_loc(fs, (ino - 1) / ipg) + idx / ipb;
		w[k].off = (idx % ipb) * isize;
		w[k].slot = k;
		k++;
	}
	free(sorted);
	free(raw);
	if (k)
		qsort(w, k, sizeof(*w), cmp_home);
	else {
		free(w);
		w = NULL;
	}
	*ret = w;
	*nret = k;
	return 0;
}

/* The wanted inodes by number: where each is in the list by home. */
struct by_ino {
	ext2_ino_t ino;
	size_t at;
};

static int cmp_by_ino(const void *x, const void *y)
{
	const struct by_ino *a = x, *b = y;

	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

/* Fast-commit records by inode: the wanted inode of number ino. */
static struct want *find_ino(struct want *w, const struct by_ino *idx, size_t n,
			     ext2_ino_t ino)
{
	size_t i = E4T_LOWER_BOUND(idx, n, struct by_ino, ino, ino);

	return i < n && idx[i].ino == ino ? &w[idx[i].at] : NULL;
}

errcode_t e4t_journal_before_delete(struct e4t_image *img,
				    struct e4t_journal *j,
				    const ext2_ino_t *inos, size_t n,
				    e4t_jbefore_fn fn, void *priv)
{
	ext2_filsys fs = img->fs;
	unsigned isize = EXT2_INODE_SIZE(fs->super), bs = fs->blocksize;
	size_t nt = e4t_journal_count(j), nw = 0, ti, bi, i;
	struct want *w = NULL;
	struct by_ino *idx = NULL;
	uint8_t *store = NULL, *buf = NULL, *fc = NULL;
	errcode_t err;

	err = wanted(fs, inos, n, &w, &nw);
	if (err || !nw)
		return err;
	store = malloc(nw * isize);
	buf = malloc(bs);
	fc = malloc(isize);
	idx = malloc(nw * sizeof(*idx));
	if (!store || !buf || !fc || !idx) {
		err = ENOMEM;
		goto out;
	}
	for (i = 0; i < nw; i++) {
		idx[i].ino = w[i].ino;
		idx[i].at = i;
	}
	qsort(idx, nw, sizeof(*idx), cmp_by_ino);
	for (ti = 0; ti < nt; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t))
			continue;
		for (bi = 0; bi < t->nblocks; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			struct want *x = first_of(w, nw, b->fsblock);

			if (!x || (b->flags & E4T_JB_UNUSABLE))
				continue;
			err = e4t_journal_read_copy(j, b, buf);
			if (err)
				goto out;
			for (; x < w + nw && x->home == b->fsblock; x++)
				if (x->off + isize <= bs)
					offer(x, store, isize, buf + x->off,
					      ti);
		}
		for (bi = 0; bi < t->nfc_inodes; bi++) {
			const struct e4t_fc_inode *fi = &t->fc_inodes[bi];
			struct want *x = find_ino(w, idx, nw, fi->ino);
			unsigned len = fi->len < isize ? fi->len : isize;

			if (!x || len < OFF_GENERATION + 4 ||
			    (unsigned)fi->offset + len > bs)
				continue;
			err = e4t_journal_read(j, fi->jblock, 1, buf);
			if (err)
				goto out;
			memset(fc, 0, isize);
			memcpy(fc, buf + fi->offset, len);
			offer(x, store, isize, fc, ti);
		}
	}
	for (i = 0; i < nw; i++) {
		const struct want *x = &w[idx[i].at];
		struct e4t_jbefore c;

		if (!x->have)
			continue;
		c.ino = x->ino;
		c.trans = x->trans;
		c.t = e4t_journal_trans(j, x->trans);
		c.raw = store + x->slot * isize;
		c.len = isize;
		if (fn(&c, priv))
			break;
	}
out:
	free(w);
	free(idx);
	free(store);
	free(buf);
	free(fc);
	return err;
}
