/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_set.c --- e4time set: write crtime (and atime, mtime, ctime) of some
 * inodes, exactly to the nanosecond, with an undo file.  All targets are
 * checked before anything is written: one bad target, nothing written.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"

static void set_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s set [OPTIONS] IMAGE FILESPEC...\n\n"
		"Set times of inodes in an unmounted image.  Nothing is "
		"written unless every\nFILESPEC can take every time; an "
		"e2undo file saves what is overwritten.\n\n"
		"Times (at least one, or --reference):\n"
		"      --crtime TIME      creation time\n"
		"      --atime TIME       access time\n"
		"      --mtime TIME       modification time\n"
		"      --ctime TIME       change time\n"
		"  -r, --reference SPEC   copy crtime, atime and mtime (or "
		"--fields) from\n"
		"                         that inode, as touch -r does\n"
		"      --fields LIST      fields --reference copies, e.g. "
		"crtime,mtime\n\n"
		"Safety:\n" WRITE_HELP "\n"
		"TIME: ISO 8601 (2009-02-13T23:31:30.123456789Z, +02:00), "
		"@EPOCH[.FRAC],\nor YYYYMMDD[HHMM[SS]] (UTC).  Restore with: "
		"e2undo UNDOFILE IMAGE\n",
		progname);
}

struct target {
	const char *spec;
	struct e4t_inode in;
	int found;  /* resolved and read */
	int dup_of; /* an earlier target naming the same inode, or -1 */
};

/*
 * Each inode is written once, under the first FILESPEC that names it:
 * the others' dup_of points at that one.
 */
static errcode_t mark_duplicates(struct target *targets, int n)
{
	ext2_ino_t *ino = calloc((size_t)n + 1, sizeof(*ino));
	long *dup = calloc((size_t)n + 1, sizeof(*dup));
	errcode_t err = ENOMEM;

	if (ino && dup) {
		int i;

		for (i = 0; i < n; i++)
			ino[i] = targets[i].found ? targets[i].in.ino : 0;
		err = e4t_find_duplicates(ino, (size_t)n, dup);
		for (i = 0; i < n && !err; i++)
			targets[i].dup_of = (int)dup[i];
	}
	free(ino);
	free(dup);
	return err;
}

/* "SPEC <INO>" (or "<INO>") for the lines about one target. */
static char *target_label(const struct target *t)
{
	return spec_label(t->spec, t->in.ino);
}

static void print_change(const struct target *t, enum e4t_field f,
			 const struct e4t_ts *to, int dry_run)
{
	char *label = target_label(t);
	char from[E4T_ISO_BUFSZ], dest[E4T_ISO_BUFSZ];

	if (t->in.ts[f].flags & E4T_TS_STORED)
		e4t_iso8601(t->in.ts[f].sec, t->in.ts[f].nsec, 9, 'T',
			    INT32_MIN, from, sizeof(from));
	else
		snprintf(from, sizeof(from), "(not stored)");
	e4t_iso8601(to->sec, to->nsec, 9, 'T', INT32_MIN, dest, sizeof(dest));
	printf("%s%s: %s %s -> %s\n", dry_run ? "would set " : "",
	       label ? label : "?", e4t_field_name(f), from, dest);
	free(label);
}

/* Later FILESPECs naming an inode already named: said on stderr. */
static void note_duplicate(const struct e4t_image *img, const struct target *t,
			   const struct target *first)
{
	char *label = target_label(t), *flabel = target_label(first);

	fprintf(stderr, "%s: %s: %s: same inode as %s: set once\n", progname,
		img->name, label ? label : "?", flabel ? flabel : "?");
	free(label);
	free(flabel);
}

/*
 * Write every inode once, printing its lines when it has been written.
 * A write that fails (the undo file full, an I/O error) stops the run:
 * what was written is what the lines on stdout show, and the undo file
 * (named by finish_write()) restores it.
 */
static int write_targets(struct e4t_image *img, const struct target *targets,
			 int n, unsigned given, const struct e4t_ts *ts,
			 int dry_run)
{
	int i, f, written = 0, total = 0, status = EXIT_OK;
	errcode_t err = 0;

	for (i = 0; i < n; i++)
		if (targets[i].dup_of < 0)
			total++;
		else
			note_duplicate(img, &targets[i],
				       &targets[targets[i].dup_of]);
	for (i = 0; i < n && !err; i++) {
		const struct target *t = &targets[i];

		if (t->dup_of >= 0)
			continue;
		if (stop_signal) {
			fprintf(stderr,
				"%s: %s: stopped by a signal after %d of %d "
				"inodes, those printed above\n",
				progname, img->name, written, total);
			break;
		}
		if (!dry_run)
			err = e4t_inode_set_times(img, t->in.ino, given, ts);
		if (err) {
			char *label = target_label(t);

			status = write_error_status(img, label ? label : "?",
						    err);
			free(label);
			break;
		}
		written++;
		for (f = 0; f < E4T_DTIME; f++)
			if (given & (1U << f))
				print_change(t, f, &ts[f], dry_run);
	}
	if (err && !written)
		fprintf(stderr, "%s: %s: nothing written\n", progname,
			img->name);
	else if (err)
		fprintf(stderr,
			"%s: %s: stopped after %d of %d inodes, those printed "
			"above%s\n",
			progname, img->name, written, total,
			img->undo_new ? ": the undo file restores them"
				      : " (no undo file)");
	return status;
}

enum {
	OPT_CRTIME = OPT_COMMON_LAST,
	OPT_ATIME,
	OPT_MTIME,
	OPT_CTIME,
	OPT_FIELDS,
};

static const struct option set_longopts[] = {
	{ "crtime", required_argument, NULL, OPT_CRTIME },
	{ "atime", required_argument, NULL, OPT_ATIME },
	{ "mtime", required_argument, NULL, OPT_MTIME },
	{ "ctime", required_argument, NULL, OPT_CTIME },
	{ "reference", required_argument, NULL, 'r' },
	{ "fields", required_argument, NULL, OPT_FIELDS },
	{ NULL, 0, NULL, 0 },
};

/* set's own options */
static struct {
	struct e4t_ts ts[E4T_NFIELDS];
	unsigned given, ref_fields;
	const char *reference;
} so = { .ref_fields =
		 (1U << E4T_CRTIME) | (1U << E4T_ATIME) | (1U << E4T_MTIME) };

static void set_option(struct cmd_ctx *ctx, int opt, const char *arg)
{
	static const enum e4t_field map[] = { E4T_CRTIME, E4T_ATIME, E4T_MTIME,
					      E4T_CTIME };
	char name[16];
	enum e4t_field f;

	(void)ctx;
	switch (opt) {
	case OPT_CRTIME:
	case OPT_ATIME:
	case OPT_MTIME:
	case OPT_CTIME:
		f = map[opt - OPT_CRTIME];
		snprintf(name, sizeof(name), "--%s", e4t_field_name(f));
		parse_time_option(&set_cmd, name, arg, &so.ts[f]);
		so.ts[f].flags |= E4T_TS_EXTRA;
		so.given |= 1U << f;
		break;
	case 'r': so.reference = arg; break;
	case OPT_FIELDS: so.ref_fields = parse_fields(arg, &set_cmd); break;
	default: usage_error(&set_cmd, "unknown option");
	}
}

static int set_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	if (!so.given && !so.reference)
		usage_error(&set_cmd, "nothing to set: give --crtime, --atime, "
				      "--mtime, --ctime or --reference");
	return EXIT_OK;
}

/* --reference: the times it gives that no option gave; a status. */
static int copy_reference(struct e4t_image *img)
{
	struct e4t_inode ref;
	ext2_ino_t rino;
	errcode_t err;
	int f;

	err = e4t_image_resolve(img, so.reference, &rino);
	if (!err)
		err = e4t_image_read_inode(img, rino, &ref);
	if (err) {
		report(img->name, so.reference, err);
		return filespec_status(err);
	}
	for (f = 0; f < E4T_DTIME; f++) {
		if (!(so.ref_fields & (1U << f)) || (so.given & (1U << f)))
			continue;
		if (!(ref.ts[f].flags & E4T_TS_STORED)) {
			fprintf(stderr, "%s: %s: %s: %s not stored there\n",
				progname, img->name, so.reference,
				e4t_field_name(f));
			return cond_status(COND_NO_FIELD);
		}
		so.ts[f] = ref.ts[f];
		so.given |= 1U << f;
	}
	return EXIT_OK;
}

static int set_run(struct cmd_ctx *ctx, int n, char **argv)
{
	struct e4t_image *img = ctx->img;
	struct target *targets;
	int i, status = EXIT_OK;
	errcode_t err;

	if (so.reference) {
		status = copy_reference(img);
		if (status != EXIT_OK)
			return status;
	}

	/*
	 * Check every target first: nothing is written unless all can be.
	 * Then write them, printing each inode's lines once it is written.
	 */
	targets = calloc((size_t)n, sizeof(*targets));
	if (!targets)
		return EXIT_INTERNAL;
	for (i = 0; i < n; i++) {
		struct target *t = &targets[i];
		ext2_ino_t ino = 0;

		t->spec = argv[i];
		err = e4t_image_resolve(img, t->spec, &ino);
		if (!err)
			err = e4t_image_read_inode(img, ino, &t->in);
		if (err) {
			char *what = escape_text(t->spec, strlen(t->spec));

			report(img->name, what ? what : "?", err);
			free(what);
			status = worse_status(status, filespec_status(err));
			continue;
		}
		t->found = 1;
		err = e4t_check_settable(&t->in, so.given, so.ts);
		if (err) {
			char *label = target_label(t);

			report(img->name, label ? label : "?", err);
			free(label);
			status = worse_status(status, cond_status(COND_TARGET));
		}
	}
	err = mark_duplicates(targets, n);
	if (err)
		status = EXIT_INTERNAL;
	if (status != EXIT_OK) {
		fprintf(stderr, "%s: %s: nothing written\n", progname,
			img->name);
		free(targets);
		return status;
	}
	stop_armed = 1;
	status = write_targets(img, targets, n, so.given, so.ts,
			       ctx->wo.dry_run);
	free(targets);
	if (ctx->wo.dry_run)
		fprintf(stderr, "%s: %s: dry run, nothing written\n", progname,
			img->name);
	return status;
}

const struct cmdinfo set_cmd = {
	.name = "set",
	.args = "[OPTIONS] IMAGE FILESPEC... --crtime TIME",
	.oneline = "set crtime (atime, mtime, ctime) of inodes, with an undo "
		   "file",
	.flags = CMD_IMAGE | CMD_WRITE,
	.argmin = 2,
	.argmax = -1,
	.argerr = "need an image and at least one file",
	.shortopts = "r:",
	.longopts = set_longopts,
	.opt = set_option,
	.prepare = set_prepare,
	.run = set_run,
	.help = set_help,
};
