/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbopen_int.h --- library-internal: every libext2fs handle of an image is
 * opened through e4t_fs_open(), with the superblock e4t_sb_select()
 * chose for it (sbopen.c; image.c and write.c use them).
 */
#ifndef E4TIME_SBOPEN_H
#define E4TIME_SBOPEN_H

#include "e4time.h"

/* Reading handles: never EXT2_FLAG_RW, reading leaves the image untouched. */
#define E4T_READ_FLAGS                                                         \
	(EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | EXT2_FLAG_SKIP_MMP)

/*
 * A handle on img's filesystem, at img's offset, through io (or the
 * view's manager), with the superblock img->sb_block of size
 * img->sb_blocksize (0: the primary).  A read-write one only on the
 * primary superblock: E4T_ERR_BACKUP_SB otherwise.
 */
errcode_t e4t_fs_open(struct e4t_image *img, int flags, io_manager io,
		      ext2_filsys *fs);

/*
 * img's first handle, read-only, opened as e2fsck opens a filesystem:
 * at the block sb->block names (with the size sb->blocksize, or each
 * size from 1 KiB to 64 KiB in turn), or else at the primary superblock;
 * if the primary is unusable (bad magic, a superblock checksum that does
 * not verify, geometry libext2fs or ext2fs_check_desc() rejects), the
 * first good backup (group 1, then 3, 5, 7, 9, at each block size or
 * sb->blocksize's): img->state then has E4T_IMG_PRIMARY_BAD and
 * img->primary_err says why.  With no good backup, the primary as it
 * is, or its error.  img->sb_block and img->sb_blocksize say which
 * superblock was read, for every later handle.
 */
errcode_t e4t_sb_select(struct e4t_image *img, const struct e4t_sb_opts *sb,
			ext2_filsys *fs);

#endif
