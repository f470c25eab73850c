/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit_report.c --- what e4time audit prints: the transactions, the
 * summary, the top files and the advice, in text, jsonl, csv or json.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"
#include "escape.h"
#include "linebuf.h"

static const char *advice(const struct e4t_audit *a)
{
	if (a->changes[E4T_CH_ATIME] == 0)
		return "no atime-only updates were journaled (noatime, or "
		       "nothing was read): nothing to save";
	if (a->relatime_would_skip)
		return "strictatime pattern: files were re-read and each read "
		       "wrote the inode; relatime would have skipped the "
		       "counted updates, noatime (or lazytime, which defers "
		       "them to other writes) all of them";
	return "relatime pattern: atime was written only on the first read "
	       "after a change; noatime would save the remaining "
	       "atime-only updates, lazytime would fold them into other "
	       "writes";
}

static const char *trans_state(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_FAST_COMMIT) ? "fast_commit"
	       : (t->flags & E4T_JT_LIVE)      ? "live"
					       : "stale";
}

/* The transactions audit reports: committed, checksums good. */
static int trans_used(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_CSUM_BAD);
}

static int trans_has_time(const struct e4t_jtrans *t)
{
	return !(t->flags & E4T_JT_FAST_COMMIT) &&
	       (t->commit_sec || t->commit_nsec);
}

static void audit_text(struct e4t_journal *j, const struct e4t_audit *a,
		       const struct top *top, size_t ntops)
{
	const struct e4t_jinfo *in = e4t_journal_info(j);
	uint64_t u = a->inode_updates;
	size_t i, k;

	printf("Journal: %s, %u blocks of %u bytes, checksums %s, %s "
	       "(next tid %u)\n",
	       in->internal ? "internal" : "external", in->maxlen,
	       in->blocksize,
	       in->csum_version ? (in->csum_version == 1   ? "v1"
				   : in->csum_version == 2 ? "v2"
							   : "v3")
				: "none",
	       in->live ? "live (needs recovery)" : "clean", in->sequence);
	printf("\n%-10s %-11s %-30s %6s %6s", "tid", "state", "commit time",
	       "blocks", "itable");
	for (k = 0; k < E4T_NCHANGES; k++)
		printf(" %7s", e4t_change_name((enum e4t_change)k));
	putchar('\n');
	for (i = 0; i < a->ntrans; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);
		const struct e4t_audit_trans *at = &a->trans[i];
		char when[E4T_ISO_BUFSZ] = "";
		size_t m;

		if (!trans_used(t))
			continue;
		if (trans_has_time(t))
			e4t_iso8601(t->commit_sec, t->commit_nsec, 9, 'T',
				    INT32_MIN, when, sizeof(when));
		printf("%-10u %-11s %-30s %6u %6u", t->tid, trans_state(t),
		       when, t->nr_jblocks, at->itable_blocks);
		for (m = 0; m < E4T_NCHANGES; m++)
			printf(" %7u", at->changes[m]);
		if (at->atime_only)
			printf("  atime only");
		putchar('\n');
	}
	printf("\nSummary\n");
	printf("  inode updates:          %" PRIu64 "\n", u);
	for (k = 0; k < E4T_NCHANGES; k++)
		printf("    %-22s %" PRIu64 "\n",
		       e4t_change_name((enum e4t_change)k), a->changes[k]);
	printf("  atime-only share:       %.1f%%\n",
	       u ? 100.0 * (double)a->changes[E4T_CH_ATIME] / (double)u : 0.0);
	printf("  atime-only transactions: %" PRIu64 " (%" PRIu64 " of %" PRIu64
	       " journal blocks)\n",
	       a->atime_only_transactions, a->atime_only_blocks,
	       a->journal_blocks);
	printf("  relatime would skip:    %" PRIu64 " atime-only updates\n",
	       a->relatime_would_skip);
	printf("  first copies (baseline): %" PRIu64
	       " blocks; compared with an older home block: %" PRIu64
	       "; unusable copies: %" PRIu64 "\n",
	       a->baseline_blocks, a->disk_baselines, a->unusable_blocks);
	if (ntops) {
		printf("\nTop files by atime-only updates\n");
		for (i = 0; i < ntops; i++) {
			char *p = top[i].path ? escape_text(top[i].path,
							    strlen(top[i].path))
					      : NULL;

			printf("  %8u  <%u> %s\n", top[i].atime_only,
			       top[i].ino, p ? p : "(no name)");
			free(p);
		}
	}
	printf("\nAdvice: %s\n", advice(a));
}

/* The members of the journal record (json: the "journal" object). */
static void rec_journal(struct report *r, const struct e4t_jinfo *in)
{
	rec_bool(r, "internal", in->internal);
	rec_u64(r, "blocks", in->maxlen);
	rec_u64(r, "blocksize", in->blocksize);
	rec_journal_features(r, in);
	rec_cstr(r, "state", in->live ? "live" : "clean");
	rec_i64(r, "csum", in->csum_version);
	rec_u64(r, "sequence", in->sequence);
}

static void rec_changes32(struct report *r, const uint32_t *changes)
{
	size_t m;

	rec_obj_begin(r, "changes");
	for (m = 0; m < E4T_NCHANGES; m++)
		rec_u64(r, e4t_change_name((enum e4t_change)m), changes[m]);
	rec_obj_end(r);
}

/* The members of the summary record (json: the "summary" object). */
static void rec_summary(struct report *r, const struct e4t_audit *a)
{
	size_t k;

	rec_u64(r, "inode_updates", a->inode_updates);
	rec_u64(r, "atime_only", a->changes[E4T_CH_ATIME]);
	rec_u64(r, "atime_only_transactions", a->atime_only_transactions);
	rec_u64(r, "atime_only_blocks", a->atime_only_blocks);
	rec_u64(r, "relatime_would_skip", a->relatime_would_skip);
	rec_u64(r, "journal_blocks", a->journal_blocks);
	rec_u64(r, "baseline_blocks", a->baseline_blocks);
	rec_u64(r, "disk_baselines", a->disk_baselines);
	rec_u64(r, "unusable_blocks", a->unusable_blocks);
	rec_obj_begin(r, "changes");
	for (k = 0; k < E4T_NCHANGES; k++)
		rec_u64(r, e4t_change_name((enum e4t_change)k), a->changes[k]);
	rec_obj_end(r);
}

static void rec_top(struct report *r, const struct top *t)
{
	if (t->path)
		rec_path(r, "path", t->path, strlen(t->path));
	else
		rec_null(r, "path");
	rec_u64(r, "ino", t->ino);
	rec_u64(r, "atime_only", t->atime_only);
}

static const char *const audit_cols[] = {
	"tid",		 "state",   "commit_time", "journal_blocks",
	"itable_blocks", "created", "deleted",	   "crtime",
	"mtime",	 "ctime",   "atime",	   "other",
	"atime_only",	 NULL,
};
static const struct rec_schema audit_schema = {
	.row = "transaction",
	.cols = audit_cols,
};

/* -f json: one object, as audit always wrote it. */
static void audit_json(struct report *r, struct e4t_journal *j,
		       const struct e4t_audit *a, const struct top *top,
		       size_t ntops)
{
	size_t i;

	rec_begin(r, NULL);
	rec_obj_begin(r, "journal");
	rec_journal(r, e4t_journal_info(j));
	rec_obj_end(r);
	rec_objs_begin(r, "transactions");
	for (i = 0; i < a->ntrans; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);
		const struct e4t_audit_trans *at = &a->trans[i];
		struct e4t_ts ts = { t->commit_sec, t->commit_nsec,
				     E4T_TS_STORED | E4T_TS_EXTRA };

		if (!trans_used(t))
			continue;
		rec_obj_begin(r, NULL);
		rec_u64(r, "tid", t->tid);
		rec_iso(r, "commit_time", trans_has_time(t) ? &ts : NULL);
		rec_bool(r, "live", !!(t->flags & E4T_JT_LIVE));
		rec_cstr(r, "state", trans_state(t));
		rec_u64(r, "blocks", t->nr_jblocks);
		rec_u64(r, "itable_blocks", at->itable_blocks);
		rec_bool(r, "atime_only", at->atime_only);
		rec_changes32(r, at->changes);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_obj_begin(r, "summary");
	rec_summary(r, a);
	rec_obj_end(r);
	rec_objs_begin(r, "top");
	for (i = 0; i < ntops; i++) {
		rec_obj_begin(r, NULL);
		rec_top(r, &top[i]);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_cstr(r, "advice", advice(a));
	rec_end(r);
}

/* -f jsonl: a journal record, one per transaction, a summary record
 * (with the advice), one per top file; -f csv: the transactions. */
static void audit_records(struct report *r, struct e4t_journal *j,
			  const struct e4t_audit *a, const struct top *top,
			  size_t ntops)
{
	size_t i;

	rec_begin(r, "journal");
	rec_journal(r, e4t_journal_info(j));
	rec_end(r);
	for (i = 0; i < a->ntrans; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);
		const struct e4t_audit_trans *at = &a->trans[i];
		struct e4t_ts ts = { t->commit_sec, t->commit_nsec,
				     E4T_TS_STORED | E4T_TS_EXTRA };

		if (!trans_used(t))
			continue;
		rec_begin(r, "transaction");
		rec_u64(r, "tid", t->tid);
		rec_cstr(r, "state", trans_state(t));
		rec_iso(r, "commit_time", trans_has_time(t) ? &ts : NULL);
		rec_u64(r, "journal_blocks", t->nr_jblocks);
		rec_u64(r, "itable_blocks", at->itable_blocks);
		rec_changes32(r, at->changes);
		rec_bool(r, "atime_only", at->atime_only);
		rec_end(r);
	}
	rec_begin(r, "summary");
	rec_summary(r, a);
	rec_cstr(r, "advice", advice(a));
	rec_end(r);
	for (i = 0; i < ntops; i++) {
		rec_begin(r, "top");
		rec_u64(r, "rank", i + 1);
		rec_top(r, &top[i]);
		rec_end(r);
	}
}

void print_audit(struct e4t_journal *j, const struct e4t_audit *a,
		 const struct top *top, size_t ntops, enum report_format fmt,
		 const char *volume, int first)
{
	struct report r;

	if (fmt == RF_TEXT) {
		if (volume)
			printf("%sVolume: %s\n\n", first ? "" : "\n", volume);
		audit_text(j, a, top, ntops);
		return;
	}
	report_init_volume(&r, fmt, stdout, &audit_schema, volume,
			   !volume || first);
	if (fmt == RF_JSON)
		audit_json(&r, j, a, top, ntops);
	else
		audit_records(&r, j, a, top, ntops);
	report_finish(&r);
}
