/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jnrecs.c --- the entries the journaled copies of directories held
 * (jnames.c has the entry points and what they give): each entry once,
 * by directory, inode and name, in an open hash, with the last
 * transaction that held it; for e4t_journal_entries, its intervals (the
 * first copy of its block that held it, the first later one that did
 * not).  The entries the directories hold now are marked live.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jnames_int.h"

static uint32_t rec_hash(ext2_ino_t dir, ext2_ino_t ino, const char *name,
			 unsigned nl)
{
	uint32_t h = 2166136261U ^ dir;
	unsigned i;

	h = (h * 16777619U) ^ ino;
	for (i = 0; i < nl; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619U;
	return h ^ (h >> 15);
}

/* The slot of (c->dir, ino, name) in the hash: its entry, or empty.
 * The slot holds the hash, so that a probe reads the record only when
 * the hashes agree (the records are many and far apart). */
static struct jn_slot *slot_of(const struct jn_ctx *c, ext2_ino_t ino,
			       const char *name, unsigned nl, uint32_t h)
{
	size_t mask = c->tab_cap - 1, i = h & mask;

	for (; c->tab[i].idx; i = (i + 1) & mask) {
		const struct jn_rec *r;

		if (c->tab[i].hash != h)
			continue;
		r = &c->v[c->tab[i].idx - 1];
		if (r->dir == c->dir && r->ino == ino && r->name_len == nl &&
		    !memcmp(c->names + r->name_off, name, nl))
			break;
	}
	return &c->tab[i];
}

/* Room in the hash for one entry more (at most half full). */
static int tab_room(struct jn_ctx *c)
{
	size_t cap = c->tab_cap ? c->tab_cap : 1024, i;
	struct jn_slot *tab;

	if (c->n + 1 >= UINT32_MAX)
		return ENOMEM;
	while ((c->n + 1) * 2 > cap)
		cap *= 2;
	if (cap == c->tab_cap)
		return 0;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return ENOMEM;
	for (i = 0; i < c->n; i++) {
		size_t k = c->v[i].hash & (cap - 1);

		while (tab[k].idx)
			k = (k + 1) & (cap - 1);
		tab[k].hash = c->v[i].hash;
		tab[k].idx = (uint32_t)(i + 1);
	}
	free(c->tab);
	c->tab = tab;
	c->tab_cap = cap;
	return 0;
}

/* e4t_journal_entries: entry i is in the copy being parsed. */
static int track(struct jn_ctx *c, uint32_t i)
{
	struct jn_rec *r = &c->v[i];

	if (r->stamp == c->copyno)
		return 0; /* twice in one copy (damage) */
	if (r->gone != JN_NONE && c->trans >= r->gone) {
		/* back after it was gone: a new interval */
		struct jn_closed *x;

		if (e4t_grow(&c->closed, &c->closed_cap, c->nclosed + 1,
			     sizeof(*c->closed), 64)) {
			c->err = ENOMEM;
			return 1;
		}
		x = &c->closed[c->nclosed++];
		x->dir = r->dir;
		x->ino = r->ino;
		x->name_off = r->name_off;
		x->name_len = r->name_len;
		x->first = r->first;
		x->last = r->trans;
		x->gone = r->gone;
		r->first = (uint32_t)c->trans;
		r->gone = JN_NONE;
	}
	r->trans = (uint32_t)c->trans;
	r->stamp = (uint32_t)c->copyno;
	r->held_by = c->held_id;
	if (e4t_grow(&c->found.v, &c->found.cap, c->found.n + 1,
		     sizeof(*c->found.v), 64)) {
		c->err = ENOMEM;
		return 1;
	}
	c->found.v[c->found.n++] = i;
	return 0;
}

/* Before a copy of the block whose entries are held is parsed. */
void jn_copy_begin(struct jn_ctx *c, struct pvec *held, uint32_t id)
{
	c->copyno++;
	c->held = held;
	c->held_id = id;
	c->found.n = 0;
}

/* After it: an entry the block's copy before held and this one does not
 * (nor a copy of another block since) is gone from this transaction. */
void jn_copy_end(struct jn_ctx *c)
{
	struct pvec *h = c->held, t;
	size_t k;

	for (k = 0; k < h->n; k++) {
		struct jn_rec *r = &c->v[h->v[k]];

		if (r->held_by == c->held_id && r->stamp != c->copyno &&
		    r->gone == JN_NONE)
			r->gone = (uint32_t)c->trans;
	}
	t = *h; /* the found entries become the block's */
	*h = c->found;
	c->found = t;
	c->found.n = 0;
}

/* An entry of a copy: new, or the latest transaction of one seen. */
static int add_rec(struct jn_ctx *c, ext2_ino_t ino, const char *name,
		   unsigned nl, unsigned ft)
{
	uint32_t h = rec_hash(c->dir, ino, name, nl), i;
	struct jn_rec *r;
	struct jn_slot *slot;

	if (tab_room(c) ||
	    e4t_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v), 256) ||
	    c->names_len + nl > UINT32_MAX ||
	    e4t_grow(&c->names, &c->names_cap, c->names_len + nl, 1, 4096)) {
		c->err = ENOMEM;
		return 1;
	}
	slot = slot_of(c, ino, name, nl, h);
	if (slot->idx) {
		r = &c->v[slot->idx - 1];
		if (c->intervals)
			return track(c, slot->idx - 1);
		if (c->trans >= r->trans) { /* the latest copy's */
			r->trans = (uint32_t)c->trans;
			r->file_type = (uint8_t)ft;
		}
		return 0;
	}
	slot->idx = (uint32_t)(c->n + 1);
	slot->hash = h;
	r = &c->v[c->n];
	r->dir = c->dir;
	r->ino = ino;
	r->name_len = (uint8_t)nl;
	r->file_type = (uint8_t)ft;
	r->name_off = (uint32_t)c->names_len;
	r->trans = (uint32_t)c->trans;
	r->live = 0;
	r->hash = h;
	r->first = (uint32_t)c->trans;
	r->gone = JN_NONE;
	r->held_by = 0;
	r->stamp = 0;
	memcpy(c->names + c->names_len, name, nl);
	c->names_len += nl;
	i = (uint32_t)c->n++;
	return c->intervals ? track(c, i) : 0;
}

int jn_on_copy_entry(ext2_ino_t ino, const char *name, unsigned nl, unsigned ft,
		     unsigned off, void *priv)
{
	struct jn_ctx *c = priv;

	(void)off;
	if ((nl == 1 && name[0] == '.') ||
	    (nl == 2 && name[0] == '.' && name[1] == '.') ||
	    ino > c->inodes_count ||
	    (!c->enc && (memchr(name, '\0', nl) || memchr(name, '/', nl))))
		return 0;
	return add_rec(priv, ino, name, nl, ft);
}

/* A live entry: the copies' entry of the same name is not deleted. */
int jn_on_live(ext2_ino_t dir, ext2_ino_t ino, const char *name, unsigned nl,
	       unsigned ft, void *priv)
{
	struct jn_ctx *c = priv;
	struct jn_slot *slot;

	(void)ft;
	c->dir = dir;
	slot = slot_of(c, ino, name, nl, rec_hash(dir, ino, name, nl));
	if (slot->idx)
		c->v[slot->idx - 1].live = 1;
	return 0;
}

void jn_ctx_trim(struct jn_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nblocks; i++) {
		free(c->blocks[i].held.v);
		memset(&c->blocks[i].held, 0, sizeof(c->blocks[i].held));
	}
	for (i = 0; i < c->ninodes; i++) {
		free(c->inodes[i].held.v);
		memset(&c->inodes[i].held, 0, sizeof(c->inodes[i].held));
	}
	free(c->found.v);
	memset(&c->found, 0, sizeof(c->found));
	free(c->tab);
	c->tab = NULL;
	c->tab_cap = 0;
}

void jn_ctx_free(struct jn_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nblocks; i++)
		free(c->blocks[i].held.v);
	for (i = 0; i < c->ninodes; i++)
		free(c->inodes[i].held.v);
	free(c->found.v);
	free(c->closed);
	free(c->v);
	free(c->tab);
	free(c->names);
	free(c->blocks);
	free(c->inodes);
}
