/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writecmd.h --- what the writing commands (set, backfill, import,
 * check) share: refusals and failed writes reported, the image
 * finished with its undo file, stopping on a signal (common.c).
 */
#ifndef E4TIME_WRITECMD_H
#define E4TIME_WRITECMD_H

#include <signal.h>
#include "lib/e4time.h"

/* Close an image opened for writing, finish its undo file, and say how
 * to undo; returns status, or EXIT_INTERNAL if closing failed. */
int finish_write(struct e4t_image *img, int status);

/* Report why e4t_image_open_write failed; the exit status for it. */
int open_write_status(const char *image, const struct e4t_write_opts *wo,
		      errcode_t err);

/*
 * Report a write that failed (naming the undo file when it was the undo
 * file that could not be written); EXIT_INTERNAL.
 */
int write_error_status(const struct e4t_image *img, const char *what,
		       errcode_t err);

/*
 * SIGINT, SIGTERM and SIGHUP while a writing command runs (common.c):
 * the signal, noted in stop_signal by the handler catch_stop_signals()
 * installs (fn, or one that notes it).  set, backfill and import stop
 * between two writes (a transaction, see e4time(8)), finish the image
 * and its undo file, and cmd_run() then dies of the signal as it would
 * have; check stops as on SIGINT (its own handler, status 32).
 */
extern volatile sig_atomic_t stop_signal;
void catch_stop_signals(void (*fn)(int));
/* Set by a writing command as its writes begin: until then the signal
 * kills it at once, as without the handler (a long index, say). */
extern volatile sig_atomic_t stop_armed;
/* The run is to stop: what a callback returns then (EINTR). */
int stop_requested(void);

/*
 * Is the image's filesystem mounted (a block device over its bytes, or
 * the file through FUSE)?  why names the mount.  Never for a view.
 */
int image_mounted(const struct e4t_image *img, struct e4t_refusal *why);

#endif /* E4TIME_WRITECMD_H */
