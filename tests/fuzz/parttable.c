/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parttable.c --- e4t_parttable_read (and the MBR and GPT readers alone)
 * on any bytes: whatever is found lies inside the disk, is numbered once,
 * and has a NUL-terminated name; what is not found leaves nothing.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

static void count_warning(void *arg, const char *msg)
{
	FUZZ_CHECK(msg && *msg, "an empty warning");
	(*(unsigned *)arg)++;
}

static void check_table(const struct e4t_view *v, errcode_t err,
			const struct e4t_parttable *pt)
{
	unsigned i, j;

	if (err || pt->scheme == E4T_PT_NONE) {
		FUZZ_CHECK(pt->scheme == E4T_PT_NONE && !pt->nparts &&
				   !pt->parts,
			   "err %ld with scheme %d and %u parts", (long)err,
			   pt->scheme, pt->nparts);
		return;
	}
	FUZZ_CHECK(pt->sector == 512 || pt->sector == 4096, "sector %u",
		   pt->sector);
	for (i = 0; i < pt->nparts; i++) {
		const struct e4t_part *p = &pt->parts[i];

		FUZZ_CHECK(p->length && p->start < v->size &&
				   p->length <= v->size - p->start,
			   "p%u at %llu+%llu outside %llu", p->number,
			   (unsigned long long)p->start,
			   (unsigned long long)p->length,
			   (unsigned long long)v->size);
		FUZZ_CHECK(p->number >= 1, "number 0");
		FUZZ_CHECK(memchr(p->name, '\0', sizeof(p->name)),
			   "name not terminated");
		if (pt->scheme == E4T_PT_MBR)
			FUZZ_CHECK(p->number <= 4 + 128 &&
					   (p->number > 4) == !!p->logical,
				   "MBR p%u logical %d", p->number, p->logical);
		if (i)
			FUZZ_CHECK(p->number > pt->parts[i - 1].number,
				   "p%u after p%u", p->number,
				   pt->parts[i - 1].number);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(pt->parts[j].number != p->number,
				   "p%u twice", p->number);
	}
}

FUZZ_TARGET(parttable)
{
	struct e4t_container *c;
	struct e4t_parttable pt;
	struct e4t_view v = { 0 };
	unsigned warnings;
	errcode_t err;
	int i;

	if (e4t_raw_open(fuzz_file(data, size), &c))
		return 0;
	v.c = c;
	v.size = c->size;
	for (i = 0; i < 3; i++) {
		warnings = 0;
		if (i == 0)
			err = e4t_parttable_read(&v, &pt, count_warning,
						 &warnings);
		else if (i == 1)
			err = e4t_mbr_read(&v, &pt, count_warning, &warnings);
		else
			err = e4t_gpt_read(&v, &pt, count_warning, &warnings);
		FUZZ_CHECK(err != E4T_ERR_PARTTABLE || warnings,
			   "E4T_ERR_PARTTABLE without a warning");
		check_table(&v, err, &pt);
		e4t_parttable_free(&pt);
	}
	e4t_container_close(c);
	return 0;
}
