/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.c --- the one table of the timestamp problems e4time check
 * finds, as e2fsck's problem.c: each problem's code, what it says, its
 * severity, whether preen (-p) may fix it and what the fix does.
 * e4time(8), check, prints this table; tests/test_docs.sh checks that
 * its codes and names are the man page's.
 */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "e4time.h"

static const struct e4t_problem_def problems[E4T_P_COUNT] = {
	[E4T_P_BAD_NSEC] = { "T0001", "bad_nsec", "nanoseconds of 10^9 or more",
			     "carry the whole seconds into the seconds, as "
			     "the kernel shows the time (epoch bits "
			     "written again)",
			     "Carry nanoseconds into seconds", E4T_PF_PREEN },
	[E4T_P_OLD_PRE1970] = { "T0002", "old_pre1970",
				"pre-1970 time in the encoding of kernels "
				"before 4.4 (read as 2310-2378)",
				"clear the epoch bits, as e2fsck does",
				"Clear epoch bits", E4T_PF_PREEN },
	[E4T_P_CRTIME_NO_ROOM] = { "T0003", "crtime_not_stored",
				   "crtime not stored: i_extra_isize too "
				   "small, but the inode has room",
				   "grow i_extra_isize to 32 or "
				   "s_want_extra_isize (moving in-inode "
				   "xattrs) and set crtime from "
				   "--crtime-from",
				   "Grow inode and set crtime", E4T_PF_SOURCE },
	[E4T_P_CRTIME_UNSET] = { "T0004", "crtime_unset", "crtime unset (zero)",
				 "set crtime from --crtime-from", "Set crtime",
				 E4T_PF_SOURCE },
	[E4T_P_CRTIME_AFTER_CTIME] = { "T0005", "crtime_after_ctime",
				       "crtime later than ctime",
				       "set crtime from --crtime-from",
				       "Set crtime", E4T_PF_SOURCE },
	[E4T_P_CRTIME_AFTER_MTIME] = { "T0006", "crtime_after_mtime",
				       "crtime later than mtime by more than "
				       "the tolerance",
				       "set crtime from --crtime-from",
				       "Set crtime",
				       E4T_PF_WARNING | E4T_PF_SOURCE },
	[E4T_P_FUTURE] = { "T0007", "future",
			   "time later than the superblock's last write "
			   "time, or than now",
			   "", "", E4T_PF_WARNING | E4T_PF_NOFIX },
	[E4T_P_SB_EXTRA_ISIZE] = { "T0008", "sb_extra_isize",
				   "superblock's s_min_extra_isize or "
				   "s_want_extra_isize smaller than 32 with "
				   "inodes larger than 128 bytes",
				   "raise both to 32",
				   "Raise s_min_extra_isize and "
				   "s_want_extra_isize",
				   0 },
	[E4T_P_EXTRA_ISIZE_SMALL] = { "T0009", "extra_isize_small",
				      "i_extra_isize smaller than the kernel "
				      "grows inodes to (32 or "
				      "s_want_extra_isize), crtime stored",
				      "grow i_extra_isize (moving in-inode "
				      "xattrs), times kept",
				      "Grow inode", E4T_PF_WARNING },
};

const struct e4t_problem_def *e4t_problem_def(enum e4t_pcode c)
{
	if ((unsigned)c >= E4T_P_COUNT)
		return NULL;
	return &problems[c];
}

int e4t_problem_find(const char *s, size_t len)
{
	int c;

	for (c = 0; c < E4T_P_COUNT; c++)
		if ((len == strlen(problems[c].code) &&
		     !strncasecmp(s, problems[c].code, len)) ||
		    (len == strlen(problems[c].name) &&
		     !strncmp(s, problems[c].name, len)))
			return c;
	return -1;
}

const char *e4t_nofix_text(enum e4t_nofix n)
{
	switch (n) {
	case E4T_NOFIX_NONE: return "";
	case E4T_NOFIX_NEVER: return "never fixed";
	case E4T_NOFIX_NO_SOURCE: return "needs --crtime-from";
	case E4T_NOFIX_SOURCE_EMPTY: return "the source holds no time";
	case E4T_NOFIX_SOURCE_LATE:
		return "the source time is later than ctime or mtime";
	case E4T_NOFIX_CSUM: return "run e2fsck first";
	case E4T_NOFIX_NO_GROW: return "i_extra_isize cannot be grown here";
	/* The file's data goes on in system.data, which the kernel never
	 * moves out of the inode (ext4_expand_extra_isize_ea()); check lays
	 * in-inode xattrs out again through libext2fs rather than shifting
	 * them, and leaves that to the kernel's next write of the inode. */
	case E4T_NOFIX_INLINE: return "inline data: left to the kernel";
	case E4T_NOFIX_WARNING: return "a warning: fixed only with --fix";
	case E4T_NOFIX_MOUNTED: return "mounted: unmount it to fix";
	}
	return "";
}
