/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write.h --- lib/write/: the safe write path: opening an image for
 * writing (undo file, mount and MMP checks), writing inode times, batches
 * of writes.  Part of the API; included by e4time.h.
 */
#ifndef E4TIME_WRITE_H
#define E4TIME_WRITE_H

#include "fs/fs.h"

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

#endif /* E4TIME_WRITE_H */
