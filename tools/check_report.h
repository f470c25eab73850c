/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_report.h --- what e4time check prints (check_report.c): a
 * problem's line, the problems as records, the summary; and its answers
 * (check_answer.c).
 */
#ifndef E4TIME_CHECK_REPORT_H
#define E4TIME_CHECK_REPORT_H

#include <signal.h>

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
/*
 * check_answer.c: decide which problems of res are fixed (asking on a
 * terminal in E4T_CHECK_ASK; *interrupted, set by SIGINT, or EOF stops
 * the asking); then each problem's line with its answer.
 */
void check_decide(struct e4t_check_result *res, enum e4t_check_mode mode,
		  int text, volatile sig_atomic_t *interrupted);
void check_answers(const struct e4t_check_result *res);

#endif
