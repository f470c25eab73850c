/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbd2_int.h --- the jbd2 journal's on-disk format, as fs/jbd2 and
 * include/linux/jbd2.h define it.  libext2fs-dev does not install
 * e2fsprogs' kernel-jbd.h, so libe4time defines what it reads here.
 *
 * Every field of the journal proper is big-endian; the fast-commit area
 * (fs/ext4/fast_commit.h) is little-endian.  Offsets are in bytes from
 * the start of the block.
 */
#ifndef E4T_JBD2_H
#define E4T_JBD2_H

#include <stdint.h>

#define JBD2_MAGIC 0xC03B3998U

/* Block header: every journal metadata block starts with it. */
#define JBD2_H_MAGIC	 0x00 /* be32 */
#define JBD2_H_BLOCKTYPE 0x04 /* be32 */
#define JBD2_H_SEQUENCE	 0x08 /* be32: tid */
#define JBD2_HEADER_SIZE 12

#define JBD2_DESCRIPTOR_BLOCK 1
#define JBD2_COMMIT_BLOCK     2
#define JBD2_SUPERBLOCK_V1    3
#define JBD2_SUPERBLOCK_V2    4
#define JBD2_REVOKE_BLOCK     5

/* Journal superblock */
#define JBD2_SB_BLOCKSIZE      0x0C /* be32 */
#define JBD2_SB_MAXLEN	       0x10 /* be32: blocks, fast-commit area included */
#define JBD2_SB_FIRST	       0x14 /* be32: first log block */
#define JBD2_SB_SEQUENCE       0x18 /* be32: first tid expected in the log */
#define JBD2_SB_START	       0x1C /* be32: first log block; 0 = clean */
#define JBD2_SB_ERRNO	       0x20 /* be32 */
#define JBD2_SB_V1_SIZE	       0x24 /* a v1 superblock ends here */
#define JBD2_SB_COMPAT	       0x24 /* be32 */
#define JBD2_SB_INCOMPAT       0x28 /* be32 */
#define JBD2_SB_RO_COMPAT      0x2C /* be32 */
#define JBD2_SB_UUID	       0x30 /* 16 bytes */
#define JBD2_SB_NR_USERS       0x40 /* be32 */
#define JBD2_SB_DYNSUPER       0x44 /* be32 */
#define JBD2_SB_MAX_TRANS      0x48 /* be32 */
#define JBD2_SB_MAX_TRANS_DATA 0x4C /* be32 */
#define JBD2_SB_CHECKSUM_TYPE  0x50 /* u8: 4 = crc32c */
#define JBD2_SB_NUM_FC_BLKS    0x54 /* be32: 0 means JBD2_DEFAULT_FC_BLOCKS */
#define JBD2_SB_HEAD	       0x58 /* be32: where logging resumes (newer kernels) */
#define JBD2_SB_CHECKSUM       0xFC  /* be32: crc32c of the 1024-byte sb */
#define JBD2_SB_USERS	       0x100 /* 16 * 48 bytes */
#define JBD2_SB_SIZE	       1024

#define JBD2_FEATURE_COMPAT_CHECKSUM	   0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE	   0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT	   0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT 0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2	   0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3	   0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT  0x00000020

#define JBD2_CRC32C_CHKSUM     4
#define JBD2_DEFAULT_FC_BLOCKS 256
/* journal_load_superblock(): the fast-commit area is set up only when at
 * least this many blocks remain for the log */
#define JBD2_MIN_JOURNAL_BLOCKS 1024

/* Descriptor block tags, from offset JBD2_HEADER_SIZE. */
/* journal_block_tag3_t (csum_v3): 16 bytes */
#define JBD2_TAG3_BLOCKNR    0x00 /* be32 */
#define JBD2_TAG3_FLAGS	     0x04 /* be32 */
#define JBD2_TAG3_BLOCKNR_HI 0x08 /* be32 */
#define JBD2_TAG3_CHECKSUM   0x0C /* be32 */
/* journal_block_tag_t: 8 bytes, +4 with 64bit (blocknr_high), and
 * the 16-bit checksum is meaningful with csum_v2 (+2 bytes, see below) */
#define JBD2_TAG_BLOCKNR    0x00 /* be32 */
#define JBD2_TAG_CHECKSUM   0x04 /* be16 */
#define JBD2_TAG_FLAGS	    0x06 /* be16 */
#define JBD2_TAG_BLOCKNR_HI 0x08 /* be32, with 64bit */

#define JBD2_FLAG_ESCAPE    1 /* the journal copy had its magic zeroed */
#define JBD2_FLAG_SAME_UUID 2 /* no 16-byte UUID follows this tag */
#define JBD2_FLAG_DELETED   4 /* (unused by jbd2) */
#define JBD2_FLAG_LAST_TAG  8 /* the last tag of this descriptor */

#define JBD2_UUID_SIZE 16
/* Descriptor and revoke blocks end with this tail (csum v2/v3). */
#define JBD2_TAIL_SIZE 4

/* Commit block */
#define JBD2_C_CHKSUM_TYPE 0x0C /* u8 */
#define JBD2_C_CHKSUM_SIZE 0x0D /* u8 */
#define JBD2_C_CHKSUM                                                          \
	0x10			    /* be32 [8] (v1: crc32_be in [0]; v2/v3:   \
					   crc32c of the block in [0]) */
#define JBD2_C_COMMIT_SEC      0x30 /* be64 */
#define JBD2_C_COMMIT_NSEC     0x38 /* be32 */
#define JBD2_CRC32_CHKSUM      1
#define JBD2_CRC32_CHKSUM_SIZE 4

/* Revoke block */
#define JBD2_R_COUNT	0x0C /* be32: bytes used, header included */
#define JBD2_R_HDR_SIZE 0x10

/* Fast-commit area (little-endian TLVs: le16 tag, le16 len, value) */
#define EXT4_FC_TAG_ADD_RANGE 0x0001
#define EXT4_FC_TAG_DEL_RANGE 0x0002
#define EXT4_FC_TAG_CREAT     0x0003
#define EXT4_FC_TAG_LINK      0x0004
#define EXT4_FC_TAG_UNLINK    0x0005
#define EXT4_FC_TAG_INODE     0x0006 /* le32 ino, raw inode */
#define EXT4_FC_TAG_PAD	      0x0007
#define EXT4_FC_TAG_TAIL      0x0008 /* le32 tid, le32 crc */
#define EXT4_FC_TAG_HEAD      0x0009 /* le32 features, le32 tid */
#define EXT4_FC_TL_SIZE	      4

static inline uint32_t jbd2_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint16_t jbd2_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint64_t jbd2_be64(const void *p)
{
	return (uint64_t)jbd2_be32(p) << 32 | jbd2_be32((const uint8_t *)p + 4);
}

static inline uint32_t jbd2_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[1] << 8 | b[0];
}

static inline uint16_t jbd2_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[1] << 8 | b[0]);
}

#endif /* E4T_JBD2_H */
