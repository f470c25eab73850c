/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iattr_int.h --- what many inodes share, kept once: the tree's records
 * (tree_int.h) hold an index into a table of these instead of the
 * fields themselves.  Not part of the library's API.
 */
#ifndef E4TIME_FS_IATTR_INT_H
#define E4TIME_FS_IATTR_INT_H

#include <stddef.h>
#include <stdint.h>

/* The fields of an inode that repeat from one inode to the next: the
 * files of one owner, made by one program, mostly have the same. */
struct iattr {
	uint32_t uid, gid;
	uint32_t iflags;
	uint32_t size_hi; /* i_size_high: 0 below 4 GiB */
	uint16_t links;
	uint16_t extra_isize;
};

_Static_assert(sizeof(struct iattr) == 20, "no padding: compared bytewise");

/* A table of distinct struct iattr, and while it is being filled, an
 * open-addressing index of it (slot: position + 1, 0 empty). */
struct iattr_tab {
	struct iattr *v;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;	  /* a power of two, or 0 */
	uint32_t last[2]; /* the two found last (most inodes repeat one) */
};

#define IATTR_MAX 0x7fffffffU /* positions fit in 31 bits */

/* The position of *a in tab, added if new.  0 or ENOMEM (also when the
 * table holds IATTR_MAX already). */
int iattr_find(struct iattr_tab *tab, const struct iattr *a, uint32_t *pos);
/* Filling is over: free the index, keep the table. */
void iattr_done(struct iattr_tab *tab);
void iattr_free(struct iattr_tab *tab);

#endif
