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

/* One state, as the tree keeps an inode (about 80 bytes). */
struct jstate {
	uint32_t next; /* the inode's next state, or NONE */
	uint32_t trans;
	uint32_t ino;
	uint16_t mode, links;
	uint32_t uid, gid;
	uint64_t size;
	uint32_t iflags;
	uint16_t extra_isize, present, flags;
	uint32_t generation;
	uint8_t born; /* a new file begins here */
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_DTIME]; /* dtime has no _extra */
};

/* A directory's path now, as ext2fs_get_pathname gives it (cached: the
 * entries of one directory name many states). */
struct dpath {
	ext2_ino_t dir; /* 0: an empty slot */
	char *path;	/* NULL: it has none */
	size_t len;
};

/* A journaled directory entry and when it was held (e4t_jentry). */
struct jname {
	ext2_ino_t ino, dir;
	size_t first, gone;
	size_t name_off;
	unsigned name_len;
};

/* One share's states while the audit runs. */
struct jpart {
	struct jstate *v;
	size_t n, cap;
	errcode_t err;
};

struct jrows {
	struct e4t_image *img;
	struct e4t_image *own_img; /* jrows_load_start's shadow of it */
	struct jpart parts[2]; /* the states, by index (PART1: the second) */
	uint32_t *head, *tail; /* by inode number */
	uint32_t ninodes;
	struct e4t_row_journal *trans; /* tid and commit time by index */
	struct e4t_journal *j;	       /* kept for timeline --deleted */
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
