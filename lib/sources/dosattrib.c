/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dosattrib.c --- NTTIME and Samba's DOSATTRIB xattr (also written by
 * ksmbd), as librpc/idl/xattr.idl and librpc/ndr/ndr_xattr.c define it.
 *
 * user.DOSATTRIB (xattr_DOSATTRIB):
 *   attrib_hex   ASCII, NUL-terminated: "0x%x" for versions 1 and 2,
 *                for 3 when valid_flags has XATTR_DOSINFO_ATTRIB, else "".
 *                Nothing after it at all: Samba 3.0-3.4 text, no time.
 *   u16 version  (NDR aligns it to 2)
 *   u16 level    (the union discriminant, equal to version)
 *   xattr_DosInfoN, aligned to 4 (NTTIME and udlong align to 4 in NDR)
 * user.DosAttrib (Samba4 ntvfs, xattr_DosAttrib): no attrib_hex, the
 *   rest as above.
 *
 *   ver  struct (bytes)                                 create_time
 *   1    attrib ea_size size alloc create change (40)   +24, no flag
 *   2    flags attrib ea_size size alloc create change
 *        write name (52 + string)                       +28, no flag
 *   3    valid_flags attrib ea_size size alloc create
 *        change (44)                                    +28, flag 0x10
 *   4    valid_flags attrib itime create (24)           +16, flag 0x10
 *   5    valid_flags attrib create (16)                 +8,  flag 0x10
 */
#include "config.h"

#include <string.h>

#include "sources/sources.h"

#define NT_UNIX_DELTA	 116444736000000000ULL /* 1601 -> 1970, 100 ns */
#define NT_PER_SEC	 10000000ULL
#define DOSINFO_CREATE	 0x00000010 /* XATTR_DOSINFO_CREATE_TIME */
#define DOSATTRIB_HEXMAX 8	    /* "0x" + at most 8 hex digits */

static enum e4t_src_status fail(struct e4t_src_time *out, const char *why)
{
	out->why = why;
	return E4T_SRC_INVALID;
}

static enum e4t_src_status none(struct e4t_src_time *out, const char *why)
{
	out->why = why;
	return E4T_SRC_NO_TIME;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

enum e4t_src_status e4t_nttime_decode(uint64_t nt, struct e4t_src_time *out)
{
	uint64_t d, rem;
	int64_t sec;

	out->sec = 0;
	out->nsec = 0;
	out->version = 0;
	out->why = NULL;
	if (nt == 0 || nt == UINT64_MAX || nt == UINT64_MAX - 1)
		return none(out, "unset NTTIME");
	if (nt >= NT_UNIX_DELTA) {
		d = nt - NT_UNIX_DELTA;
		sec = (int64_t)(d / NT_PER_SEC);
		rem = d % NT_PER_SEC;
	} else {
		d = NT_UNIX_DELTA - nt;
		sec = -(int64_t)(d / NT_PER_SEC);
		rem = d % NT_PER_SEC;
		if (rem) {
			sec--;
			rem = NT_PER_SEC - rem;
		}
	}
	if (sec < E4T_SEC_MIN || sec > E4T_SEC_MAX)
		return fail(out, "outside the range ext4 can store");
	out->sec = sec;
	out->nsec = (uint32_t)(rem * 100);
	return E4T_SRC_OK;
}

/* "0x" and 1 to 8 hex digits, exactly n bytes. */
static int is_attrib_hex(const unsigned char *p, size_t n)
{
	size_t i;

	if (n < 3 || n > 2 + DOSATTRIB_HEXMAX || p[0] != '0' || p[1] != 'x')
		return 0;
	for (i = 2; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
			return 0;
	return 1;
}

/* The NDR after attrib_hex: u16 version at off (aligned to 2 already). */
static enum e4t_src_status decode_info(const unsigned char *p, size_t len,
				       size_t off, struct e4t_src_time *out)
{
	static const size_t need[6] = { 0, 40, 53, 44, 24, 16 };
	static const size_t at[6] = { 0, 24, 28, 28, 16, 8 };
	unsigned version, level;
	size_t s;
	enum e4t_src_status st;

	if (len < 4 || off > len - 4)
		return fail(out, "truncated");
	version = le16(p + off);
	level = le16(p + off + 2);
	out->version = (int)version;
	if (version < 1 || version > 5)
		return fail(out, "unknown DOSATTRIB version");
	if (level != version)
		return fail(out, "DOSATTRIB version and union level differ");
	s = (off + 4 + 3) & ~(size_t)3;
	if (s > len || len - s < need[version])
		return fail(out, "truncated");
	if (version >= 3) {
		uint32_t flags = le32(p + s);

		if (!(flags & DOSINFO_CREATE))
			return none(out, "no create time (valid flag unset)");
	}
	st = e4t_nttime_decode(le64(p + s + at[version]), out);
	out->version = (int)version;
	if (st == E4T_SRC_NO_TIME)
		out->why = "no create time (unset NTTIME)";
	return st;
}

static void reset(struct e4t_src_time *out)
{
	out->sec = 0;
	out->nsec = 0;
	out->version = 0;
	out->why = NULL;
}

enum e4t_src_status e4t_dosattrib_ntvfs_decode(const void *val, size_t len,
					       struct e4t_src_time *out)
{
	reset(out);
	if (!val || len == 0)
		return fail(out, "empty value");
	return decode_info(val, len, 0, out);
}

enum e4t_src_status e4t_dosattrib_decode(const void *val, size_t len,
					 struct e4t_src_time *out)
{
	const unsigned char *p = val;
	const unsigned char *nul;
	size_t slen, off;

	reset(out);
	if (!val || len == 0)
		return fail(out, "empty value");
	/* Samba4 ntvfs (user.DosAttrib): starts with a u16 version, 1..5,
	 * where user.DOSATTRIB starts with '0' or a NUL. */
	if (len >= 2 && p[0] >= 1 && p[0] <= 5 && p[1] == 0)
		return decode_info(p, len, 0, out);

	nul = memchr(p, 0, len);
	slen = nul ? (size_t)(nul - p) : len;
	if (slen != 0 && !is_attrib_hex(p, slen))
		return fail(out,
			    "not a DOSATTRIB value (bad attribute string)");
	if (!nul || slen + 1 == len) {
		/* Only text: Samba 3.0-3.4 wrote "0x%x" alone (ndr_xattr.c
		 * pulls this as compat level 0xFFFF, attributes only). */
		if (slen == 0)
			return fail(out, "truncated");
		return none(out, "legacy text-only DOSATTRIB, no create time");
	}
	off = (slen + 1 + 1) & ~(size_t)1;
	return decode_info(p, len, off, out);
}
