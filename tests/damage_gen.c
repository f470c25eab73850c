/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damage_gen.c --- damaged copies of an ext4 image, for
 * tests/test_damage_gen.sh:
 *
 *	damage_gen areas IMAGE
 *		how many areas of each kind IMAGE has (tests/damage_gen.h)
 *	damage_gen damage IMAGE SEED N OUT
 *		copy N of IMAGE into OUT, with one area damaged: the kind
 *		goes round (superblock, gdt, itable, dir, extent, xattr,
 *		journal, from one that IMAGE's name chooses; a kind the
 *		image lacks is skipped), the area, the
 *		operation (random bytes, bit flips, a zeroed run, a random
 *		run) and its place come from SEED, N and IMAGE's name;
 *		checksums are fixed after the damage in odd copies (the
 *		damage then reaches the parsers), left broken in even ones
 *	damage_gen truncate IMAGE SEED N OUT
 *		copy N of IMAGE, cut inside (or at the start of) one area
 *	damage_gen fix IMAGE
 *		recompute, in place, the checksum of every area of IMAGE
 *		but the journal (after an edit by hand: tests/test_names.sh
 *		renames files in a directory block)
 *
 * Prints one line: OUT KIND OPERATION CSUM OFFSET, CSUM being fixed,
 * broken, none (the kind has no checksum, or the image none) or
 * unfixable (no room for it in the damaged block, or the damaged
 * descriptors cannot be opened).  Copies are written sparse.  Exit 0,
 * 1 on an error, 2 on a usage error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "damage_gen.h"

static uint64_t rng_state;
static uint64_t name_hash; /* of the image's base name */

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void seed_rng(const char *image, uint64_t seed, uint64_t n, int trunc)
{
	const char *base = strrchr(image, '/');
	uint64_t h = 1469598103934665603ULL; /* FNV-1a of the base name */

	for (base = base ? base + 1 : image; *base; base++)
		h = (h ^ (uint8_t)*base) * 1099511628211ULL;
	name_hash = h;
	rng_state = h ^ (seed * 0x9E3779B97F4A7C15ULL) ^
		    ((n + 1) * 0xD1B54A32D192ED03ULL) ^ (uint64_t)trunc;
	if (!rng_state)
		rng_state = 1;
	rnd();
	rnd();
}

static uint8_t *slurp(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *buf;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "damage_gen: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*size = (uint64_t)st.st_size;
	buf = malloc(*size ? *size : 1);
	if (!buf || dmg_pread(fd, buf, *size, 0)) {
		fprintf(stderr, "damage_gen: %s: cannot read\n", path);
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	return buf;
}

/* Write buf[0..size) to out, sparse (zero blocks skipped); its fd. */
static int spit(const char *out, const uint8_t *buf, uint64_t size)
{
	static const uint8_t zero[4096];
	int fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint64_t off;

	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		fprintf(stderr, "damage_gen: %s: %s\n", out, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (off = 0; off < size; off += 4096) {
		uint64_t n = size - off < 4096 ? size - off : 4096;

		if (memcmp(buf + off, zero, n) &&
		    dmg_pwrite(fd, buf + off, n, off)) {
			fprintf(stderr, "damage_gen: %s: write error\n", out);
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The kind of copy n: round robin over the kinds the image has, from
 * one that depends on the image (a few copies of each image still cover
 * every kind). */
static const struct dmg_area *pick_area(const struct dmg_areas *s, uint64_t n)
{
	unsigned kinds[DMG_NKINDS], nk = 0, k, kind;
	size_t i, which;

	for (k = 0; k < DMG_NKINDS; k++)
		if (s->count[k])
			kinds[nk++] = k;
	kind = kinds[(n + name_hash % 7919) % nk];
	which = below(s->count[kind]);
	for (i = 0; i < s->n; i++)
		if (s->a[i].kind == kind && which-- == 0)
			return &s->a[i];
	return &s->a[0];
}

static const char *damage(uint8_t *buf, uint64_t size, const struct dmg_area *a,
			  uint64_t *where)
{
	uint64_t len = a->len, i, n, start;
	uint8_t *p;

	if (a->off >= size)
		return "none";
	if (len > size - a->off)
		len = size - a->off;
	p = buf + a->off;
	switch (below(4)) {
	case 0: /* 1 to 16 bytes set to random values */
		n = 1 + below(16);
		*where = a->off + below(len);
		for (i = 0; i < n; i++)
			p[below(len)] = (uint8_t)rnd();
		return "bytes";
	case 1: /* 1 to 8 bits flipped */
		n = 1 + below(8);
		*where = a->off + below(len);
		for (i = 0; i < n; i++)
			p[below(len)] ^= (uint8_t)(1U << below(8));
		return "bits";
	case 2: /* a run of up to 64 bytes zeroed */
		start = below(len);
		n = 1 + below(64);
		if (n > len - start)
			n = len - start;
		memset(p + start, 0, n);
		*where = a->off + start;
		return "zero";
	default: /* a run of up to 64 random bytes */
		start = below(len);
		n = 1 + below(64);
		if (n > len - start)
			n = len - start;
		for (i = 0; i < n; i++)
			p[start + i] = (uint8_t)rnd();
		*where = a->off + start;
		return "random";
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: damage_gen areas|fix IMAGE\n"
			"       damage_gen damage|truncate IMAGE SEED N OUT\n");
	return 2;
}

/* A damaged or truncated copy of image into out (see the top). */
static int copy(ext2_filsys fs, const struct dmg_areas *s, int trunc,
		const char *image, uint64_t seed, uint64_t n, const char *out)
{
	const struct dmg_area *a;
	uint64_t size, where = 0;
	const char *op, *csum = "none";
	uint8_t *buf;
	int fd, k, csum_kind;

	seed_rng(image, seed, n, trunc);
	buf = slurp(image, &size);
	if (!buf)
		return 1;
	a = pick_area(s, n);
	if (trunc) {
		/* at the area's start, or inside it */
		where = a->off + (below(2) ? below(a->len) : 0);
		if (where > size)
			where = size;
		fd = spit(out, buf, where);
		free(buf);
		if (fd < 0)
			return 1;
		printf("%s %s truncate none %llu\n", out,
		       dmg_kind_names[a->kind], (unsigned long long)where);
		close(fd);
		return 0;
	}
	op = damage(buf, size, a, &where);
	/* has this area a checksum to fix or to leave broken? */
	csum_kind = a->kind != DMG_JOURNAL &&
		    (ext2fs_has_feature_metadata_csum(fs->super) ||
		     (a->kind == DMG_GDT &&
		      ext2fs_has_feature_gdt_csum(fs->super)));
	if (a->kind == DMG_EXTENT && !a->inode_pos) {
		/* a block map block has none */
		struct ext3_extent_header eh;

		memcpy(&eh, buf + a->off, sizeof(eh));
		if (ext2fs_le16_to_cpu(eh.eh_magic) != EXT3_EXT_MAGIC)
			csum_kind = 0;
	}
	fd = spit(out, buf, size);
	free(buf);
	if (fd < 0)
		return 1;
	if (csum_kind && n % 2 == 1) {
		k = dmg_fix(fs, fd, out, a);
		if (k < 0) {
			fprintf(stderr, "damage_gen: %s: write error\n", out);
			close(fd);
			return 1;
		}
		csum = k ? "fixed" : "unfixable";
	} else if (csum_kind) {
		csum = "broken";
	}
	printf("%s %s %s %s %llu\n", out, dmg_kind_names[a->kind], op, csum,
	       (unsigned long long)where);
	close(fd);
	return 0;
}

/* Checksums of every area but the journal's, in place. */
static int fix_all(ext2_filsys fs, const struct dmg_areas *s, const char *image)
{
	int fd = open(image, O_RDWR);
	size_t i;
	int ret = 0;

	if (fd < 0)
		return 1;
	for (i = 0; i < s->n; i++)
		if (s->a[i].kind != DMG_JOURNAL &&
		    dmg_fix(fs, fd, image, &s->a[i]) < 0)
			ret = 1;
	close(fd);
	return ret;
}

static int run(ext2_filsys fs, const struct dmg_areas *s, int argc, char **argv)
{
	int k;

	if (!strcmp(argv[1], "areas") && argc == 3) {
		for (k = 0; k < DMG_NKINDS; k++)
			printf("%s%s %zu", k ? " " : "", dmg_kind_names[k],
			       s->count[k]);
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "fix") && argc == 3)
		return fix_all(fs, s, argv[2]);
	if (argc != 6 ||
	    (strcmp(argv[1], "truncate") && strcmp(argv[1], "damage")))
		return usage();
	return copy(fs, s, !strcmp(argv[1], "truncate"), argv[2],
		    strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
		    argv[5]);
}

int main(int argc, char **argv)
{
	struct dmg_areas s;
	ext2_filsys fs;
	int ret;

	if (argc < 3)
		return usage();
	if (ext2fs_open2(argv[2], NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager,
			 &fs)) {
		fprintf(stderr, "damage_gen: %s: cannot open\n", argv[2]);
		return 1;
	}
	if (dmg_areas(fs, &s) || s.n == 0) {
		fprintf(stderr, "damage_gen: %s: cannot list its areas\n",
			argv[2]);
		dmg_areas_free(&s);
		ext2fs_close_free(&fs);
		return 1;
	}
	ret = run(fs, &s, argc, argv);
	dmg_areas_free(&s);
	ext2fs_close_free(&fs);
	return ret;
}
