/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_check.c --- e4time check: find, and with -p, -y or an answer on a
 * terminal fix, what is wrong with the timestamps of an ext2/3/4 image,
 * as e2fsck does for the rest of the filesystem: -n, -p, -y, Fix<y>?,
 * e2fsck's exit statuses.  The problems are lib/check/problem.c's; the
 * scan and the fixes lib/check/check.c's; writes go through the write
 * path every writing command uses (refusals, undo file).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_report.h"
#include "cmd.h"
#include "report.h"

/* e2fsck's exit statuses (e2fsck(8)), as check gives them */
#define FSCK_OK		 0
#define FSCK_NONDESTRUCT 1  /* problems corrected */
#define FSCK_UNCORRECTED 4  /* problems left uncorrected */
#define FSCK_ERROR	 8  /* operational error */
#define FSCK_USAGE	 16 /* usage or syntax error */
#define FSCK_CANCELED	 32 /* cancelled (SIGINT) */

static void check_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s check [-n|-p|-y] [OPTIONS] IMAGE\n\n"
		"Check the timestamps of every inode as e2fsck checks a "
		"filesystem, and fix\nwhat can be fixed (problem codes and "
		"exit statuses: e4time(8), CHECK).\n\n"
		"  -n, --dry-run          open read-only, answer no to every "
		"question\n"
		"  -p, --preen            fix what is safe without a human "
		"(T0001, T0002)\n"
		"  -y, --yes              fix every error that can be fixed "
		"(warnings: --fix)\n"
		"                         (none of the three: ask, on a "
		"terminal)\n"
		"      --crtime-from SRC  where a crtime to set comes from: "
		"ctime, mtime,\n"
		"                         earliest (of mtime and ctime), or "
		"a backfill source:\n"
		"                         %s\n"
		"      --mtime-tolerance SECONDS\n"
		"                         how far crtime may pass mtime "
		"(default 2)\n"
		"      --fix CODE[,CODE]  fix these warnings too (T0006, "
		"T0009), with -y or an\n"
		"                         answer: nothing else fixes a "
		"warning\n"
		"      --strict           warnings count for the exit "
		"status (4)\n"
		"  -f, --format FMT       text (default) or jsonl: one "
		"record per problem\n"
		"      --threads N        threads: 0 chooses (default), 1 or "
		"2\n"
		"  -z, --undo-file FILE   undo file (default: "
		"$E2FSPROGS_UNDO_DIR or\n"
		"                         /var/lib/e2fsprogs, "
		"e4time-IMAGE.e2undo)\n"
		"      --no-undo          write no undo file\n" COMMON_HELP
		"\nExit status (e2fsck's): 0 no problem, 1 problems "
		"corrected, 4 problems left\nuncorrected, 8 operational "
		"error, 16 usage error, 32 cancelled.\n",
		progname, e4t_source_spec_help());
}

enum {
	OPT_CRTIME_FROM = OPT_COMMON_LAST,
	OPT_MTIME_TOL,
	OPT_STRICT,
	OPT_FIX,
};

static const struct option check_longopts[] = {
	{ "preen", no_argument, NULL, 'p' },
	{ "yes", no_argument, NULL, 'y' },
	{ "crtime-from", required_argument, NULL, OPT_CRTIME_FROM },
	{ "mtime-tolerance", required_argument, NULL, OPT_MTIME_TOL },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "fix", required_argument, NULL, OPT_FIX },
	{ NULL, 0, NULL, 0 },
};

static int preen, yes, strict;
static const char *crtime_from;
static struct e4t_source *src;
static struct e4t_check_opts copts = { .mtime_tolerance = 2 };
static int result; /* FSCK_* bits of the run, for check_exit() */
static volatile sig_atomic_t interrupted;

/* --fix CODE[,CODE...]: each a warning with a fix, into copts. */
static void fix_opt(const char *arg)
{
	const char *p = arg, *end;

	do {
		const struct e4t_problem_def *d;
		size_t len;
		int c;

		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		c = e4t_problem_find(p, len);
		d = c < 0 ? NULL : e4t_problem_def((enum e4t_pcode)c);
		if (!d)
			usage_error(&check_cmd,
				    "--fix '%.*s': not a problem code "
				    "(T0006, T0009, or their names)",
				    (int)len, p);
		if (d->flags & E4T_PF_NOFIX)
			usage_error(&check_cmd, "--fix %s: %s is never fixed",
				    d->code, d->name);
		if (!(d->flags & E4T_PF_WARNING))
			usage_error(&check_cmd,
				    "--fix %s: an error, not a warning: -y "
				    "fixes it without --fix",
				    d->code);
		copts.fix_warnings |= 1U << c;
		p = end ? end + 1 : NULL;
	} while (p);
}

static void check_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	switch (opt) {
	case 'p': preen = 1; break;
	case 'y': yes = 1; break;
	case OPT_CRTIME_FROM: crtime_from = arg; break;
	case OPT_MTIME_TOL: {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || v > 86400UL * 366 ||
		    arg[0] == '-')
			usage_error(&check_cmd,
				    "--mtime-tolerance '%s': seconds, 0 to "
				    "31622400",
				    arg);
		copts.mtime_tolerance = (uint32_t)v;
		break;
	}
	case OPT_STRICT: strict = 1; break;
	case OPT_FIX: fix_opt(arg); break;
	default: usage_error(&check_cmd, "unknown option");
	}
}

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int check_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	errcode_t err;

	(void)argc;
	if (ctx->wo.dry_run + preen + yes > 1)
		usage_error(&check_cmd,
			    "only one of the options -n, -p or -y may be "
			    "given");
	if (crtime_from) {
		err = e4t_check_crtime_from(crtime_from, &copts.crtime_from,
					    &src);
		copts.src = src;
		if (err == EINVAL)
			usage_error(&check_cmd,
				    "--crtime-from '%s': ctime, mtime, "
				    "earliest, or %s",
				    crtime_from, e4t_source_spec_help());
		if (err) {
			report(argv[0], crtime_from, err);
			return EXIT_INTERNAL;
		}
	}
	/* as e2fsck: questions need a terminal */
	if (!ctx->wo.dry_run && !preen && !yes &&
	    (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr,
			"%s: %s: need terminal for interactive repairs "
			"(give -n, -p or -y)\n",
			progname, argv[0]);
		result = FSCK_ERROR;
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

/*
 * Is the image (read with -n) mounted?  Said on stderr, with where; the
 * kernel's journal is live then, and is no damage.
 */
static int mounted(const struct e4t_image *img)
{
	struct e4t_refusal why = { .what = "" };

	if (!image_mounted(img, &why))
		return 0;
	warnx_img(img->name,
		  "mounted (%s): check -n reads what is on disk, where the "
		  "mount may not have written everything yet%s; nothing is "
		  "fixed while it is mounted: unmount it, then check",
		  why.what,
		  (img->state & E4T_IMG_NEEDS_RECOVERY)
			  ? " (the journal to recover is the mount's own, "
			    "no damage)"
			  : "");
	return 1;
}

/* Progress as the other commands show theirs: checking, then writing. */
static void check_progress(const char *phase, uint64_t done, uint64_t total,
			   void *priv)
{
	progress_show(strcmp(phase, "fixes") ? "checking" : "writing", phase,
		      done, total, priv);
}

static int check_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_check_result res;
	struct e4t_check_summary sum;
	struct e4t_image *img = ctx->img;
	enum e4t_check_mode mode = ctx->wo.dry_run ? E4T_CHECK_NO
				   : preen	   ? E4T_CHECK_PREEN
				   : yes	   ? E4T_CHECK_YES
						   : E4T_CHECK_ASK;
	int status = EXIT_OK;
	struct e4t_tree *tree;
	errcode_t err;

	(void)argc;
	(void)argv;
	/* SIGTERM and SIGHUP too, as SIGINT */
	catch_stop_signals(on_sigint);
	/* mounted (read with -n): what the kernel has not written yet is
	 * not on disk, a live journal is no damage, and nothing is fixed */
	if (ctx->wo.dry_run && mounted(img))
		copts.refuse = E4T_NOFIX_MOUNTED;
	/* what e2fsck owns comes first */
	else if (img->state & (E4T_IMG_ERRORS_FLAGGED | E4T_IMG_SB_CSUM_BAD |
			       E4T_IMG_GD_CSUM_BAD | E4T_IMG_NEEDS_RECOVERY)) {
		warnx_img(img->name,
			  "errors flagged, metadata checksums failing or a "
			  "journal to recover: run e2fsck first; nothing "
			  "will be fixed");
		copts.refuse = E4T_NOFIX_CSUM;
		result |= FSCK_UNCORRECTED;
	}
	tree = ctx_tree(ctx, &status);
	if (!tree)
		return status;
	copts.now = (int64_t)time(NULL);
	copts.progress = check_progress;
	copts.priv = &ctx->wc;
	memset(&res, 0, sizeof(res));
	err = e4t_check_scan(img, tree, &copts, &res);
	progress_done();
	if (err) {
		e4t_check_result_free(&res);
		report(img->name, "check", err);
		return err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE;
	}
	check_decide(&res, mode, ctx->format == RF_TEXT, &interrupted);
	if (mode != E4T_CHECK_NO && !interrupted && e4t_check_any_fix(&res))
		err = e4t_check_fix(img, &res, &copts, &interrupted);
	progress_done();
	if (interrupted)
		result |= FSCK_CANCELED;
	e4t_check_summarize(&res, &sum);
	if (ctx->format == RF_TEXT && mode != E4T_CHECK_ASK)
		check_answers(&res);
	if (ctx->format != RF_TEXT)
		check_records((enum report_format)ctx->format, &res);
	e4t_check_result_free(&res);
	if (sum.fixed || sum.warnings_fixed)
		result |= FSCK_NONDESTRUCT;
	if (sum.left || sum.skipped || (strict && sum.warnings_left))
		result |= FSCK_UNCORRECTED;
	/* not one inode could be read: no summary says any was checked */
	if (!err && sum.inodes && sum.skipped >= sum.inodes) {
		warnx_img(img->name,
			  "none of the %lu inodes could be checked (a failing "
			  "checksum or impossible i_extra_isize): run e2fsck "
			  "first",
			  sum.skipped);
		return EXIT_IMAGE;
	}
	if (sum.skipped && !ctx->co.quiet) {
		fflush(stdout); /* after the lines, in a log of both */
		warnx_img(img->name,
			  "%lu inodes with a failing checksum or impossible "
			  "i_extra_isize not checked: run e2fsck first",
			  sum.skipped);
	}
	/* a failed write: what is printed was written, the summary too */
	if (err)
		status = write_error_status(img, "writing", err);
	check_summary((enum report_format)ctx->format, img->name, &sum,
		      interrupted, err);
	return status;
}

static void check_done(struct cmd_ctx *ctx)
{
	(void)ctx;
	e4t_source_free(src);
}

/* The dispatcher's statuses as e2fsck's (see the man page). */
static int check_exit(int status)
{
	switch (status) {
	case EXIT_OK: return result;
	case EXIT_PARTIAL: return result | FSCK_UNCORRECTED;
	case EXIT_USAGE: return FSCK_USAGE;
	default: return FSCK_ERROR | (result & FSCK_CANCELED);
	}
}

const struct cmdinfo check_cmd = {
	.name = "check",
	.args = "[-n|-p|-y] [OPTIONS] IMAGE",
	.oneline = "check and repair timestamps as e2fsck does (-n, -p, -y)",
	.flags = CMD_IMAGE | CMD_WRITE | CMD_DRYREAD | CMD_TREE | CMD_FORMATS,
	.formats = RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL),
	.argmin = 1,
	.argmax = 1,
	.argerr = "need one image",
	.shortopts = "py",
	.longopts = check_longopts,
	.opt = check_opt,
	.prepare = check_prepare,
	.run = check_run,
	.done = check_done,
	.help = check_help,
	.exit_map = check_exit,
};
