/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_lvm.c --- (STUB: to be written)
 */
#include "config.h"

#include "e4time.h"
#include "container/container.h"
#include "unit.h"

int main(void)
{
	CHECK(1, "stub");
	return unit_report("unit_lvm");
}
