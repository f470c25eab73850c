/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iattr.c --- a table of the inode fields that repeat (owner, flags,
 * link count, i_extra_isize, i_size_high), so that the tree keeps a
 * 4-byte position per inode instead of 20 bytes.  A real tree has a few
 * hundred distinct ones; a damaged inode table may have one per inode,
 * which costs 28 bytes each (table and index) instead of 20.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/iattr_int.h"
#include "util.h"

static uint32_t hash(const struct iattr *a)
{
	uint64_t h = (uint64_t)a->uid * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)a->gid * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)a->iflags * 0x165667b19e3779f9ULL;
	h ^= ((uint64_t)a->size_hi << 32 | (uint32_t)a->links << 16 |
	      a->extra_isize) *
	     0x27d4eb2f165667c5ULL;
	return (uint32_t)(h ^ h >> 29);
}

static int same(const struct iattr_tab *tab, uint32_t pos,
		const struct iattr *a)
{
	return memcmp(&tab->v[pos], a, sizeof(*a)) == 0;
}

/* Index of twice as many slots (at least 1024), every entry put again. */
static int rehash(struct iattr_tab *tab)
{
	size_t nslot = tab->nslot ? tab->nslot * 2 : 1024, i;
	uint32_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return ENOMEM;
	for (i = 0; i < tab->n; i++) {
		size_t s = hash(&tab->v[i]) & (nslot - 1);

		while (slot[s])
			s = (s + 1) & (nslot - 1);
		slot[s] = (uint32_t)i + 1;
	}
	free(tab->slot);
	tab->slot = slot;
	tab->nslot = nslot;
	return 0;
}

int iattr_find(struct iattr_tab *tab, const struct iattr *a, uint32_t *pos)
{
	size_t s;

	if (tab->n && same(tab, tab->last[0], a)) {
		*pos = tab->last[0];
		return 0;
	}
	if (tab->n > 1 && same(tab, tab->last[1], a)) {
		*pos = tab->last[1];
		tab->last[1] = tab->last[0];
		tab->last[0] = *pos;
		return 0;
	}
	/* at most half full */
	if ((tab->n + 1) * 2 > tab->nslot && rehash(tab))
		return ENOMEM;
	s = hash(a) & (tab->nslot - 1);
	while (tab->slot[s] && !same(tab, tab->slot[s] - 1, a))
		s = (s + 1) & (tab->nslot - 1);
	if (!tab->slot[s]) {
		if (tab->n >= IATTR_MAX ||
		    e4t_grow((void **)&tab->v, &tab->cap, tab->n + 1,
			     sizeof(*tab->v), 256))
			return ENOMEM;
		tab->v[tab->n] = *a;
		tab->slot[s] = (uint32_t)++tab->n;
	}
	*pos = tab->slot[s] - 1;
	tab->last[1] = tab->last[0];
	tab->last[0] = *pos;
	return 0;
}

void iattr_done(struct iattr_tab *tab)
{
	free(tab->slot);
	tab->slot = NULL;
	tab->nslot = 0;
}

void iattr_free(struct iattr_tab *tab)
{
	iattr_done(tab);
	free(tab->v);
	memset(tab, 0, sizeof(*tab));
}
