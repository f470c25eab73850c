/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_timesketch_csv.c --- CSV that Timesketch imports as it is
 * (read_and_validate_csv: the columns message, datetime and
 * timestamp_desc), one row per time, as the timesketch format's JSON
 * lines: message, datetime (ISO 8601, microseconds, +00:00),
 * timestamp_desc, timestamp (integer microseconds), nanoseconds (the
 * whole fraction), field, path, path_hex (a name that is not UTF-8: its
 * bytes; U+FFFD in message and path), inode, file_type, status,
 * data_type, and volume with --volume all.  RFC 4180, CR LF.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "output.h"

static void tscsv_begin(struct out *o)
{
	o->eol = isatty(fileno(o->fp)) ? "\n" : "\r\n";
	if (o->no_header)
		return;
	lb_puts(&o->lb, "message,datetime,timestamp_desc,timestamp,nanoseconds,"
			"field,path,path_hex,inode,file_type,status,data_type");
	if (o->hash) {
		lb_putc(&o->lb, ',');
		lb_puts(&o->lb, e4t_hash_name(o->hash));
	}
	if (o->volume)
		lb_puts(&o->lb, ",volume");
	lb_puts(&o->lb, o->eol);
}

static void tscsv_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb, msg = { 0 }, path = { 0 };
	int f, utf8 = utf8_valid(row->path, row->path_len);

	utf8_lossy(&path, row->path, row->path_len);
	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &in->ts[f];
		char iso[E4T_ISO_BUFSZ];

		if (!ts_shown(ts, f))
			continue;
		msg.len = 0;
		if (o->volume) {
			lb_puts(&msg, o->volume);
			lb_putc(&msg, ':');
		}
		lb_write(&msg, path.p, path.len);
		journal_suffix(&msg, row); /* --journal: its rows told apart */
		lb_printf(&msg, "%s (%s)", status_suffix(row->status),
			  e4t_field_name(f));
		esc_csv(b, msg.p, msg.len);
		e4t_iso8601(ts->sec, ts->nsec, 6, 'T', 0, iso, sizeof(iso));
		lb_printf(b, ",%s,%s,%lld,%u,%s,", iso, timesketch_desc[f],
			  (long long)(ts->sec * 1000000LL + ts->nsec / 1000),
			  ts->nsec, e4t_field_name(f));
		esc_csv(b, path.p, path.len);
		lb_putc(b, ',');
		if (!utf8)
			esc_hex(b, row->path, row->path_len);
		lb_printf(b, ",%u,%s,%s,fs:ext4:inode", in->ino,
			  e4t_mode_type_name(in->mode),
			  status_name(row->status));
		lb_hash_csv(o);
		if (o->volume) {
			lb_putc(b, ',');
			esc_csv(b, o->volume, strlen(o->volume));
		}
		lb_puts(b, o->eol);
	}
	lb_free(&msg);
	lb_free(&path);
}

static void tscsv_end(struct out *o)
{
}

const struct formatter fmt_timesketch_csv = {
	.name = "timesketch-csv",
	.caps = FMT_HASH,
	.begin = tscsv_begin,
	.row = tscsv_row,
	.end = tscsv_end,
};
