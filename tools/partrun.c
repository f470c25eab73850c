/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * partrun.c --- parts made on several threads, written in order
 * (partrun.h).  The parts in flight are a window of slots: part i uses
 * slot i % window, and is not begun before part i - window is written, so
 * memory stays at a window's buffers whatever the output's size; a
 * slot's buffer keeps its size from part to part (no fresh pages to
 * fault in).  Threads wait on one condition, a wake-up a part at most:
 * none hands another anything smaller than a part.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partrun.h"

#define SLOTS_PER_WORKER 3

struct runner {
	const struct part_run *r;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct part_out *slot;
	size_t window;
	size_t next_make;  /* the next part to begin */
	size_t next_write; /* the next part to write */
	int stop;	   /* an error: begin nothing more */
};

/* Under the lock: the next part a worker may begin, or nparts. */
static size_t claim(struct runner *u)
{
	if (u->stop || u->next_make >= u->r->nparts ||
	    u->next_make >= u->next_write + u->window)
		return u->r->nparts;
	return u->next_make++;
}

static void make_part(struct runner *u, size_t i, void *worker)
{
	struct part_out *o = &u->slot[i % u->window];
	errcode_t err;

	err = u->r->make(i, o, worker);
	pthread_mutex_lock(&u->lock);
	o->err = err;
	o->done = 1;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
}

struct worker_arg {
	struct runner *u;
	void *worker;
};

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;
	struct runner *u = a->u;

	pthread_mutex_lock(&u->lock);
	for (;;) {
		size_t i = claim(u);

		if (i < u->r->nparts) {
			pthread_mutex_unlock(&u->lock);
			make_part(u, i, a->worker);
			pthread_mutex_lock(&u->lock);
			continue;
		}
		if (u->stop || u->next_make >= u->r->nparts)
			break;
		pthread_cond_wait(&u->cond, &u->lock);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* The caller's thread: write what is ready, else make a part, else wait. */
static errcode_t lead(struct runner *u)
{
	const struct part_run *r = u->r;
	errcode_t err = 0;

	pthread_mutex_lock(&u->lock);
	while (u->next_write < r->nparts) {
		struct part_out *o = &u->slot[u->next_write % u->window];
		size_t i;

		if (o->done) {
			int rc;

			pthread_mutex_unlock(&u->lock);
			rc = r->write(o, r->priv);
			o->lb.len = 0;
			if (o->err || rc) {
				err = o->err ? o->err : (errcode_t)rc;
				pthread_mutex_lock(&u->lock);
				u->stop = 1;
				pthread_cond_broadcast(&u->cond);
				break;
			}
			pthread_mutex_lock(&u->lock);
			o->done = 0;
			u->next_write++;
			pthread_cond_broadcast(&u->cond);
			continue;
		}
		i = claim(u);
		if (i < r->nparts) {
			pthread_mutex_unlock(&u->lock);
			make_part(u, i, r->workers[0]);
			pthread_mutex_lock(&u->lock);
			continue;
		}
		pthread_cond_wait(&u->cond, &u->lock);
	}
	pthread_mutex_unlock(&u->lock);
	return err;
}

errcode_t part_run(const struct part_run *r)
{
	struct runner u = { .r = r };
	pthread_t *tid = NULL;
	struct worker_arg *args = NULL;
	int nw = r->nworkers > 0 ? r->nworkers : 1, started = 0, k;
	errcode_t err;
	size_t i;

	if (!r->nparts)
		return 0;
	u.window = (size_t)nw * SLOTS_PER_WORKER;
	if (u.window > r->nparts)
		u.window = r->nparts;
	u.slot = calloc(u.window, sizeof(*u.slot));
	if (nw > 1) {
		tid = calloc((size_t)nw, sizeof(*tid));
		args = calloc((size_t)nw, sizeof(*args));
	}
	if (!u.slot || (nw > 1 && (!tid || !args))) {
		free(u.slot);
		free(tid);
		free(args);
		return ENOMEM;
	}
	pthread_mutex_init(&u.lock, NULL);
	pthread_cond_init(&u.cond, NULL);
	for (k = 1; k < nw; k++) {
		args[k].u = &u;
		args[k].worker = r->workers[k];
		if (pthread_create(&tid[k], NULL, worker_main, &args[k]))
			break; /* fewer threads: the parts still all get made */
		started = k;
	}
	err = lead(&u);
	for (k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
	for (i = 0; i < u.window; i++) {
		lb_free(&u.slot[i].lb);
		e4t_held_free(&u.slot[i].held);
	}
	pthread_mutex_destroy(&u.lock);
	pthread_cond_destroy(&u.cond);
	free(u.slot);
	free(tid);
	free(args);
	return err;
}

int part_threads(int max)
{
	return e4t_cpus_free(max);
}
