/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deleted_int.h --- the state of timeline --deleted's names, shared by
 * deleted.c (slack, the rows), dreuse.c (the journal's names whose inode
 * another file has now), dsubtree.c (the subtrees of deleted
 * directories) and dshown.c (what timeline --journal showed already).
 */
#ifndef E4TIME_DELETED_INT_H
#define E4TIME_DELETED_INT_H

#include "cmd.h"

/* struct dname.state of a journal name */
enum {
	DN_DELETED = 0, /* its inode is free now */
	DN_REALLOC,	/* another file has its inode now */
	DN_SKIP,	/* the same file has it now: a rename, not deleted */
};

struct dname {
	ext2_ino_t ino;
	int realloc;
	int used;
	size_t seq;
	char *path;
	size_t path_len;
	struct e4t_row_journal jsrc; /* a journal name's transaction */
	/* a journal name (dreuse.c) */
	size_t trans;
	/* the entry's file type (of a slack entry of inode 0: its only mode) */
	unsigned file_type;
	int state;	  /* DN_* */
	uint32_t old_gen; /* the generation of the file it named */
	int have_copy;	  /* before: the file before its deletion */
	struct e4t_inode before;
};

/* A deleted inode as the journal held it before its deletion. */
struct dbefore {
	ext2_ino_t ino;
	struct e4t_inode in;
};

/* A directory the walk reached: the journal's names take its path. */
struct ddir {
	ext2_ino_t ino;
	int enc; /* encrypted: its no-key names (nokey) */
	struct e4t_nokey nokey;
	char *path;
	size_t path_len;
};

/* A state of an earlier file a journal row showed (dshown.c). */
struct dshown {
	uint64_t path; /* a hash of its path */
	uint64_t size;
	uint32_t ino, gen, uid, gid;
	uint32_t raw_base[E4T_DTIME];
	uint32_t raw_extra[E4T_DTIME];
	uint16_t mode;
};

struct dnames {
	struct e4t_image *img;
	struct dname *v;
	size_t n, cap;
	struct dname *jv; /* names from the journal, by inode */
	size_t jn, jcap;
	struct ddir *dirs; /* in walk order */
	size_t ndirs, dirs_cap;
	struct dbefore *before; /* by inode */
	size_t nbefore, before_cap;
	struct e4t_inode paired; /* the row dnames_row gave last */
	struct e4t_row_journal jsrc;
	struct e4t_journal *shared; /* loaded by the caller, or NULL */
	struct e4t_journal *own;    /* dnames_prefetch_own's (shared too) */
	int sorted;
	errcode_t err;
	struct dshown *shown; /* by inode once the walk is over */
	size_t nshown, shown_cap;
	int shown_sorted;
	uint64_t *seen; /* deleted directories read: ino << 32 | gen */
	size_t nseen, seen_cap;
	const char *dir_path; /* of the directory being read */
	size_t dir_len;
	/* dprefetch.c: the journal's names read ahead */
	struct dpre *pre;
	size_t npre, pre_cap;
	char *pre_names;
	size_t pre_names_len, pre_names_cap;
	ext2_ino_t *pre_dirs; /* sorted: the directories read */
	size_t npre_dirs;
	int prefetched;
	const struct e4t_journal *pre_j; /* the journal read */
};

/* The image's journal opened and loaded with its stale transactions,
 * or NULL (none, or none that can be read: no names from it). */
struct e4t_journal *dnames_journal(struct e4t_image *img);
/* The names read ahead through fn, when every directory the walk reached
 * was read: 1; else 0 (nothing done). */
int dnames_prefetched(struct dnames *d, e4t_jname_fn fn);
void dnames_prefetch_free(struct dnames *d);

static inline uint32_t dle32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline unsigned dle16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* An inode now: in use, its generation and crtime (0: none). */
struct dnow {
	int used;
	uint32_t gen;
	int64_t crtime_sec;
	uint32_t crtime_nsec;
	int have_crtime;
};

void dreuse_inode_now(struct dnames *d, ext2_ino_t ino, struct dnow *w);

/* Directories whose first block the journal holds, without a name:
 * v[i].have and raw (in store), the directory before its deletion. */
struct ddots {
	struct e4t_jcopy_req *v;
	ext2_ino_t *parent;
	size_t n, cap, pcap;
	uint8_t *store;
};

/* dsubtree.c: was the directory (ino, gen) read already?  (Noted now;
 * 1 with *err set when out of memory.) */
int dsub_seen(struct dnames *d, ext2_ino_t ino, uint32_t gen, errcode_t *err);
/* The entries of deleted directory dir, of generation gen, under the
 * path of name k of d->jv: raw is its inode before the deletion, first
 * its first journaled transaction. */
errcode_t dsub_read_dir(struct dnames *d, struct e4t_journal *j, size_t k,
			ext2_ino_t dir, uint32_t gen, const uint8_t *raw,
			size_t first);
/* The deleted directories whose first block the journal holds. */
errcode_t dsub_find_dots(struct dnames *d, struct e4t_journal *j,
			 struct ddots *s);
/* Those no name read, as "<DIR>" names with their entries; pass 0 only
 * those whose parent is not one of them. */
errcode_t dsub_read_dots(struct dnames *d, struct e4t_journal *j,
			 const struct ddots *s, int pass);
void dsub_dots_free(struct ddots *s);

/* A new name DIR/NAME in (*v)[*n]; NULL when out of memory. */
struct dname *dnames_new_name(struct dname **v, size_t *n, size_t *cap,
			      const char *dir, size_t dir_len, const char *name,
			      size_t name_len);
/* A journal's name e in d->jv, under DIR (its transaction, inode and
 * file type with it); NULL with d->err set when out of memory. */
struct dname *dnames_add_jname(struct dnames *d, const char *dir,
			       size_t dir_len, const struct e4t_jname *e);
/* The same, in an encrypted directory (k: e4t_nokey_setup): under the
 * no-key name the kernel lists without the key. */
struct dname *dnames_add_jname_nokey(struct dnames *d, const char *dir,
				     size_t dir_len, const struct e4t_jname *e,
				     const struct e4t_nokey *k);
/* The journal's names sorted out: in use by another file, renamed, or
 * deleted; the subtrees of deleted directories rebuilt (dreuse.c). */
errcode_t dreuse_classify(struct dnames *d, struct e4t_journal *j);
/* Did a journal row (dnames_note_jrow) show row's state already? */
int dshown_has(struct dnames *d, const struct e4t_row *row);
/* The rows of the journal's names whose inode another file has now. */
int dreuse_rows(struct dnames *d, e4t_row_fn fn, void *priv);

#endif
