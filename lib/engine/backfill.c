/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backfill.c --- set each inode's crtime from a creation time that other
 * software stored in an xattr (Samba/ksmbd DOSATTRIB, netatalk, systemd,
 * or a named xattr), under a policy: the plan (the tree walked into a
 * list of inodes and first names, sorted), the chunks and threads, the
 * decision for each file and the writing.  The caller formats the
 * records (see e4t_backfill_run() in e4time.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "sources/xsource.h"

static const char *const reason_name[E4T_BF_NREASONS] = {
	"changed",	 "no_xattr",	    "no_create_time",
	"invalid_value", "not_earlier",	    "crtime_already_set",
	"already_equal", "inode_too_small", "unreadable",
};

static const char *const reason_text[E4T_BF_NREASONS] = {
	"changed",	 "no xattr",	    "no create time in it",
	"invalid value", "not earlier",	    "crtime already set",
	"already equal", "inode too small", "unreadable",
};

const char *e4t_bf_reason_name(enum e4t_bf_reason r)
{
	return (unsigned)r < E4T_BF_NREASONS ? reason_name[r] : NULL;
}

const char *e4t_bf_reason_text(enum e4t_bf_reason r)
{
	return (unsigned)r < E4T_BF_NREASONS ? reason_text[r] : NULL;
}

/* A file to look at: its inode and first name (at path_off in paths). */
struct todo {
	uint64_t path_off;
	ext2_ino_t ino;
	uint32_t path_len;
};

struct bf_ctx {
	struct e4t_image *img;
	struct e4t_tree *tree;
	const struct e4t_backfill_opts *o;
	unsigned char *seen; /* one bit per inode: hard links count once */
	struct todo *todo;
	size_t ntodo, todo_cap;
	char *paths; /* every todo's path, one after the other */
	size_t paths_len, paths_cap;
	struct e4t_backfill_stats *st;
};

struct sched;

/* One thread's share of the files: its own read handle, batch and counts,
 * and the records of the chunk it is on. */
struct bf_job {
	struct bf_ctx *c;
	struct sched *s;
	struct e4t_image img; /* c->img, reading through fs */
	ext2_filsys fs;	      /* the job's own handle, or NULL: c->img's */
	struct e4t_batch *batch;
	struct e4t_backfill_rec *recs;
	size_t nrecs, recs_cap;
	errcode_t mem_err; /* a record could not be kept */
	unsigned long scanned, count[E4T_BF_NREASONS];
	errcode_t write_err;
};

static void record(struct bf_job *j, const struct todo *row,
		   const struct e4t_inode *in, enum e4t_bf_reason r,
		   const struct e4t_ts *to, int version, const char *xattr,
		   const char *why)
{
	struct e4t_backfill_rec *rec;

	j->count[r]++;
	if (e4t_grow(&j->recs, &j->recs_cap, j->nrecs + 1, sizeof(*j->recs),
		     256)) {
		j->mem_err = ENOMEM;
		return;
	}
	rec = &j->recs[j->nrecs++];
	memset(rec, 0, sizeof(*rec));
	rec->path = j->c->paths + row->path_off;
	rec->path_len = row->path_len;
	rec->ino = in->ino;
	rec->reason = r;
	rec->crtime = in->ts[E4T_CRTIME];
	if (to)
		rec->source_time = *to;
	rec->version = version;
	rec->xattr = xattr;
	rec->why = why;
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
	if (e4t_grow(&c->todo, &c->todo_cap, c->ntodo + 1, sizeof(*c->todo),
		     1024) ||
	    e4t_grow(&c->paths, &c->paths_cap, c->paths_len + row->path_len, 1,
		     1 << 20))
		return ENOMEM;
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
	const struct e4t_backfill_opts *o = c->o;
	struct ext2_inode_large *raw;
	struct e4t_inode info, *in = &info;
	const char *const *names = e4t_source_xattrs(o->src);
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
		record(j, row, in, E4T_BF_TOO_SMALL, NULL, 0, NULL, NULL);
		return 0;
	}
	if (in->flags & E4T_INO_CSUM_BAD) {
		record(j, row, in, E4T_BF_UNREADABLE, NULL, 0, NULL,
		       error_message(E4T_ERR_INODE_CSUM));
		return 0;
	}
	err = e4t_batch_inode(j->batch, in->ino, &raw);
	if (!err)
		err = e4t_xattr_get_first_raw(&j->img, in->ino, raw, names,
					      &val, &len, &which);
	if (err == E4T_ERR_NO_XATTR) {
		record(j, row, in, E4T_BF_NO_XATTR, NULL, 0, NULL, NULL);
		return 0;
	}
	if (err) {
		record(j, row, in, E4T_BF_UNREADABLE, NULL, 0, NULL,
		       error_message(err));
		return 0;
	}
	memset(&st, 0, sizeof(st));
	s = e4t_source_decode(o->src, names[which], val, len, &st);
	free(val);
	if (s == E4T_SRC_NO_TIME) {
		record(j, row, in, E4T_BF_NO_TIME, NULL, st.version,
		       names[which], st.why);
		return 0;
	}
	if (s != E4T_SRC_OK) {
		record(j, row, in, E4T_BF_INVALID, NULL, st.version,
		       names[which], st.why);
		return 0;
	}
	memset(ts, 0, sizeof(ts));
	ts[E4T_CRTIME].sec = st.sec;
	ts[E4T_CRTIME].nsec = st.nsec;
	ts[E4T_CRTIME].flags = E4T_TS_STORED | E4T_TS_EXTRA;
	if (!e4t_policy_wants(o->policy, &ts[E4T_CRTIME],
			      &in->ts[E4T_CRTIME])) {
		enum e4t_bf_reason r = E4T_BF_NOT_EARLIER;
		int cmp = e4t_ts_cmp(&ts[E4T_CRTIME], &in->ts[E4T_CRTIME]);

		if (o->policy == E4T_POLICY_MISSING &&
		    !(in->ts[E4T_CRTIME].flags & E4T_TS_ZERO))
			r = E4T_BF_ALREADY_SET;
		else if (cmp == 0)
			r = E4T_BF_EQUAL;
		record(j, row, in, r, &ts[E4T_CRTIME], st.version, names[which],
		       NULL);
		return 0;
	}
	err = e4t_check_settable(in, 1U << E4T_CRTIME, ts);
	if (err) {
		record(j, row, in,
		       err == E4T_ERR_NO_CRTIME_ROOM ? E4T_BF_TOO_SMALL
						     : E4T_BF_UNREADABLE,
		       &ts[E4T_CRTIME], st.version, names[which],
		       error_message(err));
		return 0;
	}
	if (!o->dry_run) {
		err = e4t_batch_set(j->batch, in->ino, 1U << E4T_CRTIME, ts);
		if (err) {
			j->write_err = err;
			return 1; /* stop: the undo file restores */
		}
	}
	record(j, row, in, E4T_BF_CHANGED, &ts[E4T_CRTIME], st.version,
	       names[which], NULL);
	return 0;
}

/*
 * The files, in inode order, are cut into chunks that end on an inode-table
 * block boundary, so that no two chunks change the same block (see
 * e4t_batch_begin()).  With two threads, each takes the next chunk, with
 * its own handle and batch; the calling thread hands the chunks' records
 * out in order, so the records are the same whatever the threads.  A
 * thread stays at most CHUNKS_AHEAD chunks ahead of the records handed
 * out.
 */
#define CHUNK_MIN    64
#define CHUNK_MAX    8192
#define CHUNKS_AHEAD 4

struct chunk {
	size_t first, end; /* todo[first..end) */
	struct e4t_backfill_rec *recs;
	size_t nrecs;
	errcode_t write_err, mem_err;
	int done;
};

struct sched {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk *chunks;
	size_t nchunks, next, emitted;
	int stop; /* a failed write or callback: no more chunks */
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
		if (e4t_grow(&s->chunks, &cap, s->nchunks + 1,
			     sizeof(*s->chunks), 64))
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
 * while it is too far ahead of the records handed out. */
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
	/* the chunk's writes: its files are recorded as changed */
	err = e4t_batch_flush(j->batch);
	if (err && !j->write_err)
		j->write_err = err;
	pthread_mutex_lock(&s->lock);
	ch->recs = j->recs;
	ch->nrecs = j->nrecs;
	j->recs = NULL;
	j->nrecs = j->recs_cap = 0;
	ch->write_err = j->write_err;
	ch->mem_err = j->mem_err;
	j->mem_err = 0;
	if (j->write_err || ch->mem_err)
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

/* Hand out the records of the finished chunks that come next, in order;
 * the first callback's non-zero value. */
static errcode_t emit_ready(const struct bf_ctx *c, struct sched *s)
{
	const struct e4t_backfill_opts *o = c->o;
	errcode_t err = 0;

	for (;;) {
		struct chunk *ch;
		size_t i;
		int rc = 0;

		pthread_mutex_lock(&s->lock);
		if (s->emitted >= s->nchunks || !s->chunks[s->emitted].done) {
			pthread_mutex_unlock(&s->lock);
			return err;
		}
		ch = &s->chunks[s->emitted];
		pthread_mutex_unlock(&s->lock);
		for (i = 0; i < ch->nrecs && !rc; i++)
			rc = o->record ? o->record(&ch->recs[i], o->priv) : 0;
		if (o->chunk_done) {
			int r = o->chunk_done(o->priv);

			if (!rc)
				rc = r;
		}
		if (rc && !err)
			err = rc;
		free(ch->recs);
		ch->recs = NULL;
		ch->nrecs = 0;
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
	c->st->scanned += j->scanned;
	for (r = 0; r < E4T_BF_NREASONS; r++)
		c->st->count[r] += j->count[r];
	free(j->recs);
	j->recs = NULL;
	return err;
}

/* Two threads for many files on two or more CPUs, or as opts say. */
static int threads_for(const struct bf_ctx *c)
{
	if (c->o->threads)
		return c->o->threads;
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
	/* no second handle or thread: the calling thread does it all */
	if (!err && n > 1 && !job_init(c, &s, &jobs[1], 1))
		helper = !pthread_create(&thread, NULL, helper_main, &jobs[1]);
	while (!err && take(&s, 0, &k)) {
		run_chunk(&jobs[0], k);
		if (!out_err)
			out_err = emit_ready(c, &s);
	}
	/* what the helper still does */
	for (;;) {
		errcode_t e = emit_ready(c, &s);
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
		if (s.chunks[k].write_err && !c->st->write_err)
			c->st->write_err = s.chunks[k].write_err;
		if (s.chunks[k].mem_err && !out_err)
			out_err = s.chunks[k].mem_err;
		free(s.chunks[k].recs);
	}
	for (i = 0; i < 2; i++) {
		errcode_t e = jobs[i].c ? job_end(c, &jobs[i]) : 0;

		if (e && !c->st->write_err)
			c->st->write_err = e;
	}
	free(s.chunks);
	return err ? err : out_err;
}

errcode_t e4t_backfill_run(struct e4t_image *img, struct e4t_tree *tree,
			   ext2_ino_t start, const char *start_path,
			   const struct e4t_backfill_opts *opts,
			   struct e4t_backfill_stats *stats)
{
	struct bf_ctx c;
	errcode_t err;

	memset(stats, 0, sizeof(*stats));
	if (!opts->src || opts->threads < 0 || opts->threads > 2)
		return EINVAL;
	memset(&c, 0, sizeof(c));
	c.img = img;
	c.tree = tree;
	c.o = opts;
	c.st = stats;
	c.seen = calloc(img->fs->super->s_inodes_count / 8 + 1, 1);
	if (!c.seen)
		return ENOMEM;
	err = e4t_tree_walk(tree, start, start_path, on_row, &c);
	free(c.seen);
	/* inode order: see process() */
	if (!err)
		err = sort_todo(&c);
	if (!err)
		err = process_all(&c);
	free(c.todo);
	free(c.paths);
	return err;
}
