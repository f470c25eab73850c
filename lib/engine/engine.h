/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h --- lib/engine/: what backfill and import do: manifests (JSON
 * lines as export writes them), the replacement policy, backfill, import
 * and path maps.  Part of the API; included by e4time.h.
 */
#ifndef E4TIME_ENGINE_H
#define E4TIME_ENGINE_H

#include "fs/fs.h"
#include "write/write.h"

/* ------------------------------------------------------------------ */
/* Manifests (manifest.c): JSON lines as e4time export writes them      */
/* ------------------------------------------------------------------ */

struct e4t_manifest_entry {
	char *path; /* raw bytes (from path_hex when given), malloc'd */
	size_t path_len;
	ext2_ino_t ino;	    /* 0 when absent */
	int header_version; /* > 0: the header line {"e4time_manifest":N} */
	int have[E4T_NFIELDS];
	struct e4t_ts ts[E4T_NFIELDS];
};

/* Why a line was refused, for the caller's message. */
struct e4t_manifest_why {
	int dup_key;	    /* a key came twice in one object: */
	char key[64];	    /* that key, decoded (cut at 63 bytes) */
	size_t key_len;	    /* its whole length, bytes */
	size_t dup_key_off; /* its second one in the line, as written */
};

/*
 * Parse one line; E4T_ERR_MANIFEST when it is malformed,
 * E4T_ERR_MANIFEST_DUP when an object holds a key twice (why, when not
 * NULL, then says where).
 */
errcode_t e4t_manifest_parse_line(const char *line, size_t len,
				  struct e4t_manifest_entry *e,
				  struct e4t_manifest_why *why);
void e4t_manifest_entry_free(struct e4t_manifest_entry *e);

/* ------------------------------------------------------------------ */
/* Replacement policy (policy.c): backfill and import                  */
/* ------------------------------------------------------------------ */

/* When does a new time replace the current one? */
enum e4t_policy {
	E4T_POLICY_EARLIER, /* the new time is earlier */
	E4T_POLICY_MISSING, /* the current one is 0 (unset), and they differ */
	E4T_POLICY_ALWAYS,  /* they differ */
};
/* "earlier", "missing", "always" -> policy; -1 when unknown. */
int e4t_policy_parse(const char *name);
int e4t_policy_wants(enum e4t_policy p, const struct e4t_ts *new_ts,
		     const struct e4t_ts *cur);

/* ------------------------------------------------------------------ */
/* Backfill (backfill.c): crtime from a creation time in an xattr      */
/* ------------------------------------------------------------------ */

/* What became of a file; the order is the report's. */
enum e4t_bf_reason {
	E4T_BF_CHANGED = 0, /* set (or, dry run, would be set) */
	E4T_BF_NO_XATTR,    /* none of the source's xattrs */
	E4T_BF_NO_TIME,	    /* the xattr holds no create time */
	E4T_BF_INVALID,	    /* the xattr's value is damaged */
	E4T_BF_NOT_EARLIER, /* the policy keeps the crtime */
	E4T_BF_ALREADY_SET, /* policy missing: the crtime is not 0 */
	E4T_BF_EQUAL,	    /* the source time is the crtime */
	E4T_BF_TOO_SMALL,   /* the inode has no room for crtime */
	E4T_BF_UNREADABLE,  /* bad checksum, unreadable xattrs... */
	E4T_BF_NREASONS
};
/* "changed", "no_xattr", ..., for machines; NULL when out of range. */
const char *e4t_bf_reason_name(enum e4t_bf_reason r);
/* "changed", "no xattr", ..., for people; NULL when out of range. */
const char *e4t_bf_reason_text(enum e4t_bf_reason r);

/* One file looked at. */
struct e4t_backfill_rec {
	const char *path; /* its first name, raw bytes (not NUL-terminated) */
	size_t path_len;
	ext2_ino_t ino;
	enum e4t_bf_reason reason;
	struct e4t_ts crtime;	   /* as on disk (check E4T_TS_STORED) */
	struct e4t_ts source_time; /* flags 0: the source gave none */
	int version;		   /* the source's format version, or 0 */
	const char *xattr;	   /* the xattr read, or NULL */
	const char *why;	   /* static detail text, or NULL */
};

struct e4t_source; /* sources/sources.h */

struct e4t_backfill_opts {
	const struct e4t_source *src;
	enum e4t_policy policy;
	int dry_run; /* decide and report, write nothing */
	/* 0 chooses (two on two or more CPUs and 65536 or more files), 1 or
	 * 2 forces; anything else is EINVAL. */
	int threads;
	/* Each file, in inode order; non-zero stops the run (see below). */
	int (*record)(const struct e4t_backfill_rec *r, void *priv);
	/* After each chunk's records (NULL: none); non-zero stops. */
	int (*chunk_done)(void *priv);
	void *priv;
};

struct e4t_backfill_stats {
	unsigned long scanned;		      /* files looked at */
	unsigned long count[E4T_BF_NREASONS]; /* records per reason */
	errcode_t write_err;		      /* the write that failed, or 0 */
};

/*
 * Set the crtime of every file reachable from start (whose path is
 * start_path; trailing slashes are dropped) to the creation time the
 * source's xattr holds, where opts->policy wants it.  Hard links count
 * once, under their first name.  Files are visited in inode order,
 * through batches (see e4t_batch_begin()), cut into chunks that end on
 * an inode-table block; with two threads each takes the next chunk, with
 * its own read handle and batch.
 *
 * The callbacks are called from the calling thread only, never two at a
 * time: a chunk's records, in inode order, once the whole chunk is done
 * (its writes flushed), then chunk_done; chunk after chunk in order.  So
 * what they see is the same whatever the threads.  A record's pointers
 * are valid during the call only.
 *
 * A non-zero return from a callback stops the run: no chunk is started
 * after it, those already done are still delivered, and the first such
 * value is returned.  A write that fails stops it too (the undo file
 * restores): stats->write_err says which, and 0 is returned unless
 * something else failed.  Then a file is recorded as changed only when
 * the flush of its window of the inode table returned 0 (see
 * e4t_batch_on_flush()): those of the window that failed are not
 * recorded, and not counted, as if never looked at; the chunks done
 * (on two threads, one after the failed one may have written) are still
 * delivered.  stats counts the records made, whatever the outcome.
 */
errcode_t e4t_backfill_run(struct e4t_image *img, struct e4t_tree *tree,
			   ext2_ino_t start, const char *start_path,
			   const struct e4t_backfill_opts *opts,
			   struct e4t_backfill_stats *stats);

/* Import (import.c): a manifest's times into this image's inodes      */
/* ------------------------------------------------------------------ */

/* A whole manifest, read and checked (every entry; the header left out). */
struct e4t_manifest;

/* Where e4t_manifest_read stopped, for the caller's message. */
struct e4t_manifest_bad {
	unsigned long line;	     /* the bad line; 0: a read error */
	int unknown_version;	     /* a header of a version after 1 */
	struct e4t_manifest_why why; /* E4T_ERR_MANIFEST_DUP: the key */
};

/*
 * Read a manifest as e4time export writes it: empty lines are skipped,
 * an optional header {"e4time_manifest":1,...} must be the first line
 * that is not empty.  E4T_ERR_MANIFEST or E4T_ERR_MANIFEST_DUP for a bad
 * line (bad says which), errno for a read error, ENOMEM.
 */
errcode_t e4t_manifest_read(FILE *fp, struct e4t_manifest **ret,
			    struct e4t_manifest_bad *bad);
/*
 * The same, keeping the times of fields only (1 << E4T_*; import then
 * takes no other), read by threads threads: 0 chooses (two for a large
 * regular file on two CPUs), 1 or 2 (2: when fp is a regular file).
 * e4t_manifest_read() keeps every field.
 */
errcode_t e4t_manifest_read_fields(FILE *fp, unsigned fields, int threads,
				   struct e4t_manifest **ret,
				   struct e4t_manifest_bad *bad);
size_t e4t_manifest_count(const struct e4t_manifest *m);
void e4t_manifest_free(struct e4t_manifest *m);

/* Path maps (pathmap.c): import's --map OLD=NEW and --strip-prefix. */
struct e4t_pathmap;
/*
 * Add the rule OLD=NEW (--strip-prefix P is P=/): both absolute paths,
 * trailing slashes dropped.  EINVAL for a bad path, EEXIST for an OLD
 * given before, ENOMEM.  *pm starts NULL.
 */
errcode_t e4t_pathmap_add(struct e4t_pathmap **pm, const char *old,
			  const char *new);
void e4t_pathmap_free(struct e4t_pathmap *pm);
/*
 * path moved by the rule with the longest OLD that is path or a whole
 * leading part of it (component by component): a malloc'd *out, or
 * *out NULL when no rule matches.  0 or ENOMEM.
 */
errcode_t e4t_pathmap_apply(const struct e4t_pathmap *pm, const char *path,
			    size_t len, char **out, size_t *out_len);
/*
 * Every entry's path moved by pm; the entries no rule matches (and
 * "<INO>" entries) are left out of the manifest and counted in
 * *outside.  0 or ENOMEM.
 */
errcode_t e4t_manifest_map(struct e4t_manifest *mf,
			   const struct e4t_pathmap *pm, size_t *outside);

enum e4t_import_match {
	E4T_IMPORT_BY_PATH,  /* an entry's path names the inode */
	E4T_IMPORT_BY_INODE, /* an entry's ino is the inode */
};

/* What became of one entry on one inode (or of an unmatched entry). */
enum e4t_import_outcome {
	E4T_IMPORT_CHANGED,	 /* fields written */
	E4T_IMPORT_WOULD_CHANGE, /* fields would be written (dry run) */
	E4T_IMPORT_UNCHANGED,	 /* the policy keeps every field */
	E4T_IMPORT_REFUSED,	 /* the inode cannot take the times */
	E4T_IMPORT_AMBIGUOUS,	 /* entries disagree on this inode: skipped */
	E4T_IMPORT_UNMATCHED,	 /* no inode of this image */
};
/* "changed", "would_change", "unchanged", "refused", "ambiguous",
 * "unmatched" */
const char *e4t_import_outcome_name(enum e4t_import_outcome o);

struct e4t_import_rec {
	unsigned long line; /* of the entry in the manifest */
	const char *path;   /* the entry's path, raw bytes */
	size_t path_len;
	ext2_ino_t ino; /* 0 when unmatched */
	enum e4t_import_outcome outcome;
	unsigned fields; /* (would) changed: 1 << E4T_* of each field */
	struct e4t_ts old_ts[E4T_NFIELDS]; /* those fields before */
	struct e4t_ts new_ts[E4T_NFIELDS]; /* and after */
	errcode_t err;			   /* refused: why */
	/* unmatched (by path): a path of this image that is the same
	 * name under Unicode normalization and case folding (as a
	 * casefolded ext4 directory compares names), or NULL */
	const char *hint;
	size_t hint_len;
};

typedef int (*e4t_import_fn)(const struct e4t_import_rec *r, void *priv);

struct e4t_import_opts {
	const struct e4t_manifest *manifest;
	enum e4t_import_match match;
	unsigned fields; /* 1 << E4T_CRTIME etc. (not dtime); 0: crtime */
	enum e4t_policy policy;
	int dry_run;	      /* decide and report, write nothing */
	e4t_import_fn record; /* every record, or NULL; non-zero stops */
	void *priv;
	int threads; /* writing: 0 chooses (as backfill), 1 or 2 */
};

struct e4t_import_stats {
	size_t entries;	       /* in the manifest */
	unsigned long changed; /* inodes (would be) changed */
	unsigned long unchanged, refused, ambiguous, unmatched;
	int no_root; /* by path, and the image has no root directory */
	/* entries matched (not ambiguous, the inode read) that give a
	 * time of a field imported: compared with the inode */
	unsigned long compared;
	/* entries matched whose time of a field imported is null or
	 * missing (that field is neither compared nor set) */
	unsigned long nulls;
	/* entries compared whose inode already holds every time they give
	 * for the fields imported, to the nanosecond (whatever the policy) */
	unsigned long agree;
	/* unmatched entries with a hint (e4t_import_rec.hint) */
	unsigned long hinted;
	errcode_t write_err; /* the write that failed (also returned), or 0 */
};

/*
 * Match the manifest's entries with the inodes of tree (loaded from
 * img), and set the times under the policy, through a batch, in inode
 * order (on two threads as backfill, the records in the same order).
 * Every entry that lands on an inode must agree with the others there
 * (on the fields imported), or they are all ambiguous.  A refused inode
 * is a record; a failed write stops the run and is returned (also in
 * stats->write_err; the unmatched entries are still reported): an inode
 * is then recorded, and counted, as changed only when it reached the
 * image, as for e4t_backfill_run().  Without a root directory (by
 * path) nothing is done: E4T_ERR_NOT_IN_USE, stats->no_root set.
 * An unmatched entry (by path) whose name is in the image in another
 * Unicode normalization gets that name as its record's hint.
 * EINVAL: a field to import that the manifest was read without.
 */
errcode_t e4t_import_run(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_import_opts *opts,
			 struct e4t_import_stats *stats);

#endif /* E4TIME_ENGINE_H */
