/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c --- the fuzz harnesses without libFuzzer, for make check:
 *
 *	replay			every harness on every file of
 *				$TOP_SRCDIR/tests/fuzz/corpus/NAME/ and
 *				$TOP_SRCDIR/tests/fuzz/regress/NAME/
 *	replay NAME FILE...	harness NAME on these files (a crash that
 *				libFuzzer found, under gcc or valgrind)
 *	replay -l		the harnesses' names
 *
 * Each file is one check, passed when the harness returns: a crash, a
 * failed FUZZ_CHECK or a sanitizer report stops the program, and the
 * test fails for want of its result line.  A harness without seeds is
 * run once on an empty input.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_HARNESSES 64

static struct harness {
	const char *name;
	fuzz_fn fn;
} harnesses[MAX_HARNESSES];
static size_t nharnesses;
static unsigned passed, failed;

void fuzz_register(const char *name, fuzz_fn fn)
{
	if (nharnesses == MAX_HARNESSES) {
		fprintf(stderr, "replay: more than %d harnesses\n",
			MAX_HARNESSES);
		exit(2);
	}
	harnesses[nharnesses].name = name;
	harnesses[nharnesses].fn = fn;
	nharnesses++;
}

static const struct harness *find(const char *name)
{
	size_t i;

	for (i = 0; i < nharnesses; i++)
		if (!strcmp(harnesses[i].name, name))
			return &harnesses[i];
	return NULL;
}

/* Run h on one file, read into a buffer of exactly its size. */
static int run_file(const struct harness *h, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *p;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			p = realloc(buf, cap);
			if (!p)
				abort();
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* Exactly len bytes, so that a read past the input is caught. */
	p = malloc(len ? len : 1);
	if (!p)
		abort();
	if (len)
		memcpy(p, buf, len);
	free(buf);
	h->fn(p, len);
	free(p);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of dir, in name order; returns how many, or -1. */
static int run_dir(const struct harness *h, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int count = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **p;

			cap = cap ? 2 * cap : 64;
			p = realloc(names, cap * sizeof(*names));
			if (!p)
				abort();
			names = p;
		}
		names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (run_file(h, names[i]) == 0) {
			passed++;
			count++;
		} else {
			failed++;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	size_t i;
	int k;

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (i = 0; i < nharnesses; i++)
			printf("%s\n", harnesses[i].name);
		return 0;
	}
	if (argc >= 2) {
		const struct harness *h = find(argv[1]);

		if (!h) {
			fprintf(stderr,
				"replay: no harness '%s' (-l lists them)\n",
				argv[1]);
			return 2;
		}
		for (k = 2; k < argc; k++)
			if (run_file(h, argv[k]) == 0)
				passed++;
			else
				failed++;
		printf("fuzz_replay: %u passed, %u failed\n", passed, failed);
		return failed ? 1 : 0;
	}
	if (!top) {
		fprintf(stderr, "replay: TOP_SRCDIR is not set\n");
		return 2;
	}
	for (i = 0; i < nharnesses; i++) {
		const struct harness *h = &harnesses[i];
		int seeds, regress;

		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/%s", top,
			 h->name);
		seeds = run_dir(h, path);
		snprintf(path, sizeof(path), "%s/tests/fuzz/regress/%s", top,
			 h->name);
		regress = run_dir(h, path);
		printf("%s: %d seeds, %d regression inputs\n", h->name, seeds,
		       regress);
		if (seeds < 0 || regress < 0) {
			printf("FAIL %s: a corpus directory cannot be read\n",
			       h->name);
			failed++;
		} else if (seeds == 0) {
			/* Still run once; fuzzing starts from nothing. */
			printf("note: %s has no seeds in "
			       "tests/fuzz/corpus/%s\n",
			       h->name, h->name);
			h->fn((const uint8_t *)"", 0);
			passed++;
		}
	}
	printf("fuzz_replay: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
