/* SPDX-License-Identifier: GPL-2.0-or-later */
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

static const char digit_pairs[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

/* Write v as exactly n digits at p, two at a time; returns p + n. */
static char *digits(char *p, uint64_t v, int n)
{
	int i = n;

	while (i >= 2) {
		i -= 2;
		memcpy(p + i, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (i)
		p[0] = (char)('0' + v % 10);
	return p + n;
}

/*
 * The dates of the last two days formatted, per thread: timelines and
 * reports format many times of a day or two ("crtime OLD -> NEW") one
 * after another, and the calendar arithmetic is most of the cost.
 */
/* (cppcheck takes the members of an anonymous struct for unused) */
static _Thread_local struct {
	struct {
		/* cppcheck-suppress unusedStructMember */
		int64_t days;
		/* cppcheck-suppress unusedStructMember */
		size_t len; /* 0: empty */
		/* cppcheck-suppress unusedStructMember */
		char text[E4T_ISO_BUFSZ];
		/* cppcheck-suppress unusedStructMember */
	} day[2];
	/* cppcheck-suppress unusedStructMember */
	unsigned next; /* the one to replace */
} dates;

/* "YYYY-MM-DD" (or the year in full outside 0..9999) of day z at p. */
static char *date_of(char *p, int64_t z)
{
	int64_t y;
	unsigned mo, d, i;
	char *start = p;

	for (i = 0; i < 2; i++) {
		if (dates.day[i].len && dates.day[i].days == z) {
			memcpy(p, dates.day[i].text, dates.day[i].len);
			return p + dates.day[i].len;
		}
	}
	e4t_civil_from_days(z, &y, &mo, &d);
	if (y < 0 || y > 9999) {
		snprintf(p, 24, "%lld", (long long)y);
		p += strlen(p);
	} else {
		p = digits(p, (uint64_t)y, 4);
	}
	*p++ = '-';
	p = digits(p, mo, 2);
	*p++ = '-';
	p = digits(p, d, 2);
	i = dates.next;
	dates.next ^= 1;
	dates.day[i].days = z;
	dates.day[i].len = (size_t)(p - start);
	memcpy(dates.day[i].text, start, dates.day[i].len);
	return p;
}

char *e4t_iso8601(int64_t sec, uint32_t nsec, int frac_digits, char sep,
		  int32_t utc_offset_sec, char *buf, size_t len)
{
	int64_t local = sec, days, rem;
	char tmp[E4T_ISO_BUFSZ], *p = tmp;
	size_t n;

	if (utc_offset_sec != INT32_MIN)
		local += utc_offset_sec;
	days = floor_div(local, 86400);
	rem = local - days * 86400;
	/* By hand, not snprintf: timelines format millions of these. */
	p = date_of(p, days);
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
