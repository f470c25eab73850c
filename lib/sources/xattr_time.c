/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xattr_time.c --- systemd's user.crtime_usec and times kept in a named
 * xattr as text (epoch seconds, ISO 8601) or as an 8-byte counter.
 *
 * systemd (src/basic/xattr-util.c): fd_setcrtime() writes htole64(usec),
 * sizeof(le64_t) = 8 bytes; getcrtime refuses any other size (-EIO) and
 * parse_crtime() refuses 0 and UINT64_MAX.
 */
#include "config.h"

#include <string.h>

#include "sources/sources.h"

#define TEXT_MAX 63

static enum e4t_src_status fail(struct e4t_src_time *out, const char *why)
{
	out->why = why;
	return E4T_SRC_INVALID;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void reset(struct e4t_src_time *out)
{
	out->sec = 0;
	out->nsec = 0;
	out->version = 0;
	out->why = NULL;
}

/* Signed microseconds -> floor seconds and nsec, range checked. */
static enum e4t_src_status from_usec(int64_t usec, struct e4t_src_time *out)
{
	int64_t sec = usec / 1000000, rem = usec % 1000000;

	if (rem < 0) {
		sec--;
		rem += 1000000;
	}
	if (sec < E4T_SEC_MIN || sec > E4T_SEC_MAX)
		return fail(out, "outside the range ext4 can store");
	out->sec = sec;
	out->nsec = (uint32_t)rem * 1000;
	return E4T_SRC_OK;
}

enum e4t_src_status e4t_systemd_decode(const void *val, size_t len,
				       struct e4t_src_time *out)
{
	uint64_t u;

	reset(out);
	if (!val || len != 8)
		return fail(out, "not 8 bytes");
	u = le64(val);
	if (u == 0 || u == UINT64_MAX) {
		out->why = "unset crtime_usec (0 or UINT64_MAX)";
		return E4T_SRC_NO_TIME;
	}
	if (u > (uint64_t)INT64_MAX)
		return fail(out, "outside the range ext4 can store");
	return from_usec((int64_t)u, out);
}

/* Copy text without its trailing NULs and one trailing newline. */
static const char *get_text(const unsigned char *p, size_t len, char *buf)
{
	while (len && p[len - 1] == '\0')
		len--;
	if (len && p[len - 1] == '\n') {
		len--;
		if (len && p[len - 1] == '\r')
			len--;
	}
	if (len == 0)
		return "empty text";
	if (len > TEXT_MAX)
		return "text too long";
	if (memchr(p, '\0', len))
		return "NUL inside the text";
	memcpy(buf, p, len);
	buf[len] = '\0';
	return NULL;
}

enum e4t_src_status e4t_xattr_time_decode(const void *val, size_t len,
					  enum e4t_text_format fmt,
					  struct e4t_src_time *out)
{
	char buf[TEXT_MAX + 2];
	const char *why;
	int64_t sec;
	uint32_t nsec;
	errcode_t err;

	reset(out);
	if (!val && len)
		return fail(out, "no value");
	switch (fmt) {
	case E4T_TF_USEC_LE:
		if (len != 8)
			return fail(out, "not 8 bytes");
		return from_usec((int64_t)le64(val), out);
	case E4T_TF_NTTIME_LE:
		if (len != 8)
			return fail(out, "not 8 bytes");
		return e4t_nttime_decode(le64(val), out);
	case E4T_TF_EPOCH:
	case E4T_TF_ISO8601: break;
	default: return fail(out, "unknown text format");
	}
	/* buf[0] is room for the '@' that e4t_time_parse wants on epochs */
	why = get_text(val, len, buf + 1);
	if (why)
		return fail(out, why);
	if (fmt == E4T_TF_EPOCH) {
		if (buf[1] == '@')
			return fail(out, "not a number of seconds");
		buf[0] = '@';
		err = e4t_time_parse(buf, &sec, &nsec);
	} else {
		err = e4t_time_parse(buf + 1, &sec, &nsec);
	}
	if (err == E4T_ERR_TIME_RANGE)
		return fail(out, "outside the range ext4 can store");
	if (err)
		return fail(out, fmt == E4T_TF_EPOCH
					 ? "not a number of seconds"
					 : "not a time e4time reads");
	out->sec = sec;
	out->nsec = nsec;
	return E4T_SRC_OK;
}
