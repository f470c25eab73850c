/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_bodyfile.c --- "extended bodyfile 3" (dfImageTools, read by plaso):
 *   # extended bodyfile 3 format
 *   0|/path|ino|-rw-r--r--|uid|gid|size|atime|mtime|ctime|crtime
 * Times are exact signed decimal seconds with 9 fraction digits; a time
 * not stored is an empty field, or 0 for crtime, the last (see below).
 * Names as plaso decodes them (esc_bodyfile()); a symlink's name is
 * followed by " -> TARGET".
 */
#include "config.h"

#include <string.h>

#include "output.h"

static void body_begin(struct out *o)
{
	if (!o->no_header)
		lb_puts(&o->lb, "# extended bodyfile 3 format\n");
}

static void body_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	char mode[11];
	int i;

	mode_string(in->mode, mode);
	lb_body_md5(o);
	if (o->volume) {
		esc_bodyfile(b, o->volume, strlen(o->volume));
		lb_putc(b, ':');
	}
	lb_path(b, row->path, row->path_len, esc_bodyfile);
	lb_body_middle(o, row, mode, esc_bodyfile);
	/* The four times are often equal: format each distinct one once. */
	const struct e4t_ts *prev = NULL;
	size_t prev_at = 0, prev_len = 0;

	for (i = 0; i < 4; i++) {
		const struct e4t_ts *ts = &in->ts[body_fields[i]];

		lb_putc(b, '|');
		if (!ts_shown(ts, body_fields[i])) {
			/* The last field, crtime, as 0 (the bodyfile's "no
			 * time"): plaso reads it with its line end, and an
			 * empty one on the first row makes it refuse the
			 * file. */
			if (i == 3)
				lb_putc(b, '0');
			continue;
		}
		if (prev && e4t_ts_cmp(ts, prev) == 0) {
			/* none: the buffer failed (out of memory) */
			if (prev_len) {
				char copy[32];

				memcpy(copy, b->p + prev_at, prev_len);
				lb_write(b, copy, prev_len);
			}
			continue;
		}
		prev = ts;
		prev_at = b->len;
		lb_decimal_time(b, ts);
		prev_len = b->len - prev_at;
	}
	lb_putc(b, '\n');
}

static void body_end(struct out *o)
{
}

const struct formatter fmt_bodyfile = {
	.name = "bodyfile",
	.caps = FMT_HASH_MD5,
	.begin = body_begin,
	.row = body_row,
	.end = body_end,
};
