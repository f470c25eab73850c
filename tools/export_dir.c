/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export_dir.c --- e4time export --from-dir DIR: the manifest of a
 * mounted tree of any filesystem (lib/dirsrc/dirwalk.c walks it), in the
 * format export writes for images, so that import takes either: a header
 * line, then per name the keys of `timeline --format jsonl` (path,
 * path_hex, type, mode, uid, gid, size, links, status, the times) but
 * "ino", which would name an inode of another filesystem: "src_ino"
 * holds it, and "crtime_from" says where the crtime came from.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "export_dir.h"
#include "output.h"

struct xd {
	const char *dir;
	int started; /* the header is out */
	struct lbuf lb;
	struct report rep; /* the rows, written into lb */
	int quiet;
	unsigned long shown; /* errors named on stderr */
};

static const char *const from_names[] = {
	[E4T_DW_STATX] = "statx",
	[E4T_DW_SOURCE] = "source",
	[E4T_DW_NTFS] = "ntfs_crtime",
	[E4T_DW_NONE] = "none",
};

static const struct rec_schema row_schema = { .untyped = 1 };

static int on_row(const struct e4t_dir_row *r, void *priv)
{
	struct xd *x = priv;
	struct report *rep = &x->rep;
	int f;

	/* the first line, before the first row: nothing when DIR cannot
	 * be opened */
	if (!x->started) {
		manifest_header(&x->lb, "dir", x->dir, NULL);
		x->started = 1;
	}
	rec_begin_into(rep, &x->lb, "row");
	rec_path(rep, "path", r->path, r->path_len);
	rec_u64(rep, "src_ino", r->ino);
	rec_cstr(rep, "type", e4t_mode_type_name((uint16_t)r->mode));
	rec_octal(rep, "mode", r->mode & 07777, 4);
	rec_u64(rep, "uid", r->uid);
	rec_u64(rep, "gid", r->gid);
	rec_u64(rep, "size", r->size);
	rec_u64(rep, "links", r->nlink);
	rec_cstr(rep, "status", "live");
	for (f = 0; f < E4T_NFIELDS; f++)
		rec_time(rep, e4t_field_name(f),
			 r->ts[f].flags & E4T_TS_STORED ? &r->ts[f] : NULL);
	rec_cstr(rep, "crtime_from", from_names[r->crtime_from]);
	rec_end(rep);
	if (lb_maybe_flush(&x->lb, stdout))
		return errno ? errno : EIO;
	return 0;
}

static void on_error(const char *path, size_t len, errcode_t err, void *priv)
{
	struct xd *x = priv;
	char *name;

	if (x->quiet || x->shown++ >= 10)
		return;
	name = escape_text(path, len);
	fprintf(stderr, "%s: %s: %s: %s\n", progname, x->dir, name ? name : "?",
		error_message(err));
	free(name);
}

int export_dir_run(const char *dir, const char *crtime_from, int cross_mounts,
		   int quiet)
{
	struct e4t_dirwalk_opts o = { 0 };
	struct e4t_dirwalk_stats st;
	struct e4t_source *src = NULL;
	struct xd x = { 0 };
	errcode_t err;
	int status = EXIT_OK;

	if (crtime_from) {
		err = e4t_source_parse(crtime_from, &src);
		if (err == EINVAL)
			usage_error(&export_cmd, "--crtime-from '%s': %s",
				    crtime_from, e4t_source_spec_help());
		if (err) {
			report(dir, crtime_from, err);
			return EXIT_INTERNAL;
		}
	}
	x.dir = dir;
	x.quiet = quiet;
	(void)report_open(&x.rep, RF_JSONL, stdout, &row_schema, NULL);
	o.cross_mounts = cross_mounts;
	o.src = src;
	o.row = on_row;
	o.error = on_error;
	o.priv = &x;
	err = e4t_dirwalk(dir, &o, &st);
	if (lb_flush(&x.lb, stdout) && !err)
		err = errno ? errno : EIO;
	lb_free(&x.lb);
	report_finish(&x.rep);
	e4t_source_free(src);
	if (err == ENOMEM)
		return cond_status(COND_NOMEM);
	if (err && !st.names) {
		/* the directory itself: nothing was written */
		report(dir, NULL, err);
		return cond_status(COND_DIR);
	}
	if (err)
		return cond_status(COND_OUTPUT);
	if (!quiet && x.shown > 10)
		fprintf(stderr,
			"%s: %s: ... and %lu more that could not be "
			"read\n",
			progname, dir, x.shown - 10);
	if (!quiet)
		fprintf(stderr,
			"%s: %s: export: %lu names, %lu without a birth time, "
			"%lu times out of ext4's range, %lu on other "
			"filesystems skipped, %lu unreadable\n",
			progname, dir, st.names, st.no_crtime, st.out_of_range,
			st.other_fs, st.errors);
	if (st.errors)
		status = cond_status(COND_DIR_READ);
	return status;
}
