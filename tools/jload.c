/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jload.c --- timeline --journal, reading the journal (jrows_load): the
 * inode copies the audit hands out (two shares on two threads, each
 * keeping its own states: E4T_AUDIT_PARTS), each kept compactly when it
 * differs from the copy of the same inode kept before it, in journal
 * order per inode; then the journaled entries of the directories among
 * them, for the names (e4t_journal_entries).  jthread.c runs it on a
 * thread of its own; jrows.c makes the rows.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jrows_int.h"

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

/* The same times, size, mode, owner and links (the raw words decide). */
static int same_packed(const struct jstate *a, const struct jstate *b)
{
	return a->mode == b->mode && a->links == b->links && a->uid == b->uid &&
	       a->gid == b->gid && a->size == b->size &&
	       a->present == b->present && a->generation == b->generation &&
	       !memcmp(a->raw_base, b->raw_base, sizeof(a->raw_base)) &&
	       !memcmp(a->raw_extra, b->raw_extra, sizeof(a->raw_extra));
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

errcode_t jrows_load_on(struct e4t_image *img, e4t_warn_fn warn, void *priv,
			struct jload *jl, unsigned audit_flags,
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
		err = e4t_audit_run_flags(img, j, on_copy, jr,
					  audit_flags | E4T_AUDIT_NO_INODES,
					  &a);
	if (!err)
		err = parts_err(jr);
	e4t_audit_free(a);
	jr->j = j;
	if (!err) {
		jload_ready(jl, j);
		err = load_names(jr);
	}
	if (!err) {
		jr->earlier_done = calloc((size_t)jr->ninodes / 8 + 1, 1);
		if (!jr->earlier_done)
			err = ENOMEM;
	}
	/* the other thread may be reading the journal: freed by
	 * jrows_load_finish, after it */
	if (err && jload_keep_failed(jl, jr))
		return err;
	if (err) {
		jr->j = NULL;
		e4t_journal_close(j);
		jrows_free(jr);
		return err;
	}
	*ret = jr;
	return 0;
}

errcode_t jrows_load(struct e4t_image *img, e4t_warn_fn warn, void *priv,
		     struct jrows **ret)
{
	return jrows_load_on(img, warn, priv, NULL, E4T_AUDIT_PARTS, ret);
}
