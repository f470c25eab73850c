/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sources.h --- creation times that other software stored in xattrs:
 * Samba's DOSATTRIB (and ksmbd's, which shares its layout), netatalk's
 * AppleDouble metadata, systemd's user.crtime_usec, and a named xattr
 * holding text or a binary counter.
 *
 * Every function here is a pure decoder: no I/O, no printing, no exit.
 * A decoder never reads past len, and answers every malformed input
 * with E4T_SRC_INVALID and a reason in out->why.
 */
#ifndef E4TIME_SOURCES_H
#define E4TIME_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "fs/fs.h"

enum e4t_src_status {
	E4T_SRC_OK = 0,	 /* a valid creation time in *out */
	E4T_SRC_NO_TIME, /* well-formed, but holds no creation time */
	E4T_SRC_INVALID, /* truncated, bad magic, unknown version, garbage,
			  * or a time outside the range ext4 can store */
};

struct e4t_src_time {
	int64_t sec;	 /* floor seconds since the Unix epoch */
	uint32_t nsec;	 /* 0..999999999 */
	int version;	 /* format version seen (DOSATTRIB 1..5, or the
			  * unknown number read; AppleDouble 2), else 0 */
	const char *why; /* static English text when status != OK */
};

/*
 * NTTIME: 100 ns units since 1601-01-01T00:00:00Z.  0, 0xFFFFFFFFFFFFFFFF
 * and 0xFFFFFFFFFFFFFFFE (Samba's NTTIME_OMIT/FREEZE/THAW) are NO_TIME.
 */
enum e4t_src_status e4t_nttime_decode(uint64_t nt, struct e4t_src_time *out);

/*
 * Samba's user.DOSATTRIB (xattr_DOSATTRIB, versions 1..5): a NUL-ended
 * "0x%x" (or "") attribute string, then NDR.  A value whose first two
 * bytes are a u16 version 1..5 is taken as Samba4 ntvfs' user.DosAttrib
 * (xattr_DosAttrib: no string).  A text-only value ("0x20", Samba
 * 3.0-3.4) is NO_TIME.
 */
enum e4t_src_status e4t_dosattrib_decode(const void *val, size_t len,
					 struct e4t_src_time *out);
/* Samba4 ntvfs' user.DosAttrib only: u16 version, u16 level, DosInfo1/2. */
enum e4t_src_status e4t_dosattrib_ntvfs_decode(const void *val, size_t len,
					       struct e4t_src_time *out);
/* netatalk's user.org.netatalk.Metadata: AppleDouble v2, entry 8. */
enum e4t_src_status e4t_netatalk_decode(const void *val, size_t len,
					struct e4t_src_time *out);
/* systemd's user.crtime_usec: exactly 8 bytes, LE u64 microseconds. */
enum e4t_src_status e4t_systemd_decode(const void *val, size_t len,
				       struct e4t_src_time *out);

enum e4t_text_format {
	E4T_TF_EPOCH,	  /* "[+-]SECONDS[.FRACTION]" */
	E4T_TF_ISO8601,	  /* anything e4t_time_parse() accepts */
	E4T_TF_USEC_LE,	  /* 8 bytes, LE signed (two's complement) usec */
	E4T_TF_NTTIME_LE, /* 8 bytes, LE NTTIME */
};

/*
 * Text formats may end in NULs and one newline ("\n" or "\r\n"); they
 * may hold no other NUL and at most 63 characters.
 */
enum e4t_src_status e4t_xattr_time_decode(const void *val, size_t len,
					  enum e4t_text_format fmt,
					  struct e4t_src_time *out);

struct e4t_source; /* opaque */

/*
 * spec: "dosattrib", "netatalk", "systemd", or "xattr:NAME:FORMAT" with
 * FORMAT epoch|iso8601|usec-le|nttime-le and NAME a full xattr name with
 * its namespace ("user.birth"; the last ':' ends NAME).  Returns 0,
 * ENOMEM, or EINVAL for a bad spec.
 */
errcode_t e4t_source_parse(const char *spec, struct e4t_source **ret);
void e4t_source_free(struct e4t_source *src);
/* "dosattrib", "netatalk", "systemd", or the whole "xattr:..." spec. */
const char *e4t_source_name(const struct e4t_source *src);
/*
 * The xattr names this source reads, in order of preference,
 * NULL-terminated: dosattrib -> "user.DOSATTRIB", "user.DosAttrib";
 * netatalk -> "user.org.netatalk.Metadata"; systemd -> "user.crtime_usec";
 * xattr:NAME:FMT -> NAME.
 */
const char *const *e4t_source_xattrs(const struct e4t_source *src);
/*
 * Decode the value of one of those xattrs (xattr_name NULL means the
 * first).  A name the source does not read is E4T_SRC_INVALID.
 */
enum e4t_src_status e4t_source_decode(const struct e4t_source *src,
				      const char *xattr_name, const void *val,
				      size_t len, struct e4t_src_time *out);
/* A static one-line description of the valid specs. */
const char *e4t_source_spec_help(void);

#endif /* E4TIME_SOURCES_H */
