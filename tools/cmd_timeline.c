/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_timeline.c --- e4time timeline: every name reachable from / (or
 * from FILESPEC), with all its times, in one of the output formats.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "cmd.h"
#include "output.h"

static void timeline_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s timeline [OPTIONS] IMAGE [FILESPEC]\n\n"
		"List every file reachable from / (or from FILESPEC, a path "
		"or <INODE>),\none row per name, with atime, mtime, ctime, "
		"crtime and dtime.\n\n"
		"Options:\n"
		"  -f, --format FMT     text (default on a terminal), bodyfile "
		"(default\n"
		"                       otherwise: extended bodyfile 3), "
		"mactime, jsonl,\n"
		"                       timesketch, csv\n"
		"  -d, --deleted        add inodes no name reaches (orphan) "
		"and "
		"deleted ones\n"
		"      --since TIME     only rows whose FIELD is at or after "
		"TIME\n"
		"      --until TIME     only rows whose FIELD is at or before "
		"TIME\n"
		"      --field FIELD    time for --since/--until: crtime "
		"(default), atime,\n"
		"                       mtime, ctime, dtime\n"
		"      --sort FIELD     sort rows by that time (absent times "
		"last)\n"
		"      --local          local time in the text format\n"
		"      --threads N      threads reading the inode table: 0 "
		"chooses (default),\n"
		"                       1 or 2\n"
		"  --offset BYTES, -o SECTORS, -q, -h    as for every "
		"command\n\n"
		"TIME: ISO 8601 (2009-02-13T23:31:30.5Z, +02:00 offsets), "
		"@EPOCH[.FRAC],\nor YYYYMMDD[HHMM[SS]] (UTC).\n",
		progname);
}

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
	const struct formatter *fmt;
	struct out out;
	int filter;
	int manifest; /* export: a manifest header line first */
	enum e4t_field filter_field;
	struct e4t_ts since, until;
	int has_since, has_until;
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
	if (c->has_since && e4t_ts_cmp(ts, &c->since) < 0)
		return 0;
	if (c->has_until && e4t_ts_cmp(ts, &c->until) > 0)
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

static void parse_time_opt(const char *arg, struct e4t_ts *ts, const char *opt)
{
	errcode_t err = e4t_time_parse(arg, &ts->sec, &ts->nsec);

	if (err)
		usage_error(&timeline_cmd, "%s '%s': %s", opt, arg,
			    error_message(err));
	ts->flags = E4T_TS_STORED;
}

static enum e4t_field parse_field_opt(const char *arg, const char *opt)
{
	int f = e4t_field_parse(arg);

	if (f < 0)
		usage_error(&timeline_cmd,
			    "%s '%s': use atime, mtime, ctime, crtime or dtime",
			    opt, arg);
	return (enum e4t_field)f;
}

/* "/a/b/" -> "/a/b"; "<12>" and "/" stay. */
static char *start_path(const char *spec)
{
	char *p = strdup(spec);
	size_t n;

	if (!p)
		return NULL;
	n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

enum {
	OPT_SINCE = OPT_COMMON_LAST,
	OPT_UNTIL,
	OPT_FIELD,
	OPT_SORT,
	OPT_LOCAL,
	OPT_THREADS,
	OPT_MANIFEST, /* hidden: e4time export */
};

static int timeline_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "deleted", no_argument, NULL, 'd' },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "field", required_argument, NULL, OPT_FIELD },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "local", no_argument, NULL, OPT_LOCAL },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "manifest-header", no_argument, NULL, OPT_MANIFEST },
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct tl_ctx c = { .filter_field = E4T_CRTIME };
	struct warn_ctx wc = { 0 };
	struct e4t_tree_opts topts = {
		.warn = lib_warn,
		.progress = progress_cb,
		.priv = &wc,
	};
	struct e4t_tree *tree = NULL;
	struct e4t_image *img;
	const char *fmt_name = NULL, *spec = "/";
	char *path = NULL;
	static char obuf[1 << 16];
	ext2_ino_t start = EXT2_ROOT_INO;
	errcode_t err;
	int opt, status = EXIT_OK;

	while ((opt = getopt_long(argc, argv, COMMON_SHORTOPTS "f:d", longopts,
				  NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &timeline_cmd))
			continue;
		switch (opt) {
		case 'f': fmt_name = optarg; break;
		case 'd': topts.flags |= E4T_TREE_DELETED; break;
		case OPT_MANIFEST: c.manifest = 1; break;
		case OPT_THREADS:
			if (strcmp(optarg, "0") && strcmp(optarg, "1") &&
			    strcmp(optarg, "2"))
				usage_error(&timeline_cmd,
					    "--threads '%s': use 0 (choose), 1 "
					    "or 2",
					    optarg);
			topts.threads = optarg[0] - '0';
			break;
		case OPT_SINCE:
			parse_time_opt(optarg, &c.since, "--since");
			c.has_since = c.filter = 1;
			break;
		case OPT_UNTIL:
			parse_time_opt(optarg, &c.until, "--until");
			c.has_until = c.filter = 1;
			break;
		case OPT_FIELD:
			c.filter_field = parse_field_opt(optarg, "--field");
			break;
		case OPT_SORT:
			c.sort_field = parse_field_opt(optarg, "--sort");
			c.sort = 1;
			break;
		case OPT_LOCAL: c.out.local = 1; break;
		default: usage_error(&timeline_cmd, "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage_error(&timeline_cmd, "need an image and at most one "
					   "FILESPEC");
	if (c.manifest)
		fmt_name =
			"jsonl"; /* export: a manifest is always JSON lines */
	if (!fmt_name)
		fmt_name = isatty(STDOUT_FILENO) ? "text" : "bodyfile";
	c.fmt = formatter_find(fmt_name);
	if (!c.fmt)
		usage_error(&timeline_cmd,
			    "unknown format '%s' (text, bodyfile, mactime, "
			    "jsonl, timesketch, csv)",
			    fmt_name);
	if (argc - optind == 2)
		spec = argv[optind + 1];

	img = open_image_or_exit(argv[optind], &co);
	wc.image = img->name;
	wc.quiet = co.quiet;
	c.out.fp = stdout;
	c.out.image = img->name;
	c.out.quiet = co.quiet;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	err = e4t_image_resolve(img, spec, &start);
	if (err) {
		report(img->name, spec, err);
		e4t_image_close(img);
		return EXIT_PARTIAL;
	}
	path = start_path(spec);
	err = path ? e4t_tree_load(img, &topts, &tree) : ENOMEM;
	progress_done();
	if (err) {
		report(img->name, "indexing the filesystem", err);
		status = err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE;
		goto out;
	}
	if (c.manifest)
		manifest_header(&c.out, img);
	c.fmt->begin(&c.out);
	err = e4t_tree_walk(tree, start, path, on_row, &c);
	if (!err && c.sort)
		err = flush_sorted(&c, tree);
	if (err == E4T_ERR_NOT_IN_USE) {
		report(img->name, spec, err);
		status = EXIT_PARTIAL;
	} else if (err) {
		report(img->name, "writing the timeline", err);
		status = EXIT_INTERNAL;
	}
	c.fmt->end(&c.out);
	if (lb_flush(&c.out.lb, stdout) || fflush(stdout) || ferror(stdout)) {
		report(img->name, "standard output", errno ? errno : EIO);
		status = EXIT_INTERNAL;
	}
	if (status == EXIT_OK && (wc.count || image_damage_status(img)))
		status = EXIT_PARTIAL;
out:
	lb_free(&c.out.lb);
	e4t_tree_free(tree);
	free(path);
	e4t_image_close(img);
	return status;
}

const struct cmdinfo timeline_cmd = {
	.name = "timeline",
	.func = timeline_main,
	.args = "[OPTIONS] IMAGE [FILESPEC]",
	.oneline = "list every file with its times (bodyfile, mactime, jsonl, "
		   "csv, ...)",
	.help = timeline_help,
};
