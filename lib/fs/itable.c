/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * itable.c --- one block group's inode table read block by block.
 *
 * libext2fs' inode scan reads the table in large pieces; when a piece
 * cannot be read (a damaged container chunk, a bad sector) it returns
 * EXT2_ET_NEXT_INODE_READ and does not move on, so the scan can only
 * skip to the next group: every inode of the group would be lost,
 * / among them when it is group 0.  Here the rest of the group is read
 * one block at a time, and only the blocks that fail cost their inodes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "fs/itable_int.h"

/* The inodes the scan reads in group g: all, or with group descriptor
 * checksums those below itable_unused (as ext2fs_get_next_inode_full). */
static uint32_t inodes_read(ext2_filsys fs, dgrp_t g)
{
	uint32_t ipg = fs->super->s_inodes_per_group;

	if (ext2fs_has_group_desc_csum(fs)) {
		uint32_t unused = ext2fs_bg_itable_unused(fs, g);

		return unused < ipg ? ipg - unused : 0;
	}
	return ipg;
}

struct lost_run {
	blk64_t first, last; /* blocks */
	ext2_ino_t ino_first, ino_last;
	errcode_t err;
	int open;
};

static void lost_flush(ext2_filsys fs, uint64_t base, struct lost_run *r,
		       e4t_itable_lost_fn lost, void *priv)
{
	char detail[160];
	uint64_t bs = fs->blocksize;

	if (!r->open)
		return;
	r->open = 0;
	if (!lost)
		return;
	if (r->first == r->last)
		snprintf(detail, sizeof(detail), "inode table block %llu",
			 (unsigned long long)r->first);
	else
		snprintf(detail, sizeof(detail), "inode table blocks %llu-%llu",
			 (unsigned long long)r->first,
			 (unsigned long long)r->last);
	snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
		 ", bytes %llu-%llu: inodes %u-%u not read",
		 (unsigned long long)(base + r->first * bs),
		 (unsigned long long)(base + (r->last + 1) * bs - 1),
		 r->ino_first, r->ino_last);
	lost(r->err, r->ino_first, r->ino_last, detail, priv);
}

errcode_t e4t_itable_salvage(ext2_filsys fs, dgrp_t g, ext2_ino_t from,
			     uint64_t base, e4t_itable_fn fn,
			     e4t_itable_lost_fn lost, void *priv)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	unsigned isz = EXT2_INODE_SIZE(fs->super);
	unsigned per_block = fs->blocksize / isz;
	ext2_ino_t first = (ext2_ino_t)(g * ipg + 1);
	ext2_ino_t end = first + inodes_read(fs, g); /* past the last */
	blk64_t table = ext2fs_inode_table_loc(fs, g);
	struct ext2_inode_large *raw;
	struct lost_run run = { 0 };
	char *block;
	errcode_t err = 0;
	ext2_ino_t ino;

	if (from < first)
		from = first;
	if (!table || from >= end || !per_block)
		return 0;
	block = malloc(fs->blocksize);
	raw = calloc(1, isz > sizeof(*raw) ? isz : sizeof(*raw));
	if (!block || !raw) {
		free(block);
		free(raw);
		return ENOMEM;
	}
	for (ino = from; ino < end && !err;) {
		uint32_t idx = ino - first;
		blk64_t blk = table + idx / per_block;
		/* the inodes of this block, from ino on */
		ext2_ino_t stop = first + (idx / per_block + 1) * per_block;
		errcode_t rerr;

		if (stop > end)
			stop = end;
		rerr = io_channel_read_blk64(fs->io, blk, 1, block);
		if (rerr) {
			if (run.open &&
			    (run.err != rerr || run.last + 1 != blk))
				lost_flush(fs, base, &run, lost, priv);
			if (!run.open) {
				run.open = 1;
				run.first = blk;
				run.ino_first = ino;
				run.err = rerr;
			}
			run.last = blk;
			run.ino_last = stop - 1;
			ino = stop;
			continue;
		}
		lost_flush(fs, base, &run, lost, priv);
		for (; ino < stop && !err; ino++) {
			memcpy(raw,
			       block + (size_t)((ino - first) % per_block) *
					       isz,
			       isz);
#ifdef WORDS_BIGENDIAN
			ext2fs_swap_inode_full(fs, raw, raw, 0, isz);
#endif
			err = fn(ino, raw, priv);
		}
	}
	lost_flush(fs, base, &run, lost, priv);
	free(block);
	free(raw);
	return err;
}
