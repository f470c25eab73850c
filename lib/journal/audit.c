/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit.c --- what the inode-table copies in the journal say about each
 * inode: every copy compared with the one before it, each change put in
 * one class (atime only, data, metadata, created, deleted, crtime).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "fs/csum_int.h"
#include "journal/jbd2_int.h"

static const char *const change_names[E4T_NCHANGES] = {
	"created", "deleted", "crtime", "mtime", "ctime", "atime", "other",
};

static const char *const igroup_names[E4T_NIGROUPS] = {
	"atime", "mtime", "ctime", "crtime",  "dtime",	    "size",  "blocks",
	"mode",	 "xattr", "csum",  "version", "generation", "other",
};

const char *e4t_change_name(enum e4t_change c)
{
	return (unsigned)c < E4T_NCHANGES ? change_names[c] : "?";
}

const char *e4t_igroup_name(enum e4t_igroup g)
{
	return (unsigned)g < E4T_NIGROUPS ? igroup_names[g] : "?";
}

/*
 * The group of each byte of the on-disk inode up to 0xA0 (struct
 * ext2_inode_large up to i_projid); past it no field is named.
 */
#define RANGES_END 0xA0
#define G2(g)	   E4T_IG_##g, E4T_IG_##g
#define G4(g)	   G2(g), G2(g)
#define G20(g)	   G4(g), G4(g), G4(g), G4(g), G4(g)
#define G60(g)	   G20(g), G20(g), G20(g)
static const uint8_t byte_group[RANGES_END] = {
	G4(MODE),	/* 0x00 i_mode, i_uid */
	G4(SIZE),	/* 0x04 i_size_lo */
	G4(ATIME),	/* 0x08 */
	G4(CTIME),	/* 0x0C */
	G4(MTIME),	/* 0x10 */
	G4(DTIME),	/* 0x14 */
	G4(MODE),	/* 0x18 i_gid, i_links_count */
	G4(SIZE),	/* 0x1C i_blocks_lo */
	G4(MODE),	/* 0x20 i_flags */
	G4(VERSION),	/* 0x24 l_i_version */
	G60(BLOCKS),	/* 0x28 i_block */
	G4(GENERATION), /* 0x64 */
	G4(MODE),	/* 0x68 i_file_acl_lo */
	G4(SIZE),	/* 0x6C i_size_high */
	G4(OTHER),	/* 0x70 i_faddr */
	G2(SIZE),	/* 0x74 l_i_blocks_high */
	G2(MODE),	/* 0x76 l_i_file_acl_high */
	G4(MODE),	/* 0x78 l_i_uid_high, l_i_gid_high */
	G2(CSUM),	/* 0x7C l_i_checksum_lo */
	G2(OTHER),	/* 0x7E l_i_reserved */
	G2(OTHER),	/* 0x80 i_extra_isize */
	G2(CSUM),	/* 0x82 i_checksum_hi */
	G4(CTIME),	/* 0x84 i_ctime_extra */
	G4(MTIME),	/* 0x88 i_mtime_extra */
	G4(ATIME),	/* 0x8C i_atime_extra */
	G4(CRTIME),	/* 0x90 i_crtime */
	G4(CRTIME),	/* 0x94 i_crtime_extra */
	G4(VERSION),	/* 0x98 i_version_hi */
	G4(MODE),	/* 0x9C i_projid */
};

/*
 * The groups a difference in byte b puts in what: below 128 the range
 * of the byte; above, the extra fields end at extra_end (from the new
 * copy's i_extra_isize, 128 when that is unusable): i_extra_isize
 * itself is "other", a range counts when it ends by extra_end, and what
 * follows extra_end is in-inode xattr space.
 */
static inline uint32_t byte_what(unsigned b, unsigned extra_end)
{
	uint32_t m = 0;

	if (b < 128)
		return 1U << byte_group[b];
	if (b < 0x82)
		m |= 1U << E4T_IG_OTHER;
	if (b < extra_end && b < RANGES_END)
		m |= 1U << byte_group[b];
	if (b >= extra_end)
		m |= 1U << E4T_IG_XATTR;
	return m;
}

/* The groups of the differing bytes (the non-zero bytes of x, the XOR
 * of the two copies' words at byte off). */
static inline uint32_t word_what(uint64_t x, unsigned off, unsigned extra_end)
{
	uint32_t what = 0;

	while (x) {
		unsigned k = (unsigned)__builtin_ctzll(x) / 8;

		what |= byte_what(off + k, extra_end);
		x &= ~(0xFFULL << (8 * k));
	}
	return what;
}

/* d[w] = word w of a XOR word w of b, over 256 bytes; non-zero when
 * they differ. */
static uint64_t xor256(const uint8_t *a, const uint8_t *b, uint64_t *d)
{
	uint64_t acc = 0;
	unsigned w;

	for (w = 0; w < 32; w++) {
		uint64_t x, y;

		memcpy(&x, a + (size_t)8 * w, 8);
		memcpy(&y, b + (size_t)8 * w, 8);
		d[w] = x ^ y;
		acc |= d[w];
	}
	return acc;
}

void e4t_inode_compare(const uint8_t *old, const uint8_t *new,
		       unsigned inode_size, struct e4t_icopy *c)
{
	uint32_t what = 0;
	unsigned extra_end = 128, off;
	uint16_t old_links, new_links;
	int same = 1;

	if (inode_size > 128) {
		unsigned ex = jbd2_le16(new + 0x80);

		if (ex >= 4 && 128 + ex <= inode_size && !(ex & 3))
			extra_end = 128 + ex;
	}
	/* 256 bytes at a time (a loop the compiler vectorizes), then each
	 * differing byte of each differing word names its groups */
	for (off = 0; off + 256 <= inode_size; off += 256) {
		uint64_t d[32];
		unsigned w;

		if (!xor256(old + off, new + off, d))
			continue;
		same = 0;
		for (w = 0; w < 32; w++)
			if (d[w])
				what |= word_what(d[w], off + 8 * w, extra_end);
	}
	for (; off + 8 <= inode_size; off += 8) {
		uint64_t x, y;

		memcpy(&x, old + off, 8);
		memcpy(&y, new + off, 8);
		if (x != y) {
			same = 0;
			what |= word_what(x ^ y, off, extra_end);
		}
	}
	for (; off < inode_size; off++) {
		if (old[off] != new[off]) {
			same = 0;
			what |= byte_what(off, extra_end);
		}
	}
	if (same) {
		c->what = 0;
		c->same = 1;
		c->crtime_changed = 0;
		c->change = E4T_CH_OTHER;
		return;
	}

	c->what = what;
	c->same = 0;
	c->crtime_changed = !!(what & (1U << E4T_IG_CRTIME));
	old_links = jbd2_le16(old + 0x1A);
	new_links = jbd2_le16(new + 0x1A);
	c->change = E4T_CH_OTHER;
	if (old_links == 0 && new_links > 0 &&
	    (jbd2_le16(old) == 0 || jbd2_le32(old + 0x14) != 0 ||
	     memcmp(old + 0x64, new + 0x64, 4)))
		c->change = E4T_CH_CREATED;
	else if (old_links > 0 && new_links == 0)
		c->change = E4T_CH_DELETED;
	else if (c->crtime_changed)
		c->change = E4T_CH_CRTIME;
	else if (what & ((1U << E4T_IG_MTIME) | (1U << E4T_IG_SIZE) |
			 (1U << E4T_IG_BLOCKS)))
		c->change = E4T_CH_MTIME;
	else if (what & ((1U << E4T_IG_CTIME) | (1U << E4T_IG_MODE) |
			 (1U << E4T_IG_XATTR) | (1U << E4T_IG_DTIME) |
			 (1U << E4T_IG_GENERATION)))
		c->change = E4T_CH_CTIME;
	else if (what & (1U << E4T_IG_ATIME))
		c->change = E4T_CH_ATIME;
}

/* ------------------------------------------------------------------ */
/* Inode-table geometry                                                */
/* ------------------------------------------------------------------ */

struct itab {
	blk64_t start;
	dgrp_t group;
};

struct geom {
	struct itab *t;
	dgrp_t n;
	unsigned per_group_blocks;
	unsigned ipb; /* inodes per block */
	unsigned isize;
	unsigned ipg;
	ext2_ino_t ninodes;
};

static int cmp_itab(const void *a, const void *b)
{
	const struct itab *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static errcode_t geom_load(ext2_filsys fs, struct geom *g)
{
	dgrp_t i;

	g->n = fs->group_desc_count;
	g->t = calloc(g->n ? g->n : 1, sizeof(*g->t));
	if (!g->t)
		return ENOMEM;
	for (i = 0; i < g->n; i++) {
		g->t[i].start = ext2fs_inode_table_loc(fs, i);
		g->t[i].group = i;
	}
	qsort(g->t, g->n, sizeof(*g->t), cmp_itab);
	g->per_group_blocks = fs->inode_blocks_per_group;
	g->isize = EXT2_INODE_SIZE(fs->super);
	g->ipb = fs->blocksize / g->isize;
	g->ipg = fs->super->s_inodes_per_group;
	g->ninodes = fs->super->s_inodes_count;
	return 0;
}

/* First inode of fs block b if it is in an inode table, else 0. */
static ext2_ino_t geom_first_ino(const struct geom *g, blk64_t b)
{
	dgrp_t lo = 0, hi = g->n;

	while (lo < hi) {
		dgrp_t mid = lo + (hi - lo) / 2;

		if (g->t[mid].start <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	lo--;
	if (g->t[lo].start == 0 || b - g->t[lo].start >= g->per_group_blocks)
		return 0;
	return (ext2_ino_t)((uint64_t)g->t[lo].group * g->ipg +
			    (b - g->t[lo].start) * g->ipb + 1);
}

/* Home block and offset of inode ino. */
static blk64_t geom_home(ext2_filsys fs, const struct geom *g, ext2_ino_t ino,
			 unsigned *off)
{
	dgrp_t grp;
	unsigned idx;

	*off = 0;
	if (!g->ipg || !g->ipb) /* libext2fs refuses such a filesystem */
		return 0;
	grp = (ino - 1) / g->ipg;
	idx = (ino - 1) % g->ipg;

	*off = (idx % g->ipb) * g->isize;
	return ext2fs_inode_table_loc(fs, grp) + idx / g->ipb;
}

/* ------------------------------------------------------------------ */
/* Last copy of each inode-table block seen (open hash on fs block)    */
/* ------------------------------------------------------------------ */

/*
 * The copies are read where the journal lies in memory when it is mapped
 * (e4t_journal_block); data and first then point there, and into own
 * and first_own only when a copy had to be read or changed (an escaped
 * block, an unmapped journal, a fast commit's inode).
 */
struct slot {
	blk64_t block;			 /* 0: empty */
	const uint8_t *data;		 /* the last copy seen */
	const struct e4t_jtrans *data_t; /* ... in this transaction */
	const uint8_t *first;		 /* the first copy seen ... */
	size_t first_ti;		 /* ... in this transaction */
	uint32_t disk_hash;		 /* of the home block on disk ... */
	int disk_read;	    /* ... read (a block with a live copy) */
	uint8_t *own;	    /* data when it is ours */
	uint8_t *first_own; /* first when it is ours */
	int live_seen;	    /* a copy is in the live log */
	int disk_match;	    /* the home block equals some copy */
};

struct copies {
	struct slot *s;
	size_t cap, n;
};

static size_t hash64(blk64_t b, size_t cap)
{
	return (size_t)((b * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static struct slot *copies_find(struct copies *c, blk64_t b, int add)
{
	size_t i;

	if (add && (c->n + 1) * 2 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024, k;
		struct slot *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (k = 0; k < c->cap; k++) {
			if (!c->s[k].block)
				continue;
			i = hash64(c->s[k].block, ncap);
			while (ns[i].block)
				i = (i + 1) & (ncap - 1);
			ns[i] = c->s[k];
		}
		free(c->s);
		c->s = ns;
		c->cap = ncap;
	}
	if (!c->cap)
		return NULL;
	i = hash64(b, c->cap);
	while (c->s[i].block) {
		if (c->s[i].block == b)
			return &c->s[i];
		i = (i + 1) & (c->cap - 1);
	}
	if (!add)
		return NULL;
	memset(&c->s[i], 0, sizeof(c->s[i]));
	c->s[i].block = b;
	c->n++;
	return &c->s[i];
}

static void copies_free(struct copies *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++) {
		free(c->s[i].own);
		free(c->s[i].first_own);
	}
	free(c->s);
}

/* s->data made ours to change (a copy of what it was); NULL: ENOMEM. */
static uint8_t *slot_own(struct slot *s, size_t bs)
{
	if (!s->own) {
		s->own = malloc(bs ? bs : 1);
		if (!s->own)
			return NULL;
	}
	if (s->data && s->data != s->own)
		memcpy(s->own, s->data, bs);
	s->data = s->own;
	return s->own;
}

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD);
}

/* ------------------------------------------------------------------ */
/* Audit                                                               */
/* ------------------------------------------------------------------ */

struct audit_ctx {
	struct e4t_audit *a;
	uint32_t (*per_ino)[E4T_NCHANGES]; /* by ino */
	uint32_t *relatime_skip;
	ext2_ino_t ninodes;
	e4t_icopy_fn fn;
	void *priv;
	unsigned part; /* the share's index, for E4T_AUDIT_PARTS */
};

/*
 * A time of a raw inode as seconds and nanoseconds, as e4t_ts_decode()
 * gives them (the extra word when the inode has room for it; nanoseconds
 * past a second carried into the seconds), inline: the audit asks for
 * four of them for each of millions of atime updates.
 */
static inline void raw_time(const uint8_t *raw, unsigned isize,
			    unsigned base_off, unsigned extra_off,
			    struct e4t_ts *ts)
{
	int64_t sec = (int32_t)jbd2_le32(raw + base_off);
	uint32_t nsec = 0;
	unsigned ex = isize > 128 ? jbd2_le16(raw + 0x80) : 0;

	if (ex >= extra_off + 4 - 128 && 128 + ex <= isize) {
		uint32_t x = jbd2_le32(raw + extra_off);

		sec += (int64_t)(x & 3) << 32;
		nsec = x >> 2;
		if (nsec >= E4T_NSEC_PER_SEC) {
			sec += nsec / E4T_NSEC_PER_SEC;
			nsec %= E4T_NSEC_PER_SEC;
		}
	}
	ts->sec = sec;
	ts->nsec = nsec;
	ts->flags = 0;
}

static inline int ts_le(const struct e4t_ts *a, const struct e4t_ts *b)
{
	return a->sec < b->sec || (a->sec == b->sec && a->nsec <= b->nsec);
}

/* Would relatime have written this atime update?  (touch_atime's
 * relatime_need_update: atime <= mtime or <= ctime, or a day old.) */
static int relatime_needed(const uint8_t *old, const uint8_t *new,
			   unsigned isize)
{
	struct e4t_ts oa, om, oc, na;

	raw_time(old, isize, 0x08, 0x8C, &oa);
	raw_time(old, isize, 0x10, 0x88, &om);
	raw_time(old, isize, 0x0C, 0x84, &oc);
	if (ts_le(&oa, &om) || ts_le(&oa, &oc))
		return 1;
	raw_time(new, isize, 0x08, 0x8C, &na);
	return na.sec - oa.sec >= (int64_t)24 * 3600;
}

static int record(struct audit_ctx *ac, struct e4t_icopy *c, const uint8_t *old,
		  unsigned isize, struct e4t_audit_trans *at)
{
	if (!c->baseline && !c->same) {
		at->changes[c->change]++;
		ac->a->changes[c->change]++;
		ac->a->inode_updates++;
		if (c->ino >= 1 && c->ino <= ac->ninodes) {
			if (ac->per_ino) /* not E4T_AUDIT_NO_INODES */
				ac->per_ino[c->ino - 1][c->change]++;
			if (c->change == E4T_CH_ATIME &&
			    !relatime_needed(old, c->raw, isize)) {
				if (ac->relatime_skip)
					ac->relatime_skip[c->ino - 1]++;
				ac->a->relatime_would_skip++;
			}
		}
	}
	if (ac->fn && !c->same) {
		c->part = ac->part;
		return ac->fn(c, ac->priv);
	}
	return 0;
}

/*
 * One share of an audit: the inode-table blocks of every other stripe
 * of 16 blocks when there are two, all of them when one.  A share has
 * its own copies, its own handle for home blocks and its own totals;
 * the inodes of a block are only ever counted by its share.
 */
struct part {
	ext2_filsys fs;
	struct e4t_journal *j;
	const struct geom *g;
	unsigned nparts, idx;
	struct copies cp;
	struct audit_ctx ac; /* ac.a: this share's totals */
	uint8_t *other;	     /* the first share: trans with other blocks */
	uint8_t *buf, *tmp;
	uint8_t *dbuf; /* a home block, read again when needed */
	blk64_t *live; /* the blocks of this share with a live copy, sorted */
	size_t nlive;
	int stop;
	int disk_after; /* E4T_AUDIT_DISK_AFTER */
	errcode_t err;
};

static int mine(const struct part *p, blk64_t block)
{
	return p->nparts == 1 || (unsigned)((block >> 4) % p->nparts) == p->idx;
}

/*
 * The home blocks are not kept (a block per inode-table block the journal
 * holds is as much memory as the journal): a hash of each, and the block
 * read again into p->dbuf where it is compared or handed out.  A hash
 * that matches is confirmed byte for byte.
 */
static uint32_t block_hash(const uint8_t *d, size_t n)
{
	/* CRC32C with the instruction: a few hundred cycles a block */
	return e4t_crc32c(~0U, d, n);
}

/* The home block into p->dbuf; non-zero when it cannot be read. */
static errcode_t home_read(struct part *p, blk64_t block)
{
	return io_channel_read_blk64(p->fs->io, block, 1, p->dbuf);
}

static int same_as_home(struct part *p, const struct slot *s,
			const uint8_t *cur)
{
	size_t bs = p->fs->blocksize;

	return block_hash(cur, bs) == s->disk_hash && !home_read(p, s->block) &&
	       memcmp(p->dbuf, cur, bs) == 0;
}

static int cmp_blk(const void *x, const void *y)
{
	blk64_t a = *(const blk64_t *)x, b = *(const blk64_t *)y;

	return a < b ? -1 : a > b;
}

/* The inode-table blocks of this share that a live transaction holds a
 * usable copy of (the live log is the journal's newest few). */
static errcode_t live_blocks(struct part *p)
{
	struct e4t_journal *j = p->j;
	size_t nt = e4t_journal_count(j), ti, bi, cap = 0;

	for (ti = 0; ti < nt; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t) || !(t->flags & E4T_JT_LIVE))
			continue;
		for (bi = 0; bi < t->nblocks; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];

			if ((b->flags & E4T_JB_UNUSABLE) ||
			    !geom_first_ino(p->g, b->fsblock) ||
			    !mine(p, b->fsblock))
				continue;
			if (e4t_grow(&p->live, &cap, p->nlive + 1,
				     sizeof(*p->live), 64))
				return ENOMEM;
			p->live[p->nlive++] = b->fsblock;
		}
	}
	if (p->nlive)
		qsort(p->live, p->nlive, sizeof(*p->live), cmp_blk);
	return 0;
}

static int is_live_block(const struct part *p, blk64_t block)
{
	size_t lo = 0, hi = p->nlive;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->live[mid] < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nlive && p->live[lo] == block;
}

static void *audit_part(void *arg)
{
	struct part *p = arg;
	struct e4t_journal *j = p->j;
	struct e4t_audit *A = p->ac.a;
	const struct geom *g = p->g;
	size_t nt = e4t_journal_count(j), ti, bi, k;
	errcode_t err = live_blocks(p);

	for (ti = 0; ti < nt && !p->stop && !err; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);
		struct e4t_audit_trans *at = &A->trans[ti];
		if (!usable(t))
			continue;
		if (p->other)
			A->journal_blocks += t->nr_jblocks;
		for (bi = 0; bi < t->nblocks && !p->stop; bi++) {
			const struct e4t_jblock *b = &t->blocks[bi];
			ext2_ino_t first = geom_first_ino(g, b->fsblock);
			const uint8_t *cur;
			struct slot *s;
			int baseline;

			if (b->flags & E4T_JB_UNUSABLE) {
				if (p->other) /* counted by the first share */
					A->unusable_blocks++;
				continue;
			}
			if (!first) {
				if (p->other)
					p->other[ti] = 1;
				continue;
			}
			if (!mine(p, b->fsblock))
				continue;
			at->itable_blocks++;
			cur = e4t_journal_block(j, b->jblock);
			if (cur)
				e4t_journal_touched(j, 1);
			if (!cur || (b->flags & E4T_JB_ESCAPED)) {
				err = e4t_journal_read_copy(j, b, p->buf);
				if (err)
					goto out;
				cur = p->buf;
			}
			s = copies_find(&p->cp, b->fsblock, 1);
			if (!s) {
				err = ENOMEM;
				goto out;
			}
			baseline = s->data == NULL;
			if (baseline) {
				s->first = cur;
				if (cur == p->buf) {
					s->first_own = malloc(p->fs->blocksize);
					if (!s->first_own) {
						err = ENOMEM;
						goto out;
					}
					memcpy(s->first_own, p->buf,
					       p->fs->blocksize);
					s->first = s->first_own;
				}
				s->first_ti = ti;
				/* only a block with a live copy is compared
				 * with every copy (the disk baselines below);
				 * the others' home block is read at the end,
				 * where E4T_AUDIT_DISK_AFTER asks for it */
				s->disk_read = is_live_block(p, b->fsblock) &&
					       !home_read(p, b->fsblock);
				if (s->disk_read)
					s->disk_hash = block_hash(
						p->dbuf, p->fs->blocksize);
				A->baseline_blocks++;
			}
			if (t->flags & E4T_JT_LIVE)
				s->live_seen = 1;
			if (s->disk_read && !s->disk_match &&
			    same_as_home(p, s, cur))
				s->disk_match = 1;
			/* a block unchanged has no inode changed */
			if (!baseline &&
			    memcmp(s->data, cur, p->fs->blocksize) == 0)
				k = g->ipb;
			else
				k = 0;
			for (; k < g->ipb && !p->stop; k++) {
				struct e4t_icopy c;
				/* (a baseline has no copy before it) */
				const uint8_t *old =
					baseline ? NULL
						 : s->data + k * g->isize;
				const uint8_t *new = cur + k * g->isize;

				memset(&c, 0, sizeof(c));
				c.ino = first + (ext2_ino_t)k;
				c.src = E4T_SRC_JOURNAL;
				c.trans = ti;
				c.t = t;
				c.raw = new;
				c.len = g->isize;
				c.baseline = baseline;
				c.prev = old;
				c.prev_t = s->data_t;
				if (baseline)
					c.same = 0;
				else
					e4t_inode_compare(old, new, g->isize,
							  &c);
				if (baseline || !c.same)
					p->stop = record(&p->ac, &c, old,
							 g->isize, at);
			}
			s->data_t = t;
			if (cur == p->buf) {
				uint8_t *o = slot_own(s, p->fs->blocksize);

				if (!o) {
					err = ENOMEM;
					goto out;
				}
				memcpy(o, p->buf, p->fs->blocksize);
			} else {
				s->data = cur;
			}
		}
		for (bi = 0; bi < t->nfc_inodes && !p->stop; bi++) {
			const struct e4t_fc_inode *fi = &t->fc_inodes[bi];
			struct e4t_icopy c;
			unsigned off;
			blk64_t home;
			struct slot *s;

			if (fi->ino == 0 || fi->ino > g->ninodes)
				continue;
			home = geom_home(p->fs, g, fi->ino, &off);
			if (!mine(p, home))
				continue;
			err = e4t_journal_read(j, fi->jblock, 1, p->buf);
			if (err)
				goto out;
			s = copies_find(&p->cp, home, 1);
			if (!s) {
				err = ENOMEM;
				goto out;
			}
			if (!s->data) {
				/* no full copy of its block yet: start from
				 * the home block, this record is a baseline */
				uint8_t *o = slot_own(s, p->fs->blocksize);

				if (!o) {
					err = ENOMEM;
					goto out;
				}
				if (io_channel_read_blk64(p->fs->io, home, 1,
							  o))
					memset(o, 0, p->fs->blocksize);
				memcpy(o + off, p->buf + fi->offset,
				       fi->len < g->isize ? fi->len : g->isize);
				memset(&c, 0, sizeof(c));
				c.ino = fi->ino;
				c.src = E4T_SRC_FAST_COMMIT;
				c.trans = ti;
				c.t = t;
				c.len = fi->len;
				c.raw = s->data + off;
				c.baseline = 1;
				p->stop = record(&p->ac, &c, s->data + off,
						 g->isize, at);
				continue;
			}
			memset(&c, 0, sizeof(c));
			c.ino = fi->ino;
			c.src = E4T_SRC_FAST_COMMIT;
			c.trans = ti;
			c.t = t;
			c.len = fi->len;
			if (s && s->data)
				memcpy(p->tmp, s->data + off, g->isize);
			else
				memset(p->tmp, 0, g->isize);
			{
				uint8_t *nw = malloc(g->isize);

				if (!nw) {
					err = ENOMEM;
					goto out;
				}
				memcpy(nw, p->tmp, g->isize);
				memcpy(nw, p->buf + fi->offset,
				       fi->len < g->isize ? fi->len : g->isize);
				c.raw = nw;
				c.baseline = !(s && s->data);
				c.prev = c.baseline ? NULL : p->tmp;
				c.prev_t = c.baseline ? NULL : s->data_t;
				if (!c.baseline)
					e4t_inode_compare(p->tmp, nw, g->isize,
							  &c);
				p->stop = record(&p->ac, &c, p->tmp, g->isize,
						 at);
				if (s && s->data) {
					uint8_t *o =
						slot_own(s, p->fs->blocksize);

					if (!o) {
						free(nw);
						err = ENOMEM;
						goto out;
					}
					memcpy(o + off, nw, g->isize);
					s->data_t = t;
				}
				free(nw);
			}
		}
	}
	/*
	 * A home block that differs from every copy of it in the journal,
	 * when some copy is live (not yet checkpointed), is older than all
	 * of them: the first copy is then compared with it.
	 */
	for (bi = 0; bi < p->cp.cap && !p->stop; bi++) {
		struct slot *s = &p->cp.s[bi];
		ext2_ino_t first;

		if (!s->block || !s->disk_read || !s->first || s->disk_match ||
		    !s->live_seen || home_read(p, s->block))
			continue;
		first = geom_first_ino(g, s->block);
		e4t_journal_touched(j, 1); /* s->first, if in the journal */
		A->disk_baselines++;
		A->baseline_blocks--;
		for (k = 0; k < g->ipb && !p->stop; k++) {
			struct e4t_icopy c;
			const uint8_t *old = p->dbuf + k * g->isize;

			memset(&c, 0, sizeof(c));
			c.ino = first + (ext2_ino_t)k;
			c.src = E4T_SRC_JOURNAL;
			c.trans = s->first_ti;
			c.t = e4t_journal_trans(j, s->first_ti);
			c.raw = s->first + k * g->isize;
			c.len = g->isize;
			c.prev = old;
			c.prev_t = NULL;
			e4t_inode_compare(old, c.raw, g->isize, &c);
			if (!c.same)
				p->stop = record(&p->ac, &c, old, g->isize,
						 &A->trans[s->first_ti]);
		}
	}
	/*
	 * E4T_AUDIT_DISK_AFTER: a home block that no live copy follows is
	 * at least as new as its last copy; where they differ, each inode
	 * that changed is handed out (not counted), the last copy before
	 * the disk's.
	 */
	for (bi = 0; bi < p->cp.cap && p->disk_after && !p->stop; bi++) {
		struct slot *s = &p->cp.s[bi];
		ext2_ino_t first;

		if (!s->block || !s->data || s->live_seen ||
		    home_read(p, s->block))
			continue;
		e4t_journal_touched(j, 1); /* s->data, if in the journal */
		if (!memcmp(s->data, p->dbuf, p->fs->blocksize))
			continue;
		first = geom_first_ino(g, s->block);
		for (k = 0; k < g->ipb && !p->stop; k++) {
			struct e4t_icopy c;

			memset(&c, 0, sizeof(c));
			c.ino = first + (ext2_ino_t)k;
			c.src = E4T_SRC_DISK;
			c.raw = p->dbuf + k * g->isize;
			c.len = g->isize;
			c.prev = s->data + k * g->isize;
			c.prev_t = s->data_t;
			e4t_inode_compare(c.prev, c.raw, g->isize, &c);
			c.part = p->ac.part;
			if (!c.same)
				p->stop = p->ac.fn(&c, p->ac.priv);
		}
	}
out:
	p->err = err;
	return NULL;
}

/* A second share's totals into the first's. */
static void merge(struct e4t_audit *a, const struct e4t_audit *b)
{
	size_t ti, k;

	for (ti = 0; ti < a->ntrans; ti++) {
		a->trans[ti].itable_blocks += b->trans[ti].itable_blocks;
		for (k = 0; k < E4T_NCHANGES; k++)
			a->trans[ti].changes[k] += b->trans[ti].changes[k];
	}
	for (k = 0; k < E4T_NCHANGES; k++)
		a->changes[k] += b->changes[k];
	a->inode_updates += b->inode_updates;
	a->relatime_would_skip += b->relatime_would_skip;
	a->baseline_blocks += b->baseline_blocks;
	a->disk_baselines += b->disk_baselines;
}

static void part_free(struct part *p)
{
	copies_free(&p->cp);
	free(p->buf);
	free(p->tmp);
	free(p->dbuf);
	free(p->live);
}

errcode_t e4t_audit_run(struct e4t_image *img, struct e4t_journal *j,
			e4t_icopy_fn fn, void *priv, struct e4t_audit **ret)
{
	return e4t_audit_run_flags(img, j, fn, priv, 0, ret);
}

errcode_t e4t_audit_run_flags(struct e4t_image *img, struct e4t_journal *j,
			      e4t_icopy_fn fn, void *priv, unsigned flags,
			      struct e4t_audit **ret)
{
	ext2_filsys fs = img->fs;
	const struct e4t_jinfo *in = e4t_journal_info(j);
	size_t nt = e4t_journal_count(j), ti, k;
	struct part parts[2];
	struct audit_ctx ac;
	struct e4t_audit *a, *a2 = NULL;
	struct geom g;
	uint8_t *other = NULL;
	pthread_t worker;
	int threaded = 0;
	errcode_t err;

	*ret = NULL;
	if (in->blocksize != fs->blocksize)
		return E4T_ERR_JOURNAL_SB;
	err = geom_load(fs, &g);
	if (err)
		return err;
	memset(parts, 0, sizeof(parts));
	a = calloc(1, sizeof(*a));
	memset(&ac, 0, sizeof(ac));
	other = calloc(nt ? nt : 1, 1);
	if (a) {
		a->ntrans = nt;
		a->trans = calloc(nt ? nt : 1, sizeof(*a->trans));
	}
	if (a && a->trans && !(flags & E4T_AUDIT_NO_INODES)) {
		ac.per_ino = calloc(g.ninodes, sizeof(*ac.per_ino));
		if (ac.per_ino)
			ac.relatime_skip = calloc(g.ninodes, sizeof(uint32_t));
	}
	if (!a || !a->trans || !other ||
	    (!(flags & E4T_AUDIT_NO_INODES) && !ac.relatime_skip)) {
		err = ENOMEM;
		goto fail;
	}
	ac.a = a;
	ac.ninodes = g.ninodes;
	ac.fn = fn;
	ac.priv = priv;
	for (k = 0; k < 2; k++) {
		parts[k].j = j;
		parts[k].g = &g;
		parts[k].ac = ac;
		parts[k].idx = (unsigned)k;
		parts[k].ac.part = (unsigned)k;
		parts[k].nparts = 1;
		parts[k].disk_after = fn && (flags & E4T_AUDIT_DISK_AFTER);
		parts[k].buf = malloc(fs->blocksize);
		parts[k].tmp = malloc(g.isize);
		parts[k].dbuf = malloc(fs->blocksize);
		if (!parts[k].buf || !parts[k].tmp || !parts[k].dbuf) {
			err = ENOMEM;
			goto fail;
		}
	}
	parts[0].fs = fs;
	parts[0].other = other;

	/*
	 * Two shares on two threads when the journal is in memory (nothing
	 * then reads through the journal's handle) and no callback wants
	 * all the copies in one order; the second reads home blocks through a
	 * handle of its own.  E4T_AUDIT_PARTS: the callback keeps the
	 * shares apart (an inode's copies are all of one share, in order).
	 */
	if ((!fn || (flags & E4T_AUDIT_PARTS)) &&
	    e4t_journal_block(j, in->first) &&
	    sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		a2 = calloc(1, sizeof(*a2));
		if (a2) {
			a2->ntrans = nt;
			a2->trans = calloc(nt ? nt : 1, sizeof(*a2->trans));
		}
		if (!a2 || !a2->trans) {
			err = ENOMEM;
			goto fail;
		}
		parts[1].ac.a = a2;
		if (!e4t_image_reopen(img, &parts[1].fs)) {
			parts[0].nparts = parts[1].nparts = 2;
			threaded = !pthread_create(&worker, NULL, audit_part,
						   &parts[1]);
			if (!threaded) {
				ext2fs_close_free(&parts[1].fs);
				parts[0].nparts = 1;
			}
		}
	}
	audit_part(&parts[0]);
	if (threaded) {
		pthread_join(worker, NULL);
		ext2fs_close_free(&parts[1].fs);
		merge(a, a2);
	}
	err = parts[0].err ? parts[0].err : parts[1].err;
	if (err)
		goto fail;
	for (ti = 0; ti < nt; ti++) {
		struct e4t_audit_trans *at = &a->trans[ti];

		if (!other[ti] && at->changes[E4T_CH_ATIME]) {
			int only = 1;

			for (k = 0; k < E4T_NCHANGES; k++)
				if (k != E4T_CH_ATIME && at->changes[k])
					only = 0;
			if (only) {
				at->atime_only = 1;
				a->atime_only_transactions++;
				a->atime_only_blocks +=
					e4t_journal_trans(j, ti)->nr_jblocks;
			}
		}
	}
	/* per-inode results, for the inodes that changed */
	if (!ac.per_ino) {
		a->inodes = calloc(1, sizeof(*a->inodes));
		if (!a->inodes) {
			err = ENOMEM;
			goto fail;
		}
	} else {
		size_t n = 0, i;

		for (i = 0; i < g.ninodes; i++)
			for (k = 0; k < E4T_NCHANGES; k++)
				if (ac.per_ino[i][k]) {
					n++;
					break;
				}
		a->inodes = calloc(n ? n : 1, sizeof(*a->inodes));
		if (!a->inodes) {
			err = ENOMEM;
			goto fail;
		}
		for (i = 0; i < g.ninodes; i++) {
			struct e4t_audit_inode *ai;
			int any = 0;

			for (k = 0; k < E4T_NCHANGES; k++)
				any |= ac.per_ino[i][k] != 0;
			if (!any)
				continue;
			ai = &a->inodes[a->ninodes++];
			ai->ino = (ext2_ino_t)(i + 1);
			memcpy(ai->changes, ac.per_ino[i], sizeof(ai->changes));
			ai->relatime_would_skip = ac.relatime_skip[i];
		}
	}
	*ret = a;
	a = NULL; /* the caller's now */
	err = 0;
fail:
	free(ac.per_ino);
	free(ac.relatime_skip);
	part_free(&parts[0]);
	part_free(&parts[1]);
	e4t_audit_free(a2);
	free(g.t);
	free(other);
	e4t_audit_free(a);
	return err;
}

void e4t_audit_free(struct e4t_audit *a)
{
	if (!a)
		return;
	free(a->trans);
	free(a->inodes);
	free(a);
}

/* ------------------------------------------------------------------ */
/* History of one inode */
/* ------------------------------------------------------------------ */

errcode_t e4t_inode_history(struct e4t_image *img, struct e4t_journal *j,
			    ext2_ino_t ino, e4t_icopy_fn fn, void *priv)
{
	ext2_filsys fs = img->fs;
	size_t nt = e4t_journal_count(j), ti, bi;
	uint8_t *buf, *prev, *cur;
	int have_prev = 0, stop = 0;
	unsigned off;
	blk64_t home;
	struct geom g;
	errcode_t err;

	if (ino == 0 || ino > fs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	err = geom_load(fs, &g);
	if (err)
		return err;
	home = geom_home(fs, &g, ino, &off);
	buf = malloc(fs->blocksize);
	prev = malloc(g.isize);
	cur = malloc(g.isize);
	if (!buf || !prev || !cur) {
		err = ENOMEM;
		goto out;
	}
	for (ti = 0; ti < nt && !stop; ti++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, ti);

		if (!usable(t))
			continue;
		for (bi = 0; bi < t->nblocks + t->nfc_inodes && !stop; bi++) {
			struct e4t_icopy c;

			memset(&c, 0, sizeof(c));
			if (bi < t->nblocks) {
				const struct e4t_jblock *b = &t->blocks[bi];

				if (b->fsblock != home ||
				    (b->flags & E4T_JB_UNUSABLE))
					continue;
				err = e4t_journal_read_copy(j, b, buf);
				if (err)
					goto out;
				memcpy(cur, buf + off, g.isize);
				c.src = E4T_SRC_JOURNAL;
				c.len = g.isize;
			} else {
				const struct e4t_fc_inode *fi =
					&t->fc_inodes[bi - t->nblocks];
				unsigned n =
					fi->len < g.isize ? fi->len : g.isize;

				if (fi->ino != ino)
					continue;
				err = e4t_journal_read(j, fi->jblock, 1, buf);
				if (err)
					goto out;
				if (have_prev)
					memcpy(cur, prev, g.isize);
				else
					memset(cur, 0, g.isize);
				memcpy(cur, buf + fi->offset, n);
				c.src = E4T_SRC_FAST_COMMIT;
				c.len = fi->len;
			}
			c.ino = ino;
			c.trans = ti;
			c.t = t;
			c.raw = cur;
			c.baseline = !have_prev;
			if (have_prev)
				e4t_inode_compare(prev, cur, g.isize, &c);
			stop = fn(&c, priv);
			memcpy(prev, cur, g.isize);
			have_prev = 1;
		}
	}
	if (!stop) {
		struct e4t_icopy c;

		err = io_channel_read_blk64(fs->io, home, 1, buf);
		if (err)
			goto out;
		memcpy(cur, buf + off, g.isize);
		memset(&c, 0, sizeof(c));
		c.ino = ino;
		c.src = E4T_SRC_DISK;
		c.raw = cur;
		c.len = g.isize;
		c.baseline = !have_prev;
		if (have_prev)
			e4t_inode_compare(prev, cur, g.isize, &c);
		fn(&c, priv);
	}
out:
	free(g.t);
	free(buf);
	free(prev);
	free(cur);
	return err;
}
