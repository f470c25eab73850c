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

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "fs/csum_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_CRC32C_INSN 1

static uint32_t shift_by(const uint32_t tab[4][256], uint32_t crc);
static void shift_init(void);

/*
 * The instruction has a latency of 3 cycles and a throughput of 1: one
 * chained stream runs at a third of its speed.  So buffers of at least
 * 3 * CRC_BLK bytes go by chunks of three blocks, one stream each from 0
 * but the first, combined by shifting the first two over the blocks after
 * them (the register is linear in the data: crc(s, A B C) =
 * shift(crc(s, A), |B C|) ^ shift(crc(0, B), |C|) ^ crc(0, C)), by tables.
 */
#define CRC_BLK ((size_t)80) /* 10 words a stream: 256-byte inodes, 1 chunk */
/* and chunks of three streams of 42 words: a 1024-byte inode in one,
 * where 80-byte ones pay the shifts four times */
#define CRC_BIG ((size_t)336)

static uint32_t shift_tab[2][4][256]; /* by CRC_BLK, by 2 * CRC_BLK */
static uint32_t shift_big[2][4][256]; /* by CRC_BIG, by 2 * CRC_BIG */
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static uint64_t
crc32c_words(uint64_t c, const unsigned char *p, size_t n)
{
	for (; n; n--, p += 8) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	return c;
}

/* One chunk of three streams of blk bytes each; tab: the shifts by blk
 * and 2 * blk.  Inlined, blk a constant: the loop is unrolled. */
__attribute__((target("sse4.2"), always_inline)) static inline uint64_t
crc32c_chunk(uint64_t c, const unsigned char *p, size_t blk,
	     const uint32_t tab[2][4][256])
{
	uint64_t a = c, b = 0, d = 0;
	size_t i;

	for (i = 0; i < blk; i += 8) {
		uint64_t u, v, w;

		memcpy(&u, p + i, sizeof(u));
		memcpy(&v, p + blk + i, sizeof(v));
		memcpy(&w, p + 2 * blk + i, sizeof(w));
		a = __builtin_ia32_crc32di(a, u);
		b = __builtin_ia32_crc32di(b, v);
		d = __builtin_ia32_crc32di(d, w);
	}
	return shift_by(tab[1], (uint32_t)a) ^ shift_by(tab[0], (uint32_t)b) ^
	       (uint32_t)d;
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_insn(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	if (len >= 3 * CRC_BLK)
		pthread_once(&shift_once, shift_init);
	for (; len >= 3 * CRC_BIG; len -= 3 * CRC_BIG, p += 3 * CRC_BIG)
		c = crc32c_chunk(c, p, CRC_BIG, shift_big);
	for (; len >= 3 * CRC_BLK; len -= 3 * CRC_BLK, p += 3 * CRC_BLK)
		c = crc32c_chunk(c, p, CRC_BLK, shift_tab);
	c = crc32c_words(c, p, len / 8);
	p += len & ~(size_t)7;
	for (len &= 7; len; len--)
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

#ifdef HAVE_CRC32C_INSN
/* the register after n zero bytes, by the bytes of the register */
static uint32_t shift_by(const uint32_t tab[4][256], uint32_t crc)
{
	return tab[0][crc & 0xFF] ^ tab[1][(crc >> 8) & 0xFF] ^
	       tab[2][(crc >> 16) & 0xFF] ^ tab[3][crc >> 24];
}

static void shift_fill(uint32_t tab[4][256], size_t len)
{
	uint32_t basis[32];
	unsigned i, k, b;

	for (i = 0; i < 32; i++)
		basis[i] = e4t_crc32c_zeros(1U << i, len);
	for (k = 0; k < 4; k++)
		for (b = 0; b < 256; b++) {
			uint32_t v = 0;

			for (i = 0; i < 8; i++)
				if (b & (1U << i))
					v ^= basis[8 * k + i];
			tab[k][b] = v;
		}
}

static void shift_init(void)
{
	shift_fill(shift_tab[0], CRC_BLK);
	shift_fill(shift_tab[1], 2 * CRC_BLK);
	shift_fill(shift_big[0], CRC_BIG);
	shift_fill(shift_big[1], 2 * CRC_BIG);
}

/*
 * The inode checksum without copying the inode: the CRC of the inode as
 * it is, then the checksum words' part taken out again.  The register is
 * linear in the data, so crc(s, X) ^ crc(s, X') = crc(0, X ^ X'): for X'
 * the inode with a checksum word zeroed, that is the CRC of the word's two
 * bytes followed by the zeros to the inode's end, a shift by tables (one
 * pair per inode size, made once).
 */
#define CSUM_LO	    offsetof(struct ext2_inode_large, i_checksum_lo)
#define CSUM_HI	    offsetof(struct ext2_inode_large, i_checksum_hi)
#define CSUM_NSIZES 10 /* inode sizes 128 .. 65536 */

/*
 * And where the inode's last bytes are all zero (no extended attribute in
 * the inode: most inodes of 512 bytes and more), the CRC of what comes
 * before them, then a shift by those zeros: memcmp() reads them several
 * times faster than the CRC instruction could.
 */
#define CSUM_HEAD ((size_t)256)	 /* bytes always run through the instruction */
#define CSUM_TAIL ((size_t)1024) /* the most zeros taken so */

struct csum_shift {
	int ready;
	size_t tail; /* zeros to end with, 0: none */
	uint32_t lo[4][256], hi[4][256], zeros[4][256];
};
static const unsigned char csum_zeros[CSUM_TAIL];
static struct csum_shift csum_shifts[CSUM_NSIZES];
static pthread_mutex_t csum_shift_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct csum_shift *csum_shift_for(size_t size)
{
	struct csum_shift *sh;
	unsigned k = 0;

	while (k < CSUM_NSIZES && ((size_t)128 << k) < size)
		k++;
	if (k == CSUM_NSIZES || ((size_t)128 << k) != size)
		return NULL;
	sh = &csum_shifts[k];
	if (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE))
		return sh;
	pthread_mutex_lock(&csum_shift_lock);
	if (!sh->ready) {
		shift_fill(sh->lo, size - CSUM_LO - 2);
		if (size >= CSUM_HI + 2)
			shift_fill(sh->hi, size - CSUM_HI - 2);
		if (size >= 2 * CSUM_HEAD && size - CSUM_HEAD <= CSUM_TAIL) {
			sh->tail = size - CSUM_HEAD;
			shift_fill(sh->zeros, sh->tail);
		}
		__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&csum_shift_lock);
	return sh;
}

/* 0 when the CPU has no instruction or the size is not a power of two */
static int inode_csum_insn(uint32_t seed, const unsigned char *p, size_t size,
			   const uint32_t pre[2], int has_hi, uint32_t *crc)
{
	const struct csum_shift *sh;
	uint32_t c;

	if (!__builtin_cpu_supports("sse4.2"))
		return 0;
	sh = csum_shift_for(size);
	if (!sh)
		return 0;
	c = crc32c_insn(seed, (const unsigned char *)pre, 8);
	if (sh->tail && !memcmp(p + CSUM_HEAD, csum_zeros, sh->tail))
		c = shift_by(sh->zeros, crc32c_insn(c, p, CSUM_HEAD));
	else
		c = crc32c_insn(c, p, size);
	c ^= shift_by(sh->lo, crc32c_insn(0, p + CSUM_LO, 2));
	if (has_hi)
		c ^= shift_by(sh->hi, crc32c_insn(0, p + CSUM_HI, 2));
	*crc = c;
	return 1;
}
#endif

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

#ifdef HAVE_CRC32C_INSN
	{
		const uint32_t pre[2] = { inum, gen };

		if (inode_csum_insn(fs->csum_seed, p, size, pre, has_hi, &crc))
			return crc;
	}
#endif
	if (size <= 1024) {
		/* one call over a copy: long enough for the 3 streams */
		uint64_t buf[(8 + 1024) / 8];
		unsigned char *b = (unsigned char *)buf;

		memcpy(b, &inum, 4);
		memcpy(b + 4, &gen, 4);
		memcpy(b + 8, p, size);
		memset(b + 8 + lo, 0, 2);
		if (has_hi)
			memset(b + 8 + hi, 0, 2);
		return e4t_crc32c(fs->csum_seed, b, 8 + size);
	}
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
