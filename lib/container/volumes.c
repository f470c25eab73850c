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

/* The LVM2 reader's warnings, held until it is known whether the PV
 * can be read: passed on then, or the last one said as why not. */
struct held {
	char msg[8][200];
	unsigned n, all;
};

static void hold(void *arg, const char *msg)
{
	struct held *h = arg;

	snprintf(h->msg[h->n < 8 ? h->n : 7], sizeof(h->msg[0]), "%s", msg);
	if (h->n < 8)
		h->n++;
	h->all++;
}

static errcode_t found_pv(struct scan *s, unsigned idx)
{
	struct e4t_vol *v = vol(s, idx);
	struct held *h;
	struct pv_found *pv;
	int found = 0;
	unsigned i;
	errcode_t err;

	err = e4t_grow(&s->pvs, &s->pvcap, s->npvs + 1, sizeof(*s->pvs), 4);
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ENOMEM;
	pv = &s->pvs[s->npvs];
	memset(pv, 0, sizeof(*pv));
	err = e4t_lvm_read(&v->view, &pv->lvm, &found, hold, h);
	if (err == E4T_ERR_LVM || (!err && !found)) {
		/* one line: the PV, and the reason that stopped the read */
		snprintf(v->type, sizeof(v->type), "LVM2 PV");
		e4t_cwarnf(s->warn, s->arg,
			   "%s: LVM2 physical volume %s: its metadata cannot "
			   "be read (%s): its logical volumes are not listed",
			   v->name, pv->lvm.pv_uuid[0] ? pv->lvm.pv_uuid : "?",
			   h->n ? h->msg[h->n - 1] : "no LVM2 label");
		v->refused = malloc(sizeof(h->msg[0]) + 64);
		if (v->refused)
			snprintf(v->refused, sizeof(h->msg[0]) + 64,
				 "LVM2 metadata cannot be read: %s",
				 h->n ? h->msg[h->n - 1] : "no LVM2 label");
		e4t_lvm_free(&pv->lvm);
		free(h);
		s->vs->bad_pvs++;
		return v->refused ? 0 : ENOMEM;
	}
	for (i = 0; i < h->n; i++) /* a PV read despite them */
		e4t_cwarnf(s->warn, s->arg, "%s", h->msg[i]);
	if (h->all > h->n)
		e4t_cwarnf(s->warn, s->arg, "(%u more LVM2 warnings)",
			   h->all - h->n);
	free(h);
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

static const struct e4t_lvm_lv *lv_named(const struct e4t_lvm *m,
					 const char *name)
{
	unsigned i;

	for (i = 0; i < m->nlvs; i++)
		if (!strcmp(m->lvs[i].name, name))
			return &m->lvs[i];
	return NULL;
}

/* The snapshot segment whose copy-on-write store is the LV name. */
static const struct e4t_lvm_seg *snapshot_of(const struct e4t_lvm *m,
					     const char *name)
{
	unsigned i, j;

	for (i = 0; i < m->nlvs; i++)
		for (j = 0; j < m->lvs[i].nsegs; j++) {
			const struct e4t_lvm_seg *g = &m->lvs[i].segs[j];

			if (g->cow && g->origin && !strcmp(g->cow, name))
				return g;
		}
	return NULL;
}

/*
 * A raid1 or mirror LV of one segment: the first of its legs that can
 * be read, each leg a full copy (a mirror's copy may start inside its
 * image LV), in v->view and said in v->note; else why says why not.
 */
static errcode_t read_leg(struct scan *s, const struct pv_found *from,
			  const struct e4t_lvm_lv *lv, struct e4t_vol *v,
			  char *why, size_t whysz)
{
	const struct e4t_lvm *m = &from->lvm;
	const struct e4t_lvm_seg *seg = &lv->segs[0];
	uint64_t es = m->extent_size, size = lv->extents * es;
	unsigned k, parent;
	errcode_t err;

	for (k = 0; k < seg->nlegs; k++) {
		const struct e4t_lvm_lv *leg = lv_named(m, seg->legs[k]);
		char lwhy[200] = "";
		struct e4t_view lv_v;
		uint64_t off = seg->leg_ext[k] * es;

		if (!leg || !leg->mapped) {
			if (!why[0])
				snprintf(why, whysz, "%s LV: leg %s %s",
					 seg->type, seg->legs[k],
					 leg ? leg->refused
					     : "is not in the metadata");
			continue;
		}
		err = lv_view(s, from, leg, &lv_v, lwhy, sizeof(lwhy), &parent);
		if (err)
			return err;
		if (!lwhy[0] && (seg->leg_ext[k] > UINT64_MAX / es ||
				 off > lv_v.size || size > lv_v.size - off))
			snprintf(lwhy, sizeof(lwhy), "is shorter than the LV");
		if (lwhy[0]) {
			e4t_view_free(&lv_v);
			if (!why[0])
				snprintf(why, whysz, "%s LV: leg %s %s",
					 seg->type, leg->name, lwhy);
			continue;
		}
		err = e4t_view_sub(&lv_v, off, size, &v->view);
		e4t_view_free(&lv_v);
		if (err)
			return err;
		v->parent = (int)parent;
		v->depth = vol(s, parent)->depth + 1;
		snprintf(v->note, sizeof(v->note),
			 "%s: read from leg %u of %u, %s/%s (each leg is a "
			 "full copy)",
			 seg->type, k + 1, seg->nlegs, m->vg_name, leg->name);
		why[0] = '\0';
		return 0;
	}
	if (!why[0])
		snprintf(why, whysz, "%s LV: no leg to read", seg->type);
	return 0;
}

/* What an LV e4time cannot map is: its type, why, its legs read. */
static errcode_t unmapped_lv(struct scan *s, const struct pv_found *from,
			     const struct e4t_lvm_lv *lv, struct e4t_vol *v,
			     char *why, size_t whysz)
{
	const struct e4t_lvm *m = &from->lvm;
	const struct e4t_lvm_seg *g = lv->nsegs ? &lv->segs[0] : NULL;

	if (!g)
		return 0;
	snprintf(v->type, sizeof(v->type), "%s LV%s", g->type,
		 lv->nsegs > 1 ? ", several segments" : "");
	if (g->origin && g->cow) {
		snprintf(v->type, sizeof(v->type), "snapshot (internal)");
		snprintf(why, whysz,
			 "lvm2's record of the snapshot %s/%s of %s/%s: read "
			 "the origin",
			 m->vg_name, g->cow, m->vg_name, g->origin);
		return 0;
	}
	if (g->nlegs && lv->nsegs == 1 && !lv->hidden &&
	    g->extents == lv->extents && !g->lstart_ext) {
		snprintf(v->type, sizeof(v->type), "%s LV, %u legs", g->type,
			 g->nlegs);
		why[0] = '\0';
		return read_leg(s, from, lv, v, why, whysz);
	}
	return 0;
}

/* One LV of the VG from's metadata describes, as a new volume. */
static errcode_t add_lv(struct scan *s, const struct pv_found *from,
			const struct e4t_lvm_lv *lv)
{
	const struct e4t_lvm *m = &from->lvm;
	const struct e4t_lvm_seg *snap = snapshot_of(m, lv->name);
	struct e4t_vol tmp, *v;
	char why[200] = "";
	unsigned idx, parent = from->vol;
	errcode_t err = 0;

	memset(&tmp, 0, sizeof(tmp));
	tmp.view.c = s->vs->c;
	tmp.parent = (int)from->vol;
	tmp.depth = vol(s, from->vol)->depth + 1;
	snprintf(tmp.type, sizeof(tmp.type), "LV, %u segment%s", lv->nsegs,
		 lv->nsegs == 1 ? "" : "s");
	if (lv->mapped) {
		err = lv_view(s, from, lv, &tmp.view, why, sizeof(why),
			      &parent);
		tmp.parent = (int)parent;
		tmp.depth = vol(s, parent)->depth + 1;
		if (!why[0] && lv->refused)
			snprintf(why, sizeof(why), "%s", lv->refused);
	} else {
		snprintf(why, sizeof(why), "%s",
			 lv->refused ? lv->refused : "not mapped");
		err = unmapped_lv(s, from, lv, &tmp, why, sizeof(why));
	}
	if (!err && snap) {
		snprintf(tmp.type, sizeof(tmp.type), "snapshot of %s/%s",
			 m->vg_name, snap->origin);
		snprintf(why, sizeof(why),
			 "snapshot of %s/%s: this LV is its copy-on-write "
			 "store (the chunks changed since), not a "
			 "filesystem: read the origin, %s/%s, for the "
			 "filesystem as it is now",
			 m->vg_name, snap->origin, m->vg_name, snap->origin);
	}
	if (!err)
		err = add_vol(s, (unsigned)tmp.parent, tmp.depth, "LVM2", &idx);
	if (err) {
		e4t_view_free(&tmp.view);
		return err;
	}
	v = vol(s, idx);
	tmp.index = v->index;
	tmp.scheme = v->scheme;
	*v = tmp;
	snprintf(v->name, sizeof(v->name), "%s/%s", m->vg_name, lv->name);
	snprintf(v->lv_uuid, sizeof(v->lv_uuid), "%s",
		 lv->uuid ? lv->uuid : "");
	v->start = v->view.next ? v->view.ext[0].pstart : v->view.base;
	v->length = v->view.size;
	if (why[0]) {
		/* the size the metadata gives */
		if (lv->extents <= UINT64_MAX / m->extent_size)
			v->length = lv->extents * m->extent_size;
		if (!v->view.size)
			v->start = 0;
		e4t_view_free(&v->view);
		v->view.c = s->vs->c;
		v->refused = strdup(why);
		return v->refused ? 0 : ENOMEM;
	}
	return e4t_probe(&v->view, &v->probe);
}

/* Each VG once (the metadata with the highest seqno), each LV a volume. */
static errcode_t assemble_lvs(struct scan *s)
{
	size_t i, k;

	for (i = 0; i < s->npvs; i++) {
		const struct pv_found *best = &s->pvs[i];
		unsigned l;
		errcode_t err;

		if (!best->lvm.vg_uuid || seen_vg(s, i, best->lvm.vg_uuid))
			continue;
		for (k = i + 1; k < s->npvs; k++)
			if (s->pvs[k].lvm.vg_uuid &&
			    !strcmp(s->pvs[k].lvm.vg_uuid, best->lvm.vg_uuid) &&
			    s->pvs[k].lvm.seqno > best->lvm.seqno)
				best = &s->pvs[k];
		for (l = 0; l < best->lvm.nlvs; l++) {
			err = add_lv(s, best, &best->lvm.lvs[l]);
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
	for (i = 0; !err && i < out->n; i++) {
		struct e4t_vol *v = &out->v[i];

		if (!v->length && !v->start) { /* as it lies in the image */
			v->start = v->view.next ? v->view.ext[0].pstart
						: v->view.base;
			v->length = v->view.size;
		}
	}
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
	if (count > 1) { /* a name two volumes bear: never the first */
		*ret = pick;
		return spec ? E4T_ERR_VOLUME_AMBIGUOUS : E4T_ERR_VOLUME_CHOICE;
	}
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
