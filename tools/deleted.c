/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deleted.c --- the names of deleted files for timeline --deleted:
 * every live directory the walk reaches has its slack read
 * (e4t_slack_scan); the deleted names found take the directory's path.
 * The walk ends with the orphan and deleted inodes, by inode number:
 * each takes the first name found for it in slack, else the name the
 * journal's latest copy of a directory block gave it (e4t_journal_names,
 * on every directory the walk reached, read when the walk reaches its
 * first orphan or deleted inode).  A deleted inode named from the
 * journal is shown as the journal last held it before its deletion
 * (e4t_journal_before_delete: mode, size, owner and the four times; its
 * links count and dtime stay the disk's), and the row carries the
 * transaction of its name; the slack names left over (inode in
 * use again, or freed but not kept by the tree) become rows of their own
 * at the end, as fls shows them, and so do the journal's names whose
 * inode another file has now; the journal's names of deleted directories
 * give the names of their files (dreuse.c).  The journal is read
 * quietly: a journal that cannot be read gives no names, and its damage
 * is for the journal and audit commands to report.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

errcode_t dnames_new(struct e4t_image *img, struct dnames **ret)
{
	struct dnames *d = calloc(1, sizeof(*d));

	*ret = d;
	if (!d)
		return ENOMEM;
	d->img = img;
	return 0;
}

void dnames_use_journal(struct dnames *d, struct e4t_journal *j)
{
	d->shared = j;
}

void dnames_free(struct dnames *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++)
		free(d->v[i].path);
	for (i = 0; i < d->jn; i++)
		free(d->jv[i].path);
	for (i = 0; i < d->ndirs; i++)
		free(d->dirs[i].path);
	dnames_prefetch_free(d);
	free(d->v);
	free(d->jv);
	free(d->dirs);
	free(d->before);
	free(d->shown);
	free(d->seen);
	e4t_journal_close(d->own);
	free(d);
}

struct dname *dnames_new_name(struct dname **v, size_t *n, size_t *cap,
			      const char *dir, size_t dir_len, const char *name,
			      size_t name_len)
{
	int slash = !(dir_len && dir[dir_len - 1] == '/');
	struct dname *x;

	if (grow_array(v, cap, *n, sizeof(**v)))
		return NULL;
	x = &(*v)[*n];
	memset(x, 0, sizeof(*x));
	x->path_len = dir_len + (size_t)slash + name_len;
	x->path = malloc(x->path_len + 1);
	if (!x->path)
		return NULL;
	memcpy(x->path, dir, dir_len);
	if (slash)
		x->path[dir_len] = '/';
	memcpy(x->path + dir_len + slash, name, name_len);
	x->path[x->path_len] = '\0';
	x->seq = (*n)++;
	return x;
}

static int on_slack(const struct e4t_slack_entry *e, void *priv)
{
	struct dnames *d = priv;
	struct dname *n = dnames_new_name(&d->v, &d->n, &d->cap, d->dir_path,
					  d->dir_len, e->name, e->name_len);

	if (!n) {
		d->err = ENOMEM;
		return 1;
	}
	n->ino = e->ino;
	n->realloc = e->realloc;
	n->file_type = e->file_type;
	return 0;
}

static int cmp_ddir(const void *x, const void *y)
{
	const struct ddir *a = x, *b = y;

	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static int on_jname(const struct e4t_jname *e, void *priv)
{
	struct dnames *d = priv;
	struct ddir key = { .ino = e->dir };
	const struct ddir *dir;

	dir = bsearch(&key, d->dirs, d->ndirs, sizeof(*d->dirs), cmp_ddir);
	if (!dir)
		return 0;
	if (dir->enc)
		return dnames_add_jname_nokey(d, dir->path, dir->path_len, e,
					      &dir->nokey)
			       ? 0
			       : 1;
	return dnames_add_jname(d, dir->path, dir->path_len, e) ? 0 : 1;
}

struct dname *dnames_add_jname_nokey(struct dnames *d, const char *dir,
				     size_t dir_len, const struct e4t_jname *e,
				     const struct e4t_nokey *k)
{
	char nokey[E4T_NOKEY_MAX];
	struct e4t_jname nk = *e;
	unsigned len = e4t_nokey_name(k, e->name, e->name_len, nokey);

	if (len) {
		nk.name = nokey;
		nk.name_len = len;
	}
	return dnames_add_jname(d, dir, dir_len, &nk);
}

struct dname *dnames_add_jname(struct dnames *d, const char *dir,
			       size_t dir_len, const struct e4t_jname *e)
{
	struct dname *n = dnames_new_name(&d->jv, &d->jn, &d->jcap, dir,
					  dir_len, e->name, e->name_len);

	if (!n) {
		d->err = ENOMEM;
		return NULL;
	}
	n->ino = e->ino;
	/* the latest copy first among an inode's names */
	n->seq = SIZE_MAX - e->trans;
	n->jsrc.tid = e->tid;
	n->jsrc.commit_sec = e->commit_sec;
	n->jsrc.commit_nsec = e->commit_nsec;
	n->trans = e->trans;
	n->file_type = e->file_type;
	return n;
}

static int on_before(const struct e4t_jbefore *c, void *priv)
{
	struct dnames *d = priv;
	struct dbefore *b;

	if (grow_array(&d->before, &d->before_cap, d->nbefore,
		       sizeof(*d->before))) {
		d->err = ENOMEM;
		return 1;
	}
	b = &d->before[d->nbefore++]; /* they come by inode number */
	b->ino = c->ino;
	e4t_inode_decode_disk(c->raw, c->len, d->img->inode_size, c->ino,
			      &b->in);
	return 0;
}

/* The inodes the journal named, as it held them before their deletion. */
static errcode_t journal_before(struct dnames *d, struct e4t_journal *j)
{
	ext2_ino_t *inos;
	errcode_t err;
	size_t i;

	if (!d->jn)
		return 0;
	inos = malloc(d->jn * sizeof(*inos));
	if (!inos)
		return ENOMEM;
	for (i = 0; i < d->jn; i++)
		inos[i] = d->jv[i].ino;
	err = e4t_journal_before_delete(d->img, j, inos, d->jn, on_before, d);
	free(inos);
	return err ? err : d->err;
}

static struct dbefore *before_of(const struct dnames *d, ext2_ino_t ino)
{
	size_t i = E4T_LOWER_BOUND(d->before, d->nbefore, struct dbefore, ino,
				   ino);

	return i < d->nbefore && d->before[i].ino == ino ? &d->before[i] : NULL;
}

struct e4t_journal *dnames_journal(struct e4t_image *img)
{
	struct e4t_journal *j;

	if (e4t_journal_open(img, NULL, &j))
		return NULL;
	if (e4t_journal_load(j, E4T_J_STALE, NULL, NULL)) {
		e4t_journal_close(j);
		return NULL;
	}
	return j;
}

/* The journal's names of deleted files under the directories walked. */
static errcode_t journal_names(struct dnames *d)
{
	struct e4t_journal *j = d->shared ? d->shared : dnames_journal(d->img);
	ext2_ino_t *inos;
	errcode_t err;
	size_t i;

	if (!j)
		return 0; /* no journal, or none that can be read */
	if (d->ndirs)
		qsort(d->dirs, d->ndirs, sizeof(*d->dirs), cmp_ddir);
	inos = malloc((d->ndirs + 1) * sizeof(*inos));
	if (!inos) {
		if (!d->shared)
			e4t_journal_close(j);
		return ENOMEM;
	}
	for (i = 0; i < d->ndirs; i++)
		inos[i] = d->dirs[i].ino;
	if (!dnames_prefetched(d, on_jname))
		err = e4t_journal_names(d->img, j, inos, d->ndirs, on_jname, d);
	else
		err = 0;
	dnames_prefetch_free(d);
	free(inos);
	if (!err)
		err = d->err;
	if (!err)
		err = dreuse_classify(d, j);
	if (!err)
		err = journal_before(d, j);
	if (!d->shared)
		e4t_journal_close(j);
	return err == ENOMEM ? err : 0;
}

static int cmp_dname(const void *x, const void *y)
{
	const struct dname *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The first name of ino in v (sorted), or NULL. */
static struct dname *first_in(struct dname *v, size_t n, ext2_ino_t ino)
{
	size_t i = E4T_LOWER_BOUND(v, n, struct dname, ino, ino);

	return i < n && v[i].ino == ino ? &v[i] : NULL;
}

/* The walk is past the live rows: sort, and read the journal once. */
static errcode_t finish_live(struct dnames *d, int journal)
{
	errcode_t err;

	if (d->sorted)
		return 0;
	d->sorted = 1;
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_dname);
	err = journal ? journal_names(d) : 0;
	if (!err && d->jn)
		qsort(d->jv, d->jn, sizeof(*d->jv), cmp_dname);
	return err;
}

static struct dname *first_of(struct dnames *d, ext2_ino_t ino)
{
	return first_in(d->v, d->n, ino);
}

/*
 * A row named from the journal carries its name's transaction; a deleted
 * inode is shown as the journal last held it before the deletion, with
 * the disk's links count and dtime (when it was deleted); an orphan,
 * still in use, or an inode the journal holds no such copy of, stays
 * the disk's.
 */
static void journal_named(struct dnames *d, const struct e4t_row *row,
			  const struct dname *n, struct e4t_row *out)
{
	const struct e4t_inode *in = row->inode;
	const struct dbefore *b =
		row->status == E4T_DELETED ? before_of(d, in->ino) : NULL;

	out->path = n->path;
	out->path_len = n->path_len;
	out->name_source = "journal";
	d->jsrc = n->jsrc;
	d->jsrc.kind = b ? E4T_RJ_PREDELETE : E4T_RJ_NAME_ONLY;
	out->journal = &d->jsrc;
	if (!b)
		return;
	d->paired = b->in;
	d->paired.links = in->links;
	d->paired.flags = (uint16_t)((b->in.flags & ~(E4T_INO_ORPHAN_LIST |
						      E4T_INO_CSUM_BAD)) |
				     (in->flags & (E4T_INO_ORPHAN_LIST |
						   E4T_INO_CSUM_BAD)));
	d->paired.present =
		(uint16_t)((b->in.present & ~(E4T_PRESENT(E4T_DTIME) |
					      E4T_PRESENT_EXTRA(E4T_DTIME))) |
			   (in->present & (E4T_PRESENT(E4T_DTIME) |
					   E4T_PRESENT_EXTRA(E4T_DTIME))));
	d->paired.raw_base[E4T_DTIME] = in->raw_base[E4T_DTIME];
	d->paired.raw_extra[E4T_DTIME] = in->raw_extra[E4T_DTIME];
	d->paired.ts[E4T_DTIME] = in->ts[E4T_DTIME];
	out->inode = &d->paired;
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
	errcode_t err;

	*out = *row;
	if (row->status == E4T_LIVE) {
		if (!LINUX_S_ISDIR(in->mode) || d->sorted)
			return 0;
		d->dir_path = row->path;
		d->dir_len = row->path_len;
		if (grow_array(&d->dirs, &d->dirs_cap, d->ndirs,
			       sizeof(*d->dirs)))
			return ENOMEM;
		d->dirs[d->ndirs].ino = in->ino;
		d->dirs[d->ndirs].enc =
			e4t_nokey_setup(d->img->fs, in->iflags, in->size,
					&d->dirs[d->ndirs].nokey);
		d->dirs[d->ndirs].path = dup_bytes(row->path, row->path_len);
		if (!d->dirs[d->ndirs].path)
			return ENOMEM;
		d->dirs[d->ndirs++].path_len = row->path_len;
		/* A directory that cannot be read has no slack to show;
		 * the tree has reported it already. */
		(void)e4t_slack_scan(d->img, in->ino, on_slack, d);
		return d->err;
	}
	if (row->status == E4T_ORPHAN && in->links != 0)
		return 0; /* in use, but no name reaches it */
	err = finish_live(d, 1);
	if (err)
		return err;
	n = first_of(d, in->ino);
	out->name_source = "none";
	/* A deleted inode is free: its name must be too; an orphan is still
	 * allocated (open when unlinked) and so are its names. */
	while (n && n < d->v + d->n && n->ino == in->ino &&
	       n->realloc != (row->status == E4T_ORPHAN))
		n++;
	if (!n || n >= d->v + d->n || n->ino != in->ino) {
		n = first_in(d->jv, d->jn, in->ino);
		if (n)
			journal_named(d, row, n, out);
		return 0;
	}
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
	/* no orphan or deleted row came: the journal's names are read now
	 * (those whose inode another file has) */
	if (finish_live(d, 1)) {
		free(raw);
		return ENOMEM;
	}
	for (i = 0; i < d->n && !rc; i++) {
		struct dname *n = &d->v[i];
		struct e4t_inode info;
		struct e4t_row row;

		if (n->used)
			continue;
		if (!n->ino) /* no inode: the entry's type, no times */
			e4t_inode_name_only(d->img, n->ino, n->file_type,
					    &info);
		else if (e4t_tree_inode(tree, n->ino, &info)) {
			memset(raw, 0, isize);
			if (ext2fs_read_inode_full(fs, n->ino,
						   (struct ext2_inode *)raw,
						   (int)d->img->inode_size))
				continue;
			e4t_inode_decode(raw, d->img->inode_size, n->ino,
					 &info);
		}
		if (n->ino) /* each inode-0 name is a row of its own */
			take_all(d, n);
		row.path = n->path;
		row.path_len = n->path_len;
		row.inode = &info;
		row.status = !n->ino	  ? E4T_DELETED_NOINODE
			     : n->realloc ? E4T_DELETED_REALLOC
					  : E4T_DELETED;
		row.parent = 0; /* as for the tree's deleted rows */
		row.name_source = "slack";
		row.journal = NULL;
		rc = fn(&row, priv);
	}
	free(raw);
	return rc ? rc : dreuse_rows(d, fn, priv);
}
