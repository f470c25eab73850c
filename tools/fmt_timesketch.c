/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_timesketch.c --- JSON lines that Timesketch imports: one line per
 * timestamp, with message, datetime (ISO 8601, microseconds, +00:00),
 * timestamp_desc and timestamp (integer microseconds); the full
 * nanosecond fraction travels in "nanoseconds".
 */
#include "config.h"

#include "output.h"

const char *const timesketch_desc[E4T_NFIELDS] = {
	[E4T_ATIME] = "Last Access Time",
	[E4T_MTIME] = "Content Modification Time",
	[E4T_CTIME] = "Metadata Modification Time",
	[E4T_CRTIME] = "Creation Time",
	[E4T_DTIME] = "Deletion Time",
};

static void ts_begin(struct out *o)
{
}

static void ts_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	int f, utf8 = utf8_valid(row->path, row->path_len);

	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &in->ts[f];
		char iso[E4T_ISO_BUFSZ];

		if (!ts_shown(ts, f))
			continue;
		e4t_iso8601(ts->sec, ts->nsec, 6, 'T', 0, iso, sizeof(iso));
		lb_puts(b, "{\"message\":\"");
		if (o->volume) {
			esc_json(b, o->volume, strlen(o->volume));
			lb_putc(b, ':');
		}
		esc_json(b, row->path, row->path_len);
		journal_suffix(b, row);
		lb_printf(b, "%s (%s)\",\"datetime\":\"%s\"",
			  status_suffix(row->status), e4t_field_name(f), iso);
		lb_printf(b,
			  ",\"timestamp_desc\":\"%s\",\"timestamp\":%lld"
			  ",\"nanoseconds\":%u,\"field\":\"%s\",\"path\":\"",
			  timesketch_desc[f],
			  (long long)(ts->sec * 1000000LL + ts->nsec / 1000),
			  ts->nsec, e4t_field_name(f));
		esc_json(b, row->path, row->path_len);
		lb_putc(b, '"');
		if (o->volume) {
			lb_puts(b, ",\"volume\":\"");
			esc_json(b, o->volume, strlen(o->volume));
			lb_putc(b, '"');
		}
		if (!utf8) {
			lb_puts(b, ",\"path_hex\":\"");
			esc_hex(b, row->path, row->path_len);
			lb_putc(b, '"');
		}
		if (row->name_source)
			lb_printf(b, ",\"name_source\":\"%s\"",
				  row->name_source);
		lb_journal_json(b, row);
		lb_printf(b,
			  ",\"inode\":%u,\"file_type\":\"%s\",\"status\":"
			  "\"%s\"",
			  in->ino, e4t_mode_type_name(in->mode),
			  status_name(row->status));
		lb_hash_json(o);
		lb_puts(b, ",\"data_type\":\"fs:ext4:inode\"");
		lb_flags_json(b, o, "tag");
		lb_puts(b, "}\n");
	}
}

static void ts_end(struct out *o)
{
}

const struct formatter fmt_timesketch = {
	.name = "timesketch",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = ts_begin,
	.row = ts_row,
	.end = ts_end,
};
