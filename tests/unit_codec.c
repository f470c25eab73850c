/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_codec.c --- the timestamp codec, the ISO 8601 formatter and the
 * time parser, at every boundary of the ext4 range.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/e4time.h"
#include "unit.h"

struct boundary {
	const char *iso; /* as e4t_iso8601 writes it */
	int64_t sec;
	uint32_t nsec;
	uint32_t base, extra; /* expected on-disk words */
};

static const struct boundary bounds[] = {
	{ "1901-12-13T20:45:52.000000000Z", -2147483648LL, 0, 0x80000000, 0 },
	{ "1969-12-31T23:59:59.999999999Z", -1, 999999999, 0xffffffff,
	  999999999U << 2 },
	{ "1970-01-01T00:00:00.000000000Z", 0, 0, 0, 0 },
	{ "2038-01-19T03:14:07.000000000Z", 2147483647LL, 0, 0x7fffffff, 0 },
	{ "2038-01-19T03:14:08.000000000Z", 2147483648LL, 0, 0x80000000, 1 },
	{ "2106-02-07T06:28:15.000000000Z", 4294967295LL, 0, 0xffffffff, 1 },
	{ "2106-02-07T06:28:16.000000000Z", 4294967296LL, 0, 0x00000000, 1 },
	{ "2242-03-16T12:56:31.000000000Z", 8589934591LL, 0, 0xffffffff, 2 },
	{ "2242-03-16T12:56:32.000000000Z", 8589934592LL, 0, 0x00000000, 2 },
	{ "2446-05-10T22:38:55.999999999Z", 15032385535LL, 999999999,
	  0x7fffffff, (999999999U << 2) | 3 },
	{ "2009-02-13T23:31:30.123456789Z", 1234567890LL, 123456789, 1234567890,
	  123456789U << 2 },
};

static void test_boundaries(void)
{
	size_t i;

	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		const struct boundary *b = &bounds[i];
		uint32_t base = 0, extra = 0;
		struct e4t_ts ts;
		char iso[E4T_ISO_BUFSZ];
		int64_t psec;
		uint32_t pnsec;
		errcode_t err;

		err = e4t_ts_encode(b->sec, b->nsec, &base, &extra);
		CHECK(err == 0, "encode %s: %ld", b->iso, (long)err);
		CHECK(base == b->base && extra == b->extra,
		      "encode %s: got 0x%08x:%08x want 0x%08x:%08x", b->iso,
		      base, extra, b->base, b->extra);
		e4t_ts_decode(base, &extra, &ts);
		CHECK(ts.sec == b->sec && ts.nsec == b->nsec,
		      "round trip %s: got %lld.%09u", b->iso, (long long)ts.sec,
		      ts.nsec);
		CHECK(!(ts.flags & (E4T_TS_BAD_NSEC | E4T_TS_OLD_PRE1970)),
		      "round trip %s: flagged suspect", b->iso);
		e4t_iso8601(b->sec, b->nsec, 9, 'T', INT32_MIN, iso,
			    sizeof(iso));
		CHECK(strcmp(iso, b->iso) == 0, "iso: got %s want %s", iso,
		      b->iso);
		err = e4t_time_parse(b->iso, &psec, &pnsec);
		CHECK(err == 0 && psec == b->sec && pnsec == b->nsec,
		      "parse %s: err %ld got %lld.%09u", b->iso, (long)err,
		      (long long)psec, pnsec);
	}
}

static void test_out_of_range(void)
{
	uint32_t base, extra;
	int64_t s;
	uint32_t ns;

	CHECK(e4t_ts_encode(E4T_SEC_MIN - 1, 0, &base, &extra) ==
		      E4T_ERR_TIME_RANGE,
	      "before 1901 refused");
	CHECK(e4t_ts_encode(E4T_SEC_MAX + 1, 0, &base, &extra) ==
		      E4T_ERR_TIME_RANGE,
	      "after 2446 refused");
	CHECK(e4t_ts_encode(0, 1000000000, &base, &extra) == E4T_ERR_NSEC_RANGE,
	      "nsec 10^9 refused");
	CHECK(e4t_time_parse("1901-12-13T20:45:51Z", &s, &ns) ==
		      E4T_ERR_TIME_RANGE,
	      "parse before range");
	CHECK(e4t_time_parse("2446-05-10T22:38:56Z", &s, &ns) ==
		      E4T_ERR_TIME_RANGE,
	      "parse after range");
	CHECK(e4t_ts_encode_base(2147483648LL, &base) == E4T_ERR_TIME_RANGE,
	      "128-byte base refuses 2038-01-19T03:14:08Z");
	CHECK(e4t_ts_encode_base(-2147483648LL, &base) == 0 &&
		      base == 0x80000000,
	      "128-byte base takes 1901");
}

static void test_suspect(void)
{
	struct e4t_ts ts;
	uint32_t extra;

	/* nsec field 1073741823 (all ones): >= 10^9 */
	extra = 0xfffffffc;
	e4t_ts_decode(0, &extra, &ts);
	CHECK(ts.flags & E4T_TS_BAD_NSEC, "nsec >= 10^9 flagged");
	CHECK(ts.nsec < E4T_NSEC_PER_SEC, "shown normalised");
	/* old kernels: epoch 3 with sign bit for pre-1970 */
	extra = 3;
	e4t_ts_decode(0xfffffff0, &extra, &ts);
	CHECK(ts.flags & E4T_TS_OLD_PRE1970, "old pre-1970 encoding flagged");
	CHECK(ts.sec == (int64_t)-16 + (3LL << 32),
	      "decoded as the kernel does");
	/* no extra word: signed 32-bit base */
	e4t_ts_decode(0xffffffff, NULL, &ts);
	CHECK(ts.sec == -1 && ts.nsec == 0 && !(ts.flags & E4T_TS_EXTRA),
	      "base only");
	e4t_ts_decode(0, NULL, &ts);
	CHECK(ts.flags & E4T_TS_ZERO, "zero flagged");
}

static void test_parse_forms(void)
{
	static const struct {
		const char *text;
		int64_t sec;
		uint32_t nsec;
	} ok[] = {
		{ "@0", 0, 0 },
		{ "@1234567890.5", 1234567890, 500000000 },
		{ "@-1", -1, 0 },
		{ "@-0.000000001", -1, 999999999 },
		{ "@-1.5", -2, 500000000 },
		{ "20090213", 1234483200, 0 },
		{ "200902132331", 1234567860, 0 },
		{ "20090213233130", 1234567890, 0 },
		{ "2009-02-13", 1234483200, 0 },
		{ "2009-02-13T23:31", 1234567860, 0 },
		{ "2009-02-13 23:31:30", 1234567890, 0 },
		{ "2009-02-14T01:31:30.123456789+02:00", 1234567890,
		  123456789 },
		{ "2009-02-13T22:31:30,5-01:00", 1234567890, 500000000 },
		{ "2009-02-13T23:31:30Z", 1234567890, 0 },
		{ "2009-02-13 23:31:30 UTC", 1234567890, 0 },
		{ "2009-02-14T01:31:30+0200", 1234567890, 0 },
		{ "2009-02-13 UTC", 1234483200, 0 },
		{ "2009-02-13Z", 1234483200, 0 },
		{ "2009-02-14T01:31:30 +02:00", 1234567890, 0 },
	};
	static const char *const bad[] = {
		"",
		"@",
		"@x",
		"2009-02-30",
		"2009-13-01",
		"2009-02-13T24:00",
		"2009-02-13T23:60",
		"2009-02-13T23:31:30.1234567890Z",
		"2009-02-13T23:31:30+2",
		"200902",
		"2009-2-13",
		"yesterday",
		"2009-02-13T23:31:30Zjunk",
		"@1.",
		"2009-02-13UTC",
		"2009-02-13T23:31:30+02:",
		"2009-02-13T23:31:30 ",
		"2009-02-13T23:31:30+02:0",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t s = 0;
		uint32_t ns = 0;
		errcode_t err = e4t_time_parse(ok[i].text, &s, &ns);

		CHECK(!err && s == ok[i].sec && ns == ok[i].nsec,
		      "parse '%s': err %ld got %lld.%09u", ok[i].text,
		      (long)err, (long long)s, ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t s;
		uint32_t ns;

		CHECK(e4t_time_parse(bad[i], &s, &ns) != 0,
		      "parse '%s' should fail", bad[i]);
	}
}

static void test_civil(void)
{
	int64_t d, y;
	unsigned m, dd;

	/* Every day over the ext4 range round-trips. */
	for (d = -24856; d <= 173988; d++) {
		e4t_civil_from_days(d, &y, &m, &dd);
		if (e4t_days_from_civil(y, m, dd) != d) {
			CHECK(0, "civil round trip day %lld", (long long)d);
			return;
		}
	}
	CHECK(1, "civil round trip");
	CHECK(e4t_days_from_civil(2000, 2, 29) == 11016, "2000-02-29");
}

static void test_local_offset(void)
{
	char iso[E4T_ISO_BUFSZ];

	e4t_iso8601(0, 0, 0, 'T', 3600 + 1800, iso, sizeof(iso));
	CHECK(strcmp(iso, "1970-01-01T01:30:00+01:30") == 0, "offset: %s", iso);
	e4t_iso8601(0, 0, 6, ' ', -3600, iso, sizeof(iso));
	CHECK(strcmp(iso, "1969-12-31 23:00:00.000000-01:00") == 0,
	      "negative offset: %s", iso);
}

/* e4t_iso8601 against gmtime_r() and snprintf(), over the ext4 range,
 * in an order that keeps and leaves the days it remembers: two series of
 * times, alternately, as "crtime OLD -> NEW" lines have them. */
static void test_iso_against_libc(void)
{
	static const int32_t offsets[] = { INT32_MIN, 0,	  3600 + 1800,
					   -3600,     -12 * 3600, 14 * 3600 };
	unsigned bad = 0, n = 0, i;
	int64_t series[2] = { E4T_SEC_MIN, 0 }, sec;

	srand(3);
	for (i = 0; i < 200000; i++) {
		char got[E4T_ISO_BUFSZ], want[E4T_ISO_BUFSZ], frac[16] = "";
		int32_t off = offsets[rand() % 6];
		int digits = rand() % 11, k;
		uint32_t nsec = (uint32_t)rand() % E4T_NSEC_PER_SEC, v = nsec;
		time_t t;
		struct tm tm;

		/* mostly the next second or minute, now and then far away */
		sec = series[i % 2];
		if (rand() % 8 == 0)
			sec = E4T_SEC_MIN +
			      (int64_t)(((uint64_t)rand() << 20 ^
					 (uint64_t)rand()) %
					(uint64_t)(E4T_SEC_MAX - E4T_SEC_MIN));
		else
			sec += rand() % 90;
		if (sec > E4T_SEC_MAX)
			sec = E4T_SEC_MIN;
		series[i % 2] = sec;
		t = (time_t)(sec + (off == INT32_MIN ? 0 : off));
		if (!gmtime_r(&t, &tm))
			continue;
		for (k = 9; k > (digits > 9 ? 9 : digits); k--)
			v /= 10;
		if (digits > 0)
			snprintf(frac, sizeof(frac), ".%0*u",
				 digits > 9 ? 9 : digits, v);
		if (off == INT32_MIN)
			snprintf(want, sizeof(want),
				 "%04d-%02d-%02dT%02d:%02d:%02d%sZ",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
		else
			snprintf(want, sizeof(want),
				 "%04d-%02d-%02d %02d:%02d:%02d%s%c%02d:%02d",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec, frac,
				 off < 0 ? '-' : '+', abs(off) / 3600,
				 abs(off) / 60 % 60);
		e4t_iso8601(sec, nsec, digits, off == INT32_MIN ? 'T' : ' ',
			    off, got, sizeof(got));
		n++;
		if (strcmp(got, want)) {
			if (!bad)
				printf("iso: %lld.%09u: got %s want %s\n",
				       (long long)sec, nsec, got, want);
			bad++;
		}
	}
	CHECK(n > 100000 && !bad, "iso against libc: %u of %u differ", bad, n);
}

/* e4t_inode_present() says what e4t_inode_decode_fields() sets, for
 * every inode size and i_extra_isize (the tree keeps only the latter). */
static void test_inode_present(void)
{
	static const unsigned sizes[] = { 128, 256, 512, 1024 };
	unsigned k, extra, bad = 0, n = 0;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (extra = 0; extra <= 1100; extra++) {
			unsigned char buf[1024] = { 0 };
			struct ext2_inode_large *raw = (void *)buf;
			struct e4t_inode info;

			raw->i_extra_isize = (uint16_t)extra;
			e4t_inode_decode_fields(raw, sizes[k], 12, &info);
			n++;
			if (info.present !=
			    e4t_inode_present(sizes[k], info.extra_isize)) {
				if (!bad)
					printf("present: size %u extra %u: "
					       "%#x against %#x\n",
					       sizes[k], extra, info.present,
					       e4t_inode_present(
						       sizes[k],
						       info.extra_isize));
				bad++;
			}
		}
	}
	CHECK(!bad, "inode present: %u of %u differ", bad, n);
}

int main(void)
{
	test_inode_present();
	test_boundaries();
	test_out_of_range();
	test_suspect();
	test_parse_forms();
	test_civil();
	test_local_offset();
	test_iso_against_libc();
	return unit_report("unit_codec");
}
