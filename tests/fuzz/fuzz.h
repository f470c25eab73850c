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
 * any read past it); a harness that needs a C string copies it.
 */
#ifndef E4TIME_FUZZ_H
#define E4TIME_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
