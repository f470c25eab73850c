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

#include <string.h>

#include "output.h"

static void json_begin(struct out *o)
{
}

static void put_time_obj(FILE *fp, const struct e4t_ts *ts)
{
	char iso[E4T_ISO_BUFSZ];

	e4t_iso8601(ts->sec, ts->nsec, 9, 'T', INT32_MIN, iso, sizeof(iso));
	fprintf(fp, "{\"sec\":%lld,\"nsec\":%u,\"iso\":\"%s\"",
		(long long)ts->sec, ts->nsec, iso);
	if (ts->flags & (E4T_TS_BAD_NSEC | E4T_TS_OLD_PRE1970)) {
		const char *sep = "";

		fputs(",\"suspect\":[", fp);
		if (ts->flags & E4T_TS_BAD_NSEC) {
			fputs("\"nsec_out_of_range\"", fp);
			sep = ",";
		}
		if (ts->flags & E4T_TS_OLD_PRE1970)
			fprintf(fp, "%s\"old_pre1970_encoding\"", sep);
		putc(']', fp);
	}
	putc('}', fp);
}

static void json_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	FILE *fp = o->fp;
	int f;

	fputs("{\"path\":\"", fp);
	put_json(fp, row->path, row->path_len);
	putc('"', fp);
	if (!utf8_valid(row->path, row->path_len)) {
		fputs(",\"path_hex\":\"", fp);
		put_hex(fp, row->path, row->path_len);
		fputs("\",\"path_utf8\":false", fp);
	}
	fprintf(fp,
		",\"ino\":%u,\"type\":\"%s\",\"mode\":\"%04o\",\"uid\":%u,"
		"\"gid\":%u,\"size\":%llu,\"links\":%u,\"status\":\"%s\"",
		in->ino, e4t_mode_type_name(in->mode), in->mode & 07777,
		in->uid, in->gid, (unsigned long long)in->size, in->links,
		status_name(row->status));
	for (f = 0; f < E4T_NFIELDS; f++) {
		fprintf(fp, ",\"%s\":", e4t_field_name(f));
		if (ts_shown(&in->ts[f], f))
			put_time_obj(fp, &in->ts[f]);
		else
			fputs("null", fp);
	}
	if (in->flags & E4T_INO_CSUM_BAD)
		fputs(",\"inode_csum_bad\":true", fp);
	fputs("}\n", fp);
}

static void json_end(struct out *o)
{
}

const struct formatter fmt_jsonl = {
	.name = "jsonl",
	.begin = json_begin,
	.row = json_row,
	.end = json_end,
};
