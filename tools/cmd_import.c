/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_import.c --- e4time import: put the times of a manifest (from
 * e4time export of another image) back into this image's inodes, matched
 * by path or by inode number, under a policy.  The whole manifest is
 * read and checked before the image is opened for writing.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "import_report.h"

static void import_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s import [OPTIONS] IMAGE [MANIFEST]\n\n"
		"Set times from a manifest written by `e4time export` (read "
		"from MANIFEST,\nor standard input).  The migration case: "
		"export from the old disk, copy the\ndata, import into the new "
		"disk.\n\n"
		"  -m, --match HOW        path (default) or inode\n"
		"      --fields LIST      fields to set: crtime (default), "
		"atime, mtime, ctime\n"
		"  -p, --policy POLICY    earlier (default: only where the "
		"manifest is earlier),\n"
		"                         missing (only where the time is 0), "
		"always\n"
		"  -f, --format FMT       text (default), jsonl or csv: one "
		"record per entry\n"
		"      --threads N        threads reading the manifest, "
		"indexing the image and\n"
		"                         writing: 0 chooses, 1 or 2\n"
		"      --map OLD=NEW      (repeatable) a manifest path OLD, or "
		"under OLD, is\n"
		"                         NEW here; the longest OLD wins; "
		"whole components\n"
		"      --strip-prefix P   as --map P=/\n"
		"                         (with either, entries under no OLD "
		"are left out)\n"
		"  -n also checks: it exits 0 only when an entry was "
		"compared and every\n"
		"  entry was matched, gives its times and already agrees "
		"to the nanosecond\n"
		"  (statuses: e4time help exit-status)\n" WRITE_HELP "",
		progname);
}

/* Read and check the whole manifest; nothing is written before this. */
static int read_manifest(const char *name, FILE *fp, unsigned fields,
			 int threads, struct e4t_manifest **mf)
{
	struct e4t_manifest_bad bad;
	errcode_t err = e4t_manifest_read_fields(fp, fields, threads, mf, &bad);
	const char *k = bad.why.key;
	char *key = NULL;

	if (!err)
		return EXIT_OK;
	if (!bad.line && err == ENOMEM)
		return EXIT_INTERNAL;
	if (!bad.line) {
		fprintf(stderr, "%s: %s: %s\n", progname, name,
			strerror((int)err));
		return EXIT_USAGE;
	}
	if (err == E4T_ERR_MANIFEST_DUP)
		key = escape_text(k, strlen(k));
	fprintf(stderr, "%s: %s:%lu: %s%s%s%s%s%s\n", progname, name, bad.line,
		error_message(err),
		bad.unknown_version ? " (unknown version)" : "",
		key ? " \"" : "", key ? key : "",
		key && bad.why.key_len > strlen(k) ? "..." : "",
		key ? "\"" : "");
	free(key);
	return EXIT_USAGE;
}

enum { OPT_FIELDS = OPT_COMMON_LAST, OPT_MAP, OPT_STRIP };

static const struct option import_longopts[] = {
	{ "match", required_argument, NULL, 'm' },
	{ "fields", required_argument, NULL, OPT_FIELDS },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "strip-prefix", required_argument, NULL, OPT_STRIP },
	{ "policy", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

/* import's own options, its manifest and its output */
static struct e4t_import_opts io = { .fields = 1U << E4T_CRTIME };
static struct e4t_manifest *mf;
static const char *inputs[2];
static struct im_out out;
static struct e4t_pathmap *pmap; /* --map, --strip-prefix */
static size_t outside;		 /* entries under no OLD: left out */

/* --map OLD=NEW (split at the first '='), --strip-prefix P (P=/) */
static void add_map(const char *opt, const char *arg)
{
	const char *eq = opt[2] == 'm' ? strchr(arg, '=') : NULL;
	char *old = eq ? strndup(arg, (size_t)(eq - arg)) : strdup(arg);
	errcode_t err;

	if (!old) {
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		exit(EXIT_INTERNAL);
	}
	if (opt[2] == 'm' && !eq)
		err = EINVAL;
	else
		err = e4t_pathmap_add(&pmap, old, eq ? eq + 1 : "/");
	free(old);
	if (err == ENOMEM) {
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		exit(EXIT_INTERNAL);
	}
	if (err == EEXIST)
		usage_error(&import_cmd,
			    "%s '%s': that prefix was given before", opt, arg);
	if (err)
		usage_error(&import_cmd, "%s '%s': use %s with absolute paths",
			    opt, arg, opt[2] == 'm' ? "OLD=NEW" : "a prefix");
}

static void import_opt(struct cmd_ctx *ctx, int opt, const char *arg)
{
	(void)ctx;
	switch (opt) {
	case 'm':
		if (strcmp(arg, "path") && strcmp(arg, "inode"))
			usage_error(&import_cmd,
				    "--match '%s': use path or inode", arg);
		io.match = arg[0] == 'i' ? E4T_IMPORT_BY_INODE
					 : E4T_IMPORT_BY_PATH;
		break;
	case OPT_FIELDS: io.fields = parse_fields(arg, &import_cmd); break;
	case 'p': io.policy = parse_policy(arg, &import_cmd); break;
	case OPT_MAP: add_map("--map", arg); break;
	case OPT_STRIP: add_map("--strip-prefix", arg); break;
	default: usage_error(&import_cmd, "unknown option");
	}
}

/* The whole manifest is read and checked before the image is opened. */
static int import_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *mname = "-";
	FILE *fp = stdin;
	int status;

	out.fmt = (enum report_format)ctx->format;
	if (argc == 2 && strcmp(argv[1], "-")) {
		mname = argv[1];
		fp = fopen(mname, "r");
		if (!fp) {
			fprintf(stderr, "%s: %s: %s\n", progname, mname,
				strerror(errno));
			return cond_status(COND_MANIFEST);
		}
	}
	inputs[0] = strcmp(mname, "-") ? mname : NULL;
	ctx->wo.inputs = inputs;
	status = read_manifest(mname, fp, io.fields, ctx->topts.threads, &mf);
	if (fp != stdin)
		fclose(fp);
	if (status == EXIT_OK && pmap && e4t_manifest_map(mf, pmap, &outside))
		status = cond_status(COND_NOMEM);
	return status;
}

/*
 * What the counts of a finished run say (status: the run's so far): 0
 * only when an entry was compared, none was left out, ambiguous, refused
 * or without a time, and (-n) every one compared agrees.
 */
static int verdict(struct cmd_ctx *ctx, const struct e4t_import_stats *st,
		   int status)
{
	const char *img = ctx->img->name;
	int q = ctx->co.quiet;

	if (!q && outside)
		fprintf(stderr,
			"%s: %s: import: %zu entries under no --map or "
			"--strip-prefix: left out\n",
			progname, img, outside);
	/* -n checks a migration: do the entries compared agree? */
	if (!q && ctx->wo.dry_run)
		fprintf(stderr,
			"%s: %s: import -n: %lu of %lu entries compared "
			"agree to the nanosecond\n",
			progname, img, st->agree, st->compared);
	if (st->ambiguous || st->refused)
		status = worse_status(status, cond_status(COND_AMBIGUOUS));
	if (ctx->wo.dry_run && st->agree < st->compared)
		status = worse_status(status, cond_status(COND_DISAGREE));
	if (st->nulls) {
		if (!q)
			fprintf(stderr,
				"%s: %s: import: %lu matched entries give no "
				"time (null) for a field imported: not "
				"compared\n",
				progname, img, st->nulls);
		status = worse_status(status, cond_status(COND_NULL_TIMES));
	}
	if (st->unmatched || outside)
		status = worse_status(status, cond_status(COND_LEFT_OUT));
	if (!st->compared) {
		if (!q)
			fprintf(stderr,
				"%s: %s: import: no entry was compared with "
				"an inode: %s\n",
				progname, img,
				!st->entries && !outside
					? "the manifest has no entry"
				: !st->entries
					? "every entry is under no --map or "
					  "--strip-prefix"
					: "every entry is left out, ambiguous, "
					  "refused or without a time");
		status = worse_status(status, cond_status(COND_NOTHING));
	}
	return status;
}

static int import_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_import_stats st = { 0 };
	struct e4t_image *img = ctx->img;
	struct e4t_tree *tree;
	int status = EXIT_OK;
	errcode_t err;

	(void)argc;
	(void)argv;
	io.manifest = mf;
	io.dry_run = ctx->wo.dry_run;
	io.threads = ctx->topts.threads;
	io.record = import_on_record;
	io.priv = &out;
	out.image = img->name;
	out.quiet = ctx->co.quiet;
	tree = ctx_tree(ctx, &status);
	if (!tree)
		return status;
	if (out.fmt != RF_TEXT)
		report_init(&out.rep, out.fmt, stdout, &import_schema);
	stop_armed = 1;
	err = e4t_import_run(img, tree, &io, &st);
	import_more(&out);
	if (err == EINTR && stop_signal) {
		fprintf(stderr,
			"%s: %s: stopped by a signal; the entries printed "
			"above were written\n",
			progname, img->name);
		err = 0;
	}
	/* the last record: the counts (a run that went to its end, or that
	 * a failed write stopped) */
	if (out.fmt == RF_JSONL && (!err || st.write_err))
		import_summary(&out, &st, outside, ctx->wo.dry_run, err);
	if (lb_flush(&out.lb, stdout) && !err)
		err = errno ? errno : EIO;
	lb_free(&out.lb);
	if (out.fmt != RF_TEXT && report_finish(&out.rep) && !err)
		err = errno ? errno : EIO;
	if (err && st.no_root) {
		/* no root directory (damage): no path can match */
		report(img->name, "/", err);
		return cond_status(COND_FILESPEC);
	}
	if (err && !st.write_err)
		return write_error_status(img, "importing", err);
	if (err) /* a failed write: what is printed was written */
		status = write_error_status(img, "importing", err);
	if (!ctx->co.quiet)
		fprintf(stderr,
			"%s: %s: import: %zu entries, %lu %s, %lu unchanged, "
			"%lu refused, %lu unmatched, %lu ambiguous, "
			"%lu without a time%s%s\n",
			progname, img->name, st.entries, st.changed,
			ctx->wo.dry_run ? "would change" : "changed",
			st.unchanged, st.refused, st.unmatched, st.ambiguous,
			st.nulls, err ? "; stopped: " : "",
			err ? error_message(err) : "");
	if (err)
		return status;
	return verdict(ctx, &st, status);
}

static void import_done(struct cmd_ctx *ctx)
{
	(void)ctx;
	e4t_manifest_free(mf);
	e4t_pathmap_free(pmap);
}

const struct cmdinfo import_cmd = {
	.name = "import",
	.args = "[OPTIONS] IMAGE [MANIFEST]",
	.oneline = "set times from a manifest that export wrote",
	.flags = CMD_IMAGE | CMD_WRITE | CMD_TREE | CMD_FORMATS,
	.formats = RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV),
	.argmin = 1,
	.argmax = 2,
	.argerr = "need an image and at most one MANIFEST",
	.shortopts = "m:p:",
	.longopts = import_longopts,
	.opt = import_opt,
	.prepare = import_prepare,
	.run = import_run,
	.done = import_done,
	.help = import_help,
};
