/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirscan.c --- reading the entries of one directory, block by block.
 *
 * Unlike ext2fs_dir_iterate2, a corrupted block does not end the
 * directory: it is reported and the next block is read.  A block whose
 * checksum fails is reported and still read, as forensic work wants.
 * htree index blocks read as empty entries and fall out naturally.
 * Inline-data directories go through libext2fs' own iterator.
 *
 * The tree's directory pass reads most directories from a block map it
 * packed while scanning the inode table (e4t_dir_scan_root): a
 * directory of a few blocks then costs a read or two, not an inode read,
 * an extent handle and a block iteration.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "fs/csum_int.h"

struct scan_ctx {
	struct e4t_image *img;
	ext2_ino_t dir;
	e4t_dirent_fn fn;
	e4t_warn_fn warn;
	void *priv;
	char *buf;
	int stop;
	int csum;     /* metadata_csum: check each block */
	int have_gen; /* gen read: leaf blocks checked here */
	int enc;      /* encrypted (fscrypt): names are ciphertext */
	uint32_t gen;
	unsigned long nblocks;
};

static void warn_blk(struct scan_ctx *c, errcode_t err, blk64_t blk,
		     const char *what)
{
	char detail[96];

	if (!c->warn)
		return;
	snprintf(detail, sizeof(detail), "%sblock %llu", what,
		 (unsigned long long)blk);
	c->warn(err, c->dir, detail, c->priv);
}

static int is_dot(const char *name, unsigned len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}

/*
 * Is there a sound run of entries from off to the block's end (or to
 * the checksum tail)?  Each: a rec_len that fits, a name that fits and
 * holds no '/' or NUL (ciphertext may), an inode in range, a file type
 * ext4 writes.  Random bytes do not chain to the block's end.
 */
static int sound_from(const struct scan_ctx *c, unsigned off)
{
	ext2_filsys fs = c->img->fs;
	unsigned bs = fs->blocksize, n = 0;

	while (off < bs) {
		const struct ext2_dir_entry *de =
			(const struct ext2_dir_entry *)(c->buf + off);
		unsigned rec_len, name_len;

		if (off + 8 > bs ||
		    ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)de,
				       &rec_len) ||
		    rec_len < 12 || (rec_len & 3) || off + rec_len > bs)
			return 0;
		name_len = (unsigned)ext2fs_dirent_name_len(de);
		if (c->csum && off + 12 == bs && !de->inode && rec_len == 12 &&
		    !name_len)
			return n > 0; /* the checksum tail */
		if (!name_len || 8 + name_len > rec_len || !de->inode ||
		    de->inode > fs->super->s_inodes_count ||
		    ext2fs_dirent_file_type(de) > EXT2_FT_SYMLINK ||
		    (!c->enc && (memchr(de->name, '/', name_len) ||
				 memchr(de->name, '\0', name_len))))
			return 0;
		off += rec_len;
		n++;
	}
	return n > 0;
}

/*
 * After an entry that cannot be read at off: the first offset past it
 * (4-byte aligned, as entries are) from which the rest of the block is
 * sound, or 0 when none is.  The entries there are read as fsck's
 * salvage and fls read them; the warning says the block was damaged.
 */
static unsigned resync(const struct scan_ctx *c, unsigned off)
{
	unsigned bs = c->img->fs->blocksize;

	for (off = (off + 4) & ~3U; off + 12 <= bs; off += 4)
		if (sound_from(c, off))
			return off;
	return 0;
}

static void parse_block(struct scan_ctx *c, blk64_t blk)
{
	ext2_filsys fs = c->img->fs;
	unsigned bs = fs->blocksize, off = 0;

	while (off + 8 <= bs && !c->stop) {
		struct ext2_dir_entry *de =
			(struct ext2_dir_entry *)(c->buf + off);
		unsigned rec_len, name_len;
		const char *bad = NULL;

		name_len = (unsigned)ext2fs_dirent_name_len(de);
		if (ext2fs_get_rec_len(fs, de, &rec_len) || rec_len < 8 ||
		    (rec_len & 3) || off + rec_len > bs)
			bad = "bad rec_len in ";
		else if (8 + name_len > rec_len)
			bad = "bad name_len in ";
		if (bad) {
			/* the entries after the damage still count */
			off = resync(c, off);
			warn_blk(c, E4T_ERR_DIR_CORRUPT, blk,
				 off ? (bad[4] == 'r' ? "bad rec_len (entries "
							"after it read) in "
						      : "bad name_len (entries "
							"after it read) in ")
				     : bad);
			if (!off)
				return;
			continue;
		}
		if (de->inode && !is_dot(de->name, name_len)) {
			if (name_len == 0 ||
			    (!c->enc && (memchr(de->name, '/', name_len) ||
					 memchr(de->name, '\0', name_len)))) {
				warn_blk(c, E4T_ERR_BAD_NAME, blk,
					 "entry skipped in ");
			} else if (de->inode > fs->super->s_inodes_count) {
				warn_blk(c, E4T_ERR_INO_RANGE, blk,
					 "entry names a bad inode in ");
			} else if (c->fn(c->dir, de->inode, de->name, name_len,
					 (unsigned)ext2fs_dirent_file_type(de),
					 c->priv)) {
				c->stop = 1;
			}
		}
		off += rec_len;
	}
}

/* A block read into c->buf: its checksum, then its entries. */
static void check_block(struct scan_ctx *c, blk64_t blk)
{
	ext2_filsys fs = c->img->fs;

	if (c->csum) {
		/* a leaf block with the instruction, the rest as libext2fs */
		int ok = c->have_gen ? e4t_dirent_csum_verify(fs, c->dir,
							      c->gen, c->buf)
				     : -1;

		if (ok < 0)
			ok = ext2fs_dir_block_csum_verify(
				fs, c->dir, (struct ext2_dir_entry *)c->buf);
		if (!ok)
			warn_blk(c, E4T_ERR_DIR_CSUM, blk, "");
	}
	parse_block(c, blk);
}

/*
 * ext2fs_block_iterate3() callback: its type gives blocknr non-const (a
 * callback may remap the block); this one only reads it.
 */
/* cppcheck-suppress constParameter */
/* NOLINTNEXTLINE(readability-non-const-parameter) */
static int block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		    blk64_t ref_blk, int ref_offset, void *priv)
{
	struct scan_ctx *c = priv;
	blk64_t blk = *blocknr;
	errcode_t err;

	if (blockcnt < 0)
		return 0;
	c->nblocks++;
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super)) {
		warn_blk(c, E4T_ERR_DIR_CORRUPT, blk, "directory names ");
		return 0;
	}
	err = io_channel_read_blk64(fs->io, blk, 1, c->buf);
	if (err) {
		warn_blk(c, err, blk, "reading ");
		return 0;
	}
	check_block(c, blk);
	return c->stop ? BLOCK_ABORT : 0;
}

static int inline_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		     int offset, int blocksize, char *buf, void *priv)
{
	struct scan_ctx *c = priv;
	unsigned name_len = (unsigned)ext2fs_dirent_name_len(de);

	if (entry != DIRENT_OTHER_FILE || !de->inode ||
	    is_dot(de->name, name_len))
		return 0;
	if (de->inode > c->img->fs->super->s_inodes_count) {
		if (c->warn)
			c->warn(E4T_ERR_INO_RANGE, dir,
				"inline entry names a bad inode", c->priv);
		return 0;
	}
	if (c->fn(dir, de->inode, de->name, name_len,
		  (unsigned)ext2fs_dirent_file_type(de), c->priv)) {
		c->stop = 1;
		return DIRENT_ABORT;
	}
	return 0;
}

errcode_t e4t_dir_scan(struct e4t_image *img, ext2_ino_t dir, int inline_data,
		       e4t_dirent_fn fn, e4t_warn_fn warn, void *priv)
{
	struct scan_ctx c = {
		.img = img,
		.dir = dir,
		.fn = fn,
		.warn = warn,
		.priv = priv,
	};
	errcode_t err;

	if (inline_data)
		return ext2fs_dir_iterate2(img->fs, dir,
					   DIRENT_FLAG_INCLUDE_INLINE_DATA,
					   NULL, inline_cb, &c);
	c.buf = malloc(img->fs->blocksize);
	if (!c.buf)
		return ENOMEM;
	c.csum = ext2fs_has_feature_metadata_csum(img->fs->super);
	{
		/* what ext2fs_dir_block_csum_verify() reads for each block,
		 * and whether the names are encrypted */
		struct ext2_inode inode;

		if (!ext2fs_read_inode(img->fs, dir, &inode)) {
			c.have_gen = c.csum;
			c.gen = inode.i_generation;
			c.enc = (inode.i_flags & EXT4_ENCRYPT_FL) != 0;
		}
	}
	err = ext2fs_block_iterate3(img->fs, dir,
				    BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
				    NULL, block_cb, &c);
	free(c.buf);
	if (!err && c.nblocks == 0) {
		/* block_iterate3 says nothing when the extent header is bad */
		struct ext2_inode inode;

		if (!ext2fs_read_inode(img->fs, dir, &inode) &&
		    EXT2_I_SIZE(&inode) > 0)
			err = E4T_ERR_DIR_UNREADABLE;
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Directories whose block map was packed from the inode table scan    */
/* ------------------------------------------------------------------ */

#define ROOT_SLOW     0xff /* e4t_dir_scan reads it */
#define ROOT_ENC      0x40 /* with the count of extents: encrypted names */
#define ROOT_COUNT    0x0f
#define EXT_HDR_MAGIC 0xf30a
#define EXT_INIT_MAX  32768

size_t e4t_dir_root_pack(const struct ext2_inode_large *raw, unsigned char *out)
{
	const struct ext3_extent_header *eh =
		(const struct ext3_extent_header *)raw->i_block;
	const struct ext3_extent *x = (const struct ext3_extent *)(eh + 1);
	uint64_t next = 0;
	unsigned n, i;

	out[0] = ROOT_SLOW;
	if (!(raw->i_flags & EXT4_EXTENTS_FL) ||
	    (raw->i_flags & EXT4_INLINE_DATA_FL) ||
	    ext2fs_le16_to_cpu(eh->eh_magic) != EXT_HDR_MAGIC ||
	    ext2fs_le16_to_cpu(eh->eh_depth) != 0 ||
	    ext2fs_le16_to_cpu(eh->eh_max) != 4)
		return 1;
	n = ext2fs_le16_to_cpu(eh->eh_entries);
	if (n < 1 || n > 4)
		return 1;
	/* what ext2fs_block_iterate3 walks in the same order: sorted,
	 * not overlapping, initialized extents */
	for (i = 0; i < n; i++) {
		uint32_t lblk = ext2fs_le32_to_cpu(x[i].ee_block);
		unsigned len = ext2fs_le16_to_cpu(x[i].ee_len);

		if (len == 0 || len > EXT_INIT_MAX || lblk < next)
			return 1;
		next = (uint64_t)lblk + len;
	}
	out[0] = (unsigned char)n;
	if (raw->i_flags & EXT4_ENCRYPT_FL)
		out[0] |= ROOT_ENC;
	memcpy(out + 1, &raw->i_generation, 4);
	for (i = 0; i < n; i++) {
		uint32_t lblk = ext2fs_le32_to_cpu(x[i].ee_block);
		uint16_t len = ext2fs_le16_to_cpu(x[i].ee_len);
		uint64_t start = ext2fs_le32_to_cpu(x[i].ee_start) |
				 (uint64_t)ext2fs_le16_to_cpu(x[i].ee_start_hi)
					 << 32;
		unsigned char *p = out + 5 + (size_t)12 * i;

		memcpy(p, &lblk, 4);
		memcpy(p + 4, &len, 2);
		memcpy(p + 6, &start, 6); /* 48 bits, little-endian host */
	}
	return 5 + 12 * (size_t)n;
}

size_t e4t_dir_root_len(const unsigned char *root)
{
	return root[0] == ROOT_SLOW ? 1
				    : 5 + 12 * (size_t)(root[0] & ROOT_COUNT);
}

/* Run i of block map p: its first block and length. */
static void root_run(const unsigned char *p, unsigned i, uint64_t *start,
		     uint16_t *len)
{
	const unsigned char *x = p + 5 + (size_t)12 * i;

	*start = 0;
	memcpy(len, x + 4, 2);
	memcpy(start, x + 6, 6);
}

#define AHEAD_GAP (16U << 10) /* bytes read between two runs, unneeded */
#define AHEAD_MIN (64U << 10) /* the first read ahead */

void e4t_dir_ahead(struct e4t_image *img, struct e4t_dir_ahead *a,
		   const unsigned char *root, const unsigned char *end)
{
	ext2_filsys fs = img->fs;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t count = ext2fs_blocks_count(fs->super);
	blk64_t gap = AHEAD_GAP / fs->blocksize, s, e;
	const unsigned char *p;
	uint64_t start, last;
	uint16_t len, last_len;
	int more = 1;

	if (!a->mem || !a->cap || root >= end || root[0] == ROOT_SLOW ||
	    !(root[0] & ROOT_COUNT))
		return;
	root_run(root, 0, &start, &len);
	if (start >= a->start && start + len <= a->start + a->n)
		return; /* held */
	/* As far ahead as the directories come in the order of their
	 * blocks: twice as far each time the one wanted starts where the
	 * last ended, not at all when it does not (a walk in hash order) */
	if (!a->last_end || start < a->last_end || start - a->last_end > gap)
		a->want = 0;
	else if (a->want)
		a->want = a->want < a->cap / 2 ? 2 * a->want : a->cap;
	else
		a->want = AHEAD_MIN > fs->blocksize ? AHEAD_MIN / fs->blocksize
						    : 1;
	a->n = 0;
	root_run(root, (root[0] & ROOT_COUNT) - 1U, &last, &last_len);
	a->last_end = last + last_len;
	if (!a->want || start < first || start >= count || len > a->cap ||
	    count - start < len)
		return;
	s = start;
	e = start + len;
	for (p = root; p < end && more; p += e4t_dir_root_len(p)) {
		unsigned n = p[0] == ROOT_SLOW ? 0 : p[0] & ROOT_COUNT, i;

		for (i = (p == root) ? 1 : 0; i < n && more; i++) {
			root_run(p, i, &start, &len);
			if (start >= s && start + len <= e)
				continue;
			if (start < e || start - e > gap || start >= count ||
			    count - start < len || start + len - s > a->want)
				more = 0;
			else
				e = start + len;
		}
	}
	if (e > a->last_end)
		a->last_end = e;
	if (e - s < 2)
		return; /* one block: read where it is needed */
	if (io_channel_read_blk64(fs->io, s, (int)(e - s), a->mem))
		return;
	a->start = s;
	a->n = (unsigned)(e - s);
}

errcode_t e4t_dir_scan_root(struct e4t_image *img, ext2_ino_t dir,
			    const unsigned char *root,
			    const struct e4t_dir_ahead *ahead, char *buf,
			    unsigned bufblocks, e4t_dirent_fn fn,
			    e4t_warn_fn warn, void *priv)
{
	struct scan_ctx c = {
		.img = img,
		.dir = dir,
		.fn = fn,
		.warn = warn,
		.priv = priv,
		.have_gen = 1,
	};
	ext2_filsys fs = img->fs;
	unsigned bs = fs->blocksize, n = root[0] & ROOT_COUNT, i;
	blk64_t first = fs->super->s_first_data_block;
	blk64_t count = ext2fs_blocks_count(fs->super);

	if (root[0] == ROOT_SLOW)
		return e4t_dir_scan(img, dir, 0, fn, warn, priv);
	c.enc = (root[0] & ROOT_ENC) != 0;
	memcpy(&c.gen, root + 1, 4);
	c.csum = ext2fs_has_feature_metadata_csum(fs->super);
	for (i = 0; i < n && !c.stop; i++) {
		uint64_t start;
		uint16_t len;
		unsigned j = 0;

		root_run(root, i, &start, &len);
		while (j < len && !c.stop) {
			blk64_t blk = start + j;
			unsigned k = 0, b;
			errcode_t err;
			char *held;

			if (blk < first || blk >= count) {
				c.nblocks++;
				warn_blk(&c, E4T_ERR_DIR_CORRUPT, blk,
					 "directory names ");
				j++;
				continue;
			}
			/* a run of blocks inside the filesystem */
			while (j + k < len && k < bufblocks &&
			       start + j + k < count)
				k++;
			if (ahead && blk >= ahead->start &&
			    blk + k <= ahead->start + ahead->n) {
				held = ahead->mem +
				       (size_t)(blk - ahead->start) * bs;
				err = 0;
			} else {
				held = buf;
				err = io_channel_read_blk64(fs->io, blk, (int)k,
							    buf);
			}
			for (b = 0; b < k && !c.stop; b++) {
				c.nblocks++;
				c.buf = held + (size_t)b * bs;
				/* a run that failed: block by block, to name
				 * the one that cannot be read */
				if (err) {
					errcode_t e = io_channel_read_blk64(
						fs->io, blk + b, 1, c.buf);

					if (e) {
						warn_blk(&c, e, blk + b,
							 "reading ");
						continue;
					}
				}
				check_block(&c, blk + b);
			}
			j += k;
		}
	}
	return 0;
}
