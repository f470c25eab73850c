/*
 * fmt_bodyfile.c --- "extended bodyfile 3" (dfImageTools, read by plaso):
 *   # extended bodyfile 3 format
 *   0|/path|ino|-rw-r--r--|uid|gid|size|atime|mtime|ctime|crtime
 * Times are exact signed decimal seconds with 9 fraction digits; a time
 * not stored is an empty field.  Names: \xHH, \\, \|, \: escapes.
 */
#include "config.h"

#include <string.h>

#include "output.h"

static void body_begin(struct out *o)
{
	fputs("# extended bodyfile 3 format\n", o->fp);
}

static void body_row(struct out *o, const struct e4t_row *row)
{
	const struct e4t_inode *in = row->inode;
	char mode[11];
	int i;

	mode_string(in->mode, mode);
	fputs("0|", o->fp);
	put_bodyfile(o->fp, row->path, row->path_len);
	fputs(status_suffix(row->status), o->fp);
	fprintf(o->fp, "|%u|%s|%u|%u|%llu", in->ino, mode, in->uid, in->gid,
		(unsigned long long)in->size);
	for (i = 0; i < 4; i++) {
		putc('|', o->fp);
		if (ts_shown(&in->ts[body_fields[i]], body_fields[i]))
			put_decimal_time(o->fp, &in->ts[body_fields[i]]);
	}
	putc('\n', o->fp);
}

static void body_end(struct out *o)
{
}

const struct formatter fmt_bodyfile = {
	.name = "bodyfile",
	.begin = body_begin,
	.row = body_row,
	.end = body_end,
};
