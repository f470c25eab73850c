/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container.c --- opening evidence whatever holds it: the format is told
 * by the first bytes (and, for split raw, by the pieces beside the
 * first), never by the name's extension alone.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

void e4t_cwarnf(e4t_cwarn warn, void *arg, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(arg, msg);
}

errcode_t e4t_container_new(const char *path, enum e4t_ckind kind,
			    const char *kind_name,
			    const struct e4t_container_ops *ops,
			    struct e4t_container **ret)
{
	struct e4t_container *c = calloc(1, sizeof(*c));

	*ret = NULL;
	if (!c)
		return ENOMEM;
	c->path = strdup(path);
	if (!c->path) {
		free(c);
		return ENOMEM;
	}
	c->kind = kind;
	c->kind_name = kind_name;
	c->ops = ops;
	c->fd = -1;
	c->pieces = 1;
	pthread_mutex_init(&c->lock, NULL);
	*ret = c;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The block cache                                                     */
/* ------------------------------------------------------------------ */

#define NONE  UINT32_MAX
#define EMPTY UINT64_MAX

struct cent {
	uint64_t blk;  /* block number (offset / E4T_CACHE_BLOCK); EMPTY */
	uint32_t next; /* the next entry in its hash chain, or NONE */
	uint32_t ref;  /* read since the clock hand last passed */
	char *data;    /* E4T_CACHE_BLOCK bytes, malloc'd when first filled */
};

struct e4t_ccache {
	uint32_t n;    /* entries */
	uint32_t used; /* entries given a buffer so far: [0, used) */
	uint32_t hand; /* the clock's */
	uint32_t mask; /* buckets - 1 (a power of two) */
	uint32_t *bucket;
	struct cent *e;
	uint64_t hits, misses;
};

static void cache_free(struct e4t_ccache *k)
{
	uint32_t i;

	if (!k)
		return;
	for (i = 0; i < k->used; i++)
		free(k->e[i].data);
	free(k->e);
	free(k->bucket);
	free(k);
}

static uint32_t cache_hash(const struct e4t_ccache *k, uint64_t blk)
{
	return (uint32_t)((blk * 0x9e3779b97f4a7c15ULL) >> 32) & k->mask;
}

static uint32_t cache_find(const struct e4t_ccache *k, uint64_t blk)
{
	uint32_t i = k->bucket[cache_hash(k, blk)];

	while (i != NONE && k->e[i].blk != blk)
		i = k->e[i].next;
	return i;
}

static void cache_unlink(struct e4t_ccache *k, uint32_t i)
{
	uint32_t *p;

	if (k->e[i].blk == EMPTY)
		return;
	p = &k->bucket[cache_hash(k, k->e[i].blk)];
	while (*p != i)
		p = &k->e[*p].next;
	*p = k->e[i].next;
	k->e[i].blk = EMPTY;
	k->e[i].next = NONE;
}

/* An entry to fill, out of every chain: a new one while there is room
 * (and memory), else the clock's victim; NONE when there is neither. */
static uint32_t cache_victim(struct e4t_ccache *k)
{
	uint32_t i;

	if (k->used < k->n) {
		k->e[k->used].data = malloc(E4T_CACHE_BLOCK);
		if (k->e[k->used].data)
			return k->used++;
	}
	if (!k->used)
		return NONE;
	for (;;) {
		if (k->hand >= k->used)
			k->hand = 0;
		i = k->hand++;
		if (!k->e[i].ref)
			break;
		k->e[i].ref = 0;
	}
	cache_unlink(k, i);
	return i;
}

errcode_t e4t_container_set_cache(struct e4t_container *c, uint64_t bytes)
{
	struct e4t_ccache *k = NULL;
	uint64_t n = bytes / E4T_CACHE_BLOCK;

	if (bytes) {
		uint32_t nb = 1, i;

		if (!n)
			n = 1;
		if (n > (1U << 24)) /* 512 GiB */
			n = 1U << 24;
		while (nb < 2 * n)
			nb <<= 1;
		k = calloc(1, sizeof(*k));
		if (!k)
			return ENOMEM;
		k->n = (uint32_t)n;
		k->mask = nb - 1;
		k->e = calloc((size_t)n, sizeof(*k->e));
		k->bucket = malloc((size_t)nb * sizeof(*k->bucket));
		if (!k->e || !k->bucket) {
			cache_free(k);
			return ENOMEM;
		}
		for (i = 0; i < nb; i++)
			k->bucket[i] = NONE;
		for (i = 0; i < k->n; i++) {
			k->e[i].blk = EMPTY;
			k->e[i].next = NONE;
		}
	}
	pthread_mutex_lock(&c->lock);
	cache_free(c->cache);
	c->cache = k;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

void e4t_container_cache_stats(struct e4t_container *c, uint64_t *hits,
			       uint64_t *misses)
{
	pthread_mutex_lock(&c->lock);
	*hits = c->cache ? c->cache->hits : 0;
	*misses = c->cache ? c->cache->misses : 0;
	pthread_mutex_unlock(&c->lock);
}

/*
 * Read block blk into an entry, *ret, c->lock held.  A parallel
 * container (EWF) reads it with the lock let go, so that the other
 * thread's hits, and its own reads, go on meanwhile; the block is
 * entered after, unless that thread entered it first.
 */
static errcode_t cache_fill(struct e4t_container *c, uint64_t blk,
			    uint32_t *ret)
{
	struct e4t_ccache *k = c->cache;
	uint64_t start = blk * E4T_CACHE_BLOCK;
	size_t blen = c->size - start < E4T_CACHE_BLOCK
			      ? (size_t)(c->size - start)
			      : E4T_CACHE_BLOCK;
	errcode_t err;
	uint32_t i, h;

	*ret = NONE;
	if (c->ops->parallel) {
		char *tmp = malloc(E4T_CACHE_BLOCK);

		if (!tmp)
			return ENOMEM;
		pthread_mutex_unlock(&c->lock);
		err = c->ops->read(c, tmp, blen, start);
		pthread_mutex_lock(&c->lock);
		i = err ? NONE : cache_find(k, blk);
		if (err || i != NONE) {
			free(tmp);
			*ret = i;
			return err;
		}
		i = cache_victim(k);
		if (i == NONE) {
			free(tmp);
			return ENOMEM;
		}
		free(k->e[i].data);
		k->e[i].data = tmp;
	} else {
		i = cache_victim(k);
		if (i == NONE)
			return ENOMEM;
		err = c->ops->read(c, k->e[i].data, blen, start);
		if (err)
			return err; /* i stays empty */
	}
	k->misses++;
	k->e[i].blk = blk;
	h = cache_hash(k, blk);
	k->e[i].next = k->bucket[h];
	k->bucket[h] = i;
	*ret = i;
	return 0;
}

/*
 * Read [off, off + len) through the cache; c->lock held.  A block that
 * cannot be read whole (a chunk failing its checksum, say) is not kept,
 * and what was asked for is read as it would be without a cache, so
 * that the error, if any, is that range's own.
 */
static errcode_t cache_read(struct e4t_container *c, char *buf, size_t len,
			    uint64_t off)
{
	struct e4t_ccache *k = c->cache;

	while (len) {
		uint64_t blk = off / E4T_CACHE_BLOCK;
		size_t in = (size_t)(off - blk * E4T_CACHE_BLOCK);
		size_t n =
			E4T_CACHE_BLOCK - in < len ? E4T_CACHE_BLOCK - in : len;
		uint32_t i = cache_find(k, blk);

		if (i != NONE)
			k->hits++;
		else if (cache_fill(c, blk, &i) || i == NONE)
			return c->ops->read(c, buf, len, off);
		k->e[i].ref = 1;
		memcpy(buf, k->e[i].data + in, n);
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

void e4t_container_close(struct e4t_container *c)
{
	if (!c)
		return;
	cache_free(c->cache);
	if (c->ops && c->ops->close)
		c->ops->close(c);
	if (c->fd >= 0)
		close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c->path);
	free(c);
}

errcode_t e4t_container_read(struct e4t_container *c, void *buf, size_t len,
			     uint64_t off)
{
	errcode_t err;

	if (off > c->size || len > c->size - off)
		return EXT2_ET_SHORT_READ;
	if (!len)
		return 0;
	if (c->ops->parallel &&
	    (!c->cache || len > 2 * (size_t)E4T_CACHE_BLOCK))
		return c->ops->read(c, buf, len, off);
	pthread_mutex_lock(&c->lock);
	if (c->cache && len <= 2 * (size_t)E4T_CACHE_BLOCK)
		err = cache_read(c, buf, len, off);
	else
		err = c->ops->read(c, buf, len, off);
	pthread_mutex_unlock(&c->lock);
	return err;
}

errcode_t e4t_evidence_fd(const char *path, int *fd)
{
	struct stat st;
	errcode_t err;
	int flags;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return errno;
	if (fstat(*fd, &st) != 0) {
		err = errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		err = E4T_ERR_CONTAINER_NOT_FILE;
		goto fail;
	}
	flags = fcntl(*fd, F_GETFL);
	if (flags < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		err = errno;
		goto fail;
	}
	return 0;
fail:
	close(*fd);
	*fd = -1;
	return err;
}

/* The format the first bytes of a file say it is in. */
enum sniffed { S_RAW, S_EWF, S_QCOW, S_VMDK, S_VHD, S_VHDX };

static enum sniffed sniff(int fd)
{
	static const unsigned char ewf1[8] = { 'E',  'V',  'F',	 0x09,
					       0x0d, 0x0a, 0xff, 0x00 };
	static const unsigned char ewf2[8] = { 'E',  'V',  'F',	 '2',
					       0x0d, 0x0a, 0x81, 0x00 };
	static const unsigned char qcow[4] = { 'Q', 'F', 'I', 0xfb };
	unsigned char b[512];
	ssize_t n = pread(fd, b, sizeof(b), 0);
	off_t end;

	if (n >= 8 && (!memcmp(b, ewf1, 8) || !memcmp(b, ewf2, 8)))
		return S_EWF;
	if (n >= 4 && !memcmp(b, qcow, 4))
		return S_QCOW;
	if (n >= 4 && (!memcmp(b, "KDMV", 4) || !memcmp(b, "COWD", 4)))
		return S_VMDK;
	if (n >= 21 && !memcmp(b, "# Disk DescriptorFile", 21))
		return S_VMDK;
	if (n >= 8 && !memcmp(b, "vhdxfile", 8))
		return S_VHDX;
	if (n >= 8 && !memcmp(b, "conectix", 8)) /* dynamic: footer copy */
		return S_VHD;
	/* a fixed VHD: raw bytes and a 512-byte footer at the end */
	end = lseek(fd, 0, SEEK_END);
	if (end >= 512 && pread(fd, b, 512, end - 512) == 512 &&
	    !memcmp(b, "conectix", 8))
		return S_VHD;
	return S_RAW;
}

/* A format this build cannot read: its name and library in *what. */
static errcode_t unsupported(errcode_t err, const char *name, char **what)
{
	if (err == E4T_ERR_CONTAINER_UNSUPPORTED && !*what) {
		*what = strdup(name);
		if (!*what)
			return ENOMEM;
	}
	return err;
}

errcode_t e4t_container_open(const char *path, struct e4t_container **ret,
			     char **what)
{
	enum sniffed s;
	errcode_t err = 0;
	int fd;

	*ret = NULL;
	*what = NULL;
	err = e4t_evidence_fd(path, &fd);
	if (err)
		return err;
	s = sniff(fd);
	close(fd);
	switch (s) {
	case S_EWF:
		err = unsupported(e4t_ewf_open(path, ret, what),
				  "EWF (E01) image (libewf)", what);
		break;
	case S_QCOW:
		err = unsupported(e4t_qcow_open(path, ret, what),
				  "qcow2 image (libqcow)", what);
		break;
	case S_VMDK:
		err = unsupported(e4t_vmdk_open(path, ret, what),
				  "VMDK image (libvmdk)", what);
		break;
	case S_VHD:
		err = unsupported(e4t_vhdi_open(path, ret, what),
				  "VHD image (libvhdi)", what);
		break;
	case S_VHDX:
		err = unsupported(e4t_vhdi_open(path, ret, what),
				  "VHDX image (libvhdi)", what);
		break;
	case S_RAW: break;
	}
	if (s != S_RAW) {
		/* without a cache it reads as well, only slower */
		if (!err)
			(void)e4t_container_set_cache(
				*ret, (uint64_t)E4T_CACHE_DEFAULT_MB << 20);
		return err;
	}
	/* split raw: a first piece with its second beside it */
	err = e4t_split_open(path, ret, what);
	if (err != E4T_ERR_CONTAINER_UNSUPPORTED || *what)
		return err;
	return e4t_raw_open(path, ret);
}
