/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * context.h --- the command context: what the dispatcher (context.c)
 * opened and parsed for a command, and the dispatcher itself.
 */
#ifndef E4TIME_CONTEXT_H
#define E4TIME_CONTEXT_H

#include "lib/e4time.h"
#include "cmdtab.h"
#include "diag.h"
#include "opts.h"

/*
 * What the dispatcher opened for a command, and the options it parsed
 * for it.  The command's own options live in its own file.
 */
struct cmd_ctx {
	const struct cmdinfo *cmd;
	struct common_opts co;	    /* CMD_IMAGE */
	struct e4t_refusal why;	    /* CMD_WRITE: why a write was refused */
	struct e4t_write_opts wo;   /* CMD_WRITE: -n, -z, --no-undo */
	const char *format_name;    /* CMD_FORMATS: -f NAME, or NULL */
	int format;		    /* ... as cmdinfo.formats allows: RF_* */
	int local;		    /* CMD_LOCAL */
	const char *jpath;	    /* CMD_JOURNAL: -j FILE, or NULL */
	unsigned jflags;	    /* CMD_JOURNAL: e4t_journal_load flags */
	struct e4t_tree_opts topts; /* CMD_TREE: threads; flags (deleted) */
	/* --threads as given (0 chooses, 1 to 64); topts.threads is at most
	 * 2, all that the commands but timeline and export use */
	int threads;
	struct e4t_image *img; /* CMD_IMAGE: open during run() */
	struct evidence *ev;   /* CMD_IMAGE: the container, volumes */
	int keep_ev;	       /* --volume all: ev outlives each volume's run */
	/* CMD_ALLVOL with --volume all: the volume run() reads now, and
	 * whether it is the first */
	const char *volume;
	int vol_first;
	struct e4t_journal *j; /* CMD_JOURNAL: once ctx_journal() loaded it */
	struct e4t_tree *tree; /* CMD_TREE: once ctx_tree() loaded it */
	struct warn_ctx wc;    /* the warning count: EXIT_PARTIAL */
	/* CMD_IMAGE: set by prepare() when this run reads no image (export
	 * --from-dir): run() gets all the arguments, nothing is opened */
	int no_image;
};

/* Run cmd with argv[0] its name; the exit status. */
int cmd_run(const struct cmdinfo *cmd, int argc, char **argv);
/* The journal (-j FILE, or the filesystem's), loaded once with
 * ctx->jflags; NULL when it cannot be read: said, and *status set. */
struct e4t_journal *ctx_journal(struct cmd_ctx *ctx, int *status);
/* The filesystem's tree, indexed once (progress shown); NULL when it
 * could not be: said, and *status set as index_error_status(). */
struct e4t_tree *ctx_tree(struct cmd_ctx *ctx, int *status);
/* The same for a command that only names inodes with it: NULL when it
 * cannot be loaded, nothing reported (the command goes on unnamed). */
struct e4t_tree *ctx_tree_names(struct cmd_ctx *ctx);

#endif /* E4TIME_CONTEXT_H */
