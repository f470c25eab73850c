/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * held.h --- what a thread would write on stderr, held in order to be
 * written later by the thread that writes the output (held.c): library
 * warnings (as lib_warn writes and counts them) and lines of text.
 */
#ifndef E4TIME_HELD_H
#define E4TIME_HELD_H

#include "diag.h"

enum held_kind {
	HELD_WARN,	/* lib_warn(err, ino, text) */
	HELD_TEXT,	/* a line written as it is */
	HELD_FIRST_NEG, /* mactime's first time before 1970: only if no
			   earlier part had one */
};

struct held_note {
	errcode_t err;
	ext2_ino_t ino;
	enum held_kind kind;
	char *text; /* the detail (NULL: none), or the line */
};

struct held {
	struct held_note *v;
	size_t n, cap;
	unsigned long lost; /* not kept: out of memory (still counted) */
};

/* e4t_warn_fn: hold a library warning (priv: the struct held). */
void held_warn(errcode_t err, ext2_ino_t ino, const char *detail, void *priv);
/* Hold a line of text (printf format; a '\n' is added). */
void held_text(struct held *h, enum held_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write what h holds, in order, then empty it: warnings through lib_warn
 * and wc; HELD_FIRST_NEG lines only when *neg_seen is 0 (then set). */
void held_replay(struct held *h, struct warn_ctx *wc, int *neg_seen);
void held_free(struct held *h);

#endif /* E4TIME_HELD_H */
