/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * itable_int.h --- reading one block group's inode table block by block,
 * when the inode scan could not read it (itable.c): library-internal,
 * for tree.c.
 */
#ifndef E4TIME_ITABLE_H
#define E4TIME_ITABLE_H

#include <ext2fs/ext2fs.h>

/* An inode read: raw holds the inode as on disk (inode_size bytes, the
 * rest of struct ext2_inode_large zero).  Non-zero stops the read. */
typedef errcode_t (*e4t_itable_fn)(ext2_ino_t ino,
				   const struct ext2_inode_large *raw,
				   void *priv);
/* A run of inode-table blocks that could not be read: err, the inodes
 * it cost [first, last] and a detail naming the blocks and bytes. */
typedef void (*e4t_itable_lost_fn)(errcode_t err, ext2_ino_t first,
				   ext2_ino_t last, const char *detail,
				   void *priv);

/*
 * The inodes from `from' to the last the scan reads in group g (the
 * group's itable_unused ones are not), one block of the inode table at
 * a time: every block that reads is handed on inode by inode, every run
 * of blocks that does not is reported once.  base is added to the byte
 * offsets named (where the filesystem starts in the file or view).
 * Returns 0, ENOMEM, or what fn returned.
 */
errcode_t e4t_itable_salvage(ext2_filsys fs, dgrp_t g, ext2_ino_t from,
			     uint64_t base, e4t_itable_fn fn,
			     e4t_itable_lost_fn lost, void *priv);

#endif
