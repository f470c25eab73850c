/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_backfill.c --- e4time backfill: set each inode's crtime from a
 * creation time that other software stored in an xattr (Samba/ksmbd
 * DOSATTRIB, netatalk, systemd, or a named xattr), under a policy.
 * The work is e4t_backfill_run()'s (lib/engine/backfill.c); here are the
 * options, the report (text, JSON lines or CSV) and the summary.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "output.h"
#include "report.h"

static void backfill_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s backfill [OPTIONS] IMAGE [FILESPEC] --from "
		"SOURCE\n\n"
		"Set the crtime of every file under / (or FILESPEC) from a "
		"creation time\nstored in an xattr, where the xattr holds a "
		"valid one.\n\n"
		"  -F, --from SOURCE      %s\n"
		"  -p, --policy POLICY    earlier (default: only where the "
		"source is earlier\n"
		"                         than the crtime), missing (only "
		"where crtime is 0),\n"
		"                         always\n"
		"  -f, --format FMT       text (default), jsonl or csv: one "
		"record per file\n"
		"      --threads N        threads: 0 chooses (default), 1 or "
		"2\n" WRITE_HELP "",
		progname, e4t_source_spec_help());
}

/* The report: text formatted into out, jsonl and csv records written
 * by rep (both to stdout, in the callback's order), and err (stderr,
 * the damage lines), written out at the end of each chunk. */
struct bf_ctx {
	struct e4t_image *img;
	struct e4t_source *src;
	enum report_format fmt;
	int dry_run, quiet;
	struct report rep;
	struct lbuf out, err;
};

/* jsonl: untyped, as the records always were */
static const char *const backfill_cols[] = {
	"path",	 "ino",	    "action", "reason",	     "detail", "source",
	"xattr", "version", "crtime", "source_time", NULL,
};
static const struct rec_schema backfill_schema = {
	.row = "file",
	.cols = backfill_cols,
	.untyped = 1,
};

static int record(const struct e4t_backfill_rec *r, void *priv)
{
	struct bf_ctx *c = priv;
	const struct e4t_ts *cur = &r->crtime;
	const struct e4t_ts *to = r->source_time.flags ? &r->source_time : NULL;
	const char *src = e4t_source_name(c->src);
	struct lbuf *b = &c->out;

	if (c->fmt != RF_TEXT) {
		struct report *rp = &c->rep;

		rec_begin(rp, "file");
		rec_path(rp, "path", r->path, r->path_len);
		rec_u64(rp, "ino", r->ino);
		rec_cstr(rp, "action",
			 r->reason == E4T_BF_CHANGED
				 ? (c->dry_run ? "would_change" : "changed")
				 : "skipped");
		if (r->reason != E4T_BF_CHANGED)
			rec_cstr(rp, "reason", e4t_bf_reason_name(r->reason));
		if (r->why)
			rec_cstr(rp, "detail", r->why);
		rec_cstr(rp, "source", src);
		if (r->xattr)
			rec_cstr(rp, "xattr", r->xattr);
		if (r->version)
			rec_i64(rp, "version", r->version);
		rec_time(rp, "crtime", cur->flags & E4T_TS_STORED ? cur : NULL);
		if (to)
			rec_time(rp, "source_time", to);
		rec_end(rp);
	} else if (r->reason == E4T_BF_CHANGED) {
		if (c->dry_run)
			lb_puts(b, "would set ");
		esc_text(b, r->path, r->path_len);
		lb_puts(b, " <");
		lb_u64(b, r->ino);
		lb_puts(b, ">: crtime ");
		lb_iso(b, cur, 9);
		lb_puts(b, " -> ");
		lb_iso(b, to, 9);
		lb_puts(b, " (");
		lb_puts(b, src);
		if (r->version) {
			lb_puts(b, " v");
			lb_u64(b, (uint64_t)r->version);
		}
		lb_puts(b, ")\n");
	}
	/* Damage is worth a line on stderr, whatever the format. */
	if ((r->reason == E4T_BF_INVALID || r->reason == E4T_BF_UNREADABLE) &&
	    !c->quiet) {
		char *name = escape_text(r->path, r->path_len);

		lb_printf(&c->err, "%s: %s: %s <%u>: %s%s%s: skipped\n",
			  progname, c->img->name, name ? name : "?", r->ino,
			  r->xattr ? r->xattr : "", r->xattr ? ": " : "",
			  r->why ? r->why : e4t_bf_reason_text(r->reason));
		free(name);
	}
	return 0;
}

/* A chunk's report: its lines on stdout, then its damage on stderr. */
static int chunk_done(void *priv)
{
	struct bf_ctx *c = priv;
	int err = 0;

	if (lb_flush(&c->out, stdout) || ferror(stdout))
		err = errno ? errno : EIO;
	if (c->err.len)
		fwrite(c->err.p, 1, c->err.len, stderr);
	c->err.len = 0;
	return err ? err : stop_requested();
}

/* The counts of the records printed; a failed write: the run stopped. */
static void summary(const struct bf_ctx *c, const struct e4t_backfill_stats *st)
{
	int r, first = 1;

	if (c->quiet)
		return;
	fprintf(stderr, "%s: %s: backfill from %s: %lu files scanned, %lu %s",
		progname, c->img->name, e4t_source_name(c->src), st->scanned,
		st->count[E4T_BF_CHANGED],
		c->dry_run ? "would change" : "changed");
	for (r = E4T_BF_CHANGED + 1; r < E4T_BF_NREASONS; r++) {
		if (!st->count[r])
			continue;
		fprintf(stderr, "%s%lu %s", first ? "; skipped: " : ", ",
			st->count[r], e4t_bf_reason_text(r));
		first = 0;
	}
	if (st->write_err)
		fprintf(stderr, "; stopped: %s", error_message(st->write_err));
	fputc('\n', stderr);
	if (!st->count[E4T_BF_TOO_SMALL])
		return;
	/* what would give those inodes a crtime */
	if (EXT2_INODE_SIZE(c->img->fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		fprintf(stderr, "%s: %s: %s\n", progname, c->img->name,
			error_message(E4T_ERR_NO_CRTIME_128));
	else
		fprintf(stderr,
			"%s: %s: %lu inodes too small for crtime "
			"(i_extra_isize below 24): e4time check -n %s lists "
			"them (T0003); e4time check -y --crtime-from %s %s "
			"grows them and sets crtime from the same source\n",
			progname, c->img->name, st->count[E4T_BF_TOO_SMALL],
			c->img->name, e4t_source_name(c->src), c->img->name);
}

static const struct option backfill_longopts[] = {
	{ "from", required_argument, NULL, 'F' },
	{ "policy", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

/* backfill's own options, and its output */
static const char *from;
static struct bf_ctx bf;
static struct e4t_backfill_opts bo = { .policy = E4T_POLICY_EARLIER,
				       .record = record,
				       .chunk_done = chunk_done,
				       .priv = &bf };

static void backfill_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	switch (opt) {
	case 'F': from = arg; break;
	case 'p': bo.policy = parse_policy(arg, &backfill_cmd); break;
	default: usage_error(&backfill_cmd, "unknown option");
	}
}

static int backfill_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	errcode_t err;

	(void)argc;
	if (!from)
		usage_error(&backfill_cmd, "--from SOURCE is required");
	bf.fmt = (enum report_format)ctx->format;
	err = e4t_source_parse(from, &bf.src);
	if (err == EINVAL)
		usage_error(&backfill_cmd, "--from '%s': %s", from,
			    e4t_source_spec_help());
	if (err) {
		report(argv[0], from, err);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

static int backfill_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_backfill_stats st = { 0 };
	const char *spec = argc ? argv[0] : "/";
	ext2_ino_t start = EXT2_ROOT_INO;
	errcode_t err;

	bf.img = ctx->img;
	bf.quiet = ctx->co.quiet;
	bo.src = bf.src;
	bo.threads = ctx->topts.threads;
	bo.dry_run = bf.dry_run = ctx->wo.dry_run;
	err = e4t_image_resolve(bf.img, spec, &start);
	if (!err) {
		int status = EXIT_OK;
		struct e4t_tree *tree = ctx_tree(ctx, &status);

		if (!tree)
			return status;
		if (bf.fmt != RF_TEXT)
			report_init(&bf.rep, bf.fmt, stdout, &backfill_schema);
		stop_armed = 1;
		err = e4t_backfill_run(bf.img, tree, start, spec, &bo, &st);
		if (bf.fmt != RF_TEXT && report_finish(&bf.rep) && !err &&
		    !st.write_err)
			err = errno ? errno : EIO;
	}
	lb_free(&bf.out);
	lb_free(&bf.err);
	if (err == EINTR && stop_signal) {
		fprintf(stderr,
			"%s: %s: stopped by a signal; the files printed "
			"above were written\n",
			progname, bf.img->name);
		err = 0;
	}
	if (st.write_err) {
		/* the files printed are those written: counted as such */
		int status =
			write_error_status(bf.img, "writing", st.write_err);

		summary(&bf, &st);
		return status;
	}
	if (err) {
		report(bf.img->name, spec, err);
		return run_error_status(err);
	}
	summary(&bf, &st);
	return st.count[E4T_BF_UNREADABLE] ? cond_status(COND_SOURCE) : EXIT_OK;
}

static void backfill_done(struct cmd_ctx *ctx)
{
	(void)ctx;
	e4t_source_free(bf.src);
}

const struct cmdinfo backfill_cmd = {
	.name = "backfill",
	.args = "[OPTIONS] IMAGE [FILESPEC] --from SOURCE",
	.oneline = "set crtime from Samba, netatalk, systemd or other xattrs",
	.flags = CMD_IMAGE | CMD_WRITE | CMD_TREE | CMD_FORMATS,
	.formats = RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV),
	.argmin = 1,
	.argmax = 2,
	.argerr = "need an image and at most one FILESPEC",
	.shortopts = "F:p:",
	.longopts = backfill_longopts,
	.opt = backfill_opt,
	.prepare = backfill_prepare,
	.run = backfill_run,
	.done = backfill_done,
	.help = backfill_help,
};
