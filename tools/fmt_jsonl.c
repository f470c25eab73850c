/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt_jsonl.c --- one JSON object per row:
 *   {"path":"/a","ino":12,"type":"reg","mode":"0644","uid":0,"gid":0,
 *    "size":6,"links":1,"status":"live",
 *    "atime":{"sec":..,"nsec":..,"iso":"...Z"}, ..., "dtime":null}
 * A time is null when not stored (or, for dtime, not set).  sec is the
 * floor of the time, nsec the non-negative fraction.  A name that is not
 * valid UTF-8 keeps U+FFFD in "path", and "path_hex" holds its bytes.
 */
#include "config.h"

#include "output.h"

static void json_begin(struct out *o)
{
}

static void json_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	int f;

	lb_putc(b, '{');
	if (o->volume) {
		lb_puts(b, "\"volume\":\"");
		esc_json(b, o->volume, strlen(o->volume));
		lb_puts(b, "\",");
	}
	esc_json_path(b, row->path, row->path_len);
	lb_printf(b,
		  ",\"ino\":%u,\"type\":\"%s\",\"mode\":\"%04o\",\"uid\":%u,"
		  "\"gid\":%u,\"size\":%llu,\"links\":%u,\"status\":\"%s\"",
		  in->ino, e4t_mode_type_name(in->mode), in->mode & 07777,
		  in->uid, in->gid, (unsigned long long)in->size, in->links,
		  status_name(row->status));
	for (f = 0; f < E4T_NFIELDS; f++) {
		lb_puts(b, ",\"");
		lb_puts(b, e4t_field_name(f));
		lb_puts(b, "\":");
		if (ts_shown(&in->ts[f], f))
			lb_time_json(b, &in->ts[f]);
		else
			lb_puts(b, "null");
	}
	lb_hash_json(o);
	if (in->flags & E4T_INO_CSUM_BAD)
		lb_puts(b, ",\"inode_csum_bad\":true");
	if (in->iflags & EXT4_ENCRYPT_FL) /* fscrypt: no-key names below */
		lb_puts(b, ",\"encrypted\":true");
	if (row->name_source)
		lb_printf(b, ",\"name_source\":\"%s\"", row->name_source);
	lb_journal_json(b, row);
	if (o->generations && (in->flags & E4T_INO_GEN))
		lb_printf(b, ",\"generation\":%u", in->generation);
	else if (o->generations)
		lb_puts(b, ",\"generation\":null");
	lb_flags_json(b, o, "flags");
	lb_puts(b, "}\n");
}

static void json_end(struct out *o)
{
}

const struct formatter fmt_jsonl = {
	.name = "jsonl",
	.caps = FMT_FLAGS | FMT_HASH,
	.begin = json_begin,
	.row = json_row,
	.end = json_end,
};
