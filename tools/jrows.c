/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrows.c --- timeline --journal: the inode copies the journal holds
 * (e4t_audit_run hands them out in order, oldest first, identical
 * consecutive copies already left out), each decoded; kept when its
 * times, size, mode, owner or links differ from the copy kept before it.
 * A row of the walk is followed by those of its inode.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jrows.h"

struct jstate {
	struct e4t_inode info;
	struct e4t_row_journal src;
	size_t seq;
};

struct jrows {
	struct e4t_image *img;
	struct jstate *v;
	size_t n, cap;
	errcode_t err;
};

static int same_state(const struct e4t_inode *a, const struct e4t_inode *b)
{
	int f;

	if (a->mode != b->mode || a->links != b->links || a->uid != b->uid ||
	    a->gid != b->gid || a->size != b->size)
		return 0;
	for (f = 0; f < E4T_NFIELDS; f++)
		if (e4t_ts_cmp(&a->ts[f], &b->ts[f]) ||
		    (a->ts[f].flags & E4T_TS_STORED) !=
			    (b->ts[f].flags & E4T_TS_STORED))
			return 0;
	return 1;
}

static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct jrows *jr = priv;
	struct jstate *s;

	if (c->src == E4T_SRC_DISK || !c->t)
		return 0;
	if (grow_array(&jr->v, &jr->cap, jr->n, sizeof(*jr->v))) {
		jr->err = ENOMEM;
		return 1;
	}
	s = &jr->v[jr->n];
	e4t_inode_decode_disk(c->raw, c->len, jr->img->inode_size, c->ino,
			      &s->info);
	s->src.tid = c->t->tid;
	s->src.commit_sec = c->t->commit_sec;
	s->src.commit_nsec = c->t->commit_nsec;
	s->seq = jr->n++;
	return 0;
}

static int cmp_state(const void *x, const void *y)
{
	const struct jstate *a = x, *b = y;

	if (a->info.ino != b->info.ino)
		return a->info.ino < b->info.ino ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

errcode_t jrows_load(struct e4t_image *img, e4t_warn_fn warn, void *priv,
		     struct jrows **ret)
{
	struct jrows *jr = calloc(1, sizeof(*jr));
	struct e4t_journal *j = NULL;
	struct e4t_audit *a = NULL;
	errcode_t err;
	size_t i, k;

	*ret = NULL;
	if (!jr)
		return ENOMEM;
	jr->img = img;
	err = e4t_journal_open(img, NULL, &j);
	if (!err)
		err = e4t_journal_load(j, E4T_J_STALE, warn, priv);
	if (!err)
		err = e4t_audit_run(img, j, on_copy, jr, &a);
	if (!err)
		err = jr->err;
	e4t_audit_free(a);
	e4t_journal_close(j);
	if (err) {
		jrows_free(jr);
		return err;
	}
	if (jr->n)
		qsort(jr->v, jr->n, sizeof(*jr->v), cmp_state);
	/* identical consecutive states of an inode: the first stays */
	for (i = k = 0; i < jr->n; i++) {
		if (k && jr->v[k - 1].info.ino == jr->v[i].info.ino &&
		    same_state(&jr->v[k - 1].info, &jr->v[i].info))
			continue;
		jr->v[k++] = jr->v[i];
	}
	jr->n = k;
	*ret = jr;
	return 0;
}

int jrows_emit(const struct jrows *jr, const struct e4t_row *row, e4t_row_fn fn,
	       void *priv)
{
	ext2_ino_t ino = row->inode->ino;
	size_t lo = 0, hi = jr->n;
	int rc = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (jr->v[mid].info.ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < jr->n && jr->v[lo].info.ino == ino && !rc; lo++) {
		const struct jstate *s = &jr->v[lo];
		struct e4t_row r = *row;

		if (same_state(&s->info, row->inode))
			continue; /* today's row says it */
		r.inode = &s->info;
		r.journal = &s->src;
		rc = fn(&r, priv);
	}
	return rc;
}

void jrows_free(struct jrows *jr)
{
	if (!jr)
		return;
	free(jr->v);
	free(jr);
}
