/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_undo.c --- e4time's undo I/O manager (lib/undo_io.c) against
 * e2fsprogs' own e2undo, and its CRC32C against libext2fs'.
 *
 * With 1 KiB regions, a few hundred scattered and contiguous writes fill
 * several key blocks (63 keys each) and extend keys up to their limit
 * (512 regions); e2undo must then give back the file byte for byte, also
 * from a run that never closed its channel (cut short: its header says
 * finished all the same, see write_indexes() in lib/undo_io.c).
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/e4time.h"
#include "lib/csum.h"
#include "lib/undo_io.h"
#include "unit.h"

#define FILE_SIZE (4U << 20)
#define REGION	  1024U

static char dev[PATH_MAX], undo[PATH_MAX + 16];
static unsigned char orig[FILE_SIZE], now[FILE_SIZE];

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
			for (len = 0; len <= 300; len++, n++)
				bad += e4t_crc32c(seeds[s], buf + off, len) !=
				       ext2fs_crc32c_le(seeds[s], buf + off,
							len);
	CHECK(!bad, "crc32c: %u of %u differ from libext2fs", bad, n);
	CHECK(e4t_crc32c(~0U, buf, 4096) == ext2fs_crc32c_le(~0U, buf, 4096),
	      "crc32c: 4 KiB");
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

static void test_undo(int finish)
{
	io_channel ch;
	errcode_t err;

	CHECK(!write_file(dev, orig, sizeof(orig)), "write %s", dev);
	unlink(undo);
	err = e4t_undo_io_setup(undo, REGION);
	CHECK(!err, "setup: %s", error_message(err));
	if (finish) {
		err = e4t_undo_io_manager->open(dev, IO_FLAG_RW, &ch);
		CHECK(!err, "open: %s", error_message(err));
		if (err)
			return;
		io_channel_set_blksize(ch, 1024);
		err = scribble(ch);
		CHECK(!err, "writes: %s", error_message(err));
		err = io_channel_close(ch);
		CHECK(!err, "close: %s", error_message(err));
	} else {
		/* A run that stops dead, its channel never closed. */
		pid_t pid = fork();
		int status = -1;

		if (pid == 0) {
			if (e4t_undo_io_manager->open(dev, IO_FLAG_RW, &ch))
				_exit(1);
			io_channel_set_blksize(ch, 1024);
			_exit(scribble(ch) ? 1 : 0);
		}
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
			      WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "interrupted writer");
	}
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
	} else {
		printf("SKIP: e2undo not installed\n");
	}
	unlink(dev);
	unlink(undo);
	return unit_report("unit_undo");
}
