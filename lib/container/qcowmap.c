/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qcowmap.c --- a qcow2 image's L1 and L2 tables, read to tell which
 * clusters it holds (qcowmap_int.h).  The header (big-endian): version at
 * 4, cluster_bits at 20, crypt_method at 32, l1_size at 36,
 * l1_table_offset at 40, and for version 3 incompatible_features at
 * 72 (bit 4: extended L2 entries, not read here).  An L1 entry's bits
 * 9-55 are its L2 table's offset (0: none); an L2 entry is held when it
 * is compressed (bit 62), has an offset (bits 9-55), or reads as zeros
 * (bit 0).  The last L2 table read is kept.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "container/qcowmap_int.h"

#define OFF_MASK   0x00fffffffffffe00ULL
#define COMPRESSED (1ULL << 62)
#define L1_MAX	   (1U << 25) /* entries: 32 TiB of 64 KiB clusters */

struct e4t_qmap {
	int fd;
	unsigned cbits; /* cluster_bits */
	uint32_t l1_size;
	uint64_t *l1;
	uint64_t l2_at; /* the kept L2 table's offset, 0: none */
	uint64_t *l2;	/* 1 << (cbits - 3) entries */
};

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int read_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t got;

	return !e4t_pread_full(fd, buf, len, off, &got) && got == len;
}

void e4t_qmap_free(struct e4t_qmap *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->l1);
	free(m->l2);
	free(m);
}

errcode_t e4t_qmap_open(const char *path, struct e4t_qmap **ret)
{
	struct e4t_qmap *m = calloc(1, sizeof(*m));
	unsigned char h[80];
	uint64_t l1_off, version;
	errcode_t err = E4T_ERR_CONTAINER;
	uint32_t i;

	*ret = NULL;
	if (!m)
		return ENOMEM;
	m->fd = -1;
	if (e4t_evidence_fd(path, &m->fd) || !read_all(m->fd, h, 80, 0))
		goto fail;
	version = be(h + 4, 4);
	m->cbits = (unsigned)be(h + 20, 4);
	m->l1_size = (uint32_t)be(h + 36, 4);
	l1_off = be(h + 40, 8);
	if (memcmp(h, "QFI\xfb", 4) || (version != 2 && version != 3) ||
	    m->cbits < 9 || m->cbits > 21 || be(h + 32, 4) ||
	    m->l1_size > L1_MAX || (version == 3 && (be(h + 72, 8) & 16)))
		goto fail;
	m->l1 = calloc(m->l1_size ? m->l1_size : 1, 8);
	m->l2 = malloc((size_t)1 << m->cbits);
	if (!m->l1 || !m->l2) {
		err = ENOMEM;
		goto fail;
	}
	if (m->l1_size &&
	    !read_all(m->fd, m->l1, (size_t)m->l1_size * 8, l1_off))
		goto fail;
	for (i = 0; i < m->l1_size; i++)
		m->l1[i] = be((unsigned char *)&m->l1[i], 8);
	*ret = m;
	return 0;
fail:
	e4t_qmap_free(m);
	return err;
}

int e4t_qmap_fd(const struct e4t_qmap *m)
{
	return m->fd;
}

enum e4t_qheld e4t_qmap_holds(struct e4t_qmap *m, uint64_t off, uint64_t *run,
			      uint64_t *host)
{
	unsigned l2bits = m->cbits - 3;
	uint64_t csize = 1ULL << m->cbits;
	uint64_t l1i = off >> (m->cbits + l2bits), l2off, e;
	size_t l2i = (size_t)((off >> m->cbits) & ((1ULL << l2bits) - 1));
	unsigned char *b;

	*run = csize - (off & (csize - 1));
	l2off = l1i < m->l1_size ? m->l1[l1i] & OFF_MASK : 0;
	if (!l2off) {
		uint64_t reach = 1ULL << (m->cbits + l2bits);

		*run = reach - (off & (reach - 1));
		return E4T_Q_NONE;
	}
	if (m->l2_at != l2off) {
		m->l2_at = 0;
		if (!read_all(m->fd, m->l2, (size_t)csize, l2off))
			return E4T_Q_ERR;
		m->l2_at = l2off;
	}
	b = (unsigned char *)&m->l2[l2i];
	e = be(b, 8);
	if (e & COMPRESSED)
		return E4T_Q_COMPRESSED;
	if (e & 1)
		return E4T_Q_ZERO;
	if (!(e & OFF_MASK))
		return E4T_Q_NONE;
	*host = (e & OFF_MASK) + (off & (csize - 1));
	return E4T_Q_DATA;
}
