/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timecodec.c --- the ext4 timestamp codec (e4t_ts_decode, _encode,
 * _encode_base), the ISO 8601 formatter and the civil-date functions,
 * each checked against another: on-disk words -> time -> the same
 * words; a time -> words -> the same time; a time -> ISO 8601 text ->
 * e4t_time_parse -> the same time (UTC and with an offset).
 *
 * Input: u32 base, u32 extra, s64 sec, u32 nsec, s16 offset in minutes
 * (little-endian, 22 bytes; shorter inputs are zero-padded).
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "lib/e4time.h"
#include "fuzz.h"

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/* sec.nsec as ISO 8601 (in UTC or at offset) parses back to itself. */
static void check_text(int64_t sec, uint32_t nsec, int32_t offset)
{
	char iso[E4T_ISO_BUFSZ];
	int64_t psec = 0;
	uint32_t pnsec = 0;
	errcode_t err;

	e4t_iso8601(sec, nsec, 9, 'T', offset, iso, sizeof(iso));
	err = e4t_time_parse(iso, &psec, &pnsec);
	FUZZ_CHECK(err == 0 && psec == sec && pnsec == nsec,
		   "%lld.%09u -> \"%s\" -> %ld, %lld.%09u", (long long)sec,
		   nsec, iso, (long)err, (long long)psec, pnsec);
	/* Fewer digits: the fraction truncated. */
	e4t_iso8601(sec, nsec, 3, ' ', offset, iso, sizeof(iso));
	err = e4t_time_parse(iso, &psec, &pnsec);
	FUZZ_CHECK(err == 0 && psec == sec && pnsec == nsec / 1000000 * 1000000,
		   "%lld.%09u -> \"%s\" -> %ld, %lld.%09u", (long long)sec,
		   nsec, iso, (long)err, (long long)psec, pnsec);
}

FUZZ_TARGET(timecodec)
{
	uint8_t in[22] = { 0 };
	uint32_t base, extra, b2 = 0, x2 = 0, nsec;
	int64_t sec, y, z;
	int32_t offset;
	unsigned m, d;
	struct e4t_ts ts, back;
	errcode_t err;

	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	base = (uint32_t)le(in, 4);
	extra = (uint32_t)le(in + 4, 4);
	sec = (int64_t)le(in + 8, 8);
	nsec = (uint32_t)le(in + 16, 4);
	offset = (int16_t)le(in + 20, 2) % (24 * 60) * 60;

	/* On-disk words -> time -> words. */
	e4t_ts_decode(base, &extra, &ts);
	FUZZ_CHECK(ts.nsec < E4T_NSEC_PER_SEC, "nsec %u", ts.nsec);
	FUZZ_CHECK(ts.flags & E4T_TS_STORED && ts.flags & E4T_TS_EXTRA,
		   "flags %#x", ts.flags);
	if (!(ts.flags & E4T_TS_BAD_NSEC)) {
		FUZZ_CHECK(ts.sec >= E4T_SEC_MIN && ts.sec <= E4T_SEC_MAX,
			   "0x%08x:%08x -> sec %lld", base, extra,
			   (long long)ts.sec);
		err = e4t_ts_encode(ts.sec, ts.nsec, &b2, &x2);
		FUZZ_CHECK(err == 0 && b2 == base && x2 == extra,
			   "0x%08x:%08x -> %lld.%09u -> %ld, 0x%08x:%08x", base,
			   extra, (long long)ts.sec, ts.nsec, (long)err, b2,
			   x2);
		check_text(ts.sec, ts.nsec, INT32_MIN);
		check_text(ts.sec, ts.nsec, offset);
	}
	e4t_ts_decode(base, NULL, &ts);
	FUZZ_CHECK(ts.sec == (int32_t)base && ts.nsec == 0, "base only");
	FUZZ_CHECK(e4t_ts_encode_base(ts.sec, &b2) == 0 && b2 == base,
		   "base 0x%08x", base);

	/* A time -> words -> time, or the right refusal. */
	err = e4t_ts_encode(sec, nsec, &b2, &x2);
	if (nsec >= E4T_NSEC_PER_SEC) {
		FUZZ_CHECK(err == E4T_ERR_NSEC_RANGE, "nsec %u: %ld", nsec,
			   (long)err);
	} else if (sec < E4T_SEC_MIN || sec > E4T_SEC_MAX) {
		FUZZ_CHECK(err == E4T_ERR_TIME_RANGE, "sec %lld: %ld",
			   (long long)sec, (long)err);
	} else {
		FUZZ_CHECK(err == 0, "%lld.%09u: %ld", (long long)sec, nsec,
			   (long)err);
		e4t_ts_decode(b2, &x2, &back);
		FUZZ_CHECK(back.sec == sec && back.nsec == nsec &&
				   !(back.flags & E4T_TS_BAD_NSEC),
			   "%lld.%09u -> 0x%08x:%08x -> %lld.%09u",
			   (long long)sec, nsec, b2, x2, (long long)back.sec,
			   back.nsec);
		check_text(sec, nsec, offset);
	}

	/* Days <-> civil dates, over ten thousand years either way. */
	z = sec % (3660000LL);
	e4t_civil_from_days(z, &y, &m, &d);
	FUZZ_CHECK(m >= 1 && m <= 12 && d >= 1 && d <= 31, "%lld: %u-%u",
		   (long long)z, m, d);
	FUZZ_CHECK(e4t_days_from_civil(y, m, d) == z, "%lld -> %lld-%u-%u",
		   (long long)z, (long long)y, m, d);
	return 0;
}
