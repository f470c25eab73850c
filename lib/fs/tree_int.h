/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree_int.h --- private to the tree (tree.c loads it, treewalk.c walks
 * it, treepart.c cuts a walk into parts): its records, directories and
 * entry stream.  Not part of the library's API.
 */
#ifndef E4TIME_FS_TREE_INT_H
#define E4TIME_FS_TREE_INT_H

#include "e4time.h"
#include "fs/iattr_int.h"

/* struct irec.flags: E4T_INO_* in the low four bits, then the tree's */
#define T_INO_MASK 0x0f
#define T_REACHED  0x10 /* some name reaches it from / */
#define T_EXPANDED 0x20 /* directory already walked in this walk */
#define T_DTIME	   0x40 /* i_dtime is not 0: see t->dtimes */

/*
 * An inode as the tree keeps it: 48 bytes.  What repeats from inode to
 * inode (owner, flags, links, i_extra_isize, i_size_high) is in a table,
 * t->attrs[] (iattr.c): attr is the table (bit 31: the second scan
 * job's) and the position in it.  What the inode stores (present)
 * follows from extra_isize; i_dtime, zero but for deleted and orphan
 * inodes, is kept aside.
 */
struct irec {
	uint32_t ino;
	uint32_t size_lo;
	uint32_t attr;
	uint16_t mode;
	uint8_t flags;
	uint8_t status;
	uint32_t raw_base[E4T_DTIME]; /* atime, mtime, ctime, crtime */
	uint32_t raw_extra[E4T_DTIME];
};

_Static_assert(sizeof(struct irec) == 48, "a record is 48 bytes");
#define ATTR_JOB1 0x80000000U /* attr: in t->attrs[1] */

_Static_assert((E4T_INO_CSUM_BAD | E4T_INO_EXTRA_BAD | E4T_INO_INLINE |
		E4T_INO_ORPHAN_LIST) <= T_INO_MASK,
	       "E4T_INO_* fit below the tree's flags");

/* The i_dtime of a record with T_DTIME, in inode order. */
struct dtime {
	uint32_t ino;
	uint32_t dtime;
};

/*
 * The entries of the live directories, one byte stream: per entry the
 * child (4 bytes: an index in recs if known, else the inode number),
 * known (1 byte: bit 0, the tree holds the inode; bits 1-3, the entry's
 * file type), the name's length (1 byte)
 * and the name.  Read in order only, so nothing needs aligning.
 */
#define ENT_HDR	 6
#define IN_ENTS2 (1ULL << 63)

/* Inodes whose inode-table blocks could not be read (itable.c). */
struct lost {
	ext2_ino_t first, last;
	errcode_t err;
};

/* A live directory: its record and where its entries are. */
struct dir {
	uint64_t start; /* offset in ents, or in ents2 with IN_ENTS2 */
	uint32_t rec;	/* index in recs */
	uint32_t count; /* entries */
};

struct e4t_tree {
	struct e4t_image *img;
	struct e4t_tree_opts cb;
	unsigned flags;
	struct irec *recs;
	size_t nrecs, recs_cap;
	struct iattr_tab attrs[2]; /* struct irec.attr: one per scan job */
	struct dir *dirs;	   /* in record (inode) order */
	size_t ndirs;
	unsigned char *ents;
	size_t ents_len, ents_cap;
	/* the second directory job's stream, kept as it is: copying it
	 * after the first's would hold both for a moment */
	unsigned char *ents2;
	/* the live directories' block maps (e4t_dir_root_pack), in inode
	 * order as dirs: from the inode pass to the directory pass */
	unsigned char *roots;
	size_t roots_len, nroots;
	/* E4T_TREE_WALK_READS: no entries held; the walk reads each
	 * directory as it reaches it (tree_read_dir); root_at[i] is where
	 * dirs[i]'s block map starts in roots (NULL: none) */
	int walk_reads;
	size_t *root_at;
	char *read_buf;		    /* a directory's blocks as they are read */
	struct e4t_dir_ahead ahead; /* and the next ones', read ahead */
	struct dtime *dtimes;	    /* sorted by inode */
	size_t ndtimes;
	uint32_t *gens; /* E4T_TREE_GEN: i_generation by inode number */
	size_t ngens;
	struct lost *lost; /* in inode order */
	size_t nlost;
	ext2_ino_t *orphans; /* the orphan list, sorted */
	size_t norphans;
	/* Which inodes have a record (one bit each), and how many records
	 * come before each 64-bit word: record index = rank of the inode.
	 * A few hundred KiB even for millions of inodes, so a lookup stays
	 * in cache and never touches the records themselves. */
	uint64_t *kept;
	uint32_t *rank;
	size_t nwords;
};

/* The fields of r kept in t->attrs. */
static inline const struct iattr *rec_attr(const struct e4t_tree *t,
					   const struct irec *r)
{
	return &t->attrs[r->attr >> 31].v[r->attr & ~ATTR_JOB1];
}

static inline uint64_t rec_size(const struct e4t_tree *t, const struct irec *r)
{
	return (uint64_t)rec_attr(t, r)->size_hi << 32 | r->size_lo;
}

static inline struct irec *tree_find(const struct e4t_tree *t, ext2_ino_t ino)
{
	size_t w = ino / 64;
	uint64_t bit = 1ULL << (ino % 64);

	if (!t->kept || w >= t->nwords || !(t->kept[w] & bit))
		return NULL;
	return &t->recs[t->rank[w] +
			(size_t)__builtin_popcountll(t->kept[w] & (bit - 1))];
}

/* E4T_TREE_WALK_READS: read dirs[dir]'s entries into *ents (grown as
 * needed, *cap bytes), *count of them; its warnings told now. */
errcode_t tree_read_dir(struct e4t_tree *t, size_t dir, unsigned char **ents,
			size_t *cap, uint32_t *count);
/* After such a walk: read the directories it did not reach, for their
 * warnings (as the directory pass would have told them). */
void tree_read_done(struct e4t_tree *t);

/* The first entry of directory d. */
static inline const unsigned char *tree_ents_of(const struct e4t_tree *t,
						const struct dir *d)
{
	const unsigned char *base = d->start & IN_ENTS2 ? t->ents2 : t->ents;

	return base ? base + (d->start & ~IN_ENTS2) : NULL;
}

/* The directory of record index rec, or NULL (not a live directory). */
static inline struct dir *tree_dir_of(const struct e4t_tree *t, size_t rec)
{
	size_t i = E4T_LOWER_BOUND(t->dirs, t->ndirs, struct dir, rec, rec);

	return i < t->ndirs && t->dirs[i].rec == rec ? &t->dirs[i] : NULL;
}

/* A part of a walk (treepart.c cuts, treewalk.c walks). */
enum { TP_START, TP_ENTS, TP_REST };

struct tree_part {
	uint8_t kind;	   /* TP_* */
	uint8_t stop_last; /* TP_ENTS: the last entry's subtree is not in it */
	uint32_t dir;	   /* TP_ENTS: index in t->dirs */
	uint32_t count;	   /* TP_ENTS: entries; TP_REST: records */
	uint64_t first;	   /* TP_ENTS: offset of its first entry from the
			    * directory's first; TP_REST: first record */
	uint64_t last;	   /* TP_ENTS: offset of its last entry */
	size_t path, path_len; /* TP_ENTS: the directory's path in paths */
};

struct e4t_tree_parts {
	struct tree_part *v;
	size_t n, cap;
	/* per live directory (t->dirs order): the entry whose name walks
	 * it, the plan itself for the start, NULL when no name reaches it;
	 * any other name of it is a loop, as in a walk */
	const unsigned char **walked_by;
	char *paths;
	size_t paths_len, paths_cap;
	struct irec *start;
	ext2_ino_t start_parent;
	char *start_path;
	size_t start_len;
};

/* The first live directory with an entry naming record r (treewalk.c). */
ext2_ino_t tree_parent_of(const struct e4t_tree *t, size_t r);

/* The inode of record r as struct e4t_inode, times decoded (tree.c). */
void tree_expand(const struct e4t_tree *t, const struct irec *r,
		 struct e4t_inode *info);
/* Mark what / reaches (T_REACHED), walking without rows (treewalk.c). */
errcode_t tree_mark_reached(struct e4t_tree *t, struct irec *root);
/* Room for need elements (e4t_grow, from 1024): 0 or ENOMEM. */
int tree_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
