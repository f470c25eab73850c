/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_timesketch.c --- what Timesketch imports, one event per time of a
 * row: JSON lines (timesketch) or CSV (timesketch-csv, the columns
 * read_and_validate_csv asks for first), one description written by the
 * record writer (report.c).
 *
 * An event: message, datetime (ISO 8601, microseconds, +00:00),
 * timestamp_desc, timestamp (integer microseconds), nanoseconds (the
 * whole fraction), field, path, path_hex (a name that is not UTF-8: its
 * bytes), inode, file_type, status, data_type, and the volume with
 * --volume all.  A name that is not UTF-8 keeps U+FFFD in message and
 * path.  Only the JSON lines carry name_source, the journal's source,
 * tid and commit_time, and --flags as "tag".  csv: RFC 4180, CR LF.
 */
#include "config.h"

#include <string.h>

#include "output.h"

const char *const timesketch_desc[E4T_NFIELDS] = {
	[E4T_ATIME] = "Last Access Time",
	[E4T_MTIME] = "Content Modification Time",
	[E4T_CTIME] = "Metadata Modification Time",
	[E4T_CRTIME] = "Creation Time",
	[E4T_DTIME] = "Deletion Time",
};

/* The csv columns; the volume goes last, as a column of its own. */
static void set_columns(struct out *o)
{
	static const char *const base[] = {
		"message",     "datetime",  "timestamp_desc", "timestamp",
		"nanoseconds", "field",	    "path",	      "path_hex",
		"inode",       "file_type", "status",	      "data_type"
	};
	size_t n = 0, i;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		o->cols[n++] = base[i];
	if (o->hash)
		o->cols[n++] = e4t_hash_name(o->hash);
	if (o->volume)
		o->cols[n++] = "volume";
	o->cols[n] = NULL;
	o->schema.row = "event";
	o->schema.cols = o->cols;
	o->schema.untyped = 1;
}

/* no volume of the writer's own: the event says it after the path */
static void json_begin(struct out *o)
{
	set_columns(o);
	out_records_open(o, RF_JSONL, NULL);
}

static void csv_begin(struct out *o)
{
	set_columns(o);
	out_records_open(o, RF_CSV, NULL);
}

/* One time of the row.  The path is as the row has it in JSON, where
 * esc_json shows a byte that is not UTF-8 as \ufffd, and with U+FFFD
 * put in (utf8_lossy) in csv. */
static void event(struct out *o, const struct e4t_row *row, int f,
		  const struct lbuf *path, struct lbuf *msg,
		  const struct lbuf *hex)
{
	const struct e4t_inode *in = row->inode;
	const struct e4t_ts *ts = &in->ts[f];
	struct report *r = &o->rep;
	char iso[E4T_ISO_BUFSZ];

	msg->len = 0;
	if (o->volume) {
		lb_puts(msg, o->volume);
		lb_putc(msg, ':');
	}
	lb_write(msg, path->p, path->len);
	journal_suffix(msg, row); /* --journal: its rows told apart */
	lb_puts(msg, status_suffix(row->status));
	lb_puts(msg, " (");
	lb_puts(msg, e4t_field_name(f));
	lb_putc(msg, ')');
	e4t_iso8601(ts->sec, ts->nsec, 6, 'T', 0, iso, sizeof(iso));
	rec_begin_into(r, &o->lb, "event");
	rec_str(r, "message", msg->p, msg->len);
	rec_cstr(r, "datetime", iso);
	rec_cstr(r, "timestamp_desc", timesketch_desc[f]);
	rec_i64(r, "timestamp", ts->sec * 1000000LL + ts->nsec / 1000);
	rec_u64(r, "nanoseconds", ts->nsec);
	rec_cstr(r, "field", e4t_field_name(f));
	rec_str(r, "path", path->p, path->len);
	if (o->volume)
		rec_cstr(r, "volume", o->volume);
	if (hex->len)
		rec_str(r, "path_hex", hex->p, hex->len);
	if (row->name_source)
		rec_cstr(r, "name_source", row->name_source);
	if (row->journal)
		rec_journal(r, row);
	rec_u64(r, "inode", in->ino);
	rec_cstr(r, "file_type", e4t_mode_type_name(in->mode));
	rec_cstr(r, "status", status_name(row->status));
	if (o->hash)
		rec_cstr(r, e4t_hash_name(o->hash), o->hash_hex);
	rec_cstr(r, "data_type", "fs:ext4:inode");
	if (o->flags_on) {
		unsigned i;

		rec_arr_begin(r, "tag");
		for (i = 0; i < o->nflags; i++)
			rec_cstr(r, NULL, o->flags[i]); /* rule ids: [a-z-] */
		rec_arr_end(r);
	}
	rec_end(r);
}

static void ts_row(struct out *o, const struct e4t_row *row)
{
	struct lbuf msg = { 0 }, lossy = { 0 }, hex = { 0 };
	struct lbuf path = { .p = (char *)row->path, .len = row->path_len };
	int f;

	if (o->lb.failed) /* nothing more goes in (and no cells) */
		return;
	if (!utf8_valid(row->path, row->path_len)) {
		esc_hex(&hex, row->path, row->path_len);
		if (o->rep.fmt == RF_CSV) {
			utf8_lossy(&lossy, row->path, row->path_len);
			path = lossy;
		}
	}
	for (f = 0; f < E4T_NFIELDS; f++)
		if (ts_shown(&row->inode->ts[f], f))
			event(o, row, f, &path, &msg, &hex);
	lb_free(&msg);
	lb_free(&lossy);
	lb_free(&hex);
}

const struct formatter fmt_timesketch = {
	.name = "timesketch",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = json_begin,
	.row = ts_row,
	.end = out_records_end,
};

const struct formatter fmt_timesketch_csv = {
	.name = "timesketch-csv",
	.caps = FMT_HASH,
	.begin = csv_begin,
	.row = ts_row,
	.end = out_records_end,
};
