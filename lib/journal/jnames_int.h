/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jnames_int.h --- what the three files of the journal's directory
 * entries share: jnames.c (the entry points, e4t_journal_names,
 * e4t_journal_dir_names, e4t_journal_entries), jnrecs.c (the entries the
 * copies held, and their intervals) and jncopies.c (which blocks and
 * inodes are the directories', and parsing their copies).
 */
#ifndef E4TIME_JNAMES_INT_H
#define E4TIME_JNAMES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "e4time.h"

/* The entries a block's (or inline directory's) last copy held: indexes
 * into jn_ctx.v. */
struct pvec {
	size_t *v;
	size_t n, cap;
};

struct dblock {
	blk64_t blk;
	ext2_ino_t dir;
	int enc; /* of an encrypted directory: names are ciphertext */
	struct pvec held;
};

/* A directory's inode: where it lies, and which one it is. */
struct dinode {
	blk64_t home;
	unsigned off;
	ext2_ino_t dir;
	uint32_t gen;
	int enc;
	struct pvec held;
};

struct jn_rec {
	ext2_ino_t dir, ino;
	unsigned name_len, file_type;
	size_t name_off;
	const char *name; /* set once every name is in */
	size_t trans;	  /* the last transaction that held it */
	int live;	  /* the directory holds it now */
	size_t seq;
	uint32_t hash;
	/* e4t_journal_entries: its current interval */
	size_t first;		/* the first transaction that held it */
	size_t gone;		/* the copy without it after; SIZE_MAX */
	const struct pvec *blk; /* the block whose copy held it last */
	size_t stamp;		/* the copy that held it last (+ 1) */
};

/* An interval that ended before the entry came back. */
struct jn_closed {
	ext2_ino_t dir, ino;
	size_t name_off;
	unsigned name_len;
	size_t first, last, gone;
};

/* A slot of the hash: the record's index + 1 (0: empty) and its hash. */
struct jn_slot {
	uint32_t hash;
	uint32_t idx;
};

struct jn_ctx {
	struct jn_rec *v; /* each entry once (directory, inode, name) */
	size_t n, cap;
	struct jn_slot *tab; /* open hash of v */
	size_t tab_cap;
	char *names;
	size_t names_len, names_cap;
	ext2_ino_t dir;
	int enc; /* dir is encrypted (fscrypt): any bytes in a name */
	size_t trans;
	errcode_t err;
	struct dblock *blocks;
	size_t nblocks, blocks_cap;
	struct dinode *inodes; /* inline_data: every directory's inode */
	size_t ninodes, inodes_cap;
	uint32_t inodes_count;
	/* e4t_journal_entries: intervals */
	int intervals;
	struct pvec *held; /* of the block being parsed */
	struct pvec found; /* the entries of the copy being parsed */
	size_t copyno;	   /* copies parsed (+ 1) */
	struct jn_closed *closed;
	size_t nclosed, closed_cap;
	/* e4t_journal_dir_names: a directory that is gone */
	int dead;
	uint32_t dead_gen;
	size_t min_trans;
};

/* jnrecs.c: the entries of the copies */

/* Before a copy of the block whose entries are held is parsed (intervals
 * only), and after it. */
void jn_copy_begin(struct jn_ctx *c, struct pvec *held);
void jn_copy_end(struct jn_ctx *c);
/* An entry of a copy of directory c->dir (e4t_slack_parse_fn): kept,
 * unless it is "." or "..", its inode number is out of range or (not
 * encrypted) its name holds a NUL or a '/'. */
int jn_on_copy_entry(ext2_ino_t ino, const char *name, unsigned nl, unsigned ft,
		     unsigned off, void *priv);
/* An entry a directory holds now (e4t_dirent_fn): its record is live. */
int jn_on_live(ext2_ino_t dir, ext2_ino_t ino, const char *name, unsigned nl,
	       unsigned ft, void *priv);

/* jncopies.c: which blocks and inodes are whose, and their copies */

/* qsort comparisons: blocks by number then directory; inode numbers */
int jn_cmp_dblock(const void *x, const void *y);
int jn_cmp_ino(const void *x, const void *y);
/* Remember where directory dir's inode lies (inline_data only). */
errcode_t jn_add_dinode(ext2_filsys fs, struct jn_ctx *c, ext2_ino_t dir,
			uint32_t gen, int enc);
/* The copies of c's blocks and inodes (sorted) parsed into c. */
errcode_t jn_read_copies(struct e4t_image *img, struct e4t_journal *j,
			 struct jn_ctx *c);
/* The directories' copies parsed into c; the directories that had a
 * copy, sorted, a 0 for one that cannot be read now (*dirs_had: free
 * it); entries the directories hold now are marked live. */
errcode_t jn_collect(struct e4t_image *img, struct e4t_journal *j,
		     const ext2_ino_t *dirs, size_t ndirs, struct jn_ctx *c,
		     ext2_ino_t **dirs_had, size_t *ndirs_had);

/* jnrecs.c: free what c holds (not c). */
void jn_ctx_free(struct jn_ctx *c);

#endif
