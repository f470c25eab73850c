/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * held.h --- what a thread would write on stderr, held in order to be
 * written later by the thread that writes the output (held.c): library
 * warnings (as lib_warn writes and counts them) and lines of text, in
 * the library's struct e4t_held.
 */
#ifndef E4TIME_HELD_H
#define E4TIME_HELD_H

#include "diag.h"

/* struct e4t_held's kinds of note (lib/util.h): library warnings and
 * these lines. */
enum held_kind {
	HELD_WARN = E4T_HELD_WARN, /* lib_warn(err, ino, text) */
	HELD_TEXT,		   /* a line written as it is */
	HELD_FIRST_NEG, /* mactime's first time before 1970: only if no
			   earlier part had one */
};

/* Hold a line of text (printf format; a '\n' is added).  Warnings are
 * held with e4t_held_warn, h freed with e4t_held_free. */
void held_text(struct e4t_held *h, enum held_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write what h holds, in order, then empty it: warnings through lib_warn
 * and wc (one lost still counts); HELD_FIRST_NEG lines only when
 * *neg_seen is 0 (then set). */
void held_replay(struct e4t_held *h, struct warn_ctx *wc, int *neg_seen);

#endif /* E4TIME_HELD_H */
