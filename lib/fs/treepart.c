/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * treepart.c --- a walk of the tree cut into parts that threads can walk
 * and format at once, each into a buffer of its own, written out in
 * order: no thread hands another a row.  Cutting costs one pass over the
 * directories' entry stream (no inode record is read: a bitmap tells the
 * live directories): the pass finds, as the walk would, which name walks
 * each directory (the first the walk reaches; any other is a loop) and
 * how many names lie under each; then runs of a directory's entries
 * become parts of about the asked rows, a directory with more under it
 * being cut in turn.  treewalk.c walks a part.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "fs/tree_int.h"

/* A directory the cutting is in, and the run of entries it has not cut. */
struct cut_frame {
	uint32_t dir;		   /* index in t->dirs */
	const unsigned char *next; /* entry */
	uint32_t left;
	/* the run: from seg (an offset from the directory's first entry),
	 * n entries, about rows names with what lies under them */
	uint64_t seg;
	uint32_t n;
	const unsigned char *last; /* the run's last entry so far */
	uint64_t rows;
	size_t path_len;
};

struct cutter {
	struct e4t_tree *t;
	struct e4t_tree_parts *p;
	uint64_t *live_dir; /* a bit per record: a live directory */
	uint64_t *under;    /* per directory: names under it, walked */
	struct cut_frame *stack;
	size_t depth, cap;
	char *path;
	size_t path_len, path_cap;
};

static int is_dir_rec(const struct cutter *c, uint32_t rec)
{
	return (int)((c->live_dir[rec / 64] >> (rec % 64)) & 1);
}

/* The directory of record rec (one of t->dirs: it is a live one). */
static uint32_t dir_index(const struct e4t_tree *t, uint32_t rec)
{
	return (uint32_t)(tree_dir_of(t, rec) - t->dirs);
}

static errcode_t push(struct cutter *c, uint32_t d)
{
	const struct dir *dir = &c->t->dirs[d];
	struct cut_frame *f;

	if (tree_grow((void **)&c->stack, &c->cap, c->depth + 1,
		      sizeof(*c->stack)))
		return ENOMEM;
	f = &c->stack[c->depth++];
	memset(f, 0, sizeof(*f));
	f->dir = d;
	f->next = tree_ents_of(c->t, dir);
	f->left = f->next ? dir->count : 0;
	f->path_len = c->path_len;
	return 0;
}

/*
 * Pass 1: which name walks each directory, and how many names are under
 * it; the walk's order exactly (depth first, entries in order), with
 * the directories alone.
 */
static errcode_t plan_walk(struct cutter *c, uint32_t start)
{
	struct e4t_tree *t = c->t;
	errcode_t err;

	c->p->walked_by[start] = (const unsigned char *)c->p;
	err = push(c, start);
	while (!err && c->depth) {
		struct cut_frame *f = &c->stack[c->depth - 1];
		const unsigned char *e;
		uint32_t rec, d;

		if (!f->left) {
			c->under[f->dir] += t->dirs[f->dir].count;
			if (--c->depth)
				c->under[c->stack[c->depth - 1].dir] +=
					c->under[f->dir];
			continue;
		}
		e = f->next;
		f->next += ENT_HDR + e[5];
		f->left--;
		memcpy(&rec, e, sizeof(rec));
		if (!(e[4] & 1) || !is_dir_rec(c, rec))
			continue;
		d = dir_index(t, rec);
		if (c->p->walked_by[d])
			continue; /* a loop: the walk warns there */
		c->p->walked_by[d] = e;
		err = push(c, d);
	}
	return err;
}

static errcode_t add_part(struct e4t_tree_parts *p, const struct tree_part *tp)
{
	if (tree_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return ENOMEM;
	p->v[p->n++] = *tp;
	return 0;
}

/* The run of frame f, ending at entry last, as a part. */
static errcode_t cut_run(struct cutter *c, struct cut_frame *f,
			 const unsigned char *last, int stop_last)
{
	struct e4t_tree_parts *p = c->p;
	const unsigned char *first = tree_ents_of(c->t, &c->t->dirs[f->dir]);
	struct tree_part tp = {
		.kind = TP_ENTS,
		.stop_last = (uint8_t)stop_last,
		.dir = f->dir,
		.count = f->n,
		.first = f->seg,
		.last = (uint64_t)(last - first),
	};
	errcode_t err;

	/* the directory's path, once for its consecutive parts */
	if (p->n && p->v[p->n - 1].kind == TP_ENTS &&
	    p->v[p->n - 1].dir == f->dir) {
		tp.path = p->v[p->n - 1].path;
	} else {
		if (tree_grow((void **)&p->paths, &p->paths_cap,
			      p->paths_len + f->path_len + 1, 1))
			return ENOMEM;
		tp.path = p->paths_len;
		memcpy(p->paths + p->paths_len, c->path, f->path_len);
		p->paths_len += f->path_len;
		p->paths[p->paths_len++] = '\0';
	}
	tp.path_len = f->path_len;
	err = add_part(p, &tp);
	f->seg = (uint64_t)(last + ENT_HDR + last[5] - first);
	f->n = 0;
	f->rows = 0;
	return err;
}

/* The path of the entry e's name under the frame's directory. */
static errcode_t path_to(struct cutter *c, size_t keep, const unsigned char *e)
{
	int slash = keep > 0 && c->path[keep - 1] != '/';

	if (tree_grow((void **)&c->path, &c->path_cap,
		      keep + (size_t)slash + e[5] + 1, 1))
		return ENOMEM;
	if (slash)
		c->path[keep++] = '/';
	memcpy(c->path + keep, e + ENT_HDR, e[5]);
	c->path_len = keep + e[5];
	return 0;
}

/* Pass 2: the runs of entries, of about rows names each, in walk order. */
static errcode_t plan_cut(struct cutter *c, uint32_t start, uint64_t rows)
{
	struct e4t_tree *t = c->t;
	errcode_t err;

	c->depth = 0;
	err = push(c, start);
	while (!err && c->depth) {
		struct cut_frame *f = &c->stack[c->depth - 1];
		const unsigned char *e;
		uint32_t rec, d;
		int big = 0;

		if (!f->left) {
			if (f->n)
				err = cut_run(c, f, f->last, 0);
			c->depth--;
			continue;
		}
		e = f->next;
		f->next += ENT_HDR + e[5];
		f->left--;
		f->n++;
		f->last = e;
		f->rows++;
		memcpy(&rec, e, sizeof(rec));
		if ((e[4] & 1) && is_dir_rec(c, rec)) {
			d = dir_index(t, rec);
			if (c->p->walked_by[d] == e) {
				if (c->under[d] > rows)
					big = 1;
				else
					f->rows += c->under[d];
			}
		}
		if (big) {
			/* this run up to the name, then the directory's
			 * own parts, then a new run */
			size_t keep = f->path_len;

			err = cut_run(c, f, e, 1);
			if (!err)
				err = path_to(c, keep, e);
			if (!err)
				err = push(c, d);
		} else if (f->rows >= rows) {
			err = cut_run(c, f, e, 0);
		}
	}
	return err;
}

/* The orphan and deleted inodes: runs of records, 16 times as many as
 * rows (most records are neither, and cost a look each). */
static errcode_t plan_rest(struct e4t_tree *t, struct e4t_tree_parts *p,
			   uint64_t rows)
{
	uint64_t step = rows * 16, i;
	errcode_t err = 0;

	for (i = 0; i < t->nrecs && !err; i += step) {
		struct tree_part tp = { .kind = TP_REST, .first = i };

		tp.count =
			(uint32_t)(t->nrecs - i < step ? t->nrecs - i : step);
		err = add_part(p, &tp);
	}
	return err;
}

static errcode_t plan(struct e4t_tree *t, struct e4t_tree_parts *p,
		      ext2_ino_t start_ino, size_t rows)
{
	struct cutter c = { .t = t, .p = p };
	struct tree_part tp = { .kind = TP_START };
	errcode_t err;
	size_t i;

	err = add_part(p, &tp);
	if (err || !LINUX_S_ISDIR(p->start->mode))
		goto rest;
	c.live_dir = calloc(t->nrecs / 64 + 1, sizeof(*c.live_dir));
	c.under = calloc(t->ndirs + 1, sizeof(*c.under));
	p->walked_by = calloc(t->ndirs + 1, sizeof(*p->walked_by));
	if (!c.live_dir || !c.under || !p->walked_by) {
		err = ENOMEM;
		goto out;
	}
	for (i = 0; i < t->ndirs; i++)
		c.live_dir[t->dirs[i].rec / 64] |= 1ULL
						   << (t->dirs[i].rec % 64);
	err = plan_walk(&c, dir_index(t, (uint32_t)(p->start - t->recs)));
	if (err)
		goto out;
	err = tree_grow((void **)&c.path, &c.path_cap, p->start_len + 1, 1);
	if (err)
		goto out;
	memcpy(c.path, p->start_path, p->start_len);
	c.path_len = p->start_len;
	err = plan_cut(&c, dir_index(t, (uint32_t)(p->start - t->recs)),
		       rows ? rows : 1);
rest:
	if (!err && (t->flags & E4T_TREE_DELETED) && start_ino == EXT2_ROOT_INO)
		err = plan_rest(t, p, rows ? rows : 1);
out:
	free(c.live_dir);
	free(c.under);
	free(c.stack);
	free(c.path);
	return err;
}

errcode_t e4t_tree_parts(struct e4t_tree *t, ext2_ino_t start,
			 const char *start_path, size_t rows,
			 struct e4t_tree_parts **ret)
{
	struct e4t_tree_parts *p;
	struct irec *r = tree_find(t, start);
	size_t len = strlen(start_path);
	errcode_t err;

	*ret = NULL;
	if (t->walk_reads) /* no entries held to cut */
		return EINVAL;
	if (!r || r->status != E4T_LIVE)
		return E4T_ERR_NOT_IN_USE;
	/* "/a/b/" names its rows "/a/b/c", as "/a/b" does (the walk) */
	while (len > 1 && start_path[len - 1] == '/')
		len--;
	p = calloc(1, sizeof(*p));
	if (!p)
		return ENOMEM;
	p->start = r;
	/* as a walk marks it (the parts write nothing): not an orphan */
	r->flags |= T_REACHED;
	p->start_len = len;
	p->start_path = malloc(len + 1);
	if (!p->start_path) {
		free(p);
		return ENOMEM;
	}
	memcpy(p->start_path, start_path, len);
	p->start_path[len] = '\0';
	if (start != EXT2_ROOT_INO)
		p->start_parent = tree_parent_of(t, (size_t)(r - t->recs));
	err = plan(t, p, start, rows);
	if (err) {
		e4t_tree_parts_free(p);
		return err;
	}
	*ret = p;
	return 0;
}

size_t e4t_tree_parts_count(const struct e4t_tree_parts *p)
{
	return p ? p->n : 0;
}

void e4t_tree_parts_free(struct e4t_tree_parts *p)
{
	if (!p)
		return;
	free(p->v);
	free(p->walked_by);
	free(p->paths);
	free(p->start_path);
	free(p);
}
