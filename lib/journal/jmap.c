/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jmap.c --- map a journal into memory, read-only and shared with the page
 * cache.  An internal journal is usually one extent of the image; when it
 * is several, each is mapped in place inside one reserved range, so that
 * journal block i is always at mem + i * bs.  Anything unusual (a hole, a
 * short file, extents off page boundaries) leaves the journal unmapped
 * and journal.c reads it as before.
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "journal/jmap_int.h"

#define MAX_RUNS      4096 /* well under vm.max_map_count */
#define RESERVE_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

static int file_size(int fd, uint64_t *size)
{
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		return -1;
	*size = (uint64_t)end;
	return 0;
}

/* Runs of consecutive filesystem blocks in map[0 .. n); 0: a hole. */
static uint32_t count_runs(const blk64_t *map, uint32_t n)
{
	uint32_t i, runs = 0;

	for (i = 0; i < n; i++) {
		if (map[i] == 0)
			return 0;
		if (i == 0 || map[i] != map[i - 1] + 1)
			runs++;
	}
	return runs;
}

static void map_internal_(struct e4t_jmap *m, int fd, uint64_t offset,
			  const blk64_t *map, uint32_t nblocks, uint32_t bs)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t total = (uint64_t)nblocks * bs, fsize, start;
	uint32_t runs = count_runs(map, nblocks), i, n;
	uint8_t *res;
	void *p;

	if (!runs || runs > MAX_RUNS || file_size(fd, &fsize))
		return;
	for (i = 0; i < nblocks; i += n) {
		for (n = 1; i + n < nblocks && map[i + n] == map[i] + n; n++)
			;
		if (map[i] > (UINT64_MAX - offset) / bs / 2)
			return;
		start = offset + map[i] * bs;
		if (start > fsize || fsize - start < (uint64_t)n * bs)
			return; /* past the end of the image: SIGBUS */
	}
	if (runs == 1) {
		size_t delta;

		start = offset + map[0] * bs;
		delta = (size_t)(start % psz);
		p = mmap(NULL, (size_t)total + delta, PROT_READ, MAP_SHARED, fd,
			 (off_t)(start - delta));
		if (p == MAP_FAILED)
			return;
		m->base = p;
		m->len = (size_t)total + delta;
		m->mem = (const uint8_t *)p + delta;
		return;
	}
	if (bs % psz || offset % psz)
		return;
	/* the range, reserved: anonymous, fd -1 as mmap(2) asks */
	/* cppcheck-suppress invalidFunctionArg */
	p = mmap(NULL, (size_t)total, PROT_NONE, RESERVE_FLAGS, -1, 0);
	if (p == MAP_FAILED)
		return;
	res = p;
	for (i = 0; i < nblocks; i += n) {
		void *q;

		for (n = 1; i + n < nblocks && map[i + n] == map[i] + n; n++)
			;
		q = mmap(res + (size_t)i * bs, (size_t)n * bs, PROT_READ,
			 MAP_SHARED | MAP_FIXED, fd,
			 (off_t)(offset + map[i] * bs));
		/* in place in the reserved range: munmap(p) frees it */
		if (q == MAP_FAILED) {
			munmap(p, (size_t)total);
			return;
		}
	}
	m->base = p;
	m->len = (size_t)total;
	m->mem = res;
}

errcode_t e4t_jmap_open(struct e4t_jmap *m, const char *path, uint64_t offset,
			const blk64_t *map, int fd, uint32_t nblocks,
			uint32_t bs, int readahead)
{
	uint64_t total = (uint64_t)nblocks * bs, fsize;
	int own;
	void *p;

	memset(m, 0, sizeof(*m));
	if (nblocks == 0 || bs == 0 || total > SIZE_MAX / 4)
		return 0;
	if (!map) {
		if (fd < 0 || file_size(fd, &fsize) || fsize < total)
			return 0;
		p = mmap(NULL, (size_t)total, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 0;
		m->base = p;
		m->len = (size_t)total;
		m->mem = p;
		if (readahead)
			(void)madvise(p, (size_t)total, MADV_WILLNEED);
		return 0;
	}
	own = open(path, O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return 0;
	map_internal_(m, own, offset, map, nblocks, bs);
	close(own); /* the mapping keeps the file */
	/* read ahead into the page cache, not into this process (a
	 * MAP_POPULATE would count the whole journal as resident) */
	if (m->base && readahead)
		(void)madvise(m->base, m->len, MADV_WILLNEED);
	return 0;
}

void e4t_jmap_release(const struct e4t_jmap *m)
{
	if (m->base)
		(void)madvise(m->base, m->len, MADV_DONTNEED);
}

void e4t_jmap_close(struct e4t_jmap *m)
{
	if (m->base)
		munmap(m->base, m->len);
	memset(m, 0, sizeof(*m));
}
