/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fix.c --- the fixes of e4time check written: the superblock's sizes,
 * then inode by inode in ascending order through a batch (lib/write),
 * each inode's fixes in one write; the inodes whose xattrs must move to
 * grow them, after the batch, through libext2fs.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "check/prec_int.h"

static int to_fix(const struct e4t_prec *r)
{
	return (r->bits & PREC_FIX) && !r->nofix;
}

/* T0003 and T0009: fixed by growing the inode. */
static int grows(const struct e4t_prec *r)
{
	return r->code == E4T_P_CRTIME_NO_ROOM ||
	       r->code == E4T_P_EXTRA_ISIZE_SMALL;
}

/*
 * The fixes of one inode (problems [i, j)) into ts; the fields they
 * write.  T0001 carries a field's nanoseconds into its seconds, T0002
 * clears its epoch bits (e4t_prec_fixed()); a crtime from the source
 * replaces the crtime words' fixes.
 */
static unsigned inode_fixes(const struct e4t_check_result *res, size_t i,
			    size_t j, struct e4t_ts *ts)
{
	const struct e4t_prec *r;
	uint32_t base[E4T_NFIELDS] = { 0 }, extra[E4T_NFIELDS] = { 0 };
	unsigned words = 0, epoch = 0, src = 0, f;
	size_t k;

	for (k = i; k < j; k++) {
		r = e4t_prec_at(res, k);
		if (!to_fix(r) || grows(r)) /* grown already */
			continue;
		f = r->field;
		if (r->code == E4T_P_OLD_PRE1970) {
			epoch |= 1U << f;
		} else if (r->code != E4T_P_BAD_NSEC) {
			ts[f].sec = r->fix_sec;
			ts[f].nsec = r->fix_nsec;
			ts[f].flags = r->fix_flags;
			src |= 1U << f;
			continue;
		}
		base[f] = r->raw_base;
		extra[f] = r->raw_extra;
		words |= 1U << f;
	}
	for (f = 0; f < E4T_NFIELDS; f++)
		if ((words & ~src) & (1U << f))
			e4t_prec_fixed(base[f], extra[f],
				       (epoch & (1U << f)) != 0, &ts[f]);
	return words | src;
}

/* The T0003 or T0009 fix of problems [i, j) to write, or NULL. */
static struct e4t_prec *grow_of(const struct e4t_check_result *res, size_t i,
				size_t j)
{
	for (; i < j; i++) {
		struct e4t_prec *r = e4t_prec_at(res, i);

		if (grows(r) && to_fix(r))
			return r;
	}
	return NULL;
}

/*
 * The problems of the inodes changed in the batch's window: [from, to)
 * (to: the inode now being fixed).  A flush that returns 0 wrote them;
 * one that fails wrote none of them, which then are not fixed.
 */
struct window {
	struct e4t_check_result *res;
	size_t from, to;
};

static void flushed(void *priv, errcode_t err)
{
	struct window *w = priv;
	size_t k;

	for (k = w->from; err && k < w->to; k++)
		e4t_prec_at(w->res, k)->bits &= (uint8_t)~PREC_FIXED;
	w->from = w->to;
}

static void fix_time(const struct e4t_prec *r, struct e4t_ts *ts)
{
	ts->sec = r->fix_sec;
	ts->nsec = r->fix_nsec;
	ts->flags = r->fix_flags;
}

errcode_t e4t_check_fix(struct e4t_image *img, struct e4t_check_result *res,
			const struct e4t_check_opts *o,
			const volatile sig_atomic_t *stop)
{
	struct ext2_super_block *sb = img->fs->super;
	struct e4t_batch *b = NULL;
	struct e4t_prec *r, *sb_fix = NULL;
	struct window w = { res, 0, 0 };
	errcode_t err = 0, end_err;
	size_t i = 0, j, k;
	ext2_ino_t ino;
	int moved = 0; /* inodes whose xattrs must move: after the batch */
	int was_dirty = (img->fs->flags & EXT2_FLAG_DIRTY) != 0;
	uint16_t min_isize = sb->s_min_extra_isize;
	uint16_t want_isize = sb->s_want_extra_isize;

	/* the superblock (first): written out when the image is closed */
	for (k = 0; k < res->n && (r = e4t_prec_at(res, k))->ino == 0; k++) {
		if (r->code == E4T_P_SB_EXTRA_ISIZE && to_fix(r)) {
			sb->s_min_extra_isize = 32;
			sb->s_want_extra_isize = 32;
			ext2fs_mark_super_dirty(img->fs);
			r->bits |= PREC_FIXED;
			sb_fix = r;
		}
	}
	i = w.from = w.to = k;
	err = e4t_batch_begin(img, NULL, &b);
	if (err)
		return err;
	/* an inode's problems are fixed once its window is written */
	e4t_batch_on_flush(b, flushed, &w);
	while (i < res->n && !err) {
		struct e4t_ts ts[E4T_NFIELDS], crtime;
		unsigned fields;

		w.to = i;
		if (stop && *stop)
			break;
		if (o->progress && !(i & 0x3fff))
			o->progress("fixes", i, res->n, o->priv);
		ino = e4t_prec_at(res, i)->ino;
		for (j = i + 1; j < res->n && e4t_prec_at(res, j)->ino == ino;
		     j++)
			;
		/* T0003 first: the crtime set with the growth (T0009: kept) */
		r = grow_of(res, i, j);
		if (r) {
			fix_time(r, &crtime);
			err = e4t_batch_grow(b, ino,
					     r->code == E4T_P_CRTIME_NO_ROOM
						     ? &crtime
						     : NULL);
			if (err == E4T_ERR_GROW_XATTRS) {
				moved = 1;
				err = 0;
			} else if (!err) {
				r->bits |= PREC_FIXED;
			}
		}
		memset(ts, 0, sizeof(ts));
		fields = inode_fixes(res, i, j, ts);
		if (fields && !err) {
			err = e4t_batch_set(b, ino, fields, ts);
			for (k = i; k < j && !err; k++) {
				r = e4t_prec_at(res, k);
				if (to_fix(r) &&
				    r->code != E4T_P_CRTIME_NO_ROOM)
					r->bits |= PREC_FIXED;
			}
		}
		i = j;
	}
	/* cppcheck-suppress redundantAssignment ; flushed() reads it */
	w.to = i;
	end_err = e4t_batch_end(b);
	if (!err)
		err = end_err;
	/*
	 * A failed write: nothing more reaches the image, the superblock
	 * at close included, so that fix is taken back (unless something
	 * else is to be written then).
	 */
	if (err && sb_fix) {
		sb->s_min_extra_isize = min_isize;
		sb->s_want_extra_isize = want_isize;
		if (!was_dirty)
			img->fs->flags &= ~EXT2_FLAG_DIRTY;
		sb_fix->bits &= (uint8_t)~PREC_FIXED;
	}
	ext2fs_flush_icache(img->fs);
	/* Then, through libext2fs, the inodes whose xattrs move (the batch
	 * has written its windows out: libext2fs reads what it wrote). */
	for (k = 0; k < res->n && moved && !err; k++) {
		struct e4t_ts crtime;

		if (stop && *stop)
			break;
		r = e4t_prec_at(res, k);
		if (!grows(r) || !to_fix(r) || (r->bits & PREC_FIXED))
			continue;
		fix_time(r, &crtime);
		err = e4t_inode_grow_extra(
			img, r->ino,
			r->code == E4T_P_CRTIME_NO_ROOM ? &crtime : NULL);
		if (!err)
			r->bits |= PREC_FIXED;
	}
	return err;
}
