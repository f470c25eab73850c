/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit_report.h --- what e4time audit prints (audit_report.c).
 */
#ifndef E4TIME_AUDIT_REPORT_H
#define E4TIME_AUDIT_REPORT_H

#include "cmd.h"
#include "report.h"

/* A file among those with the most atime-only updates. */
struct top {
	ext2_ino_t ino;
	uint32_t atime_only;
	char *path;
};

/*
 * The audit in fmt: text (a table, a summary, the top files, advice),
 * jsonl (a journal record, one per transaction, a summary, one per top
 * file), csv (the transactions) or json (one object).  volume: with
 * --volume all, the volume audited (a "Volume:" line in text, a
 * "volume" key or column), and first: whether it is the first one.
 */
void print_audit(struct e4t_journal *j, const struct e4t_audit *a,
		 const struct top *top, size_t ntops, enum report_format fmt,
		 const char *volume, int first);

#endif
