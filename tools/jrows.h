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
/* jrows_load on a thread of its own, through a second handle on img
 * (e4t_image_shadow), so that the caller can load the tree meanwhile;
 * its warnings are kept until jrows_load_finish.  Runs nothing yet when
 * threads is 1 (--threads: then the audit runs on this thread too) or no
 * thread can be started: jrows_load_finish then does it all. */
struct jload;
errcode_t jrows_load_start(struct e4t_image *img, int threads,
			   struct jload **ret);
/* Wait for it; *ret and the result as jrows_load's, its warnings through
 * warn in the order they came (warn NULL: none, and nothing loaded when
 * it had not started).  Frees jl. */
errcode_t jrows_load_finish(struct jload *jl, e4t_warn_fn warn, void *priv,
			    struct jrows **ret);
/* Wait until jrows_load_start's thread has read the journal and run the
 * audit: the journal, which this thread may then read while the other
 * goes on (it is in memory), or NULL (no thread, a failure, or not in
 * memory).  jrows_load_finish still frees jl. */
struct e4t_journal *jrows_load_journal(struct jload *jl);
/* The rows of the journaled states of row's inode, oldest first: those
 * of row's file under row's path and status (or the name the journal
 * gave it then), those equal to row's own times left out; those of
 * earlier files of the inode number (after its first row only) under
 * their own names, deleted or deleted-realloc (jrows.c). */
int jrows_emit(struct jrows *jr, const struct e4t_row *row, e4t_row_fn fn,
	       void *priv);
/* A row of an inode that has journaled states: its inode into *in, with
 * the generation on disk (E4T_INO_GEN); 0 (nothing done) for another. */
int jrows_row_inode(struct jrows *jr, const struct e4t_row *row,
		    struct e4t_inode *in);
/* The journal jrows_load read, loaded (live log and stale transactions),
 * open until jrows_free; NULL when it could not be read. */
struct e4t_journal *jrows_journal(const struct jrows *jr);
void jrows_free(struct jrows *jr);
/* The path of directory dir now, with no-key names in encrypted
 * directories (jpath.c): into *ret (free it), NULL when it has none. */
errcode_t jpath_nokey(ext2_filsys fs, ext2_ino_t dir, char **ret);

#endif
