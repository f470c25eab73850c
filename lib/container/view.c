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

errcode_t e4t_view_sub(const struct e4t_view *in, uint64_t start, uint64_t len,
		       struct e4t_view *out)
{
	struct e4t_extent *ext = NULL;
	unsigned n = 0;
	uint64_t off = start, end;

	memset(out, 0, sizeof(*out));
	if (start > in->size || len > in->size - start)
		return E4T_ERR_OFFSET;
	out->c = in->c;
	out->size = len;
	if (!in->next) {
		out->base = in->base + start;
		return 0;
	}
	end = start + len;
	while (off < end) {
		uint64_t contig, at = e4t_view_map(in, off, &contig);
		struct e4t_extent *grown;

		if (!contig) {
			free(ext);
			return E4T_ERR_OFFSET;
		}
		if (contig > end - off)
			contig = end - off;
		grown = realloc(ext, (n + 1) * sizeof(*ext));
		if (!grown) {
			free(ext);
			return ENOMEM;
		}
		ext = grown;
		ext[n].lstart = off - start;
		ext[n].pstart = at;
		ext[n].len = contig;
		n++;
		off += contig;
	}
	if (n == 1) { /* one extent: a plain window */
		out->base = ext[0].pstart;
		free(ext);
		return 0;
	}
	out->ext = ext;
	out->next = n;
	return 0;
}

void e4t_view_free(struct e4t_view *v)
{
	free(v->ext);
	v->ext = NULL;
	v->next = 0;
}
