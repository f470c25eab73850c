/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * held.c --- warnings held in order by the thread that meets them, for
 * the thread that reports to give later (util.h): the tree's second scan
 * job, timeline --journal's journal thread, the parts of a timeline made
 * on several threads (tools/held.c adds its notes).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

static struct e4t_held_note *held_add(struct e4t_held *h)
{
	if (e4t_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v), 16)) {
		h->lost++;
		return NULL;
	}
	return &h->v[h->n++];
}

void e4t_held_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		   void *priv)
{
	struct e4t_held *h = priv;
	struct e4t_held_note *n = held_add(h);

	if (!n)
		return;
	n->kind = E4T_HELD_WARN;
	n->err = err;
	n->ino = ino;
	n->text = detail ? strdup(detail) : NULL;
	if (detail && !n->text) {
		h->n--;
		h->lost++;
	}
}

void e4t_held_note(struct e4t_held *h, int kind, char *text)
{
	struct e4t_held_note *n = text ? held_add(h) : NULL;

	if (!n) {
		if (!text)
			h->lost++;
		free(text);
		return;
	}
	n->kind = kind;
	n->err = 0;
	n->ino = 0;
	n->text = text;
}

void e4t_held_give(struct e4t_held *h,
		   void (*warn)(errcode_t err, ext2_ino_t ino,
				const char *detail, void *priv),
		   void *priv, const char *lost_what)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (warn)
			warn(h->v[i].err, h->v[i].ino, h->v[i].text, priv);
		free(h->v[i].text);
	}
	for (i = 0; warn && i < h->lost; i++)
		warn(ENOMEM, 0, lost_what, priv);
	h->n = 0;
	h->lost = 0;
}

void e4t_held_free(struct e4t_held *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].text);
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
	h->lost = 0;
}
