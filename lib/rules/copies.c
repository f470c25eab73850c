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

struct e4t_copyidx {
	int64_t *cr;	 /* crtimes in nanoseconds, sorted */
	uint64_t *bytes; /* bytes[i]: the sizes of cr[0..i), summed */
	size_t n;
};

struct crsz {
	int64_t cr;
	uint64_t size;
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

errcode_t e4t_copyidx_build(const struct e4t_tree *tree, ext2_ino_t ninodes,
			    struct e4t_copyidx **ret)
{
	struct e4t_copyidx *x;
	struct crsz *a = NULL;
	size_t cap = 0, n = 0, i;
	ext2_ino_t ino;

	*ret = NULL;
	for (ino = 1; ino && ino <= ninodes; ino++) {
		struct e4t_inode in;

		if (e4t_tree_inode(tree, ino, &in) || !in.links)
			continue;
		if (!(in.ts[E4T_CRTIME].flags & E4T_TS_STORED) ||
		    (in.ts[E4T_CRTIME].flags & E4T_TS_ZERO))
			continue;
		if (e4t_grow(&a, &cap, n + 1, sizeof(*a), 4096)) {
			free(a);
			return ENOMEM;
		}
		a[n].cr = ts_ns(&in.ts[E4T_CRTIME]);
		a[n].size = in.size;
		n++;
	}
	x = calloc(1, sizeof(*x));
	if (x) {
		x->cr = malloc((n ? n : 1) * sizeof(*x->cr));
		x->bytes = malloc((n + 1) * sizeof(*x->bytes));
	}
	if (!x || !x->cr || !x->bytes) {
		e4t_copyidx_free(x);
		free(a);
		return ENOMEM;
	}
	if (n)
		qsort(a, n, sizeof(*a), cmp_crsz);
	x->bytes[0] = 0;
	for (i = 0; i < n; i++) {
		x->cr[i] = a[i].cr;
		x->bytes[i + 1] = x->bytes[i] + a[i].size;
	}
	x->n = n;
	free(a);
	*ret = x;
	return 0;
}

void e4t_copyidx_free(struct e4t_copyidx *x)
{
	if (!x)
		return;
	free(x->cr);
	free(x->bytes);
	free(x);
}

/* The first index whose crtime is >= t (or > t with after). */
static size_t bound(const struct e4t_copyidx *x, int64_t t, int after)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->cr[mid] < t || (after && x->cr[mid] == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	allow += (int64_t)((x->bytes[hi] - x->bytes[lo]) /
			   (BYTES_PER_SEC / 1000)) *
		 1000000LL;
	return allow >= d;
}
