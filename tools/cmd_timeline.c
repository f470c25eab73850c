/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_timeline.c --- e4time timeline: every name reachable from / (or
 * from FILESPEC), with all its times, in one of the output formats.
 * The command: its options (those export shares too) and help; the
 * engine is timeline.c.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "timeline.h"

static void timeline_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s timeline [OPTIONS] IMAGE [FILESPEC]\n\n"
		"List every file reachable from / (or from FILESPEC, a path "
		"or <INODE>),\none row per name, with atime, mtime, ctime, "
		"crtime and dtime.\n\n"
		"Options:\n"
		"  -f, --format FMT     text (default on a terminal), bodyfile "
		"(default\n"
		"                       otherwise: extended bodyfile 3), "
		"mactime, jsonl,\n"
		"                       timesketch, csv, timesketch-csv\n"
		"  -d, --deleted        add inodes no name reaches (orphan) "
		"and "
		"deleted ones,\n"
		"                       named from directory slack when a "
		"name is left\n"
		"                       there, else from the journal (shown "
		"as the journal\n"
		"                       held the inode before the deletion), "
		"and deleted\n"
		"                       names whose inode is in use again "
		"(deleted-realloc)\n"
		"      --journal        add a row for each distinct state of "
		"an inode's\n"
		"                       times in the journal (live log and "
		"stale\n"
		"                       transactions), after the inode's "
		"own rows\n"
		"      --since TIME     only rows whose FIELD is at or after "
		"TIME\n"
		"      --until TIME     only rows whose FIELD is at or before "
		"TIME\n"
		"      --field FIELD    time for --since/--until: crtime "
		"(default), atime,\n"
		"                       mtime, ctime, dtime, several "
		"(mtime,ctime: any of\n"
		"                       them in range), or any (as mactime "
		"selects)\n"
		"      --sort FIELD     sort rows by that time (absent times "
		"last)\n"
		"      --hash ALG       hash each regular file's content: md5 "
		"(bodyfile and\n"
		"                       mactime: their MD5 column), sha1, "
		"sha256 (jsonl,\n"
		"                       csv, timesketch, timesketch-csv: a "
		"column)\n"
		"      --flags          the anomaly rules that fire on each "
		"row "
		"(e4time\n"
		"                       anomalies, inode and journal rules): "
		"jsonl "
		"\"flags\",\n"
		"                       timesketch \"tag\", csv \"flags\" "
		"column\n"
		"      --local          local time in the text format\n"
		"      --threads N      threads: 0 chooses (default), 1 to "
		"64\n" COMMON_HELP "\n"
		"TIME: ISO 8601 (2009-02-13T23:31:30.5Z, +02:00 offsets), "
		"@EPOCH[.FRAC],\nor YYYYMMDD[HHMM[SS]] (UTC).\n",
		progname);
}

static enum e4t_field parse_field_opt(const struct cmdinfo *cmd,
				      const char *arg, const char *opt)
{
	int f = e4t_field_parse(arg);

	if (f < 0)
		usage_error(cmd,
			    "%s '%s': use atime, mtime, ctime, crtime or dtime",
			    opt, arg);
	return (enum e4t_field)f;
}

/* --field: a field, several separated by commas, or any (all five). */
static unsigned parse_fields_opt(const struct cmdinfo *cmd, const char *arg)
{
	unsigned mask = 0;
	const char *p = arg;

	if (strcmp(arg, "any") == 0)
		return (1U << E4T_NFIELDS) - 1;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char name[16];
		int f = -1;

		if (n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			f = e4t_field_parse(name);
		}
		if (f < 0)
			usage_error(
				cmd,
				"--field '%s': use atime, mtime, ctime, "
				"crtime, dtime, several with commas, or any",
				arg);
		mask |= 1U << f;
		p += n;
		if (*p == ',' && p[1])
			p++;
		else if (*p == ',')
			usage_error(cmd, "--field '%s': a field after ','",
				    arg);
	}
	if (!mask)
		usage_error(cmd, "--field: name a field");
	return mask;
}

void timeline_opt(const struct cmdinfo *cmd, int opt, const char *arg,
		  struct timeline_args *a)
{
	switch (opt) {
	case 'd': a->flags |= E4T_TREE_DELETED; break;
	case OPT_SINCE:
		parse_time_option(cmd, "--since", arg, &a->since);
		a->has_since = a->filter = 1;
		break;
	case OPT_UNTIL:
		parse_time_option(cmd, "--until", arg, &a->until);
		a->has_until = a->filter = 1;
		break;
	case OPT_FIELD: a->filter_fields = parse_fields_opt(cmd, arg); break;
	case OPT_SORT:
		a->sort_field = parse_field_opt(cmd, arg, "--sort");
		a->sort = 1;
		break;
	case OPT_HASH: {
		int h = e4t_hash_parse(arg);

		if (h < 0)
			usage_error(cmd, "--hash '%s': use md5, sha1 or sha256",
				    arg);
		a->hash = (enum e4t_hash_alg)h;
		break;
	}
	default: usage_error(cmd, "unknown option");
	}
}

int timeline_cmd_run(struct cmd_ctx *ctx, struct timeline_args *a, int argc,
		     char **argv)
{
	if (argc)
		a->spec = argv[0];
	a->ctx = ctx;
	a->img = ctx->img;
	a->quiet = ctx->co.quiet;
	a->local = ctx->local;
	a->threads = ctx->topts.threads;
	a->walk_threads = ctx->threads;
	a->volume = ctx->volume;
	a->vol_first = ctx->vol_first;
	return timeline_run(a);
}

enum { OPT_FLAGS = OPT_TIMELINE_LAST, OPT_JOURNAL }; /* timeline only */
static const struct option timeline_longopts[] = {
	TIMELINE_LONGOPTS,
	{ "flags", no_argument, NULL, OPT_FLAGS },
	{ "journal", no_argument, NULL, OPT_JOURNAL },
	{ NULL, 0, NULL, 0 },
};
static struct timeline_args ta = { .filter_fields = 1U << E4T_CRTIME };

static void tl_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	if (opt == OPT_FLAGS)
		ta.rule_flags = 1;
	else if (opt == OPT_JOURNAL)
		ta.journal = 1;
	else
		timeline_opt(&timeline_cmd, opt, arg, &ta);
}

static int tl_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *name = ctx->format_name;

	(void)argc;
	(void)argv;
	if (!name)
		name = isatty(STDOUT_FILENO) ? "text" : "bodyfile";
	ta.fmt = formatter_find(name);
	if (!ta.fmt)
		usage_error(&timeline_cmd,
			    "unknown format '%s' (text, bodyfile, mactime, "
			    "jsonl, timesketch, csv, timesketch-csv)",
			    name);
	if (ta.rule_flags && !(ta.fmt->caps & FMT_FLAGS))
		usage_error(&timeline_cmd,
			    "--flags: only the jsonl, timesketch and csv "
			    "formats carry them");
	if (ta.hash == E4T_HASH_NONE)
		return EXIT_OK;
	if (!(ta.fmt->caps & (FMT_HASH | FMT_HASH_MD5)))
		usage_error(&timeline_cmd,
			    "--hash: the %s format has no column for it (use "
			    "jsonl or csv)",
			    name);
	if (!(ta.fmt->caps & FMT_HASH) && ta.hash != E4T_HASH_MD5)
		usage_error(&timeline_cmd,
			    "--hash %s: the %s format holds MD5 only",
			    e4t_hash_name(ta.hash), name);
	return EXIT_OK;
}

static int tl_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	ta.deleted_names = 1;
	return timeline_cmd_run(ctx, &ta, argc, argv);
}

const struct cmdinfo timeline_cmd = {
	.name = "timeline",
	.args = "[OPTIONS] IMAGE [FILESPEC]",
	.oneline = "list every file with its times (bodyfile, mactime, jsonl, "
		   "csv, ...)",
	.flags = CMD_IMAGE | CMD_FORMATS | CMD_LOCAL | CMD_TREE | CMD_ALLVOL,
	.argmin = 1,
	.argmax = 2,
	.argerr = "need an image and at most one FILESPEC",
	.shortopts = TIMELINE_SHORTOPTS,
	.longopts = timeline_longopts,
	.opt = tl_opt,
	.prepare = tl_prepare,
	.run = tl_run,
	.help = timeline_help,
};
