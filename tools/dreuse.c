/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dreuse.c --- timeline --deleted: the journal's deleted names sorted
 * out, and the subtrees of deleted directories rebuilt.
 *
 * A name a journaled directory block held and the directory does not
 * hold now is of the file its inode was then: the last journaled copy
 * of the inode up to the name's transaction says which (its generation).
 * When the inode is in use now by that same file, the name was renamed
 * or unlinked from a file that lives on: not a deleted name.  When
 * another file has it now (a new generation), the name is a row of its
 * own, deleted-realloc, with the old file as the journal last held it
 * (its last copy of that generation with links above 0).  Without a
 * copy, the name is kept only when the file there now was created after
 * the name's transaction committed (its crtime), with no times.
 *
 * A name of a directory that is gone (its inode free, or another file's)
 * gives the directory's entries: its journaled inode from before the
 * deletion still maps its blocks (ext4 zeroes the extent tree on
 * deletion), and the journaled copies of those blocks, from the
 * directory's first journaled copy on (with metadata_csum: those that
 * verify as its blocks, its inode number and old generation), hold its
 * entries, each a name under the directory's path; nested directories
 * the same way.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

#define MAX_ROUNDS 64 /* nesting of deleted directories */

static uint32_t raw_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static unsigned raw_le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static int cmp_seq(const void *x, const void *y)
{
	const struct dname *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The inode in use now, its generation and crtime (0: none). */
struct now {
	int used;
	uint32_t gen;
	int64_t crtime_sec;
	uint32_t crtime_nsec;
	int have_crtime;
};

static void inode_now(struct dnames *d, ext2_ino_t ino, struct now *w)
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
static int born_after(const struct now *w, const struct dname *n)
{
	if (!w->have_crtime || !n->jsrc.commit_sec)
		return 0;
	if (w->crtime_sec != n->jsrc.commit_sec)
		return w->crtime_sec > n->jsrc.commit_sec;
	return w->crtime_nsec > n->jsrc.commit_nsec;
}

/* The names of a deleted directory: under the path of its name. */
struct sub {
	struct dnames *d;
	size_t parent; /* its name in d->jv */
};

static int on_sub(const struct e4t_jname *e, void *priv)
{
	struct sub *s = priv;
	struct dnames *d = s->d;
	struct dname *n;
	char *dir = dup_bytes(d->jv[s->parent].path, d->jv[s->parent].path_len);
	size_t dir_len = d->jv[s->parent].path_len;

	if (!dir) {
		d->err = ENOMEM;
		return 1;
	}
	n = dnames_add_jname(d, dir, dir_len, e);
	free(dir);
	return n ? 0 : 1;
}

/* A directory of (ino, gen) already read? (ino << 32 | gen) */
static int was_seen(uint64_t **v, size_t *n, size_t *cap, ext2_ino_t ino,
		    uint32_t gen, errcode_t *err)
{
	uint64_t key = (uint64_t)ino << 32 | gen;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == key)
			return 1;
	if (grow_array(v, cap, *n, sizeof(**v))) {
		*err = ENOMEM;
		return 1;
	}
	(*v)[(*n)++] = key;
	return 0;
}

/* The entries of deleted directory dir, of generation gen, under the
 * path of name k: raw is its inode before the deletion, first its first
 * journaled transaction. */
static errcode_t read_dir(struct dnames *d, struct e4t_journal *j, size_t k,
			  ext2_ino_t dir, uint32_t gen, const uint8_t *raw,
			  size_t first)
{
	struct sub s = { .d = d, .parent = k };
	blk64_t *blocks = NULL;
	size_t nb = 0;
	errcode_t err;

	err = e4t_raw_dir_blocks(d->img, raw, d->img->inode_size, &blocks, &nb);
	/* no blocks: inline (its inode's copies), else nothing to read */
	if (!err && (nb || (raw_le32(raw + 0x20) & EXT4_INLINE_DATA_FL)))
		err = e4t_journal_dir_names(d->img, j, dir, gen, blocks, nb,
					    first, on_sub, &s);
	free(blocks);
	return err ? err : d->err;
}

/* Names [from, to) of d->jv: what each named; the directories read. */
static errcode_t one_round(struct dnames *d, struct e4t_journal *j, size_t from,
			   size_t to, uint64_t **seen, size_t *nseen,
			   size_t *seen_cap)
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
		struct now w;

		if (!x->ino) { /* "<DIR>" of a directory without a name */
			x->state = DN_SKIP;
			b[i].ino = 0;
			continue;
		}
		inode_now(d, x->ino, &w);
		x->old_gen = a[i].have ? raw_le32(a[i].raw + 0x64) : w.gen;
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
		if (LINUX_S_ISDIR(raw_le16(b[i].raw)) &&
		    !was_seen(seen, nseen, seen_cap, x->ino, x->old_gen, &err))
			err = read_dir(d, j, from + i, x->ino, x->old_gen,
				       b[i].raw, b[i].first);
	}
out:
	free(a);
	free(b);
	free(store);
	return err;
}

/* The names [*done, d->jv end) sorted out, and those they give. */
static errcode_t rounds(struct dnames *d, struct e4t_journal *j,
			uint64_t **seen, size_t *nseen, size_t *seen_cap,
			size_t *done)
{
	size_t nr = 0;
	errcode_t err = 0;

	/* the latest name of a directory first: its path is read once */
	while (!err && *done < d->jn && nr++ < MAX_ROUNDS) {
		size_t to = d->jn;

		qsort(d->jv + *done, to - *done, sizeof(*d->jv), cmp_seq);
		err = one_round(d, j, *done, to, seen, nseen, seen_cap);
		*done = to;
	}
	return err;
}

/* Directories whose first block the journal holds, without a name. */
struct dots {
	struct e4t_jcopy_req *v;
	ext2_ino_t *parent;
	size_t n, cap, pcap;
};

static int on_dot(ext2_ino_t dir, ext2_ino_t parent, size_t trans, void *priv)
{
	struct dots *s = priv;

	if (grow_array(&s->v, &s->cap, s->n, sizeof(*s->v)) ||
	    grow_array(&s->parent, &s->pcap, s->n, sizeof(*s->parent)))
		return 1;
	memset(&s->v[s->n], 0, sizeof(*s->v));
	s->v[s->n].ino = dir;
	s->v[s->n].max_trans = trans;
	s->parent[s->n++] = parent;
	return 0;
}

/* Is dir one of the deleted directories found (s->v by inode)? */
static int is_dot(const struct dots *s, ext2_ino_t dir)
{
	size_t i = E4T_LOWER_BOUND(s->v, s->n, struct e4t_jcopy_req, ino, dir);

	return i < s->n && s->v[i].ino == dir && s->v[i].have;
}

/* The deleted directories whose first block the journal holds: their
 * inode before the deletion (s->v[i].have, raw); not those that are
 * directories now, of the same generation. */
static errcode_t find_dots(struct dnames *d, struct e4t_journal *j,
			   struct dots *s, uint8_t **store)
{
	unsigned isize = d->img->inode_size;
	errcode_t err;
	size_t i;

	err = e4t_journal_dot_dirs(d->img, j, on_dot, s);
	if (err || !s->n)
		return err;
	*store = malloc(s->n * isize);
	if (!*store)
		return ENOMEM;
	for (i = 0; i < s->n; i++)
		s->v[i].raw = *store + i * isize;
	/* which directory the block was of: its inode then */
	err = e4t_journal_inode_copies(d->img, j, s->v, s->n);
	for (i = 0; !err && i < s->n; i++) {
		struct e4t_jcopy_req *r = &s->v[i];
		struct now w;

		r->gen = raw_le32(r->raw + 0x64);
		r->match_gen = 1;
		r->max_trans = SIZE_MAX;
		inode_now(d, r->ino, &w);
		if (!r->have || (w.used && w.gen == r->gen))
			r->ino = 0; /* a directory now */
	}
	/* the directory before its deletion: its last copy */
	if (!err)
		err = e4t_journal_inode_copies(d->img, j, s->v, s->n);
	for (i = 0; !err && i < s->n; i++)
		if (s->v[i].have && !LINUX_S_ISDIR(raw_le16(s->v[i].raw)))
			s->v[i].have = 0;
	return err;
}

/* The deleted directories no name read: "<DIR>/NAME"; on the first
 * pass only those whose parent is not one of them (the parent's entries
 * name the others, nested). */
static errcode_t read_dots(struct dnames *d, struct e4t_journal *j,
			   const struct dots *s, int pass, uint64_t **seen,
			   size_t *nseen, size_t *seen_cap)
{
	errcode_t err = 0;
	size_t i;

	for (i = 0; !err && i < s->n; i++) {
		const struct e4t_jcopy_req *r = &s->v[i];
		char tag[16];
		struct dname *x;
		int len;

		if (!r->have || (pass == 0 && is_dot(s, s->parent[i])) ||
		    was_seen(seen, nseen, seen_cap, r->ino, r->gen, &err))
			continue;
		len = snprintf(tag, sizeof(tag), "<%u>", r->ino);
		x = dnames_new_name(&d->jv, &d->jn, &d->jcap, tag, (size_t)len,
				    "", 0);
		if (!x)
			return ENOMEM;
		x->path_len = (size_t)len; /* "<DIR>", without the '/' */
		x->path[len] = '\0';
		x->ino = 0;
		x->state = DN_SKIP;
		x->seq = SIZE_MAX;
		err = read_dir(d, j, d->jn - 1, r->ino, r->gen, r->raw,
			       r->first);
	}
	return err;
}

errcode_t dreuse_classify(struct dnames *d, struct e4t_journal *j)
{
	uint64_t *seen = NULL;
	struct dots s = { 0 };
	uint8_t *store = NULL;
	size_t nseen = 0, seen_cap = 0, done = 0;
	errcode_t err;
	int pass;

	err = rounds(d, j, &seen, &nseen, &seen_cap, &done);
	if (!err)
		err = find_dots(d, j, &s, &store);
	for (pass = 0; pass < 2 && !err; pass++) {
		err = read_dots(d, j, &s, pass, &seen, &nseen, &seen_cap);
		if (!err)
			err = rounds(d, j, &seen, &nseen, &seen_cap, &done);
	}
	free(store);
	free(s.v);
	free(s.parent);
	free(seen);
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
