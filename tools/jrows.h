/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrows.h --- timeline --journal (jrows.c): every distinct journaled
 * state of an inode as rows after the inode's own.
 */
#ifndef E4TIME_JROWS_H
#define E4TIME_JROWS_H

#include "cmd.h"

struct jrows;

/* Read the journal of img (live log and stale transactions) and keep
 * every inode copy whose times, size, mode or links differ from the
 * copy before it; warnings through warn (damage). */
errcode_t jrows_load(struct e4t_image *img, e4t_warn_fn warn, void *priv,
		     struct jrows **ret);
/* The rows of the journaled states of row's inode (under row's path and
 * status), oldest first, those equal to row's own times left out. */
int jrows_emit(const struct jrows *jr, const struct e4t_row *row, e4t_row_fn fn,
	       void *priv);
/* The journal jrows_load read, loaded (live log and stale transactions),
 * open until jrows_free; NULL when it could not be read. */
struct e4t_journal *jrows_journal(const struct jrows *jr);
void jrows_free(struct jrows *jr);

#endif
