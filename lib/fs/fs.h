/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fs.h --- lib/fs/: the ext4 filesystem read through libext2fs: the
 * timestamp codec, time text, inodes, images, file content, directory
 * blocks, no-key names, directory slack and the tree.  Part of the API;
 * included by e4time.h.
 */
#ifndef E4TIME_FS_H
#define E4TIME_FS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

#include "util.h"
#include "container/container.h"

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
/* generation holds the on-disk i_generation, kept by a tree loaded with
 * E4T_TREE_GEN (not shown: output shows it with E4T_INO_GEN only) */
#define E4T_INO_DISKGEN 0x0200

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
/* The same without info->ts (as e4t_inode_decode_fields). */
void e4t_inode_decode_disk_fields(const uint8_t *raw, unsigned len,
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
 * primary, or when it is unusable a good backup; see sbopen_int.h), on the
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
/* A second image for reading on another thread: img's fields with a
 * handle of its own (e4t_image_reopen); free it with
 * e4t_image_shadow_free() before img is closed. */
errcode_t e4t_image_shadow(struct e4t_image *img, struct e4t_image **ret);
void e4t_image_shadow_free(struct e4t_image *shadow);
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

/* enum e4t_hash_alg and E4T_HASH_MAX: container/container.h (digests) */
/* "md5", "sha1", "sha256" -> algorithm; -1 when unknown. */
int e4t_hash_parse(const char *name);
const char *e4t_hash_name(enum e4t_hash_alg alg); /* NULL for NONE */
size_t e4t_hash_len(enum e4t_hash_alg alg);	  /* bytes; 0 for NONE */

/*
 * Hashing files' content: one hasher per thread, each reading through a
 * handle of its own (fs: the image's, or one from e4t_image_reopen()).
 * A file's hash is of the i_size bytes of the regular file as read(2)
 * gives them: extents run by run from their blocks (holes and
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

/*
 * Reading ahead through a stream of block maps: the blocks of the next
 * directories, read in one go while each run starts at most 16 KiB after
 * the one before (a tree made by cp -a or tar has most directories'
 * blocks one after the other: one read where there were four).  Only
 * while the directories wanted come in that order: 64 KiB ahead, then
 * twice as far each time, up to cap blocks; nothing ahead once one does
 * not (a walk in the hash order of a directory's entries).  e4t_dir_ahead(),
 * before e4t_dir_scan_root(root): unless root's first run is held already, read
 * the runs of root and of the maps after it (up to end); a read that fails
 * holds nothing, and the scan then reads each run itself, as without.
 */
struct e4t_dir_ahead {
	char *mem; /* room for cap blocks */
	unsigned cap;
	blk64_t start; /* the blocks held: [start, start + n) */
	unsigned n;
	blk64_t last_end; /* where the last directory planned for ended */
	unsigned want;	  /* blocks to read ahead next (0: none) */
};
void e4t_dir_ahead(struct e4t_image *img, struct e4t_dir_ahead *a,
		   const unsigned char *root, const unsigned char *end);
/* ahead: the blocks read ahead (NULL: none). */
errcode_t e4t_dir_scan_root(struct e4t_image *img, ext2_ino_t dir,
			    const unsigned char *root,
			    const struct e4t_dir_ahead *ahead, char *buf,
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
/* keep each inode's i_generation (4 bytes an inode of the filesystem):
 * rows carry it with E4T_INO_DISKGEN */
#define E4T_TREE_GEN 0x0004
/* no directory pass: each directory is read when a walk reaches it, so
 * the entries of all (a stream as large as every name) are never held.
 * One walk, from / (another start: EINVAL), on the caller's thread;
 * e4t_tree_parts and e4t_tree_dir_nsec refuse (EINVAL).  A directory's
 * warnings come when the walk reads it, those of directories it does not
 * reach at its end (without the flag: all before the walk, in inode
 * order).  Ignored with E4T_TREE_DELETED. */
#define E4T_TREE_WALK_READS 0x0008

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
 * The same walk cut into parts that can run at once, each on a thread of
 * its own (treepart.c): the rows and walk warnings of part i all come
 * before those of part i + 1, and all parts in order give what
 * e4t_tree_walk_warn() gives, in the same order.  A part is the start's
 * row, a run of one directory's entries with the subtrees under them (of
 * about rows rows), or the orphan and deleted inodes of a range of
 * records (E4T_TREE_DELETED, from /).  The tree is only read while parts
 * run; no other walk may run meanwhile.  E4T_ERR_NOT_IN_USE as the walk.
 */
struct e4t_tree_parts;
errcode_t e4t_tree_parts(struct e4t_tree *tree, ext2_ino_t start,
			 const char *start_path, size_t rows,
			 struct e4t_tree_parts **ret);
size_t e4t_tree_parts_count(const struct e4t_tree_parts *parts);
errcode_t e4t_tree_walk_part(struct e4t_tree *tree,
			     const struct e4t_tree_parts *parts, size_t i,
			     e4t_row_fn fn, void *priv, e4t_warn_fn warn,
			     void *wpriv);
void e4t_tree_parts_free(struct e4t_tree_parts *parts);
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
/* Every directory inode in use the tree holds, by number, into *ret
 * (free it): those a walk from / can reach among them. */
errcode_t e4t_tree_live_dirs(const struct e4t_tree *tree, ext2_ino_t **ret,
			     size_t *n);
/* The read error that cost the tree inode ino (its inode-table block
 * could not be read and was skipped, the rest of the table read), or 0. */
errcode_t e4t_tree_lost(const struct e4t_tree *tree, ext2_ino_t ino);
/* The decoded inode; E4T_ERR_NOT_IN_USE when the tree holds none. */
errcode_t e4t_tree_inode(const struct e4t_tree *tree, ext2_ino_t ino,
			 struct e4t_inode *info);

#endif /* E4TIME_FS_H */
