/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * grow.c --- the one way arrays grow, in the library and the tool:
 * capacity doubled (from a first size) until it holds what is needed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "e4time.h"

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
