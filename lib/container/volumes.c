/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volumes.c --- every volume of a container, as `e4time volumes` lists
 * them, and the one --volume names.
 *
 * The walk: the container's partition table (GPT, else MBR), each
 * partition probed and, when it holds a partition table of its own,
 * walked in turn; physical volumes of LVM2 (in a partition, or the
 * whole container) are gathered, and once the walk is done each volume
 * group's logical volumes are put together from the PVs found, segment
 * by segment, as views whose extents may lie apart.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "e4time.h"
#include "container/container.h"

#define MAX_DEPTH   4
#define MAX_PENDING 64

struct pv_found {
	struct e4t_lvm lvm;
	struct e4t_view view; /* the PV, from its label on */
	unsigned vol;	      /* its volume's index */
};

struct scan {
	struct e4t_volumes *vs;
	size_t cap;
	struct pv_found *pvs;
	size_t npvs, pvcap;
	e4t_cwarn warn;
	void *arg;
	/* partitions that hold a partition table, to walk next */
	unsigned pending[MAX_PENDING];
	unsigned npending;
	int damaged; /* a partition table found but unreadable */
};

/* A new volume at the end of the list; its index is its place + 1. */
static errcode_t add_vol(struct scan *s, unsigned parent, unsigned depth,
			 const char *scheme, unsigned *idx)
{
	struct e4t_volumes *vs = s->vs;
	struct e4t_vol *v;
	errcode_t err;

	err = e4t_grow(&vs->v, &s->cap, vs->n + 1, sizeof(*vs->v), 8);
	if (err)
		return err;
	v = &vs->v[vs->n];
	memset(v, 0, sizeof(*v));
	v->index = ++vs->n;
	v->parent = (int)parent;
	v->depth = depth;
	v->scheme = scheme;
	*idx = v->index;
	return 0;
}

static struct e4t_vol *vol(struct scan *s, unsigned idx)
{
	return &s->vs->v[idx - 1];
}

static errcode_t found_pv(struct scan *s, unsigned idx)
{
	struct e4t_vol *v = vol(s, idx);
	struct pv_found *pv;
	int found = 0;
	errcode_t err;

	err = e4t_grow(&s->pvs, &s->pvcap, s->npvs + 1, sizeof(*s->pvs), 4);
	if (err)
		return err;
	pv = &s->pvs[s->npvs];
	memset(pv, 0, sizeof(*pv));
	err = e4t_lvm_read(&v->view, &pv->lvm, &found, s->warn, s->arg);
	if (err == E4T_ERR_LVM || (!err && !found)) {
		e4t_cwarnf(s->warn, s->arg,
			   "%s: LVM2 physical volume whose metadata cannot be "
			   "read",
			   v->name);
		e4t_lvm_free(&pv->lvm);
		return 0;
	}
	if (err)
		return err;
	pv->view = v->view;
	pv->vol = idx;
	snprintf(v->type, sizeof(v->type), "LVM2 PV of %s",
		 pv->lvm.vg_name ? pv->lvm.vg_name : "?");
	s->npvs++;
	return 0;
}

static void name_part(struct e4t_vol *v, const struct e4t_parttable *pt,
		      const struct e4t_part *p)
{
	const char *tn;

	if (pt->scheme == E4T_PT_GPT) {
		tn = e4t_gpt_type_name(p->type_guid);
		if (tn) {
			snprintf(v->type, sizeof(v->type), "%s", tn);
		} else {
			char g[37];

			e4t_guid_str(p->type_guid, g);
			snprintf(v->type, sizeof(v->type), "%s", g);
		}
		snprintf(v->part_name, sizeof(v->part_name), "%s", p->name);
		e4t_guid_str(p->uuid, v->part_uuid);
	} else {
		tn = e4t_mbr_type_name(p->mbr_type);
		snprintf(v->type, sizeof(v->type), "0x%02x%s%s%s", p->mbr_type,
			 tn ? " " : "", tn ? tn : "",
			 p->logical ? " (logical)" : "");
	}
}

/* A partition: probe it; a PV is kept for later, a table walked. */
static errcode_t scan_part(struct scan *s, const struct e4t_view *view,
			   const struct e4t_parttable *pt,
			   const struct e4t_part *p, unsigned parent,
			   unsigned depth, const char *prefix)
{
	struct e4t_vol *v;
	unsigned idx;
	errcode_t err;

	err = add_vol(s, parent, depth,
		      pt->scheme == E4T_PT_GPT ? "GPT" : "MBR", &idx);
	if (err)
		return err;
	v = vol(s, idx);
	snprintf(v->name, sizeof(v->name), "%sp%u", prefix, p->number);
	name_part(v, pt, p);
	err = e4t_view_sub(view, p->start, p->length, &v->view);
	if (err) {
		v->refused = strdup("partition outside the disk");
		return v->refused ? 0 : ENOMEM;
	}
	err = e4t_probe(&v->view, &v->probe);
	if (err)
		return err;
	if (v->probe.content == E4T_FS_LVM_PV)
		return found_pv(s, idx);
	if (v->probe.content == E4T_FS_PARTTABLE && depth + 1 < MAX_DEPTH &&
	    s->npending < MAX_PENDING)
		s->pending[s->npending++] = idx; /* walked after this table */
	return 0;
}

static errcode_t scan_view(struct scan *s, const struct e4t_view *view,
			   unsigned parent, unsigned depth, const char *prefix)
{
	struct e4t_parttable pt = { 0 };
	errcode_t err;
	unsigned i;

	err = e4t_parttable_read(view, &pt, s->warn, s->arg);
	if (err && err != E4T_ERR_PARTTABLE)
		return err;
	for (i = 0; !err && i < pt.nparts; i++)
		err = scan_part(s, view, &pt, &pt.parts[i], parent, depth,
				prefix);
	e4t_parttable_free(&pt);
	if (err == E4T_ERR_PARTTABLE) {
		s->damaged = 1;
		return 0;
	}
	return err;
}

/* The whole container's table, then the tables found in partitions. */
static errcode_t scan_tables(struct scan *s, const struct e4t_view *whole)
{
	errcode_t err = scan_view(s, whole, 0, 0, "");

	while (!err && s->npending) {
		unsigned idx = s->pending[--s->npending];
		const struct e4t_vol *v = vol(s, idx);
		struct e4t_view view = v->view;
		char name[sizeof(v->name)];

		/* copies: the list may grow under scan_view */
		memcpy(name, v->name, sizeof(name));
		err = scan_view(s, &view, idx, v->depth + 1, name);
	}
	return err;
}

/* The found PV whose label says uuid, or NULL. */
static const struct pv_found *pv_by_uuid(const struct scan *s, const char *uuid)
{
	size_t i;

	for (i = 0; i < s->npvs; i++)
		if (!strcmp(s->pvs[i].lvm.pv_uuid, uuid))
			return &s->pvs[i];
	return NULL;
}

/* The view of a logical volume; *why when it cannot be read. */
static errcode_t lv_view(struct scan *s, const struct pv_found *from,
			 const struct e4t_lvm_lv *lv, struct e4t_view *v,
			 char *why, size_t whysz, unsigned *parent)
{
	const struct e4t_lvm *m = &from->lvm;
	size_t cap = 0;
	unsigned i, j;

	memset(v, 0, sizeof(*v));
	v->c = s->vs->c;
	*parent = from->vol;
	for (i = 0; i < lv->nsegs; i++) {
		const struct e4t_lvm_seg *seg = &lv->segs[i];
		const struct e4t_lvm_pv *mpv = NULL;
		const struct pv_found *pv;
		errcode_t err;

		if (seg->lstart_ext * m->extent_size != v->size) {
			snprintf(why, whysz, "segments leave a gap");
			return 0;
		}
		for (j = 0; j < m->npvs; j++)
			if (seg->pv && !strcmp(m->pvs[j].name, seg->pv))
				mpv = &m->pvs[j];
		pv = mpv && mpv->uuid ? pv_by_uuid(s, mpv->uuid) : NULL;
		if (!pv) {
			snprintf(why, whysz,
				 "segment %u is on PV %s, not in this image",
				 i + 1,
				 mpv && mpv->uuid ? mpv->uuid
						  : (seg->pv ? seg->pv : "?"));
			return 0;
		}
		if (i == 0)
			*parent = pv->vol;
		err = e4t_view_append(v, &cap, &pv->view,
				      mpv->pe_start + seg->pv_start_ext *
							      m->extent_size,
				      seg->extents * m->extent_size);
		if (err == E4T_ERR_OFFSET) {
			snprintf(why, whysz,
				 "segment %u lies beyond the end of its PV",
				 i + 1);
			return 0;
		}
		if (err) {
			e4t_view_free(v);
			return err;
		}
	}
	e4t_view_collapse(v);
	return 0;
}

static int seen_vg(const struct scan *s, size_t upto, const char *vg_uuid)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (s->pvs[i].lvm.vg_uuid &&
		    !strcmp(s->pvs[i].lvm.vg_uuid, vg_uuid))
			return 1;
	return 0;
}

/* Each VG once (the metadata with the highest seqno), each LV a volume. */
static errcode_t assemble_lvs(struct scan *s)
{
	size_t i, k;

	for (i = 0; i < s->npvs; i++) {
		const struct pv_found *best = &s->pvs[i];
		unsigned l;

		if (!best->lvm.vg_uuid || seen_vg(s, i, best->lvm.vg_uuid))
			continue;
		for (k = i + 1; k < s->npvs; k++)
			if (s->pvs[k].lvm.vg_uuid &&
			    !strcmp(s->pvs[k].lvm.vg_uuid, best->lvm.vg_uuid) &&
			    s->pvs[k].lvm.seqno > best->lvm.seqno)
				best = &s->pvs[k];
		for (l = 0; l < best->lvm.nlvs; l++) {
			const struct e4t_lvm_lv *lv = &best->lvm.lvs[l];
			char why[200] = "";
			struct e4t_view view;
			struct e4t_vol *v;
			unsigned idx, parent;
			errcode_t err;

			err = lv_view(s, best, lv, &view, why, sizeof(why),
				      &parent);
			if (err)
				return err;
			err = add_vol(s, parent, vol(s, parent)->depth + 1,
				      "LVM2", &idx);
			if (err) {
				e4t_view_free(&view);
				return err;
			}
			v = vol(s, idx);
			v->view = view;
			snprintf(v->name, sizeof(v->name), "%s/%s",
				 best->lvm.vg_name, lv->name);
			snprintf(v->lv_uuid, sizeof(v->lv_uuid), "%s",
				 lv->uuid ? lv->uuid : "");
			snprintf(v->type, sizeof(v->type), "LV, %u segment%s",
				 lv->nsegs, lv->nsegs == 1 ? "" : "s");
			if (lv->refused || why[0]) {
				v->refused =
					strdup(lv->refused ? lv->refused : why);
				if (!v->refused)
					return ENOMEM;
				continue;
			}
			err = e4t_probe(&v->view, &v->probe);
			if (err)
				return err;
		}
	}
	return 0;
}

errcode_t e4t_volumes_scan(struct e4t_container *c, struct e4t_volumes *out,
			   e4t_cwarn warn, void *arg)
{
	struct e4t_view whole = { c, c->size, 0, 0, NULL };
	struct scan s = { .vs = out, .warn = warn, .arg = arg };
	errcode_t err;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->c = c;
	err = scan_tables(&s, &whole);
	if (!err && out->n == 0) { /* no partition table: the whole disk */
		unsigned idx;

		err = add_vol(&s, 0, 0, "disk", &idx);
		if (!err) {
			struct e4t_vol *v = vol(&s, idx);

			snprintf(v->name, sizeof(v->name), "disk");
			snprintf(v->type, sizeof(v->type), "whole image");
			v->view = whole;
			err = e4t_probe(&v->view, &v->probe);
			if (!err && s.damaged) {
				v->refused =
					strdup("its partition table is "
					       "damaged (see the warnings)");
				if (!v->refused)
					err = ENOMEM;
			}
			if (!err && v->probe.content == E4T_FS_LVM_PV)
				err = found_pv(&s, idx);
		}
	}
	if (!err)
		err = assemble_lvs(&s);
	for (i = 0; i < s.npvs; i++)
		e4t_lvm_free(&s.pvs[i].lvm);
	free(s.pvs);
	if (err)
		e4t_volumes_free(out);
	return err;
}

int e4t_vol_is_ext(const struct e4t_vol *v)
{
	return !v->refused && v->probe.content == E4T_FS_EXT;
}

static int names(const struct e4t_vol *v, const char *spec)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(spec, &end, 10);
	if (!errno && !*end && end != spec)
		return n == v->index;
	if (!strcmp(spec, v->name))
		return 1;
	if (v->part_name[0] && !strcmp(spec, v->part_name))
		return 1;
	if (v->part_uuid[0] && !strcasecmp(spec, v->part_uuid))
		return 1;
	return v->lv_uuid[0] && !strcmp(spec, v->lv_uuid);
}

errcode_t e4t_volumes_pick(const struct e4t_volumes *vs, const char *spec,
			   const struct e4t_vol **ret)
{
	const struct e4t_vol *pick = NULL;
	unsigned i, count = 0;

	*ret = NULL;
	for (i = 0; i < vs->n; i++) {
		const struct e4t_vol *v = &vs->v[i];

		if (spec ? names(v, spec) : e4t_vol_is_ext(v)) {
			if (!pick)
				pick = v;
			count++;
		}
	}
	if (!spec && count > 1)
		return E4T_ERR_VOLUME_CHOICE;
	if (!pick)
		return spec ? E4T_ERR_NO_VOLUME : E4T_ERR_NO_EXT_VOLUME;
	*ret = pick;
	if (pick->refused)
		return E4T_ERR_VOLUME_REFUSED;
	if (!e4t_vol_is_ext(pick))
		return E4T_ERR_VOLUME_NOT_EXT;
	return 0;
}

void e4t_volumes_free(struct e4t_volumes *vs)
{
	unsigned i;

	for (i = 0; i < vs->n; i++) {
		e4t_view_free(&vs->v[i].view);
		free(vs->v[i].refused);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}
