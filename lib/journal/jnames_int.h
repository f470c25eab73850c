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
	uint32_t *v;
	size_t n, cap;
};

/* A transaction index, or none (a record's gone while it is held). */
#define JN_NONE UINT32_MAX
/* jn_rec.held_by of an inline directory's inode (else a block's index) */
#define JN_HELD_INODE 0x80000000U

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

/*
 * An entry (directory, inode, name), 40 bytes: a journal holds hundreds
 * of thousands of them, and timeline -d --journal collects them twice at
 * once.  Transactions are indexes (e4t_journal_trans), under 2^32 as the
 * journal's blocks are; its index in jn_ctx.v is its order of arrival.
 */
struct jn_rec {
	ext2_ino_t dir, ino;
	uint32_t name_off; /* in jn_ctx.names */
	uint32_t trans;	   /* the last transaction that held it */
	uint32_t hash;
	/* e4t_journal_entries: its current interval */
	uint32_t first;	  /* the first transaction that held it */
	uint32_t gone;	  /* the copy without it after; JN_NONE */
	uint32_t stamp;	  /* the copy that held it last (+ 1) */
	uint32_t held_by; /* whose copy held it last: a block's index + 1,
			   * or an inline inode's | JN_HELD_INODE */
	uint8_t name_len, file_type;
	uint8_t live; /* the directory holds it now */
};

/* An interval that ended before the entry came back. */
struct jn_closed {
	ext2_ino_t dir, ino;
	uint32_t name_off;
	uint32_t first, last, gone;
	uint8_t name_len;
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
	uint32_t held_id;  /* its jn_rec.held_by */
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
 * only; id: what jn_rec.held_by calls it), and after it. */
void jn_copy_begin(struct jn_ctx *c, struct pvec *held, uint32_t id);
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

/* jnrecs.c: the copies are all parsed: let go of what finding records
 * and their intervals took (the hash, the blocks' entries); the records
 * and their names stay. */
void jn_ctx_trim(struct jn_ctx *c);
/* jnrecs.c: free what c holds (not c). */
void jn_ctx_free(struct jn_ctx *c);

#endif
