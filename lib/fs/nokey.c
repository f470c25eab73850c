/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nokey.c --- the names of an encrypted (fscrypt) directory as the
 * kernel lists them without the key: the "no-key name" of
 * fs/crypto/fname.c (fscrypt_fname_disk_to_usr), base64url without
 * padding of struct fscrypt_nokey_name: the entry's dirhash (two
 * little-endian 32-bit words, 0 when the directory is read without the
 * htree code), then the ciphertext when it is 149 bytes or less, else
 * its first 149 bytes and the SHA-256 of the rest.
 *
 * ext4 reads a directory through its htree code (ext4_dx_readdir, which
 * passes the hash) when the filesystem has dir_index and the directory
 * is indexed, one block long or inline (is_dx_dir); the hash is then the
 * filesystem's default hash (signed or unsigned) of the ciphertext, with
 * its seed (ext4fs_dirhash, as ext2fs_dirhash computes it).  Casefolded
 * encrypted directories keep a keyed hash in each entry: not handled
 * here, their names stay the bytes on disk.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "container/container.h"

#define NOKEY_BYTES 149 /* struct fscrypt_nokey_name.bytes */
#define NOKEY_MIN   16	/* FSCRYPT_FNAME_MIN_MSG_LEN */

int e4t_nokey_setup(ext2_filsys fs, uint32_t iflags, uint64_t size,
		    struct e4t_nokey *k)
{
	struct ext2_super_block *sb = fs->super;

	memset(k, 0, sizeof(*k));
	if (!(iflags & EXT4_ENCRYPT_FL) || (iflags & EXT4_CASEFOLD_FL))
		return 0;
	k->hashed = ext2fs_has_feature_dir_index(sb) &&
		    ((iflags & (EXT2_INDEX_FL | EXT4_INLINE_DATA_FL)) ||
		     size / fs->blocksize == 1);
	k->version = sb->s_def_hash_version;
	if (k->version <= EXT2_HASH_TEA &&
	    (sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		k->version += 3; /* the _UNSIGNED versions */
	memcpy(k->seed, sb->s_hash_seed, sizeof(k->seed));
	return 1;
}

static void base64url(const unsigned char *src, size_t len, char *dst)
{
	static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	uint32_t ac = 0;
	int bits = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		ac = (ac << 8) | src[i];
		bits += 8;
		do {
			bits -= 6;
			*dst++ = table[(ac >> bits) & 0x3f];
		} while (bits >= 6);
	}
	if (bits)
		*dst++ = table[(ac << (6 - bits)) & 0x3f];
	*dst = '\0';
}

unsigned e4t_nokey_name(const struct e4t_nokey *k, const char *name,
			unsigned len, char *out)
{
	unsigned char raw[8 + NOKEY_BYTES + 32];
	ext2_dirhash_t hash = 0, minor = 0;
	size_t n;

	if (len < NOKEY_MIN || len > 255)
		return 0; /* the kernel refuses it (EUCLEAN) */
	if (k->hashed &&
	    ext2fs_dirhash(k->version, name, (int)len, k->seed, &hash, &minor))
		hash = minor = 0;
	raw[0] = (unsigned char)hash;
	raw[1] = (unsigned char)(hash >> 8);
	raw[2] = (unsigned char)(hash >> 16);
	raw[3] = (unsigned char)(hash >> 24);
	raw[4] = (unsigned char)minor;
	raw[5] = (unsigned char)(minor >> 8);
	raw[6] = (unsigned char)(minor >> 16);
	raw[7] = (unsigned char)(minor >> 24);
	if (len <= NOKEY_BYTES) {
		memcpy(raw + 8, name, len);
		n = 8 + (size_t)len;
	} else {
		struct e4t_digest *d;
		errcode_t err;

		memcpy(raw + 8, name, NOKEY_BYTES);
		/* (libcrypto refusing SHA-256: no no-key name, the
		 * ciphertext is shown as before) */
		err = e4t_digest_new(E4T_HASH_SHA256, &d);
		if (err)
			return 0;
		e4t_digest_update(d, name + NOKEY_BYTES, len - NOKEY_BYTES);
		err = e4t_digest_final(d, raw + 8 + NOKEY_BYTES);
		e4t_digest_free(d);
		if (err)
			return 0;
		n = sizeof(raw);
	}
	base64url(raw, n, out);
	return (unsigned)((n * 4 + 2) / 3);
}
