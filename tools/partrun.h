/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * partrun.h --- parts of one output made at once on several threads and
 * written in order (partrun.c): each thread walks and formats whole parts
 * into buffers of its own; the caller's thread, a worker too, writes
 * each part when it and all before it are done.  No thread hands another
 * a row: a part's buffer changes hands once, whole.
 */
#ifndef E4TIME_PARTRUN_H
#define E4TIME_PARTRUN_H

#include <stddef.h>

#include "held.h"
#include "linebuf.h"

/* What a part made: its rows, what it would write on stderr, counts. */
struct part_out {
	struct lbuf lb;
	struct e4t_held held;
	unsigned long read_errors, neg_times, big_times;
	errcode_t err; /* the part stopped there: nothing after is written */
	int done;
};

/* Make part i into out (its counts set, its buffer and held notes
 * added to), with a worker's own state (workers[k]). */
typedef errcode_t (*part_make_fn)(size_t i, struct part_out *out, void *worker);
/* Write a made part, in order, on the caller's thread: 0 or an errno
 * (writing stops). */
typedef int (*part_write_fn)(struct part_out *out, void *priv);

struct part_run {
	size_t nparts;
	int nworkers;	/* threads, the caller's included: workers[] */
	void **workers; /* workers[0] is the caller's */
	part_make_fn make;
	part_write_fn write;
	void *priv;
};

/* Run the parts; 0, the first part's error in order (nothing after it
 * written), a write's errno, or an error starting threads (then fewer
 * threads run: not an error unless none can). */
errcode_t part_run(const struct part_run *r);

/* The threads worth running now: e4t_cpus_free (the processors this
 * process may use, less those other tasks keep busy), at most max. */
int part_threads(int max);

#endif /* E4TIME_PARTRUN_H */
