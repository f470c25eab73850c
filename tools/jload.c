/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jload.c --- timeline --journal, reading the journal (jrows_load): the
 * inode copies the audit hands out (two shares on two threads, each
 * keeping its own states: E4T_AUDIT_PARTS), each kept compactly when it
 * differs from the copy of the same inode kept before it, in journal
 * order per inode; then the journaled entries of the directories among
 * them, for the names (e4t_journal_entries).  jthread.c runs it on a
 * thread of its own; jrows.c makes the rows.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jrows_int.h"

static void pack(const struct e4t_inode *in, struct jfull *f)
{
	memset(f, 0, sizeof(*f));
	f->mode = in->mode;
	f->links = in->links;
	f->uid = in->uid;
	f->gid = in->gid;
	f->size = in->size;
	f->iflags = in->iflags;
	f->extra_isize = in->extra_isize;
	f->present = in->present;
	f->flags = in->flags;
	f->generation = in->generation;
	memcpy(f->raw_base, in->raw_base, sizeof(f->raw_base));
	memcpy(f->raw_extra, in->raw_extra, sizeof(f->raw_extra));
}

/*
 * The states are read again from the mapped journal when the rows want
 * them: one block in JT_EVERY read is counted towards letting its pages
 * go (e4t_journal_touched), not each.  The rows read the states of
 * neighbouring inodes from the same blocks over and over, and each block
 * let go is a page fault again: counting every block made timeline -d
 * --journal on two threads 30% slower on a 64 MiB journal, and half as
 * fast on a 1 GiB one.  At most E4T_JOURNAL_RELEASE_BLOCKS * JT_EVERY
 * blocks' pages are mapped then (16 MiB with 64 KiB mapped a fault).
 */
#define JT_EVERY 4

void jrows_full(struct jrows *jr, uint32_t k, ext2_ino_t ino, struct jfull *f)
{
	const struct jstate *s = pstate(jr, k);
	struct jpart *p = &jr->parts[k >> 31];
	unsigned isize = jr->img->inode_size;
	uint64_t off = s->at >> AT_SHIFT, blk;
	struct e4t_inode in;

	if (s->at & AT_FULL) {
		*f = p->full[off];
		return;
	}
	/* its page let go in time: counted once for the inodes of a block
	 * read one after the other (the share's own count: two threads) */
	blk = (off >> jr->jblock_bits) + 1;
	if (blk != p->last_block) {
		p->last_block = blk;
		if (++p->blocks_read % JT_EVERY == 0)
			e4t_journal_touched(jr->jt, 1);
	}
	e4t_inode_decode_disk_fields(jr->jmem + off, isize, isize, ino, &in);
	pack(&in, f);
}

/* A hash of what same_packed compares. */
static uint32_t packed_sum(const struct jfull *f)
{
	uint64_t w[] = {
		(uint64_t)f->mode << 48 | (uint64_t)f->links << 32 | f->uid,
		(uint64_t)f->gid << 32 | f->present,
		f->size,
		f->generation,
	};
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(*w); i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
	for (i = 0; i < E4T_NFIELDS; i++)
		h = (h ^ f->raw_base[i]) * 0xc4ceb9fe1a85ec53ULL;
	for (i = 0; i < E4T_DTIME; i++)
		h = (h ^ f->raw_extra[i]) * 0xff51afd7ed558ccdULL;
	return (uint32_t)(h ^ h >> 32);
}

/* The same times, size, mode, owner and links (the raw words decide). */
static int same_packed(const struct jfull *a, const struct jfull *b)
{
	return a->mode == b->mode && a->links == b->links && a->uid == b->uid &&
	       a->gid == b->gid && a->size == b->size &&
	       a->present == b->present && a->generation == b->generation &&
	       !memcmp(a->raw_base, b->raw_base, sizeof(a->raw_base)) &&
	       !memcmp(a->raw_extra, b->raw_extra, sizeof(a->raw_extra));
}

/* Where state s is kept: c's bytes in the mapped journal, else f whole
 * in p->full; 1 when out of memory. */
static int keep(struct jrows *jr, struct jpart *p, const struct e4t_icopy *c,
		const struct jfull *f, struct jstate *s)
{
	uintptr_t r = (uintptr_t)c->raw, m = (uintptr_t)jr->jmem;

	s->generation = f->generation;
	s->sum = packed_sum(f);
	if (m && c->src == E4T_SRC_JOURNAL && c->len == jr->img->inode_size &&
	    r >= m && r - m <= jr->jmem_len - c->len) {
		s->at = (uint64_t)(r - m) << AT_SHIFT;
	} else {
		if (grow_array(&p->full, &p->full_cap, p->nfull,
			       sizeof(*p->full))) {
			p->err = ENOMEM;
			return 1;
		}
		p->full[p->nfull] = *f;
		s->at = (uint64_t)p->nfull++ << AT_SHIFT | AT_FULL;
	}
	if (LINUX_S_ISDIR(f->mode))
		s->at |= AT_DIR;
	return 0;
}

/* State k is (not) where a new file begins. */
static void set_born(struct jrows *jr, uint32_t k, int born)
{
	struct jstate *s = pstate(jr, k);

	s->at = born ? s->at | AT_BORN : s->at & ~(uint64_t)AT_BORN;
}

/* Is state k the same as f (same_packed)?  Read again only when their
 * hashes agree. */
static int same_as(struct jrows *jr, uint32_t k, ext2_ino_t ino,
		   const struct jfull *f)
{
	struct jfull o;

	if (pstate(jr, k)->sum != packed_sum(f))
		return 0;
	jrows_full(jr, k, ino, &o);
	return same_packed(&o, f);
}

/* A copy, on the thread of its share: the inode's lists are the share's
 * alone (head, tail and next hold the share's indexes). */
static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct jrows *jr = priv;
	struct jpart *p = &jr->parts[c->part ? 1 : 0];
	uint32_t tag = c->part ? PART1 : 0, k;
	struct e4t_inode in;
	struct jfull f;
	struct jstate *s;
	int born = 0;

	if (c->src == E4T_SRC_DISK || !c->t || c->ino == 0 ||
	    c->ino > jr->ninodes || c->trans >= UINT32_MAX || p->n >= PART_MAX)
		return 0;
	if (grow_array(&p->v, &p->cap, p->n, sizeof(*p->v))) {
		p->err = ENOMEM;
		return 1;
	}
	/* pack() keeps the raw time words only */
	e4t_inode_decode_disk_fields(c->raw, c->len, jr->img->inode_size,
				     c->ino, &in);
	if (!in.mode)
		return 0; /* a slot never used: no file's */
	pack(&in, &f);
	s = &p->v[p->n];
	k = (uint32_t)p->n | tag;
	s->next = NONE;
	s->trans = (uint32_t)c->trans;
	if (jr->tail[c->ino] == NONE) {
		jr->head[c->ino] = k;
	} else if (c->trans < pstate(jr, jr->head[c->ino])->trans) {
		/* the first copy of its block, compared with the older home
		 * block after the others (audit.c): it is the oldest */
		uint32_t h = jr->head[c->ino];

		if (same_as(jr, h, c->ino, &f))
			return 0;
		if (keep(jr, p, c, &f, s))
			return 1;
		s->next = h;
		set_born(jr, h, pstate(jr, h)->generation != f.generation);
		jr->head[c->ino] = k;
		p->n++;
		return 0;
	} else {
		uint32_t t = jr->tail[c->ino];

		if (same_as(jr, t, c->ino, &f))
			return 0;
		born = (!c->baseline && c->change == E4T_CH_CREATED) ||
		       pstate(jr, t)->generation != f.generation;
		pstate(jr, t)->next = k;
	}
	if (keep(jr, p, c, &f, s))
		return 1;
	set_born(jr, k, born);
	jr->tail[c->ino] = k;
	p->n++;
	return 0;
}

/* The shares' errors, once both are done. */
static errcode_t parts_err(const struct jrows *jr)
{
	return jr->parts[0].err ? jr->parts[0].err : jr->parts[1].err;
}

static int on_entry(const struct e4t_jentry *e, void *priv)
{
	struct jrows *jr = priv;
	struct e4t_jentry nk = *e;
	char nokey[E4T_NOKEY_MAX];
	struct jname *n;

	/* an encrypted directory's entry: the name ls lists without the key
	 * (the directory as it is now) */
	if (e->dir != jr->nk_dir) {
		struct ext2_inode inode;

		jr->nk_dir = e->dir;
		jr->nk_enc = !ext2fs_read_inode(jr->img->fs, e->dir, &inode) &&
			     e4t_nokey_setup(jr->img->fs, inode.i_flags,
					     EXT2_I_SIZE(&inode), &jr->nk);
	}
	if (jr->nk_enc) {
		unsigned len =
			e4t_nokey_name(&jr->nk, e->name, e->name_len, nokey);

		if (len) {
			nk.name = nokey;
			nk.name_len = len;
		}
	}
	e = &nk;
	if (e->name_len > UINT8_MAX ||
	    jr->nbuf_len + e->name_len > UINT32_MAX || e->first >= NAME_HELD ||
	    e4t_grow(&jr->names, &jr->names_cap, jr->nnames + 1,
		     sizeof(*jr->names), 64) ||
	    e4t_grow(&jr->nbuf, &jr->nbuf_cap, jr->nbuf_len + e->name_len, 1,
		     1024)) {
		jr->err = ENOMEM;
		return 1;
	}
	n = &jr->names[jr->nnames++];
	n->ino = e->ino;
	n->dir = e->dir;
	n->first = (uint32_t)e->first;
	n->gone = e->gone >= NAME_HELD ? NAME_HELD : (uint32_t)e->gone;
	n->name_off = (uint32_t)jr->nbuf_len;
	n->name_len = (uint8_t)e->name_len;
	memcpy(jr->nbuf + jr->nbuf_len, e->name, e->name_len);
	jr->nbuf_len += e->name_len;
	return 0;
}

/* The names of the entries being sorted (cmp_jname). */
static _Thread_local const char *sort_nbuf;

/* By inode and first transaction, then (an inode's names held from the
 * same transaction: hard links) by directory, name and end: an order of
 * the entries alone, not of the order they came in. */
static int cmp_jname(const void *x, const void *y)
{
	const struct jname *a = x, *b = y;
	int r;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	r = memcmp(sort_nbuf + a->name_off, sort_nbuf + b->name_off,
		   a->name_len);
	if (r)
		return r;
	return a->gone < b->gone ? -1 : a->gone > b->gone;
}

/* The journaled entries of the directories whose inodes the journal
 * holds (a directory block changes with its inode's times). */
static errcode_t load_names(struct jrows *jr)
{
	ext2_ino_t *dirs = NULL, ino;
	size_t n = 0, cap = 0;
	errcode_t err = 0;

	for (ino = 1; ino <= jr->ninodes && !err; ino++) {
		uint32_t k;

		for (k = jr->head[ino]; k != NONE; k = pstate(jr, k)->next)
			if (pstate(jr, k)->at & AT_DIR)
				break;
		if (k == NONE)
			continue;
		if (e4t_grow(&dirs, &cap, n + 1, sizeof(*dirs), 64))
			err = ENOMEM;
		else
			dirs[n++] = ino;
	}
	if (!err && n)
		err = e4t_journal_entries(jr->img, jr->j, dirs, n, on_entry,
					  jr);
	free(dirs);
	if (!err)
		err = jr->err;
	if (!err && jr->nnames) {
		sort_nbuf = jr->nbuf;
		qsort(jr->names, jr->nnames, sizeof(*jr->names), cmp_jname);
		sort_nbuf = NULL;
	}
	return err;
}

errcode_t jrows_load_on(struct e4t_image *img, e4t_warn_fn warn, void *priv,
			struct jload *jl, unsigned audit_flags,
			struct jrows **ret)
{
	struct jrows *jr = calloc(1, sizeof(*jr));
	struct e4t_journal *j = NULL;
	struct e4t_audit *a = NULL;
	errcode_t err;
	size_t i, nt = 0;

	*ret = NULL;
	if (!jr)
		return ENOMEM;
	jr->img = img;
	jr->ninodes = img->fs->super->s_inodes_count;
	jr->head = malloc(((size_t)jr->ninodes + 1) * sizeof(*jr->head));
	jr->tail = malloc(((size_t)jr->ninodes + 1) * sizeof(*jr->tail));
	if (!jr->head || !jr->tail) {
		jrows_free(jr);
		return ENOMEM;
	}
	memset(jr->head, 0xff, ((size_t)jr->ninodes + 1) * sizeof(*jr->head));
	memset(jr->tail, 0xff, ((size_t)jr->ninodes + 1) * sizeof(*jr->tail));
	err = e4t_journal_open(img, NULL, &j);
	if (!err)
		err = e4t_journal_load(j, E4T_J_STALE, warn, priv);
	if (!err) {
		nt = e4t_journal_count(j);
		jr->trans = calloc(nt ? nt : 1, sizeof(*jr->trans));
		if (!jr->trans)
			err = ENOMEM;
	}
	for (i = 0; !err && i < nt; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);

		jr->trans[i].tid = t->tid;
		jr->trans[i].commit_sec = t->commit_sec;
		jr->trans[i].commit_nsec = t->commit_nsec;
	}
	if (!err) {
		const struct e4t_jinfo *ji = e4t_journal_info(j);

		/* the states read in place there (keep) */
		jr->jt = j;
		jr->jmem = e4t_journal_block(j, 0);
		jr->jmem_len = (uint64_t)ji->maxlen * ji->blocksize;
		/* a filesystem block size: a power of two */
		jr->jblock_bits = (unsigned)__builtin_ctz(ji->blocksize);
		err = e4t_audit_run_flags(img, j, on_copy, jr,
					  audit_flags | E4T_AUDIT_NO_INODES,
					  &a);
	}
	if (!err)
		err = parts_err(jr);
	e4t_audit_free(a);
	free(jr->tail); /* the lists are made */
	jr->tail = NULL;
	jr->j = j;
	if (!err) {
		jload_ready(jl, j);
		err = load_names(jr);
	}
	if (!err) {
		jr->earlier_done = calloc((size_t)jr->ninodes / 8 + 1, 1);
		if (!jr->earlier_done)
			err = ENOMEM;
	}
	/* the other thread may be reading the journal: freed by
	 * jrows_load_finish, after it */
	if (err && jload_keep_failed(jl, jr))
		return err;
	if (err) {
		jr->j = NULL;
		e4t_journal_close(j);
		jrows_free(jr);
		return err;
	}
	*ret = jr;
	return 0;
}

errcode_t jrows_load(struct e4t_image *img, e4t_warn_fn warn, void *priv,
		     struct jrows **ret)
{
	return jrows_load_on(img, warn, priv, NULL, E4T_AUDIT_PARTS, ret);
}
