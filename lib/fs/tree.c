/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.c --- an index of the whole filesystem, built in two linear
 * passes: the inode table in order (ext2fs inode scan), then every
 * directory's blocks.  Paths are never looked up one by one; the walk
 * builds them depth first in a single buffer.
 *
 * Memory: one compact record per kept inode (48 bytes; what repeats from
 * inode to inode, once in a table, iattr.c; the dtime of deleted and
 * orphan inodes, 8 bytes, aside), one entry per
 * directory entry (6 bytes plus the name, in one byte stream) and one
 * 16-byte index per live directory; while the directories are read, a
 * block map of at most 53 bytes (mostly 17) per directory, packed during
 * the inode pass.  Two threads fill one array in place:
 * nothing is allocated per run and copied (first touches of fresh memory
 * were a fifth of the time).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "fs/csum_int.h"
#include "fs/itable_int.h"

#include "fs/tree_int.h"

int tree_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return e4t_grow(p, cap, need, elem, 1024) ? ENOMEM : 0;
}

static void warn(struct e4t_tree *t, errcode_t err, ext2_ino_t ino,
		 const char *detail)
{
	if (t->cb.warn)
		t->cb.warn(err, ino, detail, t->cb.priv);
}

static uint32_t dtime_of(const struct e4t_tree *t, ext2_ino_t ino)
{
	size_t i =
		E4T_LOWER_BOUND(t->dtimes, t->ndtimes, struct dtime, ino, ino);

	return i < t->ndtimes && t->dtimes[i].ino == ino ? t->dtimes[i].dtime
							 : 0;
}

void tree_expand(const struct e4t_tree *t, const struct irec *r,
		 struct e4t_inode *info)
{
	unsigned inode_size = t->img->inode_size;
	const struct iattr *a = rec_attr(t, r);

	memset(info, 0, sizeof(*info));
	info->ino = r->ino;
	info->mode = r->mode;
	info->links = a->links;
	info->uid = a->uid;
	info->gid = a->gid;
	info->size = (uint64_t)a->size_hi << 32 | r->size_lo;
	info->iflags = a->iflags;
	info->inode_size = (uint16_t)inode_size;
	info->extra_isize = a->extra_isize;
	info->flags = r->flags & T_INO_MASK;
	info->present = e4t_inode_present(inode_size, a->extra_isize);
	memcpy(info->raw_base, r->raw_base, sizeof(r->raw_base));
	if (r->flags & T_DTIME)
		info->raw_base[E4T_DTIME] = dtime_of(t, r->ino);
	memcpy(info->raw_extra, r->raw_extra, sizeof(r->raw_extra));
	if (r->ino < t->ngens) {
		info->generation = t->gens[r->ino];
		info->flags |= E4T_INO_DISKGEN;
	}
	e4t_inode_decode_times(info);
}
/* Which inodes the tree keeps, and as what. */
static int classify(const struct e4t_tree *t, ext2_ino_t ino,
		    const struct ext2_inode_large *raw)
{
	ext2_filsys fs = t->img->fs;

	if (raw->i_mode == 0)
		return -1;
	if (ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INODE(fs->super))
		return -1;
	if (raw->i_links_count > 0 && raw->i_dtime == 0)
		return E4T_LIVE;
	if (raw->i_links_count > 0) /* on the orphan list: still in use */
		return E4T_LIVE;
	if (!(t->flags & E4T_TREE_DELETED))
		return -1;
	/* Unlinked but still open: dtime links the orphan list. */
	if (e4t_ino_in(t->orphans, t->norphans, ino))
		return E4T_ORPHAN;
	if (raw->i_dtime != 0)
		return E4T_DELETED;
	return -1;
}

/*
 * The inode-table pass can run as two jobs on two threads, each with its
 * own libext2fs handle (no shared I/O state) and its own half of the
 * block groups.  The second job buffers its warnings; they are replayed
 * in inode order after the join, so output never depends on timing.
 */
/* A job's warnings: reported at once, or held for wb_flush(). */
struct warn_buf {
	struct e4t_held held;
	int buffered;
};

static void wb_warn(struct e4t_tree *t, struct warn_buf *wb, errcode_t err,
		    ext2_ino_t ino, const char *detail)
{
	if (!wb->buffered)
		warn(t, err, ino, detail);
	else
		e4t_held_warn(err, ino, detail, &wb->held);
}

/* Report what was held, in order, and free it. */
static void wb_flush(struct e4t_tree *t, struct warn_buf *wb)
{
	e4t_held_give(&wb->held, t->cb.warn, t->cb.priv,
		      "a warning of the inode scan");
	e4t_held_free(&wb->held);
}

struct scan_job {
	struct e4t_tree *t;
	ext2_filsys fs;
	dgrp_t first, end; /* block groups [first, end) */
	/*
	 * One job grows its array; two jobs write into one array reserved
	 * for both, the second from where the first's groups end (their
	 * inodes in use, from the group descriptors), each up to a limit
	 * (full: the descriptors were wrong, scan again with one job).
	 */
	struct irec *recs;
	size_t nrecs, cap, limit;
	struct iattr_tab *attrs; /* t->attrs[0] or [1] */
	uint32_t attr_tag;	 /* 0 or ATTR_JOB1 */
	int full;
	int progress;	      /* the job that reports progress */
	unsigned char *roots; /* its live directories' block maps */
	size_t roots_len, roots_cap, nroots;
	struct dtime *dtimes; /* its records' dtimes (T_DTIME) */
	size_t ndtimes, dtimes_cap;
	struct warn_buf wb;
	struct lost *lost; /* its inodes that could not be read */
	size_t nlost, lost_cap;
	errcode_t err;
};

static void job_warn(struct scan_job *j, errcode_t err, ext2_ino_t ino,
		     const char *detail)
{
	wb_warn(j->t, &j->wb, err, ino, detail);
}

static struct irec *new_rec(struct scan_job *j)
{
	if (j->limit) {
		if (j->nrecs >= j->limit) {
			j->full = 1;
			return NULL;
		}
	} else if (tree_grow((void **)&j->recs, &j->cap, j->nrecs + 1,
			     sizeof(*j->recs))) {
		return NULL;
	}
	return &j->recs[j->nrecs++];
}

static errcode_t add_inode(struct scan_job *j, ext2_ino_t ino,
			   const struct ext2_inode_large *raw, int status)
{
	struct e4t_tree *t = j->t;
	struct e4t_inode info;
	struct iattr a;
	struct irec *r = new_rec(j);
	uint32_t pos;

	if (!r)
		return ENOMEM; /* or full: scan_inodes() looks */
	/* Only the raw time words are kept: tree_expand() decodes them. */
	e4t_inode_decode_fields(raw, t->img->inode_size, ino, &info);
	if (e4t_ino_in(t->orphans, t->norphans, ino))
		info.flags |= E4T_INO_ORPHAN_LIST;
	a.uid = info.uid;
	a.gid = info.gid;
	a.iflags = info.iflags;
	a.size_hi = (uint32_t)(info.size >> 32);
	a.links = info.links;
	a.extra_isize = info.extra_isize;
	if (iattr_find(j->attrs, &a, &pos)) {
		j->nrecs--;
		return ENOMEM;
	}
	r->ino = ino;
	r->size_lo = (uint32_t)info.size;
	r->attr = pos | j->attr_tag;
	r->mode = info.mode;
	r->status = (uint8_t)status;
	if (ino < t->ngens) /* each job its own inodes */
		t->gens[ino] = info.generation;
	memcpy(r->raw_base, info.raw_base, sizeof(r->raw_base));
	memcpy(r->raw_extra, info.raw_extra, sizeof(r->raw_extra));
	if (info.raw_base[E4T_DTIME]) {
		if (tree_grow((void **)&j->dtimes, &j->dtimes_cap,
			      j->ndtimes + 1, sizeof(*j->dtimes)))
			return ENOMEM;
		j->dtimes[j->ndtimes].ino = ino;
		j->dtimes[j->ndtimes++].dtime = info.raw_base[E4T_DTIME];
		info.flags |= T_DTIME; /* not an E4T_INO_* bit */
	}
	if (!e4t_inode_csum_verify(j->fs, ino, raw)) {
		info.flags |= E4T_INO_CSUM_BAD;
		job_warn(j, E4T_ERR_INODE_CSUM, ino, NULL);
	}
	if (info.flags & E4T_INO_EXTRA_BAD)
		job_warn(j, E4T_ERR_EXTRA_ISIZE, ino, NULL);
	r->flags = (uint8_t)info.flags;
	if (status == E4T_LIVE && LINUX_S_ISDIR(info.mode)) {
		if (tree_grow((void **)&j->roots, &j->roots_cap,
			      j->roots_len + E4T_DIR_ROOT_MAX, 1))
			return ENOMEM;
		j->roots_len += e4t_dir_root_pack(raw, j->roots + j->roots_len);
		j->nroots++;
	}
	return 0;
}

/* Where the scan is: the group it reads, the next inode it returns. */
struct scan_pos {
	dgrp_t group;
	ext2_ino_t next;
	uint32_t ipg;
};

/* ext2fs_set_inode_callback(): group g is done, the next one starts. */
static errcode_t group_done(ext2_filsys fs, ext2_inode_scan scan, dgrp_t g,
			    void *priv)
{
	struct scan_pos *pos = priv;

	(void)fs;
	(void)scan;
	pos->group = g + 1;
	pos->next = (ext2_ino_t)((g + 1) * pos->ipg + 1);
	return 0;
}

static void pos_goto(struct scan_pos *pos, dgrp_t g)
{
	pos->group = g;
	pos->next = (ext2_ino_t)(g * pos->ipg + 1);
}

/* One inode the scan (or the salvage of a group) read. */
static errcode_t take_inode(struct scan_job *j, ext2_ino_t ino,
			    const struct ext2_inode_large *raw)
{
	int status = classify(j->t, ino, raw);

	return status >= 0 ? add_inode(j, ino, raw, status) : 0;
}

static errcode_t salvage_fn(ext2_ino_t ino, const struct ext2_inode_large *raw,
			    void *priv)
{
	return take_inode(priv, ino, raw);
}

static void salvage_lost(errcode_t err, ext2_ino_t first, ext2_ino_t last,
			 const char *detail, void *priv)
{
	struct scan_job *j = priv;

	job_warn(j, err, 0, detail);
	if (tree_grow((void **)&j->lost, &j->lost_cap, j->nlost + 1,
		      sizeof(*j->lost)))
		return; /* the warning stands; the walk says "not in use" */
	j->lost[j->nlost].first = first;
	j->lost[j->nlost].last = last;
	j->lost[j->nlost++].err = err;
}

static void *scan_range(void *arg)
{
	struct scan_job *j = arg;
	struct e4t_tree *t = j->t;
	ext2_filsys fs = j->fs;
	ext2_inode_scan scan;
	uint32_t ipg = fs->super->s_inodes_per_group;
	ext2_ino_t ino = 0;
	struct scan_pos pos = { .ipg = ipg };
	uint64_t end_ino = (uint64_t)j->end * ipg;
	uint64_t total = fs->super->s_inodes_count, tick = 0;
	unsigned bufsize = t->img->inode_size;
	struct ext2_inode_large *buf;
	errcode_t err;

	if (bufsize < sizeof(struct ext2_inode_large))
		bufsize = sizeof(struct ext2_inode_large);
	buf = calloc(1, bufsize);
	if (!buf) {
		j->err = ENOMEM;
		return NULL;
	}
	/* 1 MiB reads of the inode table, not libext2fs' default few blocks */
	err = ext2fs_open_inode_scan(fs, (int)((1U << 20) / fs->blocksize),
				     &scan);
	if (err) {
		free(buf);
		j->err = err;
		return NULL;
	}
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	ext2fs_set_inode_callback(scan, group_done, &pos);
	pos_goto(&pos, j->first);
	if (j->first)
		err = ext2fs_inode_scan_goto_blockgroup(scan, (int)j->first);
	/* No memset per inode: each inode returned was copied over the
	 * inode size, and what lies past it (an inode smaller than struct
	 * ext2_inode_large) stays as calloc() left it. */
	while (!err) {
		err = ext2fs_get_next_inode_full(scan, &ino,
						 (struct ext2_inode *)buf,
						 (int)t->img->inode_size);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE) {
			err = 0;
			continue;
		}
		/* A group past this job's (the scan reads on into the next
		 * before it gives the first inode the check below stops at):
		 * the other job's, and its warning too.  Without this, a
		 * table that failed at the first block of the second job's
		 * first group was salvaged and told twice. */
		if (err && pos.group >= j->end) {
			err = 0;
			break;
		}
		if (err == EXT2_ET_NEXT_INODE_READ) {
			/* A piece of the inode table does not read: the rest
			 * of the group block by block, then the next group. */
			dgrp_t g = pos.group + 1;

			err = e4t_itable_salvage(fs, pos.group, pos.next,
						 t->img->offset, salvage_fn,
						 salvage_lost, j);
			if (err || g >= j->end)
				break;
			pos_goto(&pos, g);
			err = ext2fs_inode_scan_goto_blockgroup(scan, (int)g);
			continue;
		}
		if (err) {
			/* Unreadable inode table: skip to the next group. */
			dgrp_t g = pos.group + 1;
			char detail[64];

			snprintf(detail, sizeof(detail),
				 "inode table of group %u", pos.group);
			job_warn(j, err, 0, detail);
			err = 0;
			if (g >= j->end)
				break;
			pos_goto(&pos, g);
			err = ext2fs_inode_scan_goto_blockgroup(scan, (int)g);
			continue;
		}
		if (ino == 0 || ino > end_ino)
			break;
		pos.next = ino + 1;
		err = take_inode(j, ino, buf);
		if (j->progress && t->cb.progress && ++tick % 65536 == 0)
			t->cb.progress("inodes", ino, total, t->cb.priv);
	}
	ext2fs_close_inode_scan(scan);
	free(buf);
	j->err = err;
	return NULL;
}

/* Inodes in use in groups [first, end), from the group descriptors. */
static uint64_t used_in(ext2_filsys fs, dgrp_t first, dgrp_t end)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint64_t used = 0;
	dgrp_t g;

	for (g = first; g < end; g++) {
		uint32_t free_inodes = ext2fs_bg_free_inodes_count(fs, g);

		used += free_inodes < ipg ? ipg - free_inodes : 0;
	}
	return used;
}

/*
 * Where to split the groups so that both halves hold about as many inodes
 * in use (from the group descriptors); 0 when one thread is enough.
 */
static dgrp_t split_point(ext2_filsys fs, int threads)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	uint64_t used, half, sum = 0;
	dgrp_t g;

	if (fs->group_desc_count < 2 || threads == 1 ||
	    (threads == 0 && e4t_cpus_free(2) < 2))
		return 0;
	used = used_in(fs, 0, fs->group_desc_count);
	if (threads == 0 && used < 65536) /* not worth a thread */
		return 0;
	half = used / 2;
	for (g = 0; g < fs->group_desc_count; g++) {
		uint32_t free_inodes = ext2fs_bg_free_inodes_count(fs, g);

		sum += free_inodes < ipg ? ipg - free_inodes : 0;
		if (sum >= half)
			return g + 1 < fs->group_desc_count ? g + 1 : 0;
	}
	return 0;
}

/*
 * Two jobs into t->recs: the first from 0 up to the inodes in use in its
 * groups, the second after that up to the end of the array.  Returns 0
 * when both fit (the records then moved together), -1 when one of them
 * was full or the threads could not be had: scan again with one job.
 */
static int scan_two(struct e4t_tree *t, dgrp_t mid, errcode_t *err)
{
	ext2_filsys fs = t->img->fs;
	struct scan_job jobs[2] = {
		{ .t = t,
		  .fs = fs,
		  .first = 0,
		  .end = mid,
		  .progress = 1,
		  .attrs = &t->attrs[0],
		  .wb.buffered = 1 },
		{ .t = t,
		  .first = mid,
		  .end = fs->group_desc_count,
		  .attrs = &t->attrs[1],
		  .attr_tag = ATTR_JOB1,
		  .wb.buffered = 1 },
	};
	uint64_t u0 = used_in(fs, 0, mid);
	uint64_t u1 = used_in(fs, mid, fs->group_desc_count);
	pthread_t worker;
	int ok = 0;

	/* Reserved, not touched: only the records written take memory. */
	if (u0 + u1 + 1024 > UINT32_MAX ||
	    tree_grow((void **)&t->recs, &t->recs_cap, u0 + u1 + 1024,
		      sizeof(*t->recs)))
		return -1;
	if (e4t_image_reopen(t->img, &jobs[1].fs))
		return -1;
	jobs[0].recs = t->recs;
	jobs[0].limit = u0 ? u0 : 1;
	jobs[1].recs = t->recs + jobs[0].limit;
	jobs[1].limit = t->recs_cap - jobs[0].limit;
	if (pthread_create(&worker, NULL, scan_range, &jobs[1])) {
		ext2fs_close_free(&jobs[1].fs);
		return -1;
	}
	scan_range(&jobs[0]);
	pthread_join(worker, NULL);
	ext2fs_close_free(&jobs[1].fs);
	if (!jobs[0].full && !jobs[1].full) {
		ok = 1;
		wb_flush(t, &jobs[0].wb);
		wb_flush(t, &jobs[1].wb);
		if (jobs[0].nrecs < jobs[0].limit)
			memmove(t->recs + jobs[0].nrecs, jobs[1].recs,
				jobs[1].nrecs * sizeof(*t->recs));
		t->nrecs = jobs[0].nrecs + jobs[1].nrecs;
		*err = jobs[0].err ? jobs[0].err : jobs[1].err;
		if (!*err &&
		    tree_grow((void **)&jobs[0].dtimes, &jobs[0].dtimes_cap,
			      jobs[0].ndtimes + jobs[1].ndtimes + 1,
			      sizeof(*jobs[0].dtimes)))
			*err = ENOMEM;
		if (!*err) {
			if (jobs[1].ndtimes)
				memcpy(jobs[0].dtimes + jobs[0].ndtimes,
				       jobs[1].dtimes,
				       jobs[1].ndtimes * sizeof(*t->dtimes));
			t->dtimes = jobs[0].dtimes;
			t->ndtimes = jobs[0].ndtimes + jobs[1].ndtimes;
			jobs[0].dtimes = NULL;
		}
		if (!*err &&
		    !tree_grow((void **)&jobs[0].roots, &jobs[0].roots_cap,
			       jobs[0].roots_len + jobs[1].roots_len + 1, 1)) {
			if (jobs[1].roots_len)
				memcpy(jobs[0].roots + jobs[0].roots_len,
				       jobs[1].roots, jobs[1].roots_len);
			t->roots = jobs[0].roots;
			t->roots_len = jobs[0].roots_len + jobs[1].roots_len;
			t->nroots = jobs[0].nroots + jobs[1].nroots;
			jobs[0].roots = NULL;
		}
	}
	if (ok && !*err &&
	    !tree_grow((void **)&jobs[0].lost, &jobs[0].lost_cap,
		       jobs[0].nlost + jobs[1].nlost + 1, sizeof(*t->lost))) {
		if (jobs[1].nlost)
			memcpy(jobs[0].lost + jobs[0].nlost, jobs[1].lost,
			       jobs[1].nlost * sizeof(*t->lost));
		t->lost = jobs[0].lost;
		t->nlost = jobs[0].nlost + jobs[1].nlost;
		jobs[0].lost = NULL;
	}
	free(jobs[0].lost);
	free(jobs[1].lost);
	free(jobs[0].roots);
	free(jobs[1].roots);
	free(jobs[0].dtimes);
	free(jobs[1].dtimes);
	e4t_held_free(&jobs[0].wb.held);
	e4t_held_free(&jobs[1].wb.held);
	if (!ok) { /* the one job starts its table again */
		iattr_free(&t->attrs[0]);
		iattr_free(&t->attrs[1]);
	}
	return ok ? 0 : -1;
}

static errcode_t scan_inodes(struct e4t_tree *t)
{
	ext2_filsys fs = t->img->fs;
	struct scan_job job = {
		.t = t,
		.fs = fs,
		.first = 0,
		.end = fs->group_desc_count,
		.progress = 1,
		.attrs = &t->attrs[0],
	};
	dgrp_t mid = split_point(fs, t->cb.threads);
	errcode_t err = 0;

	if (mid && !scan_two(t, mid, &err)) {
		iattr_done(&t->attrs[0]);
		iattr_done(&t->attrs[1]);
		return err;
	}
	/* One job: it grows the array reserve() sized. */
	job.recs = t->recs;
	job.cap = t->recs_cap;
	t->recs = NULL;
	scan_range(&job);
	t->recs = job.recs;
	t->recs_cap = job.cap;
	t->nrecs = job.nrecs;
	t->roots = job.roots;
	t->roots_len = job.roots_len;
	t->nroots = job.nroots;
	t->dtimes = job.dtimes;
	t->ndtimes = job.ndtimes;
	t->lost = job.lost;
	t->nlost = job.nlost;
	iattr_done(&t->attrs[0]);
	return job.err;
}

/*
 * The directory pass, like the inode-table pass, can run as two jobs:
 * each reads half of the directories (by size) through its own handle
 * into its own entry stream; the second job's is appended after the
 * first's, offsets fixed, so the result is the same.
 */
struct dir_job {
	struct e4t_tree *t;
	struct e4t_image img; /* a copy of t->img, with its own fs handle */
	size_t first, end;    /* indexes in t->dirs [first, end) */
	const unsigned char *root;     /* t->dirs[first]'s block map, or NULL */
	const unsigned char *root_end; /* the end of the maps to read ahead */
	struct e4t_dir_ahead *ahead;   /* blocks read ahead, or NULL: its own */
	char *buf; /* room to read blocks into, or NULL: its own */
	unsigned char *ents;
	size_t ents_len, ents_cap;
	struct warn_buf wb;
	errcode_t err;
	/* the directory being read, when encrypted: its no-key names */
	int enc;
	struct e4t_nokey nokey;
};

static void dir_job_warn(struct dir_job *j, errcode_t err, ext2_ino_t ino,
			 const char *detail)
{
	wb_warn(j->t, &j->wb, err, ino, detail);
}

static int add_edge(ext2_ino_t dir, ext2_ino_t ino, const char *name,
		    unsigned name_len, unsigned file_type, void *priv)
{
	struct dir_job *j = priv;
	struct irec *r;
	unsigned char *p;
	uint32_t child;

	char nokey[E4T_NOKEY_MAX];

	if (j->enc) {
		/* the name ls lists without the key, not the ciphertext */
		unsigned n = e4t_nokey_name(&j->nokey, name, name_len, nokey);

		if (n) {
			name = nokey;
			name_len = n;
		} else if (memchr(name, '/', name_len) ||
			   memchr(name, '\0', name_len)) {
			dir_job_warn(j, E4T_ERR_BAD_NAME, dir,
				     "encrypted entry skipped");
			return 0;
		}
	}
	if (tree_grow((void **)&j->ents, &j->ents_cap,
		      j->ents_len + ENT_HDR + name_len, 1)) {
		j->err = ENOMEM;
		return 1; /* stops the scan; the job reports it */
	}
	p = j->ents + j->ents_len;
	/* Look the child up once, here, rather than in every walk. */
	r = tree_find(j->t, ino);
	child = r ? (uint32_t)(r - j->t->recs) : ino;
	memcpy(p, &child, sizeof(child));
	/* bit 0: known; bits 1-3: the entry's file type */
	p[4] = (unsigned char)((r != NULL) | (file_type & 7) << 1);
	p[5] = (unsigned char)name_len;
	memcpy(p + ENT_HDR, name, name_len);
	j->ents_len += ENT_HDR + name_len;
	return 0;
}

static void dir_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		     void *priv)
{
	dir_job_warn(priv, err, ino, detail);
}

static int is_live_dir(const struct irec *r)
{
	return LINUX_S_ISDIR(r->mode) && r->status == E4T_LIVE;
}

/* Bytes of a directory read at once (fewer blocks when smaller). */
#define DIR_READ (128U << 10)
/* Bytes of the next directories read at once (e4t_dir_ahead). */
#define DIR_AHEAD (1U << 20)

static void *scan_dir_range(void *arg)
{
	struct dir_job *j = arg;
	struct e4t_tree *t = j->t;
	size_t i, done = 0;
	errcode_t err;

	unsigned bufblocks = DIR_READ / j->img.fs->blocksize;
	const unsigned char *root = j->root;
	struct e4t_dir_ahead own = { 0 }, *ahead = j->ahead ? j->ahead : &own;
	char *buf;

	if (!bufblocks)
		bufblocks = 1;
	buf = !root    ? NULL
	      : j->buf ? j->buf
		       : malloc((size_t)bufblocks * j->img.fs->blocksize);
	if (!buf)
		root = NULL;
	if (root && !ahead->mem) {
		/* without it, each run is read where it is needed */
		ahead->cap = DIR_AHEAD / j->img.fs->blocksize;
		ahead->mem = malloc((size_t)ahead->cap * j->img.fs->blocksize);
	}
	for (i = j->first; i < j->end && !j->err; i++) {
		struct dir *d = &t->dirs[i];
		const struct irec *r = &t->recs[d->rec];
		const struct iattr *a = rec_attr(t, r);
		size_t before = j->ents_len;
		uint32_t n = 0;

		d->start = before;
		j->enc = e4t_nokey_setup(j->img.fs, a->iflags, rec_size(t, r),
					 &j->nokey);
		if (root && !(a->iflags & EXT4_INLINE_DATA_FL)) {
			e4t_dir_ahead(&j->img, ahead, root, j->root_end);
			err = e4t_dir_scan_root(&j->img, r->ino, root, ahead,
						buf, bufblocks, add_edge,
						dir_warn, j);
		} else
			err = e4t_dir_scan(&j->img, r->ino,
					   (a->iflags & EXT4_INLINE_DATA_FL) !=
						   0,
					   add_edge, dir_warn, j);
		if (root)
			root += e4t_dir_root_len(root);
		if (err && !j->err)
			dir_job_warn(j, err, r->ino, "reading directory");
		while (before < j->ents_len) {
			before += ENT_HDR + j->ents[before + 5];
			n++;
		}
		d->count = n;
		if (!j->wb.buffered && t->cb.progress && ++done % 4096 == 0)
			t->cb.progress("directories", d->rec, t->nrecs,
				       t->cb.priv);
	}
	if (buf != j->buf)
		free(buf);
	free(own.mem);
	return NULL;
}

/* Where to split the directories so both halves hold about as many bytes
 * of them; 0 when one thread is enough. */
static size_t dir_split_point(const struct e4t_tree *t)
{
	uint64_t total = 0, sum = 0;
	size_t i;

	if (t->cb.threads == 1 || (t->cb.threads == 0 && e4t_cpus_free(2) < 2))
		return 0;
	for (i = 0; i < t->ndirs; i++)
		total += rec_size(t, &t->recs[t->dirs[i].rec]);
	if (t->cb.threads == 0 && total < (16U << 20)) /* not worth a thread */
		return 0;
	for (i = 0; i < t->ndirs; i++) {
		sum += rec_size(t, &t->recs[t->dirs[i].rec]);
		if (sum * 2 >= total)
			return i + 1 < t->ndirs ? i + 1 : 0;
	}
	return 0;
}

/*
 * Room for the entries of job j's directories, sized once from their
 * sizes (an entry takes fewer bytes in the stream than on disk), on huge
 * pages: the stream is written from its start, and growing it from
 * reserve()'s guess took a page fault per 4 KiB and copies (a fifth of a
 * one-thread timeline of 40-byte names).  A bound against a directory's
 * bogus size; a hint only: when it cannot be had, the stream grows.
 */
static void size_stream(struct dir_job *j)
{
	const struct e4t_tree *t = j->t;
	uint64_t bytes = 0, bound = (uint64_t)t->nrecs * 512 + (1U << 20);
	size_t i;
	void *p;

	for (i = j->first; i < j->end && bytes < bound; i++)
		bytes += rec_size(t, &t->recs[t->dirs[i].rec]);
	if (bytes > bound)
		bytes = bound;
	if (bytes <= j->ents_cap || bytes > SIZE_MAX) {
		/* reserve()'s guess is room enough: huge pages under it too
		 * (without them, 8-byte names took 3,500 faults of 4 KiB) */
		if (j->ents_cap > j->ents_len)
			e4t_huge_hint(j->ents + j->ents_len,
				      j->ents_cap - j->ents_len);
		return;
	}
	p = realloc(j->ents, (size_t)bytes);
	if (!p)
		return;
	j->ents = p;
	j->ents_cap = (size_t)bytes;
	e4t_huge_hint(j->ents + j->ents_len, j->ents_cap - j->ents_len);
}

/* The live directories, in record order. */
static errcode_t list_dirs(struct e4t_tree *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nrecs; i++)
		n += (size_t)is_live_dir(&t->recs[i]);
	t->dirs = calloc(n ? n : 1, sizeof(*t->dirs));
	if (!t->dirs)
		return ENOMEM;
	for (i = 0; i < t->nrecs; i++)
		if (is_live_dir(&t->recs[i]))
			t->dirs[t->ndirs++].rec = (uint32_t)i;
	return 0;
}

/* Test hook (test_timeline): E4TIME_TEST_DIR_SCAN_SLOW reads every
 * directory through e4t_dir_scan, as before the block maps, so that both
 * ways can be shown to give the same entries and warnings. */
static int dir_scan_slow(void)
{
#ifdef E4T_TEST_HOOKS
	return getenv("E4TIME_TEST_DIR_SCAN_SLOW") != NULL;
#else
	return 0;
#endif
}

/* Whether the block maps from the inode pass are the directories'. */
static int roots_usable(const struct e4t_tree *t)
{
	return t->roots && t->nroots == t->ndirs && !dir_scan_slow();
}

/*
 * E4T_TREE_WALK_READS: no directory pass.  The walk reads each directory
 * as it reaches it (tree_read_dir), into a buffer of its depth: the
 * entries of all directories (a byte stream as large as every name) are
 * never held at once.  Where each block map starts, for those reads.
 */
static errcode_t walk_reads_setup(struct e4t_tree *t)
{
	const unsigned char *p = t->roots;
	size_t i;

	if (!roots_usable(t))
		return 0;
	t->root_at = malloc((t->ndirs ? t->ndirs : 1) * sizeof(*t->root_at));
	if (!t->root_at)
		return ENOMEM;
	for (i = 0; i < t->ndirs; i++) {
		t->root_at[i] = (size_t)(p - t->roots);
		p += e4t_dir_root_len(p);
	}
	return 0;
}

errcode_t tree_read_dir(struct e4t_tree *t, size_t dir, unsigned char **ents,
			size_t *cap, uint32_t *count)
{
	struct dir_job j = { .t = t,
			     .img = *t->img,
			     .first = dir,
			     .end = dir + 1,
			     .ents = *ents,
			     .ents_cap = *cap };

	if (t->root_at) {
		if (!t->read_buf)
			t->read_buf = malloc(DIR_READ);
		if (!t->read_buf)
			return ENOMEM;
		j.root = t->roots + t->root_at[dir];
		j.root_end = t->roots + t->roots_len;
		j.ahead = &t->ahead;
		j.buf = t->read_buf;
	}
	scan_dir_range(&j);
	*ents = j.ents;
	*cap = j.ents_cap;
	*count = t->dirs[dir].count;
	return j.err;
}

void tree_read_done(struct e4t_tree *t)
{
	unsigned char *ents = NULL;
	size_t cap = 0, i;
	uint32_t n;

	for (i = 0; i < t->ndirs; i++)
		if (!(t->recs[t->dirs[i].rec].flags & T_EXPANDED))
			(void)tree_read_dir(t, i, &ents, &cap, &n);
	free(ents);
}

static errcode_t scan_dirs(struct e4t_tree *t)
{
	struct dir_job jobs[2] = {
		{ .t = t, .img = *t->img },
		{ .t = t, .img = *t->img, .wb.buffered = 1 },
	};
	size_t mid;
	pthread_t worker;
	int threaded = 0;
	errcode_t err;

	err = list_dirs(t);
	if (err)
		return err;
	if (t->walk_reads)
		return walk_reads_setup(t);
	jobs[0].end = t->ndirs;
	if (roots_usable(t)) {
		jobs[0].root = t->roots;
		jobs[0].root_end = t->roots + t->roots_len;
	}
	mid = dir_split_point(t);
	/* The first job fills the stream reserve() sized. */
	jobs[0].ents = t->ents;
	jobs[0].ents_cap = t->ents_cap;
	t->ents = NULL;
	if (mid && !e4t_image_reopen(t->img, &jobs[1].img.fs)) {
		jobs[0].end = mid;
		jobs[1].first = mid;
		jobs[1].end = t->ndirs;
		if (jobs[0].root) {
			const unsigned char *p = t->roots;
			size_t i;

			for (i = 0; i < mid; i++)
				p += e4t_dir_root_len(p);
			jobs[1].root = p;
			jobs[1].root_end = jobs[0].root_end;
			jobs[0].root_end = p;
		}
		size_stream(&jobs[1]);
		threaded = !pthread_create(&worker, NULL, scan_dir_range,
					   &jobs[1]);
		if (!threaded) {
			ext2fs_close_free(&jobs[1].img.fs);
			jobs[0].end = t->ndirs;
			jobs[0].root_end = jobs[1].root_end;
		}
	}
	size_stream(&jobs[0]);
	scan_dir_range(&jobs[0]);
	if (threaded) {
		pthread_join(worker, NULL);
		ext2fs_close_free(&jobs[1].img.fs);
		wb_flush(t, &jobs[1].wb);
	}
	t->ents = jobs[0].ents;
	t->ents_cap = jobs[0].ents_cap;
	t->ents_len = jobs[0].ents_len;
	t->ents2 = jobs[1].ents;
	free(t->roots); /* only the directory pass reads them */
	t->roots = NULL;
	t->roots_len = t->nroots = 0;
	if (threaded) {
		size_t i;

		for (i = jobs[1].first; i < jobs[1].end; i++)
			t->dirs[i].start |= IN_ENTS2;
	}
	return jobs[0].err ? jobs[0].err : jobs[1].err;
}

/* The rank bitmap tree_find() uses; records are in inode order. */
static errcode_t index_records(struct e4t_tree *t)
{
	size_t i, w;
	uint32_t n = 0;

	t->nwords = t->img->fs->super->s_inodes_count / 64 + 1;
	t->kept = calloc(t->nwords, sizeof(*t->kept));
	t->rank = malloc(t->nwords * sizeof(*t->rank));
	if (!t->kept || !t->rank)
		return ENOMEM;
	for (i = 0; i < t->nrecs; i++) {
		ext2_ino_t ino = t->recs[i].ino;

		t->kept[ino / 64] |= 1ULL << (ino % 64);
	}
	for (w = 0; w < t->nwords; w++) {
		t->rank[w] = n;
		n += (uint32_t)__builtin_popcountll(t->kept[w]);
	}
	return 0;
}

/* Size the arrays once from the superblock's count of inodes in use. */
static errcode_t reserve(struct e4t_tree *t)
{
	const struct ext2_super_block *sb = t->img->fs->super;
	size_t used = 1024;
	void *recs;

	if (sb->s_free_inodes_count < sb->s_inodes_count)
		used += sb->s_inodes_count - sb->s_free_inodes_count;
	/* Reserved, not touched: only what is written takes memory.  The
	 * records start on a cache line: half of them lie within one
	 * (a larger array later, for a superblock that undercounts, may
	 * not start so). */
	if (posix_memalign(&recs, 64, used * sizeof(*t->recs)))
		return ENOMEM;
	t->recs = recs;
	t->recs_cap = used;
	e4t_huge_hint(recs, used * sizeof(*t->recs));
	if (!t->walk_reads && tree_grow((void **)&t->ents, &t->ents_cap,
					used * (ENT_HDR + 16), 1))
		return ENOMEM;
	return 0;
}

errcode_t e4t_tree_load(struct e4t_image *img, const struct e4t_tree_opts *opts,
			struct e4t_tree **ret)
{
	struct e4t_tree *t;
	struct irec *root;
	errcode_t err;

	*ret = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	t->img = img;
	if (opts)
		t->cb = *opts;
	t->flags = t->cb.flags;
	t->walk_reads = (t->flags & E4T_TREE_WALK_READS) &&
			!(t->flags & E4T_TREE_DELETED);
	err = reserve(t);
	if (!err && (t->flags & E4T_TREE_GEN)) {
		ext2_filsys fs = img->fs;

		t->ngens = (size_t)fs->group_desc_count *
				   EXT2_INODES_PER_GROUP(fs->super) +
			   1;
		t->gens = calloc(t->ngens, sizeof(*t->gens));
		if (!t->gens)
			err = ENOMEM;
	}
	if (!err)
		err = e4t_image_orphans(img, &t->orphans, &t->norphans);
	if (!err)
		err = scan_inodes(t);
	if (!err)
		err = index_records(t);
	if (!err)
		err = scan_dirs(t);
	if (err) {
		e4t_tree_free(t);
		return err;
	}
	/* Mark what / reaches, so that orphans can be told apart. */
	root = tree_find(t, EXT2_ROOT_INO);
	if ((t->flags & E4T_TREE_DELETED) && root &&
	    LINUX_S_ISDIR(root->mode)) {
		err = tree_mark_reached(t, root);
		if (err) {
			e4t_tree_free(t);
			return err;
		}
	}
	*ret = t;
	return 0;
}

void e4t_tree_free(struct e4t_tree *t)
{
	if (!t)
		return;
	free(t->recs);
	iattr_free(&t->attrs[0]);
	iattr_free(&t->attrs[1]);
	free(t->dirs);
	free(t->ents);
	free(t->ents2);
	free(t->roots);
	free(t->root_at);
	free(t->read_buf);
	free(t->ahead.mem);
	free(t->dtimes);
	free(t->gens);
	free(t->lost);
	free(t->orphans);
	free(t->kept);
	free(t->rank);
	free(t);
}

errcode_t e4t_tree_lost(const struct e4t_tree *t, ext2_ino_t ino)
{
	size_t i = E4T_LOWER_BOUND(t->lost, t->nlost, struct lost, last, ino);

	return i < t->nlost && t->lost[i].first <= ino ? t->lost[i].err : 0;
}

errcode_t e4t_tree_inode(const struct e4t_tree *t, ext2_ino_t ino,
			 struct e4t_inode *info)
{
	struct irec *r = tree_find(t, ino);

	if (!r)
		return E4T_ERR_NOT_IN_USE;
	tree_expand(t, r, info);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Nanosecond baselines of directories (rules.h)                       */
/* ------------------------------------------------------------------ */

errcode_t e4t_tree_live_dirs(const struct e4t_tree *t, ext2_ino_t **ret,
			     size_t *n)
{
	ext2_ino_t *v = NULL;
	size_t cap = 0, i, k = 0;

	*ret = NULL;
	*n = 0;
	for (i = 0; i < t->nrecs; i++) { /* records are in inode order */
		const struct irec *r = &t->recs[i];

		if (r->status != E4T_LIVE || !LINUX_S_ISDIR(r->mode))
			continue;
		if (e4t_grow(&v, &cap, k + 1, sizeof(*v), 256)) {
			free(v);
			return ENOMEM;
		}
		v[k++] = r->ino;
	}
	*ret = v;
	*n = k;
	return 0;
}

errcode_t e4t_tree_dir_nsec(const struct e4t_tree *t, struct e4t_dir_nsec **ret,
			    size_t *n)
{
	struct e4t_dir_nsec *a = NULL;
	size_t cap = 0, i, k = 0;

	*ret = NULL;
	*n = 0;
	if (t->walk_reads) /* no entries held */
		return EINVAL;
	/* records are in inode order: so is the result */
	for (i = 0; i < t->ndirs; i++) {
		const struct dir *d = &t->dirs[i];
		const unsigned char *e = tree_ents_of(t, d);
		struct e4t_dir_nsec *dn;
		uint32_t x;

		if (!d->count)
			continue;
		if (e4t_grow(&a, &cap, k + 1, sizeof(*a), 256)) {
			free(a);
			return ENOMEM;
		}
		dn = &a[k++];
		dn->dir = t->recs[d->rec].ino;
		dn->entries = dn->nonzero = 0;
		for (x = 0; x < d->count; x++, e += ENT_HDR + e[5]) {
			const struct irec *c;
			uint32_t ci;

			if (!(e[4] & 1))
				continue;
			memcpy(&ci, e, sizeof(ci));
			c = &t->recs[ci];
			if (c->status != E4T_LIVE ||
			    !(e4t_inode_present(t->img->inode_size,
						rec_attr(t, c)->extra_isize) &
			      E4T_PRESENT_EXTRA(E4T_MTIME)))
				continue;
			dn->entries++;
			if (c->raw_extra[E4T_MTIME] >> 2)
				dn->nonzero++;
		}
	}
	*ret = a;
	*n = k;
	return 0;
}

const struct e4t_dir_nsec *e4t_dir_nsec_find(const struct e4t_dir_nsec *a,
					     size_t n, ext2_ino_t dir)
{
	size_t i = E4T_LOWER_BOUND(a, n, struct e4t_dir_nsec, dir, dir);

	return i < n && a[i].dir == dir ? &a[i] : NULL;
}
