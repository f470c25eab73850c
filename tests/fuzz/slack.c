/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slack.c --- the directory slack parser (lib/fs/slack.c) on any bytes:
 * the first byte chooses the filetype feature, the next four the inode
 * count; the rest is the block.  Every candidate lies inside the block,
 * on a 4-byte boundary, after the live entries' names, with an inode in
 * range and a name without NUL or '/'; the htree node test never reads
 * past the block; read as a raw inode (first byte & 4), the system.data
 * xattr that holds an inline directory's further entries lies inside it.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "fuzz.h"

struct seen {
	const unsigned char *buf;
	const struct e4t_slack_geom *g;
	unsigned last_live_end; /* where the last live name ended */
	unsigned count;
};

static int on_live(ext2_ino_t ino, const char *name, unsigned name_len,
		   unsigned file_type, unsigned off, void *priv)
{
	struct seen *s = priv;

	(void)ino;
	(void)file_type;
	FUZZ_CHECK(name == (const char *)s->buf + off + 8, "live name at %u",
		   off);
	FUZZ_CHECK(off + 8 + name_len <= s->g->len, "live entry at %u", off);
	s->last_live_end = off + 8 + name_len;
	return 0;
}

static int on_cand(ext2_ino_t ino, const char *name, unsigned name_len,
		   unsigned file_type, unsigned off, void *priv)
{
	struct seen *s = priv;
	const struct e4t_slack_geom *g = s->g;

	FUZZ_CHECK(off % 4 == 0, "candidate at %u", off);
	FUZZ_CHECK(off >= s->last_live_end, "candidate at %u inside a name",
		   off);
	FUZZ_CHECK(name == (const char *)s->buf + off + 8, "name at %u", off);
	FUZZ_CHECK(name_len >= 1 && off + 8 + name_len <= g->len,
		   "name of %u bytes at %u", name_len, off);
	FUZZ_CHECK(ino ? ino >= g->first_ino && ino <= g->inodes_count
		       : g->noino,
		   "inode %u", ino);
	FUZZ_CHECK(!g->filetype || (file_type >= 1 && file_type <= 7),
		   "file type %u", file_type);
	FUZZ_CHECK(g->enc ? name_len >= 16 &&
				    (name_len % 4 == 0 || name_len == 255)
			  : !memchr(name, '\0', name_len) &&
				    !memchr(name, '/', name_len),
		   "name at %u", off);
	s->count++;
	return 0;
}

FUZZ_TARGET(slack)
{
	struct e4t_slack_geom g;
	struct seen s = { 0 };
	unsigned char *buf;

	if (size < 5)
		return 0;
	g.filetype = data[0] & 1;
	g.noino = (data[0] & 8) != 0;
	g.enc = (data[0] & 16) != 0;
	g.first_ino = 11;
	g.inodes_count = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
			 (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
	g.len = (unsigned)(size - 5);
	/* an exact copy, so that ASan sees any read past the block */
	buf = malloc(g.len ? g.len : 1);
	if (!buf)
		abort();
	memcpy(buf, data + 5, g.len);
	s.buf = buf;
	s.g = &g;
	e4t_slack_parse(buf, &g, on_cand, on_live, &s);
	(void)e4t_slack_dx_node(buf, g.len, data[0] & 2);
	if (data[0] & 4) { /* the block as a raw inode: its system.data */
		unsigned len, off = e4t_inline_data_xattr(buf, g.len, &len);

		FUZZ_CHECK(!off || (len >= 8 && off + len <= g.len &&
				    off > EXT2_GOOD_OLD_INODE_SIZE),
			   "system.data of %u bytes at %u", len, off);
	}
	free(buf);
	return 0;
}
