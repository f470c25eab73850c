/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h --- the harnesses in tests/fuzz/, one per file, each written
 *
 *	FUZZ_TARGET(name)
 *	{
 *		... use data[0..size) ...
 *		return 0;
 *	}
 *
 * and built two ways:
 *  - make fuzz (tests/fuzz/run.sh): each file alone with clang and
 *    libFuzzer (E4T_LIBFUZZER defined), FUZZ_TARGET being
 *    LLVMFuzzerTestOneInput;
 *  - make check (tests/fuzz/replay): every harness in one program, with
 *    the normal compiler and no libFuzzer, run on the files of
 *    tests/fuzz/corpus/NAME/ and tests/fuzz/regress/NAME/.
 *
 * A harness checks what it can of the result (FUZZ_CHECK): a failed
 * check, like a crash or a sanitizer report, stops the process.  data is
 * never NUL-terminated and is exactly size bytes long (so that ASan sees
 * any read past it); a harness that needs a C string copies it
 * (fuzz_cstring), one whose API opens a file (an image, a journal) gets
 * one holding the bytes (fuzz_file).
 *
 * A new harness: tests/fuzz/NAME.c and its line in FUZZ_HARNESSES
 * (Makefile.am); seeds in tests/fuzz/corpus/NAME/ (small files the
 * fuzzer mutates; without them replay runs it once on an empty input).
 * An input that once crashed it goes to tests/fuzz/regress/NAME/, which
 * make check replays.
 */
#ifndef E4TIME_FUZZ_H
#define E4TIME_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

#ifdef E4T_LIBFUZZER
#define FUZZ_TARGET(name)                                                      \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);          \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#else
void fuzz_register(const char *name, fuzz_fn fn);
#define FUZZ_TARGET(name)                                                      \
	static int fuzz_##name(const uint8_t *data, size_t size);              \
	__attribute__((constructor)) static void fuzz_register_##name(void)    \
	{                                                                      \
		fuzz_register(#name, fuzz_##name);                             \
	}                                                                      \
	static int fuzz_##name(const uint8_t *data, size_t size)
#endif

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* A malloc'd NUL-terminated copy of data (abort on ENOMEM). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		__builtin_memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The name of a file holding exactly data[0..size): one unlinked
 * temporary file per process, rewritten at each call, named through
 * /proc/self/fd (abort on error).
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		char tmpl[] = "/tmp/e4time-fuzz.XXXXXX";

		fd = mkstemp(tmpl);
		if (fd < 0 || unlink(tmpl))
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return path;
}

/*
 * images/NAME.img.xz of the source tree ($TOP_SRCDIR), decompressed into
 * an unlinked file: its fd, and in path a name that opens it
 * (/proc/self/fd/N).  For harnesses that work on a kernel-written image.
 */
static inline int fuzz_unpack_image(const char *name, char *path, size_t len)
{
	const char *top = getenv("TOP_SRCDIR");
	char tmpl[] = "/tmp/e4time-fuzz.XXXXXX", cmd[4096];
	int fd;

	if (!top) {
		fprintf(stderr, "fuzz: TOP_SRCDIR must name the source tree\n");
		abort();
	}
	fd = mkstemp(tmpl);
	if (fd < 0)
		abort();
	snprintf(cmd, sizeof(cmd), "xz -dc '%s/images/%s.img.xz' > '%s'", top,
		 name, tmpl);
	if (system(cmd) != 0) {
		fprintf(stderr, "fuzz: cannot unpack %s\n", name);
		abort();
	}
	if (unlink(tmpl))
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
