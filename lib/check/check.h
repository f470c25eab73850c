/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h --- e4time check: the problem table (problem.c), the scan that
 * finds timestamp problems (check.c), the problems found, in inode order,
 * and what is decided of them (result.c), and the fixes that repair them
 * (fix.c), in the style of e2fsck's problem.c and pass1.c.
 * Included by e4time.h.
 */
#ifndef E4T_CHECK_H
#define E4T_CHECK_H

#include <signal.h>

#include "fs/fs.h"

/* The problems, in the table's order (codes T0001, T0002, ...). */
enum e4t_pcode {
	E4T_P_BAD_NSEC = 0,	  /* T0001 nanoseconds >= 10^9 */
	E4T_P_OLD_PRE1970,	  /* T0002 pre-1970 time in the old encoding */
	E4T_P_CRTIME_NO_ROOM,	  /* T0003 crtime not stored, room for it */
	E4T_P_CRTIME_UNSET,	  /* T0004 crtime stored but 0 */
	E4T_P_CRTIME_AFTER_CTIME, /* T0005 crtime later than ctime */
	E4T_P_CRTIME_AFTER_MTIME, /* T0006 crtime later than mtime + tol */
	E4T_P_FUTURE,		  /* T0007 later than last write or now */
	E4T_P_SB_EXTRA_ISIZE,	  /* T0008 s_min/want_extra_isize < 32 */
	E4T_P_EXTRA_ISIZE_SMALL,  /* T0009 crtime stored, i_extra_isize
				   * smaller than the kernel wants */
	E4T_P_COUNT
};

/* struct e4t_problem_def.flags */
#define E4T_PF_WARNING 0x01 /* severity warning (else error) */
#define E4T_PF_PREEN   0x02 /* preen (-p) may fix it */
#define E4T_PF_SOURCE  0x04 /* fixed only with a crtime source */
#define E4T_PF_NOFIX   0x08 /* never fixed */

struct e4t_problem_def {
	const char *code;  /* "T0001" */
	const char *name;  /* "bad_nsec", for machines */
	const char *text;  /* what is wrong, for people */
	const char *fix;   /* what the fix does ("" when never fixed) */
	const char *quest; /* the question asked: "Clear nanoseconds" */
	unsigned flags;	   /* E4T_PF_* */
};
/* The table entry of c; NULL when out of range. */
const struct e4t_problem_def *e4t_problem_def(enum e4t_pcode c);
/* The problem whose code ("T0006", any case) or name
 * ("crtime_after_mtime") is s[0..len), or -1. */
int e4t_problem_find(const char *s, size_t len);

/* Where check takes a crtime from (--crtime-from). */
enum e4t_crsrc {
	E4T_CRSRC_NONE = 0,
	E4T_CRSRC_CTIME,
	E4T_CRSRC_MTIME,
	E4T_CRSRC_EARLIEST, /* the earlier of mtime and ctime */
	E4T_CRSRC_XATTR,    /* a backfill source (lib/sources) */
};

/* Why a problem has no fix (struct e4t_problem.nofix). */
enum e4t_nofix {
	E4T_NOFIX_NONE = 0,	/* it has one */
	E4T_NOFIX_NEVER,	/* a warning: never fixed */
	E4T_NOFIX_NO_SOURCE,	/* no --crtime-from */
	E4T_NOFIX_SOURCE_EMPTY, /* the source holds no time for it */
	E4T_NOFIX_SOURCE_LATE,	/* the source time is later than ctime or
				 * mtime (would still be wrong) */
	E4T_NOFIX_CSUM,		/* the inode's checksum does not verify */
	E4T_NOFIX_NO_GROW,	/* growing i_extra_isize is not possible */
	E4T_NOFIX_INLINE,	/* inline data: not grown (problem.c) */
	E4T_NOFIX_WARNING,	/* a warning --fix does not name */
	E4T_NOFIX_MOUNTED,	/* the filesystem is mounted */
};
const char *e4t_nofix_text(enum e4t_nofix n);

/* One problem found, as e4t_check_get() gives it. */
struct e4t_problem {
	enum e4t_pcode code;
	ext2_ino_t ino;
	enum e4t_field field;
	struct e4t_ts value;  /* the field's time as decoded */
	struct e4t_ts limit;  /* compared with (ctime, mtime, the limit) */
	uint32_t raw_base;    /* the field's words on disk */
	uint32_t raw_extra;   /* (0 when it has none) */
	uint16_t extra_isize; /* the inode's (T0008: s_want_extra_isize) */
	uint16_t min_isize;   /* T0008: s_min_extra_isize; T0009: what
			       * the kernel grows i_extra_isize to */
	const char *path;     /* a name of the inode, raw bytes */
	size_t path_len;
	enum e4t_nofix nofix;  /* why there is no fix, or NONE */
	struct e4t_ts fix_to;  /* the time the fix writes */
	const char *src_xattr; /* the xattr the crtime came from, or NULL */
	int fix;	       /* decided: write the fix */
	int fixed;	       /* written (e4t_check_fix) */
};

struct e4t_check_opts {
	int64_t now;		  /* seconds; the clock */
	uint32_t mtime_tolerance; /* seconds crtime may pass mtime by */
	enum e4t_crsrc crtime_from;
	const struct e4t_source *src; /* E4T_CRSRC_XATTR */
	/* Nothing may be fixed: 0, or why (E4T_NOFIX_CSUM: e2fsck's to
	 * run first; E4T_NOFIX_MOUNTED), which every problem that has a
	 * fix is left with. */
	enum e4t_nofix refuse;
	/* The warnings that may be fixed (--fix), a bit (1U << code)
	 * each: a warning is never fixed otherwise, unless the fix of an
	 * error of the same inode writes the same field (T0006 with
	 * T0005: one crtime). */
	uint32_t fix_warnings;
	/* Called for each inode looked at; non-zero stops the scan. */
	int (*inode_done)(void *priv);
	/* Now and then: "inodes" looked at (e4t_check_scan()), "fixes"
	 * written (e4t_check_fix()), out of about how many. */
	e4t_progress_fn progress;
	void *priv;
};

/*
 * --crtime-from SPEC: "ctime", "mtime", "earliest", or a backfill source
 * (e4t_source_parse(), EINVAL when it is none of them), into *from; *src
 * the source, or NULL, the caller's to free (e4t_source_free()).
 */
errcode_t e4t_check_crtime_from(const char *spec, enum e4t_crsrc *from,
				struct e4t_source **src);

struct e4t_prec; /* a problem as the result keeps it (result.c) */

struct e4t_check_result {
	struct e4t_prec *rec; /* in the walk's order */
	size_t n, cap;
	uint32_t *order; /* rec's indexes in inode order, or NULL: the same */
	char *paths;	 /* every problem's path, one after the other */
	size_t paths_len, paths_cap;
	const char *const *src_names; /* the source's xattrs, or NULL */
	unsigned long inodes;	      /* inodes looked at */
	unsigned long skipped_csum;   /* with a checksum that fails */
	int64_t limit;		      /* the "future" limit used */
	int limit_is_wtime;    /* it is the superblock's last write time */
	int pre1970;	       /* T0002 is looked for (before the cut-off) */
	unsigned inode_size;   /* the filesystem's */
	enum e4t_nofix refuse; /* opts.refuse */
	uint32_t fix_warnings; /* opts.fix_warnings */
};

/*
 * Look at every inode reachable from / in tree (loaded from img), once
 * each, and add every problem found to res (paths the first name the
 * walk gives), then put them in inode order (the superblock's first).
 * 0, ENOMEM, or a callback's stop value.
 */
errcode_t e4t_check_scan(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_check_opts *opts,
			 struct e4t_check_result *res);
/* Problem i (< res->n) into *p; p->path points into res. */
void e4t_check_get(const struct e4t_check_result *res, size_t i,
		   struct e4t_problem *p);

/* How check answers (e2fsck's -n, -p, -y, or asking). */
enum e4t_check_mode {
	E4T_CHECK_ASK = 0,
	E4T_CHECK_NO,
	E4T_CHECK_PREEN,
	E4T_CHECK_YES,
};
/*
 * Decide problem i under mode, as e2fsck does: 1 fix it, 0 not (no fix,
 * -n, or -p and not preen-ok), -1 ask (E4T_CHECK_ASK and it has a fix:
 * e4t_check_answer() gives the answer).  With opts.refuse its fix is
 * taken away first; a warning's too, unless opts.fix_warnings names it
 * (E4T_NOFIX_WARNING) or the fix of an error of the same inode and field
 * decided before it writes it (then it is decided as that one).  Decide
 * in order (0, 1, ...), before e4t_check_get(): the problem's nofix may
 * change.
 */
int e4t_check_decide(struct e4t_check_result *res, size_t i,
		     enum e4t_check_mode mode);
void e4t_check_answer(struct e4t_check_result *res, size_t i, int fix);
/* Is any problem's fix to be written? */
int e4t_check_any_fix(const struct e4t_check_result *res);

/*
 * The counts add up: errors = fixed + left, warnings = warnings_fixed +
 * warnings_left.  Left errors (and, with --strict, left warnings) make
 * the exit status 4.
 */
struct e4t_check_summary {
	unsigned long inodes;	/* looked at */
	unsigned long errors;	/* problems of severity error */
	unsigned long fixed;	/* errors fixed (written) */
	unsigned long left;	/* errors not fixed */
	unsigned long warnings; /* problems of severity warning */
	unsigned long warnings_fixed;
	unsigned long warnings_left;
	unsigned long skipped; /* not looked at: checksum, i_extra_isize */
	unsigned inode_size;   /* of the filesystem: 128 stores no crtime */
};
void e4t_check_summarize(const struct e4t_check_result *res,
			 struct e4t_check_summary *s);

/*
 * Write the fixes of the problems whose fix is set, inode by inode in
 * ascending order through a batch; *stop (when not NULL) set stops the
 * run between two inodes (what was written stays, and is flushed).
 * Marks each written problem fixed: an inode's once the flush of its
 * window of the inode table returned 0 (a failed flush: none of that
 * window's, see e4t_batch_on_flush()), the superblock's (T0008, written
 * at close) unless a write failed, when it is taken back.  o's progress
 * is called.  0 or the write's error.
 */
errcode_t e4t_check_fix(struct e4t_image *img, struct e4t_check_result *res,
			const struct e4t_check_opts *o,
			const volatile sig_atomic_t *stop);
void e4t_check_result_free(struct e4t_check_result *res);

#endif /* E4T_CHECK_H */
