/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sortrows.h --- timeline --sort's rows, kept compact until the walk
 * ends (sortrows.c): a sort key per row, the rows' names without the
 * directory part each shares with the row before.
 */
#ifndef E4TIME_SORTROWS_H
#define E4TIME_SORTROWS_H

#include "output.h"

struct sortrows;

errcode_t sortrows_new(enum e4t_field field, struct sortrows **ret);
/* Keep one row (its path, inode number, status, parent, name source,
 * journal state; the inode itself only when the tree does not hold it). */
errcode_t sortrows_add(struct sortrows *s, const struct e4t_row *row);
/*
 * Call emit on every kept row: those whose field is shown by time, then
 * the others, each group in the order added; the inode from tree when
 * it was not kept.  Frees the rows as it goes; stops at emit's first
 * non-zero return and returns it.
 */
errcode_t sortrows_emit(struct sortrows *s, struct e4t_tree *tree,
			int (*emit)(void *priv, const struct e4t_row *row),
			void *priv);
void sortrows_free(struct sortrows *s);

#endif /* E4TIME_SORTROWS_H */
