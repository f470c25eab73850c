/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pathmap.c --- import's --map OLD=NEW and --strip-prefix P: a
 * manifest's paths moved to where the files are now.  A rule matches
 * whole path components only (/srv/old matches /srv/old and
 * /srv/old/a, never /srv/older), and the longest OLD that matches wins.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

struct rule {
	char *old, *new;
	size_t olen, nlen;
};

struct e4t_pathmap {
	struct rule *v;
	size_t n, cap;
};

/* "/a/b//" -> "/a/b" (len), "/" stays; 0 when it is not a path. */
static size_t norm_len(const char *p)
{
	size_t n = strlen(p);

	if (n == 0 || p[0] != '/')
		return 0;
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n;
}

errcode_t e4t_pathmap_add(struct e4t_pathmap **pm, const char *old,
			  const char *new)
{
	size_t olen = norm_len(old), nlen = norm_len(new), i;
	struct e4t_pathmap *m = *pm;
	struct rule *r;

	if (!olen || !nlen)
		return EINVAL;
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return ENOMEM;
		*pm = m;
	}
	for (i = 0; i < m->n; i++)
		if (m->v[i].olen == olen && !memcmp(m->v[i].old, old, olen))
			return EEXIST; /* the same OLD twice */
	if (e4t_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v), 8))
		return ENOMEM;
	r = &m->v[m->n];
	r->old = strndup(old, olen);
	r->new = strndup(new, nlen);
	if (!r->old || !r->new) {
		free(r->old);
		free(r->new);
		return ENOMEM;
	}
	r->olen = olen;
	r->nlen = nlen;
	m->n++;
	return 0;
}

void e4t_pathmap_free(struct e4t_pathmap *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->n; i++) {
		free(pm->v[i].old);
		free(pm->v[i].new);
	}
	free(pm->v);
	free(pm);
}

/* The rest of path after OLD ("" or "/..."), or NULL: no match. */
static const char *rest_after(const struct rule *r, const char *path,
			      size_t len)
{
	if (r->olen == 1) /* "/": the whole path, but "/" itself is "" */
		return path[0] != '/' ? NULL : len == 1 ? path + 1 : path;
	if (len < r->olen || memcmp(path, r->old, r->olen))
		return NULL;
	if (len > r->olen && path[r->olen] != '/')
		return NULL; /* /srv/old is not a prefix of /srv/older */
	return path + r->olen;
}

errcode_t e4t_pathmap_apply(const struct e4t_pathmap *pm, const char *path,
			    size_t len, char **out, size_t *out_len)
{
	const struct rule *best = NULL;
	const char *rest = NULL;
	size_t i, rlen, pre;
	char *p;

	*out = NULL;
	*out_len = 0;
	for (i = 0; pm && i < pm->n; i++) {
		const struct rule *r = &pm->v[i];
		const char *s = rest_after(r, path, len);

		if (s && (!best || r->olen > best->olen)) {
			best = r;
			rest = s;
		}
	}
	if (!best)
		return 0;
	rlen = len - (size_t)(rest - path);
	/* NEW "/" and a rest: the rest alone */
	pre = best->nlen == 1 && rlen ? 0 : best->nlen;
	p = malloc(pre + rlen + 1);
	if (!p)
		return ENOMEM;
	memcpy(p, best->new, pre);
	memcpy(p + pre, rest, rlen);
	p[pre + rlen] = '\0';
	*out = p;
	*out_len = pre + rlen;
	return 0;
}
