/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jncopies.c --- the journaled copies of the directories (jnames.c has
 * the entry points and what they give): which blocks and which
 * inode-table slots (inline_data) are whose, the copies of those the
 * journal reader verified read and parsed (jnrecs.c keeps their entries),
 * and what the directories that had a copy hold now.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jnames_int.h"

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned get_le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static int no_slack_entry(ext2_ino_t ino, const char *name, unsigned nl,
			  unsigned ft, unsigned off, void *priv)
{
	(void)ino;
	(void)name;
	(void)nl;
	(void)ft;
	(void)off;
	(void)priv;
	return 0;
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
	memset(&c->blocks[c->nblocks], 0, sizeof(*c->blocks));
	c->blocks[c->nblocks].blk = *blocknr;
	c->blocks[c->nblocks].dir = c->dir;
	c->blocks[c->nblocks].enc = c->enc;
	c->nblocks++;
	return 0;
}

int jn_cmp_dblock(const void *x, const void *y)
{
	const struct dblock *a = x, *b = y;

	if (a->blk != b->blk)
		return a->blk < b->blk ? -1 : 1;
	return a->dir < b->dir ? -1 : a->dir > b->dir;
}

static struct dblock *find_block(const struct jn_ctx *c, blk64_t blk)
{
	size_t i =
		E4T_LOWER_BOUND(c->blocks, c->nblocks, struct dblock, blk, blk);

	return i < c->nblocks && c->blocks[i].blk == blk ? &c->blocks[i] : NULL;
}

int jn_cmp_ino(const void *x, const void *y)
{
	ext2_ino_t a = *(const ext2_ino_t *)x, b = *(const ext2_ino_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_dinode(const void *x, const void *y)
{
	const struct dinode *a = x, *b = y;

	if (a->home != b->home)
		return a->home < b->home ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static struct dinode *find_inode(const struct jn_ctx *c, blk64_t blk)
{
	size_t i = E4T_LOWER_BOUND(c->inodes, c->ninodes, struct dinode, home,
				   blk);

	return i < c->ninodes && c->inodes[i].home == blk ? &c->inodes[i]
							  : NULL;
}

/* Remember where directory dir's inode lies (inline_data only). */
errcode_t jn_add_dinode(ext2_filsys fs, struct jn_ctx *c, ext2_ino_t dir,
			uint32_t gen, int enc)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	unsigned ipb = fs->blocksize / isize,
		 ipg = fs->super->s_inodes_per_group;
	unsigned idx;
	struct dinode *d;

	if (!ipb || !ipg)
		return 0;
	if (e4t_grow(&c->inodes, &c->inodes_cap, c->ninodes + 1,
		     sizeof(*c->inodes), 256))
		return ENOMEM;
	idx = (dir - 1) % ipg;
	d = &c->inodes[c->ninodes++];
	memset(d, 0, sizeof(*d));
	d->dir = dir;
	d->gen = gen;
	d->enc = enc;
	d->home = ext2fs_inode_table_loc(fs, (dir - 1) / ipg) + idx / ipb;
	d->off = (idx % ipb) * isize;
	return 0;
}

/* A journaled copy of an inline directory's inode: its entries. */
static void parse_inline_copy(ext2_filsys fs, const unsigned char *raw,
			      struct dinode *d, struct jn_ctx *c)
{
	unsigned isize = EXT2_INODE_SIZE(fs->super), xoff, xlen;
	struct e4t_slack_geom g = {
		.first_ino = 1,
		.inodes_count = fs->super->s_inodes_count,
		.filetype = ext2fs_has_feature_filetype(fs->super),
	};

	if (!LINUX_S_ISDIR(get_le16(raw)) || !get_le16(raw + 0x1a) ||
	    !(get_le32(raw + 0x20) & EXT4_INLINE_DATA_FL) ||
	    get_le32(raw + 0x64) != d->gen)
		return;
	c->dir = d->dir;
	c->enc = d->enc;
	if (c->intervals)
		jn_copy_begin(c, &d->held,
			      (uint32_t)(d - c->inodes) | JN_HELD_INODE);
	/* i_block (at 0x28): the parent's number, then entries */
	g.len = EXT4_MIN_INLINE_DATA_SIZE - EXT4_INLINE_DATA_DOTDOT_SIZE;
	e4t_slack_parse(raw + 0x28 + EXT4_INLINE_DATA_DOTDOT_SIZE, &g,
			no_slack_entry, jn_on_copy_entry, c);
	xoff = e4t_inline_data_xattr(raw, isize, &xlen);
	if (xoff && !c->err) {
		g.len = xlen;
		e4t_slack_parse(raw + xoff, &g, no_slack_entry,
				jn_on_copy_entry, c);
	}
	if (c->intervals && !c->err)
		jn_copy_end(c);
}

/* A copy of a leaf block of directory dir of generation gen (the
 * checksum in the block's tail covers both)? */
static int dead_csum_ok(ext2_filsys fs, ext2_ino_t dir, uint32_t gen,
			const unsigned char *buf)
{
	unsigned bs = fs->blocksize;
	const unsigned char *tail = buf + bs - 12;
	unsigned char w[4];
	uint32_t crc;

	if (bs < 24 || get_le32(tail) || get_le16(tail + 4) != 12 || tail[6] ||
	    tail[7] != 0xde)
		return 0;
	w[0] = (unsigned char)dir;
	w[1] = (unsigned char)(dir >> 8);
	w[2] = (unsigned char)(dir >> 16);
	w[3] = (unsigned char)(dir >> 24);
	crc = ext2fs_crc32c_le(fs->csum_seed, w, 4);
	w[0] = (unsigned char)gen;
	w[1] = (unsigned char)(gen >> 8);
	w[2] = (unsigned char)(gen >> 16);
	w[3] = (unsigned char)(gen >> 24);
	crc = ext2fs_crc32c_le(crc, w, 4);
	crc = ext2fs_crc32c_le(crc, buf, bs - 12);
	return crc == get_le32(tail + 8);
}

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD) &&
	       !(t->flags & E4T_JT_FAST_COMMIT);
}

/* The copies of the directories' blocks, parsed. */
errcode_t jn_read_copies(struct e4t_image *img, struct e4t_journal *j,
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
	/* transactions and copies are counted in 32 bits (struct jn_rec) */
	if (nt >= JN_NONE || c->nblocks >= JN_HELD_INODE ||
	    c->ninodes >= JN_HELD_INODE) {
		free(buf);
		return EOVERFLOW;
	}
	for (ti = 0; ti < nt && !err && !c->err; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t) || ti < c->min_trans)
			continue;
		for (bi = 0; bi < t->nblocks && !err && !c->err; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			struct dblock *d = find_block(c, b->fsblock);
			struct dinode *di =
				c->ninodes ? find_inode(c, b->fsblock) : NULL;

			if ((!d && !di) || (b->flags & E4T_JB_UNUSABLE))
				continue;
			err = e4t_journal_read_copy(j, b, buf);
			if (err)
				break;
			c->trans = ti;
			for (; di && di < c->inodes + c->ninodes &&
			       di->home == b->fsblock && !c->err;
			     di++)
				if (di->off + EXT2_INODE_SIZE(fs->super) <=
				    fs->blocksize)
					parse_inline_copy(fs, buf + di->off, di,
							  c);
			if (!d)
				continue;
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
				if (csum && c->dead &&
				    !dead_csum_ok(fs, d->dir, c->dead_gen, buf))
					continue;
				if (csum && !c->dead &&
				    !ext2fs_dir_block_csum_verify(
					    fs, d->dir,
					    (struct ext2_dir_entry *)buf))
					continue;
				c->dir = d->dir;
				c->enc = d->enc;
				c->trans = ti;
				if (c->intervals)
					jn_copy_begin(
						c, &d->held,
						(uint32_t)(d - c->blocks) + 1);
				e4t_slack_parse(buf, &g, no_slack_entry,
						jn_on_copy_entry, c);
				if (c->intervals && !c->err)
					jn_copy_end(c);
			}
		}
	}
	free(buf);
	return err ? err : c->err;
}

/* The directories' copies parsed into c; the directories that had a
 * copy, sorted, a 0 for one that cannot be read now (*dirs_had: free
 * it); entries the directories hold now are marked live. */
errcode_t jn_collect(struct e4t_image *img, struct e4t_journal *j,
		     const ext2_ino_t *dirs, size_t ndirs, struct jn_ctx *c,
		     ext2_ino_t **dirs_had, size_t *ndirs_had)
{
	ext2_filsys fs = img->fs;
	errcode_t err = 0;
	size_t i;

	*dirs_had = NULL;
	*ndirs_had = 0;
	/* Which blocks are whose: the directories' block maps (inline
	 * directories have none: their copies are inode copies, and with
	 * inline_data every directory may have been inline once). */
	for (i = 0; i < ndirs && !err; i++) {
		struct ext2_inode inode;

		if (ext2fs_read_inode(fs, dirs[i], &inode) ||
		    !LINUX_S_ISDIR(inode.i_mode))
			continue;
		c->enc = (inode.i_flags & EXT4_ENCRYPT_FL) != 0;
		if (ext2fs_has_feature_inline_data(fs->super)) {
			err = jn_add_dinode(fs, c, dirs[i], inode.i_generation,
					    c->enc);
			if (err)
				break;
		}
		if (inode.i_flags & EXT4_INLINE_DATA_FL)
			continue;
		c->dir = dirs[i];
		/* an unreadable block map: no names from it */
		(void)ext2fs_block_iterate3(fs, dirs[i],
					    BLOCK_FLAG_READ_ONLY |
						    BLOCK_FLAG_DATA_ONLY,
					    NULL, block_cb, c);
		err = c->err;
	}
	if (!err && c->nblocks)
		qsort(c->blocks, c->nblocks, sizeof(*c->blocks), jn_cmp_dblock);
	if (!err && c->ninodes)
		qsort(c->inodes, c->ninodes, sizeof(*c->inodes), cmp_dinode);
	if (!err)
		err = jn_read_copies(img, j, c);
	/* What the directories that had a copy hold now; a directory that
	 * cannot be read would make every name look deleted: none of its
	 * names is given. */
	if (!err && c->n) {
		ext2_ino_t *had = malloc(c->n * sizeof(*had));
		size_t ncopy = 0, nd = 0;

		if (!had)
			return ENOMEM;
		*dirs_had = had;
		/* the entries of one copy are together: their runs */
		for (i = 0; i < c->n; i++)
			if (!ncopy || had[ncopy - 1] != c->v[i].dir)
				had[ncopy++] = c->v[i].dir;
		qsort(had, ncopy, sizeof(*had), jn_cmp_ino);
		for (i = 0; i < ncopy; i++)
			if (!nd || had[nd - 1] != had[i])
				had[nd++] = had[i];
		for (i = 0; !err && i < nd; i++) {
			struct ext2_inode inode;

			if (ext2fs_read_inode(fs, had[i], &inode) ||
			    e4t_dir_scan(
				    img, had[i],
				    (inode.i_flags & EXT4_INLINE_DATA_FL) != 0,
				    jn_on_live, NULL, c))
				had[i] = 0; /* unreadable */
			err = c->err;
		}
		*ndirs_had = nd;
	}
	return err;
}
