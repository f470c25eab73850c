/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.c --- e4t_lvm_read on any bytes. (STUB: to be written)
 */
#include "config.h"

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

FUZZ_TARGET(lvm)
{
	(void)data;
	(void)size;
	return 0;
}
