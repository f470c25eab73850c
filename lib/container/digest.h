/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digest.h --- MD5 (RFC 1321), SHA-1 and SHA-256 (FIPS 180-4), for
 * checking the hashes an EWF image stores (ewf.c) and hashing files'
 * content (lib/fs/filehash.c).  MD5 and SHA-1 are broken for anything
 * that needs a secure hash.
 */
#ifndef E4TIME_DIGEST_H
#define E4TIME_DIGEST_H

#include <stddef.h>
#include <stdint.h>

struct e4t_md5 {
	uint32_t h[4];
	uint64_t len; /* bytes hashed */
	uint8_t buf[64];
};

struct e4t_sha1 {
	uint32_t h[5];
	uint64_t len;
	uint8_t buf[64];
};

struct e4t_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
};

void e4t_md5_init(struct e4t_md5 *m);
void e4t_md5_update(struct e4t_md5 *m, const void *data, size_t len);
void e4t_md5_final(struct e4t_md5 *m, uint8_t out[16]);

void e4t_sha1_init(struct e4t_sha1 *s);
void e4t_sha1_update(struct e4t_sha1 *s, const void *data, size_t len);
void e4t_sha1_final(struct e4t_sha1 *s, uint8_t out[20]);

void e4t_sha256_init(struct e4t_sha256 *s);
void e4t_sha256_update(struct e4t_sha256 *s, const void *data, size_t len);
void e4t_sha256_final(struct e4t_sha256 *s, uint8_t out[32]);

/* n bytes as lower-case hex, NUL-terminated: out holds 2n + 1 */
void e4t_hex(const uint8_t *in, size_t n, char *out);

#endif
