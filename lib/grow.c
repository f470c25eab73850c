/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grow.c --- the one way arrays grow, in the library and the tool:
 * capacity doubled (from a first size) until it holds what is needed.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "e4time.h"

#define HUGE_PAGE (2UL << 20)

/*
 * Ask for huge pages under a large array (from 4 MiB) that will be
 * written whole: its first touch then takes one page fault per 2 MiB,
 * not per 4 KiB.  On a virtual machine a fault costs microseconds:
 * filling the tree's 64 MiB of records for 1,000,000 inodes took 16,000
 * of them, a third of a one-thread timeline.  Not for arrays grown by
 * doubling and partly written: a huge page is whole memory as soon as a
 * byte of it is touched (asked for every e4t_grow array, a timeline of
 * 40-byte names took 133 MiB, not 113).  Only the 2 MiB-aligned pages
 * inside the array; a hint, whose failure (no transparent huge pages)
 * changes nothing.
 */
void e4t_huge_hint(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t at = (uintptr_t)p;
	size_t head = (size_t)((HUGE_PAGE - at % HUGE_PAGE) % HUGE_PAGE);
	size_t body;

	if (len < 2 * HUGE_PAGE || len - head < HUGE_PAGE)
		return;
	body = (len - head) & ~(HUGE_PAGE - 1);
	(void)madvise((char *)p + head, body, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

errcode_t e4t_grow(void *arrp, size_t *cap, size_t need, size_t elem,
		   size_t first)
{
	void **arr = arrp, *p;
	size_t n = *cap ? *cap : (first ? first : 16);

	if (need <= *cap)
		return 0;
	if (!elem)
		return EINVAL;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return ENOMEM;
	p = realloc(*arr, n * elem);
	if (!p)
		return ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}
