/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfhint.c --- import's hint for an unmatched entry: a name of the image
 * that is the same name in another Unicode normalization (an NFD name
 * copied to a system that made it NFC, or the reverse).
 *
 * The comparison is libext2fs's, ext2fs_casefold_cmp() with the utf8-12.1
 * encoding: the names' canonical decompositions (NFD, Unicode 12.1),
 * case folded, as a casefolded ext4 directory compares names.  It is
 * real normalization (e2fsprogs' Unicode tables), but it folds case too,
 * and libext2fs gives no normalized bytes, only the comparison: the
 * names are sorted by it and those that compare equal are neighbours.
 *
 * Only names that hold a byte above 0x7f, are valid UTF-8, and whose
 * skeleton (below) is that of an unmatched entry take part: two names
 * that are the same after normalization have the same skeleton, so
 * nothing is missed but names that differ only in ASCII letters' case or
 * in a character that decomposes to ASCII alone (U+212A KELVIN SIGN is
 * K), which are pure ASCII on one side.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "manifest_int.h"
#include "nfhint_int.h"

/* A name taking part: an unmatched entry's path, or one of the image. */
struct item {
	const char *s;
	size_t len;
	size_t entry; /* IMAGE_NAME: a name of the image */
	uint64_t skel;
};
#define IMAGE_NAME SIZE_MAX

struct blk {
	struct blk *next;
	size_t used, cap;
	char data[];
};

struct e4t_nf_hints {
	struct e4t_nf_hint *v; /* by entry */
	size_t n, cap, pos;
	struct blk *blocks; /* the image's names kept */
};

struct collect {
	struct e4t_nf_hints *h;
	const struct ext2fs_nls_table *tab;
	uint64_t *skel; /* the unmatched entries' skeletons, sorted */
	size_t nskel, skel_cap;
	uint64_t *iskel; /* those of the image's names kept, sorted */
	size_t niskel, iskel_cap;
	struct item *items;
	size_t n, cap;
};

static const struct ext2fs_nls_table *table(void)
{
	return ext2fs_load_nls_table(EXT4_ENC_UTF8_12_1);
}

/*
 * The skeleton of a name: a hash of its ASCII bytes that are not
 * letters, in order, but for ; ` = < > (U+037E, U+1FEF, U+2260, U+226E
 * and U+226F decompose to them).  Normalization and case folding leave
 * these bytes alone and make no other, so two names that compare equal
 * have the same skeleton.
 */
static uint64_t skeleton(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b >= 0x80 || ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') ||
		    b == ';' || b == '`' || b == '=' || b == '<' || b == '>')
			continue;
		h = (h ^ b) * 0x100000001b3ULL;
	}
	return h;
}

/* A byte above 0x7f? */
static int non_ascii(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	return i < len;
}

static int valid_utf8(const struct ext2fs_nls_table *tab, const char *s,
		      size_t len)
{
	char *pos = NULL;

	/* libext2fs' prototype takes no const; it does not write */
	return !ext2fs_check_encoded_name(tab, (char *)s, len, &pos);
}

/* Append k to the array *v (n of cap). */
static errcode_t add_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t k)
{
	if (e4t_grow(v, cap, *n + 1, sizeof(k), 64))
		return ENOMEM;
	(*v)[(*n)++] = k;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* By skeleton (cheap: the names it tells apart differ after
 * normalization too), then the normalized, case-folded name; then the
 * image's names first, the entries in order, the bytes: a total order. */
static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int r;
	size_t n;

	if (x->skel != y->skel)
		return x->skel < y->skel ? -1 : 1;
	r = ext2fs_casefold_cmp(table(), (const unsigned char *)x->s, x->len,
				(const unsigned char *)y->s, y->len);
	if (r)
		return r < 0 ? -1 : 1;
	if (x->entry != y->entry)
		return x->entry == IMAGE_NAME	? -1
		       : y->entry == IMAGE_NAME ? 1
		       : x->entry < y->entry	? -1
						: 1;
	n = x->len < y->len ? x->len : y->len;
	r = memcmp(x->s, y->s, n);
	return r ? r : (x->len > y->len) - (x->len < y->len);
}

static errcode_t add_item(struct collect *c, const char *s, size_t len,
			  size_t entry, uint64_t skel)
{
	if (e4t_grow(&c->items, &c->cap, c->n + 1, sizeof(*c->items), 256))
		return ENOMEM;
	c->items[c->n].s = s;
	c->items[c->n].len = len;
	c->items[c->n].entry = entry;
	c->items[c->n].skel = skel;
	c->n++;
	return 0;
}

/* A copy of an image's name, kept until e4t_nf_hints_free(). */
static const char *keep(struct e4t_nf_hints *h, const char *s, size_t len)
{
	struct blk *b = h->blocks;
	char *p;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = h->blocks;
		h->blocks = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

/* A name of the image: kept when it may be the same as an entry's. */
static int on_name(const struct e4t_row *row, void *priv)
{
	struct collect *c = priv;
	uint64_t k;
	const char *p;

	if (!non_ascii(row->path, row->path_len))
		return 0;
	k = skeleton(row->path, row->path_len);
	if (!bsearch(&k, c->skel, c->nskel, sizeof(k), cmp_u64) ||
	    !valid_utf8(c->tab, row->path, row->path_len))
		return 0;
	p = keep(c->h, row->path, row->path_len);
	if (!p || add_item(c, p, row->path_len, IMAGE_NAME, k) ||
	    add_u64(&c->iskel, &c->niskel, &c->iskel_cap, k))
		return ENOMEM;
	return 0;
}

/* Each group of names that compare equal: its entries get the first
 * name of the image in it (the image's names sort first). */
static errcode_t pair(struct collect *c)
{
	struct e4t_nf_hints *h = c->h;
	size_t i = 0, k;

	qsort(c->items, c->n, sizeof(*c->items), cmp_item);
	while (i < c->n) {
		const struct item *img =
			c->items[i].entry == IMAGE_NAME ? &c->items[i] : NULL;

		for (k = i + 1;
		     k < c->n && c->items[k].skel == c->items[i].skel &&
		     !ext2fs_casefold_cmp(c->tab,
					  (const unsigned char *)c->items[i].s,
					  c->items[i].len,
					  (const unsigned char *)c->items[k].s,
					  c->items[k].len);
		     k++) {
			const struct item *it = &c->items[k];

			if (!img || it->entry == IMAGE_NAME)
				continue;
			if (e4t_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v),
				     64))
				return ENOMEM;
			h->v[h->n].entry = it->entry;
			h->v[h->n].path = img->s;
			h->v[h->n].len = img->len;
			h->n++;
		}
		i = k;
	}
	return 0;
}

static int cmp_hint(const void *a, const void *b)
{
	const struct e4t_nf_hint *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

errcode_t e4t_nf_hints(struct e4t_tree *tree, const struct e4t_mf_entry *e,
		       size_t n, const char *matched, struct e4t_nf_hints **ret)
{
	struct collect c;
	errcode_t err = 0;
	size_t i;

	*ret = NULL;
	memset(&c, 0, sizeof(c));
	c.tab = table();
	if (!c.tab)
		return 0;
	/* the skeletons of the unmatched entries that may take part */
	for (i = 0; i < n && !err; i++)
		if (!matched[i] && non_ascii(e[i].path, e[i].path_len))
			err = add_u64(&c.skel, &c.nskel, &c.skel_cap,
				      skeleton(e[i].path, e[i].path_len));
	if (err || !c.nskel)
		goto out;
	qsort(c.skel, c.nskel, sizeof(*c.skel), cmp_u64);
	c.h = calloc(1, sizeof(*c.h));
	if (!c.h) {
		err = ENOMEM;
		goto out;
	}
	/* the image's names with one of them, then the entries with the
	 * skeleton of one of those */
	err = e4t_tree_walk(tree, EXT2_ROOT_INO, "/", on_name, &c);
	if (!err)
		qsort(c.iskel, c.niskel, sizeof(*c.iskel), cmp_u64);
	for (i = 0; i < n && !err && c.niskel; i++) {
		uint64_t k;

		if (matched[i] || !non_ascii(e[i].path, e[i].path_len))
			continue;
		k = skeleton(e[i].path, e[i].path_len);
		if (bsearch(&k, c.iskel, c.niskel, sizeof(k), cmp_u64) &&
		    valid_utf8(c.tab, e[i].path, e[i].path_len))
			err = add_item(&c, e[i].path, e[i].path_len, i, k);
	}
	if (!err)
		err = pair(&c);
	if (!err)
		qsort(c.h->v, c.h->n, sizeof(*c.h->v), cmp_hint);
	if (err) {
		e4t_nf_hints_free(c.h);
		c.h = NULL;
	}
	*ret = c.h;
out:
	free(c.items);
	free(c.skel);
	free(c.iskel);
	return err;
}

const struct e4t_nf_hint *e4t_nf_hint_of(struct e4t_nf_hints *h, size_t entry)
{
	while (h && h->pos < h->n && h->v[h->pos].entry < entry)
		h->pos++;
	return h && h->pos < h->n && h->v[h->pos].entry == entry ? &h->v[h->pos]
								 : NULL;
}

void e4t_nf_hints_free(struct e4t_nf_hints *h)
{
	struct blk *b;

	if (!h)
		return;
	while ((b = h->blocks)) {
		h->blocks = b->next;
		free(b);
	}
	free(h->v);
	free(h);
}
