/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal_open.h --- the journal opened and loaded for a command, and
 * its features as words and records (journal_open.c).
 */
#ifndef E4TIME_JOURNAL_OPEN_H
#define E4TIME_JOURNAL_OPEN_H

#include <stdio.h>
#include "lib/e4time.h"

struct warn_ctx;

/* journal_open.c: open and load the journal of img (path: external journal or
 * NULL); warnings through wc.  When it cannot be read: said on stderr,
 * NULL, and *status EXIT_IMAGE (EXIT_INTERNAL: out of memory). */
struct e4t_journal *open_journal_status(struct e4t_image *img, const char *path,
					unsigned flags, struct warn_ctx *wc,
					int *status);

/* The journal's features: their names into names (room for
 * E4T_JFEATURES_MAX), how many; as words ("64bit csum_v3", "(none)");
 * as a record's "features" array (see report.h). */
#define E4T_JFEATURES_MAX 8
size_t journal_features(const struct e4t_jinfo *in, const char **names);
void print_journal_features(const struct e4t_jinfo *in, FILE *fp);
struct report;
void rec_journal_features(struct report *r, const struct e4t_jinfo *in);

#endif /* E4TIME_JOURNAL_OPEN_H */
