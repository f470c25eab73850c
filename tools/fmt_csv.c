/*
 * fmt_csv.c --- RFC 4180 CSV with a header line; times as ISO 8601 UTC
 * with 9 fraction digits, empty when not stored (or dtime not set).
 */
#include "config.h"

#include <string.h>

#include "output.h"

static void csv_begin(struct out *o)
{
	fputs("path,ino,type,mode,uid,gid,size,links,atime,mtime,ctime,"
	      "crtime,dtime,status\r\n",
	      o->fp);
}

static void csv_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	FILE *fp = o->fp;
	int f;

	put_csv(fp, row->path, row->path_len);
	fprintf(fp, ",%u,%s,%04o,%u,%u,%llu,%u", in->ino,
		e4t_mode_type_name(in->mode), in->mode & 07777, in->uid,
		in->gid, (unsigned long long)in->size, in->links);
	for (f = 0; f < E4T_NFIELDS; f++) {
		char iso[E4T_ISO_BUFSZ];

		putc(',', fp);
		if (ts_shown(&in->ts[f], f))
			fputs(e4t_iso8601(in->ts[f].sec, in->ts[f].nsec, 9, 'T',
					  INT32_MIN, iso, sizeof(iso)),
			      fp);
	}
	fprintf(fp, ",%s\r\n", status_name(row->status));
}

static void csv_end(struct out *o)
{
}

const struct formatter fmt_csv = {
	.name = "csv",
	.begin = csv_begin,
	.row = csv_row,
	.end = csv_end,
};
