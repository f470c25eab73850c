/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_stat.c --- e4time stat: every timestamp of one or more inodes, with
 * the raw on-disk words, and what the inode does not store.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "output.h"
#include "report.h"

#define STAT_FORMATS (RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV))

static void stat_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s stat [OPTIONS] IMAGE FILESPEC...\n\n"
		"Show inode, type, mode, owner, size, links, i_extra_isize "
		"and the five\ntimes (atime, mtime, ctime, crtime, dtime) "
		"of each file, as ISO 8601 with\nnanoseconds and as the raw "
		"on-disk words.  FILESPEC is an absolute path\nor <INODE>.\n\n"
		"Options:\n"
		"  -f, --format FMT       text (default), jsonl or csv\n"
		"      --local            local time instead of UTC "
		"(text)\n" COMMON_HELP,
		progname);
}

static void print_time(const struct e4t_inode *in, enum e4t_field f, int local)
{
	const struct e4t_ts *ts = &in->ts[f];
	char when[E4T_ISO_BUFSZ], raw[32];
	char label[12];

	snprintf(label, sizeof(label), "%s:", e4t_field_name(f));
	if (!(ts->flags & E4T_TS_STORED)) {
		printf("  %-7s not stored (%s)\n", label,
		       e4t_inode_not_stored_reason(in, f));
		return;
	}
	if (ts->flags & E4T_TS_EXTRA)
		snprintf(raw, sizeof(raw), "0x%08x:%08x", in->raw_base[f],
			 in->raw_extra[f]);
	else
		snprintf(raw, sizeof(raw), "0x%08x", in->raw_base[f]);

	if (f == E4T_DTIME && (ts->flags & E4T_TS_ZERO)) {
		printf("  %-7s %-35s %s\n", label, "not set", raw);
		return;
	}
	if (f == E4T_DTIME && (ts->flags & E4T_TS_ORPHAN_LINK)) {
		char what[48];

		snprintf(what, sizeof(what), "orphan list: next <%u>",
			 in->raw_base[f]);
		printf("  %-7s %-35s %s\n", label, what, raw);
		return;
	}
	fmt_time(ts, local, 'T', when, sizeof(when));
	printf("  %-7s %-35s %s", label, when, raw);
	if (!(ts->flags & E4T_TS_EXTRA) && f != E4T_DTIME)
		printf("  (no nanoseconds stored)");
	if (ts->flags & E4T_TS_BAD_NSEC)
		printf("  SUSPECT: nanoseconds %u >= 10^9",
		       in->raw_extra[f] >> 2);
	if (ts->flags & E4T_TS_OLD_PRE1970) {
		char alt[E4T_ISO_BUFSZ];

		e4t_iso8601((int32_t)in->raw_base[f], ts->nsec, 9, 'T',
			    INT32_MIN, alt, sizeof(alt));
		printf("  SUSPECT: old pre-1970 encoding, likely %s", alt);
	}
	putchar('\n');
}

static int inode_in_use(const struct e4t_inode *in);

static void print_inode(const char *spec, const struct e4t_inode *in, int local)
{
	char *name = escape_text(spec, strlen(spec));
	int f;

	printf("%s\n", name ? name : spec);
	free(name);
	printf("  Inode: %u   Type: %s   Mode: %04o   Flags: 0x%x\n", in->ino,
	       e4t_mode_type_name(in->mode), in->mode & 07777, in->iflags);
	printf("  User: %u   Group: %u   Size: %llu   Links: %u\n", in->uid,
	       in->gid, (unsigned long long)in->size, in->links);
	if (in->inode_size > 128)
		printf("  Inode size: %u   Extra isize: %u%s\n", in->inode_size,
		       in->extra_isize,
		       (in->flags & E4T_INO_EXTRA_BAD) ? " (impossible)" : "");
	else
		printf("  Inode size: %u   Extra isize: none\n",
		       in->inode_size);
	for (f = 0; f < E4T_NFIELDS; f++)
		print_time(in, f, local);
	if (in->flags & E4T_INO_CSUM_BAD)
		printf("  WARNING: inode checksum does not verify\n");
	if (in->flags & E4T_INO_ORPHAN_LIST)
		printf("  NOTE: on the orphan list (unlinked while open)\n");
	else if (!inode_in_use(in))
		printf("  NOTE: inode is not in use (deleted or never used)\n");
}

static int inode_in_use(const struct e4t_inode *in)
{
	return in->mode != 0 && in->links > 0;
}

static const char *const stat_cols[] = {
	"spec",
	"ino",
	"type",
	"mode",
	"flags",
	"uid",
	"gid",
	"size",
	"links",
	"inode_size",
	"extra_isize",
	"atime",
	"atime_raw",
	"mtime",
	"mtime_raw",
	"ctime",
	"ctime_raw",
	"crtime",
	"crtime_raw",
	"dtime",
	"dtime_raw",
	"csum_bad",
	"extra_isize_bad",
	"orphan_list",
	"in_use",
	NULL,
};
static const struct rec_schema stat_schema = {
	.row = "inode",
	.cols = stat_cols,
};

/* One inode as a record: jsonl or csv. */
static void rec_inode(struct report *r, const char *spec,
		      const struct e4t_inode *in)
{
	char key[16], raw[32];
	int f;

	rec_begin(r, "inode");
	rec_path(r, "spec", spec, strlen(spec));
	rec_u64(r, "ino", in->ino);
	rec_cstr(r, "type", e4t_mode_type_name(in->mode));
	rec_octal(r, "mode", in->mode & 07777, 4);
	rec_u64(r, "flags", in->iflags);
	rec_u64(r, "uid", in->uid);
	rec_u64(r, "gid", in->gid);
	rec_u64(r, "size", in->size);
	rec_u64(r, "links", in->links);
	rec_u64(r, "inode_size", in->inode_size);
	if (in->inode_size > 128)
		rec_u64(r, "extra_isize", in->extra_isize);
	else
		rec_null(r, "extra_isize");
	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &in->ts[f];

		rec_time(r, e4t_field_name(f), ts_shown(ts, f) ? ts : NULL);
		snprintf(key, sizeof(key), "%s_raw", e4t_field_name(f));
		if (!(ts->flags & E4T_TS_STORED)) {
			rec_null(r, key);
			continue;
		}
		if (ts->flags & E4T_TS_EXTRA)
			snprintf(raw, sizeof(raw), "0x%08x:%08x",
				 in->raw_base[f], in->raw_extra[f]);
		else
			snprintf(raw, sizeof(raw), "0x%08x", in->raw_base[f]);
		rec_cstr(r, key, raw);
	}
	rec_bool(r, "csum_bad", !!(in->flags & E4T_INO_CSUM_BAD));
	rec_bool(r, "extra_isize_bad", !!(in->flags & E4T_INO_EXTRA_BAD));
	rec_bool(r, "orphan_list", !!(in->flags & E4T_INO_ORPHAN_LIST));
	rec_bool(r, "in_use", inode_in_use(in));
	rec_end(r);
}

/* One inode in the report's format; n: inodes shown before it. */
static void show_inode(struct report *r, const char *spec,
		       const struct e4t_inode *in, int local, int n)
{
	if (r->fmt != RF_TEXT) {
		rec_inode(r, spec, in);
		return;
	}
	if (n)
		putchar('\n');
	print_inode(spec, in, local);
}

/* Warn on stderr about what makes this inode's report doubtful. */
static int check_inode(const char *image, const char *spec,
		       const struct e4t_inode *in)
{
	char *label = spec_label(spec, in->ino);
	int status = EXIT_OK;

	if (in->flags & E4T_INO_CSUM_BAD) {
		report(image, label ? label : "?", E4T_ERR_INODE_CSUM);
		status = EXIT_PARTIAL;
	}
	if (in->flags & E4T_INO_EXTRA_BAD) {
		report(image, label ? label : "?", E4T_ERR_EXTRA_ISIZE);
		status = EXIT_PARTIAL;
	}
	free(label);
	return status;
}

static int stat_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_image *img = ctx->img;
	int i, shown = 0, status = EXIT_OK;
	struct report rep;

	report_init(&rep, ctx->format, stdout, &stat_schema);
	for (i = 0; i < argc; i++) {
		struct e4t_inode in;
		ext2_ino_t ino;
		errcode_t err;

		err = e4t_image_resolve(img, argv[i], &ino);
		if (!err)
			err = e4t_image_read_inode(img, ino, &in);
		if (err) {
			char *what = escape_text(argv[i], strlen(argv[i]));

			report(img->name, what ? what : argv[i], err);
			free(what);
			status = worse_status(status, filespec_status(err));
			continue;
		}
		/* A name leading to a free inode is damage, and its zero
		 * times mean nothing; <INO> asks about the inode itself. */
		if (argv[i][0] == '/' && !inode_in_use(&in) &&
		    !(in.flags & E4T_INO_ORPHAN_LIST)) {
			char *label = spec_label(argv[i], in.ino);

			report(img->name, label ? label : "?",
			       E4T_ERR_NOT_IN_USE);
			free(label);
			status = worse_status(status,
					      cond_status(COND_DANGLING));
			continue;
		}
		show_inode(&rep, argv[i], &in, ctx->local, shown++);
		if (check_inode(img->name, argv[i], &in) != EXIT_OK)
			status = worse_status(status, cond_status(COND_DAMAGE));
	}
	report_finish(&rep);
	return status;
}

const struct cmdinfo stat_cmd = {
	.name = "stat",
	.args = "[OPTIONS] IMAGE FILESPEC...",
	.oneline = "show every timestamp of some inodes, raw words included",
	.flags = CMD_IMAGE | CMD_LOCAL | CMD_FORMATS,
	.formats = STAT_FORMATS,
	.argmin = 2,
	.argmax = -1,
	.argerr = "need an image and at least one file",
	.run = stat_run,
	.help = stat_help,
};
