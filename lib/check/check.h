/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h --- e4time check: the problem table (problem.c) and the scan
 * that finds timestamp problems and the fixes that repair them
 * (check.c), in the style of e2fsck's problem.c and pass1.c.
 * Included by e4time.h.
 */
#ifndef E4T_CHECK_H
#define E4T_CHECK_H

#include <signal.h>

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
};
const char *e4t_nofix_text(enum e4t_nofix n);

/* One problem found. */
struct e4t_problem {
	enum e4t_pcode code;
	ext2_ino_t ino;
	enum e4t_field field;
	struct e4t_ts value;  /* the field's time as decoded */
	struct e4t_ts limit;  /* compared with (ctime, mtime, the limit) */
	uint32_t raw_base;    /* the field's words on disk */
	uint32_t raw_extra;   /* (0 when it has none) */
	uint16_t extra_isize; /* the inode's (T0008: s_want_extra_isize) */
	uint16_t min_isize;   /* T0008: s_min_extra_isize */
	char *path;	      /* a name of the inode, raw bytes, malloc'd */
	size_t path_len;
	size_t path_off;       /* in the result's paths */
	enum e4t_nofix nofix;  /* why there is no fix, or NONE */
	struct e4t_ts fix_to;  /* the time the fix writes */
	uint32_t keep_extra;   /* T0001/T0002: the _extra bits kept */
	const char *src_xattr; /* the xattr the crtime came from, or NULL */
	int fix;	       /* the caller's decision: write the fix */
	int fixed;	       /* written (e4t_check_fix) */
};

struct e4t_check_opts {
	int64_t now;		  /* seconds; the clock */
	uint32_t mtime_tolerance; /* seconds crtime may pass mtime by */
	enum e4t_crsrc crtime_from;
	const struct e4t_source *src; /* E4T_CRSRC_XATTR */
	/* Called for each inode looked at; non-zero stops the scan. */
	int (*inode_done)(void *priv);
	e4t_progress_fn progress;
	void *priv;
};

struct e4t_check_result {
	struct e4t_problem *p; /* in inode order */
	size_t n, cap;
	char *paths; /* every problem's path, one after the other */
	size_t paths_len, paths_cap;
	unsigned long inodes;	    /* inodes looked at */
	unsigned long skipped_csum; /* with a checksum that fails */
	int64_t limit;		    /* the "future" limit used */
	int limit_is_wtime;	    /* it is the superblock's last write time */
};

/*
 * Look at every inode reachable from / in tree (loaded from img), once
 * each, and add every problem found to res (paths the first name the
 * walk gives).  0, ENOMEM, or a callback's stop value.
 */
errcode_t e4t_check_scan(struct e4t_image *img, struct e4t_tree *tree,
			 const struct e4t_check_opts *opts,
			 struct e4t_check_result *res);
/*
 * Write the fixes of the problems whose fix is set, inode by inode in
 * ascending order through a batch; *stop (when not NULL) set stops the
 * run between two inodes (what was written stays, and is flushed).
 * Sets each written problem's fixed.  0 or the write's error.
 */
errcode_t e4t_check_fix(struct e4t_image *img, struct e4t_check_result *res,
			const volatile sig_atomic_t *stop);
void e4t_check_result_free(struct e4t_check_result *res);

#endif /* E4T_CHECK_H */
