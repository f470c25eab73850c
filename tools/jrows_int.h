/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrows_int.h --- what jrows.c (the rows) and jload.c (reading the
 * journal) share: the states kept of each journaled inode, the journal's
 * entries, and struct jrows.
 */
#ifndef E4TIME_JROWS_INT_H
#define E4TIME_JROWS_INT_H

#include <stdint.h>

#include "jrows.h"

#define NONE UINT32_MAX
/* The audit runs on two threads (E4T_AUDIT_PARTS): each share keeps its
 * states apart, and an index of the second share's carries PART1. */
#define PART1	 0x80000000U
#define PART_MAX (PART1 - 2)

/* A state's fields, as the tree keeps an inode (about 80 bytes). */
struct jfull {
	uint16_t mode, links;
	uint32_t uid, gid;
	uint64_t size;
	uint32_t iflags;
	uint16_t extra_isize, present, flags;
	uint32_t generation;
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_DTIME]; /* dtime has no _extra */
};

/*
 * One state as kept, 24 bytes: a journal holds millions of inode copies
 * (a 1 GiB one, four million).  A copy read in place from the mapped
 * journal (a raw image or a device) is decoded again from there when it
 * is wanted: at is its byte offset in the mapping; any other (a
 * container's journal, an escaped block, a fast commit's record) is
 * kept whole in its share's jpart.full: at is its index there, with
 * AT_FULL.  AT_BORN: a new file begins here; AT_DIR: a directory's.
 * What loading compares is kept beside: the generation, and a hash of
 * what same_packed compares (a copy whose hash differs is another state
 * without reading the one before again).
 */
#define AT_FULL	 1U
#define AT_BORN	 2U
#define AT_DIR	 4U
#define AT_SHIFT 3
struct jstate {
	uint32_t next; /* the inode's next state, or NONE */
	uint32_t trans;
	uint64_t at;
	uint32_t generation;
	uint32_t sum;
};

/* A directory's path now, as ext2fs_get_pathname gives it (cached: the
 * entries of one directory name many states). */
struct dpath {
	ext2_ino_t dir; /* 0: an empty slot */
	char *path;	/* NULL: it has none */
	size_t len;
};

/* A journaled directory entry and when it was held (e4t_jentry):
 * transaction indexes, under 2^32 (the library's records hold them so);
 * gone NAME_HELD when the directory holds it now. */
#define NAME_HELD UINT32_MAX
struct jname {
	ext2_ino_t ino, dir;
	uint32_t first, gone;
	uint32_t name_off; /* in nbuf */
	uint8_t name_len;
};

/* One share's states. */
struct jpart {
	struct jstate *v;
	size_t n, cap;
	struct jfull *full; /* those not read in place (AT_FULL) */
	size_t nfull, full_cap;
	uint64_t last_block; /* the journal block read last (+ 1) */
	uint64_t blocks_read;
	errcode_t err;
};

struct jrows {
	struct e4t_image *img;
	struct e4t_image *own_img; /* jrows_load_start's shadow of it */
	struct jpart parts[2]; /* the states, by index (PART1: the second) */
	uint32_t *head;	       /* by inode number */
	uint32_t *tail;	       /* the same, while the audit runs */
	uint32_t ninodes;
	struct e4t_row_journal *trans; /* tid and commit time by index */
	struct e4t_journal *j;	       /* kept for timeline --deleted */
	/* the journal the states are read from (jt), mapped at jmem
	 * (e4t_journal_block), or NULL: every state is kept whole */
	struct e4t_journal *jt;
	const uint8_t *jmem;
	uint64_t jmem_len;
	unsigned jblock_bits; /* log2 of jt's block size */
	errcode_t err;
	struct jname *names; /* by inode number */
	size_t nnames, names_cap;
	char *nbuf;
	size_t nbuf_len, nbuf_cap;
	uint8_t *earlier_done; /* bit by inode: earlier files shown */
	char *path;	       /* the path of the row being made */
	size_t path_cap;
	struct dpath *dpaths; /* open hash by directory */
	size_t ndpaths, dpaths_cap;
	struct e4t_row_journal rj;
	ext2_ino_t nk_dir; /* the directory of the last entry read */
	int nk_enc;	   /* encrypted: its no-key names (nk) */
	struct e4t_nokey nk;
};

/* The state of a share's index (PART1 set: the second share's). */
static inline struct jstate *pstate(const struct jrows *jr, uint32_t k)
{
	return &jr->parts[k >> 31].v[k & ~PART1];
}

static inline int pborn(const struct jrows *jr, uint32_t k)
{
	return (pstate(jr, k)->at & AT_BORN) != 0;
}

/* jload.c: the fields of state k of inode ino. */
void jrows_full(struct jrows *jr, uint32_t k, ext2_ino_t ino, struct jfull *f);

/* jload.c: jrows_load, telling jl (jthread.c: NULL when none) that the
 * journal is read and audited, and handing it a load that failed after. */
errcode_t jrows_load_on(struct e4t_image *img, e4t_warn_fn warn, void *priv,
			struct jload *jl, unsigned audit_flags,
			struct jrows **ret);
/* jthread.c: the journal is read and audited (or failed: j NULL). */
void jload_ready(struct jload *jl, struct e4t_journal *j);
/* jthread.c: jr failed after the journal was given: kept, freed by
 * jrows_load_finish (1), or not (0: no thread has it). */
int jload_keep_failed(struct jload *jl, struct jrows *jr);

#endif
