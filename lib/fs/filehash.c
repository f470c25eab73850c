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
#include "container/digest.h"

#define HASH_BUF (1U << 20) /* bytes read at a time */

struct e4t_hasher {
	ext2_filsys fs;
	enum e4t_hash_alg alg;
	uint8_t *buf;
	union {
		struct e4t_md5 md5;
		struct e4t_sha1 sha1;
		struct e4t_sha256 sha256;
	} u;
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
	h->fs = fs;
	h->alg = alg;
	*ret = h;
	return 0;
}

void e4t_hasher_free(struct e4t_hasher *h)
{
	if (!h)
		return;
	free(h->buf);
	free(h);
}

static void hash_init(struct e4t_hasher *h)
{
	switch (h->alg) {
	case E4T_HASH_MD5: e4t_md5_init(&h->u.md5); break;
	case E4T_HASH_SHA1: e4t_sha1_init(&h->u.sha1); break;
	default: e4t_sha256_init(&h->u.sha256); break;
	}
}

/* Hash len bytes, but never past the file's end. */
static void hash_data(struct e4t_hasher *h, const void *p, uint64_t len)
{
	if (len > h->left)
		len = h->left;
	h->left -= len;
	switch (h->alg) {
	case E4T_HASH_MD5: e4t_md5_update(&h->u.md5, p, len); break;
	case E4T_HASH_SHA1: e4t_sha1_update(&h->u.sha1, p, len); break;
	default: e4t_sha256_update(&h->u.sha256, p, len); break;
	}
}

static void hash_final(struct e4t_hasher *h, uint8_t *out)
{
	switch (h->alg) {
	case E4T_HASH_MD5: e4t_md5_final(&h->u.md5, out); break;
	case E4T_HASH_SHA1: e4t_sha1_final(&h->u.sha1, out); break;
	default: e4t_sha256_final(&h->u.sha256, out); break;
	}
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

errcode_t e4t_hasher_file(struct e4t_hasher *h, ext2_ino_t ino, uint8_t *out)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(h->fs, ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode))
		return E4T_ERR_NOT_REGULAR;
	if (inode.i_flags & EXT4_ENCRYPT_FL)
		return E4T_ERR_CONTENT;
	hash_init(h);
	h->left = EXT2_I_SIZE(&inode);
	if (!h->left)
		err = 0;
	else if ((inode.i_flags & EXT4_EXTENTS_FL) &&
		 !(inode.i_flags & EXT4_INLINE_DATA_FL))
		err = hash_extents(h, ino, &inode);
	else
		err = hash_file_read(h, ino, &inode);
	if (!err)
		hash_final(h, out);
	return err;
}

/* Many files on one or two threads, each with a hasher and a handle. */
struct e4t_hash_pool {
	struct e4t_image *img;
	struct e4t_hasher *h[2];
	ext2_filsys fs2; /* the second thread's handle, or NULL */
	int nthreads;
	/* the run in progress */
	const ext2_ino_t *ino;
	uint8_t *out;
	errcode_t *errs;
	size_t n, next;
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
	free(p);
}

static void run_share(struct e4t_hash_pool *p, struct e4t_hasher *h)
{
	size_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n) {
		if (!p->ino[i]) {
			p->errs[i] = E4T_ERR_NOT_REGULAR;
			continue;
		}
		p->errs[i] = e4t_hasher_file(h, p->ino[i],
					     p->out + i * E4T_HASH_MAX);
	}
}

static void *pool_worker(void *arg)
{
	struct e4t_hash_pool *p = arg;

	run_share(p, p->h[1]);
	return NULL;
}

void e4t_hash_pool_run(struct e4t_hash_pool *p, const ext2_ino_t *ino, size_t n,
		       uint8_t *out, errcode_t *errs, int two)
{
	pthread_t worker;
	int threaded = 0;

	p->ino = ino;
	p->out = out;
	p->errs = errs;
	p->n = n;
	p->next = 0;
	if (two && p->nthreads == 2 && n > 1)
		threaded = !pthread_create(&worker, NULL, pool_worker, p);
	run_share(p, p->h[0]);
	if (threaded)
		pthread_join(worker, NULL);
}
