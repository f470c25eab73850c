/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.c --- e4t_lvm_read on any bytes, as a raw container viewed whole:
 * whatever it returns, what it fills is consistent (strings there and
 * ended, segments sorted and of extents, or the LV refused) and frees
 * cleanly.  Seeds: PVs made by hand (tests/unit_lvm.c, E4T_LVM_DUMP) and
 * by the lvm tools (tests/lvm_fixture.sh: small.img, wrap.img).
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

static unsigned warnings;

static void count(void *arg, const char *msg)
{
	(void)arg;
	FUZZ_CHECK(msg && strlen(msg) < 4096 && !strchr(msg, '\n'),
		   "a warning is one line");
	warnings++;
}

static void check_lv(const struct e4t_lvm_lv *lv)
{
	unsigned i;

	FUZZ_CHECK(lv->name && lv->uuid, "LV strings");
	(void)strlen(lv->name);
	(void)strlen(lv->uuid);
	if (lv->refused)
		(void)strlen(lv->refused);
	for (i = 0; i < lv->nsegs; i++) {
		const struct e4t_lvm_seg *s = &lv->segs[i];

		FUZZ_CHECK(s->type, "segment %u has a type", i);
		(void)strlen(s->type);
		if (s->pv)
			(void)strlen(s->pv);
		FUZZ_CHECK(!i || lv->segs[i - 1].lstart_ext <= s->lstart_ext,
			   "LV %s: segments sorted", lv->name);
		FUZZ_CHECK(lv->refused ||
				   (s->extents && s->pv && s->stripes == 1 &&
				    !strcmp(s->type, "striped")),
			   "LV %s: segment %u is linear or the LV refused",
			   lv->name, i);
		FUZZ_CHECK(lv->refused ||
				   (i ? lv->segs[i - 1].lstart_ext +
							    lv->segs[i - 1]
								    .extents ==
						    s->lstart_ext
				      : s->lstart_ext == 0),
			   "LV %s: segments tile it", lv->name);
	}
	FUZZ_CHECK(lv->refused || lv->nsegs, "LV %s: segments", lv->name);
}

FUZZ_TARGET(lvm)
{
	struct e4t_container *c;
	struct e4t_view v;
	struct e4t_lvm lvm;
	errcode_t err;
	unsigned i;
	int found = -1;

	if (e4t_raw_open(fuzz_file(data, size), &c))
		return 0;
	memset(&v, 0, sizeof(v));
	v.c = c;
	v.size = c->size;
	warnings = 0;
	err = e4t_lvm_read(&v, &lvm, &found, count, NULL);
	FUZZ_CHECK(found == 0 || found == 1, "found %d", found);
	FUZZ_CHECK(found || (!err && !lvm.vg_name),
		   "no label: nothing found, no error");
	FUZZ_CHECK(!err || (!lvm.vg_name && !lvm.nlvs && !lvm.npvs),
		   "an error leaves nothing");
	FUZZ_CHECK(err != E4T_ERR_LVM || warnings, "E4T_ERR_LVM says why");
	FUZZ_CHECK(memchr(lvm.pv_uuid, 0, sizeof(lvm.pv_uuid)), "pv_uuid ends");
	if (lvm.vg_name) {
		FUZZ_CHECK(lvm.vg_uuid && lvm.extent_size, "VG fields");
		(void)strlen(lvm.vg_uuid);
	}
	for (i = 0; i < lvm.npvs; i++) {
		FUZZ_CHECK(lvm.pvs[i].name && lvm.pvs[i].uuid, "PV strings");
		(void)strlen(lvm.pvs[i].name);
		(void)strlen(lvm.pvs[i].uuid);
	}
	for (i = 0; i < lvm.nlvs; i++)
		check_lv(&lvm.lvs[i]);
	e4t_lvm_free(&lvm);
	e4t_container_close(c);
	return 0;
}
