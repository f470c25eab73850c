/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.c --- name escaping for each output format.  ext4 names are raw
 * bytes (anything but NUL and '/'); every format here keeps a name on
 * one line and in one field, and every escaping is reversible.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"

size_t utf8_seq_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	size_t n, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

/* Is the valid sequence at p a C1 control (U+0080..U+009F)? */
static int is_c1(const unsigned char *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

static const char hexdig[] = "0123456789abcdef";

static void put_xhh(struct lbuf *b, unsigned char c)
{
	char x[4] = { '\\', 'x', hexdig[c >> 4], hexdig[c & 15] };

	lb_write(b, x, 4);
}

/* Plain bytes no format escapes: printable ASCII but \ | : % " , */
#define P1 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char plain_bytes[256] = {
	[0x20] = 1,  1,		 0 /* " */,   1,	  1,
	0 /* % */,   1,		 1,	      1,	  1,
	1,	     1,		 0 /* , */,   1,	  1,
	1,	     [0x30] = 1, 1,	      1,	  1,
	1,	     1,		 1,	      1,	  1,
	1,	     0 /* : */,	 1,	      1,	  1,
	1,	     1,		 [0x40] = P1, [0x50] = 1, 1,
	1,	     1,		 1,	      1,	  1,
	1,	     1,		 1,	      1,	  1,
	0 /* \ */,   1,		 1,	      1,	  [0x60] = P1,
	[0x70] = 1,  1,		 1,	      1,	  1,
	1,	     1,		 1,	      1,	  1,
	1,	     1,		 0 /* | */,   1,	  1,
	0 /* DEL */,
};

static int plain(unsigned char c)
{
	return plain_bytes[c];
}

/* Length of the run of plain bytes at s: 8 at a time, one branch each. */
static size_t plain_run(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i + 8 <= len && (plain_bytes[p[i]] & plain_bytes[p[i + 1]] &
				plain_bytes[p[i + 2]] & plain_bytes[p[i + 3]] &
				plain_bytes[p[i + 4]] & plain_bytes[p[i + 5]] &
				plain_bytes[p[i + 6]] & plain_bytes[p[i + 7]]))
		i += 8;
	while (i < len && plain(p[i]))
		i++;
	return i;
}

/*
 * The common loop: runs of plain bytes are copied as they are; at any
 * other byte the format's handler writes what it stands for and returns
 * how many bytes it consumed (at least one).
 */
typedef size_t (*special_fn)(struct lbuf *b, const unsigned char *p,
			     size_t left);

static void escape_with(struct lbuf *b, const char *s, size_t len,
			special_fn special)
{
	size_t i = 0;

	while (i < len) {
		size_t n = plain_run(s + i, len - i);

		if (n) {
			lb_write(b, s + i, n);
			i += n;
			continue;
		}
		i += special(b, (const unsigned char *)s + i, len - i);
	}
}

static size_t text_special(struct lbuf *b, const unsigned char *p, size_t left)
{
	size_t n = utf8_seq_len(p, left), k;

	switch (p[0]) {
	case '\\': lb_write(b, "\\\\", 2); return 1;
	case '\n': lb_write(b, "\\n", 2); return 1;
	case '\t': lb_write(b, "\\t", 2); return 1;
	case '\r': lb_write(b, "\\r", 2); return 1;
	}
	if (n == 1 && p[0] >= 0x20 && p[0] != 0x7f) {
		lb_putc(b, (char)p[0]);
		return 1;
	}
	if (n > 1 && !is_c1(p, n)) {
		lb_write(b, p, n);
		return n;
	}
	if (n == 0)
		n = 1;
	for (k = 0; k < n; k++)
		put_xhh(b, p[k]);
	return n;
}

void esc_text(struct lbuf *b, const char *s, size_t len)
{
	escape_with(b, s, len, text_special);
}

char *escape_text(const char *s, size_t len)
{
	struct lbuf b = { 0 };

	esc_text(&b, s, len);
	lb_putc(&b, '\0');
	return b.p;
}

/* A byte that is not part of valid UTF-8, as \XHH (upper case): plaso,
 * which holds names as text, leaves it as it is. */
static void put_bad_byte(struct lbuf *b, unsigned char c)
{
	char x[4] = { '\\', 'X', "0123456789ABCDEF"[c >> 4],
		      "0123456789ABCDEF"[c & 15] };

	lb_write(b, x, 4);
}

/*
 * What both bodyfile dialects escape, as plaso's bodyfile parser undoes
 * it: a control (U+0000-001F, U+007F-009F) as \xhh of its code point
 * (U+0085 is \x85, not its UTF-8 bytes), a backslash as \\, and a byte
 * that is not UTF-8 as \XHH.  Everything else, ':' included, as it is.
 */
static size_t body_common(struct lbuf *b, const unsigned char *p, size_t left)
{
	size_t n = utf8_seq_len(p, left);

	if (n == 1 && p[0] == '\\') {
		lb_write(b, "\\\\", 2);
		return 1;
	}
	if (n == 1 && p[0] >= 0x20 && p[0] != 0x7f) {
		lb_putc(b, (char)p[0]);
		return 1;
	}
	if (n == 1) {
		put_xhh(b, p[0]);
		return 1;
	}
	if (n > 1 && is_c1(p, n)) {
		put_xhh(b, p[1]); /* U+0080..U+009F: c2 80..c2 9f */
		return 2;
	}
	if (n > 1) {
		lb_write(b, p, n);
		return n;
	}
	put_bad_byte(b, p[0]);
	return 1;
}

static size_t bodyfile_special(struct lbuf *b, const unsigned char *p,
			       size_t left)
{
	if (p[0] == '|') {
		lb_write(b, "\\|", 2);
		return 1;
	}
	return body_common(b, p, left);
}

void esc_bodyfile(struct lbuf *b, const char *s, size_t len)
{
	escape_with(b, s, len, bodyfile_special);
}

/* mactime decodes %XX in every field after splitting at '|': '|' and '%'
 * are %7C and %25, which it gives back; the rest as in the bodyfile,
 * which it leaves as it is. */
static size_t mactime_special(struct lbuf *b, const unsigned char *p,
			      size_t left)
{
	if (p[0] == '|') {
		lb_write(b, "%7C", 3);
		return 1;
	}
	if (p[0] == '%') {
		lb_write(b, "%25", 3);
		return 1;
	}
	return body_common(b, p, left);
}

void esc_mactime(struct lbuf *b, const char *s, size_t len)
{
	escape_with(b, s, len, mactime_special);
}

static size_t json_special(struct lbuf *b, const unsigned char *p, size_t left)
{
	size_t n = utf8_seq_len(p, left);

	if (n == 0) {
		lb_write(b, "\\ufffd", 6);
		return 1;
	}
	if (n > 1) {
		if (is_c1(p, n))
			lb_printf(b, "\\u00%02x", 0x80 | (p[1] & 0x3f));
		else
			lb_write(b, p, n);
		return n;
	}
	switch (p[0]) {
	case '"': lb_write(b, "\\\"", 2); break;
	case '\\': lb_write(b, "\\\\", 2); break;
	case '\n': lb_write(b, "\\n", 2); break;
	case '\t': lb_write(b, "\\t", 2); break;
	case '\r': lb_write(b, "\\r", 2); break;
	default:
		if (p[0] < 0x20 || p[0] == 0x7f)
			lb_printf(b, "\\u%04x", p[0]);
		else
			lb_putc(b, (char)p[0]);
	}
	return 1;
}

void esc_json(struct lbuf *b, const char *s, size_t len)
{
	escape_with(b, s, len, json_special);
}

void utf8_lossy(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seq_len(p + i, len - i);

		if (n) {
			lb_write(b, p + i, n);
			i += n;
		} else {
			lb_write(b, "\xef\xbf\xbd", 3); /* U+FFFD */
			i++;
		}
	}
}

void esc_hex(struct lbuf *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		lb_putc(b, hexdig[(unsigned char)s[i] >> 4]);
		lb_putc(b, hexdig[(unsigned char)s[i] & 15]);
	}
}

/* Does a CSV field need quotes: a comma, a quote, CR or LF in it (all
 * at or below ','; one pass, most bytes above) */
static int csv_quoted(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ',' &&
		    (c == ',' || c == '"' || c == '\n' || c == '\r'))
			return 1;
	}
	return 0;
}

void esc_csv(struct lbuf *b, const char *s, size_t len)
{
	size_t i;

	if (!csv_quoted(s, len)) {
		lb_write(b, s, len);
		return;
	}
	lb_putc(b, '"');
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			lb_putc(b, '"');
		lb_putc(b, s[i]);
	}
	lb_putc(b, '"');
}

void esc_terminal(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seq_len(p + i, len - i);

		if (n == 1 && (p[i] >= 0x20 || p[i] == '\n' || p[i] == '\t') &&
		    p[i] != 0x7f) {
			lb_putc(b, (char)p[i]);
		} else if (n > 1 && !is_c1(p + i, n)) {
			lb_write(b, p + i, n);
		} else {
			size_t k, m = n ? n : 1;

			for (k = 0; k < m; k++)
				put_xhh(b, p[i + k]);
			n = m;
		}
		i += n;
	}
}
