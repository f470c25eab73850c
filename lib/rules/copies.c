/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copies.c --- how copies look: the creation times (and sizes) of every
 * live inode, sorted, so that a rule can ask whether the times of an
 * inode were set by the run that created it (cp -a, rsync -a, tar -x,
 * unzip, Python's tarfile, mail delivery, gzip) rather than later.
 *
 * Copy and extraction programs create a file, write it and set its
 * times a moment later; a directory's times are set once its contents
 * are written, which takes as long as writing them; Python's tarfile
 * sets every directory's at the very end.  So an inode created at cr
 * whose times were set at ct (its ctime) was set by its creator when
 * the filesystem was busy creating files all along:
 *
 *   ct - cr <= 1 s + 10 ms for each inode created in [cr, ct]
 *                  + 1 s for each 4 MiB those hold
 *
 * (10 ms a file and 4 MiB/s are slow for local copies and extraction).
 * A file back-dated later than that, or a directory whose times were
 * put back after a file was dropped in it, long after it was made, has
 * only the filesystem's ordinary creations in between: the rules stay
 * strong there.  Measured on tests/mkinnocent.sh's trees and
 * tests/mkstomped.sh's stomps (bench/RESULTS-innocent.md).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define NS	      1000000000LL
#define SLACK_NS      (1 * NS)
#define PER_FILE_NS   (10 * 1000000LL)
#define BYTES_PER_SEC (4ULL << 20)

/* The crtimes sorted, each with the sizes of the inodes created up to
 * it, itself included: 16 bytes per live inode, built in place. */
struct crsz {
	int64_t cr;	/* crtime in nanoseconds */
	uint64_t bytes; /* sizes of [0, i] summed (the size, until sorted) */
};

struct e4t_copyidx {
	struct crsz *a;
	size_t n;
};

static int cmp_crsz(const void *a, const void *b)
{
	const struct crsz *x = a, *y = b;

	return x->cr < y->cr ? -1 : x->cr > y->cr;
}

static int64_t ts_ns(const struct e4t_ts *ts)
{
	return ts->sec * NS + (int64_t)ts->nsec;
}

/* The crtime of a live inode that has one stored. */
static int live_crtime(const struct e4t_tree *tree, ext2_ino_t ino,
		       struct e4t_inode *in)
{
	if (e4t_tree_inode(tree, ino, in) || !in->links)
		return 0;
	return (in->ts[E4T_CRTIME].flags & E4T_TS_STORED) &&
	       !(in->ts[E4T_CRTIME].flags & E4T_TS_ZERO);
}

errcode_t e4t_copyidx_build(const struct e4t_tree *tree, ext2_ino_t ninodes,
			    struct e4t_copyidx **ret)
{
	struct e4t_copyidx *x;
	size_t n = 0, i;
	ext2_ino_t ino;
	struct e4t_inode in;

	*ret = NULL;
	/* counted first: the array is allocated once, at its size */
	for (ino = 1; ino && ino <= ninodes; ino++)
		n += live_crtime(tree, ino, &in);
	x = calloc(1, sizeof(*x));
	if (x)
		x->a = malloc((n ? n : 1) * sizeof(*x->a));
	if (!x || !x->a) {
		e4t_copyidx_free(x);
		return ENOMEM;
	}
	for (ino = 1; ino && ino <= ninodes && x->n < n; ino++) {
		if (!live_crtime(tree, ino, &in))
			continue;
		x->a[x->n].cr = ts_ns(&in.ts[E4T_CRTIME]);
		x->a[x->n].bytes = in.size;
		x->n++;
	}
	if (x->n)
		qsort(x->a, x->n, sizeof(*x->a), cmp_crsz);
	for (i = 1; i < x->n; i++)
		x->a[i].bytes += x->a[i - 1].bytes;
	*ret = x;
	return 0;
}

void e4t_copyidx_free(struct e4t_copyidx *x)
{
	if (!x)
		return;
	free(x->a);
	free(x);
}

/* The sizes of the inodes [0, i) summed. */
static uint64_t bytes_before(const struct e4t_copyidx *x, size_t i)
{
	return i ? x->a[i - 1].bytes : 0;
}

/* The first index whose crtime is >= t (or > t with after). */
static size_t bound(const struct e4t_copyidx *x, int64_t t, int after)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->a[mid].cr < t || (after && x->a[mid].cr == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int e4t_copy_after_write(const struct e4t_copyidx *x,
			 const struct e4t_ts *old_mtime,
			 const struct e4t_ts *old_ctime,
			 const struct e4t_ts *ctime)
{
	if (!(old_mtime->flags & E4T_TS_STORED) ||
	    e4t_ts_cmp(old_mtime, old_ctime))
		return 0;
	return e4t_copy_like(x, old_ctime, ctime);
}

int e4t_copy_deferred(const struct e4t_copyidx *x, int copy_check,
		      const struct e4t_ts *crtime, const struct e4t_ts *ctime,
		      const struct e4t_ts *old_mtime,
		      const struct e4t_ts *old_ctime)
{
	if (e4t_copy_like(x, crtime, ctime))
		return 1;
	return copy_check == E4T_COPY_BACK &&
	       e4t_copy_after_write(x, old_mtime, old_ctime, ctime);
}

int e4t_copy_like(const struct e4t_copyidx *x, const struct e4t_ts *crtime,
		  const struct e4t_ts *ctime)
{
	int64_t cr, ct, d, allow;
	size_t lo, hi;

	if (!x || !(crtime->flags & E4T_TS_STORED) ||
	    (crtime->flags & E4T_TS_ZERO) || !(ctime->flags & E4T_TS_STORED))
		return 0;
	cr = ts_ns(crtime);
	ct = ts_ns(ctime);
	d = ct - cr;
	if (d < 0)
		return 0; /* crtime-after-ctime's, not a copy's */
	if (d <= SLACK_NS)
		return 1;
	lo = bound(x, cr, 0);
	hi = bound(x, ct, 1);
	allow = SLACK_NS + (int64_t)(hi - lo) * PER_FILE_NS;
	if (allow >= d)
		return 1;
	/* (bytes / rate, in ns, without overflow for any real size) */
	allow += (int64_t)((bytes_before(x, hi) - bytes_before(x, lo)) /
			   (BYTES_PER_SEC / 1000)) *
		 1000000LL;
	return allow >= d;
}
