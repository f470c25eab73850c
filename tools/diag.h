/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diag.h --- diagnostics, warnings from the library, progress, time
 * text and small helpers (common.c).
 */
#ifndef E4TIME_DIAG_H
#define E4TIME_DIAG_H

#include <stdio.h>
#include "lib/e4time.h"

/* The label of a FILESPEC in messages, escaped (malloc'd, or NULL):
 * "<12>" as given, a path with its inode added ("/a/b <12>"). */
char *spec_label(const char *spec, ext2_ino_t ino);
/* Diagnostics: "e4time: IMAGE: WHAT: message". */
void report(const char *image, const char *what, errcode_t err);
void warnx_img(const char *image, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Warnings from the library, counted for the exit status. */
struct warn_ctx {
	const char *image;
	int quiet;
	unsigned long count;
};

void lib_warn(errcode_t err, ext2_ino_t ino, const char *detail, void *priv);

/* Progress on stderr when it is a terminal and the work takes a while. */
void progress_cb(const char *phase, uint64_t done, uint64_t total, void *priv);
/* The same, "VERB PHASE: NN%" (progress_cb's verb is "reading"). */
void progress_show(const char *verb, const char *phase, uint64_t done,
		   uint64_t total, void *priv);
void progress_done(void);

/* Time text: ISO 8601 in UTC, or local time with --local. */
char *fmt_time(const struct e4t_ts *ts, int local, char sep, char *buf,
	       size_t len);

/* Flush stdout; on a write error say so and return EXIT_INTERNAL. */
int finish_stdout(int status);
/* A report's rows could not all be written (report_finish): say why
 * (unless stdout's error will: finish_stdout); COND_OUTPUT's status. */
int report_failed(void);

/* Make room for one more element in *p (doubling); 0 or ENOMEM. */
int grow_array(void *p, size_t *cap, size_t n, size_t elem);
/* A NUL-terminated malloc'd copy of len bytes at s, or NULL. */
char *dup_bytes(const char *s, size_t len);

#endif /* E4TIME_DIAG_H */
