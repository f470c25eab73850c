/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jcoverage.c --- what the journal the journal rules read covers: its
 * usable transactions (tids, commit times, the log blocks they take),
 * whether older ones were overwritten.  The journal rules can only see
 * a change both of whose copies are in it: a report of no journal
 * finding says nothing about the time before the first commit.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"

/*
 * The kernel's first transaction after mkfs: mke2fs writes s_sequence 1
 * and a clean journal's recovery starts at s_sequence + 1.
 */
#define FIRST_TID 2U

static int usable(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD);
}

static void note_commit(struct e4t_jcoverage *cov, const struct e4t_jtrans *t)
{
	struct e4t_ts ts = { t->commit_sec, t->commit_nsec,
			     E4T_TS_STORED | E4T_TS_EXTRA };

	if (t->commit_sec == 0 || (t->flags & E4T_JT_FAST_COMMIT))
		return;
	if (!cov->has_commit || e4t_ts_cmp(&ts, &cov->first_commit) < 0)
		cov->first_commit = ts;
	if (!cov->has_commit || e4t_ts_cmp(&ts, &cov->last_commit) > 0)
		cov->last_commit = ts;
	cov->has_commit = 1;
}

void e4t_jcoverage_of(const struct e4t_journal *j, struct e4t_jcoverage *cov)
{
	const struct e4t_jinfo *ji = e4t_journal_info(j);
	size_t i, n = e4t_journal_count(j);
	uint32_t distinct = 0;

	memset(cov, 0, sizeof(*cov));
	cov->state = E4T_JCOV_READ;
	cov->log_blocks = ji->log_end > ji->first ? ji->log_end - ji->first : 0;
	/* oldest first: a fast commit before the full commit of its tid */
	for (i = 0; i < n; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);

		if (!usable(t))
			continue;
		if (!cov->ntrans)
			cov->first_tid = t->tid;
		if (!cov->ntrans || t->tid != cov->last_tid)
			distinct++;
		cov->last_tid = t->tid;
		cov->ntrans++;
		if (!(t->flags & E4T_JT_FAST_COMMIT))
			cov->used_blocks += t->nr_jblocks;
		note_commit(cov, t);
	}
	if (!cov->ntrans)
		return;
	cov->missing_tids = cov->last_tid - cov->first_tid + 1 - distinct;
	cov->overwritten = cov->first_tid - FIRST_TID < 0x80000000U &&
			   cov->first_tid != FIRST_TID;
}
