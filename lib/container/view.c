/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view.c --- a run of bytes inside a container: the whole of it, a
 * partition (one extent) or an LVM logical volume (several).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

uint64_t e4t_view_map(const struct e4t_view *v, uint64_t off, uint64_t *contig)
{
	unsigned lo = 0, hi = v->next;

	if (!v->next) {
		*contig = off < v->size ? v->size - off : 0;
		return v->base + off;
	}
	while (hi - lo > 1) { /* the last extent starting at or before off */
		unsigned mid = (lo + hi) / 2;

		if (v->ext[mid].lstart <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (off < v->ext[lo].lstart ||
	    off - v->ext[lo].lstart >= v->ext[lo].len) {
		*contig = 0;
		return 0;
	}
	*contig = v->ext[lo].len - (off - v->ext[lo].lstart);
	return v->ext[lo].pstart + (off - v->ext[lo].lstart);
}

errcode_t e4t_view_read(const struct e4t_view *v, void *buf, size_t len,
			uint64_t off)
{
	char *p = buf;

	if (off > v->size || len > v->size - off)
		return EXT2_ET_SHORT_READ;
	while (len) {
		uint64_t contig, at = e4t_view_map(v, off, &contig);
		size_t n = contig < len ? (size_t)contig : len;
		errcode_t err;

		if (!n)
			return EXT2_ET_SHORT_READ; /* a hole: a bug */
		err = e4t_container_read(v->c, p, n, at);
		if (err)
			return err;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t e4t_view_append(struct e4t_view *out, size_t *cap,
			  const struct e4t_view *in, uint64_t start,
			  uint64_t len)
{
	uint64_t off = start, end = start + len;

	if (start > in->size || len > in->size - start)
		return E4T_ERR_OFFSET;
	out->c = in->c;
	while (off < end) {
		uint64_t contig, at = e4t_view_map(in, off, &contig);
		struct e4t_extent *e;
		errcode_t err;

		if (!contig)
			return E4T_ERR_OFFSET;
		if (contig > end - off)
			contig = end - off;
		err = e4t_grow(&out->ext, cap, (size_t)out->next + 1,
			       sizeof(*out->ext), 4);
		if (err)
			return err;
		e = &out->ext[out->next++];
		e->lstart = out->size;
		e->pstart = at;
		e->len = contig;
		out->size += contig;
		off += contig;
	}
	return 0;
}

void e4t_view_collapse(struct e4t_view *v)
{
	if (v->next == 1) {
		v->base = v->ext[0].pstart;
		e4t_view_free(v);
	}
}

errcode_t e4t_view_sub(const struct e4t_view *in, uint64_t start, uint64_t len,
		       struct e4t_view *out)
{
	size_t cap = 0;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	if (!in->next) { /* a window of a window */
		if (start > in->size || len > in->size - start)
			return E4T_ERR_OFFSET;
		out->c = in->c;
		out->base = in->base + start;
		out->size = len;
		return 0;
	}
	err = e4t_view_append(out, &cap, in, start, len);
	if (err) {
		e4t_view_free(out);
		return err;
	}
	e4t_view_collapse(out);
	return 0;
}

void e4t_view_free(struct e4t_view *v)
{
	free(v->ext);
	v->ext = NULL;
	v->next = 0;
}
