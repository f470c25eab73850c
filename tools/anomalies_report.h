/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * anomalies_report.h --- what e4time anomalies prints (anomalies_report.c).
 */
#ifndef E4TIME_ANOMALIES_REPORT_H
#define E4TIME_ANOMALIES_REPORT_H

#include "cmd.h"
#include "report.h"

/*
 * The findings of fs (sorted here by rule) in fmt: text (a block per
 * rule, then a summary of the rules in mask), jsonl or csv (a finding
 * record each, then a summary record per rule in mask).  local: times
 * in local time (text).
 */
void print_findings(struct e4t_findings *fs, uint64_t mask, int local,
		    enum report_format fmt);

#endif
