/*
 * timefmt.c --- calendar arithmetic and ISO 8601 formatting, valid over
 * the whole ext4 range (and far beyond), independent of time_t and of the
 * C library's time zone state.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "e4time.h"

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Howard Hinnant's days_from_civil / civil_from_days. */
int64_t e4t_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void e4t_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = floor_div(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* Write v as exactly n digits at p; returns p + n. */
static char *digits(char *p, uint64_t v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + n;
}

char *e4t_iso8601(int64_t sec, uint32_t nsec, int frac_digits, char sep,
		  int32_t utc_offset_sec, char *buf, size_t len)
{
	int64_t local = sec, days, rem, y;
	unsigned mo, d;
	char tmp[E4T_ISO_BUFSZ], *p = tmp;
	size_t n;

	if (utc_offset_sec != INT32_MIN)
		local += utc_offset_sec;
	days = floor_div(local, 86400);
	rem = local - days * 86400;
	e4t_civil_from_days(days, &y, &mo, &d);
	/* By hand, not snprintf: timelines format millions of these. */
	if (y < 0 || y > 9999) {
		snprintf(tmp, sizeof(tmp), "%lld", (long long)y);
		p = tmp + strlen(tmp);
	} else {
		p = digits(p, (uint64_t)y, 4);
	}
	*p++ = '-';
	p = digits(p, mo, 2);
	*p++ = '-';
	p = digits(p, d, 2);
	*p++ = sep;
	p = digits(p, (uint64_t)(rem / 3600), 2);
	*p++ = ':';
	p = digits(p, (uint64_t)(rem / 60 % 60), 2);
	*p++ = ':';
	p = digits(p, (uint64_t)(rem % 60), 2);
	if (frac_digits > 9)
		frac_digits = 9;
	if (frac_digits > 0) {
		uint32_t v = nsec;
		int k;

		for (k = 9; k > frac_digits; k--)
			v /= 10;
		*p++ = '.';
		p = digits(p, v, frac_digits);
	}
	if (utc_offset_sec == INT32_MIN) {
		*p++ = 'Z';
	} else {
		int32_t off = utc_offset_sec;

		*p++ = off < 0 ? '-' : '+';
		if (off < 0)
			off = -off;
		p = digits(p, (uint64_t)(off / 3600), 2);
		*p++ = ':';
		p = digits(p, (uint64_t)(off / 60 % 60), 2);
	}
	*p = '\0';
	n = (size_t)(p - tmp) + 1;
	if (len) {
		if (n > len)
			n = len;
		memcpy(buf, tmp, n - 1);
		buf[n - 1] = '\0';
	}
	return buf;
}
