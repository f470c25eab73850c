/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linebuf.h --- a growable output buffer with fast integer formatting.
 * Formatters build rows here and write them in large chunks; stdio's
 * vfprintf was most of a timeline's time.
 */
#ifndef E4TIME_LINEBUF_H
#define E4TIME_LINEBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Out of memory, a buffer fails (failed): what does not fit in it then is
 * dropped, lb_flush writes nothing more from it and returns -1 with errno
 * ENOMEM, and lb_lost_output() says so at the end of the run (the
 * command exits EXIT_INTERNAL): the output is cut short, never silently
 * and never with a half-written row.
 */
struct lbuf {
	char *p;
	size_t len, cap;
	int failed;
};

/* b fails: out of memory for what it is the output of (lb_grow's, or
 * its writer's set-up). */
void lb_fail(struct lbuf *b);
/* Make room for n more bytes: 0, or -1 when out of memory (b failed). */
int lb_grow(struct lbuf *b, size_t n);
/* Did a buffer fail in this run? */
int lb_lost_output(void);

static inline void lb_putc(struct lbuf *b, char c)
{
	if (b->len + 1 > b->cap && lb_grow(b, 1))
		return;
	b->p[b->len++] = c;
}

static inline void lb_write(struct lbuf *b, const void *s, size_t n)
{
	/* b->p may still be NULL, and memcpy(NULL, s, 0) is undefined */
	if (n == 0)
		return;
	if (b->len + n > b->cap && lb_grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void lb_puts(struct lbuf *b, const char *s)
{
	lb_write(b, s, strlen(s));
}

/* Room for n more bytes at the end: where they go; NULL when out of
 * memory (nothing is to be written then, b->len left as it is). */
static inline char *lb_reserve(struct lbuf *b, size_t n)
{
	if (b->len + n > b->cap && lb_grow(b, n))
		return NULL;
	return b->p + b->len;
}

extern const char lb_digit_pairs[201];

/*
 * The decimal digits of v (1 to 20 of them, unterminated) at d, in room
 * the caller reserved: returns their end.  The digit count from the bit
 * length (1233 / 4096 ~ log10(2)), then two digits at a time backwards.
 */
static inline char *lb_put_u64(char *d, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL,
		10ULL,
		100ULL,
		1000ULL,
		10000ULL,
		100000ULL,
		1000000ULL,
		10000000ULL,
		100000000ULL,
		1000000000ULL,
		10000000000ULL,
		100000000000ULL,
		1000000000000ULL,
		10000000000000ULL,
		100000000000000ULL,
		1000000000000000ULL,
		10000000000000000ULL,
		100000000000000000ULL,
		1000000000000000000ULL,
		10000000000000000000ULL,
	};
	unsigned t;
	char *end;

	if (v < 10) {
		*d = (char)('0' + v);
		return d + 1;
	}
	t = (unsigned)(64 - __builtin_clzll(v)) * 1233 >> 12;
	end = d + t + (v >= pow10[t]);
	d = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100) * 2;

		v /= 100;
		*--d = lb_digit_pairs[r + 1];
		*--d = lb_digit_pairs[r];
	}
	if (v >= 10) {
		*--d = lb_digit_pairs[v * 2 + 1];
		*--d = lb_digit_pairs[v * 2];
	} else {
		*--d = (char)('0' + v);
	}
	return end;
}

static inline void lb_u64(struct lbuf *b, uint64_t v)
{
	char *d = lb_reserve(b, 20);

	if (d)
		b->len = (size_t)(lb_put_u64(d, v) - b->p);
}

void lb_i64(struct lbuf *b, int64_t v);
/* v as exactly 'width' digits, zero-padded */
void lb_uint_pad(struct lbuf *b, uint32_t v, int width);
void lb_printf(struct lbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Write out and empty the buffer; returns 0 or -1 (errno set). */
int lb_flush(struct lbuf *b, FILE *fp);
/* Write b to fp once it holds 64 KiB; with fp NULL, keep it all. */
static inline int lb_maybe_flush(struct lbuf *b, FILE *fp)
{
	return fp && b->len > 65536 ? lb_flush(b, fp) : 0;
}
void lb_free(struct lbuf *b);

#endif
