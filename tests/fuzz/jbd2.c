/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbd2.c --- the journal reader on a journal built from the input:
 * e4t_journal_open, e4t_journal_load (stale scan and fast commits),
 * e4t_audit_run and e4t_inode_history, their results checked against
 * each other (check_journal.h).
 *
 * The filesystem is one of the kernel-written churn images of images/
 * (decompressed once per process, into an unlinked temporary file),
 * its journal zeroed: the input writes the journal.
 *
 *	byte 0		the base: 0 churn-strictatime-live (4 KiB blocks,
 *			csum v3), 1 churn-fastcommit-live (fast-commit
 *			area), 2 churn-1k-live (1 KiB blocks),
 *			3 churn-nocsum-live (12-byte tags, no checksums),
 *			4 churn-asynccommit-live (csum v1), 5
 *			churn-extjournal-live with its external journal
 *			device (the input writes the device, its ext2
 *			superblock included); modulo 6
 *	then records	u16 journal block, u16 length, then that many
 *			bytes (fewer at the end of the input), written
 *			from the start of that journal block on (into the
 *			blocks after it when longer than a block); block
 *			numbers modulo the journal's length; little-endian
 *
 * tests/fuzz/jbd2-seeds.sh makes the seeds in tests/fuzz/corpus/jbd2/
 * from the churn images and the scenarios of tests/mkjournal.py.  Needs
 * $TOP_SRCDIR (make check and make fuzz set it) and xz.
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/e4time.h"
#include "fuzz.h"
#include "check_journal.h"

struct jbase {
	const char *image, *jdev; /* in images/, without .img.xz */
	char path[64], jpath[64];
	int fd, jfd; /* image, external journal device (or -1) */
	unsigned bs;
	uint32_t nblocks; /* journal blocks */
	uint64_t *map;	  /* journal block -> byte offset in fd or jfd */
	int ready;
};

static struct jbase bases[] = {
	{ .image = "churn-strictatime-live" },
	{ .image = "churn-fastcommit-live" },
	{ .image = "churn-1k-live" },
	{ .image = "churn-nocsum-live" },
	{ .image = "churn-asynccommit-live" },
	{ .image = "churn-extjournal-live",
	  .jdev = "churn-extjournal-live-jdev" },
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

/* Journal blocks the last input wrote (zeroed again before the next). */
static uint32_t *touched;
static size_t ntouched, touched_cap;
static uint8_t *zero;

static int map_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		  blk64_t ref, int ref_off, void *priv)
{
	struct jbase *b = priv;

	(void)ref;
	(void)ref_off;
	if (blockcnt >= 0 && (uint64_t)blockcnt < b->nblocks)
		b->map[blockcnt] = *blocknr * fs->blocksize;
	return 0;
}

static void base_init(struct jbase *b)
{
	ext2_filsys fs;
	struct ext2_inode inode;
	uint32_t i;

	b->fd = fuzz_unpack_image(b->image, b->path, sizeof(b->path));
	b->jfd = -1;
	if (ext2fs_open2(b->path, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			 &fs))
		abort();
	b->bs = fs->blocksize;
	if (b->jdev) {
		struct stat st;

		b->jfd = fuzz_unpack_image(b->jdev, b->jpath, sizeof(b->jpath));
		if (fstat(b->jfd, &st))
			abort();
		b->nblocks = (uint32_t)(st.st_size / b->bs);
		b->map = malloc(b->nblocks * sizeof(*b->map));
		if (!b->map)
			abort();
		for (i = 0; i < b->nblocks; i++)
			b->map[i] = (uint64_t)i * b->bs;
	} else {
		if (ext2fs_read_inode(fs, fs->super->s_journal_inum, &inode))
			abort();
		b->nblocks = (uint32_t)(EXT2_I_SIZE(&inode) / b->bs);
		b->map = calloc(b->nblocks, sizeof(*b->map));
		if (!b->map ||
		    ext2fs_block_iterate3(fs, fs->super->s_journal_inum,
					  BLOCK_FLAG_READ_ONLY |
						  BLOCK_FLAG_DATA_ONLY,
					  NULL, map_cb, b))
			abort();
	}
	ext2fs_close_free(&fs);
	if (!zero) {
		zero = calloc(1, 65536);
		if (!zero)
			abort();
	}
	/* the journal is the input's alone */
	for (i = 0; i < b->nblocks; i++)
		if (b->map[i] && pwrite(b->jdev ? b->jfd : b->fd, zero, b->bs,
					(off_t)b->map[i]) != (ssize_t)b->bs)
			abort();
	b->ready = 1;
}

static void touch(uint32_t jb)
{
	if (ntouched == touched_cap) {
		touched_cap = touched_cap ? 2 * touched_cap : 256;
		touched = realloc(touched, touched_cap * sizeof(*touched));
		if (!touched)
			abort();
	}
	touched[ntouched++] = jb;
}

/* n bytes (at most a block) at the start of journal block jb. */
static void jwrite(struct jbase *b, uint32_t jb, const uint8_t *p, size_t n)
{
	int fd = b->jdev ? b->jfd : b->fd;

	if (!b->map[jb]) /* a hole in the journal inode */
		return;
	if (pwrite(fd, p, n, (off_t)b->map[jb]) != (ssize_t)n)
		abort();
}

FUZZ_TARGET(jbd2)
{
	struct jbase *b;
	struct e4t_image *img;
	size_t pos = 1, i;

	if (size < 1)
		return 0;
	b = &bases[data[0] % NBASES];
	if (!b->ready)
		base_init(b);
	while (pos + 4 <= size) {
		uint32_t jb = (uint32_t)(data[pos] | data[pos + 1] << 8);
		size_t len = (size_t)(data[pos + 2] | data[pos + 3] << 8);

		pos += 4;
		if (len > size - pos)
			len = size - pos;
		jb %= b->nblocks;
		while (len) {
			size_t n = len < b->bs ? len : b->bs;

			jwrite(b, jb, data + pos, n);
			touch(jb);
			pos += n;
			len -= n;
			if (++jb == b->nblocks)
				jb = 0;
		}
	}
	if (e4t_image_open(b->path, 0, &img))
		abort(); /* the filesystem itself is intact */
	check_journal(img, b->jdev ? b->jpath : NULL);
	e4t_image_close(img);
	/* the journal is zero again for the next input */
	for (i = 0; i < ntouched; i++)
		jwrite(b, touched[i], zero, b->bs);
	ntouched = 0;
	return 0;
}
