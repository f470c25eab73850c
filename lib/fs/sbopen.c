/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbopen.c --- which superblock an image is read with, chosen as e2fsck
 * chooses it (e2fsck/unix.c, get_backup_sb()): the one -b names, or the
 * primary; when the primary is unusable, the first good backup.  A
 * backup is only ever read: a handle for writing is opened on the
 * primary superblock only.
 *
 * libext2fs does the rest: ext2fs_open2() with a superblock and a block
 * size reads the group descriptors that follow that backup, and, the
 * backup being as old as the last resize or mkfs, clears their
 * _UNINIT flags and bg_itable_unused, so that every inode is scanned.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "e4time.h"
#include "container/container.h"
#include "fs/sbopen_int.h"
#include "write/undo_io_int.h"

/* Every handle of e4time is opened here, with the image's offset: on
 * the file (unix_io or the undo manager), or on a view inside an
 * evidence container (view_io, read-only).  A view of a raw image is
 * written in the file, through the undo manager that write.c has given
 * the view's extents. */
errcode_t e4t_fs_open(struct e4t_image *img, int flags, io_manager io,
		      ext2_filsys *fs)
{
	int sb = (int)img->sb_block, bs = (int)img->sb_blocksize;
	char opts[64];

	if ((flags & EXT2_FLAG_RW) && img->sb_block)
		return E4T_ERR_BACKUP_SB;
	snprintf(opts, sizeof(opts), "offset=%llu",
		 (unsigned long long)img->offset);
	if (img->view && !(flags & EXT2_FLAG_RW))
		return ext2fs_open2(img->view_name, img->offset ? opts : NULL,
				    flags, sb, (unsigned)bs,
				    e4t_view_io_manager, fs);
	if (img->view &&
	    (img->view->c->kind != E4T_C_RAW || io != e4t_undo_io_manager))
		return E4T_ERR_CONTAINER_READONLY;
	/* Opened once by name (write.c): the same file, whatever the name
	 * is now. */
	return ext2fs_open2(img->io_name[0] ? img->io_name : img->name,
			    img->offset ? opts : NULL, flags, sb, (unsigned)bs,
			    io, fs);
}

static const unsigned sizes[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };
/* where sparse_super keeps backups: 1 and the powers of 3, 5 and 7 */
static const unsigned groups[] = { 1, 3, 5, 7, 9 };
#define N_SIZES	 (sizeof(sizes) / sizeof(sizes[0]))
#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

/* mke2fs's blocks per group: 8 per byte of a bitmap block, at most
 * 65528 (EXT2_MAX_BLOCKS_PER_GROUP, without bigalloc) */
static uint64_t group_start(unsigned bs, unsigned g)
{
	uint64_t per = 8ULL * bs > 65528 ? 65528 : 8ULL * bs;

	return (bs == 1024 ? 1 : 0) + g * per;
}

/* A read-only handle at superblock blk of block size bs. */
static errcode_t open_at(struct e4t_image *img, uint64_t blk, unsigned bs,
			 ext2_filsys *fs)
{
	errcode_t err;

	if (blk > INT32_MAX) /* ext2fs_open2() takes an int */
		return EXT2_ET_BAD_MAGIC;
	img->sb_block = blk;
	img->sb_blocksize = bs;
	err = e4t_fs_open(img, E4T_READ_FLAGS, unix_io_manager, fs);
	if (!err && (*fs)->blocksize != bs) {
		ext2fs_close_free(fs);
		err = EXT2_ET_UNEXPECTED_BLOCK_SIZE;
	}
	return err;
}

/* Why the superblock of fs is not to be read, or 0 (e2fsck: a checksum
 * that fails, group descriptors ext2fs_check_desc() rejects). */
static errcode_t unusable(ext2_filsys fs)
{
	if (!ext2fs_superblock_csum_verify(fs, fs->super))
		return EXT2_ET_SB_CSUM_INVALID;
	return ext2fs_check_desc(fs);
}

/*
 * Does the internal journal hold transactions to replay (its superblock's
 * s_start)?  The kernel sets needs_recovery in the primary superblock
 * only: read through a backup, the journal says it, as e2fsck finds it
 * ("needs_recovery flag is clear, but journal has data").
 */
static int journal_live(ext2_filsys fs)
{
	ext2_ino_t ino = fs->super->s_journal_inum;
	struct ext2_inode inode;
	blk64_t blk = 0;
	unsigned char *b;
	int live = 0;

	if (!ext2fs_has_feature_journal(fs->super) || !ino ||
	    ext2fs_read_inode(fs, ino, &inode) ||
	    ext2fs_bmap2(fs, ino, &inode, NULL, 0, 0, NULL, &blk) || !blk)
		return 0;
	b = malloc(fs->blocksize);
	if (!b)
		return 0;
	/* big-endian: h_magic at 0, s_start at 28 */
	if (!io_channel_read_blk64(fs->io, blk, 1, b))
		live = ext2fs_be32_to_cpu(*(const __u32 *)b) == 0xc03b3998U &&
		       ext2fs_be32_to_cpu(*(const __u32 *)(b + 28)) != 0;
	free(b);
	return live;
}

/* The errors of ext2fs_open2() that a backup may not have. */
static int primary_fault(errcode_t err)
{
	switch (err) {
	case EXT2_ET_BAD_MAGIC:
	case EXT2_ET_SB_CSUM_INVALID:
	case EXT2_ET_CORRUPT_SUPERBLOCK:
	case EXT2_ET_UNEXPECTED_BLOCK_SIZE:
	case EXT2_ET_BAD_DESC_SIZE:
	case EXT2_ET_REV_TOO_HIGH: return 1;
	default: return 0;
	}
}

const char *e4t_sb_fault(errcode_t why)
{
	switch (why) {
	case EXT2_ET_BAD_MAGIC: return "bad magic";
	case EXT2_ET_SB_CSUM_INVALID: return "bad checksum";
	case EXT2_ET_UNEXPECTED_BLOCK_SIZE:
		return "not of the block size -B gives";
	case EXT2_ET_CORRUPT_SUPERBLOCK:
	case EXT2_ET_BAD_DESC_SIZE:
	case EXT2_ET_REV_TOO_HIGH: return "impossible geometry";
	default: return "group descriptors out of place";
	}
}

static int no_memory(errcode_t err)
{
	return err == ENOMEM || err == EXT2_ET_NO_MEMORY;
}

/* -b BLOCK: at that block, of the size -B gives or the first that opens
 * (e2fsck tries each size in turn). */
static errcode_t open_named(struct e4t_image *img, const struct e4t_sb_opts *o,
			    ext2_filsys *fs)
{
	errcode_t err, other = 0;
	size_t i;

	for (i = 0; i < N_SIZES; i++) {
		if (o->blocksize && sizes[i] != o->blocksize)
			continue;
		err = open_at(img, o->block, sizes[i], fs);
		if (!err) {
			if (journal_live(*fs))
				img->state |= E4T_IMG_NEEDS_RECOVERY;
			return 0;
		}
		if (!other && err != EXT2_ET_BAD_MAGIC &&
		    err != EXT2_ET_SHORT_READ &&
		    err != EXT2_ET_UNEXPECTED_BLOCK_SIZE)
			other = err;
	}
	img->sb_block = 0;
	return other ? other : E4T_ERR_NO_SB_AT;
}

/* The first good backup into *fs (block size bs, or any with 0). */
static errcode_t find_backup(struct e4t_image *img, unsigned bs,
			     ext2_filsys *fs)
{
	size_t g, i;
	errcode_t err;

	for (g = 0; g < N_GROUPS; g++) {
		for (i = 0; i < N_SIZES; i++) {
			if (bs && sizes[i] != bs)
				continue;
			err = open_at(img, group_start(sizes[i], groups[g]),
				      sizes[i], fs);
			if (no_memory(err))
				return err;
			if (err)
				continue;
			err = unusable(*fs);
			if (!err)
				return 0;
			ext2fs_close_free(fs);
			if (no_memory(err))
				return err;
		}
	}
	return EXT2_ET_BAD_MAGIC;
}

errcode_t e4t_sb_select(struct e4t_image *img, const struct e4t_sb_opts *sb,
			ext2_filsys *fs)
{
	static const struct e4t_sb_opts none = { 0, 0 };
	const struct e4t_sb_opts *o = sb ? sb : &none;
	ext2_filsys primary = NULL, backup = NULL;
	errcode_t err, why;

	*fs = NULL;
	if (o->block)
		return open_named(img, o, fs);
	img->sb_block = 0;
	img->sb_blocksize = o->blocksize;
	err = e4t_fs_open(img, E4T_READ_FLAGS, unix_io_manager, &primary);
	if (!err)
		why = unusable(primary);
	else if (primary_fault(err))
		why = err;
	else
		return err;
	if (!why) {
		*fs = primary;
		return 0;
	}
	if (no_memory(why)) {
		ext2fs_close_free(&primary);
		return why;
	}
	err = find_backup(img, o->blocksize, &backup);
	if (!err) {
		if (primary)
			ext2fs_close_free(&primary);
		img->state |= E4T_IMG_PRIMARY_BAD;
		if (journal_live(backup))
			img->state |= E4T_IMG_NEEDS_RECOVERY;
		img->primary_err = why;
		*fs = backup;
		return 0;
	}
	if (no_memory(err)) {
		if (primary)
			ext2fs_close_free(&primary);
		return err;
	}
	/* no good backup: the primary as it is (read with its damage
	 * reported), or its error */
	img->sb_block = 0;
	img->sb_blocksize = o->blocksize;
	*fs = primary;
	return primary ? 0 : why;
}
