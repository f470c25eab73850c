/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dosattrib.c --- Samba's user.DOSATTRIB (v1-v5, and ntvfs'
 * user.DosAttrib) and the NTTIME decoder on any bytes.
 */
#include "config.h"

#include "check_src.h"

FUZZ_TARGET(dosattrib)
{
	struct e4t_src_time t;
	uint64_t nt = 0;
	size_t i;

	check_src(e4t_dosattrib_decode(data, size, &t), &t);
	check_src(e4t_dosattrib_ntvfs_decode(data, size, &t), &t);
	for (i = 0; i < 8 && i < size; i++)
		nt |= (uint64_t)data[i] << (8 * i);
	check_src(e4t_nttime_decode(nt, &t), &t);
	return 0;
}
