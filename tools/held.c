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

void held_text(struct e4t_held *h, enum held_kind kind, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&text, fmt, ap);
	va_end(ap);
	e4t_held_note(h, (int)kind, rc < 0 ? NULL : text);
}

void held_replay(struct e4t_held *h, struct warn_ctx *wc, int *neg_seen)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		struct e4t_held_note *n = &h->v[i];

		switch (n->kind) {
		case HELD_WARN: lib_warn(n->err, n->ino, n->text, wc); break;
		case HELD_FIRST_NEG:
			if (*neg_seen)
				break;
			*neg_seen = 1;
			/* fall through */
		case HELD_TEXT:
		default:
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
