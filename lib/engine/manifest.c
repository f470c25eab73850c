/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.c --- reading one line of an e4time manifest (JSON lines, as
 * `e4time export` writes them).  A small strict JSON reader: it takes
 * what it needs (path or path_hex, ino, and the times' sec and nsec),
 * skips every other key, and refuses anything malformed: numbers as RFC
 * 8259 writes them (no leading zeros, no '+', digits on both sides of a
 * '.'), and no key twice in one object.  It never reads past the line and
 * never recurses deeper than MAX_DEPTH.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

#define MAX_DEPTH 16

struct jp {
	const char *p, *end;
	const char *start;	      /* the line */
	struct e4t_manifest_why *why; /* a duplicate key found, or NULL */
};

/* The keys of one object, decoded, with where each is in the line. */
struct key {
	char *s;
	size_t len, off;
	int owned; /* s is malloc'd (a key with escapes); else in the line */
};

/* The first KEYS_INLINE keys of an object live in the keyset itself; a
 * manifest row has about 17, so a row costs no malloc for its keys. */
#define KEYS_INLINE 32

struct keyset {
	struct key *v;
	size_t n, cap;
	struct key inl[KEYS_INLINE];
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static int eat(struct jp *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
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
 * A string; with out != NULL its decoded bytes go to a malloc'd *out
 * (NUL-terminated, *len without the NUL).
 */
static int string(struct jp *j, char **out, size_t *len)
{
	const char *start;
	char *buf = NULL;
	size_t n = 0;

	ws(j);
	if (j->p >= j->end || *j->p != '"')
		return -1;
	start = ++j->p;
	if (out) {
		/* decoded text is never longer than the escaped text, which
		 * ends at the first quote no backslash escapes (sized so,
		 * not by the rest of the line: a manifest of a million rows
		 * keeps a million paths) */
		const char *q = start;

		while (q < j->end && *q != '"')
			q += *q == '\\' ? 2 : 1;
		if (q > j->end)
			q = j->end;
		buf = malloc((size_t)(q - start) + 1);
		if (!buf)
			return -1;
	}
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		unsigned cp, lo;

		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			if (buf)
				buf[n++] = (char)c;
			j->p++;
			continue;
		}
		if (++j->p >= j->end)
			goto bad;
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
				goto bad;
			j->p += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				goto bad;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (j->end - j->p < 6 || j->p[0] != '\\' ||
				    j->p[1] != 'u' || hex4(j->p + 2, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					goto bad;
				j->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (cp == 0)
				goto bad; /* names never hold NUL */
			break;
		default: goto bad;
		}
		if (buf)
			n += put_utf8(buf + n, cp);
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	if (out) {
		buf[n] = '\0';
		*out = buf;
		*len = n;
	}
	return 0;
bad:
	free(buf);
	return -1;
}

static int integer(struct jp *j, int64_t *v)
{
	int neg = 0, digits = 0;
	uint64_t u = 0;

	ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = 1;
		j->p++;
	}
	/* RFC 8259: "0" or no leading zero ("-0" too, "-01" not) */
	if (j->end - j->p >= 2 && j->p[0] == '0' && j->p[1] >= '0' &&
	    j->p[1] <= '9')
		return -1;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		if (++digits > 18)
			return -1;
		u = u * 10 + (uint64_t)(*j->p++ - '0');
	}
	if (!digits ||
	    (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')))
		return -1;
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

static int skip(struct jp *j, int depth);

static size_t count_digits(struct jp *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return (size_t)(j->p - s);
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

static void keys_free(struct keyset *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->v[i].owned)
			free(ks->v[i].s);
	if (ks->v != ks->inl)
		free(ks->v);
	ks->v = NULL;
	ks->n = ks->cap = 0;
}

/* Room for one more key: the inline array first, then the heap. */
static struct key *key_slot(struct keyset *ks)
{
	if (!ks->v) {
		ks->v = ks->inl;
		ks->cap = KEYS_INLINE;
	}
	if (ks->n == ks->cap) {
		size_t cap = ks->cap * 2;
		struct key *old = ks->v == ks->inl ? NULL : ks->v;
		struct key *v = realloc(old, cap * sizeof(*v));

		if (!v)
			return NULL; /* ks->v still holds the keys */
		if (!old)
			memcpy(v, ks->inl, sizeof(ks->inl));
		ks->v = v;
		ks->cap = cap;
	}
	return &ks->v[ks->n];
}

/* A key of the object and its ':' (the key is kept in ks).  A key
 * without escapes, the usual one, is not copied: *out points into the
 * line and is not NUL-terminated; *len says how long it is. */
static int key_of(struct jp *j, struct keyset *ks, const char **out,
		  size_t *len)
{
	struct key *k = key_slot(ks);
	const char *raw, *q;

	if (!k)
		return -1;
	ws(j);
	raw = j->p + 1; /* after the quote */
	for (q = raw;
	     q < j->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20;
	     q++)
		;
	if (j->p < j->end && *j->p == '"' && q < j->end && *q == '"') {
		k->s = (char *)raw; /* never written through: owned is 0 */
		k->len = (size_t)(q - raw);
		k->owned = 0;
		j->p = q + 1;
	} else {
		if (string(j, &k->s, &k->len))
			return -1;
		k->owned = 1;
	}
	k->off = (size_t)(raw - j->start);
	ks->n++;
	*out = k->s;
	*len = k->len;
	return eat(j, ':') ? 0 : -1;
}

/* Is the key (s, len) the NUL-terminated word? */
static int key_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

/* At the end of an object: -1 when a key came twice (the first such
 * second one, as written, goes to j->why).  Keys are in the order
 * written; an object has a few, so each is compared with those before. */
static int keys_unique(struct jp *j, struct keyset *ks)
{
	const struct key *dup = NULL;
	size_t i, k;

	for (i = 1; i < ks->n && !dup; i++) {
		const struct key *b = &ks->v[i];

		for (k = 0; k < i; k++) {
			const struct key *a = &ks->v[k];

			if (a->len == b->len &&
			    (!a->len || a->s[0] == b->s[0]) &&
			    !memcmp(a->s, b->s, a->len)) {
				dup = b;
				break;
			}
		}
	}
	if (!dup)
		return 0;
	if (j->why && !j->why->dup_key) {
		struct e4t_manifest_why *w = j->why;
		size_t n = dup->len < sizeof(w->key) - 1 ? dup->len
							 : sizeof(w->key) - 1;

		w->dup_key = 1;
		memcpy(w->key, dup->s, n);
		w->key[n] = '\0';
		w->key_len = dup->len;
		w->dup_key_off = dup->off;
	}
	return -1;
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
	case '"': return string(j, NULL, NULL);
	case 'n': return literal(j, "null");
	case 't': return literal(j, "true");
	case 'f': return literal(j, "false");
	case '{': {
		struct keyset ks = { 0 };
		const char *k;
		size_t klen;
		int r = 0;

		j->p++;
		if (eat(j, '}'))
			return 0;
		do {
			if (key_of(j, &ks, &k, &klen) || skip(j, depth + 1)) {
				r = -1;
				break;
			}
		} while (eat(j, ','));
		if (!r && (!eat(j, '}') || keys_unique(j, &ks)))
			r = -1;
		keys_free(&ks);
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

/* A time: null, or {"sec":S,"nsec":N,...} */
static int time_value(struct jp *j, struct e4t_ts *ts, int *have)
{
	int got_sec = 0, got_nsec = 0;
	int64_t v;

	ws(j);
	if (j->p < j->end && *j->p == 'n') {
		*have = 0;
		return literal(j, "null");
	}
	if (!eat(j, '{'))
		return -1;
	if (!eat(j, '}')) {
		struct keyset ks = { 0 };
		int r = 0;

		do {
			const char *k;
			size_t klen;

			if (key_of(j, &ks, &k, &klen)) {
				r = -1;
			} else if (key_is(k, klen, "sec")) {
				r = integer(j, &v);
				if (!r)
					ts->sec = v;
				got_sec = !r;
			} else if (key_is(k, klen, "nsec")) {
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
		if (!r && (!eat(j, '}') || keys_unique(j, &ks)))
			r = -1;
		keys_free(&ks);
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

static int from_hex(const char *s, size_t n, char **out, size_t *len)
{
	size_t i;
	char *b;

	if (n % 2)
		return -1;
	b = malloc(n / 2 + 1);
	if (!b)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned v = 0;
		char pair[5] = { '0', '0', s[2 * i], s[2 * i + 1], 0 };

		if (hex4(pair, &v) || v == 0) {
			free(b);
			return -1;
		}
		b[i] = (char)v;
	}
	b[n / 2] = '\0';
	*out = b;
	*len = n / 2;
	return 0;
}

void e4t_manifest_entry_free(struct e4t_manifest_entry *e)
{
	free(e->path);
	e->path = NULL;
}

/* e4t_field_parse() of a key that is not NUL-terminated: a time field's
 * name is short, so it is copied out first; anything longer is none. */
static int field_of(const char *key, size_t len)
{
	char name[16];

	/* every name e4t_field_parse() knows is 5 or 6 bytes ("atime",
	 * "crtime", "birth"): most keys of a row are told apart here */
	if (len < 5 || len > 6 || memchr(key, '\0', len))
		return -1;
	memcpy(name, key, len);
	name[len] = '\0';
	return e4t_field_parse(name);
}

errcode_t e4t_manifest_parse_line(const char *line, size_t len,
				  struct e4t_manifest_entry *e,
				  struct e4t_manifest_why *why)
{
	struct jp j = { line, line + len, line, why };
	struct keyset ks = { 0 };
	char *path = NULL, *hex = NULL;
	size_t path_len = 0, hex_len = 0;
	int64_t v;
	int ok = 1;

	memset(e, 0, sizeof(*e));
	if (why)
		memset(why, 0, sizeof(*why));
	if (!eat(&j, '{'))
		return E4T_ERR_MANIFEST;
	if (!eat(&j, '}')) {
		do {
			const char *key;
			size_t klen;
			int f, r = 0;

			if (key_of(&j, &ks, &key, &klen)) {
				ok = 0;
				break;
			}
			f = field_of(key, klen);
			/* a second path or path_hex: skipped, then refused
			 * as a duplicate key */
			if (key_is(key, klen, "path") && !path)
				r = string(&j, &path, &path_len);
			else if (key_is(key, klen, "path_hex") && !hex)
				r = string(&j, &hex, &hex_len);
			else if (key_is(key, klen, "ino")) {
				r = integer(&j, &v);
				if (!r && (v < 1 || v > UINT32_MAX))
					r = -1;
				if (!r)
					e->ino = (ext2_ino_t)v;
			} else if (key_is(key, klen, "e4time_manifest")) {
				r = integer(&j, &v);
				if (!r && (v < 1 || v > INT_MAX))
					r = -1;
				if (!r)
					e->header_version = (int)v;
			} else if (f >= 0 && f != E4T_DTIME &&
				   !key_is(key, klen, "btime")) {
				r = time_value(&j, &e->ts[f], &e->have[f]);
			} else {
				r = skip(&j, 1);
			}
			if (r) {
				ok = 0;
				break;
			}
		} while (eat(&j, ','));
		if (ok && (!eat(&j, '}') || keys_unique(&j, &ks)))
			ok = 0;
		keys_free(&ks);
	}
	ws(&j);
	if (ok && j.p != j.end)
		ok = 0;
	/* path_hex, when there, is the exact name; path may hold U+FFFD. */
	if (ok && hex) {
		free(path);
		path = NULL;
		if (from_hex(hex, hex_len, &path, &path_len))
			ok = 0;
	}
	free(hex);
	/* "/..." or, for orphans and deleted inodes, "<INO>" */
	if (ok && !e->header_version &&
	    (!path || path_len == 0 || (path[0] != '/' && path[0] != '<') ||
	     memchr(path, '\0', path_len)))
		ok = 0;
	if (!ok) {
		free(path);
		memset(e, 0, sizeof(*e));
		return why && why->dup_key ? E4T_ERR_MANIFEST_DUP
					   : E4T_ERR_MANIFEST;
	}
	e->path = path;
	e->path_len = path_len;
	return 0;
}
