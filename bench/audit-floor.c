/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * audit-floor.c --- what reading a journal costs on this machine, for
 * bench/audit.sh: the least any tool that looks at every journal block
 * pays.  Built by the script with cc -O2; x86-64 (CRC32C instruction).
 *
 *   audit-floor MODE IMAGE BLOCKSIZE START:COUNT...
 *
 * The journal is the runs of COUNT blocks from block START of IMAGE.
 * MODE: "read": pread() 1 MiB at a time (a copy out of the page cache);
 * "read+crc": the same and CRC32C of every block; "map": mmap() with
 * MAP_POPULATE (the page tables) and nothing else; "map+crc": mapped and
 * CRC32C of every block (what e4time's journal load does to each data
 * block), one stream with the instruction.  Prints seconds.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

__attribute__((target("sse4.2"))) static uint32_t
crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	return (uint32_t)c;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const size_t chunk = 1 << 20;
	uint32_t sink = 0;
	size_t bs, total = 0;
	uint8_t *buf;
	double t0;
	int fd, i, mode;

	if (argc < 5) {
		fprintf(stderr,
			"usage: %s read|read+crc|map|map+crc IMAGE "
			"BLOCKSIZE START:COUNT...\n",
			argv[0]);
		return 2;
	}
	mode = strcmp(argv[1], "read") == 0	  ? 0
	       : strcmp(argv[1], "read+crc") == 0 ? 1
	       : strcmp(argv[1], "map") == 0	  ? 2
	       : strcmp(argv[1], "map+crc") == 0  ? 3
						  : -1;
	bs = strtoul(argv[3], NULL, 10);
	fd = open(argv[2], O_RDONLY);
	buf = malloc(chunk);
	if (mode < 0 || fd < 0 || !buf || bs < 1024 || chunk % bs) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	t0 = now();
	for (i = 4; i < argc; i++) {
		unsigned long long start, count;
		size_t len, d, b;
		off_t off;

		if (sscanf(argv[i], "%llu:%llu", &start, &count) != 2)
			return 2;
		len = (size_t)count * bs;
		off = (off_t)(start * bs);
		total += len;
		if (mode <= 1) {
			for (d = 0; d < len; d += chunk) {
				size_t n = len - d < chunk ? len - d : chunk;

				if (pread(fd, buf, n, off + (off_t)d) !=
				    (ssize_t)n)
					return 1;
				for (b = 0; mode == 1 && b < n; b += bs)
					sink ^= crc32c(~0U, buf + b, bs);
				sink ^= buf[0];
			}
		} else {
			uint8_t *p = mmap(NULL, len, PROT_READ,
					  MAP_SHARED | MAP_POPULATE, fd, off);

			if (p == MAP_FAILED)
				return 1;
			for (b = 0; mode == 3 && b < len; b += bs)
				sink ^= crc32c(~0U, p + b, bs);
			munmap(p, len);
		}
	}
	printf("%.3f %zu %u\n", now() - t0, total, sink & 1);
	return 0;
}
