/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linebuf.c --- see linebuf.h.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "escape.h"
#include "linebuf.h"

/* A buffer failed (any thread): lb_lost_output(). */
static int lost_output;

/* Test hook (test_cli): E4TIME_TEST_LB_FAIL=N, the Nth growth of a
 * buffer fails as out of memory. */
static int fail_now(void)
{
#ifdef E4T_TEST_HOOKS
	static long left = -1;
	const char *v;

	if (left < 0) {
		v = getenv("E4TIME_TEST_LB_FAIL");
		left = v ? strtol(v, NULL, 10) : 0;
	}
	return left > 0 && __atomic_sub_fetch(&left, 1, __ATOMIC_RELAXED) == 0;
#else
	return 0;
#endif
}

void lb_fail(struct lbuf *b)
{
	b->failed = 1;
	__atomic_store_n(&lost_output, 1, __ATOMIC_RELAXED);
}

int lb_grow(struct lbuf *b, size_t n)
{
	if (!b->failed && !fail_now() &&
	    !e4t_grow(&b->p, &b->cap, b->len + n, 1, 4096))
		return 0;
	lb_fail(b);
	return -1;
}

int lb_lost_output(void)
{
	return __atomic_load_n(&lost_output, __ATOMIC_RELAXED);
}

const char lb_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

void lb_i64(struct lbuf *b, int64_t v)
{
	if (v < 0) {
		lb_putc(b, '-');
		lb_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		lb_u64(b, (uint64_t)v);
	}
}

void lb_uint_pad(struct lbuf *b, uint32_t v, int width)
{
	char tmp[16];
	int i;

	if (width > (int)sizeof(tmp))
		width = sizeof(tmp);
	for (i = width - 1; i >= 0; i--) {
		tmp[i] = (char)('0' + v % 10);
		v /= 10;
	}
	lb_write(b, tmp, (size_t)width);
}

void lb_printf(struct lbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (lb_grow(b, (size_t)n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/*
 * Standard output and error that are terminals get no raw control byte,
 * whatever the format (see esc_terminal()): a name cannot send an escape
 * sequence to the terminal.  Redirected output is written as it is.
 */
static int is_terminal(FILE *fp)
{
	static int state[3] = { -1, -1, -1 };
	int fd = fileno(fp);

	if (fd < 0 || fd > 2)
		return 0;
	if (state[fd] < 0)
		state[fd] = isatty(fd);
	return state[fd];
}

int lb_flush(struct lbuf *b, FILE *fp)
{
	size_t n = b->len;

	b->len = 0;
	if (b->failed) { /* what it holds may lack what did not fit */
		errno = ENOMEM;
		return -1;
	}
	if (n && is_terminal(fp)) {
		struct lbuf t = { NULL, 0, 0, 0 };
		int rc = 0;

		esc_terminal(&t, b->p, n);
		if (t.failed) {
			errno = ENOMEM;
			rc = -1;
		} else if (fwrite(t.p, 1, t.len, fp) != t.len) {
			rc = -1;
		}
		free(t.p);
		return rc;
	}
	if (n && fwrite(b->p, 1, n, fp) != n)
		return -1;
	return 0;
}

void lb_free(struct lbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->failed = 0;
}
