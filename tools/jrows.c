/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrows.c --- timeline --journal: the inode copies the journal holds
 * (e4t_audit_run hands them out in order, oldest first, identical
 * consecutive copies already left out), each kept, compactly, when its
 * times, size, mode, owner or links differ from the copy of the same
 * inode kept before it.  An inode's states are a list in journal order
 * (no sort: a 1 GiB journal holds millions of copies).  A row of the
 * walk is followed by those of its inode (but the one a deleted row named
 * from the journal shows already: the state before its deletion).
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

#include "jrows.h"

#define NONE UINT32_MAX
/* The audit runs on two threads (E4T_AUDIT_PARTS): each share keeps its
 * states apart, and an index of the second share's carries PART1. */
#define PART1	 0x80000000U
#define PART_MAX (PART1 - 2)

/* One state, as the tree keeps an inode (about 80 bytes). */
struct jstate {
	uint32_t next; /* the inode's next state, or NONE */
	uint32_t trans;
	uint32_t ino;
	uint16_t mode, links;
	uint32_t uid, gid;
	uint64_t size;
	uint32_t iflags;
	uint16_t extra_isize, present, flags;
	uint32_t generation;
	uint8_t born; /* a new file begins here */
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_DTIME]; /* dtime has no _extra */
};

/* A directory's path now, as ext2fs_get_pathname gives it (cached: the
 * entries of one directory name many states). */
struct dpath {
	ext2_ino_t dir; /* 0: an empty slot */
	char *path;	/* NULL: it has none */
	size_t len;
};

/* A journaled directory entry and when it was held (e4t_jentry). */
struct jname {
	ext2_ino_t ino, dir;
	size_t first, gone;
	size_t name_off;
	unsigned name_len;
};

/* One share's states while the audit runs. */
struct jpart {
	struct jstate *v;
	size_t n, cap;
	errcode_t err;
};

struct jrows {
	struct e4t_image *img;
	struct jpart parts[2]; /* the states, by index (PART1: the second) */
	uint32_t *head, *tail; /* by inode number */
	uint32_t ninodes;
	struct e4t_row_journal *trans; /* tid and commit time by index */
	struct e4t_journal *j;	       /* kept for timeline --deleted */
	errcode_t err;
	struct jname *names; /* by inode number */
	size_t nnames, names_cap;
	char *nbuf;
	size_t nbuf_len, nbuf_cap;
	uint8_t *earlier_done; /* bit by inode: earlier files shown */
	char *path;	       /* the path of the row being made */
	size_t path_cap;
	struct dpath *dpaths; /* open hash by directory */
	size_t ndpaths, dpaths_cap;
	struct e4t_row_journal rj;
	ext2_ino_t nk_dir; /* the directory of the last entry read */
	int nk_enc;	   /* encrypted: its no-key names (nk) */
	struct e4t_nokey nk;
};

static void pack(const struct e4t_inode *in, uint32_t trans, struct jstate *s)
{
	memset(s, 0, sizeof(*s));
	s->next = NONE;
	s->trans = trans;
	s->ino = in->ino;
	s->mode = in->mode;
	s->links = in->links;
	s->uid = in->uid;
	s->gid = in->gid;
	s->size = in->size;
	s->iflags = in->iflags;
	s->extra_isize = in->extra_isize;
	s->present = in->present;
	s->flags = in->flags;
	s->generation = in->generation;
	memcpy(s->raw_base, in->raw_base, sizeof(s->raw_base));
	memcpy(s->raw_extra, in->raw_extra, sizeof(s->raw_extra));
}

static void unpack(const struct jrows *jr, const struct jstate *s,
		   struct e4t_inode *in)
{
	memset(in, 0, sizeof(*in));
	in->ino = s->ino;
	in->mode = s->mode;
	in->links = s->links;
	in->uid = s->uid;
	in->gid = s->gid;
	in->size = s->size;
	in->iflags = s->iflags;
	in->inode_size = (uint16_t)jr->img->inode_size;
	in->extra_isize = s->extra_isize;
	in->present = s->present;
	in->flags = s->flags;
	in->generation = s->generation;
	memcpy(in->raw_base, s->raw_base, sizeof(s->raw_base));
	memcpy(in->raw_extra, s->raw_extra, sizeof(s->raw_extra));
	e4t_inode_decode_times(in);
}

/* The same times, size, mode, owner and links (the raw words decide). */
static int same_packed(const struct jstate *a, const struct jstate *b)
{
	return a->mode == b->mode && a->links == b->links && a->uid == b->uid &&
	       a->gid == b->gid && a->size == b->size &&
	       a->present == b->present && a->generation == b->generation &&
	       !memcmp(a->raw_base, b->raw_base, sizeof(a->raw_base)) &&
	       !memcmp(a->raw_extra, b->raw_extra, sizeof(a->raw_extra));
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

/* The state of a share's index (PART1 set: the second share's). */
static struct jstate *pstate(const struct jrows *jr, uint32_t k)
{
	return &jr->parts[k >> 31].v[k & ~PART1];
}

/* A copy, on the thread of its share: the inode's lists are the share's
 * alone (head, tail and next hold the share's indexes). */
static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct jrows *jr = priv;
	struct jpart *p = &jr->parts[c->part ? 1 : 0];
	uint32_t tag = c->part ? PART1 : 0, k;
	struct e4t_inode in;
	struct jstate *s;

	if (c->src == E4T_SRC_DISK || !c->t || c->ino == 0 ||
	    c->ino > jr->ninodes || c->trans >= UINT32_MAX || p->n >= PART_MAX)
		return 0;
	if (grow_array(&p->v, &p->cap, p->n, sizeof(*p->v))) {
		p->err = ENOMEM;
		return 1;
	}
	/* pack() keeps the raw time words only */
	e4t_inode_decode_disk_fields(c->raw, c->len, jr->img->inode_size,
				     c->ino, &in);
	if (!in.mode)
		return 0; /* a slot never used: no file's */
	s = &p->v[p->n];
	k = (uint32_t)p->n | tag;
	pack(&in, (uint32_t)c->trans, s);
	if (jr->tail[c->ino] == NONE) {
		jr->head[c->ino] = k;
	} else if (c->trans < pstate(jr, jr->head[c->ino])->trans) {
		/* the first copy of its block, compared with the older home
		 * block after the others (audit.c): it is the oldest */
		struct jstate *h = pstate(jr, jr->head[c->ino]);

		if (same_packed(h, s))
			return 0;
		s->next = jr->head[c->ino];
		h->born = h->generation != s->generation;
		jr->head[c->ino] = k;
		p->n++;
		return 0;
	} else {
		struct jstate *t = pstate(jr, jr->tail[c->ino]);

		if (same_packed(t, s))
			return 0;
		s->born = (!c->baseline && c->change == E4T_CH_CREATED) ||
			  t->generation != s->generation;
		t->next = k;
	}
	jr->tail[c->ino] = k;
	p->n++;
	return 0;
}

/* The shares' errors, once both are done. */
static errcode_t parts_err(const struct jrows *jr)
{
	return jr->parts[0].err ? jr->parts[0].err : jr->parts[1].err;
}

static int on_entry(const struct e4t_jentry *e, void *priv)
{
	struct jrows *jr = priv;
	struct e4t_jentry nk = *e;
	char nokey[E4T_NOKEY_MAX];
	struct jname *n;

	/* an encrypted directory's entry: the name ls lists without the key
	 * (the directory as it is now) */
	if (e->dir != jr->nk_dir) {
		struct ext2_inode inode;

		jr->nk_dir = e->dir;
		jr->nk_enc = !ext2fs_read_inode(jr->img->fs, e->dir, &inode) &&
			     e4t_nokey_setup(jr->img->fs, inode.i_flags,
					     EXT2_I_SIZE(&inode), &jr->nk);
	}
	if (jr->nk_enc) {
		unsigned len =
			e4t_nokey_name(&jr->nk, e->name, e->name_len, nokey);

		if (len) {
			nk.name = nokey;
			nk.name_len = len;
		}
	}
	e = &nk;
	if (e4t_grow(&jr->names, &jr->names_cap, jr->nnames + 1,
		     sizeof(*jr->names), 64) ||
	    e4t_grow(&jr->nbuf, &jr->nbuf_cap, jr->nbuf_len + e->name_len, 1,
		     1024)) {
		jr->err = ENOMEM;
		return 1;
	}
	n = &jr->names[jr->nnames++];
	n->ino = e->ino;
	n->dir = e->dir;
	n->first = e->first;
	n->gone = e->gone;
	n->name_off = jr->nbuf_len;
	n->name_len = e->name_len;
	memcpy(jr->nbuf + jr->nbuf_len, e->name, e->name_len);
	jr->nbuf_len += e->name_len;
	return 0;
}

static int cmp_jname(const void *x, const void *y)
{
	const struct jname *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The journaled entries of the directories whose inodes the journal
 * holds (a directory block changes with its inode's times). */
static errcode_t load_names(struct jrows *jr)
{
	ext2_ino_t *dirs = NULL, ino;
	size_t n = 0, cap = 0;
	errcode_t err = 0;

	for (ino = 1; ino <= jr->ninodes && !err; ino++) {
		uint32_t k;

		for (k = jr->head[ino]; k != NONE; k = pstate(jr, k)->next)
			if (LINUX_S_ISDIR(pstate(jr, k)->mode))
				break;
		if (k == NONE)
			continue;
		if (e4t_grow(&dirs, &cap, n + 1, sizeof(*dirs), 64))
			err = ENOMEM;
		else
			dirs[n++] = ino;
	}
	if (!err && n)
		err = e4t_journal_entries(jr->img, jr->j, dirs, n, on_entry,
					  jr);
	free(dirs);
	if (!err)
		err = jr->err;
	if (!err && jr->nnames)
		qsort(jr->names, jr->nnames, sizeof(*jr->names), cmp_jname);
	return err;
}

errcode_t jrows_load(struct e4t_image *img, e4t_warn_fn warn, void *priv,
		     struct jrows **ret)
{
	struct jrows *jr = calloc(1, sizeof(*jr));
	struct e4t_journal *j = NULL;
	struct e4t_audit *a = NULL;
	errcode_t err;
	size_t i, nt = 0;

	*ret = NULL;
	if (!jr)
		return ENOMEM;
	jr->img = img;
	jr->ninodes = img->fs->super->s_inodes_count;
	jr->head = malloc(((size_t)jr->ninodes + 1) * sizeof(*jr->head));
	jr->tail = malloc(((size_t)jr->ninodes + 1) * sizeof(*jr->tail));
	if (!jr->head || !jr->tail) {
		jrows_free(jr);
		return ENOMEM;
	}
	memset(jr->head, 0xff, ((size_t)jr->ninodes + 1) * sizeof(*jr->head));
	memset(jr->tail, 0xff, ((size_t)jr->ninodes + 1) * sizeof(*jr->tail));
	err = e4t_journal_open(img, NULL, &j);
	if (!err)
		err = e4t_journal_load(j, E4T_J_STALE, warn, priv);
	if (!err) {
		nt = e4t_journal_count(j);
		jr->trans = calloc(nt ? nt : 1, sizeof(*jr->trans));
		if (!jr->trans)
			err = ENOMEM;
	}
	for (i = 0; !err && i < nt; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);

		jr->trans[i].tid = t->tid;
		jr->trans[i].commit_sec = t->commit_sec;
		jr->trans[i].commit_nsec = t->commit_nsec;
	}
	if (!err)
		err = e4t_audit_run_flags(img, j, on_copy, jr, E4T_AUDIT_PARTS,
					  &a);
	if (!err)
		err = parts_err(jr);
	e4t_audit_free(a);
	jr->j = j;
	if (!err)
		err = load_names(jr);
	if (!err) {
		jr->earlier_done = calloc((size_t)jr->ninodes / 8 + 1, 1);
		if (!jr->earlier_done)
			err = ENOMEM;
	}
	if (err) {
		jr->j = NULL;
		e4t_journal_close(j);
		jrows_free(jr);
		return err;
	}
	*ret = jr;
	return 0;
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

	if (row->path_len < n->name_len + 1 ||
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
	if (in->flags & E4T_INO_DISKGEN) /* the tree read it */
		in->flags |= E4T_INO_GEN;
	else if (!(in->flags & E4T_INO_GEN) &&
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
		if (pstate(jr, k)->born || k == jr->head[ino])
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
		       !pstate(jr, pstate(jr, end)->next)->born)
			end = pstate(jr, end)->next;
		if (pstate(jr, end)->next != NONE)
			to = pstate(jr, pstate(jr, end)->next)->trans;
		for (m = k; !rc; m = pstate(jr, m)->next) {
			struct e4t_inode in;
			struct e4t_row r = *row;
			const struct jname *n;
			size_t len = 0;

			unpack(jr, pstate(jr, m), &in);
			if (own && same_state(&in, row->inode, predelete))
				goto next; /* the row says it */
			if (!own && !first_row)
				goto next; /* shown after the first name */
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
	free(jr);
}
