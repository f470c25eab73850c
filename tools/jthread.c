/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jthread.c --- timeline --journal's journal read on a thread of its own
 * (jrows_load_start), through a second handle on the image, while the
 * tree loads: its warnings kept and given at jrows_load_finish in the
 * order they came, and the journal handed to the caller's thread once it
 * is read and audited (jrows_load_journal), when it is in memory.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jrows_int.h"

struct jload {
	struct e4t_image *img;	  /* the caller's */
	struct e4t_image *shadow; /* the thread's handle on it */
	pthread_t thread;
	int started;
	int one; /* --threads 1: no thread at all */
	struct jrows *jr;
	errcode_t err;
	struct e4t_held held; /* its warnings, for jrows_load_finish */
	/* the journal, once read and audited (jrows_load_journal) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	struct e4t_journal *j; /* in memory, or NULL */
	struct jrows *failed;  /* a load that failed after j was given */
};

/* The journal is read and audited (or failed: j NULL): a waiter may go. */
void jload_ready(struct jload *jl, struct e4t_journal *j)
{
	if (!jl)
		return;
	pthread_mutex_lock(&jl->lock);
	if (!jl->ready) {
		const struct e4t_jinfo *in = j ? e4t_journal_info(j) : NULL;

		/* another thread may read it only when it is in memory */
		jl->j = in && e4t_journal_block(j, in->first) ? j : NULL;
		jl->ready = 1;
		pthread_cond_broadcast(&jl->cond);
	}
	pthread_mutex_unlock(&jl->lock);
}

static void *load_thread(void *arg)
{
	struct jload *jl = arg;

	jl->err = jrows_load_on(jl->shadow, e4t_held_warn, &jl->held, jl,
				E4T_AUDIT_PARTS, &jl->jr);
	jload_ready(jl, NULL); /* (when it failed before) */
	return NULL;
}

static void jload_free(struct jload *jl)
{
	pthread_mutex_destroy(&jl->lock);
	pthread_cond_destroy(&jl->cond);
	free(jl);
}

errcode_t jrows_load_start(struct e4t_image *img, int threads,
			   struct jload **ret)
{
	struct jload *jl = calloc(1, sizeof(*jl));

	*ret = NULL;
	if (!jl)
		return ENOMEM;
	jl->img = img;
	pthread_mutex_init(&jl->lock, NULL);
	pthread_cond_init(&jl->cond, NULL);
	/* one thread asked for, no second handle or no thread:
	 * jrows_load_finish does it all */
	jl->one = threads == 1;
	if (!jl->one && !e4t_image_shadow(img, &jl->shadow)) {
		jl->started =
			!pthread_create(&jl->thread, NULL, load_thread, jl);
		if (!jl->started) {
			e4t_image_shadow_free(jl->shadow);
			jl->shadow = NULL;
		}
	}
	*ret = jl;
	return 0;
}

errcode_t jrows_load_finish(struct jload *jl, e4t_warn_fn warn, void *priv,
			    struct jrows **ret)
{
	errcode_t err;

	*ret = NULL;
	if (!jl->started) {
		err = warn ? jrows_load_on(jl->img, warn, priv, NULL,
					   jl->one ? 0 : E4T_AUDIT_PARTS, ret)
			   : 0;
		jload_free(jl);
		return err;
	}
	pthread_join(jl->thread, NULL);
	e4t_held_give(&jl->held, warn, priv, "a warning of the journal");
	e4t_held_free(&jl->held);
	err = jl->err;
	jrows_free(jl->failed); /* (its journal before its handle) */
	if (jl->jr)
		jl->jr->own_img = jl->shadow;
	else
		e4t_image_shadow_free(jl->shadow);
	*ret = jl->jr;
	jload_free(jl);
	return err;
}

struct e4t_journal *jrows_load_journal(struct jload *jl)
{
	struct e4t_journal *j;

	if (!jl->started)
		return NULL;
	pthread_mutex_lock(&jl->lock);
	while (!jl->ready)
		pthread_cond_wait(&jl->cond, &jl->lock);
	j = jl->j;
	pthread_mutex_unlock(&jl->lock);
	return j;
}

int jload_keep_failed(struct jload *jl, struct jrows *jr)
{
	if (!jl || !jl->j)
		return 0;
	jl->failed = jr;
	return 1;
}
