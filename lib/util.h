/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h --- the helpers every lib/ folder uses: growing arrays and
 * searching sorted ones (grow.c), warnings held for another thread
 * (held.c), reading files and io_channel options (ioutil.c).  Part of the API;
 * included by e4time.h.
 */
#ifndef E4TIME_UTIL_H
#define E4TIME_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

/* compile_et's header has no include guard: included here only */
#include "e4time_err.h"

/* ------------------------------------------------------------------ */
/* Arrays (grow.c)                                                      */
/* ------------------------------------------------------------------ */

/*
 * Room for need elements of elem bytes in the array *arrp of capacity
 * *cap: the capacity doubles, from first (16 when 0), until it is enough;
 * 0, or ENOMEM (the array is then as it was).
 */
errcode_t e4t_grow(void *arrp, size_t *cap, size_t need, size_t elem,
		   size_t first);

/* ------------------------------------------------------------------ */
/* Warnings held (held.c)                                              */
/* ------------------------------------------------------------------ */

/*
 * What a thread would report, held in order for the thread that reports
 * to give later: a library warning (kind E4T_HELD_WARN: err, inode,
 * detail) or a note of the caller's own kind (text).  A note that cannot
 * be kept (out of memory) is counted in lost.
 */
#define E4T_HELD_WARN 0
struct e4t_held_note {
	errcode_t err;
	ext2_ino_t ino;
	int kind;
	char *text; /* the detail (NULL: none), or the note's text */
};

struct e4t_held {
	struct e4t_held_note *v;
	size_t n, cap;
	unsigned long lost;
};

/* A warning held (an e4t_warn_fn: priv is the struct e4t_held). */
void e4t_held_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		   void *priv);
/* A note of the caller's kind held, its text (malloc'd) taken; text
 * NULL (it could not be made): lost. */
void e4t_held_note(struct e4t_held *h, int kind, char *text);
/* The warnings given to warn in order (h holds no other kind), and one
 * warn(ENOMEM, 0, lost_what) for each lost; then h is empty. */
void e4t_held_give(struct e4t_held *h,
		   void (*warn)(errcode_t err, ext2_ino_t ino,
				const char *detail, void *priv),
		   void *priv, const char *lost_what);
void e4t_held_free(struct e4t_held *h);

/* Threads worth starting now (at most max, at least 1): the processors
 * this process may run on, less those other tasks are running on or
 * waiting for at this moment (cpus.c). */
int e4t_cpus_free(int max);

/* Huge pages, where the system has them, under a large array of len
 * bytes at p that will be written whole (grow.c). */
void e4t_huge_hint(void *p, size_t len);

/*
 * Binary search of an array sorted by an unsigned integer field: the
 * index of the first of its n elements (elem bytes each) whose key, the
 * key_size-byte (4 or 8) field at key_off, is not below key; n when none.
 * E4T_LOWER_BOUND(a, n, type, field, key) names the field; a may be NULL
 * when n is 0.
 */
static inline size_t e4t_lower_bound(const void *a, size_t n, size_t elem,
				     size_t key_off, size_t key_size,
				     uint64_t key)
{
	const unsigned char *base = a;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *p = base + mid * elem + key_off;
		uint64_t k;

		if (key_size == 8) {
			memcpy(&k, p, 8);
		} else {
			uint32_t k32;

			memcpy(&k32, p, 4);
			k = k32;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define E4T_LOWER_BOUND(a, n, type, field, key)                                \
	e4t_lower_bound((a), (n), sizeof(type), offsetof(type, field),         \
			sizeof(((type *)0)->field), (key))

/* (ioutil.c) pread len bytes at off, retrying short reads and EINTR;
 * *got is what was read (less at the end of the file); 0 or errno. */
errcode_t e4t_pread_full(int fd, void *buf, size_t len, uint64_t off,
			 size_t *got);
/* An io_channel's set_option for "offset": 0 with *offset set, or
 * EXT2_ET_INVALID_ARGUMENT (another option, or not a number). */
errcode_t e4t_io_offset_option(const char *option, const char *arg,
			       uint64_t *offset);

#endif /* E4TIME_UTIL_H */
