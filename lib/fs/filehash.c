/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filehash.c --- the MD5, SHA-1 or SHA-256 of a regular file's content,
 * read through libext2fs: extent files run by run straight from their
 * blocks (holes and unwritten extents as zeros), block-mapped and inline
 * data files through ext2fs_file_read(); always exactly i_size bytes,
 * as read(2) on the mounted filesystem gives them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

#define HASH_BUF (1U << 20) /* bytes read at a time */

struct e4t_hasher {
	ext2_filsys fs;
	enum e4t_hash_alg alg;
	uint8_t *buf;
	struct e4t_digest *dg;
	uint64_t left; /* bytes of the file still to hash */
};

static const char *const hash_names[] = {
	[E4T_HASH_MD5] = "md5",
	[E4T_HASH_SHA1] = "sha1",
	[E4T_HASH_SHA256] = "sha256",
};

int e4t_hash_parse(const char *name)
{
	int a;

	for (a = E4T_HASH_MD5; a <= E4T_HASH_SHA256; a++)
		if (strcmp(name, hash_names[a]) == 0)
			return a;
	return -1;
}

const char *e4t_hash_name(enum e4t_hash_alg alg)
{
	return alg >= E4T_HASH_MD5 && alg <= E4T_HASH_SHA256 ? hash_names[alg]
							     : NULL;
}

size_t e4t_hash_len(enum e4t_hash_alg alg)
{
	switch (alg) {
	case E4T_HASH_MD5: return 16;
	case E4T_HASH_SHA1: return 20;
	case E4T_HASH_SHA256: return 32;
	default: return 0;
	}
}

errcode_t e4t_hasher_new(ext2_filsys fs, enum e4t_hash_alg alg,
			 struct e4t_hasher **ret)
{
	struct e4t_hasher *h;
	errcode_t err;

	*ret = NULL;
	if (!e4t_hash_len(alg))
		return EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ENOMEM;
	h->buf = malloc(HASH_BUF);
	if (!h->buf) {
		free(h);
		return ENOMEM;
	}
	err = e4t_digest_new(alg, &h->dg);
	if (err) {
		free(h->buf);
		free(h);
		return err;
	}
	h->fs = fs;
	h->alg = alg;
	*ret = h;
	return 0;
}

void e4t_hasher_free(struct e4t_hasher *h)
{
	if (!h)
		return;
	e4t_digest_free(h->dg);
	free(h->buf);
	free(h);
}

/* Hash len bytes, but never past the file's end. */
static void hash_data(struct e4t_hasher *h, const void *p, uint64_t len)
{
	if (len > h->left)
		len = h->left;
	h->left -= len;
	e4t_digest_update(h->dg, p, (size_t)len);
}

static void hash_zeros(struct e4t_hasher *h, uint64_t len)
{
	static const uint8_t zeros[65536];

	while (len && h->left) {
		uint64_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		hash_data(h, zeros, n);
		len -= n;
	}
}

/* count blocks from physical block pblk, in runs of up to HASH_BUF. */
static errcode_t hash_blocks(struct e4t_hasher *h, blk64_t pblk, uint64_t count)
{
	unsigned bs = h->fs->blocksize, per = HASH_BUF / bs;
	errcode_t err;

	if (pblk + count > ext2fs_blocks_count(h->fs->super) ||
	    pblk + count < pblk)
		return E4T_ERR_CONTENT;
	while (count && h->left) {
		uint64_t need = (h->left + bs - 1) / bs;
		unsigned n = count < per ? (unsigned)count : per;

		if (n > need)
			n = (unsigned)need;
		err = io_channel_read_blk64(h->fs->io, pblk, (int)n, h->buf);
		if (err)
			return err;
		hash_data(h, h->buf, (uint64_t)n * bs);
		pblk += n;
		count -= n;
	}
	return 0;
}

/* An extent file: leaf by leaf in logical order. */
static errcode_t hash_extents(struct e4t_hasher *h, ext2_ino_t ino,
			      struct ext2_inode *inode)
{
	ext2_extent_handle_t eh = NULL;
	struct ext2fs_extent ext;
	uint64_t pos = 0; /* logical blocks hashed */
	errcode_t err;

	err = ext2fs_extent_open2(h->fs, ino, inode, &eh);
	if (err)
		return err;
	err = ext2fs_extent_get(eh, EXT2_EXTENT_ROOT, &ext);
	while (!err && h->left) {
		if (ext.e_flags & EXT2_EXTENT_FLAGS_LEAF && ext.e_len) {
			if (ext.e_lblk < pos) { /* out of order: damaged */
				err = E4T_ERR_CONTENT;
				break;
			}
			hash_zeros(h, (ext.e_lblk - pos) * h->fs->blocksize);
			if (ext.e_flags & EXT2_EXTENT_FLAGS_UNINIT)
				hash_zeros(h, (uint64_t)ext.e_len *
						      h->fs->blocksize);
			else
				err = hash_blocks(h, ext.e_pblk, ext.e_len);
			pos = ext.e_lblk + ext.e_len;
			if (err)
				break;
		}
		err = ext2fs_extent_get(eh, EXT2_EXTENT_NEXT_LEAF, &ext);
	}
	if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_EXTENT_NO_DOWN)
		err = 0;
	ext2fs_extent_free(eh);
	if (!err)
		hash_zeros(h, h->left); /* a hole at the end */
	return err;
}

/* Block-mapped and inline data files: libext2fs reads them. */
static errcode_t hash_file_read(struct e4t_hasher *h, ext2_ino_t ino,
				struct ext2_inode *inode)
{
	ext2_file_t file = NULL;
	errcode_t err, err2;
	unsigned int got;

	err = ext2fs_file_open2(h->fs, ino, inode, 0, &file);
	if (err)
		return err;
	while (h->left) {
		err = ext2fs_file_read(file, h->buf, HASH_BUF, &got);
		if (err)
			break;
		if (!got) {
			err = E4T_ERR_CONTENT; /* short of i_size */
			break;
		}
		hash_data(h, h->buf, got);
	}
	err2 = ext2fs_file_close(file);
	return err ? err : err2;
}

/* Hash regular file ino, whose inode the caller has read. */
static errcode_t hash_inode(struct e4t_hasher *h, ext2_ino_t ino,
			    struct ext2_inode *inode, uint8_t *out)
{
	errcode_t err;

	if (!LINUX_S_ISREG(inode->i_mode))
		return E4T_ERR_NOT_REGULAR;
	if (inode->i_flags & EXT4_ENCRYPT_FL)
		return E4T_ERR_CONTENT;
	err = e4t_digest_start(h->dg);
	if (err)
		return err;
	h->left = EXT2_I_SIZE(inode);
	if (!h->left)
		err = 0;
	else if ((inode->i_flags & EXT4_EXTENTS_FL) &&
		 !(inode->i_flags & EXT4_INLINE_DATA_FL))
		err = hash_extents(h, ino, inode);
	else
		err = hash_file_read(h, ino, inode);
	if (!err)
		err = e4t_digest_final(h->dg, out);
	return err;
}

/*
 * A file of a run, in the order the threads take them: files of
 * HASH_BIG bytes or more first, largest first, so that one does not start
 * last and keep one thread busy while the other waits; then the others
 * by their first physical block, so that reads go forward through the
 * image (what a cold image on disk gains; from the page cache the order
 * makes no difference).
 */
struct hash_job {
	size_t idx; /* in the run's ino[] */
	uint64_t size;
	blk64_t first; /* first physical block, 0: none (hole, inline) */
	struct ext2_inode inode;
	int keep; /* hard linked: keep the hash for the other names */
};

#define HASH_BIG (16ULL << 20)

/* Inodes with more than one name that have been hashed (gen 0), or are
 * to be in this run (gen = the run's, idx = their first name's). */
struct link_ent {
	ext2_ino_t ino; /* 0: free slot */
	unsigned gen;
	size_t idx;
	errcode_t err;
	uint8_t hash[E4T_HASH_MAX];
};

/* Many files on one or two threads, each with a hasher and a handle. */
struct e4t_hash_pool {
	struct e4t_image *img;
	struct e4t_hasher *h[2];
	ext2_filsys fs2; /* the second thread's handle, or NULL */
	int nthreads;
	uint64_t files;		/* inodes read */
	struct link_ent *links; /* open addressing, power of two */
	size_t nlinks, links_cap;
	unsigned gen;
	/* the run in progress */
	struct hash_job *jobs;
	size_t njobs, jobs_cap, next;
	size_t *from; /* another name of the same inode, or SIZE_MAX */
	size_t from_cap;
	const ext2_ino_t *ino;
	uint8_t *out;
	errcode_t *errs;
};
errcode_t e4t_hash_pool_new(struct e4t_image *img, enum e4t_hash_alg alg,
			    int threads, struct e4t_hash_pool **ret)
{
	struct e4t_hash_pool *p;
	errcode_t err;

	*ret = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return ENOMEM;
	p->img = img;
	p->nthreads = 1;
	err = e4t_hasher_new(img->fs, alg, &p->h[0]);
	if (!err && (threads == 2 ||
		     (threads == 0 && sysconf(_SC_NPROCESSORS_ONLN) >= 2))) {
		/* no second handle: one thread does it all */
		if (!e4t_image_reopen(img, &p->fs2) &&
		    e4t_hasher_new(p->fs2, alg, &p->h[1]) == 0)
			p->nthreads = 2;
	}
	if (err) {
		e4t_hash_pool_free(p);
		return err;
	}
	*ret = p;
	return 0;
}

void e4t_hash_pool_free(struct e4t_hash_pool *p)
{
	if (!p)
		return;
	e4t_hasher_free(p->h[0]);
	e4t_hasher_free(p->h[1]);
	if (p->fs2)
		ext2fs_close_free(&p->fs2);
	free(p->links);
	free(p->jobs);
	free(p->from);
	free(p);
}

uint64_t e4t_hash_pool_files(const struct e4t_hash_pool *p)
{
	return p->files;
}

static size_t link_slot(const struct e4t_hash_pool *p, ext2_ino_t ino)
{
	size_t mask = p->links_cap - 1, i = (size_t)(ino * 2654435761U) & mask;

	while (p->links[i].ino && p->links[i].ino != ino)
		i = (i + 1) & mask;
	return i;
}

/* The entry of ino, a new one (ino set, gen 0, *isnew 1) if none;
 * NULL when out of memory.  Valid until the next call. */
static struct link_ent *link_get(struct e4t_hash_pool *p, ext2_ino_t ino,
				 int *isnew)
{
	size_t i;

	if ((p->nlinks + 1) * 2 > p->links_cap) { /* grow: half full at most */
		size_t cap = p->links_cap ? p->links_cap * 2 : 256, j;
		struct link_ent *old = p->links, *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		p->links = n;
		j = p->links_cap;
		p->links_cap = cap;
		while (j--)
			if (old[j].ino)
				p->links[link_slot(p, old[j].ino)] = old[j];
		free(old);
	}
	i = link_slot(p, ino);
	*isnew = !p->links[i].ino;
	if (*isnew) {
		p->links[i].ino = ino;
		p->links[i].gen = 0;
		p->nlinks++;
	}
	return &p->links[i];
}

static int cmp_job(const void *a, const void *b)
{
	const struct hash_job *x = a, *y = b;
	int xb = x->size >= HASH_BIG, yb = y->size >= HASH_BIG;

	if (xb != yb)
		return yb - xb;
	if (xb && x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (!xb && x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Test hook (bench/hash.sh, by hand): E4TIME_TEST_HASH_WALK_ORDER
 * hashes the files in the order of their names, to measure what the
 * order above gains. */
static int walk_order(void)
{
#ifdef E4T_TEST_HOOKS
	return getenv("E4TIME_TEST_HASH_WALK_ORDER") != NULL;
#else
	return 0;
#endif
}

static void run_share(struct e4t_hash_pool *p, struct e4t_hasher *h)
{
	size_t k;

	while ((k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	       p->njobs) {
		struct hash_job *j = &p->jobs[k];

		p->errs[j->idx] = hash_inode(h, p->ino[j->idx], &j->inode,
					     p->out + j->idx * E4T_HASH_MAX);
	}
}

static void *pool_worker(void *arg)
{
	struct e4t_hash_pool *p = arg;

	run_share(p, p->h[1]);
	return NULL;
}

/*
 * Name i of the run: its inode read, set aside as a job, or answered from
 * an earlier run (a hard link hashed before) or left to another name of
 * the same inode in this run.
 */
static void plan_one(struct e4t_hash_pool *p, size_t i)
{
	ext2_filsys fs = p->h[0]->fs;
	struct hash_job *j = &p->jobs[p->njobs];
	errcode_t err;

	p->from[i] = SIZE_MAX;
	if (!p->ino[i]) {
		p->errs[i] = E4T_ERR_NOT_REGULAR;
		return;
	}
	err = ext2fs_read_inode(fs, p->ino[i], &j->inode);
	if (err) {
		p->errs[i] = err;
		return;
	}
	j->keep = 0;
	if (j->inode.i_links_count > 1 && LINUX_S_ISREG(j->inode.i_mode)) {
		int isnew;
		struct link_ent *e = link_get(p, p->ino[i], &isnew);

		if (e && !isnew && e->gen == p->gen) { /* later in this run */
			p->from[i] = e->idx;
			return;
		}
		if (e && !isnew) { /* hashed in an earlier run */
			p->errs[i] = e->err;
			memcpy(p->out + i * E4T_HASH_MAX, e->hash,
			       E4T_HASH_MAX);
			return;
		}
		if (e) { /* no entry: hashed for each name */
			e->gen = p->gen;
			e->idx = i;
			j->keep = 1;
		}
	}
	j->idx = i;
	j->size = EXT2_I_SIZE(&j->inode);
	j->first = 0;
	if (j->size && !(j->inode.i_flags & EXT4_INLINE_DATA_FL) &&
	    ext2fs_bmap2(fs, p->ino[i], &j->inode, NULL, 0, 0, NULL, &j->first))
		j->first = 0;
	p->njobs++;
}

static errcode_t grow_run(struct e4t_hash_pool *p, size_t n)
{
	if (n > p->jobs_cap) {
		struct hash_job *j = realloc(p->jobs, n * sizeof(*j));

		if (!j)
			return ENOMEM;
		p->jobs = j;
		p->jobs_cap = n;
	}
	if (n > p->from_cap) {
		size_t *f = realloc(p->from, n * sizeof(*f));

		if (!f)
			return ENOMEM;
		p->from = f;
		p->from_cap = n;
	}
	return 0;
}

void e4t_hash_pool_run(struct e4t_hash_pool *p, const ext2_ino_t *ino, size_t n,
		       uint8_t *out, errcode_t *errs, int two)
{
	pthread_t worker;
	int threaded = 0;
	errcode_t err;
	size_t i, k;

	p->ino = ino;
	p->out = out;
	p->errs = errs;
	p->njobs = 0;
	p->next = 0;
	if (++p->gen == 0) /* gen 0 means hashed */
		p->gen = 1;
	err = grow_run(p, n);
	for (i = 0; i < n; i++)
		if (err)
			errs[i] = err;
		else
			plan_one(p, i);
	if (err)
		return;
	if (!walk_order())
		qsort(p->jobs, p->njobs, sizeof(*p->jobs), cmp_job);
	p->files += p->njobs;
	if (two && p->nthreads == 2 && p->njobs > 1)
		threaded = !pthread_create(&worker, NULL, pool_worker, p);
	run_share(p, p->h[0]);
	if (threaded)
		pthread_join(worker, NULL);
	for (k = 0; k < p->njobs; k++) { /* keep hard links' hashes */
		struct hash_job *j = &p->jobs[k];
		struct link_ent *e;

		if (!j->keep)
			continue;
		e = &p->links[link_slot(p, ino[j->idx])]; /* there */
		e->gen = 0;
		e->err = errs[j->idx];
		memcpy(e->hash, out + j->idx * E4T_HASH_MAX, E4T_HASH_MAX);
	}
	for (i = 0; i < n; i++) /* the other names of this run's */
		if (p->from[i] != SIZE_MAX) {
			errs[i] = errs[p->from[i]];
			memcpy(out + i * E4T_HASH_MAX,
			       out + p->from[i] * E4T_HASH_MAX, E4T_HASH_MAX);
		}
}
