/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_history.c --- e4time history: every copy of one inode in the
 * journal and on disk, with its times to the nanosecond and what changed
 * from the copy before.  A crtime that changes is called out: the
 * kernel never does that to a live inode.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "report.h"

#define HISTORY_FORMATS (RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV))

static void history_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s history [OPTIONS] IMAGE FILESPEC\n\n"
		"Every copy of the inode found in the journal (live and "
		"stale transactions,\nfast commits), then the copy on disk, "
		"oldest first, each with its five\ntimes and the fields that "
		"changed from the copy before.  FILESPEC is an\nabsolute "
		"path or <INODE>.\n\n"
		"Options:\n"
		"  -j, --journal FILE     external journal device or image\n"
		"  -a, --all              also list copies that did not "
		"change\n"
		"  -f, --format FMT       text (default), jsonl or csv "
		"(copies)\n"
		"      --local            local time instead of UTC "
		"(text)\n" COMMON_HELP,
		progname);
}

struct hctx {
	unsigned inode_size;
	int all, local;
	unsigned long copies, crtime_changes;
	struct report rep; /* jsonl, csv */
	ext2_ino_t ino;
	char *path; /* the heading's name, or NULL */
};

static const char *const history_cols[] = {
	"ino",	  "path",   "source", "tid",   "state",		 "commit_time",
	"change", "groups", "links",  "mode",  "size",		 "atime",
	"mtime",  "ctime",  "crtime", "dtime", "crtime_changed", NULL,
};
static const struct rec_schema history_schema = {
	.row = "copy",
	.cols = history_cols,
};

static void rec_hpath(struct hctx *h)
{
	if (h->path)
		rec_path(&h->rep, "path", h->path, strlen(h->path));
	else
		rec_null(&h->rep, "path");
}

/* A copy as a record: jsonl or csv. */
static void rec_copy(struct hctx *h, const struct e4t_icopy *c,
		     const struct e4t_inode *in, int crtime_flag)
{
	struct report *r = &h->rep;
	int f;

	rec_begin(r, "copy");
	rec_u64(r, "ino", h->ino);
	rec_hpath(h);
	if (c->src == E4T_SRC_DISK) {
		rec_cstr(r, "source", "disk");
		rec_null(r, "tid");
		rec_null(r, "state");
		rec_null(r, "commit_time");
	} else {
		struct e4t_ts ts = { c->t->commit_sec, c->t->commit_nsec,
				     E4T_TS_STORED | E4T_TS_EXTRA };
		int timed = (c->t->flags & E4T_JT_COMMITTED) &&
			    !(c->t->flags & E4T_JT_FAST_COMMIT);

		rec_cstr(r, "source",
			 c->src == E4T_SRC_FAST_COMMIT ? "fast_commit"
						       : "journal");
		rec_u64(r, "tid", c->t->tid);
		rec_cstr(r, "state",
			 (c->t->flags & E4T_JT_LIVE) ? "live" : "stale");
		rec_iso(r, "commit_time", timed ? &ts : NULL);
	}
	rec_cstr(r, "change",
		 c->baseline ? "first"
		 : c->same   ? "unchanged"
			     : e4t_change_name(c->change));
	rec_arr_begin(r, "groups");
	if (!c->baseline && !c->same) {
		int g;

		for (g = 0; g < E4T_NIGROUPS; g++)
			if (c->what & (1U << g))
				rec_cstr(r, NULL,
					 e4t_igroup_name((enum e4t_igroup)g));
	}
	rec_arr_end(r);
	rec_u64(r, "links", in->links);
	rec_octal(r, "mode", in->mode, 6);
	rec_u64(r, "size", in->size);
	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &in->ts[f];
		int shown = (ts->flags & E4T_TS_STORED) &&
			    !(f == E4T_DTIME && (ts->flags & E4T_TS_ZERO));

		rec_time(r, e4t_field_name((enum e4t_field)f),
			 shown ? ts : NULL);
	}
	rec_bool(r, "crtime_changed", crtime_flag);
	rec_end(r);
}

/*
 * Text: the class of a change in words that name no field (the class
 * "mtime" covers size and block changes where mtime stayed), then
 * exactly the byte groups that differ, each named for what it holds.
 */
static const char *const class_words[E4T_NCHANGES] = {
	"created",	   "deleted",	 "crtime rewritten",   "data change",
	"metadata change", "atime only", "other bytes change",
};
static const char *const group_words[E4T_NIGROUPS] = {
	"atime",       "mtime",		"ctime",     "crtime",
	"dtime",       "size/i_blocks", "block map", "mode/owner/links/flags",
	"xattrs",      "checksum",	"i_version", "generation",
	"other bytes",
};

static void print_change(const struct e4t_icopy *c)
{
	int g, n = 0;

	printf(": %s; changed: ", (unsigned)c->change < E4T_NCHANGES
					  ? class_words[c->change]
					  : "?");
	for (g = 0; g < E4T_NIGROUPS; g++)
		if (c->what & (1U << g))
			printf("%s%s", n++ ? ", " : "", group_words[g]);
	if (!n)
		printf("nothing named");
	putchar('\n');
}

static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct hctx *h = priv;
	struct e4t_inode in;
	char when[E4T_ISO_BUFSZ];
	int f;

	if (!c->baseline && c->same && !h->all && c->src != E4T_SRC_DISK)
		return 0;
	h->copies++;
	e4t_inode_decode_disk(c->raw, h->inode_size, h->inode_size, c->ino,
			      &in);
	if (h->rep.fmt != RF_TEXT) {
		int flag = c->crtime_changed && !c->baseline &&
			   c->change != E4T_CH_CREATED &&
			   (in.ts[E4T_CRTIME].flags & E4T_TS_STORED);

		if (flag)
			h->crtime_changes++;
		rec_copy(h, c, &in, flag);
		return 0;
	}
	if (c->src == E4T_SRC_DISK) {
		printf("on disk (home block)");
	} else {
		when[0] = 0;
		if ((c->t->flags & E4T_JT_COMMITTED) &&
		    !(c->t->flags & E4T_JT_FAST_COMMIT)) {
			struct e4t_ts ts = { c->t->commit_sec,
					     c->t->commit_nsec,
					     E4T_TS_STORED | E4T_TS_EXTRA };

			fmt_time(&ts, h->local, 'T', when, sizeof(when));
		}
		/* fast commits carry no commit time */
		printf("tid %u %s%s%s%s", c->t->tid,
		       (c->t->flags & E4T_JT_LIVE) ? "live" : "stale",
		       c->src == E4T_SRC_FAST_COMMIT ? " fast commit" : "",
		       when[0] ? ", committed " : "", when);
	}
	if (c->baseline)
		printf(": first copy\n");
	else if (c->same)
		printf(": unchanged\n");
	else
		print_change(c);
	printf("  links %u, mode %06o, size %llu\n", in.links, in.mode,
	       (unsigned long long)in.size);
	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &in.ts[f];

		if (!(ts->flags & E4T_TS_STORED))
			continue;
		if (f == E4T_DTIME && (ts->flags & E4T_TS_ZERO))
			continue;
		fmt_time(ts, h->local, 'T', when, sizeof(when));
		printf("  %-7s %s", e4t_field_name((enum e4t_field)f), when);
		if (f == E4T_CRTIME && c->crtime_changed && !c->baseline &&
		    c->change != E4T_CH_CREATED) {
			printf("  <-- CRTIME CHANGED (the kernel never "
			       "changes a live inode's crtime)");
			h->crtime_changes++;
		}
		putchar('\n');
	}
	return 0;
}

struct name_ctx {
	ext2_ino_t ino;
	char *path;
};

static int find_name(const struct e4t_row *row, void *priv)
{
	struct name_ctx *nc = priv;

	if (row->inode->ino != nc->ino)
		return 0;
	nc->path = dup_bytes(row->path, row->path_len);
	return 1; /* the first name is enough */
}

/* "History of <INO> PATH": for an <INO> spec, its first name in the
 * tree; jsonl: a "heading" record (ino, path). */
static void print_heading(struct cmd_ctx *ctx, ext2_ino_t ino, const char *spec,
			  struct hctx *h)
{
	struct name_ctx nc = { ino, NULL };
	char *p;

	if (spec[0] == '<') {
		struct e4t_tree *tree = ctx_tree_names(ctx);

		if (tree)
			e4t_tree_walk(tree, EXT2_ROOT_INO, "/", find_name, &nc);
		spec = nc.path;
	}
	h->ino = ino;
	h->path = spec ? strdup(spec) : NULL;
	if (h->rep.fmt != RF_TEXT) {
		rec_begin(&h->rep, "heading");
		rec_u64(&h->rep, "ino", ino);
		rec_hpath(h);
		rec_end(&h->rep);
		free(nc.path);
		return;
	}
	p = spec ? escape_text(spec, strlen(spec)) : NULL;
	printf("History of <%u> %s\n", ino, p ? p : "(no name)");
	free(p);
	free(nc.path);
}

/* After the copies: the crtime note (text), a "summary" record. */
static void print_summary(struct hctx *h)
{
	if (h->rep.fmt != RF_TEXT) {
		rec_begin(&h->rep, "summary");
		rec_u64(&h->rep, "ino", h->ino);
		rec_u64(&h->rep, "copies", h->copies);
		rec_u64(&h->rep, "crtime_changes", h->crtime_changes);
		rec_end(&h->rep);
	} else if (h->crtime_changes) {
		printf("\n%lu copies show a changed crtime: the time was set "
		       "by something other than the kernel\n",
		       h->crtime_changes);
	}
	report_finish(&h->rep);
	free(h->path);
	h->path = NULL;
}

static const struct option history_longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ NULL, 0, NULL, 0 },
};
static struct hctx hist;

static void history_opt(struct cmd_ctx *ctx, int c, const char *arg)
{
	(void)ctx;
	(void)arg;
	if (c != 'a')
		usage_error(&history_cmd, "unknown option");
	hist.all = 1;
}

static int history_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_image *img = ctx->img;
	struct e4t_journal *j;
	ext2_ino_t ino;
	errcode_t err;
	int status = EXIT_OK;

	(void)argc;
	err = e4t_image_resolve(img, argv[0], &ino);
	if (err) {
		report(img->name, argv[0], err);
		return filespec_status(err);
	}
	ctx->jflags = E4T_J_STALE;
	j = ctx_journal(ctx, &status);
	if (!j)
		return status;
	hist.local = ctx->local;
	hist.inode_size = img->inode_size;
	report_init(&hist.rep, (enum report_format)ctx->format, stdout,
		    &history_schema);
	print_heading(ctx, ino, argv[0], &hist);
	err = e4t_inode_history(img, j, ino, on_copy, &hist);
	if (err)
		report(img->name, argv[0], err);
	print_summary(&hist);
	return err ? cond_status(COND_DAMAGE) : EXIT_OK;
}

const struct cmdinfo history_cmd = {
	.name = "history",
	.args = "IMAGE FILESPEC",
	.oneline = "every copy of one inode in the journal and on disk",
	.flags = CMD_IMAGE | CMD_JOURNAL | CMD_FORMATS | CMD_LOCAL,
	.formats = HISTORY_FORMATS,
	.argmin = 2,
	.argmax = 2,
	.argerr = "give IMAGE and one FILESPEC",
	.shortopts = "a",
	.longopts = history_longopts,
	.opt = history_opt,
	.run = history_run,
	.help = history_help,
};
