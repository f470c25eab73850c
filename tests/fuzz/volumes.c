/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volumes.c --- e4t_volumes_scan on any bytes taken for a disk: the
 * partition tables, the LVM2 physical volumes and the logical volumes
 * put together from them, and e4t_volumes_pick.  Every volume lies
 * inside the disk (each extent of a logical volume too), indices run
 * 1, 2, ..., a parent comes before its children, and picking a volume
 * by its own index finds it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

static void no_warning_is_empty(void *arg, const char *msg)
{
	(void)arg;
	FUZZ_CHECK(msg && *msg, "an empty warning");
}

static void check_view(const struct e4t_view *v, uint64_t disk)
{
	uint64_t sum = 0;
	unsigned i;

	if (!v->next) {
		FUZZ_CHECK(v->base <= disk && v->size <= disk - v->base,
			   "window %llu+%llu outside %llu",
			   (unsigned long long)v->base,
			   (unsigned long long)v->size,
			   (unsigned long long)disk);
		return;
	}
	for (i = 0; i < v->next; i++) {
		const struct e4t_extent *e = &v->ext[i];

		FUZZ_CHECK(e->len && e->pstart <= disk &&
				   e->len <= disk - e->pstart,
			   "extent %u outside the disk", i);
		FUZZ_CHECK(e->lstart == sum, "extent %u at %llu, not %llu", i,
			   (unsigned long long)e->lstart,
			   (unsigned long long)sum);
		sum += e->len;
	}
	FUZZ_CHECK(sum == v->size, "extents %llu, size %llu",
		   (unsigned long long)sum, (unsigned long long)v->size);
}

FUZZ_TARGET(volumes)
{
	struct e4t_container *c;
	struct e4t_volumes vs;
	unsigned i;

	if (e4t_raw_open(fuzz_file(data, size), &c))
		return 0;
	if (!e4t_volumes_scan(c, &vs, no_warning_is_empty, NULL)) {
		for (i = 0; i < vs.n; i++) {
			const struct e4t_vol *v = &vs.v[i];
			const struct e4t_vol *got;
			char spec[16];

			FUZZ_CHECK(v->index == i + 1, "index %u at %u",
				   v->index, i);
			FUZZ_CHECK(v->parent >= 0 &&
					   (unsigned)v->parent < v->index,
				   "parent %d of %u", v->parent, v->index);
			FUZZ_CHECK(memchr(v->name, '\0', sizeof(v->name)) &&
					   v->name[0],
				   "volume %u has no name", v->index);
			check_view(&v->view, c->size);
			snprintf(spec, sizeof(spec), "%u", v->index);
			(void)e4t_volumes_pick(&vs, spec, &got);
			FUZZ_CHECK(got == v, "--volume %s picks another", spec);
		}
		(void)e4t_volumes_pick(&vs, NULL,
				       &(const struct e4t_vol *){ NULL });
		e4t_volumes_free(&vs);
	}
	e4t_container_close(c);
	return 0;
}
