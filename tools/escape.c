/*
 * escape.c --- name escaping for each output format.  ext4 names are raw
 * bytes (anything but NUL and '/'); every format here keeps a name on
 * one line and in one field, and every escaping is reversible.
 */
#include "config.h"

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

static void put_xhh(FILE *fp, unsigned char c)
{
	putc('\\', fp);
	putc('x', fp);
	putc(hexdig[c >> 4], fp);
	putc(hexdig[c & 15], fp);
}

void put_text(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;

	while (i < len) {
		unsigned char c = p[i];

		n = utf8_seq_len(p + i, len - i);
		if (n == 1 && c >= 0x20 && c != 0x7f && c != '\\') {
			putc(c, fp);
		} else if (c == '\\') {
			fputs("\\\\", fp);
		} else if (c == '\n') {
			fputs("\\n", fp);
		} else if (c == '\t') {
			fputs("\\t", fp);
		} else if (c == '\r') {
			fputs("\\r", fp);
		} else if (n > 1 && !is_c1(p + i, n)) {
			fwrite(p + i, 1, n, fp);
			i += n;
			continue;
		} else if (n > 1) {
			for (k = 0; k < n; k++)
				put_xhh(fp, p[i + k]);
			i += n;
			continue;
		} else {
			put_xhh(fp, c);
		}
		i++;
	}
}

char *escape_text(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);

	if (!fp)
		return NULL;
	put_text(fp, s, len);
	if (fclose(fp)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void put_bodyfile(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n, k;

	while (i < len) {
		unsigned char c = p[i];

		n = utf8_seq_len(p + i, len - i);
		if (n == 1 && (c < 0x20 || c == 0x7f)) {
			put_xhh(fp, c);
		} else if (n == 1 && (c == '\\' || c == '|' || c == ':')) {
			putc('\\', fp);
			putc(c, fp);
		} else if (n == 1) {
			putc(c, fp);
		} else if (n == 0) {
			put_xhh(fp, c); /* invalid UTF-8 byte */
		} else if (is_c1(p + i, n)) {
			/* \xHH is always one raw byte, so U+0085 is \xc2\x85
			 * and cannot be confused with an invalid byte 0x85. */
			put_xhh(fp, p[i]);
			put_xhh(fp, p[i + 1]);
			i += n;
			continue;
		} else {
			for (k = 0; k < n; k++)
				putc(p[i + k], fp);
			i += n;
			continue;
		}
		i++;
	}
}

void put_percent(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (c == '%' || c == '|' || c < 0x20 || c == 0x7f) {
			putc('%', fp);
			putc("0123456789ABCDEF"[c >> 4], fp);
			putc("0123456789ABCDEF"[c & 15], fp);
		} else {
			putc(c, fp);
		}
	}
}

void put_json(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		n = utf8_seq_len(p + i, len - i);
		if (n == 0) {
			fputs("\\ufffd", fp);
			i++;
			continue;
		}
		if (n > 1) {
			if (is_c1(p + i, n))
				fprintf(fp, "\\u00%02x",
					0x80 | (p[i + 1] & 0x3f));
			else
				fwrite(p + i, 1, n, fp);
			i += n;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\t': fputs("\\t", fp); break;
		case '\r': fputs("\\r", fp); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(fp, "\\u%04x", c);
			else
				putc(c, fp);
		}
		i++;
	}
}

void put_hex(FILE *fp, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		putc(hexdig[(unsigned char)s[i] >> 4], fp);
		putc(hexdig[(unsigned char)s[i] & 15], fp);
	}
}

void put_csv(FILE *fp, const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\n', len) && !memchr(s, '\r', len)) {
		fwrite(s, 1, len, fp);
		return;
	}
	putc('"', fp);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			putc('"', fp);
		putc(s[i], fp);
	}
	putc('"', fp);
}
