/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * undo_io.c --- e4time's I/O manager for writing with an e2undo file.
 *
 * The undo file is e2fsprogs' own format ("E2UNDO02", see e2fsprogs'
 * lib/ext2fs/undo_io.c and misc/e2undo.c), laid out as libext2fs'
 * undo_io_manager lays it out: block 0 the header, block 1 a copy of the
 * filesystem's superblock, then key blocks, each followed by the data its
 * keys describe.  A "block" of the undo file is one region of the
 * filesystem: before a region is first written, its old contents are
 * appended, a key says where they belong (consecutive regions extend one
 * key), and the key block, header and superblock copy are brought up to
 * date, so that a run cut short leaves a file e2undo replays (as
 * unfinished).  At close the header is marked finished and the file is
 * synced.
 *
 * What differs is the cost.  libext2fs rewrites and checksums the whole
 * key block, as large as a region, after every region it saves: writing
 * 250 MiB of inode tables cost 500 MiB of undo writes and 750 MiB of
 * table-driven CRC32C.  Here only the new key and the key block's head are
 * written (the checksum still covers the whole key block, kept in memory),
 * CRC32C uses the CPU instruction where there is one, and the image is
 * read and written with pread/pwrite, no cache, so what a region is saved
 * from is what is on disk.  Writeback of both files starts as they are
 * written, rather than all at the fsyncs of close.
 *
 * A sparse image: e2undo writes back every byte a key holds, so a region
 * saved whole would fill the region's holes when replayed, and on a full
 * filesystem e2undo would stop half way (ENOSPC) with an image that the
 * undo file no longer restores.  So when a region of a regular file is
 * first saved, its data runs are found with lseek(SEEK_DATA/SEEK_HOLE)
 * and only they are saved, one key each (a region that is all data, the
 * usual case, is still one read and one key).  Its hole blocks are noted
 * (a bit each, in a small hash of such regions) and saved as zeros, a
 * key of their own, the first time a write touches them.  Replay then
 * writes only blocks that held data, or that this run wrote: it needs no
 * new space.  A block device, or a filesystem that has no SEEK_HOLE
 * (lseek fails), gets whole regions.  Runs are widened to whole
 * filesystem blocks (the keys' unit): a block that is partly a hole (an
 * image whose host has smaller blocks) is saved whole.
 *
 * A filesystem in an LVM logical volume of several segments (a view of
 * several extents, container.h) inside a raw image: the channel is given
 * the extents (e4t_undo_io_setup_map()), and byte p of the filesystem is
 * byte "offset" + p of the view, placed in the image by the extent
 * holding it.  The undo file is one e2undo replays on the whole image:
 * its fs_offset is the image position of the filesystem's first byte,
 * and everything it saves is in image bytes counted from there (write.c
 * refuses a volume with a segment before that, or not on block
 * boundaries).  A write is cut at the segments' ends, each piece saved
 * and written where it lies; the blocks of a region outside every
 * segment (another volume's) are never saved.
 */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE 1 /* sync_file_range() */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "fs/csum_int.h"
#include "write/jwrite_int.h"
#include "write/undo_io_int.h"

#define E2UNDO_MAGIC			"E2UNDO02"
#define KEYBLOCK_MAGIC			0xCADECADE
#define E2UNDO_STATE_FINISHED		0x1
#define E2UNDO_FEATURE_COMPAT_FS_OFFSET 0x1
#define E2UNDO_MAX_EXTENT_BLOCKS	512 /* a key covers at most this */
#define E2UNDO_MIN_BLOCK_SIZE		1024
#define E2UNDO_MAX_BLOCK_SIZE		1048576
#define UNDO_SUPER_BLK			1 /* blocks of the undo file */
#define UNDO_FIRST_KEY_BLK		2
#define UNDO_PAGE			4096 /* no page is smaller */
#define UNDO_DIRECT_ALIGN		512  /* O_DIRECT lengths: sectors */
/* Blocks of a region, one bit each: 1 MiB of 1 KiB blocks at most. */
#define HOLE_WORDS (E2UNDO_MAX_BLOCK_SIZE / E2UNDO_MIN_BLOCK_SIZE / 64)

/* A block written in a transaction: where, and its new contents. */
struct txn_blk {
	blk64_t blk;
	unsigned char *data;
};

/* On disk, little-endian (e4time builds on little-endian hosts only). */
struct undo_header {
	char magic[8];
	uint64_t num_keys;
	uint64_t super_offset;	/* block of the superblock copy */
	uint64_t key_offset;	/* block of the first key block */
	uint32_t block_size;	/* of the undo file: the region */
	uint32_t fs_block_size; /* unit of undo_key.fsblk */
	uint32_t sb_crc;	/* of the superblock copy, before ~s_magic */
	uint32_t state;
	uint32_t f_compat;
	uint32_t f_incompat;
	uint32_t f_rocompat;
	uint32_t pad32;
	uint64_t fs_offset;
	uint8_t padding[436];
	uint32_t header_crc; /* of all the above */
};

struct undo_key {
	uint64_t fsblk;	  /* where the data goes back */
	uint32_t blk_crc; /* CRC32C of the data */
	uint32_t size;	  /* bytes */
};

struct undo_key_block {
	uint32_t magic;
	uint32_t crc; /* of the whole block, this field 0 */
	uint64_t reserved;
	struct undo_key keys[];
};

_Static_assert(sizeof(struct undo_header) == 512, "undo header layout");
_Static_assert(sizeof(struct undo_key) == 16, "undo key layout");
_Static_assert(sizeof(struct undo_key_block) == 16, "key block layout");

/* A region saved but for some hole blocks: those still to save. */
struct hole_ent {
	uint64_t key; /* region + 1; 0: a free slot */
	uint64_t bits[HOLE_WORDS];
};

struct undo_data {
	errcode_t magic;
	int fd;		 /* the image */
	int undo_fd;	 /* the undo file, or -1 */
	uint64_t offset; /* of the filesystem in the image: fs_offset */
	/* Extents of a view (see the top), or NULL: the filesystem is the
	 * image's bytes from offset on.  view_off: the filesystem's place
	 * in the view. */
	struct e4t_extent *map;
	unsigned map_n;
	uint64_t view_off;
	unsigned region;   /* bytes saved at once; the undo file's block */
	unsigned key_unit; /* hdr.fs_block_size, fixed by the first save */
	int started;	   /* something saved: the layout is fixed */
	uint64_t *saved;   /* regions saved, one bit each */
	size_t saved_words;
	/* A regular file: regions are saved by data runs (see the top). */
	int sparse;
	uint64_t *holey; /* regions with hole blocks still to save */
	size_t holey_words;
	struct hole_ent *holes; /* their blocks: open addressing */
	size_t holes_cap, holes_used;
	struct undo_key_block *keyb; /* the key block being filled */
	size_t keys_in_block, keys_per_block;
	uint64_t num_keys;
	uint64_t key_blk;   /* where keyb goes */
	uint64_t next_blk;  /* the next free block */
	unsigned char *buf; /* one region, page-aligned */
	int direct;	    /* data written with O_DIRECT (see write_data()) */
	/* A range whose writes are held back (see undo_set_option()):
	 * hold_len bytes at hold_off of the filesystem, their current
	 * contents in hold_buf, hold_dirty once written to. */
	uint64_t hold_off, hold_len;
	unsigned char *hold_buf;
	int hold_dirty;
	/* A transaction (see txn_option()): while txn is set, writes are
	 * kept here, whole filesystem blocks of jw->blocksize, sorted by
	 * block (reads see them); jw: the journal they are committed
	 * through, or NULL (no transactions). */
	struct e4t_jw *jw;
	int txn;
	struct txn_blk *tx;
	size_t tx_n, tx_cap;
	struct undo_header hdr;
	struct struct_io_stats stats;
	/* The undo file could not be written: nothing more is written to
	 * the image, and the file stays as the last whole save left it. */
	errcode_t failed;
#ifdef E4T_TEST_HOOKS
	/* Test hook (see hook_setup()): signal after this many image writes. */
	unsigned long hook_after, image_writes;
	int hook_sig;
	/* (and the process group killed within this superblock write) */
	unsigned long hook_super, super_writes;
#endif
};

static char *next_undo_path;
static int next_undo_fd = -1;
static unsigned next_region = E2UNDO_MAX_BLOCK_SIZE;
static struct e4t_extent *next_map;
static unsigned next_map_n;

errcode_t e4t_undo_io_setup_map(const struct e4t_extent *ext, unsigned n)
{
	free(next_map);
	next_map = NULL;
	next_map_n = 0;
	if (!n)
		return 0;
	next_map = malloc(n * sizeof(*ext));
	if (!next_map)
		return ENOMEM;
	memcpy(next_map, ext, n * sizeof(*ext));
	next_map_n = n;
	return 0;
}

errcode_t e4t_undo_io_setup_fd(int fd, unsigned region_size)
{
	errcode_t err = e4t_undo_io_setup(NULL, region_size);

	if (!err)
		next_undo_fd = fd;
	return err;
}

errcode_t e4t_undo_io_setup(const char *undo_path, unsigned region_size)
{
	if (region_size < E2UNDO_MIN_BLOCK_SIZE ||
	    region_size > E2UNDO_MAX_BLOCK_SIZE ||
	    (region_size & (region_size - 1)))
		return EXT2_ET_INVALID_ARGUMENT;
	free(next_undo_path);
	next_undo_fd = -1;
	e4t_undo_io_setup_map(NULL, 0);
	next_undo_path = undo_path ? strdup(undo_path) : NULL;
	if (undo_path && !next_undo_path)
		return ENOMEM;
	next_region = region_size;
	return 0;
}

/*
 * Have the kernel start writing what was just written: the fsyncs at
 * close (image and undo file) then find little left to do, instead of the
 * whole of both (0.2 s for 500 MiB here).  Only a hint: what the data are
 * and when they are durable does not change.
 */
static void start_writeback(int fd, uint64_t off, uint64_t len)
{
#ifdef HAVE_SYNC_FILE_RANGE
	sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
	(void)off;
	(void)len;
#endif
}

static errcode_t pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EXT2_ET_SHORT_WRITE;
		done += (size_t)n;
	}
	return 0;
}

/*
 * The old contents saved, len bytes at off of the undo file.  Written past
 * the page cache (O_DIRECT, set on the file for this write only) when the
 * file takes it and buf, len and off are aligned: the undo file is read
 * only by e2undo, and its hundreds of MiB of new page cache cost more
 * than the writes (the pages are allocated and copied into, then written
 * out by the fsync at close anyway).  A write the file refuses that way
 * (EINVAL: no direct I/O there) is made through the page cache, and so
 * are all that follow.  The indexes (header, superblock copy, key
 * blocks) are small writes through the page cache, never on the pages
 * of the data: every data write starts a block of the undo file.
 */
static errcode_t write_data(struct undo_data *d, const void *buf, size_t len,
			    uint64_t off)
{
	errcode_t err;

	if (d->direct && !((uintptr_t)buf % UNDO_PAGE) && !(off % UNDO_PAGE) &&
	    !(len % UNDO_DIRECT_ALIGN)) {
		int fl = fcntl(d->undo_fd, F_GETFL);

		if (fl >= 0 && !fcntl(d->undo_fd, F_SETFL, fl | O_DIRECT)) {
			err = pwrite_all(d->undo_fd, buf, len, off);
			fcntl(d->undo_fd, F_SETFL, fl);
			if (err != EINVAL)
				return err;
		}
		d->direct = 0;
	}
	err = pwrite_all(d->undo_fd, buf, len, off);
	if (!err)
		start_writeback(d->undo_fd, off, len);
	return err;
}

/*
 * Where byte pos of the filesystem is: *rel bytes from offset in the
 * image, and *contig bytes on from there lie on in the image (all of them
 * without a map).  EXT2_ET_SHORT_READ past the view's extents,
 * EXT2_ET_INVALID_ARGUMENT before offset (write.c refuses such views).
 */
static errcode_t locate(const struct undo_data *d, uint64_t pos, uint64_t *rel,
			uint64_t *contig)
{
	uint64_t v = d->view_off + pos;
	unsigned i;

	if (!d->map) {
		*rel = pos;
		*contig = UINT64_MAX - d->offset - pos;
		return 0;
	}
	for (i = 0; i < d->map_n; i++) {
		const struct e4t_extent *e = &d->map[i];
		uint64_t at;

		if (v < e->lstart || v - e->lstart >= e->len)
			continue;
		at = e->pstart + (v - e->lstart);
		if (at < d->offset)
			return EXT2_ET_INVALID_ARGUMENT;
		*rel = at - d->offset;
		*contig = e->len - (v - e->lstart);
		return 0;
	}
	return EXT2_ET_SHORT_READ;
}

/* With a map: offset from where the filesystem starts in the view. */
static errcode_t map_origin(struct undo_data *d)
{
	unsigned i;

	for (i = 0; i < d->map_n; i++) {
		const struct e4t_extent *e = &d->map[i];

		if (d->view_off >= e->lstart &&
		    d->view_off - e->lstart < e->len) {
			d->offset = e->pstart + (d->view_off - e->lstart);
			return 0;
		}
	}
	return EXT2_ET_INVALID_ARGUMENT;
}

/* Which blocks (of key_unit) of the region at byte start (from offset)
 * lie in the view's extents, one bit each in in_map: all without a map. */
static void find_mapped(const struct undo_data *d, uint64_t start,
			unsigned nblk, uint64_t *in_map)
{
	uint64_t lo = d->offset + start, hi = lo + d->region;
	unsigned i, b;

	memset(in_map, 0, HOLE_WORDS * sizeof(*in_map));
	if (!d->map) {
		for (b = 0; b < nblk; b++)
			in_map[b / 64] |= 1ULL << (b % 64);
		return;
	}
	for (i = 0; i < d->map_n; i++) {
		uint64_t s = d->map[i].pstart, e = s + d->map[i].len;

		if (s < lo)
			s = lo;
		if (e > hi)
			e = hi;
		if (s >= e)
			continue;
		for (b = (unsigned)((s - lo) / d->key_unit);
		     b < nblk && (uint64_t)b * d->key_unit < e - lo; b++)
			in_map[b / 64] |= 1ULL << (b % 64);
	}
}

/* A write error of the undo file, as the caller reports it. */
static errcode_t undo_err(errcode_t err)
{
	if (err == ENOSPC || err == EDQUOT || err == EFBIG)
		return E4T_ERR_UNDO_FULL;
	return err ? E4T_ERR_UNDO_WRITE : 0;
}

/*
 * The key block: its head (magic, checksum of the whole block) and its
 * last key, which is new or has just grown.  When both lie in one 4 KiB
 * page of the undo file (the first 255 keys of a key block), one pwrite
 * from the head to that key: a process killed at any point leaves the old
 * or the new key block, each with its checksum, never a mix (a write
 * within one page is copied whole before a fatal signal is looked at).
 * Beyond, two writes: the key, then the head; killed between them, the
 * key block's checksum fails and e2undo wants -f (see e4time(8)).
 */
static errcode_t write_key_block(struct undo_data *d)
{
	uint64_t at = d->key_blk * d->region;
	uint64_t key_at = sizeof(*d->keyb) +
			  (d->keys_in_block - 1) * sizeof(struct undo_key);
	uint64_t end = key_at + sizeof(struct undo_key);
	errcode_t err;

	d->keyb->magic = KEYBLOCK_MAGIC;
	d->keyb->crc = 0;
	/* over the whole block: its keys, then zeros (not read) */
	d->keyb->crc = e4t_crc32c_zeros(e4t_crc32c(~0U, d->keyb, end),
					d->region - end);
	if (at / UNDO_PAGE == (at + end - 1) / UNDO_PAGE)
		return pwrite_all(d->undo_fd, d->keyb, end, at);
	err = pwrite_all(d->undo_fd, (char *)d->keyb + key_at,
			 sizeof(struct undo_key), at + key_at);
	if (!err)
		err = pwrite_all(d->undo_fd, d->keyb, sizeof(*d->keyb), at);
	return err;
}

/*
 * The header and the superblock copy that say the filesystem's
 * superblock is *super: d->hdr made up to date, and *super turned into
 * the copy (its magic inverted, as e2undo wants it).
 */
static void make_indexes(struct undo_data *d, struct ext2_super_block *super)
{
	memcpy(d->hdr.magic, E2UNDO_MAGIC, sizeof(d->hdr.magic));
	d->hdr.num_keys = d->num_keys;
	d->hdr.super_offset = UNDO_SUPER_BLK;
	d->hdr.key_offset = UNDO_FIRST_KEY_BLK;
	d->hdr.block_size = d->region;
	d->hdr.fs_block_size = d->key_unit;
	d->hdr.sb_crc = e4t_crc32c(~0U, super, SUPERBLOCK_SIZE);
	d->hdr.state = E2UNDO_STATE_FINISHED;
	d->hdr.fs_offset = d->offset;
	if (d->offset)
		d->hdr.f_compat |= E2UNDO_FEATURE_COMPAT_FS_OFFSET;
	else
		d->hdr.f_compat &= ~(uint32_t)E2UNDO_FEATURE_COMPAT_FS_OFFSET;
	d->hdr.header_crc = e4t_crc32c(
		~0U, &d->hdr, sizeof(d->hdr) - sizeof(d->hdr.header_crc));
	super->s_magic = (uint16_t)~super->s_magic;
}

/* The filesystem's superblock as the image holds it now. */
static errcode_t read_super(struct undo_data *d, struct ext2_super_block *super)
{
	size_t got = 0;
	errcode_t err = e4t_pread_full(d->fd, super, SUPERBLOCK_SIZE,
				       d->offset + SUPERBLOCK_OFFSET, &got);

	if (!err && got != SUPERBLOCK_SIZE)
		err = EXT2_ET_SHORT_READ;
	return err;
}

/*
 * Bring the undo file up to date with what save_region() appended: the
 * key block, the superblock copy (the superblock as it is on disk now),
 * then the header, last, whose key count makes the new key count.  Each
 * of these is one write within a page, so the file replays at every
 * point: with the keys before the header's write, or with the new one.
 *
 * The header says "finished" from the first save on.  e2undo replays an
 * unfinished file too, but then marks the filesystem not clean (and
 * rewrites its superblocks) to force an e2fsck: libext2fs' own undo
 * manager counts its keys in the header only now and then, so a file it
 * left unfinished may miss blocks that were written.  Here every region
 * is in the header before the image is written there (see
 * undo_write_blk64()): a file of a killed run restores the image exactly
 * and without -f.  With sync, then fsync.
 */
static errcode_t write_indexes(struct undo_data *d, int sync)
{
	struct ext2_super_block super;
	errcode_t err = 0;

	if (d->keys_in_block) {
		err = write_key_block(d);
		if (err)
			return undo_err(err);
		/* Full: the next key block goes after the data. */
		if (d->keys_in_block == d->keys_per_block) {
			memset(d->keyb, 0, d->region);
			d->keys_in_block = 0;
			d->key_blk = d->next_blk++;
		}
	}
	err = read_super(d, &super);
	if (err)
		return err;
	make_indexes(d, &super);
	err = pwrite_all(d->undo_fd, &super, SUPERBLOCK_SIZE,
			 (uint64_t)UNDO_SUPER_BLK * d->region);
	if (!err)
		err = pwrite_all(d->undo_fd, &d->hdr, sizeof(d->hdr), 0);
	if (!err && sync && fsync(d->undo_fd))
		err = errno;
	return undo_err(err);
}

static void hook_super_begin(struct undo_data *d, int tell[2]);
static void hook_super_told(const int tell[2]);
static void hook_super_kill(const int tell[2]);

/* The three writes of a superblock change, the image's first. */
static errcode_t super_writes(struct undo_data *d, const void *buf, size_t len,
			      uint64_t at, const struct ext2_super_block *copy,
			      const int tell[2])
{
	errcode_t err = pwrite_all(d->fd, buf, len, at);

	hook_super_told(tell);
	if (!err)
		err = pwrite_all(d->undo_fd, copy, SUPERBLOCK_SIZE,
				 (uint64_t)UNDO_SUPER_BLK * d->region);
	if (!err)
		err = pwrite_all(d->undo_fd, &d->hdr, sizeof(d->hdr), 0);
	return err;
}

/*
 * len bytes at rel of the filesystem (its old contents saved) written to
 * the image.  e2undo replays only onto a filesystem whose superblock is
 * the undo file's copy, byte for byte, so a write over the primary
 * superblock and the copy's (with the header's checksum of it) must not
 * be told apart by a kill: they are made by a child process that blocks
 * every signal it can and leaves the process group first, so that
 * neither kill -9 of e4time nor of its group (a shell's job, timeout(1))
 * stops it between them.  It holds e4time's lock on the image (the
 * descriptor) until it has made them, some microseconds.  Without a
 * child (fork() failed), they are made here.  What no process can close
 * is a power cut between them: then e2undo wants -f (e4time(8), CRASH
 * SAFETY).
 */
static errcode_t image_pwrite(struct undo_data *d, const void *buf, size_t len,
			      uint64_t rel)
{
	struct ext2_super_block super;
	uint64_t lo, hi;
	int status, tell[2] = { -1, -1 };
	sigset_t all;
	errcode_t err;
	pid_t pid;

	if (d->undo_fd < 0 || rel >= SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE ||
	    rel + len <= SUPERBLOCK_OFFSET)
		return pwrite_all(d->fd, buf, len, d->offset + rel);
	err = read_super(d, &super);
	if (err)
		return err;
	lo = rel > SUPERBLOCK_OFFSET ? rel : SUPERBLOCK_OFFSET;
	hi = rel + len < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE
		     ? rel + len
		     : SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE;
	memcpy((char *)&super + (lo - SUPERBLOCK_OFFSET),
	       (const char *)buf + (lo - rel), (size_t)(hi - lo));
	make_indexes(d, &super);
	hook_super_begin(d, tell);
	pid = fork();
	if (!pid) {
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		setpgid(0, 0);
		err = super_writes(d, buf, len, d->offset + rel, &super, tell);
		status = !err ? 0 : err > 0 && err < 255 ? (int)err : 255;
		_exit(status); /* child */
	}
	if (pid < 0)
		return undo_err(super_writes(d, buf, len, d->offset + rel,
					     &super, tell));
	hook_super_kill(tell);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return undo_err(errno);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) != 255)
		return undo_err(WEXITSTATUS(status));
	return undo_err(EIO);
}

static int bit_test(const uint64_t *words, size_t nwords, uint64_t r)
{
	return r / 64 < nwords && (words[r / 64] & (1ULL << (r % 64)));
}

static errcode_t bit_set(uint64_t **words, size_t *nwords, uint64_t r)
{
	if (r / 64 >= *nwords) {
		size_t old = *nwords;

		if (e4t_grow(words, nwords, r / 64 + 1, sizeof(**words), 64))
			return ENOMEM;
		memset(*words + old, 0, (*nwords - old) * sizeof(**words));
	}
	(*words)[r / 64] |= 1ULL << (r % 64);
	return 0;
}

static size_t hole_slot(const struct hole_ent *tab, size_t cap, uint64_t r)
{
	size_t i = (size_t)((r * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);

	while (tab[i].key && tab[i].key != r + 1)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The entry of region r, made (its bits clear) when there is none. */
static struct hole_ent *hole_get(struct undo_data *d, uint64_t r)
{
	size_t i;

	if (2 * (d->holes_used + 1) > d->holes_cap) {
		size_t cap = d->holes_cap ? 2 * d->holes_cap : 64, j;
		struct hole_ent *tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return NULL;
		for (j = 0; j < d->holes_cap; j++)
			if (d->holes[j].key)
				tab[hole_slot(tab, cap, d->holes[j].key - 1)] =
					d->holes[j];
		free(d->holes);
		d->holes = tab;
		d->holes_cap = cap;
	}
	i = hole_slot(d->holes, d->holes_cap, r);
	if (!d->holes[i].key) {
		d->holes[i].key = r + 1;
		d->holes_used++;
	}
	return &d->holes[i];
}

/*
 * Append len bytes of old contents that belong at byte off of the
 * filesystem (a multiple of key_unit) and the key that places them, then
 * bring the indexes up to date (the header last): the undo file is whole
 * after every key.  A key whose data end a block of the undo file and
 * meet off is extended instead (its data go on in the next block).
 */
static errcode_t append_key(struct undo_data *d, uint64_t off, const void *buf,
			    size_t len)
{
	struct undo_key *key = NULL;
	errcode_t err;

	if (d->keys_in_block)
		key = &d->keyb->keys[d->keys_in_block - 1];
	if (key && key->size % d->region == 0 &&
	    key->fsblk * d->key_unit + key->size == off &&
	    (uint64_t)key->size + len <
		    (uint64_t)E2UNDO_MAX_EXTENT_BLOCKS * d->region) {
		/* The data of a key is contiguous: extend it. */
		key->blk_crc = e4t_crc32c(key->blk_crc, buf, len);
		key->size += (uint32_t)len;
	} else {
		/* keyb is allocated when the undo file is opened */
		key = &d->keyb->keys[d->keys_in_block++];
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
		key->fsblk = off / d->key_unit;
		key->blk_crc = e4t_crc32c(~0U, buf, len);
		key->size = (uint32_t)len;
		d->num_keys++;
	}
	err = write_data(d, buf, len, d->next_blk * d->region);
	if (err)
		return undo_err(err);
	d->next_blk += (len + d->region - 1) / d->region;
	return write_indexes(d, 0);
}

/*
 * Which blocks of the region at byte start (of the image) hold data:
 * one bit each in data (nblk blocks of key_unit).  1 when that was found,
 * 0 when lseek cannot tell (no SEEK_HOLE there): then the region is
 * saved whole.  Past the end of the file is a hole.
 */
static int find_data(struct undo_data *d, uint64_t start, unsigned nblk,
		     uint64_t *data)
{
	uint64_t end = start + d->region, pos = start;

	memset(data, 0, HOLE_WORDS * sizeof(*data));
	while (pos < end) {
		off_t ds = lseek(d->fd, (off_t)pos, SEEK_DATA), he;
		uint64_t b, b_end;

		if (ds < 0 && errno == ENXIO)
			return 1; /* no data from pos on */
		if (ds < 0)
			return 0;
		if ((uint64_t)ds >= end)
			return 1;
		he = lseek(d->fd, ds, SEEK_HOLE);
		if (he < 0 || he <= ds)
			return 0;
		b = ((uint64_t)ds - start) / d->key_unit;
		b_end = ((uint64_t)he - start + d->key_unit - 1) / d->key_unit;
		if (b_end > nblk)
			b_end = nblk;
		for (; b < b_end; b++)
			data[b / 64] |= 1ULL << (b % 64);
		pos = (uint64_t)he;
	}
	return 1;
}

/* Append region r's old contents and the keys that place them. */
static errcode_t save_region(struct undo_data *d, uint64_t r,
			     unsigned block_size)
{
	uint64_t start = r * d->region, data[HOLE_WORDS], mapped[HOLE_WORDS];
	struct hole_ent *h;
	unsigned nblk, b, e;
	size_t got = 0;
	int holes = 0, whole = 1;
	errcode_t err;

	if (!d->started) {
		/* Keys count blocks of the size the filesystem was opened
		 * with; a region is a whole number of them. */
		if (!block_size || d->region % block_size)
			return EXT2_ET_INVALID_ARGUMENT;
		d->key_unit = block_size;
		d->started = 1;
		/* A valid file with no keys, before anything is appended. */
		err = write_indexes(d, 0);
		if (err)
			return err;
	}
	nblk = d->region / d->key_unit;
	find_mapped(d, start, nblk, mapped);
	if (d->sparse && !find_data(d, d->offset + start, nblk, data))
		d->sparse = 0; /* no SEEK_HOLE here: whole regions */
	if (!d->sparse)
		memcpy(data, mapped, sizeof(data));
	/* Blocks outside the view's extents are neither saved nor holes. */
	for (b = 0; b < nblk; b++) {
		uint64_t bit = 1ULL << (b % 64);

		data[b / 64] &= mapped[b / 64];
		holes += (mapped[b / 64] & ~data[b / 64] & bit) != 0;
		whole &= (data[b / 64] & bit) != 0;
	}
	if (whole) {
		err = e4t_pread_full(d->fd, d->buf, d->region,
				     d->offset + start, &got);
		if (err || !got) /* nothing there (past the end) */
			return err;
		return append_key(d, start, d->buf, got);
	}
	/* Each data run, one key; the holes wait for a write. */
	for (b = 0; b < nblk; b = e) {
		uint64_t is_data = (data[b / 64] >> (b % 64)) & 1;
		size_t off = (size_t)b * d->key_unit;

		for (e = b + 1;
		     e < nblk && ((data[e / 64] >> (e % 64)) & 1) == is_data;
		     e++)
			;
		if (!is_data)
			continue;
		err = e4t_pread_full(d->fd, d->buf + off,
				     (size_t)(e - b) * d->key_unit,
				     d->offset + start + off, &got);
		if (!err && got)
			err = append_key(d, start + off, d->buf + off, got);
		if (err)
			return err;
	}
	if (!holes)
		return 0;
	h = hole_get(d, r);
	if (!h)
		return ENOMEM;
	for (b = 0; b < HOLE_WORDS; b++)
		h->bits[b] = mapped[b] & ~data[b];
	return bit_set(&d->holey, &d->holey_words, r);
}

/*
 * Hole blocks of region r that [off, off + len) touches and that are not
 * saved yet: saved as zeros (what they read as), a key for each run.
 */
static errcode_t save_holes(struct undo_data *d, uint64_t r, uint64_t off,
			    uint64_t len)
{
	uint64_t start = r * d->region;
	uint64_t lo = off > start ? off - start : 0;
	uint64_t hi = off + len - start; /* past the region: clipped */
	struct hole_ent *h = hole_get(d, r);
	unsigned b, e, last, left = 0;
	errcode_t err;

	if (!h)
		return ENOMEM;
	if (hi > d->region)
		hi = d->region;
	last = (unsigned)((hi - 1) / d->key_unit);
	for (b = (unsigned)(lo / d->key_unit); b <= last; b = e) {
		size_t n;

		if (!(h->bits[b / 64] & (1ULL << (b % 64)))) {
			e = b + 1;
			continue;
		}
		for (e = b + 1;
		     e <= last && (h->bits[e / 64] & (1ULL << (e % 64))); e++)
			;
		n = (size_t)(e - b) * d->key_unit;
		memset(d->buf, 0, n);
		err = append_key(d, start + (uint64_t)b * d->key_unit, d->buf,
				 n);
		if (err)
			return err;
		for (; b < e; b++)
			h->bits[b / 64] &= ~(1ULL << (b % 64));
	}
	for (b = 0; b < HOLE_WORDS; b++)
		left |= h->bits[b] != 0;
	if (!left)
		d->holey[r / 64] &= ~(1ULL << (r % 64));
	return 0;
}

/* Save every region that [off, off + len) touches and is not saved yet. */
static errcode_t save_range(io_channel ch, uint64_t off, uint64_t len)
{
	struct undo_data *d = ch->private_data;
	uint64_t r, last;
	errcode_t err;

	if (d->failed)
		return d->failed;
	if (d->undo_fd < 0 || !len)
		return 0;
	last = (off + len - 1) / d->region;
	for (r = off / d->region; r <= last; r++) {
		err = 0;
		if (!bit_test(d->saved, d->saved_words, r)) {
			err = save_region(d, r, (unsigned)ch->block_size);
			if (!err)
				err = bit_set(&d->saved, &d->saved_words, r);
		}
		if (!err && bit_test(d->holey, d->holey_words, r))
			err = save_holes(d, r, off, len);
		if (err) {
			/*
			 * The key of a half-saved region may be in memory but
			 * not in the file: from now on the file stays as the
			 * last whole save left it, and nothing more is
			 * written to the image (that region was not).
			 */
			d->failed = err;
			return err;
		}
	}
	return 0;
}

#ifdef E4T_TEST_HOOKS
/*
 * Test hook, for tests/test_crash.sh, built only with ./configure
 * --enable-test-hooks (a release build has none): with
 * E4TIME_TEST_KILL_AFTER=N in
 * the environment (E4TIME_TEST_STOP_AFTER=N), the process sends itself
 * SIGKILL (SIGSTOP) right after the Nth write to the image has returned,
 * so that a test can stop a writer at an exact point and check the image
 * and the undo file there.  Read once, when a channel is opened to
 * write; one comparison per image write when unset.  A transaction's
 * commit makes several writes, each counted.
 */
static void hook_setup(struct undo_data *d)
{
	static const struct {
		const char *name;
		int sig;
	} hooks[] = { { "E4TIME_TEST_KILL_AFTER", SIGKILL },
		      { "E4TIME_TEST_STOP_AFTER", SIGSTOP } };
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		v = getenv(hooks[i].name);
		char *end;
		unsigned long n;

		if (!v || !*v)
			continue;
		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || *end || !n)
			continue;
		d->hook_after = n;
		d->hook_sig = hooks[i].sig;
	}
	v = getenv("E4TIME_TEST_KILL_IN_SUPER");
	if (v)
		d->hook_super = strtoul(v, NULL, 10);
}

static void hook_image_write(struct undo_data *d)
{
	if (d->hook_after && ++d->image_writes == d->hook_after)
		raise(d->hook_sig);
}

/*
 * E4TIME_TEST_KILL_IN_SUPER=N: the Nth write over the superblock kills
 * e4time's process group (SIGKILL) once its child has written the image
 * and before it writes the undo file: a pipe that the child writes to
 * then.  The point that image_pwrite() closes, made certain.
 */
static void hook_super_begin(struct undo_data *d, int tell[2])
{
	if (d->hook_super && ++d->super_writes == d->hook_super && pipe(tell)) {
		tell[0] = -1;
		tell[1] = -1;
	}
}

static void hook_super_told(const int tell[2])
{
	if (tell[1] >= 0 && write(tell[1], "w", 1) != 1)
		return; /* the parent reads nothing and does not kill */
}

static void hook_super_kill(const int tell[2])
{
	char c;

	if (tell[0] >= 0 && read(tell[0], &c, 1) == 1)
		kill(0, SIGKILL);
}
#else
static void hook_setup(struct undo_data *d)
{
	(void)d;
}

static void hook_image_write(struct undo_data *d)
{
	(void)d;
}

static void hook_super_begin(struct undo_data *d, int tell[2])
{
	(void)d;
	(void)tell;
}

static void hook_super_told(const int tell[2])
{
	(void)tell;
}

static void hook_super_kill(const int tell[2])
{
	(void)tell;
}
#endif

static void txn_drop(struct undo_data *d);

static void free_channel(io_channel ch)
{
	struct undo_data *d = ch->private_data;

	if (d) {
		if (d->fd >= 0)
			close(d->fd);
		if (d->undo_fd >= 0)
			close(d->undo_fd);
		free(d->saved);
		free(d->holey);
		free(d->holes);
		free(d->keyb);
		free(d->buf);
		free(d->map);
		free(d->hold_buf);
		txn_drop(d);
		e4t_jw_free(d->jw);
		free(d);
	}
	free(ch->name);
	free(ch);
}

static errcode_t undo_open(const char *name, int flags, io_channel *ret)
{
	io_channel ch;
	struct undo_data *d;
	struct stat st;
	int oflags = O_CLOEXEC | ((flags & IO_FLAG_RW) ? O_RDWR : O_RDONLY);
	void *mem;

	*ret = NULL;
	if (!name)
		return EXT2_ET_BAD_DEVICE_NAME;
	ch = calloc(1, sizeof(*ch));
	d = calloc(1, sizeof(*d));
	if (!ch || !d) {
		free(ch);
		free(d);
		return ENOMEM;
	}
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = e4t_undo_io_manager;
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->private_data = d;
	d->magic = EXT2_ET_MAGIC_UNIX_IO_CHANNEL;
	d->undo_fd = -1;
	d->stats.num_fields = 2;
	ch->name = strdup(name);
	if (flags & IO_FLAG_EXCLUSIVE)
		oflags |= O_EXCL;
	d->fd = open(name, oflags);
	if (!ch->name || d->fd < 0) {
		errcode_t err = ch->name ? errno : ENOMEM;

		free_channel(ch);
		return err;
	}
	/* The view's extents set up for this open, if any. */
	d->map = next_map;
	d->map_n = next_map_n;
	next_map = NULL;
	next_map_n = 0;
	if (d->map && map_origin(d)) {
		free_channel(ch);
		return EXT2_ET_INVALID_ARGUMENT;
	}
	if (!fstat(d->fd, &st) && S_ISBLK(st.st_mode))
		ch->flags |= CHANNEL_FLAGS_BLOCK_DEVICE;
	else if (S_ISREG(st.st_mode))
		d->sparse = 1; /* until lseek says it has no SEEK_HOLE */
	/* The undo file set up for this open, if it writes. */
	if ((flags & IO_FLAG_RW) && (next_undo_path || next_undo_fd >= 0)) {
		d->region = next_region;
		d->keys_per_block = d->region / sizeof(struct undo_key) - 1;
		d->key_blk = UNDO_FIRST_KEY_BLK;
		d->next_blk = UNDO_FIRST_KEY_BLK + 1;
		d->keyb = calloc(1, d->region);
		if (posix_memalign(&mem, UNDO_PAGE, d->region))
			mem = NULL;
		d->buf = mem;
		d->direct = 1;
		if (next_undo_fd >= 0)
			d->undo_fd = fcntl(next_undo_fd, F_DUPFD_CLOEXEC, 0);
		else
			d->undo_fd = open(
				next_undo_path,
				O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		free(next_undo_path);
		next_undo_path = NULL;
		next_undo_fd = -1;
		if (!d->keyb || !d->buf || d->undo_fd < 0) {
			errcode_t err = d->undo_fd < 0 ? errno : ENOMEM;

			free_channel(ch);
			return err;
		}
	}
	if (flags & IO_FLAG_RW)
		hook_setup(d);
	*ret = ch;
	return 0;
}

static errcode_t undo_close(io_channel ch)
{
	struct undo_data *d = ch->private_data;
	errcode_t err = 0;

	if (--ch->refcount > 0)
		return 0;
	if (d->undo_fd >= 0) {
		if (!d->started) /* nothing saved: a valid, empty file */
			d->key_unit = (unsigned)ch->block_size;
		/* After a failed save, the file as the last whole one left
		 * it (what is in memory may name data it does not hold). */
		if (d->failed)
			err = fsync(d->undo_fd) ? undo_err(errno) : 0;
		else
			err = write_indexes(d, 1);
		if (close(d->undo_fd) && !err)
			err = errno;
		d->undo_fd = -1;
	}
	free_channel(ch);
	return err;
}

static errcode_t undo_set_blksize(io_channel ch, int blksize)
{
	if (blksize < E2UNDO_MIN_BLOCK_SIZE || blksize > E2UNDO_MAX_BLOCK_SIZE)
		return EXT2_ET_INVALID_ARGUMENT;
	ch->block_size = blksize;
	return 0;
}

static uint64_t byte_count(io_channel ch, int count)
{
	return count < 0 ? (uint64_t) - (int64_t)count
			 : (uint64_t)count * (uint64_t)ch->block_size;
}

/*
 * Read size bytes at off of the filesystem from the image, piece by
 * piece where the view's extents place them (one piece without a map);
 * past the end, zeros and EXT2_ET_SHORT_READ.  *got: bytes read.
 */
static errcode_t read_image(struct undo_data *d, uint64_t off, uint64_t size,
			    void *buf, size_t *got_ret)
{
	size_t got = 0;
	errcode_t err = 0;

	while (got < size && !err) {
		uint64_t rel = 0, contig = 0;
		size_t n, one = 0;

		err = locate(d, off + got, &rel, &contig);
		if (err == EXT2_ET_SHORT_READ)
			err = 0;
		if (err || !contig)
			break;
		n = contig < size - got ? (size_t)contig : (size_t)(size - got);
		err = e4t_pread_full(d->fd, (char *)buf + got, n,
				     d->offset + rel, &one);
		got += one;
		if (one < n)
			break;
	}
	d->stats.bytes_read += got;
	if (!err && got < size) {
		memset((char *)buf + got, 0, size - got);
		err = EXT2_ET_SHORT_READ;
	}
	*got_ret = got;
	return err;
}

/* The first block of the transaction at or after blk: its index. */
static size_t txn_find(const struct undo_data *d, blk64_t blk)
{
	size_t lo = 0, hi = d->tx_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->tx[mid].blk < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What the transaction wrote in [off, off + size): over buf. */
static void txn_overlay(const struct undo_data *d, uint64_t off, uint64_t size,
			void *buf)
{
	uint64_t bs = d->jw->blocksize;
	size_t i;

	for (i = txn_find(d, off / bs); i < d->tx_n; i++) {
		uint64_t bo = d->tx[i].blk * bs;
		uint64_t lo = off > bo ? off : bo;
		uint64_t hi = off + size < bo + bs ? off + size : bo + bs;

		if (bo >= off + size)
			break;
		if (lo < hi)
			memcpy((char *)buf + (lo - off),
			       d->tx[i].data + (lo - bo), (size_t)(hi - lo));
	}
}

static errcode_t undo_read_blk64(io_channel ch, unsigned long long block,
				 int count, void *buf)
{
	struct undo_data *d = ch->private_data;
	uint64_t size = byte_count(ch, count);
	uint64_t off = block * (uint64_t)ch->block_size;
	size_t got = 0;
	errcode_t err;

	err = read_image(d, off, size, buf, &got);
	if (!err && d->hold_dirty) { /* what was written there, held */
		uint64_t lo = off > d->hold_off ? off : d->hold_off;
		uint64_t hi = off + size < d->hold_off + d->hold_len
				      ? off + size
				      : d->hold_off + d->hold_len;

		if (lo < hi)
			memcpy((char *)buf + (lo - off),
			       d->hold_buf + (lo - d->hold_off),
			       (size_t)(hi - lo));
	}
	if (!err && d->txn)
		txn_overlay(d, off, size, buf);
	if (err && ch->read_error)
		err = ch->read_error(ch, (unsigned long)block, count, buf, size,
				     (int)got, err);
	return err;
}

static errcode_t undo_read_blk(io_channel ch, unsigned long block, int count,
			       void *buf)
{
	return undo_read_blk64(ch, block, count, buf);
}

/*
 * Write [off, off + size) of the filesystem, piece by piece where the
 * view's extents place them (one piece without a map): the old contents
 * of each first, in the undo file and in its header.
 */
static errcode_t write_range(struct undo_data *d, io_channel ch, uint64_t off,
			     const void *buf, uint64_t size)
{
	uint64_t done = 0;
	errcode_t err = 0;

	while (done < size && !err) {
		uint64_t rel = 0, contig = 0, n;

		err = locate(d, off + done, &rel, &contig);
		if (err == EXT2_ET_SHORT_READ)
			err = EXT2_ET_SHORT_WRITE; /* past the view's end */
		if (err)
			break;
		n = contig < size - done ? contig : size - done;
		err = save_range(ch, rel, n);
		if (!err)
			err = image_pwrite(d, (const char *)buf + done,
					   (size_t)n, rel);
		if (!err)
			start_writeback(d->fd, d->offset + rel, n);
		done += n;
	}
	return err;
}

/*
 * write_range(), but the part inside the held range (if any) goes into
 * hold_buf, to be written when the hold ends.
 */
static errcode_t write_held(struct undo_data *d, io_channel ch, uint64_t off,
			    const void *buf, uint64_t size)
{
	const char *b = buf;
	uint64_t hend = d->hold_off + d->hold_len, end = off + size;
	uint64_t head, tail; /* bytes before and after the held range */
	errcode_t err = 0;

	if (!d->hold_len || off >= hend || end <= d->hold_off)
		return write_range(d, ch, off, buf, size);
	head = d->hold_off > off ? d->hold_off - off : 0;
	tail = end > hend ? end - hend : 0;
	if (head)
		err = write_range(d, ch, off, b, head);
	if (!err && tail)
		err = write_range(d, ch, hend, b + (size - tail), tail);
	if (!err) {
		memcpy(d->hold_buf + (off + head - d->hold_off), b + head,
		       (size_t)(size - head - tail));
		d->hold_dirty = 1;
	}
	return err;
}

/*
 * One write to the image, not held: saved first, written (a superblock
 * with its copy in the undo file), counted (and the test hook).
 */
static errcode_t image_write(struct undo_data *d, io_channel ch, uint64_t off,
			     const void *buf, uint64_t size)
{
	errcode_t err = write_range(d, ch, off, buf, size);

	if (!err) {
		d->stats.bytes_written += size;
		hook_image_write(d);
	}
	return err;
}

static errcode_t txn_put(struct undo_data *d, uint64_t off, const void *buf,
			 uint64_t size);

/* A write of the filesystem's users: into the transaction, held, or to
 * the image. */
static errcode_t write_any(struct undo_data *d, io_channel ch, uint64_t off,
			   const void *buf, uint64_t size)
{
	errcode_t err;

	if (d->txn)
		return txn_put(d, off, buf, size);
	err = write_held(d, ch, off, buf, size);
	if (!err) {
		d->stats.bytes_written += size;
		hook_image_write(d);
	}
	return err;
}

static errcode_t undo_write_blk64(io_channel ch, unsigned long long block,
				  int count, const void *buf)
{
	struct undo_data *d = ch->private_data;
	uint64_t size = byte_count(ch, count);
	errcode_t err;

	err = write_any(d, ch, block * (uint64_t)ch->block_size, buf, size);
	if (err && ch->write_error)
		err = ch->write_error(ch, (unsigned long)block, count, buf,
				      size, 0, err);
	return err;
}

static errcode_t undo_write_blk(io_channel ch, unsigned long block, int count,
				const void *buf)
{
	return undo_write_blk64(ch, block, count, buf);
}

static errcode_t undo_write_byte(io_channel ch, unsigned long offset, int size,
				 const void *buf)
{
	struct undo_data *d = ch->private_data;

	if (size < 0)
		return EXT2_ET_INVALID_ARGUMENT;
	return write_any(d, ch, offset, buf, (uint64_t)size);
}

static errcode_t undo_flush(io_channel ch)
{
	struct undo_data *d = ch->private_data;

	return fsync(d->fd) ? errno : 0;
}

/*
 * "e4t_hold" OFF:LEN: from now on, writes to those bytes of the
 * filesystem are held back (reads see them); "e4t_hold" "release":
 * what was held is written, and the hold ends; "drop": the hold ends
 * and what was held is never written (the change failed).  A change of several
 * blocks (an inode that moves its xattrs to a new block) then reaches
 * the image in an order a crash cannot hurt: the new block and the
 * bitmaps first, the inode that points to them last.
 */
static errcode_t hold_option(io_channel ch, const char *arg)
{
	struct undo_data *d = ch->private_data;
	unsigned long long off, len;
	errcode_t err = 0;
	char *end;

	if (!strcmp(arg, "release") || !strcmp(arg, "drop")) {
		if (d->hold_dirty && !strcmp(arg, "release")) {
			off = d->hold_off;
			len = d->hold_len;
			d->hold_len = 0; /* write through now */
			err = image_write(d, ch, off, d->hold_buf, len);
		}
		d->hold_len = 0;
		d->hold_dirty = 0;
		return err;
	}
	if (d->hold_len)
		return EXT2_ET_INVALID_ARGUMENT;
	errno = 0;
	off = strtoull(arg, &end, 10);
	if (errno || *end != ':')
		return EXT2_ET_INVALID_ARGUMENT;
	len = strtoull(end + 1, &end, 10);
	if (errno || *end || !len || len > E2UNDO_MAX_BLOCK_SIZE ||
	    len % ch->block_size || off % ch->block_size)
		return EXT2_ET_INVALID_ARGUMENT;
	free(d->hold_buf);
	d->hold_buf = malloc(len);
	if (!d->hold_buf)
		return ENOMEM;
	err = undo_read_blk64(ch, off / ch->block_size,
			      (int)(len / ch->block_size), d->hold_buf);
	if (err)
		return err;
	d->hold_off = off;
	d->hold_len = len;
	d->hold_dirty = 0;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Transactions                                                        */
/* ------------------------------------------------------------------ */

static void txn_drop(struct undo_data *d)
{
	size_t i;

	for (i = 0; i < d->tx_n; i++)
		free(d->tx[i].data);
	free(d->tx);
	d->tx = NULL;
	d->tx_n = d->tx_cap = 0;
	d->txn = 0;
}

/* Into the transaction: whole blocks, read from the image first when
 * written in part. */
static errcode_t txn_put(struct undo_data *d, uint64_t off, const void *buf,
			 uint64_t size)
{
	const uint64_t bs = d->jw->blocksize, end = off + size;
	const char *b = buf;
	errcode_t err;

	while (off < end) {
		blk64_t blk = off / bs;
		uint64_t lo = off - blk * bs;
		uint64_t n = bs - lo < end - off ? bs - lo : end - off;
		size_t i = txn_find(d, blk), got;

		if (i == d->tx_n || d->tx[i].blk != blk) {
			unsigned char *data = malloc(bs);

			if (!data || e4t_grow(&d->tx, &d->tx_cap, d->tx_n + 1,
					      sizeof(*d->tx), 16)) {
				free(data);
				return ENOMEM;
			}
			if (n < bs) {
				err = read_image(d, blk * bs, bs, data, &got);
				if (err) {
					free(data);
					return err;
				}
			}
			memmove(d->tx + i + 1, d->tx + i,
				(d->tx_n - i) * sizeof(*d->tx));
			d->tx[i].blk = blk;
			d->tx[i].data = data;
			d->tx_n++;
		}
		memcpy(d->tx[i].data + lo, b, (size_t)n);
		b += n;
		off += n;
	}
	return 0;
}

/*
 * Before a commit writes anything: the image's space for [off, off + size)
 * of the filesystem reserved (a sparse image's holes there allocated, as
 * zeros: what they read as), and their old contents saved in the undo
 * file.  Then the commit's writes need no new space, in the image or in
 * the undo file: a full disk stops it before its first write.
 */
static errcode_t txn_prepare(struct undo_data *d, io_channel ch, uint64_t off,
			     uint64_t size)
{
	uint64_t done = 0;
	errcode_t err = 0;

	while (done < size && !err) {
		uint64_t rel = 0, contig = 0, n;

		err = locate(d, off + done, &rel, &contig);
		if (err == EXT2_ET_SHORT_READ)
			err = EXT2_ET_SHORT_WRITE;
		if (err)
			break;
		n = contig < size - done ? contig : size - done;
		err = save_range(ch, rel, n);
		if (!err &&
		    fallocate(d->fd, FALLOC_FL_KEEP_SIZE,
			      (off_t)(d->offset + rel), (off_t)n) &&
		    (errno == ENOSPC || errno == EDQUOT))
			err = errno;
		done += n;
	}
	return err;
}

static errcode_t sync_image(struct undo_data *d)
{
	return fdatasync(d->fd) ? errno : 0;
}

/* Runs of consecutive filesystem blocks: from b, the end of its run. */
static size_t run_end(const blk64_t *blk, size_t b, size_t n)
{
	size_t e;

	for (e = b + 1; e < n && blk[e] == blk[e - 1] + 1; e++)
		;
	return e;
}

/* The ext4 superblock as it is on the image, with needs_recovery set
 * or cleared, written back. */
static errcode_t write_recover(struct undo_data *d, io_channel ch, int on)
{
	uint8_t sb[SUPERBLOCK_SIZE];
	size_t got;
	errcode_t err =
		read_image(d, SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE, sb, &got);

	if (err)
		return err;
	e4t_jw_set_recover(sb, on);
	return image_write(d, ch, SUPERBLOCK_OFFSET, sb, SUPERBLOCK_SIZE);
}

/*
 * One jbd2 transaction of the n blocks t (see txn_option()): the log
 * (descriptors, copies, commit block) at the journal's first log blocks;
 * needs_recovery set and the journal superblock pointing at the log;
 * the blocks in place (the superblock's with needs_recovery still set);
 * the journal superblock clean (the next tid), needs_recovery cleared.
 * The image is synced between the steps.  Killed anywhere, the image
 * holds the old blocks, or a log that the kernel and e2fsck replay.
 */
static errcode_t txn_commit_one(struct undo_data *d, io_channel ch,
				const struct txn_blk *t, size_t n)
{
	struct e4t_jw *jw = d->jw;
	const uint64_t bs = jw->blocksize;
	const uint32_t tid = jw->sequence, nlog = e4t_jw_log_blocks(jw, n);
	const blk64_t sb_blk = SUPERBLOCK_OFFSET / bs;
	const size_t sb_at = SUPERBLOCK_OFFSET % bs;
	uint8_t jsb[JBD2_SB_SIZE], *log, *run;
	const uint8_t **data;
	blk64_t *blks, *lblk;
	struct timespec now;
	size_t i, e;
	errcode_t err;

	log = malloc((size_t)nlog * bs);
	run = malloc(n * bs);
	data = malloc(n * sizeof(*data));
	blks = malloc(n * sizeof(*blks));
	lblk = malloc(nlog * sizeof(*lblk));
	err = log && run && data && blks && lblk ? 0 : ENOMEM;
	for (i = 0; !err && i < n; i++) {
		blks[i] = t[i].blk;
		data[i] = t[i].data;
	}
	for (i = 0; !err && i < nlog; i++)
		lblk[i] = jw->map[jw->first + i];
	clock_gettime(CLOCK_REALTIME, &now);
	if (!err)
		err = e4t_jw_build(jw, tid, blks, data, n, now.tv_sec,
				   (uint32_t)now.tv_nsec, log);
	/* Everything it writes: room made and old contents saved. */
	for (i = 0; !err && i < nlog; i = e) {
		e = run_end(lblk, i, nlog);
		err = txn_prepare(d, ch, lblk[i] * bs, (e - i) * bs);
	}
	if (!err)
		err = txn_prepare(d, ch, jw->map[0] * bs, JBD2_SB_SIZE);
	if (!err)
		err = txn_prepare(d, ch, SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE);
	for (i = 0; !err && i < n; i = e) {
		e = run_end(blks, i, n);
		err = txn_prepare(d, ch, blks[i] * bs, (e - i) * bs);
	}
	/* 1: the log */
	for (i = 0; !err && i < nlog; i = e) {
		e = run_end(lblk, i, nlog);
		err = image_write(d, ch, lblk[i] * bs, log + i * bs,
				  (e - i) * bs);
	}
	if (!err)
		err = sync_image(d);
	/* 2: needs_recovery, then the journal points at the log */
	if (!err)
		err = write_recover(d, ch, 1);
	if (!err) {
		e4t_jw_sb(jw, jw->first, tid, jsb);
		err = image_write(d, ch, jw->map[0] * bs, jsb, JBD2_SB_SIZE);
	}
	if (!err)
		err = sync_image(d);
	/* 3: in place */
	for (i = 0; !err && i < n; i = e) {
		size_t k;

		e = run_end(blks, i, n);
		for (k = i; k < e; k++) {
			memcpy(run + (k - i) * bs, t[k].data, bs);
			if (t[k].blk == sb_blk)
				e4t_jw_set_recover(run + (k - i) * bs + sb_at,
						   1);
		}
		err = image_write(d, ch, blks[i] * bs, run, (e - i) * bs);
	}
	if (!err)
		err = sync_image(d);
	/* 4: the journal clean, then needs_recovery cleared */
	if (!err) {
		e4t_jw_sb(jw, 0, tid + 1, jsb);
		err = image_write(d, ch, jw->map[0] * bs, jsb, JBD2_SB_SIZE);
	}
	if (!err) {
		memcpy(jw->sb, jsb, JBD2_SB_SIZE);
		jw->sequence = tid + 1;
		err = write_recover(d, ch, 0);
	}
	free(log);
	free(run);
	free(data);
	free(blks);
	free(lblk);
	return err;
}

static errcode_t txn_commit(struct undo_data *d, io_channel ch, int split)
{
	size_t i, n, max = e4t_jw_max_blocks(d->jw);
	errcode_t err = 0;

	/* One block: one write, as without a transaction. */
	if (d->tx_n == 1)
		return image_write(d, ch, d->tx[0].blk * d->jw->blocksize,
				   d->tx[0].data, d->jw->blocksize);
	if (d->tx_n > max && !split)
		return EXT2_ET_JOURNAL_TOO_SMALL; /* nothing written */
	/* More than the journal takes: several transactions, in order. */
	for (i = 0; i < d->tx_n && !err; i += n) {
		n = d->tx_n - i < max ? d->tx_n - i : max;
		err = txn_commit_one(d, ch, d->tx + i, n);
	}
	return err;
}

/*
 * "e4t_txn" "begin": from now on, writes are kept in memory (reads see
 * them) until "commit" writes them as one jbd2 transaction, or "abort"
 * drops them: nothing is written.  A commit of more than the journal
 * takes writes nothing and fails (EXT2_ET_JOURNAL_TOO_SMALL); "split"
 * commits them as several transactions, in block order: each block
 * whole, not all of them together (a batch of inode-table blocks).
 * EXT2_ET_OP_NOT_SUPPORTED when the channel has no journal to write through
 * (e4t_undo_io_set_journal()): the caller then writes without.  A commit that
 * fails once the log is live leaves the image to its recovery: nothing more is
 * written through the channel.
 */
static errcode_t txn_option(io_channel ch, const char *arg)
{
	struct undo_data *d = ch->private_data;
	errcode_t err;

	if (!strcmp(arg, "begin")) {
		if (!d->jw)
			return EXT2_ET_OP_NOT_SUPPORTED;
		if (d->txn || d->hold_len)
			return EXT2_ET_INVALID_ARGUMENT;
		if (d->failed)
			return d->failed;
		d->txn = 1;
		return 0;
	}
	if (!strcmp(arg, "abort")) {
		txn_drop(d);
		return 0;
	}
	if ((strcmp(arg, "commit") && strcmp(arg, "split")) || !d->txn)
		return EXT2_ET_INVALID_ARGUMENT;
	d->txn = 0;
	err = d->tx_n ? txn_commit(d, ch, !strcmp(arg, "split")) : 0;
	txn_drop(d);
	return err;
}

errcode_t e4t_undo_io_set_journal(io_channel ch, struct e4t_jw *jw)
{
	struct undo_data *d;

	if (!ch || ch->manager != e4t_undo_io_manager)
		return EXT2_ET_INVALID_ARGUMENT;
	d = ch->private_data;
	if (d->txn)
		return EXT2_ET_INVALID_ARGUMENT;
	e4t_jw_free(d->jw);
	d->jw = jw;
	return 0;
}

/*
 * "e4t_prepare" "OFF:LEN" (bytes of the filesystem): what a commit does
 * before its first write (txn_prepare()), for writes made without a
 * transaction: a batch that writes several runs of blocks prepares them
 * all first, so that a full undo file or image stops it before its first
 * write, not between two runs (whose first would then have reached the
 * image unreported).
 */
static errcode_t prepare_option(io_channel ch, const char *arg)
{
	struct undo_data *d = ch->private_data;
	unsigned long long off, len;
	char *end;

	errno = 0;
	off = strtoull(arg, &end, 10);
	if (errno || *end != ':')
		return EXT2_ET_INVALID_ARGUMENT;
	len = strtoull(end + 1, &end, 10);
	if (errno || *end || !len)
		return EXT2_ET_INVALID_ARGUMENT;
	return txn_prepare(d, ch, off, len);
}

static errcode_t undo_set_option(io_channel ch, const char *option,
				 const char *arg)
{
	struct undo_data *d = ch->private_data;
	uint64_t v;

	if (!strcmp(option, "e4t_hold"))
		return arg ? hold_option(ch, arg) : EXT2_ET_INVALID_ARGUMENT;
	if (!strcmp(option, "e4t_txn"))
		return arg ? txn_option(ch, arg) : EXT2_ET_INVALID_ARGUMENT;
	if (!strcmp(option, "e4t_prepare"))
		return arg ? prepare_option(ch, arg) : EXT2_ET_INVALID_ARGUMENT;
	if (e4t_io_offset_option(option, arg, &v) || d->started)
		return EXT2_ET_INVALID_ARGUMENT;
	if (!d->map) {
		d->offset = v;
		return 0;
	}
	/* In the view: the image position follows. */
	d->view_off = v;
	return map_origin(d);
}

static errcode_t undo_get_stats(io_channel ch, io_stats *stats)
{
	struct undo_data *d = ch->private_data;

	*stats = &d->stats;
	return 0;
}

static struct struct_io_manager struct_e4t_undo_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e4time undo I/O manager",
	.open = undo_open,
	.close = undo_close,
	.set_blksize = undo_set_blksize,
	.read_blk = undo_read_blk,
	.write_blk = undo_write_blk,
	.flush = undo_flush,
	.write_byte = undo_write_byte,
	.set_option = undo_set_option,
	.get_stats = undo_get_stats,
	.read_blk64 = undo_read_blk64,
	.write_blk64 = undo_write_blk64,
};

io_manager e4t_undo_io_manager = &struct_e4t_undo_manager;
