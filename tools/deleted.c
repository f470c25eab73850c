/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deleted.c --- the names of deleted files for timeline --deleted:
 * every live directory the walk reaches has its slack read
 * (e4t_slack_scan); the deleted names found take the directory's path.
 * The walk ends with the orphan and deleted inodes, by inode number:
 * each takes the first name found for it; the names left over (inode in
 * use again, or freed but not kept by the tree) become rows of their own
 * at the end, as fls shows them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deleted.h"

struct dname {
	ext2_ino_t ino;
	int realloc;
	int used;
	size_t seq;
	char *path;
	size_t path_len;
};

struct dnames {
	struct e4t_image *img;
	struct dname *v;
	size_t n, cap;
	int sorted;
	errcode_t err;
	const char *dir_path; /* of the directory being read */
	size_t dir_len;
};

errcode_t dnames_new(struct e4t_image *img, struct dnames **ret)
{
	struct dnames *d = calloc(1, sizeof(*d));

	*ret = d;
	if (!d)
		return ENOMEM;
	d->img = img;
	return 0;
}

void dnames_free(struct dnames *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++)
		free(d->v[i].path);
	free(d->v);
	free(d);
}

static int on_slack(const struct e4t_slack_entry *e, void *priv)
{
	struct dnames *d = priv;
	struct dname *n;
	int slash = !(d->dir_len && d->dir_path[d->dir_len - 1] == '/');

	if (grow_array(&d->v, &d->cap, d->n, sizeof(*d->v))) {
		d->err = ENOMEM;
		return 1;
	}
	n = &d->v[d->n];
	n->path_len = d->dir_len + (size_t)slash + e->name_len;
	n->path = malloc(n->path_len + 1);
	if (!n->path) {
		d->err = ENOMEM;
		return 1;
	}
	memcpy(n->path, d->dir_path, d->dir_len);
	if (slash)
		n->path[d->dir_len] = '/';
	memcpy(n->path + d->dir_len + slash, e->name, e->name_len);
	n->path[n->path_len] = '\0';
	n->ino = e->ino;
	n->realloc = e->realloc;
	n->used = 0;
	n->seq = d->n++;
	return 0;
}

static int cmp_dname(const void *x, const void *y)
{
	const struct dname *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The first name of ino, or NULL. */
static struct dname *first_of(struct dnames *d, ext2_ino_t ino)
{
	size_t lo = 0, hi = d->n;

	if (!d->sorted) {
		if (d->n)
			qsort(d->v, d->n, sizeof(*d->v), cmp_dname);
		d->sorted = 1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->v[lo].ino == ino ? &d->v[lo] : NULL;
}

/* Every name of the inode of n is taken: it is shown once. */
static void take_all(struct dnames *d, struct dname *n)
{
	struct dname *end = d->v + d->n;
	ext2_ino_t ino = n->ino;

	for (; n < end && n->ino == ino; n++)
		n->used = 1;
}

errcode_t dnames_row(struct dnames *d, const struct e4t_row *row,
		     struct e4t_row *out)
{
	const struct e4t_inode *in = row->inode;
	struct dname *n;

	*out = *row;
	if (row->status == E4T_LIVE) {
		if (!LINUX_S_ISDIR(in->mode) || d->sorted)
			return 0;
		d->dir_path = row->path;
		d->dir_len = row->path_len;
		/* A directory that cannot be read has no slack to show;
		 * the tree has reported it already. */
		(void)e4t_slack_scan(d->img, in->ino, on_slack, d);
		return d->err;
	}
	if (row->status == E4T_ORPHAN && in->links != 0)
		return 0; /* in use, but no name reaches it */
	n = first_of(d, in->ino);
	out->name_source = "none";
	/* A deleted inode is free: its name must be too; an orphan is still
	 * allocated (open when unlinked) and so are its names. */
	while (n && n < d->v + d->n && n->ino == in->ino &&
	       n->realloc != (row->status == E4T_ORPHAN))
		n++;
	if (!n || n >= d->v + d->n || n->ino != in->ino)
		return 0;
	out->path = n->path;
	out->path_len = n->path_len;
	out->name_source = "slack";
	take_all(d, first_of(d, in->ino));
	return 0;
}

errcode_t dnames_rest(struct dnames *d, const struct e4t_tree *tree,
		      e4t_row_fn fn, void *priv)
{
	ext2_filsys fs = d->img->fs;
	unsigned isize = d->img->inode_size;
	struct ext2_inode_large *raw;
	size_t i;
	int rc = 0;

	if (isize < sizeof(*raw))
		isize = sizeof(*raw);
	raw = calloc(1, isize);
	if (!raw)
		return ENOMEM;
	first_of(d, 0); /* sorts */
	for (i = 0; i < d->n && !rc; i++) {
		struct dname *n = &d->v[i];
		struct e4t_inode info;
		struct e4t_row row;

		if (n->used)
			continue;
		if (e4t_tree_inode(tree, n->ino, &info)) {
			memset(raw, 0, isize);
			if (ext2fs_read_inode_full(fs, n->ino,
						   (struct ext2_inode *)raw,
						   (int)d->img->inode_size))
				continue;
			e4t_inode_decode(raw, d->img->inode_size, n->ino,
					 &info);
		}
		take_all(d, n);
		row.path = n->path;
		row.path_len = n->path_len;
		row.inode = &info;
		row.status = n->realloc ? E4T_DELETED_REALLOC : E4T_DELETED;
		row.name_source = "slack";
		rc = fn(&row, priv);
	}
	free(raw);
	return rc;
}
