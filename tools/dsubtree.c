/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dsubtree.c --- timeline --deleted: the subtrees of deleted directories
 * rebuilt from the journal.
 *
 * A name of a directory that is gone (its inode free, or another file's)
 * gives the directory's entries: its journaled inode from before the
 * deletion still maps its blocks (ext4 zeroes the extent tree, ext3 the
 * block map, on deletion: the copy from before has them; an indirect
 * block is read from the disk), and the journaled copies of those
 * blocks, from the directory's first journaled copy on (with
 * metadata_csum: those that verify as its blocks, its inode number and
 * old generation), hold its entries, each a name under the directory's
 * path; an inline-data directory's entries are in the journaled copies
 * of its inode (of that generation, inline then).  A deleted directory
 * whose own name the journal no longer holds is found by its first
 * block ("." and ".."): its entries are "<DIR>/NAME".  Nested
 * directories the same way (dreuse.c's rounds).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "deleted.h"
#include "deleted_int.h"

/* The names of a deleted directory: under the path of its name. */
struct sub {
	struct dnames *d;
	size_t parent; /* its name in d->jv */
	int enc;       /* encrypted then: no-key names */
	struct e4t_nokey nokey;
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
	n = s->enc ? dnames_add_jname_nokey(d, dir, dir_len, e, &s->nokey)
		   : dnames_add_jname(d, dir, dir_len, e);
	free(dir);
	return n ? 0 : 1;
}

int dsub_seen(struct dnames *d, ext2_ino_t ino, uint32_t gen, errcode_t *err)
{
	uint64_t key = (uint64_t)ino << 32 | gen;
	size_t i;

	for (i = 0; i < d->nseen; i++)
		if (d->seen[i] == key)
			return 1;
	if (grow_array(&d->seen, &d->seen_cap, d->nseen, sizeof(*d->seen))) {
		*err = ENOMEM;
		return 1;
	}
	d->seen[d->nseen++] = key;
	return 0;
}

errcode_t dsub_read_dir(struct dnames *d, struct e4t_journal *j, size_t k,
			ext2_ino_t dir, uint32_t gen, const uint8_t *raw,
			size_t first)
{
	struct sub s = { .d = d, .parent = k };
	blk64_t *blocks = NULL;
	size_t nb = 0;
	errcode_t err;

	/* encrypted: its names as the kernel would list them without the
	 * key (the directory as it was before the deletion) */
	s.enc = e4t_nokey_setup(d->img->fs, dle32(raw + 0x20),
				dle32(raw + 0x04) | (uint64_t)dle32(raw + 0x6c)
							    << 32,
				&s.nokey);
	err = e4t_raw_dir_blocks(d->img, raw, d->img->inode_size, &blocks, &nb);
	/* no blocks: inline (its inode's copies), else nothing to read */
	if (!err && (nb || (dle32(raw + 0x20) & EXT4_INLINE_DATA_FL)))
		err = e4t_journal_dir_names(d->img, j, dir, gen, blocks, nb,
					    first, on_sub, &s);
	free(blocks);
	return err ? err : d->err;
}

static int on_dot(ext2_ino_t dir, ext2_ino_t parent, size_t trans, void *priv)
{
	struct ddots *s = priv;

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
static int is_dot(const struct ddots *s, ext2_ino_t dir)
{
	size_t i = E4T_LOWER_BOUND(s->v, s->n, struct e4t_jcopy_req, ino, dir);

	return i < s->n && s->v[i].ino == dir && s->v[i].have;
}

/* The deleted directories whose first block the journal holds: their
 * inode before the deletion (s->v[i].have, raw); not those that are
 * directories now, of the same generation. */
errcode_t dsub_find_dots(struct dnames *d, struct e4t_journal *j,
			 struct ddots *s)
{
	unsigned isize = d->img->inode_size;
	errcode_t err;
	size_t i;

	err = e4t_journal_dot_dirs(d->img, j, on_dot, s);
	if (err || !s->n)
		return err;
	s->store = malloc(s->n * isize);
	if (!s->store)
		return ENOMEM;
	for (i = 0; i < s->n; i++)
		s->v[i].raw = s->store + i * isize;
	/* which directory the block was of: its inode then */
	err = e4t_journal_inode_copies(d->img, j, s->v, s->n);
	for (i = 0; !err && i < s->n; i++) {
		struct e4t_jcopy_req *r = &s->v[i];
		struct dnow w;

		r->gen = dle32(r->raw + 0x64);
		r->match_gen = 1;
		r->max_trans = SIZE_MAX;
		dreuse_inode_now(d, r->ino, &w);
		if (!r->have || (w.used && w.gen == r->gen))
			r->ino = 0; /* a directory now */
	}
	/* the directory before its deletion: its last copy */
	if (!err)
		err = e4t_journal_inode_copies(d->img, j, s->v, s->n);
	for (i = 0; !err && i < s->n; i++)
		if (s->v[i].have && !LINUX_S_ISDIR(dle16(s->v[i].raw)))
			s->v[i].have = 0;
	return err;
}

/* The deleted directories no name read: "<DIR>/NAME"; on the first
 * pass only those whose parent is not one of them (the parent's entries
 * name the others, nested). */
errcode_t dsub_read_dots(struct dnames *d, struct e4t_journal *j,
			 const struct ddots *s, int pass)
{
	errcode_t err = 0;
	size_t i;

	for (i = 0; !err && i < s->n; i++) {
		const struct e4t_jcopy_req *r = &s->v[i];
		char tag[16];
		struct dname *x;
		int len;

		if (!r->have || (pass == 0 && is_dot(s, s->parent[i])) ||
		    dsub_seen(d, r->ino, r->gen, &err))
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
		err = dsub_read_dir(d, j, d->jn - 1, r->ino, r->gen, r->raw,
				    r->first);
	}
	return err;
}

void dsub_dots_free(struct ddots *s)
{
	free(s->store);
	free(s->v);
	free(s->parent);
}
