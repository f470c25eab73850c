/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container_cat.c --- the container layer seen from a shell, for
 * tests/test_containers_src.sh:
 *
 *   container_cat PATH                  "KIND_NAME SIZE PIECES"
 *   container_cat -d [-o OFF] [-l LEN] [-s SIZE] [-c KIB] PATH
 *                                       bytes [OFF, OFF+LEN) to stdout
 *                                       (default: all of them), read
 *                                       SIZE bytes at a time (default
 *                                       1 MiB), through a block cache
 *                                       of KIB KiB (0: none); then
 *                                       "cache: H hits, M misses" on
 *                                       stderr
 *   container_cat -v PATH               verify the stored hashes: the
 *                                       message; status 0 they match,
 *                                       3 they do not, 4 none stored
 *
 * An error: "container_cat: MESSAGE[: WHAT]" on stderr, status 1
 * (2: usage).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

static int fail(errcode_t err, const char *what)
{
	fprintf(stderr, "container_cat: %s%s%s\n", error_message(err),
		what ? ": " : "", what ? what : "");
	return 1;
}

static int dump(struct e4t_container *c, uint64_t off, uint64_t len,
		size_t size)
{
	static char buf[1 << 20];

	if (!size || size > sizeof(buf))
		size = sizeof(buf);
	while (len) {
		size_t n = len < size ? (size_t)len : size;
		errcode_t err = e4t_container_read(c, buf, n, off);

		if (err)
			return fail(err, NULL);
		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
		off += n;
		len -= n;
	}
	return fflush(stdout) ? 1 : 0;
}

static int verify(struct e4t_container *c)
{
	char msg[512] = "";
	errcode_t err;

	if (!c->ops->verify) {
		printf("%s: no stored hash\n", c->kind_name);
		return 4;
	}
	err = c->ops->verify(c, msg, sizeof(msg));
	printf("%s%s%s\n", msg, msg[0] ? ": " : "",
	       err ? error_message(err) : "verified");
	if (err == E4T_ERR_CONTAINER_HASH || err == E4T_ERR_CONTAINER_CHUNK)
		return 3;
	if (err == E4T_ERR_CONTAINER_NO_HASH)
		return 4;
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct e4t_container *c;
	uint64_t off = 0, len = UINT64_MAX, kib = UINT64_MAX, hits, misses;
	size_t size = 0;
	int opt, mode = 0, rc;
	char *what = NULL;
	errcode_t err;

	add_error_table(&et_e4t_error_table);
	add_error_table(&et_ext2_error_table);
	while ((opt = getopt(argc, argv, "dvo:l:s:c:")) != -1) {
		switch (opt) {
		case 'd':
		case 'v': mode = opt; break;
		case 'o': off = strtoull(optarg, NULL, 0); break;
		case 'l': len = strtoull(optarg, NULL, 0); break;
		case 's': size = (size_t)strtoull(optarg, NULL, 0); break;
		case 'c': kib = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	err = e4t_container_open(argv[optind], &c, &what);
	if (err) {
		rc = fail(err, what);
		free(what);
		return rc;
	}
	if (mode == 'd') {
		if (off > c->size)
			off = c->size;
		if (len > c->size - off)
			len = c->size - off;
		if (kib != UINT64_MAX) {
			err = e4t_container_set_cache(c, kib << 10);
			if (err) {
				e4t_container_close(c);
				return fail(err, NULL);
			}
		}
		rc = dump(c, off, len, size);
		e4t_container_cache_stats(c, &hits, &misses);
		fprintf(stderr, "cache: %" PRIu64 " hits, %" PRIu64 " misses\n",
			hits, misses);
	} else if (mode == 'v') {
		rc = verify(c);
	} else {
		printf("%s %" PRIu64 " %u\n", c->kind_name, c->size, c->pieces);
		rc = 0;
	}
	e4t_container_close(c);
	return rc;
}
