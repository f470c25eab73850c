/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slack.c --- deleted directory entries left in the slack of directory
 * blocks: the bytes after each live entry's name, up to the end of its
 * record.  Unlinking an entry that is not first in its block adds its
 * record to the one before; its bytes stay until something overwrites
 * them (Linux before 5.13, and e2fsprogs' ext2fs_unlink() to this day;
 * Linux 5.13 and later zero them).
 *
 * A candidate is kept only when all of its fields agree: the inode in
 * [first inode, inodes count], a name of 1 to 255 bytes with neither NUL
 * nor '/' (and not "." or ".."), a record length that is a multiple of 4,
 * holds the name and ends within the gap, and, with the filetype
 * feature, a file type of 1 to 7.  A record whose inode number is 0
 * (the first of a block, which an unlink cannot merge into the one
 * before: Linux before 5.13 and ext2fs_unlink() zero its inode and leave
 * its name; or one a tool zeroed) is kept the same way, as inode 0, when
 * the caller asks (e4t_slack_geom.noino).  In an encrypted (fscrypt)
 * directory a name is ciphertext: any bytes, 16 to 252 of them in steps
 * of 4 (the padding) or 255.  htree index blocks (the root, block
 * 0 of an indexed directory, and the nodes) are never parsed: their
 * hash entries would read as names.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4time.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* As ext2fs_get_rec_len(): 65536-byte blocks code their length. */
static unsigned rec_len_of(const unsigned char *p, unsigned len)
{
	unsigned rl = le16(p + 4);

	if (len < 65536)
		return rl;
	if (rl == 65535 || rl == 0)
		return 65536;
	return (rl & 65532) | ((rl & 3) << 16);
}

static unsigned round4(unsigned n)
{
	return (n + 3) & ~3U;
}

/* Is the candidate at p (with end - p bytes before the gap ends) whole? */
static int candidate_ok(const unsigned char *p, unsigned room,
			const struct e4t_slack_geom *g)
{
	uint32_t ino = le32(p);
	unsigned nl = p[6], ft = p[7], rl;
	const char *name = (const char *)p + 8;

	if (room < 9 || nl == 0 || 8 + nl > room)
		return 0;
	if (ino ? ino < g->first_ino || ino > g->inodes_count : !g->noino)
		return 0;
	rl = rec_len_of(p, g->len);
	if ((rl & 3) || rl < round4(8 + nl) || rl > room)
		return 0;
	if (g->filetype && (ft < 1 || ft > 7))
		return 0;
	if (g->enc) /* ciphertext: any bytes, of a length fscrypt writes */
		return nl >= 16 && (nl % 4 == 0 || nl == 255);
	if (memchr(name, '\0', nl) || memchr(name, '/', nl))
		return 0;
	if ((nl == 1 && name[0] == '.') ||
	    (nl == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	return 1;
}

/* The candidates between off and end, nested ones included. */
static int scan_gap(const unsigned char *buf, unsigned off, unsigned end,
		    const struct e4t_slack_geom *g, e4t_slack_parse_fn fn,
		    void *priv)
{
	unsigned p = round4(off);

	while (p + 9 <= end) {
		const unsigned char *c = buf + p;

		if (!candidate_ok(c, end - p, g)) {
			p += 4;
			continue;
		}
		if (fn(le32(c), (const char *)c + 8, c[6], c[7], p, priv))
			return 1;
		p += round4(8 + c[6]);
	}
	return 0;
}

int e4t_slack_parse(const unsigned char *buf, const struct e4t_slack_geom *g,
		    e4t_slack_parse_fn fn, e4t_slack_parse_fn live, void *priv)
{
	unsigned off = 0, len = g->len;

	while (off + 8 <= len) {
		const unsigned char *de = buf + off;
		unsigned rl = rec_len_of(de, len), nl = de[6];

		if (rl < 8 || (rl & 3) || rl > len - off || 8 + nl > rl)
			return 0; /* the chain is broken: trust nothing after */
		if (live && le32(de) && nl &&
		    live(le32(de), (const char *)de + 8, nl, de[7], off, priv))
			return 1;
		/* a record whose inode was zeroed, its name left */
		if (!le32(de) && nl && g->noino && candidate_ok(de, rl, g) &&
		    fn(0, (const char *)de + 8, nl, de[7], off, priv))
			return 1;
		if (scan_gap(buf, off + 8 + nl, off + rl, g, fn, priv))
			return 1;
		off += rl;
	}
	return 0;
}

int e4t_slack_dx_node(const unsigned char *buf, unsigned len, int csum)
{
	unsigned limit, count;

	if (len < 16 || le32(buf) != 0 || rec_len_of(buf, len) != len ||
	    buf[6] != 0)
		return 0;
	limit = le16(buf + 8);
	count = le16(buf + 10);
	return limit == (len - 8 - (csum ? 8 : 0)) / 8 && count <= limit;
}

/* The system.data xattr in the body of a raw inode (e4time.h). */
unsigned e4t_inline_data_xattr(const unsigned char *raw, unsigned isize,
			       unsigned *len)
{
	unsigned start, p, end = isize;

	*len = 0;
	if (isize <= EXT2_GOOD_OLD_INODE_SIZE + 4)
		return 0;
	start = EXT2_GOOD_OLD_INODE_SIZE + le16(raw + 0x80);
	if ((start & 3) || start + 4 > end || le32(raw + start) != 0xEA020000)
		return 0;
	start += 4; /* value offsets count from the first entry */
	for (p = start; p + 16 <= end && le32(raw + p);) {
		unsigned nl = raw[p], index = raw[p + 1];
		unsigned voff = le16(raw + p + 2);
		uint32_t vino = le32(raw + p + 4), vsize = le32(raw + p + 8);

		if (p + 16 + nl > end)
			return 0;
		if (index == 7 && nl == 4 && !memcmp(raw + p + 16, "data", 4) &&
		    !vino) {
			if (vsize < 8 || voff > end - start ||
			    vsize > end - start - voff)
				return 0;
			*len = vsize;
			return start + voff;
		}
		p += (16 + nl + 3) & ~3U;
	}
	return 0;
}

/* One directory's candidates, and its live names to tell copies apart. */
struct name_rec {
	ext2_ino_t ino;
	unsigned name_len, file_type;
	size_t name_off;
	const char *name; /* set once every name is in */
	size_t seq;
	blk64_t blk;
	unsigned offset;
	int live;
};

struct slack_ctx {
	struct e4t_image *img;
	ext2_ino_t dir;
	struct name_rec *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	blk64_t blk;
	errcode_t err;
	int enc; /* the directory is encrypted */
};

static int add_name(struct slack_ctx *c, ext2_ino_t ino, const char *name,
		    unsigned nl, unsigned ft, unsigned off, int live)
{
	struct name_rec *r;

	if (e4t_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v), 64) ||
	    e4t_grow((void **)&c->names, &c->names_cap, c->names_len + nl, 1,
		     1024)) {
		c->err = ENOMEM;
		return 1;
	}
	r = &c->v[c->n++];
	r->ino = ino;
	r->name_len = nl;
	r->file_type = ft;
	r->name_off = c->names_len;
	r->blk = c->blk;
	r->offset = off;
	r->live = live;
	memcpy(c->names + c->names_len, name, nl);
	c->names_len += nl;
	return 0;
}

static int on_cand(ext2_ino_t ino, const char *name, unsigned nl, unsigned ft,
		   unsigned off, void *priv)
{
	return add_name(priv, ino, name, nl, ft, off, 0);
}

static int on_live(ext2_ino_t ino, const char *name, unsigned nl, unsigned ft,
		   unsigned off, void *priv)
{
	return add_name(priv, ino, name, nl, ft, off, 1);
}

static void geom_init(const struct slack_ctx *c, unsigned len,
		      struct e4t_slack_geom *g)
{
	struct ext2_super_block *sb = c->img->fs->super;

	g->len = len;
	g->first_ino = EXT2_FIRST_INODE(sb);
	g->inodes_count = sb->s_inodes_count;
	g->filetype = ext2fs_has_feature_filetype(sb);
	g->noino = 1;
	g->enc = c->enc;
}

struct blk_ctx {
	struct slack_ctx *c;
	unsigned char *buf;
	int indexed;
};

/* cppcheck-suppress constParameter */
/* NOLINTNEXTLINE(readability-non-const-parameter) */
static int slack_block_cb(ext2_filsys fs, blk64_t *blocknr,
			  e2_blkcnt_t blockcnt, blk64_t ref_blk, int ref_offset,
			  void *priv)
{
	struct blk_ctx *b = priv;
	struct e4t_slack_geom g;
	blk64_t blk = *blocknr;

	if (blockcnt < 0 || blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return 0;
	if (io_channel_read_blk64(fs->io, blk, 1, b->buf))
		return 0; /* e4t_dir_scan reports it */
	if (b->indexed &&
	    (blockcnt == 0 ||
	     e4t_slack_dx_node(b->buf, fs->blocksize,
			       ext2fs_has_feature_metadata_csum(fs->super))))
		return 0;
	b->c->blk = blk;
	geom_init(b->c, fs->blocksize, &g);
	e4t_slack_parse(b->buf, &g, on_cand, on_live, b->c);
	return b->c->err ? BLOCK_ABORT : 0;
}

/* An inline directory: i_block after the parent's number, then the
 * system.data xattr; each parsed as a block of its own. */
static errcode_t scan_inline(struct slack_ctx *c)
{
	ext2_filsys fs = c->img->fs;
	struct e4t_slack_geom g;
	unsigned char *buf;
	size_t size = 0;
	errcode_t err;

	err = ext2fs_inline_data_size(fs, c->dir, &size);
	if (err)
		return err;
	buf = calloc(1, size + EXT4_MIN_INLINE_DATA_SIZE);
	if (!buf)
		return ENOMEM;
	err = ext2fs_inline_data_get(fs, c->dir, NULL, buf, &size);
	c->blk = 0;
	if (!err && size > EXT4_INLINE_DATA_DOTDOT_SIZE) {
		unsigned first = size < EXT4_MIN_INLINE_DATA_SIZE
					 ? (unsigned)size
					 : EXT4_MIN_INLINE_DATA_SIZE;

		geom_init(c, first - EXT4_INLINE_DATA_DOTDOT_SIZE, &g);
		e4t_slack_parse(buf + EXT4_INLINE_DATA_DOTDOT_SIZE, &g, on_cand,
				on_live, c);
		if (size > EXT4_MIN_INLINE_DATA_SIZE && !c->err) {
			geom_init(c,
				  (unsigned)(size - EXT4_MIN_INLINE_DATA_SIZE),
				  &g);
			e4t_slack_parse(buf + EXT4_MIN_INLINE_DATA_SIZE, &g,
					on_cand, on_live, c);
		}
	}
	free(buf);
	return err ? err : c->err;
}

/* By inode and name; live first, then in the order found. */
static int cmp_names(const void *x, const void *y)
{
	const struct name_rec *a = x, *b = y;
	int r;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	r = memcmp(a->name, b->name, a->name_len);
	if (r)
		return r;
	if (a->live != b->live)
		return a->live ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int same_name(const struct name_rec *a, const struct name_rec *b)
{
	return a->ino == b->ino && a->name_len == b->name_len &&
	       !memcmp(a->name, b->name, a->name_len);
}

errcode_t e4t_slack_scan(struct e4t_image *img, ext2_ino_t dir, e4t_slack_fn fn,
			 void *priv)
{
	ext2_filsys fs = img->fs;
	struct slack_ctx c = { .img = img, .dir = dir };
	struct ext2_inode inode;
	struct e4t_nokey nokey;
	char nokey_name[E4T_NOKEY_MAX];
	errcode_t err;
	size_t i, j;
	int enc;

	err = ext2fs_read_inode(fs, dir, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISDIR(inode.i_mode))
		return 0;
	enc = e4t_nokey_setup(fs, inode.i_flags, EXT2_I_SIZE(&inode), &nokey);
	c.enc = (inode.i_flags & EXT4_ENCRYPT_FL) != 0;
	if (!fs->inode_map) {
		err = ext2fs_read_inode_bitmap(fs);
		if (err)
			return err;
	}
	if (inode.i_flags & EXT4_INLINE_DATA_FL) {
		err = scan_inline(&c);
	} else {
		struct blk_ctx b = {
			.c = &c,
			.indexed = (inode.i_flags & EXT2_INDEX_FL) != 0,
		};

		b.buf = malloc(fs->blocksize);
		if (!b.buf)
			return ENOMEM;
		err = ext2fs_block_iterate3(
			fs, dir, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
			NULL, slack_block_cb, &b);
		free(b.buf);
		if (!err)
			err = c.err;
	}
	/* Keep a candidate once, and never one that a live entry of this
	 * directory still holds (a copy left behind by a move or split). */
	for (i = 0; i < c.n; i++) {
		c.v[i].name = c.names + c.v[i].name_off;
		c.v[i].seq = i;
	}
	if (!err && c.n)
		qsort(c.v, c.n, sizeof(*c.v), cmp_names);
	for (i = 0; !err && i < c.n; i = j) {
		struct e4t_slack_entry e;

		for (j = i + 1; j < c.n && same_name(&c.v[i], &c.v[j]); j++)
			;
		if (c.v[i].live)
			continue;
		e.dir = dir;
		e.ino = c.v[i].ino;
		e.name = c.v[i].name;
		e.name_len = c.v[i].name_len;
		e.file_type = c.v[i].file_type;
		if (enc) { /* encrypted: the name ls would have listed */
			unsigned n = e4t_nokey_name(&nokey, e.name, e.name_len,
						    nokey_name);

			if (n) {
				e.name = nokey_name;
				e.name_len = n;
			}
		}
		e.blk = c.v[i].blk;
		e.offset = c.v[i].offset;
		e.realloc = e.ino &&
			    ext2fs_test_inode_bitmap2(fs->inode_map, e.ino);
		if (fn(&e, priv))
			break;
	}
	free(c.v);
	free(c.names);
	return err;
}
