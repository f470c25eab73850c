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

struct entry {
	struct e4t_manifest_entry m;
	unsigned long line;
};

struct e4t_manifest {
	struct entry *entries;
	size_t n, cap;
};

/* One entry landing on one inode. */
struct assign {
	ext2_ino_t ino;
	size_t entry;
};

struct im_ctx {
	struct e4t_image *img;
	struct e4t_tree *tree;
	const struct e4t_import_opts *o;
	struct e4t_import_stats *st;
	const struct entry *entries;
	size_t nentries;
	unsigned fields;
	char *matched;		 /* per entry */
	struct e4t_batch *batch; /* the writes, in inode order */
	size_t *hash;		 /* open addressing; index + 1, 0 = empty */
	size_t hcap;
	struct assign *assigns;
	size_t nassigns, acap;
	errcode_t err; /* a failed write, stops the run */
	int cb_err;    /* the record callback stopped the run */
};

void e4t_manifest_free(struct e4t_manifest *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		e4t_manifest_entry_free(&m->entries[i].m);
	free(m->entries);
	free(m);
}

size_t e4t_manifest_count(const struct e4t_manifest *m)
{
	return m ? m->n : 0;
}

static errcode_t add_entry(struct e4t_manifest *mf,
			   const struct e4t_manifest_entry *m,
			   unsigned long line)
{
	if (e4t_grow(&mf->entries, &mf->cap, mf->n + 1, sizeof(*mf->entries),
		     1024))
		return ENOMEM;
	mf->entries[mf->n].m = *m;
	mf->entries[mf->n].line = line;
	mf->n++;
	return 0;
}

errcode_t e4t_manifest_read(FILE *fp, struct e4t_manifest **ret,
			    struct e4t_manifest_bad *bad)
{
	struct e4t_manifest *mf = calloc(1, sizeof(*mf));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0, first = 0; /* the first line not empty */
	errcode_t err = 0;

	*ret = NULL;
	memset(bad, 0, sizeof(*bad));
	if (!mf)
		return ENOMEM;
	errno = 0;
	while ((n = getline(&line, &cap, fp)) >= 0) {
		struct e4t_manifest_entry m;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n == 0)
			continue; /* empty lines, before the header too */
		if (!first)
			first = lineno;
		err = e4t_manifest_parse_line(line, (size_t)n, &m, &bad->why);
		if (err || (m.header_version && lineno != first) ||
		    m.header_version > 1) {
			bad->line = lineno;
			bad->unknown_version = m.header_version > 1;
			if (!err)
				err = E4T_ERR_MANIFEST;
			e4t_manifest_entry_free(&m);
			goto fail;
		}
		if (m.header_version)
			continue;
		err = add_entry(mf, &m, lineno);
		if (err) {
			e4t_manifest_entry_free(&m);
			goto fail;
		}
	}
	if (ferror(fp)) {
		err = errno ? errno : EIO;
		goto fail;
	}
	free(line);
	*ret = mf;
	return 0;
fail:
	free(line);
	e4t_manifest_free(mf);
	return err;
}

errcode_t e4t_manifest_map(struct e4t_manifest *mf,
			   const struct e4t_pathmap *pm, size_t *outside)
{
	size_t i, kept = 0;

	*outside = 0;
	for (i = 0; mf && i < mf->n; i++) {
		struct entry *e = &mf->entries[i];
		size_t len;
		char *p;

		if (e4t_pathmap_apply(pm, e->m.path, e->m.path_len, &p, &len))
			return ENOMEM;
		if (!p) {
			(*outside)++;
			e4t_manifest_entry_free(&e->m);
			continue;
		}
		free(e->m.path);
		e->m.path = p;
		e->m.path_len = len;
		mf->entries[kept++] = *e;
	}
	if (mf)
		mf->n = kept;
	return 0;
}

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

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static errcode_t build_hash(struct im_ctx *c)
{
	size_t i;

	c->hcap = 16;
	while (c->hcap < c->nentries * 2)
		c->hcap *= 2;
	c->hash = calloc(c->hcap, sizeof(*c->hash));
	if (!c->hash)
		return ENOMEM;
	for (i = 0; i < c->nentries; i++) {
		const struct e4t_manifest_entry *m = &c->entries[i].m;
		size_t k = hash_bytes(m->path, m->path_len) & (c->hcap - 1);

		while (c->hash[k])
			k = (k + 1) & (c->hcap - 1);
		c->hash[k] = i + 1;
	}
	return 0;
}

static errcode_t add_assign(struct im_ctx *c, ext2_ino_t ino, size_t entry)
{
	if (e4t_grow(&c->assigns, &c->acap, c->nassigns + 1,
		     sizeof(*c->assigns), 64))
		return ENOMEM;
	c->assigns[c->nassigns].ino = ino;
	c->assigns[c->nassigns].entry = entry;
	c->nassigns++;
	c->matched[entry] = 1;
	return 0;
}

/* Every name of the image: is it a path of the manifest? */
static int on_row(const struct e4t_row *row, void *priv)
{
	struct im_ctx *c = priv;
	size_t k = hash_bytes(row->path, row->path_len) & (c->hcap - 1);

	for (; c->hash[k]; k = (k + 1) & (c->hcap - 1)) {
		const struct entry *e = &c->entries[c->hash[k] - 1];

		if (e->m.path_len != row->path_len ||
		    memcmp(e->m.path, row->path, row->path_len))
			continue;
		if (add_assign(c, row->inode->ino, c->hash[k] - 1))
			return ENOMEM;
	}
	return 0;
}

static errcode_t match_by_inode(struct im_ctx *c)
{
	errcode_t err = 0;
	size_t i;

	for (i = 0; i < c->nentries && !err; i++) {
		const struct entry *e = &c->entries[i];
		struct e4t_inode in;

		if (!e->m.ino || e4t_tree_inode(c->tree, e->m.ino, &in))
			continue;
		err = add_assign(c, e->m.ino, i);
	}
	return err;
}

static int cmp_assign(const void *a, const void *b)
{
	const struct assign *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Do two entries give the same times for the fields imported? */
static int same_times(const struct im_ctx *c, const struct entry *a,
		      const struct entry *b)
{
	int f;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(c->fields & (1U << f)))
			continue;
		if (a->m.have[f] != b->m.have[f] ||
		    (a->m.have[f] && e4t_ts_cmp(&a->m.ts[f], &b->m.ts[f])))
			return 0;
	}
	return 1;
}

/* Hand a record to the caller; its non-zero return stops the run. */
static void emit(struct im_ctx *c, struct e4t_import_rec *r,
		 const struct entry *e, ext2_ino_t ino,
		 enum e4t_import_outcome outcome)
{
	int ret;

	r->line = e->line;
	r->path = e->m.path;
	r->path_len = e->m.path_len;
	r->ino = ino;
	r->outcome = outcome;
	if (!c->o->record || c->cb_err)
		return;
	ret = c->o->record(r, c->o->priv);
	if (ret) {
		c->cb_err = 1;
		if (!c->err)
			c->err = ret;
	}
}

/* Does the inode already hold every time the entry gives for the
 * fields imported, to the nanosecond? */
static int agrees(const struct im_ctx *c, const struct e4t_inode *in,
		  const struct entry *e)
{
	int f;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(c->fields & (1U << f)) || !e->m.have[f])
			continue;
		if (!(in->ts[f].flags & E4T_TS_STORED) ||
		    e4t_ts_cmp(&e->m.ts[f], &in->ts[f]))
			return 0;
	}
	return 1;
}

/* Apply one manifest entry (of n that agree) to one inode. */
static void apply(struct im_ctx *c, const struct assign *a,
		  const struct entry *e, size_t n)
{
	struct e4t_import_rec r;
	struct e4t_inode in;
	unsigned set = 0;
	errcode_t err;
	int f;

	memset(&r, 0, sizeof(r));
	err = e4t_tree_inode(c->tree, a->ino, &in);
	if (err) {
		c->st->refused++;
		r.err = err;
		emit(c, &r, e, a->ino, E4T_IMPORT_REFUSED);
		return;
	}
	if (agrees(c, &in, e))
		c->st->agree += n;
	for (f = 0; f < E4T_DTIME; f++) {
		const struct e4t_ts *cur = &in.ts[f];

		if (!(c->fields & (1U << f)) || !e->m.have[f])
			continue;
		/* a field the inode cannot hold is refused below */
		if ((cur->flags & E4T_TS_STORED) &&
		    !e4t_policy_wants(c->o->policy, &e->m.ts[f], cur))
			continue;
		r.new_ts[f] = e->m.ts[f];
		set |= 1U << f;
	}
	if (!set) {
		c->st->unchanged++;
		emit(c, &r, e, a->ino, E4T_IMPORT_UNCHANGED);
		return;
	}
	/* A check that fails refuses this inode; a failed write stops all. */
	err = e4t_check_settable(&in, set, r.new_ts);
	if (!err && !c->o->dry_run) {
		err = e4t_batch_set(c->batch, a->ino, set, r.new_ts);
		if (err) {
			c->err = err;
			return;
		}
	}
	if (err) {
		c->st->refused++;
		r.err = err;
		emit(c, &r, e, a->ino, E4T_IMPORT_REFUSED);
		return;
	}
	c->st->changed++;
	r.fields = set;
	for (f = 0; f < E4T_DTIME; f++)
		if (set & (1U << f))
			r.old_ts[f] = in.ts[f];
	emit(c, &r, e, a->ino,
	     c->o->dry_run ? E4T_IMPORT_WOULD_CHANGE : E4T_IMPORT_CHANGED);
}

static void apply_all(struct im_ctx *c)
{
	size_t i = 0, j;
	errcode_t err;

	if (c->nassigns) /* assigns is NULL then: qsort must not see it */
		qsort(c->assigns, c->nassigns, sizeof(*c->assigns), cmp_assign);
	if (!c->o->dry_run) {
		c->err = e4t_batch_begin(c->img, NULL, &c->batch);
		if (c->err)
			return;
	}
	while (i < c->nassigns && !c->err) {
		const struct assign *a = &c->assigns[i];
		int agree = 1;

		/* All the entries that land on this inode must agree. */
		for (j = i + 1; j < c->nassigns && c->assigns[j].ino == a->ino;
		     j++)
			if (!same_times(c, &c->entries[a->entry],
					&c->entries[c->assigns[j].entry]))
				agree = 0;
		if (agree) {
			apply(c, a, &c->entries[a->entry], j - i);
		} else {
			size_t k;

			for (k = i; k < j; k++) {
				struct e4t_import_rec r;

				memset(&r, 0, sizeof(r));
				c->st->ambiguous++;
				emit(c, &r, &c->entries[c->assigns[k].entry],
				     c->assigns[k].ino, E4T_IMPORT_AMBIGUOUS);
			}
		}
		i = j;
	}
	/* the last window's writes: inodes reported as changed */
	err = e4t_batch_end(c->batch);
	c->batch = NULL;
	if (err && !c->err)
		c->err = err;
}

static void report_unmatched(struct im_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nentries; i++) {
		struct e4t_import_rec r;

		if (c->matched[i])
			continue;
		c->st->unmatched++;
		memset(&r, 0, sizeof(r));
		emit(c, &r, &c->entries[i], 0, E4T_IMPORT_UNMATCHED);
	}
}

errcode_t e4t_import_run(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_import_opts *opts,
			 struct e4t_import_stats *stats)
{
	struct im_ctx c;
	errcode_t err;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	c.img = img;
	c.tree = tree;
	c.o = opts;
	c.st = stats;
	c.fields = opts->fields ? opts->fields : 1U << E4T_CRTIME;
	if (opts->manifest) {
		c.entries = opts->manifest->entries;
		c.nentries = opts->manifest->n;
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
		/* no root directory (damage): no path can match */
		if (err == E4T_ERR_NOT_IN_USE)
			stats->no_root = 1;
	}
	if (!err) {
		apply_all(&c);
		report_unmatched(&c);
		err = c.err;
	}
	free(c.assigns);
	free(c.hash);
	free(c.matched);
	return err;
}
