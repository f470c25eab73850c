/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c --- the timeline engine: every name reachable from / (or
 * from FILESPEC), filtered and sorted, in one of the output formats;
 * run by the timeline and export commands.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <uuid/uuid.h>

#include "timeline.h"

struct saved_row {
	char *path;
	size_t path_len;
	ext2_ino_t ino;
	enum e4t_status status;
	struct e4t_ts key;
	int key_shown;
	size_t seq;
};

struct tl_ctx {
	const struct timeline_args *a;
	const struct formatter *fmt;
	struct out out;
	int filter;
	enum e4t_field filter_field;
	int sort;
	enum e4t_field sort_field;
	struct saved_row *rows;
	size_t nrows, cap;
};

/* The first line of a manifest: what it is and where it came from. */
static void manifest_header(struct out *o, struct e4t_image *img)
{
	char uuid[40], now[E4T_ISO_BUFSZ];
	struct timespec ts;

	uuid_unparse(img->fs->super->s_uuid, uuid);
	clock_gettime(CLOCK_REALTIME, &ts);
	e4t_iso8601(ts.tv_sec, 0, 0, 'T', INT32_MIN, now, sizeof(now));
	lb_puts(&o->lb, "{\"e4time_manifest\":1,\"image\":\"");
	esc_json(&o->lb, img->name, strlen(img->name));
	lb_printf(&o->lb, "\",\"uuid\":\"%s\",\"exported\":\"%s\"}\n", uuid,
		  now);
}

static int keep_row(struct tl_ctx *c, const struct e4t_row *row)
{
	const struct e4t_ts *ts;

	if (!c->filter)
		return 1;
	ts = &row->inode->ts[c->filter_field];
	if (!ts_shown(ts, c->filter_field))
		return 0;
	if (c->a->has_since && e4t_ts_cmp(ts, &c->a->since) < 0)
		return 0;
	if (c->a->has_until && e4t_ts_cmp(ts, &c->a->until) > 0)
		return 0;
	return 1;
}

static int save_row(struct tl_ctx *c, const struct e4t_row *row)
{
	struct saved_row *s;

	if (grow_array(&c->rows, &c->cap, c->nrows, sizeof(*c->rows)))
		return ENOMEM;
	s = &c->rows[c->nrows];
	s->path = dup_bytes(row->path, row->path_len);
	if (!s->path)
		return ENOMEM;
	s->path_len = row->path_len;
	s->ino = row->inode->ino;
	s->status = row->status;
	s->key = row->inode->ts[c->sort_field];
	s->key_shown = ts_shown(&s->key, c->sort_field);
	s->seq = c->nrows++;
	return 0;
}

static int on_row(const struct e4t_row *row, void *priv)
{
	struct tl_ctx *c = priv;

	if (!keep_row(c, row))
		return 0;
	if (c->sort)
		return save_row(c, row);
	c->fmt->row(&c->out, row);
	if (lb_maybe_flush(&c->out.lb, c->out.fp))
		return errno ? errno : EIO;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct saved_row *x = a, *y = b;

	if (x->key_shown != y->key_shown)
		return x->key_shown ? -1 : 1;
	if (x->key_shown) {
		int r = e4t_ts_cmp(&x->key, &y->key);

		if (r)
			return r;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static errcode_t flush_sorted(struct tl_ctx *c, struct e4t_tree *tree)
{
	errcode_t err = 0;
	size_t i;

	if (c->nrows) /* rows is NULL then: qsort must not see it */
		qsort(c->rows, c->nrows, sizeof(*c->rows), cmp_rows);
	for (i = 0; i < c->nrows; i++) {
		struct saved_row *s = &c->rows[i];
		struct e4t_inode info;
		struct e4t_row row;

		if (!err)
			err = e4t_tree_inode(tree, s->ino, &info);
		if (!err) {
			row.path = s->path;
			row.path_len = s->path_len;
			row.inode = &info;
			row.status = s->status;
			c->fmt->row(&c->out, &row);
			if (lb_maybe_flush(&c->out.lb, c->out.fp))
				err = errno ? errno : EIO;
		}
		free(s->path);
	}
	free(c->rows);
	c->rows = NULL;
	return err;
}

int timeline_run(const struct timeline_args *a)
{
	struct tl_ctx c = {
		.a = a,
		.fmt = a->fmt,
		.filter = a->filter,
		.filter_field = a->filter_field,
		.sort = a->sort,
		.sort_field = a->sort_field,
	};
	struct warn_ctx wc = { 0 };
	struct e4t_tree_opts topts = {
		.flags = a->flags,
		.threads = a->threads,
		.warn = lib_warn,
		.progress = progress_cb,
		.priv = &wc,
	};
	struct e4t_image *img = a->img;
	struct e4t_tree *tree = NULL;
	const char *spec = a->spec ? a->spec : "/";
	static char obuf[1 << 16];
	ext2_ino_t start = EXT2_ROOT_INO;
	errcode_t err;
	int status = EXIT_OK;

	wc.image = img->name;
	wc.quiet = a->quiet;
	c.out.fp = stdout;
	c.out.image = img->name;
	c.out.img = img;
	c.out.quiet = a->quiet;
	c.out.local = a->local;
	c.out.volume = a->volume;
	c.out.no_header = a->volume && !a->vol_first;
	if (!a->volume || a->vol_first) /* before any output only */
		setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	err = e4t_image_resolve(img, spec, &start);
	if (err) {
		report(img->name, spec, err);
		return EXIT_PARTIAL;
	}
	err = e4t_tree_load(img, &topts, &tree);
	progress_done();
	if (err) {
		report(img->name, "indexing the filesystem", err);
		status = err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE;
		goto out;
	}
	if (a->manifest && (!a->volume || a->vol_first))
		manifest_header(&c.out, img);
	c.fmt->begin(&c.out);
	err = e4t_tree_walk(tree, start, spec, on_row, &c);
	if (!err && c.sort)
		err = flush_sorted(&c, tree);
	if (err == E4T_ERR_NOT_IN_USE) {
		report(img->name, spec, err);
		status = EXIT_PARTIAL;
	} else if (err) {
		report(img->name, "writing the timeline", err);
		status = EXIT_INTERNAL;
	}
	c.fmt->end(&c.out); /* each volume's notes (mactime), or nothing */
	if (lb_flush(&c.out.lb, stdout) || fflush(stdout) || ferror(stdout)) {
		report(img->name, "standard output", errno ? errno : EIO);
		status = EXIT_INTERNAL;
	}
	if (status == EXIT_OK &&
	    (wc.count || c.out.read_errors || image_damage_status(img)))
		status = EXIT_PARTIAL;
out:
	lb_free(&c.out.lb);
	e4t_tree_free(tree);
	return status;
}
