/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_journal.h --- what a loaded journal, an audit and an inode's
 * history promise (lib/journal/journal.h), for the jbd2 and image harnesses:
 * open, load with stale scan and fast commits, audit, and the history
 * of a few inodes, each result checked against the others.
 */
#ifndef E4TIME_FUZZ_CHECK_JOURNAL_H
#define E4TIME_FUZZ_CHECK_JOURNAL_H

#include <string.h>

#include "lib/e4time.h"
#include "fuzz.h"

#define JT_KNOWN                                                               \
	(E4T_JT_LIVE | E4T_JT_STALE | E4T_JT_COMMITTED | E4T_JT_CSUM_OK |      \
	 E4T_JT_CSUM_BAD | E4T_JT_UNVERIFIED | E4T_JT_FAST_COMMIT |            \
	 E4T_JT_DATA_BAD)
#define JB_KNOWN                                                               \
	(E4T_JB_ESCAPED | E4T_JB_CSUM_BAD | E4T_JB_REVOKED |                   \
	 E4T_JB_OUT_OF_FS | E4T_JB_OVERWRITTEN)

static void fz_warn(errcode_t err, ext2_ino_t ino, const char *detail,
		    void *priv)
{
	(void)ino;
	(void)detail; /* NULL for some (tree.c) */
	FUZZ_CHECK(err != 0, "a warning without an error");
	(*(unsigned long *)priv)++;
}

/* The journal superblock and every transaction found. */
static void check_journal_loaded(struct e4t_journal *j)
{
	const struct e4t_jinfo *in = e4t_journal_info(j);
	size_t n = e4t_journal_count(j), i, k;
	int32_t prev = INT32_MIN;

	FUZZ_CHECK(in->blocksize >= 1024 && in->blocksize <= 65536 &&
			   !(in->blocksize & (in->blocksize - 1)),
		   "blocksize %u", in->blocksize);
	FUZZ_CHECK(in->first >= 1 && in->first < in->log_end &&
			   in->log_end <= in->maxlen,
		   "first %u log_end %u maxlen %u", in->first, in->log_end,
		   in->maxlen);
	if (in->fc_blocks)
		/* the kernel's j_last, j_fc_first = j_last + 1, j_fc_last */
		FUZZ_CHECK(in->fc_first == in->log_end + 1 &&
				   in->log_end + in->fc_blocks == in->maxlen,
			   "fc area %u+%u, log_end %u, maxlen %u", in->fc_first,
			   in->fc_blocks, in->log_end, in->maxlen);
	FUZZ_CHECK(in->tag_bytes == 8 || in->tag_bytes == 10 ||
			   in->tag_bytes == 12 || in->tag_bytes == 14 ||
			   in->tag_bytes == 16,
		   "tag_bytes %u", in->tag_bytes);
	FUZZ_CHECK(in->csum_version >= 0 && in->csum_version <= 3,
		   "csum_version %d", in->csum_version);
	FUZZ_CHECK(in->sb_csum >= -1 && in->sb_csum <= 1, "sb_csum %d",
		   in->sb_csum);
	FUZZ_CHECK(in->live == (in->start != 0), "live %d start %u", in->live,
		   in->start);
	if (in->live)
		FUZZ_CHECK(in->start >= in->first && in->start < in->log_end,
			   "start %u", in->start);
	FUZZ_CHECK(e4t_journal_trans(j, n) == NULL, "a transaction past %zu",
		   n);
	for (i = 0; i < n; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);
		int32_t d;

		FUZZ_CHECK(t != NULL, "transaction %zu of %zu missing", i, n);
		FUZZ_CHECK(!(t->flags & ~JT_KNOWN), "flags 0x%x", t->flags);
		/* oldest first, tids modulo 2^32 around s_sequence */
		d = (int32_t)(t->tid - in->sequence);
		FUZZ_CHECK(d >= prev, "tid %u after a later one", t->tid);
		prev = d;
		FUZZ_CHECK(t->first_jblock < in->maxlen, "first_jblock %u",
			   t->first_jblock);
		FUZZ_CHECK(t->nr_jblocks <= in->maxlen, "nr_jblocks %u",
			   t->nr_jblocks);
		FUZZ_CHECK(!t->nblocks || t->blocks, "blocks NULL");
		FUZZ_CHECK(!t->nrevoked || t->revoked, "revoked NULL");
		FUZZ_CHECK(!t->nfc_inodes || t->fc_inodes, "fc_inodes NULL");
		for (k = 0; k < t->nblocks; k++) {
			const struct e4t_jblock *b = &t->blocks[k];

			FUZZ_CHECK(b->jblock < in->maxlen, "jblock %u",
				   b->jblock);
			FUZZ_CHECK(!(b->flags & ~JB_KNOWN), "block flags 0x%x",
				   b->flags);
			if (in->internal && b->fsblock >= in->fs_blocks)
				FUZZ_CHECK(
					b->flags & E4T_JB_OUT_OF_FS,
					"block %llu past the fs, not flagged",
					(unsigned long long)b->fsblock);
		}
		for (k = 0; k < t->nfc_inodes; k++) {
			const struct e4t_fc_inode *fi = &t->fc_inodes[k];

			FUZZ_CHECK(t->flags & E4T_JT_FAST_COMMIT,
				   "an fc inode in a full commit");
			FUZZ_CHECK(fi->jblock < in->maxlen, "fc jblock %u",
				   fi->jblock);
			FUZZ_CHECK((uint32_t)fi->offset + fi->len <=
					   in->blocksize,
				   "fc inode at %u+%u in a block of %u",
				   fi->offset, fi->len, in->blocksize);
		}
	}
}

struct fz_copies {
	struct e4t_journal *j;
	unsigned inode_size;
	uint64_t changes[E4T_NCHANGES];
	unsigned long copies;
	int seen_disk;
};

static int fz_copy(const struct e4t_icopy *c, void *priv)
{
	struct fz_copies *s = priv;

	FUZZ_CHECK(!s->seen_disk, "a copy after the disk copy");
	FUZZ_CHECK(c->raw != NULL, "a copy without bytes");
	FUZZ_CHECK(c->src <= E4T_SRC_DISK, "src %d", (int)c->src);
	if (c->src == E4T_SRC_DISK) {
		s->seen_disk = 1;
		FUZZ_CHECK(c->t == NULL, "a disk copy with a transaction");
	} else {
		FUZZ_CHECK(c->t == e4t_journal_trans(s->j, c->trans),
			   "transaction %zu does not match", c->trans);
	}
	if (c->src != E4T_SRC_FAST_COMMIT)
		FUZZ_CHECK(c->len == s->inode_size, "len %u", c->len);
	if (!c->baseline && !c->same) {
		FUZZ_CHECK(c->change < E4T_NCHANGES, "change %d",
			   (int)c->change);
		FUZZ_CHECK(c->what < (1U << E4T_NIGROUPS), "what 0x%x",
			   c->what);
		s->changes[c->change]++;
	}
	/* touch every byte, so that ASan sees a short buffer */
	{
		unsigned k, sum = 0;

		for (k = 0; k < s->inode_size; k++)
			sum += c->raw[k];
		(void)sum;
	}
	s->copies++;
	return 0;
}

/* The journal rules (the disk after the last copies included): each
 * finding names a journal rule and an inode of the filesystem. */
static int fz_finding(const struct e4t_finding *f, void *priv)
{
	const struct e4t_image *img = priv;
	const struct e4t_rule *r = e4t_rule(f->rule);

	FUZZ_CHECK(r && r->kind == E4T_RULE_JOURNAL, "rule %zu", f->rule);
	FUZZ_CHECK(f->ino >= 1 && f->ino <= img->fs->super->s_inodes_count,
		   "finding on inode %u", f->ino);
	FUZZ_CHECK(f->src[0] <= E4T_COPY_DISK && f->src[1] <= E4T_COPY_DISK,
		   "copy sources %d %d", (int)f->src[0], (int)f->src[1]);
	return 0;
}

static void check_jrules(struct e4t_image *img, struct e4t_journal *j)
{
	struct e4t_rules_ctx rc;

	e4t_rules_init(&rc, img->fs->super);
	e4t_rules_note_journal(&rc, j);
	e4t_rules_journal(img, j, &rc, fz_finding, img);
}

static void check_audit(struct e4t_image *img, struct e4t_journal *j)
{
	struct e4t_audit *a = NULL;
	struct fz_copies s;
	uint64_t sum[E4T_NCHANGES], total = 0, skip = 0, only = 0;
	size_t i, k;
	errcode_t err;

	memset(&s, 0, sizeof(s));
	s.j = j;
	s.inode_size = EXT2_INODE_SIZE(img->fs->super);
	err = e4t_audit_run(img, j, fz_copy, &s, &a);
	if (err) {
		FUZZ_CHECK(a == NULL, "an audit and an error");
		return;
	}
	FUZZ_CHECK(a->ntrans == e4t_journal_count(j), "ntrans %zu of %zu",
		   a->ntrans, e4t_journal_count(j));
	memset(sum, 0, sizeof(sum));
	for (k = 0; k < E4T_NCHANGES; k++) {
		total += a->changes[k];
		FUZZ_CHECK(s.changes[k] == a->changes[k],
			   "%s: %llu copies seen, %llu counted",
			   e4t_change_name((enum e4t_change)k),
			   (unsigned long long)s.changes[k],
			   (unsigned long long)a->changes[k]);
	}
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "audit: %zu transactions, %llu updates\n",
			a->ntrans, (unsigned long long)a->inode_updates);
	FUZZ_CHECK(total == a->inode_updates, "updates %llu, sum %llu",
		   (unsigned long long)a->inode_updates,
		   (unsigned long long)total);
	for (i = 0; i < a->ntrans; i++) {
		const struct e4t_audit_trans *at = &a->trans[i];

		for (k = 0; k < E4T_NCHANGES; k++)
			sum[k] += at->changes[k];
		if (at->atime_only) {
			only++;
			for (k = 0; k < E4T_NCHANGES; k++)
				FUZZ_CHECK(
					k == E4T_CH_ATIME ? at->changes[k] > 0
							  : !at->changes[k],
					"atime-only transaction %zu has %s", i,
					e4t_change_name((enum e4t_change)k));
		}
	}
	for (k = 0; k < E4T_NCHANGES; k++)
		FUZZ_CHECK(sum[k] == a->changes[k], "%s: %llu by transaction",
			   e4t_change_name((enum e4t_change)k),
			   (unsigned long long)sum[k]);
	FUZZ_CHECK(only == a->atime_only_transactions,
		   "atime-only transactions %llu, counted %llu",
		   (unsigned long long)a->atime_only_transactions,
		   (unsigned long long)only);
	FUZZ_CHECK(a->atime_only_blocks <= a->journal_blocks,
		   "atime-only blocks %llu of %llu",
		   (unsigned long long)a->atime_only_blocks,
		   (unsigned long long)a->journal_blocks);
	memset(sum, 0, sizeof(sum));
	for (i = 0; i < a->ninodes; i++) {
		const struct e4t_audit_inode *ai = &a->inodes[i];
		int any = 0;

		FUZZ_CHECK(i == 0 || ai->ino > a->inodes[i - 1].ino,
			   "inodes out of order at %u", ai->ino);
		for (k = 0; k < E4T_NCHANGES; k++) {
			sum[k] += ai->changes[k];
			any |= ai->changes[k] != 0;
		}
		FUZZ_CHECK(any, "inode %u listed without a change", ai->ino);
		FUZZ_CHECK(ai->relatime_would_skip <= ai->changes[E4T_CH_ATIME],
			   "inode %u: relatime skips more than it changed",
			   ai->ino);
		skip += ai->relatime_would_skip;
	}
	for (k = 0; k < E4T_NCHANGES; k++)
		FUZZ_CHECK(sum[k] <= a->changes[k], "%s: %llu by inode",
			   e4t_change_name((enum e4t_change)k),
			   (unsigned long long)sum[k]);
	FUZZ_CHECK(skip == a->relatime_would_skip, "relatime skips %llu, %llu",
		   (unsigned long long)skip,
		   (unsigned long long)a->relatime_would_skip);
	e4t_audit_free(a);
}

static void check_history(struct e4t_image *img, struct e4t_journal *j,
			  ext2_ino_t ino)
{
	struct fz_copies s;
	errcode_t err;

	memset(&s, 0, sizeof(s));
	s.j = j;
	s.inode_size = EXT2_INODE_SIZE(img->fs->super);
	err = e4t_inode_history(img, j, ino, fz_copy, &s);
	if (!err)
		FUZZ_CHECK(s.seen_disk, "inode %u: no disk copy", ino);
}

/* A deleted name from the journal: whole, in range, of a directory
 * asked about, from a transaction that is there. */
static int fz_jname(const struct e4t_jname *e, void *priv)
{
	struct e4t_journal *j = priv;

	FUZZ_CHECK(e->dir == 2 || e->dir == 12 || e->dir == 13,
		   "names of directory %u", e->dir);
	FUZZ_CHECK(e->name_len >= 1 && e->name_len <= 255, "name of %u bytes",
		   e->name_len);
	FUZZ_CHECK(!memchr(e->name, '\0', e->name_len) &&
			   !memchr(e->name, '/', e->name_len),
		   "a name with NUL or /");
	FUZZ_CHECK(e->trans < e4t_journal_count(j) &&
			   e4t_journal_trans(j, e->trans)->tid == e->tid,
		   "transaction %zu", e->trans);
	return 0;
}

/* Open (path: an external journal, or NULL), load, audit, history, and
 * the deleted names of three directories. */
static void check_journal(struct e4t_image *img, const char *path)
{
	static const ext2_ino_t inos[] = { 2, 11, 12, 13, 14, 20, 32 };
	static const ext2_ino_t dirs[] = { 2, 12, 13 };
	struct e4t_journal *j = NULL;
	unsigned long warnings = 0;
	errcode_t err;
	size_t i;

	err = e4t_journal_open(img, path, &j);
	if (err) {
		FUZZ_CHECK(j == NULL, "a journal and an error");
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "journal: %s\n", error_message(err));
		return;
	}
	err = e4t_journal_load(j, E4T_J_STALE, fz_warn, &warnings);
	if (warnings)
		FUZZ_CHECK(e4t_journal_damaged(j), "warnings, not damaged");
	if (!err) {
		check_journal_loaded(j);
		check_audit(img, j);
		check_jrules(img, j);
		for (i = 0; i < sizeof(inos) / sizeof(inos[0]); i++)
			check_history(img, j, inos[i]);
		/* an unreadable copy may stop it: only what it gives counts */
		(void)e4t_journal_names(img, j, dirs, 3, fz_jname, j);
	}
	e4t_journal_close(j);
}

#endif
