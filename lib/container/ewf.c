/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ewf.c --- EWF (E01) images through libewf.
 * (STUB: to be written)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_ewf_open(const char *path, struct e4t_container **ret,
		       char **what)
{
	(void)path;
	*ret = NULL;
	*what = NULL;
	return E4T_ERR_CONTAINER_UNSUPPORTED;
}
