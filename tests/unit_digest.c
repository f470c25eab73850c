/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_digest.c --- lib/container/digest.c against the published test
 * vectors: RFC 1321's suite for MD5, FIPS 180's examples (NIST's "abc",
 * the 448- and 896-bit messages, a million "a") for SHA-1 and SHA-256;
 * each fed whole, in pieces of 1 to 127 bytes, and on a reused context.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/e4time.h"
#include "container/container.h"
#include "unit.h"

#define M448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define M896                                                                   \
	"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"     \
	"ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
#define RFC80                                                                  \
	"1234567890123456789012345678901234567890"                             \
	"1234567890123456789012345678901234567890"

struct vector {
	enum e4t_hash_alg alg;
	const char *msg; /* NULL: a million "a" */
	const char *hex;
};

static const struct vector vectors[] = {
	/* RFC 1321, A.5 */
	{ E4T_HASH_MD5, "", "d41d8cd98f00b204e9800998ecf8427e" },
	{ E4T_HASH_MD5, "abc", "900150983cd24fb0d6963f7d28e17f72" },
	{ E4T_HASH_MD5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
	{ E4T_HASH_MD5, "abcdefghijklmnopqrstuvwxyz",
	  "c3fcd3d76192e4007dfb496cca67e13b" },
	{ E4T_HASH_MD5, RFC80, "57edf4a22be3c955ac49da2e2107b67a" },
	{ E4T_HASH_MD5, NULL, "7707d6ae4e027c70eea2a935c2296f21" },
	/* FIPS 180 examples (NIST CSRC) */
	{ E4T_HASH_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	{ E4T_HASH_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
	{ E4T_HASH_SHA1, M448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
	{ E4T_HASH_SHA1, M896, "a49b2446a02c645bf419f995b67091253a04a259" },
	{ E4T_HASH_SHA1, NULL, "34aa973cd4c4daa4f61eeb2bdbad27316534016f" },
	{ E4T_HASH_SHA256, "",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ E4T_HASH_SHA256, "abc",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ E4T_HASH_SHA256, M448,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ E4T_HASH_SHA256, M896,
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	{ E4T_HASH_SHA256, NULL,
	  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
};
#define NVEC (sizeof(vectors) / sizeof(vectors[0]))

/* The digest of msg fed in pieces of step bytes (0: whole) on d, as hex. */
static errcode_t run(struct e4t_digest *d, const char *msg, size_t len,
		     size_t step, char *hex, size_t outlen)
{
	uint8_t out[E4T_HASH_MAX];
	errcode_t err;
	size_t off;

	err = e4t_digest_start(d);
	if (err)
		return err;
	for (off = 0; off < len; off += step ? step : len)
		e4t_digest_update(d, msg + off,
				  step && len - off > step ? step : len - off);
	err = e4t_digest_final(d, out);
	if (!err)
		e4t_hex(out, outlen, hex);
	return err;
}

static void test_vectors(void)
{
	static const size_t steps[] = { 0, 1, 3, 55, 56, 63, 64, 65, 127 };
	char *million = malloc(1000000);
	unsigned ran = 0, i, j;

	if (!million) {
		CHECK(0, "malloc");
		return;
	}
	memset(million, 'a', 1000000);
	for (i = 0; i < NVEC; i++) {
		const struct vector *v = &vectors[i];
		const char *msg = v->msg ? v->msg : million;
		size_t len = v->msg ? strlen(v->msg) : 1000000;
		size_t n = e4t_hash_len(v->alg);
		struct e4t_digest *d = NULL;
		char hex[2 * E4T_HASH_MAX + 1];
		errcode_t err = e4t_digest_new(v->alg, &d);

		CHECK(!err && d, "vector %u: e4t_digest_new: %ld", i,
		      (long)err);
		if (err)
			continue;
		/* one context for every split: e4t_digest_start() resets */
		for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
			err = run(d, msg, len, steps[j], hex, n);
			CHECK(!err && !strcmp(hex, v->hex),
			      "%s of vector %u in pieces of %zu: %s, want %s",
			      e4t_hash_name(v->alg), i, steps[j],
			      err ? "error" : hex, v->hex);
			ran++;
		}
		e4t_digest_free(d);
	}
	free(million);
	CHECK(ran == NVEC * 9, "ran %u digests, want %zu", ran, NVEC * 9);
}

/* Abandoned mid-way, then started again: only the new input counts. */
static void test_restart(void)
{
	struct e4t_digest *d = NULL;
	char hex[2 * E4T_HASH_MAX + 1];
	errcode_t err = e4t_digest_new(E4T_HASH_SHA256, &d);

	CHECK(!err, "e4t_digest_new: %ld", (long)err);
	if (err)
		return;
	e4t_digest_update(d, "left over", 9);
	err = run(d, "abc", 3, 0, hex, 32);
	CHECK(!err && !strcmp(hex, vectors[12].hex), "restart: %s", hex);
	e4t_digest_free(d);
}

static void test_bad_alg(void)
{
	struct e4t_digest *d = (struct e4t_digest *)&d;

	CHECK(e4t_digest_new(E4T_HASH_NONE, &d) == EINVAL && !d,
	      "E4T_HASH_NONE: EINVAL and no digest");
	e4t_digest_free(NULL); /* as free(NULL) */
}

int main(void)
{
	test_vectors();
	test_restart();
	test_bad_alg();
	return unit_report("unit_digest");
}
