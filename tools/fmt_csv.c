/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_csv.c --- RFC 4180 CSV with a header line; times as ISO 8601 UTC
 * with 9 fraction digits, empty when not stored (or dtime not set).
 */
#include "config.h"

#include <unistd.h>

#include "output.h"

static void csv_begin(struct out *o)
{
	o->eol = isatty(fileno(o->fp)) ? "\n" : "\r\n";
	if (o->no_header)
		return;
	if (o->volume)
		lb_puts(&o->lb, "volume,");
	lb_puts(&o->lb, "path,ino,type,mode,uid,gid,size,links,atime,mtime,"
			"ctime,crtime,dtime,status");
	if (o->hash) {
		lb_putc(&o->lb, ',');
		lb_puts(&o->lb, e4t_hash_name(o->hash));
	}
	if (o->name_sources)
		lb_puts(&o->lb, ",name_source");
	if (o->journal_rows)
		lb_puts(&o->lb, ",source,tid,commit_time");
	if (o->generations)
		lb_puts(&o->lb, ",generation");
	if (o->flags_on)
		lb_puts(&o->lb, ",flags");
	if (o->encrypted_col)
		lb_puts(&o->lb, ",encrypted");
	lb_puts(&o->lb, o->eol);
}

static void csv_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	int f;

	if (o->volume) {
		esc_csv(b, o->volume, strlen(o->volume));
		lb_putc(b, ',');
	}
	esc_csv(b, row->path, row->path_len);
	lb_printf(b, ",%u,%s,%04o,%u,%u,%llu,%u", in->ino,
		  e4t_mode_type_name(in->mode), in->mode & 07777, in->uid,
		  in->gid, (unsigned long long)in->size, in->links);
	for (f = 0; f < E4T_NFIELDS; f++) {
		lb_putc(b, ',');
		if (ts_shown(&in->ts[f], f))
			lb_iso(b, &in->ts[f], 9);
	}
	lb_putc(b, ',');
	lb_puts(b, status_name(row->status));
	lb_hash_csv(o);
	if (o->name_sources) {
		lb_putc(b, ',');
		if (row->name_source)
			lb_puts(b, row->name_source);
	}
	if (o->journal_rows && !row->journal) {
		lb_puts(b, ",disk,,");
	} else if (o->journal_rows) {
		struct e4t_ts ts = { .sec = row->journal->commit_sec,
				     .nsec = row->journal->commit_nsec };

		lb_printf(b, ",%s,%u,", row_source(row->journal),
			  row->journal->tid);
		if (ts.sec)
			lb_iso(b, &ts, 9);
	}
	if (o->generations) {
		lb_putc(b, ',');
		if (in->flags & E4T_INO_GEN)
			lb_printf(b, "%u", in->generation);
	}
	if (o->flags_on) {
		unsigned i;

		lb_putc(b, ',');
		for (i = 0; i < o->nflags; i++) {
			if (i)
				lb_putc(b, ' ');
			lb_puts(b, o->flags[i]); /* rule ids: [a-z-] */
		}
	}
	if (o->encrypted_col)
		lb_puts(b, in->iflags & EXT4_ENCRYPT_FL ? ",true" : ",false");
	lb_puts(b, o->eol);
}

static void csv_end(struct out *o)
{
}

const struct formatter fmt_csv = {
	.name = "csv",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = csv_begin,
	.row = csv_row,
	.end = csv_end,
};
