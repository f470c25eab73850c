/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_export.c --- e4time export: a manifest of every file's times, to
 * put them back into another image with e4time import.  A manifest is
 * `timeline --format jsonl` after one header line, so it is written by
 * the timeline command itself.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"

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

static int export_main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 4, sizeof(*args));
	int i, n = 0;

	if (!args)
		return EXIT_INTERNAL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			export_help(stdout);
			free(args);
			return finish_stdout(EXIT_OK);
		}
		if (!strcmp(argv[i], "-f") || !strncmp(argv[i], "--format", 8))
			usage_error(&export_cmd, "a manifest is always JSON "
						 "lines: no --format");
	}
	args[n++] = (char *)"export";
	args[n++] = (char *)"--format=jsonl";
	args[n++] = (char *)"--manifest-header";
	for (i = 1; i < argc; i++)
		args[n++] = argv[i];
	cmd_argv = args;
	i = timeline_cmd.func(n, args);
	free(args);
	return i;
}

const struct cmdinfo export_cmd = {
	.name = "export",
	.func = export_main,
	.args = "[OPTIONS] IMAGE [FILESPEC] > MANIFEST",
	.oneline = "write a manifest of every file's times (for import)",
	.help = export_help,
};
