/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_undo.c --- e4time's undo I/O manager (lib/write/undo_io.c) against
 * e2fsprogs' own e2undo, and its CRC32C against libext2fs'.
 *
 * With 1 KiB regions, a few hundred scattered and contiguous writes fill
 * several key blocks (63 keys each) and extend keys up to their limit
 * (512 regions); e2undo must then give back the file byte for byte, also
 * from a run that never closed its channel (cut short: its header says
 * finished all the same, see write_indexes() in lib/write/undo_io.c).
 *
 * A sparse file, 1 MiB regions: writes into data, into holes (saved as
 * zeros when first written), across both, twice into one hole, byte-wise
 * into a hole; e2undo gives back the file byte for byte and allocates
 * nothing the run did not (st_blocks), finished or cut short.
 *
 * A view of three extents (an LVM logical volume whose segments lie
 * apart) inside the file, the filesystem at 0 or 4 KiB of it: writes
 * across the extents' ends land where each extent lies, reads come back
 * from there, nothing outside them changes; stock e2undo, given only the
 * file, gives it back byte for byte, but for a byte between the extents
 * changed after the run (another volume's), which it leaves alone.
 */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE 1 /* SEEK_DATA, SEEK_HOLE */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/e4time.h"
#include "lib/container/container.h"
#include "lib/fs/csum_int.h"
#include "lib/write/undo_io_int.h"
#include "unit.h"

#define FILE_SIZE (4U << 20)
#define REGION	  1024U

static char dev[PATH_MAX], undo[PATH_MAX + 16];
static unsigned char orig[FILE_SIZE], now[FILE_SIZE];
static unsigned char orig_sparse[6U << 20], now_sparse[6U << 20];

static void test_crc32c(void)
{
	static unsigned char buf[4096 + 8];
	uint32_t seeds[] = { ~0U, 0, 0x12345678 };
	size_t i, len, off;
	unsigned s, bad = 0, n = 0;

	srand(7);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (s = 0; s < 3; s++)
		for (off = 0; off < 8; off++)
			/* every length: the 3 interleaved streams' edges */
			for (len = 0; len <= 4096; len++, n++)
				bad += e4t_crc32c(seeds[s], buf + off, len) !=
				       ext2fs_crc32c_le(seeds[s], buf + off,
							len);
	CHECK(!bad, "crc32c: %u of %u differ from libext2fs", bad, n);
	CHECK(e4t_crc32c(~0U, buf, 4096) == ext2fs_crc32c_le(~0U, buf, 4096),
	      "crc32c: 4 KiB");
	/* over zeros without reading them, as undo_io's key blocks */
	memset(buf, 0, sizeof(buf));
	bad = n = 0;
	for (s = 0; s < 3; s++)
		for (len = 0; len <= 4096; len += len < 300 ? 1 : 97, n++)
			bad += e4t_crc32c_zeros(seeds[s], len) !=
			       ext2fs_crc32c_le(seeds[s], buf, len);
	CHECK(!bad, "crc32c over zeros: %u of %u differ from libext2fs", bad,
	      n);
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	int ok = fd >= 0 && read(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Writes through the manager: scattered, contiguous, byte-wise. */
static errcode_t scribble(io_channel ch)
{
	static unsigned char junk[1U << 20];
	errcode_t err = 0;
	unsigned i;

	memset(junk, 0xa5, sizeof(junk));
	/* every other 1 KiB block of the second MiB: 256 keys, 5 blocks */
	for (i = 0; i < 256 && !err; i++)
		err = io_channel_write_blk64(ch, 1024 + 2 * i, 1, junk);
	/* 600 KiB in one go: one key of 512 regions, one of 88 */
	if (!err)
		err = io_channel_write_blk64(ch, 2048, 600, junk);
	/* a partial block, straddling two regions */
	if (!err)
		err = io_channel_write_byte(ch, 3 * 1024 * 1024 - 10, 30, junk);
	/* the same region again: saved once */
	if (!err)
		err = io_channel_write_blk64(ch, 1024, 1, junk + 7);
	return err;
}

static int replay(void)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "e2undo '%s' '%s' >/dev/null 2>&1", undo,
		 dev);
	return system(cmd);
}

/*
 * Write dev through the undo manager with fn: to the end and closed
 * (finish), or in a child that exits with the channel never closed (a
 * run that stops dead).  0, or -1 when the channel did not open.
 */
static int run_writer(const char *path, int finish,
		      errcode_t (*fn)(io_channel ch), const char *what)
{
	io_channel ch;
	errcode_t err;

	if (finish) {
		err = e4t_undo_io_manager->open(path, IO_FLAG_RW, &ch);
		CHECK(!err, "open: %s", error_message(err));
		if (err)
			return -1;
		io_channel_set_blksize(ch, 1024);
		err = fn(ch);
		CHECK(!err, "%s: %s", what, error_message(err));
		err = io_channel_close(ch);
		CHECK(!err, "close: %s", error_message(err));
	} else {
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			if (e4t_undo_io_manager->open(path, IO_FLAG_RW, &ch))
				_exit(1);
			io_channel_set_blksize(ch, 1024);
			_exit(fn(ch) ? 1 : 0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
			      WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "interrupted %s", what);
	}
	return 0;
}

static void test_undo(int finish)
{
	errcode_t err;

	CHECK(!write_file(dev, orig, sizeof(orig)), "write %s", dev);
	unlink(undo);
	err = e4t_undo_io_setup(undo, REGION);
	CHECK(!err, "setup: %s", error_message(err));
	if (run_writer(dev, finish, scribble, "writes"))
		return;
	CHECK(!read_file(dev, now, sizeof(now)) &&
		      memcmp(now, orig, sizeof(now)),
	      "the writes changed the file");
	/* e2undo marks an unfinished file's filesystem not clean */
	CHECK(!read_file(undo, now, 48) && (now[44] & 1),
	      "the header says finished (%s)",
	      finish ? "finished" : "unfinished");
	CHECK(replay() == 0, "e2undo (%s)", finish ? "finished" : "unfinished");
	CHECK(!read_file(dev, now, sizeof(now)) &&
		      !memcmp(now, orig, sizeof(now)),
	      "e2undo gives back the file byte for byte (%s)",
	      finish ? "finished" : "unfinished");
}

/* The extents, in KiB: the third lies between the first and the second,
 * 1 KiB after the first (a gap inside one 4 KiB region). */
#define KIB(n) ((uint64_t)(n) << 10)
static const struct e4t_extent map_ext[] = {
	{ KIB(0), KIB(1000), KIB(300) },
	{ KIB(300), KIB(2500), KIB(200) },
	{ KIB(500), KIB(1301), KIB(500) },
};
#define MAP_N (sizeof(map_ext) / sizeof(map_ext[0]))
#define JUNK  0x5a
static uint64_t map_voff; /* the filesystem's place in the view */

/* Where byte v of the view is in the file. */
static uint64_t map_view(uint64_t v)
{
	size_t i;

	for (i = 0; i < MAP_N; i++)
		if (v >= map_ext[i].lstart &&
		    v - map_ext[i].lstart < map_ext[i].len)
			return map_ext[i].pstart + (v - map_ext[i].lstart);
	return UINT64_MAX;
}

/* What scribble_map() writes, in bytes of the view. */
static const uint64_t map_writes[][2] = {
	{ KIB(290), KIB(20) },	   /* across the first extent's end */
	{ KIB(500) - 1000, 2000 }, /* byte-wise, across the second's */
	{ KIB(5), KIB(1) },	   /* the superblock's neighbour */
	{ KIB(900), KIB(3) },
};

static errcode_t scribble_map(io_channel ch)
{
	static unsigned char junk[KIB(64)], back[KIB(64)];
	char opt[32];
	errcode_t err;
	size_t i;

	memset(junk, JUNK, sizeof(junk));
	snprintf(opt, sizeof(opt), "offset=%llu", (unsigned long long)map_voff);
	err = io_channel_set_options(ch, opt);
	for (i = 0; i < 4 && !err; i++) {
		uint64_t at = map_writes[i][0] - map_voff, n = map_writes[i][1];

		if (at % 1024 || n % 1024)
			err = io_channel_write_byte(ch, (unsigned long)at,
						    (int)n, junk);
		else
			err = io_channel_write_blk64(ch, at / 1024,
						     (int)(n / 1024), junk);
	}
	/* read back across the first extent's end */
	if (!err)
		err = io_channel_read_blk64(ch, (KIB(290) - map_voff) / 1024,
					    20, back);
	if (!err && memcmp(back, junk, KIB(20)))
		err = EXT2_ET_SHORT_READ;
	return err;
}

static void test_map(uint64_t voff, int finish)
{
	static unsigned char want[FILE_SIZE];
	uint64_t gap = KIB(1300);
	errcode_t err;
	size_t i, j;

	map_voff = voff;
	CHECK(!write_file(dev, orig, sizeof(orig)), "write %s", dev);
	unlink(undo);
	err = e4t_undo_io_setup(undo, 4096);
	if (!err)
		err = e4t_undo_io_setup_map(map_ext, MAP_N);
	CHECK(!err, "setup: %s", error_message(err));
	if (run_writer(dev, finish, scribble_map, "writes through a view"))
		return;
	memcpy(want, orig, sizeof(want));
	for (i = 0; i < 4; i++)
		for (j = 0; j < map_writes[i][1]; j++)
			want[map_view(map_writes[i][0] + j)] = JUNK;
	CHECK(!read_file(dev, now, sizeof(now)) &&
		      !memcmp(now, want, sizeof(now)),
	      "writes land where the extents lie, nothing else changes "
	      "(at %llu, %s)",
	      (unsigned long long)voff, finish ? "finished" : "unfinished");
	/* another volume's byte, between the extents, changes */
	now[gap] ^= 0xff;
	CHECK(!write_file(dev, now, sizeof(now)), "write %s", dev);
	CHECK(replay() == 0, "e2undo, a view at %llu",
	      (unsigned long long)voff);
	memcpy(want, orig, sizeof(want));
	want[gap] ^= 0xff;
	CHECK(!read_file(dev, now, sizeof(now)) &&
		      !memcmp(now, want, sizeof(now)),
	      "e2undo gives back the view's bytes, and only them (at %llu, "
	      "%s)",
	      (unsigned long long)voff, finish ? "finished" : "unfinished");
}

#define SPARSE_SIZE (6U << 20)

/* The data of the sparse file: runs at these KiB, this many KiB long. */
static const unsigned sparse_runs[][2] = {
	{ 4, 4 }, { 400, 200 }, { 1024, 1024 }, { 3000, 8 }, { 4100, 40 },
};

static long long blocks_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_blocks;
}

static errcode_t scribble_sparse(io_channel ch)
{
	static unsigned char junk[64 << 10];
	errcode_t err;

	memset(junk, 0x5a, sizeof(junk));
	/* data; a hole; data then hole; the hole again; a hole byte-wise;
	 * a region with no data at all (the sixth MiB) */
	err = io_channel_write_blk64(ch, 410, 2, junk);
	if (!err)
		err = io_channel_write_blk64(ch, 100, 3, junk);
	if (!err)
		err = io_channel_write_blk64(ch, 596, 12, junk);
	if (!err)
		err = io_channel_write_blk64(ch, 101, 1, junk + 9);
	if (!err)
		err = io_channel_write_byte(ch, 3500 * 1024 + 100, 7, junk);
	if (!err)
		err = io_channel_write_blk64(ch, 5500, 16, junk);
	return err;
}

static void test_sparse(int finish)
{
	const char *how = finish ? "finished" : "cut short";
	long long run_blocks;
	int holes;
	errcode_t err;
	size_t i;
	int fd;

	unlink(dev);
	unlink(undo);
	fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, SPARSE_SIZE) == 0, "sparse file");
	if (fd < 0)
		return;
	for (i = 0; i < sizeof(sparse_runs) / sizeof(sparse_runs[0]); i++)
		CHECK(pwrite(fd, orig, sparse_runs[i][1] * 1024,
			     (off_t)sparse_runs[i][0] * 1024) ==
			      (ssize_t)sparse_runs[i][1] * 1024,
		      "data run %zu", i);
	/* Where the file system keeps no holes, or lseek does not show
	 * them, regions are saved whole: only the bytes can be checked. */
	holes = lseek(fd, 0, SEEK_DATA) == 4096 &&
		blocks_of(dev) < 2 * 1400 * 2;
	if (!holes && finish)
		printf("SKIP: %s keeps no holes: only the bytes are checked\n",
		       dev);
	close(fd);
	CHECK(!read_file(dev, orig_sparse, SPARSE_SIZE), "read back");
	err = e4t_undo_io_setup(undo, 1U << 20);
	CHECK(!err, "setup: %s", error_message(err));
	if (run_writer(dev, finish, scribble_sparse, "sparse writes"))
		return;
	/* on disk: an extent tree block comes with writeback, not before */
	fd = open(dev, O_RDONLY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	run_blocks = blocks_of(dev);
	CHECK(!read_file(dev, now_sparse, SPARSE_SIZE) &&
		      memcmp(now_sparse, orig_sparse, SPARSE_SIZE),
	      "the sparse writes changed the file (%s)", how);
	CHECK(replay() == 0, "e2undo, sparse (%s)", how);
	CHECK(!read_file(dev, now_sparse, SPARSE_SIZE) &&
		      !memcmp(now_sparse, orig_sparse, SPARSE_SIZE),
	      "e2undo gives back the sparse file byte for byte (%s)", how);
	if (!holes)
		return;
	CHECK(blocks_of(dev) <= run_blocks,
	      "e2undo allocated nothing new (%s): %lld blocks, %lld after the "
	      "run",
	      how, blocks_of(dev), run_blocks);
	/* the first MiB's holes that were not written are holes still */
	fd = open(dev, O_RDONLY);
	CHECK(fd >= 0 && lseek(fd, 200 * 1024, SEEK_DATA) == 400 * 1024,
	      "unwritten holes stay holes (%s)", how);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	size_t i;

	test_crc32c();
	if (!tmp)
		tmp = "/tmp";
	snprintf(dev, sizeof(dev), "%s/e4time-unit-undo.%ld.img", tmp,
		 (long)getpid());
	snprintf(undo, sizeof(undo), "%s.e2undo", dev);
	srand(11);
	for (i = 0; i < sizeof(orig); i++)
		orig[i] = (unsigned char)rand();
	if (system("command -v e2undo >/dev/null 2>&1") == 0) {
		test_undo(1);
		test_undo(0);
		test_sparse(1);
		test_sparse(0);
		test_map(0, 1);
		test_map(KIB(4), 1);
		test_map(KIB(4), 0);
	} else {
		printf("SKIP: e2undo not installed\n");
	}
	unlink(dev);
	unlink(undo);
	return unit_report("unit_undo");
}
