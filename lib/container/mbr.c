/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mbr.c --- MBR partition tables, with extended and logical partitions.
 * (STUB: to be written)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_mbr_read(const struct e4t_view *v, struct e4t_parttable *pt,
		       e4t_cwarn warn, void *arg)
{
	(void)v;
	(void)warn;
	(void)arg;
	memset(pt, 0, sizeof(*pt));
	return 0;
}
