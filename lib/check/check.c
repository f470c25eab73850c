/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c --- the scan of e4time check: every inode reachable from /
 * once, its times looked at for the problems of problem.c, and the
 * fixes written through a batch (lib/write).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "sources/xsource.h"

#define EPOCH_MASK 3U

/*
 * e2fsck 1.47, e2fsck/pass1.c, check_inode_extra_space(): an _extra
 * word is in the old pre-1970 encoding when the base word has its sign
 * bit set and both epoch bits are set
 * (check_inode_extra_negative_epoch()), and e2fsck decides so only while
 * its clock is before EXT4_EXTRA_NEGATIVE_DATE_CUTOFF, 2 * 2^32 seconds
 * (year 2242): after that such a time may be a real one.  Its fix
 * clears the epoch bits (i_Xtime_extra &= ~EXT4_EPOCH_MASK).  e2fsck
 * reads the four _extra words whatever i_extra_isize says (and not at
 * all when i_extra_isize leaves no room for an xattr header); check
 * looks only at the words i_extra_isize covers.
 */
#define NEGATIVE_DATE_CUTOFF (2 * (1LL << 32))

struct scan {
	struct e4t_image *img;
	const struct e4t_check_opts *o;
	struct e4t_check_result *res;
	uint8_t *seen; /* one bit an inode */
	ext2_ino_t ninodes;
	errcode_t err;
};

/* p's path into the result's paths (pointers set once they stop
 * moving, at the end of the scan). */
static errcode_t add_path(struct e4t_check_result *res, struct e4t_problem *p,
			  const char *path, size_t len)
{
	if (e4t_grow(&res->paths, &res->paths_cap, res->paths_len + len + 1, 1,
		     4096))
		return ENOMEM;
	memcpy(res->paths + res->paths_len, path, len);
	res->paths[res->paths_len + len] = 0;
	p->path_off = res->paths_len;
	p->path_len = len;
	res->paths_len += len + 1;
	return 0;
}

static struct e4t_problem *add(struct scan *s, const struct e4t_row *row,
			       enum e4t_pcode code, enum e4t_field f)
{
	struct e4t_check_result *res = s->res;
	const struct e4t_inode *in = row->inode;
	struct e4t_problem *p;

	if (e4t_grow(&res->p, &res->cap, res->n + 1, sizeof(*res->p), 16)) {
		s->err = ENOMEM;
		return NULL;
	}
	p = &res->p[res->n];
	memset(p, 0, sizeof(*p));
	if (add_path(res, p, row->path, row->path_len)) {
		s->err = ENOMEM;
		return NULL;
	}
	res->n++;
	p->code = code;
	p->ino = in->ino;
	p->field = f;
	p->value = in->ts[f];
	p->raw_base = in->raw_base[f];
	p->raw_extra =
		(in->present & E4T_PRESENT_EXTRA(f)) ? in->raw_extra[f] : 0;
	p->extra_isize = in->extra_isize;
	if (e4t_problem_def(code)->flags & E4T_PF_NOFIX)
		p->nofix = E4T_NOFIX_NEVER;
	return p;
}

/* The time field f would have once T0001 and T0002 are fixed. */
static void corrected(const struct e4t_inode *in, enum e4t_field f,
		      int old_pre1970, struct e4t_ts *ts)
{
	uint32_t x;

	*ts = in->ts[f];
	if (!(in->present & E4T_PRESENT_EXTRA(f)))
		return;
	x = in->raw_extra[f];
	if (ts->flags & E4T_TS_BAD_NSEC)
		x &= EPOCH_MASK;
	if (old_pre1970 && (ts->flags & E4T_TS_OLD_PRE1970))
		x &= ~EPOCH_MASK;
	e4t_ts_decode(in->raw_base[f], &x, ts);
}

/* The crtime a source gives this inode (flags 0: none). */
static void source_time(struct scan *s, const struct e4t_inode *in,
			const struct e4t_ts *ct, const struct e4t_ts *mt,
			struct e4t_ts *out, const char **xattr)
{
	const struct e4t_check_opts *o = s->o;

	memset(out, 0, sizeof(*out));
	*xattr = NULL;
	switch (o->crtime_from) {
	case E4T_CRSRC_NONE: return;
	case E4T_CRSRC_CTIME:
		if (in->present & E4T_PRESENT(E4T_CTIME))
			*out = *ct;
		return;
	case E4T_CRSRC_MTIME:
		if (in->present & E4T_PRESENT(E4T_MTIME))
			*out = *mt;
		return;
	case E4T_CRSRC_EARLIEST:
		*out = e4t_ts_cmp(ct, mt) <= 0 ? *ct : *mt;
		return;
	case E4T_CRSRC_XATTR: {
		const char *const *names = e4t_source_xattrs(o->src);
		struct e4t_src_time st;
		void *val = NULL;
		size_t len = 0;
		int which = 0;

		if (e4t_xattr_get_first(s->img, in->ino, names, &val, &len,
					&which))
			return;
		if (e4t_source_decode(o->src, names[which], val, len, &st) ==
		    E4T_SRC_OK) {
			out->sec = st.sec;
			out->nsec = st.nsec;
			out->flags = E4T_TS_STORED | E4T_TS_EXTRA;
			*xattr = names[which];
		}
		free(val);
		return;
	}
	}
}

/* The crtime problems of one inode: their fix from the source. */
static void crtime_fix(struct scan *s, const struct e4t_inode *in,
		       const struct e4t_ts *ct, const struct e4t_ts *mt,
		       struct e4t_problem *p)
{
	const struct e4t_check_opts *o = s->o;
	struct e4t_ts to, mlim;
	const char *xattr;

	if (o->crtime_from == E4T_CRSRC_NONE) {
		p->nofix = E4T_NOFIX_NO_SOURCE;
		return;
	}
	source_time(s, in, ct, mt, &to, &xattr);
	if (!to.flags || (to.sec == 0 && to.nsec == 0)) {
		p->nofix = E4T_NOFIX_SOURCE_EMPTY;
		return;
	}
	/* A fix that would leave T0005 or T0006 is none. */
	mlim = *mt;
	mlim.sec += o->mtime_tolerance;
	if (e4t_ts_cmp(&to, ct) > 0 || e4t_ts_cmp(&to, &mlim) > 0) {
		p->nofix = E4T_NOFIX_SOURCE_LATE;
		return;
	}
	p->fix_to = to;
	p->src_xattr = xattr;
}

/* T0001 and T0002: a fix that keeps those bits of the _extra word;
 * non-zero when out of memory. */
static int word_problem(struct scan *s, const struct e4t_row *row,
			enum e4t_pcode code, enum e4t_field f, uint32_t keep)
{
	struct e4t_problem *p = add(s, row, code, f);
	uint32_t x;

	if (!p)
		return -1;
	p->keep_extra = keep;
	x = p->raw_extra & keep;
	e4t_ts_decode(p->raw_base, &x, &p->fix_to);
	return 0;
}

static int on_row(const struct e4t_row *row, void *priv)
{
	struct scan *s = priv;
	const struct e4t_inode *in = row->inode;
	const struct e4t_check_opts *o = s->o;
	int pre1970 = o->now < NEGATIVE_DATE_CUTOFF;
	struct e4t_ts eff[E4T_NFIELDS];
	struct e4t_problem *p;
	unsigned f;
	ext2_ino_t ino = in->ino;
	int stop;

	if (row->status != E4T_LIVE || !ino || ino > s->ninodes)
		return 0;
	if (s->seen[(ino - 1) / 8] & (1U << ((ino - 1) % 8)))
		return 0;
	s->seen[(ino - 1) / 8] |= (uint8_t)(1U << ((ino - 1) % 8));
	s->res->inodes++;
	if (o->progress && !(s->res->inodes & 0xffff))
		o->progress("checking", s->res->inodes, 0, o->priv);
	if (in->flags & (E4T_INO_CSUM_BAD | E4T_INO_EXTRA_BAD)) {
		/* e2fsck's to repair first */
		s->res->skipped_csum++;
		return 0;
	}
	for (f = E4T_ATIME; f <= E4T_CRTIME; f++) {
		corrected(in, f, pre1970, &eff[f]);
		if (!(in->present & E4T_PRESENT_EXTRA(f)))
			continue;
		if ((in->ts[f].flags & E4T_TS_BAD_NSEC) &&
		    word_problem(s, row, E4T_P_BAD_NSEC, f, EPOCH_MASK))
			return -1;
		if (pre1970 && (in->ts[f].flags & E4T_TS_OLD_PRE1970) &&
		    word_problem(s, row, E4T_P_OLD_PRE1970, f, ~EPOCH_MASK))
			return -1;
	}
	if (!(in->present & E4T_PRESENT_EXTRA(E4T_CRTIME))) {
		/* room for i_extra_isize 32: crtime and what follows */
		if (in->inode_size >= EXT2_GOOD_OLD_INODE_SIZE + 32) {
			p = add(s, row, E4T_P_CRTIME_NO_ROOM, E4T_CRTIME);
			if (!p)
				return -1;
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
			/* inline data would lose room: not grown */
			if (!p->nofix && (in->flags & E4T_INO_INLINE))
				p->nofix = E4T_NOFIX_NO_GROW;
		}
	} else if (in->ts[E4T_CRTIME].flags & E4T_TS_ZERO) {
		p = add(s, row, E4T_P_CRTIME_UNSET, E4T_CRTIME);
		if (!p)
			return -1;
		crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
	} else {
		struct e4t_ts mlim = eff[E4T_MTIME];

		mlim.sec += o->mtime_tolerance;
		if (e4t_ts_cmp(&eff[E4T_CRTIME], &eff[E4T_CTIME]) > 0) {
			p = add(s, row, E4T_P_CRTIME_AFTER_CTIME, E4T_CRTIME);
			if (!p)
				return -1;
			p->limit = eff[E4T_CTIME];
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
		}
		if (e4t_ts_cmp(&eff[E4T_CRTIME], &mlim) > 0) {
			p = add(s, row, E4T_P_CRTIME_AFTER_MTIME, E4T_CRTIME);
			if (!p)
				return -1;
			p->limit = eff[E4T_MTIME];
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
		}
	}
	for (f = E4T_ATIME; f <= E4T_CRTIME; f++) {
		if (!(in->present & E4T_PRESENT(f)) ||
		    (f == E4T_CRTIME &&
		     !(in->present & E4T_PRESENT_EXTRA(E4T_CRTIME))))
			continue;
		if (eff[f].sec <= s->res->limit)
			continue;
		p = add(s, row, E4T_P_FUTURE, f);
		if (!p)
			return -1;
		p->value = eff[f];
		p->limit.sec = s->res->limit;
		p->limit.flags = E4T_TS_STORED;
	}
	stop = o->inode_done ? o->inode_done(o->priv) : 0;
	return stop;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Put the problems in inode order.  One inode's problems are added
 * together, in table order; the walk goes in directory order, often
 * inode order already.  Sorted as keys (inode, position) rather than as
 * the large records, which are then moved in place, cycle by cycle.
 */
#define KEY_POS	 0xffffffffULL
#define KEY_DONE (1ULL << 63)

static errcode_t inode_order(struct e4t_check_result *res)
{
	struct e4t_problem tmp;
	uint64_t *key;
	size_t i, j, k;

	for (i = 1; i < res->n; i++)
		if (res->p[i - 1].ino > res->p[i].ino)
			break;
	if (i >= res->n)
		return 0;
	key = malloc(res->n * sizeof(*key));
	if (!key)
		return ENOMEM;
	for (i = 0; i < res->n; i++)
		key[i] = (uint64_t)res->p[i].ino << 32 | i;
	qsort(key, res->n, sizeof(*key), cmp_u64);
	/* position i takes the record at key[i] & KEY_POS */
	for (i = 0; i < res->n; i++)
		key[i] &= KEY_POS;
	for (i = 0; i < res->n; i++) {
		if (key[i] & KEY_DONE)
			continue;
		tmp = res->p[i];
		for (j = i;;) {
			k = (size_t)(key[j] & KEY_POS);
			key[j] |= KEY_DONE;
			if (k == i) {
				res->p[j] = tmp;
				break;
			}
			res->p[j] = res->p[k];
			j = k;
		}
	}
	free(key);
	return 0;
}

/* The superblock's last write time, with its high byte. */
static int64_t sb_wtime(const struct ext2_super_block *sb)
{
	return (int64_t)sb->s_wtime | ((int64_t)sb->s_wtime_hi << 32);
}

/*
 * T0008: the sizes the superblock asks of inodes.  The kernel wants 32
 * whatever they say (ext4_inode_info_init() starts from
 * sizeof(struct ext4_inode) - 128 and takes them only when larger, with
 * the extra_isize feature), but e2fsck and libext2fs take
 * s_want_extra_isize when they create or grow an inode.
 */
static errcode_t sb_check(struct scan *s)
{
	const struct ext2_super_block *sb = s->img->fs->super;
	struct e4t_check_result *res = s->res;
	struct e4t_problem *p;

	if (EXT2_INODE_SIZE(sb) < EXT2_GOOD_OLD_INODE_SIZE + 32 ||
	    (sb->s_min_extra_isize >= 32 && sb->s_want_extra_isize >= 32))
		return 0;
	if (e4t_grow(&res->p, &res->cap, res->n + 1, sizeof(*res->p), 16))
		return ENOMEM;
	p = &res->p[res->n++];
	memset(p, 0, sizeof(*p));
	p->code = E4T_P_SB_EXTRA_ISIZE;
	p->field = E4T_CRTIME;
	p->extra_isize = sb->s_want_extra_isize;
	p->min_isize = sb->s_min_extra_isize;
	return add_path(res, p, "superblock", strlen("superblock"));
}

errcode_t e4t_check_scan(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_check_opts *opts,
			 struct e4t_check_result *res)
{
	struct scan s;
	int64_t wt = sb_wtime(img->fs->super);
	errcode_t err;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.img = img;
	s.o = opts;
	s.res = res;
	s.ninodes = img->fs->super->s_inodes_count;
	s.seen = calloc((size_t)s.ninodes / 8 + 1, 1);
	if (!s.seen)
		return ENOMEM;
	/* the last write is the limit, unless it is itself in the future */
	res->limit = opts->now;
	res->limit_is_wtime = 0;
	if (wt > 0 && wt < opts->now) {
		res->limit = wt;
		res->limit_is_wtime = 1;
	}
	err = sb_check(&s);
	if (!err)
		err = e4t_tree_walk(tree, EXT2_ROOT_INO, "/", on_row, &s);
	free(s.seen);
	if (s.err)
		return s.err;
	if (err)
		return err;
	for (i = 0; i < res->n; i++)
		res->p[i].path = res->paths + res->p[i].path_off;
	return inode_order(res);
}

/*
 * The fixes of one inode (problems [i, j)) into ts; the fields they
 * write.  T0001 and T0002 keep bits of a field's _extra word; a crtime
 * from the source replaces the crtime words' fixes.
 */
static unsigned inode_fixes(const struct e4t_problem *p, size_t i, size_t j,
			    struct e4t_ts *ts)
{
	uint32_t keep[E4T_NFIELDS], base[E4T_NFIELDS] = { 0 },
				    extra[E4T_NFIELDS] = { 0 };
	unsigned words = 0, src = 0, f;
	size_t k;

	for (f = 0; f < E4T_NFIELDS; f++)
		keep[f] = ~0U;
	for (k = i; k < j; k++) {
		if (!p[k].fix || p[k].nofix ||
		    p[k].code == E4T_P_CRTIME_NO_ROOM) /* grown already */
			continue;
		f = p[k].field;
		if (p[k].code == E4T_P_BAD_NSEC ||
		    p[k].code == E4T_P_OLD_PRE1970) {
			keep[f] &= p[k].keep_extra;
			base[f] = p[k].raw_base;
			extra[f] = p[k].raw_extra;
			words |= 1U << f;
		} else {
			ts[f] = p[k].fix_to;
			src |= 1U << f;
		}
	}
	for (f = 0; f < E4T_NFIELDS; f++) {
		uint32_t x = extra[f] & keep[f];

		if ((words & ~src) & (1U << f))
			e4t_ts_decode(base[f], &x, &ts[f]);
	}
	return words | src;
}

/* The T0003 fix of problems [i, j) to write, or NULL. */
static struct e4t_problem *grow_of(struct e4t_problem *p, size_t i, size_t j)
{
	for (; i < j; i++)
		if (p[i].code == E4T_P_CRTIME_NO_ROOM && p[i].fix &&
		    !p[i].nofix)
			return &p[i];
	return NULL;
}

errcode_t e4t_check_fix(struct e4t_image *img, struct e4t_check_result *res,
			const volatile sig_atomic_t *stop)
{
	struct e4t_batch *b = NULL;
	errcode_t err = 0, end_err;
	size_t i = 0, j, k;
	int moved = 0; /* inodes whose xattrs must move: after the batch */

	/* the superblock: written out when the image is closed */
	for (k = 0; k < res->n && res->p[k].ino == 0; k++) {
		struct e4t_problem *p = &res->p[k];

		if (p->code == E4T_P_SB_EXTRA_ISIZE && p->fix && !p->nofix) {
			img->fs->super->s_min_extra_isize = 32;
			img->fs->super->s_want_extra_isize = 32;
			ext2fs_mark_super_dirty(img->fs);
			p->fixed = 1;
		}
	}
	err = e4t_batch_begin(img, NULL, &b);
	if (err)
		return err;
	while (i < res->n && !err) {
		struct e4t_ts ts[E4T_NFIELDS];
		struct e4t_problem *g;
		unsigned fields;

		if (stop && *stop)
			break;
		for (j = i; j < res->n && res->p[j].ino == res->p[i].ino; j++)
			;
		if (!res->p[i].ino) {
			i = j;
			continue;
		}
		/* T0003 first: the crtime set with the growth */
		g = grow_of(res->p, i, j);
		if (g) {
			err = e4t_batch_grow(b, g->ino, &g->fix_to);
			if (err == E4T_ERR_GROW_XATTRS) {
				moved = 1;
				err = 0;
			} else if (!err) {
				g->fixed = 1;
			}
		}
		memset(ts, 0, sizeof(ts));
		fields = inode_fixes(res->p, i, j, ts);
		if (fields && !err) {
			err = e4t_batch_set(b, res->p[i].ino, fields, ts);
			for (k = i; k < j && !err; k++)
				if (res->p[k].fix && !res->p[k].nofix &&
				    res->p[k].code != E4T_P_CRTIME_NO_ROOM)
					res->p[k].fixed = 1;
		}
		i = j;
	}
	end_err = e4t_batch_end(b);
	if (!err)
		err = end_err;
	ext2fs_flush_icache(img->fs);
	/* Then, through libext2fs, the inodes whose xattrs move (the batch
	 * has written its windows out: libext2fs reads what it wrote). */
	for (k = 0; k < res->n && moved && !err; k++) {
		struct e4t_problem *p = &res->p[k];

		if (stop && *stop)
			break;
		if (p->code != E4T_P_CRTIME_NO_ROOM || !p->fix || p->nofix ||
		    p->fixed)
			continue;
		err = e4t_inode_grow_extra(img, p->ino, &p->fix_to);
		if (!err)
			p->fixed = 1;
	}
	return err;
}

void e4t_check_result_free(struct e4t_check_result *res)
{
	free(res->paths);
	free(res->p);
	memset(res, 0, sizeof(*res));
}
