/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.c --- reading one line of an e4time manifest (JSON lines, as
 * `e4time export` writes them).  A small strict JSON reader: it takes
 * what it needs (path or path_hex, ino, and the times' sec and nsec),
 * skips every other key, and refuses anything malformed: numbers as RFC
 * 8259 writes them (no leading zeros, no '+', digits on both sides of a
 * '.'), and no key twice in one object.  It never reads past the line and
 * never recurses deeper than MAX_DEPTH.
 *
 * A manifest of a million files is a million lines of some 30 keys each,
 * so the reader is made for that: the keys export writes are told apart
 * by one table look-up (and found twice by a bit each), the text of a
 * string is scanned eight bytes at a time, and nothing is copied or
 * allocated for a line but what the caller keeps (its path).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "manifest_int.h"

#define MAX_DEPTH 16

struct jp {
	const char *p, *end;
	const char *start;	      /* the line */
	struct e4t_manifest_why *why; /* a duplicate key found, or NULL */
};

/* ---- the keys export writes, each with an id --------------------------- */

enum kid {
	K_PATH,
	K_PATH_HEX,
	K_INO,
	K_E4TIME_MANIFEST,
	K_ATIME,
	K_MTIME,
	K_CTIME,
	K_CRTIME,
	K_BIRTH, /* e4t_field_parse()'s alias of crtime */
	K_DTIME,
	K_BTIME, /* its other alias, not taken from a manifest */
	K_SEC,
	K_NSEC,
	K_ISO,
	K_SRC_INO,
	K_TYPE,
	K_MODE,
	K_UID,
	K_GID,
	K_SIZE,
	K_LINKS,
	K_STATUS,
	K_CRTIME_FROM,
	K_PATH_UTF8,
	K_IMAGE,
	K_UUID,
	K_EXPORTED,
	K_DIR,
	K_VOLUME,
	K_INODE_CSUM_BAD,
	K_NAME_SOURCE,
	K_FLAGS,
	K_NKEYS /* at most 64: a bit each in struct seen */
};

static const char *const key_names[K_NKEYS] = {
	[K_PATH] = "path",
	[K_PATH_HEX] = "path_hex",
	[K_INO] = "ino",
	[K_E4TIME_MANIFEST] = "e4time_manifest",
	[K_ATIME] = "atime",
	[K_MTIME] = "mtime",
	[K_CTIME] = "ctime",
	[K_CRTIME] = "crtime",
	[K_BIRTH] = "birth",
	[K_DTIME] = "dtime",
	[K_BTIME] = "btime",
	[K_SEC] = "sec",
	[K_NSEC] = "nsec",
	[K_ISO] = "iso",
	[K_SRC_INO] = "src_ino",
	[K_TYPE] = "type",
	[K_MODE] = "mode",
	[K_UID] = "uid",
	[K_GID] = "gid",
	[K_SIZE] = "size",
	[K_LINKS] = "links",
	[K_STATUS] = "status",
	[K_CRTIME_FROM] = "crtime_from",
	[K_PATH_UTF8] = "path_utf8",
	[K_IMAGE] = "image",
	[K_UUID] = "uuid",
	[K_EXPORTED] = "exported",
	[K_DIR] = "dir",
	[K_VOLUME] = "volume",
	[K_INODE_CSUM_BAD] = "inode_csum_bad",
	[K_NAME_SOURCE] = "name_source",
	[K_FLAGS] = "flags",
};

/* The time field a key names (e4t_field_parse()), or -1. */
static const signed char key_field[K_NKEYS] = {
	[K_PATH] = -1,		[K_PATH_HEX] = -1,
	[K_INO] = -1,		[K_E4TIME_MANIFEST] = -1,
	[K_ATIME] = E4T_ATIME,	[K_MTIME] = E4T_MTIME,
	[K_CTIME] = E4T_CTIME,	[K_CRTIME] = E4T_CRTIME,
	[K_BIRTH] = E4T_CRTIME, [K_DTIME] = E4T_DTIME,
	[K_BTIME] = E4T_CRTIME, [K_SEC] = -1,
	[K_NSEC] = -1,		[K_ISO] = -1,
	[K_SRC_INO] = -1,	[K_TYPE] = -1,
	[K_MODE] = -1,		[K_UID] = -1,
	[K_GID] = -1,		[K_SIZE] = -1,
	[K_LINKS] = -1,		[K_STATUS] = -1,
	[K_CRTIME_FROM] = -1,	[K_PATH_UTF8] = -1,
	[K_IMAGE] = -1,		[K_UUID] = -1,
	[K_EXPORTED] = -1,	[K_DIR] = -1,
	[K_VOLUME] = -1,	[K_INODE_CSUM_BAD] = -1,
	[K_NAME_SOURCE] = -1,	[K_FLAGS] = -1,
};

/*
 * A key of at most 15 bytes (no NUL: JSON refuses it) is told by its
 * bytes as two words, zero-padded; the known keys sit in an open
 * addressing table on a hash of the words, filled once.  Each slot: the
 * key's id + 1, 0 empty.
 */
#define KEY_SLOTS 128
static unsigned char key_slot[KEY_SLOTS];
static uint64_t key_w[K_NKEYS][2];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The words of the key (s, len), 0 < len <= 15; end: the line's end. */
static void key_words(const char *s, size_t len, const char *end, uint64_t w[2])
{
	unsigned char t[16] = { 0 };

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - s >= 16) {
		memcpy(&w[0], s, 8);
		memcpy(&w[1], s + 8, 8);
		if (len < 8) {
			w[0] &= (1ULL << (len * 8)) - 1;
			w[1] = 0;
		} else {
			w[1] &= (1ULL << ((len - 8) * 8)) - 1;
		}
		return;
	}
#endif
	(void)end;
	memcpy(t, s, len);
	memcpy(&w[0], t, 8);
	memcpy(&w[1], t + 8, 8);
}

static unsigned key_hash(const uint64_t w[2])
{
	return (unsigned)(((w[0] * 0x9e3779b97f4a7c15ULL) ^
			   (w[1] * 0xc2b2ae3d27d4eb4fULL)) >>
			  (64 - 7));
}

static void key_table_init(void)
{
	int k;

	for (k = 0; k < K_NKEYS; k++) {
		const char *n = key_names[k];
		unsigned h;

		key_words(n, strlen(n), n, key_w[k]);
		h = key_hash(key_w[k]);
		while (key_slot[h])
			h = (h + 1) % KEY_SLOTS;
		key_slot[h] = (unsigned char)(k + 1);
	}
}

/* The id of the key (s, len), decoded, or -1; end: where s's buffer
 * ends (the words are read from it when it is long enough). */
static int key_id(const char *s, size_t len, const char *end)
{
	uint64_t w[2];
	unsigned h;

	if (len == 0 || len > 15)
		return -1;
	key_words(s, len, end, w);
	for (h = key_hash(w); key_slot[h]; h = (h + 1) % KEY_SLOTS) {
		int k = key_slot[h] - 1;

		if (key_w[k][0] == w[0] && key_w[k][1] == w[1])
			return k;
	}
	return -1;
}

/* ---- the keys of one object: which came, and the first that came twice */

struct ukey {
	const char *s; /* in the line; NULL: at off in the seen's kb */
	size_t off, len;
	uint32_t h; /* ukey_hash of its bytes */
};

#define UKEYS_INLINE 8
#define UKEYS_SCAN   16 /* more: looked up in a hash table (linear time) */

struct seen {
	uint64_t known; /* 1 << id of each known key so far */
	struct ukey *u; /* the others, in order */
	size_t nu, cap;
	char *kb; /* the decoded keys (those with escapes), one after another */
	size_t kb_len, kb_cap;
	int dup; /* a key came twice: the first second one is in why */
	struct e4t_manifest_why first_dup;
	struct ukey inl[UKEYS_INLINE]; /* u's first ones, never cleared */
	uint32_t *tab;	/* 1 + index into u, 0: empty; NULL: scan u */
	size_t tab_cap; /* a power of two, > 2 * nu */
};

/* FNV-1a */
static uint32_t ukey_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261U;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619U;
	return h;
}

static const char *ukey_bytes(const struct seen *ks, const struct ukey *k)
{
	return k->s ? k->s : ks->kb + k->off;
}

/* Put u[i] in the table (room is there). */
static void tab_put(struct seen *ks, size_t i)
{
	size_t m = ks->tab_cap - 1, slot = ks->u[i].h & m;

	while (ks->tab[slot])
		slot = (slot + 1) & m;
	ks->tab[slot] = (uint32_t)(i + 1);
}

/* A table for nu + 1 keys: -1 when no memory. */
static int tab_room(struct seen *ks)
{
	size_t cap = ks->tab_cap ? ks->tab_cap : 64, i;
	uint32_t *t;

	if (ks->tab && 2 * (ks->nu + 1) < ks->tab_cap)
		return 0;
	while (2 * (ks->nu + 1) >= cap)
		cap *= 2;
	if (ks->nu >= UINT32_MAX - 1)
		return -1;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	free(ks->tab);
	ks->tab = t;
	ks->tab_cap = cap;
	for (i = 0; i < ks->nu; i++)
		tab_put(ks, i);
	return 0;
}

/* Whether the key s, len, of hash h, came before. */
static int seen_before(struct seen *ks, const char *s, size_t len, uint32_t h)
{
	size_t i;

	if (!ks->tab) {
		for (i = 0; i < ks->nu; i++) {
			const struct ukey *k = &ks->u[i];

			if (k->len == len && !memcmp(ukey_bytes(ks, k), s, len))
				return 1;
		}
		return 0;
	}
	for (i = h & (ks->tab_cap - 1); ks->tab[i];
	     i = (i + 1) & (ks->tab_cap - 1)) {
		const struct ukey *k = &ks->u[ks->tab[i] - 1];

		if (k->h == h && k->len == len &&
		    !memcmp(ukey_bytes(ks, k), s, len))
			return 1;
	}
	return 0;
}

static void seen_init(struct seen *ks)
{
	ks->known = 0;
	ks->u = ks->inl;
	ks->nu = 0;
	ks->cap = UKEYS_INLINE;
	ks->kb = NULL;
	ks->kb_len = ks->kb_cap = 0;
	ks->dup = 0;
	ks->tab = NULL;
	ks->tab_cap = 0;
}

static void seen_free(struct seen *ks)
{
	free(ks->kb);
	free(ks->tab);
	if (ks->u != ks->inl)
		free(ks->u);
}

/* Room for a decoded key of at most n bytes at the end of kb. */
static char *seen_buf(struct seen *ks, size_t n)
{
	if (e4t_grow(&ks->kb, &ks->kb_cap, ks->kb_len + n, 1, 256))
		return NULL;
	return ks->kb + ks->kb_len;
}

static void note_dup(struct seen *ks, const char *s, size_t len, size_t off)
{
	struct e4t_manifest_why *w = &ks->first_dup;
	size_t n = len < sizeof(w->key) - 1 ? len : sizeof(w->key) - 1;

	ks->dup = 1;
	memcpy(w->key, s, n);
	w->key[n] = '\0';
	w->key_len = len;
	w->dup_key_off = off;
}

/* A key of the object (decoded: s, len; at off in the line; s in kb
 * when decoded): -1 when it cannot be kept (no memory). */
static int seen_add(struct seen *ks, int id, const char *s, size_t len,
		    size_t off, int decoded)
{
	uint32_t h;

	if (id >= 0) {
		if (!ks->dup && (ks->known & (1ULL << id)))
			note_dup(ks, s, len, off);
		ks->known |= 1ULL << id;
		return 0;
	}
	h = ukey_hash(s, len);
	if (!ks->dup && seen_before(ks, s, len, h))
		note_dup(ks, s, len, off);
	if (ks->nu >= UKEYS_SCAN && tab_room(ks))
		return -1;
	if (ks->nu == ks->cap) {
		size_t cap =
			2 * (ks->cap > UKEYS_INLINE ? ks->cap : UKEYS_INLINE);
		struct ukey *old = ks->u == ks->inl ? NULL : ks->u;
		struct ukey *v = realloc(old, cap * sizeof(*v));

		if (!v)
			return -1;
		if (!old)
			memcpy(v, ks->inl, sizeof(ks->inl));
		ks->u = v;
		ks->cap = cap;
	}
	ks->u[ks->nu].s = decoded ? NULL : s;
	ks->u[ks->nu].off = decoded ? (size_t)(s - ks->kb) : 0;
	ks->u[ks->nu].len = len;
	ks->u[ks->nu].h = h;
	if (ks->tab)
		tab_put(ks, ks->nu);
	ks->nu++;
	if (decoded)
		ks->kb_len += len; /* kept */
	return 0;
}

/* At the end of an object: -1 when a key came twice (the first such
 * second one, as written, goes to j->why). */
static int seen_end(struct jp *j, const struct seen *ks)
{
	if (!ks->dup)
		return 0;
	if (j->why && !j->why->dup_key) {
		*j->why = ks->first_dup;
		j->why->dup_key = 1;
	}
	return -1;
}

/* ---- the JSON reader --------------------------------------------------- */

static inline void ws(struct jp *j)
{
	/* the usual case first: no white space (it is all below '!') */
	while (j->p < j->end && (unsigned char)*j->p <= ' ' &&
	       (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' ||
		*j->p == '\n'))
		j->p++;
}

static inline int eat(struct jp *j, char c)
{
	if (j->p < j->end && *j->p == c) { /* no white space: the usual */
		j->p++;
		return 1;
	}
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

/*
 * The first byte from p on that ends a run of plain string text: a
 * quote, a backslash or a control character; end when there is none.
 * Eight bytes at a time where the words are little-endian: a byte b is
 * flagged by (b - 1) & ~b & 0x80 when it is 0 (b ^ '"' and b ^ '\\'
 * for those two) and by (b - 0x20) & ~b & 0x80 when it is below 0x20;
 * the lowest byte flagged is always one of them.
 */
static inline const char *plain_end(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&    \
	defined(__GNUC__)
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t high = 0x8080808080808080ULL;

	while (end - p >= 8) {
		uint64_t w, q, b, m;

		memcpy(&w, p, 8);
		q = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		m = ((q - ones) & ~q) | ((b - ones) & ~b) |
		    ((w - ones * 0x20) & ~w);
		m &= high;
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

static int hex4(const char *p, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * A string, from its opening quote; with out != NULL its decoded bytes
 * go there (as many as the text between the quotes, at most) and *len
 * says how many.  *esc says whether it held an escape.
 */
static int string(struct jp *j, char *out, size_t *len, int *esc)
{
	size_t n = 0;

	ws(j);
	if (j->p >= j->end || *j->p != '"')
		return -1;
	j->p++;
	if (esc)
		*esc = 0;
	for (;;) {
		const char *q = plain_end(j->p, j->end);
		unsigned cp, lo;

		if (out) {
			memcpy(out + n, j->p, (size_t)(q - j->p));
			n += (size_t)(q - j->p);
		}
		j->p = q;
		if (q >= j->end || (unsigned char)*q < 0x20)
			return -1;
		if (*q == '"')
			break;
		/* a backslash */
		if (esc)
			*esc = 1;
		if (++j->p >= j->end)
			return -1;
		switch (*j->p++) {
		case '"': cp = '"'; break;
		case '\\': cp = '\\'; break;
		case '/': cp = '/'; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (j->end - j->p < 4 || hex4(j->p, &cp))
				return -1;
			j->p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return -1;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (j->end - j->p < 6 || j->p[0] != '\\' ||
				    j->p[1] != 'u' || hex4(j->p + 2, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					return -1;
				j->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (cp == 0)
				return -1; /* names never hold NUL */
			break;
		default: return -1;
		}
		if (out)
			n += put_utf8(out + n, cp);
	}
	j->p++;
	if (len)
		*len = n;
	return 0;
}

/*
 * Eight ASCII digits at p as a number, into *v; 0 when they are not all
 * digits.  The little-endian word trick of fast_float: each byte minus
 * '0', then pairs, fours and the eight combined by multiplications.
 */
static inline int eight_digits(const char *p, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	memcpy(&w, p, 8);
	if (((w + 0x4646464646464646ULL) | (w - 0x3030303030303030ULL)) &
	    0x8080808080808080ULL)
		return 0;
	w -= 0x3030303030303030ULL;
	w = w * 10 + (w >> 8);
	*v = (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
	      (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
	     32;
	return 1;
#else
	(void)p;
	(void)v;
	return 0;
#endif
}

static int integer(struct jp *j, int64_t *v)
{
	const char *p, *s, *lim, *end = j->end;
	int neg = 0;
	uint64_t u = 0;

	ws(j);
	p = j->p;
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	/* RFC 8259: "0" or no leading zero ("-0" too, "-01" not) */
	if (end - p >= 2 && p[0] == '0' && p[1] >= '0' && p[1] <= '9')
		return -1;
	/* at most 18 digits: a 19th refuses the number */
	s = p;
	lim = end - p > 19 ? p + 19 : end;
	for (;;) {
		uint64_t e;

		if (lim - p < 8 || !eight_digits(p, &e))
			break;
		u = u * 100000000 + e;
		p += 8;
	}
	while (p < lim && (unsigned)(*p - '0') <= 9)
		u = u * 10 + (uint64_t)(*p++ - '0');
	if (p == s || p - s > 18 ||
	    (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
		return -1;
	j->p = p;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	ws(j);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return -1;
	j->p += n;
	return 0;
}

static size_t count_digits(struct jp *j)
{
	const char *s = j->p, *p = s, *end = j->end;

	while (p < end && (unsigned)(*p - '0') <= 9)
		p++;
	j->p = p;
	return (size_t)(p - s);
}

/* RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int skip_number(struct jp *j)
{
	const char *s;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	s = j->p;
	if (!count_digits(j) || (*s == '0' && j->p - s > 1))
		return -1;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!count_digits(j))
			return -1;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!count_digits(j))
			return -1;
	}
	return 0;
}

/*
 * A key of the object and its ':' (the key is noted in ks); *id is its
 * id, or -1 for a key export does not write.  A key without escapes, the
 * usual one, is not copied.
 */
static int key_of(struct jp *j, struct seen *ks, int *id)
{
	const char *raw, *q, *s;
	size_t len, off;

	ws(j);
	if (j->p >= j->end || *j->p != '"')
		return -1;
	raw = j->p + 1; /* after the quote */
	q = plain_end(raw, j->end);
	if (q < j->end && *q == '"') {
		s = raw;
		len = (size_t)(q - raw);
		j->p = q + 1;
	} else {
		/* decoded text is never longer than the escaped text, which
		 * ends at the first quote no backslash escapes */
		const char *e = raw;
		char *buf;

		while (e < j->end && *e != '"')
			e += *e == '\\' ? 2 : 1;
		if (e > j->end)
			e = j->end;
		buf = seen_buf(ks, (size_t)(e - raw) + 1);
		if (!buf || string(j, buf, &len, NULL))
			return -1;
		s = buf;
	}
	off = (size_t)(raw - j->start);
	*id = key_id(s, len, s == raw ? j->end : s + len);
	if (seen_add(ks, *id, s, len, off, s != raw))
		return -1;
	return eat(j, ':') ? 0 : -1;
}

/* Recursive on nested values, at most MAX_DEPTH deep. */
/* NOLINTNEXTLINE(misc-no-recursion) */
static int skip(struct jp *j, int depth)
{
	if (depth > MAX_DEPTH)
		return -1;
	ws(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '"': return string(j, NULL, NULL, NULL);
	case 'n': return literal(j, "null");
	case 't': return literal(j, "true");
	case 'f': return literal(j, "false");
	case '{': {
		struct seen ks;
		int id, r = 0;

		j->p++;
		if (eat(j, '}'))
			return 0;
		seen_init(&ks);
		do {
			if (key_of(j, &ks, &id) || skip(j, depth + 1)) {
				r = -1;
				break;
			}
		} while (eat(j, ','));
		if (!r && (!eat(j, '}') || seen_end(j, &ks)))
			r = -1;
		seen_free(&ks);
		return r;
	}
	case '[':
		j->p++;
		if (eat(j, ']'))
			return 0;
		do {
			if (skip(j, depth + 1))
				return -1;
		} while (eat(j, ','));
		return eat(j, ']') ? 0 : -1;
	default: return skip_number(j);
	}
}

/* Does the text at p start with the word? */
static inline int at(const struct jp *j, const char *word, size_t n)
{
	return (size_t)(j->end - j->p) >= n && !memcmp(j->p, word, n);
}

/*
 * A time as export writes it, {"sec":S,"nsec":N,"iso":"..."} without
 * white space or escapes: what the general reader makes of it, found
 * with less work.  0 when it is not that (j->p is then where it was).
 */
static int time_as_written(struct jp *j, struct e4t_ts *ts)
{
	const char *start = j->p, *q;
	int64_t sec, nsec;

	if (!at(j, "{\"sec\":", 7))
		return 0;
	j->p += 7;
	if (integer(j, &sec) || !at(j, ",\"nsec\":", 8))
		goto no;
	j->p += 8;
	if (integer(j, &nsec) || !at(j, ",\"iso\":\"", 8))
		goto no;
	j->p += 8;
	q = plain_end(j->p, j->end);
	if (q >= j->end - 1 || q[0] != '"' || q[1] != '}')
		goto no;
	if (nsec < 0 || nsec >= E4T_NSEC_PER_SEC || sec < E4T_SEC_MIN ||
	    sec > E4T_SEC_MAX)
		goto no; /* refused: the general reader says so */
	j->p = q + 2;
	ts->sec = sec;
	ts->nsec = (uint32_t)nsec;
	ts->flags = E4T_TS_STORED | E4T_TS_EXTRA;
	return 1;
no:
	j->p = start;
	return 0;
}

/* A time: null, or {"sec":S,"nsec":N,...} */
static int time_value(struct jp *j, struct e4t_ts *ts, int *have)
{
	int got_sec = 0, got_nsec = 0;
	int64_t v;

	if (time_as_written(j, ts)) {
		*have = 1;
		return 0;
	}
	ws(j);
	if (j->p < j->end && *j->p == 'n') {
		*have = 0;
		return literal(j, "null");
	}
	if (!eat(j, '{'))
		return -1;
	if (!eat(j, '}')) {
		struct seen ks;
		int r = 0;

		seen_init(&ks);
		do {
			int id;

			if (key_of(j, &ks, &id)) {
				r = -1;
			} else if (id == K_SEC) {
				r = integer(j, &v);
				if (!r)
					ts->sec = v;
				got_sec = !r;
			} else if (id == K_NSEC) {
				r = integer(j, &v);
				if (!r && (v < 0 || v >= E4T_NSEC_PER_SEC))
					r = -1;
				if (!r)
					ts->nsec = (uint32_t)v;
				got_nsec = !r;
			} else {
				r = skip(j, 1);
			}
		} while (!r && eat(j, ','));
		if (!r && (!eat(j, '}') || seen_end(j, &ks)))
			r = -1;
		seen_free(&ks);
		if (r)
			return -1;
	}
	if (!got_sec || !got_nsec)
		return -1;
	if (ts->sec < E4T_SEC_MIN || ts->sec > E4T_SEC_MAX)
		return -1;
	ts->flags = E4T_TS_STORED | E4T_TS_EXTRA;
	*have = 1;
	return 0;
}

/* A string value whose text is kept as a slice of the line. */
static int string_slice(struct jp *j, const char **s, size_t *len, int *esc)
{
	const char *start;

	ws(j);
	start = j->p + 1;
	if (string(j, NULL, NULL, esc))
		return -1;
	*s = start;
	*len = (size_t)(j->p - 1 - start);
	return 0;
}

/* path_hex's digits: pairs of hex digits, none 00.  With b != NULL the
 * bytes go there. */
static int from_hex(const char *s, size_t n, char *b)
{
	size_t i;

	if (n % 2)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned v = 0;
		char pair[5] = { '0', '0', s[2 * i], s[2 * i + 1], 0 };

		if (hex4(pair, &v) || v == 0)
			return -1;
		if (b)
			b[i] = (char)v;
	}
	return 0;
}

/* The first byte of a path's decoded text (checked: not empty). */
static unsigned char first_byte(const struct e4t_mf_row *r)
{
	const char *s = r->path;
	unsigned cp;

	if (r->hex) {
		char pair[5] = { '0', '0', r->hex[0], r->hex[1], 0 };

		hex4(pair, &cp);
		return (unsigned char)cp;
	}
	if (s[0] != '\\')
		return (unsigned char)s[0];
	if (s[1] != 'u')
		return s[1] == '/' ? '/' : 0; /* none of the others is '<' */
	hex4(s + 2, &cp);
	return cp < 0x80 ? (unsigned char)cp : 0x80;
}

errcode_t e4t_mf_parse(const char *line, size_t len, struct e4t_mf_row *r,
		       struct e4t_manifest_why *why)
{
	struct jp j = { line, line + len, line, why };
	struct seen ks;
	int64_t v;
	int ok = 1;

	pthread_once(&key_once, key_table_init);
	memset(r, 0, sizeof(*r));
	if (why)
		memset(why, 0, sizeof(*why));
	if (!eat(&j, '{'))
		return E4T_ERR_MANIFEST;
	if (!eat(&j, '}')) {
		seen_init(&ks);
		do {
			int id, f, have, rc = 0;

			if (key_of(&j, &ks, &id)) {
				ok = 0;
				break;
			}
			f = id >= 0 ? key_field[id] : -1;
			/* a second path or path_hex: skipped, then refused
			 * as a duplicate key */
			if (id == K_PATH && !r->path) {
				rc = string_slice(&j, &r->path, &r->path_len,
						  &r->path_esc);
			} else if (id == K_PATH_HEX && !r->hex) {
				rc = string_slice(&j, &r->hex, &r->hex_len,
						  NULL);
			} else if (id == K_INO) {
				rc = integer(&j, &v);
				if (!rc && (v < 1 || v > UINT32_MAX))
					rc = -1;
				if (!rc)
					r->ino = (ext2_ino_t)v;
			} else if (id == K_E4TIME_MANIFEST) {
				rc = integer(&j, &v);
				if (!rc && (v < 1 || v > INT_MAX))
					rc = -1;
				if (!rc)
					r->header_version = (int)v;
			} else if (f >= 0 && f != E4T_DTIME && id != K_BTIME) {
				have = (int)((r->have >> f) & 1);
				rc = time_value(&j, &r->ts[f], &have);
				r->have = (r->have & ~(1U << f)) |
					  (unsigned)have << f;
			} else {
				rc = skip(&j, 1);
			}
			if (rc) {
				ok = 0;
				break;
			}
		} while (eat(&j, ','));
		if (ok && (!eat(&j, '}') || seen_end(&j, &ks)))
			ok = 0;
		seen_free(&ks);
	}
	ws(&j);
	if (ok && j.p != j.end)
		ok = 0;
	/* path_hex, when there, is the exact name; path may hold U+FFFD. */
	if (ok && r->hex && from_hex(r->hex, r->hex_len, NULL))
		ok = 0;
	/* "/..." or, for orphans and deleted inodes, "<INO>": a decoded
	 * path holds no NUL (refused as \u0000, and in path_hex) */
	if (ok && !r->header_version &&
	    (r->hex ? !r->hex_len : !r->path || !r->path_len))
		ok = 0;
	if (ok && !r->header_version && first_byte(r) != '/' &&
	    first_byte(r) != '<')
		ok = 0;
	if (!ok) {
		memset(r, 0, sizeof(*r));
		return why && why->dup_key ? E4T_ERR_MANIFEST_DUP
					   : E4T_ERR_MANIFEST;
	}
	return 0;
}

size_t e4t_mf_path_room(const struct e4t_mf_row *r)
{
	if (r->hex)
		return r->hex_len / 2 + 1;
	return r->path ? r->path_len + 1 : 1;
}

size_t e4t_mf_path(const struct e4t_mf_row *r, char *out)
{
	size_t len = 0;

	if (r->hex) {
		from_hex(r->hex, r->hex_len, out);
		len = r->hex_len / 2;
	} else if (r->path && !r->path_esc) {
		memcpy(out, r->path, r->path_len);
		len = r->path_len;
	} else if (r->path) {
		/* checked by e4t_mf_parse(): it decodes */
		struct jp j = { r->path - 1, r->path + r->path_len + 1,
				r->path - 1, NULL };

		string(&j, out, &len, NULL);
	}
	out[len] = '\0';
	return len;
}

void e4t_manifest_entry_free(struct e4t_manifest_entry *e)
{
	free(e->path);
	e->path = NULL;
}

errcode_t e4t_manifest_parse_line(const char *line, size_t len,
				  struct e4t_manifest_entry *e,
				  struct e4t_manifest_why *why)
{
	struct e4t_mf_row r;
	errcode_t err;
	int f;

	memset(e, 0, sizeof(*e));
	err = e4t_mf_parse(line, len, &r, why);
	if (err)
		return err;
	if (r.path || r.hex) {
		e->path = malloc(e4t_mf_path_room(&r));
		if (!e->path)
			return E4T_ERR_MANIFEST;
		e->path_len = e4t_mf_path(&r, e->path);
	}
	e->ino = r.ino;
	e->header_version = r.header_version;
	for (f = 0; f < E4T_NFIELDS; f++) {
		e->have[f] = (int)((r.have >> f) & 1);
		e->ts[f] = r.ts[f];
	}
	return 0;
}
