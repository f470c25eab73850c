/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c --- the scan of e4time check: every inode reachable from /
 * once, its times looked at for the problems of problem.c; what is found
 * is kept as result.c keeps it, and fixed by fix.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "check/prec_int.h"
#include "sources/sources.h"

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
	unsigned want;	 /* what the kernel grows i_extra_isize to */
	uint64_t in_use; /* inodes, for the progress */
	errcode_t err;
};

static struct e4t_prec *add(struct scan *s, const struct e4t_row *row,
			    enum e4t_pcode code, enum e4t_field f)
{
	const struct e4t_inode *in = row->inode;
	struct e4t_prec *p;

	p = e4t_prec_add(s->res, in->ino, code, row->path, row->path_len);
	if (!p) {
		s->err = ENOMEM;
		return NULL;
	}
	p->field = (uint8_t)f;
	p->raw_base = in->raw_base[f];
	if (in->present & E4T_PRESENT_EXTRA(f)) {
		p->raw_extra = in->raw_extra[f];
		p->bits |= PREC_EXTRA;
	}
	p->extra_isize = in->extra_isize;
	return p;
}

/* The time field f would have once T0001 and T0002 are fixed: T0001's
 * as the kernel shows it, the nanoseconds carried into the seconds. */
static void corrected(const struct e4t_inode *in, enum e4t_field f, int pre1970,
		      struct e4t_ts *ts)
{
	if (!(in->present & E4T_PRESENT_EXTRA(f))) {
		*ts = in->ts[f];
		return;
	}
	e4t_prec_corrected(in->raw_base[f], in->raw_extra[f], 1, pre1970, ts);
}

/* The crtime a source gives this inode (flags 0: none). */
static void source_time(struct scan *s, const struct e4t_inode *in,
			const struct e4t_ts *ct, const struct e4t_ts *mt,
			struct e4t_ts *out, uint8_t *xattr)
{
	const struct e4t_check_opts *o = s->o;

	memset(out, 0, sizeof(*out));
	*xattr = 0;
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
			*xattr = (uint8_t)(which + 1);
		}
		free(val);
		return;
	}
	}
}

/* The crtime problems of one inode: their fix from the source. */
static void crtime_fix(struct scan *s, const struct e4t_inode *in,
		       const struct e4t_ts *ct, const struct e4t_ts *mt,
		       struct e4t_prec *p)
{
	const struct e4t_check_opts *o = s->o;
	struct e4t_ts to, mlim;
	uint8_t xattr;

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
	p->fix_sec = to.sec;
	p->fix_nsec = to.nsec;
	p->fix_flags = (uint8_t)to.flags;
	p->src = xattr;
}

/* T0005, T0006: the field crtime is compared with. */
static void limit_of(struct e4t_prec *p, const struct e4t_inode *in,
		     enum e4t_field f)
{
	p->lim_base = in->raw_base[f];
	if (in->present & E4T_PRESENT_EXTRA(f)) {
		p->lim_extra = in->raw_extra[f];
		p->bits |= PREC_LIM_EXTRA;
	}
}

static int on_row(const struct e4t_row *row, void *priv)
{
	struct scan *s = priv;
	const struct e4t_inode *in = row->inode;
	const struct e4t_check_opts *o = s->o;
	int pre1970 = o->now < NEGATIVE_DATE_CUTOFF;
	struct e4t_ts eff[E4T_NFIELDS];
	struct e4t_prec *p;
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
		o->progress("inodes", s->res->inodes, s->in_use, o->priv);
	if (in->flags & (E4T_INO_CSUM_BAD | E4T_INO_EXTRA_BAD)) {
		/* e2fsck's to repair first */
		s->res->skipped_csum++;
		return 0;
	}
	for (f = E4T_ATIME; f <= E4T_CRTIME; f++) {
		corrected(in, f, pre1970, &eff[f]);
		if (!(in->present & E4T_PRESENT_EXTRA(f)))
			continue;
		/* their fixes: the _extra word decoded again (result.c) */
		if ((in->ts[f].flags & E4T_TS_BAD_NSEC) &&
		    !add(s, row, E4T_P_BAD_NSEC, f))
			return -1;
		if (pre1970 && (in->ts[f].flags & E4T_TS_OLD_PRE1970) &&
		    !add(s, row, E4T_P_OLD_PRE1970, f))
			return -1;
	}
	if (!(in->present & E4T_PRESENT_EXTRA(E4T_CRTIME))) {
		/* room for i_extra_isize 32: crtime and what follows */
		if (in->inode_size >= EXT2_GOOD_OLD_INODE_SIZE + 32) {
			p = add(s, row, E4T_P_CRTIME_NO_ROOM, E4T_CRTIME);
			if (!p)
				return -1;
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
			/* inline data: not grown (problem.c) */
			if (!p->nofix && (in->flags & E4T_INO_INLINE))
				p->nofix = E4T_NOFIX_INLINE;
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
			limit_of(p, in, E4T_CTIME);
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
		}
		if (e4t_ts_cmp(&eff[E4T_CRTIME], &mlim) > 0) {
			p = add(s, row, E4T_P_CRTIME_AFTER_MTIME, E4T_CRTIME);
			if (!p)
				return -1;
			limit_of(p, in, E4T_MTIME);
			crtime_fix(s, in, &eff[E4T_CTIME], &eff[E4T_MTIME], p);
		}
	}
	for (f = E4T_ATIME; f <= E4T_CRTIME; f++) {
		if (!(in->present & E4T_PRESENT(f)) ||
		    (f == E4T_CRTIME &&
		     !(in->present & E4T_PRESENT_EXTRA(E4T_CRTIME))))
			continue;
		/* (T0001's carry adds one second to a time that was not
		 * later than the limit: a file written in the last second
		 * before the unmount is not in the future) */
		if (eff[f].sec <= s->res->limit ||
		    ((in->ts[f].flags & E4T_TS_BAD_NSEC) &&
		     eff[f].sec - 1 <= s->res->limit))
			continue;
		/* the value shown is eff[f], decoded again (result.c) */
		if (!add(s, row, E4T_P_FUTURE, f))
			return -1;
	}
	/* crtime stored, but not all the kernel would grow the inode to */
	if ((in->present & E4T_PRESENT_EXTRA(E4T_CRTIME)) &&
	    in->extra_isize < s->want &&
	    in->inode_size >= EXT2_GOOD_OLD_INODE_SIZE + s->want) {
		p = add(s, row, E4T_P_EXTRA_ISIZE_SMALL, E4T_CRTIME);
		if (!p)
			return -1;
		p->lim_base = s->want;
		if (in->flags & E4T_INO_INLINE)
			p->nofix = E4T_NOFIX_INLINE;
	}
	stop = o->inode_done ? o->inode_done(o->priv) : 0;
	return stop;
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
	struct e4t_prec *p;

	if (EXT2_INODE_SIZE(sb) < EXT2_GOOD_OLD_INODE_SIZE + 32 ||
	    (sb->s_min_extra_isize >= 32 && sb->s_want_extra_isize >= 32))
		return 0;
	p = e4t_prec_add(s->res, 0, E4T_P_SB_EXTRA_ISIZE, "superblock",
			 strlen("superblock"));
	if (!p)
		return ENOMEM;
	p->field = E4T_CRTIME;
	p->extra_isize = sb->s_want_extra_isize;
	p->lim_base = sb->s_min_extra_isize;
	return 0;
}

errcode_t e4t_check_scan(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_check_opts *opts,
			 struct e4t_check_result *res)
{
	struct scan s;
	int64_t wt = sb_wtime(img->fs->super);
	errcode_t err;

	memset(&s, 0, sizeof(s));
	s.img = img;
	s.o = opts;
	s.res = res;
	s.ninodes = img->fs->super->s_inodes_count;
	s.want = e4t_want_extra_isize(img->fs->super);
	s.in_use = (uint64_t)img->fs->super->s_inodes_count -
		   img->fs->super->s_free_inodes_count;
	s.seen = calloc((size_t)s.ninodes / 8 + 1, 1);
	if (!s.seen)
		return ENOMEM;
	/* the last write is the limit, unless it is itself in the future
	 * or a backup superblock's (the kernel writes it in the primary) */
	res->limit = opts->now;
	res->limit_is_wtime = 0;
	if (wt > 0 && wt < opts->now && !img->sb_block) {
		res->limit = wt;
		res->limit_is_wtime = 1;
	}
	res->pre1970 = opts->now < NEGATIVE_DATE_CUTOFF;
	res->inode_size = EXT2_INODE_SIZE(img->fs->super);
	res->refuse = opts->refuse;
	res->fix_warnings = opts->fix_warnings;
	res->src_names = opts->crtime_from == E4T_CRSRC_XATTR
				 ? e4t_source_xattrs(opts->src)
				 : NULL;
	err = sb_check(&s);
	if (!err)
		err = e4t_tree_walk(tree, EXT2_ROOT_INO, "/", on_row, &s);
	free(s.seen);
	if (s.err)
		return s.err;
	if (err)
		return err;
	return e4t_prec_order(res);
}

errcode_t e4t_check_crtime_from(const char *spec, enum e4t_crsrc *from,
				struct e4t_source **src)
{
	static const struct {
		const char *name;
		enum e4t_crsrc from;
	} named[] = { { "ctime", E4T_CRSRC_CTIME },
		      { "mtime", E4T_CRSRC_MTIME },
		      { "earliest", E4T_CRSRC_EARLIEST } };
	errcode_t err;
	size_t i;

	*src = NULL;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(spec, named[i].name)) {
			*from = named[i].from;
			return 0;
		}
	err = e4t_source_parse(spec, src);
	if (!err)
		*from = E4T_CRSRC_XATTR;
	return err;
}
