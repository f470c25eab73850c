/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * extra_isize.c --- grow an inode's i_extra_isize to what the kernel
 * wants (32, or the superblock's s_want_extra_isize: room for crtime,
 * i_version_hi and i_projid), as the kernel's ext4_expand_extra_isize()
 * does when it writes an inode of a filesystem made with a smaller one:
 * the xattrs stored in the inode after i_extra_isize are laid out again
 * after the new one, or moved to the xattr block when they no longer
 * fit.  The layout is libext2fs' (ext2fs_xattr_set() places each xattr
 * in the inode when it fits, else in the block, as it does for debugfs
 * and e2fsck); e4time does not lay xattrs out itself.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define GROW_MIN 32 /* the kernel's sizeof(struct ext4_inode) - 128 */

/*
 * What the kernel grows inodes to (ext4_fill_super()): 32, or the
 * superblock's s_want_extra_isize or s_min_extra_isize when larger and the
 * filesystem has the extra_isize feature, or 32 again when the inodes
 * cannot hold that.
 */
unsigned e4t_want_extra_isize(const struct ext2_super_block *sb)
{
	unsigned want = GROW_MIN;

	if (sb->s_feature_ro_compat & EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE) {
		if (sb->s_want_extra_isize > want)
			want = sb->s_want_extra_isize;
		if (sb->s_min_extra_isize > want)
			want = sb->s_min_extra_isize;
	}
	if (EXT2_GOOD_OLD_INODE_SIZE + want > EXT2_INODE_SIZE(sb))
		want = GROW_MIN;
	return want;
}

struct xa {
	char *name;
	void *val;
	size_t len;
};

struct xa_list {
	struct xa *a;
	size_t n, cap;
	errcode_t err;
};

static int collect(char *name, char *value, size_t value_len, void *data)
{
	struct xa_list *l = data;
	struct xa *x;

	if (e4t_grow(&l->a, &l->cap, l->n + 1, sizeof(*l->a), 8))
		goto nomem;
	x = &l->a[l->n];
	x->name = strdup(name);
	x->val = malloc(value_len ? value_len : 1);
	if (!x->name || !x->val) {
		free(x->name);
		free(x->val);
		goto nomem;
	}
	memcpy(x->val, value, value_len);
	x->len = value_len;
	l->n++;
	return 0;
nomem:
	l->err = ENOMEM;
	return XATTR_ABORT;
}

static void free_list(struct xa_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->a[i].name);
		free(l->a[i].val);
	}
	free(l->a);
}

/* ino's xattrs, raw (ACLs as on disk), read into a handle. */
static errcode_t open_raw(ext2_filsys fs, ext2_ino_t ino,
			  struct ext2_xattr_handle **h)
{
	unsigned int flags = XATTR_HANDLE_FLAG_RAW;
	errcode_t err = ext2fs_xattrs_open(fs, ino, h);

	if (err)
		return err;
	err = ext2fs_xattrs_flags(*h, &flags, NULL);
	if (!err)
		err = ext2fs_xattrs_read(*h);
	if (err)
		ext2fs_xattrs_close(h);
	return err;
}

/* Every xattr of ino, raw, into l. */
static errcode_t read_all(ext2_filsys fs, ext2_ino_t ino, struct xa_list *l)
{
	struct ext2_xattr_handle *h;
	errcode_t err = open_raw(fs, ino, &h);

	if (err)
		return err;
	err = ext2fs_xattrs_iterate(h, collect, l);
	if (!err)
		err = l->err;
	ext2fs_xattrs_close(&h);
	return err;
}

/* Put back the xattrs of l that the inode lost (those that were in it). */
static errcode_t put_back(ext2_filsys fs, ext2_ino_t ino,
			  const struct xa_list *l)
{
	struct ext2_xattr_handle *h;
	errcode_t err = open_raw(fs, ino, &h), cerr;
	size_t i;

	if (err)
		return err;
	for (i = 0; i < l->n && !err; i++) {
		void *v = NULL;
		size_t len;

		/* still there: it was in the xattr block */
		if (!ext2fs_xattr_get(h, l->a[i].name, &v, &len)) {
			ext2fs_free_mem(&v);
			continue;
		}
		err = ext2fs_xattr_set(h, l->a[i].name, l->a[i].val,
				       l->a[i].len);
	}
	cerr = ext2fs_xattrs_close(&h);
	return err ? err : cerr;
}

/* Can raw be grown to want?  0, or why not; *in_body: xattrs in the
 * inode. */
static errcode_t growable(const struct ext2_inode_large *raw, unsigned isz,
			  unsigned want, int *in_body)
{
	unsigned old = raw->i_extra_isize;
	uint32_t magic;

	*in_body = 0;
	if (isz < EXT2_GOOD_OLD_INODE_SIZE + want)
		return E4T_ERR_GROW_SIZE;
	if (raw->i_flags & EXT4_INLINE_DATA_FL)
		return E4T_ERR_GROW_INLINE;
	if ((old & 3) || EXT2_GOOD_OLD_INODE_SIZE + old > isz)
		return EXT2_ET_INODE_CORRUPTED;
	/* xattrs in the inode: as libext2fs and the kernel find them */
	if (old >= 4 && EXT2_GOOD_OLD_INODE_SIZE + old + 4 <= isz) {
		memcpy(&magic,
		       (const char *)raw + EXT2_GOOD_OLD_INODE_SIZE + old,
		       sizeof(magic));
		*in_body = magic == EXT2_EXT_ATTR_MAGIC;
	}
	return 0;
}

/* The inode grown in place to want, its xattr space empty, crtime set
 * (crtime NULL: kept, it is stored already). */
static void grow_in_place(struct ext2_inode_large *raw, unsigned isz,
			  unsigned want, const uint32_t *crtime)
{
	unsigned old = raw->i_extra_isize;

	memset((char *)raw + EXT2_GOOD_OLD_INODE_SIZE + old, 0,
	       isz - EXT2_GOOD_OLD_INODE_SIZE - old);
	raw->i_extra_isize = (uint16_t)want;
	if (crtime) {
		raw->i_crtime = crtime[0];
		raw->i_crtime_extra = crtime[1];
	}
}

/* crtime's words, or none: it must be stored already. */
static errcode_t crtime_words(const struct ext2_inode_large *raw,
			      const struct e4t_ts *crtime, uint32_t *w)
{
	if (crtime)
		return e4t_ts_encode(crtime->sec, crtime->nsec, &w[0], &w[1]);
	/* i_crtime_extra ends at 24 */
	return raw->i_extra_isize < 24 ? E4T_ERR_NO_CRTIME_ROOM : 0;
}

errcode_t e4t_grow_raw(struct ext2_inode_large *raw, unsigned isz,
		       unsigned want, const struct e4t_ts *crtime)
{
	uint32_t w[2];
	int in_body;
	errcode_t err;

	err = growable(raw, isz, want, &in_body);
	if (!err && in_body)
		err = E4T_ERR_GROW_XATTRS;
	if (!err)
		err = crtime_words(raw, crtime, w);
	if (err || raw->i_extra_isize >= want)
		return err;
	grow_in_place(raw, isz, want, crtime ? w : NULL);
	return 0;
}

/*
 * Hold back the writes of ino's inode-table block (the undo I/O manager
 * does; 1 when it cannot).  Its xattrs are emptied, then put back,
 * perhaps into a new block: the image sees only the inode's last state,
 * written after that block and the bitmaps, or never, when putting them
 * back failed.  Used where there is no journal to write through.
 */
static int hold(ext2_filsys fs, ext2_ino_t ino)
{
	dgrp_t g = (ino - 1) / fs->super->s_inodes_per_group;
	uint64_t idx = (ino - 1) % fs->super->s_inodes_per_group;
	uint64_t blk = ext2fs_inode_table_loc(fs, g) +
		       idx * EXT2_INODE_SIZE(fs->super) / fs->blocksize;
	char opt[64];

	snprintf(opt, sizeof(opt), "e4t_hold=%llu:%u",
		 (unsigned long long)blk * fs->blocksize, fs->blocksize);
	return io_channel_set_options(fs->io, opt) ? 1 : 0;
}

/*
 * The blocks libext2fs allocates while an inode grows (an xattr block),
 * noted through its allocation callback: when the growth fails, they are
 * given back in memory (bitmap, group and superblock counts), so that
 * nothing written later (the bitmaps at close) marks them in use.
 */
#define MAX_ALLOCS 4

struct allocs {
	blk64_t blk[MAX_ALLOCS];
	unsigned n;
	int lost; /* more than MAX_ALLOCS: some not noted */
};

static struct allocs *cur_allocs;
static void (*prev_cb)(ext2_filsys fs, blk64_t blk, int inuse);

static void note_alloc(ext2_filsys fs, blk64_t blk, int inuse)
{
	if (cur_allocs && inuse > 0) {
		if (cur_allocs->n < MAX_ALLOCS)
			cur_allocs->blk[cur_allocs->n++] = blk;
		else
			cur_allocs->lost = 1;
	}
	if (prev_cb)
		prev_cb(fs, blk, inuse);
}

/*
 * Grow ino (read into raw) to want, its in-body xattrs l put back, crtime
 * w (or NULL), in one transaction through the journal when use_txn and
 * the channel takes one, else with its inode-table block held back.
 * Failed, nothing is left in memory of what it allocated, and the image
 * has the inode as it was (a block it allocated may be left marked in
 * use on the image, never one in use marked free).
 */
static errcode_t grow_once(ext2_filsys fs, ext2_ino_t ino,
			   struct ext2_inode_large *raw, unsigned isz,
			   unsigned want, const uint32_t *w,
			   const struct xa_list *l, int in_body, int use_txn)
{
	struct allocs al = { { 0 }, 0, 0 };
	struct ext2_super_block sb, orig;
	int held = 0, txn = 0, dirty, wrote_bitmaps = 0;
	blk64_t acl;
	errcode_t err, cerr;

	/*
	 * The whole change (inode, xattr block, bitmaps, group descriptors,
	 * superblock counts) one transaction through the journal; without
	 * one, the inode-table block held back.
	 */
	txn = use_txn && !io_channel_set_options(fs->io, "e4t_txn=begin");
	if (!txn)
		held = in_body && !hold(fs, ino);
	dirty = fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY);
	/* ext2fs_flush() below changes both: an aborted transaction puts
	 * them back, as the image has them */
	memcpy(&sb, fs->super, sizeof(sb));
	if (fs->orig_super)
		memcpy(&orig, fs->orig_super, sizeof(orig));
	cur_allocs = &al;
	ext2fs_set_block_alloc_stats_callback(fs, note_alloc, &prev_cb);
	acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)raw);
	grow_in_place(raw, isz, want, w);
	err = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)raw,
				      (int)isz);
	ext2fs_flush_icache(fs);
	if (!err && in_body)
		err = put_back(fs, ino, l);
	ext2fs_flush_icache(fs);
	/* a new xattr block: marked in use before (or with) the inode
	 * that points to it */
	if (!err && (txn || held) &&
	    ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)raw,
				   (int)isz) == 0 &&
	    ext2fs_file_acl_block(fs, (struct ext2_inode *)raw) != acl) {
		wrote_bitmaps = !txn;
		err = ext2fs_write_bitmaps(fs);
		if (!err)
			err = ext2fs_flush(fs);
	}
	ext2fs_set_block_alloc_stats_callback(fs, prev_cb, NULL);
	cur_allocs = NULL;
	if (txn) {
		cerr = io_channel_set_options(fs->io, err ? "e4t_txn=abort"
							  : "e4t_txn=commit");
		if (!err)
			err = cerr;
	} else if (held) {
		/* failed: the inode is never written without its xattrs */
		cerr = io_channel_set_options(fs->io, err ? "e4t_hold=drop"
							  : "e4t_hold=release");
		if (!err)
			err = cerr;
	}
	ext2fs_flush_icache(fs);
	if (err && (txn || held)) {
		unsigned k;

		/* What was allocated is free again in memory; on the image
		 * it never was in use, or (bitmaps written, the inode not)
		 * the bitmaps written at close free it again. */
		for (k = 0; k < al.n; k++)
			ext2fs_block_alloc_stats2(fs, al.blk[k], -1);
		if (txn && !al.lost) {
			memcpy(fs->super, &sb, sizeof(sb));
			if (fs->orig_super)
				memcpy(fs->orig_super, &orig, sizeof(orig));
		}
		if (!dirty && !wrote_bitmaps && !al.lost)
			fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY);
	}
	return err;
}

errcode_t e4t_inode_grow_extra(struct e4t_image *img, ext2_ino_t ino,
			       const struct e4t_ts *crtime)
{
	ext2_filsys fs = img->fs;
	unsigned isz = img->inode_size, want = e4t_want_extra_isize(fs->super);
	struct ext2_inode_large *raw;
	struct xa_list l = { 0 };
	uint32_t w[2];
	int in_body = 0;
	errcode_t err;

	if (!img->writable)
		return EXT2_ET_RO_FILSYS;
	if (ino < 1 || ino > fs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	raw = calloc(1, isz < sizeof(*raw) ? sizeof(*raw) : isz);
	if (!raw)
		return ENOMEM;
	err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)raw,
				     (int)isz);
	if (!err)
		err = growable(raw, isz, want, &in_body);
	if (!err)
		err = crtime_words(raw, crtime, w);
	if (err || raw->i_extra_isize >= want)
		goto out;
	if (in_body) {
		err = read_all(fs, ino, &l);
		if (err)
			goto out;
	}
	err = grow_once(fs, ino, raw, isz, want, crtime ? w : NULL, &l, in_body,
			1);
	if (err == EXT2_ET_JOURNAL_TOO_SMALL) {
		/* more than the journal takes: written without it */
		err = ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)raw,
					     (int)isz);
		if (!err)
			err = grow_once(fs, ino, raw, isz, want,
					crtime ? w : NULL, &l, in_body, 0);
	}
	if (!err)
		img->written++;
out:
	free_list(&l);
	free(raw);
	return err;
}
