/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netatalk.c --- netatalk's user.org.netatalk.Metadata xattr: an
 * AppleDouble v2 header, big-endian (include/atalk/adouble.h):
 *   u32 magic 0x00051607, u32 version 0x00020000, 16 bytes filler,
 *   u16 entry count at 24, entries at 26 of { u32 id, u32 offset,
 *   u32 length }.
 * Entry 8 (ADEID_FILEDATESI, 16 bytes) holds create, modify, backup and
 * access dates, each an s32 of seconds since 2000-01-01T00:00:00Z;
 * 0x80000000 (AD_DATE_START) means unknown.
 */
#include "config.h"

#include "sources/sources.h"

#define AD_MAGIC	  0x00051607U
#define AD_VERSION2	  0x00020000U
#define AD_HEADER_LEN	  26
#define AD_ENTRY_LEN	  12
#define AD_NENTRIES_OFF	  24
#define ADEID_FILEDATESI  8
#define AD_FILEDATESI_LEN 16
#define AD_DATE_UNKNOWN	  0x80000000U
#define AD_DATE_DELTA	  946684800LL /* 2000-01-01T00:00:00Z */

static uint32_t be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static enum e4t_src_status fail(struct e4t_src_time *out, const char *why)
{
	out->why = why;
	return E4T_SRC_INVALID;
}

enum e4t_src_status e4t_netatalk_decode(const void *val, size_t len,
					struct e4t_src_time *out)
{
	const unsigned char *p = val;
	unsigned count, i;
	uint32_t raw;
	int64_t sec;

	out->sec = 0;
	out->nsec = 0;
	out->version = 0;
	out->why = NULL;
	if (!val || len < AD_HEADER_LEN)
		return fail(out, "truncated");
	if (be32(p) != AD_MAGIC)
		return fail(out, "wrong AppleDouble magic");
	if (be32(p + 4) != AD_VERSION2)
		return fail(out, "unsupported AppleDouble version");
	out->version = 2;
	count = (unsigned)((p[AD_NENTRIES_OFF] << 8) | p[AD_NENTRIES_OFF + 1]);
	if ((len - AD_HEADER_LEN) / AD_ENTRY_LEN < count)
		return fail(out, "truncated entry table");
	for (i = 0; i < count; i++) {
		const unsigned char *e =
			p + AD_HEADER_LEN + (size_t)i * AD_ENTRY_LEN;
		uint32_t off = be32(e + 4), elen = be32(e + 8);

		if (be32(e) != ADEID_FILEDATESI)
			continue;
		if (elen < AD_FILEDATESI_LEN)
			return fail(out, "File Dates Info entry too short");
		if (off > len || len - off < AD_FILEDATESI_LEN ||
		    len - off < elen)
			return fail(out, "File Dates Info entry points outside "
					 "the value");
		raw = be32(p + off);
		if (raw == AD_DATE_UNKNOWN) {
			out->why = "create date unknown";
			return E4T_SRC_NO_TIME;
		}
		sec = (int64_t)(int32_t)raw + AD_DATE_DELTA;
		if (sec < E4T_SEC_MIN || sec > E4T_SEC_MAX)
			return fail(out, "outside the range ext4 can store");
		out->sec = sec;
		return E4T_SRC_OK;
	}
	/* Well-formed, but without dates: nothing to take. */
	out->why = "no File Dates Info entry (id 8)";
	return E4T_SRC_NO_TIME;
}
