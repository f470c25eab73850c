/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jrules.c --- the journal rules: every journaled copy of every inode
 * compared with the copy before it (e4t_audit_run's walk), and the last
 * one with the disk when the disk is the newer, looking for what the
 * kernel never does to a live inode: a crtime that changes, mtime/atime
 * going back while ctime goes forward (a back-dating caught between two
 * commits), mtime changing or atime going back while ctime stays (a raw
 * write).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "journal/jbd2_int.h"

void e4t_rules_note_journal(struct e4t_rules_ctx *rc,
			    const struct e4t_journal *j)
{
	size_t i, n = e4t_journal_count(j);

	for (i = 0; i < n; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);

		if ((t->flags & E4T_JT_COMMITTED) &&
		    !(t->flags & (E4T_JT_CSUM_BAD | E4T_JT_FAST_COMMIT)) &&
		    t->commit_sec > rc->last_write) {
			rc->last_write = t->commit_sec;
			rc->last_write_what = "journal commit";
		}
	}
}

errcode_t e4t_rules_journal_open(struct e4t_image *img, const char *path,
				 e4t_warn_fn warn, void *priv,
				 struct e4t_rules_ctx *rc,
				 struct e4t_journal **ret)
{
	struct e4t_journal *j = NULL;
	errcode_t err;

	*ret = NULL;
	err = e4t_journal_open(img, path, &j);
	if (!err)
		err = e4t_journal_load(j, E4T_J_STALE, warn, priv);
	if (err) {
		e4t_journal_close(j);
		return err;
	}
	e4t_rules_note_journal(rc, j);
	*ret = j;
	return 0;
}

struct jctx {
	unsigned inode_size;
	int r_crtime, r_back, r_noctime, r_create;
	int r_fwd;  /* journal-forward-dated, or -1 */
	int r_disk; /* the disk after the last copy: r_noctime's strong
		       form, when the journal is undamaged (else -1) */
	const struct e4t_copyidx *copies;
	int copies_later;
	e4t_finding_fn fn;
	void *priv;
	/* in-use inodes with a copy in the journal: bit per inode */
	uint64_t *inuse;
	ext2_ino_t ninodes;
	uint64_t inuse_count;
};

static void copy_of(struct e4t_finding *f, int k, const struct e4t_jtrans *t,
		    enum e4t_icopy_src src)
{
	if (!t) {
		f->src[k] = E4T_COPY_DISK;
		return;
	}
	f->src[k] = src == E4T_SRC_FAST_COMMIT ? E4T_COPY_FAST_COMMIT
					       : E4T_COPY_JOURNAL;
	f->tid[k] = t->tid;
	if ((t->flags & E4T_JT_COMMITTED) && !(t->flags & E4T_JT_FAST_COMMIT)) {
		f->has_commit[k] = 1;
		f->commit[k].sec = t->commit_sec;
		f->commit[k].nsec = t->commit_nsec;
		f->commit[k].flags = E4T_TS_STORED | E4T_TS_EXTRA;
	}
}

static int emit_check(struct jctx *jc, int rule, const struct e4t_icopy *c,
		      const struct e4t_inode *old, const struct e4t_inode *new,
		      unsigned fields, int check)
{
	struct e4t_finding f;

	memset(&f, 0, sizeof(f));
	f.copy_check = check;
	f.rule = (size_t)rule;
	f.ino = c->ino;
	f.fields = fields;
	f.old_fields = fields;
	memcpy(f.ts, new->ts, sizeof(f.ts));
	memcpy(f.old_ts, old->ts, sizeof(f.old_ts));
	/* the earlier copy: a full copy in prev_t, or the disk */
	copy_of(&f, 0, c->prev_t, E4T_SRC_JOURNAL);
	copy_of(&f, 1, c->t, c->src);
	return jc->fn(&f, jc->priv);
}

static int emit(struct jctx *jc, int rule, const struct e4t_icopy *c,
		const struct e4t_inode *old, const struct e4t_inode *new,
		unsigned fields)
{
	return emit_check(jc, rule, c, old, new, fields, E4T_COPY_DECIDED);
}

#define BIT(f) (1U << (f))

/* The atime of a raw inode, as (seconds << 30 | nanoseconds): ordered as
 * the times are (the _extra word when the inode has room for it). */
static int64_t raw_atime(const uint8_t *raw, unsigned isize)
{
	int64_t sec = (int32_t)jbd2_le32(raw + 0x08);
	uint32_t nsec = 0;
	unsigned ex = isize > 128 ? jbd2_le16(raw + 0x80) : 0;

	if (ex >= 0x90 - 128 && 128 + ex <= isize) {
		uint32_t x = jbd2_le32(raw + 0x8C);

		sec += (int64_t)(x & 3) << 32;
		nsec = (x >> 2) & ((1U << 30) - 1);
	}
	return (int64_t)((uint64_t)sec << 30) | nsec;
}

static int atime_back(const uint8_t *old, const uint8_t *new, unsigned isize)
{
	return raw_atime(new, isize) < raw_atime(old, isize);
}

/* A journal copy of an in-use inode: counted once per inode. */
static void note_inuse(struct jctx *jc, const struct e4t_icopy *c)
{
	uint64_t bit;

	if (!jc->inuse || c->src == E4T_SRC_DISK || c->ino < 1 ||
	    c->ino > jc->ninodes || !jbd2_le16(c->raw) ||
	    !jbd2_le16(c->raw + 0x1A))
		return;
	bit = 1ULL << ((c->ino - 1) % 64);
	if (!(jc->inuse[(c->ino - 1) / 64] & bit)) {
		jc->inuse[(c->ino - 1) / 64] |= bit;
		jc->inuse_count++;
	}
}

/*
 * ctime went forward, nothing back: mtime set ahead of the change that
 * set it (the kernel sets mtime to ctime, or leaves it), unless the run
 * that created the inode set it (a copy of a file from the future).
 */
static int forward(struct jctx *jc, const struct e4t_icopy *c,
		   const struct e4t_inode *old, const struct e4t_inode *new)
{
	if (jc->r_fwd < 0 ||
	    e4t_ts_cmp(&new->ts[E4T_MTIME], &old->ts[E4T_MTIME]) <= 0 ||
	    e4t_ts_cmp(&new->ts[E4T_MTIME], &new->ts[E4T_CTIME]) <= 0)
		return 0;
	if (jc->copies_later)
		return emit_check(jc, jc->r_fwd, c, old, new,
				  BIT(E4T_MTIME) | BIT(E4T_CTIME),
				  E4T_COPY_UNLESS);
	if (e4t_copy_like(jc->copies, &new->ts[E4T_CRTIME],
			  &new->ts[E4T_CTIME]))
		return 0;
	return emit(jc, jc->r_fwd, c, old, new,
		    BIT(E4T_MTIME) | BIT(E4T_CTIME));
}

static int on_copy(const struct e4t_icopy *c, void *priv)
{
	struct jctx *jc = priv;
	struct e4t_inode old, new;
	int back = 0;

	note_inuse(jc, c);
	if (c->baseline || c->same || !c->prev)
		return 0;
	/* atime-only updates, nearly all of them: only one going back */
	if (!(c->what &
	      (BIT(E4T_IG_CTIME) | BIT(E4T_IG_CRTIME) | BIT(E4T_IG_MTIME))) &&
	    ((jc->r_noctime < 0 && jc->r_disk < 0) ||
	     !atime_back(c->prev, c->raw, jc->inode_size)))
		return 0;
	if (c->change == E4T_CH_CREATED || c->change == E4T_CH_DELETED)
		return 0;
	/* one file in both copies: in use, same generation */
	if (!jbd2_le16(c->prev) || !jbd2_le16(c->raw) ||
	    !jbd2_le16(c->prev + 0x1A) || !jbd2_le16(c->raw + 0x1A) ||
	    memcmp(c->prev + 0x64, c->raw + 0x64, 4))
		return 0;
	e4t_inode_decode_disk(c->prev, jc->inode_size, jc->inode_size, c->ino,
			      &old);
	e4t_inode_decode_disk(c->raw, jc->inode_size, jc->inode_size, c->ino,
			      &new);
	if (jc->r_crtime >= 0 && c->crtime_changed &&
	    (old.ts[E4T_CRTIME].flags & E4T_TS_STORED) &&
	    (new.ts[E4T_CRTIME].flags &E4T_TS_STORED)) {
		int ret = emit(jc, jc->r_crtime, c, &old, &new,
			       BIT(E4T_CRTIME) | BIT(E4T_CTIME));

		if (ret)
			return ret;
	}
	if (e4t_ts_cmp(&new.ts[E4T_ATIME], &old.ts[E4T_ATIME]) < 0)
		back |= BIT(E4T_ATIME);
	if (e4t_ts_cmp(&new.ts[E4T_CTIME], &old.ts[E4T_CTIME]) == 0) {
		/* the kernel changes ctime with mtime, and moves atime on */
		if (e4t_ts_cmp(&new.ts[E4T_MTIME], &old.ts[E4T_MTIME]))
			back |= BIT(E4T_MTIME);
		if (back && c->src == E4T_SRC_DISK && jc->r_disk >= 0)
			return emit(jc, jc->r_disk, c, &old, &new,
				    back | BIT(E4T_CTIME));
		if (jc->r_noctime >= 0 && back)
			return emit(jc, jc->r_noctime, c, &old, &new,
				    back | BIT(E4T_CTIME));
		return 0;
	}
	if (e4t_ts_cmp(&new.ts[E4T_MTIME], &old.ts[E4T_MTIME]) < 0)
		back |= BIT(E4T_MTIME);
	if (e4t_ts_cmp(&new.ts[E4T_CTIME], &old.ts[E4T_CTIME]) <= 0)
		return 0;
	if (!back)
		return forward(jc, c, &old, &new);
	/* set by the run that created the inode: a copy's (decided later:
	 * journal-backdated's fields, the rule that is on) */
	if (jc->copies_later)
		return jc->r_back >= 0 || jc->r_create >= 0
			       ? emit_check(jc,
					    jc->r_back >= 0 ? jc->r_back
							    : jc->r_create,
					    c, &old, &new,
					    back | BIT(E4T_CTIME),
					    E4T_COPY_BACK)
			       : 0;
	if (e4t_copy_like(jc->copies, &new.ts[E4T_CRTIME],
			  &new.ts[E4T_CTIME]) ||
	    e4t_copy_after_write(jc->copies, &old.ts[E4T_MTIME],
				 &old.ts[E4T_CTIME], &new.ts[E4T_CTIME]))
		return jc->r_create >= 0
			       ? emit(jc, jc->r_create, c, &old, &new,
				      back | BIT(E4T_CTIME) | BIT(E4T_CRTIME))
			       : 0;
	if (jc->r_back >= 0)
		return emit(jc, jc->r_back, c, &old, &new,
			    back | BIT(E4T_CTIME));
	return 0;
}

errcode_t e4t_rules_journal(struct e4t_image *img, struct e4t_journal *j,
			    const struct e4t_rules_ctx *rc, e4t_finding_fn fn,
			    void *priv)
{
	return e4t_rules_journal_cov(img, j, rc, fn, priv, NULL);
}

errcode_t e4t_rules_journal_cov(struct e4t_image *img, struct e4t_journal *j,
				const struct e4t_rules_ctx *rc,
				e4t_finding_fn fn, void *priv,
				struct e4t_jcoverage *cov)
{
	struct jctx jc = {
		.inode_size = img->inode_size,
		.r_crtime = -1,
		.r_back = -1,
		.r_noctime = -1,
		.r_create = -1,
		.r_fwd = -1,
		.r_disk = -1,
		.copies = rc->copies,
		.copies_later = rc->copies_later,
		.fn = fn,
		.priv = priv,
	};
	struct e4t_audit *a = NULL;
	errcode_t err;

	jc.r_crtime = e4t_rule_find("journal-crtime-changed", 22);
	jc.r_back = e4t_rule_find("journal-backdated", 17);
	if (jc.r_crtime >= 0 && !((rc->mask >> jc.r_crtime) & 1))
		jc.r_crtime = -1;
	jc.r_noctime = e4t_rule_find("journal-time-without-ctime", 26);
	if (jc.r_back >= 0 && !((rc->mask >> jc.r_back) & 1))
		jc.r_back = -1;
	if (jc.r_noctime >= 0 && !((rc->mask >> jc.r_noctime) & 1))
		jc.r_noctime = -1;
	jc.r_disk = e4t_rule_find("journal-disk-time-without-ctime", 31);
	if (jc.r_disk >= 0 &&
	    (!((rc->mask >> jc.r_disk) & 1) || e4t_journal_damaged(j)))
		jc.r_disk = -1;
	jc.r_fwd = e4t_rule_find("journal-forward-dated", 21);
	if (jc.r_fwd >= 0 && !((rc->mask >> jc.r_fwd) & 1))
		jc.r_fwd = -1;
	jc.r_create = e4t_rule_find("journal-set-at-create", 21);
	if (jc.r_create >= 0 && !((rc->mask >> jc.r_create) & 1))
		jc.r_create = -1;
	if (jc.r_crtime < 0 && jc.r_back < 0 && jc.r_noctime < 0 &&
	    jc.r_create < 0 && jc.r_disk < 0 && jc.r_fwd < 0)
		return 0;
	if (cov) {
		jc.ninodes = img->fs->super->s_inodes_count;
		jc.inuse =
			calloc((size_t)jc.ninodes / 64 + 1, sizeof(*jc.inuse));
		if (!jc.inuse)
			return ENOMEM;
	}
	err = e4t_audit_run_flags(img, j, on_copy, &jc,
				  E4T_AUDIT_DISK_AFTER | E4T_AUDIT_NO_INODES,
				  &a);
	e4t_audit_free(a);
	if (cov && !err) {
		cov->counted = 1;
		cov->inodes = jc.inuse_count;
	}
	free(jc.inuse);
	return err;
}
