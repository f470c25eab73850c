/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e4time.h --- libe4time: read (and later write) ext4 timestamps on
 * unmounted images, on top of libext2fs.
 *
 * The library never prints and never exits: every function returns an
 * errcode_t, from libext2fs' tables, errno, or libe4time's own com_err
 * table (e4time_err.et).  Diagnostics that do not stop an operation are
 * passed to a caller-supplied warning callback.
 */
#ifndef E4TIME_H
#define E4TIME_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "e4time_err.h"

/* ------------------------------------------------------------------ */
/* Timestamp codec (timecodec.c)                                       */
/* ------------------------------------------------------------------ */

/* Earliest and latest second an ext4 inode with _extra fields stores. */
#define E4T_SEC_MIN	 (-2147483648LL) /* 1901-12-13T20:45:52Z */
#define E4T_SEC_MAX	 (15032385535LL) /* 2446-05-10T22:38:55Z */
#define E4T_NSEC_PER_SEC 1000000000U

enum e4t_field {
	E4T_ATIME = 0,
	E4T_MTIME,
	E4T_CTIME,
	E4T_CRTIME,
	E4T_DTIME,
	E4T_NFIELDS
};

/* struct e4t_ts.flags */
#define E4T_TS_STORED	   0x0001 /* the field exists in this inode */
#define E4T_TS_EXTRA	   0x0002 /* its _extra word exists (nsec, epoch) */
#define E4T_TS_BAD_NSEC	   0x0004 /* nsec >= 10^9 on disk: suspect */
#define E4T_TS_OLD_PRE1970 0x0008 /* epoch bits 3 + sign bit: old encoding */
#define E4T_TS_ZERO	   0x0010 /* base and extra both zero (unset) */
#define E4T_TS_ORPHAN_LINK 0x0020 /* dtime holds the next orphan inode */

/*
 * A decoded timestamp.  sec is seconds since the Unix epoch (floor), nsec
 * is the non-negative fraction, so 1969-12-31T23:59:59.999999999Z is
 * { -1, 999999999 }.  Check flags & E4T_TS_STORED before using the value.
 */
struct e4t_ts {
	int64_t sec;
	uint32_t nsec;
	uint32_t flags;
};

/* Decode a base word and, if extra is non-NULL, its _extra word. */
void e4t_ts_decode(uint32_t base, const uint32_t *extra, struct e4t_ts *ts);
/* Encode sec/nsec into base and _extra words, refusing values ext4 cannot
 * hold (E4T_ERR_TIME_RANGE, E4T_ERR_NSEC_RANGE). */
errcode_t e4t_ts_encode(int64_t sec, uint32_t nsec, uint32_t *base,
			uint32_t *extra);
/* Encode into a base word alone (128-byte inodes, no _extra). */
errcode_t e4t_ts_encode_base(int64_t sec, uint32_t *base);
int e4t_ts_cmp(const struct e4t_ts *a, const struct e4t_ts *b);
const char *e4t_field_name(enum e4t_field f);
/* "atime" etc. -> field; returns -1 when unknown. */
int e4t_field_parse(const char *name);

/* ------------------------------------------------------------------ */
/* Time text (timefmt.c, timeparse.c)                                  */
/* ------------------------------------------------------------------ */

#define E4T_ISO_BUFSZ 48

/*
 * Format as ISO 8601 with a 9-digit fraction: "2009-02-13T23:31:30.123456789Z"
 * in UTC; with utc_offset_sec != INT32_MIN, that offset is applied and
 * written as "+HH:MM" instead of "Z".  sep is 'T' or ' '.
 */
char *e4t_iso8601(int64_t sec, uint32_t nsec, int frac_digits, char sep,
		  int32_t utc_offset_sec, char *buf, size_t len);
/* Days since 1970-01-01 <-> proleptic Gregorian date. */
int64_t e4t_days_from_civil(int64_t y, unsigned m, unsigned d);
void e4t_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);
/*
 * Parse a user-supplied time: ISO 8601 ("2009-02-13T23:31:30.123456789Z",
 * "2009-02-13 23:31:30+02:00", date only, no zone = UTC), "@EPOCH[.FRAC]"
 * (negative allowed), or debugfs' "YYYYMMDD[HHMM[SS]]" (UTC).
 */
errcode_t e4t_time_parse(const char *text, int64_t *sec, uint32_t *nsec);

/* ------------------------------------------------------------------ */
/* Inodes (inode.c)                                                    */
/* ------------------------------------------------------------------ */

/* struct e4t_inode.flags */
#define E4T_INO_CSUM_BAD    0x0001 /* metadata_csum does not verify */
#define E4T_INO_EXTRA_BAD   0x0002 /* i_extra_isize impossible: ignored */
#define E4T_INO_INLINE	    0x0004 /* EXT4_INLINE_DATA_FL */
#define E4T_INO_ORPHAN_LIST 0x0008 /* on the orphan list: dtime is a link */
#define E4T_INO_GEN                                                            \
	0x0100 /* generation holds i_generation (the                           \
		      tree does not keep it) */

/*
 * What e4time knows of one inode: the decoded times, the raw on-disk
 * words they came from, and the stat-like fields.
 */
struct e4t_inode {
	ext2_ino_t ino;
	uint16_t mode;
	uint16_t links;
	uint32_t uid;
	uint32_t gid;
	uint64_t size;
	uint32_t iflags;      /* i_flags */
	uint32_t generation;  /* i_generation, with E4T_INO_GEN */
	uint16_t inode_size;  /* EXT2_INODE_SIZE of the filesystem */
	uint16_t extra_isize; /* i_extra_isize as on disk */
	uint16_t flags;	      /* E4T_INO_* */
	uint16_t present;     /* E4T_PRESENT(f), E4T_PRESENT_EXTRA(f) */
	uint32_t raw_base[E4T_NFIELDS];
	uint32_t raw_extra[E4T_NFIELDS]; /* valid when ts[f] has E4T_TS_EXTRA */
	struct e4t_ts ts[E4T_NFIELDS];
};

#define E4T_PRESENT(f)	     (1U << (f))
#define E4T_PRESENT_EXTRA(f) (1U << (8 + (f)))

/* Fill info from a raw inode as libext2fs returns it (host order). */
void e4t_inode_decode(const struct ext2_inode_large *raw, unsigned inode_size,
		      ext2_ino_t ino, struct e4t_inode *info);
/* The same without info->ts (all zero): e4t_inode_decode_times() fills
 * it; for callers that keep only the raw words (the tree). */
void e4t_inode_decode_fields(const struct ext2_inode_large *raw,
			     unsigned inode_size, ext2_ino_t ino,
			     struct e4t_inode *info);
/* Decode a raw on-disk inode (little-endian, len bytes of inode_size,
 * the rest zero; as struct e4t_icopy.raw) for printing. */
void e4t_inode_decode_disk(const uint8_t *raw, unsigned len,
			   unsigned inode_size, ext2_ino_t ino,
			   struct e4t_inode *info);
/* The present bits (E4T_PRESENT, E4T_PRESENT_EXTRA) of an inode of
 * inode_size bytes whose i_extra_isize is extra_isize as on disk, as
 * e4t_inode_decode_fields() sets them (an impossible one: no _extra). */
uint16_t e4t_inode_present(unsigned inode_size, unsigned extra_isize);
/* (Re)compute info->ts[] from raw_base, raw_extra and present. */
void e4t_inode_decode_times(struct e4t_inode *info);
/* Why is field f absent in this inode?  Static text, or NULL if present. */
const char *e4t_inode_not_stored_reason(const struct e4t_inode *info,
					enum e4t_field f);
/* TSK's letters: 'r' regular, 'd', 'l', 'p', 'c', 'b', 's', '-' unknown */
char e4t_mode_type_char(uint16_t mode);
const char *e4t_mode_type_name(uint16_t mode);

/* ------------------------------------------------------------------ */
/* Images (image.c)                                                    */
/* ------------------------------------------------------------------ */

/* struct e4t_image.state */
#define E4T_IMG_NEEDS_RECOVERY 0x0001
#define E4T_IMG_SB_CSUM_BAD    0x0002
#define E4T_IMG_GD_CSUM_BAD    0x0004
#define E4T_IMG_ERRORS_FLAGGED 0x0008
#define E4T_IMG_TRUNCATED      0x0010
/* the primary superblock is unusable: a backup was read (sbopen.c) */
#define E4T_IMG_PRIMARY_BAD 0x0020

/* Which superblock to read, as e2fsck's -b and -B: block (0: the
 * primary, or a good backup when the primary is unusable) and the block
 * size (0: the superblock's; with block, each size in turn). */
struct e4t_sb_opts {
	uint64_t block;
	unsigned blocksize;
};

/* Exclusive claims and the backing file's name, held while writing (see
 * e4t_check_in_use()). */
#define E4T_IN_USE_MAX_FDS 16
struct e4t_in_use {
	int fds[E4T_IN_USE_MAX_FDS];
	int nfds;
	char backing[4096];
};

struct e4t_view;

struct e4t_image {
	ext2_filsys fs;
	char *name;
	uint64_t offset; /* in the file, or in the view */
	/* where the filesystem starts in the file written: the undo file's
	 * fs_offset (write.c) */
	uint64_t fs_offset;
	/* inside an evidence container (lib/container/): read through
	 * view_io, never written */
	const struct e4t_view *view;
	char view_name[32];
	uint32_t state; /* E4T_IMG_* */
	unsigned inode_size;
	/* the superblock read: 0 the primary, else a backup's block (-b, or
	 * the primary unusable), of sb_blocksize bytes; why the primary was
	 * not read (E4T_IMG_PRIMARY_BAD) */
	uint64_t sb_block;
	unsigned sb_blocksize;
	errcode_t primary_err;
	/* writing (write.c) */
	int writable;
	/* the image, opened once by name (write.c), or -1: every check looks
	 * at it, the lock against a second writer is on it (flock), and every
	 * later open goes through it as io_name, "/proc/self/fd/N" */
	int image_fd;
	char io_name[32];
	int backing_fd; /* flock()ed too: a loop device's file, or -1 */
	int undo_fd;	/* undo_new, flock()ed while written, or -1 */
	struct e4t_in_use in_use; /* claims held while writing */
	char *undo_path;	  /* the e2undo file, or NULL with --no-undo */
	char *undo_new;		  /* written as this, renamed at close */
	unsigned long written;	  /* inodes written */
	pthread_mutex_t write_lock; /* held by batches writing through fs */
};

/* Open read-only; offset in bytes from the start of name. */
errcode_t e4t_image_open(const char *name, uint64_t offset,
			 struct e4t_image **ret);
/*
 * The same with the superblock sb chooses (NULL: as e2fsck does, the
 * primary, or when it is unusable a good backup; see sbopen.h), on the
 * filesystem at offset of view v, or in the file name, or in the file
 * open as fd >= 0 (as e4t_image_open_fd()).
 */
errcode_t e4t_image_open2(const char *name, int fd, const struct e4t_view *v,
			  uint64_t offset, const struct e4t_sb_opts *sb,
			  struct e4t_image **ret);
/* What img->primary_err says of the primary superblock, in a few words
 * ("bad magic", "bad checksum"...): static text. */
const char *e4t_sb_fault(errcode_t why);
/* Open read-only the filesystem at offset of a view (container.h);
 * name is the evidence file's, for messages.  v must outlive img. */
errcode_t e4t_image_open_view(const char *name, const struct e4t_view *v,
			      uint64_t offset, struct e4t_image **ret);
/*
 * Open read-only the image already open as fd (opened by name, once: name
 * is for messages); every later open of it, read-write ones included,
 * goes through /proc/self/fd/FD, the same file whatever the name is now.
 * On success img owns fd (see e4t_image_hold_fd()); on failure the caller
 * keeps it.
 */
errcode_t e4t_image_open_fd(const char *name, int fd, uint64_t offset,
			    struct e4t_image **ret);
/* img's later opens go through fd, which e4t_image_close() closes. */
void e4t_image_hold_fd(struct e4t_image *img, int fd);
void e4t_image_close(struct e4t_image *img);
/* Another read-only handle on the same filesystem (for a second thread). */
errcode_t e4t_image_reopen(struct e4t_image *img, ext2_filsys *fs);
/* Replace img->fs by a read-write handle through io (write.c uses it). */
errcode_t e4t_image_reopen_rw(struct e4t_image *img, io_manager io);

/*
 * The value of the first of names[] (full names: "user.DOSATTRIB") that
 * inode ino has, in a malloc'd copy; *which is its index.
 * E4T_ERR_NO_XATTR when it has none of them.  (xattr_read.c)
 */
errcode_t e4t_xattr_get_first(struct e4t_image *img, ext2_ino_t ino,
			      const char *const *names, void **val, size_t *len,
			      int *which);
/* The same, from an inode the caller has read (raw, full inode size). */
errcode_t e4t_xattr_get_first_raw(struct e4t_image *img, ext2_ino_t ino,
				  struct ext2_inode_large *raw,
				  const char *const *names, void **val,
				  size_t *len, int *which);

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
/* Arrays (grow.c)                                                      */
/* ------------------------------------------------------------------ */

/*
 * Room for need elements of elem bytes in the array *arrp of capacity
 * *cap: the capacity doubles, from first (16 when 0), until it is enough;
 * 0, or ENOMEM (the array is then as it was).
 */
errcode_t e4t_grow(void *arrp, size_t *cap, size_t need, size_t elem,
		   size_t first);

/*
 * Binary search of an array sorted by an unsigned integer field: the
 * index of the first of its n elements (elem bytes each) whose key, the
 * key_size-byte (4 or 8) field at key_off, is not below key; n when none.
 * E4T_LOWER_BOUND(a, n, type, field, key) names the field; a may be NULL
 * when n is 0.
 */
static inline size_t e4t_lower_bound(const void *a, size_t n, size_t elem,
				     size_t key_off, size_t key_size,
				     uint64_t key)
{
	const unsigned char *base = a;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *p = base + mid * elem + key_off;
		uint64_t k;

		if (key_size == 8) {
			memcpy(&k, p, 8);
		} else {
			uint32_t k32;

			memcpy(&k32, p, 4);
			k = k32;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define E4T_LOWER_BOUND(a, n, type, field, key)                                \
	e4t_lower_bound((a), (n), sizeof(type), offsetof(type, field),         \
			sizeof(((type *)0)->field), (key))

/* (ioutil.c) pread len bytes at off, retrying short reads and EINTR;
 * *got is what was read (less at the end of the file); 0 or errno. */
errcode_t e4t_pread_full(int fd, void *buf, size_t len, uint64_t off,
			 size_t *got);
/* An io_channel's set_option for "offset": 0 with *offset set, or
 * EXT2_ET_INVALID_ARGUMENT (another option, or not a number). */
errcode_t e4t_io_offset_option(const char *option, const char *arg,
			       uint64_t *offset);

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
/* Writing (write.c)                                                   */
/* ------------------------------------------------------------------ */

/*
 * Why a write was refused, for the message: what was refused ("undo
 * file PATH", "/dev/loop0p1 is mounted on /mnt"), and the system's error
 * behind it (an errno), or 0.  what is "" when there is nothing to add.
 */
struct e4t_refusal {
	char what[4096 + 160];
	errcode_t cause;
};

struct e4t_write_opts {
	const char *undo_path; /* NULL: the default (e4t_undo_default_path) */
	int no_undo;	       /* write no undo file */
	int dry_run;	       /* check everything, open read-only */
	/* Files the command reads besides the image (a manifest):
	 * never the undo file.  NULL-terminated, or NULL. */
	const char *const *inputs;
	struct e4t_refusal *why; /* filled in on a refusal, or NULL */
	/* the superblock to read (-b, -B): a backup's is refused */
	struct e4t_sb_opts sb;
};

/*
 * Open for writing: refused (and nothing opened RW) when the filesystem
 * is mounted or busy (a loop-mounted image file included), the journal
 * needs recovery, errors are flagged, the superblock or group
 * descriptors fail their checksums, the image is truncated, it is read
 * through a backup superblock (opts->sb, or the primary unusable:
 * E4T_ERR_BACKUP_SB), or another e4time writes to it.  Every block is
 * saved in an e2undo file before it changes.  With dry_run the image is
 * opened read-only after the checks.
 */
errcode_t e4t_image_open_write(const char *name, uint64_t offset,
			       const struct e4t_write_opts *opts,
			       struct e4t_image **ret);
/*
 * The same for the filesystem at offset of view v (container.h), a volume
 * of a raw image (v->c): read through the view, written in the image
 * where each of its extents lies, with an undo file e2undo replays on the
 * whole image at img->fs_offset.  E4T_ERR_CONTAINER_READONLY for other
 * containers, E4T_ERR_VOLUME_LAYOUT for a volume an undo file cannot
 * place (a segment before the first in the image).  v must outlive img.
 */
errcode_t e4t_image_open_write_view(const char *name, const struct e4t_view *v,
				    uint64_t offset,
				    const struct e4t_write_opts *opts,
				    struct e4t_image **ret);
/* Flush, finish the undo file, unlock, close. */
errcode_t e4t_image_close_write(struct e4t_image *img);
/*
 * The same; *undo_kept (when not NULL) is then a malloc'd copy of the
 * undo file's name when it was kept (something reached the image, even
 * if a write failed after), or NULL (nothing written: the undo file of
 * the previous run stays).
 */
errcode_t e4t_image_finish_write(struct e4t_image *img, char **undo_kept);
/*
 * Undo files (undo_path.c).  The default one is
 * $E2FSPROGS_UNDO_DIR (or /var/lib/e2fsprogs)/e4time-BASENAME-HASH.e2undo,
 * HASH eight hex digits of the image's full name and offset; refused
 * (E4T_ERR_UNDO_DIR) when that directory is not a writable directory.
 */
errcode_t e4t_undo_default_path(const char *image, uint64_t offset, char **path,
				struct e4t_refusal *why);
/*
 * May an undo file be written at path?  Its directory must exist, be
 * writable and have 1.1 MiB free; the path must be new, an empty file or
 * an e2undo file, and neither the image nor any of inputs (NULL-ended).
 */
errcode_t e4t_undo_check_path(const char *path, const char *const *inputs,
			      struct e4t_refusal *why);
/*
 * Create path (PATH.new) and hold it with flock(2) in *fd: refused when
 * another run holds it (E4T_ERR_UNDO_BUSY) or it holds an interrupted
 * run's undo data (E4T_ERR_UNDO_LEFTOVER); an empty one is taken over.
 */
errcode_t e4t_undo_claim_new(const char *path, int *fd,
			     struct e4t_refusal *why);
/* Would an undo file replace what is at path (nothing, an empty file or
 * an undo file)? */
int e4t_undo_replaceable(const char *path);

/*
 * Are the bytes [offset, offset + length) of name (an image file or a
 * block device) in use (inuse.c)?  Every block device is traced to the
 * bytes it holds (loop devices to their backing file and offset,
 * partitions to their disk); one that overlaps and is mounted
 * (E4T_ERR_MOUNTED), swap, held by another device or claimed
 * exclusively (E4T_ERR_BUSY) refuses the write, why->what naming it.
 * With hold, the exclusive claims of the loop devices over an image file
 * are kept there (so that none is mounted while the image is written;
 * e4t_in_use_release() lets them go; claims add up over calls, one per
 * span of the same bytes, and one already held is not in use), and
 * hold->backing names the file that holds the bytes (the image file, or
 * a loop device's backing file), which writers lock.
 */
errcode_t e4t_check_in_use(const char *name, uint64_t offset, uint64_t length,
			   struct e4t_in_use *hold, struct e4t_refusal *why);
void e4t_in_use_release(struct e4t_in_use *hold);
/*
 * Is a block device that holds bytes of [offset, offset + length) of name
 * mounted, or the image file mounted through FUSE (E4T_ERR_MOUNTED,
 * why->what naming it and where)?  As the first pass of
 * e4t_check_in_use() and e4t_check_holders()'s mounts, for a reader: no
 * device is opened.  0 when it is not (or name cannot be looked at).
 */
errcode_t e4t_check_mounted(const char *name, uint64_t offset, uint64_t length,
			    struct e4t_refusal *why);
struct stat;
/*
 * Does other (a regular file: all of it; a block device: the bytes it
 * holds, traced as above) overlap [offset, offset + length) of target
 * (an image file's or block device's stat)?  1 or 0.
 */
int e4t_bytes_overlap(const struct stat *target, uint64_t offset,
		      uint64_t length, const struct stat *other);
/*
 * Is the image target (the fstat of its open descriptor), at [offset,
 * offset + length), mounted by a source that is the same file under any
 * name (a FUSE mount: /proc/self/mountinfo), or open in another process
 * (every /proc/PID/fd, holders.c)?  Open for writing in another process
 * refuses (E4T_ERR_HELD; a FUSE server's: E4T_ERR_MOUNTED), open
 * read-only only in a FUSE server (E4T_ERR_MOUNTED); why->what names the
 * mount or the process and its PID.  Processes that cannot be inspected
 * are passed over.
 */
errcode_t e4t_check_holders(const struct stat *target, uint64_t offset,
			    uint64_t length, struct e4t_refusal *why);
/* With the mmp feature: refuse (E4T_ERR_MMP) unless the MMP block says
 * clean. */
errcode_t e4t_check_mmp(ext2_filsys fs, struct e4t_refusal *why);
/*
 * Each inode written once: for the n inode numbers ino[] (0: none), dup_of[i]
 * is the first index whose inode is ino[i] when that is an earlier one (a
 * hard link's other name, <INO> of a path given too, a path given twice),
 * else -1.  0 or ENOMEM.
 */
errcode_t e4t_find_duplicates(const ext2_ino_t *ino, size_t n, long *dup_of);

/*
 * Could these times (fields: bit 1 << E4T_ATIME ...) be written to this
 * inode?  0, or why not: bad checksum, not in use, no room for crtime,
 * no _extra field for nanoseconds or times beyond 32 bits, out of range.
 */
errcode_t e4t_check_settable(const struct e4t_inode *in, unsigned fields,
			     const struct e4t_ts *ts);
/* Write those times (ts indexed by field) into inode ino. */
errcode_t e4t_inode_set_times(struct e4t_image *img, ext2_ino_t ino,
			      unsigned fields, const struct e4t_ts *ts);

/*
 * What the kernel grows an inode's i_extra_isize to (ext4_fill_super()):
 * 32, or s_want_extra_isize or s_min_extra_isize when larger (with the
 * extra_isize feature) and the inodes hold it.
 */
unsigned e4t_want_extra_isize(const struct ext2_super_block *sb);
/*
 * Grow the i_extra_isize of inode ino to e4t_want_extra_isize(), as the
 * kernel does (extra_isize.c): the xattrs in the inode are laid out again
 * after it, or moved to the xattr block when they no longer fit; crtime
 * is set to *crtime in the same write (crtime NULL: kept as it is stored,
 * E4T_ERR_NO_CRTIME_ROOM when it is not).  Nothing done when it is that
 * large already; E4T_ERR_GROW_INLINE for an inode with inline data,
 * E4T_ERR_GROW_SIZE when the inodes are too small.
 */
errcode_t e4t_inode_grow_extra(struct e4t_image *img, ext2_ino_t ino,
			       const struct e4t_ts *crtime);
/* The same on a raw inode (of isz bytes) that holds no xattr in it, to
 * want: E4T_ERR_GROW_XATTRS when it does (e4t_inode_grow_extra() moves
 * them).  The checksum is the caller's. */
errcode_t e4t_grow_raw(struct ext2_inode_large *raw, unsigned isz,
		       unsigned want, const struct e4t_ts *crtime);

/*
 * Batches: many inodes read and written through their inode-table blocks
 * instead of one inode (and one read and write of its block) at a time.
 * The batch holds a window of one group's inode table (up to 1 MiB, read
 * at once); visiting inodes in ascending order makes every window read
 * and written once.  When the window moves on, its changed blocks are
 * written, in runs of consecutive blocks, through the image's I/O channel
 * (so the e2undo file saves the old blocks first), and libext2fs' inode
 * cache is dropped.  A batch on an image opened read-only only reads.
 *
 *	e4t_batch_begin(img, NULL, &b);
 *	for (each ino, ascending) {
 *		e4t_batch_inode(b, ino, &raw);	-- look, e.g. at its xattrs
 *		e4t_batch_set(b, ino, fields, ts);
 *	}
 *	e4t_batch_end(b);			-- writes what is left
 *
 * Several threads may each run a batch on one image: each reads through a
 * handle of its own (rfs, from e4t_image_reopen(); NULL reads through
 * img->fs, for one thread only), writes are serialised on img->write_lock,
 * and no two threads may change inodes of the same inode-table block
 * (e4t_inode_table_block() tells which), so that a window never writes
 * back another thread's inodes.
 *
 * Inode tables are used in place, in on-disk byte order: e4time builds on
 * little-endian hosts only.
 */
struct e4t_batch;

errcode_t e4t_batch_begin(struct e4t_image *img, ext2_filsys rfs,
			  struct e4t_batch **ret);
/*
 * Inode ino as on disk, in the window: inode_size bytes (a 128-byte
 * inode reads as a large one with zeroed or neighbouring bytes past 128).
 * Valid until the next call on b; not to be changed by the caller.
 */
errcode_t e4t_batch_inode(struct e4t_batch *b, ext2_ino_t ino,
			  struct ext2_inode_large **raw);
/*
 * Write those times into inode ino, refused as e4t_inode_set_times()
 * refuses (checked on the inode in the window: a checksum that does not
 * verify, not in use, no room...), and then left as it is; the checksum
 * is recomputed (as libext2fs computes it, with the CPU's CRC32C
 * instruction where there is one).  Counted in img->written once flushed.
 */
errcode_t e4t_batch_set(struct e4t_batch *b, ext2_ino_t ino, unsigned fields,
			const struct e4t_ts *ts);
/*
 * Grow inode ino's i_extra_isize in the window to e4t_want_extra_isize(),
 * with crtime (NULL: kept), as e4t_grow_raw() does (E4T_ERR_GROW_XATTRS:
 * it holds xattrs, grow it with e4t_inode_grow_extra() once the batch has
 * ended); refused when its checksum does not verify.
 */
errcode_t e4t_batch_grow(struct e4t_batch *b, ext2_ino_t ino,
			 const struct e4t_ts *crtime);
/* Write the window's changed blocks now. */
errcode_t e4t_batch_flush(struct e4t_batch *b);
/*
 * fn(priv, err) after each flush of a window that held changes, whatever
 * calls it (a window moving on, e4t_batch_flush(), e4t_batch_end()): err
 * 0, every inode changed since the last call reached the image; else
 * none of them counts as written (the run is to stop).  fn NULL: none.
 */
void e4t_batch_on_flush(struct e4t_batch *b,
			void (*fn)(void *priv, errcode_t err), void *priv);
/* Flush and free (NULL: nothing); the flush's error, if any. */
errcode_t e4t_batch_end(struct e4t_batch *b);
/* The inode-table block that holds inode ino (0: none, or out of range). */
blk64_t e4t_inode_table_block(struct e4t_image *img, ext2_ino_t ino);

/*
 * Resolve a file spec as debugfs takes it: an absolute path ("/a/b") or
 * "<INO>".  Paths are looked up without following a final symlink.
 */
errcode_t e4t_image_resolve(struct e4t_image *img, const char *spec,
			    ext2_ino_t *ino);
/*
 * The inodes on the orphan list (unlinked while open, or being
 * truncated), from s_last_orphan through each i_dtime; sorted, malloc'd.
 * A chain that loops or leaves the inode range is cut there.
 */
errcode_t e4t_image_orphans(struct e4t_image *img, ext2_ino_t **list,
			    size_t *count);
int e4t_ino_in(const ext2_ino_t *sorted, size_t count, ext2_ino_t ino);
/* Read and decode one inode; a bad checksum is flagged, not fatal. */
errcode_t e4t_image_read_inode(struct e4t_image *img, ext2_ino_t ino,
			       struct e4t_inode *info);

/* ------------------------------------------------------------------ */
/* File content (symlink.c, filehash.c)                                */
/* ------------------------------------------------------------------ */

/*
 * The target of symlink ino as readlink(2) gives it (from i_block, inline
 * data or its block), malloc'd and NUL-terminated, *len bytes.
 * E4T_ERR_LINK_TARGET when ino is no symlink, or its target is encrypted,
 * empty, longer than 4095 bytes, holds a NUL or cannot be read whole.
 */
errcode_t e4t_read_link(struct e4t_image *img, ext2_ino_t ino, char **target,
			size_t *len);

enum e4t_hash_alg {
	E4T_HASH_NONE = 0,
	E4T_HASH_MD5,
	E4T_HASH_SHA1,
	E4T_HASH_SHA256,
};
#define E4T_HASH_MAX 32 /* bytes of the longest (SHA-256) */
/* "md5", "sha1", "sha256" -> algorithm; -1 when unknown. */
int e4t_hash_parse(const char *name);
const char *e4t_hash_name(enum e4t_hash_alg alg); /* NULL for NONE */
size_t e4t_hash_len(enum e4t_hash_alg alg);	  /* bytes; 0 for NONE */

/*
 * Hashing files' content: one hasher per thread, each reading through a
 * handle of its own (fs: the image's, or one from e4t_image_reopen()).
 * e4t_hasher_file() hashes the i_size bytes of regular file ino as
 * read(2) gives them: extents run by run from their blocks (holes and
 * unwritten extents as zeros, blocks past i_size left out), block-mapped
 * and inline data files through ext2fs_file_read(); out gets
 * e4t_hash_len() bytes, computed by libcrypto (E4T_ERR_DIGEST when it
 * fails: an algorithm its configuration disables).  E4T_ERR_NOT_REGULAR
 * for any other type, E4T_ERR_CONTENT for an encrypted file, extents out
 * of order or beyond the filesystem, or a file shorter than i_size.
 */
struct e4t_hasher;
errcode_t e4t_hasher_new(ext2_filsys fs, enum e4t_hash_alg alg,
			 struct e4t_hasher **ret);
errcode_t e4t_hasher_file(struct e4t_hasher *h, ext2_ino_t ino, uint8_t *out);
void e4t_hasher_free(struct e4t_hasher *h);
/*
 * Many files at once: a pool of one hasher, or two on two threads (the
 * second with its own handle) when threads is 2, or 0 and there are two
 * CPUs.  e4t_hash_pool_run() hashes the n inodes ino[] (0: none, err
 * E4T_ERR_NOT_REGULAR), each taking the next file as it is free: the
 * hash of ino[i] into out + i * E4T_HASH_MAX, its error into errs[i];
 * two: use the second thread (worth it for more than a few MiB).  An
 * inode is read once however many of its names come, in this run or
 * later ones of the pool: files of 16 MiB or more first, largest first,
 * then the others in the order of their first physical block.
 * e4t_hash_pool_files(): the inodes the pool has read.
 */
struct e4t_hash_pool;
errcode_t e4t_hash_pool_new(struct e4t_image *img, enum e4t_hash_alg alg,
			    int threads, struct e4t_hash_pool **ret);
void e4t_hash_pool_run(struct e4t_hash_pool *p, const ext2_ino_t *ino, size_t n,
		       uint8_t *out, errcode_t *errs, int two);
uint64_t e4t_hash_pool_files(const struct e4t_hash_pool *p);
void e4t_hash_pool_free(struct e4t_hash_pool *p);

/* ------------------------------------------------------------------ */
/* Directory blocks (dirscan.c)                                        */
/* ------------------------------------------------------------------ */

/* Called for each live entry (not "." or ".."); return non-zero to stop. */
typedef int (*e4t_dirent_fn)(ext2_ino_t dir, ext2_ino_t ino, const char *name,
			     unsigned name_len, unsigned file_type, void *priv);
/* Called for each problem found that does not stop the scan. */
typedef void (*e4t_warn_fn)(errcode_t err, ext2_ino_t ino, const char *detail,
			    void *priv);

/*
 * List the entries of directory dir, block by block.  A block whose
 * checksum fails is still read (and reported); a corrupted block is
 * skipped (and reported) and the next one is read.
 */
errcode_t e4t_dir_scan(struct e4t_image *img, ext2_ino_t dir, int inline_data,
		       e4t_dirent_fn fn, e4t_warn_fn warn, void *priv);

/*
 * A directory's block map, packed from its raw inode while the inode
 * table is scanned (e4t_dir_root_pack: at most E4T_DIR_ROOT_MAX bytes):
 * its generation and the extents of an extent tree held whole in the
 * inode (depth 0, sorted, initialized), or one byte saying the directory
 * needs e4t_dir_scan (block maps, inline data, deeper or odd trees).
 * e4t_dir_scan_root lists the entries as e4t_dir_scan does, the same
 * entries and warnings in the same order, without reading the inode again
 * and with one read per run of up to bufblocks blocks into buf.
 */
#define E4T_DIR_ROOT_MAX 53
size_t e4t_dir_root_pack(const struct ext2_inode_large *raw,
			 unsigned char *out);
size_t e4t_dir_root_len(const unsigned char *root);
errcode_t e4t_dir_scan_root(struct e4t_image *img, ext2_ino_t dir,
			    const unsigned char *root, char *buf,
			    unsigned bufblocks, e4t_dirent_fn fn,
			    e4t_warn_fn warn, void *priv);

/* ------------------------------------------------------------------ */
/* Names in encrypted directories (nokey.c)                            */
/* ------------------------------------------------------------------ */

/* How a directory's no-key names are made (e4t_nokey_setup). */
struct e4t_nokey {
	int hashed;	  /* read through the htree code: the dirhash too */
	int version;	  /* EXT2_HASH_* (with _UNSIGNED) */
	uint32_t seed[4]; /* s_hash_seed */
};

/* The longest no-key name (252 characters) and its NUL. */
#define E4T_NOKEY_MAX 253

/* Does a directory of these i_flags and i_size hold encrypted names
 * (fscrypt, not casefolded)?  Then k says how to show them. */
int e4t_nokey_setup(ext2_filsys fs, uint32_t iflags, uint64_t size,
		    struct e4t_nokey *k);
/* The kernel's no-key name of an encrypted entry's name (its ciphertext,
 * len bytes) into out (E4T_NOKEY_MAX bytes, NUL-terminated): its length,
 * or 0 for a name the kernel refuses (shorter than 16 bytes). */
unsigned e4t_nokey_name(const struct e4t_nokey *k, const char *name,
			unsigned len, char *out);

/* ------------------------------------------------------------------ */
/* Deleted entries in directory slack (slack.c)                        */
/* ------------------------------------------------------------------ */

/* A name found in the slack of a live directory. */
struct e4t_slack_entry {
	ext2_ino_t dir; /* the directory whose block holds it */
	ext2_ino_t ino;
	const char *name; /* raw bytes, not NUL-terminated */
	unsigned name_len;
	unsigned file_type; /* EXT2_FT_*, 0 without the filetype feature */
	blk64_t blk;	    /* the block (0: inline data) */
	unsigned offset;    /* of the entry in the block (or inline area) */
	int realloc;	    /* the inode is in use now (by another file) */
};
/* ino is 0 for a deleted entry whose inode number was zeroed (its name
 * and file type are left): no inode to read. */
typedef int (*e4t_slack_fn)(const struct e4t_slack_entry *e, void *priv);

/*
 * The deleted entries left in directory dir's blocks (linear, htree
 * leaves, inline data), each once, by inode number; names a live entry
 * of dir still holds are left out.  fn returning non-zero stops.
 */
errcode_t e4t_slack_scan(struct e4t_image *img, ext2_ino_t dir, e4t_slack_fn fn,
			 void *priv);

/* The parser alone (for the fuzz harness): one directory block. */
struct e4t_slack_geom {
	unsigned len;	       /* bytes in buf */
	uint32_t first_ino;    /* the lowest inode a candidate may name */
	uint32_t inodes_count; /* and the highest */
	int filetype;	       /* the filetype feature: types 1 to 7 only */
	/* also entries whose inode is 0 (a live record or one in slack),
	 * as candidates with ino 0, checked as the others are */
	int noino;
	/* an encrypted directory: names are ciphertext (any bytes, 16 to
	 * 252 in steps of 4, or 255) */
	int enc;
};
typedef int (*e4t_slack_parse_fn)(ext2_ino_t ino, const char *name,
				  unsigned name_len, unsigned file_type,
				  unsigned off, void *priv);
/* fn for each candidate in slack, live (may be NULL) for each live entry
 * with a name; either returning non-zero stops (and is 1). */
int e4t_slack_parse(const unsigned char *buf, const struct e4t_slack_geom *g,
		    e4t_slack_parse_fn fn, e4t_slack_parse_fn live, void *priv);
/* Does the block look like an htree index node (a fake empty entry over
 * the whole block, then a count and limit that fit)? */
int e4t_slack_dx_node(const unsigned char *buf, unsigned len, int csum);
/* In a raw on-disk inode (little-endian, isize bytes), the value of the
 * system.data xattr in the inode's body (an inline directory's entries
 * after i_block's): its offset, with *len bytes (8 or more, inside the
 * inode), or 0 when there is none. */
unsigned e4t_inline_data_xattr(const unsigned char *raw, unsigned isize,
			       unsigned *len);

/* ------------------------------------------------------------------ */
/* The tree (tree.c)                                                   */
/* ------------------------------------------------------------------ */

/* Row status */
enum e4t_status {
	E4T_LIVE = 0, /* reached through a name */
	E4T_ORPHAN,   /* looks in use, but no name reaches it */
	E4T_DELETED,  /* links 0 and a dtime */
	/* a deleted name whose inode is in use now (timeline --deleted) */
	E4T_DELETED_REALLOC,
	/* a name whose inode is not in use or could not be read (a damaged
	 * inode table): no times (E4T_TREE_NAME_ONLY) */
	E4T_NAME_ONLY,
	/* a deleted name in a directory whose entry's inode number is 0
	 * (zeroed by the tool or kernel that deleted it): no inode, no
	 * times (timeline --deleted) */
	E4T_DELETED_NOINODE,
};

/* What a row's journal transaction is (struct e4t_row_journal.kind). */
enum e4t_row_jkind {
	/* timeline --journal: a journaled state of the inode, the copy's
	 * transaction */
	E4T_RJ_STATE = 0,
	/* timeline --deleted: a deleted inode named from the journal, shown
	 * as the journal last held it before the deletion; the transaction
	 * whose copy of the directory block last held the name */
	E4T_RJ_PREDELETE,
	/* the same, but the inode is the disk's (an orphan, in use still,
	 * or no copy from before the deletion in the journal) */
	E4T_RJ_NAME_ONLY,
};

/* Where a journaled state came from (timeline --journal), or a name. */
struct e4t_row_journal {
	uint32_t tid;
	int64_t commit_sec; /* 0 when unknown */
	uint32_t commit_nsec;
	enum e4t_row_jkind kind;
	/* E4T_RJ_STATE: the state is of an earlier file of the inode number
	 * (a generation before the inode's now, or before its deletion):
	 * 1, named from the journal's directory entries; 2, no name known
	 * (the path is "<INO>", text adds " (earlier file)") */
	uint8_t earlier;
};

struct e4t_row {
	const char *path; /* full path, NUL-terminated, raw bytes */
	size_t path_len;
	const struct e4t_inode *inode;
	enum e4t_status status;
	/* the directory whose entry this name is (for the start of a
	 * walk, the first that names it); 0 for / and for orphan and
	 * deleted inodes */
	ext2_ino_t parent;
	/* where a deleted row's name came from ("slack", "journal", "none"),
	 * or NULL: timeline --deleted sets it, the tree never does */
	const char *name_source;
	/* timeline --journal: the state of a journaled copy, or NULL */
	const struct e4t_row_journal *journal;
};

typedef int (*e4t_row_fn)(const struct e4t_row *row, void *priv);
/* Progress: done out of total units; called now and then. */
typedef void (*e4t_progress_fn)(const char *phase, uint64_t done,
				uint64_t total, void *priv);

#define E4T_TREE_DELETED 0x0001 /* keep orphan and deleted inodes */
/* a row (E4T_NAME_ONLY) for each name whose inode is not in use or could
 * not be read: the name and the file type of its entry, no times */
#define E4T_TREE_NAME_ONLY 0x0002

struct e4t_tree_opts {
	unsigned flags; /* E4T_TREE_* */
	/* Threads for the inode-table pass: 0 chooses (two on two or more
	 * CPUs and 65536 or more inodes in use), 1 or 2 forces. */
	int threads;
	e4t_warn_fn warn;
	e4t_progress_fn progress;
	void *priv;
};

struct e4t_tree;

/*
 * Index the whole filesystem: one pass over the inode table, one over
 * the directories.  Time and memory are linear in inodes and entries.
 */
errcode_t e4t_tree_load(struct e4t_image *img, const struct e4t_tree_opts *opts,
			struct e4t_tree **ret);
void e4t_tree_free(struct e4t_tree *tree);
/* The mode bits (S_IFMT) of a directory entry's file type (its low 3
 * bits); 0 for an unknown one. */
uint16_t e4t_ft_mode(unsigned ft);
/* The inode of a row that has only a name (E4T_NAME_ONLY,
 * E4T_DELETED_NOINODE): its number, the mode of its entry's file type
 * (EXT2_FT_*), no times. */
void e4t_inode_name_only(const struct e4t_image *img, ext2_ino_t ino,
			 unsigned file_type, struct e4t_inode *info);
/*
 * Visit every name reachable from start (whose path is start_path; "/a/"
 * names its rows as "/a" does), start included, depth first in directory order;
 * then, with E4T_TREE_DELETED, the orphan and deleted inodes (path "<INO>"). fn
 * returning non-zero stops the walk and is returned.
 */
errcode_t e4t_tree_walk(struct e4t_tree *tree, ext2_ino_t start,
			const char *start_path, e4t_row_fn fn, void *priv);
/* The same, with the walk's warnings (unreachable names, loops) going to
 * warn rather than to the load's e4t_tree_opts.warn. */
errcode_t e4t_tree_walk_warn(struct e4t_tree *tree, ext2_ino_t start,
			     const char *start_path, e4t_row_fn fn, void *priv,
			     e4t_warn_fn warn, void *wpriv);
/*
 * e4t_tree_walk on a second thread (treepipe.c): the walk builds the
 * paths and decodes the inodes while this thread runs fn on the rows and
 * warn (the walk's warnings) in the order a walk on one thread gives.
 * threads as e4t_tree_opts.threads (1: no second thread, as when one
 * cannot be had).  fn's non-zero return stops the walk and is returned.
 */
errcode_t e4t_tree_walk_threaded(struct e4t_tree *tree, ext2_ino_t start,
				 const char *start_path, int threads,
				 e4t_row_fn fn, void *priv, e4t_warn_fn warn,
				 void *wpriv);
/* The read error that cost the tree inode ino (its inode-table block
 * could not be read and was skipped, the rest of the table read), or 0. */
errcode_t e4t_tree_lost(const struct e4t_tree *tree, ext2_ino_t ino);
/* The decoded inode; E4T_ERR_NOT_IN_USE when the tree holds none. */
errcode_t e4t_tree_inode(const struct e4t_tree *tree, ext2_ino_t ino,
			 struct e4t_inode *info);

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

struct e4t_source; /* xsource.h */

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

#include "journal/journal.h"
#include "rules/rules.h"
#include "check/check.h"

#endif /* E4TIME_H */
