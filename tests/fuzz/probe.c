/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c --- e4t_probe on any bytes. (STUB: to be written)
 */
#include "config.h"

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

FUZZ_TARGET(probe)
{
	(void)data;
	(void)size;
	return 0;
}
