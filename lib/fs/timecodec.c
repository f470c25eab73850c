/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timecodec.c --- the ext4 inode timestamp encoding.
 *
 * An ext4 time is a 32-bit base word, read as signed seconds since the
 * epoch, and (in large inodes) an _extra word: nanoseconds << 2 | epoch,
 * where the two epoch bits add (epoch << 32) seconds.  This is the
 * kernel's decoding (fs/ext4/ext4.h, ext4_decode_extra_time); the range
 * is 1901-12-13T20:45:52Z .. 2446-05-10T22:38:55.999999999Z.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"

#define EPOCH_MASK 3U

void e4t_ts_decode(uint32_t base, const uint32_t *extra, struct e4t_ts *ts)
{
	int64_t sec = (int32_t)base;
	uint32_t nsec = 0;
	uint32_t flags = E4T_TS_STORED;

	if (extra) {
		uint32_t x = *extra;

		flags |= E4T_TS_EXTRA;
		sec += (int64_t)(x & EPOCH_MASK) << 32;
		nsec = x >> 2;
		if (nsec >= E4T_NSEC_PER_SEC) {
			/* Shown normalised; the raw word stays available. */
			flags |= E4T_TS_BAD_NSEC;
			sec += nsec / E4T_NSEC_PER_SEC;
			nsec %= E4T_NSEC_PER_SEC;
		}
		if ((x & EPOCH_MASK) == EPOCH_MASK && (base & 0x80000000U))
			flags |= E4T_TS_OLD_PRE1970;
		if (base == 0 && x == 0)
			flags |= E4T_TS_ZERO;
	} else if (base == 0) {
		flags |= E4T_TS_ZERO;
	}
	ts->sec = sec;
	ts->nsec = nsec;
	ts->flags = flags;
}

errcode_t e4t_ts_encode(int64_t sec, uint32_t nsec, uint32_t *base,
			uint32_t *extra)
{
	uint32_t epoch;

	if (nsec >= E4T_NSEC_PER_SEC)
		return E4T_ERR_NSEC_RANGE;
	if (sec < E4T_SEC_MIN || sec > E4T_SEC_MAX)
		return E4T_ERR_TIME_RANGE;
	/* How many 2^32 steps above the signed 32-bit reading of base. */
	epoch = (uint32_t)(((uint64_t)(sec - (int32_t)(uint32_t)sec)) >> 32) &
		EPOCH_MASK;
	*base = (uint32_t)sec;
	*extra = epoch | (nsec << 2);
	return 0;
}

errcode_t e4t_ts_encode_base(int64_t sec, uint32_t *base)
{
	if (sec < INT32_MIN || sec > INT32_MAX)
		return E4T_ERR_TIME_RANGE;
	*base = (uint32_t)sec;
	return 0;
}

int e4t_ts_cmp(const struct e4t_ts *a, const struct e4t_ts *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->nsec != b->nsec)
		return a->nsec < b->nsec ? -1 : 1;
	return 0;
}

static const char *const field_names[E4T_NFIELDS] = {
	[E4T_ATIME] = "atime",	 [E4T_MTIME] = "mtime", [E4T_CTIME] = "ctime",
	[E4T_CRTIME] = "crtime", [E4T_DTIME] = "dtime",
};

const char *e4t_field_name(enum e4t_field f)
{
	return (unsigned)f < E4T_NFIELDS ? field_names[f] : "?";
}

int e4t_field_parse(const char *name)
{
	int f;

	for (f = 0; f < E4T_NFIELDS; f++)
		if (strcmp(name, field_names[f]) == 0)
			return f;
	/* Common aliases: birth time as statx calls it. */
	if (strcmp(name, "btime") == 0 || strcmp(name, "birth") == 0)
		return E4T_CRTIME;
	return -1;
}
