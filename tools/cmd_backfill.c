/*
 * cmd_backfill.c --- e4time backfill: set each inode's crtime from a
 * creation time that other software stored in an xattr (Samba/ksmbd
 * DOSATTRIB, netatalk, systemd, or a named xattr), under a policy.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "lib/xsource.h"
#include "output.h"

static void backfill_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s backfill [OPTIONS] IMAGE [FILESPEC] --from "
		"SOURCE\n\n"
		"Set the crtime of every file under / (or FILESPEC) from a "
		"creation time\nstored in an xattr, where the xattr holds a "
		"valid one.\n\n"
		"  -F, --from SOURCE      %s\n"
		"  -p, --policy POLICY    earlier (default: only where the "
		"source is earlier\n"
		"                         than the crtime), missing (only "
		"where crtime is 0),\n"
		"                         always\n"
		"  -f, --format FMT       text (default) or jsonl: one record "
		"per file\n" WRITE_HELP "",
		progname, e4t_source_spec_help());
}

/* Why a file was left alone; the order is the report's. */
enum reason {
	R_CHANGED = 0,
	R_NO_XATTR,
	R_NO_TIME,
	R_INVALID,
	R_NOT_EARLIER,
	R_ALREADY_SET,
	R_EQUAL,
	R_TOO_SMALL,
	R_UNREADABLE,
	R_COUNT
};

static const char *const reason_key[R_COUNT] = {
	"changed",	 "no_xattr",	    "no_create_time",
	"invalid_value", "not_earlier",	    "crtime_already_set",
	"already_equal", "inode_too_small", "unreadable",
};

static const char *const reason_text[R_COUNT] = {
	"changed",	 "no xattr",	    "no create time in it",
	"invalid value", "not earlier",	    "crtime already set",
	"already equal", "inode too small", "unreadable",
};

/* A file to look at: its inode and first name (walk order). */
struct todo {
	ext2_ino_t ino;
	char *path;
	size_t path_len;
};

struct bf_ctx {
	struct e4t_image *img;
	struct e4t_source *src;
	enum policy policy;
	int jsonl, dry_run, quiet;
	unsigned char *seen; /* one bit per inode: hard links count once */
	unsigned long scanned, count[R_COUNT];
	struct lbuf lb;
	errcode_t write_err;
	struct e4t_tree *tree;
	struct todo *todo;
	size_t ntodo, todo_cap;
};

static void record(struct bf_ctx *c, const struct todo *row,
		   const struct e4t_inode *in, enum reason r,
		   const struct e4t_ts *to, int version, const char *xattr,
		   const char *why)
{
	const struct e4t_ts *cur = &in->ts[E4T_CRTIME];
	struct lbuf *b = &c->lb;

	c->count[r]++;
	if (c->jsonl) {
		lb_puts(b, "{\"path\":\"");
		esc_json(b, row->path, row->path_len);
		lb_printf(b, "\",\"ino\":%u,\"action\":\"%s\"", in->ino,
			  r == R_CHANGED
				  ? (c->dry_run ? "would_change" : "changed")
				  : "skipped");
		if (r != R_CHANGED)
			lb_printf(b, ",\"reason\":\"%s\"", reason_key[r]);
		if (why) {
			lb_puts(b, ",\"detail\":\"");
			esc_json(b, why, strlen(why));
			lb_putc(b, '"');
		}
		lb_puts(b, ",\"source\":\"");
		esc_json(b, e4t_source_name(c->src),
			 strlen(e4t_source_name(c->src)));
		lb_putc(b, '"');
		if (xattr) {
			lb_puts(b, ",\"xattr\":\"");
			esc_json(b, xattr, strlen(xattr));
			lb_putc(b, '"');
		}
		if (version)
			lb_printf(b, ",\"version\":%d", version);
		lb_puts(b, ",\"crtime\":");
		if (cur->flags & E4T_TS_STORED)
			lb_time_json(b, cur);
		else
			lb_puts(b, "null");
		if (to) {
			lb_puts(b, ",\"source_time\":");
			lb_time_json(b, to);
		}
		lb_puts(b, "}\n");
	} else if (r == R_CHANGED) {
		if (c->dry_run)
			lb_puts(b, "would set ");
		esc_text(b, row->path, row->path_len);
		lb_puts(b, " <");
		lb_u64(b, in->ino);
		lb_puts(b, ">: crtime ");
		lb_iso(b, cur, 9);
		lb_puts(b, " -> ");
		lb_iso(b, to, 9);
		lb_puts(b, " (");
		lb_puts(b, e4t_source_name(c->src));
		if (version) {
			lb_puts(b, " v");
			lb_u64(b, (uint64_t)version);
		}
		lb_puts(b, ")\n");
	}
	/* Damage is worth a line on stderr, whatever the format. */
	if ((r == R_INVALID || r == R_UNREADABLE) && !c->quiet) {
		char *name = escape_text(row->path, row->path_len);

		fprintf(stderr, "%s: %s: %s <%u>: %s%s%s: skipped\n", progname,
			c->img->name, name ? name : "?", in->ino,
			xattr ? xattr : "", xattr ? ": " : "",
			why ? why : reason_text[r]);
		free(name);
	}
}

/* The walk only collects each inode once, with its first name. */
static int on_row(const struct e4t_row *row, void *priv)
{
	struct bf_ctx *c = priv;
	ext2_ino_t ino = row->inode->ino;
	struct todo *t;

	if (c->seen[ino / 8] & (1U << (ino % 8)))
		return 0;
	c->seen[ino / 8] |= (unsigned char)(1U << (ino % 8));
	if (grow_array(&c->todo, &c->todo_cap, c->ntodo, sizeof(*c->todo)))
		return ENOMEM;
	t = &c->todo[c->ntodo];
	t->path = dup_bytes(row->path, row->path_len);
	if (!t->path)
		return ENOMEM;
	t->path_len = row->path_len;
	t->ino = ino;
	c->ntodo++;
	return 0;
}

static int cmp_todo(const void *a, const void *b)
{
	ext2_ino_t x = ((const struct todo *)a)->ino;
	ext2_ino_t y = ((const struct todo *)b)->ino;

	return x < y ? -1 : x > y;
}

/*
 * One file, in inode order: consecutive inodes share inode-table blocks,
 * so reads hit libext2fs' cache and writes coalesce in the I/O cache and
 * the undo file.  The inode is read once, for its xattrs.
 */
static int process(struct bf_ctx *c, const struct todo *row)
{
	union {
		struct ext2_inode_large large;
		char buf[EXT2_MAX_BLOCK_SIZE];
	} u;
	struct e4t_inode info, *in = &info;
	const char *const *names = e4t_source_xattrs(c->src);
	struct e4t_ts ts[E4T_NFIELDS];
	struct e4t_src_time st;
	enum e4t_src_status s;
	void *val = NULL;
	size_t len = 0;
	int which = -1;
	errcode_t err;

	if (e4t_tree_inode(c->tree, row->ino, &info))
		return 0;
	c->scanned++;

	if (!(in->ts[E4T_CRTIME].flags & E4T_TS_STORED)) {
		record(c, row, in, R_TOO_SMALL, NULL, 0, NULL, NULL);
		return 0;
	}
	if (in->flags & E4T_INO_CSUM_BAD) {
		record(c, row, in, R_UNREADABLE, NULL, 0, NULL,
		       error_message(E4T_ERR_INODE_CSUM));
		return 0;
	}
	err = ext2fs_read_inode2(c->img->fs, in->ino,
				 (struct ext2_inode *)&u.large,
				 (int)c->img->inode_size, READ_INODE_NOCSUM);
	if (!err)
		err = e4t_xattr_get_first_raw(c->img, in->ino, &u.large, names,
					      &val, &len, &which);
	if (err == E4T_ERR_NO_XATTR) {
		record(c, row, in, R_NO_XATTR, NULL, 0, NULL, NULL);
		return 0;
	}
	if (err) {
		record(c, row, in, R_UNREADABLE, NULL, 0, NULL,
		       error_message(err));
		return 0;
	}
	memset(&st, 0, sizeof(st));
	s = e4t_source_decode(c->src, names[which], val, len, &st);
	free(val);
	if (s == E4T_SRC_NO_TIME) {
		record(c, row, in, R_NO_TIME, NULL, st.version, names[which],
		       st.why);
		return 0;
	}
	if (s != E4T_SRC_OK) {
		record(c, row, in, R_INVALID, NULL, st.version, names[which],
		       st.why);
		return 0;
	}
	memset(ts, 0, sizeof(ts));
	ts[E4T_CRTIME].sec = st.sec;
	ts[E4T_CRTIME].nsec = st.nsec;
	ts[E4T_CRTIME].flags = E4T_TS_STORED | E4T_TS_EXTRA;
	if (!policy_wants(c->policy, &ts[E4T_CRTIME], &in->ts[E4T_CRTIME])) {
		enum reason r = R_NOT_EARLIER;
		int cmp = e4t_ts_cmp(&ts[E4T_CRTIME], &in->ts[E4T_CRTIME]);

		if (c->policy == POLICY_MISSING &&
		    !(in->ts[E4T_CRTIME].flags & E4T_TS_ZERO))
			r = R_ALREADY_SET;
		else if (cmp == 0)
			r = R_EQUAL;
		record(c, row, in, r, &ts[E4T_CRTIME], st.version, names[which],
		       NULL);
		return 0;
	}
	err = e4t_check_settable(in, 1U << E4T_CRTIME, ts);
	if (err) {
		record(c, row, in,
		       err == E4T_ERR_NO_CRTIME_ROOM ? R_TOO_SMALL
						     : R_UNREADABLE,
		       &ts[E4T_CRTIME], st.version, names[which],
		       error_message(err));
		return 0;
	}
	if (!c->dry_run) {
		/* the inode read above; the tree verified its checksum */
		err = e4t_inode_set_times_raw(c->img, in->ino, &u.large,
					      !(in->flags & E4T_INO_CSUM_BAD),
					      1U << E4T_CRTIME, ts);
		if (err) {
			c->write_err = err;
			return 1; /* stop: the undo file restores */
		}
	}
	record(c, row, in, R_CHANGED, &ts[E4T_CRTIME], st.version, names[which],
	       NULL);
	return lb_maybe_flush(&c->lb, stdout) ? (errno ? errno : EIO) : 0;
}

static void summary(const struct bf_ctx *c)
{
	int r, first = 1;

	if (c->quiet)
		return;
	fprintf(stderr, "%s: %s: backfill from %s: %lu files scanned, %lu %s",
		progname, c->img->name, e4t_source_name(c->src), c->scanned,
		c->count[R_CHANGED], c->dry_run ? "would change" : "changed");
	for (r = R_CHANGED + 1; r < R_COUNT; r++) {
		if (!c->count[r])
			continue;
		fprintf(stderr, "%s%lu %s", first ? "; skipped: " : ", ",
			c->count[r], reason_text[r]);
		first = 0;
	}
	fputc('\n', stderr);
}

static int backfill_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "from", required_argument, NULL, 'F' },
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		WRITE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct e4t_write_opts wo = { 0 };
	struct bf_ctx c = { .policy = POLICY_EARLIER };
	struct warn_ctx wc = { 0 };
	struct e4t_tree_opts topts = {
		.warn = lib_warn,
		.progress = progress_cb,
		.priv = &wc,
	};
	struct e4t_tree *tree = NULL;
	const char *from = NULL, *spec = "/";
	ext2_ino_t start = EXT2_ROOT_INO;
	int opt, status = EXIT_OK;
	errcode_t err;

	while ((opt = getopt_long(argc, argv, COMMON_SHORTOPTS "F:p:f:nz:",
				  longopts, NULL)) != -1) {
		if (common_opt(opt, optarg, &co, &backfill_cmd) ||
		    write_opt(opt, optarg, &wo))
			continue;
		switch (opt) {
		case 'F': from = optarg; break;
		case 'p': c.policy = parse_policy(optarg, &backfill_cmd); break;
		case 'f':
			c.jsonl = parse_report_format(optarg, &backfill_cmd);
			break;
		default: usage_error(&backfill_cmd, "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage_error(&backfill_cmd,
			    "need an image and at most one FILESPEC");
	if (!from)
		usage_error(&backfill_cmd, "--from SOURCE is required");
	check_write_opts(&wo, &backfill_cmd);
	err = e4t_source_parse(from, &c.src);
	if (err == EINVAL)
		usage_error(&backfill_cmd, "--from '%s': %s", from,
			    e4t_source_spec_help());
	if (err) {
		report(argv[optind], from, err);
		return EXIT_INTERNAL;
	}
	if (argc - optind == 2)
		spec = argv[optind + 1];

	err = e4t_image_open_write(argv[optind], co.offset, &wo, &c.img);
	if (err) {
		e4t_source_free(c.src);
		return open_write_status(argv[optind], err);
	}
	c.dry_run = wo.dry_run;
	c.quiet = co.quiet;
	wc.image = c.img->name;
	wc.quiet = co.quiet;
	c.seen = calloc(c.img->fs->super->s_inodes_count / 8 + 1, 1);
	err = c.seen ? e4t_image_resolve(c.img, spec, &start) : ENOMEM;
	if (!err)
		err = e4t_tree_load(c.img, &topts, &tree);
	progress_done();
	if (!err) {
		char *path = strdup(spec);
		size_t n = path ? strlen(path) : 0;

		while (n > 1 && path[n - 1] == '/')
			path[--n] = '\0';
		c.tree = tree;
		err = path ? e4t_tree_walk(tree, start, path, on_row, &c)
			   : ENOMEM;
		free(path);
	}
	if (!err) {
		size_t i;

		/* inode order: see process() */
		if (c.ntodo)
			qsort(c.todo, c.ntodo, sizeof(*c.todo), cmp_todo);
		for (i = 0; i < c.ntodo && !err; i++)
			err = process(&c, &c.todo[i]);
	}
	for (size_t i = 0; i < c.ntodo; i++)
		free(c.todo[i].path);
	free(c.todo);
	if (lb_flush(&c.lb, stdout))
		err = errno ? errno : EIO;
	if (c.write_err) {
		report(c.img->name, "writing", c.write_err);
		status = EXIT_INTERNAL;
	} else if (err) {
		report(c.img->name, spec, err);
		status = err == E4T_ERR_NOT_FOUND || err == E4T_ERR_FILESPEC ||
					 err == E4T_ERR_INO_RANGE ||
					 err == E4T_ERR_NOT_IN_USE
				 ? EXIT_PARTIAL
				 : EXIT_INTERNAL;
	} else {
		summary(&c);
		if (wc.count || c.count[R_UNREADABLE])
			status = EXIT_PARTIAL;
	}
	e4t_tree_free(tree);
	lb_free(&c.lb);
	free(c.seen);
	e4t_source_free(c.src);
	if (wo.dry_run) {
		e4t_image_close(c.img);
		return finish_stdout(status);
	}
	return finish_write(c.img, status);
}

const struct cmdinfo backfill_cmd = {
	.name = "backfill",
	.func = backfill_main,
	.args = "[OPTIONS] IMAGE [FILESPEC] --from SOURCE",
	.oneline = "set crtime from Samba, netatalk, systemd or other xattrs",
	.help = backfill_help,
};
