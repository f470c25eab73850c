/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_report.h --- what e4time check prints (check_report.c): a
 * problem's line, the problems as records, the summary.
 */
#ifndef E4TIME_CHECK_REPORT_H
#define E4TIME_CHECK_REPORT_H

#include "cmd.h"
#include "linebuf.h"
#include "report.h"

/* A problem's line, up to its question (without the answer). */
void check_problem_line(struct lbuf *b, const struct e4t_problem *p);
/* Every problem of res, one record each (jsonl). */
void check_records(enum report_format fmt, const struct e4t_check_result *res);
/* The summary line (text) or record; cancelled: the run was; stopped:
 * the failed write that stopped it, or 0. */
void check_summary(enum report_format fmt, const char *image,
		   const struct e4t_check_summary *s, int cancelled,
		   errcode_t stopped);

#endif
