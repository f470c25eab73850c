/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_iattr.c --- lib/fs/iattr.c, the table of repeated inode fields the
 * tree keeps once: a field that differs in any one byte is a new entry,
 * an equal one is found again (through the two remembered and through the
 * index, before and after it grows), and positions never move.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/iattr_int.h"
#include "unit.h"

#define MANY 100000U /* well past the first index of 1024 slots */

static struct iattr make(uint32_t i)
{
	struct iattr a;

	memset(&a, 0, sizeof(a));
	a.uid = i % 1000;
	a.gid = i / 1000;
	a.iflags = 0x80000;
	a.links = 1;
	a.extra_isize = 32;
	return a;
}

static void each_field_counts(void)
{
	struct iattr_tab tab;
	struct iattr a = make(0), b;
	uint32_t pos, first;
	unsigned f, made = 0;

	memset(&tab, 0, sizeof(tab));
	CHECK(iattr_find(&tab, &a, &first) == 0 && first == 0, "first entry");
	/* each field changed alone: a new entry, found again after */
	for (f = 0; f < 6; f++) {
		b = a;
		switch (f) {
		case 0: b.uid = 7; break;
		case 1: b.gid = 7; break;
		case 2: b.iflags = 0x10000000; break;
		case 3: b.size_hi = 1; break;
		case 4: b.links = 2; break;
		default: b.extra_isize = 28; break;
		}
		CHECK(iattr_find(&tab, &b, &pos) == 0 && pos == f + 1,
		      "field %u: new entry %u", f, pos);
		CHECK(iattr_find(&tab, &a, &pos) == 0 && pos == first,
		      "field %u: the first found again", f);
		CHECK(iattr_find(&tab, &b, &pos) == 0 && pos == f + 1,
		      "field %u: found again", f);
		made++;
	}
	CHECK(made == 6 && tab.n == 7, "%u fields, %zu entries", made, tab.n);
	iattr_free(&tab);
	CHECK(tab.v == NULL && tab.n == 0, "freed");
}

static void many_entries(void)
{
	struct iattr_tab tab;
	uint32_t i, pos, bad = 0;

	memset(&tab, 0, sizeof(tab));
	for (i = 0; i < MANY; i++) {
		struct iattr a = make(i);

		if (iattr_find(&tab, &a, &pos) || pos != i)
			bad++;
	}
	CHECK(bad == 0 && tab.n == MANY, "%u added, %u wrong", MANY, bad);
	/* found again, in another order, once the index grew */
	for (i = MANY; i-- > 0;) {
		struct iattr a = make(i);

		if (iattr_find(&tab, &a, &pos) || pos != i)
			bad++;
	}
	CHECK(bad == 0 && tab.n == MANY, "%u found again, %u wrong", MANY, bad);
	/* the index gone, the table stays */
	iattr_done(&tab);
	CHECK(tab.slot == NULL && tab.n == MANY && tab.v[12345].uid == 345 &&
		      tab.v[12345].gid == 12,
	      "table kept without its index");
	iattr_free(&tab);
}

int main(void)
{
	each_field_counts();
	many_entries();
	return unit_report("unit_iattr");
}
