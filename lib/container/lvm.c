/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.c --- LVM2 physical volumes: the label, the PV header, the text
 * metadata of the volume group (lvm2's lib/label/label.c,
 * lib/format_text/layout.h, format-text.c and lib/config/config.c).
 *
 *   label      "LABELONE" at the start of one of sectors 0..3:
 *              id[8] sector_xl u64, crc_xl u32 (bytes 20..511 of the
 *              sector), offset_xl u32 (of the PV header in the sector),
 *              type[8] "LVM2 001"
 *   pv_header  pv_uuid[32], device_size_xl u64 (bytes), the data areas
 *              and then the metadata areas as disk_locn {offset u64,
 *              size u64} lists, each ending with a zero entry
 *   mda        at a metadata area's start: mda_header (512 bytes):
 *              checksum_xl u32 (bytes 4..511), magic[16], version u32,
 *              start u64, size u64, raw_locn {offset u64, size u64,
 *              checksum u32, flags u32} list; the first raw_locn is the
 *              current metadata text, offset from the area's start, a
 *              circular buffer that continues after the header when
 *              it wraps
 *   text       "vg0 { id = ... physical_volumes { ... }
 *              logical_volumes { ... } }" and, outside the section,
 *              contents, version, description, creation_host/time
 *
 * Checksums are lvm2's calc_crc() (lib/misc/crc.c): CRC-32 (reflected,
 * polynomial 0xedb88320) from 0xf597a6cf, without the final inversion.
 *
 * What is read: the first metadata area whose header verifies and whose
 * text checksum matches (else the first readable one, with a warning).
 * A PV with no metadata area, or one not in a volume group (an orphan),
 * is found with vg_name NULL and no LVs.  An LV e4time cannot map onto
 * the PV's extents is kept with refused set: a segment that is not
 * "striped" with one stripe, an internal LV (status without VISIBLE:
 * thin pool metadata, raid images, snapshot stores), segments that do
 * not tile the LV from extent 0, a segment on a PV the metadata does
 * not list or beyond its pe_count.  Text that does not parse, or lacks
 * what every VG has (id, seqno, extent_size, the PVs' fields and the
 * segments' extents), is E4T_ERR_LVM, with what and the line in a
 * warning.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#define SECTOR		 512
#define LABEL_SCAN	 4 /* sectors */
#define INITIAL_CRC	 0xf597a6cfU
#define MDA_HEADER_SIZE	 512
#define MDA_MAGIC	 " LVM2 x[5A%r0N*>"
#define RAW_LOCN_IGNORED 0x1
#define TEXT_MAX	 (16U << 20) /* bytes of metadata text */
#define DEPTH_MAX	 32
#define ENTRIES_MAX	 (1U << 20)
#define UUID_LEN	 32

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

static uint32_t lvm_crc(uint32_t crc, const void *buf, size_t len)
{
	static const uint32_t tab[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	const unsigned char *p = buf;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ tab[crc & 0xf];
		crc = (crc >> 4) ^ tab[crc & 0xf];
	}
	return crc;
}

/* ------------------------------------------------------------------ */
/* The text format: a tree of sections and values                      */
/* ------------------------------------------------------------------ */

enum cv_kind {
	CV_STR,
	CV_INT,
	CV_REAL, /* a number with a fraction: kept, never used */
};

struct cval {
	enum cv_kind kind;
	int64_t i;
	char *s; /* CV_STR */
};

struct cnode {
	char *key;
	unsigned line;
	int section;	     /* key { ... } */
	struct cnode *child; /* its entries, in order */
	struct cnode *next;
	int array; /* key = [ ... ] */
	size_t nv, cap;
	struct cval *v;
};

struct cparse {
	const char *p, *end;
	unsigned line;
	size_t entries;
	char err[200];
	unsigned err_line;
};

/* Without recursion: a node's children go in front of its siblings. */
static void cnode_free(struct cnode *n)
{
	while (n) {
		struct cnode *next, *last;
		size_t i;

		if (n->child) {
			for (last = n->child; last->next; last = last->next)
				;
			last->next = n->next;
			n->next = n->child;
			n->child = NULL;
		}
		next = n->next;
		for (i = 0; i < n->nv; i++)
			free(n->v[i].s);
		free(n->v);
		free(n->key);
		free(n);
		n = next;
	}
}

__attribute__((format(printf, 2, 3))) static int cerr(struct cparse *ps,
						      const char *fmt, ...)
{
	va_list ap;

	if (ps->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->err, sizeof(ps->err), fmt, ap);
	va_end(ap);
	ps->err_line = ps->line;
	return -1;
}

static void cskip(struct cparse *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '\n') {
			ps->line++;
			ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			ps->p++;
		} else if (c == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else {
			break;
		}
	}
}

static int is_ident(char c)
{
	return c && !strchr(" \t\r\n\f\v{}[]=,\"#", c);
}

static int cstring(struct cparse *ps, char **out)
{
	const char *q;
	size_t n = 0;
	char *s;

	ps->p++; /* the opening quote */
	for (q = ps->p; q < ps->end && *q != '"'; q++) {
		if (*q == '\\' && q + 1 < ps->end)
			q++;
		n++;
	}
	if (q >= ps->end)
		return cerr(ps, "a string does not end");
	s = malloc(n + 1);
	if (!s)
		return cerr(ps, "out of memory");
	n = 0;
	while (*ps->p != '"') {
		if (*ps->p == '\\')
			ps->p++;
		if (*ps->p == '\n')
			ps->line++;
		s[n++] = *ps->p++;
	}
	s[n] = '\0';
	ps->p++; /* the closing quote */
	*out = s;
	return 0;
}

static int cscalar(struct cparse *ps, struct cnode *n)
{
	struct cval v = { CV_INT, 0, NULL };
	size_t cap = n->cap;

	if (ps->p >= ps->end)
		return cerr(ps, "'%s' has no value", n->key);
	if (*ps->p == '"') {
		if (cstring(ps, &v.s))
			return -1;
		v.kind = CV_STR;
	} else {
		uint64_t u = 0;
		int neg = 0, digits = 0;

		if (*ps->p == '-' || *ps->p == '+')
			neg = *ps->p++ == '-';
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
			unsigned d = (unsigned)(*ps->p++ - '0');

			if (u > ((uint64_t)INT64_MAX - d) / 10)
				return cerr(ps, "'%s': number too large",
					    n->key);
			u = u * 10 + d;
			digits++;
		}
		if (!digits)
			return cerr(ps, "'%s': not a value", n->key);
		if (ps->p < ps->end && *ps->p == '.') {
			ps->p++;
			while (ps->p < ps->end && *ps->p >= '0' &&
			       *ps->p <= '9')
				ps->p++;
			v.kind = CV_REAL;
		}
		if (ps->p < ps->end && is_ident(*ps->p))
			return cerr(ps, "'%s': not a number", n->key);
		v.i = neg ? -(int64_t)u : (int64_t)u;
	}
	if (e4t_grow(&n->v, &cap, n->nv + 1, sizeof(*n->v), 2)) {
		free(v.s);
		return cerr(ps, "out of memory");
	}
	n->cap = cap;
	n->v[n->nv++] = v;
	return 0;
}

static int cvalue(struct cparse *ps, struct cnode *n)
{
	cskip(ps);
	if (ps->p >= ps->end || *ps->p != '[')
		return cscalar(ps, n);
	n->array = 1;
	ps->p++;
	for (;;) {
		cskip(ps);
		if (ps->p < ps->end && *ps->p == ']' && !n->nv)
			break;
		if (cscalar(ps, n))
			return -1;
		cskip(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']')
			break;
		return cerr(ps, "'%s': expected ',' or ']' in the list",
			    n->key);
	}
	ps->p++;
	return 0;
}

/* Every entry, sections holding theirs: tail[d] is where the next entry
 * of the section open at depth d goes. */
static int centries(struct cparse *ps, struct cnode **head)
{
	struct cnode **tail[DEPTH_MAX + 1];
	const char *what[DEPTH_MAX + 1];
	unsigned depth = 0;

	tail[0] = head;
	what[0] = "(top)";
	for (;;) {
		struct cnode *n;
		const char *k;

		cskip(ps);
		if (ps->p >= ps->end) {
			if (depth)
				return cerr(ps, "section '%s' does not end",
					    what[depth]);
			return 0;
		}
		if (*ps->p == '}') {
			if (!depth)
				return cerr(ps, "a '}' closes no section");
			ps->p++;
			depth--;
			continue;
		}
		if (!is_ident(*ps->p))
			return cerr(ps, "unexpected '%c' in section '%s'",
				    *ps->p >= ' ' && *ps->p < 127 ? *ps->p
								  : '?',
				    what[depth]);
		if (++ps->entries > ENTRIES_MAX)
			return cerr(ps, "more than %u entries", ENTRIES_MAX);
		n = calloc(1, sizeof(*n));
		if (!n)
			return cerr(ps, "out of memory");
		*tail[depth] = n;
		tail[depth] = &n->next;
		n->line = ps->line;
		for (k = ps->p; ps->p < ps->end && is_ident(*ps->p); ps->p++)
			;
		n->key = strndup(k, (size_t)(ps->p - k));
		if (!n->key)
			return cerr(ps, "out of memory");
		cskip(ps);
		if (ps->p < ps->end && *ps->p == '{') {
			ps->p++;
			n->section = 1;
			if (depth + 1 > DEPTH_MAX)
				return cerr(ps,
					    "sections nested deeper than %d",
					    DEPTH_MAX);
			depth++;
			tail[depth] = &n->child;
			what[depth] = n->key;
		} else if (ps->p < ps->end && *ps->p == '=') {
			ps->p++;
			if (cvalue(ps, n))
				return -1;
		} else {
			return cerr(ps, "expected '=' or '{' after '%s'",
				    n->key);
		}
	}
}

static struct cnode *cfind(const struct cnode *sec, const char *key)
{
	const struct cnode *n;

	for (n = sec->child; n; n = n->next)
		if (!strcmp(n->key, key))
			return (struct cnode *)n;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* From the tree to struct e4t_lvm                                     */
/* ------------------------------------------------------------------ */

struct vgparse {
	e4t_cwarn warn;
	void *arg;
};

/* A required value of sec: E4T_ERR_LVM, with a warning, when missing. */
static errcode_t need(const struct vgparse *vp, const struct cnode *sec,
		      const char *key, enum cv_kind kind,
		      const struct cval **out)
{
	const struct cnode *n = cfind(sec, key);

	if (!n || n->section || n->array || n->nv != 1 ||
	    n->v[0].kind != kind) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata, line %u: section '%s' %s '%s' %s",
			   n ? n->line : sec->line, sec->key,
			   n ? "has" : "lacks", key,
			   kind == CV_STR ? "as a string" : "as a number");
		return E4T_ERR_LVM;
	}
	*out = &n->v[0];
	return 0;
}

static errcode_t need_count(const struct vgparse *vp, const struct cnode *sec,
			    const char *key, uint64_t *out)
{
	const struct cval *v;
	errcode_t err = need(vp, sec, key, CV_INT, &v);

	if (err)
		return err;
	if (v->i < 0) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata, section '%s': '%s' is negative",
			   sec->key, key);
		return E4T_ERR_LVM;
	}
	*out = (uint64_t)v->i;
	return 0;
}

static errcode_t need_str(const struct vgparse *vp, const struct cnode *sec,
			  const char *key, char **out)
{
	const struct cval *v;
	errcode_t err = need(vp, sec, key, CV_STR, &v);

	if (err)
		return err;
	*out = strdup(v->s);
	return *out ? 0 : ENOMEM;
}

static errcode_t refuse(struct e4t_lvm_lv *lv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first reason stands. */
static errcode_t refuse(struct e4t_lvm_lv *lv, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (lv->refused)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lv->refused = strdup(msg);
	return lv->refused ? 0 : ENOMEM;
}

static errcode_t parse_pvs(const struct vgparse *vp, const struct cnode *vg,
			   struct e4t_lvm *out)
{
	const struct cnode *sec = cfind(vg, "physical_volumes"), *n;
	size_t cap = 0;
	errcode_t err;

	if (!sec || !sec->section) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata, line %u: volume group '%s' has no "
			   "physical_volumes section",
			   vg->line, vg->key);
		return E4T_ERR_LVM;
	}
	for (n = sec->child; n; n = n->next) {
		struct e4t_lvm_pv *pv;
		uint64_t dev_size;

		if (!n->section)
			continue;
		err = e4t_grow(&out->pvs, &cap, out->npvs + 1,
			       sizeof(*out->pvs), 4);
		if (err)
			return err;
		pv = &out->pvs[out->npvs++];
		memset(pv, 0, sizeof(*pv));
		pv->name = strdup(n->key);
		if (!pv->name)
			return ENOMEM;
		err = need_str(vp, n, "id", &pv->uuid);
		if (!err)
			err = need_count(vp, n, "pe_start", &pv->pe_start);
		if (!err)
			err = need_count(vp, n, "pe_count", &pv->pe_count);
		if (!err && cfind(n, "dev_size"))
			err = need_count(vp, n, "dev_size", &dev_size);
		if (err)
			return err;
		if (pv->pe_start > UINT64_MAX / SECTOR) {
			e4t_cwarnf(
				vp->warn, vp->arg,
				"LVM2 metadata, line %u: %s: pe_start %" PRIu64
				" sectors is impossible",
				n->line, n->key, pv->pe_start);
			return E4T_ERR_LVM;
		}
		pv->pe_start *= SECTOR;
	}
	return 0;
}

static const struct e4t_lvm_pv *find_pv(const struct e4t_lvm *lvm,
					const char *name)
{
	unsigned i;

	for (i = 0; i < lvm->npvs; i++)
		if (!strcmp(lvm->pvs[i].name, name))
			return &lvm->pvs[i];
	return NULL;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct e4t_lvm_seg *x = a, *y = b;

	return x->lstart_ext < y->lstart_ext   ? -1
	       : x->lstart_ext > y->lstart_ext ? 1
					       : 0;
}

/* An optional string value of sec: *out stays NULL when it lacks one. */
static errcode_t opt_str(const struct cnode *sec, const char *key, char **out)
{
	const struct cnode *n = cfind(sec, key);

	if (!n || n->section || n->array || n->nv != 1 ||
	    n->v[0].kind != CV_STR)
		return 0;
	*out = strdup(n->v[0].s);
	return *out ? 0 : ENOMEM;
}

/*
 * What a segment e4time does not map names: a raid1's legs (raids =
 * [rmeta, rimage, ...] pairs, or the images alone), a mirror's
 * (mirrors = [image, extent, ...]), a snapshot's origin and store.  What
 * does not have the expected shape is left out: the LV stays refused.
 */
static errcode_t seg_links(const struct cnode *n, struct e4t_lvm_seg *seg)
{
	const struct cnode *l = NULL;
	unsigned i, step = 1, first = 0, count;
	int mirror = !strcmp(seg->type, "mirror");

	if (!strcmp(seg->type, "snapshot")) {
		errcode_t err = opt_str(n, "origin", &seg->origin);

		return err ? err : opt_str(n, "cow_store", &seg->cow);
	}
	if (mirror)
		l = cfind(n, "mirrors");
	else if (!strcmp(seg->type, "raid1"))
		l = cfind(n, "raids");
	if (!l || !l->array || !l->nv)
		return 0;
	if (mirror) {
		if (l->nv % 2)
			return 0;
		step = 2;
	} else {
		const struct cnode *dc = cfind(n, "device_count");

		if (!dc || dc->array || dc->nv != 1 ||
		    dc->v[0].kind != CV_INT || dc->v[0].i <= 0)
			return 0;
		if ((uint64_t)dc->v[0].i * 2 == l->nv) {
			step = 2;
			first = 1; /* rmeta, rimage pairs */
		} else if ((uint64_t)dc->v[0].i != l->nv) {
			return 0;
		}
	}
	count = (unsigned)(l->nv / step);
	seg->legs = calloc(count, sizeof(*seg->legs));
	seg->leg_ext = calloc(count, sizeof(*seg->leg_ext));
	if (!seg->legs || !seg->leg_ext)
		return ENOMEM;
	for (i = first; i < l->nv; i += step) {
		const struct cval *name = &l->v[i];

		if (name->kind != CV_STR || !name->s[0] ||
		    (mirror &&
		     (l->v[i + 1].kind != CV_INT || l->v[i + 1].i < 0))) {
			while (seg->nlegs) /* no legs rather than some */
				free(seg->legs[--seg->nlegs]);
			return 0;
		}
		if (mirror)
			seg->leg_ext[seg->nlegs] = (uint64_t)l->v[i + 1].i;
		seg->legs[seg->nlegs] = strdup(name->s);
		if (!seg->legs[seg->nlegs])
			return ENOMEM;
		seg->nlegs++;
	}
	return 0;
}

static errcode_t parse_seg(const struct vgparse *vp, const struct cnode *n,
			   const struct e4t_lvm *lvm, struct e4t_lvm_lv *lv,
			   struct e4t_lvm_seg *seg)
{
	const struct cnode *stripes;
	const struct e4t_lvm_pv *pv;
	uint64_t count = 0;
	errcode_t err;

	err = need_count(vp, n, "start_extent", &seg->lstart_ext);
	if (!err)
		err = need_count(vp, n, "extent_count", &seg->extents);
	if (!err)
		err = need_str(vp, n, "type", &seg->type);
	if (err)
		return err;
	if (strcmp(seg->type, "striped")) {
		err = seg_links(n, seg);
		if (err)
			return err;
		return refuse(lv, "%s LV: e4time reads linear LVs only",
			      seg->type);
	}
	err = need_count(vp, n, "stripe_count", &count);
	if (err)
		return err;
	stripes = cfind(n, "stripes");
	if (!count || count > UINT32_MAX || !stripes || !stripes->array ||
	    stripes->nv != 2 * count) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata, line %u: LV '%s' %s: stripes do not "
			   "match stripe_count %" PRIu64,
			   stripes ? stripes->line : n->line, lv->name, n->key,
			   count);
		return E4T_ERR_LVM;
	}
	seg->stripes = (unsigned)count;
	if (stripes->v[0].kind != CV_STR || stripes->v[1].kind != CV_INT ||
	    stripes->v[1].i < 0) {
		e4t_cwarnf(
			vp->warn, vp->arg,
			"LVM2 metadata, line %u: LV '%s' %s: stripes are not "
			"\"pv\", extent pairs",
			stripes->line, lv->name, n->key);
		return E4T_ERR_LVM;
	}
	seg->pv = strdup(stripes->v[0].s);
	if (!seg->pv)
		return ENOMEM;
	seg->pv_start_ext = (uint64_t)stripes->v[1].i;
	if (count > 1)
		return refuse(lv,
			      "striped LV (%u stripes): e4time reads linear "
			      "LVs only",
			      seg->stripes);
	pv = find_pv(lvm, seg->pv);
	if (!pv)
		return refuse(lv,
			      "%s is on %s, which the metadata does not list",
			      n->key, seg->pv);
	if (seg->pv_start_ext > pv->pe_count ||
	    seg->extents > pv->pe_count - seg->pv_start_ext)
		return refuse(
			lv, "%s goes past the end of %s (%" PRIu64 " extents)",
			n->key, seg->pv, pv->pe_count);
	return 0;
}

static errcode_t parse_lv(const struct vgparse *vp, const struct cnode *n,
			  const struct e4t_lvm *lvm, struct e4t_lvm_lv *lv)
{
	const struct cnode *c, *status;
	uint64_t want = 0, next = 0;
	size_t cap = 0, i;
	int visible = 0;
	errcode_t err;

	lv->name = strdup(n->key);
	if (!lv->name)
		return ENOMEM;
	err = need_str(vp, n, "id", &lv->uuid);
	if (!err)
		err = need_count(vp, n, "segment_count", &want);
	if (err)
		return err;
	status = cfind(n, "status");
	for (i = 0; status && i < status->nv; i++)
		if (status->v[i].kind == CV_STR &&
		    !strcmp(status->v[i].s, "VISIBLE"))
			visible = 1;
	for (c = n->child; c; c = c->next) {
		if (!c->section || strncmp(c->key, "segment", 7))
			continue;
		err = e4t_grow(&lv->segs, &cap, lv->nsegs + 1,
			       sizeof(*lv->segs), 2);
		if (err)
			return err;
		memset(&lv->segs[lv->nsegs], 0, sizeof(*lv->segs));
		err = parse_seg(vp, c, lvm, lv, &lv->segs[lv->nsegs++]);
		if (err)
			return err;
	}
	if (lv->nsegs)
		qsort(lv->segs, lv->nsegs, sizeof(*lv->segs), seg_cmp);
	for (i = 0; i < lv->nsegs; i++) /* its size, as the metadata says */
		if (lv->segs[i].extents <= UINT64_MAX - lv->extents)
			lv->extents += lv->segs[i].extents;
	lv->hidden = !visible;
	if (want != lv->nsegs)
		err = refuse(lv,
			     "segment_count is %" PRIu64 ", %u segments found",
			     want, lv->nsegs);
	if (!err && !lv->nsegs)
		err = refuse(lv, "no segments");
	for (i = 0; !err && i < lv->nsegs; i++) {
		const struct e4t_lvm_seg *s = &lv->segs[i];

		if (!s->extents || s->lstart_ext != next)
			err = refuse(
				lv,
				"its segments do not cover extents %" PRIu64
				" on without gaps or overlaps",
				next);
		else if (s->extents > UINT64_MAX - next)
			err = refuse(lv, "its extents overflow");
		else
			next += s->extents;
	}
	lv->mapped = !err && !lv->refused;
	if (!err && !visible)
		err = refuse(lv, "internal LV (its status lacks VISIBLE)");
	return err;
}

static errcode_t parse_vg(const struct vgparse *vp, const struct cnode *top,
			  struct e4t_lvm *out)
{
	const struct cnode *vg, *lvs, *n;
	const struct cval *v;
	size_t cap = 0;
	errcode_t err;

	for (vg = top; vg && !vg->section; vg = vg->next)
		;
	if (!vg) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata: no volume group section");
		return E4T_ERR_LVM;
	}
	out->vg_name = strdup(vg->key);
	if (!out->vg_name)
		return ENOMEM;
	err = need_str(vp, vg, "id", &out->vg_uuid);
	if (!err)
		err = need_count(vp, vg, "seqno", &out->seqno);
	if (!err)
		err = need(vp, vg, "extent_size", CV_INT, &v);
	if (err)
		return err;
	if (v->i <= 0 || (uint64_t)v->i > UINT64_MAX / SECTOR) {
		e4t_cwarnf(vp->warn, vp->arg,
			   "LVM2 metadata: volume group '%s': extent_size "
			   "%" PRId64 " is impossible",
			   vg->key, v->i);
		return E4T_ERR_LVM;
	}
	out->extent_size = (uint64_t)v->i * SECTOR;
	err = parse_pvs(vp, vg, out);
	if (err)
		return err;
	lvs = cfind(vg, "logical_volumes");
	if (!lvs || !lvs->section)
		return 0;
	for (n = lvs->child; n; n = n->next) {
		if (!n->section)
			continue;
		err = e4t_grow(&out->lvs, &cap, out->nlvs + 1,
			       sizeof(*out->lvs), 4);
		if (err)
			return err;
		memset(&out->lvs[out->nlvs], 0, sizeof(*out->lvs));
		err = parse_lv(vp, n, out, &out->lvs[out->nlvs++]);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t parse_text(const char *text, size_t len, struct e4t_lvm *out,
			    e4t_cwarn warn, void *arg)
{
	struct cparse ps;
	struct cnode *top = NULL;
	struct vgparse vp = { warn, arg };
	errcode_t err;

	memset(&ps, 0, sizeof(ps));
	ps.p = text;
	ps.end = text + strnlen(text, len); /* lvm2 ends it with a NUL */
	ps.line = 1;
	if (centries(&ps, &top)) {
		e4t_cwarnf(warn, arg, "LVM2 metadata text, line %u: %s",
			   ps.err_line, ps.err);
		cnode_free(top);
		return strcmp(ps.err, "out of memory") ? E4T_ERR_LVM : ENOMEM;
	}
	err = parse_vg(&vp, top, out);
	cnode_free(top);
	return err;
}

/* ------------------------------------------------------------------ */
/* Label, PV header, metadata areas                                    */
/* ------------------------------------------------------------------ */

/* The label's sector (0..3), or -1. */
static int find_label(const struct e4t_view *v, unsigned char *sec,
		      errcode_t *err)
{
	unsigned i;

	*err = 0;
	for (i = 0; i < LABEL_SCAN; i++) {
		if (v->size < (uint64_t)(i + 1) * SECTOR)
			break;
		*err = e4t_view_read(v, sec, SECTOR, (uint64_t)i * SECTOR);
		if (*err)
			return -1;
		if (!memcmp(sec, "LABELONE", 8) && le64(sec + 8) == i &&
		    !memcmp(sec + 24, "LVM2 001", 8))
			return (int)i;
	}
	return -1;
}

static void format_uuid(const unsigned char *raw, char *out)
{
	static const unsigned groups[] = { 6, 4, 4, 4, 4, 4, 6 };
	unsigned g, i, k = 0;
	char *o = out;

	for (g = 0; g < 7; g++) {
		if (g)
			*o++ = '-';
		for (i = 0; i < groups[g]; i++, k++) {
			if (raw[k] > ' ' && raw[k] < 127)
				*o++ = (char)raw[k];
			else
				*o++ = '?';
		}
	}
	*o = '\0';
}

/* The metadata text of the area at off (bytes), malloc'd in *text:
 * E4T_ERR_LVM when unreadable (warned), with *text NULL and 0 when it
 * holds none (an orphan PV, an ignored area). */
static errcode_t read_mda(const struct e4t_view *v, uint64_t off, uint64_t size,
			  char **text, size_t *len, int *crc_ok, e4t_cwarn warn,
			  void *arg)
{
	unsigned char h[MDA_HEADER_SIZE];
	uint64_t toff, tlen, first, wrapped;
	uint32_t want, crc;
	errcode_t err;
	char *t;

	*text = NULL;
	*len = 0;
	*crc_ok = 0;
	if (size < MDA_HEADER_SIZE || off > v->size || size > v->size - off) {
		e4t_cwarnf(warn, arg,
			   "LVM2 metadata area at byte %" PRIu64 " (%" PRIu64
			   " bytes) is not inside the image",
			   off, size);
		return E4T_ERR_LVM;
	}
	err = e4t_view_read(v, h, sizeof(h), off);
	if (err)
		return err;
	if (memcmp(h + 4, MDA_MAGIC, 16) || le32(h + 20) != 1) {
		e4t_cwarnf(warn, arg,
			   "LVM2 metadata area at byte %" PRIu64
			   ": no mda header (magic or version)",
			   off);
		return E4T_ERR_LVM;
	}
	if (lvm_crc(INITIAL_CRC, h + 4, sizeof(h) - 4) != le32(h))
		e4t_cwarnf(warn, arg,
			   "LVM2 metadata area at byte %" PRIu64
			   ": header checksum does not verify",
			   off);
	if (le64(h + 24) != off)
		e4t_cwarnf(warn, arg,
			   "LVM2 metadata area at byte %" PRIu64
			   ": its header says it starts at %" PRIu64,
			   off, le64(h + 24));
	toff = le64(h + 40);
	tlen = le64(h + 48);
	want = le32(h + 56);
	if (!toff && !tlen)
		return 0; /* not in a volume group */
	if (le32(h + 60) & RAW_LOCN_IGNORED)
		return 0;
	if (toff < MDA_HEADER_SIZE || toff >= size ||
	    tlen > size - MDA_HEADER_SIZE || tlen > TEXT_MAX || !tlen) {
		e4t_cwarnf(warn, arg,
			   "LVM2 metadata area at byte %" PRIu64
			   ": text of %" PRIu64 " bytes at %" PRIu64
			   " does not fit in its %" PRIu64 " bytes",
			   off, tlen, toff, size);
		return E4T_ERR_LVM;
	}
	t = malloc(tlen + 1);
	if (!t)
		return ENOMEM;
	first = tlen;
	wrapped = 0;
	if (first > size - toff) { /* round the circular buffer */
		first = size - toff;
		wrapped = tlen - first;
	}
	err = e4t_view_read(v, t, first, off + toff);
	if (!err && wrapped)
		err = e4t_view_read(v, t + first, wrapped,
				    off + MDA_HEADER_SIZE);
	if (err) {
		free(t);
		return err;
	}
	t[tlen] = '\0';
	crc = lvm_crc(INITIAL_CRC, t, tlen);
	*crc_ok = crc == want;
	*text = t;
	*len = tlen;
	return 0;
}

errcode_t e4t_lvm_read(const struct e4t_view *v, struct e4t_lvm *out,
		       int *found, e4t_cwarn warn, void *arg)
{
	unsigned char sec[SECTOR];
	const unsigned char *p, *end;
	char *best = NULL;
	size_t best_len = 0;
	int best_ok = 0, at, nmda = 0, nread = 0;
	unsigned list;
	errcode_t err;
	uint32_t hoff;

	memset(out, 0, sizeof(*out));
	*found = 0;
	at = find_label(v, sec, &err);
	if (at < 0)
		return err;
	*found = 1;
	if (lvm_crc(INITIAL_CRC, sec + 20, SECTOR - 20) != le32(sec + 16))
		e4t_cwarnf(warn, arg,
			   "LVM2 label in sector %d: checksum does not verify",
			   at);
	hoff = le32(sec + 20);
	if (hoff < 32 || hoff > SECTOR - UUID_LEN - 8) {
		e4t_cwarnf(warn, arg,
			   "LVM2 label in sector %d: PV header at %" PRIu32
			   " is outside the sector",
			   at, hoff);
		return E4T_ERR_LVM;
	}
	p = sec + hoff;
	end = sec + SECTOR;
	format_uuid(p, out->pv_uuid);
	out->pv_size = le64(p + UUID_LEN);
	p += UUID_LEN + 8;
	/* list 0: data areas (unused here), list 1: metadata areas */
	for (list = 0; list < 2; list++) {
		for (;; p += 16) {
			uint64_t off, size;
			size_t len;
			char *text;
			int ok;

			if (end - p < 16) {
				e4t_cwarnf(warn, arg,
					   "LVM2 PV header: the %s area list "
					   "does not end in its sector",
					   list ? "metadata" : "data");
				free(best);
				return E4T_ERR_LVM;
			}
			off = le64(p);
			size = le64(p + 8);
			if (!off && !size)
				break;
			if (!list)
				continue;
			nmda++;
			if (best_ok)
				continue;
			err = read_mda(v, off, size, &text, &len, &ok, warn,
				       arg);
			if (err && err != E4T_ERR_LVM) {
				free(best);
				return err;
			}
			if (err)
				continue;
			nread++;
			if (!text)
				continue;
			if (!best || (ok && !best_ok)) {
				free(best);
				best = text;
				best_len = len;
				best_ok = ok;
			} else {
				free(text);
			}
		}
		p += 16;
	}
	if (!nmda)
		return 0; /* its VG is described on its other PVs */
	if (!nread) {
		e4t_cwarnf(warn, arg, "LVM2 PV %s: no readable metadata area",
			   out->pv_uuid);
		return E4T_ERR_LVM;
	}
	if (!best)
		return 0; /* an orphan PV */
	if (!best_ok)
		e4t_cwarnf(warn, arg,
			   "LVM2 PV %s: the metadata text's checksum does not "
			   "verify",
			   out->pv_uuid);
	err = parse_text(best, best_len, out, warn, arg);
	free(best);
	if (err) { /* what the label said stands */
		char uuid[sizeof(out->pv_uuid)];
		uint64_t size = out->pv_size;

		memcpy(uuid, out->pv_uuid, sizeof(uuid));
		e4t_lvm_free(out);
		memcpy(out->pv_uuid, uuid, sizeof(uuid));
		out->pv_size = size;
	}
	return err;
}

void e4t_lvm_free(struct e4t_lvm *lvm)
{
	unsigned i, j;

	for (i = 0; i < lvm->npvs; i++) {
		free(lvm->pvs[i].name);
		free(lvm->pvs[i].uuid);
	}
	for (i = 0; i < lvm->nlvs; i++) {
		struct e4t_lvm_lv *lv = &lvm->lvs[i];

		for (j = 0; j < lv->nsegs; j++) {
			struct e4t_lvm_seg *s = &lv->segs[j];
			unsigned k;

			for (k = 0; k < s->nlegs; k++)
				free(s->legs[k]);
			free(s->legs);
			free(s->leg_ext);
			free(s->origin);
			free(s->cow);
			free(s->type);
			free(s->pv);
		}
		free(lv->segs);
		free(lv->name);
		free(lv->uuid);
		free(lv->refused);
	}
	free(lvm->pvs);
	free(lvm->lvs);
	free(lvm->vg_name);
	free(lvm->vg_uuid);
	memset(lvm, 0, sizeof(*lvm));
}
