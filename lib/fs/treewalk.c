/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * treewalk.c --- the tree's walk: depth first from a directory, each
 * name's path built in one buffer, a row per name in the order of the
 * directories' entries; then, from /, the orphan and deleted inodes.
 * treepart.c walks the same in parts; treepipe.c on a second thread.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "fs/tree_int.h"

/*
 * Depth-first walk.  With fn == NULL it only marks what is reachable.
 */
struct frame {
	struct irec *dir;
	const unsigned char *next; /* entry */
	uint32_t left;		   /* entries not yet read */
	/* PREFETCH entries ahead of next: its child's record is fetched
	 * into the cache before the walk reads it (in hash order, the
	 * records of a directory's entries are scattered; a cache miss per
	 * name was most of the walk's time) */
	const unsigned char *ahead;
	uint32_t ahead_left;
	size_t path_len;
};

#define PREFETCH 12

struct walker {
	struct e4t_tree *t;
	e4t_row_fn fn;
	void *priv;
	e4t_warn_fn warn; /* the walk's warnings (not the load's) */
	void *wpriv;
	char *path;
	size_t path_len, path_cap;
	struct frame *stack;
	size_t depth, stack_cap;
	ext2_ino_t start_parent; /* the row of the start: its directory */
	/* a part's walk (e4t_tree_walk_part): the plan says which name
	 * walks each directory, and nothing of the tree is written (parts
	 * run at once on several threads); its last entry's subtree may be
	 * other parts' (stop) */
	const struct e4t_tree_parts *plan;
	const unsigned char *stop;
	/* E4T_TREE_WALK_READS: the entries of the directory at each depth,
	 * read as the walk reaches it */
	struct depth_ents *ents;
	size_t ents_cap;
};

struct depth_ents {
	unsigned char *p;
	size_t cap;
};

static errcode_t path_set(struct walker *w, size_t keep, const char *name,
			  size_t len)
{
	int slash = keep > 0 && w->path[keep - 1] != '/';
	errcode_t err;

	err = tree_grow((void **)&w->path, &w->path_cap, keep + slash + len + 1,
			1);
	if (err)
		return err;
	if (slash)
		w->path[keep++] = '/';
	memcpy(w->path + keep, name, len);
	w->path_len = keep + len;
	w->path[w->path_len] = '\0';
	return 0;
}

/* The row of info at the walker's path, to the caller's function. */
static int send_row(struct walker *w, const struct e4t_inode *info,
		    enum e4t_status status, ext2_ino_t parent)
{
	struct e4t_row row;

	row.path = w->path;
	row.path_len = w->path_len;
	row.inode = info;
	row.status = status;
	row.parent = parent;
	row.name_source = NULL;
	row.journal = NULL;
	return w->fn(&row, w->priv);
}

static int emit(struct walker *w, struct irec *r, enum e4t_status status,
		ext2_ino_t parent)
{
	struct e4t_inode info;

	if (!w->fn)
		return 0;
	tree_expand(w->t, r, &info);
	return send_row(w, &info, status, parent);
}

/* The mode an entry's file type (EXT2_FT_*) stands for, or 0. */
uint16_t e4t_ft_mode(unsigned ft)
{
	static const uint16_t mode[8] = {
		0,
		LINUX_S_IFREG,
		LINUX_S_IFDIR,
		LINUX_S_IFCHR,
		LINUX_S_IFBLK,
		LINUX_S_IFIFO,
		LINUX_S_IFSOCK,
		LINUX_S_IFLNK,
	};

	return mode[ft & 7];
}

void e4t_inode_name_only(const struct e4t_image *img, ext2_ino_t ino,
			 unsigned file_type, struct e4t_inode *info)
{
	memset(info, 0, sizeof(*info));
	info->ino = ino;
	info->mode = e4t_ft_mode(file_type);
	info->inode_size = (uint16_t)img->inode_size;
}

/* A name whose inode the tree does not hold live: no times. */
static int emit_name_only(struct walker *w, ext2_ino_t ino, unsigned ft,
			  ext2_ino_t parent)
{
	struct e4t_inode info;

	e4t_inode_name_only(w->t->img, ino, ft, &info);
	return send_row(w, &info, E4T_NAME_ONLY, parent);
}

/* Fetch the record of the entry f->ahead points at; move ahead on. */
static inline void prefetch_next(const struct e4t_tree *t, struct frame *f)
{
	const unsigned char *e = f->ahead;
	uint32_t c;

	if (!f->ahead_left)
		return;
	f->ahead += ENT_HDR + e[5];
	f->ahead_left--;
	if (!(e[4] & 1))
		return;
	memcpy(&c, e, sizeof(c));
	__builtin_prefetch(&t->recs[c]); /* 48 bytes: its first line */
}

/* Walk dir's count entries from first next: a frame on the stack. */
static errcode_t push_at(struct walker *w, struct irec *dir,
			 const unsigned char *first, uint32_t count)
{
	struct frame *f;
	errcode_t err;
	int k;

	err = tree_grow((void **)&w->stack, &w->stack_cap, w->depth + 1,
			sizeof(*w->stack));
	if (err)
		return err;
	if (!w->plan)
		dir->flags |= T_EXPANDED;
	f = &w->stack[w->depth];
	f->dir = dir;
	f->next = first;
	f->left = first ? count : 0;
	f->path_len = w->path_len;
	f->ahead = f->next;
	f->ahead_left = f->left;
	for (k = 0; k < PREFETCH; k++)
		prefetch_next(w->t, f);
	w->depth++;
	return 0;
}

/* dirs[di]'s entries read into the buffer of the walk's next depth. */
static errcode_t read_entries(struct walker *w, size_t di,
			      const unsigned char **first, uint32_t *count)
{
	size_t had = w->ents_cap;
	struct depth_ents *b;
	errcode_t err;

	err = tree_grow((void **)&w->ents, &w->ents_cap, w->depth + 1,
			sizeof(*w->ents));
	if (err)
		return err;
	if (w->ents_cap > had)
		memset(w->ents + had, 0,
		       (w->ents_cap - had) * sizeof(*w->ents));
	b = &w->ents[w->depth];
	err = tree_read_dir(w->t, di, &b->p, &b->cap, count);
	*first = b->p;
	return err;
}

static errcode_t push(struct walker *w, struct irec *dir)
{
	const struct dir *d = tree_dir_of(w->t, (size_t)(dir - w->t->recs));
	const unsigned char *first = NULL;
	uint32_t count = 0;

	if (d && w->t->walk_reads) {
		errcode_t err = read_entries(w, (size_t)(d - w->t->dirs),
					     &first, &count);

		if (err)
			return err;
	} else if (d) {
		first = tree_ents_of(w->t, d);
		count = d->count;
	}
	return push_at(w, dir, first, count);
}

/* Whether the name at entry e walks directory child: in a walk, the
 * first name that reaches it (T_EXPANDED); in a part, the plan's. */
static int walks_dir(struct walker *w, struct irec *child,
		     const unsigned char *e)
{
	const struct dir *d;

	if (!w->plan)
		return !(child->flags & T_EXPANDED);
	d = tree_dir_of(w->t, (size_t)(child - w->t->recs));
	return d && w->plan->walked_by[d - w->t->dirs] == e;
}

/* The walk from the frames on the stack until it is empty. */
static errcode_t walk_frames(struct walker *w)
{
	struct e4t_tree *t = w->t;
	errcode_t err = 0;
	int rc;

	while (!err && w->depth) {
		struct frame *f = &w->stack[w->depth - 1];
		const unsigned char *e;
		struct irec *child;
		uint32_t c;

		if (!f->left) {
			w->depth--;
			continue;
		}
		e = f->next;
		f->next += ENT_HDR + e[5];
		f->left--;
		prefetch_next(t, f);
		memcpy(&c, e, sizeof(c));
		child = e[4] & 1 ? &t->recs[c] : NULL;
		if (!child || child->status != E4T_LIVE) {
			errcode_t lost = child ? 0 : e4t_tree_lost(t, c);

			if (w->fn && w->warn && lost)
				w->warn(lost, c,
					"named by a directory entry; its "
					"inode table block could not be read",
					w->wpriv);
			else if (w->fn && w->warn)
				w->warn(E4T_ERR_NOT_IN_USE,
					child ? child->ino : c,
					"named by a directory entry", w->wpriv);
			if (w->fn && (t->flags & E4T_TREE_NAME_ONLY)) {
				err = path_set(w, f->path_len,
					       (const char *)e + ENT_HDR, e[5]);
				if (err)
					break;
				rc = emit_name_only(w, child ? child->ino : c,
						    e[4] >> 1, f->dir->ino);
				if (rc)
					return rc;
			}
			continue;
		}
		if (!w->plan)
			child->flags |= T_REACHED;
		if (w->fn) {
			err = path_set(w, f->path_len,
				       (const char *)e + ENT_HDR, e[5]);
			if (err)
				break;
			rc = emit(w, child, E4T_LIVE, f->dir->ino);
			if (rc)
				return rc;
		}
		if (!LINUX_S_ISDIR(child->mode) || e == w->stop)
			continue;
		if (!walks_dir(w, child, e)) {
			if (w->fn && w->warn)
				w->warn(E4T_ERR_DIR_LOOP, child->ino, NULL,
					w->wpriv);
			continue;
		}
		err = push(w, child);
	}
	return err;
}

static errcode_t walk(struct walker *w, struct irec *start)
{
	struct e4t_tree *t = w->t;
	errcode_t err;
	int rc;
	size_t i;

	for (i = 0; i < t->ndirs; i++)
		t->recs[t->dirs[i].rec].flags &= (uint8_t)~T_EXPANDED;
	start->flags &= (uint8_t)~T_EXPANDED;
	start->flags |= T_REACHED;
	rc = emit(w, start, E4T_LIVE, w->start_parent);
	if (rc)
		return rc;
	if (!LINUX_S_ISDIR(start->mode))
		return 0;
	err = push(w, start);
	return err ? err : walk_frames(w);
}

/* The first live directory with an entry naming record r (its index). */
ext2_ino_t tree_parent_of(const struct e4t_tree *t, size_t r)
{
	size_t i;

	for (i = 0; i < t->ndirs; i++) {
		const struct dir *d = &t->dirs[i];
		const unsigned char *e = tree_ents_of(t, d);
		uint32_t k, c;

		for (k = 0; k < d->count; k++, e += ENT_HDR + e[5]) {
			memcpy(&c, e, sizeof(c));
			if ((e[4] & 1) && c == r)
				return t->recs[d->rec].ino;
		}
	}
	return 0;
}

/* The orphan and deleted inodes among records first to end (path
 * "<INO>"): after a walk from / has marked what it reaches. */
static errcode_t emit_rest(struct walker *w, size_t first, size_t end)
{
	struct e4t_tree *t = w->t;
	errcode_t err = 0;
	size_t i;

	for (i = first; i < end && !err; i++) {
		struct irec *o = &t->recs[i];
		char name[24];
		enum e4t_status st;

		if (o->status == E4T_DELETED)
			st = E4T_DELETED;
		else if (!(o->flags & T_REACHED))
			st = E4T_ORPHAN;
		else
			continue;
		snprintf(name, sizeof(name), "<%u>", o->ino);
		err = path_set(w, 0, name, strlen(name));
		if (!err)
			err = emit(w, o, st, 0);
	}
	return err;
}

errcode_t e4t_tree_walk(struct e4t_tree *t, ext2_ino_t start,
			const char *start_path, e4t_row_fn fn, void *priv)
{
	return e4t_tree_walk_warn(t, start, start_path, fn, priv, t->cb.warn,
				  t->cb.priv);
}

errcode_t e4t_tree_walk_warn(struct e4t_tree *t, ext2_ino_t start,
			     const char *start_path, e4t_row_fn fn, void *priv,
			     e4t_warn_fn warn_fn, void *wpriv)
{
	struct walker w = {
		.t = t, .fn = fn, .priv = priv, .warn = warn_fn, .wpriv = wpriv
	};
	struct irec *r = tree_find(t, start);
	size_t len = strlen(start_path);
	errcode_t err;

	if (t->walk_reads && start != EXT2_ROOT_INO)
		return EINVAL; /* the start's parent is an entry not held */
	if (!r || r->status != E4T_LIVE)
		return E4T_ERR_NOT_IN_USE;
	if (start != EXT2_ROOT_INO)
		w.start_parent = tree_parent_of(t, (size_t)(r - t->recs));
	/* "/a/b/" names its rows "/a/b/c", as "/a/b" does */
	while (len > 1 && start_path[len - 1] == '/')
		len--;
	err = path_set(&w, 0, start_path, len);
	if (!err)
		err = walk(&w, r);
	if (!err && (t->flags & E4T_TREE_DELETED) && start == EXT2_ROOT_INO)
		err = emit_rest(&w, 0, t->nrecs);
	if (t->walk_reads) {
		size_t i;

		tree_read_done(t);
		for (i = 0; i < w.ents_cap; i++)
			free(w.ents[i].p);
		free(w.ents);
	}
	free(w.stack);
	free(w.path);
	return err;
}

errcode_t tree_mark_reached(struct e4t_tree *t, struct irec *root)
{
	struct walker w = { .t = t };
	errcode_t err = walk(&w, root);

	free(w.stack);
	free(w.path);
	return err;
}

errcode_t e4t_tree_walk_part(struct e4t_tree *t, const struct e4t_tree_parts *p,
			     size_t i, e4t_row_fn fn, void *priv,
			     e4t_warn_fn warn_fn, void *wpriv)
{
	struct walker w = { .t = t,
			    .fn = fn,
			    .priv = priv,
			    .warn = warn_fn,
			    .wpriv = wpriv,
			    .plan = p };
	const struct tree_part *tp = &p->v[i];
	errcode_t err = 0;

	switch (tp->kind) {
	case TP_START:
		err = path_set(&w, 0, p->start_path, p->start_len);
		if (!err)
			err = emit(&w, p->start, E4T_LIVE, p->start_parent);
		break;
	case TP_ENTS: {
		const struct dir *d = &t->dirs[tp->dir];
		const unsigned char *e = tree_ents_of(t, d);

		err = path_set(&w, 0, p->paths + tp->path, tp->path_len);
		if (tp->stop_last)
			w.stop = e + tp->last;
		if (!err)
			err = push_at(&w, &t->recs[d->rec], e + tp->first,
				      tp->count);
		if (!err)
			err = walk_frames(&w);
		break;
	}
	case TP_REST:
		err = emit_rest(&w, tp->first, tp->first + tp->count);
		break;
	default: break;
	}
	free(w.stack);
	free(w.path);
	return err;
}
