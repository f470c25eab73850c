/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeparse.c --- times given by users on the command line or in
 * manifests: ISO 8601, "@EPOCH[.FRACTION]" and debugfs' YYYYMMDD[HHMM[SS]].
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "e4time.h"

/* Read exactly n digits. */
static int digits(const char **pp, int n, int64_t *out)
{
	const char *p = *pp;
	int64_t v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	*pp = p + n;
	*out = v;
	return 0;
}

/* A fraction of 1 to 9 digits after '.' or ','; *pp points past the dot. */
static int fraction(const char **pp, uint32_t *nsec)
{
	const char *p = *pp;
	uint32_t v = 0;
	int n = 0;

	while (isdigit((unsigned char)*p)) {
		if (++n > 9)
			return -1;
		v = v * 10 + (uint32_t)(*p++ - '0');
	}
	if (n == 0)
		return -1;
	for (; n < 9; n++)
		v *= 10;
	*pp = p;
	*nsec = v;
	return 0;
}

static int days_in_month(int64_t y, unsigned m)
{
	static const unsigned char dim[12] = { 31, 28, 31, 30, 31, 30,
					       31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return dim[m - 1] + (m == 2 && leap);
}

static errcode_t finish(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi,
			int64_t s, int64_t offset, uint32_t ns, int64_t *sec,
			uint32_t *nsec)
{
	int64_t t;

	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, (unsigned)mo) ||
	    h > 23 || mi > 59 || s > 59)
		return E4T_ERR_TIME_SYNTAX;
	t = e4t_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
	    h * 3600 + mi * 60 + s - offset;
	if (t < E4T_SEC_MIN || t > E4T_SEC_MAX)
		return E4T_ERR_TIME_RANGE;
	*sec = t;
	*nsec = ns;
	return 0;
}

static errcode_t parse_epoch(const char *p, int64_t *sec, uint32_t *nsec)
{
	int neg = 0, n = 0;
	int64_t v = 0;
	uint32_t ns = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	while (isdigit((unsigned char)*p)) {
		if (++n > 12) /* far beyond the ext4 range */
			return E4T_ERR_TIME_RANGE;
		v = v * 10 + (*p++ - '0');
	}
	if (n == 0)
		return E4T_ERR_TIME_SYNTAX;
	if (*p == '.' || *p == ',') {
		p++;
		if (fraction(&p, &ns))
			return E4T_ERR_TIME_SYNTAX;
	}
	if (*p)
		return E4T_ERR_TIME_SYNTAX;
	if (neg) {
		v = -v;
		if (ns) {
			v -= 1;
			ns = E4T_NSEC_PER_SEC - ns;
		}
	}
	if (v < E4T_SEC_MIN || v > E4T_SEC_MAX)
		return E4T_ERR_TIME_RANGE;
	*sec = v;
	*nsec = ns;
	return 0;
}

errcode_t e4t_time_parse(const char *text, int64_t *sec, uint32_t *nsec)
{
	const char *p = text;
	int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, oh, om = 0,
		offset = 0;
	uint32_t ns = 0;
	size_t len;

	if (!text || !*text)
		return E4T_ERR_TIME_SYNTAX;
	if (*p == '@')
		return parse_epoch(p + 1, sec, nsec);

	len = strlen(p);
	if (strspn(p, "0123456789") == len) {
		/* debugfs: YYYYMMDD[HHMM[SS]], UTC */
		if (len != 8 && len != 12 && len != 14)
			return E4T_ERR_TIME_SYNTAX;
		digits(&p, 4, &y);
		digits(&p, 2, &mo);
		digits(&p, 2, &d);
		if (len >= 12) {
			digits(&p, 2, &h);
			digits(&p, 2, &mi);
		}
		if (len == 14)
			digits(&p, 2, &s);
		return finish(y, mo, d, h, mi, s, 0, 0, sec, nsec);
	}

	/* ISO 8601 extended: YYYY-MM-DD[(T| )HH:MM[:SS[.F]]][Z|+HH[:MM]] */
	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d))
		return E4T_ERR_TIME_SYNTAX;
	if (*p == 'T' || *p == 't' ||
	    (*p == ' ' && isdigit((unsigned char)p[1]))) {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return E4T_ERR_TIME_SYNTAX;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &s))
				return E4T_ERR_TIME_SYNTAX;
			if (*p == '.' || *p == ',') {
				p++;
				if (fraction(&p, &ns))
					return E4T_ERR_TIME_SYNTAX;
			}
		}
	}
	/* Zone: "Z", "UTC" (after one optional space), +HH, +HHMM, +HH:MM */
	if (strcmp(p, " UTC") == 0) {
		p += 4;
	} else if (p[0] == ' ' && (p[1] == '+' || p[1] == '-')) {
		p++;
	}
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int neg = *p++ == '-';

		if (digits(&p, 2, &oh))
			return E4T_ERR_TIME_SYNTAX;
		if (*p == ':' && digits((p++, &p), 2, &om))
			return E4T_ERR_TIME_SYNTAX;
		if (isdigit((unsigned char)*p) && digits(&p, 2, &om))
			return E4T_ERR_TIME_SYNTAX;
		if (oh > 23 || om > 59)
			return E4T_ERR_TIME_SYNTAX;
		offset = (oh * 3600 + om * 60) * (neg ? -1 : 1);
	}
	if (*p)
		return E4T_ERR_TIME_SYNTAX;
	return finish(y, mo, d, h, mi, s, offset, ns, sec, nsec);
}
