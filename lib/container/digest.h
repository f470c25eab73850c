/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digest.h --- MD5, SHA-1 and SHA-256 from OpenSSL's libcrypto (its EVP
 * interface), for checking the hashes an EWF image stores (ewf.c) and
 * hashing files' content (lib/fs/filehash.c).  MD5 and SHA-1 are broken
 * for anything that needs a secure hash.
 */
#ifndef E4TIME_DIGEST_H
#define E4TIME_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "e4time.h"

/*
 * One running digest; reusable: e4t_digest_start() begins a new one on
 * the same context.  e4t_digest_new(): ENOMEM, or E4T_ERR_DIGEST when
 * libcrypto has no such algorithm (MD5 under a FIPS-only provider).
 * e4t_digest_update() remembers the first failure; e4t_digest_final()
 * returns it (E4T_ERR_DIGEST), else writes e4t_hash_len(alg) bytes.
 */
struct e4t_digest;
errcode_t e4t_digest_new(enum e4t_hash_alg alg, struct e4t_digest **ret);
errcode_t e4t_digest_start(struct e4t_digest *d);
void e4t_digest_update(struct e4t_digest *d, const void *data, size_t len);
errcode_t e4t_digest_final(struct e4t_digest *d, uint8_t *out);
void e4t_digest_free(struct e4t_digest *d);

/* n bytes as lower-case hex, NUL-terminated: out holds 2n + 1 */
void e4t_hex(const uint8_t *in, size_t n, char *out);

#endif
