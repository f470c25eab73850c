/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * import_report.h --- what e4time import prints (import_report.c).
 */
#ifndef E4TIME_IMPORT_REPORT_H
#define E4TIME_IMPORT_REPORT_H

#include "cmd.h"
#include "output.h"
#include "report.h"

/* The records, as text (lb) or as JSON lines or CSV (rep); diagnostics
 * on stderr. */
struct im_out {
	const char *image;
	enum report_format fmt;
	int quiet;
	unsigned long shown;	 /* unmatched entries met (named: SHOWN_MAX) */
	unsigned long amb_shown; /* ambiguous entries met (the same) */
	unsigned long hinted;	 /* unmatched entries not named, with a hint */
	struct lbuf lb;
	struct report rep;
};

/* The records' schema (jsonl, csv). */
extern const struct rec_schema import_schema;

/* The unmatched, and the ambiguous, entries named on stderr: the first
 * SHOWN_MAX of each. */
#define SHOWN_MAX 10

/* e4t_import_run's records, as text, JSON lines or CSV on stdout
 * (priv: a struct im_out); diagnostics on stderr. */
int import_on_record(const struct e4t_import_rec *r, void *priv);
/* After the run: how many unmatched and ambiguous entries were not
 * named (text, not quiet). */
void import_more(const struct im_out *o);
/* jsonl: the last record, {"record":"summary",...}, the counts that
 * decide the exit status (outside: entries under no --map). */
void import_summary(struct im_out *o, const struct e4t_import_stats *st,
		    size_t outside, int dry_run, errcode_t stopped);

#endif
