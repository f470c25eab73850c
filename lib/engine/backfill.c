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
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "inorder_int.h"
#include "sources/sources.h"

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
	/* each thread's counts (struct e4t_inorder_job.index) */
	unsigned long scanned[2], count[2][E4T_BF_NREASONS];
};

/* A chunk's records, handed out in order (e4t_inorder_run()). */
struct bf_out {
	struct e4t_backfill_rec *recs;
	size_t nrecs, recs_cap;
	size_t written;	   /* the records before it: their writes flushed */
	errcode_t mem_err; /* a record could not be kept */
};

/* What a thread works with: the context, its job, its chunk's records. */
struct bf_job {
	struct bf_ctx *c;
	struct e4t_inorder_job *j;
	struct bf_out *out;
};

static void record(struct bf_job *j, const struct todo *row,
		   const struct e4t_inode *in, enum e4t_bf_reason r,
		   const struct e4t_ts *to, int version, const char *xattr,
		   const char *why)
{
	struct bf_out *o = j->out;
	struct e4t_backfill_rec *rec;

	j->c->count[j->j->index][r]++;
	if (e4t_grow(&o->recs, &o->recs_cap, o->nrecs + 1, sizeof(*o->recs),
		     256)) {
		o->mem_err = ENOMEM;
		return;
	}
	rec = &o->recs[o->nrecs++];
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

/* Into inode order (inodes are unique here). */
static errcode_t sort_todo(struct bf_ctx *c)
{
	size_t i;

	for (i = 1; i < c->ntodo && c->todo[i - 1].ino < c->todo[i].ino; i++)
		;
	if (i >= c->ntodo)
		return 0; /* sorted already */
	return e4t_inorder_sort(c->todo, c->ntodo, sizeof(*c->todo),
				offsetof(struct todo, ino));
}

/*
 * One file, in inode order: the batch reads each inode-table block once,
 * for the xattrs in the inodes, and writes each changed block once.
 */
static int process(struct bf_job *j, const struct todo *row)
{
	struct bf_ctx *c = j->c;
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
	c->scanned[j->j->index]++;

	if (!(in->ts[E4T_CRTIME].flags & E4T_TS_STORED)) {
		record(j, row, in, E4T_BF_TOO_SMALL, NULL, 0, NULL, NULL);
		return 0;
	}
	if (in->flags & E4T_INO_CSUM_BAD) {
		record(j, row, in, E4T_BF_UNREADABLE, NULL, 0, NULL,
		       error_message(E4T_ERR_INODE_CSUM));
		return 0;
	}
	err = e4t_batch_inode(j->j->batch, in->ino, &raw);
	if (j->j->write_err) { /* the window before failed: flushed() */
		c->scanned[j->j->index]--;
		return 1;
	}
	if (!err)
		err = e4t_xattr_get_first_raw(&j->j->img, in->ino, raw, names,
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
		       err == E4T_ERR_NO_CRTIME_ROOM ||
				       err == E4T_ERR_NO_CRTIME_128
			       ? E4T_BF_TOO_SMALL
			       : E4T_BF_UNREADABLE,
		       &ts[E4T_CRTIME], st.version, names[which],
		       error_message(err));
		return 0;
	}
	if (!o->dry_run) {
		err = e4t_batch_set(j->j->batch, in->ino, 1U << E4T_CRTIME, ts);
		if (err) {
			/* not recorded: not counted */
			c->scanned[j->j->index]--;
			j->j->write_err = err;
			return 1; /* stop: the undo file restores */
		}
	}
	record(j, row, in, E4T_BF_CHANGED, &ts[E4T_CRTIME], st.version,
	       names[which], NULL);
	return 0;
}

static ext2_ino_t todo_ino(void *priv, size_t i)
{
	const struct bf_ctx *c = priv;

	return c->todo[i].ino;
}

/* The files [first, end) of a chunk (e4t_inorder_run()). */
static errcode_t work(void *priv, struct e4t_inorder_job *ij, size_t first,
		      size_t end, void **out)
{
	struct bf_job j = { priv, ij, calloc(1, sizeof(struct bf_out)) };
	size_t i;

	*out = j.out; /* from now on: flushes are told (flushed()) */
	if (!j.out)
		return ENOMEM;
	for (i = first; i < end && !ij->write_err; i++)
		if (process(&j, &j.c->todo[i]))
			break;
	return j.out->mem_err;
}

/*
 * A window of the job's batch flushed: its files changed are written, or
 * (err) none of them is: their records go, as if never looked at, and
 * the run stops (the job's write_err, which process() looks at after
 * each call that may move the window on).  Records of files left as they
 * were stay.
 */
static void flushed(void *priv, struct e4t_inorder_job *ij, void *out,
		    errcode_t err)
{
	struct bf_ctx *c = priv;
	struct bf_out *o = out;
	size_t i, k = o->written;

	for (i = o->written; err && i < o->nrecs; i++) {
		if (o->recs[i].reason != E4T_BF_CHANGED) {
			o->recs[k++] = o->recs[i];
			continue;
		}
		c->count[ij->index][E4T_BF_CHANGED]--;
		c->scanned[ij->index]--;
	}
	if (err) {
		o->nrecs = k;
		if (!ij->write_err)
			ij->write_err = err; /* stop */
	}
	o->written = o->nrecs;
}

static void drop(void *priv, void *out)
{
	struct bf_out *o = out;

	(void)priv;
	free(o->recs);
	free(o);
}

/* A chunk's records, in order; the first callback's non-zero value. */
static int emit(void *priv, void *out)
{
	const struct e4t_backfill_opts *o = ((struct bf_ctx *)priv)->o;
	struct bf_out *ch = out;
	size_t i;
	int rc = 0;

	for (i = 0; i < ch->nrecs && !rc; i++)
		rc = o->record ? o->record(&ch->recs[i], o->priv) : 0;
	if (o->chunk_done) {
		int r = o->chunk_done(o->priv);

		if (!rc)
			rc = r;
	}
	drop(priv, out);
	return rc;
}

static errcode_t process_all(struct bf_ctx *c)
{
	struct e4t_inorder io = {
		.img = c->img,
		.n = c->ntodo,
		.ino = todo_ino,
		.work = work,
		.emit = emit,
		.drop = drop,
		.flushed = flushed,
		.threads = c->o->threads,
		.priv = c,
	};
	errcode_t err = e4t_inorder_run(&io, &c->st->write_err);
	int i, r;

	for (i = 0; i < 2; i++) {
		c->st->scanned += c->scanned[i];
		for (r = 0; r < E4T_BF_NREASONS; r++)
			c->st->count[r] += c->count[i][r];
	}
	return err;
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
