/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirsrc.h --- lib/dirsrc/: a mounted tree read through the kernel
 * (statx), for export --from-dir.  Part of the API; included by e4time.h.
 */
#ifndef E4TIME_DIRSRC_H
#define E4TIME_DIRSRC_H

#include "fs/fs.h"

/* ------------------------------------------------------------------ */
/* A mounted tree (dirsrc/dirwalk.c): export --from-dir                */
/* ------------------------------------------------------------------ */

/* Where a name's crtime came from. */
enum e4t_dw_crtime {
	E4T_DW_STATX,  /* statx's stx_btime */
	E4T_DW_SOURCE, /* the xattr source (e4t_dirwalk_opts.src) */
	E4T_DW_NTFS,   /* ntfs-3g's system.ntfs_crtime */
	E4T_DW_NONE,   /* none: ts[E4T_CRTIME] not stored */
};

struct e4t_dir_row {
	const char *path; /* "/..." from the root walked, raw bytes */
	size_t path_len;
	uint64_t ino; /* the source filesystem's */
	uint32_t mode, nlink, uid, gid;
	uint64_t size;
	/* E4T_TS_STORED (and EXTRA) when known and in ext4's range */
	struct e4t_ts ts[E4T_NFIELDS];
	enum e4t_dw_crtime crtime_from;
};

struct e4t_dirwalk_opts {
	int cross_mounts; /* descend into other filesystems mounted below */
	const struct e4t_source *src; /* crtime where statx has none, or NULL */
	/* each name, directories before what they hold, names sorted by
	 * bytes; non-zero stops the walk (and is returned) */
	int (*row)(const struct e4t_dir_row *r, void *priv);
	/* a name that could not be read (statx, a directory that cannot be
	 * opened or read): the walk goes on; may be NULL */
	void (*error)(const char *path, size_t len, errcode_t err, void *priv);
	void *priv;
};

struct e4t_dirwalk_stats {
	unsigned long names;	    /* rows given */
	unsigned long no_crtime;    /* of them: no birth time from anywhere */
	unsigned long out_of_range; /* times outside ext4's range: left out */
	unsigned long other_fs;	    /* names on another filesystem: skipped */
	unsigned long errors;	    /* errors given */
};

/*
 * Walk the tree under root (a directory of any mounted filesystem) with
 * statx(2), AT_SYMLINK_NOFOLLOW: root itself as "/", then every name
 * below.  A hard link is a row for each of its names (nlink tells).
 * Returns errno when root cannot be opened, the row callback's value,
 * ENOMEM, or 0.
 */
errcode_t e4t_dirwalk(const char *root, const struct e4t_dirwalk_opts *o,
		      struct e4t_dirwalk_stats *st);

#endif /* E4TIME_DIRSRC_H */
