/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdtab.h --- the command table: what a command needs of the
 * dispatcher (CMD_*), its struct cmdinfo, and the thirteen commands.
 */
#ifndef E4TIME_CMDTAB_H
#define E4TIME_CMDTAB_H

#include <stdio.h>
#include <getopt.h>

struct cmd_ctx;

/*
 * What a command needs (struct cmdinfo.flags): the dispatcher (context.c)
 * acts on them, so that no command repeats it.
 */
#define CMD_IMAGE                                                              \
	0x01 /* IMAGE is the first argument: --offset, -o, -q;                 \
	      * opened read-only before run() */
#define CMD_WRITE                                                              \
	0x02		 /* with CMD_IMAGE: -n, -z, --no-undo; opened for      \
			  * writing unless -n; the undo file finished after */
#define CMD_JOURNAL 0x04 /* -j FILE; ctx_journal() loads the journal */
#define CMD_TREE    0x08 /* --threads; ctx_tree() indexes the filesystem */
#define CMD_FORMATS 0x10 /* -f, --format NAME (ctx->format_name) */
#define CMD_LOCAL   0x20 /* --local (ctx->local) */
#define CMD_ALLVOL  0x40 /* --volume all: run() once per ext2/3/4 volume */
#define CMD_DRYREAD                                                            \
	0x80 /* with CMD_WRITE: -n opens as a read command does (containers,   \
	      * mounted filesystems) */

/*
 * One entry of the command table (as xfsprogs' cmdinfo_t, git's
 * cmd_struct): what the command is called, what it takes, and the
 * functions the dispatcher calls, in this order: opt() for each of the
 * command's own options, prepare() with the arguments (before the image
 * is opened: a status other than EXIT_OK ends the run there), run() with
 * the arguments after IMAGE, and done() always, last.
 */
struct cmdinfo {
	const char *name;
	const char *args;    /* "[OPTIONS] IMAGE FILESPEC...", for usage */
	const char *oneline; /* for e4time --help */
	unsigned flags;	     /* CMD_* */
	/* CMD_FORMATS: the report formats (RF_MASK()s of report.h) parsed
	 * into ctx->format; 0: the command reads ctx->format_name itself */
	unsigned formats;
	int argmin, argmax;    /* arguments, IMAGE included; argmax -1: any */
	const char *argerr;    /* the usage error when their number is wrong */
	const char *shortopts; /* the command's own options */
	const struct option *longopts; /* ... ending with a zero entry */
	void (*opt)(struct cmd_ctx *ctx, int c, const char *arg);
	int (*prepare)(struct cmd_ctx *ctx, int argc, char **argv);
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
	void (*done)(struct cmd_ctx *ctx);
	void (*help)(FILE *fp);
	/* The exit status the command gives for the dispatcher's (check's
	 * are e2fsck's), or NULL: the same. */
	int (*exit_map)(int status);
};

extern const struct cmdinfo stat_cmd;
extern const struct cmdinfo timeline_cmd;
extern const struct cmdinfo set_cmd;
extern const struct cmdinfo backfill_cmd;
extern const struct cmdinfo export_cmd;
extern const struct cmdinfo import_cmd;
extern const struct cmdinfo journal_cmd;
extern const struct cmdinfo audit_cmd;
extern const struct cmdinfo history_cmd;
extern const struct cmdinfo info_cmd;
extern const struct cmdinfo volumes_cmd;
extern const struct cmdinfo anomalies_cmd;
extern const struct cmdinfo check_cmd;

extern const char *progname;
extern char **cmd_argv; /* the command's argv, for messages */

#endif /* E4TIME_CMDTAB_H */
