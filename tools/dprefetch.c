/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dprefetch.c --- timeline --deleted --journal: the journal's names of
 * deleted files read ahead, while jload.c reads the journal's entries on
 * its own thread (both parse the same directory blocks' copies; on two
 * CPUs the second one is otherwise idle then).  The names are read for
 * every live directory the tree holds (e4t_tree_live_dirs), kept, and
 * handed to deleted.c when the walk has reached its first orphan or
 * deleted inode, as e4t_journal_names would have given them then: the
 * names of a directory do not depend on which other directories are read,
 * and those of the directories the walk did not reach are left out
 * there.  When the walk reached a directory not read ahead (damage), or
 * the journal the walk's end reads is not that one (its loading failed),
 * the names are read again as without this.  Without --journal the
 * journal is opened for it (dnames_prefetch_own), so that the entries
 * parsed are let go before the walk keeps its rows (--sort).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

/* A name read ahead; its bytes in d->pre_names. */
struct dpre {
	struct e4t_jname e;
	size_t name_off;
};

static int keep_name(const struct e4t_jname *e, void *priv)
{
	struct dnames *d = priv;
	struct dpre *p;

	if (e4t_grow(&d->pre, &d->pre_cap, d->npre + 1, sizeof(*d->pre), 256) ||
	    e4t_grow(&d->pre_names, &d->pre_names_cap,
		     d->pre_names_len + e->name_len, 1, 4096)) {
		d->err = ENOMEM;
		return 1;
	}
	p = &d->pre[d->npre++];
	p->e = *e;
	p->e.name = NULL; /* pre_names may move: set when handed out */
	p->name_off = d->pre_names_len;
	memcpy(d->pre_names + d->pre_names_len, e->name, e->name_len);
	d->pre_names_len += e->name_len;
	return 0;
}

errcode_t dnames_prefetch(struct dnames *d, struct e4t_journal *j,
			  const ext2_ino_t *dirs, size_t n)
{
	errcode_t err;

	if (!n)
		return 0;
	d->pre_dirs = malloc(n * sizeof(*d->pre_dirs));
	if (!d->pre_dirs)
		return ENOMEM;
	memcpy(d->pre_dirs, dirs, n * sizeof(*dirs));
	d->npre_dirs = n;
	err = e4t_journal_names(d->img, j, dirs, n, keep_name, d);
	if (!err)
		err = d->err;
	if (err) { /* read again at the walk's end, as without this */
		dnames_prefetch_free(d);
		d->err = 0;
		return err == ENOMEM ? err : 0;
	}
	d->prefetched = 1;
	d->pre_j = j;
	return 0;
}

errcode_t dnames_prefetch_own(struct dnames *d, const struct e4t_tree *tree)
{
	struct e4t_journal *j = d->shared ? NULL : dnames_journal(d->img);
	ext2_ino_t *dirs = NULL;
	size_t ndirs = 0;
	errcode_t err;

	if (!j)
		return 0;
	d->own = d->shared = j;
	err = e4t_tree_live_dirs(tree, &dirs, &ndirs);
	if (!err)
		err = dnames_prefetch(d, j, dirs, ndirs);
	free(dirs);
	return err;
}

int dnames_prefetched(struct dnames *d, e4t_jname_fn fn)
{
	size_t i;

	/* read from the journal the walk's end reads (the same: not when
	 * the loading that shared it failed) */
	if (!d->prefetched || d->pre_j != d->shared)
		return 0;
	/* every directory the walk reached must have been read ahead */
	for (i = 0; i < d->ndirs; i++)
		if (!e4t_ino_in(d->pre_dirs, d->npre_dirs, d->dirs[i].ino))
			return 0;
	for (i = 0; i < d->npre; i++) {
		struct e4t_jname e = d->pre[i].e;

		e.name = d->pre_names + d->pre[i].name_off;
		if (fn(&e, d))
			break;
	}
	return 1;
}

void dnames_prefetch_free(struct dnames *d)
{
	free(d->pre);
	free(d->pre_names);
	free(d->pre_dirs);
	d->pre = NULL;
	d->pre_names = NULL;
	d->pre_dirs = NULL;
	d->npre = d->pre_cap = d->pre_names_len = d->pre_names_cap = 0;
	d->npre_dirs = 0;
	d->prefetched = 0;
	d->pre_j = NULL;
}
