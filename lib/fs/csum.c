/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * csum.c --- CRC32C as ext2fs_crc32c_le() computes it (no inversion in or
 * out: callers seed with ~0 as e2fsprogs does), with the SSE 4.2
 * instruction when the CPU has it, and ext4's inode checksum on it.
 * libext2fs' tables do about 1.7 GB/s here, the instruction about 9 GB/s:
 * it counts for the hundreds of MiB an undo file checksums, and for the
 * two checksums (the old one checked, the new one set) of each of a
 * million inodes a backfill writes.  unit_undo and unit_batch check both
 * against libext2fs.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "fs/csum.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_CRC32C_INSN 1

__attribute__((target("sse4.2"))) static uint32_t
crc32c_insn(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; len; len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t e4t_crc32c(uint32_t crc, const void *buf, size_t len)
{
#ifdef HAVE_CRC32C_INSN
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_insn(crc, buf, len);
#endif
	return ext2fs_crc32c_le(crc, buf, len);
}

/*
 * CRC32C over zeros without reading them: with no inversion in or out,
 * the register after n zero bytes is the register times x^(8n) modulo
 * the polynomial (zlib's crc32_combine() does the same), in the
 * reflected bit order of the CRC: bit 31 is x^0.
 */
#define CRC32C_POLY 0x82f63b78U /* reflected */

static uint32_t mult_mod(uint32_t a, uint32_t b)
{
	uint32_t m = 1U << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if (!(a & (m - 1)))
				break;
		}
		m >>= 1;
		b = (b & 1) ? (b >> 1) ^ CRC32C_POLY : b >> 1;
	}
	return p;
}

uint32_t e4t_crc32c_zeros(uint32_t crc, size_t len)
{
	uint32_t x = 1U << 23; /* x^8: one byte */
	size_t n = len;

	if (!crc)
		return 0;
	/* x^(8 * 2^k), squared k by k, for each bit of len */
	for (; n; n >>= 1) {
		if (n & 1)
			crc = mult_mod(x, crc);
		x = mult_mod(x, x);
	}
	return crc;
}

/*
 * libext2fs' ext2fs_inode_csum(): the filesystem's seed, the inode number
 * and generation (little-endian), then the whole inode with its checksum
 * words taken as 0 (the high one only when the inode has it).
 */
static uint32_t inode_csum(ext2_filsys fs, ext2_ino_t ino,
			   const struct ext2_inode_large *inode, int has_hi)
{
	static const uint16_t zero;
	const unsigned char *p = (const unsigned char *)inode;
	size_t size = EXT2_INODE_SIZE(fs->super);
	size_t lo = offsetof(struct ext2_inode_large, i_checksum_lo);
	size_t hi = offsetof(struct ext2_inode_large, i_checksum_hi);
	uint32_t inum = ext2fs_cpu_to_le32(ino), gen = inode->i_generation;
	uint32_t crc;

	crc = e4t_crc32c(fs->csum_seed, &inum, sizeof(inum));
	crc = e4t_crc32c(crc, &gen, sizeof(gen));
	crc = e4t_crc32c(crc, p, lo);
	crc = e4t_crc32c(crc, &zero, sizeof(zero));
	if (!has_hi)
		return e4t_crc32c(crc, p + lo + 2, size - lo - 2);
	crc = e4t_crc32c(crc, p + lo + 2, hi - lo - 2);
	crc = e4t_crc32c(crc, &zero, sizeof(zero));
	return e4t_crc32c(crc, p + hi + 2, size - hi - 2);
}

static int has_csum_hi(ext2_filsys fs, const struct ext2_inode_large *inode)
{
	return EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE &&
	       inode->i_extra_isize >= EXT4_INODE_CSUM_HI_EXTRA_END;
}

int e4t_inode_csum_verify(ext2_filsys fs, ext2_ino_t ino,
			  const struct ext2_inode_large *inode)
{
	const unsigned char *p = (const unsigned char *)inode;
	int has_hi = has_csum_hi(fs, inode);
	uint32_t provided, calculated;
	size_t i;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 1;
	provided = ext2fs_le16_to_cpu(inode->i_checksum_lo);
	calculated = inode_csum(fs, ino, inode, has_hi);
	if (has_hi)
		provided |= (uint32_t)ext2fs_le16_to_cpu(inode->i_checksum_hi)
			    << 16;
	else
		calculated &= 0xFFFF;
	if (provided == calculated)
		return 1;
	/* As libext2fs: an inode of zeros (its first 128 bytes) passes. */
	for (i = 0; i < sizeof(struct ext2_inode); i++)
		if (p[i])
			return 0;
	return 1;
}

void e4t_inode_csum_set(ext2_filsys fs, ext2_ino_t ino,
			struct ext2_inode_large *inode)
{
	int has_hi = has_csum_hi(fs, inode);
	uint32_t crc;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return;
	crc = inode_csum(fs, ino, inode, has_hi);
	inode->i_checksum_lo = ext2fs_cpu_to_le16(crc & 0xFFFF);
	if (has_hi)
		inode->i_checksum_hi = ext2fs_cpu_to_le16(crc >> 16);
}

int e4t_dirent_csum_verify(ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			   const void *block)
{
	const unsigned char *b = block;
	size_t top = fs->blocksize - sizeof(struct ext2_dir_entry_tail);
	size_t off = 0;
	const struct ext2_dir_entry_tail *t;
	uint32_t inum = ext2fs_cpu_to_le32(ino), crc;

	/* libext2fs' __get_dirent_tail(): the entries must end at the tail */
	while (off < top) {
		unsigned rec_len;

		if (ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(b + off),
				       &rec_len) ||
		    rec_len < 8 || (rec_len & 3))
			return -1;
		off += rec_len;
	}
	if (off != top)
		return -1;
	t = (const struct ext2_dir_entry_tail *)(b + top);
	if (t->det_reserved_zero1 ||
	    ext2fs_le16_to_cpu(t->det_rec_len) != sizeof(*t) ||
	    ext2fs_le16_to_cpu(t->det_reserved_name_len) !=
		    EXT2_DIR_NAME_LEN_CSUM)
		return -1;
	crc = e4t_crc32c(fs->csum_seed, &inum, sizeof(inum));
	crc = e4t_crc32c(crc, &gen, sizeof(gen));
	crc = e4t_crc32c(crc, b, top);
	return ext2fs_le32_to_cpu(t->det_checksum) == crc;
}
