/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jnames.c --- names of deleted files from the journal: every journaled
 * copy of a block of the given directories (live log and stale
 * transactions, those the journal reader verified: committed, no
 * checksum failure, the copy itself usable) is parsed; an entry one of
 * those copies held that the directory no longer holds (same inode, same
 * name) is a deleted name, with the transaction of the last copy that
 * held it.  With metadata_csum a copy must verify as a block of that
 * directory (the checksum covers the directory's inode number and
 * generation): a block that was once another directory's gives nothing.
 * An inline-data directory's entries are in its inode (i_block after the
 * parent's number, then the system.data xattr in the inode's body): every
 * journaled copy of the inode-table block that holds it is parsed the
 * same way, when the copy is of that directory (its generation now) and
 * was inline then.
 *
 * e4t_journal_entries gives every entry the copies held, live ones too,
 * with when: the first copy of its block that held it, and the first
 * later copy of the same block that did not (its removal, a rename); an
 * entry that comes back after that (the same name for the same inode
 * number: a file deleted and created again) starts a new interval.
 *
 * This file holds those three entry points (e4t_journal_names,
 * e4t_journal_dir_names, e4t_journal_entries) and what they give;
 * jncopies.c finds the directories' blocks and inodes and parses their
 * copies, jnrecs.c keeps the entries the copies held, jnames_int.h holds
 * what the three share.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jnames_int.h"

/* The names of the records being sorted (cmp_rec): the thread's own, as
 * two threads may sort at once. */
static _Thread_local const char *sort_names;

/* By directory, inode and name (each is there once). */
static int cmp_rec(const void *x, const void *y)
{
	const struct jn_rec *a = x, *b = y;

	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	return memcmp(sort_names + a->name_off, sort_names + b->name_off,
		      a->name_len);
}

/* c's records by directory, inode and name. */
static void sort_recs(struct jn_ctx *c)
{
	if (c->n < 2)
		return;
	sort_names = c->names;
	qsort(c->v, c->n, sizeof(*c->v), cmp_rec);
	sort_names = NULL;
}

/* Is dir in the sorted list (a 0 there is an unreadable one)? */
static int ino_in(const ext2_ino_t *v, size_t n, ext2_ino_t dir)
{
	return dir && bsearch(&dir, v, n, sizeof(*v), jn_cmp_ino) != NULL;
}

/*
 * The directories in batches of about the same number of blocks, at most
 * JN_BATCHES of them and at least JN_BATCH_MIN blocks each, by inode
 * number: the entries of one batch are held at a time (a journal may
 * hold a copy of every entry of the filesystem: a million on million.img,
 * 40 bytes each), each batch a pass over the journal's tags (32 passes
 * over a 1 GiB journal's cost nothing to be seen beside its reading).
 * The entries of a directory depend on its own blocks only, so the
 * batches give what one would.
 */
#define JN_BATCHES   32
#define JN_BATCH_MIN 128

typedef errcode_t (*jn_batch_fn)(struct e4t_image *img, struct e4t_journal *j,
				 const ext2_ino_t *dirs, size_t ndirs,
				 void *arg, int *stop);

static errcode_t in_batches(struct e4t_image *img, struct e4t_journal *j,
			    const ext2_ino_t *dirs, size_t ndirs,
			    jn_batch_fn run, void *arg)
{
	ext2_filsys fs = img->fs;
	ext2_ino_t *sd = malloc((ndirs + 1) * sizeof(*sd));
	uint64_t *cost = malloc((ndirs + 1) * sizeof(*cost));
	uint64_t total = 0, budget;
	size_t n = 0, i, from;
	errcode_t err = 0;
	int stop = 0;

	if (!sd || !cost) {
		free(sd);
		free(cost);
		return ENOMEM;
	}
	if (ndirs) {
		memcpy(sd, dirs, ndirs * sizeof(*sd));
		qsort(sd, ndirs, sizeof(*sd), jn_cmp_ino);
	}
	for (i = 0; i < ndirs; i++) {
		struct ext2_inode inode;

		if (n && sd[n - 1] == sd[i])
			continue;
		sd[n] = sd[i];
		/* its blocks, and its inode's copies (inline_data) */
		cost[n] = 1;
		if (!ext2fs_read_inode(fs, sd[n], &inode) &&
		    LINUX_S_ISDIR(inode.i_mode))
			cost[n] += EXT2_I_SIZE(&inode) / fs->blocksize;
		total += cost[n++];
	}
	budget = total / JN_BATCHES;
	if (budget < JN_BATCH_MIN)
		budget = JN_BATCH_MIN;
#ifdef E4T_TEST_HOOKS
	/* test hook (test_deleted): batches of N blocks, so that the small
	 * images are read in many */
	{
		const char *v = getenv("E4TIME_TEST_JN_BATCH");

		if (v)
			budget = strtoull(v, NULL, 10);
	}
#endif
	for (from = 0; from < n && !err && !stop; from = i) {
		uint64_t sum = cost[from];

		for (i = from + 1; i < n && sum + cost[i] <= budget; i++)
			sum += cost[i];
		err = run(img, j, sd + from, i - from, arg, &stop);
	}
	free(sd);
	free(cost);
	e4t_journal_let_go(j); /* the pages the copies were read from */
	return err;
}

/* What a batch gives its entries to: one of the two. */
struct jn_cb {
	e4t_jname_fn names;
	e4t_jentry_fn entries;
	void *priv;
};

static errcode_t names_batch(struct e4t_image *img, struct e4t_journal *j,
			     const ext2_ino_t *dirs, size_t ndirs, void *arg,
			     int *stop)
{
	const struct jn_cb *cb = arg;
	e4t_jname_fn fn = cb->names;
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count };
	ext2_ino_t *dirs_had = NULL; /* sorted; 0: unreadable now */
	size_t ndirs_had = 0;
	errcode_t err;
	size_t i, k;

	err = jn_collect(img, j, dirs, ndirs, &c, &dirs_had, &ndirs_had);
	jn_ctx_trim(&c);
	/* the deleted ones, by directory, inode and name */
	for (i = 0, k = 0; !err && i < c.n; i++)
		if (!c.v[i].live && ino_in(dirs_had, ndirs_had, c.v[i].dir))
			c.v[k++] = c.v[i];
	c.n = err ? 0 : k;
	sort_recs(&c);
	for (i = 0; !err && !*stop && i < c.n; i++) {
		struct e4t_jname e;
		const struct e4t_jtrans *t;

		t = e4t_journal_trans(j, c.v[i].trans);
		e.dir = c.v[i].dir;
		e.ino = c.v[i].ino;
		e.name = c.names + c.v[i].name_off;
		e.name_len = c.v[i].name_len;
		e.file_type = c.v[i].file_type;
		e.trans = c.v[i].trans;
		e.tid = t->tid;
		e.commit_sec = t->commit_sec;
		e.commit_nsec = t->commit_nsec;
		*stop = fn(&e, cb->priv);
	}
	jn_ctx_free(&c);
	free(dirs_had);
	return err;
}

errcode_t e4t_journal_names(struct e4t_image *img, struct e4t_journal *j,
			    const ext2_ino_t *dirs, size_t ndirs,
			    e4t_jname_fn fn, void *priv)
{
	struct jn_cb cb = { .names = fn, .priv = priv };

	return in_batches(img, j, dirs, ndirs, names_batch, &cb);
}

errcode_t e4t_journal_dir_names(struct e4t_image *img, struct e4t_journal *j,
				ext2_ino_t dir, uint32_t gen,
				const blk64_t *blocks, size_t nblocks,
				size_t min_trans, e4t_jname_fn fn, void *priv)
{
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count,
			    .dead = 1,
			    .dead_gen = gen,
			    .min_trans = min_trans };
	errcode_t err = 0;
	size_t i;

	c.dir = dir;
	/* encrypted: a deleted inode keeps its i_flags */
	if (ext2fs_has_feature_encrypt(img->fs->super)) {
		struct ext2_inode inode;

		c.enc = !ext2fs_read_inode(img->fs, dir, &inode) &&
			(inode.i_flags & EXT4_ENCRYPT_FL);
	}
	/* no blocks: an inline directory, its entries in its inode's copies */
	if (!nblocks && ext2fs_has_feature_inline_data(img->fs->super)) {
		err = jn_add_dinode(img->fs, &c, dir, gen, c.enc);
		if (!err)
			err = jn_read_copies(img, j, &c);
	}
	for (i = 0; i < nblocks && !err; i++) {
		if (e4t_grow(&c.blocks, &c.blocks_cap, c.nblocks + 1,
			     sizeof(*c.blocks), 64)) {
			err = ENOMEM;
			break;
		}
		memset(&c.blocks[c.nblocks], 0, sizeof(*c.blocks));
		c.blocks[c.nblocks].blk = blocks[i];
		c.blocks[c.nblocks].enc = c.enc;
		c.blocks[c.nblocks++].dir = dir;
	}
	if (!err && c.nblocks) {
		qsort(c.blocks, c.nblocks, sizeof(*c.blocks), jn_cmp_dblock);
		err = jn_read_copies(img, j, &c);
	}
	if (!err)
		sort_recs(&c);
	for (i = 0; !err && i < c.n; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, c.v[i].trans);
		struct e4t_jname e = {
			.dir = dir,
			.ino = c.v[i].ino,
			.name = c.names + c.v[i].name_off,
			.name_len = c.v[i].name_len,
			.file_type = c.v[i].file_type,
			.trans = c.v[i].trans,
			.tid = t->tid,
			.commit_sec = t->commit_sec,
			.commit_nsec = t->commit_nsec,
		};

		if (fn(&e, priv))
			break;
	}
	jn_ctx_free(&c);
	e4t_journal_let_go(j); /* the pages the copies were read from */
	return err;
}

static errcode_t entries_batch(struct e4t_image *img, struct e4t_journal *j,
			       const ext2_ino_t *dirs, size_t ndirs, void *arg,
			       int *stop)
{
	const struct jn_cb *cb = arg;
	e4t_jentry_fn fn = cb->entries;
	struct jn_ctx c = { .inodes_count = img->fs->super->s_inodes_count,
			    .intervals = 1 };
	ext2_ino_t *dirs_had = NULL;
	size_t ndirs_had = 0, i;
	errcode_t err;

	err = jn_collect(img, j, dirs, ndirs, &c, &dirs_had, &ndirs_had);
	jn_ctx_trim(&c);
	for (i = 0; !err && !*stop && i < c.nclosed; i++) {
		const struct jn_closed *x = &c.closed[i];
		struct e4t_jentry e = {
			.dir = x->dir,
			.ino = x->ino,
			.name = c.names + x->name_off,
			.name_len = x->name_len,
			.first = x->first,
			.last = x->last,
			.gone = x->gone,
		};

		*stop = fn(&e, cb->priv);
	}
	for (i = 0; !err && !*stop && i < c.n; i++) {
		const struct jn_rec *r = &c.v[i];
		struct e4t_jentry e = {
			.dir = r->dir,
			.ino = r->ino,
			.name = c.names + r->name_off,
			.name_len = r->name_len,
			.first = r->first,
			.last = r->trans,
			.gone = r->gone == JN_NONE ? SIZE_MAX : r->gone,
			/* the directory holds it now: the interval is open */
			.live = r->live && ino_in(dirs_had, ndirs_had, r->dir),
		};

		if (e.live)
			e.gone = SIZE_MAX;
		*stop = fn(&e, cb->priv);
	}
	jn_ctx_free(&c);
	free(dirs_had);
	return err;
}

errcode_t e4t_journal_entries(struct e4t_image *img, struct e4t_journal *j,
			      const ext2_ino_t *dirs, size_t ndirs,
			      e4t_jentry_fn fn, void *priv)
{
	struct jn_cb cb = { .entries = fn, .priv = priv };

	return in_batches(img, j, dirs, ndirs, entries_batch, &cb);
}
