/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * digest.c --- MD5 (RFC 1321), SHA-1 and SHA-256 (FIPS 180-4), written
 * from the specifications: one 64-byte block at a time.
 */
#include "config.h"

#include <string.h>

#include "container/digest.h"

static uint32_t rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

/* MD5: per-round shifts and the constants floor(abs(sin(i + 1)) * 2^32) */
/*
 * What MD5, SHA-1 and SHA-256 share: data cut into 64-byte blocks for
 * their compression function (block), the bytes short of a block kept in
 * buf, *total counting every byte; and the padding: 0x80, zeros, and the
 * length in bits in the last 8 bytes of a block (MD5 little-endian, the
 * SHAs big-endian).
 */
typedef void (*block_fn)(void *ctx, const uint8_t *p);

static void md_update(void *ctx, block_fn block, uint8_t buf[64],
		      uint64_t *total, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t have = (size_t)(*total % 64);

	*total += len;
	if (have) {
		size_t take = 64 - have < len ? 64 - have : len;

		memcpy(buf + have, p, take);
		p += take;
		len -= take;
		if (have + take < 64)
			return;
		block(ctx, buf);
	}
	for (; len >= 64; p += 64, len -= 64)
		block(ctx, p);
	memcpy(buf, p, len);
}

static void md_pad(void *ctx, block_fn block, uint8_t buf[64], uint64_t *total,
		   int big_endian)
{
	static const uint8_t pad[64] = { 0x80 };
	uint64_t bits = *total * 8;
	uint8_t lenb[8];
	unsigned i;

	for (i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (big_endian ? 56 - 8 * i : 8 * i));
	md_update(ctx, block, buf, total, pad, 1 + (119 - *total % 64) % 64);
	md_update(ctx, block, buf, total, lenb, 8);
}

static const unsigned md5_s[64] = {
	7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
	5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
	4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
	6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(struct e4t_md5 *m, const uint8_t *p)
{
	uint32_t w[16], a = m->h[0], b = m->h[1], c = m->h[2], d = m->h[3];
	size_t i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 |
		       (uint32_t)p[4 * i + 3] << 24;
/* four rounds of 16 steps, unrolled so that g, k and s are constants
 * (1.4 times the speed of one loop with branches) */
#define MD5_STEP(F, G)                                                         \
	do {                                                                   \
		uint32_t f = (F), t = d;                                       \
		d = c;                                                         \
		c = b;                                                         \
		b = b + rol(a + f + md5_k[i] + w[G], md5_s[i]);                \
		a = t;                                                         \
	} while (0)
#pragma GCC unroll 16
	for (i = 0; i < 16; i++)
		MD5_STEP((b & c) | (~b & d), i);
#pragma GCC unroll 16
	for (i = 16; i < 32; i++)
		MD5_STEP((d & b) | (~d & c), (5 * i + 1) % 16);
#pragma GCC unroll 16
	for (i = 32; i < 48; i++)
		MD5_STEP(b ^ c ^ d, (3 * i + 5) % 16);
#pragma GCC unroll 16
	for (i = 48; i < 64; i++)
		MD5_STEP(c ^ (b | ~d), (7 * i) % 16);
#undef MD5_STEP
	m->h[0] += a;
	m->h[1] += b;
	m->h[2] += c;
	m->h[3] += d;
}

static void md5_block_any(void *ctx, const uint8_t *p)
{
	md5_block(ctx, p);
}

void e4t_md5_init(struct e4t_md5 *m)
{
	m->h[0] = 0x67452301;
	m->h[1] = 0xefcdab89;
	m->h[2] = 0x98badcfe;
	m->h[3] = 0x10325476;
	m->len = 0;
}

void e4t_md5_update(struct e4t_md5 *m, const void *data, size_t len)
{
	md_update(m, md5_block_any, m->buf, &m->len, data, len);
}

void e4t_md5_final(struct e4t_md5 *m, uint8_t out[16])
{
	unsigned i;

	md_pad(m, md5_block_any, m->buf, &m->len, 0);
	for (i = 0; i < 16; i++)
		out[i] = (uint8_t)(m->h[i / 4] >> (8 * (i % 4)));
}

static void sha1_block(struct e4t_sha1 *s, const uint8_t *p)
{
	uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3],
			e = s->h[4];
	size_t i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

static void sha1_block_any(void *ctx, const uint8_t *p)
{
	sha1_block(ctx, p);
}

void e4t_sha1_init(struct e4t_sha1 *s)
{
	s->h[0] = 0x67452301;
	s->h[1] = 0xefcdab89;
	s->h[2] = 0x98badcfe;
	s->h[3] = 0x10325476;
	s->h[4] = 0xc3d2e1f0;
	s->len = 0;
}

void e4t_sha1_update(struct e4t_sha1 *s, const void *data, size_t len)
{
	md_update(s, sha1_block_any, s->buf, &s->len, data, len);
}

void e4t_sha1_final(struct e4t_sha1 *s, uint8_t out[20])
{
	unsigned i;

	md_pad(s, sha1_block_any, s->buf, &s->len, 1);
	for (i = 0; i < 20; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* SHA-256: the first 32 bits of the fractional parts of the cube roots
 * of the first 64 primes */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct e4t_sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	size_t i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
			      (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	f = s->h[5];
	g = s->h[6];
	h = s->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1, t2;

		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define E4T_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#ifdef E4T_TEST_HOOKS
#include <stdlib.h>
#endif

/*
 * SHA-256 with the x86 SHA extensions (SHA-NI: sha256rnds2 does two
 * rounds, sha256msg1/msg2 the message schedule), n blocks at a time,
 * the state kept as ABEF and CDGH as the instructions want it.  About
 * five times the speed of sha256_block() where the CPU has them.
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap =
		_mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i st0, st1, tmp, msg, m[4], abef, cdgh;
	size_t i;

	tmp = _mm_loadu_si128((const __m128i *)&h[0]); /* DCBA */
	st1 = _mm_loadu_si128((const __m128i *)&h[4]); /* HGFE */
	tmp = _mm_shuffle_epi32(tmp, 0xb1);	       /* CDAB */
	st1 = _mm_shuffle_epi32(st1, 0x1b);	       /* EFGH */
	st0 = _mm_alignr_epi8(tmp, st1, 8);	       /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xf0);	       /* CDGH */
	for (; n; n--, p += 64) {
		abef = st0;
		cdgh = st1;
		for (i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(
				_mm_loadu_si128((const __m128i *)(p + 16 * i)),
				bswap);
#pragma GCC unroll 16
		for (i = 0; i < 16; i++) { /* rounds 4i to 4i + 3 */
			__m128i *cur = &m[i & 3], *prev = &m[(i + 3) & 3],
				*next = &m[(i + 1) & 3];
			const __m128i *k = (const __m128i *)&sha256_k[4 * i];

			msg = _mm_add_epi32(*cur, _mm_loadu_si128(k));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			if (i >= 3 && i < 15) { /* words 4i + 4 to 4i + 7 */
				tmp = _mm_alignr_epi8(*cur, *prev, 4);
				*next = _mm_add_epi32(*next, tmp);
				*next = _mm_sha256msg2_epu32(*next, *cur);
			}
			msg = _mm_shuffle_epi32(msg, 0x0e);
			st0 = _mm_sha256rnds2_epu32(st0, st1, msg);
			if (i >= 1 && i < 13)
				*prev = _mm_sha256msg1_epu32(*prev, *cur);
		}
		st0 = _mm_add_epi32(st0, abef);
		st1 = _mm_add_epi32(st1, cdgh);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1b);    /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xb1);    /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xf0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], st0);
	_mm_storeu_si128((__m128i *)&h[4], st1);
}

/* Has the CPU SHA-NI (and the SSSE3 and SSE4.1 the code around uses)?
 * Asked once; with test hooks, E4TIME_TEST_NO_SHA_NI says no. */
static int have_sha_ni(void)
{
	static int have = -1;
	int v = __atomic_load_n(&have, __ATOMIC_RELAXED);
	unsigned a, b, c, d;

	if (v >= 0)
		return v;
	v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) &&
	    (c & bit_SSE4_1) && __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
	    (b & bit_SHA);
#ifdef E4T_TEST_HOOKS
	if (getenv("E4TIME_TEST_NO_SHA_NI"))
		v = 0;
#endif
	__atomic_store_n(&have, v, __ATOMIC_RELAXED);
	return v;
}
#endif

static void sha256_block_any(void *ctx, const uint8_t *p)
{
	sha256_block(ctx, p);
}

#ifdef E4T_SHA_NI
static void sha256_block_ni(void *ctx, const uint8_t *p)
{
	struct e4t_sha256 *s = ctx;

	sha256_ni(s->h, p, 1);
}
#endif

void e4t_sha256_init(struct e4t_sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

void e4t_sha256_update(struct e4t_sha256 *s, const void *data, size_t len)
{
#ifdef E4T_SHA_NI
	if (have_sha_ni()) {
		const uint8_t *p = data;
		size_t have = (size_t)(s->len % 64), take;

		/* fill a partial block; whole blocks in one call */
		take = have ? (64 - have < len ? 64 - have : len) : 0;
		md_update(s, sha256_block_ni, s->buf, &s->len, p, take);
		p += take;
		len -= take;
		if (len >= 64) {
			sha256_ni(s->h, p, len / 64);
			s->len += len - len % 64;
			p += len - len % 64;
			len %= 64;
		}
		md_update(s, sha256_block_ni, s->buf, &s->len, p, len);
		return;
	}
#endif
	md_update(s, sha256_block_any, s->buf, &s->len, data, len);
}

void e4t_sha256_final(struct e4t_sha256 *s, uint8_t out[32])
{
	unsigned i;

#ifdef E4T_SHA_NI
	if (have_sha_ni())
		md_pad(s, sha256_block_ni, s->buf, &s->len, 1);
	else
#endif
		md_pad(s, sha256_block_any, s->buf, &s->len, 1);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
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
