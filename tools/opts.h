/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.h --- the options every command shares: the image options, the
 * write options, and parsing --fields, TIME, --policy and --threads
 * (common.c).
 */
#ifndef E4TIME_OPTS_H
#define E4TIME_OPTS_H

#include <getopt.h>
#include "lib/e4time.h"

struct cmdinfo;

/* Options every image-reading command takes. */
struct common_opts {
	unsigned long long offset; /* bytes */
	int offset_set;		   /* 0, 'o' (-o SECTORS) or 'O' (--offset) */
	const char *volume;	   /* --volume SPEC, or NULL */
	int verify;		   /* --verify-container */
	int quiet;
	struct e4t_sb_opts sb; /* -b BLOCK, -B SIZE (e2fsck's) */
};

enum {
	OPT_OFFSET = 0x100,
	OPT_VOLUME,
	OPT_VERIFY,
	OPT_SUPERBLOCK,
	OPT_BLOCK_SIZE,
	OPT_PARENT_DIR,
	OPT_NO_UNDO,
	OPT_CTX_LOCAL,
	OPT_CTX_THREADS,
	OPT_COMMON_LAST
};
#define COMMON_LONGOPTS                                                        \
	{ "offset", required_argument, NULL, OPT_OFFSET },                     \
		{ "sector-offset", required_argument, NULL, 'o' },             \
		{ "volume", required_argument, NULL, OPT_VOLUME },             \
		{ "verify-container", no_argument, NULL, OPT_VERIFY },         \
		{ "parent-dir", required_argument, NULL, OPT_PARENT_DIR },     \
		{ "quiet", no_argument, NULL, 'q' },                           \
		{ "superblock", required_argument, NULL, OPT_SUPERBLOCK },     \
		{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },     \
	{                                                                      \
		"help", no_argument, NULL, 'h'                                 \
	}
/* -b and -B give way to a command's own (journal -b is --blocks) */
#define COMMON_SHORTOPTS "o:qhb:B:"
#define COMMON_HELP                                                            \
	"  --volume SPEC, --offset BYTES, -o SECTORS, --verify-container, "    \
	"--parent-dir DIR, -q, "                                               \
	"-h,\n"                                                                \
	"  -b, --superblock BLOCK, -B, --block-size SIZE (journal: the long "  \
	"form)\n"                                                              \
	"                         as for every command (see e4time(8))\n"

/* Options every writing command takes (with COMMON_*). */
#define WRITE_LONGOPTS                                                         \
	{ "dry-run", no_argument, NULL, 'n' },                                 \
		{ "undo-file", required_argument, NULL, 'z' },                 \
	{                                                                      \
		"no-undo", no_argument, NULL, OPT_NO_UNDO                      \
	}
#define WRITE_SHORTOPTS "nz:"
#define WRITE_HELP                                                             \
	"  -n, --dry-run          show what would change; open the image "     \
	"read-only\n"                                                          \
	"  -z, --undo-file FILE   undo file (default: $E2FSPROGS_UNDO_DIR "    \
	"or\n"                                                                 \
	"                         /var/lib/e2fsprogs, e4time-IMAGE.e2undo)\n"  \
	"      --no-undo          write no undo file\n" COMMON_HELP
/* Handle a write option into wo; returns 1 if it was one. */
int write_opt(int c, const char *arg, struct e4t_write_opts *wo);
/* After option parsing: -z and --no-undo exclude each other. */
void check_write_opts(const struct e4t_write_opts *wo,
		      const struct cmdinfo *cmd);

/* --fields LIST of set and import: crtime, atime, mtime, ctime (a mask
 * of 1 << E4T_*); exits on a bad or empty one. */
unsigned parse_fields(const char *list, const struct cmdinfo *cmd);
/* A TIME option (--crtime, --since...): exits on a bad one. */
void parse_time_option(const struct cmdinfo *cmd, const char *what,
		       const char *arg, struct e4t_ts *ts);
/* backfill and import: --policy (exits on a bad one). */
enum e4t_policy parse_policy(const char *arg, const struct cmdinfo *cmd);
/* --threads: 0 (choose) or 1 to 64 (exits on anything else); the
 * commands but timeline and export use at most 2. */
int parse_threads(const char *arg, const struct cmdinfo *cmd);

/* Handle a common option; returns 1 if it was one, exits on bad values
 * and on getopt's '?' (unknown option, missing argument). */
int common_opt(int c, const char *arg, struct common_opts *co,
	       const struct cmdinfo *cmd);
/* The exit status for status as the running command gives it
 * (cmdinfo.exit_map; cmd_run sets the command): for usage_error(), and
 * for cmd_run's result. */
void cmd_set_running(const struct cmdinfo *cmd);
int cmd_exit_status(int status);
void usage_error(const struct cmdinfo *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#endif /* E4TIME_OPTS_H */
