/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * treepipe.c --- e4t_tree_walk on a second thread.  The walk (paths,
 * decoded inodes) fills batches; the caller's thread takes them in order
 * and runs its row function (a timeline formats the rows) meanwhile.
 * The walk's warnings travel in the batches, in their place among the
 * rows, so what is written and in what order is the same as with one
 * thread.  The walk touches only the tree; the caller's thread only the
 * batches it has been handed.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "fs/tree_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PIPE_ROWS  1024	      /* items in a batch */
#define PIPE_BYTES (1U << 18) /* or path bytes, whichever comes first */
/*
 * The faster thread waits in long stretches: the walk, finding every
 * batch full, sleeps until half of them are free again; the formatting,
 * finding none full, until half are full (or the walk is done).  A wake-up
 * costs an interrupt between CPUs (dear in a virtual machine), and a
 * thread spinning while it waits burns a CPU the other may share (as a
 * hyperthread, or on a host that runs both virtual CPUs): so neither
 * spins, and a wake-up comes once per PIPE_BATCHES / 2 batches at most.
 */
#define PIPE_BATCHES 8

/* A row, or a warning (is_warn: err, inode.ino, detail). */
struct pitem {
	struct e4t_inode inode;
	size_t path; /* offset in the batch's bytes */
	size_t path_len;
	ext2_ino_t parent;
	uint8_t status;
	uint8_t is_warn;
	uint8_t has_detail;
	errcode_t err;
} __attribute__((aligned(64)));

/*
 * Write an item where the other CPU reads it with stores that bypass the
 * cache, so that the line the other CPU read last time round is not
 * fetched back first.  On this project's VM the walk took three to four
 * times as long in some runs, seemingly when its two CPUs shared no
 * cache; streaming the items cut those runs by a quarter (0.23 -> 0.17 s
 * on 1,000,000 rows) and costs nothing in the others.
 */
static void put_item(struct pitem *dst, const struct pitem *src)
{
#if defined(__SSE2__)
	__m128i *d = (__m128i *)dst;
	const __m128i *s = (const __m128i *)src;
	size_t i;

	for (i = 0; i < sizeof(*dst) / sizeof(*d); i++)
		_mm_stream_si128(d + i, _mm_load_si128(s + i));
#else
	*dst = *src;
#endif
}

/* The streamed items are seen before the counter that hands them over. */
static void publish_fence(void)
{
#if defined(__SSE2__)
	_mm_sfence();
#endif
}

struct pbatch {
	struct pitem items[PIPE_ROWS];
	size_t n;
	char *bytes;
	size_t len, cap;
};

struct pipe {
	struct e4t_tree *tree;
	ext2_ino_t start;
	const char *start_path;
	struct pbatch b[PIPE_BATCHES];

	/* batches handed over and taken back, ever (batch: count % N);
	 * done: the walk returned walk_err; stop: the consumer stopped */
	unsigned produced, consumed;
	int done, stop;
	errcode_t walk_err;
	/* a thread with nothing to do sleeps here */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int sleeps[2]; /* WALK, FORMAT: that thread sleeps */
};

enum { WALK, FORMAT };

static unsigned load(const unsigned *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

/* Wake the other thread if it sleeps and may go on (ready). */
static void wake(struct pipe *p, int who, int (*ready)(struct pipe *))
{
	if (__atomic_load_n(&p->sleeps[who], __ATOMIC_SEQ_CST) && ready(p)) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
	}
}

/* Sleep until ready(p); sleeps[who] says so meanwhile (see wake()). */
static void wait_until(struct pipe *p, int who, int (*ready)(struct pipe *))
{
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->sleeps[who], 1, __ATOMIC_SEQ_CST);
	while (!ready(p))
		pthread_cond_wait(&p->cv, &p->lock);
	__atomic_store_n(&p->sleeps[who], 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&p->lock);
}

static unsigned queued(struct pipe *p)
{
	return load(&p->produced) - load(&p->consumed);
}

/* The walk may go on: half of the batches are free, or no one reads. */
static int room(struct pipe *p)
{
	return queued(p) <= PIPE_BATCHES / 2 ||
	       __atomic_load_n(&p->stop, __ATOMIC_SEQ_CST);
}

/* The formatting may go on: half of the batches are full, or the walk
 * is done. */
static int filled(struct pipe *p)
{
	return queued(p) >= PIPE_BATCHES / 2 ||
	       __atomic_load_n(&p->done, __ATOMIC_SEQ_CST);
}

static struct pbatch *cur(struct pipe *p)
{
	return &p->b[p->produced % PIPE_BATCHES];
}

/* Hand the batch being filled over; wait for a free one. */
static void pass_on(struct pipe *p)
{
	publish_fence();
	__atomic_add_fetch(&p->produced, 1, __ATOMIC_SEQ_CST);
	wake(p, FORMAT, filled);
	if (queued(p) == PIPE_BATCHES)
		wait_until(p, WALK, room);
	cur(p)->n = 0;
	cur(p)->len = 0;
}

/* Room for an item and len more bytes in the batch being filled. */
static struct pitem *new_item(struct pipe *p, size_t len, char **at,
			      size_t *off)
{
	struct pbatch *b = cur(p);

	if (b->n == PIPE_ROWS || (b->n && b->len + len > PIPE_BYTES)) {
		pass_on(p);
		b = cur(p);
	}
	if (e4t_grow(&b->bytes, &b->cap, b->len + len, 1, PIPE_BYTES))
		return NULL;
	*at = b->bytes + b->len;
	*off = b->len;
	b->len += len;
	return &b->items[b->n++];
}

static int put_row(const struct e4t_row *row, void *priv)
{
	struct pipe *p = priv;
	struct pitem *it, tmp;
	size_t off;
	char *at;

	if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
		return -1; /* the consumer has its own reason */
	it = new_item(p, row->path_len + 1, &at, &off);
	if (!it)
		return ENOMEM;
	memcpy(at, row->path, row->path_len);
	at[row->path_len] = '\0';
	tmp.path = off;
	tmp.path_len = row->path_len;
	tmp.inode = *row->inode;
	tmp.parent = row->parent;
	tmp.status = (uint8_t)row->status;
	tmp.is_warn = 0;
	tmp.has_detail = 0;
	tmp.err = 0;
	put_item(it, &tmp);
	return 0;
}

static void put_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		     void *priv)
{
	struct pipe *p = priv;
	size_t len = detail ? strlen(detail) + 1 : 0, off;
	struct pitem *it;
	char *at;

	it = new_item(p, len, &at, &off);
	if (!it)
		return; /* the next row fails with ENOMEM */
	it->path = off;
	if (detail)
		memcpy(at, detail, len);
	it->is_warn = 1;
	it->has_detail = detail != NULL;
	it->err = err;
	it->inode.ino = ino;
}

static void *producer(void *arg)
{
	struct pipe *p = arg;
	errcode_t err;

	err = e4t_tree_walk_warn(p->tree, p->start, p->start_path, put_row, p,
				 put_warn, p);
	p->walk_err = err;
	publish_fence();
	if (cur(p)->n)
		__atomic_add_fetch(&p->produced, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
	wake(p, FORMAT, filled);
	return NULL;
}

/* Run fn and warn over one batch; fn's non-zero return is returned. */
static int consume(struct pbatch *b, e4t_row_fn fn, void *priv,
		   e4t_warn_fn warn, void *wpriv)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct pitem *it = &b->items[i];
		struct e4t_row row;
		int rc;

		if (it->is_warn) {
			if (warn)
				warn(it->err, it->inode.ino,
				     it->has_detail ? b->bytes + it->path
						    : NULL,
				     wpriv);
			continue;
		}
		row.path = b->bytes + it->path;
		row.path_len = it->path_len;
		row.inode = &it->inode;
		row.status = (enum e4t_status)it->status;
		row.parent = it->parent;
		row.name_source = NULL;
		row.journal = NULL;
		rc = fn(&row, priv);
		if (rc)
			return rc;
	}
	return 0;
}

static int want_thread(int threads)
{
	if (threads == 1)
		return 0;
	return threads >= 2 || e4t_cpus_free(2) >= 2;
}

errcode_t e4t_tree_walk_threaded(struct e4t_tree *tree, ext2_ino_t start,
				 const char *start_path, int threads,
				 e4t_row_fn fn, void *priv, e4t_warn_fn warn,
				 void *wpriv)
{
	struct pipe *p;
	pthread_t worker;
	int rc = 0, threaded;
	errcode_t err;
	unsigned i;

	/* a tree that reads its directories as it walks: on this thread */
	if (!want_thread(threads) || tree->walk_reads)
		return e4t_tree_walk_warn(tree, start, start_path, fn, priv,
					  warn, wpriv);
	if (posix_memalign((void **)&p, 64, sizeof(*p)))
		return ENOMEM;
	memset(p, 0, sizeof(*p));
	p->tree = tree;
	p->start = start;
	p->start_path = start_path;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	threaded = !pthread_create(&worker, NULL, producer, p);
	while (threaded) {
		if (!queued(p) && !__atomic_load_n(&p->done, __ATOMIC_SEQ_CST))
			wait_until(p, FORMAT, filled);
		if (!queued(p))
			break; /* done, and nothing left */
		if (!rc)
			rc = consume(&p->b[p->consumed % PIPE_BATCHES], fn,
				     priv, warn, wpriv);
		if (rc)
			__atomic_store_n(&p->stop, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&p->consumed, 1, __ATOMIC_SEQ_CST);
		wake(p, WALK, room);
	}
	if (threaded)
		pthread_join(worker, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->lock);
	for (i = 0; i < PIPE_BATCHES; i++)
		free(p->b[i].bytes);
	err = p->walk_err;
	free(p);
	if (!threaded) /* no second thread: walk on this one */
		return e4t_tree_walk_warn(tree, start, start_path, fn, priv,
					  warn, wpriv);
	return rc ? rc : err;
}
