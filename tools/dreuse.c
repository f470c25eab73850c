/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dreuse.c --- timeline --deleted: the journal's deleted names sorted
 * out by the generation of the file each named.
 *
 * A name a journaled directory block held and the directory does not
 * hold now is of the file its inode was then: the last journaled copy
 * of the inode up to the name's transaction says which (its generation).
 * When the inode is in use now by that same file, the name was renamed
 * or unlinked from a file that lives on: not a deleted name.  When
 * another file has it now (a new generation), the name is a row of its
 * own, deleted-realloc, with the old file as the journal last held it
 * (its last copy of that generation with links above 0), unless a row
 * of timeline --journal showed that state under that name already
 * (dshown.c).  Without a copy, the name is kept only when the file there
 * now was created after the name's transaction committed (its crtime),
 * with no times.  A name of a directory that is gone gives the
 * directory's entries (dsubtree.c), sorted out the same way, round after
 * round down the subtree.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

#define MAX_ROUNDS 64 /* nesting of deleted directories */

static int cmp_seq(const void *x, const void *y)
{
	const struct dname *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void dreuse_inode_now(struct dnames *d, ext2_ino_t ino, struct dnow *w)
{
	unsigned isize = d->img->inode_size;
	struct ext2_inode_large raw;

	memset(w, 0, sizeof(*w));
	memset(&raw, 0, sizeof(raw));
	if (ext2fs_read_inode_full(
		    d->img->fs, ino, (struct ext2_inode *)&raw,
		    (int)(isize < sizeof(raw) ? isize : sizeof(raw))))
		return;
	w->used = raw.i_mode && raw.i_links_count;
	w->gen = raw.i_generation;
	if (isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    raw.i_extra_isize >=
		    offsetof(struct ext2_inode_large, i_crtime_extra) +
			    sizeof(raw.i_crtime_extra) -
			    EXT2_GOOD_OLD_INODE_SIZE) {
		w->have_crtime = 1;
		w->crtime_sec = (int64_t)(int32_t)raw.i_crtime +
				((int64_t)(raw.i_crtime_extra & 3) << 32);
		w->crtime_nsec = raw.i_crtime_extra >> 2;
	}
}

/* Created after the name's transaction committed? */
static int born_after(const struct dnow *w, const struct dname *n)
{
	if (!w->have_crtime || !n->jsrc.commit_sec)
		return 0;
	if (w->crtime_sec != n->jsrc.commit_sec)
		return w->crtime_sec > n->jsrc.commit_sec;
	return w->crtime_nsec > n->jsrc.commit_nsec;
}

/* Names [from, to) of d->jv: what each named; the directories read. */
static errcode_t one_round(struct dnames *d, struct e4t_journal *j, size_t from,
			   size_t to)
{
	unsigned isize = d->img->inode_size;
	size_t n = to - from, i;
	struct e4t_jcopy_req *a = calloc(n, sizeof(*a)),
			     *b = calloc(n, sizeof(*b));
	uint8_t *store = malloc(2 * n * isize);
	errcode_t err = 0;

	if (!a || !b || !store) {
		err = ENOMEM;
		goto out;
	}
	/* which file each name was of: its inode up to the name's copy */
	for (i = 0; i < n; i++) {
		a[i].ino = d->jv[from + i].ino;
		a[i].max_trans = d->jv[from + i].trans;
		a[i].raw = store + i * isize;
	}
	err = e4t_journal_inode_copies(d->img, j, a, n);
	for (i = 0; !err && i < n; i++) {
		struct dname *x = &d->jv[from + i];
		struct dnow w;

		if (!x->ino) { /* "<DIR>" of a directory without a name */
			x->state = DN_SKIP;
			b[i].ino = 0;
			continue;
		}
		dreuse_inode_now(d, x->ino, &w);
		x->old_gen = a[i].have ? dle32(a[i].raw + 0x64) : w.gen;
		if (!w.used)
			x->state = DN_DELETED;
		else if (a[i].have)
			x->state = x->old_gen == w.gen ? DN_SKIP : DN_REALLOC;
		else
			x->state = born_after(&w, x) ? DN_REALLOC : DN_SKIP;
		/* that file as it was last: its latest copy of that life */
		b[i].ino = x->ino;
		b[i].max_trans = SIZE_MAX;
		b[i].gen = x->old_gen;
		b[i].match_gen = 1;
		b[i].raw = store + (n + i) * isize;
		if (x->state == DN_SKIP ||
		    (x->state == DN_REALLOC && !a[i].have))
			b[i].ino = 0; /* nothing to read */
	}
	if (!err)
		err = e4t_journal_inode_copies(d->img, j, b, n);
	for (i = 0; !err && i < n; i++) {
		struct dname *x = &d->jv[from + i];

		if (!b[i].have)
			continue;
		if (x->state == DN_REALLOC) {
			x->have_copy = 1;
			e4t_inode_decode_disk(b[i].raw, isize, isize, x->ino,
					      &x->before);
		}
		if (LINUX_S_ISDIR(dle16(b[i].raw)) &&
		    !dsub_seen(d, x->ino, x->old_gen, &err))
			err = dsub_read_dir(d, j, from + i, x->ino, x->old_gen,
					    b[i].raw, b[i].first);
	}
out:
	free(a);
	free(b);
	free(store);
	return err;
}

/* The names [*done, d->jv end) sorted out, and those they give. */
static errcode_t rounds(struct dnames *d, struct e4t_journal *j, size_t *done)
{
	size_t nr = 0;
	errcode_t err = 0;

	/* the latest name of a directory first: its path is read once */
	while (!err && *done < d->jn && nr++ < MAX_ROUNDS) {
		size_t to = d->jn;

		qsort(d->jv + *done, to - *done, sizeof(*d->jv), cmp_seq);
		err = one_round(d, j, *done, to);
		*done = to;
	}
	return err;
}

errcode_t dreuse_classify(struct dnames *d, struct e4t_journal *j)
{
	struct ddots s = { 0 };
	size_t done = 0;
	errcode_t err;
	int pass;

	err = rounds(d, j, &done);
	/* the deleted directories no name led to (dsubtree.c) */
	if (!err)
		err = dsub_find_dots(d, j, &s);
	for (pass = 0; pass < 2 && !err; pass++) {
		err = dsub_read_dots(d, j, &s, pass);
		if (!err)
			err = rounds(d, j, &done);
	}
	dsub_dots_free(&s);
	return err;
}

/* A row for each file of an inode number another file has now: its
 * latest name (names come by inode, the latest first). */
int dreuse_rows(struct dnames *d, e4t_row_fn fn, void *priv)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; i < d->jn && !rc; i++) {
		struct dname *x = &d->jv[i];
		struct e4t_inode in;
		struct e4t_row row;
		int dup = 0;

		if (x->state != DN_REALLOC)
			continue;
		for (k = i; k > 0 && d->jv[k - 1].ino == x->ino && !dup; k--)
			dup = d->jv[k - 1].state == DN_REALLOC &&
			      d->jv[k - 1].old_gen == x->old_gen;
		for (k = 0; k < d->n && !dup; k++)
			dup = d->v[k].ino == x->ino &&
			      d->v[k].path_len == x->path_len &&
			      !memcmp(d->v[k].path, x->path, x->path_len);
		if (dup)
			continue;
		if (x->have_copy) {
			in = x->before;
			in.links = 0; /* the file is gone */
			in.generation = x->old_gen;
			in.flags |= E4T_INO_GEN;
		} else {
			memset(&in, 0, sizeof(in));
			in.ino = x->ino;
			in.inode_size = (uint16_t)d->img->inode_size;
			in.mode = e4t_ft_mode(x->file_type);
		}
		d->jsrc = x->jsrc;
		d->jsrc.kind =
			x->have_copy ? E4T_RJ_PREDELETE : E4T_RJ_NAME_ONLY;
		row.path = x->path;
		row.path_len = x->path_len;
		row.inode = &in;
		row.status = E4T_DELETED_REALLOC;
		row.parent = 0;
		row.name_source = "journal";
		row.journal = &d->jsrc;
		if (x->have_copy && dshown_has(d, &row))
			continue; /* a journal row showed it (--journal) */
		rc = fn(&row, priv);
	}
	return rc;
}
