/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitcodes.h --- the exit statuses of e4time and the conditions that
 * give them (exit_status.c; e4time(8), EXIT STATUS).
 */
#ifndef E4TIME_EXITCODES_H
#define E4TIME_EXITCODES_H

#include <stdio.h>
#include "lib/e4time.h"

/* Exit statuses: e4time(8), EXIT STATUS; exit_status.c says which
 * condition gives which. */
#define EXIT_OK	      0
#define EXIT_PARTIAL  1	 /* output produced, but something was unreadable */
#define EXIT_USAGE    2	 /* bad command line */
#define EXIT_IMAGE    4	 /* image could not be opened or is not ext2/3/4 */
#define EXIT_INTERNAL 8	 /* out of memory, output write error */
#define EXIT_REFUSED  16 /* a write was refused; nothing was written */
/* import's: entries that were not compared (not bits: the largest wins) */
#define EXIT_NULL_TIMES 32 /* an entry matched gives no time to compare */
#define EXIT_LEFT_OUT	64 /* an entry unmatched or under no --map */
#define EXIT_NOTHING	96 /* no entry was compared */

/* The conditions a run can meet (exit_status.c): each gives a status. */
enum cond {
	COND_DAMAGE,
	COND_DANGLING,
	COND_IMAGE_DAMAGE,
	COND_JOURNAL_DAMAGE,
	COND_FILESPEC,
	COND_NO_FIELD,
	COND_SOURCE,
	COND_AMBIGUOUS,
	COND_NULL_TIMES,
	COND_LEFT_OUT,
	COND_NOTHING,
	COND_USAGE,
	COND_MANIFEST,
	COND_OPEN,
	COND_NOT_EXT,
	COND_INDEX,
	COND_JOURNAL,
	COND_NOMEM,
	COND_OUTPUT,
	COND_WRITE,
	COND_IN_USE,
	COND_READ_ONLY,
	COND_UNSAFE,
	COND_UNDO,
	COND_TARGET,
	COND_CONTAINER,
	COND_VOLUME,
	COND_EVIDENCE_WRITE,
	COND_HASH,
	COND_DIR,
	COND_DIR_READ,
	COND_DISAGREE,
	COND_COUNT
};
struct condition {
	int status;
	const char *name; /* for e4time help exit-status */
	const char *text; /* as e4time(8) says it */
};
extern const struct condition conditions[COND_COUNT];
int cond_status(enum cond c);
/* Which condition an error of e4t_image_open_write is. */
enum cond cond_of_refusal(errcode_t err, const char *image);
/* The status of an error resolving or walking a FILESPEC. */
int filespec_status(errcode_t err);
/* The status of an error that stopped a run: a FILESPEC's, or not. */
int run_error_status(errcode_t err);
/* e4time help exit-status: the table. */
void print_exit_statuses(FILE *fp);

/* The worse of two exit statuses. */
int worse_status(int a, int b);

#endif /* E4TIME_EXITCODES_H */
