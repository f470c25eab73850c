/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h --- the timeline engine (timeline.c), run by the timeline
 * and export commands, and the options both take (cmd_timeline.c).
 */
#ifndef E4TIME_TIMELINE_H
#define E4TIME_TIMELINE_H

#include "output.h"

struct cmd_ctx;

struct timeline_args {
	struct cmd_ctx *ctx;   /* the command's: the tree (ctx_tree) */
	struct e4t_image *img; /* open; timeline_run does not close it */
	const char *spec;      /* FILESPEC: a path or <INODE>; "/" */
	const struct formatter *fmt;
	int local;		/* --local */
	int quiet;		/* -q */
	int manifest;		/* export: a manifest header line first */
	unsigned flags;		/* E4T_TREE_DELETED (--deleted) */
	int threads;		/* --threads: 0 chooses, 1 or 2 (the load) */
	int walk_threads;	/* --threads as given: 0 chooses, 1 to 64 */
	int filter;		/* --since or --until given */
	unsigned filter_fields; /* --field: 1 << each field (crtime) */
	struct e4t_ts since, until;
	int has_since, has_until;
	int journal; /* timeline --journal: journaled states as rows */
	/* timeline, not export: with --deleted, deleted inodes take the
	 * names left in slack or the journal (an export keeps "<INO>",
	 * which import never matches by path) */
	int deleted_names;
	int sort; /* --sort given */
	enum e4t_field sort_field;
	enum e4t_hash_alg hash; /* --hash, or E4T_HASH_NONE */
	/* --volume all: this run's volume, and whether it is the first
	 * (the header lines are written once) */
	const char *volume;
	int vol_first;
	int rule_flags; /* timeline --flags: the anomaly rules per row */
};

/*
 * Every name reachable from a->spec (with --deleted the inodes no name
 * reaches too), filtered and sorted, in a->fmt on standard output, with
 * diagnostics on standard error; returns the exit status.
 */
int timeline_run(const struct timeline_args *a);

/* The options timeline and export share: --deleted, --since, --until,
 * --field, --sort, --hash (getopt: "d"); --local and --threads are the
 * dispatcher's (CMD_LOCAL, CMD_TREE). */
#define TIMELINE_SHORTOPTS "d"
enum {
	OPT_SINCE = OPT_COMMON_LAST,
	OPT_UNTIL,
	OPT_FIELD,
	OPT_SORT,
	OPT_HASH,
	OPT_TIMELINE_LAST /* a command's own options start here */
};
#define TIMELINE_LONGOPTS                                                      \
	{ "deleted", no_argument, NULL, 'd' },                                 \
		{ "since", required_argument, NULL, OPT_SINCE },               \
		{ "until", required_argument, NULL, OPT_UNTIL },               \
		{ "field", required_argument, NULL, OPT_FIELD },               \
		{ "sort", required_argument, NULL, OPT_SORT },                 \
	{                                                                      \
		"hash", required_argument, NULL, OPT_HASH                      \
	}
/* Handle one of them into a; a usage error (as cmd) on anything else. */
void timeline_opt(const struct cmdinfo *cmd, int opt, const char *arg,
		  struct timeline_args *a);
/* The run of timeline and export: a from ctx and the FILESPEC, if any. */
int timeline_cmd_run(struct cmd_ctx *ctx, struct timeline_args *a, int argc,
		     char **argv);

#endif
