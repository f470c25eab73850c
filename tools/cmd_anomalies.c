/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_anomalies.c --- e4time anomalies: the marks timestomping, restores
 * and clock trouble leave, from the inodes (every name reachable from /
 * or FILESPEC) and from the journal (every journaled copy of every
 * inode compared with the one before).  The rules are lib/rules/'s
 * table; this file chooses them, collects the findings and prints them
 * grouped by rule, most severe first, then what the journal covers and
 * a count per rule.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "anomalies_report.h"
#include "cmd.h"
#include "escape.h"

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
		"then what the journal covers (tids, commit times, whether "
		"it\nwrapped) and a count per rule.  Exit status 0 with or "
		"without findings.\n\n"
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
	if (!ctx->jpath && !ext2fs_has_feature_journal(img->fs->super)) {
		a->fs.cov.state = E4T_JCOV_NONE;
		return EXIT_OK; /* no journal: nothing to compare */
	}
	a->fs.cov.state = E4T_JCOV_NOT_READ;
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
		a->fs.cov.state = E4T_JCOV_UNREADABLE;
		a->rc.mask &= ~jmask;
		return err == ENOMEM ? cond_status(COND_NOMEM)
				     : cond_status(COND_JOURNAL_DAMAGE);
	}
	if (!(a->rc.mask & jmask))
		return EXIT_OK;
	err = e4t_findings_journal(&a->fs, img, ctx->j);
	if (err) {
		a->fs.cov.state = E4T_JCOV_UNREADABLE;
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
	struct e4t_copyidx *copies = NULL;
	ext2_ino_t start;
	size_t i, nr = e4t_rule_count();
	int status = EXIT_OK, st, jdamaged = 0;
	errcode_t err;

	memset(&a, 0, sizeof(a));
	a.local = ctx->local;
	e4t_rules_init(&a.rc, img->fs->super);
	if (img->sb_block)
		e4t_rules_backup_sb(&a.rc);
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
	/*
	 * The journal first, then the tree: not both held at once (peak
	 * memory).  What the journal rules decide by the copies waits for
	 * the tree's creation times (e4t_findings_copies).
	 */
	a.rc.copies_later = 1;
	status = journal_rules(ctx, &a);
	if (ctx->j) {
		jdamaged = e4t_journal_damaged(ctx->j);
		e4t_journal_close(ctx->j);
		ctx->j = NULL;
	}
	if (status == EXIT_INTERNAL)
		goto out;
	tree = ctx_tree(ctx, &st);
	if (!tree) {
		status = st;
		goto out;
	}
	/* the creation times of every live inode: what copies look like */
	err = e4t_copyidx_build(tree, img->fs->super->s_inodes_count, &copies);
	if (err) {
		report(img->name, "anomalies", err);
		status = EXIT_INTERNAL;
		goto out;
	}
	a.rc.copies = copies;
	a.rc.copies_later = 0;
	e4t_findings_copies(&a.fs, copies);
	err = e4t_findings_walk(&a.fs, img, tree, start, spec);
	if (err) {
		report(img->name, err == ENOMEM ? "anomalies" : spec, err);
		status = err == ENOMEM ? EXIT_INTERNAL : run_error_status(err);
		goto out;
	}
	/* under FILESPEC: the journal's findings on inodes it reaches */
	if (argc)
		e4t_findings_reached_only(&a.fs);
	print_findings(&a.fs, a.rc.mask, a.local,
		       (enum report_format)ctx->format);
out:
	/* as finish() would have: the journal is closed already */
	if (jdamaged && status != EXIT_INTERNAL)
		status = worse_status(status, EXIT_PARTIAL);
	e4t_findings_free(&a.fs);
	e4t_copyidx_free(copies);
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
