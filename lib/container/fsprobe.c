/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsprobe.c --- what a volume holds, from signatures: ext2/3/4 and what is not.
 * (STUB: to be written)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_probe(const struct e4t_view *v, struct e4t_probe *out)
{
	(void)v;
	memset(out, 0, sizeof(*out));
	out->name = "unknown";
	return 0;
}

const char *e4t_content_advice(enum e4t_content c)
{
	(void)c;
	return "not ext2/3/4";
}
