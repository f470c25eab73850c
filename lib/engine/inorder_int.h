/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inorder_int.h --- work on inodes in inode order, on one or two threads,
 * each writing through a batch of its own, the results handed out in
 * order on the calling thread (inorder.c).  Shared by backfill.c and
 * import.c; not installed.
 */
#ifndef E4T_ENGINE_INORDER_H
#define E4T_ENGINE_INORDER_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

/* One thread's share: its own read handle and batch. */
struct e4t_inorder_job {
	int index;	      /* 0: the calling thread; 1: the helper */
	struct e4t_image img; /* the image, reading through fs */
	ext2_filsys fs;	      /* the job's own handle, or NULL: the image's */
	struct e4t_batch *batch;
	errcode_t write_err; /* set by work: a write failed, stop */
	void *out;	     /* the results of the chunk being done */
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
	/*
	 * A window of job j's batch was flushed, during work or after it:
	 * err 0, the inodes out says were changed since the last call are
	 * on the image; else none of them is to be reported as written
	 * (the undo file holds whatever did reach it).  On j's thread.
	 */
	void (*flushed)(void *priv, struct e4t_inorder_job *j, void *out,
			errcode_t err);
	int threads; /* 0: two for many items on two or more CPUs; 1 or 2 */
	void *priv;
};

/*
 * Run: the items cut into chunks, each chunk's work then its batch's
 * writes (flushed, each flush told to flushed), its results emitted in
 * order, those of every chunk done (a chunk after a failed one included:
 * on two threads it may have written).  *write_err: the first
 * chunk's (in order) failed write, or a batch's at the end; the return:
 * emit's first non-zero, else the first chunk's error, else an error
 * setting up (ENOMEM, a handle).
 */
errcode_t e4t_inorder_run(const struct e4t_inorder *o, errcode_t *write_err);

/*
 * Put n items of elem bytes into inode order: the inode is the 32-bit
 * field at ino_off.  A radix sort, 16 bits at a time, so stable (the
 * walk's order is a run of ascending inodes per directory; qsort took
 * longer than the whole walk).  Inline, so that each caller's copies
 * are of a known size.  0 or ENOMEM (the items are then as they were).
 */
static inline errcode_t e4t_inorder_sort(void *items, size_t n, size_t elem,
					 size_t ino_off)
{
	enum { BUCKETS = 65536 };
	unsigned char *a = items, *tmp, *from = a, *to;
	size_t *count, i;
	int pass;

	tmp = malloc(n * elem);
	count = calloc(2 * ((size_t)BUCKETS + 1), sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint32_t ino;

		memcpy(&ino, a + i * elem + ino_off, sizeof(ino));
		count[(ino & 0xffff) + 1]++;
		count[BUCKETS + 1 + (ino >> 16) + 1]++;
	}
	for (pass = 0; pass < 2; pass++) {
		size_t *cn = count + (size_t)pass * (BUCKETS + 1);

		for (i = 1; i <= BUCKETS; i++)
			cn[i] += cn[i - 1];
		to = from == a ? tmp : a;
		for (i = 0; i < n; i++) {
			uint32_t ino;
			unsigned d;

			memcpy(&ino, from + i * elem + ino_off, sizeof(ino));
			d = pass ? ino >> 16 : ino & 0xffff;
			memcpy(to + cn[d]++ * elem, from + i * elem, elem);
		}
		from = to;
	}
	/* two passes: the result is back in items */
	free(tmp);
	free(count);
	return 0;
}

#endif
