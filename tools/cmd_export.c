/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_export.c --- e4time export: a manifest of every file's times, to
 * put them back into another image with e4time import.  A manifest is
 * `timeline --format jsonl` after one header line, so it is written by
 * the timeline engine (timeline.c) with timeline's options.
 */
#include "config.h"

#include <string.h>

#include "export_dir.h"
#include "timeline.h"

static void export_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s export [OPTIONS] IMAGE [FILESPEC] > MANIFEST\n"
		"       %s export --from-dir DIR [--crtime-from SOURCE] "
		"[--cross-mounts] > MANIFEST\n\n"
		"Write a manifest (JSON lines) of every file under / (or "
		"FILESPEC): a header\nline {\"e4time_manifest\":1,...}, then "
		"one object per name with path, ino and\nthe times, exactly "
		"as `timeline --format jsonl` writes them.\n\n"
		"Options: those of timeline (--deleted, --since, --until, "
		"--field, --sort,\n--hash, --threads, --offset, -o, -q) except "
		"--format.\n\n"
		"      --from-dir DIR     the manifest of a mounted tree of "
		"any "
		"filesystem\n"
		"                         (statx birth times), paths from DIR "
		"as /...; no IMAGE\n"
		"      --crtime-from SOURCE\n"
		"                         where statx has no birth time, the "
		"crtime from an xattr\n"
		"                         source, as backfill's --from (see "
		"e4time(8)); ntfs-3g's\n"
		"                         system.ntfs_crtime is tried after "
		"it\n"
		"      --cross-mounts     descend into filesystems mounted "
		"below DIR\n",
		progname, progname);
}

enum { OPT_FROM_DIR = OPT_TIMELINE_LAST, OPT_CRTIME_FROM, OPT_CROSS_MOUNTS };

static const struct option export_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "from-dir", required_argument, NULL, OPT_FROM_DIR },
	{ "crtime-from", required_argument, NULL, OPT_CRTIME_FROM },
	{ "cross-mounts", no_argument, NULL, OPT_CROSS_MOUNTS },
	TIMELINE_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};
static struct timeline_args ea = {
	.filter_fields = 1U << E4T_CRTIME,
	.fmt = &fmt_jsonl, /* a manifest is always JSON lines */
	.manifest = 1,
};

/* export --from-dir */
static const char *from_dir, *crtime_from;
static int cross_mounts;

/* timeline's options, but --format; and --from-dir's */
static void export_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	switch (opt) {
	case 'f':
		usage_error(&export_cmd, "a manifest is always JSON lines: no "
					 "--format");
		break;
	case OPT_FROM_DIR: from_dir = arg; break;
	case OPT_CRTIME_FROM: crtime_from = arg; break;
	case OPT_CROSS_MOUNTS: cross_mounts = 1; break;
	default: timeline_opt(&export_cmd, opt, arg, &ea);
	}
}

/* An IMAGE, or --from-dir DIR and no argument, with the options each
 * takes. */
static int export_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (!from_dir) {
		if (argc < 1)
			usage_error(&export_cmd, "%s", export_cmd.argerr);
		if (crtime_from || cross_mounts)
			usage_error(&export_cmd, "--crtime-from and "
						 "--cross-mounts go with "
						 "--from-dir");
		return EXIT_OK;
	}
	if (argc)
		usage_error(&export_cmd, "--from-dir DIR takes no IMAGE or "
					 "FILESPEC");
	if (ea.flags || ea.filter || ea.sort || ctx->co.volume ||
	    ctx->co.offset_set || ctx->co.verify)
		usage_error(&export_cmd,
			    "--from-dir takes none of --deleted, --since, "
			    "--until, --field, --sort, --volume, --offset, -o, "
			    "--verify-container");
	ctx->no_image = 1;
	return EXIT_OK;
}

static int export_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	if (from_dir)
		return export_dir_run(from_dir, crtime_from, cross_mounts,
				      ctx->co.quiet);
	return timeline_cmd_run(ctx, &ea, argc, argv);
}

const struct cmdinfo export_cmd = {
	.name = "export",
	.args = "[OPTIONS] IMAGE [FILESPEC] > MANIFEST",
	.oneline = "write a manifest of every file's times (for import)",
	.flags = CMD_IMAGE | CMD_LOCAL | CMD_TREE | CMD_ALLVOL,
	.argmin = 0, /* export_prepare: an IMAGE unless --from-dir */
	.argmax = 2,
	.argerr = "need an image and at most one FILESPEC",
	.shortopts = "f:" TIMELINE_SHORTOPTS,
	.longopts = export_longopts,
	.opt = export_opt,
	.prepare = export_prepare,
	.run = export_run,
	.help = export_help,
};
