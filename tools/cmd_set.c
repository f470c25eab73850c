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

struct ino_ref {
	ext2_ino_t ino;
	int idx;
};

static int cmp_ino_ref(const void *a, const void *b)
{
	const struct ino_ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Each inode is written once, under the first FILESPEC that names it:
 * a hard link's other name, <INO> of a path given too, or a path given
 * twice points dup_of at that one.
 */
static errcode_t mark_duplicates(struct target *targets, int n)
{
	struct ino_ref *refs = calloc((size_t)n + 1, sizeof(*refs));
	int i, m = 0;

	if (!refs)
		return ENOMEM;
	for (i = 0; i < n; i++) {
		targets[i].dup_of = -1;
		if (!targets[i].found)
			continue;
		refs[m].ino = targets[i].in.ino;
		refs[m++].idx = i;
	}
	qsort(refs, (size_t)m, sizeof(*refs), cmp_ino_ref);
	for (i = 1; i < m; i++)
		if (refs[i].ino == refs[i - 1].ino)
			targets[refs[i].idx].dup_of =
				targets[refs[i - 1].idx].dup_of >= 0
					? targets[refs[i - 1].idx].dup_of
					: refs[i - 1].idx;
	free(refs);
	return 0;
}

static void parse_fields(const char *list, unsigned *fields)
{
	char *copy = strdup(list), *tok, *save = NULL;

	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(EXIT_INTERNAL);
	}
	*fields = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int f = e4t_field_parse(tok);

		if (f < 0 || f == E4T_DTIME)
			usage_error(
				&set_cmd,
				"--fields: '%s' is not crtime, atime, mtime "
				"or ctime",
				tok);
		*fields |= 1U << f;
	}
	free(copy);
	if (!*fields)
		usage_error(&set_cmd, "--fields: empty list");
}

static void parse_time_arg(const char *text, const char *what,
			   struct e4t_ts *ts)
{
	errcode_t err = e4t_time_parse(text, &ts->sec, &ts->nsec);

	if (err)
		usage_error(&set_cmd, "%s '%s': %s", what, text,
			    error_message(err));
	ts->flags = E4T_TS_STORED | E4T_TS_EXTRA;
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

static int set_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "crtime", required_argument, NULL, OPT_CRTIME },
		{ "atime", required_argument, NULL, OPT_ATIME },
		{ "mtime", required_argument, NULL, OPT_MTIME },
		{ "ctime", required_argument, NULL, OPT_CTIME },
		{ "reference", required_argument, NULL, 'r' },
		{ "fields", required_argument, NULL, OPT_FIELDS },
		WRITE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct e4t_refusal why = { "", 0 };
	struct e4t_write_opts wo = { .why = &why };
	struct e4t_ts ts[E4T_NFIELDS];
	unsigned given = 0, ref_fields = (1U << E4T_CRTIME) |
					 (1U << E4T_ATIME) | (1U << E4T_MTIME);
	const char *reference = NULL;
	struct target *targets;
	struct e4t_image *img;
	int opt, i, n, status = EXIT_OK;
	errcode_t err;

	memset(ts, 0, sizeof(ts));
	while ((opt = getopt_long(argc, argv, COMMON_SHORTOPTS "r:nz:",
				  longopts, NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &set_cmd) ||
		    write_opt(opt, optarg, &wo))
			continue;
		switch (opt) {
		case OPT_CRTIME:
		case OPT_ATIME:
		case OPT_MTIME:
		case OPT_CTIME: {
			static const enum e4t_field map[] = {
				E4T_CRTIME, E4T_ATIME, E4T_MTIME, E4T_CTIME
			};
			enum e4t_field f = map[opt - OPT_CRTIME];
			char name[16];

			snprintf(name, sizeof(name), "--%s", e4t_field_name(f));
			parse_time_arg(optarg, name, &ts[f]);
			given |= 1U << f;
			break;
		}
		case 'r': reference = optarg; break;
		case OPT_FIELDS: parse_fields(optarg, &ref_fields); break;
		default: usage_error(&set_cmd, "unknown option");
		}
	}
	if (argc - optind < 2)
		usage_error(&set_cmd, "need an image and at least one file");
	if (!given && !reference)
		usage_error(&set_cmd, "nothing to set: give --crtime, --atime, "
				      "--mtime, --ctime or --reference");
	check_write_opts(&wo, &set_cmd);

	err = e4t_image_open_write(argv[optind], co.offset, &wo, &img);
	if (err) {
		return open_write_status(argv[optind], &wo, err);
	}

	if (reference) {
		struct e4t_inode ref;
		ext2_ino_t rino;
		int f;

		err = e4t_image_resolve(img, reference, &rino);
		if (!err)
			err = e4t_image_read_inode(img, rino, &ref);
		if (err) {
			report(img->name, reference, err);
			e4t_image_close_write(img);
			return EXIT_PARTIAL;
		}
		for (f = 0; f < E4T_DTIME; f++) {
			if (!(ref_fields & (1U << f)) || (given & (1U << f)))
				continue;
			if (!(ref.ts[f].flags & E4T_TS_STORED)) {
				fprintf(stderr,
					"%s: %s: %s: %s not stored there\n",
					progname, img->name, reference,
					e4t_field_name(f));
				e4t_image_close_write(img);
				return EXIT_PARTIAL;
			}
			ts[f] = ref.ts[f];
			given |= 1U << f;
		}
	}

	/*
	 * Check every target first: nothing is written unless all can be.
	 * Then write them, printing each inode's lines once it is written.
	 */
	n = argc - optind - 1;
	targets = calloc((size_t)n, sizeof(*targets));
	if (!targets) {
		e4t_image_close_write(img);
		return EXIT_INTERNAL;
	}
	for (i = 0; i < n; i++) {
		struct target *t = &targets[i];
		ext2_ino_t ino = 0;

		t->spec = argv[optind + 1 + i];
		err = e4t_image_resolve(img, t->spec, &ino);
		if (!err)
			err = e4t_image_read_inode(img, ino, &t->in);
		if (err) {
			char *what = escape_text(t->spec, strlen(t->spec));

			report(img->name, what ? what : "?", err);
			free(what);
			if (status == EXIT_OK)
				status = EXIT_PARTIAL;
			continue;
		}
		t->found = 1;
		err = e4t_check_settable(&t->in, given, ts);
		if (err) {
			char *label = target_label(t);

			report(img->name, label ? label : "?", err);
			free(label);
			status = EXIT_REFUSED;
		}
	}
	err = mark_duplicates(targets, n);
	if (err)
		status = EXIT_INTERNAL;
	if (status != EXIT_OK) {
		fprintf(stderr, "%s: %s: nothing written\n", progname,
			img->name);
		free(targets);
		e4t_image_close_write(img);
		return status;
	}
	status = write_targets(img, targets, n, given, ts, wo.dry_run);
	free(targets);
	if (wo.dry_run) {
		fprintf(stderr, "%s: %s: dry run, nothing written\n", progname,
			img->name);
		e4t_image_close(img);
		return finish_stdout(status);
	}
	return finish_write(img, status);
}

const struct cmdinfo set_cmd = {
	.name = "set",
	.func = set_main,
	.args = "[OPTIONS] IMAGE FILESPEC... --crtime TIME",
	.oneline = "set crtime (atime, mtime, ctime) of inodes, with an undo "
		   "file",
	.help = set_help,
};
