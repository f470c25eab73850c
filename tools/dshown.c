/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dshown.c --- timeline --deleted --journal: the states of earlier files
 * the journal's rows showed already (jrows_emit, after the first row of
 * their inode number, during the walk), so that a journal name whose
 * inode another file has now is not shown again, at the end
 * (dreuse_rows), with that same state under that same name: the old
 * file's last state before its deletion is one of its journaled states.
 * A state is the same when its name, inode, generation, mode, owner,
 * size and four times are (the links count and dtime aside: the
 * deleted-realloc row shows the file gone).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

/* FNV-1a of a path */
static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (uint8_t)p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void shown_of(const struct e4t_row *row, struct dshown *s)
{
	const struct e4t_inode *in = row->inode;

	memset(s, 0, sizeof(*s));
	s->ino = in->ino;
	s->gen = in->generation;
	s->mode = in->mode;
	s->uid = in->uid;
	s->gid = in->gid;
	s->size = in->size;
	s->path = path_hash(row->path, row->path_len);
	memcpy(s->raw_base, in->raw_base, sizeof(s->raw_base));
	memcpy(s->raw_extra, in->raw_extra, sizeof(s->raw_extra));
}

errcode_t dnames_note_jrow(struct dnames *d, const struct e4t_row *row)
{
	if (row->status != E4T_DELETED_REALLOC || !row->journal ||
	    row->journal->earlier != 1)
		return 0;
	if (grow_array(&d->shown, &d->shown_cap, d->nshown, sizeof(*d->shown)))
		return ENOMEM;
	shown_of(row, &d->shown[d->nshown++]);
	return 0;
}

static int same_shown(const struct dshown *a, const struct dshown *b)
{
	return a->path == b->path && a->size == b->size && a->ino == b->ino &&
	       a->gen == b->gen && a->uid == b->uid && a->gid == b->gid &&
	       a->mode == b->mode &&
	       !memcmp(a->raw_base, b->raw_base, sizeof(a->raw_base)) &&
	       !memcmp(a->raw_extra, b->raw_extra, sizeof(a->raw_extra));
}

static int cmp_shown(const void *x, const void *y)
{
	const struct dshown *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->path < b->path ? -1 : a->path > b->path;
}

int dshown_has(struct dnames *d, const struct e4t_row *row)
{
	struct dshown s;
	size_t i;

	if (!d->nshown)
		return 0;
	if (!d->shown_sorted) { /* the walk is over: no more come */
		qsort(d->shown, d->nshown, sizeof(*d->shown), cmp_shown);
		d->shown_sorted = 1;
	}
	shown_of(row, &s);
	i = E4T_LOWER_BOUND(d->shown, d->nshown, struct dshown, ino, s.ino);
	for (; i < d->nshown && d->shown[i].ino == s.ino; i++)
		if (same_shown(&d->shown[i], &s))
			return 1;
	return 0;
}
