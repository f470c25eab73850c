/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jwrite_int.h --- jbd2 transactions written by e4time (jwrite.c):
 * library-internal, for write.c, undo_io.c and the tests.
 */
#ifndef E4TIME_JWRITE_H
#define E4TIME_JWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

#include "journal/jbd2_int.h"

struct e4t_image;

/* An internal journal, clean, that transactions can be written into. */
struct e4t_jw {
	uint32_t blocksize;
	uint32_t first;	   /* the log's first block: transactions go there */
	uint32_t cap;	   /* journal blocks a transaction may take */
	uint32_t sequence; /* s_sequence: the next transaction's tid */
	uint32_t compat, incompat;
	int csum_version; /* 0, 1 (crc32 in commits), 2 or 3 */
	uint32_t csum_seed;
	unsigned tag_bytes;
	uint8_t uuid[JBD2_UUID_SIZE];
	blk64_t *map; /* journal block -> filesystem block, [0, first + cap) */
	uint8_t sb[JBD2_SB_SIZE]; /* the journal superblock */
};

/*
 * The journal of img, checked (journal.c reads its superblock) and mapped:
 * E4T_ERR_NO_JOURNAL, E4T_ERR_JOURNAL_EXTERNAL, E4T_ERR_JOURNAL_FEATURE,
 * E4T_ERR_JOURNAL_SB... when e4time does not write through it (external,
 * v1 superblock, not clean, bad checksum, aborted, too small).
 */
errcode_t e4t_jw_open(struct e4t_image *img, struct e4t_jw **ret);
void e4t_jw_free(struct e4t_jw *jw);

/* Journal blocks that a transaction of n blocks takes (descriptors, the
 * copies, the commit block). */
uint32_t e4t_jw_log_blocks(const struct e4t_jw *jw, size_t n);
/* The most blocks one transaction may carry. */
size_t e4t_jw_max_blocks(const struct e4t_jw *jw);

/*
 * Transaction tid of the n blocks blk[i] (filesystem block numbers), whose
 * new contents are data[i] (blocksize bytes each), as it goes into the
 * log from jw->first on: e4t_jw_log_blocks(jw, n) blocks into out.
 * Committed at sec.nsec (the commit block's wall clock).
 * EXT2_ET_INVALID_ARGUMENT when it does not fit or a block number does not
 * fit the tags.
 */
errcode_t e4t_jw_build(const struct e4t_jw *jw, uint32_t tid,
		       const blk64_t *blk, const uint8_t *const *data, size_t n,
		       int64_t sec, uint32_t nsec, uint8_t *out);

/* The journal superblock with s_start and s_sequence (and its checksum,
 * as the journal's features want), JBD2_SB_SIZE bytes into sb. */
void e4t_jw_sb(const struct e4t_jw *jw, uint32_t start, uint32_t sequence,
	       uint8_t *sb);

/* The ext4 superblock sb (SUPERBLOCK_SIZE bytes) with needs_recovery set
 * or clear, its checksum updated with metadata_csum. */
void e4t_jw_set_recover(uint8_t *sb, int on);

#endif
