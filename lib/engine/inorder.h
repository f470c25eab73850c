/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inorder.h --- work on inodes in inode order, on one or two threads,
 * each writing through a batch of its own, the results handed out in
 * order on the calling thread (inorder.c).  Shared by backfill.c and
 * import.c; not installed.
 */
#ifndef E4T_ENGINE_INORDER_H
#define E4T_ENGINE_INORDER_H

#include "e4time.h"

/* One thread's share: its own read handle and batch. */
struct e4t_inorder_job {
	int index;	      /* 0: the calling thread; 1: the helper */
	struct e4t_image img; /* the image, reading through fs */
	ext2_filsys fs;	      /* the job's own handle, or NULL: the image's */
	struct e4t_batch *batch;
	errcode_t write_err; /* set by work: a write failed, stop */
};

struct e4t_inorder {
	struct e4t_image *img;
	size_t n; /* items, in inode order */
	/* the inode of item i: chunks end on inode-table block boundaries,
	 * so that no two chunks change the same block */
	ext2_ino_t (*ino)(void *priv, size_t i);
	/*
	 * Items [first, end) on job j, the chunk's results into *out (the
	 * caller's, handed to emit or drop).  Non-zero stops the run (kept
	 * as the chunk's error); so does j->write_err.
	 */
	errcode_t (*work)(void *priv, struct e4t_inorder_job *j, size_t first,
			  size_t end, void **out);
	/* A chunk's results, in chunk order, on the calling thread; it owns
	 * out.  Non-zero stops the run. */
	int (*emit)(void *priv, void *out);
	/* A chunk's results never handed out (the run stopped). */
	void (*drop)(void *priv, void *out);
	int threads; /* 0: two for many items on two or more CPUs; 1 or 2 */
	void *priv;
};

/*
 * Run: the items cut into chunks, each chunk's work then its batch's
 * writes (flushed), its results emitted in order.  *write_err: the first
 * chunk's (in order) failed write, or a batch's at the end; the return:
 * emit's first non-zero, else the first chunk's error, else an error
 * setting up (ENOMEM, a handle).
 */
errcode_t e4t_inorder_run(const struct e4t_inorder *o, errcode_t *write_err);

#endif
