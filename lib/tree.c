/*
 * tree.c --- an index of the whole filesystem, built in two linear
 * passes: the inode table in order (ext2fs inode scan), then every
 * directory's blocks.  Paths are never looked up one by one; the walk
 * builds them depth first in a single buffer.
 *
 * Memory: one compact record per kept inode (~80 bytes) and one edge per
 * directory entry (16 bytes plus the name).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

/* struct irec.tflags */
#define T_REACHED  0x01 /* some name reaches it from / */
#define T_EXPANDED 0x02 /* directory already walked in this walk */
#define T_CSUM_BAD 0x04

struct irec {
	uint32_t ino;
	uint16_t mode;
	uint16_t links;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint32_t iflags;
	uint16_t extra_isize;
	uint16_t flags;
	uint16_t present;
	uint8_t status;
	uint8_t tflags;
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_DTIME]; /* dtime has no _extra */
	uint32_t edge_start;
	uint32_t edge_count;
};

struct edge {
	uint64_t name_off;
	uint32_t child;
	uint8_t name_len;
	uint8_t file_type;
};

struct e4t_tree {
	struct e4t_image *img;
	struct e4t_tree_cb cb;
	unsigned flags;
	struct irec *recs;
	size_t nrecs, recs_cap;
	struct edge *edges;
	size_t nedges, edges_cap;
	char *names;
	size_t names_len, names_cap;
	errcode_t oom;	     /* set when add_edge ran out of memory */
	ext2_ino_t *orphans; /* the orphan list, sorted */
	size_t norphans;
	/* group_first[g]: index of the first record of block group g (one
	 * more entry at the end), so a lookup searches one group only. */
	uint32_t *group_first;
	uint32_t ipg; /* inodes per group */
	dgrp_t ngroups;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static void warn(struct e4t_tree *t, errcode_t err, ext2_ino_t ino,
		 const char *detail)
{
	if (t->cb.warn)
		t->cb.warn(err, ino, detail, t->cb.priv);
}

static struct irec *find(const struct e4t_tree *t, ext2_ino_t ino)
{
	size_t lo = 0, hi = t->nrecs;

	if (t->group_first && ino >= 1) {
		dgrp_t g = (ino - 1) / t->ipg;
		size_t guess;

		if (g >= t->ngroups)
			return NULL;
		lo = t->group_first[g];
		hi = t->group_first[g + 1];
		/* A densely used group: the record sits at its offset. */
		guess = lo + (ino - 1) % t->ipg;
		if (guess < hi && t->recs[guess].ino == ino)
			return &t->recs[guess];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->recs[mid].ino == ino)
			return &t->recs[mid];
		if (t->recs[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void expand(const struct irec *r, unsigned inode_size,
		   struct e4t_inode *info)
{
	memset(info, 0, sizeof(*info));
	info->ino = r->ino;
	info->mode = r->mode;
	info->links = r->links;
	info->uid = r->uid;
	info->gid = r->gid;
	info->size = r->size;
	info->iflags = r->iflags;
	info->inode_size = (uint16_t)inode_size;
	info->extra_isize = r->extra_isize;
	info->flags = r->flags;
	info->present = r->present;
	memcpy(info->raw_base, r->raw_base, sizeof(r->raw_base));
	memcpy(info->raw_extra, r->raw_extra, sizeof(r->raw_extra));
	e4t_inode_decode_times(info);
}

/* Which inodes the tree keeps, and as what. */
static int classify(const struct e4t_tree *t, ext2_ino_t ino,
		    const struct ext2_inode_large *raw)
{
	ext2_filsys fs = t->img->fs;

	if (raw->i_mode == 0)
		return -1;
	if (ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INODE(fs->super))
		return -1;
	if (raw->i_links_count > 0 && raw->i_dtime == 0)
		return E4T_LIVE;
	if (raw->i_links_count > 0) /* on the orphan list: still in use */
		return E4T_LIVE;
	if (!(t->flags & E4T_TREE_DELETED))
		return -1;
	/* Unlinked but still open: dtime links the orphan list. */
	if (e4t_ino_in(t->orphans, t->norphans, ino))
		return E4T_ORPHAN;
	if (raw->i_dtime != 0)
		return E4T_DELETED;
	return -1;
}

static errcode_t add_inode(struct e4t_tree *t, ext2_ino_t ino,
			   const struct ext2_inode_large *raw, int status)
{
	struct e4t_inode info;
	struct irec *r;
	errcode_t err;

	err = grow((void **)&t->recs, &t->recs_cap, t->nrecs + 1,
		   sizeof(*t->recs));
	if (err)
		return err;
	e4t_inode_decode(raw, t->img->inode_size, ino, &info);
	if (e4t_ino_in(t->orphans, t->norphans, ino)) {
		info.flags |= E4T_INO_ORPHAN_LIST;
		e4t_inode_decode_times(&info);
	}
	r = &t->recs[t->nrecs++];
	memset(r, 0, sizeof(*r));
	r->ino = ino;
	r->mode = info.mode;
	r->links = info.links;
	r->uid = info.uid;
	r->gid = info.gid;
	r->size = info.size;
	r->iflags = info.iflags;
	r->extra_isize = info.extra_isize;
	r->present = info.present;
	r->status = (uint8_t)status;
	memcpy(r->raw_base, info.raw_base, sizeof(r->raw_base));
	memcpy(r->raw_extra, info.raw_extra, sizeof(r->raw_extra));
	if (!ext2fs_inode_csum_verify(t->img->fs, ino,
				      (struct ext2_inode_large *)raw)) {
		info.flags |= E4T_INO_CSUM_BAD;
		warn(t, E4T_ERR_INODE_CSUM, ino, NULL);
	}
	if (info.flags & E4T_INO_EXTRA_BAD)
		warn(t, E4T_ERR_EXTRA_ISIZE, ino, NULL);
	r->flags = info.flags;
	return 0;
}

static errcode_t scan_inodes(struct e4t_tree *t)
{
	ext2_filsys fs = t->img->fs;
	ext2_inode_scan scan;
	ext2_ino_t ino = 0, last = 0;
	unsigned bufsize = t->img->inode_size;
	uint64_t total = fs->super->s_inodes_count, tick = 0;
	struct ext2_inode_large *buf;
	errcode_t err;

	if (bufsize < sizeof(struct ext2_inode_large))
		bufsize = sizeof(struct ext2_inode_large);
	buf = calloc(1, bufsize);
	if (!buf)
		return ENOMEM;
	/* 1 MiB reads of the inode table, not libext2fs' default few blocks */
	err = ext2fs_open_inode_scan(fs, (1 << 20) / fs->blocksize, &scan);
	if (err) {
		free(buf);
		return err;
	}
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	for (;;) {
		int status;

		memset(buf, 0, bufsize);
		err = ext2fs_get_next_inode_full(scan, &ino,
						 (struct ext2_inode *)buf,
						 t->img->inode_size);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			/* Unreadable inode table: skip to the next group. */
			dgrp_t g = last / fs->super->s_inodes_per_group + 1;
			char detail[64];

			snprintf(detail, sizeof(detail),
				 "inode table of group %u", g - 1);
			warn(t, err, 0, detail);
			err = 0;
			if (g >= fs->group_desc_count)
				break;
			last = g * fs->super->s_inodes_per_group;
			if (ext2fs_inode_scan_goto_blockgroup(scan, g))
				break;
			continue;
		}
		if (ino == 0)
			break;
		last = ino;
		status = classify(t, ino, buf);
		if (status >= 0) {
			err = add_inode(t, ino, buf, status);
			if (err)
				break;
		}
		if (t->cb.progress && ++tick % 65536 == 0)
			t->cb.progress("inodes", ino, total, t->cb.priv);
	}
	ext2fs_close_inode_scan(scan);
	free(buf);
	return err;
}

static int add_edge(ext2_ino_t dir, ext2_ino_t ino, const char *name,
		    unsigned name_len, unsigned file_type, void *priv)
{
	struct e4t_tree *t = priv;
	struct edge *e;

	if (grow((void **)&t->edges, &t->edges_cap, t->nedges + 1,
		 sizeof(*t->edges)) ||
	    grow((void **)&t->names, &t->names_cap, t->names_len + name_len,
		 1)) {
		t->oom = ENOMEM;
		return 1; /* stops the scan; scan_dirs reports it */
	}
	e = &t->edges[t->nedges++];
	e->name_off = t->names_len;
	e->child = ino;
	e->name_len = (uint8_t)name_len;
	e->file_type = (uint8_t)file_type;
	memcpy(t->names + t->names_len, name, name_len);
	t->names_len += name_len;
	return 0;
}

static void dir_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		     void *priv)
{
	warn(priv, err, ino, detail);
}

static errcode_t scan_dirs(struct e4t_tree *t)
{
	size_t i, ndirs = 0, done = 0;
	errcode_t err;

	for (i = 0; i < t->nrecs; i++)
		if (LINUX_S_ISDIR(t->recs[i].mode) &&
		    t->recs[i].status == E4T_LIVE)
			ndirs++;
	for (i = 0; i < t->nrecs; i++) {
		struct irec *r = &t->recs[i];

		if (!LINUX_S_ISDIR(r->mode) || r->status != E4T_LIVE)
			continue;
		r->edge_start = (uint32_t)t->nedges;
		err = e4t_dir_scan(t->img, r->ino,
				   (r->iflags & EXT4_INLINE_DATA_FL) != 0,
				   add_edge, dir_warn, t);
		if (t->oom)
			return t->oom;
		if (err)
			warn(t, err, r->ino, "reading directory");
		r->edge_count = (uint32_t)(t->nedges - r->edge_start);
		if (t->cb.progress && ++done % 4096 == 0)
			t->cb.progress("directories", done, ndirs, t->cb.priv);
	}
	return 0;
}

/*
 * Depth-first walk.  With fn == NULL it only marks what is reachable.
 */
struct frame {
	struct irec *dir;
	uint32_t next;
	size_t path_len;
};

struct walker {
	struct e4t_tree *t;
	e4t_row_fn fn;
	void *priv;
	char *path;
	size_t path_len, path_cap;
	struct frame *stack;
	size_t depth, stack_cap;
};

static errcode_t path_set(struct walker *w, size_t keep, const char *name,
			  size_t len)
{
	int slash = keep > 0 && w->path[keep - 1] != '/';
	errcode_t err;

	err = grow((void **)&w->path, &w->path_cap, keep + slash + len + 1, 1);
	if (err)
		return err;
	if (slash)
		w->path[keep++] = '/';
	memcpy(w->path + keep, name, len);
	w->path_len = keep + len;
	w->path[w->path_len] = '\0';
	return 0;
}

static int emit(struct walker *w, struct irec *r, enum e4t_status status)
{
	struct e4t_inode info;
	struct e4t_row row;

	if (!w->fn)
		return 0;
	expand(r, w->t->img->inode_size, &info);
	row.path = w->path;
	row.path_len = w->path_len;
	row.inode = &info;
	row.status = status;
	return w->fn(&row, w->priv);
}

static errcode_t push(struct walker *w, struct irec *dir)
{
	errcode_t err;

	err = grow((void **)&w->stack, &w->stack_cap, w->depth + 1,
		   sizeof(*w->stack));
	if (err)
		return err;
	dir->tflags |= T_EXPANDED;
	w->stack[w->depth].dir = dir;
	w->stack[w->depth].next = 0;
	w->stack[w->depth].path_len = w->path_len;
	w->depth++;
	return 0;
}

static errcode_t walk(struct walker *w, struct irec *start)
{
	struct e4t_tree *t = w->t;
	errcode_t err = 0;
	int rc;
	size_t i;

	for (i = 0; i < t->nrecs; i++)
		t->recs[i].tflags &= (uint8_t)~T_EXPANDED;
	start->tflags |= T_REACHED;
	rc = emit(w, start, E4T_LIVE);
	if (rc)
		return rc;
	if (!LINUX_S_ISDIR(start->mode))
		return 0;
	err = push(w, start);
	while (!err && w->depth) {
		struct frame *f = &w->stack[w->depth - 1];
		struct edge *e;
		struct irec *child;

		if (f->next >= f->dir->edge_count) {
			w->depth--;
			continue;
		}
		e = &t->edges[f->dir->edge_start + f->next++];
		child = find(t, e->child);
		if (!child || child->status != E4T_LIVE) {
			if (w->fn)
				warn(t, E4T_ERR_NOT_IN_USE, e->child,
				     "named by a directory entry");
			continue;
		}
		child->tflags |= T_REACHED;
		if (w->fn) {
			err = path_set(w, f->path_len, t->names + e->name_off,
				       e->name_len);
			if (err)
				break;
			rc = emit(w, child, E4T_LIVE);
			if (rc)
				return rc;
		}
		if (!LINUX_S_ISDIR(child->mode))
			continue;
		if (child->tflags & T_EXPANDED) {
			if (w->fn)
				warn(t, E4T_ERR_DIR_LOOP, child->ino, NULL);
			continue;
		}
		err = push(w, child);
	}
	return err;
}

/* Index the records by block group, for find(). */
static errcode_t index_groups(struct e4t_tree *t)
{
	ext2_filsys fs = t->img->fs;
	size_t i = 0;
	dgrp_t g;

	t->ipg = fs->super->s_inodes_per_group;
	t->ngroups = fs->group_desc_count;
	if (!t->ipg)
		return 0; /* find() falls back to a binary search */
	t->group_first = malloc((t->ngroups + 1) * sizeof(*t->group_first));
	if (!t->group_first)
		return ENOMEM;
	for (g = 0; g <= t->ngroups; g++) {
		uint64_t first = (uint64_t)g * t->ipg + 1;

		while (i < t->nrecs && t->recs[i].ino < first)
			i++;
		t->group_first[g] = (uint32_t)i;
	}
	return 0;
}

/* Size the arrays once from the superblock's count of inodes in use. */
static errcode_t reserve(struct e4t_tree *t)
{
	const struct ext2_super_block *sb = t->img->fs->super;
	size_t used = 1024;

	if (sb->s_free_inodes_count < sb->s_inodes_count)
		used += sb->s_inodes_count - sb->s_free_inodes_count;
	if (grow((void **)&t->recs, &t->recs_cap, used, sizeof(*t->recs)) ||
	    grow((void **)&t->edges, &t->edges_cap, used, sizeof(*t->edges)) ||
	    grow((void **)&t->names, &t->names_cap, used * 12, 1))
		return ENOMEM;
	return 0;
}

errcode_t e4t_tree_load(struct e4t_image *img, unsigned flags,
			const struct e4t_tree_cb *cb, struct e4t_tree **ret)
{
	struct e4t_tree *t;
	struct walker w = { 0 };
	struct irec *root;
	errcode_t err;

	*ret = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	t->img = img;
	t->flags = flags;
	if (cb)
		t->cb = *cb;
	err = reserve(t);
	if (!err)
		err = e4t_image_orphans(img, &t->orphans, &t->norphans);
	if (!err)
		err = scan_inodes(t);
	if (!err)
		err = index_groups(t);
	if (!err)
		err = scan_dirs(t);
	if (err) {
		e4t_tree_free(t);
		return err;
	}
	/* Mark what / reaches, so that orphans can be told apart. */
	root = find(t, EXT2_ROOT_INO);
	if (root && LINUX_S_ISDIR(root->mode)) {
		w.t = t;
		err = walk(&w, root);
		free(w.stack);
		free(w.path);
		if (err) {
			e4t_tree_free(t);
			return err;
		}
	}
	*ret = t;
	return 0;
}

void e4t_tree_free(struct e4t_tree *t)
{
	if (!t)
		return;
	free(t->recs);
	free(t->edges);
	free(t->names);
	free(t->orphans);
	free(t->group_first);
	free(t);
}

errcode_t e4t_tree_walk(struct e4t_tree *t, ext2_ino_t start,
			const char *start_path, e4t_row_fn fn, void *priv)
{
	struct walker w = { .t = t, .fn = fn, .priv = priv };
	struct irec *r = find(t, start);
	errcode_t err;
	size_t i;

	if (!r || r->status != E4T_LIVE)
		return E4T_ERR_NOT_IN_USE;
	err = path_set(&w, 0, start_path, strlen(start_path));
	if (!err)
		err = walk(&w, r);
	if (!err && (t->flags & E4T_TREE_DELETED) && start == EXT2_ROOT_INO) {
		for (i = 0; i < t->nrecs && !err; i++) {
			struct irec *o = &t->recs[i];
			char name[24];
			enum e4t_status st;

			if (o->status == E4T_DELETED)
				st = E4T_DELETED;
			else if (!(o->tflags & T_REACHED))
				st = E4T_ORPHAN;
			else
				continue;
			snprintf(name, sizeof(name), "<%u>", o->ino);
			err = path_set(&w, 0, name, strlen(name));
			if (!err)
				err = emit(&w, o, st);
		}
	}
	free(w.stack);
	free(w.path);
	return err;
}

errcode_t e4t_tree_inode(const struct e4t_tree *t, ext2_ino_t ino,
			 struct e4t_inode *info)
{
	struct irec *r = find(t, ino);

	if (!r)
		return E4T_ERR_NOT_IN_USE;
	expand(r, t->img->inode_size, info);
	return 0;
}
