/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deleted.h --- names for timeline --deleted (deleted.c): each deleted
 * inode once, under the best name known (a deleted entry in directory
 * slack, else a journaled one, else "<INO>"), and the deleted names whose
 * inode is in use again ("deleted-realloc").
 */
#ifndef E4TIME_DELETED_H
#define E4TIME_DELETED_H

#include "cmd.h"

struct dnames;

errcode_t dnames_new(struct e4t_image *img, struct dnames **ret);
/* The image's journal, loaded with its stale transactions already (by
 * timeline --journal): read for names instead of opening it again; it
 * stays the caller's. */
void dnames_use_journal(struct dnames *d, struct e4t_journal *j);
/*
 * One row of the walk from /, into *out: a live directory's slack is
 * read (its deleted names take its path); an orphan or deleted row is
 * renamed with the best name and says where it came from.
 */
errcode_t dnames_row(struct dnames *d, const struct e4t_row *row,
		     struct e4t_row *out);
/* After the walk: the rows of the names no row took, deleted-realloc
 * ones and those of freed inodes the tree does not hold. */
errcode_t dnames_rest(struct dnames *d, const struct e4t_tree *tree,
		      e4t_row_fn fn, void *priv);
/* A row timeline --journal gave (jrows_emit): a state of an earlier file
 * of an inode number, deleted-realloc, noted so that dnames_rest does not
 * show it again (dshown.c). */
errcode_t dnames_note_jrow(struct dnames *d, const struct e4t_row *row);
/* The journal's names of deleted files read now for dirs (sorted: every
 * live directory), from j (loaded; read from this thread while another
 * reads it too only when it is in memory), kept until the walk wants
 * them (dprefetch.c). */
errcode_t dnames_prefetch(struct dnames *d, struct e4t_journal *j,
			  const ext2_ino_t *dirs, size_t n);
/* timeline --deleted without --journal: the image's journal opened and
 * loaded now (quietly: when it cannot be, nothing is done and the walk's
 * end tries again, as without this) and the names read ahead for every
 * live directory of tree, before the walk's rows are kept (--sort): the
 * entries parsed to find them are let go first.  The journal is kept for
 * the walk's end and closed by dnames_free. */
errcode_t dnames_prefetch_own(struct dnames *d, const struct e4t_tree *tree);
void dnames_free(struct dnames *d);

#endif
