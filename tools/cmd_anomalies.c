/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_anomalies.c --- e4time anomalies: the marks timestomping, restores
 * and clock trouble leave, from the inodes (every name reachable from /
 * or FILESPEC) and from the journal (every journaled copy of every
 * inode compared with the one before).  The rules are lib/rules/'s
 * table; this file chooses them, collects the findings and prints them
 * grouped by rule, most severe first, then a count per rule.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "report.h"

#define ANOM_FORMATS (RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV))

enum { OPT_RULE = OPT_COMMON_LAST, OPT_MIN_SEV, OPT_NO_JOURNAL, OPT_LIST };

static void anomalies_help(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"Usage: %s anomalies [OPTIONS] IMAGE [FILESPEC]\n\n"
		"Flag the marks that setting times by hand (timestomping), "
		"restores and clock\ntrouble leave: in every inode reachable "
		"from / (or FILESPEC) and between\nthe journaled copies of "
		"each inode.  Findings grouped by rule, most severe\nfirst, "
		"then a count per rule.  Exit status 0 with or without "
		"findings.\n\n"
		"Options:\n"
		"  -f, --format FMT       text (default), jsonl or csv\n"
		"  -r, --rule ID[,ID...]  only these rules (repeatable)\n"
		"  -s, --min-severity S   only rules of S or worse: info "
		"(default), medium,\n"
		"                         strong\n"
		"      --no-journal       skip the journal rules\n"
		"      --list-rules       print the rules and exit\n"
		"  -j, --journal FILE     external journal device or image\n"
		"      --local            local time instead of UTC (text)\n"
		"      --threads N        threads reading the inode table: 0 "
		"chooses (default),\n"
		"                         1 or 2\n" COMMON_HELP "\nRules:\n",
		progname);
	for (i = 0; i < e4t_rule_count(); i++)
		fprintf(fp, "  %-26s %s\n", e4t_rule(i)->id,
			e4t_severity_name(e4t_rule(i)->severity));
}

struct actx {
	struct e4t_rules_ctx rc;
	struct e4t_findings fs;
	int local;
};

static struct {
	uint64_t rules; /* --rule: mask; 0: all */
	int min_sev;
	int no_journal;
} opt;

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

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

static void output(struct actx *a, enum report_format fmt)
{
	size_t counts[64], i, nr = e4t_rule_count();
	const struct e4t_kept *k = a->fs.k;
	struct report rep;

	e4t_findings_by_rule(&a->fs, counts);
	if (fmt == RF_TEXT) {
		size_t prev = (size_t)-1, total = 0;

		for (i = 0; i < a->fs.n; i++) {
			const struct e4t_rule *r = e4t_rule(k[i].f.rule);

			if (k[i].f.rule != prev) {
				prev = k[i].f.rule;
				printf("%s[%s] %s: %zu\n  %s\n", i ? "\n" : "",
				       e4t_severity_name(r->severity), r->id,
				       counts[prev], r->meaning);
			}
			print_finding(&k[i], a->local);
		}
		printf("%sSummary:\n", a->fs.n ? "\n" : "");
		for (i = 0; i < nr; i++) {
			const struct e4t_rule *r = e4t_rule(i);

			if (!((a->rc.mask >> i) & 1))
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
	for (i = 0; i < a->fs.n; i++)
		rec_finding(&rep, &k[i]);
	for (i = 0; i < nr; i++) {
		const struct e4t_rule *r = e4t_rule(i);

		if (!((a->rc.mask >> i) & 1))
			continue;
		rec_begin(&rep, "summary");
		rec_cstr(&rep, "rule", r->id);
		rec_cstr(&rep, "severity", e4t_severity_name(r->severity));
		rec_u64(&rep, "findings", counts[i]);
		rec_end(&rep);
	}
	report_finish(&rep);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static void add_rules(const char *arg)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		int r = e4t_rule_find(p, len);

		if (r < 0) {
			char *e = escape_text(p, len);

			usage_error(&anomalies_cmd,
				    "--rule '%s': no such rule "
				    "(--list-rules lists them)",
				    e ? e : "?");
		}
		opt.rules |= 1ULL << r;
		if (!p[len])
			break;
		p += len + 1;
	}
}

static void list_rules(void)
{
	size_t i;

	for (i = 0; i < e4t_rule_count(); i++) {
		const struct e4t_rule *r = e4t_rule(i);

		printf("%s (%s, %s)\n  %s\n  legitimately: %s\n", r->id,
		       e4t_severity_name(r->severity),
		       r->kind == E4T_RULE_JOURNAL ? "journal" : "inode",
		       r->meaning, r->legit);
	}
}

static void anom_opt(struct cmd_ctx *ctx, int c, const char *arg)
{
	(void)ctx;
	switch (c) {
	case 'r':
	case OPT_RULE: add_rules(arg); break;
	case 's':
	case OPT_MIN_SEV:
		opt.min_sev = e4t_severity_parse(arg);
		if (opt.min_sev < 0)
			usage_error(&anomalies_cmd,
				    "--min-severity '%s': use info, medium or "
				    "strong",
				    arg);
		break;
	case OPT_NO_JOURNAL: opt.no_journal = 1; break;
	case OPT_LIST: list_rules(); exit(finish_stdout(EXIT_OK));
	default: usage_error(&anomalies_cmd, "unknown option");
	}
}

/* The journal rules: their findings first, sorted by inode. */
static int journal_rules(struct cmd_ctx *ctx, struct actx *a)
{
	struct e4t_image *img = ctx->img;
	size_t i, nr = e4t_rule_count();
	int after = e4t_rule_find("time-after-last-write", 21);
	uint64_t jmask = 0;
	errcode_t err;

	for (i = 0; i < nr; i++)
		if (e4t_rule(i)->kind == E4T_RULE_JOURNAL)
			jmask |= 1ULL << i;
	if (opt.no_journal)
		a->rc.mask &= ~jmask;
	if (!ctx->jpath && !ext2fs_has_feature_journal(img->fs->super))
		return EXIT_OK; /* no journal: nothing to compare */
	/*
	 * Without the journal rules, the journal is still read when the
	 * image was taken while mounted (it needs recovery): the superblock
	 * then says when it was mounted, the journal's commits (stale ones
	 * too: the log may be empty) when it was last written, which
	 * time-after-last-write needs.
	 */
	if (!(a->rc.mask & jmask) &&
	    !(after >= 0 && ((a->rc.mask >> after) & 1) &&
	      (img->state & E4T_IMG_NEEDS_RECOVERY)))
		return EXIT_OK;
	err = e4t_rules_journal_open(img, ctx->jpath, lib_warn, &ctx->wc,
				     &a->rc, &ctx->j);
	if (err) {
		report(img->name, ctx->jpath ? ctx->jpath : "journal", err);
		a->rc.mask &= ~jmask;
		return err == ENOMEM ? cond_status(COND_NOMEM)
				     : cond_status(COND_JOURNAL_DAMAGE);
	}
	if (!(a->rc.mask & jmask))
		return EXIT_OK;
	err = e4t_findings_journal(&a->fs, img, ctx->j);
	if (err) {
		report(img->name, "journal", err);
		return err == ENOMEM ? cond_status(COND_NOMEM)
				     : cond_status(COND_JOURNAL_DAMAGE);
	}
	return EXIT_OK;
}

static int anom_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_image *img = ctx->img;
	const char *spec = argc ? argv[0] : "/";
	struct actx a;
	struct e4t_tree *tree;
	ext2_ino_t start;
	size_t i, nr = e4t_rule_count();
	int status = EXIT_OK, st;
	errcode_t err;

	memset(&a, 0, sizeof(a));
	a.local = ctx->local;
	e4t_rules_init(&a.rc, img->fs->super);
	e4t_findings_init(&a.fs, &a.rc);
	if (opt.rules)
		a.rc.mask &= opt.rules;
	for (i = 0; i < nr; i++)
		if ((int)e4t_rule(i)->severity < opt.min_sev)
			a.rc.mask &= ~(1ULL << i);
	err = e4t_image_resolve(img, spec, &start);
	if (err) {
		report(img->name, spec, err);
		return filespec_status(err);
	}
	status = journal_rules(ctx, &a);
	if (status == EXIT_INTERNAL)
		goto out;
	tree = ctx_tree(ctx, &st);
	if (!tree) {
		status = st;
		goto out;
	}
	err = e4t_findings_walk(&a.fs, img, tree, start, spec);
	if (err) {
		report(img->name, err == ENOMEM ? "anomalies" : spec, err);
		status = err == ENOMEM ? EXIT_INTERNAL : run_error_status(err);
		goto out;
	}
	/* under FILESPEC: the journal's findings on inodes it reaches */
	if (argc)
		e4t_findings_reached_only(&a.fs);
	output(&a, (enum report_format)ctx->format);
out:
	e4t_findings_free(&a.fs);
	return status;
}

static const struct option anom_longopts[] = {
	{ "rule", required_argument, NULL, 'r' },
	{ "min-severity", required_argument, NULL, 's' },
	{ "no-journal", no_argument, NULL, OPT_NO_JOURNAL },
	{ "list-rules", no_argument, NULL, OPT_LIST },
	{ NULL, 0, NULL, 0 },
};

const struct cmdinfo anomalies_cmd = {
	.name = "anomalies",
	.args = "[OPTIONS] IMAGE [FILESPEC]",
	.oneline = "flag timestomping and clock trouble (inodes, journal)",
	.flags = CMD_IMAGE | CMD_JOURNAL | CMD_FORMATS | CMD_LOCAL | CMD_TREE,
	.formats = ANOM_FORMATS,
	.argmin = 1,
	.argmax = 2,
	.argerr = "need an image and at most one FILESPEC",
	.shortopts = "r:s:",
	.longopts = anom_longopts,
	.opt = anom_opt,
	.run = anom_run,
	.help = anomalies_help,
};
