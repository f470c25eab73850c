/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * held.c --- stderr held in order for another thread to write (held.h).
 */
/* vasprintf(3) */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "held.h"

static struct held_note *held_add(struct held *h)
{
	if (e4t_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v), 16)) {
		h->lost++;
		return NULL;
	}
	return &h->v[h->n++];
}

void held_warn(errcode_t err, ext2_ino_t ino, const char *detail, void *priv)
{
	struct held *h = priv;
	struct held_note *n = held_add(h);

	if (!n)
		return;
	n->kind = HELD_WARN;
	n->err = err;
	n->ino = ino;
	n->text = detail ? strdup(detail) : NULL;
	if (detail && !n->text) {
		h->n--;
		h->lost++;
	}
}

void held_text(struct held *h, enum held_kind kind, const char *fmt, ...)
{
	struct held_note *n = held_add(h);
	va_list ap;
	int rc;

	if (!n)
		return;
	n->kind = kind;
	n->err = 0;
	n->ino = 0;
	va_start(ap, fmt);
	rc = vasprintf(&n->text, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		n->text = NULL;
		h->n--;
		h->lost++;
	}
}

void held_replay(struct held *h, struct warn_ctx *wc, int *neg_seen)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		struct held_note *n = &h->v[i];

		switch (n->kind) {
		case HELD_WARN: lib_warn(n->err, n->ino, n->text, wc); break;
		case HELD_FIRST_NEG:
			if (*neg_seen)
				break;
			*neg_seen = 1;
			/* fall through */
		case HELD_TEXT:
			progress_done();
			fprintf(stderr, "%s\n", n->text);
			break;
		}
		free(n->text);
	}
	/* a warning lost is still one for the exit status */
	wc->count += h->lost;
	h->n = 0;
	h->lost = 0;
}

void held_free(struct held *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].text);
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
