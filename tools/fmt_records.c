/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_records.c --- timeline's jsonl and csv: one description of a row,
 * written by the record writer every command's jsonl and csv go through
 * (report.c).
 *
 * jsonl, one JSON object per row:
 *   {"path":"/a","ino":12,"type":"reg","mode":"0644","uid":0,"gid":0,
 *    "size":6,"links":1,"status":"live",
 *    "atime":{"sec":..,"nsec":..,"iso":"...Z"}, ..., "dtime":null}
 * A time is null when not stored (or, for dtime, not set).  sec is the
 * floor of the time, nsec the non-negative fraction.  A name that is not
 * valid UTF-8 keeps U+FFFD in "path", and "path_hex" holds its bytes.
 *
 * csv: RFC 4180 with a header line; times as ISO 8601 UTC with 9
 * fraction digits, empty when not stored (or dtime not set).  The
 * columns are the keys, in the order of the header; the keys only jsonl
 * has (inode_csum_bad) are left out.
 */
#include "config.h"

#include "output.h"

/* The csv columns, in order: those the options add only with them.
 * The keys of record_row() are these strings (the writer finds a
 * column by its key's address first). */
static void set_columns(struct out *o)
{
	static const char *const base[] = { "path", "ino", "type", "mode",
					    "uid",  "gid", "size", "links" };
	size_t n = 0, i;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		o->cols[n++] = base[i];
	for (i = 0; i < E4T_NFIELDS; i++)
		o->cols[n++] = e4t_field_name((enum e4t_field)i);
	o->cols[n++] = "status";
	if (o->hash)
		o->cols[n++] = e4t_hash_name(o->hash);
	if (o->name_sources)
		o->cols[n++] = "name_source";
	if (o->journal_rows) {
		o->cols[n++] = "source";
		o->cols[n++] = "tid";
		o->cols[n++] = "commit_time";
	}
	if (o->generations)
		o->cols[n++] = "generation";
	if (o->flags_on)
		o->cols[n++] = "flags";
	if (o->encrypted_col)
		o->cols[n++] = "encrypted";
	o->cols[n] = NULL;
	o->schema.row = "row";
	o->schema.cols = o->cols;
	o->schema.untyped = 1;
	o->schema.csv_bool_words = 1;
}

static void jsonl_begin(struct out *o)
{
	set_columns(o);
	out_records_open(o, RF_JSONL, o->volume);
}

static void csv_begin(struct out *o)
{
	set_columns(o);
	out_records_open(o, RF_CSV, o->volume);
}

static void record_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct report *r = &o->rep;
	int f, enc = !!(in->iflags & EXT4_ENCRYPT_FL);

	if (o->lb.failed) /* nothing more goes in (and no cells) */
		return;
	rec_begin_into(r, &o->lb, "row");
	rec_path(r, "path", row->path, row->path_len);
	rec_u64(r, "ino", in->ino);
	rec_cstr(r, "type", e4t_mode_type_name(in->mode));
	rec_octal(r, "mode", in->mode & 07777, 4);
	rec_u64(r, "uid", in->uid);
	rec_u64(r, "gid", in->gid);
	rec_u64(r, "size", in->size);
	rec_u64(r, "links", in->links);
	rec_cstr(r, "status", status_name(row->status));
	for (f = 0; f < E4T_NFIELDS; f++)
		rec_time(r, e4t_field_name(f),
			 ts_shown(&in->ts[f], f) ? &in->ts[f] : NULL);
	if (o->hash)
		rec_cstr(r, e4t_hash_name(o->hash), o->hash_hex);
	if (in->flags & E4T_INO_CSUM_BAD)
		rec_bool(r, "inode_csum_bad", 1);
	if (enc || (r->fmt == RF_CSV && o->encrypted_col)) /* fscrypt */
		rec_bool(r, "encrypted", enc);
	if (row->name_source)
		rec_cstr(r, "name_source", row->name_source);
	if (row->journal)
		rec_journal(r, row);
	else if (r->fmt == RF_CSV && o->journal_rows) /* the others say */
		rec_cstr(r, "source", "disk");
	if (o->generations && (in->flags & E4T_INO_GEN))
		rec_u64(r, "generation", in->generation);
	else if (o->generations)
		rec_null(r, "generation");
	if (o->flags_on) {
		unsigned i;

		rec_arr_begin(r, "flags");
		for (i = 0; i < o->nflags; i++)
			rec_cstr(r, NULL, o->flags[i]); /* rule ids: [a-z-] */
		rec_arr_end(r);
	}
	rec_end(r);
}

const struct formatter fmt_jsonl = {
	.name = "jsonl",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = jsonl_begin,
	.row = record_row,
	.end = out_records_end,
};

const struct formatter fmt_csv = {
	.name = "csv",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = csv_begin,
	.row = record_row,
	.end = out_records_end,
};
