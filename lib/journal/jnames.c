/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jnames.c --- names of deleted files from the journal: every journaled
 * copy of a block of the given directories (live log and stale
 * transactions, those the journal reader verified: committed, no
 * checksum failure, the copy itself usable) is parsed; an entry one of
 * those copies held that the directory no longer holds (same inode, same
 * name) is a deleted name, with the transaction of the last copy that
 * held it.  With metadata_csum a copy must verify as a block of that
 * directory (the checksum covers the directory's inode number and
 * generation): a block that was once another directory's gives nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

struct dblock {
	blk64_t blk;
	ext2_ino_t dir;
};

struct jn_rec {
	ext2_ino_t dir, ino;
	unsigned name_len, file_type;
	size_t name_off;
	const char *name; /* set once every name is in */
	size_t trans;	  /* the last transaction that held it */
	int live;	  /* the directory holds it now */
	size_t seq;
};

struct jn_ctx {
	struct jn_rec *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	ext2_ino_t dir;
	size_t trans;
	int live;
	errcode_t err;
	struct dblock *blocks;
	size_t nblocks, blocks_cap;
	uint32_t inodes_count;
};

static int add_rec(struct jn_ctx *c, ext2_ino_t ino, const char *name,
		   unsigned nl, unsigned ft)
{
	struct jn_rec *r;

	if (e4t_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v), 256) ||
	    e4t_grow(&c->names, &c->names_cap, c->names_len + nl, 1, 4096)) {
		c->err = ENOMEM;
		return 1;
	}
	r = &c->v[c->n];
	r->dir = c->dir;
	r->ino = ino;
	r->name_len = nl;
	r->file_type = ft;
	r->name_off = c->names_len;
	r->trans = c->trans;
	r->live = c->live;
	r->seq = c->n++;
	memcpy(c->names + c->names_len, name, nl);
	c->names_len += nl;
	return 0;
}

static int on_copy_entry(ext2_ino_t ino, const char *name, unsigned nl,
			 unsigned ft, unsigned off, void *priv)
{
	struct jn_ctx *c = priv;

	(void)off;
	if ((nl == 1 && name[0] == '.') ||
	    (nl == 2 && name[0] == '.' && name[1] == '.') ||
	    ino > c->inodes_count || memchr(name, '\0', nl) ||
	    memchr(name, '/', nl))
		return 0;
	return add_rec(priv, ino, name, nl, ft);
}

static int on_live(ext2_ino_t dir, ext2_ino_t ino, const char *name,
		   unsigned nl, unsigned ft, void *priv)
{
	struct jn_ctx *c = priv;

	c->dir = dir;
	return add_rec(c, ino, name, nl, ft);
}

/* cppcheck-suppress constParameter */
/* NOLINTNEXTLINE(readability-non-const-parameter) */
static int block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		    blk64_t ref_blk, int ref_offset, void *priv)
{
	struct jn_ctx *c = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if (e4t_grow(&c->blocks, &c->blocks_cap, c->nblocks + 1,
		     sizeof(*c->blocks), 1024)) {
		c->err = ENOMEM;
		return BLOCK_ABORT;
	}
	c->blocks[c->nblocks].blk = *blocknr;
	c->blocks[c->nblocks].dir = c->dir;
	c->nblocks++;
	return 0;
}

static int cmp_dblock(const void *x, const void *y)
{
	const struct dblock *a = x, *b = y;

	if (a->blk != b->blk)
		return a->blk < b->blk ? -1 : 1;
	return a->dir < b->dir ? -1 : a->dir > b->dir;
}

static const struct dblock *find_block(const struct jn_ctx *c, blk64_t blk)
{
	size_t lo = 0, hi = c->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->blocks[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nblocks && c->blocks[lo].blk == blk ? &c->blocks[lo]
							   : NULL;
}

/* By directory, inode and name; live first, then the latest copy. */
static int cmp_rec(const void *x, const void *y)
{
	const struct jn_rec *a = x, *b = y;
	int r;

	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	r = memcmp(a->name, b->name, a->name_len);
	if (r)
		return r;
	if (a->live != b->live)
		return a->live ? -1 : 1;
	if (a->trans != b->trans)
		return a->trans > b->trans ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int same(const struct jn_rec *a, const struct jn_rec *b)
{
	return a->dir == b->dir && a->ino == b->ino &&
	       a->name_len == b->name_len &&
	       !memcmp(a->name, b->name, a->name_len);
}

static int cmp_ino(const void *x, const void *y)
{
	ext2_ino_t a = *(const ext2_ino_t *)x, b = *(const ext2_ino_t *)y;

	return a < b ? -1 : a > b;
}

/* Is dir in the sorted list (a 0 there is an unreadable one)? */
static int ino_in(const ext2_ino_t *v, size_t n, ext2_ino_t dir)
{
	return dir && bsearch(&dir, v, n, sizeof(*v), cmp_ino) != NULL;
}

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD) &&
	       !(t->flags & E4T_JT_FAST_COMMIT);
}

static int no_slack(ext2_ino_t ino, const char *name, unsigned nl, unsigned ft,
		    unsigned off, void *priv)
{
	(void)ino;
	(void)name;
	(void)nl;
	(void)ft;
	(void)off;
	(void)priv;
	return 0;
}

/* The copies of the directories' blocks, parsed. */
static errcode_t read_copies(struct e4t_image *img, struct e4t_journal *j,
			     struct jn_ctx *c)
{
	ext2_filsys fs = img->fs;
	struct e4t_slack_geom g = {
		.len = fs->blocksize,
		.first_ino = 1,
		.inodes_count = fs->super->s_inodes_count,
		.filetype = ext2fs_has_feature_filetype(fs->super),
	};
	size_t nt = e4t_journal_count(j), ti, bi;
	int csum = ext2fs_has_feature_metadata_csum(fs->super);
	unsigned char *buf = malloc(fs->blocksize);
	errcode_t err = 0;

	if (!buf)
		return ENOMEM;
	for (ti = 0; ti < nt && !err && !c->err; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t))
			continue;
		for (bi = 0; bi < t->nblocks && !err && !c->err; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			const struct dblock *d = find_block(c, b->fsblock);

			if (!d || (b->flags & E4T_JB_UNUSABLE))
				continue;
			err = e4t_journal_read_copy(j, b, buf);
			if (err)
				break;
			/* an htree index block, as the copy holds it */
			if (e4t_slack_dx_node(buf, fs->blocksize, csum))
				continue;
			/* the same block may belong to several directories
			 * (damage): every one gets the names */
			for (;
			     d < c->blocks + c->nblocks && d->blk == b->fsblock;
			     d++) {
				/* with metadata_csum, a copy from when the
				 * block was another directory's (or not a
				 * directory's) does not verify as this one's */
				if (csum &&
				    !ext2fs_dir_block_csum_verify(
					    fs, d->dir,
					    (struct ext2_dir_entry *)buf))
					continue;
				c->dir = d->dir;
				c->trans = ti;
				c->live = 0;
				e4t_slack_parse(buf, &g, no_slack,
						on_copy_entry, c);
			}
		}
	}
	free(buf);
	return err ? err : c->err;
}

errcode_t e4t_journal_names(struct e4t_image *img, struct e4t_journal *j,
			    const ext2_ino_t *dirs, size_t ndirs,
			    e4t_jname_fn fn, void *priv)
{
	ext2_filsys fs = img->fs;
	struct jn_ctx c = { .inodes_count = fs->super->s_inodes_count };
	ext2_ino_t *dirs_had = NULL; /* sorted; 0: unreadable now */
	size_t ndirs_had = 0;
	errcode_t err = 0;
	size_t i, k;

	/* Which blocks are whose: the directories' block maps (inline
	 * directories have none: their copies are inode copies). */
	for (i = 0; i < ndirs && !err; i++) {
		struct ext2_inode inode;

		if (ext2fs_read_inode(fs, dirs[i], &inode) ||
		    !LINUX_S_ISDIR(inode.i_mode) ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		c.dir = dirs[i];
		/* an unreadable block map: no names from it */
		(void)ext2fs_block_iterate3(fs, dirs[i],
					    BLOCK_FLAG_READ_ONLY |
						    BLOCK_FLAG_DATA_ONLY,
					    NULL, block_cb, &c);
		err = c.err;
	}
	if (!err && c.nblocks)
		qsort(c.blocks, c.nblocks, sizeof(*c.blocks), cmp_dblock);
	if (!err)
		err = read_copies(img, j, &c);
	/* What the directories that had a copy hold now; a directory that
	 * cannot be read would make every name look deleted: none of its
	 * names is given. */
	if (!err && c.n) {
		size_t ncopy = c.n, nd = 0;

		dirs_had = malloc(ncopy * sizeof(*dirs_had));
		if (!dirs_had)
			err = ENOMEM;
		for (i = 0; !err && i < ncopy; i++)
			dirs_had[i] = c.v[i].dir;
		if (!err)
			qsort(dirs_had, ncopy, sizeof(*dirs_had), cmp_ino);
		for (i = 0; !err && i < ncopy; i++)
			if (!nd || dirs_had[nd - 1] != dirs_had[i])
				dirs_had[nd++] = dirs_had[i];
		for (i = 0; !err && i < nd; i++) {
			struct ext2_inode inode;

			c.live = 1;
			c.trans = 0;
			if (ext2fs_read_inode(fs, dirs_had[i], &inode) ||
			    e4t_dir_scan(
				    img, dirs_had[i],
				    (inode.i_flags & EXT4_INLINE_DATA_FL) != 0,
				    on_live, NULL, &c))
				dirs_had[i] = 0; /* unreadable */
			err = c.err;
		}
		ndirs_had = nd;
	}
	for (i = 0; i < c.n; i++)
		c.v[i].name = c.names + c.v[i].name_off;
	if (!err && c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_rec);
	for (i = 0; !err && i < c.n; i = k) {
		struct e4t_jname e;
		const struct e4t_jtrans *t;

		for (k = i + 1; k < c.n && same(&c.v[i], &c.v[k]); k++)
			;
		if (c.v[i].live || !ino_in(dirs_had, ndirs_had, c.v[i].dir))
			continue;
		t = e4t_journal_trans(j, c.v[i].trans);
		e.dir = c.v[i].dir;
		e.ino = c.v[i].ino;
		e.name = c.v[i].name;
		e.name_len = c.v[i].name_len;
		e.file_type = c.v[i].file_type;
		e.trans = c.v[i].trans;
		e.tid = t->tid;
		e.commit_sec = t->commit_sec;
		e.commit_nsec = t->commit_nsec;
		if (fn(&e, priv))
			break;
	}
	free(c.v);
	free(c.names);
	free(c.blocks);
	free(dirs_had);
	return err;
}
