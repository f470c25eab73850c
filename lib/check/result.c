/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result.c --- the problems e4time check found: kept small (prec_int.h),
 * put in inode order, given to the caller whole (e4t_check_get()), decided
 * as e2fsck decides (-n, -p, -y, or asked) and counted for the summary.
 * The tool prints them; it asks the questions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "check/prec_int.h"

struct e4t_prec *e4t_prec_add(struct e4t_check_result *res, ext2_ino_t ino,
			      enum e4t_pcode code, const char *path, size_t len)
{
	struct e4t_prec *r;

	if (e4t_grow(&res->rec, &res->cap, res->n + 1, sizeof(*res->rec),
		     1024) ||
	    e4t_grow(&res->paths, &res->paths_cap, res->paths_len + len + 1, 1,
		     65536))
		return NULL;
	r = &res->rec[res->n++];
	memset(r, 0, sizeof(*r));
	r->ino = ino;
	r->code = (uint8_t)code;
	r->path_off = res->paths_len;
	r->path_len = (uint32_t)len;
	memcpy(res->paths + res->paths_len, path, len);
	res->paths[res->paths_len + len] = 0;
	res->paths_len += len + 1;
	if (e4t_problem_def(code)->flags & E4T_PF_NOFIX)
		r->nofix = E4T_NOFIX_NEVER;
	return r;
}

void e4t_prec_fixed(uint32_t base, uint32_t extra, int epoch, struct e4t_ts *ts)
{
	uint32_t x = extra;

	if (epoch)
		x &= ~EPOCH_MASK;
	/* the nanoseconds carried into the seconds, as the kernel shows them
	 * (e4t_ts_decode() does it) */
	e4t_ts_decode(base, &x, ts);
	if (ts->sec > E4T_SEC_MAX) {
		/* past 2446-05-10T22:38:55Z: no encoding; the seconds kept */
		x &= EPOCH_MASK;
		e4t_ts_decode(base, &x, ts);
	}
	ts->flags &= ~(uint32_t)E4T_TS_BAD_NSEC;
}

void e4t_prec_corrected(uint32_t base, uint32_t extra, int has_extra,
			int pre1970, struct e4t_ts *ts)
{
	if (!has_extra) {
		e4t_ts_decode(base, NULL, ts);
		return;
	}
	e4t_ts_decode(base, &extra, ts);
	e4t_prec_fixed(base, extra, pre1970 && (ts->flags & E4T_TS_OLD_PRE1970),
		       ts);
}

/*
 * Inode order.  One inode's problems are added together, in table order;
 * the walk goes in directory order, inode order only now and then (an
 * indexed directory's entries are in hash order).  Keys (inode, position)
 * are sorted by inode with a radix sort, 16 bits a pass, which keeps one
 * inode's problems in order, and the positions kept as res->order: the
 * records themselves stay where they are (moving a million of them in
 * place costs two cache misses each).
 */
#define RADIX_BITS 16
#define RADIX	   (1U << RADIX_BITS)

static void radix_pass(const uint64_t *in, uint64_t *out, size_t n,
		       unsigned shift, size_t *count)
{
	size_t i, sum = 0;

	memset(count, 0, RADIX * sizeof(*count));
	for (i = 0; i < n; i++)
		count[(in[i] >> shift) & (RADIX - 1)]++;
	for (i = 0; i < RADIX; i++) {
		size_t c = count[i];

		count[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[count[(in[i] >> shift) & (RADIX - 1)]++] = in[i];
}

errcode_t e4t_prec_order(struct e4t_check_result *res)
{
	const struct e4t_prec *p = res->rec;
	uint64_t *key, *buf, *t;
	size_t i, *count;
	uint32_t high = 0;
	unsigned shift;

	free(res->order);
	res->order = NULL;
	for (i = 1; i < res->n; i++)
		if (p[i - 1].ino > p[i].ino)
			break;
	if (i >= res->n)
		return 0;
	key = malloc(res->n * sizeof(*key));
	buf = malloc(res->n * sizeof(*buf));
	count = malloc(RADIX * sizeof(*count));
	res->order = malloc(res->n * sizeof(*res->order));
	if (!key || !buf || !count || !res->order) {
		free(key);
		free(buf);
		free(count);
		free(res->order);
		res->order = NULL;
		return ENOMEM;
	}
	for (i = 0; i < res->n; i++) {
		key[i] = (uint64_t)p[i].ino << 32 | i;
		high |= p[i].ino;
	}
	for (shift = 32; shift < 64 && (high >> (shift - 32)); shift += 16) {
		radix_pass(key, buf, res->n, shift, count);
		t = key;
		key = buf;
		buf = t;
	}
	for (i = 0; i < res->n; i++)
		res->order[i] = (uint32_t)key[i];
	free(key);
	free(buf);
	free(count);
	return 0;
}

struct e4t_prec *e4t_prec_at(const struct e4t_check_result *res, size_t i)
{
	/* the next ones are far apart: fetched while this one is used */
	if (res->order && i + 8 < res->n)
		__builtin_prefetch(&res->rec[res->order[i + 8]]);
	return &res->rec[res->order ? res->order[i] : i];
}

void e4t_check_get(const struct e4t_check_result *res, size_t i,
		   struct e4t_problem *p)
{
	const struct e4t_prec *r = e4t_prec_at(res, i);
	int extra = (r->bits & PREC_EXTRA) != 0;

	memset(p, 0, sizeof(*p));
	p->code = (enum e4t_pcode)r->code;
	p->ino = r->ino;
	p->field = (enum e4t_field)r->field;
	p->raw_base = r->raw_base;
	p->raw_extra = r->raw_extra;
	p->extra_isize = r->extra_isize;
	p->path = res->paths + r->path_off;
	p->path_len = r->path_len;
	p->nofix = (enum e4t_nofix)r->nofix;
	p->fix = (r->bits & PREC_FIX) != 0;
	p->fixed = (r->bits & PREC_FIXED) != 0;
	if (r->src && res->src_names)
		p->src_xattr = res->src_names[r->src - 1];
	switch (p->code) {
	case E4T_P_SB_EXTRA_ISIZE:
	case E4T_P_EXTRA_ISIZE_SMALL:
		p->min_isize = (uint16_t)r->lim_base;
		return;
	case E4T_P_CRTIME_NO_ROOM: break; /* no value: not stored */
	case E4T_P_FUTURE:
		e4t_prec_corrected(r->raw_base, r->raw_extra, extra,
				   res->pre1970, &p->value);
		p->limit.sec = res->limit;
		p->limit.flags = E4T_TS_STORED;
		break;
	case E4T_P_CRTIME_AFTER_CTIME:
	case E4T_P_CRTIME_AFTER_MTIME:
		e4t_prec_corrected(r->lim_base, r->lim_extra,
				   (r->bits & PREC_LIM_EXTRA) != 0,
				   res->pre1970, &p->limit);
		/* fall through */
	default:
		e4t_ts_decode(r->raw_base, extra ? &r->raw_extra : NULL,
			      &p->value);
		break;
	}
	switch (p->code) {
	case E4T_P_BAD_NSEC:
	case E4T_P_OLD_PRE1970:
		/* this fix alone: the time carried, or the epoch bits
		 * cleared (fix.c writes an inode's fixes together) */
		e4t_prec_fixed(r->raw_base, r->raw_extra,
			       p->code == E4T_P_OLD_PRE1970, &p->fix_to);
		break;
	default:
		p->fix_to.sec = r->fix_sec;
		p->fix_to.nsec = r->fix_nsec;
		p->fix_to.flags = r->fix_flags;
		break;
	}
}

/*
 * The error decided before problem i, of the same inode and field, whose
 * fix writes what the warning's would (T0005's crtime for T0006), or
 * NULL.  An inode's problems are together, in the table's order.
 */
static const struct e4t_prec *fixed_with(const struct e4t_check_result *res,
					 size_t i)
{
	const struct e4t_prec *w = e4t_prec_at(res, i);

	while (i-- > 0) {
		const struct e4t_prec *r = e4t_prec_at(res, i);

		if (r->ino != w->ino)
			return NULL;
		if (r->code == E4T_P_CRTIME_AFTER_CTIME &&
		    w->code == E4T_P_CRTIME_AFTER_MTIME && !r->nofix &&
		    r->fix_sec == w->fix_sec && r->fix_nsec == w->fix_nsec)
			return r;
	}
	return NULL;
}

int e4t_check_decide(struct e4t_check_result *res, size_t i,
		     enum e4t_check_mode mode)
{
	struct e4t_prec *r = e4t_prec_at(res, i);
	const struct e4t_problem_def *d = e4t_problem_def(r->code);

	if (res->refuse && !r->nofix)
		r->nofix = (uint8_t)res->refuse;
	r->bits &= (uint8_t)~PREC_FIX;
	/* a warning: fixed when named, or by its error's fix */
	if ((d->flags & E4T_PF_WARNING) &&
	    !(res->fix_warnings & (1U << r->code))) {
		const struct e4t_prec *e = r->nofix ? NULL : fixed_with(res, i);

		if (e) {
			r->bits |= (uint8_t)(e->bits & PREC_FIX);
			return (e->bits & PREC_FIX) != 0;
		}
		/* what --fix would still need is said once it is named */
		if (!r->nofix || r->nofix == E4T_NOFIX_NO_SOURCE ||
		    r->nofix == E4T_NOFIX_SOURCE_EMPTY ||
		    r->nofix == E4T_NOFIX_SOURCE_LATE)
			r->nofix = E4T_NOFIX_WARNING;
	}
	if (r->nofix)
		return 0;
	switch (mode) {
	case E4T_CHECK_NO: return 0;
	case E4T_CHECK_YES: break;
	case E4T_CHECK_PREEN:
		if (!(d->flags & E4T_PF_PREEN))
			return 0;
		break;
	case E4T_CHECK_ASK: return -1;
	}
	r->bits |= PREC_FIX;
	return 1;
}

void e4t_check_answer(struct e4t_check_result *res, size_t i, int fix)
{
	struct e4t_prec *r = e4t_prec_at(res, i);

	if (fix && !r->nofix)
		r->bits |= PREC_FIX;
	else
		r->bits &= (uint8_t)~PREC_FIX;
}

int e4t_check_any_fix(const struct e4t_check_result *res)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (res->rec[i].bits & PREC_FIX)
			return 1;
	return 0;
}

void e4t_check_summarize(const struct e4t_check_result *res,
			 struct e4t_check_summary *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->inodes = res->inodes;
	s->skipped = res->skipped_csum;
	s->inode_size = res->inode_size;
	for (i = 0; i < res->n; i++) {
		const struct e4t_prec *r = e4t_prec_at(res, i);
		int fixed = (r->bits & PREC_FIXED) != 0;

		if (e4t_problem_def(r->code)->flags & E4T_PF_WARNING) {
			s->warnings++;
			if (fixed)
				s->warnings_fixed++;
			else
				s->warnings_left++;
		} else {
			s->errors++;
			if (fixed)
				s->fixed++;
			else
				s->left++;
		}
	}
}

void e4t_check_result_free(struct e4t_check_result *res)
{
	free(res->paths);
	free(res->rec);
	free(res->order);
	memset(res, 0, sizeof(*res));
}
