/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_audit.c --- e4time audit: how much of the journal's traffic was
 * nothing but atime updates, on which files, and what relatime or
 * noatime would have saved.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "linebuf.h"
#include "report.h"
#include "audit_report.h"

#define AUDIT_FORMATS                                                          \
	(RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV) |              \
	 RF_MASK(RF_JSON))

static void audit_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s audit [OPTIONS] IMAGE\n\n"
		"Compare every copy of every inode-table block in the jbd2 "
		"journal with\nthe copy before it and classify each inode "
		"change: atime only, mtime\n(data), ctime (metadata), "
		"created, deleted, crtime (never done by the\nkernel to a "
		"live inode), other.  Reports the journal, each "
		"transaction,\na summary, the files with the most atime-only "
		"updates, and advice.\nStale transactions (already "
		"checkpointed) are included by default.\n\n"
		"Options:\n"
		"  -j, --journal FILE     external journal device or image\n"
		"      --no-stale         the live log only\n"
		"      --stale            stale transactions too (the "
		"default; undoes\n"
		"                         an earlier --no-stale)\n"
		"  -f, --format FMT       text (default), jsonl (records), "
		"csv\n"
		"                         (transactions) or json (one "
		"object, the older\n"
		"                         form of jsonl, kept as it was)\n"
		"  -t, --top N            files to list (default "
		"10)\n" COMMON_HELP,
		progname);
}

struct path_ctx {
	struct top *top;
	size_t n;
};

static int find_paths(const struct e4t_row *row, void *priv)
{
	struct path_ctx *pc = priv;
	size_t i;

	for (i = 0; i < pc->n; i++)
		if (pc->top[i].ino == row->inode->ino && !pc->top[i].path)
			pc->top[i].path = dup_bytes(row->path, row->path_len);
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->atime_only != y->atime_only)
		return x->atime_only > y->atime_only ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static const struct option audit_longopts[] = {
	{ "no-stale", no_argument, NULL, 's' },
	{ "stale", no_argument, NULL, 'S' },
	{ "top", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 },
};
static unsigned long ntop = 10; /* --top */
static int no_stale;		/* --no-stale (--stale undoes it) */

static void audit_opt(struct cmd_ctx *ctx, int c, const char *arg)
{
	char *end;

	switch (c) {
	case 's': no_stale = 1; break;
	case 'S': no_stale = 0; break;
	case 't':
		errno = 0;
		ntop = strtoul(arg, &end, 10);
		if (errno || *end || !*arg || arg[0] == '-')
			usage_error(&audit_cmd, "bad --top '%s'", arg);
		break;
	default: usage_error(&audit_cmd, "unknown option");
	}
}

/* The files with the most atime-only updates, at most ntop, with their
 * first paths; NULL when out of memory. */
static struct top *top_files(struct cmd_ctx *ctx, const struct e4t_audit *a,
			     size_t *ntops)
{
	struct top *top;
	size_t i, k, n = 0;

	for (i = 0; i < a->ninodes; i++)
		if (a->inodes[i].changes[E4T_CH_ATIME])
			n++;
	top = calloc(n ? n : 1, sizeof(*top));
	if (!top)
		return NULL;
	for (i = 0, k = 0; i < a->ninodes; i++)
		if (a->inodes[i].changes[E4T_CH_ATIME]) {
			top[k].ino = a->inodes[i].ino;
			top[k++].atime_only =
				a->inodes[i].changes[E4T_CH_ATIME];
		}
	qsort(top, n, sizeof(*top), cmp_top);
	*ntops = n > ntop ? ntop : n;
	if (*ntops) {
		struct e4t_tree *tree = ctx_tree_names(ctx);
		struct path_ctx pc = { top, *ntops };

		if (tree)
			e4t_tree_walk(tree, EXT2_ROOT_INO, "/", find_paths,
				      &pc);
	}
	return top;
}

static int audit_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ctx->jflags = no_stale ? 0 : E4T_J_STALE;
	return EXIT_OK;
}

static int audit_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_journal *j;
	struct e4t_audit *a;
	struct top *top;
	size_t i, ntops = 0;
	errcode_t err;
	int status = EXIT_OK;

	(void)argc;
	(void)argv;
	j = ctx_journal(ctx, &status);
	if (!j)
		return status;
	err = e4t_audit_run(ctx->img, j, NULL, NULL, &a);
	if (err) {
		report(ctx->img->name, "audit", err);
		return cond_status(err == ENOMEM ? COND_NOMEM : COND_JOURNAL);
	}
	top = top_files(ctx, a, &ntops);
	if (!top) {
		report(ctx->img->name, "audit", ENOMEM);
		e4t_audit_free(a);
		return cond_status(COND_NOMEM);
	}
	print_audit(j, a, top, ntops, (enum report_format)ctx->format,
		    ctx->volume, ctx->vol_first);
	for (i = 0; i < ntops; i++)
		free(top[i].path);
	free(top);
	e4t_audit_free(a);
	return EXIT_OK;
}

const struct cmdinfo audit_cmd = {
	.name = "audit",
	.args = "IMAGE",
	.oneline = "atime churn and inode changes, from the journal",
	.flags = CMD_IMAGE | CMD_JOURNAL | CMD_FORMATS | CMD_ALLVOL,
	.formats = AUDIT_FORMATS,
	.argmin = 1,
	.argmax = 1,
	.argerr = "give one IMAGE",
	.shortopts = "t:",
	.longopts = audit_longopts,
	.opt = audit_opt,
	.prepare = audit_prepare,
	.run = audit_run,
	.help = audit_help,
};
