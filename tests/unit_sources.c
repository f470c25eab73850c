/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_sources.c --- decoders of creation times other software keeps in
 * xattrs (Samba/ksmbd DOSATTRIB, netatalk, systemd, named xattrs), and
 * the --from SOURCE spec parser.
 *
 * The DOSATTRIB samples marked "samba" were produced by Samba 4.17.12's
 * own NDR marshalling (python3-samba: ndr_pack(xattr.DOSATTRIB(...))).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/e4time.h"
#include "lib/sources/sources.h"
#include "unit.h"

#define NT_DELTA 116444736000000000ULL
#define NT_SEC	 10000000ULL
#define ARRAY(a) (sizeof(a) / sizeof((a)[0]))

/* NTTIME 133000000001234567 = 2022-06-18T04:26:40.1234567Z */
#define T1_NT	133000000001234567ULL
#define T1_SEC	1655526400LL
#define T1_NSEC 123456700U

struct sample {
	const char *what;
	const char *hex; /* the value, in hex */
	enum e4t_src_status st;
	int64_t sec;
	uint32_t nsec;
	int version;
};

static const struct sample dos_samples[] = {
	/* samba: v1, "0x20": string 5 + pad 1, version @6, level @8, S @12 */
	{ "samba v1 0x20",
	  "3078323000000100010000002000000000000000000000000000000000000000"
	  "000000008756339bcb82d8010000000000000000",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 1 },
	/* samba: v1, "0x1": string 4, version @4, level @6, S @8 */
	{ "samba v1 0x1",
	  "3078310001000100010000000000000000000000000000000000000000000000"
	  "8756339bcb82d8010000000000000000",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 1 },
	/* samba: v1, "0x2020": string 7 + pad 1, version @8, S @12 */
	{ "samba v1 0x2020",
	  "3078323032300000010001002020000000000000000000000000000000000000"
	  "0000000001803ed5deb19d010000000000000000",
	  E4T_SRC_OK, 0, 100, 1 },
	/* samba: v2 (xattr_DosInfo2Old), create_time at S+28, name "x" */
	{ "samba v2 0x20",
	  "3078323000000200020000000000000020000000000000000000000000000000"
	  "00000000000000008756339bcb82d80100000000000000000000000000000000780"
	  "0",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 2 },
	{ "samba v2 0x1",
	  "3078310002000200000000000100000000000000000000000000000000000000"
	  "000000008756339bcb82d801000000000000000000000000000000007800",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 2 },
	{ "samba v2 empty name",
	  "3078323032300000020002000000000020200000000000000000000000000000"
	  "0000000000000000"
	  "01803ed5deb19d010000000000000000000000000000000000",
	  E4T_SRC_OK, 0, 100, 2 },
	/* samba: v3, valid_flags 0x11 */
	{ "samba v3 0x20",
	  "3078323000000300030000001100000020000000000000000000000000000000"
	  "00000000000000008756339bcb82d8010000000000000000",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 3 },
	{ "samba v3 0x1",
	  "3078310003000300110000000100000000000000000000000000000000000000"
	  "000000008756339bcb82d8010000000000000000",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 3 },
	{ "samba v3 no flag",
	  "3078323000000300030000000100000020000000000000000000000000000000"
	  "00000000000000008756339bcb82d8010000000000000000",
	  E4T_SRC_NO_TIME, 0, 0, 3 },
	/* samba: v3 without XATTR_DOSINFO_ATTRIB writes "" as the string */
	{ "samba v3 empty string",
	  "0000030003000000100000002000000000000000000000000000000000000000"
	  "00000000ff7f3ed5deb19d010000000000000000",
	  E4T_SRC_OK, -1, 999999900, 3 },
	/* samba: v4 (4.11-4.16): "", version @2, level @4, S @8 */
	{ "samba v4",
	  "0000040004000000110000002000000000000000000000008756339bcb82d801",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 4 },
	{ "samba v4 no flag",
	  "0000040004000000010000002000000000000000000000008756339bcb82d801",
	  E4T_SRC_NO_TIME, 0, 0, 4 },
	/* ksmbd: v4, flags ATTRIB|CREATE_TIME|ITIME, itime = create_time */
	{ "ksmbd v4",
	  "000004000400000051000000200000008756339bcb82d8018756339bcb82d801",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 4 },
	/* samba: v5 (4.17+), 24 bytes */
	{ "samba v5", "000005000500000011000000200000008756339bcb82d801",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 5 },
	{ "samba v5 0x1 attrib",
	  "000005000500000011000000010000008756339bcb82d801", E4T_SRC_OK,
	  T1_SEC, T1_NSEC, 5 },
	{ "samba v5 no flag",
	  "000005000500000001000000200000008756339bcb82d801", E4T_SRC_NO_TIME,
	  0, 0, 5 },
	{ "samba v5 1901", "0000050005000000110000008000000000803ed59e665101",
	  E4T_SRC_OK, E4T_SEC_MIN, 0, 5 },
	{ "v5 unset NTTIME", "000005000500000011000000200000000000000000000000",
	  E4T_SRC_NO_TIME, 0, 0, 5 },
	{ "v5 NTTIME -1", "00000500050000001100000020000000ffffffffffffffff",
	  E4T_SRC_NO_TIME, 0, 0, 5 },
	{ "v5 NTTIME 1601", "000005000500000011000000200000000100000000000000",
	  E4T_SRC_INVALID, 0, 0, 5 },
	/* Samba4 ntvfs user.DosAttrib: no string, version @0, S @4 */
	{ "samba ntvfs v1",
	  "0100010020000000000000000000000000000000000000000000000087563"
	  "39bcb82d8010000000000000000",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 1 },
	{ "samba ntvfs v2",
	  "0200020000000000200000000000000000000000000000000000000000000000"
	  "8756339bcb82d801000000000000000000000000000000007800",
	  E4T_SRC_OK, T1_SEC, T1_NSEC, 2 },
	/* Samba 3.0-3.4: text only, with or without the NUL */
	{ "legacy text", "30783230", E4T_SRC_NO_TIME, 0, 0, 0 },
	{ "legacy text NUL", "3078323000", E4T_SRC_NO_TIME, 0, 0, 0 },
	{ "legacy 0x1", "307831", E4T_SRC_NO_TIME, 0, 0, 0 },
	/* bad ones */
	{ "unknown version 7",
	  "000007000700000011000000200000008756339bcb82d801", E4T_SRC_INVALID,
	  0, 0, 7 },
	{ "version 0xffff", "0000ffffffff000011000000200000008756339bcb82d801",
	  E4T_SRC_INVALID, 0, 0, 0xffff },
	{ "level differs", "000005000400000011000000200000008756339bcb82d801",
	  E4T_SRC_INVALID, 0, 0, 5 },
	{ "not hex",
	  "3078326700000500050000001100000020000000875633"
	  "9bcb82d801",
	  E4T_SRC_INVALID, 0, 0, 0 },
	{ "text garbage", "68656c6c6f", E4T_SRC_INVALID, 0, 0, 0 },
	{ "empty string only", "00", E4T_SRC_INVALID, 0, 0, 0 },
};

/*
 * Written by a running smbd 4.17.12 over SMB onto ext4 (the
 * images/samba-dosattrib truth file): value, then its create time.
 */
static const struct sample smbd_samples[] = {
	{ "smbd y2k", "0000050005000000110000002000000080a9d424eb53bf01",
	  E4T_SRC_OK, 946684799, 0, 5 },
	{ "smbd dir", "0000050005000000110000001000000000a0cb47820ccb01",
	  E4T_SRC_OK, 1276603200, 0, 5 },
	{ "smbd pre-1970", "000005000500000011000000200000008056cd7899789801",
	  E4T_SRC_OK, -147034495, 0, 5 },
	{ "smbd -1", "0000050005000000110000002000000080e9a5d4deb19d01",
	  E4T_SRC_OK, -1, 0, 5 },
	{ "smbd 2110", "000005000500000011000000200000000000fb8324a73a02",
	  E4T_SRC_OK, 4417977600LL, 0, 5 },
	{ "smbd untouched", "00000500050000001100000020000000673cfab30a83dd01",
	  E4T_SRC_OK, 1796290988, 341565500, 5 },
	{ "smbd attrib 0", "0000050005000000110000000000000080d6fcff2f51c501",
	  E4T_SRC_OK, 1115269505, 0, 5 },
};

static size_t unhex(const char *hex, unsigned char *buf, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (hex[0] && hex[1] && n < max) {
		sscanf(hex, "%2x", &v);
		buf[n++] = (unsigned char)v;
		hex += 2;
	}
	return n;
}

static void put_le16(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

static void put_le64(unsigned char *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/*
 * Marshal a DOSATTRIB as Samba's NDR does (librpc/ndr/ndr_xattr.c): the
 * string, align 2, version, level, align 4, the struct.  Returns length.
 */
static size_t build_dosattrib(unsigned char *buf, const char *hexstr,
			      unsigned version, uint32_t flags, uint32_t attrib,
			      uint64_t create)
{
	size_t off = strlen(hexstr) + 1, s;

	memset(buf, 0, 128);
	memcpy(buf, hexstr, off);
	off = (off + 1) & ~(size_t)1;
	put_le16(buf + off, version);
	put_le16(buf + off + 2, version);
	s = (off + 4 + 3) & ~(size_t)3;
	switch (version) {
	case 1: /* attrib ea_size size alloc create change */
		put_le32(buf + s, attrib);
		put_le64(buf + s + 24, create);
		return s + 40;
	case 3: /* valid_flags attrib ea_size size alloc create change */
		put_le32(buf + s, flags);
		put_le32(buf + s + 4, attrib);
		put_le64(buf + s + 28, create);
		return s + 44;
	case 4: /* valid_flags attrib itime create */
		put_le32(buf + s, flags);
		put_le32(buf + s + 4, attrib);
		put_le64(buf + s + 16, create);
		return s + 24;
	default: /* 5: valid_flags attrib create */
		put_le32(buf + s, flags);
		put_le32(buf + s + 4, attrib);
		put_le64(buf + s + 8, create);
		return s + 16;
	}
}

/* Decode a copy of exactly len bytes, so a read past the end shows. */
static enum e4t_src_status decode_copy(
	enum e4t_src_status (*fn)(const void *, size_t, struct e4t_src_time *),
	const unsigned char *val, size_t len, struct e4t_src_time *out)
{
	unsigned char *copy = malloc(len ? len : 1);
	enum e4t_src_status st;

	memcpy(copy, val, len);
	st = fn(copy, len, out);
	free(copy);
	return st;
}

/* Every status is one of three; OK means an in-range time; else a why. */
static int sane(enum e4t_src_status st, const struct e4t_src_time *t)
{
	if (st == E4T_SRC_OK)
		return t->sec >= E4T_SEC_MIN && t->sec <= E4T_SEC_MAX &&
		       t->nsec < E4T_NSEC_PER_SEC;
	return (st == E4T_SRC_NO_TIME || st == E4T_SRC_INVALID) && t->why &&
	       *t->why;
}

/*
 * Every proper prefix of a value: never a crash; never OK while shorter
 * than min_ok (the bytes the format needs); the full value's result from
 * min_ok on (bytes past what a decoder needs are ignored, as NDR and
 * netatalk do).
 */
static void check_prefixes(const char *what,
			   enum e4t_src_status (*fn)(const void *, size_t,
						     struct e4t_src_time *),
			   const unsigned char *val, size_t len, size_t min_ok)
{
	struct e4t_src_time t, full;
	enum e4t_src_status st, fst;
	size_t n, bad = 0;

	fst = decode_copy(fn, val, len, &full);
	for (n = 0; n < len; n++) {
		st = decode_copy(fn, val, n, &t);
		if (n < min_ok ? st == E4T_SRC_OK || !sane(st, &t)
			       : st != fst || t.sec != full.sec ||
					 t.nsec != full.nsec) {
			if (!bad)
				printf("  %s cut at %zu: status %d\n", what, n,
				       (int)st);
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %zu truncations decoded wrongly", what, bad);
}

static void check_truncations(const char *what,
			      enum e4t_src_status (*fn)(const void *, size_t,
							struct e4t_src_time *),
			      const unsigned char *val, size_t len)
{
	check_prefixes(what, fn, val, len, len);
}

static void test_nttime(void)
{
	static const struct {
		uint64_t nt;
		enum e4t_src_status st;
		int64_t sec;
		uint32_t nsec;
	} v[] = {
		{ NT_DELTA, E4T_SRC_OK, 0, 0 },
		{ NT_DELTA + 1, E4T_SRC_OK, 0, 100 },
		{ NT_DELTA - 1, E4T_SRC_OK, -1, 999999900 },
		{ NT_DELTA - NT_SEC, E4T_SRC_OK, -1, 0 },
		{ NT_DELTA - NT_SEC - 1, E4T_SRC_OK, -2, 999999900 },
		{ T1_NT, E4T_SRC_OK, T1_SEC, T1_NSEC },
		{ NT_DELTA + 12345678901234567ULL, E4T_SRC_OK, 1234567890LL,
		  123456700 },
		/* ext4's range: 1901-12-13T20:45:52Z ..
		   2446-05-10T22:38:55.9999999Z */
		{ NT_DELTA - 2147483648ULL * NT_SEC, E4T_SRC_OK, E4T_SEC_MIN,
		  0 },
		{ NT_DELTA - 2147483648ULL * NT_SEC - 1, E4T_SRC_INVALID, 0,
		  0 },
		{ NT_DELTA + 15032385535ULL * NT_SEC + NT_SEC - 1, E4T_SRC_OK,
		  E4T_SEC_MAX, 999999900 },
		{ NT_DELTA + 15032385536ULL * NT_SEC, E4T_SRC_INVALID, 0, 0 },
		/* 1601 itself, and other far values */
		{ 1, E4T_SRC_INVALID, 0, 0 },
		{ NT_SEC, E4T_SRC_INVALID, 0, 0 },
		{ 0x7fffffffffffffffULL, E4T_SRC_INVALID, 0, 0 },
		{ 0x8000000000000000ULL, E4T_SRC_INVALID, 0, 0 },
		/* unset markers */
		{ 0, E4T_SRC_NO_TIME, 0, 0 },
		{ UINT64_MAX, E4T_SRC_NO_TIME, 0, 0 },
		{ UINT64_MAX - 1, E4T_SRC_NO_TIME, 0, 0 },
		{ UINT64_MAX - 2, E4T_SRC_INVALID, 0, 0 },
	};
	struct e4t_src_time t;
	enum e4t_src_status st;
	size_t i;

	for (i = 0; i < ARRAY(v); i++) {
		memset(&t, 0x55, sizeof(t));
		st = e4t_nttime_decode(v[i].nt, &t);
		CHECK(st == v[i].st, "nttime %llu: status %d want %d",
		      (unsigned long long)v[i].nt, (int)st, (int)v[i].st);
		if (v[i].st == E4T_SRC_OK)
			CHECK(t.sec == v[i].sec && t.nsec == v[i].nsec &&
				      t.version == 0 && t.why == NULL,
			      "nttime %llu: got %lld.%09u want %lld.%09u",
			      (unsigned long long)v[i].nt, (long long)t.sec,
			      t.nsec, (long long)v[i].sec, v[i].nsec);
		else
			CHECK(t.why != NULL, "nttime %llu: no reason",
			      (unsigned long long)v[i].nt);
	}
	e4t_nttime_decode(NT_DELTA - 2147483648ULL * NT_SEC - 1, &t);
	CHECK(t.why && strstr(t.why, "range"), "range reason: %s", t.why);

	/* Every 100 ns step over a second boundary round-trips exactly. */
	for (i = 0; i < 2 * NT_SEC; i += 99991) {
		uint64_t nt = NT_DELTA - NT_SEC + i;

		st = e4t_nttime_decode(nt, &t);
		CHECK(st == E4T_SRC_OK &&
			      (uint64_t)((t.sec + 1) * (int64_t)NT_SEC) +
					      t.nsec / 100 ==
				      i &&
			      t.nsec % 100 == 0,
		      "nttime step %zu: %lld.%09u", i, (long long)t.sec,
		      t.nsec);
	}
}

static void test_dosattrib_samples(void)
{
	unsigned char buf[256];
	struct e4t_src_time t;
	enum e4t_src_status st;
	size_t i, n;

	for (i = 0; i < ARRAY(dos_samples); i++) {
		const struct sample *s = &dos_samples[i];

		n = unhex(s->hex, buf, sizeof(buf));
		memset(&t, 0x55, sizeof(t));
		st = decode_copy(e4t_dosattrib_decode, buf, n, &t);
		CHECK(st == s->st, "%s: status %d want %d (%s)", s->what,
		      (int)st, (int)s->st, t.why ? t.why : "-");
		CHECK(sane(st, &t), "%s: insane result", s->what);
		CHECK(t.version == s->version, "%s: version %d want %d",
		      s->what, t.version, s->version);
		if (s->st == E4T_SRC_OK)
			CHECK(t.sec == s->sec && t.nsec == s->nsec &&
				      t.why == NULL,
			      "%s: got %lld.%09u want %lld.%09u", s->what,
			      (long long)t.sec, t.nsec, (long long)s->sec,
			      s->nsec);
		/* v2 ends in a name whose NUL NDR does not insist on; an
		 * empty name ("\0") still needs its one byte. */
		if (s->st == E4T_SRC_OK || s->st == E4T_SRC_NO_TIME)
			check_prefixes(s->what, e4t_dosattrib_decode, buf, n,
				       s->version == 2 && buf[n - 2] ? n - 1
								     : n);
	}
}

static void test_smbd_samples(void)
{
	unsigned char buf[64];
	struct e4t_src_time t;
	size_t i, n;

	for (i = 0; i < ARRAY(smbd_samples); i++) {
		const struct sample *s = &smbd_samples[i];

		n = unhex(s->hex, buf, sizeof(buf));
		CHECK(decode_copy(e4t_dosattrib_decode, buf, n, &t) == s->st &&
			      t.sec == s->sec && t.nsec == s->nsec &&
			      t.version == s->version,
		      "%s: got %lld.%09u", s->what, (long long)t.sec, t.nsec);
		check_truncations(s->what, e4t_dosattrib_decode, buf, n);
	}
}

static void test_dosattrib_reasons(void)
{
	unsigned char buf[128];
	struct e4t_src_time t;
	size_t n;

	n = unhex("30783230", buf, sizeof(buf));
	e4t_dosattrib_decode(buf, n, &t);
	CHECK(t.why &&
		      strcmp(t.why,
			     "legacy text-only DOSATTRIB, no create time") == 0,
	      "legacy reason: %s", t.why);
	n = unhex("000005000500000001000000200000008756339bcb82d801", buf,
		  sizeof(buf));
	e4t_dosattrib_decode(buf, n, &t);
	CHECK(t.why && strstr(t.why, "valid flag unset"), "flag reason: %s",
	      t.why);
	n = unhex("000007000700000011000000200000008756339bcb82d801", buf,
		  sizeof(buf));
	e4t_dosattrib_decode(buf, n, &t);
	CHECK(t.why && strstr(t.why, "unknown DOSATTRIB version") &&
		      t.version == 7,
	      "version reason: %s %d", t.why, t.version);
	n = unhex("00000500050000001100000020000000", buf, sizeof(buf));
	e4t_dosattrib_decode(buf, n, &t);
	CHECK(t.why && strcmp(t.why, "truncated") == 0, "truncated reason: %s",
	      t.why);
	CHECK(e4t_dosattrib_decode(buf, 0, &t) == E4T_SRC_INVALID,
	      "empty value");
	CHECK(e4t_dosattrib_decode(NULL, 0, &t) == E4T_SRC_INVALID,
	      "NULL value");
	/* Trailing bytes after the struct are ignored, as NDR pull does. */
	n = unhex("000005000500000011000000200000008756339bcb82d801deadbeef",
		  buf, sizeof(buf));
	CHECK(e4t_dosattrib_decode(buf, n, &t) == E4T_SRC_OK && t.sec == T1_SEC,
	      "trailing bytes");
	/* A v1 valid time needs no flag; a v1 NULL time is NO_TIME. */
	n = build_dosattrib(buf, "0x20", 1, 0, 0x20, 0);
	CHECK(e4t_dosattrib_decode(buf, n, &t) == E4T_SRC_NO_TIME,
	      "v1 unset create_time");
}

/* Our builder (Samba's NDR rules) against the samples Samba wrote. */
static void test_dosattrib_builder(void)
{
	static const struct {
		const char *hexstr;
		unsigned version;
		uint32_t flags, attrib;
		size_t sample;
	} b[] = {
		{ "0x20", 1, 0, 0x20, 0 },    { "0x1", 1, 0, 0x1, 1 },
		{ "0x20", 3, 0x11, 0x20, 6 }, { "0x1", 3, 0x11, 0x1, 7 },
		{ "0x20", 3, 0x01, 0x20, 8 }, { "", 4, 0x11, 0x20, 10 },
		{ "", 4, 0x01, 0x20, 11 },    { "", 5, 0x11, 0x20, 13 },
		{ "", 5, 0x11, 0x01, 14 },    { "", 5, 0x01, 0x20, 15 },
	};
	unsigned char mine[128], theirs[128];
	size_t i, n, m;

	for (i = 0; i < ARRAY(b); i++) {
		n = build_dosattrib(mine, b[i].hexstr, b[i].version, b[i].flags,
				    b[i].attrib, T1_NT);
		m = unhex(dos_samples[b[i].sample].hex, theirs, sizeof(theirs));
		CHECK(n == m && memcmp(mine, theirs, n) == 0,
		      "builder differs from %s", dos_samples[b[i].sample].what);
	}
}

/* Every version, both string alignments, every flag state. */
static void test_dosattrib_matrix(void)
{
	static const char *const strs[] = { "",	     "0x1",    "0x20",
					    "0x820", "0x2020", "0x12345678" };
	unsigned char buf[128];
	struct e4t_src_time t;
	enum e4t_src_status st, want;
	unsigned v, f;
	size_t i, n;

	for (v = 1; v <= 5; v++) {
		if (v == 2)
			continue; /* 2 is covered by Samba's samples */
		for (i = 0; i < ARRAY(strs); i++) {
			for (f = 0; f < 2; f++) {
				uint64_t nt = NT_DELTA + 987654321ULL * NT_SEC +
					      v * 1000 + i * 10 + f;

				n = build_dosattrib(buf, strs[i], v,
						    f ? 0x10 : 0x01, 0x20, nt);
				st = decode_copy(e4t_dosattrib_decode, buf, n,
						 &t);
				want = (f || v == 1) ? E4T_SRC_OK
						     : E4T_SRC_NO_TIME;
				CHECK(st == want && t.version == (int)v,
				      "v%u \"%s\" flag %u: status %d version "
				      "%d",
				      v, strs[i], f, (int)st, t.version);
				if (want == E4T_SRC_OK)
					CHECK(t.sec == 987654321LL &&
						      t.nsec == (v * 1000 +
								 i * 10 + f) *
									100,
					      "v%u \"%s\": %lld.%09u", v,
					      strs[i], (long long)t.sec,
					      t.nsec);
				check_truncations("matrix",
						  e4t_dosattrib_decode, buf, n);
			}
		}
	}
}

static void test_dosattrib_ntvfs(void)
{
	unsigned char buf[128];
	struct e4t_src_time t;
	size_t n;

	n = unhex(dos_samples[20].hex, buf, sizeof(buf));
	CHECK(e4t_dosattrib_ntvfs_decode(buf, n, &t) == E4T_SRC_OK &&
		      t.sec == T1_SEC && t.nsec == T1_NSEC && t.version == 1,
	      "ntvfs v1");
	check_truncations("ntvfs v1", e4t_dosattrib_ntvfs_decode, buf, n);
	n = unhex(dos_samples[21].hex, buf, sizeof(buf));
	CHECK(e4t_dosattrib_ntvfs_decode(buf, n, &t) == E4T_SRC_OK &&
		      t.sec == T1_SEC && t.version == 2,
	      "ntvfs v2");
	check_prefixes("ntvfs v2", e4t_dosattrib_ntvfs_decode, buf, n, n - 1);
	/* A user.DOSATTRIB blob is not an ntvfs one. */
	n = unhex(dos_samples[0].hex, buf, sizeof(buf));
	CHECK(e4t_dosattrib_ntvfs_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "DOSATTRIB as ntvfs");
}

/* A netatalk metadata EA: 402 bytes, 8 entries, dates at 0x7a. */
static size_t build_netatalk(unsigned char *buf, uint32_t create)
{
	static const uint32_t ent[][3] = {
		{ 9, 0x9a, 32 },  { 4, 0xba, 0 },   { 8, 0x7a, 16 },
		{ 14, 0x8a, 4 },  { 15, 0x8e, 8 },  { 16, 0x96, 8 },
		{ 17, 0x196, 4 }, { 18, 0x19a, 8 },
	};
	size_t i;

	memset(buf, 0, 402);
	put_be32(buf, 0x00051607);
	put_be32(buf + 4, 0x00020000);
	memcpy(buf + 8, "Netatalk        ", 16);
	buf[24] = 0;
	buf[25] = ARRAY(ent);
	for (i = 0; i < ARRAY(ent); i++) {
		put_be32(buf + 26 + 12 * i, ent[i][0]);
		put_be32(buf + 30 + 12 * i, ent[i][1]);
		put_be32(buf + 34 + 12 * i, ent[i][2]);
	}
	put_be32(buf + 0x7a, create);
	put_be32(buf + 0x7e, create + 60);
	put_be32(buf + 0x82, 0x80000000);
	put_be32(buf + 0x86, create + 120);
	return 402;
}

static void test_netatalk(void)
{
	unsigned char buf[512];
	struct e4t_src_time t;
	enum e4t_src_status st;
	size_t n;

	n = build_netatalk(buf, 700000000);
	st = decode_copy(e4t_netatalk_decode, buf, n, &t);
	CHECK(st == E4T_SRC_OK && t.sec == 700000000LL + 946684800LL &&
		      t.nsec == 0 && t.version == 2,
	      "netatalk valid: %d %lld", (int)st, (long long)t.sec);
	/* needed: the entry table and entry 8's 16 bytes at 0x7a */
	check_prefixes("netatalk", e4t_netatalk_decode, buf, n, 0x7a + 16);

	/* Signed: before 2000, and the year 2000 itself */
	build_netatalk(buf, (uint32_t)-946684800);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_OK && t.sec == 0,
	      "netatalk 1970: %lld", (long long)t.sec);
	build_netatalk(buf, 0);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_OK &&
		      t.sec == 946684800,
	      "netatalk 2000");
	build_netatalk(buf, 0x7fffffff);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_OK &&
		      t.sec == 0x7fffffffLL + 946684800LL,
	      "netatalk max");

	build_netatalk(buf, 0x80000000);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_NO_TIME && t.why,
	      "netatalk unknown date");

	/* No entry 8: rename it to 7 */
	build_netatalk(buf, 700000000);
	put_be32(buf + 26 + 12 * 2, 7);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_NO_TIME && t.why,
	      "netatalk without entry 8");

	/* Entry 8 outside the value, or reaching past it */
	build_netatalk(buf, 700000000);
	put_be32(buf + 30 + 12 * 2, 400);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID && t.why,
	      "entry 8 past the end");
	put_be32(buf + 30 + 12 * 2, 0xfffffff0);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "entry 8 offset wraps");
	put_be32(buf + 30 + 12 * 2, 0x7a);
	put_be32(buf + 34 + 12 * 2, 0xffffffff);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "entry 8 length too long");
	put_be32(buf + 34 + 12 * 2, 4);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "entry 8 too short");

	/* Entry table longer than the value */
	build_netatalk(buf, 700000000);
	buf[24] = 0xff;
	buf[25] = 0xff;
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "entry count too large");

	build_netatalk(buf, 700000000);
	put_be32(buf, 0x00051600);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID && t.why &&
		      strstr(t.why, "magic"),
	      "wrong magic");
	put_be32(buf, 0x00051607);
	put_be32(buf + 4, 0x00010000);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "AppleDouble v1");
	put_be32(buf, 0x00051600); /* AppleSingle */
	put_be32(buf + 4, 0x00020000);
	CHECK(e4t_netatalk_decode(buf, n, &t) == E4T_SRC_INVALID,
	      "AppleSingle");

	/* A minimal one: one entry, dates right after it */
	memset(buf, 0, sizeof(buf));
	put_be32(buf, 0x00051607);
	put_be32(buf + 4, 0x00020000);
	buf[25] = 1;
	put_be32(buf + 26, 8);
	put_be32(buf + 30, 38);
	put_be32(buf + 34, 16);
	put_be32(buf + 38, 1);
	CHECK(decode_copy(e4t_netatalk_decode, buf, 54, &t) == E4T_SRC_OK &&
		      t.sec == 946684801,
	      "minimal netatalk");
	check_truncations("minimal netatalk", e4t_netatalk_decode, buf, 54);
}

static void test_systemd(void)
{
	unsigned char buf[16];
	struct e4t_src_time t;

	put_le64(buf, 1655526400123456ULL);
	CHECK(decode_copy(e4t_systemd_decode, buf, 8, &t) == E4T_SRC_OK &&
		      t.sec == 1655526400 && t.nsec == 123456000,
	      "systemd: %lld.%09u", (long long)t.sec, t.nsec);
	check_truncations("systemd", e4t_systemd_decode, buf, 8);
	CHECK(e4t_systemd_decode(buf, 9, &t) == E4T_SRC_INVALID,
	      "systemd 9 bytes");
	put_le64(buf, 1);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_OK && t.sec == 0 &&
		      t.nsec == 1000,
	      "systemd 1 usec");
	put_le64(buf, 0);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_NO_TIME && t.why,
	      "systemd 0");
	put_le64(buf, UINT64_MAX);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_NO_TIME,
	      "systemd UINT64_MAX");
	put_le64(buf, UINT64_MAX - 1);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_INVALID,
	      "systemd huge");
	put_le64(buf, (uint64_t)E4T_SEC_MAX * 1000000 + 999999);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_OK &&
		      t.sec == E4T_SEC_MAX && t.nsec == 999999000,
	      "systemd last");
	put_le64(buf, (uint64_t)(E4T_SEC_MAX + 1) * 1000000);
	CHECK(e4t_systemd_decode(buf, 8, &t) == E4T_SRC_INVALID,
	      "systemd past ext4");
}

static void test_text(void)
{
	static const struct {
		const char *val;
		size_t len; /* 0: strlen */
		enum e4t_text_format fmt;
		enum e4t_src_status st;
		int64_t sec;
		uint32_t nsec;
	} v[] = {
		{ "1655526400", 0, E4T_TF_EPOCH, E4T_SRC_OK, T1_SEC, 0 },
		{ "1655526400.1234567\n", 0, E4T_TF_EPOCH, E4T_SRC_OK, T1_SEC,
		  123456700 },
		{ "1655526400\0", 11, E4T_TF_EPOCH, E4T_SRC_OK, T1_SEC, 0 },
		{ "1655526400\r\n", 0, E4T_TF_EPOCH, E4T_SRC_OK, T1_SEC, 0 },
		{ "+5", 0, E4T_TF_EPOCH, E4T_SRC_OK, 5, 0 },
		{ "-1.5", 0, E4T_TF_EPOCH, E4T_SRC_OK, -2, 500000000 },
		{ "-2147483648", 0, E4T_TF_EPOCH, E4T_SRC_OK, E4T_SEC_MIN, 0 },
		{ "-2147483649", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "15032385536", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "99999999999999999999", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0,
		  0 },
		{ "@5", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "5 ", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "12ab", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "5\0"
		  "6",
		  3, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "\n", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "5\n\n", 0, E4T_TF_EPOCH, E4T_SRC_INVALID, 0, 0 },
		{ "2022-06-18T04:26:40.1234567Z", 0, E4T_TF_ISO8601, E4T_SRC_OK,
		  T1_SEC, T1_NSEC },
		{ "2022-06-18T04:26:40.1234567Z\0", 29, E4T_TF_ISO8601,
		  E4T_SRC_OK, T1_SEC, T1_NSEC },
		{ "2022-06-18 06:26:40+02:00\n", 0, E4T_TF_ISO8601, E4T_SRC_OK,
		  T1_SEC, 0 },
		{ "1901-12-13T20:45:51Z", 0, E4T_TF_ISO8601, E4T_SRC_INVALID, 0,
		  0 },
		{ "2022-13-01", 0, E4T_TF_ISO8601, E4T_SRC_INVALID, 0, 0 },
		{ "yesterday", 0, E4T_TF_ISO8601, E4T_SRC_INVALID, 0, 0 },
		{ "1655526400", 0, E4T_TF_ISO8601, E4T_SRC_INVALID, 0, 0 },
	};
	unsigned char buf[16];
	struct e4t_src_time t;
	enum e4t_src_status st;
	char big[200];
	size_t i, len;

	for (i = 0; i < ARRAY(v); i++) {
		len = v[i].len ? v[i].len : strlen(v[i].val);
		memset(&t, 0x55, sizeof(t));
		{
			unsigned char *copy = malloc(len ? len : 1);

			memcpy(copy, v[i].val, len);
			st = e4t_xattr_time_decode(copy, len, v[i].fmt, &t);
			free(copy);
		}
		CHECK(st == v[i].st, "text \"%s\": status %d want %d (%s)",
		      v[i].val, (int)st, (int)v[i].st, t.why ? t.why : "-");
		CHECK(sane(st, &t), "text \"%s\": insane", v[i].val);
		if (v[i].st == E4T_SRC_OK)
			CHECK(t.sec == v[i].sec && t.nsec == v[i].nsec,
			      "text \"%s\": %lld.%09u", v[i].val,
			      (long long)t.sec, t.nsec);
	}
	memset(big, '1', sizeof(big));
	CHECK(e4t_xattr_time_decode(big, sizeof(big), E4T_TF_EPOCH, &t) ==
		      E4T_SRC_INVALID,
	      "long text");
	e4t_xattr_time_decode("-2147483649", 11, E4T_TF_EPOCH, &t);
	CHECK(t.why && strstr(t.why, "range"), "text range reason: %s", t.why);

	put_le64(buf, 1655526400123456ULL);
	CHECK(e4t_xattr_time_decode(buf, 8, E4T_TF_USEC_LE, &t) == E4T_SRC_OK &&
		      t.sec == T1_SEC && t.nsec == 123456000,
	      "usec-le");
	put_le64(buf, (uint64_t)-1);
	CHECK(e4t_xattr_time_decode(buf, 8, E4T_TF_USEC_LE, &t) == E4T_SRC_OK &&
		      t.sec == -1 && t.nsec == 999999000,
	      "usec-le -1: %lld.%09u", (long long)t.sec, t.nsec);
	put_le64(buf, (uint64_t)(E4T_SEC_MIN - 1) * 1000000);
	CHECK(e4t_xattr_time_decode(buf, 8, E4T_TF_USEC_LE, &t) ==
		      E4T_SRC_INVALID,
	      "usec-le before 1901");
	CHECK(e4t_xattr_time_decode(buf, 7, E4T_TF_USEC_LE, &t) ==
		      E4T_SRC_INVALID,
	      "usec-le 7 bytes");
	put_le64(buf, T1_NT);
	CHECK(e4t_xattr_time_decode(buf, 8, E4T_TF_NTTIME_LE, &t) ==
			      E4T_SRC_OK &&
		      t.sec == T1_SEC && t.nsec == T1_NSEC,
	      "nttime-le");
	put_le64(buf, 0);
	CHECK(e4t_xattr_time_decode(buf, 8, E4T_TF_NTTIME_LE, &t) ==
		      E4T_SRC_NO_TIME,
	      "nttime-le unset");
	CHECK(e4t_xattr_time_decode(buf, 9, E4T_TF_NTTIME_LE, &t) ==
		      E4T_SRC_INVALID,
	      "nttime-le 9 bytes");
	CHECK(e4t_xattr_time_decode(buf, 8, (enum e4t_text_format)99, &t) ==
		      E4T_SRC_INVALID,
	      "unknown format");
}

static void test_spec(void)
{
	static const struct {
		const char *spec;
		errcode_t err;
		const char *name;
		const char *x0, *x1;
	} v[] = {
		{ "dosattrib", 0, "dosattrib", "user.DOSATTRIB",
		  "user.DosAttrib" },
		{ "netatalk", 0, "netatalk", "user.org.netatalk.Metadata",
		  NULL },
		{ "systemd", 0, "systemd", "user.crtime_usec", NULL },
		{ "xattr:user.x:epoch", 0, "xattr:user.x:epoch", "user.x",
		  NULL },
		{ "xattr:user.birth:iso8601", 0, NULL, "user.birth", NULL },
		{ "xattr:trusted.b:usec-le", 0, NULL, "trusted.b", NULL },
		{ "xattr:user.a:b:nttime-le", 0, NULL, "user.a:b", NULL },
		{ "xattr::epoch", EINVAL, NULL, NULL, NULL },
		{ "xattr:user.x", EINVAL, NULL, NULL, NULL },
		{ "xattr:user.x:nope", EINVAL, NULL, NULL, NULL },
		{ "xattr:user.x:", EINVAL, NULL, NULL, NULL },
		{ "xattr:user.x:EPOCH", EINVAL, NULL, NULL, NULL },
		{ "xattr:user.:epoch", EINVAL, NULL, NULL, NULL },
		{ "xattr:birth:epoch", EINVAL, NULL, NULL, NULL },
		{ "xattr:", EINVAL, NULL, NULL, NULL },
		{ "xattr", EINVAL, NULL, NULL, NULL },
		{ "bogus", EINVAL, NULL, NULL, NULL },
		{ "", EINVAL, NULL, NULL, NULL },
		{ "DOSATTRIB", EINVAL, NULL, NULL, NULL },
		{ "dosattrib ", EINVAL, NULL, NULL, NULL },
	};
	struct e4t_source *src;
	const char *const *x;
	errcode_t err;
	size_t i;

	for (i = 0; i < ARRAY(v); i++) {
		src = (struct e4t_source *)&src;
		err = e4t_source_parse(v[i].spec, &src);
		CHECK(err == v[i].err, "spec \"%s\": %ld want %ld", v[i].spec,
		      (long)err, (long)v[i].err);
		if (err) {
			CHECK(src == NULL, "spec \"%s\": *ret set", v[i].spec);
			continue;
		}
		CHECK(strcmp(e4t_source_name(src),
			     v[i].name ? v[i].name : v[i].spec) == 0,
		      "spec \"%s\": name %s", v[i].spec, e4t_source_name(src));
		x = e4t_source_xattrs(src);
		CHECK(x[0] && strcmp(x[0], v[i].x0) == 0, "spec \"%s\": x0",
		      v[i].spec);
		if (v[i].x1)
			CHECK(x[1] && strcmp(x[1], v[i].x1) == 0 && !x[2],
			      "spec \"%s\": x1", v[i].spec);
		else
			CHECK(x[1] == NULL, "spec \"%s\": one xattr",
			      v[i].spec);
		e4t_source_free(src);
	}
	CHECK(e4t_source_parse(NULL, &src) == EINVAL, "NULL spec");
	e4t_source_free(NULL);
	CHECK(strstr(e4t_source_spec_help(), "xattr:NAME:FORMAT") != NULL,
	      "help text");
}

static void test_source_decode(void)
{
	unsigned char buf[512];
	struct e4t_source *src;
	struct e4t_src_time t;
	size_t n;

	CHECK(e4t_source_parse("dosattrib", &src) == 0, "parse dosattrib");
	n = unhex(dos_samples[13].hex, buf, sizeof(buf));
	CHECK(e4t_source_decode(src, "user.DOSATTRIB", buf, n, &t) ==
			      E4T_SRC_OK &&
		      t.sec == T1_SEC && t.version == 5,
	      "source dosattrib v5");
	CHECK(e4t_source_decode(src, NULL, buf, n, &t) == E4T_SRC_OK,
	      "source dosattrib, default name");
	CHECK(e4t_source_decode(src, "user.DosAttrib", buf, n, &t) ==
		      E4T_SRC_INVALID,
	      "a DOSATTRIB blob in user.DosAttrib");
	CHECK(e4t_source_decode(src, "user.crtime_usec", buf, n, &t) ==
			      E4T_SRC_INVALID &&
		      t.why,
	      "wrong xattr for the source");
	n = unhex(dos_samples[20].hex, buf, sizeof(buf));
	CHECK(e4t_source_decode(src, "user.DosAttrib", buf, n, &t) ==
			      E4T_SRC_OK &&
		      t.sec == T1_SEC && t.version == 1,
	      "source ntvfs");
	e4t_source_free(src);

	CHECK(e4t_source_parse("netatalk", &src) == 0, "parse netatalk");
	n = build_netatalk(buf, 700000000);
	CHECK(e4t_source_decode(src, "user.org.netatalk.Metadata", buf, n,
				&t) == E4T_SRC_OK &&
		      t.sec == 700000000LL + 946684800LL,
	      "source netatalk");
	e4t_source_free(src);

	CHECK(e4t_source_parse("systemd", &src) == 0, "parse systemd");
	put_le64(buf, 1000000);
	CHECK(e4t_source_decode(src, "user.crtime_usec", buf, 8, &t) ==
			      E4T_SRC_OK &&
		      t.sec == 1,
	      "source systemd");
	e4t_source_free(src);

	CHECK(e4t_source_parse("xattr:user.birth:epoch", &src) == 0,
	      "parse xattr");
	CHECK(e4t_source_decode(src, "user.birth", "42\n", 3, &t) ==
			      E4T_SRC_OK &&
		      t.sec == 42,
	      "source xattr epoch");
	CHECK(e4t_source_decode(src, "user.other", "42\n", 3, &t) ==
		      E4T_SRC_INVALID,
	      "source xattr other name");
	e4t_source_free(src);
}

/* A small deterministic generator, so failures reproduce. */
static uint32_t rnd_state = 0x12345678;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static enum e4t_src_status dec_iso(const void *v, size_t l,
				   struct e4t_src_time *t)
{
	return e4t_xattr_time_decode(v, l, E4T_TF_ISO8601, t);
}

static enum e4t_src_status dec_epoch(const void *v, size_t l,
				     struct e4t_src_time *t)
{
	return e4t_xattr_time_decode(v, l, E4T_TF_EPOCH, t);
}

static enum e4t_src_status dec_usec(const void *v, size_t l,
				    struct e4t_src_time *t)
{
	return e4t_xattr_time_decode(v, l, E4T_TF_USEC_LE, t);
}

static void test_garbage(void)
{
	static const struct {
		const char *what;
		enum e4t_src_status (*fn)(const void *, size_t,
					  struct e4t_src_time *);
	} dec[] = {
		{ "dosattrib", e4t_dosattrib_decode },
		{ "ntvfs", e4t_dosattrib_ntvfs_decode },
		{ "netatalk", e4t_netatalk_decode },
		{ "systemd", e4t_systemd_decode },
		{ "iso8601", dec_iso },
		{ "epoch", dec_epoch },
		{ "usec-le", dec_usec },
	};
	unsigned char buf[512], seed[512];
	struct e4t_src_time t;
	enum e4t_src_status st;
	size_t d, i, j, n, bad, ok;

	for (d = 0; d < ARRAY(dec); d++) {
		bad = ok = 0;
		/* pure noise, of every length up to 96 */
		for (i = 0; i < 20000; i++) {
			n = rnd() % 97;
			for (j = 0; j < n; j++)
				buf[j] = (unsigned char)rnd();
			/* now and then, a plausible start */
			if (n >= 4 && i % 4 == 0 && d == 0) {
				buf[0] = (i & 8) ? '0' : 0;
				buf[1] = (i & 8) ? 'x' : 0;
			}
			if (n >= 8 && i % 4 == 0 && d == 2) {
				put_be32(buf, 0x00051607);
				put_be32(buf + 4, 0x00020000);
			}
			st = decode_copy(dec[d].fn, buf, n, &t);
			bad += !sane(st, &t);
			ok += st == E4T_SRC_OK;
		}
		CHECK(bad == 0, "%s: %zu insane results from noise",
		      dec[d].what, bad);
	}

	/* Real values with a few random bytes changed. */
	bad = 0;
	for (i = 0; i < 30000; i++) {
		const struct sample *s = &dos_samples[i % ARRAY(dos_samples)];

		n = unhex(s->hex, seed, sizeof(seed));
		for (j = 0; j < 1 + rnd() % 3 && n; j++)
			seed[rnd() % n] = (unsigned char)rnd();
		st = decode_copy(e4t_dosattrib_decode, seed, n, &t);
		bad += !sane(st, &t);
		st = decode_copy(e4t_dosattrib_ntvfs_decode, seed, n, &t);
		bad += !sane(st, &t);
	}
	for (i = 0; i < 30000; i++) {
		n = build_netatalk(seed, rnd());
		for (j = 0; j < 1 + rnd() % 3; j++)
			seed[rnd() % 134] = (unsigned char)rnd();
		n = rnd() % 2 ? n : rnd() % (n + 1);
		st = decode_copy(e4t_netatalk_decode, seed, n, &t);
		bad += !sane(st, &t);
	}
	CHECK(bad == 0, "%zu insane results from mutated values", bad);
}

int main(void)
{
	test_nttime();
	test_dosattrib_samples();
	test_smbd_samples();
	test_dosattrib_reasons();
	test_dosattrib_builder();
	test_dosattrib_matrix();
	test_dosattrib_ntvfs();
	test_netatalk();
	test_systemd();
	test_text();
	test_spec();
	test_source_decode();
	test_garbage();
	return unit_report("unit_sources");
}
