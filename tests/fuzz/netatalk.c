/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netatalk.c --- netatalk's AppleDouble metadata on any bytes.
 */
#include "config.h"

#include "check_src.h"

FUZZ_TARGET(netatalk)
{
	struct e4t_src_time t;

	check_src(e4t_netatalk_decode(data, size, &t), &t);
	return 0;
}
