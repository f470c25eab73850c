/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deleted_int.h --- the state of timeline --deleted's names, shared by
 * deleted.c (slack, the rows) and dreuse.c (the journal's names whose
 * inode another file has now, and the subtrees of deleted directories).
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
	uint16_t mode, pad;
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
	int sorted;
	errcode_t err;
	struct dshown *shown; /* by inode once the walk is over */
	size_t nshown, shown_cap;
	int shown_sorted;
	const char *dir_path; /* of the directory being read */
	size_t dir_len;
};

/* A new name DIR/NAME in (*v)[*n]; NULL when out of memory. */
struct dname *dnames_new_name(struct dname **v, size_t *n, size_t *cap,
			      const char *dir, size_t dir_len, const char *name,
			      size_t name_len);
/* A journal's name e in d->jv, under DIR (its transaction, inode and
 * file type with it); NULL with d->err set when out of memory. */
struct dname *dnames_add_jname(struct dnames *d, const char *dir,
			       size_t dir_len, const struct e4t_jname *e);
/* The journal's names sorted out: in use by another file, renamed, or
 * deleted; the subtrees of deleted directories rebuilt (dreuse.c). */
errcode_t dreuse_classify(struct dnames *d, struct e4t_journal *j);
/* Did a journal row (dnames_note_jrow) show row's state already? */
int dshown_has(struct dnames *d, const struct e4t_row *row);
/* The rows of the journal's names whose inode another file has now. */
int dreuse_rows(struct dnames *d, e4t_row_fn fn, void *priv);

#endif
