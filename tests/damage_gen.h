/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damage_gen.h --- where the metadata of an ext4 image lies, and how to
 * make its checksums right again after it was damaged; shared by the
 * damaged-images generator (tests/damage_gen.c) and the whole-image
 * fuzz harness (tests/fuzz/image.c).  Header only (static functions):
 * each of them is built alone.
 *
 *	dmg_areas(fs, &a)		every metadata area of an open
 *					(undamaged) filesystem, by kind
 *	dmg_fix(fs, fd, area)		recompute the checksum of that area
 *					as it now is in the file fd (the
 *					image, damaged), with the checksum
 *					seed and features of fs (the image
 *					before the damage)
 *
 * Kinds: the superblock, the group descriptors, inode-table blocks that
 * hold an inode in use, directory blocks, extent trees (the root in an
 * inode's i_block, and extent-tree or block-map blocks), xattrs (the
 * in-inode area after i_extra_isize when it holds some, and xattr
 * blocks), and the internal journal's first blocks.  An area inside an
 * inode is fixed through the inode's checksum.  The journal's checksums
 * are jbd2's and are not fixed.
 */
#ifndef E4TIME_DAMAGE_GEN_H
#define E4TIME_DAMAGE_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ext2fs/ext2fs.h>

enum dmg_kind {
	DMG_SB = 0,
	DMG_GDT,
	DMG_ITABLE,
	DMG_DIR,
	DMG_EXTENT,
	DMG_XATTR,
	DMG_JOURNAL,
	DMG_NKINDS
};

static const char *const dmg_kind_names[DMG_NKINDS] = {
	"superblock", "gdt", "itable", "dir", "extent", "xattr", "journal"
};

/* One area: len bytes at byte offset off of the image. */
struct dmg_area {
	enum dmg_kind kind;
	uint64_t off;
	uint32_t len;
	blk64_t block;	    /* its block (0 for the superblock) */
	ext2_ino_t ino;	    /* the owner (dir, extent, xattr); first inode of
			       an inode-table block */
	uint64_t inode_pos; /* inside inode ino at this byte offset; 0: not */
};

struct dmg_areas {
	struct dmg_area *a;
	size_t n, cap;
	size_t count[DMG_NKINDS];
};

/* How many journal blocks are taken (the used part is at the start). */
#define DMG_JOURNAL_BLOCKS 48
/* Cap per inode, so that a big file does not crowd out the rest. */
#define DMG_BLOCKS_PER_INODE 64

static inline int dmg_add_in(struct dmg_areas *s, enum dmg_kind kind,
			     uint64_t off, uint32_t len, blk64_t block,
			     ext2_ino_t ino, uint64_t inode_pos)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->a[i].off == off && s->a[i].kind == kind)
			return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct dmg_area *p = realloc(s->a, cap * sizeof(*p));

		if (!p)
			return -1;
		s->a = p;
		s->cap = cap;
	}
	s->a[s->n].kind = kind;
	s->a[s->n].off = off;
	s->a[s->n].len = len;
	s->a[s->n].block = block;
	s->a[s->n].ino = ino;
	s->a[s->n].inode_pos = inode_pos;
	s->n++;
	s->count[kind]++;
	return 0;
}

static inline int dmg_add(struct dmg_areas *s, enum dmg_kind kind, uint64_t off,
			  uint32_t len, blk64_t block, ext2_ino_t ino)
{
	return dmg_add_in(s, kind, off, len, block, ino, 0);
}

struct dmg_iter {
	struct dmg_areas *s;
	ext2_ino_t ino;
	int dir, journal;
	unsigned taken;
	int err;
};

static inline int dmg_block(ext2_filsys fs, blk64_t *blocknr,
			    e2_blkcnt_t blockcnt, blk64_t ref, int ref_off,
			    void *priv)
{
	struct dmg_iter *it = priv;
	enum dmg_kind kind;

	(void)ref;
	(void)ref_off;
	if (*blocknr == 0 || *blocknr >= ext2fs_blocks_count(fs->super))
		return 0;
	if (blockcnt < 0)
		kind = DMG_EXTENT;
	else if (it->dir)
		kind = DMG_DIR;
	else if (it->journal)
		kind = DMG_JOURNAL;
	else
		return 0;
	if (kind == DMG_JOURNAL) {
		if (blockcnt >= DMG_JOURNAL_BLOCKS)
			return BLOCK_ABORT;
	} else if (it->taken++ >= DMG_BLOCKS_PER_INODE) {
		return BLOCK_ABORT;
	}
	if (dmg_add(it->s, kind, (uint64_t)*blocknr * fs->blocksize,
		    fs->blocksize, *blocknr, it->ino)) {
		it->err = 1;
		return BLOCK_ABORT;
	}
	return 0;
}

/* Every metadata area of fs; 0, or -1 on error. */
static inline int dmg_areas(ext2_filsys fs, struct dmg_areas *s)
{
	unsigned bs = fs->blocksize, isize = EXT2_INODE_SIZE(fs->super);
	unsigned ipb = bs / isize;
	blk64_t gdt = fs->super->s_first_data_block + 1;
	struct ext2_inode_large *in;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	uint64_t ipos;
	dgrp_t g;
	blk64_t b;

	memset(s, 0, sizeof(*s));
	if (dmg_add(s, DMG_SB, 1024, 1024, 0, 0))
		return -1;
	for (b = 0; b < fs->desc_blocks; b++)
		if (dmg_add(s, DMG_GDT, (gdt + b) * bs, bs, gdt + b, 0))
			return -1;
	in = malloc(isize);
	if (!in)
		return -1;
	if (ext2fs_open_inode_scan(fs, 0, &scan)) {
		free(in);
		return -1;
	}
	for (;;) {
		struct dmg_iter it;
		blk64_t acl;

		if (ext2fs_get_next_inode_full(scan, &ino,
					       (struct ext2_inode *)in, isize))
			break;
		if (ino == 0)
			break;
		if (in->i_links_count == 0 && in->i_mode == 0)
			continue;
		g = ext2fs_group_of_ino(fs, ino);
		b = ext2fs_inode_table_loc(fs, g) +
		    ((ino - 1) % fs->super->s_inodes_per_group) / ipb;
		if (dmg_add(s, DMG_ITABLE, b * bs, bs, b,
			    ino - ((ino - 1) % fs->super->s_inodes_per_group) %
					    ipb))
			goto fail;
		ipos = b * bs +
		       (uint64_t)(((ino - 1) % fs->super->s_inodes_per_group) %
				  ipb) *
			       isize;
		/* the extent tree's root, in i_block */
		if ((in->i_flags & EXT4_EXTENTS_FL) &&
		    !(in->i_flags & EXT4_INLINE_DATA_FL) &&
		    dmg_add_in(s, DMG_EXTENT, ipos + 40, 60, b, ino, ipos))
			goto fail;
		/* in-inode xattrs */
		if (isize > 160 && in->i_extra_isize >= 4 &&
		    128 + (unsigned)in->i_extra_isize + 8 <= isize &&
		    *(uint32_t *)((uint8_t *)in + 128 + in->i_extra_isize) ==
			    ext2fs_cpu_to_le32(EXT2_EXT_ATTR_MAGIC) &&
		    dmg_add_in(s, DMG_XATTR, ipos + 128 + in->i_extra_isize,
			       isize - 128 - in->i_extra_isize, b, ino, ipos))
			goto fail;
		acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)in);
		if (acl && acl < ext2fs_blocks_count(fs->super) &&
		    dmg_add(s, DMG_XATTR, acl * bs, bs, acl, ino))
			goto fail;
		if ((in->i_flags & EXT4_INLINE_DATA_FL) ||
		    ino == EXT2_RESIZE_INO)
			continue;
		if (!LINUX_S_ISDIR(in->i_mode) && !LINUX_S_ISREG(in->i_mode))
			continue;
		memset(&it, 0, sizeof(it));
		it.s = s;
		it.ino = ino;
		it.dir = LINUX_S_ISDIR(in->i_mode);
		it.journal = ino == fs->super->s_journal_inum;
		ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
				      dmg_block, &it);
		if (it.err)
			goto fail;
	}
	ext2fs_close_inode_scan(scan);
	free(in);
	return 0;
fail:
	ext2fs_close_inode_scan(scan);
	free(in);
	return -1;
}

static inline void dmg_areas_free(struct dmg_areas *s)
{
	free(s->a);
	memset(s, 0, sizeof(*s));
}

static inline int dmg_pread(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static inline int dmg_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/*
 * Recompute the checksum of area a as it is now in fd.  Returns 1 when
 * a checksum was written, 0 when there is none to fix (no
 * metadata_csum, a journal block, no room for it in the damaged
 * block), -1 on an I/O error.  The group descriptors are fixed through
 * a handle opened on the damaged image (name): they are checksummed
 * from fs's in-memory copy.
 */
static inline int dmg_fix(ext2_filsys fs, int fd, const char *name,
			  const struct dmg_area *a)
{
	unsigned bs = fs->blocksize, isize = EXT2_INODE_SIZE(fs->super), k;
	uint8_t *buf;
	int ret = 0;

	if (!ext2fs_has_feature_metadata_csum(fs->super) &&
	    !ext2fs_has_feature_gdt_csum(fs->super))
		return 0;
	if (a->kind == DMG_GDT) {
		ext2_filsys fs2;
		blk64_t gdt = fs->super->s_first_data_block + 1;
		dgrp_t g;

		if (ext2fs_open2(name, NULL,
				 EXT2_FLAG_64BITS |
					 EXT2_FLAG_IGNORE_CSUM_ERRORS,
				 0, 0, unix_io_manager, &fs2))
			return 0;
		for (g = 0; g < fs2->group_desc_count; g++)
			ext2fs_group_desc_csum_set(fs2, g);
		if (fs2->desc_blocks == fs->desc_blocks &&
		    dmg_pwrite(fd, fs2->group_desc,
			       (size_t)fs2->desc_blocks * bs, gdt * bs))
			ret = -1;
		else
			ret = 1;
		ext2fs_close_free(&fs2);
		return ret;
	}
	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 0;
	if (a->inode_pos) {
		/* an area of one inode: that inode's checksum */
		buf = malloc(isize);
		if (!buf)
			return -1;
		if (dmg_pread(fd, buf, isize, a->inode_pos)) {
			free(buf);
			return 0;
		}
		ext2fs_inode_csum_set(fs, a->ino,
				      (struct ext2_inode_large *)buf);
		ret = dmg_pwrite(fd, buf, isize, a->inode_pos) ? -1 : 1;
		free(buf);
		return ret;
	}
	buf = malloc(a->len);
	if (!buf)
		return -1;
	if (dmg_pread(fd, buf, a->len, a->off)) {
		free(buf);
		return 0; /* truncated away */
	}
	switch (a->kind) {
	case DMG_SB:
		ext2fs_superblock_csum_set(fs, (struct ext2_super_block *)buf);
		ret = 1;
		break;
	case DMG_ITABLE:
		/* every inode but the unused (all zero) ones */
		for (k = 0; k + isize <= bs; k += isize) {
			unsigned z = 0;

			while (z < isize && !buf[k + z])
				z++;
			if (z < isize)
				ext2fs_inode_csum_set(
					fs, a->ino + k / isize,
					(struct ext2_inode_large *)(buf + k));
		}
		ret = 1;
		break;
	case DMG_DIR:
		ret = ext2fs_dir_block_csum_set(fs, a->ino,
						(struct ext2_dir_entry *)buf)
			      ? 0
			      : 1;
		break;
	case DMG_EXTENT: {
		struct ext3_extent_header *eh = (void *)buf;

		/* a block map (no magic) has no checksum; a damaged
		 * eh_max would put the tail outside the block */
		if (ext2fs_le16_to_cpu(eh->eh_magic) != EXT3_EXT_MAGIC ||
		    12 + 12 * (size_t)ext2fs_le16_to_cpu(eh->eh_max) + 4 > bs)
			break;
		ret = ext2fs_extent_block_csum_set(fs, a->ino, eh) ? 0 : 1;
		break;
	}
	case DMG_XATTR:
		ret = ext2fs_ext_attr_block_csum_set(fs, a->ino, a->block,
						     (void *)buf)
			      ? 0
			      : 1;
		break;
	default: break;
	}
	if (ret == 1 && dmg_pwrite(fd, buf, a->len, a->off))
		ret = -1;
	free(buf);
	return ret;
}

#endif
