/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.c --- LVM2 physical volumes: the label, the PV header, the text metadata.
 * (STUB: to be written)
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_lvm_read(const struct e4t_view *v, struct e4t_lvm *out,
		       int *found, e4t_cwarn warn, void *arg)
{
	(void)v;
	(void)warn;
	(void)arg;
	memset(out, 0, sizeof(*out));
	*found = 0;
	return 0;
}

void e4t_lvm_free(struct e4t_lvm *lvm)
{
	memset(lvm, 0, sizeof(*lvm));
}
