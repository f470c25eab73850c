/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inode.c --- what e4time reads of one inode: stat fields, raw time words,
 * and which of them the inode actually stores.
 *
 * An _extra field exists only when i_extra_isize covers it (the kernel's
 * EXT4_FITS_IN_INODE); crtime only when both i_crtime and i_crtime_extra
 * are covered.  128-byte inodes store no _extra field and no crtime.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "e4time.h"

#define GOOD_OLD_INODE_SIZE 128U

/* Does the large-inode field ending at byte 'end' fit? */
static int fits(unsigned extra_isize, size_t end)
{
	return end <= GOOD_OLD_INODE_SIZE + extra_isize;
}

#define FIELD_END(f)                                                           \
	(offsetof(struct ext2_inode_large, f) +                                \
	 sizeof(((struct ext2_inode_large *)0)->f))

uint16_t e4t_inode_present(unsigned inode_size, unsigned extra_isize)
{
	uint16_t p = E4T_PRESENT(E4T_ATIME) | E4T_PRESENT(E4T_MTIME) |
		     E4T_PRESENT(E4T_CTIME) | E4T_PRESENT(E4T_DTIME);
	unsigned extra = 0;

	if (inode_size > GOOD_OLD_INODE_SIZE) {
		extra = extra_isize;
		if (GOOD_OLD_INODE_SIZE + extra > inode_size || (extra & 3))
			extra = 0;
	}
	if (fits(extra, FIELD_END(i_ctime_extra)))
		p |= E4T_PRESENT_EXTRA(E4T_CTIME);
	if (fits(extra, FIELD_END(i_mtime_extra)))
		p |= E4T_PRESENT_EXTRA(E4T_MTIME);
	if (fits(extra, FIELD_END(i_atime_extra)))
		p |= E4T_PRESENT_EXTRA(E4T_ATIME);
	if (fits(extra, FIELD_END(i_crtime_extra)))
		p |= E4T_PRESENT(E4T_CRTIME) | E4T_PRESENT_EXTRA(E4T_CRTIME);
	return p;
}

void e4t_inode_decode(const struct ext2_inode_large *raw, unsigned inode_size,
		      ext2_ino_t ino, struct e4t_inode *info)
{
	e4t_inode_decode_fields(raw, inode_size, ino, info);
	e4t_inode_decode_times(info);
}

void e4t_inode_decode_fields(const struct ext2_inode_large *raw,
			     unsigned inode_size, ext2_ino_t ino,
			     struct e4t_inode *info)
{
	unsigned extra = 0;

	memset(info, 0, sizeof(*info));
	info->ino = ino;
	info->mode = raw->i_mode;
	info->links = raw->i_links_count;
	info->uid =
		raw->i_uid | ((uint32_t)raw->osd2.linux2.l_i_uid_high << 16);
	info->gid =
		raw->i_gid | ((uint32_t)raw->osd2.linux2.l_i_gid_high << 16);
	info->size = raw->i_size | ((uint64_t)raw->i_size_high << 32);
	info->iflags = raw->i_flags;
	info->generation = raw->i_generation;
	info->flags |= E4T_INO_GEN;
	info->inode_size = (uint16_t)inode_size;
	if (raw->i_flags & EXT4_INLINE_DATA_FL)
		info->flags |= E4T_INO_INLINE;

	info->present = E4T_PRESENT(E4T_ATIME) | E4T_PRESENT(E4T_MTIME) |
			E4T_PRESENT(E4T_CTIME) | E4T_PRESENT(E4T_DTIME);
	info->raw_base[E4T_ATIME] = raw->i_atime;
	info->raw_base[E4T_MTIME] = raw->i_mtime;
	info->raw_base[E4T_CTIME] = raw->i_ctime;
	info->raw_base[E4T_DTIME] = raw->i_dtime;

	if (inode_size > GOOD_OLD_INODE_SIZE) {
		info->extra_isize = raw->i_extra_isize;
		extra = raw->i_extra_isize;
		/* The kernel refuses such an inode (EFSCORRUPTED). */
		if (GOOD_OLD_INODE_SIZE + extra > inode_size || (extra & 3)) {
			info->flags |= E4T_INO_EXTRA_BAD;
			extra = 0;
		}
	}
	if (fits(extra, FIELD_END(i_ctime_extra))) {
		info->present |= E4T_PRESENT_EXTRA(E4T_CTIME);
		info->raw_extra[E4T_CTIME] = raw->i_ctime_extra;
	}
	if (fits(extra, FIELD_END(i_mtime_extra))) {
		info->present |= E4T_PRESENT_EXTRA(E4T_MTIME);
		info->raw_extra[E4T_MTIME] = raw->i_mtime_extra;
	}
	if (fits(extra, FIELD_END(i_atime_extra))) {
		info->present |= E4T_PRESENT_EXTRA(E4T_ATIME);
		info->raw_extra[E4T_ATIME] = raw->i_atime_extra;
	}
	if (fits(extra, FIELD_END(i_crtime_extra))) {
		info->present |=
			E4T_PRESENT(E4T_CRTIME) | E4T_PRESENT_EXTRA(E4T_CRTIME);
		info->raw_base[E4T_CRTIME] = raw->i_crtime;
		info->raw_extra[E4T_CRTIME] = raw->i_crtime_extra;
	}
}

void e4t_inode_decode_times(struct e4t_inode *info)
{
	int f;

	for (f = 0; f < E4T_NFIELDS; f++) {
		struct e4t_ts *ts = &info->ts[f];

		if (!(info->present & E4T_PRESENT(f))) {
			memset(ts, 0, sizeof(*ts));
			continue;
		}
		if (f == E4T_DTIME) {
			/* i_dtime is an unsigned 32-bit count, no _extra. */
			ts->sec = info->raw_base[f];
			ts->nsec = 0;
			ts->flags = E4T_TS_STORED;
			if (info->raw_base[f] == 0)
				ts->flags |= E4T_TS_ZERO;
			else if (info->links > 0 ||
				 (info->flags & E4T_INO_ORPHAN_LIST))
				ts->flags |= E4T_TS_ORPHAN_LINK;
			continue;
		}
		e4t_ts_decode(info->raw_base[f],
			      (info->present & E4T_PRESENT_EXTRA(f))
				      ? &info->raw_extra[f]
				      : NULL,
			      ts);
	}
}

const char *e4t_inode_not_stored_reason(const struct e4t_inode *info,
					enum e4t_field f)
{
	if (info->ts[f].flags & E4T_TS_STORED)
		return NULL;
	if (info->inode_size <= GOOD_OLD_INODE_SIZE)
		return "128-byte inodes have no crtime";
	if (info->flags & E4T_INO_EXTRA_BAD)
		return "i_extra_isize is impossible";
	if (info->mode == 0 && info->links == 0)
		return "inode not in use";
	return "i_extra_isize < 24: too small to hold crtime";
}

char e4t_mode_type_char(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return 'r';
	case 0040000: return 'd';
	case 0120000: return 'l';
	case 0010000: return 'p';
	case 0020000: return 'c';
	case 0060000: return 'b';
	case 0140000: return 's';
	default: return '-';
	}
}

const char *e4t_mode_type_name(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return "reg";
	case 0040000: return "dir";
	case 0120000: return "lnk";
	case 0010000: return "fifo";
	case 0020000: return "chr";
	case 0060000: return "blk";
	case 0140000: return "sock";
	default: return "unknown";
	}
}

/* A raw on-disk inode: see e4time.h. */
void e4t_inode_decode_disk_fields(const uint8_t *raw, unsigned len,
				  unsigned inode_size, ext2_ino_t ino,
				  struct e4t_inode *info)
{
	struct ext2_inode_large tmp;
	size_t n = inode_size < sizeof(tmp) ? inode_size : sizeof(tmp);

	memset(&tmp, 0, sizeof(tmp));
	memcpy(&tmp, raw, len < n ? len : n);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_inode_full(NULL, &tmp, &tmp, 0, (int)n);
#endif
	e4t_inode_decode_fields(&tmp, inode_size, ino, info);
}

void e4t_inode_decode_disk(const uint8_t *raw, unsigned len,
			   unsigned inode_size, ext2_ino_t ino,
			   struct e4t_inode *info)
{
	e4t_inode_decode_disk_fields(raw, len, inode_size, ino, info);
	e4t_inode_decode_times(info);
}
