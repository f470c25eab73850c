/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.h --- libe4time: the jbd2 journal of an image (journal.c) and
 * the history of inodes that its inode-table copies tell (audit.c).
 *
 * Included by e4time.h.  As everywhere in libe4time: no printing, no
 * exit(); errcode_t results; problems that do not stop the work go to
 * an e4t_warn_fn (ino 0, detail naming the journal block).
 */
#ifndef E4T_JOURNAL_H
#define E4T_JOURNAL_H

#include "fs/fs.h"

/* ------------------------------------------------------------------ */
/* Journal reader (journal.c)                                          */
/* ------------------------------------------------------------------ */

struct e4t_journal;

/* What the journal superblock says, checked. */
struct e4t_jinfo {
	int internal;	     /* 1: in inode inum; 0: external (path) */
	ext2_ino_t inum;     /* s_journal_inum, internal journals */
	const char *path;    /* external journal file, or NULL */
	unsigned sb_version; /* 1 or 2 */
	uint32_t blocksize;
	uint32_t maxlen;    /* journal blocks, fast-commit area included */
	uint32_t first;	    /* first log block */
	uint32_t log_end;   /* log blocks are [first, log_end) */
	uint32_t fc_first;  /* log_end + 1: the kernel writes fast
			       commits to [fc_first, maxlen) */
	uint32_t fc_blocks; /* s_num_fc_blks: [log_end, maxlen) is the
			       fast-commit area; 0: none */
	uint32_t sequence;  /* s_sequence: first tid of the live log */
	uint32_t start;	    /* s_start: 0 when clean */
	int32_t errno_val;  /* s_errno */
	uint32_t compat, incompat, ro_compat;
	uint8_t uuid[16];
	int csum_version;   /* 0 none, 1 (crc32 in commits), 2, 3 */
	int sb_csum;	    /* -1 none, 0 bad, 1 verified */
	int live;	    /* s_start != 0: the log is to be replayed */
	unsigned tag_bytes; /* size of a descriptor tag: 8/10/12/14/16 */
	uint64_t fs_blocks; /* ext2fs_blocks_count of the filesystem */
};

/* struct e4t_jblock.flags */
#define E4T_JB_ESCAPED	0x01 /* magic zeroed in the journal copy */
#define E4T_JB_CSUM_BAD 0x02 /* data tag checksum does not verify */
#define E4T_JB_REVOKED                                                         \
	0x04		      /* a revoke in this or a later                   \
				 transaction cancels its replay */
#define E4T_JB_OUT_OF_FS 0x08 /* home block beyond the filesystem */
#define E4T_JB_OVERWRITTEN                                                     \
	0x10 /* stale copy since reused by a newer                             \
		transaction */
/* Copies with any of these are not used for comparisons. */
#define E4T_JB_UNUSABLE                                                        \
	(E4T_JB_CSUM_BAD | E4T_JB_OUT_OF_FS | E4T_JB_OVERWRITTEN)

/* One journaled copy of a filesystem block. */
struct e4t_jblock {
	uint64_t fsblock; /* its home in the filesystem */
	uint32_t jblock;  /* journal block holding the copy */
	uint32_t flags;	  /* E4T_JB_* */
};

/* One raw inode from a fast commit (EXT4_FC_TAG_INODE). */
struct e4t_fc_inode {
	ext2_ino_t ino;
	uint32_t jblock; /* journal block ... */
	uint16_t offset; /* ... and offset of the raw inode */
	uint16_t len;	 /* 128 + i_extra_isize bytes */
};

/* struct e4t_jtrans.flags */
#define E4T_JT_LIVE	 0x0001 /* in the live log: recovery replays it */
#define E4T_JT_STALE	 0x0002 /* found by scanning: checkpointed */
#define E4T_JT_COMMITTED 0x0004 /* its commit block was found */
#define E4T_JT_CSUM_OK	 0x0008 /* every checksum it carries verified */
#define E4T_JT_CSUM_BAD                                                        \
	0x0010			  /* a descriptor, revoke or commit            \
				     checksum failed */
#define E4T_JT_UNVERIFIED  0x0020 /* no checksums: taken on structure */
#define E4T_JT_FAST_COMMIT 0x0040 /* from the fast-commit area */
#define E4T_JT_DATA_BAD                                                        \
	0x0080 /* some data blocks unusable                                    \
		  (E4T_JB_UNUSABLE) */

/*
 * One transaction.  Usable for history when it is E4T_JT_COMMITTED and
 * not E4T_JT_CSUM_BAD; its blocks may still be individually unusable.
 */
struct e4t_jtrans {
	uint32_t tid;
	uint32_t flags;	    /* E4T_JT_* */
	int64_t commit_sec; /* wall clock at commit; 0 when unknown */
	uint32_t commit_nsec;
	uint32_t first_jblock; /* its first journal block */
	uint32_t nr_jblocks;   /* journal blocks it took: descriptors,
				  data, revokes and commit */
	size_t nblocks;
	struct e4t_jblock *blocks; /* in log order */
	size_t nrevoked;
	uint64_t *revoked; /* filesystem blocks its revoke records name */
	size_t nfc_inodes;
	struct e4t_fc_inode *fc_inodes; /* fast commits only */
};

/* e4t_journal_load flags */
#define E4T_J_STALE 0x0001 /* also find older transactions by scanning */

/*
 * Open the journal of an open image: the internal one (through the
 * journal inode's block map), or the external journal file path, which
 * must carry the filesystem's journal UUID.  Reads and checks the
 * journal superblock; E4T_ERR_NO_JOURNAL, E4T_ERR_JOURNAL_SB,
 * E4T_ERR_JOURNAL_UUID and the like when it cannot be used.
 */
errcode_t e4t_journal_open(struct e4t_image *img, const char *path,
			   struct e4t_journal **ret);
void e4t_journal_close(struct e4t_journal *j);
const struct e4t_jinfo *e4t_journal_info(const struct e4t_journal *j);

/*
 * Find the transactions: the live log, walked from s_start as the
 * kernel's recovery walks it (wrapping at log_end, ending where it
 * ends), then with E4T_J_STALE the older transactions still in the log
 * area, and the fast commits.  Sorted oldest first (tids compare
 * modulo 2^32 around s_sequence; a fast commit comes before the full
 * commit of the same tid).  What is damaged is reported through warn
 * and flagged, never trusted silently.
 */
errcode_t e4t_journal_load(struct e4t_journal *j, unsigned flags,
			   e4t_warn_fn warn, void *priv);
size_t e4t_journal_count(const struct e4t_journal *j);
const struct e4t_jtrans *e4t_journal_trans(const struct e4t_journal *j,
					   size_t i);
/* Was anything damaged found (and reported) while opening/loading? */
int e4t_journal_damaged(const struct e4t_journal *j);
/* Read count journal blocks from journal block jblock. */
errcode_t e4t_journal_read(struct e4t_journal *j, uint32_t jblock,
			   uint32_t count, void *buf);
/* Read the copy b holds, escape undone (blocksize bytes). */
errcode_t e4t_journal_read_copy(struct e4t_journal *j,
				const struct e4t_jblock *b, void *buf);
/* Journal block jblock where it lies in memory (mapped read-only: never
 * write through it, escape not undone), or NULL: then read it. */
const uint8_t *e4t_journal_block(const struct e4t_journal *j, uint32_t jblock);
/*
 * n more blocks were read where the journal lies in memory
 * (e4t_journal_block): every E4T_JOURNAL_RELEASE_BLOCKS blocks, the
 * journal's pages mapped so far are let go.  They stay in the page cache,
 * a pointer into them stays valid and reads the same bytes again; the
 * process's resident memory does not grow with the journal.  Any thread.
 */
#define E4T_JOURNAL_RELEASE_BLOCKS 64
void e4t_journal_touched(struct e4t_journal *j, uint32_t n);
/* The same now, whatever was read: at the end of a pass over the journal
 * whose caller goes on to other work with the journal open. */
void e4t_journal_let_go(struct e4t_journal *j);

/* ------------------------------------------------------------------ */
/* Inode history from the journal (audit.c)                            */
/* ------------------------------------------------------------------ */

/* What changed between two copies of an inode; one class per change,
 * the first that applies in this order. */
enum e4t_change {
	E4T_CH_CREATED = 0, /* a free slot became an inode */
	E4T_CH_DELETED,	    /* links went to 0 / dtime set */
	E4T_CH_CRTIME,	    /* crtime changed on a live inode (the
			       kernel never does that: timestomping) */
	E4T_CH_MTIME,	    /* data: mtime, size, blocks, extents */
	E4T_CH_CTIME,	    /* metadata: mode, owner, links, flags,
			       xattrs, ctime */
	E4T_CH_ATIME,	    /* atime only (with its checksum and
			       i_version companions) */
	E4T_CH_OTHER,	    /* anything else */
	E4T_NCHANGES
};
/* "created", "deleted", "crtime", "mtime", "ctime", "atime", "other" */
const char *e4t_change_name(enum e4t_change c);

/* struct e4t_icopy.what: the byte groups that differ from the copy
 * before (bit 1 << group) */
enum e4t_igroup {
	E4T_IG_ATIME = 0, /* 0x08, 0x8C */
	E4T_IG_MTIME,	  /* 0x10, 0x88 */
	E4T_IG_CTIME,	  /* 0x0C, 0x84 */
	E4T_IG_CRTIME,	  /* 0x90, 0x94 */
	E4T_IG_DTIME,	  /* 0x14 */
	E4T_IG_SIZE,	  /* size, blocks count */
	E4T_IG_BLOCKS,	  /* i_block: extents, block map, inline data */
	E4T_IG_MODE,	  /* mode, uid, gid, links, flags, projid, ACL */
	E4T_IG_XATTR,	  /* in-inode extended attributes */
	E4T_IG_CSUM,	  /* checksum words */
	E4T_IG_VERSION,	  /* i_version words */
	E4T_IG_GENERATION,
	E4T_IG_OTHER,
	E4T_NIGROUPS
};
const char *e4t_igroup_name(enum e4t_igroup g);

/* Where a copy was found. */
enum e4t_icopy_src {
	E4T_SRC_JOURNAL = 0, /* a full-block copy in a transaction */
	E4T_SRC_FAST_COMMIT, /* a fast-commit INODE record */
	E4T_SRC_DISK	     /* the inode table on disk (home block) */
};

/* One copy of one inode, as e4t_inode_history and e4t_audit_run hand
 * them out in order (oldest first; the disk copy last). */
struct e4t_icopy {
	ext2_ino_t ino;
	enum e4t_icopy_src src;
	size_t trans; /* index of its transaction (not for the disk copy) */
	const struct e4t_jtrans *t; /* NULL for the disk copy */
	const uint8_t *raw; /* inode_size bytes as on disk (little-endian);
			       fast commits: len bytes, zero-filled to
			       inode_size; valid during the call only */
	unsigned len;
	int baseline;		/* no earlier copy: nothing compared */
	int same;		/* byte-identical to the copy before */
	enum e4t_change change; /* when !baseline && !same */
	uint32_t what;		/* 1 << E4T_IG_*, differing groups */
	int crtime_changed;	/* crtime differs from the copy before */
	/* e4t_audit_run: the copy before (inode_size bytes; NULL for a
	 * baseline), and its transaction (NULL: the home block on disk,
	 * older than every copy in the journal) */
	const uint8_t *prev;
	const struct e4t_jtrans *prev_t;
	/* e4t_audit_run_flags with E4T_AUDIT_PARTS: the share (0 or 1)
	 * whose thread hands it out */
	unsigned part;
};

/* Compare two raw inodes; fills change, what, crtime_changed, same. */
void e4t_inode_compare(const uint8_t *old, const uint8_t *new,
		       unsigned inode_size, struct e4t_icopy *c);

typedef int (*e4t_icopy_fn)(const struct e4t_icopy *c, void *priv);

/*
 * Every copy of inode ino in the loaded journal, then the one on disk,
 * each compared with the copy before it.  fn returning non-zero stops.
 */
errcode_t e4t_inode_history(struct e4t_image *img, struct e4t_journal *j,
			    ext2_ino_t ino, e4t_icopy_fn fn, void *priv);

/* Per transaction results of an audit (same index as the journal's). */
struct e4t_audit_trans {
	uint32_t itable_blocks;		/* inode-table blocks it journaled */
	uint32_t changes[E4T_NCHANGES]; /* inode changes by class */
	int atime_only; /* it carried atime-only inode changes and
			   nothing else (no other block, no other change) */
};

/* Per inode results */
struct e4t_audit_inode {
	ext2_ino_t ino;
	uint32_t changes[E4T_NCHANGES];
	uint32_t relatime_would_skip; /* atime-only updates relatime would
					 not have made */
};

struct e4t_audit {
	size_t ntrans;
	struct e4t_audit_trans *trans;
	size_t ninodes; /* inodes with at least one change, by ino */
	struct e4t_audit_inode *inodes;
	uint64_t inode_updates; /* changes of every class */
	uint64_t changes[E4T_NCHANGES];
	uint64_t atime_only_transactions;
	uint64_t atime_only_blocks; /* journal blocks those took */
	uint64_t relatime_would_skip;
	uint64_t baseline_blocks; /* first copies (compared to nothing) */
	uint64_t disk_baselines;  /* first copies compared with an older
				     home block on disk */
	uint64_t journal_blocks;  /* blocks of the transactions used */
	uint64_t unusable_blocks; /* copies not used (E4T_JB_UNUSABLE) */
};

/*
 * Compare every inode-table copy in the loaded journal with the copy
 * before it.  When fn is not NULL it sees every compared copy.
 */
errcode_t e4t_audit_run(struct e4t_image *img, struct e4t_journal *j,
			e4t_icopy_fn fn, void *priv, struct e4t_audit **ret);
/*
 * The same; with E4T_AUDIT_DISK_AFTER fn also sees, after the journal's
 * copies, each inode whose home block on disk differs from the block's
 * last copy when no copy of it is live (the disk is then the newer):
 * src E4T_SRC_DISK, t NULL, prev the last copy.  Those are not counted.
 */
#define E4T_AUDIT_DISK_AFTER 0x0001
/* fn may run on two threads at once, one a share of the inode-table
 * blocks (c->part: 0 or 1): every copy of an inode comes from one share,
 * in the order above; fn must keep each share's data apart. */
#define E4T_AUDIT_PARTS 0x0002
/* No per-inode results (ninodes 0, inodes empty): the caller only wants
 * fn's copies and the totals; saves 32 bytes per inode of the filesystem. */
#define E4T_AUDIT_NO_INODES 0x0004
errcode_t e4t_audit_run_flags(struct e4t_image *img, struct e4t_journal *j,
			      e4t_icopy_fn fn, void *priv, unsigned flags,
			      struct e4t_audit **ret);
void e4t_audit_free(struct e4t_audit *a);

/* ------------------------------------------------------------------ */
/* Names of deleted files from the journal (jnames.c)                  */
/* ------------------------------------------------------------------ */

/* An entry that a journaled copy of a directory block held and the
 * directory does not hold now (same inode and name). */
struct e4t_jname {
	ext2_ino_t dir, ino;
	const char *name; /* raw bytes, not NUL-terminated */
	unsigned name_len;
	unsigned file_type;
	size_t trans; /* the last transaction whose copy held it */
	uint32_t tid;
	int64_t commit_sec; /* its commit time; 0 when unknown */
	uint32_t commit_nsec;
};
typedef int (*e4t_jname_fn)(const struct e4t_jname *e, void *priv);
/*
 * Every such entry of the directories dirs (their block maps as they are
 * now), from the verified transactions of the loaded journal (committed,
 * no checksum failure, the copy usable; fast commits hold no directory
 * blocks), once each, by directory, inode and name.  A directory that
 * cannot be read now gives none.  fn returning non-zero stops.
 */
errcode_t e4t_journal_names(struct e4t_image *img, struct e4t_journal *j,
			    const ext2_ino_t *dirs, size_t ndirs,
			    e4t_jname_fn fn, void *priv);

/* An entry the journaled copies of a directory's blocks held, and when:
 * transactions by index (as e4t_journal_trans takes them). */
struct e4t_jentry {
	ext2_ino_t dir, ino;
	const char *name; /* raw bytes, not NUL-terminated */
	unsigned name_len;
	size_t first; /* the first transaction whose copy held it */
	size_t last;  /* the last one, in this interval */
	size_t gone;  /* the first later copy of its block without it (the
			 entry removed, renamed): SIZE_MAX, none */
	int live;     /* the directory holds it now (gone is SIZE_MAX) */
};
typedef int (*e4t_jentry_fn)(const struct e4t_jentry *e, void *priv);
/*
 * Every entry of the directories dirs that the verified copies of their
 * blocks held (as e4t_journal_names reads them), live ones too, once for
 * each interval: an entry gone and then held again (the same name for
 * the same inode number) is given twice.  fn returning non-zero stops.
 */
errcode_t e4t_journal_entries(struct e4t_image *img, struct e4t_journal *j,
			      const ext2_ino_t *dirs, size_t ndirs,
			      e4t_jentry_fn fn, void *priv);

/* ------------------------------------------------------------------ */
/* Deleted inodes before their deletion (jbefore.c)                    */
/* ------------------------------------------------------------------ */

/* The last copy of an inode from before its deletion. */
struct e4t_jbefore {
	ext2_ino_t ino;
	size_t trans;		    /* index of its transaction */
	const struct e4t_jtrans *t; /* that transaction */
	const uint8_t *raw; /* inode_size bytes as on disk (little-endian;
			       a fast commit's record zero-filled); valid
			       during the call only */
	unsigned len;
};
typedef int (*e4t_jbefore_fn)(const struct e4t_jbefore *c, void *priv);
/*
 * For each inode of inos (any order, repeats ignored) that can be read
 * now and whose link count is 0 now, the last copy in the verified
 * transactions of the loaded journal (committed, no checksum failure,
 * the copy usable; fast-commit inode records too) whose mode and links
 * count are not zero and whose i_generation is the inode's on disk now
 * (the same file, not an earlier one of that number): fn once for each
 * inode that has one, by inode number.  fn returning non-zero stops.
 */
errcode_t e4t_journal_before_delete(struct e4t_image *img,
				    struct e4t_journal *j,
				    const ext2_ino_t *inos, size_t n,
				    e4t_jbefore_fn fn, void *priv);

/* ------------------------------------------------------------------ */
/* Files the disk no longer has (jdead.c, jnames.c)                    */
/* ------------------------------------------------------------------ */

/* A request for the last journaled copy of an inode. */
struct e4t_jcopy_req {
	ext2_ino_t ino;
	size_t max_trans; /* copies of this transaction or before only */
	uint32_t gen;	  /* with match_gen: of this generation only */
	int match_gen;
	uint8_t *raw; /* the caller's: inode_size bytes, the copy */
	/* out */
	int have;
	size_t trans; /* the copy's transaction */
	size_t first; /* the first transaction with a matching copy */
};
/*
 * For each request, the last copy of its inode in the verified
 * transactions (committed, no checksum failure, the copy usable;
 * fast-commit inode records zero-filled) up to max_trans whose mode and
 * links count are not 0 (and whose i_generation is gen with match_gen):
 * into raw, little-endian as on disk.
 */
errcode_t e4t_journal_inode_copies(struct e4t_image *img, struct e4t_journal *j,
				   struct e4t_jcopy_req *reqs, size_t n);
/*
 * The blocks a raw directory inode (a journaled copy, len bytes) maps by
 * its extent tree (index blocks read from the disk) or its block map
 * (direct blocks, then those the indirect, double and triple indirect
 * blocks on the disk list), in logical order, each block once, 65,536 at
 * most (1,024 index or indirect blocks read at most); none for an
 * inline-data one.  *blocks: free it.
 */
errcode_t e4t_raw_dir_blocks(struct e4t_image *img, const uint8_t *raw,
			     unsigned len, blk64_t **blocks, size_t *n);
/*
 * Every entry that a verified journaled copy of blocks (those of a
 * directory that is gone: dir, of generation gen) held, from transaction
 * min_trans on; with metadata_csum a copy must verify as a block of dir
 * and gen.  No blocks (an inline-data directory): the entries of the
 * journaled copies of dir's inode, of generation gen, inline then.
 * Once each (directory, inode, name), of the last transaction that held
 * it, by inode and name.  fn returning non-zero stops.  Names in an
 * encrypted directory (dir's i_flags: a deleted inode keeps them) may
 * hold any byte.
 */
errcode_t e4t_journal_dir_names(struct e4t_image *img, struct e4t_journal *j,
				ext2_ino_t dir, uint32_t gen,
				const blk64_t *blocks, size_t nblocks,
				size_t min_trans, e4t_jname_fn fn, void *priv);
/*
 * Every directory whose first block a verified journaled copy holds (it
 * begins with "." naming the directory, then ".."; inode-table blocks
 * are not read): fn once for each, by inode number, with its parent
 * and the last transaction of such a copy.  fn returning non-zero stops.
 */
typedef int (*e4t_jdot_fn)(ext2_ino_t dir, ext2_ino_t parent, size_t trans,
			   void *priv);
errcode_t e4t_journal_dot_dirs(struct e4t_image *img, struct e4t_journal *j,
			       e4t_jdot_fn fn, void *priv);

#endif /* E4T_JOURNAL_H */
