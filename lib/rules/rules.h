/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.h --- libe4time: anomaly rules, the marks that setting times by
 * hand (timestomping), restores and clock trouble leave in inodes
 * (rules.c) and between the journaled copies of one inode (jrules.c).
 *
 * Included by e4time.h.  One table of rules; each finding names its
 * rule, the inode and the evidence (the times involved).  The library
 * never prints: the caller gets each finding through a callback.
 */
#ifndef E4T_RULES_H
#define E4T_RULES_H

#include "fs/fs.h"
#include "journal/journal.h"

enum e4t_severity {
	E4T_SEV_INFO = 0,
	E4T_SEV_MEDIUM,
	E4T_SEV_STRONG,
};

/* "info", "medium", "strong"; parse: -1 when unknown. */
const char *e4t_severity_name(enum e4t_severity s);
int e4t_severity_parse(const char *name);

enum e4t_rule_kind {
	E4T_RULE_INODE = 0, /* one inode (and its directory) */
	E4T_RULE_JOURNAL,   /* two successive copies of one inode */
};

struct e4t_rule {
	const char *id; /* "crtime-after-ctime" */
	enum e4t_severity severity;
	enum e4t_rule_kind kind;
	const char *meaning; /* one line */
	const char *legit;   /* what produces it legitimately */
};

/* The table, most severe first; e4t_rule(i) is NULL past the end. */
size_t e4t_rule_count(void);
const struct e4t_rule *e4t_rule(size_t i);
/* Index of the rule with this id, or -1. */
int e4t_rule_find(const char *id, size_t len);

/*
 * The creation times of the live inodes (copies.c), to tell times set by
 * the run that created an inode (a copy, an extraction) from times set
 * later.
 */
struct e4t_copyidx;
struct e4t_tree;
/* From every live inode of tree (inodes 1 to ninodes). */
errcode_t e4t_copyidx_build(const struct e4t_tree *tree, ext2_ino_t ninodes,
			    struct e4t_copyidx **ret);
void e4t_copyidx_free(struct e4t_copyidx *x);
/*
 * Were the times of an inode created at crtime, changed last at ctime,
 * set by the run that created it: ctime - crtime at most 1 s, plus 10 ms
 * for each inode created meanwhile and 1 s for each 4 MiB they hold?
 * 0 when x is NULL or crtime is not stored.
 */
int e4t_copy_like(const struct e4t_copyidx *x, const struct e4t_ts *crtime,
		  const struct e4t_ts *ctime);
/*
 * Were an existing file's times, set back between two copies of its inode
 * (old_*: the earlier copy's times; ctime: the later copy's), set by
 * the run that had just written it: a copy onto an existing file (rsync
 * --inplace, cp -p, tar or unzip overwriting)?  The earlier copy is a
 * write's (mtime and ctime the same instant: the kernel sets both) and
 * the later ctime follows it as e4t_copy_like allows a creation.
 */
int e4t_copy_after_write(const struct e4t_copyidx *x,
			 const struct e4t_ts *old_mtime,
			 const struct e4t_ts *old_ctime,
			 const struct e4t_ts *ctime);
/*
 * A journal finding that waited for the copies (copy_check, enum
 * e4t_copy_check below): are its times a copy's?  e4t_copy_like, and for
 * a back-dating (E4T_COPY_BACK) also e4t_copy_after_write: a
 * forward-dating after a write is no copy's.  For anomalies
 * (e4t_findings_copies) and timeline --flags alike.
 */
int e4t_copy_deferred(const struct e4t_copyidx *x, int copy_check,
		      const struct e4t_ts *crtime, const struct e4t_ts *ctime,
		      const struct e4t_ts *old_mtime,
		      const struct e4t_ts *old_ctime);

/* What e4t_rules_inode compares an inode with. */
struct e4t_rules_ctx {
	uint64_t mask;	    /* rules evaluated: bit 1 << index */
	int64_t mkfs_time;  /* s_mkfs_time (with _hi); 0: unknown */
	int64_t last_write; /* the latest write the image shows: s_wtime,
			       s_mtime, and journal commits once noted */
	const char *last_write_what; /* "s_wtime", "journal commit"... */
	ext2_ino_t first_ino;	     /* s_first_ino: below, reserved */
	/* the creation times of the live inodes, or NULL: then no time
	 * is taken for a copy's (set by the caller, owned by it) */
	const struct e4t_copyidx *copies;
	/* the journal rules without copies: what depends on them is
	 * decided later, by e4t_findings_copies() (anomalies reads the
	 * journal before the tree, not to hold both) */
	int copies_later;
};

/* A directory's nanosecond baseline: of its entries whose mtime has
 * nanoseconds stored, how many have them non-zero. */
struct e4t_dir_nsec {
	ext2_ino_t dir;
	uint32_t entries; /* entries with an mtime _extra word */
	uint32_t nonzero; /* ... whose nanoseconds are not 0 */
};

/* Where a copy compared by a journal rule came from. */
enum e4t_copy_src {
	E4T_COPY_JOURNAL = 0,
	E4T_COPY_FAST_COMMIT,
	E4T_COPY_DISK,
};

struct e4t_finding {
	size_t rule; /* index in the table */
	ext2_ino_t ino;
	unsigned fields;	       /* 1 << E4T_*: the times involved */
	struct e4t_ts ts[E4T_NFIELDS]; /* the inode's (the later copy's) */
	/* the reference compared with: "mkfs_time", "last_write" (NULL:
	 * none), and its time (whole seconds) */
	const char *ref;
	int64_t ref_sec;
	/* mtime-nsec-zero: the directory and its other entries */
	ext2_ino_t dir;
	uint32_t dir_entries, dir_nonzero;
	/* journal rules: the earlier copy's times, and both copies */
	unsigned old_fields;
	struct e4t_ts old_ts[E4T_NFIELDS];
	enum e4t_copy_src src[2]; /* [0] earlier copy, [1] later */
	uint32_t tid[2];
	int has_commit[2];
	struct e4t_ts commit[2];
	/* rc->copies_later: decided by e4t_findings_copies() */
	enum {
		E4T_COPY_DECIDED = 0,
		E4T_COPY_UNLESS, /* dropped if the times are a copy's */
		E4T_COPY_BACK,	 /* journal-backdated, or if the times are a
				    copy's journal-set-at-create */
	} copy_check;
};

/* Called for each finding; non-zero stops and is returned. */
typedef int (*e4t_finding_fn)(const struct e4t_finding *f, void *priv);

/* Context from the superblock; every rule in mask. */
void e4t_rules_init(struct e4t_rules_ctx *rc,
		    const struct ext2_super_block *sb);
/* The superblock of e4t_rules_init() is a backup (img->sb_block): its
 * last write and mount times are not the filesystem's last. */
void e4t_rules_backup_sb(struct e4t_rules_ctx *rc);

/*
 * The inode rules on one inode; dir is the baseline of the directory
 * that names it (NULL: unknown, mtime-nsec-zero is not evaluated).
 */
int e4t_rules_inode(const struct e4t_rules_ctx *rc, const struct e4t_inode *in,
		    const struct e4t_dir_nsec *dir, e4t_finding_fn fn,
		    void *priv);

/*
 * The baseline of every directory of tree, sorted by dir, malloc'd
 * (tree.c: one pass over the directories' entries).
 */
errcode_t e4t_tree_dir_nsec(const struct e4t_tree *t, struct e4t_dir_nsec **ret,
			    size_t *n);
const struct e4t_dir_nsec *e4t_dir_nsec_find(const struct e4t_dir_nsec *a,
					     size_t n, ext2_ino_t dir);

/* (jrules.c) Make rc->last_write the latest commit time of j when that
 * is later. */
void e4t_rules_note_journal(struct e4t_rules_ctx *rc,
			    const struct e4t_journal *j);
/*
 * The journal the journal rules read (path: an external one, or NULL),
 * loaded with its stale transactions, its commits noted in rc; closed
 * again on an error.
 */
errcode_t e4t_rules_journal_open(struct e4t_image *img, const char *path,
				 e4t_warn_fn warn, void *priv,
				 struct e4t_rules_ctx *rc,
				 struct e4t_journal **ret);
/*
 * The journal rules on every pair of successive copies of every inode in
 * the loaded journal (as e4t_audit_run compares them), in transaction
 * order.
 */
errcode_t e4t_rules_journal(struct e4t_image *img, struct e4t_journal *j,
			    const struct e4t_rules_ctx *rc, e4t_finding_fn fn,
			    void *priv);

/* What the journal the journal rules read covers (jcoverage.c), so
 * that no journal finding on a reused or empty journal is not taken for
 * "nothing happened". */
enum e4t_jcov_state {
	E4T_JCOV_NONE = 0,   /* the image has no journal */
	E4T_JCOV_NOT_READ,   /* no journal rule ran (not asked for) */
	E4T_JCOV_UNREADABLE, /* it could not be opened or loaded */
	E4T_JCOV_READ,	     /* read: the fields below say what it holds */
};

struct e4t_jcoverage {
	enum e4t_jcov_state state;
	/* the usable transactions: committed, no checksum failed (fast
	 * commits counted, sharing the tid of their full commit) */
	size_t ntrans;
	uint32_t first_tid, last_tid; /* when ntrans */
	uint32_t missing_tids;	      /* tids between them with none usable */
	/* earlier transactions existed and are not readable: the first
	 * usable tid is after the journal's first (1), the log area was
	 * reused (wrapped) since */
	int overwritten;
	int has_commit; /* a commit time is known */
	struct e4t_ts first_commit, last_commit;
	uint32_t log_blocks;  /* the log area */
	uint64_t used_blocks; /* journal blocks the usable ones take */
	/* in-use inodes with a copy in those transactions (their earlier
	 * times can be compared); counted: the journal rules ran */
	int counted;
	uint64_t inodes;
};

/* The transactions of the loaded j into cov (state E4T_JCOV_READ,
 * inodes not counted). */
void e4t_jcoverage_of(const struct e4t_journal *j, struct e4t_jcoverage *cov);
/* e4t_rules_journal, counting cov->inodes (cov may be NULL). */
errcode_t e4t_rules_journal_cov(struct e4t_image *img, struct e4t_journal *j,
				const struct e4t_rules_ctx *rc,
				e4t_finding_fn fn, void *priv,
				struct e4t_jcoverage *cov);

/*
 * The findings of one run, kept for a report (findings.c): the journal
 * rules' first, sorted by inode and named when the walk reaches their
 * inode; then the inode rules' in walk order, each inode once (hard
 * links: its first name).
 */
struct e4t_kept {
	struct e4t_finding f;
	char *path; /* first name, raw bytes; NULL: none known */
	size_t path_len;
	size_t seq; /* the order it was found in */
};

struct e4t_findings {
	const struct e4t_rules_ctx *rc;
	struct e4t_kept *k;
	size_t n, cap;
	size_t next_seq; /* the next finding's seq */
	size_t njournal; /* journal findings, first in k */
	errcode_t err;	 /* ENOMEM in a callback */
	const struct e4t_row *row;
	uint64_t *seen; /* inodes whose rules ran */
	size_t nseen_words;
	struct e4t_dir_nsec *dirs;
	size_t ndirs;
	struct e4t_jcoverage cov; /* e4t_findings_journal's journal; the
				     caller sets its state otherwise */
};

void e4t_findings_init(struct e4t_findings *fs, const struct e4t_rules_ctx *rc);
errcode_t e4t_findings_journal(struct e4t_findings *fs, struct e4t_image *img,
			       struct e4t_journal *j);
errcode_t e4t_findings_walk(struct e4t_findings *fs, struct e4t_image *img,
			    struct e4t_tree *tree, ext2_ino_t start,
			    const char *spec);
/*
 * The journal findings rc->copies_later left undecided, decided by the
 * copies: dropped, or given their rule (their order kept).
 */
void e4t_findings_copies(struct e4t_findings *fs,
			 const struct e4t_copyidx *copies);
/* Drop the journal's findings on inodes the walk did not reach. */
void e4t_findings_reached_only(struct e4t_findings *fs);
/* Sort by rule (found order within one); counts[e4t_rule_count()]. */
void e4t_findings_by_rule(struct e4t_findings *fs, size_t *counts);
void e4t_findings_free(struct e4t_findings *fs);

#endif /* E4T_RULES_H */
