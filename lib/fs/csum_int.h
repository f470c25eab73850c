/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * csum_int.h --- checksums computed with the CPU's CRC32C instruction where
 * there is one (csum.c): library-internal, for write.c, undo_io.c and the
 * tests, which check them against libext2fs'.
 */
#ifndef E4TIME_CSUM_H
#define E4TIME_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* CRC32C, the same as ext2fs_crc32c_le(crc, buf, len), faster. */
uint32_t e4t_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same over len zero bytes, in O(log len) steps. */
uint32_t e4t_crc32c_zeros(uint32_t crc, size_t len);

/*
 * An inode's checksum, as ext2fs_inode_csum_verify() and
 * ext2fs_inode_csum_set() (and the kernel) compute it, on the inode as on
 * disk (full inode size), faster.  Neither changes the inode it checks.
 */
int e4t_inode_csum_verify(ext2_filsys fs, ext2_ino_t ino,
			  const struct ext2_inode_large *inode);
void e4t_inode_csum_set(ext2_filsys fs, ext2_ino_t ino,
			struct ext2_inode_large *inode);

/*
 * A directory leaf block's checksum (its 12-byte tail), as
 * ext2fs_dir_block_csum_verify() computes it, for directory ino of
 * generation gen (from its inode): 1 verified, 0 not, -1 the block has no
 * leaf tail (an htree node, or damaged): ask libext2fs.
 */
int e4t_dirent_csum_verify(ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			   const void *block);

#endif
