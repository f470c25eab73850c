/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrows.c --- timeline --journal, the rows: the inode copies the journal
 * holds, kept by jload.c (each when its times, size, mode, owner or links
 * differ from the copy of the same inode kept before it; an inode's
 * states are a list in journal order).  A row of the walk is followed by
 * those of its inode (but the one a deleted row named from the journal
 * shows already: the state before its deletion).
 *
 * Which file a state is of: the inode number's copies fall into files,
 * a new one where a copy is "created" from the one before (as history
 * and audit call it, e4t_inode_compare: links from 0, the slot free,
 * deleted or of another generation) or its generation changes.  The
 * last is the row's own file when its generation is the inode's on disk
 * now; the states of the others are of earlier files (a deleted file
 * whose number was used again, or the file a deletion freed): each is
 * shown once, after the inode's first row, deleted (the inode is free
 * now) or deleted-realloc, under the name the journaled directory
 * entries gave that file (e4t_journal_entries: the entry of the inode
 * number held when the state was committed, else the last before it in
 * the file's time), or "<INO>" with "(earlier file)" when none did.  A
 * state of the row's own file takes the name the entries held when it
 * was committed if that is not the row's (a rename since).  A copy of a
 * slot never used (mode 0) is of no file: it is left out.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jrows_int.h"

static void unpack(struct jrows *jr, uint32_t k, ext2_ino_t ino,
		   struct e4t_inode *in)
{
	struct jfull f;

	jrows_full(jr, k, ino, &f);
	memset(in, 0, sizeof(*in));
	in->ino = ino;
	in->mode = f.mode;
	in->links = f.links;
	in->uid = f.uid;
	in->gid = f.gid;
	in->size = f.size;
	in->iflags = f.iflags;
	in->inode_size = (uint16_t)jr->img->inode_size;
	in->extra_isize = f.extra_isize;
	in->present = f.present;
	in->flags = f.flags;
	in->generation = f.generation;
	memcpy(in->raw_base, f.raw_base, sizeof(f.raw_base));
	memcpy(in->raw_extra, f.raw_extra, sizeof(f.raw_extra));
	e4t_inode_decode_times(in);
}

/* The same state; with predelete, the row is a deleted inode shown as
 * the journal held it before the deletion, its links count and dtime the
 * disk's: those two are not compared. */
static int same_state(const struct e4t_inode *a, const struct e4t_inode *b,
		      int predelete)
{
	int f;

	if (a->mode != b->mode || (!predelete && a->links != b->links) ||
	    a->uid != b->uid || a->gid != b->gid || a->size != b->size)
		return 0;
	for (f = 0; f < (predelete ? E4T_DTIME : E4T_NFIELDS); f++)
		if (e4t_ts_cmp(&a->ts[f], &b->ts[f]) ||
		    (a->ts[f].flags & E4T_TS_STORED) !=
			    (b->ts[f].flags & E4T_TS_STORED))
			return 0;
	return 1;
}

struct e4t_journal *jrows_journal(const struct jrows *jr)
{
	return jr ? jr->j : NULL;
}

static size_t dpath_slot(const struct dpath *t, size_t cap, ext2_ino_t dir)
{
	size_t k = ((size_t)dir * 2654435761U) & (cap - 1);

	while (t[k].dir && t[k].dir != dir)
		k = (k + 1) & (cap - 1);
	return k;
}

/* The path of directory dir now (NULL: none, or no memory). */
static const struct dpath *dir_path(struct jrows *jr, ext2_ino_t dir)
{
	struct dpath *d;
	char *p = NULL;

	if (jr->dpaths_cap) {
		size_t k = dpath_slot(jr->dpaths, jr->dpaths_cap, dir);

		if (jr->dpaths[k].dir == dir)
			return &jr->dpaths[k];
	}
	if ((jr->ndpaths + 1) * 2 > jr->dpaths_cap) {
		size_t cap = jr->dpaths_cap ? jr->dpaths_cap * 2 : 64, i;
		struct dpath *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (i = 0; i < jr->dpaths_cap; i++)
			if (jr->dpaths[i].dir)
				t[dpath_slot(t, cap, jr->dpaths[i].dir)] =
					jr->dpaths[i];
		free(jr->dpaths);
		jr->dpaths = t;
		jr->dpaths_cap = cap;
	}
	d = &jr->dpaths[dpath_slot(jr->dpaths, jr->dpaths_cap, dir)];
	d->dir = dir;
	d->path = NULL;
	d->len = 0;
	jr->ndpaths++;
	/* through an encrypted directory: its no-key names (jpath.c) */
	if (ext2fs_has_feature_encrypt(jr->img->fs->super)) {
		if (jpath_nokey(jr->img->fs, dir, &p)) {
			jr->ndpaths--;
			d->dir = 0;
			return NULL;
		}
	} else {
		char *q = NULL;

		if (!ext2fs_get_pathname(jr->img->fs, dir, 0, &q) && q)
			p = strdup(q);
		if (q)
			ext2fs_free_mem(&q);
	}
	if (p && p[0] == '/') {
		d->len = strlen(p);
		if (d->len == 1)
			d->len = 0; /* "/": its entries are "/NAME" */
		d->path = dup_bytes(p, d->len);
	}
	free(p);
	return d;
}

/* The path of directory entry n into jr->path; NULL: none (its directory
 * has no path now) or no memory. */
static const char *name_path(struct jrows *jr, const struct jname *n,
			     size_t *len)
{
	const struct dpath *d = dir_path(jr, n->dir);
	size_t need;

	if (!d || !d->path)
		return NULL;
	need = d->len + 1 + n->name_len + 1;
	if (e4t_grow(&jr->path, &jr->path_cap, need, 1, 256))
		return NULL;
	memcpy(jr->path, d->path, d->len);
	jr->path[d->len] = '/';
	memcpy(jr->path + d->len + 1, jr->nbuf + n->name_off, n->name_len);
	jr->path[d->len + 1 + n->name_len] = '\0';
	*len = d->len + 1 + n->name_len;
	return jr->path;
}

/* Is n the name row has (its path)? */
static int is_row_name(struct jrows *jr, const struct jname *n,
		       const struct e4t_row *row)
{
	const char *p;
	size_t len;

	if (row->path_len < (size_t)n->name_len + 1 ||
	    memcmp(row->path + row->path_len - n->name_len,
		   jr->nbuf + n->name_off, n->name_len) ||
	    row->path[row->path_len - n->name_len - 1] != '/')
		return 0;
	p = name_path(jr, n, &len);
	return p && len == row->path_len && !memcmp(p, row->path, len);
}

/*
 * The name of ino's state committed in transaction trans, of the file
 * whose states span [from, to): of its entries that overlap that span,
 * one held at trans (the row's own name first, then the newest), else
 * the last before trans (a deletion), else the first; NULL: none.
 */
static const struct jname *name_at(struct jrows *jr, ext2_ino_t ino,
				   size_t trans, size_t from, size_t to,
				   const struct e4t_row *own)
{
	size_t i =
		E4T_LOWER_BOUND(jr->names, jr->nnames, struct jname, ino, ino);
	const struct jname *held = NULL, *before = NULL, *after = NULL;

	for (; i < jr->nnames && jr->names[i].ino == ino; i++) {
		const struct jname *n = &jr->names[i];

		if (n->first >= to || n->gone <= from)
			continue; /* another file's */
		if (n->first <= trans && trans < n->gone) {
			if (own && is_row_name(jr, n, own))
				return n;
			held = n; /* by first: the newest last */
		} else if (n->first <= trans) {
			before = n;
		} else if (!after) {
			after = n;
		}
	}
	return held ? held : before ? before : after;
}

/* The generation of ino on disk now; 0 when it cannot be read. */
static int disk_generation(struct jrows *jr, ext2_ino_t ino, uint32_t *gen)
{
	struct ext2_inode inode;

	if (ext2fs_read_inode(jr->img->fs, ino, &inode))
		return 0;
	*gen = inode.i_generation;
	return 1;
}

int jrows_row_inode(struct jrows *jr, const struct e4t_row *row,
		    struct e4t_inode *in)
{
	ext2_ino_t ino = row->inode->ino;

	if (ino == 0 || ino > jr->ninodes || jr->head[ino] == NONE)
		return 0;
	*in = *row->inode;
	/* the tree read it (DISKGEN), or the disk now */
	if ((in->flags & E4T_INO_DISKGEN) || (in->flags & E4T_INO_GEN) ||
	    disk_generation(jr, ino, &in->generation))
		in->flags |= E4T_INO_GEN;
	return 1;
}

int jrows_emit(struct jrows *jr, const struct e4t_row *row, e4t_row_fn fn,
	       void *priv)
{
	ext2_ino_t ino = row->inode->ino;
	int predelete = row->journal && row->journal->kind == E4T_RJ_PREDELETE;
	int in_use = row->status != E4T_DELETED && row->inode->links > 0;
	uint32_t k, last = NONE, own_first = NONE, gen_now;
	int rc = 0, first_row, known;

	if (ino == 0 || ino > jr->ninodes || jr->head[ino] == NONE)
		return 0;
	/* the row's own file: the last, when it is the generation now */
	for (k = jr->head[ino]; k != NONE; k = pstate(jr, k)->next) {
		if (pborn(jr, k) || k == jr->head[ino])
			own_first = k;
		last = k;
	}
	if (row->inode->flags & E4T_INO_DISKGEN) { /* the tree read it */
		gen_now = row->inode->generation;
		known = 1;
	} else {
		known = disk_generation(jr, ino, &gen_now);
	}
	if (known && pstate(jr, last)->generation != gen_now)
		own_first = NONE; /* every state is of an earlier file */
	first_row = !(jr->earlier_done[ino / 8] & (1U << (ino % 8)));
	jr->earlier_done[ino / 8] |= (uint8_t)(1U << (ino % 8));

	for (k = jr->head[ino]; k != NONE && !rc;) {
		uint32_t end = k, m;
		size_t from = pstate(jr, k)->trans, to = SIZE_MAX;
		int own = k == own_first;

		/* one file: k up to the next born state */
		while (pstate(jr, end)->next != NONE &&
		       !pborn(jr, pstate(jr, end)->next))
			end = pstate(jr, end)->next;
		if (pstate(jr, end)->next != NONE)
			to = pstate(jr, pstate(jr, end)->next)->trans;
		for (m = k; !rc; m = pstate(jr, m)->next) {
			struct e4t_inode in;
			struct e4t_row r = *row;
			const struct jname *n;
			size_t len = 0;

			if (!own && !first_row)
				goto next; /* shown after the first name */
			unpack(jr, m, ino, &in);
			if (own && same_state(&in, row->inode, predelete))
				goto next; /* the row says it */
			r.inode = &in;
			jr->rj = jr->trans[pstate(jr, m)->trans];
			n = name_at(jr, ino, pstate(jr, m)->trans, from, to,
				    own ? row : NULL);
			if (own && n && !is_row_name(jr, n, row)) {
				/* the same file under the name it had then */
				r.path = name_path(jr, n, &len);
				r.path_len = len;
				r.name_source = "journal";
				r.parent = n->dir;
				if (!r.path) {
					r.path = row->path;
					r.path_len = row->path_len;
					r.name_source = row->name_source;
					r.parent = row->parent;
				}
			} else if (!own) {
				r.status = in_use ? E4T_DELETED_REALLOC
						  : E4T_DELETED;
				r.path = n ? name_path(jr, n, &len) : NULL;
				r.path_len = len;
				r.parent = n ? n->dir : 0;
				r.name_source = "journal";
				jr->rj.earlier = 1;
				if (!r.path) {
					if (e4t_grow(&jr->path, &jr->path_cap,
						     16, 1, 256))
						return ENOMEM;
					r.path_len = (size_t)snprintf(
						jr->path, 16, "<%u>", ino);
					r.path = jr->path;
					r.parent = 0;
					r.name_source = "none";
					jr->rj.earlier = 2;
				}
			}
			r.journal = &jr->rj;
			rc = fn(&r, priv);
		next:
			if (m == end)
				break;
		}
		k = pstate(jr, end)->next;
	}
	return rc;
}

void jrows_free(struct jrows *jr)
{
	size_t i;

	if (!jr)
		return;
	free(jr->parts[0].v);
	free(jr->parts[1].v);
	free(jr->parts[0].full);
	free(jr->parts[1].full);
	free(jr->head);
	free(jr->tail);
	free(jr->trans);
	free(jr->names);
	free(jr->nbuf);
	free(jr->earlier_done);
	free(jr->path);
	for (i = 0; i < jr->dpaths_cap; i++)
		free(jr->dpaths[i].path);
	free(jr->dpaths);
	e4t_journal_close(jr->j);
	e4t_image_shadow_free(jr->own_img); /* after its journal */
	free(jr);
}
