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
		"--field, --sort,\n--hash, --threads, --offset, -o, -q) except "
		"--format.\n",
		progname);
}

static const struct option export_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	TIMELINE_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};
static struct timeline_args ea = {
	.filter_fields = 1U << E4T_CRTIME,
	.fmt = &fmt_jsonl, /* a manifest is always JSON lines */
	.manifest = 1,
};

/* timeline's options, but --format */
static void export_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	if (opt == 'f')
		usage_error(&export_cmd, "a manifest is always JSON lines: no "
					 "--format");
	timeline_opt(&export_cmd, opt, arg, &ea);
}

static int export_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	return timeline_cmd_run(ctx, &ea, argc, argv);
}

const struct cmdinfo export_cmd = {
	.name = "export",
	.args = "[OPTIONS] IMAGE [FILESPEC] > MANIFEST",
	.oneline = "write a manifest of every file's times (for import)",
	.flags = CMD_IMAGE | CMD_LOCAL | CMD_TREE | CMD_ALLVOL,
	.argmin = 1,
	.argmax = 2,
	.argerr = "need an image and at most one FILESPEC",
	.shortopts = "f:" TIMELINE_SHORTOPTS,
	.longopts = export_longopts,
	.opt = export_opt,
	.run = export_run,
	.help = export_help,
};
