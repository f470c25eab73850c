/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layouts-floor.c --- the least a bodyfile lister pays on this machine,
 * for bench/layouts.sh: pread() of the inode tables' used parts (1 MiB at
 * a time, from the page cache), one 32-byte record kept per inode in use,
 * pread() of every directory's blocks (breadth first from /, paths built
 * as it goes) and one TSK bodyfile line formatted per name into a 1 MiB
 * buffer written to stdout.  No checksums, no orphans, no deleted inodes,
 * no escaping: a floor, not a tool.  Built by the script with
 * cc -O2 ... -lext2fs -lcom_err; libext2fs only opens the filesystem and
 * lists the blocks of directories with an extent tree deeper than 0.
 *
 *   layouts-floor IMAGE > BODYFILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ext2fs/ext2fs.h>

struct rec {
	uint16_t mode;
	uint16_t isdir;
	uint32_t uid, gid;
	uint32_t t[4]; /* a m c cr, seconds */
	uint32_t size_lo;
	uint32_t blk0; /* offset into dirblk list */
};

static char out[1 << 20];
static size_t outn;

static void flush(void)
{
	if (outn && write(1, out, outn) < 0)
		exit(1);
	outn = 0;
}

static char *u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

static ext2_filsys fs;
static int fd;
static struct rec *recs;
static char *blkbuf;

struct qent {
	ext2_ino_t ino;
	char *path;
	size_t len;
};
static struct qent *q;
static size_t qh, qt, qcap;

static void row(const char *dir, size_t dlen, const char *name, size_t nlen,
		ext2_ino_t ino)
{
	const struct rec *r = &recs[ino];
	static const char rwx[] = "rwxrwxrwx";
	char *p;
	int i;

	if (outn + dlen + nlen + 160 > sizeof(out))
		flush();
	p = out + outn;
	*p++ = '0';
	*p++ = '|';
	memcpy(p, dir, dlen);
	p += dlen;
	*p++ = '/';
	memcpy(p, name, nlen);
	p += nlen;
	*p++ = '|';
	p = u64(p, ino);
	*p++ = '|';
	*p++ = r->isdir ? 'd' : 'r';
	*p++ = '/';
	*p++ = r->isdir ? 'd' : 'r';
	for (i = 0; i < 9; i++)
		*p++ = (r->mode >> (8 - i)) & 1 ? rwx[i] : '-';
	*p++ = '|';
	p = u64(p, r->uid);
	*p++ = '|';
	p = u64(p, r->gid);
	*p++ = '|';
	p = u64(p, r->size_lo);
	for (i = 0; i < 4; i++) {
		*p++ = '|';
		p = u64(p, r->t[i]);
	}
	*p++ = '\n';
	outn = (size_t)(p - out);
}

static void enqueue(ext2_ino_t ino, const char *dir, size_t dlen,
		    const char *name, size_t nlen)
{
	if (qt == qcap) {
		qcap = qcap ? qcap * 2 : 1024;
		q = realloc(q, qcap * sizeof(*q));
	}
	q[qt].path = malloc(dlen + nlen + 2);
	memcpy(q[qt].path, dir, dlen);
	q[qt].path[dlen] = '/';
	memcpy(q[qt].path + dlen + 1, name, nlen);
	q[qt].len = dlen + 1 + nlen;
	q[qt].ino = ino;
	qt++;
}

static void parse(const struct qent *d, const char *b, unsigned bs)
{
	unsigned off = 0;

	while (off + 8 <= bs) {
		const struct ext2_dir_entry_2 *de =
			(const struct ext2_dir_entry_2 *)(b + off);
		unsigned rl = de->rec_len, nl = de->name_len;

		if (rl < 8 || off + rl > bs)
			return;
		if (de->inode && de->inode < fs->super->s_inodes_count &&
		    !(nl == 1 && de->name[0] == '.') &&
		    !(nl == 2 && de->name[0] == '.' && de->name[1] == '.') &&
		    de->file_type != 0xde) {
			row(d->path, d->len, de->name, nl, de->inode);
			if (recs[de->inode].isdir)
				enqueue(de->inode, d->path, d->len, de->name,
					nl);
		}
		off += rl;
	}
}

static int blk_cb(ext2_filsys f, blk64_t *b, e2_blkcnt_t c, blk64_t r, int o,
		  void *priv)
{
	(void)r;
	(void)o;
	if (c >= 0 && pread(fd, blkbuf, f->blocksize,
			    (off_t)*b * f->blocksize) == (ssize_t)f->blocksize)
		parse(priv, blkbuf, f->blocksize);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned bs, isz, ipg;
	dgrp_t g;
	size_t chunk = 1 << 20;
	char *buf;

	if (argc != 2 || ext2fs_open(argv[1], EXT2_FLAG_64BITS, 0, 0,
				     unix_io_manager, &fs)) {
		fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	bs = fs->blocksize;
	isz = EXT2_INODE_SIZE(fs->super);
	ipg = fs->super->s_inodes_per_group;
	recs = calloc((size_t)fs->super->s_inodes_count + 1, sizeof(*recs));
	buf = malloc(chunk);
	blkbuf = malloc(1 << 20);
	/* the inode tables' used parts */
	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t used = ipg, done = 0;
		off_t at = (off_t)ext2fs_inode_table_loc(fs, g) * bs;

		if (ext2fs_has_group_desc_csum(fs)) {
			if (ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
				continue;
			used -= ext2fs_bg_itable_unused(fs, g);
		}
		while (done < used) {
			size_t n = (used - done) * isz;
			size_t k;

			if (n > chunk)
				n = chunk;
			if (pread(fd, buf, n, at + (off_t)(done * isz)) !=
			    (ssize_t)n)
				return 1;
			for (k = 0; k < n / isz; k++) {
				const struct ext2_inode_large *in =
					(const void *)(buf + k * isz);
				struct rec *r;

				if (!in->i_mode || !in->i_links_count)
					continue;
				r = &recs[g * ipg + done + k + 1];
				r->mode = in->i_mode;
				r->isdir = LINUX_S_ISDIR(in->i_mode);
				r->uid = in->i_uid |
					 (uint32_t)in->osd2.linux2.l_i_uid_high
						 << 16;
				r->gid = in->i_gid |
					 (uint32_t)in->osd2.linux2.l_i_gid_high
						 << 16;
				r->size_lo = in->i_size;
				r->t[0] = in->i_atime;
				r->t[1] = in->i_mtime;
				r->t[2] = in->i_ctime;
				r->t[3] = isz > 128 ? in->i_crtime : 0;
			}
			done += n / isz;
		}
	}
	/* the directories, breadth first from / */
	enqueue(EXT2_ROOT_INO, "", 0, "", 0);
	q[0].len = 0;
	while (qh < qt) {
		struct qent d = q[qh++];
		struct ext2_inode_large in;
		const struct ext3_extent_header *eh;

		/* the inode again, from the page cache */
		if (pread(fd, &in, sizeof(in),
			  (off_t)ext2fs_inode_table_loc(fs, (d.ino - 1) / ipg) *
					  bs +
				  (off_t)((d.ino - 1) % ipg) * isz) < 128)
			return 1;
		eh = (const void *)in.i_block;
		if ((in.i_flags & EXT4_EXTENTS_FL) && eh->eh_depth == 0) {
			const struct ext3_extent *ex = (const void *)(eh + 1);
			int i;

			for (i = 0; i < eh->eh_entries; i++) {
				uint64_t start = ex[i].ee_start |
						 (uint64_t)ex[i].ee_start_hi
							 << 32;
				unsigned len = ex[i].ee_len, k;

				for (k = 0; k < len; k += 256) {
					unsigned n = len - k < 256 ? len - k
								   : 256,
						 m;

					if (pread(fd, blkbuf, (size_t)n * bs,
						  (off_t)(start + k) * bs) < 0)
						return 1;
					for (m = 0; m < n; m++)
						parse(&d,
						      blkbuf + (size_t)m * bs,
						      bs);
				}
			}
		} else {
			ext2fs_block_iterate3(fs, d.ino,
					      BLOCK_FLAG_READ_ONLY |
						      BLOCK_FLAG_DATA_ONLY,
					      NULL, blk_cb, &d);
		}
		free(d.path);
	}
	flush();
	return 0;
}
