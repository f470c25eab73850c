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
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jrows.h"

#define NONE UINT32_MAX

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
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_DTIME]; /* dtime has no _extra */
};

struct jrows {
	struct e4t_image *img;
	struct jstate *v;
	size_t n, cap;
	uint32_t *head, *tail; /* by inode number */
	uint32_t ninodes;
	struct e4t_row_journal *trans; /* tid and commit time by index */
	struct e4t_journal *j;	       /* kept for timeline --deleted */
	errcode_t err;
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
	memcpy(in->raw_base, s->raw_base, sizeof(s->raw_base));
	memcpy(in->raw_extra, s->raw_extra, sizeof(s->raw_extra));
	e4t_inode_decode_times(in);
}

/* The same times, size, mode, owner and links (the raw words decide). */
static int same_packed(const struct jstate *a, const struct jstate *b)
{
	return a->mode == b->mode && a->links == b->links && a->uid == b->uid &&
	       a->gid == b->gid && a->size == b->size &&
	       a->present == b->present &&
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

static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct jrows *jr = priv;
	struct e4t_inode in;
	struct jstate *s;

	if (c->src == E4T_SRC_DISK || !c->t || c->ino == 0 ||
	    c->ino > jr->ninodes || c->trans >= UINT32_MAX || jr->n >= NONE - 1)
		return 0;
	if (grow_array(&jr->v, &jr->cap, jr->n, sizeof(*jr->v))) {
		jr->err = ENOMEM;
		return 1;
	}
	e4t_inode_decode_disk(c->raw, c->len, jr->img->inode_size, c->ino, &in);
	s = &jr->v[jr->n];
	pack(&in, (uint32_t)c->trans, s);
	if (jr->tail[c->ino] != NONE) {
		if (same_packed(&jr->v[jr->tail[c->ino]], s))
			return 0;
		jr->v[jr->tail[c->ino]].next = (uint32_t)jr->n;
	} else {
		jr->head[c->ino] = (uint32_t)jr->n;
	}
	jr->tail[c->ino] = (uint32_t)jr->n++;
	return 0;
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
		err = e4t_audit_run(img, j, on_copy, jr, &a);
	if (!err)
		err = jr->err;
	e4t_audit_free(a);
	if (err) {
		e4t_journal_close(j);
		jrows_free(jr);
		return err;
	}
	jr->j = j;
	*ret = jr;
	return 0;
}

struct e4t_journal *jrows_journal(const struct jrows *jr)
{
	return jr ? jr->j : NULL;
}

int jrows_emit(const struct jrows *jr, const struct e4t_row *row, e4t_row_fn fn,
	       void *priv)
{
	ext2_ino_t ino = row->inode->ino;
	int predelete = row->journal && row->journal->kind == E4T_RJ_PREDELETE;
	uint32_t k;
	int rc = 0;

	if (ino == 0 || ino > jr->ninodes)
		return 0;
	for (k = jr->head[ino]; k != NONE && !rc; k = jr->v[k].next) {
		struct e4t_inode in;
		struct e4t_row r = *row;

		unpack(jr, &jr->v[k], &in);
		if (same_state(&in, row->inode, predelete))
			continue; /* the row says it */
		r.inode = &in;
		r.journal = &jr->trans[jr->v[k].trans];
		rc = fn(&r, priv);
	}
	return rc;
}

void jrows_free(struct jrows *jr)
{
	if (!jr)
		return;
	free(jr->v);
	free(jr->head);
	free(jr->tail);
	free(jr->trans);
	e4t_journal_close(jr->j);
	free(jr);
}
