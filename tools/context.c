/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * context.c --- the life of a command, once for all of them: the options
 * every command of a kind takes, the number of arguments, the image
 * opened (read-only, or for writing with its undo file), the journal,
 * the tree, then the command's run(), then the undo file finished, the
 * output flushed and the exit status made from everything seen.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

#define MAX_LONGOPTS 64

int worse_status(int a, int b)
{
	/* 1 (partial) < 2 (usage) < 4 (image) < 8 (internal) < 16 */
	return a > b ? a : b;
}

static void add_opts(struct option *all, size_t *n, const struct option *o)
{
	for (; o && o->name; o++)
		if (*n < MAX_LONGOPTS - 1)
			all[(*n)++] = *o;
}

/* COMMON_SHORTOPTS after s, but the letters cmd has of its own (journal's
 * -b), with their ':'. */
static void add_common_shortopts(char *s, size_t len, const char *own)
{
	size_t n = strlen(s);
	const char *p;

	for (p = COMMON_SHORTOPTS; *p; p++) {
		int arg = p[1] == ':';

		if (!(own && strchr(own, *p)) && n + 2 < len) {
			s[n++] = *p;
			if (arg)
				s[n++] = ':';
		}
		p += arg;
	}
	s[n] = '\0';
}

/* The options of cmd: its own, then those its flags give it. */
static void build_opts(const struct cmdinfo *cmd, char *shortopts, size_t len,
		       struct option *longopts)
{
	static const struct option common[] = { COMMON_LONGOPTS,
						{ NULL, 0, NULL, 0 } };
	static const struct option write[] = { WRITE_LONGOPTS,
					       { NULL, 0, NULL, 0 } };
	static const struct option format[] = {
		{ "format", required_argument, NULL, 'f' }, { NULL, 0, NULL, 0 }
	};
	static const struct option journal[] = { { "journal", required_argument,
						   NULL, 'j' },
						 { NULL, 0, NULL, 0 } };
	static const struct option local[] = { { "local", no_argument, NULL,
						 OPT_CTX_LOCAL },
					       { NULL, 0, NULL, 0 } };
	static const struct option threads[] = { { "threads", required_argument,
						   NULL, OPT_CTX_THREADS },
						 { NULL, 0, NULL, 0 } };
	unsigned f = cmd->flags;
	size_t n = 0;

	snprintf(shortopts, len, "%s%s%s%s",
		 cmd->shortopts ? cmd->shortopts : "",
		 (f & CMD_JOURNAL) ? "j:" : "", (f & CMD_FORMATS) ? "f:" : "",
		 (f & CMD_WRITE) ? WRITE_SHORTOPTS : "");
	add_common_shortopts(shortopts, len, cmd->shortopts);
	add_opts(longopts, &n, cmd->longopts);
	if (f & CMD_JOURNAL)
		add_opts(longopts, &n, journal);
	if (f & CMD_FORMATS)
		add_opts(longopts, &n, format);
	if (f & CMD_LOCAL)
		add_opts(longopts, &n, local);
	if (f & CMD_TREE)
		add_opts(longopts, &n, threads);
	if (f & CMD_WRITE)
		add_opts(longopts, &n, write);
	add_opts(longopts, &n, common);
	memset(&longopts[n], 0, sizeof(longopts[n]));
}

static void parse_opts(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmdinfo *cmd = ctx->cmd;
	struct option longopts[MAX_LONGOPTS];
	char shortopts[64];
	int c;

	build_opts(cmd, shortopts, sizeof(shortopts), longopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (common_opt(c, optarg, &ctx->co, cmd))
			continue;
		if ((cmd->flags & CMD_WRITE) && write_opt(c, optarg, &ctx->wo))
			continue;
		switch (c) {
		case 'j':
			if (!(cmd->flags & CMD_JOURNAL))
				break;
			ctx->jpath = optarg;
			continue;
		case 'f':
			if (!(cmd->flags & CMD_FORMATS))
				break;
			ctx->format_name = optarg;
			continue;
		case OPT_CTX_LOCAL: ctx->local = 1; continue;
		case OPT_CTX_THREADS:
			ctx->threads = parse_threads(optarg, cmd);
			ctx->topts.threads =
				ctx->threads > 2 ? 2 : ctx->threads;
			continue;
		default: break;
		}
		if (!cmd->opt)
			usage_error(cmd, "unknown option");
		cmd->opt(ctx, c, optarg);
	}
	if (cmd->flags & CMD_WRITE)
		check_write_opts(&ctx->wo, cmd);
	if (cmd->formats && ctx->format_name)
		ctx->format = (int)report_format_parse(ctx->format_name,
						       cmd->formats, cmd);
}

/* Is the image opened through the write path (CMD_WRITE, and not a dry
 * run of a CMD_DRYREAD command)? */
static int writing(const struct cmd_ctx *ctx)
{
	unsigned f = ctx->cmd->flags;

	return (f & CMD_WRITE) && !((f & CMD_DRYREAD) && ctx->wo.dry_run);
}

/* Open the image as the flags say; EXIT_OK or the status said. */
static int open_image(struct cmd_ctx *ctx, const char *name)
{
	const struct e4t_view *view;
	uint64_t at;
	errcode_t err;
	int status;

	/* --volume all opened the container once, for every volume */
	status = ctx->keep_ev
			 ? evidence_use(ctx->ev, &ctx->co, &at, &view)
			 : evidence_open(name, &ctx->co, &ctx->ev, &at, &view);
	if (status)
		return status;
	/* A volume of a raw image is written where it lies (write.c);
	 * other containers are read only. */
	if (writing(ctx) && view && evidence_of(ctx->ev)->kind != E4T_C_RAW) {
		warnx_img(name, "refusing to write: %s: %s",
			  evidence_of(ctx->ev)->kind_name,
			  error_message(E4T_ERR_CONTAINER_READONLY));
		return cond_status(COND_EVIDENCE_WRITE);
	}
	if (writing(ctx) && evidence_one_leg(ctx->ev)) {
		warnx_img(name,
			  "refusing to write: %s: %s: a write to one leg "
			  "would leave the others different",
			  ctx->co.volume ? ctx->co.volume : "the volume",
			  evidence_one_leg(ctx->ev));
		return cond_status(COND_EVIDENCE_WRITE);
	}
	if (writing(ctx)) {
		ctx->wo.sb = ctx->co.sb; /* a backup's is refused */
		/* a dry run opens read-only, and checks what a write would */
		err = view ? e4t_image_open_write_view(name, view, at, &ctx->wo,
						       &ctx->img)
			   : e4t_image_open_write(name, at, &ctx->wo,
						  &ctx->img);
		if (err || !ctx->img)
			return open_write_status(name, &ctx->wo,
						 err ? err : ENOMEM);
	} else {
		ctx->img = open_image_status(name, &ctx->co, view, at, &status);
		if (!ctx->img)
			return status;
	}
	ctx->wc.image = ctx->img->name;
	ctx->wc.quiet = ctx->co.quiet;
	ctx->topts.warn = lib_warn;
	ctx->topts.progress = progress_cb;
	ctx->topts.priv = &ctx->wc;
	return EXIT_OK;
}

struct e4t_journal *ctx_journal(struct cmd_ctx *ctx, int *status)
{
	if (!ctx->j)
		ctx->j = open_journal_status(ctx->img, ctx->jpath, ctx->jflags,
					     &ctx->wc, status);
	return ctx->j;
}

struct e4t_tree *ctx_tree(struct cmd_ctx *ctx, int *status)
{
	errcode_t err;

	if (ctx->tree)
		return ctx->tree;
	err = e4t_tree_load(ctx->img, &ctx->topts, &ctx->tree);
	progress_done();
	if (err) {
		*status = index_error_status(ctx->img->name, err);
		e4t_tree_free(ctx->tree);
		ctx->tree = NULL;
	}
	return ctx->tree;
}

struct e4t_tree *ctx_tree_names(struct cmd_ctx *ctx)
{
	if (ctx->tree)
		return ctx->tree;
	if (e4t_tree_load(ctx->img, &ctx->topts, &ctx->tree)) {
		e4t_tree_free(ctx->tree);
		ctx->tree = NULL;
	}
	progress_done();
	return ctx->tree;
}

/* Close what was opened; the exit status from all that was seen. */
static int finish(struct cmd_ctx *ctx, int status)
{
	struct e4t_image *img = ctx->img;

	if (img && status != EXIT_INTERNAL && status != EXIT_REFUSED) {
		if (ctx->wc.count || image_damage_status(img) ||
		    evidence_hash_bad(ctx->ev))
			status = worse_status(status, EXIT_PARTIAL);
		if (ctx->j && e4t_journal_damaged(ctx->j))
			status = worse_status(status, EXIT_PARTIAL);
	}
	e4t_tree_free(ctx->tree);
	e4t_journal_close(ctx->j);
	if (img && (ctx->cmd->flags & CMD_WRITE) && !ctx->wo.dry_run) {
		status = finish_write(img, status); /* flushes stdout too */
	} else {
		if (img)
			e4t_image_close(img);
		status = finish_stdout(status);
	}
	if (!ctx->keep_ev) /* the image read its views: closed after it */
		evidence_close(ctx->ev);
	return status;
}

static int cmd_ctx_run(struct cmd_ctx *ctx, int n, char **argv)
{
	return finish(ctx, ctx->cmd->run(ctx, n, argv));
}

/* --volume all: run() on each ext2/3/4 volume in turn, as if each had
 * been named; the worst status of them all. */
static int run_all_volumes(struct cmd_ctx *ctx, int n, char **argv)
{
	const struct e4t_volumes *vs;
	struct evidence *ev;
	int status, worst = EXIT_OK, first = 1;
	unsigned i;

	ev = evidence_container(argv[0], ctx->co.quiet, &status);
	if (!ev)
		return finish_stdout(status);
	if (ctx->co.verify)
		evidence_verify(ev, ctx->co.quiet);
	status = evidence_scan(ev);
	if (status) {
		evidence_close(ev);
		return finish_stdout(status);
	}
	vs = evidence_volumes(ev);
	ctx->ev = ev;
	ctx->keep_ev = 1;
	for (i = 0; i < vs->n; i++) {
		char spec[16];

		if (!e4t_vol_is_ext(&vs->v[i]))
			continue;
		snprintf(spec, sizeof(spec), "%u", vs->v[i].index);
		ctx->co.volume = spec;
		ctx->volume = vs->v[i].name;
		ctx->vol_first = first;
		ctx->wc.count = 0;
		status = open_image(ctx, argv[0]);
		if (status == EXIT_OK) {
			first = 0;
			status = cmd_ctx_run(ctx, n - 1, argv + 1);
		} else {
			status = finish(ctx, status);
		}
		ctx->img = NULL;
		ctx->tree = NULL;
		ctx->j = NULL;
		worst = worse_status(worst, status);
	}
	ctx->co.volume = "all";
	if (first) { /* no ext2/3/4 volume */
		warnx_img(argv[0], "%s", error_message(E4T_ERR_NO_EXT_VOLUME));
		worst = cond_status(COND_NOT_EXT);
	}
	ctx->ev = NULL;
	ctx->keep_ev = 0;
	evidence_close(ev);
	return worst;
}

int cmd_run(const struct cmdinfo *cmd, int argc, char **argv)
{
	struct cmd_ctx ctx;
	int n, status = EXIT_OK;

	memset(&ctx, 0, sizeof(ctx));
	cmd_set_running(cmd);
	ctx.cmd = cmd;
	ctx.wo.why = &ctx.why;
	parse_opts(&ctx, argc, argv);
	n = argc - optind;
	if (n < cmd->argmin || (cmd->argmax >= 0 && n > cmd->argmax))
		usage_error(cmd, "%s", cmd->argerr);
	argv += optind;
	if (!(cmd->flags & CMD_IMAGE) &&
	    (ctx.co.sb.block || ctx.co.sb.blocksize))
		usage_error(cmd,
			    "-b, -B: %s reads no ext2/ext3/ext4 "
			    "superblock",
			    cmd->name);
	if (cmd->prepare)
		status = cmd->prepare(&ctx, n, argv);
	if (status == EXIT_OK && (cmd->flags & CMD_IMAGE) && !ctx.no_image &&
	    ctx.co.volume && !strcmp(ctx.co.volume, "all")) {
		if (!(cmd->flags & CMD_ALLVOL))
			usage_error(cmd,
				    "--volume all: only timeline and export "
				    "read every volume");
		status = run_all_volumes(&ctx, n, argv);
	} else {
		/* a signal stops a writer between two writes (cmd.h) */
		if (cmd->flags & CMD_WRITE)
			catch_stop_signals(NULL);
		if (status == EXIT_OK && (cmd->flags & CMD_IMAGE) &&
		    !ctx.no_image) {
			status = open_image(&ctx, argv[0]);
			argv++;
			n--;
		}
		if (status == EXIT_OK)
			status = finish(&ctx, cmd->run(&ctx, n, argv));
		else
			status = finish(&ctx, status);
	}
	if (cmd->done)
		cmd->done(&ctx);
	if (stop_signal) {
		/* stopped cleanly: now die of it, as without the handler */
		fflush(NULL);
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return cmd_exit_status(status);
}
