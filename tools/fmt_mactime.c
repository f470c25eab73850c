/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_mactime.c --- classic TSK 3.x bodyfile, as `fls -m` writes and
 * `mactime -b` reads: integer seconds, 0 for "no time", %XX escapes.
 * mactime drops lines with negative times, so a pre-1970 time is written
 * as 0 and counted; times >= 10^10 (after 2286) are kept but mactime
 * sorts them wrongly, so they are counted too.  Both are reported.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output.h"

#define MACTIME_SORT_LIMIT 10000000000LL

static void mac_begin(struct out *o)
{
}

/* TSK's "r/rrw-r--r--": type from the name, then type and permissions. */
static void tsk_mode(uint16_t mode, char out[13])
{
	char t = e4t_mode_type_char(mode);

	out[0] = t;
	out[1] = '/';
	mode_string(mode, out + 2);
	out[2] = t;
}

static void note_negative(struct out *o, const struct e4t_row *row,
			  enum e4t_field f)
{
	char *name;

	if (o->neg_times++ || o->quiet)
		return;
	name = escape_text(row->path, row->path_len);
	if (o->held) /* the first of its part: written if the first of all */
		held_text(o->held, HELD_FIRST_NEG,
			  "e4time: %s: %s: %s before 1970 written as 0 "
			  "(mactime cannot show it)",
			  o->image, name ? name : "?", e4t_field_name(f));
	else
		fprintf(stderr,
			"e4time: %s: %s: %s before 1970 written as 0 (mactime "
			"cannot show it)\n",
			o->image, name ? name : "?", e4t_field_name(f));
	free(name);
}

static void mac_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	char mode[13];
	int i;

	tsk_mode(in->mode, mode);
	if (row->status == E4T_DELETED_NOINODE)
		mode[2] = '-'; /* the entry's type, no inode's: as fls */
	lb_body_md5(o);
	if (o->volume) {
		esc_mactime(b, o->volume, strlen(o->volume));
		lb_putc(b, ':');
	}
	lb_path(b, row->path, row->path_len, esc_mactime);
	lb_body_middle(o, row, mode, esc_mactime);
	/* The four times are often equal: format each distinct one once. */
	int64_t prev = -1;
	char *d = lb_reserve(b, 4 * 21 + 1), *prev_at = NULL;
	size_t prev_len = 0;

	if (!d)
		return; /* out of memory: b failed */

	for (i = 0; i < 4; i++) {
		const struct e4t_ts *ts = &in->ts[body_fields[i]];
		int64_t sec = 0;

		if (ts_shown(ts, body_fields[i])) {
			sec = ts->sec;
			if (sec < 0) {
				note_negative(o, row, body_fields[i]);
				sec = 0;
			} else if (sec >= MACTIME_SORT_LIMIT) {
				o->big_times++;
			}
		}
		*d++ = '|';
		if (sec == prev) {
			memcpy(d, prev_at, prev_len);
			d += prev_len;
			continue;
		}
		prev = sec;
		prev_at = d;
		d = lb_put_u64(d, (uint64_t)sec);
		prev_len = (size_t)(d - prev_at);
	}
	*d++ = '\n';
	b->len = (size_t)(d - b->p);
}

static void mac_end(struct out *o)
{
	if (o->quiet)
		return;
	if (o->neg_times > 1)
		fprintf(stderr,
			"e4time: %s: %lu times before 1970 written as 0 "
			"(mactime cannot show them; use --format bodyfile)\n",
			o->image, o->neg_times);
	if (o->big_times)
		fprintf(stderr,
			"e4time: %s: %lu time%s after 2286 (>= 10^10 s), which "
			"mactime sorts wrongly\n",
			o->image, o->big_times, o->big_times == 1 ? "" : "s");
}

const struct formatter fmt_mactime = {
	.name = "mactime",
	.caps = FMT_HASH_MD5,
	.begin = mac_begin,
	.row = mac_row,
	.end = mac_end,
};
