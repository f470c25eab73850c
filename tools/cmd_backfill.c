/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_backfill.c --- e4time backfill: set each inode's crtime from a
 * creation time that other software stored in an xattr (Samba/ksmbd
 * DOSATTRIB, netatalk, systemd, or a named xattr), under a policy.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "lib/xsource.h"
#include "output.h"

enum { OPT_THREADS = OPT_COMMON_LAST };

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
		"per file\n"
		"      --threads N        threads: 0 chooses (default), 1 or "
		"2\n" WRITE_HELP "",
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

/* A file to look at: its inode and first name (at path_off in paths). */
struct todo {
	uint64_t path_off;
	ext2_ino_t ino;
	uint32_t path_len;
};

struct bf_ctx {
	struct e4t_image *img;
	struct e4t_source *src;
	enum e4t_policy policy;
	int jsonl, dry_run, quiet;
	int threads;	     /* --threads: 0 chooses, 1 or 2 */
	unsigned char *seen; /* one bit per inode: hard links count once */
	unsigned long scanned, count[R_COUNT];
	errcode_t write_err;
	struct e4t_tree *tree;
	struct todo *todo;
	size_t ntodo, todo_cap;
	char *paths; /* every todo's path, one after the other */
	size_t paths_len, paths_cap;
};

struct sched;

/* One thread's share of the files: its own read handle, batch and counts,
 * and the report of the chunk it is on. */
struct bf_job {
	struct bf_ctx *c;
	struct sched *s;
	struct e4t_image img; /* c->img, reading through fs */
	ext2_filsys fs;	      /* the job's own handle, or NULL: c->img's */
	struct e4t_batch *batch;
	struct lbuf out, err; /* report lines; damage lines for stderr */
	unsigned long scanned, count[R_COUNT];
	errcode_t write_err;
};

static void record(struct bf_job *j, const struct todo *row,
		   const struct e4t_inode *in, enum reason r,
		   const struct e4t_ts *to, int version, const char *xattr,
		   const char *why)
{
	const struct bf_ctx *c = j->c;
	const struct e4t_ts *cur = &in->ts[E4T_CRTIME];
	const char *path = c->paths + row->path_off;
	struct lbuf *b = &j->out;

	j->count[r]++;
	if (c->jsonl) {
		lb_putc(b, '{');
		esc_json_path(b, path, row->path_len);
		lb_printf(b, ",\"ino\":%u,\"action\":\"%s\"", in->ino,
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
		esc_text(b, path, row->path_len);
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
		char *name = escape_text(path, row->path_len);

		lb_printf(&j->err, "%s: %s: %s <%u>: %s%s%s: skipped\n",
			  progname, c->img->name, name ? name : "?", in->ino,
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
	while (c->paths_len + row->path_len > c->paths_cap) {
		size_t cap = c->paths_cap ? 2 * c->paths_cap : 1 << 20;
		char *p = realloc(c->paths, cap);

		if (!p)
			return ENOMEM;
		c->paths = p;
		c->paths_cap = cap;
	}
	memcpy(c->paths + c->paths_len, row->path, row->path_len);
	t = &c->todo[c->ntodo++];
	t->path_off = c->paths_len;
	t->path_len = (uint32_t)row->path_len;
	t->ino = ino;
	c->paths_len += row->path_len;
	return 0;
}

/*
 * Into inode order: a radix sort, 16 bits at a time (the walk's order is
 * a run of ascending inodes per directory; qsort took longer than the
 * whole walk).  Inodes are unique, so stability does not matter.
 */
static errcode_t sort_todo(struct bf_ctx *c)
{
	enum { BUCKETS = 65536 };
	size_t *count, i;
	struct todo *tmp, *from = c->todo, *to;
	int pass;

	for (i = 1; i < c->ntodo && c->todo[i - 1].ino < c->todo[i].ino; i++)
		;
	if (i >= c->ntodo)
		return 0; /* sorted already */
	tmp = malloc(c->ntodo * sizeof(*tmp));
	count = calloc(2 * ((size_t)BUCKETS + 1), sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return ENOMEM;
	}
	for (i = 0; i < c->ntodo; i++) {
		count[(c->todo[i].ino & 0xffff) + 1]++;
		count[BUCKETS + 1 + (c->todo[i].ino >> 16) + 1]++;
	}
	for (pass = 0; pass < 2; pass++) {
		size_t *n = count + (size_t)pass * (BUCKETS + 1);

		for (i = 1; i <= BUCKETS; i++)
			n[i] += n[i - 1];
		to = from == c->todo ? tmp : c->todo;
		for (i = 0; i < c->ntodo; i++) {
			unsigned d =
				pass ? from[i].ino >> 16 : from[i].ino & 0xffff;

			to[n[d]++] = from[i];
		}
		from = to;
	}
	/* two passes: the result is back in c->todo */
	free(tmp);
	free(count);
	return 0;
}

/*
 * One file, in inode order: the batch reads each inode-table block once,
 * for the xattrs in the inodes, and writes each changed block once.
 */
static int process(struct bf_job *j, const struct todo *row)
{
	const struct bf_ctx *c = j->c;
	struct ext2_inode_large *raw;
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
	j->scanned++;

	if (!(in->ts[E4T_CRTIME].flags & E4T_TS_STORED)) {
		record(j, row, in, R_TOO_SMALL, NULL, 0, NULL, NULL);
		return 0;
	}
	if (in->flags & E4T_INO_CSUM_BAD) {
		record(j, row, in, R_UNREADABLE, NULL, 0, NULL,
		       error_message(E4T_ERR_INODE_CSUM));
		return 0;
	}
	err = e4t_batch_inode(j->batch, in->ino, &raw);
	if (!err)
		err = e4t_xattr_get_first_raw(&j->img, in->ino, raw, names,
					      &val, &len, &which);
	if (err == E4T_ERR_NO_XATTR) {
		record(j, row, in, R_NO_XATTR, NULL, 0, NULL, NULL);
		return 0;
	}
	if (err) {
		record(j, row, in, R_UNREADABLE, NULL, 0, NULL,
		       error_message(err));
		return 0;
	}
	memset(&st, 0, sizeof(st));
	s = e4t_source_decode(c->src, names[which], val, len, &st);
	free(val);
	if (s == E4T_SRC_NO_TIME) {
		record(j, row, in, R_NO_TIME, NULL, st.version, names[which],
		       st.why);
		return 0;
	}
	if (s != E4T_SRC_OK) {
		record(j, row, in, R_INVALID, NULL, st.version, names[which],
		       st.why);
		return 0;
	}
	memset(ts, 0, sizeof(ts));
	ts[E4T_CRTIME].sec = st.sec;
	ts[E4T_CRTIME].nsec = st.nsec;
	ts[E4T_CRTIME].flags = E4T_TS_STORED | E4T_TS_EXTRA;
	if (!e4t_policy_wants(c->policy, &ts[E4T_CRTIME],
			      &in->ts[E4T_CRTIME])) {
		enum reason r = R_NOT_EARLIER;
		int cmp = e4t_ts_cmp(&ts[E4T_CRTIME], &in->ts[E4T_CRTIME]);

		if (c->policy == E4T_POLICY_MISSING &&
		    !(in->ts[E4T_CRTIME].flags & E4T_TS_ZERO))
			r = R_ALREADY_SET;
		else if (cmp == 0)
			r = R_EQUAL;
		record(j, row, in, r, &ts[E4T_CRTIME], st.version, names[which],
		       NULL);
		return 0;
	}
	err = e4t_check_settable(in, 1U << E4T_CRTIME, ts);
	if (err) {
		record(j, row, in,
		       err == E4T_ERR_NO_CRTIME_ROOM ? R_TOO_SMALL
						     : R_UNREADABLE,
		       &ts[E4T_CRTIME], st.version, names[which],
		       error_message(err));
		return 0;
	}
	if (!c->dry_run) {
		err = e4t_batch_set(j->batch, in->ino, 1U << E4T_CRTIME, ts);
		if (err) {
			j->write_err = err;
			return 1; /* stop: the undo file restores */
		}
	}
	record(j, row, in, R_CHANGED, &ts[E4T_CRTIME], st.version, names[which],
	       NULL);
	return 0;
}

/*
 * The files, in inode order, are cut into chunks that end on an inode-table
 * block boundary, so that no two chunks change the same block (see
 * e4t_batch_begin()).  With two threads, each takes the next chunk, with
 * its own handle and batch; the main thread writes the chunks' reports out
 * in order, so the report is the same whatever the threads.  A thread
 * stays at most CHUNKS_AHEAD chunks ahead of the report.
 */
#define CHUNK_MIN    64
#define CHUNK_MAX    8192
#define CHUNKS_AHEAD 4

struct chunk {
	size_t first, end; /* todo[first..end) */
	struct lbuf out, err;
	errcode_t write_err;
	int done;
};

struct sched {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk *chunks;
	size_t nchunks, next, emitted;
	int stop; /* a failed write or output: no more chunks */
};

static errcode_t make_chunks(struct bf_ctx *c, struct sched *s)
{
	size_t size = c->ntodo / 64, first = 0, cap = 0;

	if (size < CHUNK_MIN)
		size = CHUNK_MIN;
	if (size > CHUNK_MAX)
		size = CHUNK_MAX;
	while (first < c->ntodo) {
		size_t end = first + size < c->ntodo ? first + size : c->ntodo;
		blk64_t blk;

		if (end < c->ntodo) {
			blk = e4t_inode_table_block(c->img,
						    c->todo[end - 1].ino);
			while (end < c->ntodo &&
			       e4t_inode_table_block(c->img,
						     c->todo[end].ino) == blk)
				end++;
		}
		if (grow_array(&s->chunks, &cap, s->nchunks,
			       sizeof(*s->chunks)))
			return ENOMEM;
		memset(&s->chunks[s->nchunks], 0, sizeof(*s->chunks));
		s->chunks[s->nchunks].first = first;
		s->chunks[s->nchunks].end = end;
		s->nchunks++;
		first = end;
	}
	return 0;
}

/* The next chunk to do, into *k; 0 when there is none.  A helper waits
 * while it is too far ahead of the report. */
static int take(struct sched *s, int helper, size_t *k)
{
	int got;

	pthread_mutex_lock(&s->lock);
	while (helper && !s->stop && s->next < s->nchunks &&
	       s->next >= s->emitted + CHUNKS_AHEAD)
		pthread_cond_wait(&s->cond, &s->lock);
	got = !s->stop && s->next < s->nchunks;
	if (got)
		*k = s->next++;
	pthread_mutex_unlock(&s->lock);
	return got;
}

static void run_chunk(struct bf_job *j, size_t k)
{
	struct sched *s = j->s;
	struct chunk *ch = &s->chunks[k];
	errcode_t err;
	size_t i;

	for (i = ch->first; i < ch->end && !j->write_err; i++)
		if (process(j, &j->c->todo[i]))
			break;
	/* the chunk's writes: its files are reported as changed */
	err = e4t_batch_flush(j->batch);
	if (err && !j->write_err)
		j->write_err = err;
	pthread_mutex_lock(&s->lock);
	ch->out = j->out;
	ch->err = j->err;
	memset(&j->out, 0, sizeof(j->out));
	memset(&j->err, 0, sizeof(j->err));
	ch->write_err = j->write_err;
	if (j->write_err)
		s->stop = 1; /* stop: the undo file restores */
	ch->done = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void *helper_main(void *arg)
{
	struct bf_job *j = arg;
	size_t k;

	while (take(j->s, 1, &k))
		run_chunk(j, k);
	return NULL;
}

/* Write out the finished chunks that come next, in order. */
static errcode_t emit_ready(struct sched *s)
{
	errcode_t err = 0;

	for (;;) {
		struct chunk *ch;

		pthread_mutex_lock(&s->lock);
		if (s->emitted >= s->nchunks || !s->chunks[s->emitted].done) {
			pthread_mutex_unlock(&s->lock);
			return err;
		}
		ch = &s->chunks[s->emitted];
		pthread_mutex_unlock(&s->lock);
		if (lb_flush(&ch->out, stdout) && !err)
			err = errno ? errno : EIO;
		if (ch->err.len)
			fwrite(ch->err.p, 1, ch->err.len, stderr);
		lb_free(&ch->out);
		lb_free(&ch->err);
		pthread_mutex_lock(&s->lock);
		s->emitted++;
		if (err)
			s->stop = 1;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
}

static errcode_t job_init(struct bf_ctx *c, struct sched *s, struct bf_job *j,
			  int own_handle)
{
	errcode_t err;

	j->c = c;
	j->s = s;
	j->img = *c->img;
	if (own_handle) {
		err = e4t_image_reopen(c->img, &j->fs);
		if (err)
			return err;
		j->img.fs = j->fs;
	}
	/* writes through c->img, under its write lock */
	return e4t_batch_begin(c->img, j->fs, &j->batch);
}

static errcode_t job_end(struct bf_ctx *c, struct bf_job *j)
{
	errcode_t err = e4t_batch_end(j->batch);
	int r;

	j->batch = NULL;
	if (j->fs)
		ext2fs_close_free(&j->fs);
	c->scanned += j->scanned;
	for (r = 0; r < R_COUNT; r++)
		c->count[r] += j->count[r];
	lb_free(&j->out);
	lb_free(&j->err);
	return err;
}

/* Two threads for many files on two or more CPUs, or as --threads says. */
static int threads_for(const struct bf_ctx *c)
{
	if (c->threads)
		return c->threads;
	return c->ntodo >= 65536 && sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

static errcode_t process_all(struct bf_ctx *c)
{
	struct sched s = { .lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER };
	struct bf_job jobs[2];
	int n = threads_for(c), helper = 0, i;
	pthread_t thread;
	errcode_t err, out_err = 0;
	size_t k;

	memset(jobs, 0, sizeof(jobs));
	err = make_chunks(c, &s);
	if (!err)
		err = job_init(c, &s, &jobs[0], n > 1);
	/* no second handle or thread: the main thread does it all */
	if (!err && n > 1 && !job_init(c, &s, &jobs[1], 1))
		helper = !pthread_create(&thread, NULL, helper_main, &jobs[1]);
	while (!err && take(&s, 0, &k)) {
		run_chunk(&jobs[0], k);
		if (!out_err)
			out_err = emit_ready(&s);
	}
	/* what the helper still does */
	for (;;) {
		errcode_t e = emit_ready(&s);
		int left;

		if (e && !out_err)
			out_err = e;
		pthread_mutex_lock(&s.lock);
		left = s.emitted < s.next;
		if (left && !s.chunks[s.emitted].done)
			pthread_cond_wait(&s.cond, &s.lock);
		pthread_mutex_unlock(&s.lock);
		if (!left)
			break;
	}
	if (helper)
		pthread_join(thread, NULL);
	for (k = 0; k < s.nchunks; k++) {
		if (s.chunks[k].write_err && !c->write_err)
			c->write_err = s.chunks[k].write_err;
		lb_free(&s.chunks[k].out);
		lb_free(&s.chunks[k].err);
	}
	for (i = 0; i < 2; i++) {
		errcode_t e = jobs[i].c ? job_end(c, &jobs[i]) : 0;

		if (e && !c->write_err)
			c->write_err = e;
	}
	free(s.chunks);
	return err ? err : out_err;
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
		{ "threads", required_argument, NULL, OPT_THREADS },
		WRITE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0 };
	struct e4t_refusal why = { "", 0 };
	struct e4t_write_opts wo = { .why = &why };
	struct bf_ctx c = { .policy = E4T_POLICY_EARLIER };
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
		case OPT_THREADS:
			if (strcmp(optarg, "0") && strcmp(optarg, "1") &&
			    strcmp(optarg, "2"))
				usage_error(&backfill_cmd,
					    "--threads '%s': use 0 (choose), 1 "
					    "or 2",
					    optarg);
			c.threads = topts.threads = optarg[0] - '0';
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
		return open_write_status(argv[optind], &wo, err);
	}
	c.dry_run = wo.dry_run;
	c.quiet = co.quiet;
	wc.image = c.img->name;
	wc.quiet = co.quiet;
	c.seen = calloc(c.img->fs->super->s_inodes_count / 8 + 1, 1);
	err = c.seen ? e4t_image_resolve(c.img, spec, &start) : ENOMEM;
	if (!err) {
		err = e4t_tree_load(c.img, &topts, &tree);
		progress_done();
		if (err) {
			status = index_error_status(c.img->name, err);
			goto done;
		}
	}
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
	/* inode order: see process() */
	if (!err)
		err = sort_todo(&c);
	if (!err)
		err = process_all(&c);
	free(c.todo);
	free(c.paths);
	if (c.write_err) {
		status = write_error_status(c.img, "writing", c.write_err);
	} else if (err) {
		report(c.img->name, spec, err);
		status = err == E4T_ERR_NOT_FOUND || err == E4T_ERR_FILESPEC ||
					 err == E4T_ERR_INO_RANGE ||
					 err == E4T_ERR_NOT_IN_USE ||
					 err == E4T_ERR_NOT_DIR ||
					 err == EXT2_ET_SYMLINK_LOOP
				 ? EXIT_PARTIAL
				 : EXIT_INTERNAL;
	} else {
		summary(&c);
		if (wc.count || c.count[R_UNREADABLE])
			status = EXIT_PARTIAL;
	}
done:
	e4t_tree_free(tree);
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
