/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * anomalies_report.c --- what e4time anomalies prints: the findings
 * grouped by rule, most severe first, then what the journal covers and
 * a count per rule, in text, jsonl or csv (findings only).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "anomalies_report.h"
#include "escape.h"

static const char *const anom_cols[] = {
	"rule",
	"severity",
	"ino",
	"path",
	"atime",
	"mtime",
	"ctime",
	"crtime",
	"reference",
	"reference_time",
	"dir",
	"dir_entries",
	"dir_nonzero",
	"old_source",
	"old_tid",
	"old_commit_time",
	"old_atime",
	"old_mtime",
	"old_ctime",
	"old_crtime",
	"new_source",
	"new_tid",
	"new_commit_time",
	NULL,
};
static const struct rec_schema anom_schema = {
	.row = "finding",
	.cols = anom_cols,
};

static const char *const src_names[] = { "journal", "fast_commit", "disk" };

static void rec_copy(struct report *r, const struct e4t_finding *f, int k)
{
	char key[32];
	const char *pre = k ? "new" : "old";

	snprintf(key, sizeof(key), "%s_source", pre);
	rec_cstr(r, key, src_names[f->src[k]]);
	snprintf(key, sizeof(key), "%s_tid", pre);
	if (f->src[k] == E4T_COPY_DISK)
		rec_null(r, key);
	else
		rec_u64(r, key, f->tid[k]);
	snprintf(key, sizeof(key), "%s_commit_time", pre);
	rec_iso(r, key, f->has_commit[k] ? &f->commit[k] : NULL);
}

static void rec_finding(struct report *r, const struct e4t_kept *k)
{
	const struct e4t_finding *f = &k->f;
	const struct e4t_rule *rule = e4t_rule(f->rule);
	int i;

	rec_begin(r, "finding");
	rec_cstr(r, "rule", rule->id);
	rec_cstr(r, "severity", e4t_severity_name(rule->severity));
	rec_u64(r, "ino", f->ino);
	if (k->path)
		rec_path(r, "path", k->path, k->path_len);
	else
		rec_null(r, "path");
	rec_obj_begin(r, "evidence");
	for (i = E4T_ATIME; i <= E4T_CRTIME; i++)
		if (f->fields & (1U << i))
			rec_time(r, e4t_field_name((enum e4t_field)i),
				 &f->ts[i]);
	if (f->ref) {
		rec_cstr(r, "reference", f->ref);
		rec_epoch(r, "reference_time", f->ref_sec, 0);
	}
	if (f->dir) {
		rec_u64(r, "dir", f->dir);
		rec_u64(r, "dir_entries", f->dir_entries);
		rec_u64(r, "dir_nonzero", f->dir_nonzero);
	}
	if (rule->kind == E4T_RULE_JOURNAL) {
		rec_copy(r, f, 0);
		for (i = E4T_ATIME; i <= E4T_CRTIME; i++)
			if (f->old_fields & (1U << i)) {
				char key[16];

				snprintf(key, sizeof(key), "old_%s",
					 e4t_field_name((enum e4t_field)i));
				rec_time(r, key, &f->old_ts[i]);
			}
		rec_copy(r, f, 1);
	}
	rec_obj_end(r);
	rec_end(r);
}

static void print_copy(const struct e4t_finding *f, int k, int local)
{
	if (f->src[k] == E4T_COPY_DISK) {
		printf("the home block on disk");
		return;
	}
	printf("tid %u%s", f->tid[k],
	       f->src[k] == E4T_COPY_FAST_COMMIT ? " (fast commit)" : "");
	if (f->has_commit[k]) {
		char when[E4T_ISO_BUFSZ];

		printf(" committed %s",
		       fmt_time(&f->commit[k], local, 'T', when, sizeof(when)));
	}
}

static void print_times(const struct e4t_ts *ts, unsigned fields, int local)
{
	char when[E4T_ISO_BUFSZ];
	int i, n = 0;

	for (i = E4T_ATIME; i <= E4T_CRTIME; i++)
		if (fields & (1U << i))
			printf("%s%s %s", n++ ? ", " : "",
			       e4t_field_name((enum e4t_field)i),
			       fmt_time(&ts[i], local, 'T', when,
					sizeof(when)));
}

static void print_finding(const struct e4t_kept *k, int local)
{
	const struct e4t_finding *f = &k->f;
	char *p = k->path ? escape_text(k->path, k->path_len) : NULL;

	printf("  <%u> %s\n    ", f->ino, p ? p : "(no name)");
	free(p);
	if (e4t_rule(f->rule)->kind == E4T_RULE_JOURNAL) {
		print_copy(f, 0, local);
		printf(": ");
		print_times(f->old_ts, f->old_fields, local);
		printf("\n    ");
		print_copy(f, 1, local);
		printf(": ");
	}
	print_times(f->ts, f->fields, local);
	if (f->ref) {
		struct e4t_ts rt = { f->ref_sec, 0, E4T_TS_STORED };
		char when[E4T_ISO_BUFSZ];

		printf("; %s %s", f->ref,
		       fmt_time(&rt, local, 'T', when, sizeof(when)));
	}
	if (f->dir)
		printf("; directory <%u>: %u of its %u other entries have "
		       "mtime nanoseconds",
		       f->dir, f->dir_nonzero, f->dir_entries);
	putchar('\n');
}

/* "none", "not_read", "unreadable", "empty" or "read" */
static const char *cov_word(const struct e4t_jcoverage *c)
{
	static const char *const w[] = { "none", "not_read", "unreadable",
					 "read" };

	if (c->state == E4T_JCOV_READ && !c->ntrans)
		return "empty";
	return w[c->state];
}

static void print_coverage(const struct e4t_jcoverage *c, int local)
{
	printf("Journal coverage:");
	switch (c->state) {
	case E4T_JCOV_NONE:
		printf(" none: the image has no journal; no journal rule "
		       "compared anything\n");
		return;
	case E4T_JCOV_NOT_READ:
		printf(" not read: no journal rule ran (--no-journal, --rule "
		       "or --min-severity)\n");
		return;
	case E4T_JCOV_UNREADABLE:
		printf(" none: the journal could not be read; no journal rule "
		       "compared anything\n");
		return;
	case E4T_JCOV_READ: break;
	}
	if (!c->ntrans) {
		printf(" empty: no readable transaction; no journal rule "
		       "compared anything\n");
		return;
	}
	printf("\n  transactions  %zu readable, tid %u to %u", c->ntrans,
	       c->first_tid, c->last_tid);
	if (c->missing_tids)
		printf(" (%u tids between not readable; a mount skips one)",
		       c->missing_tids);
	printf("\n  committed     ");
	if (c->has_commit) {
		char a[E4T_ISO_BUFSZ], b[E4T_ISO_BUFSZ];

		printf("%s to %s\n",
		       fmt_time(&c->first_commit, local, 'T', a, sizeof(a)),
		       fmt_time(&c->last_commit, local, 'T', b, sizeof(b)));
	} else {
		printf("unknown\n");
	}
	printf("  wrapped       %s\n",
	       c->overwritten
		       ? "yes: older transactions were overwritten; changes "
			 "before the first commit are not covered"
		       : "no: the journal holds transactions from the first "
			 "after mkfs");
	printf("  log           %" PRIu64 " of its %u blocks taken by them\n",
	       c->used_blocks, c->log_blocks);
	if (c->counted)
		printf("  inodes        %" PRIu64 " in use with a copy in the "
		       "journal (only their changes can be compared)\n",
		       c->inodes);
}

static void rec_coverage(struct report *r, const struct e4t_jcoverage *c)
{
	int read = c->state == E4T_JCOV_READ && c->ntrans;

	rec_begin(r, "coverage");
	rec_cstr(r, "journal", cov_word(c));
	rec_u64(r, "transactions", c->state == E4T_JCOV_READ ? c->ntrans : 0);
	if (read) {
		rec_u64(r, "first_tid", c->first_tid);
		rec_u64(r, "last_tid", c->last_tid);
		rec_u64(r, "missing_tids", c->missing_tids);
		rec_bool(r, "wrapped", c->overwritten);
		rec_iso(r, "first_commit",
			c->has_commit ? &c->first_commit : NULL);
		rec_iso(r, "last_commit",
			c->has_commit ? &c->last_commit : NULL);
		rec_u64(r, "log_blocks", c->log_blocks);
		rec_u64(r, "used_blocks", c->used_blocks);
	} else {
		rec_null(r, "first_tid");
		rec_null(r, "last_tid");
		rec_null(r, "missing_tids");
		rec_null(r, "wrapped");
		rec_null(r, "first_commit");
		rec_null(r, "last_commit");
		rec_null(r, "log_blocks");
		rec_null(r, "used_blocks");
	}
	if (c->state == E4T_JCOV_READ && c->counted)
		rec_u64(r, "inodes_with_copy", c->inodes);
	else if (c->state == E4T_JCOV_READ)
		rec_null(r, "inodes_with_copy");
	else
		rec_u64(r, "inodes_with_copy", 0);
	rec_end(r);
}

void print_findings(struct e4t_findings *fs, uint64_t mask, int local,
		    enum report_format fmt)
{
	size_t counts[64], i, nr = e4t_rule_count();
	const struct e4t_kept *k = fs->k;
	struct report rep;

	e4t_findings_by_rule(fs, counts);
	if (fmt == RF_TEXT) {
		size_t prev = (size_t)-1, total = 0;

		for (i = 0; i < fs->n; i++) {
			const struct e4t_rule *r = e4t_rule(k[i].f.rule);

			if (k[i].f.rule != prev) {
				prev = k[i].f.rule;
				printf("%s[%s] %s: %zu\n  %s\n", i ? "\n" : "",
				       e4t_severity_name(r->severity), r->id,
				       counts[prev], r->meaning);
			}
			print_finding(&k[i], local);
		}
		printf("%s", fs->n ? "\n" : "");
		print_coverage(&fs->cov, local);
		printf("\nSummary:\n");
		for (i = 0; i < nr; i++) {
			const struct e4t_rule *r = e4t_rule(i);

			if (!((mask >> i) & 1))
				continue;
			printf("  %-7s %-26s %zu\n",
			       e4t_severity_name(r->severity), r->id,
			       counts[i]);
			total += counts[i];
		}
		printf("  %zu findings\n", total);
		return;
	}
	report_init(&rep, fmt, stdout, &anom_schema);
	for (i = 0; i < fs->n; i++)
		rec_finding(&rep, &k[i]);
	for (i = 0; i < nr; i++) {
		const struct e4t_rule *r = e4t_rule(i);

		if (!((mask >> i) & 1))
			continue;
		rec_begin(&rep, "summary");
		rec_cstr(&rep, "rule", r->id);
		rec_cstr(&rep, "severity", e4t_severity_name(r->severity));
		rec_u64(&rep, "findings", counts[i]);
		rec_end(&rep);
	}
	rec_coverage(&rep, &fs->cov);
	report_finish(&rep);
}
