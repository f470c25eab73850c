/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.c --- reading one line of an e4time manifest (JSON lines, as
 * `e4time export` writes them).  A small strict JSON reader: it takes
 * what it needs (path or path_hex, ino, and the times' sec and nsec),
 * skips every other key, and refuses anything malformed.  It never reads
 * past the line and never recurses deeper than MAX_DEPTH.
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
		/* decoded text is never longer than the escaped text */
		buf = malloc((size_t)(j->end - start) + 1);
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

static int skip_number(struct jp *j)
{
	const char *s = j->p;

	/* (strchr() would also match a NUL byte: the string's end) */
	while (j->p < j->end && *j->p && strchr("+-0123456789.eE", *j->p))
		j->p++;
	return j->p > s ? 0 : -1;
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
	case '{':
		j->p++;
		if (eat(j, '}'))
			return 0;
		do {
			if (string(j, NULL, NULL) || !eat(j, ':') ||
			    skip(j, depth + 1))
				return -1;
		} while (eat(j, ','));
		return eat(j, '}') ? 0 : -1;
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
		do {
			char *key;
			size_t klen;
			int r;

			if (string(j, &key, &klen))
				return -1;
			if (!eat(j, ':')) {
				free(key);
				return -1;
			}
			if (!strcmp(key, "sec")) {
				r = integer(j, &v);
				if (!r)
					ts->sec = v;
				got_sec = !r;
			} else if (!strcmp(key, "nsec")) {
				r = integer(j, &v);
				if (!r && (v < 0 || v >= E4T_NSEC_PER_SEC))
					r = -1;
				if (!r)
					ts->nsec = (uint32_t)v;
				got_nsec = !r;
			} else {
				r = skip(j, 1);
			}
			free(key);
			if (r)
				return -1;
		} while (eat(j, ','));
		if (!eat(j, '}'))
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

errcode_t e4t_manifest_parse_line(const char *line, size_t len,
				  struct e4t_manifest_entry *e)
{
	struct jp j = { line, line + len };
	char *path = NULL, *hex = NULL;
	size_t path_len = 0, hex_len = 0;
	int64_t v;
	int ok = 1;

	memset(e, 0, sizeof(*e));
	if (!eat(&j, '{'))
		return E4T_ERR_MANIFEST;
	if (!eat(&j, '}')) {
		do {
			char *key;
			size_t klen;
			int f, r = 0;

			if (string(&j, &key, &klen)) {
				ok = 0;
				break;
			}
			if (!eat(&j, ':')) {
				free(key);
				ok = 0;
				break;
			}
			f = e4t_field_parse(key);
			if (!strcmp(key, "path") && !path)
				r = string(&j, &path, &path_len);
			else if (!strcmp(key, "path_hex") && !hex)
				r = string(&j, &hex, &hex_len);
			else if (!strcmp(key, "ino")) {
				r = integer(&j, &v);
				if (!r && (v < 1 || v > UINT32_MAX))
					r = -1;
				if (!r)
					e->ino = (ext2_ino_t)v;
			} else if (!strcmp(key, "e4time_manifest")) {
				r = integer(&j, &v);
				if (!r && (v < 1 || v > INT_MAX))
					r = -1;
				if (!r)
					e->header_version = (int)v;
			} else if (f >= 0 && f != E4T_DTIME &&
				   strcmp(key, "btime")) {
				r = time_value(&j, &e->ts[f], &e->have[f]);
			} else {
				r = skip(&j, 1);
			}
			free(key);
			if (r) {
				ok = 0;
				break;
			}
		} while (eat(&j, ','));
		if (ok && !eat(&j, '}'))
			ok = 0;
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
		return E4T_ERR_MANIFEST;
	}
	e->path = path;
	e->path_len = path_len;
	return 0;
}
