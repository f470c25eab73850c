/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c --- the timeline engine: every name reachable from / (or
 * from FILESPEC), filtered and sorted, in one of the output formats;
 * run by the timeline and export commands.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uuid/uuid.h>

#include "deleted.h"
#include "jrows.h"
#include "partrun.h"
#include "sortrows.h"
#include "timeline.h"

/* Rows in a part of a walk on several threads (about: a part ends at
 * the end of a directory's run of entries), and the most threads. */
#define PART_ROWS    4096
#define PART_THREADS 8

/* --hash: rows wait here until their files are hashed, a batch at a
 * time on two threads, and are then written in order.  A batch ends at
 * PEND_ROWS rows, or at PEND_BYTES once its largest file is no more than
 * half of it: the other files then keep the second thread busy while one
 * hashes the largest. */
struct pending {
	char *path;
	size_t path_len;
	struct e4t_inode inode;
	enum e4t_status status;
	ext2_ino_t parent;
	const char *name_source;
	struct e4t_row_journal jsrc;
	int has_jsrc;
};

#define PEND_ROWS  16384
#define PEND_BYTES (256ULL << 20)

struct pend_batch {
	struct pending rows[PEND_ROWS];
	ext2_ino_t ino[PEND_ROWS]; /* 0: not hashed */
	uint8_t hash[PEND_ROWS][E4T_HASH_MAX];
	errcode_t err[PEND_ROWS];
	size_t n, max; /* max: PEND_ROWS, fewer with a test hook */
	uint64_t bytes, largest;
};

struct tl_ctx {
	const struct timeline_args *a;
	const struct formatter *fmt;
	struct out out;
	int filter;
	unsigned filter_fields;
	struct sortrows *sorted; /* --sort: the rows kept until the end */
	int walk_reads;		 /* E4T_TREE_WALK_READS: one thread walks */
	/* --flags: the rules and the directories' baselines */
	struct e4t_rules_ctx rc;
	struct e4t_copyidx *copies;
	struct e4t_dir_nsec *dirs;
	size_t ndirs;
	/* --flags: what the journal rules found, sorted by inode */
	struct jflag *jf;
	size_t njf, jfcap;
	struct dnames *dn; /* --deleted from /: names of deleted inodes */
	struct jrows *jr;  /* --journal: journaled states */
	struct e4t_hash_pool *pool; /* --hash */
	struct pend_batch *pend;
	/* a walk in parts (walk_parts): the tree, its parts, the warnings */
	struct e4t_tree *tree;
	struct e4t_tree_parts *parts;
	struct warn_ctx *wc;
};

static int add_flag(const struct e4t_finding *f, void *priv)
{
	struct out *o = priv;

	if (o->nflags < E4T_OUT_MAXFLAGS)
		o->flags[o->nflags++] = e4t_rule(f->rule)->id;
	return 0;
}

/* A journal rule that fired on an inode (anomalies' journal findings,
 * kept for --flags as inode and rule only). */
struct jflag {
	ext2_ino_t ino;
	uint32_t rule;
	/* read before the tree: the rule waits for the copies (rules.h) */
	int copy_check;
	struct e4t_ts crtime, ctime, old_mtime, old_ctime;
};

static int keep_jflag(const struct e4t_finding *f, void *priv)
{
	struct tl_ctx *c = priv;
	struct jflag *j;

	if (grow_array(&c->jf, &c->jfcap, c->njf, sizeof(*c->jf)))
		return ENOMEM;
	j = &c->jf[c->njf++];
	j->ino = f->ino;
	j->rule = (uint32_t)f->rule;
	j->copy_check = f->copy_check;
	j->crtime = f->ts[E4T_CRTIME];
	j->ctime = f->ts[E4T_CTIME];
	j->old_mtime = f->old_ts[E4T_MTIME];
	j->old_ctime = f->old_ts[E4T_CTIME];
	return 0;
}

static int cmp_jflag(const void *a, const void *b)
{
	const struct jflag *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* The journal rules' findings that waited for the copies: dropped, or
 * given their rule (as e4t_findings_copies does for anomalies); then
 * sorted by inode. */
static void jflags_copies(struct tl_ctx *c)
{
	int r_back = e4t_rule_find("journal-backdated", 17);
	int r_create = e4t_rule_find("journal-set-at-create", 21);
	size_t i, k = 0;

	for (i = 0; i < c->njf; i++) {
		struct jflag *j = &c->jf[i];
		int r = (int)j->rule;

		if (j->copy_check != E4T_COPY_DECIDED) {
			int copy = e4t_copy_deferred(
				c->copies, j->copy_check, &j->crtime, &j->ctime,
				&j->old_mtime, &j->old_ctime);
			if (j->copy_check == E4T_COPY_UNLESS)
				r = copy ? -1 : r;
			else
				r = copy ? r_create : r_back;
			if (r < 0 || !((c->rc.mask >> r) & 1))
				continue;
			j->rule = (uint32_t)r;
			j->copy_check = E4T_COPY_DECIDED;
		}
		c->jf[k++] = *j;
	}
	c->njf = k;
	if (c->njf)
		qsort(c->jf, c->njf, sizeof(*c->jf), cmp_jflag);
}

/*
 * --flags: the journal rules over the image's own journal (live log and
 * stale transactions), as anomalies runs them; their findings, by
 * inode, join each row's.  The journal's latest commit is also the last
 * write time-after-last-write compares with, as in anomalies.  A
 * journal that cannot be read is a warning: the inode rules still run.
 */
static errcode_t journal_flags(struct tl_ctx *c, struct e4t_image *img,
			       struct warn_ctx *wc)
{
	struct e4t_journal *j = NULL;
	errcode_t err;

	if (!ext2fs_has_feature_journal(img->fs->super) ||
	    !img->fs->super->s_journal_inum)
		return 0;
	err = e4t_rules_journal_open(img, NULL, lib_warn, wc, &c->rc, &j);
	if (!err)
		err = e4t_rules_journal(img, j, &c->rc, keep_jflag, c);
	e4t_journal_close(j);
	if (err == ENOMEM)
		return err;
	if (err) {
		report(img->name, "journal (--flags: its rules left out)", err);
		wc->count++;
		c->njf = 0;
		return 0;
	}
	return 0;
}

/* --flags: the ids of the rules that fire on this row's inode: the
 * inode rules, then the journal rules, each id once. */
static void row_flags(struct tl_ctx *c, const struct e4t_row *row)
{
	size_t lo;
	uint32_t last = UINT32_MAX;

	if (!c->out.flags_on)
		return;
	c->out.nflags = 0;
	if (row->status == E4T_NAME_ONLY || row->status == E4T_DELETED_NOINODE)
		return; /* no inode to judge */
	e4t_rules_inode(
		&c->rc, row->inode,
		row->parent ? e4t_dir_nsec_find(c->dirs, c->ndirs, row->parent)
			    : NULL,
		add_flag, &c->out);
	/* the first finding of the inode */
	lo = E4T_LOWER_BOUND(c->jf, c->njf, struct jflag, ino, row->inode->ino);
	for (; lo < c->njf && c->jf[lo].ino == row->inode->ino; lo++) {
		if (c->jf[lo].rule == last)
			continue;
		last = c->jf[lo].rule;
		if (c->out.nflags < E4T_OUT_MAXFLAGS)
			c->out.flags[c->out.nflags++] = e4t_rule(last)->id;
	}
}

/* max, or with a test hook (the variable var) fewer: 1 to max - 1. */
static size_t hook_fewer(const char *var, size_t max)
{
#ifdef E4T_TEST_HOOKS
	const char *v = getenv(var);
	unsigned long n = v ? strtoul(v, NULL, 10) : 0;

	if (n > 0 && n < max)
		return n;
#else
	(void)var;
#endif
	return max;
}

/* Rows in a batch: PEND_ROWS, or with a test hook (test_hash), fewer. */
static size_t pend_max(void)
{
	return hook_fewer("E4TIME_TEST_HASH_BATCH", PEND_ROWS);
}

/* Hash the waiting rows' files, then write the rows in order. */
static int flush_pending(struct tl_ctx *c)
{
	struct pend_batch *b = c->pend;
	size_t i, hlen = e4t_hash_len(c->a->hash);
	char hex[2 * E4T_HASH_MAX + 1];
	int err = 0;

	e4t_hash_pool_run(c->pool, b->ino, b->n, &b->hash[0][0], b->err,
			  b->bytes >= (8U << 20));
	for (i = 0; i < b->n; i++) {
		struct pending *p = &b->rows[i];
		struct e4t_row row = {
			.path = p->path,
			.path_len = p->path_len,
			.inode = &p->inode,
			.status = p->status,
			.parent = p->parent,
			.name_source = p->name_source,
			.journal = p->has_jsrc ? &p->jsrc : NULL,
		};

		c->out.hash_hex = NULL;
		if (!b->err[i]) {
			e4t_hex(b->hash[i], hlen, hex);
			c->out.hash_hex = hex;
		} else if (b->err[i] != E4T_ERR_NOT_REGULAR) {
			note_read_error(&c->out, &row, "content", b->err[i]);
		}
		if (!err) {
			row_flags(c, &row);
			c->fmt->row(&c->out, &row);
			if (lb_maybe_flush(&c->out.lb, c->out.fp))
				err = errno ? errno : EIO;
		}
		free(p->path);
	}
	c->out.hash_hex = NULL;
	b->n = 0;
	b->bytes = 0;
	b->largest = 0;
	return err;
}

/* Write one row, or with --hash let it wait for its file's hash. */
static int emit_row(struct tl_ctx *c, const struct e4t_row *row)
{
	struct pend_batch *b = c->pend;
	struct pending *p;

	if (!c->pool) {
		row_flags(c, row);
		c->fmt->row(&c->out, row);
		if (lb_maybe_flush(&c->out.lb, c->out.fp))
			return errno ? errno : EIO;
		return 0;
	}
	p = &b->rows[b->n];
	p->path = dup_bytes(row->path, row->path_len);
	if (!p->path)
		return ENOMEM;
	p->path_len = row->path_len;
	p->inode = *row->inode;
	p->status = row->status;
	p->parent = row->parent;
	p->name_source = row->name_source;
	p->has_jsrc = row->journal != NULL;
	if (row->journal)
		p->jsrc = *row->journal;
	b->ino[b->n] = 0;
	/* a deleted inode's blocks, an inode another file holds now, a
	 * journaled state: none is this row's content */
	if (LINUX_S_ISREG(p->inode.mode) && row->status != E4T_DELETED &&
	    row->status != E4T_DELETED_REALLOC &&
	    row->status != E4T_NAME_ONLY &&
	    row->status != E4T_DELETED_NOINODE &&
	    (!row->journal || row->journal->kind == E4T_RJ_NAME_ONLY)) {
		b->ino[b->n] = p->inode.ino;
		b->bytes += p->inode.size;
		if (p->inode.size > b->largest)
			b->largest = p->inode.size;
	}
	b->n++;
	if (b->n == b->max ||
	    (b->bytes >= PEND_BYTES && b->bytes - b->largest >= b->largest))
		return flush_pending(c);
	return 0;
}

/* Kept when one of the --field times is shown and in range. */
static int keep_row(struct tl_ctx *c, const struct e4t_row *row)
{
	int f;

	if (!c->filter)
		return 1;
	for (f = 0; f < E4T_NFIELDS; f++) {
		const struct e4t_ts *ts = &row->inode->ts[f];

		if (!(c->filter_fields & (1U << f)) || !ts_shown(ts, f))
			continue;
		if (c->a->has_since && e4t_ts_cmp(ts, &c->a->since) < 0)
			continue;
		if (c->a->has_until && e4t_ts_cmp(ts, &c->a->until) > 0)
			continue;
		return 1;
	}
	return 0;
}

static int put_row(const struct e4t_row *row, void *priv)
{
	struct tl_ctx *c = priv;

	if (!keep_row(c, row))
		return 0;
	if (c->sorted)
		return (int)sortrows_add(c->sorted, row);
	return emit_row(c, row);
}

/* A journaled state's row: an earlier file's noted for dnames_rest. */
static int put_jrow(const struct e4t_row *row, void *priv)
{
	struct tl_ctx *c = priv;

	if (c->dn) {
		errcode_t err = dnames_note_jrow(c->dn, row);

		if (err)
			return (int)err;
	}
	return put_row(row, priv);
}

static int on_row(const struct e4t_row *row, void *priv)
{
	struct tl_ctx *c = priv;
	struct e4t_row named, withgen;
	struct e4t_inode in;
	int rc;

	/* a name without its inode: no slack, no deleted name, no journaled
	 * states to add */
	if (row->status == E4T_NAME_ONLY)
		return put_row(row, priv);
	if (c->dn) {
		errcode_t err = dnames_row(c->dn, row, &named);

		if (err)
			return (int)err;
		row = &named;
	}
	/* an inode with journaled states: its generation (which file) */
	if (c->jr && jrows_row_inode(c->jr, row, &in)) {
		withgen = *row;
		withgen.inode = &in;
		row = &withgen;
	}
	rc = put_row(row, priv);
	if (!rc && c->jr)
		rc = jrows_emit(c->jr, row, put_jrow, priv);
	return rc;
}

static int emit_sorted(void *priv, const struct e4t_row *row)
{
	return emit_row(priv, row);
}

/* Rows in a part: PART_ROWS, or with a test hook (test_timeline) fewer,
 * so that the small test images are cut into many parts too. */
static size_t part_rows(void)
{
	return hook_fewer("E4TIME_TEST_PART_ROWS", PART_ROWS);
}

/* A part of the walk, on a worker's copy of the context (partrun.c). */
static errcode_t make_part(size_t i, struct part_out *po, void *worker)
{
	struct tl_ctx *w = worker;
	errcode_t err;

	w->out.lb = po->lb;
	w->out.held = &po->held;
	w->out.read_errors = w->out.neg_times = w->out.big_times = 0;
	err = e4t_tree_walk_part(w->tree, w->parts, i, on_row, w, e4t_held_warn,
				 &po->held);
	po->lb = w->out.lb;
	memset(&w->out.lb, 0, sizeof(w->out.lb));
	po->read_errors = w->out.read_errors;
	po->neg_times = w->out.neg_times;
	po->big_times = w->out.big_times;
	return err;
}

/* A made part, in order: its warnings and notes, its rows. */
static int write_part(struct part_out *po, void *priv)
{
	struct tl_ctx *c = priv;
	int neg_seen = c->out.neg_times > 0;

	held_replay(&po->held, c->wc, &neg_seen);
	c->out.read_errors += po->read_errors;
	c->out.neg_times += po->neg_times;
	c->out.big_times += po->big_times;
	/* what begin() wrote comes first */
	if (c->out.lb.len && lb_flush(&c->out.lb, c->out.fp))
		return errno ? errno : EIO;
	if (lb_flush(&po->lb, c->out.fp))
		return errno ? errno : EIO;
	return 0;
}

/*
 * The walk cut into parts, made on n threads (the caller's one of them),
 * each thread walking and formatting whole parts into buffers of its
 * own, written in order: the same rows, warnings and notes as one walk.
 */
static errcode_t walk_parts(struct tl_ctx *c, struct e4t_tree *tree,
			    ext2_ino_t start, const char *spec, int n)
{
	pthread_mutex_t img_lock = PTHREAD_MUTEX_INITIALIZER;
	struct e4t_tree_parts *parts = NULL;
	struct tl_ctx *w = NULL;
	void **workers = NULL;
	struct part_run r = { 0 };
	errcode_t err;
	size_t np;
	int k, made = 0;

	err = e4t_tree_parts(tree, start, spec, part_rows(), &parts);
	if (err)
		return err;
	np = e4t_tree_parts_count(parts);
	if ((size_t)n > np)
		n = (int)np;
	w = calloc((size_t)n, sizeof(*w));
	workers = calloc((size_t)n, sizeof(*workers));
	if (!w || !workers) {
		err = ENOMEM;
		goto out;
	}
	for (k = 0; k < n; k++) {
		w[k] = *c;
		memset(&w[k].out.lb, 0, sizeof(w[k].out.lb));
		if (report_clone(&w[k].out.rep, &c->out.rep)) {
			err = ENOMEM;
			goto out;
		}
		made = k + 1;
		w[k].out.fp = NULL;
		w[k].out.img_lock = &img_lock;
		w[k].tree = tree;
		w[k].parts = parts;
		workers[k] = &w[k];
	}
	r.nparts = np;
	r.nworkers = n;
	r.workers = workers;
	r.make = make_part;
	r.write = write_part;
	r.priv = c;
	err = part_run(&r);
#ifdef E4T_TEST_HOOKS
	/* test hook (test_timeline): how the walk was cut and run */
	if (getenv("E4TIME_TEST_PARTS_SAY"))
		fprintf(stderr, "e4time: test: %zu parts on %d threads\n", np,
			n);
#endif
out:
	for (k = 0; k < made; k++)
		report_finish(&w[k].out.rep); /* its cells */
	free(w);
	free(workers);
	e4t_tree_parts_free(parts);
	pthread_mutex_destroy(&img_lock);
	return err;
}

/* The rows of the walk: in parts on several threads when each row is
 * only formatted (no deleted names, journal, hash, sort or flags to
 * join), else on one thread or two (treepipe.c). */
static errcode_t walk_rows(struct tl_ctx *c, struct e4t_tree *tree,
			   ext2_ino_t start, const char *spec)
{
	int n = c->a->walk_threads;

	if (c->walk_reads) /* the directories read as it goes */
		return e4t_tree_walk_warn(tree, start, spec, on_row, c,
					  lib_warn, c->wc);
	if (!c->dn && !c->jr && !c->pool && !c->sorted && !c->out.flags_on &&
	    n != 1) {
		if (!n)
			n = part_threads(PART_THREADS);
		if (n > 1)
			return walk_parts(c, tree, start, spec, n);
		return e4t_tree_walk_warn(tree, start, spec, on_row, c,
					  lib_warn, c->wc);
	}
	return e4t_tree_walk_threaded(tree, start, spec, c->a->threads, on_row,
				      c, lib_warn, c->wc);
}

int timeline_run(const struct timeline_args *a)
{
	struct tl_ctx c = {
		.a = a,
		.fmt = a->fmt,
		.filter = a->filter,
		.filter_fields = a->filter_fields,
	};
	struct warn_ctx wc = { 0 };
	struct e4t_tree_opts topts = {
		/* timeline lists names whose inode is lost; export does not:
		 * a manifest line without times would set nothing */
		.flags = a->flags | (a->manifest ? 0 : E4T_TREE_NAME_ONLY),
		.threads = a->threads,
		.warn = lib_warn,
		.progress = progress_cb,
		.priv = &wc,
	};
	struct e4t_image *img = a->img;
	struct e4t_tree *tree = NULL;
	struct jload *jl = NULL;
	const char *spec = a->spec ? a->spec : "/";
	static char obuf[1 << 16];
	ext2_ino_t start = EXT2_ROOT_INO;
	errcode_t err;
	int status = EXIT_OK;

	wc.image = img->name;
	wc.quiet = a->quiet;
	c.out.fp = stdout;
	c.out.image = img->name;
	c.out.img = img;
	c.out.quiet = a->quiet;
	c.out.local = a->local;
	c.out.volume = a->volume;
	c.out.no_header = a->volume && !a->vol_first;
	c.out.encrypted_col =
		a->volume || ext2fs_has_feature_encrypt(img->fs->super);
	if (!a->volume || a->vol_first) /* before any output only */
		setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	if (a->journal) /* which file each journaled state is of */
		topts.flags |= E4T_TREE_GEN;
	err = e4t_image_resolve(img, spec, &start);
	if (err) {
		report(img->name, spec, err);
		return EXIT_PARTIAL;
	}
	if (a->rule_flags) {
		/* --flags: the journal rules first, then the tree, not both
		 * held at once (as anomalies); what depends on the copies
		 * waits for the tree (jflags_copies) */
		e4t_rules_init(&c.rc, img->fs->super);
		if (img->sb_block)
			e4t_rules_backup_sb(&c.rc);
		c.rc.copies_later = 1;
		err = journal_flags(&c, img, &wc);
		if (err) {
			report(img->name, "--flags", err);
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	/* the journal read meanwhile, on a thread of its own */
	if (a->journal && (err = jrows_load_start(img, a->threads, &jl))) {
		report(img->name, "journal", err);
		status = EXIT_INTERNAL;
		goto out;
	}
	/* --threads 1: the walk reads each directory as it reaches it, and
	 * the names of all are never held at once (a tenth to two fifths
	 * less memory, as many fewer fresh pages to fault in).  Only when
	 * asked: a directory's warnings then come in the order of the walk,
	 * and what --threads 0 prints must not depend on the machine's
	 * load.  Not for what needs every directory's entries first:
	 * deleted names, --journal's and --flags' rules, the parent of
	 * another start. */
	if (start == EXT2_ROOT_INO && !(topts.flags & E4T_TREE_DELETED) &&
	    !a->journal && !a->rule_flags && a->walk_threads == 1) {
		topts.flags |= E4T_TREE_WALK_READS;
		c.walk_reads = 1;
	}
	a->ctx->topts = topts; /* the command's tree, with these options */
	tree = ctx_tree(a->ctx, &status);
	if (!tree)
		goto out;
	if (a->rule_flags) {
		/* as anomalies: times set by the run that made the inode */
		err = e4t_copyidx_build(tree, img->fs->super->s_inodes_count,
					&c.copies);
		c.rc.copies = c.copies;
		c.rc.copies_later = 0;
		if (!err) {
			jflags_copies(&c);
			err = e4t_tree_dir_nsec(tree, &c.dirs, &c.ndirs);
		}
		if (err) {
			report(img->name, "--flags", err);
			status = EXIT_INTERNAL;
			goto out;
		}
		c.out.flags_on = 1;
	}
	if (a->manifest && (!a->volume || a->vol_first)) {
		char uuid[40];

		uuid_unparse(img->fs->super->s_uuid, uuid);
		manifest_header(&c.out.lb, "image", img->name, uuid);
	}
	if ((a->flags & E4T_TREE_DELETED) && a->deleted_names &&
	    start == EXT2_ROOT_INO) {
		err = dnames_new(img, &c.dn);
		if (err) {
			report(img->name, "reading deleted names", err);
			status = EXIT_INTERNAL;
			goto out;
		}
		c.out.name_sources = 1;
		c.out.journal_rows = 1; /* the names from the journal */
	}
	if (jl && c.dn) {
		/* the deleted names read here while the other thread reads
		 * the entries, once the journal is in memory */
		struct e4t_journal *j = jrows_load_journal(jl);
		ext2_ino_t *dirs = NULL;
		size_t ndirs = 0;

		if (j)
			err = e4t_tree_live_dirs(tree, &dirs, &ndirs);
		if (j && !err)
			err = dnames_prefetch(c.dn, j, dirs, ndirs);
		free(dirs);
		if (err) {
			report(img->name, "reading deleted names", err);
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	if (!jl && c.dn && (err = dnames_prefetch_own(c.dn, tree))) {
		report(img->name, "reading deleted names", err);
		status = EXIT_INTERNAL;
		goto out;
	}
	if (a->journal) {
		err = jrows_load_finish(jl, lib_warn, &wc, &c.jr);
		jl = NULL;
		if (err == ENOMEM) {
			report(img->name, "journal", err);
			status = EXIT_INTERNAL;
			goto out;
		}
		if (err) { /* no journal rows; the timeline goes on */
			report(img->name, "journal", err);
			wc.count++;
		}
		c.out.journal_rows = 1;
		c.out.generations = 1;
		if (c.dn) /* one reading of the journal for both */
			dnames_use_journal(c.dn, jrows_journal(c.jr));
	}
	c.out.hash = a->hash;
	if (a->hash) {
		err = e4t_hash_pool_new(img, a->hash, a->threads, &c.pool);
		c.pend = err ? NULL : calloc(1, sizeof(*c.pend));
		if (!err && !c.pend)
			err = ENOMEM;
		if (!err)
			c.pend->max = pend_max();
		if (err) {
			report(img->name, "hashing", err);
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	if (a->sort) {
		err = sortrows_new(a->sort_field, &c.sorted);
		if (err) {
			report(img->name, "--sort", err);
			status = EXIT_INTERNAL;
			goto out;
		}
	}
	c.fmt->begin(&c.out);
	c.wc = &wc;
	err = walk_rows(&c, tree, start, spec);
	if (!err && c.dn)
		err = dnames_rest(c.dn, tree, put_row, &c);
	if (!err && c.sorted)
		err = sortrows_emit(c.sorted, tree, emit_sorted, &c);
	sortrows_free(c.sorted);
	c.sorted = NULL;
	if (c.pend && c.pend->n) {
		errcode_t err2 = flush_pending(&c);

		if (!err)
			err = err2;
	}
	if (err == E4T_ERR_NOT_IN_USE) {
		/* not "not in use" when its inode could not be read */
		errcode_t lost = e4t_tree_lost(tree, start);

		report(img->name, spec, lost ? lost : err);
		status = EXIT_PARTIAL;
	} else if (err) {
		report(img->name, "writing the timeline", err);
		status = EXIT_INTERNAL;
	}
	c.fmt->end(&c.out); /* each volume's notes (mactime), or nothing */
	if (lb_flush(&c.out.lb, stdout) || fflush(stdout) || ferror(stdout)) {
		report(img->name, "standard output", errno ? errno : EIO);
		status = EXIT_INTERNAL;
	}
	if (status == EXIT_OK &&
	    (wc.count || c.out.read_errors || image_damage_status(img)))
		status = EXIT_PARTIAL;
out:
	if (jl) { /* stopped before the journal was wanted */
		struct jrows *jr = NULL;

		(void)jrows_load_finish(jl, NULL, NULL, &jr);
		jrows_free(jr);
	}
	sortrows_free(c.sorted);
	free(c.dirs);
	e4t_copyidx_free(c.copies);
	free(c.jf);
	if (c.pend) {
		size_t i;

		for (i = 0; i < c.pend->n; i++) /* left after an error */
			free(c.pend->rows[i].path);
		free(c.pend);
	}
#ifdef E4T_TEST_HOOKS
	/* test hook (test_hash): how many inodes --hash read */
	if (c.pool && getenv("E4TIME_TEST_HASH_FILES"))
		fprintf(stderr, "e4time: test: %llu files hashed\n",
			(unsigned long long)e4t_hash_pool_files(c.pool));
#endif
	e4t_hash_pool_free(c.pool);
	lb_free(&c.out.lb);
	dnames_free(c.dn);
	jrows_free(c.jr);
	return status; /* (the tree is the command's: freed with it) */
}
