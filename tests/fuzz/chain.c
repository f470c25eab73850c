/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chain.c --- e4t_container_open on a directory of files the input
 * describes: the first is the evidence, the others its backing files,
 * parents and extents (qcow2 chains, differencing VHDs, VMDK
 * descriptors and their extents), FIFOs, symbolic links and files in a
 * directory beside the evidence's (outside it, where only --parent-dir
 * lets e4time read).  Opening never blocks (a FIFO is refused, not
 * waited on), a container opened has a size and reads its first and
 * last bytes, and an error comes with its message.
 *
 * The input, entry after entry (what does not fit ends it):
 *
 *   byte 0      flags: bit 0, --parent-dir names out/
 *   then        kind (u8: 0 file, 1 FIFO, 2 symbolic link, 3 a file
 *               in out/), name length (u8), name, data length (u32
 *               little-endian), data (a link's target)
 *
 * Names and link targets keep [A-Za-z0-9._-] and '/' only (others
 * become '_'), with no "..": a target may start with "../out/" (the
 * only way out of ev/), so nothing leaves the temporary directory.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

#define MAX_FILES 24

static void clean(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			s[i] = '_';
	}
	if (n && s[0] == '.') /* no "." nor ".." */
		s[0] = '_';
}

static void put(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return;
	if (len)
		(void)fwrite(data, 1, len, f);
	fclose(f);
}

/* top's ev/ and out/, their entries first. */
static void remove_tree(const char *top)
{
	static const char *const sub[] = { "ev", "out" };
	char d[PATH_MAX], p[PATH_MAX + 256];
	unsigned i;

	for (i = 0; i < 2; i++) {
		struct dirent *e;
		DIR *dir;

		snprintf(d, sizeof(d), "%s/%s", top, sub[i]);
		dir = opendir(d);
		if (!dir)
			abort();
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
				if (unlink(p))
					abort();
			}
		closedir(dir);
		if (rmdir(d))
			abort();
	}
	if (rmdir(top))
		abort();
}

FUZZ_TARGET(chain)
{
	char top[] = "/tmp/e4time-fuzz-chain.XXXXXX";
	char first[PATH_MAX] = "", path[PATH_MAX], out[PATH_MAX + 8];
	struct e4t_container *c = NULL;
	size_t at = 1;
	unsigned n = 0;
	char *what = NULL;
	errcode_t err;

	if (!size)
		return 0;
	if (!mkdtemp(top))
		abort();
	snprintf(path, sizeof(path), "%s/ev", top);
	snprintf(out, sizeof(out), "%s/out", top);
	if (mkdir(path, 0700) || mkdir(out, 0700))
		abort();
	while (n < MAX_FILES && at + 2 <= size) {
		unsigned kind = data[at] % 4, nlen = data[at + 1];
		char name[256], target[256 + 8];
		uint32_t dlen;

		at += 2;
		if (!nlen || at + nlen + 4 > size)
			break;
		memcpy(name, data + at, nlen);
		name[nlen] = '\0';
		clean(name, nlen);
		at += nlen;
		dlen = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 |
		       (uint32_t)data[at + 2] << 16 |
		       (uint32_t)data[at + 3] << 24;
		at += 4;
		if (dlen > size - at)
			dlen = (uint32_t)(size - at);
		snprintf(path, sizeof(path), "%s/%s/%s", top,
			 kind == 3 ? "out" : "ev", name);
		switch (kind) {
		case 0:
		case 3: put(path, data + at, dlen); break;
		case 1: (void)mkfifo(path, 0600); break;
		default: {
			size_t tl = dlen > 255 ? 255 : dlen;
			int up = tl > 7 && !memcmp(data + at, "../out/", 7);

			memcpy(target, data + at, tl);
			target[tl] = '\0';
			clean(target + (up ? 7 : 0), tl - (up ? 7 : 0));
			if (!tl)
				snprintf(target, sizeof(target), "x");
			(void)symlink(target, path);
		}
		}
		at += dlen;
		if (!n++ && kind != 3)
			snprintf(first, sizeof(first), "%s", path);
	}
	if (first[0]) {
		(void)e4t_parent_allow_dir(data[0] & 1 ? out : NULL);
		err = e4t_container_open(first, &c, &what);
		if (getenv("FUZZ_CHAIN_SAY")) /* what each input meets */
			fprintf(stderr, "chain: %s%s%s\n",
				err ? error_message(err) : "opened",
				what ? ": " : "", what ? what : "");
		if (!err && c) {
			uint8_t buf[4096];
			size_t len = c->size < sizeof(buf) ? (size_t)c->size
							   : sizeof(buf);

			if (len) {
				(void)c->ops->read(c, buf, len, 0);
				(void)c->ops->read(c, buf, len, c->size - len);
			}
			e4t_container_close(c);
		} else {
			FUZZ_CHECK(err, "no container and no error");
			FUZZ_CHECK(error_message(err) && *error_message(err),
				   "error %ld has no message", (long)err);
		}
		free(what);
		(void)e4t_parent_allow_dir(NULL);
	}
	remove_tree(top);
	return 0;
}
