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

/* Length of the run of plain bytes at s. */
static size_t plain_run(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && plain((unsigned char)s[i]))
		i++;
	return i;
}

void esc_text(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;

	while (i < len) {
		unsigned char c = p[i];

		n = plain_run(s + i, len - i);
		if (n) {
			lb_write(b, s + i, n);
			i += n;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (n == 1 && c >= 0x20 && c != 0x7f && c != '\\') {
			lb_putc(b, (char)c);
		} else if (c == '\\') {
			lb_write(b, "\\\\", 2);
		} else if (c == '\n') {
			lb_write(b, "\\n", 2);
		} else if (c == '\t') {
			lb_write(b, "\\t", 2);
		} else if (c == '\r') {
			lb_write(b, "\\r", 2);
		} else if (n > 1 && !is_c1(p + i, n)) {
			lb_write(b, p + i, n);
			i += n;
			continue;
		} else if (n > 1) {
			for (k = 0; k < n; k++)
				put_xhh(b, p[i + k]);
			i += n;
			continue;
		} else {
			put_xhh(b, c);
		}
		i++;
	}
}

char *escape_text(const char *s, size_t len)
{
	struct lbuf b = { 0 };

	esc_text(&b, s, len);
	lb_putc(&b, '\0');
	return b.p;
}

void esc_bodyfile(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		n = plain_run(s + i, len - i);
		if (n) {
			lb_write(b, s + i, n);
			i += n;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (n == 1 && (c < 0x20 || c == 0x7f)) {
			put_xhh(b, c);
		} else if (n == 1 && (c == '\\' || c == '|' || c == ':')) {
			lb_putc(b, '\\');
			lb_putc(b, (char)c);
		} else if (n == 1) {
			lb_putc(b, (char)c);
		} else if (n == 0) {
			put_xhh(b, c); /* invalid UTF-8 byte */
		} else if (is_c1(p + i, n)) {
			/* \xHH is always one raw byte, so U+0085 is \xc2\x85
			 * and cannot be confused with an invalid byte 0x85. */
			put_xhh(b, p[i]);
			put_xhh(b, p[i + 1]);
			i += n;
			continue;
		} else {
			lb_write(b, p + i, n);
			i += n;
			continue;
		}
		i++;
	}
}

void esc_percent(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		n = plain_run(s + i, len - i);
		if (n) {
			lb_write(b, s + i, n);
			i += n;
			continue;
		}
		if (c == '%' || c == '|' || c < 0x20 || c == 0x7f) {
			char x[3] = { '%', "0123456789ABCDEF"[c >> 4],
				      "0123456789ABCDEF"[c & 15] };

			lb_write(b, x, 3);
		} else {
			lb_putc(b, (char)c);
		}
		i++;
	}
}

void esc_json(struct lbuf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		n = plain_run(s + i, len - i);
		if (n) {
			lb_write(b, s + i, n);
			i += n;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (n == 0) {
			lb_write(b, "\\ufffd", 6);
			i++;
			continue;
		}
		if (n > 1) {
			if (is_c1(p + i, n))
				lb_printf(b, "\\u00%02x",
					  0x80 | (p[i + 1] & 0x3f));
			else
				lb_write(b, p + i, n);
			i += n;
			continue;
		}
		switch (c) {
		case '"': lb_write(b, "\\\"", 2); break;
		case '\\': lb_write(b, "\\\\", 2); break;
		case '\n': lb_write(b, "\\n", 2); break;
		case '\t': lb_write(b, "\\t", 2); break;
		case '\r': lb_write(b, "\\r", 2); break;
		default:
			if (c < 0x20 || c == 0x7f)
				lb_printf(b, "\\u%04x", c);
			else
				lb_putc(b, (char)c);
		}
		i++;
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

void esc_csv(struct lbuf *b, const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\n', len) && !memchr(s, '\r', len)) {
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
