/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_export.c --- e4time export: a manifest of every file's times, to
 * put them back into another image with e4time import.  A manifest is
 * `timeline --format jsonl` after one header line, so it is written by
 * the timeline engine (timeline.c) with timeline's options.
 */
#include "config.h"

#include <string.h>

#include "timeline.h"

static void export_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s export [OPTIONS] IMAGE [FILESPEC] > MANIFEST\n\n"
		"Write a manifest (JSON lines) of every file under / (or "
		"FILESPEC): a header\nline {\"e4time_manifest\":1,...}, then "
		"one object per name with path, ino and\nthe times, exactly "
		"as `timeline --format jsonl` writes them.\n\n"
		"Options: those of timeline (--deleted, --since, --until, "
		"--field, --sort,\n--threads, --offset, -o, -q) except "
		"--format.\n",
		progname);
}

/*
 * The options of timeline, and its messages: a bad option or argument
 * is reported as timeline's.  --format is refused before parsing (-f
 * given otherwise, as in -df, is taken and ignored).
 */
static int export_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		TIMELINE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct timeline_args a = {
		.filter_field = E4T_CRTIME,
		.fmt = &fmt_jsonl, /* a manifest is always JSON lines */
		.manifest = 1,
	};
	int i, opt, status;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			export_help(stdout);
			return finish_stdout(EXIT_OK);
		}
		if (!strcmp(argv[i], "-f") || !strncmp(argv[i], "--format", 8))
			usage_error(&export_cmd, "a manifest is always JSON "
						 "lines: no --format");
	}
	while ((opt = getopt_long(argc, argv,
				  COMMON_SHORTOPTS "f:" TIMELINE_SHORTOPTS,
				  longopts, NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &timeline_cmd) ||
		    timeline_opt(opt, optarg, &a) || opt == 'f')
			continue;
		usage_error(&timeline_cmd, "unknown option");
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage_error(&timeline_cmd, "need an image and at most one "
					   "FILESPEC");
	if (argc - optind == 2)
		a.spec = argv[optind + 1];

	a.img = open_image_or_exit(argv[optind], &co);
	a.quiet = co.quiet;
	status = timeline_run(&a);
	e4t_image_close(a.img);
	return status;
}

const struct cmdinfo export_cmd = {
	.name = "export",
	.func = export_main,
	.args = "[OPTIONS] IMAGE [FILESPEC] > MANIFEST",
	.oneline = "write a manifest of every file's times (for import)",
	.help = export_help,
};
