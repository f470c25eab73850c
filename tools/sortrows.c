/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sortrows.c --- timeline --sort's rows, kept until the walk ends in as
 * few bytes as they need (peak memory at most 128 bytes per inode on a
 * million files, the tree's included: bench/memory.sh).
 *
 * Per row, a 12-byte sort key: the time (seconds, then nanoseconds;
 * all ones when the field is not shown, so those rows come last) and
 * the row's number, which breaks ties in the order rows came.  Records
 * are appended in walk order; every 32nd row's offset is kept, the
 * others found by reading on from there.
 *
 * The record (a byte stream, read with memcpy: nothing aligned): the
 * inode number (4 bytes), the status (1; bit 7: an extra entry's index
 * follows, 4), the length of the last path component (1), then its
 * bytes.  A directory part (the path up to and with the last '/', and
 * the row's parent) is stored once for each run of rows that share it
 * (in walk order, a directory's entries follow one another), with the
 * offset of the run's first record: a record's is the last that starts
 * at or before it.  The keys are sorted in place (qsort would take as
 * much again for its merge).  What few rows have besides (a name
 * source, a journaled state, an inode the tree does not hold) is an
 * extra entry.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sortrows.h"

#define NSEC_BITS 30	      /* nanoseconds: below 2^30 (30 bits on disk) */
#define SEC_BIAS  (1LL << 31) /* ext4's seconds: [-2^31, 2^34 - 2^31) */
#define LAST_BIT  (1U << 31)  /* in seq: the field is not shown */
#define IDX_EVERY 32	      /* rows per entry of the offset index */
#define REC_HDR	  6
#define EXTRA_BIT 0x80

/* (t_hi, t_lo, seq) compared in turn; t: the seconds (biased) above
 * the nanoseconds, all ones when not shown. */
struct skey {
	uint32_t t_hi, t_lo;
	uint32_t seq; /* the row's number, LAST_BIT when not shown */
};

struct dpart {
	uint64_t rec; /* the offset of its first record */
	uint64_t off; /* in dbuf */
	uint32_t len;
	ext2_ino_t parent;
};

struct extra {
	const char *name_source;
	struct e4t_inode *info;
	struct e4t_row_journal jsrc;
	int has_jsrc;
};

struct sortrows {
	enum e4t_field field;
	struct skey *keys;
	size_t nkeys, keys_cap;
	uint64_t *idx; /* the offset of row i * IDX_EVERY's record */
	size_t idx_cap;
	unsigned char *recs;
	size_t recs_len, recs_cap;
	char *dbuf;
	size_t dbuf_len, dbuf_cap;
	struct dpart *dparts;
	size_t ndparts, dparts_cap;
	struct extra *extras;
	size_t nextras, extras_cap;
};

errcode_t sortrows_new(enum e4t_field field, struct sortrows **ret)
{
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return ENOMEM;
	(*ret)->field = field;
	return 0;
}

/* The index of the directory part path[0..len) with parent: the last
 * one when it is the same, else a new one. */
static errcode_t dpart_of(struct sortrows *s, const char *path, size_t len,
			  ext2_ino_t parent)
{
	struct dpart *d;

	if (s->ndparts) {
		d = &s->dparts[s->ndparts - 1];
		if (d->len == len && d->parent == parent &&
		    !memcmp(s->dbuf + d->off, path, len))
			return 0;
	}
	if (len > UINT32_MAX ||
	    e4t_grow(&s->dparts, &s->dparts_cap, s->ndparts + 1,
		     sizeof(*s->dparts), 1024) ||
	    e4t_grow(&s->dbuf, &s->dbuf_cap, s->dbuf_len + len, 1, 65536))
		return ENOMEM;
	d = &s->dparts[s->ndparts];
	d->rec = s->recs_len;
	d->off = s->dbuf_len;
	d->len = (uint32_t)len;
	d->parent = parent;
	memcpy(s->dbuf + s->dbuf_len, path, len);
	s->dbuf_len += len;
	s->ndparts++;
	return 0;
}

static errcode_t add_extra(struct sortrows *s, const struct e4t_row *row,
			   uint32_t *ret)
{
	struct extra *x;

	if (s->nextras >= UINT32_MAX ||
	    e4t_grow(&s->extras, &s->extras_cap, s->nextras + 1,
		     sizeof(*s->extras), 64))
		return ENOMEM;
	x = &s->extras[s->nextras];
	memset(x, 0, sizeof(*x));
	x->name_source = row->name_source;
	x->has_jsrc = row->journal != NULL;
	if (row->journal)
		x->jsrc = *row->journal;
	x->info = malloc(sizeof(*x->info));
	if (!x->info)
		return ENOMEM;
	*x->info = *row->inode;
	*ret = (uint32_t)s->nextras++;
	return 0;
}

errcode_t sortrows_add(struct sortrows *s, const struct e4t_row *row)
{
	const struct e4t_ts *ts = &row->inode->ts[s->field];
	size_t dlen = row->path_len, nlen;
	unsigned char hdr[REC_HDR + 4], *r;
	uint32_t ino = row->inode->ino, xi = 0;
	size_t hlen = REC_HDR;
	int extra = row->name_source || row->journal ||
		    row->status == E4T_NAME_ONLY || /* no inode in the tree */
		    row->status == E4T_DELETED_NOINODE ||
		    (row->inode->flags & E4T_INO_GEN);
	struct skey *k;
	errcode_t err;

	while (dlen && row->path[dlen - 1] != '/')
		dlen--; /* up to and with the last '/' */
	nlen = row->path_len - dlen;
	if (nlen > 255) { /* no name is; the whole path as directory part */
		dlen = row->path_len;
		nlen = 0;
	}
	if (s->nkeys >= LAST_BIT)
		return ENOMEM; /* 2^31 rows */
	err = dpart_of(s, row->path, dlen, row->parent);
	if (!err && extra)
		err = add_extra(s, row, &xi);
	if (err ||
	    e4t_grow(&s->keys, &s->keys_cap, s->nkeys + 1, sizeof(*s->keys),
		     4096) ||
	    e4t_grow(&s->idx, &s->idx_cap, s->nkeys / IDX_EVERY + 1,
		     sizeof(*s->idx), 1024))
		return err ? err : ENOMEM;
	memcpy(hdr, &ino, 4);
	hdr[4] = (unsigned char)row->status | (extra ? EXTRA_BIT : 0);
	hdr[5] = (unsigned char)nlen;
	if (extra) {
		memcpy(hdr + REC_HDR, &xi, 4);
		hlen += 4;
	}
	if (e4t_grow(&s->recs, &s->recs_cap, s->recs_len + hlen + nlen, 1,
		     65536))
		return ENOMEM;
	if (!(s->nkeys % IDX_EVERY))
		s->idx[s->nkeys / IDX_EVERY] = s->recs_len;
	k = &s->keys[s->nkeys];
	k->seq = (uint32_t)s->nkeys++;
	if (ts_shown(ts, s->field)) {
		uint64_t t = (uint64_t)(ts->sec + SEC_BIAS) << NSEC_BITS |
			     (ts->nsec & ((1U << NSEC_BITS) - 1));

		k->t_hi = (uint32_t)(t >> 32);
		k->t_lo = (uint32_t)t;
	} else {
		k->t_hi = k->t_lo = UINT32_MAX;
		k->seq |= LAST_BIT;
	}
	r = s->recs + s->recs_len;
	memcpy(r, hdr, hlen);
	memcpy(r + hlen, row->path + dlen, nlen);
	s->recs_len += hlen + nlen;
	return 0;
}

static int key_lt(const struct skey *x, const struct skey *y)
{
	if (x->t_hi != y->t_hi)
		return x->t_hi < y->t_hi;
	if (x->t_lo != y->t_lo)
		return x->t_lo < y->t_lo;
	return x->seq < y->seq;
}

static void swap_key(struct skey *x, struct skey *y)
{
	struct skey t = *x;

	*x = *y;
	*y = t;
}

static void sift_down(struct skey *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && key_lt(&a[c], &a[c + 1]))
			c++;
		if (!key_lt(&a[i], &a[c]))
			return;
		swap_key(&a[i], &a[c]);
		i = c;
	}
}

static void heap_sort(struct skey *a, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (i = n; i-- > 1;) {
		swap_key(&a[0], &a[i]);
		sift_down(a, 0, i);
	}
}

/* Insertion sort, for short runs. */
static void insertion_sort(struct skey *a, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct skey k = a[i];

		for (j = i; j > 0 && key_lt(&k, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = k;
	}
}

/* Partition a[0, n) (n > 2) around the median of three; returns j:
 * [0, j] <= pivot <= [j + 1, n), both parts non-empty. */
static size_t partition(struct skey *a, size_t n)
{
	size_t m = n / 2, i = 0, j = n - 1;
	struct skey p;

	if (key_lt(&a[m], &a[0]))
		swap_key(&a[m], &a[0]);
	if (key_lt(&a[n - 1], &a[0]))
		swap_key(&a[n - 1], &a[0]);
	if (key_lt(&a[n - 1], &a[m]))
		swap_key(&a[n - 1], &a[m]);
	p = a[m];
	for (;;) {
		while (key_lt(&a[i], &p))
			i++;
		while (key_lt(&p, &a[j]))
			j--;
		if (i >= j)
			return j;
		swap_key(&a[i], &a[j]);
		i++;
		j--;
	}
}

/*
 * In place: quicksort without recursion (the larger part waits on a
 * stack, the smaller is sorted first: at most 64 wait), heapsort for a
 * part that took too many partitions, insertion sort for short runs.
 * The keys are all different (the row numbers are), so any sort gives
 * the one order.
 */
static void sort_keys(struct skey *a, size_t n)
{
	struct {
		struct skey *a;
		size_t n;
		unsigned depth;
	} stack[64];
	size_t top = 0;
	unsigned depth = 128;

	for (;;) {
		while (n > 16) {
			size_t j;

			if (!depth--) {
				heap_sort(a, n);
				n = 0;
				break;
			}
			j = partition(a, n);
			if (top == 64) { /* cannot happen: halves at least */
				heap_sort(a, n);
				n = 0;
				break;
			}
			if (j + 1 < n - j - 1) {
				stack[top].a = a + j + 1;
				stack[top].n = n - j - 1;
				n = j + 1;
			} else {
				stack[top].a = a;
				stack[top].n = j + 1;
				a += j + 1;
				n -= j + 1;
			}
			stack[top++].depth = depth;
		}
		insertion_sort(a, n);
		if (!top)
			return;
		top--;
		a = stack[top].a;
		n = stack[top].n;
		depth = stack[top].depth;
	}
}

/* The directory part of the record at off: the last run starting at or
 * before it. */
static const struct dpart *dpart_at(const struct sortrows *s, uint64_t off)
{
	size_t lo = 0, hi = s->ndparts;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->dparts[mid].rec <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &s->dparts[lo];
}

errcode_t sortrows_emit(struct sortrows *s, struct e4t_tree *tree,
			int (*emit)(void *priv, const struct e4t_row *row),
			void *priv)
{
	char *path = NULL;
	size_t path_cap = 0, i;
	errcode_t err = 0;

	sort_keys(s->keys, s->nkeys);
	for (i = 0; i < s->nkeys && !err; i++) {
		uint32_t seq = s->keys[i].seq & ~LAST_BIT, j;
		uint64_t off = s->idx[seq / IDX_EVERY];
		const unsigned char *r;
		const struct dpart *d;
		const struct extra *x = NULL;
		struct e4t_inode info;
		struct e4t_row row = { 0 };
		uint32_t ino, xi;
		size_t hlen = REC_HDR, nlen;

		for (j = seq - seq % IDX_EVERY; j < seq; j++)
			off += REC_HDR +
			       (s->recs[off + 4] & EXTRA_BIT ? 4 : 0) +
			       s->recs[off + 5];
		r = s->recs + off;
		nlen = r[5];
		memcpy(&ino, r, 4);
		if (r[4] & EXTRA_BIT) {
			memcpy(&xi, r + REC_HDR, 4);
			x = &s->extras[xi];
			hlen += 4;
		}
		d = dpart_at(s, off);
		if (e4t_grow(&path, &path_cap, (size_t)d->len + nlen + 1, 1,
			     4096)) {
			err = ENOMEM;
			break;
		}
		memcpy(path, s->dbuf + d->off, d->len);
		memcpy(path + d->len, r + hlen, nlen);
		path[d->len + nlen] = '\0';
		if (x && x->info)
			info = *x->info;
		else
			err = e4t_tree_inode(tree, ino, &info);
		if (err)
			break;
		row.path = path;
		row.path_len = d->len + nlen;
		row.inode = &info;
		row.status = (enum e4t_status)(r[4] & ~EXTRA_BIT);
		row.parent = d->parent;
		row.name_source = x ? x->name_source : NULL;
		row.journal = x && x->has_jsrc ? &x->jsrc : NULL;
		err = emit(priv, &row);
	}
	free(path);
	return err;
}

void sortrows_free(struct sortrows *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nextras; i++)
		free(s->extras[i].info);
	free(s->extras);
	free(s->keys);
	free(s->idx);
	free(s->recs);
	free(s->dbuf);
	free(s->dparts);
	free(s);
}
