/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * import.c --- put the times of a manifest (from e4time export of
 * another image) into this image's inodes, matched by path or by inode
 * number, under a policy.  The whole manifest is read and checked
 * (e4t_manifest_read) before the image is opened for writing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "e4time.h"
#include "inorder_int.h"
#include "manifest_int.h"
#include "nfhint_int.h"

/* One entry landing on one inode. */
struct assign {
	ext2_ino_t ino;
	uint32_t entry;
};

/* Slots are fetched this many entries or names before they are used. */
#define AHEAD 16

/* A name of the image waiting for its look-up. */
struct pending {
	uint64_t h; /* of the path */
	ext2_ino_t ino;
	char *path; /* a copy */
	size_t len, cap;
};

struct im_ctx {
	struct e4t_image *img;
	struct e4t_tree *tree;
	const struct e4t_import_opts *o;
	struct e4t_import_stats *st;
	const struct e4t_manifest *mf;
	const struct e4t_mf_entry *entries;
	size_t nentries;
	unsigned fields;
	char *matched; /* per entry */
	/* open addressing: a slot is 0 (empty) or the entry's index + 1
	 * below 32 bits and its path's hash's top 32 bits above (a path
	 * whose hash differs there is passed without a look at it) */
	uint64_t *hash;
	size_t hcap;
	struct assign *assigns;
	size_t nassigns, acap;
	struct pending pend[AHEAD];	/* names waiting, from phead on */
	struct e4t_import_stats jst[2]; /* each thread's counts */
	size_t phead, npend;
	errcode_t err; /* a failed write, stops the run */
	int cb_err;    /* the record callback stopped the run */
};

const char *e4t_import_outcome_name(enum e4t_import_outcome o)
{
	switch (o) {
	case E4T_IMPORT_CHANGED: return "changed";
	case E4T_IMPORT_WOULD_CHANGE: return "would_change";
	case E4T_IMPORT_UNCHANGED: return "unchanged";
	case E4T_IMPORT_REFUSED: return "refused";
	case E4T_IMPORT_AMBIGUOUS: return "ambiguous";
	case E4T_IMPORT_UNMATCHED: return "unmatched";
	}
	return "?";
}

/* A path's hash: eight bytes at a time, multiplied and folded. */
static uint64_t hash_bytes(const char *s, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = n * k, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * k;
	}
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

/* The part of a slot, or of a hash, above the index. */
static inline uint64_t fp_of(uint64_t h)
{
	return h & ~(uint64_t)UINT32_MAX;
}

static inline void prefetch(const void *p)
{
#if defined(__GNUC__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

/* Entries in order; each one's slot is fetched AHEAD entries before. */
static errcode_t build_hash(struct im_ctx *c)
{
	uint64_t ring[AHEAD];
	size_t i, mask;

	if (c->nentries >= UINT32_MAX)
		return ENOMEM; /* an index + 1 must fit 32 bits */
	c->hcap = 16;
	while (c->hcap < c->nentries * 2)
		c->hcap *= 2;
	mask = c->hcap - 1;
	c->hash = calloc(c->hcap, sizeof(*c->hash));
	if (!c->hash)
		return ENOMEM;
	for (i = 0; i < c->nentries + AHEAD; i++) {
		if (i >= AHEAD) { /* entry e's slot, fetched: its turn */
			size_t e = i - AHEAD;
			uint64_t h = ring[e % AHEAD];
			size_t k = h & mask;

			while (c->hash[k])
				k = (k + 1) & mask;
			c->hash[k] = fp_of(h) | (e + 1);
		}
		if (i < c->nentries) {
			const struct e4t_mf_entry *m = &c->entries[i];
			uint64_t h = hash_bytes(m->path, m->path_len);

			prefetch(&c->hash[h & mask]);
			ring[i % AHEAD] = h;
		}
	}
	return 0;
}

static errcode_t add_assign(struct im_ctx *c, ext2_ino_t ino, size_t entry)
{
	if (e4t_grow(&c->assigns, &c->acap, c->nassigns + 1,
		     sizeof(*c->assigns), 4096))
		return ENOMEM;
	c->assigns[c->nassigns].ino = ino;
	c->assigns[c->nassigns].entry = (uint32_t)entry;
	c->nassigns++;
	c->matched[entry] = 1;
	return 0;
}

/* A name of the image: the entries of its path. */
static errcode_t look_up(struct im_ctx *c, const struct pending *r)
{
	size_t k = r->h & (c->hcap - 1);
	uint64_t s;

	for (; (s = c->hash[k]) != 0; k = (k + 1) & (c->hcap - 1)) {
		size_t i = (size_t)(s & 0xffffffffU) - 1;
		const struct e4t_mf_entry *e = &c->entries[i];

		if (fp_of(s) != fp_of(r->h) || e->path_len != r->len ||
		    memcmp(e->path, r->path, r->len))
			continue;
		if (add_assign(c, r->ino, i))
			return ENOMEM;
	}
	return 0;
}

/* The oldest name waiting, looked up. */
static errcode_t look_up_next(struct im_ctx *c)
{
	const struct pending *r = &c->pend[c->phead];

	c->phead = (c->phead + 1) % AHEAD;
	c->npend--;
	return look_up(c, r);
}

/*
 * Every name of the image: is it a path of the manifest?  A name waits
 * for AHEAD more, its slot fetched meanwhile (the slots of a million
 * paths are far apart); the order the names are looked up in does not
 * matter, the assignments are sorted.
 */
static int on_row(const struct e4t_row *row, void *priv)
{
	struct im_ctx *c = priv;
	struct pending *r;
	errcode_t err;

	if (c->npend == AHEAD) {
		err = look_up_next(c);
		if (err)
			return (int)err;
	}
	r = &c->pend[(c->phead + c->npend) % AHEAD];
	if (e4t_grow(&r->path, &r->cap, row->path_len, 1, 256))
		return ENOMEM;
	memcpy(r->path, row->path, row->path_len);
	r->len = row->path_len;
	r->ino = row->inode->ino;
	r->h = hash_bytes(row->path, row->path_len);
	prefetch(&c->hash[r->h & (c->hcap - 1)]);
	c->npend++;
	return 0;
}

static errcode_t match_by_inode(struct im_ctx *c)
{
	errcode_t err = 0;
	size_t i;

	if (c->nentries >= UINT32_MAX)
		return ENOMEM; /* an assign's entry must fit 32 bits */
	for (i = 0; i < c->nentries && !err; i++) {
		const struct e4t_mf_entry *e = &c->entries[i];
		struct e4t_inode in;

		if (!e->ino || e4t_tree_inode(c->tree, e->ino, &in))
			continue;
		err = add_assign(c, e->ino, i);
	}
	return err;
}

/*
 * Into inode order, and entry order on one inode: a radix sort on the
 * inode, 16 bits at a time (stable), then the few entries that share an
 * inode (hard links, a path given twice) put in order.  The walk's
 * order is a run of ascending inodes per directory: qsort took longer.
 */
static errcode_t sort_assigns(struct im_ctx *c)
{
	struct assign *a = c->assigns;
	size_t n = c->nassigns, i, k;
	errcode_t err;

	for (i = 1; i < n &&
		    (a[i - 1].ino < a[i].ino ||
		     (a[i - 1].ino == a[i].ino && a[i - 1].entry < a[i].entry));
	     i++)
		;
	if (i >= n)
		return 0; /* sorted already */
	err = e4t_inorder_sort(a, n, sizeof(*a), offsetof(struct assign, ino));
	if (err)
		return err;
	for (i = 1; i < n; i++) {
		struct assign x = a[i];

		for (k = i;
		     k > 0 && a[k - 1].ino == x.ino && a[k - 1].entry > x.entry;
		     k--)
			a[k] = a[k - 1];
		a[k] = x;
	}
	return 0;
}

/* Field f of entry i: given (and imported)? */
static int has(const struct im_ctx *c, size_t i, int f)
{
	return (c->fields & (1U << f)) && (c->entries[i].have & (1U << f));
}

/* Do two entries give the same times for the fields imported? */
static int same_times(const struct im_ctx *c, size_t a, size_t b)
{
	struct e4t_ts x, y;
	int f;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(c->fields & (1U << f)))
			continue;
		if (has(c, a, f) != has(c, b, f))
			return 0;
		if (!has(c, a, f))
			continue;
		e4t_mf_time(c->mf, a, f, &x);
		e4t_mf_time(c->mf, b, f, &y);
		if (e4t_ts_cmp(&x, &y))
			return 0;
	}
	return 1;
}

/* Hand a record to the caller; its non-zero return stops the run. */
static void emit(struct im_ctx *c, struct e4t_import_rec *r)
{
	int ret;

	if (!c->o->record || c->cb_err)
		return;
	ret = c->o->record(r, c->o->priv);
	if (ret) {
		c->cb_err = 1;
		if (!c->err)
			c->err = ret;
	}
}

/* A record of entry ei (r's other fields set). */
static void fill(const struct im_ctx *c, struct e4t_import_rec *r, size_t ei,
		 ext2_ino_t ino, enum e4t_import_outcome outcome)
{
	const struct e4t_mf_entry *e = &c->entries[ei];

	r->line = e->line;
	r->path = e->path;
	r->path_len = e->path_len;
	r->ino = ino;
	r->outcome = outcome;
}

/* A chunk's records, handed out in order (e4t_inorder_run()). */
struct im_out {
	struct e4t_import_rec *recs;
	size_t n, cap;
	size_t written;	   /* the records before it: their writes flushed */
	errcode_t mem_err; /* a record could not be kept */
};

/* What a thread works with: the context, its job, its chunk's records
 * and its counts. */
struct im_job {
	struct im_ctx *c;
	struct e4t_inorder_job *j;
	struct im_out *out;
	struct e4t_import_stats *st;
};

/* Keep a record of entry ei for the chunk's turn. */
static void keep(struct im_job *w, struct e4t_import_rec *r, size_t ei,
		 ext2_ino_t ino, enum e4t_import_outcome outcome)
{
	struct im_out *o = w->out;

	fill(w->c, r, ei, ino, outcome);
	if (e4t_grow(&o->recs, &o->cap, o->n + 1, sizeof(*o->recs), 256)) {
		o->mem_err = ENOMEM;
		return;
	}
	o->recs[o->n++] = *r;
}

/* Does the inode already hold every time the entry gives for the
 * fields imported, to the nanosecond?  (An entry that gives none is not
 * compared: it does not agree.) */
static int agrees(const struct im_ctx *c, const struct e4t_inode *in, size_t ei)
{
	struct e4t_ts t;
	int f, given = 0;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!has(c, ei, f))
			continue;
		given = 1;
		e4t_mf_time(c->mf, ei, f, &t);
		if (!(in->ts[f].flags & E4T_TS_STORED) ||
		    e4t_ts_cmp(&t, &in->ts[f]))
			return 0;
	}
	return given;
}

/* Entry ei (and the n-1 that agree with it) compared with its inode:
 * counted as compared, with a null time, agreeing. */
static void count_compared(struct im_job *w, const struct e4t_inode *in,
			   size_t ei, size_t n)
{
	const struct im_ctx *c = w->c;
	int f, given = 0, null = 0;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(c->fields & (1U << f)))
			continue;
		if (has(c, ei, f))
			given = 1;
		else
			null = 1;
	}
	if (given)
		w->st->compared += n;
	if (null)
		w->st->nulls += n;
	if (agrees(c, in, ei))
		w->st->agree += n;
}

/* Apply one manifest entry (of n that agree) to one inode. */
static void apply(struct im_job *w, const struct assign *a, size_t ei, size_t n)
{
	const struct im_ctx *c = w->c;
	struct e4t_import_rec r;
	struct e4t_inode in;
	unsigned set = 0;
	errcode_t err;
	int f;

	memset(&r, 0, sizeof(r));
	err = e4t_tree_inode(c->tree, a->ino, &in);
	if (err) {
		w->st->refused++;
		r.err = err;
		keep(w, &r, ei, a->ino, E4T_IMPORT_REFUSED);
		return;
	}
	count_compared(w, &in, ei, n);
	for (f = 0; f < E4T_DTIME; f++) {
		const struct e4t_ts *cur = &in.ts[f];
		struct e4t_ts t;

		if (!has(c, ei, f))
			continue;
		e4t_mf_time(c->mf, ei, f, &t);
		/* a field the inode cannot hold is refused below */
		if ((cur->flags & E4T_TS_STORED) &&
		    !e4t_policy_wants(c->o->policy, &t, cur))
			continue;
		r.new_ts[f] = t;
		set |= 1U << f;
	}
	if (!set) {
		w->st->unchanged++;
		keep(w, &r, ei, a->ino, E4T_IMPORT_UNCHANGED);
		return;
	}
	/* A check that fails refuses this inode; a failed write stops all. */
	err = e4t_check_settable(&in, set, r.new_ts);
	if (!err && !c->o->dry_run) {
		err = e4t_batch_set(w->j->batch, a->ino, set, r.new_ts);
		if (err) {
			w->j->write_err = err;
			return;
		}
	}
	if (err) {
		w->st->refused++;
		r.err = err;
		keep(w, &r, ei, a->ino, E4T_IMPORT_REFUSED);
		return;
	}
	w->st->changed++;
	r.fields = set;
	for (f = 0; f < E4T_DTIME; f++)
		if (set & (1U << f))
			r.old_ts[f] = in.ts[f];
	keep(w, &r, ei, a->ino,
	     c->o->dry_run ? E4T_IMPORT_WOULD_CHANGE : E4T_IMPORT_CHANGED);
}

static ext2_ino_t assign_ino(void *priv, size_t i)
{
	const struct im_ctx *c = priv;

	return c->assigns[i].ino;
}

/* The assignments [first, end) of a chunk (e4t_inorder_run() never cuts
 * between two of one inode: they share an inode-table block). */
static errcode_t work(void *priv, struct e4t_inorder_job *j, size_t first,
		      size_t end, void **out)
{
	struct im_ctx *c = priv;
	struct im_job w = { c, j, calloc(1, sizeof(struct im_out)),
			    &c->jst[j->index] };
	size_t i = first, k;

	*out = w.out;
	if (!w.out)
		return ENOMEM;
	while (i < end && !j->write_err) {
		const struct assign *a = &c->assigns[i];
		int agree = 1;

		/* All the entries that land on this inode must agree. */
		for (k = i + 1; k < end && c->assigns[k].ino == a->ino; k++)
			if (!same_times(c, a->entry, c->assigns[k].entry))
				agree = 0;
		if (agree) {
			apply(&w, a, a->entry, k - i);
		} else {
			for (; i < k; i++) {
				struct e4t_import_rec r;

				memset(&r, 0, sizeof(r));
				w.st->ambiguous++;
				keep(&w, &r, c->assigns[i].entry,
				     c->assigns[i].ino, E4T_IMPORT_AMBIGUOUS);
			}
		}
		i = k;
	}
	return w.out->mem_err;
}

/*
 * A window of the job's batch flushed: its inodes changed are written,
 * or (err) none of them is: their records go, and the run stops (apply()
 * sees the error).  The other records (unchanged, refused, ambiguous)
 * stay.
 */
static void flushed(void *priv, struct e4t_inorder_job *j, void *out,
		    errcode_t err)
{
	struct im_ctx *c = priv;
	struct im_out *o = out;
	size_t i, k = o->written;

	for (i = o->written; err && i < o->n; i++) {
		if (o->recs[i].outcome != E4T_IMPORT_CHANGED) {
			o->recs[k++] = o->recs[i];
			continue;
		}
		c->jst[j->index].changed--;
	}
	if (err) {
		o->n = k;
		if (!j->write_err)
			j->write_err = err; /* stop */
	}
	o->written = o->n;
}

static void drop(void *priv, void *out)
{
	struct im_out *o = out;

	(void)priv;
	free(o->recs);
	free(o);
}

/* A chunk's records, in order; the callback's non-zero value. */
static int emit_chunk(void *priv, void *out)
{
	struct im_ctx *c = priv;
	const struct im_out *o = out;
	size_t i;

	for (i = 0; i < o->n && !c->cb_err; i++)
		emit(c, &o->recs[i]);
	drop(priv, out);
	return c->cb_err ? (int)c->err : 0;
}

/* The assignments, in inode order: the times set, through a batch per
 * thread (as backfill), the records handed out in order. */
static void apply_all(struct im_ctx *c)
{
	struct e4t_inorder io = {
		.img = c->img,
		.ino = assign_ino,
		.work = work,
		.emit = emit_chunk,
		.drop = drop,
		.flushed = flushed,
		.threads = c->o->threads,
		.priv = c,
	};
	errcode_t err, write_err;
	int i;

	c->err = sort_assigns(c);
	if (c->err)
		return;
	io.n = c->nassigns;
	err = e4t_inorder_run(&io, &write_err);
	c->st->write_err = write_err;
	for (i = 0; i < 2; i++) {
		c->st->changed += c->jst[i].changed;
		c->st->unchanged += c->jst[i].unchanged;
		c->st->refused += c->jst[i].refused;
		c->st->ambiguous += c->jst[i].ambiguous;
		c->st->agree += c->jst[i].agree;
		c->st->compared += c->jst[i].compared;
		c->st->nulls += c->jst[i].nulls;
	}
	/* a failed write first: the run stopped there */
	if (write_err)
		c->err = write_err;
	else if (err && !c->err)
		c->err = err;
}

/* The unmatched entries, each with its hint (by path): a name of the
 * image that is the same under Unicode normalization (nfhint.c). */
static void report_unmatched(struct im_ctx *c)
{
	struct e4t_nf_hints *h = NULL;
	size_t i;

	/* a hint is advice: none when it cannot be looked for */
	if (c->o->match == E4T_IMPORT_BY_PATH &&
	    e4t_nf_hints(c->tree, c->entries, c->nentries, c->matched, &h))
		h = NULL;
	for (i = 0; i < c->nentries; i++) {
		const struct e4t_nf_hint *nh;
		struct e4t_import_rec r;

		if (c->matched[i])
			continue;
		c->st->unmatched++;
		memset(&r, 0, sizeof(r));
		fill(c, &r, i, 0, E4T_IMPORT_UNMATCHED);
		nh = e4t_nf_hint_of(h, i);
		if (nh) {
			r.hint = nh->path;
			r.hint_len = nh->len;
			c->st->hinted++;
		}
		emit(c, &r);
	}
	e4t_nf_hints_free(h);
}

errcode_t e4t_import_run(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_import_opts *opts,
			 struct e4t_import_stats *stats)
{
	struct im_ctx c;
	errcode_t err;
	size_t i;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	c.img = img;
	c.tree = tree;
	c.o = opts;
	c.st = stats;
	c.fields = opts->fields ? opts->fields : 1U << E4T_CRTIME;
	c.mf = opts->manifest;
	if (c.mf) {
		/* the times of a field the manifest was read without */
		if (c.fields & ~c.mf->fields)
			return EINVAL;
		c.entries = c.mf->entries;
		c.nentries = c.mf->n;
	}
	stats->entries = c.nentries;
	c.matched = calloc(c.nentries ? c.nentries : 1, 1);
	if (!c.matched)
		return ENOMEM;
	if (opts->match == E4T_IMPORT_BY_INODE) {
		err = match_by_inode(&c);
	} else {
		err = build_hash(&c);
		if (!err)
			err = e4t_tree_walk(tree, EXT2_ROOT_INO, "/", on_row,
					    &c);
		while (!err && c.npend)
			err = look_up_next(&c);
		/* no root directory (damage): no path can match */
		if (err == E4T_ERR_NOT_IN_USE)
			stats->no_root = 1;
	}
	if (!err) {
		apply_all(&c);
		report_unmatched(&c);
		err = c.err;
	}
	for (i = 0; i < AHEAD; i++)
		free(c.pend[i].path);
	free(c.assigns);
	free(c.hash);
	free(c.matched);
	return err;
}
