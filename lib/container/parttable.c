/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parttable.c --- the partition table of a view (GPT, then MBR), type names,
 * GUIDs. (STUB: to be written)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_parttable_read(const struct e4t_view *v, struct e4t_parttable *pt,
			     e4t_cwarn warn, void *arg)
{
	return e4t_mbr_read(v, pt, warn, arg);
}

void e4t_parttable_free(struct e4t_parttable *pt)
{
	free(pt->parts);
	memset(pt, 0, sizeof(*pt));
}

const char *e4t_gpt_type_name(const uint8_t guid[16])
{
	(void)guid;
	return NULL;
}

const char *e4t_mbr_type_name(uint8_t id)
{
	(void)id;
	return NULL;
}

void e4t_guid_str(const uint8_t guid[16], char out[37])
{
	(void)guid;
	out[0] = 0;
}
