/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_text.c --- aligned columns for people: crtime first, then mtime,
 * atime, ctime, inode, mode, size and the escaped path.  UTC unless
 * --local.  "-" marks a time the inode does not store.
 */
#include "config.h"

#include <string.h>

#include "output.h"

static const enum e4t_field text_fields[4] = { E4T_CRTIME, E4T_MTIME, E4T_ATIME,
					       E4T_CTIME };

static int time_width(const struct out *o)
{
	return o->local ? 35 : 29;
}

static void text_begin(struct out *o)
{
	int i, w = time_width(o);

	if (o->no_header)
		return;
	for (i = 0; i < 4; i++) {
		char head[40];

		snprintf(head, sizeof(head), "%s%s",
			 e4t_field_name(text_fields[i]),
			 (i == 0 && !o->local) ? " (UTC)" : "");
		lb_printf(&o->lb, "%-*s ", w, head);
	}
	lb_printf(&o->lb, "%10s %-10s %12s %s\n", "INODE", "MODE", "SIZE",
		  "PATH");
}

static void text_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	char mode[11];
	int i, w = time_width(o);

	for (i = 0; i < 4; i++) {
		const struct e4t_ts *ts = &in->ts[text_fields[i]];
		char buf[E4T_ISO_BUFSZ];

		if (!ts_shown(ts, text_fields[i])) {
			lb_printf(&o->lb, "%-*s ", w, "-");
			continue;
		}
		fmt_time(ts, o->local, ' ', buf, sizeof(buf));
		if (!o->local)
			buf[strlen(buf) - 1] = '\0'; /* drop the Z */
		lb_printf(&o->lb, "%-*s ", w, buf);
	}
	mode_string(in->mode, mode);
	lb_printf(&o->lb, "%10u %-10s %12llu ", in->ino, mode,
		  (unsigned long long)in->size);
	if (o->volume) {
		esc_text(&o->lb, o->volume, strlen(o->volume));
		lb_putc(&o->lb, ':');
	}
	lb_path(&o->lb, row->path, row->path_len, esc_text);
	journal_suffix(&o->lb, row);
	lb_puts(&o->lb, status_suffix(row->status));
	lb_putc(&o->lb, '\n');
}

static void text_end(struct out *o)
{
}

const struct formatter fmt_text = {
	.name = "text",
	.caps = 0,
	.begin = text_begin,
	.row = text_row,
	.end = text_end,
};
