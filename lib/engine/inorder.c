/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inorder.c --- work on inodes in inode order (backfill, import).  The
 * items are cut into chunks that end on an inode-table block boundary,
 * so that no two chunks change the same block (see e4t_batch_begin()).
 * With two threads, each takes the next chunk, with its own handle and
 * batch; the calling thread hands the chunks' results out in order, so
 * the results are the same whatever the threads.  A thread stays at most
 * CHUNKS_AHEAD chunks ahead of the results handed out.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "inorder_int.h"

#define CHUNK_MIN    64
#define CHUNK_MAX    8192
#define CHUNKS_AHEAD 4

struct chunk {
	size_t first, end; /* items [first, end) */
	void *out;	   /* work's results */
	errcode_t write_err, err;
	int done;
};

struct sched {
	const struct e4t_inorder *o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct chunk *chunks;
	size_t nchunks, next, emitted;
	int stop; /* a failed write, error or emit: no more chunks */
};

static errcode_t make_chunks(struct sched *s)
{
	const struct e4t_inorder *o = s->o;
	size_t size = o->n / 64, first = 0, cap = 0;

	if (size < CHUNK_MIN)
		size = CHUNK_MIN;
	if (size > CHUNK_MAX)
		size = CHUNK_MAX;
	while (first < o->n) {
		size_t end = first + size < o->n ? first + size : o->n;
		blk64_t blk;

		if (end < o->n) {
			blk = e4t_inode_table_block(o->img,
						    o->ino(o->priv, end - 1));
			while (end < o->n &&
			       e4t_inode_table_block(
				       o->img, o->ino(o->priv, end)) == blk)
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
 * while it is too far ahead of the results handed out. */
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

struct helper {
	struct sched *s;
	struct e4t_inorder_job *j;
};

static void run_chunk(struct sched *s, struct e4t_inorder_job *j, size_t k)
{
	const struct e4t_inorder *o = s->o;
	struct chunk *ch = &s->chunks[k];
	void *out = NULL;
	errcode_t err, e;

	/* out: the results, from work's first call on (see flushed()) */
	j->out = NULL;
	err = o->work(o->priv, j, ch->first, ch->end, &j->out);
	/* the chunk's writes: its results say they are written */
	e = e4t_batch_flush(j->batch);
	if (e && !j->write_err)
		j->write_err = e;
	out = j->out;
	j->out = NULL;
	pthread_mutex_lock(&s->lock);
	ch->out = out;
	ch->write_err = j->write_err;
	ch->err = err;
	if (j->write_err || err)
		s->stop = 1; /* stop: the undo file restores */
	ch->done = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	size_t k;

	while (take(h->s, 1, &k))
		run_chunk(h->s, h->j, k);
	return NULL;
}

/* Hand out the results of the finished chunks that come next, in order;
 * emit's first non-zero value. */
static errcode_t emit_ready(struct sched *s)
{
	const struct e4t_inorder *o = s->o;
	errcode_t err = 0;

	for (;;) {
		struct chunk *ch;
		int rc;

		pthread_mutex_lock(&s->lock);
		if (s->emitted >= s->nchunks || !s->chunks[s->emitted].done) {
			pthread_mutex_unlock(&s->lock);
			return err;
		}
		ch = &s->chunks[s->emitted];
		pthread_mutex_unlock(&s->lock);
		rc = o->emit(o->priv, ch->out);
		ch->out = NULL;
		if (rc && !err)
			err = rc;
		pthread_mutex_lock(&s->lock);
		s->emitted++;
		if (err)
			s->stop = 1;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
}

struct flush_ctx {
	const struct e4t_inorder *o;
	struct e4t_inorder_job *j;
};

/* A flush of j's batch: the chunk's results are told. */
static void flushed(void *priv, errcode_t err)
{
	struct flush_ctx *f = priv;

	if (f->o->flushed && f->j->out)
		f->o->flushed(f->o->priv, f->j, f->j->out, err);
}

static errcode_t job_init(const struct e4t_inorder *o,
			  struct e4t_inorder_job *j, struct flush_ctx *f,
			  int index, int own_handle)
{
	errcode_t err;

	j->index = index;
	j->img = *o->img;
	if (own_handle) {
		err = e4t_image_reopen(o->img, &j->fs);
		if (err)
			return err;
		j->img.fs = j->fs;
	}
	/* writes through o->img, under its write lock */
	err = e4t_batch_begin(o->img, j->fs, &j->batch);
	if (err)
		return err;
	f->o = o;
	f->j = j;
	e4t_batch_on_flush(j->batch, flushed, f);
	return 0;
}

static errcode_t job_end(struct e4t_inorder_job *j)
{
	errcode_t err = e4t_batch_end(j->batch);

	j->batch = NULL;
	if (j->fs)
		ext2fs_close_free(&j->fs);
	return err;
}

/* Two threads for many items on two or more CPUs, or as told. */
static int threads_for(const struct e4t_inorder *o)
{
	if (o->threads)
		return o->threads;
	return o->n >= 65536 && sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

errcode_t e4t_inorder_run(const struct e4t_inorder *o, errcode_t *write_err)
{
	struct sched s = { .o = o,
			   .lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER };
	struct e4t_inorder_job jobs[2];
	struct flush_ctx fc[2];
	struct helper h = { &s, &jobs[1] };
	int n = threads_for(o), helper = 0, started[2] = { 0, 0 }, i;
	pthread_t thread;
	errcode_t err, out_err = 0;
	size_t k;

	*write_err = 0;
	memset(jobs, 0, sizeof(jobs));
	err = make_chunks(&s);
	if (!err) {
		err = job_init(o, &jobs[0], &fc[0], 0, n > 1);
		started[0] = 1;
	}
	/* no second handle or thread: the calling thread does it all */
	if (!err && n > 1) {
		started[1] = 1;
		if (!job_init(o, &jobs[1], &fc[1], 1, 1))
			helper =
				!pthread_create(&thread, NULL, helper_main, &h);
	}
	while (!err && take(&s, 0, &k)) {
		run_chunk(&s, &jobs[0], k);
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
		if (s.chunks[k].write_err && !*write_err)
			*write_err = s.chunks[k].write_err;
		if (s.chunks[k].err && !out_err)
			out_err = s.chunks[k].err;
		if (s.chunks[k].out)
			o->drop(o->priv, s.chunks[k].out);
	}
	for (i = 0; i < 2; i++) {
		errcode_t e = started[i] ? job_end(&jobs[i]) : 0;

		if (e && !*write_err)
			*write_err = e;
	}
	free(s.chunks);
	return err ? err : out_err;
}
