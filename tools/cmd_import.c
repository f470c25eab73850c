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
#include "output.h"

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
		"  -f, --format FMT       text (default) or jsonl: one record "
		"per entry\n" WRITE_HELP "",
		progname);
}

struct entry {
	struct e4t_manifest_entry m;
	unsigned long line;
	int matched;
};

struct assign {
	ext2_ino_t ino;
	size_t entry;
	const char *path; /* the name in this image (walk copy) */
	size_t path_len;
};

struct im_ctx {
	struct e4t_image *img;
	struct e4t_tree *tree;
	struct e4t_batch *batch; /* the writes, in inode order */
	struct entry *entries;
	size_t nentries;
	size_t *hash; /* open addressing; index + 1, 0 = empty */
	size_t hcap;
	struct assign *assigns;
	size_t nassigns, acap;
	unsigned fields;
	enum e4t_policy policy;
	int jsonl, dry_run, quiet;
	unsigned long changed, unchanged, unmatched, ambiguous, refused;
	struct lbuf lb;
	errcode_t err;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static errcode_t build_hash(struct im_ctx *c)
{
	size_t i;

	c->hcap = 16;
	while (c->hcap < c->nentries * 2)
		c->hcap *= 2;
	c->hash = calloc(c->hcap, sizeof(*c->hash));
	if (!c->hash)
		return ENOMEM;
	for (i = 0; i < c->nentries; i++) {
		const struct e4t_manifest_entry *m = &c->entries[i].m;
		size_t k = hash_bytes(m->path, m->path_len) & (c->hcap - 1);

		while (c->hash[k])
			k = (k + 1) & (c->hcap - 1);
		c->hash[k] = i + 1;
	}
	return 0;
}

static int add_assign(struct im_ctx *c, ext2_ino_t ino, size_t entry,
		      const char *path, size_t len)
{
	struct assign *a;

	if (grow_array(&c->assigns, &c->acap, c->nassigns, sizeof(*c->assigns)))
		return ENOMEM;
	a = &c->assigns[c->nassigns++];
	a->ino = ino;
	a->entry = entry;
	a->path = NULL;
	a->path_len = len;
	if (path) {
		a->path = dup_bytes(path, len);
		if (!a->path)
			return ENOMEM;
	}
	return 0;
}

/* Every name of the image: is it a path of the manifest? */
static int on_row(const struct e4t_row *row, void *priv)
{
	struct im_ctx *c = priv;
	size_t k = hash_bytes(row->path, row->path_len) & (c->hcap - 1);

	for (; c->hash[k]; k = (k + 1) & (c->hcap - 1)) {
		struct entry *e = &c->entries[c->hash[k] - 1];

		if (e->m.path_len != row->path_len ||
		    memcmp(e->m.path, row->path, row->path_len))
			continue;
		e->matched = 1;
		if (add_assign(c, row->inode->ino, c->hash[k] - 1, row->path,
			       row->path_len))
			return ENOMEM;
	}
	return 0;
}

static int cmp_assign(const void *a, const void *b)
{
	const struct assign *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Do two entries give the same times for the fields imported? */
static int same_times(const struct im_ctx *c, const struct entry *a,
		      const struct entry *b)
{
	int f;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(c->fields & (1U << f)))
			continue;
		if (a->m.have[f] != b->m.have[f] ||
		    (a->m.have[f] && e4t_ts_cmp(&a->m.ts[f], &b->m.ts[f])))
			return 0;
	}
	return 1;
}

static void label(struct lbuf *b, const struct assign *a, const struct entry *e)
{
	if (a->path)
		esc_text(b, a->path, a->path_len);
	else
		esc_text(b, e->m.path, e->m.path_len);
	lb_printf(b, " <%u>", a->ino);
}

static void json_start(struct im_ctx *c, const struct assign *a,
		       const struct entry *e, const char *action)
{
	struct lbuf *b = &c->lb;

	lb_puts(b, "{\"path\":\"");
	esc_json(b, e->m.path, e->m.path_len);
	lb_printf(b, "\",\"line\":%lu", e->line);
	if (a)
		lb_printf(b, ",\"ino\":%u", a->ino);
	lb_printf(b, ",\"action\":\"%s\"", action);
}

/* Apply one manifest entry to one inode. */
static void apply(struct im_ctx *c, const struct assign *a,
		  const struct entry *e)
{
	struct e4t_ts ts[E4T_NFIELDS];
	struct e4t_inode in;
	unsigned set = 0;
	errcode_t err;
	int f;

	err = e4t_tree_inode(c->tree, a->ino, &in);
	if (err) {
		c->refused++;
		return;
	}
	memset(ts, 0, sizeof(ts));
	for (f = 0; f < E4T_DTIME; f++) {
		const struct e4t_ts *cur = &in.ts[f];

		if (!(c->fields & (1U << f)) || !e->m.have[f])
			continue;
		/* a field the inode cannot hold is refused below */
		if ((cur->flags & E4T_TS_STORED) &&
		    !e4t_policy_wants(c->policy, &e->m.ts[f], cur))
			continue;
		ts[f] = e->m.ts[f];
		set |= 1U << f;
	}
	if (!set) {
		c->unchanged++;
		if (c->jsonl) {
			json_start(c, a, e, "unchanged");
			lb_puts(&c->lb, "}\n");
		}
		return;
	}
	/* A check that fails refuses this inode; a failed write stops all. */
	err = e4t_check_settable(&in, set, ts);
	if (!err && !c->dry_run) {
		err = e4t_batch_set(c->batch, a->ino, set, ts);
		if (err) {
			c->err = err;
			return;
		}
	}
	if (err) {
		c->refused++;
		if (c->jsonl) {
			json_start(c, a, e, "refused");
			lb_puts(&c->lb, ",\"detail\":\"");
			esc_json(&c->lb, error_message(err),
				 strlen(error_message(err)));
			lb_puts(&c->lb, "\"}\n");
		}
		if (!c->quiet) {
			struct lbuf w = { 0 };

			label(&w, a, e);
			lb_putc(&w, '\0');
			report(c->img->name, w.p, err);
			lb_free(&w);
		}
		return;
	}
	c->changed++;
	for (f = 0; f < E4T_DTIME; f++) {
		if (!(set & (1U << f)))
			continue;
		if (c->jsonl) {
			json_start(c, a, e,
				   c->dry_run ? "would_change" : "changed");
			lb_printf(&c->lb, ",\"field\":\"%s\",\"from\":\"",
				  e4t_field_name(f));
			lb_iso(&c->lb, &in.ts[f], 9);
			lb_puts(&c->lb, "\",\"to\":\"");
			lb_iso(&c->lb, &ts[f], 9);
			lb_puts(&c->lb, "\"}\n");
			continue;
		}
		if (c->dry_run)
			lb_puts(&c->lb, "would set ");
		label(&c->lb, a, e);
		lb_printf(&c->lb, ": %s ", e4t_field_name(f));
		lb_iso(&c->lb, &in.ts[f], 9);
		lb_puts(&c->lb, " -> ");
		lb_iso(&c->lb, &ts[f], 9);
		lb_putc(&c->lb, '\n');
	}
}

static void apply_all(struct im_ctx *c)
{
	size_t i = 0, j;
	errcode_t err;

	if (c->nassigns) /* assigns is NULL then: qsort must not see it */
		qsort(c->assigns, c->nassigns, sizeof(*c->assigns), cmp_assign);
	if (!c->dry_run) {
		c->err = e4t_batch_begin(c->img, NULL, &c->batch);
		if (c->err)
			return;
	}
	while (i < c->nassigns && !c->err) {
		struct assign *a = &c->assigns[i];
		int agree = 1;

		/* All the entries that land on this inode must agree. */
		for (j = i + 1; j < c->nassigns && c->assigns[j].ino == a->ino;
		     j++)
			if (!same_times(c, &c->entries[a->entry],
					&c->entries[c->assigns[j].entry]))
				agree = 0;
		if (agree) {
			apply(c, a, &c->entries[a->entry]);
		} else {
			size_t k;

			for (k = i; k < j; k++) {
				struct assign *b = &c->assigns[k];
				struct entry *e = &c->entries[b->entry];

				c->ambiguous++;
				if (c->jsonl) {
					json_start(c, b, e, "ambiguous");
					lb_puts(&c->lb, "}\n");
				} else if (!c->quiet) {
					struct lbuf w = { 0 };

					label(&w, b, e);
					lb_putc(&w, '\0');
					fprintf(stderr,
						"%s: %s: %s: ambiguous: "
						"manifest "
						"line %lu disagrees with "
						"another "
						"entry for this inode; "
						"skipped\n",
						progname, c->img->name, w.p,
						e->line);
					lb_free(&w);
				}
			}
		}
		i = j;
		if (lb_maybe_flush(&c->lb, stdout))
			c->err = errno ? errno : EIO;
	}
	/* the last window's writes: inodes reported as changed */
	err = e4t_batch_end(c->batch);
	c->batch = NULL;
	if (err && !c->err)
		c->err = err;
}

static void report_unmatched(struct im_ctx *c)
{
	size_t i;
	unsigned long shown = 0;

	for (i = 0; i < c->nentries; i++) {
		struct entry *e = &c->entries[i];

		if (e->matched)
			continue;
		c->unmatched++;
		if (c->jsonl) {
			json_start(c, NULL, e, "unmatched");
			lb_puts(&c->lb, "}\n");
		} else if (!c->quiet && shown++ < 10) {
			char *name = escape_text(e->m.path, e->m.path_len);

			fprintf(stderr,
				"%s: %s: manifest line %lu: %s: not in this "
				"image\n",
				progname, c->img->name, e->line,
				name ? name : "?");
			free(name);
		}
	}
	if (!c->jsonl && !c->quiet && shown > 10)
		fprintf(stderr, "%s: %s: ... and %lu more not in this image\n",
			progname, c->img->name, shown - 10);
}

/* Read and check the whole manifest; nothing is written before this. */
static int read_manifest(struct im_ctx *c, const char *name, FILE *fp)
{
	char *line = NULL;
	size_t cap = 0, ecap = 0;
	ssize_t n;
	unsigned long lineno = 0, first = 0; /* the first line not empty */

	while ((n = getline(&line, &cap, fp)) >= 0) {
		struct e4t_manifest_entry m;
		struct e4t_manifest_why why;
		errcode_t err;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n == 0)
			continue; /* empty lines, before the header too */
		if (!first)
			first = lineno;
		err = e4t_manifest_parse_line(line, (size_t)n, &m, &why);
		if (err || (m.header_version && lineno != first) ||
		    m.header_version > 1) {
			char *key = NULL;

			if (err == E4T_ERR_MANIFEST_DUP)
				key = escape_text(why.key, strlen(why.key));
			fprintf(stderr, "%s: %s:%lu: %s%s%s%s%s%s\n", progname,
				name, lineno,
				error_message(err ? err : E4T_ERR_MANIFEST),
				m.header_version > 1 ? " (unknown version)"
						     : "",
				key ? " \"" : "", key ? key : "",
				key && why.key_len > strlen(why.key) ? "..."
								     : "",
				key ? "\"" : "");
			free(key);
			e4t_manifest_entry_free(&m);
			free(line);
			return EXIT_USAGE;
		}
		if (m.header_version)
			continue;
		if (c->nentries == ecap) {
			size_t k = ecap ? ecap * 2 : 1024;
			void *p = realloc(c->entries, k * sizeof(*c->entries));

			if (!p) {
				e4t_manifest_entry_free(&m);
				free(line);
				return EXIT_INTERNAL;
			}
			c->entries = p;
			ecap = k;
		}
		c->entries[c->nentries].m = m;
		c->entries[c->nentries].line = lineno;
		c->entries[c->nentries].matched = 0;
		c->nentries++;
	}
	free(line);
	if (ferror(fp)) {
		fprintf(stderr, "%s: %s: %s\n", progname, name,
			strerror(errno));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

enum { OPT_FIELDS = OPT_COMMON_LAST };

static int import_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "match", required_argument, NULL, 'm' },
		{ "fields", required_argument, NULL, OPT_FIELDS },
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		WRITE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct e4t_refusal why = { "", 0 };
	struct e4t_write_opts wo = { .why = &why };
	struct im_ctx c = { .fields = 1U << E4T_CRTIME };
	struct warn_ctx wc = { 0 };
	struct e4t_tree_opts topts = {
		.warn = lib_warn,
		.progress = progress_cb,
		.priv = &wc,
	};
	const char *mname = "-", *inputs[2] = { NULL, NULL };
	int opt, by_inode = 0, status;
	FILE *fp = stdin;
	errcode_t err = 0, index_err, root_err = 0;
	size_t i;

	while ((opt = getopt_long(argc, argv, COMMON_SHORTOPTS "m:p:f:nz:",
				  longopts, NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &import_cmd) ||
		    write_opt(opt, optarg, &wo))
			continue;
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "path") || !strcmp(optarg, "inode"))
				by_inode = optarg[0] == 'i';
			else
				usage_error(&import_cmd,
					    "--match '%s': use path or inode",
					    optarg);
			break;
		case OPT_FIELDS: {
			char *copy = strdup(optarg), *tok, *save = NULL;

			c.fields = 0;
			for (tok = copy ? strtok_r(copy, ",", &save) : NULL;
			     tok; tok = strtok_r(NULL, ",", &save)) {
				int f = e4t_field_parse(tok);

				if (f < 0 || f == E4T_DTIME)
					usage_error(&import_cmd,
						    "--fields: '%s' is not "
						    "crtime, atime, mtime or "
						    "ctime",
						    tok);
				c.fields |= 1U << f;
			}
			free(copy);
			if (!c.fields)
				usage_error(&import_cmd,
					    "--fields: empty list");
			break;
		}
		case 'p': c.policy = parse_policy(optarg, &import_cmd); break;
		case 'f':
			c.jsonl = parse_report_format(optarg, &import_cmd);
			break;
		default: usage_error(&import_cmd, "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage_error(&import_cmd, "need an image and at most one "
					 "MANIFEST");
	check_write_opts(&wo, &import_cmd);
	if (argc - optind == 2 && strcmp(argv[optind + 1], "-")) {
		mname = argv[optind + 1];
		fp = fopen(mname, "r");
		if (!fp) {
			fprintf(stderr, "%s: %s: %s\n", progname, mname,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	inputs[0] = strcmp(mname, "-") ? mname : NULL;
	wo.inputs = inputs;
	status = read_manifest(&c, mname, fp);
	if (fp != stdin)
		fclose(fp);
	if (status != EXIT_OK)
		goto free_entries;

	err = e4t_image_open_write(argv[optind], co.offset, &wo, &c.img);
	if (err) {
		status = open_write_status(argv[optind], &wo, err);
		goto free_entries;
	}
	c.dry_run = wo.dry_run;
	c.quiet = co.quiet;
	wc.image = c.img->name;
	wc.quiet = co.quiet;
	err = e4t_tree_load(c.img, &topts, &c.tree);
	progress_done();
	index_err = err;
	if (!err && by_inode) {
		for (i = 0; i < c.nentries && !err; i++) {
			struct e4t_inode in;
			struct entry *e = &c.entries[i];

			if (!e->m.ino || e4t_tree_inode(c.tree, e->m.ino, &in))
				continue;
			e->matched = 1;
			err = add_assign(&c, e->m.ino, i, NULL, e->m.path_len);
		}
	} else if (!err) {
		err = build_hash(&c);
		if (!err)
			err = e4t_tree_walk(c.tree, EXT2_ROOT_INO, "/", on_row,
					    &c);
		/* no root directory (damage): no path can match, as for
		 * timeline and backfill */
		if (err == E4T_ERR_NOT_IN_USE)
			root_err = err;
	}
	if (!err) {
		apply_all(&c);
		report_unmatched(&c);
		err = c.err;
	}
	if (lb_flush(&c.lb, stdout) && !err)
		err = errno ? errno : EIO;
	status = EXIT_OK;
	if (index_err) {
		status = index_error_status(c.img->name, index_err);
	} else if (root_err) {
		report(c.img->name, "/", root_err);
		status = EXIT_PARTIAL;
	} else if (err) {
		status = write_error_status(c.img, "importing", err);
	} else {
		if (!c.quiet)
			fprintf(stderr,
				"%s: %s: import: %zu entries, %lu %s, %lu "
				"unchanged, %lu refused, %lu unmatched, %lu "
				"ambiguous\n",
				progname, c.img->name, c.nentries, c.changed,
				c.dry_run ? "would change" : "changed",
				c.unchanged, c.refused, c.unmatched,
				c.ambiguous);
		if (c.unmatched || c.ambiguous || c.refused || wc.count)
			status = EXIT_PARTIAL;
	}
	e4t_tree_free(c.tree);
	lb_free(&c.lb);
	for (i = 0; i < c.nassigns; i++)
		free((char *)c.assigns[i].path);
	free(c.assigns);
	free(c.hash);
	if (wo.dry_run) {
		e4t_image_close(c.img);
		status = finish_stdout(status);
	} else {
		status = finish_write(c.img, status);
	}
free_entries:
	for (i = 0; i < c.nentries; i++)
		e4t_manifest_entry_free(&c.entries[i].m);
	free(c.entries);
	return status;
}

const struct cmdinfo import_cmd = {
	.name = "import",
	.func = import_main,
	.args = "[OPTIONS] IMAGE [MANIFEST]",
	.oneline = "set times from a manifest that export wrote",
	.help = import_help,
};
