/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digest.c --- MD5, SHA-1 and SHA-256 through libcrypto's EVP interface:
 * the hashes an examiner puts in a report come from an audited,
 * maintained library (which also picks the CPU's SHA extensions and
 * other fast paths itself).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "container/container.h"

struct e4t_digest {
	EVP_MD_CTX *ctx;
	const EVP_MD *md;
	errcode_t err; /* the first failure since e4t_digest_start() */
};

static const EVP_MD *alg_md(enum e4t_hash_alg alg)
{
	switch (alg) {
	case E4T_HASH_MD5: return EVP_md5();
	case E4T_HASH_SHA1: return EVP_sha1();
	case E4T_HASH_SHA256: return EVP_sha256();
	default: return NULL;
	}
}

errcode_t e4t_digest_new(enum e4t_hash_alg alg, struct e4t_digest **ret)
{
	struct e4t_digest *d;
	errcode_t err;

	*ret = NULL;
	if (!alg_md(alg))
		return EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return ENOMEM;
	d->md = alg_md(alg);
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx) {
		free(d);
		return ENOMEM;
	}
	err = e4t_digest_start(d);
	if (err) {
		e4t_digest_free(d);
		return err;
	}
	*ret = d;
	return 0;
}

errcode_t e4t_digest_start(struct e4t_digest *d)
{
	d->err = EVP_DigestInit_ex(d->ctx, d->md, NULL) == 1 ? 0
							     : E4T_ERR_DIGEST;
	return d->err;
}

void e4t_digest_update(struct e4t_digest *d, const void *data, size_t len)
{
	if (!d->err && len && EVP_DigestUpdate(d->ctx, data, len) != 1)
		d->err = E4T_ERR_DIGEST;
}

errcode_t e4t_digest_final(struct e4t_digest *d, uint8_t *out)
{
	if (!d->err && EVP_DigestFinal_ex(d->ctx, out, NULL) != 1)
		d->err = E4T_ERR_DIGEST;
	return d->err;
}

void e4t_digest_free(struct e4t_digest *d)
{
	if (!d)
		return;
	EVP_MD_CTX_free(d->ctx);
	free(d);
}

void e4t_hex(const uint8_t *in, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[in[i] >> 4];
		out[2 * i + 1] = hx[in[i] & 15];
	}
	out[2 * n] = '\0';
}
