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
 * An inline-data directory's entries are in its inode (i_block after the
 * parent's number, then the system.data xattr in the inode's body): every
 * journaled copy of the inode-table block that holds it is parsed the
 * same way, when the copy is of that directory (its generation now) and
 * was inline then.
 *
 * e4t_journal_entries gives every entry the copies held, live ones too,
 * with when: the first copy of its block that held it, and the first
 * later copy of the same block that did not (its removal, a rename); an
 * entry that comes back after that (the same name for the same inode
 * number: a file deleted and created again) starts a new interval.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

/* The entries a block's (or inline directory's) last copy held: indexes
 * into jn_ctx.v. */
struct pvec {
	size_t *v;
	size_t n, cap;
};

struct dblock {
	blk64_t blk;
	ext2_ino_t dir;
	int enc; /* of an encrypted directory: names are ciphertext */
	struct pvec held;
};

/* A directory's inode: where it lies, and which one it is. */
struct dinode {
	blk64_t home;
	unsigned off;
	ext2_ino_t dir;
	uint32_t gen;
	int enc;
	struct pvec held;
};

struct jn_rec {
	ext2_ino_t dir, ino;
	unsigned name_len, file_type;
	size_t name_off;
	const char *name; /* set once every name is in */
	size_t trans;	  /* the last transaction that held it */
	int live;	  /* the directory holds it now */
	size_t seq;
	uint32_t hash;
	/* e4t_journal_entries: its current interval */
	size_t first;		/* the first transaction that held it */
	size_t gone;		/* the copy without it after; SIZE_MAX */
	const struct pvec *blk; /* the block whose copy held it last */
	size_t stamp;		/* the copy that held it last (+ 1) */
};

/* An interval that ended before the entry came back. */
struct jn_closed {
	ext2_ino_t dir, ino;
	size_t name_off;
	unsigned name_len;
	size_t first, last, gone;
};

/* A slot of the hash: the record's index + 1 (0: empty) and its hash. */
struct jn_slot {
	uint32_t hash;
	uint32_t idx;
};

struct jn_ctx {
	struct jn_rec *v; /* each entry once (directory, inode, name) */
	size_t n, cap;
	struct jn_slot *tab; /* open hash of v */
	size_t tab_cap;
	char *names;
	size_t names_len, names_cap;
	ext2_ino_t dir;
	int enc; /* dir is encrypted (fscrypt): any bytes in a name */
	size_t trans;
	errcode_t err;
	struct dblock *blocks;
	size_t nblocks, blocks_cap;
	struct dinode *inodes; /* inline_data: every directory's inode */
	size_t ninodes, inodes_cap;
	uint32_t inodes_count;
	/* e4t_journal_entries: intervals */
	int intervals;
	struct pvec *held; /* of the block being parsed */
	struct pvec found; /* the entries of the copy being parsed */
	size_t copyno;	   /* copies parsed (+ 1) */
	struct jn_closed *closed;
	size_t nclosed, closed_cap;
	/* e4t_journal_dir_names: a directory that is gone */
	int dead;
	uint32_t dead_gen;
	size_t min_trans;
};

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned get_le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t rec_hash(ext2_ino_t dir, ext2_ino_t ino, const char *name,
			 unsigned nl)
{
	uint32_t h = 2166136261U ^ dir;
	unsigned i;

	h = (h * 16777619U) ^ ino;
	for (i = 0; i < nl; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619U;
	return h ^ (h >> 15);
}

/* The slot of (c->dir, ino, name) in the hash: its entry, or empty.
 * The slot holds the hash, so that a probe reads the record only when
 * the hashes agree (the records are many and far apart). */
static struct jn_slot *slot_of(const struct jn_ctx *c, ext2_ino_t ino,
			       const char *name, unsigned nl, uint32_t h)
{
	size_t mask = c->tab_cap - 1, i = h & mask;

	for (; c->tab[i].idx; i = (i + 1) & mask) {
		const struct jn_rec *r;

		if (c->tab[i].hash != h)
			continue;
		r = &c->v[c->tab[i].idx - 1];
		if (r->dir == c->dir && r->ino == ino && r->name_len == nl &&
		    !memcmp(c->names + r->name_off, name, nl))
			break;
	}
	return &c->tab[i];
}

/* Room in the hash for one entry more (at most half full). */
static int tab_room(struct jn_ctx *c)
{
	size_t cap = c->tab_cap ? c->tab_cap : 1024, i;
	struct jn_slot *tab;

	if (c->n + 1 >= UINT32_MAX)
		return ENOMEM;
	while ((c->n + 1) * 2 > cap)
		cap *= 2;
	if (cap == c->tab_cap)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return ENOMEM;
	for (i = 0; i < c->n; i++) {
		size_t k = c->v[i].hash & (cap - 1);

		while (tab[k].idx)
			k = (k + 1) & (cap - 1);
		tab[k].hash = c->v[i].hash;
		tab[k].idx = (uint32_t)(i + 1);
	}
	free(c->tab);
	c->tab = tab;
	c->tab_cap = cap;
	return 0;
}

/* e4t_journal_entries: entry i is in the copy being parsed. */
static int track(struct jn_ctx *c, size_t i)
{
	struct jn_rec *r = &c->v[i];

	if (r->stamp == c->copyno)
		return 0; /* twice in one copy (damage) */
	if (r->gone != SIZE_MAX && c->trans >= r->gone) {
		/* back after it was gone: a new interval */
		struct jn_closed *x;

		if (e4t_grow(&c->closed, &c->closed_cap, c->nclosed + 1,
			     sizeof(*c->closed), 64)) {
			c->err = ENOMEM;
			return 1;
		}
		x = &c->closed[c->nclosed++];
		x->dir = r->dir;
		x->ino = r->ino;
		x->name_off = r->name_off;
		x->name_len = r->name_len;
		x->first = r->first;
		x->last = r->trans;
		x->gone = r->gone;
		r->first = c->trans;
		r->gone = SIZE_MAX;
	}
	r->trans = c->trans;
	r->stamp = c->copyno;
	r->blk = c->held;
	if (e4t_grow(&c->found.v, &c->found.cap, c->found.n + 1,
		     sizeof(*c->found.v), 64)) {
		c->err = ENOMEM;
		return 1;
	}
	c->found.v[c->found.n++] = i;
	return 0;
}

/* Before a copy of the block whose entries are held is parsed. */
static void copy_begin(struct jn_ctx *c, struct pvec *held)
{
	c->copyno++;
	c->held = held;
	c->found.n = 0;
}

/* After it: an entry the block's copy before held and this one does not
 * (nor a copy of another block since) is gone from this transaction. */
static void copy_end(struct jn_ctx *c)
{
	struct pvec *h = c->held, t;
	size_t k;

	for (k = 0; k < h->n; k++) {
		struct jn_rec *r = &c->v[h->v[k]];

		if (r->blk == h && r->stamp != c->copyno && r->gone == SIZE_MAX)
			r->gone = c->trans;
	}
	t = *h; /* the found entries become the block's */
	*h = c->found;
	c->found = t;
	c->found.n = 0;
}

/* An entry of a copy: new, or the latest transaction of one seen. */
static int add_rec(struct jn_ctx *c, ext2_ino_t ino, const char *name,
		   unsigned nl, unsigned ft)
{
	uint32_t h = rec_hash(c->dir, ino, name, nl);
	struct jn_rec *r;
	struct jn_slot *slot;

	if (tab_room(c) ||
	    e4t_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v), 256) ||
	    e4t_grow(&c->names, &c->names_cap, c->names_len + nl, 1, 4096)) {
		c->err = ENOMEM;
		return 1;
	}
	slot = slot_of(c, ino, name, nl, h);
	if (slot->idx) {
		r = &c->v[slot->idx - 1];
		if (c->intervals)
			return track(c, slot->idx - 1);
		if (c->trans >= r->trans) { /* the latest copy's */
			r->trans = c->trans;
			r->file_type = ft;
		}
		return 0;
	}
	slot->idx = (uint32_t)(c->n + 1);
	slot->hash = h;
	r = &c->v[c->n];
	r->dir = c->dir;
	r->ino = ino;
	r->name_len = nl;
	r->file_type = ft;
	r->name_off = c->names_len;
	r->trans = c->trans;
	r->live = 0;
	r->hash = h;
	r->seq = c->n++;
	r->first = c->trans;
	r->gone = SIZE_MAX;
	r->blk = NULL;
	r->stamp = 0;
	memcpy(c->names + c->names_len, name, nl);
	c->names_len += nl;
	return c->intervals ? track(c, r->seq) : 0;
}

static int on_copy_entry(ext2_ino_t ino, const char *name, unsigned nl,
			 unsigned ft, unsigned off, void *priv)
{
	struct jn_ctx *c = priv;

	(void)off;
	if ((nl == 1 && name[0] == '.') ||
	    (nl == 2 && name[0] == '.' && name[1] == '.') ||
	    ino > c->inodes_count ||
	    (!c->enc && (memchr(name, '\0', nl) || memchr(name, '/', nl))))
		return 0;
	return add_rec(priv, ino, name, nl, ft);
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

/* A live entry: the copies' entry of the same name is not deleted. */
static int on_live(ext2_ino_t dir, ext2_ino_t ino, const char *name,
		   unsigned nl, unsigned ft, void *priv)
{
	struct jn_ctx *c = priv;
	struct jn_slot *slot;

	(void)ft;
	c->dir = dir;
	slot = slot_of(c, ino, name, nl, rec_hash(dir, ino, name, nl));
	if (slot->idx)
		c->v[slot->idx - 1].live = 1;
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

static int cmp_dblock(const void *x, const void *y)
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

/* By directory, inode and name (each is there once). */
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
	return a->seq < b->seq ? -1 : a->seq > b->seq;
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
static errcode_t add_dinode(ext2_filsys fs, struct jn_ctx *c, ext2_ino_t dir,
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
		copy_begin(c, &d->held);
	/* i_block (at 0x28): the parent's number, then entries */
	g.len = EXT4_MIN_INLINE_DATA_SIZE - EXT4_INLINE_DATA_DOTDOT_SIZE;
	e4t_slack_parse(raw + 0x28 + EXT4_INLINE_DATA_DOTDOT_SIZE, &g,
			no_slack_entry, on_copy_entry, c);
	xoff = e4t_inline_data_xattr(raw, isize, &xlen);
	if (xoff && !c->err) {
		g.len = xlen;
		e4t_slack_parse(raw + xoff, &g, no_slack_entry, on_copy_entry,
				c);
	}
	if (c->intervals && !c->err)
		copy_end(c);
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
					copy_begin(c, &d->held);
				e4t_slack_parse(buf, &g, no_slack_entry,
						on_copy_entry, c);
				if (c->intervals && !c->err)
					copy_end(c);
			}
		}
	}
	free(buf);
	return err ? err : c->err;
}

/* The directories' copies parsed into c; the directories that had a
 * copy, sorted, a 0 for one that cannot be read now (*dirs_had: free
 * it); entries the directories hold now are marked live. */
static errcode_t collect(struct e4t_image *img, struct e4t_journal *j,
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
			err = add_dinode(fs, c, dirs[i], inode.i_generation,
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
		qsort(c->blocks, c->nblocks, sizeof(*c->blocks), cmp_dblock);
	if (!err && c->ninodes)
		qsort(c->inodes, c->ninodes, sizeof(*c->inodes), cmp_dinode);
	if (!err)
		err = read_copies(img, j, c);
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
		qsort(had, ncopy, sizeof(*had), cmp_ino);
		for (i = 0; i < ncopy; i++)
			if (!nd || had[nd - 1] != had[i])
				had[nd++] = had[i];
		for (i = 0; !err && i < nd; i++) {
			struct ext2_inode inode;

			if (ext2fs_read_inode(fs, had[i], &inode) ||
			    e4t_dir_scan(
				    img, had[i],
				    (inode.i_flags & EXT4_INLINE_DATA_FL) != 0,
				    on_live, NULL, c))
				had[i] = 0; /* unreadable */
			err = c->err;
		}
		*ndirs_had = nd;
	}
	return err;
}

static void ctx_free(struct jn_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nblocks; i++)
		free(c->blocks[i].held.v);
	for (i = 0; i < c->ninodes; i++)
		free(c->inodes[i].held.v);
	free(c->found.v);
	free(c->closed);
	free(c->v);
	free(c->tab);
	free(c->names);
	free(c->blocks);
	free(c->inodes);
}

errcode_t e4t_journal_names(struct e4t_image *img, struct e4t_journal *j,
			    const ext2_ino_t *dirs, size_t ndirs,
			    e4t_jname_fn fn, void *priv)
{
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count };
	ext2_ino_t *dirs_had = NULL; /* sorted; 0: unreadable now */
	size_t ndirs_had = 0;
	errcode_t err;
	size_t i, k;

	err = collect(img, j, dirs, ndirs, &c, &dirs_had, &ndirs_had);
	/* the deleted ones, by directory, inode and name */
	for (i = 0, k = 0; !err && i < c.n; i++)
		if (!c.v[i].live && ino_in(dirs_had, ndirs_had, c.v[i].dir))
			c.v[k++] = c.v[i];
	c.n = err ? 0 : k;
	for (i = 0; i < c.n; i++)
		c.v[i].name = c.names + c.v[i].name_off;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_rec);
	for (i = 0; !err && i < c.n; i++) {
		struct e4t_jname e;
		const struct e4t_jtrans *t;

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
	ctx_free(&c);
	free(dirs_had);
	return err;
}

errcode_t e4t_journal_dir_names(struct e4t_image *img, struct e4t_journal *j,
				ext2_ino_t dir, uint32_t gen,
				const blk64_t *blocks, size_t nblocks,
				size_t min_trans, e4t_jname_fn fn, void *priv)
{
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count,
			    .dead = 1,
			    .dead_gen = gen,
			    .min_trans = min_trans };
	errcode_t err = 0;
	size_t i;

	c.dir = dir;
	/* encrypted: a deleted inode keeps its i_flags */
	if (ext2fs_has_feature_encrypt(img->fs->super)) {
		struct ext2_inode inode;

		c.enc = !ext2fs_read_inode(img->fs, dir, &inode) &&
			(inode.i_flags & EXT4_ENCRYPT_FL);
	}
	/* no blocks: an inline directory, its entries in its inode's copies */
	if (!nblocks && ext2fs_has_feature_inline_data(img->fs->super)) {
		err = add_dinode(img->fs, &c, dir, gen, c.enc);
		if (!err)
			err = read_copies(img, j, &c);
	}
	for (i = 0; i < nblocks && !err; i++) {
		if (e4t_grow(&c.blocks, &c.blocks_cap, c.nblocks + 1,
			     sizeof(*c.blocks), 64)) {
			err = ENOMEM;
			break;
		}
		memset(&c.blocks[c.nblocks], 0, sizeof(*c.blocks));
		c.blocks[c.nblocks].blk = blocks[i];
		c.blocks[c.nblocks].enc = c.enc;
		c.blocks[c.nblocks++].dir = dir;
	}
	if (!err && c.nblocks) {
		qsort(c.blocks, c.nblocks, sizeof(*c.blocks), cmp_dblock);
		err = read_copies(img, j, &c);
	}
	for (i = 0; !err && i < c.n; i++)
		c.v[i].name = c.names + c.v[i].name_off;
	if (!err && c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_rec);
	for (i = 0; !err && i < c.n; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, c.v[i].trans);
		struct e4t_jname e = {
			.dir = dir,
			.ino = c.v[i].ino,
			.name = c.v[i].name,
			.name_len = c.v[i].name_len,
			.file_type = c.v[i].file_type,
			.trans = c.v[i].trans,
			.tid = t->tid,
			.commit_sec = t->commit_sec,
			.commit_nsec = t->commit_nsec,
		};

		if (fn(&e, priv))
			break;
	}
	ctx_free(&c);
	return err;
}

errcode_t e4t_journal_entries(struct e4t_image *img, struct e4t_journal *j,
			      const ext2_ino_t *dirs, size_t ndirs,
			      e4t_jentry_fn fn, void *priv)
{
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count,
			    .intervals = 1 };
	ext2_ino_t *dirs_had = NULL;
	size_t ndirs_had = 0, i;
	errcode_t err;
	int stop = 0;

	err = collect(img, j, dirs, ndirs, &c, &dirs_had, &ndirs_had);
	for (i = 0; !err && !stop && i < c.nclosed; i++) {
		const struct jn_closed *x = &c.closed[i];
		struct e4t_jentry e = {
			.dir = x->dir,
			.ino = x->ino,
			.name = c.names + x->name_off,
			.name_len = x->name_len,
			.first = x->first,
			.last = x->last,
			.gone = x->gone,
		};

		stop = fn(&e, priv);
	}
	for (i = 0; !err && !stop && i < c.n; i++) {
		const struct jn_rec *r = &c.v[i];
		struct e4t_jentry e = {
			.dir = r->dir,
			.ino = r->ino,
			.name = c.names + r->name_off,
			.name_len = r->name_len,
			.first = r->first,
			.last = r->trans,
			.gone = r->gone,
			/* the directory holds it now: the interval is open */
			.live = r->live && ino_in(dirs_had, ndirs_had, r->dir),
		};

		if (e.live)
			e.gone = SIZE_MAX;
		stop = fn(&e, priv);
	}
	ctx_free(&c);
	free(dirs_had);
	return err;
}
