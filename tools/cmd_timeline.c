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
		"                       timesketch, csv\n"
		"  -d, --deleted        add inodes no name reaches (orphan) "
		"and "
		"deleted ones\n"
		"      --since TIME     only rows whose FIELD is at or after "
		"TIME\n"
		"      --until TIME     only rows whose FIELD is at or before "
		"TIME\n"
		"      --field FIELD    time for --since/--until: crtime "
		"(default), atime,\n"
		"                       mtime, ctime, dtime\n"
		"      --sort FIELD     sort rows by that time (absent times "
		"last)\n"
		"      --local          local time in the text format\n"
		"      --threads N      threads reading the inode table: 0 "
		"chooses (default),\n"
		"                       1 or 2\n"
		"  --offset BYTES, -o SECTORS, -q, -h    as for every "
		"command\n\n"
		"TIME: ISO 8601 (2009-02-13T23:31:30.5Z, +02:00 offsets), "
		"@EPOCH[.FRAC],\nor YYYYMMDD[HHMM[SS]] (UTC).\n",
		progname);
}

static void parse_time_opt(const char *arg, struct e4t_ts *ts, const char *opt)
{
	errcode_t err = e4t_time_parse(arg, &ts->sec, &ts->nsec);

	if (err)
		usage_error(&timeline_cmd, "%s '%s': %s", opt, arg,
			    error_message(err));
	ts->flags = E4T_TS_STORED;
}

static enum e4t_field parse_field_opt(const char *arg, const char *opt)
{
	int f = e4t_field_parse(arg);

	if (f < 0)
		usage_error(&timeline_cmd,
			    "%s '%s': use atime, mtime, ctime, crtime or dtime",
			    opt, arg);
	return (enum e4t_field)f;
}

int timeline_opt(int opt, const char *arg, struct timeline_args *a)
{
	switch (opt) {
	case 'd': a->flags |= E4T_TREE_DELETED; return 1;
	case OPT_THREADS:
		if (strcmp(arg, "0") && strcmp(arg, "1") && strcmp(arg, "2"))
			usage_error(&timeline_cmd,
				    "--threads '%s': use 0 (choose), 1 or 2",
				    arg);
		a->threads = arg[0] - '0';
		return 1;
	case OPT_SINCE:
		parse_time_opt(arg, &a->since, "--since");
		a->has_since = a->filter = 1;
		return 1;
	case OPT_UNTIL:
		parse_time_opt(arg, &a->until, "--until");
		a->has_until = a->filter = 1;
		return 1;
	case OPT_FIELD:
		a->filter_field = parse_field_opt(arg, "--field");
		return 1;
	case OPT_SORT:
		a->sort_field = parse_field_opt(arg, "--sort");
		a->sort = 1;
		return 1;
	case OPT_LOCAL: a->local = 1; return 1;
	default: return 0;
	}
}

static int timeline_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		TIMELINE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct timeline_args a = { .filter_field = E4T_CRTIME };
	const char *fmt_name = NULL;
	int opt, status;

	while ((opt = getopt_long(argc, argv,
				  COMMON_SHORTOPTS "f:" TIMELINE_SHORTOPTS,
				  longopts, NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &timeline_cmd) ||
		    timeline_opt(opt, optarg, &a))
			continue;
		switch (opt) {
		case 'f': fmt_name = optarg; break;
		default: usage_error(&timeline_cmd, "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage_error(&timeline_cmd, "need an image and at most one "
					   "FILESPEC");
	if (!fmt_name)
		fmt_name = isatty(STDOUT_FILENO) ? "text" : "bodyfile";
	a.fmt = formatter_find(fmt_name);
	if (!a.fmt)
		usage_error(&timeline_cmd,
			    "unknown format '%s' (text, bodyfile, mactime, "
			    "jsonl, timesketch, csv)",
			    fmt_name);
	if (argc - optind == 2)
		a.spec = argv[optind + 1];

	a.img = open_image_or_exit(argv[optind], &co);
	a.quiet = co.quiet;
	status = timeline_run(&a);
	e4t_image_close(a.img);
	return status;
}

const struct cmdinfo timeline_cmd = {
	.name = "timeline",
	.func = timeline_main,
	.args = "[OPTIONS] IMAGE [FILESPEC]",
	.oneline = "list every file with its times (bodyfile, mactime, jsonl, "
		   "csv, ...)",
	.help = timeline_help,
};
