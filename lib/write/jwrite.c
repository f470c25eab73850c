// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jwrite.c --- jbd2 transactions as e4time writes them: the blocks of
 * one transaction (descriptor blocks with a tag per block, the block
 * copies, a commit block), laid out from the log's first block on as
 * the kernel lays out the first transaction after a clean mount, with
 * the checksums the journal's features call for; and the journal
 * superblock that points recovery at it.  undo_io.c writes them (see
 * its transactions), the kernel's fs/jbd2/recovery.c and e2fsck replay
 * them.  Only an internal journal that is clean, of a v2 superblock,
 * with no feature unknown to journal.c, is written to.
 *
 * Rules followed (fs/jbd2/commit.c, recovery.c, include/linux/jbd2.h):
 * the first tag of a descriptor is followed by the journal's UUID, the
 * others carry SAME_UUID; the last has LAST_TAG; a copy whose first four
 * bytes are the magic is written with them zeroed and ESCAPE.  csum v2/v3:
 * a data tag's checksum is crc32c(crc32c(seed, be32 tid), the copy as
 * written), seed = crc32c(~0, uuid); descriptor blocks end with a tail
 * checksum and the commit block's is in h_chksum[0] (type and size 0),
 * each the crc32c(seed) of its block with that field zeroed.  v1
 * (compat CHECKSUM): the commit block carries crc32_be(~0) over the
 * descriptor and copy blocks in log order, type 1, size 4.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "fs/csum_int.h"
#include "write/jwrite_int.h"

#define EXT4_FEATURE_INCOMPAT_RECOVER 0x0004
#define JW_MAX_LOG_BLOCKS	      4096 /* mapped at open: enough */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_header(uint8_t *b, uint32_t type, uint32_t tid)
{
	put_be32(b + JBD2_H_MAGIC, JBD2_MAGIC);
	put_be32(b + JBD2_H_BLOCKTYPE, type);
	put_be32(b + JBD2_H_SEQUENCE, tid);
}

void e4t_jw_free(struct e4t_jw *jw)
{
	if (!jw)
		return;
	free(jw->map);
	free(jw);
}

errcode_t e4t_jw_open(struct e4t_image *img, struct e4t_jw **ret)
{
	ext2_filsys fs = img->fs;
	const struct e4t_jinfo *in;
	struct e4t_journal *j = NULL;
	struct e4t_jw *jw;
	uint8_t *blk = NULL;
	uint32_t i, n;
	errcode_t err;

	*ret = NULL;
	jw = calloc(1, sizeof(*jw));
	if (!jw)
		return ENOMEM;
	err = e4t_journal_open(img, NULL, &j);
	if (err)
		goto fail;
	in = e4t_journal_info(j);
	/* v1: no features, no UUID; live: recover it first (write.c
	 * refuses such an image anyway); an aborted journal: e2fsck's. */
	err = E4T_ERR_JOURNAL_SB;
	if (!in->internal || in->sb_version != 2 || in->live ||
	    in->sb_csum == 0 || in->errno_val || in->blocksize != fs->blocksize)
		goto fail;
	jw->blocksize = in->blocksize;
	jw->first = in->first;
	jw->cap = in->log_end - in->first; /* the fast-commit area after */
	if (jw->cap > JW_MAX_LOG_BLOCKS)
		jw->cap = JW_MAX_LOG_BLOCKS;
	jw->sequence = in->sequence;
	jw->compat = in->compat;
	jw->incompat = in->incompat;
	jw->csum_version = in->csum_version;
	jw->tag_bytes = in->tag_bytes;
	memcpy(jw->uuid, in->uuid, sizeof(jw->uuid));
	if (jw->csum_version >= 2)
		jw->csum_seed = e4t_crc32c(~0U, jw->uuid, sizeof(jw->uuid));
	/* room for a descriptor, a block and the commit at least */
	if (jw->cap < 4)
		goto fail;
	n = jw->first + jw->cap;
	jw->map = calloc(n, sizeof(*jw->map));
	blk = malloc(jw->blocksize);
	if (!jw->map || !blk) {
		err = ENOMEM;
		goto fail;
	}
	/* the superblock: the first 1024 bytes of journal block 0 */
	err = e4t_journal_read(j, 0, 1, blk) ? E4T_ERR_JOURNAL_SB : 0;
	if (err)
		goto fail;
	memcpy(jw->sb, blk, JBD2_SB_SIZE);
	for (i = 0; i < n && !err; i++) {
		err = ext2fs_bmap2(fs, in->inum, NULL, NULL, 0, i, NULL,
				   &jw->map[i]);
		if (!err && (!jw->map[i] ||
			     jw->map[i] >= ext2fs_blocks_count(fs->super)))
			err = E4T_ERR_JOURNAL_MAP;
	}
	if (err)
		goto fail;
	free(blk);
	e4t_journal_close(j);
	*ret = jw;
	return 0;
fail:
	free(blk);
	e4t_journal_close(j);
	e4t_jw_free(jw);
	return err;
}

/* Tags one descriptor block holds: the first one's UUID, the tail. */
static size_t tags_per_desc(const struct e4t_jw *jw)
{
	size_t room = jw->blocksize - JBD2_HEADER_SIZE - JBD2_UUID_SIZE;

	if (jw->csum_version >= 2)
		room -= JBD2_TAIL_SIZE;
	return room / jw->tag_bytes;
}

uint32_t e4t_jw_log_blocks(const struct e4t_jw *jw, size_t n)
{
	size_t per = tags_per_desc(jw);
	size_t nd = (n + per - 1) / per;

	return (uint32_t)(nd + n + 1);
}

size_t e4t_jw_max_blocks(const struct e4t_jw *jw)
{
	size_t per = tags_per_desc(jw);
	/* nd + n + 1 <= cap, nd = ceil(n / per) */
	size_t n = (size_t)(jw->cap - 1) * per / (per + 1);

	while (n && e4t_jw_log_blocks(jw, n) > jw->cap)
		n--;
	return n;
}

/* The checksum of a copy (csum v2/v3), as it is in the log. */
static uint32_t data_csum(const struct e4t_jw *jw, uint32_t tid,
			  const uint8_t *copy)
{
	uint8_t be[4];

	put_be32(be, tid);
	return e4t_crc32c(e4t_crc32c(jw->csum_seed, be, 4), copy,
			  jw->blocksize);
}

static void put_tag(const struct e4t_jw *jw, uint8_t *tag, blk64_t blk,
		    uint32_t flags, uint32_t csum)
{
	memset(tag, 0, jw->tag_bytes);
	if (jw->csum_version == 3) {
		put_be32(tag + JBD2_TAG3_BLOCKNR, (uint32_t)blk);
		put_be32(tag + JBD2_TAG3_FLAGS, flags);
		put_be32(tag + JBD2_TAG3_BLOCKNR_HI, (uint32_t)(blk >> 32));
		put_be32(tag + JBD2_TAG3_CHECKSUM, csum);
		return;
	}
	put_be32(tag + JBD2_TAG_BLOCKNR, (uint32_t)blk);
	put_be16(tag + JBD2_TAG_FLAGS, (uint16_t)flags);
	if (jw->csum_version == 2)
		put_be16(tag + JBD2_TAG_CHECKSUM, (uint16_t)csum);
	if (jw->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
		put_be32(tag + JBD2_TAG_BLOCKNR_HI, (uint32_t)(blk >> 32));
}

/* The tail checksum of a descriptor block, or a commit block's. */
static void block_csum(const struct e4t_jw *jw, uint8_t *b, unsigned off)
{
	memset(b + off, 0, 4);
	put_be32(b + off, e4t_crc32c(jw->csum_seed, b, jw->blocksize));
}

errcode_t e4t_jw_build(const struct e4t_jw *jw, uint32_t tid,
		       const blk64_t *blk, const uint8_t *const *data, size_t n,
		       int64_t sec, uint32_t nsec, uint8_t *out)
{
	const size_t bs = jw->blocksize, per = tags_per_desc(jw);
	uint32_t crc32_sum = ~0U;
	uint8_t *desc = NULL, *p = out, *tag = NULL;
	size_t i, in_desc = 0;

	if (!n || e4t_jw_log_blocks(jw, n) > jw->cap)
		return EXT2_ET_INVALID_ARGUMENT;
	for (i = 0; i < n; i++)
		if ((blk[i] >> 32) &&
		    !(jw->incompat & JBD2_FEATURE_INCOMPAT_64BIT))
			return EXT2_ET_INVALID_ARGUMENT;
	for (i = 0; i < n; i++) {
		uint32_t flags = 0, csum = 0;

		if (!desc) {
			desc = p;
			p += bs;
			memset(desc, 0, bs);
			put_header(desc, JBD2_DESCRIPTOR_BLOCK, tid);
			tag = desc + JBD2_HEADER_SIZE;
			in_desc = 0;
		}
		memcpy(p, data[i], bs);
		if (jbd2_be32(p) == JBD2_MAGIC) {
			memset(p, 0, 4);
			flags |= JBD2_FLAG_ESCAPE;
		}
		if (jw->csum_version >= 2)
			csum = data_csum(jw, tid, p);
		if (in_desc)
			flags |= JBD2_FLAG_SAME_UUID;
		if (in_desc + 1 == per || i + 1 == n)
			flags |= JBD2_FLAG_LAST_TAG;
		put_tag(jw, tag, blk[i], flags, csum);
		tag += jw->tag_bytes;
		if (!in_desc) {
			memcpy(tag, jw->uuid, JBD2_UUID_SIZE);
			tag += JBD2_UUID_SIZE;
		}
		p += bs;
		if (++in_desc == per || i + 1 == n) {
			/* the descriptor and its copies are complete */
			if (jw->csum_version >= 2)
				block_csum(jw, desc, (unsigned)bs - 4);
			if (jw->csum_version == 1)
				crc32_sum = ext2fs_crc32_be(crc32_sum, desc,
							    (size_t)(p - desc));
			desc = NULL;
		}
	}
	/* the commit block */
	memset(p, 0, bs);
	put_header(p, JBD2_COMMIT_BLOCK, tid);
	put_be32(p + JBD2_C_COMMIT_SEC, (uint32_t)((uint64_t)sec >> 32));
	put_be32(p + JBD2_C_COMMIT_SEC + 4, (uint32_t)sec);
	put_be32(p + JBD2_C_COMMIT_NSEC, nsec);
	if (jw->csum_version == 1) {
		p[JBD2_C_CHKSUM_TYPE] = JBD2_CRC32_CHKSUM;
		p[JBD2_C_CHKSUM_SIZE] = JBD2_CRC32_CHKSUM_SIZE;
		put_be32(p + JBD2_C_CHKSUM, crc32_sum);
	} else if (jw->csum_version >= 2) {
		block_csum(jw, p, JBD2_C_CHKSUM);
	}
	return 0;
}

void e4t_jw_sb(const struct e4t_jw *jw, uint32_t start, uint32_t sequence,
	       uint8_t *sb)
{
	memcpy(sb, jw->sb, JBD2_SB_SIZE);
	put_be32(sb + JBD2_SB_START, start);
	put_be32(sb + JBD2_SB_SEQUENCE, sequence);
	if (jw->csum_version >= 2) {
		memset(sb + JBD2_SB_CHECKSUM, 0, 4);
		put_be32(sb + JBD2_SB_CHECKSUM,
			 e4t_crc32c(~0U, sb, JBD2_SB_SIZE));
	}
}

void e4t_jw_set_recover(uint8_t *sb, int on)
{
	struct ext2_super_block *s = (struct ext2_super_block *)sb;

	if (on)
		s->s_feature_incompat |= EXT4_FEATURE_INCOMPAT_RECOVER;
	else
		s->s_feature_incompat &=
			~(uint32_t)EXT4_FEATURE_INCOMPAT_RECOVER;
	if (s->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		s->s_checksum = e4t_crc32c(
			~0U, sb, offsetof(struct ext2_super_block, s_checksum));
}
