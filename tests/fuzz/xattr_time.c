/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xattr_time.c --- systemd's user.crtime_usec and the named-xattr
 * formats (epoch, iso8601, usec-le, nttime-le, and an unknown one).
 * The first byte picks the format, the rest is the value.
 */
#include "config.h"

#include "check_src.h"

FUZZ_TARGET(xattr_time)
{
	struct e4t_src_time t;
	enum e4t_text_format fmt;
	enum e4t_src_status st;

	if (size < 1)
		return 0;
	fmt = (enum e4t_text_format)(data[0] % 5); /* 4: not a format */
	st = e4t_xattr_time_decode(data + 1, size - 1, fmt, &t);
	check_src(st, &t);
	if ((unsigned)fmt > E4T_TF_NTTIME_LE)
		FUZZ_CHECK(st == E4T_SRC_INVALID, "unknown format read");
	check_src(e4t_systemd_decode(data + 1, size - 1, &t), &t);
	return 0;
}
