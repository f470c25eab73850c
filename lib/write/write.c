/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write.c --- the one safe way libe4time writes: refuse a mounted, busy,
 * unrecovered or damaged filesystem; lock the image against a second
 * writer; save every block before it changes in an e2undo file (undo_io.c,
 * e4time's undo I/O manager); write whole inodes, one at a time or a batch
 * of them through their inode-table blocks, with their checksums
 * recomputed by libext2fs.
 *
 * A filesystem in an LVM logical volume of several segments inside a raw
 * image (a view, container.h) is written in the image itself, where each
 * segment lies: the undo manager is given the segments, and its undo file
 * is one stock e2undo replays on the whole image (see undo_io.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "fs/csum_int.h"
#include "write/jwrite_int.h"
#include "write/refusal_int.h"
#include "write/undo_io_int.h"

#define UNDO_REGION (1U << 20)

/*
 * e4t_check_in_use() on the bytes of the image the filesystem lies in:
 * [start, start + len), or in a view of several segments each segment's
 * piece of it (what lies between two is another volume's), their claims
 * kept together in hold.
 */
static errcode_t check_spans(struct e4t_image *img, uint64_t start,
			     uint64_t len, struct e4t_in_use *hold,
			     struct e4t_refusal *why)
{
	const struct e4t_view *v = img->view;
	uint64_t off = img->offset, end;
	errcode_t err = 0;
	unsigned i;

	if (!v || !v->next)
		return e4t_check_in_use(img->io_name, start, len, hold, why);
	end = off + ext2fs_blocks_count(img->fs->super) *
			    (uint64_t)img->fs->blocksize;
	for (i = 0; i < v->next && !err; i++) {
		const struct e4t_extent *e = &v->ext[i];
		uint64_t s = e->lstart > off ? e->lstart : off;
		uint64_t t =
			e->lstart + e->len < end ? e->lstart + e->len : end;

		if (s < t)
			err = e4t_check_in_use(img->io_name,
					       e->pstart + (s - e->lstart),
					       t - s, hold, why);
	}
	return err;
}

/*
 * Is anything else using the filesystem's bytes, [start, start + len) of
 * the file (each segment's, in a view)?  Mounted or busy under any name
 * (inuse.c; libext2fs' own check for a device named), or, with multiple-mount
 * protection, in use by another node.
 */
static errcode_t check_unused(struct e4t_image *img,
			      const struct e4t_write_opts *opts, uint64_t start,
			      uint64_t len)
{
	struct stat st;
	errcode_t err;
	int flags = 0;

	if (fstat(img->image_fd, &st))
		return errno;
	err = check_spans(img, start, len, opts->dry_run ? NULL : &img->in_use,
			  opts->why);
	if (!err && !S_ISREG(st.st_mode)) {
		err = ext2fs_check_if_mounted(img->io_name, &flags);
		if (!err && (flags & EXT2_MF_MOUNTED))
			err = E4T_ERR_MOUNTED;
		else if (!err && (flags & EXT2_MF_BUSY))
			err = E4T_ERR_BUSY;
	}
	if (!err)
		err = e4t_check_mmp(img->fs, opts->why);
	return err;
}

static errcode_t check_writable_state(struct e4t_image *img)
{
	/* a backup's, named or the primary unusable: e2fsck's to restore */
	if (img->sb_block)
		return E4T_ERR_BACKUP_SB;
	if (img->state & E4T_IMG_NEEDS_RECOVERY)
		return E4T_ERR_WRITE_NEEDS_RECOVERY;
	if (img->state & E4T_IMG_ERRORS_FLAGGED)
		return E4T_ERR_FS_ERRORS;
	if (img->state & E4T_IMG_SB_CSUM_BAD)
		return E4T_ERR_SB_CSUM;
	if (img->state & E4T_IMG_GD_CSUM_BAD)
		return E4T_ERR_GD_CSUM;
	if (img->state & E4T_IMG_TRUNCATED)
		return E4T_ERR_TRUNCATED;
	return 0;
}

/* One writer at a time: an advisory lock on path that a second e4time
 * sees. */
static errcode_t lock_file(const char *path, int *fd)
{
	errcode_t err;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return errno;
	if (!flock(*fd, LOCK_EX | LOCK_NB))
		return 0;
	err = errno == EWOULDBLOCK ? E4T_ERR_LOCKED : errno;
	close(*fd);
	*fd = -1;
	return err;
}

/*
 * Lock the image (the descriptor every check looked at) and, for a loop
 * device, its backing file too, so that a writer through the file and one
 * through the device see each other.
 */
static errcode_t lock_image(struct e4t_image *img)
{
	struct stat st;

	if (flock(img->image_fd, LOCK_EX | LOCK_NB))
		return errno == EWOULDBLOCK ? E4T_ERR_LOCKED : errno;
	if (img->in_use.backing[0] && !fstat(img->image_fd, &st) &&
	    !S_ISREG(st.st_mode))
		return lock_file(img->in_use.backing, &img->backing_fd);
	return 0;
}

/*
 * Held where no block device shows it (holders.c): a FUSE mount of the
 * file, a process with it open for writing.  After the lock: another
 * e4time writing is told as such.
 */
static errcode_t check_held(struct e4t_image *img, uint64_t start, uint64_t len,
			    struct e4t_refusal *why)
{
	struct stat st;

	if (fstat(img->image_fd, &st))
		return errno;
	return e4t_check_holders(&st, start, len, why);
}

#ifdef E4T_TEST_HOOKS
/* E4TIME_TEST_STOP_BEFORE_WRITE_OPEN: stop after every check, before the
 * read-write open (a test renames the image meanwhile). */
static void hook_before_write_open(void)
{
	const char *v = getenv("E4TIME_TEST_STOP_BEFORE_WRITE_OPEN");

	if (v && *v)
		raise(SIGSTOP);
}
#else
static void hook_before_write_open(void)
{
}
#endif

/*
 * Before the first write (libext2fs writes the MMP block as it opens): is
 * what the read-write open will reach, /proc/self/fd/N, the file checked?
 */
static errcode_t same_image(const struct e4t_image *img,
			    struct e4t_refusal *why)
{
	struct stat held, now;

	if (fstat(img->image_fd, &held))
		return errno;
	if (!stat(img->io_name, &now) && now.st_dev == held.st_dev &&
	    now.st_ino == held.st_ino && now.st_rdev == held.st_rdev)
		return 0;
	if (why) {
		snprintf(why->what, sizeof(why->what), "%s", img->io_name);
		why->cause = 0;
	}
	return E4T_ERR_IMAGE_CHANGED;
}

#define MAX_INPUTS 16

/*
 * The undo file: its name, checked (see undo_path.c), and PATH.new
 * created and held; the undo I/O manager then writes into it.
 */
static errcode_t prepare_undo(struct e4t_image *img,
			      const struct e4t_write_opts *opts)
{
	const char *inputs[MAX_INPUTS + 3];
	size_t n = 0, i, len;
	struct stat a, b;
	errcode_t err = 0;

	inputs[n++] = img->io_name[0] ? img->io_name : img->name;
	if (img->in_use.backing[0])
		inputs[n++] = img->in_use.backing;
	for (i = 0; opts->inputs && opts->inputs[i] && i < MAX_INPUTS; i++)
		inputs[n++] = opts->inputs[i];
	inputs[n] = NULL;
	if (opts->undo_path)
		img->undo_path = strdup(opts->undo_path);
	else
		err = e4t_undo_default_path(img->name, img->fs_offset,
					    &img->undo_path, opts->why);
	if (!err && !img->undo_path)
		err = ENOMEM;
	if (!err)
		err = e4t_undo_check_path(img->undo_path, inputs, opts->why);
	if (err)
		return err;
	len = strlen(img->undo_path) + 5;
	img->undo_new = malloc(len);
	if (!img->undo_new)
		return ENOMEM;
	snprintf(img->undo_new, len, "%s.new", img->undo_path);
	/* PATH.new must not be one of them either. */
	for (i = 0; i < n; i++)
		if (!lstat(img->undo_new, &a) && !stat(inputs[i], &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			if (opts->why) {
				snprintf(opts->why->what,
					 sizeof(opts->why->what),
					 "undo file %s", img->undo_new);
				opts->why->cause = 0;
			}
			return E4T_ERR_UNDO_IS_INPUT;
		}
	err = e4t_undo_claim_new(img->undo_new, &img->undo_fd, opts->why);
	/*
	 * Save 1 MiB regions rather than single blocks: timestamps are
	 * rewritten across whole inode tables, and a million undo records
	 * of one block each cost more than the writes themselves.  e2undo
	 * reads the region size from the file.
	 */
	if (!err)
		err = e4t_undo_io_setup_fd(img->undo_fd, UNDO_REGION);
	return err;
}

/* Let go of what open_write took: claims, locks, the undo file. */
static void release_write(struct e4t_image *img, int remove_undo)
{
	if (img->undo_fd >= 0) {
		/* Ours (we hold it): empty, or to be kept. */
		if (remove_undo && img->undo_new)
			unlink(img->undo_new);
		close(img->undo_fd);
		img->undo_fd = -1;
	}
	if (img->backing_fd >= 0)
		close(img->backing_fd);
	img->backing_fd = -1;
	e4t_in_use_release(&img->in_use);
}

/*
 * Can an undo file place every block of the filesystem at [off, off + len)
 * of view v?  e2undo puts key k at fs_offset + k * block size, k unsigned:
 * fs_offset, where the filesystem starts in the image, must hold its
 * superblock whole (e2undo reads it there), and every segment the
 * filesystem covers must lie at or after it, on block boundaries.  Then
 * *fs_offset, and [*lo, *hi): the bytes of the image its segments span,
 * those checked for other users.  E4T_ERR_VOLUME_LAYOUT otherwise.
 */
static errcode_t view_layout(const struct e4t_view *v, uint64_t off,
			     uint64_t len, unsigned bs, uint64_t *fs_offset,
			     uint64_t *lo, uint64_t *hi)
{
	uint64_t contig, at = e4t_view_map(v, off, &contig);
	unsigned i;

	if (contig < SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE)
		return E4T_ERR_VOLUME_LAYOUT;
	*fs_offset = *lo = at;
	*hi = at + (contig < len ? contig : len);
	for (i = 0; i < v->next; i++) {
		const struct e4t_extent *e = &v->ext[i];
		uint64_t s = e->lstart > off ? e->lstart : off;
		uint64_t end = e->lstart + e->len;
		uint64_t p;

		if (end > off + len)
			end = off + len;
		if (s >= end)
			continue;
		p = e->pstart + (s - e->lstart);
		if (p < at || (p - at) % bs || (s - off) % bs)
			return E4T_ERR_VOLUME_LAYOUT;
		if (p + (end - s) > *hi)
			*hi = p + (end - s);
	}
	return 0;
}

/*
 * The read-only handle of open_write(), on the image opened once by name:
 * every check, the lock and the read-write open use that descriptor.  A
 * view of a raw image is read through the container's descriptor, which
 * must be the same file.
 */
static errcode_t open_once(const char *name, const struct e4t_view *v,
			   uint64_t offset, const struct e4t_sb_opts *sb,
			   struct e4t_image **img)
{
	struct stat a, b;
	errcode_t err;
	int fd;

	*img = NULL;
	/* O_NONBLOCK: a FIFO named is refused, not waited on. */
	fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	if (!v) {
		err = e4t_image_open2(name, fd, NULL, offset, sb, img);
		if (err)
			close(fd);
		return err;
	}
	if (v->c->fd >= 0 && (fstat(fd, &a) || fstat(v->c->fd, &b) ||
			      a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		close(fd);
		return E4T_ERR_IMAGE_CHANGED;
	}
	err = e4t_image_open2(name, -1, v, offset, sb, img);
	if (err)
		close(fd);
	else
		e4t_image_hold_fd(*img, fd);
	return err;
}

/*
 * Changes of several blocks go through the journal, when the filesystem
 * has one e4time writes to (jwrite.c): the undo manager's transactions.
 * Without (no journal, an external one, one not clean or of features
 * e4time does not write), they are written as before (see e4time(8),
 * CRASH SAFETY).
 */
static void attach_journal(struct e4t_image *img)
{
	struct e4t_jw *jw = NULL;

	if (!ext2fs_has_feature_journal(img->fs->super) ||
	    e4t_jw_open(img, &jw))
		return;
	if (e4t_undo_io_set_journal(img->fs->io, jw))
		e4t_jw_free(jw);
}

/*
 * Both ways in: the file at offset (v NULL), or the filesystem at offset
 * of view v, a volume of a raw image, written where its segments lie.
 */
static errcode_t open_write(const char *name, const struct e4t_view *v,
			    uint64_t offset, const struct e4t_write_opts *opts,
			    struct e4t_image **ret)
{
	struct e4t_extent whole;
	struct e4t_image *img = NULL;
	uint64_t lo, hi;
	errcode_t err;

	*ret = NULL;
	if (opts->why) {
		opts->why->what[0] = '\0';
		opts->why->cause = 0;
	}
	if (v && v->c->kind != E4T_C_RAW)
		return E4T_ERR_CONTAINER_READONLY;
	/* First a read-only look: refuse before anything is opened RW. */
	err = open_once(name, v, offset, &opts->sb, &img);
	if (err || !img)
		return err ? err : EIO;
	lo = img->fs_offset = offset;
	hi = lo +
	     ext2fs_blocks_count(img->fs->super) * (uint64_t)img->fs->blocksize;
	if (v)
		err = view_layout(v, offset, hi - lo, img->fs->blocksize,
				  &img->fs_offset, &lo, &hi);
	if (!err)
		err = check_unused(img, opts, lo, hi - lo);
	/* The lock first: a second writer is told as such, also while the
	 * first is committing a transaction (needs_recovery set). */
	if (!err && !opts->dry_run)
		err = lock_image(img);
	if (!err)
		err = check_writable_state(img);
	if (err == E4T_ERR_BACKUP_SB && (img->state & E4T_IMG_PRIMARY_BAD))
		e4t_refusal_note(opts->why,
				 "primary superblock unusable (%s), a backup "
				 "at block %llu",
				 e4t_sb_fault(img->primary_err),
				 (unsigned long long)img->sb_block);
	else if (err == E4T_ERR_BACKUP_SB)
		e4t_refusal_note(opts->why, "-b %llu",
				 (unsigned long long)img->sb_block);
	if (!err)
		err = check_held(img, lo, hi - lo, opts->why);
	if (err || opts->dry_run) {
		if (err) {
			release_write(img, 1);
			e4t_image_close(img);
		} else {
			*ret = img;
		}
		return err;
	}
	ext2fs_close_free(&img->fs);
	if (!opts->no_undo)
		err = prepare_undo(img, opts);
	else /* the undo manager, with no undo file */
		err = e4t_undo_io_setup(NULL, UNDO_REGION);
	/* A view: its segments, for the undo manager only (image.c). */
	whole.lstart = 0;
	whole.pstart = v ? v->base : 0;
	whole.len = v ? v->size : 0;
	if (!err && v)
		err = e4t_undo_io_setup_map(v->next ? v->ext : &whole,
					    v->next ? v->next : 1);
	if (!err) {
		hook_before_write_open();
		err = same_image(img, opts->why);
	}
	if (!err)
		err = e4t_image_reopen_rw(img, e4t_undo_io_manager);
	if (!err)
		attach_journal(img);
	if (err) {
		e4t_undo_io_setup(NULL, UNDO_REGION);
		release_write(img, 1);
		e4t_image_close(img);
		return err;
	}
	img->writable = 1;
	*ret = img;
	return 0;
}

errcode_t e4t_image_open_write(const char *name, uint64_t offset,
			       const struct e4t_write_opts *opts,
			       struct e4t_image **ret)
{
	return open_write(name, NULL, offset, opts, ret);
}

errcode_t e4t_image_open_write_view(const char *name, const struct e4t_view *v,
				    uint64_t offset,
				    const struct e4t_write_opts *opts,
				    struct e4t_image **ret)
{
	return open_write(name, v, offset, opts, ret);
}

/* Does the inode hold field f with its _extra word? */
static int has_room(const struct e4t_inode *in, enum e4t_field f)
{
	if (f == E4T_CRTIME)
		return (in->present & E4T_PRESENT(f)) != 0;
	return (in->present & E4T_PRESENT_EXTRA(f)) != 0;
}

struct ino_ref {
	ext2_ino_t ino;
	size_t idx;
};

static int cmp_ino_ref(const void *a, const void *b)
{
	const struct ino_ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

errcode_t e4t_find_duplicates(const ext2_ino_t *ino, size_t n, long *dup_of)
{
	struct ino_ref *refs = calloc(n + 1, sizeof(*refs));
	size_t i, m = 0;

	if (!refs)
		return ENOMEM;
	for (i = 0; i < n; i++) {
		dup_of[i] = -1;
		if (!ino[i])
			continue;
		refs[m].ino = ino[i];
		refs[m++].idx = i;
	}
	/* same inodes together, in the order given */
	qsort(refs, m, sizeof(*refs), cmp_ino_ref);
	for (i = 1; i < m; i++)
		if (refs[i].ino == refs[i - 1].ino)
			dup_of[refs[i].idx] = dup_of[refs[i - 1].idx] >= 0
						      ? dup_of[refs[i - 1].idx]
						      : (long)refs[i - 1].idx;
	free(refs);
	return 0;
}

errcode_t e4t_check_settable(const struct e4t_inode *in, unsigned fields,
			     const struct e4t_ts *ts)
{
	int f;

	if (in->flags & E4T_INO_CSUM_BAD)
		return E4T_ERR_INODE_CSUM;
	if (in->flags & E4T_INO_EXTRA_BAD)
		return E4T_ERR_EXTRA_ISIZE;
	if (in->mode == 0 || in->links == 0)
		return E4T_ERR_NOT_IN_USE;
	for (f = 0; f < E4T_DTIME; f++) {
		if (!(fields & (1U << f)))
			continue;
		if (ts[f].nsec >= E4T_NSEC_PER_SEC)
			return E4T_ERR_NSEC_RANGE;
		if (ts[f].sec < E4T_SEC_MIN || ts[f].sec > E4T_SEC_MAX)
			return E4T_ERR_TIME_RANGE;
		if (has_room(in, f))
			continue;
		/* 128-byte inodes never have room; larger ones once grown */
		if (f == E4T_CRTIME)
			return in->inode_size <= EXT2_GOOD_OLD_INODE_SIZE
				       ? E4T_ERR_NO_CRTIME_128
				       : E4T_ERR_NO_CRTIME_ROOM;
		/* Base word only: whole seconds within 32 bits, or refuse. */
		if (ts[f].nsec || ts[f].sec < INT32_MIN ||
		    ts[f].sec > INT32_MAX)
			return in->inode_size <= EXT2_GOOD_OLD_INODE_SIZE
				       ? E4T_ERR_NO_EXTRA_128
				       : E4T_ERR_NO_EXTRA_ROOM;
	}
	return 0;
}

/*
 * Put the times into raw, a whole inode as on disk, once e4t_check_settable()
 * has accepted them for in (raw decoded): every word is encoded before the
 * first is stored, so a refusal leaves raw as it was.
 */
static errcode_t put_times(struct ext2_inode_large *raw,
			   const struct e4t_inode *in, unsigned fields,
			   const struct e4t_ts *ts)
{
	uint32_t base[E4T_DTIME], extra[E4T_DTIME];
	errcode_t err = 0;
	int f;

	for (f = 0; f < E4T_DTIME && !err; f++) {
		extra[f] = 0;
		if (!(fields & (1U << f)))
			continue;
		if (has_room(in, f))
			err = e4t_ts_encode(ts[f].sec, ts[f].nsec, &base[f],
					    &extra[f]);
		else
			err = e4t_ts_encode_base(ts[f].sec, &base[f]);
	}
	if (err)
		return err;
	for (f = 0; f < E4T_DTIME; f++) {
		int room = has_room(in, f);

		if (!(fields & (1U << f)))
			continue;
		switch (f) {
		case E4T_ATIME:
			raw->i_atime = base[f];
			if (room)
				raw->i_atime_extra = extra[f];
			break;
		case E4T_MTIME:
			raw->i_mtime = base[f];
			if (room)
				raw->i_mtime_extra = extra[f];
			break;
		case E4T_CTIME:
			raw->i_ctime = base[f];
			if (room)
				raw->i_ctime_extra = extra[f];
			break;
		case E4T_CRTIME:
			raw->i_crtime = base[f];
			raw->i_crtime_extra = extra[f];
			break;
		}
	}
	return 0;
}

/*
 * Decode raw, refuse what e4t_check_settable() refuses (a checksum that
 * does not verify included: a bad inode is never rewritten), put the times.
 */
static errcode_t set_in_raw(ext2_filsys fs, ext2_ino_t ino,
			    struct ext2_inode_large *raw, unsigned fields,
			    const struct e4t_ts *ts)
{
	struct e4t_inode in;
	errcode_t err;

	e4t_inode_decode(raw, EXT2_INODE_SIZE(fs->super), ino, &in);
	if (!e4t_inode_csum_verify(fs, ino, raw))
		in.flags |= E4T_INO_CSUM_BAD;
	err = e4t_check_settable(&in, fields, ts);
	if (!err)
		err = put_times(raw, &in, fields, ts);
	return err;
}

errcode_t e4t_inode_set_times(struct e4t_image *img, ext2_ino_t ino,
			      unsigned fields, const struct e4t_ts *ts)
{
	union {
		struct ext2_inode_large large;
		char buf[EXT2_MAX_BLOCK_SIZE];
	} u;
	errcode_t err;

	if (!img->writable)
		return EXT2_ET_RO_FILSYS;
	if (ino < 1 || ino > img->fs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	memset(&u, 0, img->inode_size); /* not the whole 64 KiB union */
	err = ext2fs_read_inode2(img->fs, ino, (struct ext2_inode *)&u.large,
				 (int)img->inode_size, READ_INODE_NOCSUM);
	if (!err)
		err = set_in_raw(img->fs, ino, &u.large, fields, ts);
	if (err)
		return err;
	/*
	 * libext2fs computes the checksum into its own copy of the inode,
	 * but its inode cache keeps ours: without the checksum set here the
	 * cache holds the new times with the old checksum, and the next read
	 * of this inode (an inode named twice, a hard link) would see one
	 * that does not verify.  Set here, the cache holds what is on disk.
	 */
	e4t_inode_csum_set(img->fs, ino, &u.large);
	err = ext2fs_write_inode_full(img->fs, ino,
				      (struct ext2_inode *)&u.large,
				      (int)img->inode_size);
	/* Whatever libext2fs keeps may be older than what is on disk now. */
	ext2fs_flush_icache(img->fs);
	if (!err)
		img->written++;
	return err;
}

/*
 * The batch (see e4time.h): a window of up to BATCH_BYTES of one group's
 * inode table, read with one call; the blocks changed in it are written
 * back, in runs of consecutive blocks, when the window moves on.  Inode
 * tables hold inodes in on-disk byte order, which is the host's: e4time
 * is built for little-endian hosts only (configure refuses the others).
 */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the batch writer reads inode tables in place: little-endian hosts only"
#endif

#define BATCH_BYTES	 (1U << 20)
#define BATCH_MAX_BLOCKS (BATCH_BYTES / EXT2_MIN_BLOCK_SIZE)

struct e4t_batch {
	struct e4t_image *img; /* writes go through img->fs */
	ext2_filsys rfs;       /* reads come through it */
	/* The window: nblocks blocks from block first on, holding inodes
	 * [first_ino, end_ino), then a zeroed tail; nblocks 0: none. */
	char *buf;
	unsigned max_blocks;
	blk64_t first;
	unsigned nblocks;
	ext2_ino_t first_ino, end_ino;
	/* Its changed blocks, one bit each, and how many; inodes changed. */
	uint64_t dirty[BATCH_MAX_BLOCKS / 64];
	unsigned ndirty;
	unsigned long pending;
	/* told of each flush of changes (e4t_batch_on_flush()) */
	void (*on_flush)(void *priv, errcode_t err);
	void *on_flush_priv;
};

errcode_t e4t_batch_begin(struct e4t_image *img, ext2_filsys rfs,
			  struct e4t_batch **ret)
{
	struct e4t_batch *b;

	*ret = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return ENOMEM;
	b->img = img;
	b->rfs = rfs ? rfs : img->fs;
	b->max_blocks = BATCH_BYTES / b->rfs->blocksize;
	if (!b->max_blocks)
		b->max_blocks = 1;
	/* The tail: a 128-byte inode read as a large one stays in bounds. */
	b->buf = calloc(1, (size_t)b->max_blocks * b->rfs->blocksize +
				   sizeof(struct ext2_inode_large));
	if (!b->buf) {
		free(b);
		return ENOMEM;
	}
	*ret = b;
	return 0;
}

/* The window's next run of changed blocks at or after *i: [*i, *j);
 * 0 when there is none. */
static int next_run(const struct e4t_batch *b, unsigned *i, unsigned *j)
{
	while (*i < b->nblocks && !(b->dirty[*i / 64] & (1ULL << (*i % 64))))
		(*i)++;
	if (*i >= b->nblocks)
		return 0;
	for (*j = *i + 1;
	     *j < b->nblocks && (b->dirty[*j / 64] & (1ULL << (*j % 64)));
	     (*j)++)
		;
	return 1;
}

/* The window's changed runs prepared for writing (undo_io.c's
 * "e4t_prepare"); a channel without the option (none here) prepares
 * nothing. */
static errcode_t batch_prepare(struct e4t_batch *b)
{
	ext2_filsys fs = b->img->fs;
	unsigned i = 0, j;
	errcode_t err = 0;
	char opt[64];

	while (!err && next_run(b, &i, &j)) {
		snprintf(opt, sizeof(opt), "e4t_prepare=%llu:%llu",
			 (unsigned long long)(b->first + i) * fs->blocksize,
			 (unsigned long long)(j - i) * fs->blocksize);
		err = io_channel_set_options(fs->io, opt);
		if (err == EXT2_ET_INVALID_ARGUMENT)
			err = 0;
		i = j;
	}
	return err;
}

errcode_t e4t_batch_flush(struct e4t_batch *b)
{
	ext2_filsys fs = b->img->fs;
	unsigned i = 0, j;
	errcode_t err = 0, cerr;
	int txn;

	if (!b->ndirty)
		return 0;
	pthread_mutex_lock(&b->img->write_lock);
	/* Counted before: a write that fails half way keeps its undo file. */
	b->img->written += b->pending;
	/* Several blocks: one transaction, where there is a journal. */
	txn = b->ndirty > 1 && !io_channel_set_options(fs->io, "e4t_txn=begin");
	/* Without one: every run saved (and its space taken) before the
	 * first is written, so a failure leaves the window unwritten. */
	if (!txn && b->ndirty > 1)
		err = batch_prepare(b);
	while (!err && next_run(b, &i, &j)) {
		/* Through the image's channel: the undo manager saves the
		 * old blocks first. */
		err = io_channel_write_blk64(fs->io, b->first + i, (int)(j - i),
					     b->buf +
						     (size_t)i * fs->blocksize);
		i = j;
	}
	if (txn) {
		cerr = io_channel_set_options(fs->io, err ? "e4t_txn=abort"
							  : "e4t_txn=split");
		if (!err)
			err = cerr;
	}
	/* Inodes libext2fs keeps may be older than what was just written. */
	ext2fs_flush_icache(fs);
	fs->flags |= EXT2_FLAG_CHANGED;
	pthread_mutex_unlock(&b->img->write_lock);
	memset(b->dirty, 0, sizeof(b->dirty));
	b->ndirty = 0;
	b->pending = 0;
	if (b->on_flush)
		b->on_flush(b->on_flush_priv, err);
	return err;
}

void e4t_batch_on_flush(struct e4t_batch *b,
			void (*fn)(void *priv, errcode_t err), void *priv)
{
	b->on_flush = fn;
	b->on_flush_priv = priv;
}

/* The inode-table block of inode ino, checked as ext2fs_read_inode2()
 * checks it; *index is ino's place in that group's table, in blocks. */
static errcode_t table_block(ext2_filsys fs, ext2_ino_t ino, blk64_t *blk,
			     uint32_t *index)
{
	uint32_t ipg = fs->super->s_inodes_per_group;
	unsigned per_block = fs->blocksize / EXT2_INODE_SIZE(fs->super);
	blk64_t table = ext2fs_inode_table_loc(fs, (dgrp_t)((ino - 1) / ipg));

	if (!table)
		return EXT2_ET_MISSING_INODE_TABLE;
	if (table < fs->super->s_first_data_block ||
	    table + fs->inode_blocks_per_group - 1 >=
		    ext2fs_blocks_count(fs->super))
		return EXT2_ET_GDESC_BAD_INODE_TABLE;
	*index = ((ino - 1) % ipg) / per_block;
	*blk = table + *index;
	return 0;
}

blk64_t e4t_inode_table_block(struct e4t_image *img, ext2_ino_t ino)
{
	blk64_t blk = 0;
	uint32_t index;

	if (ino < 1 || ino > img->fs->super->s_inodes_count ||
	    table_block(img->fs, ino, &blk, &index))
		return 0;
	return blk;
}

/* Make the window hold inode ino, from its block on. */
static errcode_t batch_load(struct e4t_batch *b, ext2_ino_t ino)
{
	ext2_filsys fs = b->rfs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	unsigned per_block = fs->blocksize / b->img->inode_size;
	dgrp_t group = (dgrp_t)((ino - 1) / ipg);
	uint32_t index;
	blk64_t blk;
	unsigned n;
	errcode_t err;

	err = e4t_batch_flush(b);
	b->nblocks = 0;
	if (!err)
		err = table_block(fs, ino, &blk, &index);
	if (err)
		return err;
	n = fs->inode_blocks_per_group - index;
	if (n > b->max_blocks)
		n = b->max_blocks;
	err = io_channel_read_blk64(fs->io, blk, (int)n, b->buf);
	if (err && n > 1) {
		/* A bad block costs that block's inodes only. */
		n = 1;
		err = io_channel_read_blk64(fs->io, blk, 1, b->buf);
	}
	if (err)
		return err;
	memset(b->buf + (size_t)n * fs->blocksize, 0,
	       sizeof(struct ext2_inode_large));
	b->first = blk;
	b->nblocks = n;
	b->first_ino = group * ipg + index * per_block + 1;
	b->end_ino = b->first_ino + n * per_block;
	if (b->end_ino > (group + 1) * ipg + 1)
		b->end_ino = (group + 1) * ipg + 1;
	return 0;
}

errcode_t e4t_batch_inode(struct e4t_batch *b, ext2_ino_t ino,
			  struct ext2_inode_large **raw)
{
	errcode_t err;

	*raw = NULL;
	if (ino < 1 || ino > b->rfs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	if (!b->nblocks || ino < b->first_ino || ino >= b->end_ino) {
		err = batch_load(b, ino);
		if (err)
			return err;
	}
	*raw = (struct ext2_inode_large *)(b->buf +
					   (size_t)(ino - b->first_ino) *
						   b->img->inode_size);
	return 0;
}

/* An inode of the window changed: its checksum, and its block to write. */
static void changed(struct e4t_batch *b, ext2_ino_t ino,
		    struct ext2_inode_large *raw)
{
	unsigned blk = (unsigned)(((char *)raw - b->buf) / b->rfs->blocksize);

	e4t_inode_csum_set(b->rfs, ino, raw);
	if (!(b->dirty[blk / 64] & (1ULL << (blk % 64)))) {
		b->dirty[blk / 64] |= 1ULL << (blk % 64);
		b->ndirty++;
	}
	b->pending++;
}

errcode_t e4t_batch_set(struct e4t_batch *b, ext2_ino_t ino, unsigned fields,
			const struct e4t_ts *ts)
{
	struct ext2_inode_large *raw;
	errcode_t err;

	if (!b->img->writable)
		return EXT2_ET_RO_FILSYS;
	err = e4t_batch_inode(b, ino, &raw);
	if (err)
		return err;
	/* A refusal leaves the window as it was (see set_in_raw()). */
	err = set_in_raw(b->rfs, ino, raw, fields, ts);
	if (err)
		return err;
	changed(b, ino, raw);
	return 0;
}

errcode_t e4t_batch_grow(struct e4t_batch *b, ext2_ino_t ino,
			 const struct e4t_ts *crtime)
{
	struct ext2_inode_large *raw;
	errcode_t err;

	if (!b->img->writable)
		return EXT2_ET_RO_FILSYS;
	err = e4t_batch_inode(b, ino, &raw);
	if (err)
		return err;
	if (!e4t_inode_csum_verify(b->rfs, ino, raw))
		return EXT2_ET_INODE_CSUM_INVALID;
	err = e4t_grow_raw(raw, EXT2_INODE_SIZE(b->rfs->super),
			   e4t_want_extra_isize(b->rfs->super), crtime);
	if (err)
		return err;
	changed(b, ino, raw);
	return 0;
}

errcode_t e4t_batch_end(struct e4t_batch *b)
{
	errcode_t err;

	if (!b)
		return 0;
	err = e4t_batch_flush(b);
	free(b->buf);
	free(b);
	return err;
}

/* Bytes that reached the image through fs's channel. */
static unsigned long long image_bytes_written(ext2_filsys fs)
{
	io_stats stats = NULL;

	if (!fs || !fs->io->manager->get_stats ||
	    fs->io->manager->get_stats(fs->io, &stats) || !stats)
		return 0;
	return stats->bytes_written;
}

errcode_t e4t_image_finish_write(struct e4t_image *img, char **undo_kept)
{
	errcode_t err = 0, cerr;
	int wrote;

	if (undo_kept)
		*undo_kept = NULL;
	if (!img)
		return 0;
	/*
	 * Keep the undo file when anything reached the image, whatever
	 * failed since: after a failed write (a full undo file included) it
	 * is the way back.  Otherwise remove it, and the previous one stays.
	 */
	wrote = img->fs && image_bytes_written(img->fs) > 0;
	/*
	 * libext2fs' close adds the bytes written to the superblock's
	 * lifetime write counter, and so rewrites the superblock (its write
	 * time too), as its last writes.  e4time changes inodes only: with
	 * nothing else to flush, the superblock is left as it was.  Then
	 * the undo file's copy of it, which e2undo compares with the image's,
	 * matches at every point of a run, also one killed during close.
	 */
	/*
	 * What is left to flush (the superblock with its backups and the
	 * group descriptors, after check's superblock fix): one transaction
	 * where there is a journal, so that a kill leaves all or none.
	 */
	if (img->fs && (img->fs->flags & EXT2_FLAG_DIRTY) &&
	    !io_channel_set_options(img->fs->io, "e4t_txn=begin")) {
		err = ext2fs_flush(img->fs);
		cerr = io_channel_set_options(
			img->fs->io, err ? "e4t_txn=abort" : "e4t_txn=commit");
		if (!err)
			err = cerr;
	}
	if (img->fs && !(img->fs->flags & EXT2_FLAG_DIRTY))
		img->fs->super->s_kbytes_written = 0;
	/* Closing flushes the blocks, then finishes the undo file, whose
	 * superblock copy must match the image after the last write. */
	if (img->fs) {
		cerr = ext2fs_close_free(&img->fs);
		if (!err)
			err = cerr;
		img->fs = NULL;
	}
	if (img->undo_new && img->undo_fd >= 0 && wrote) {
		/* What is at PATH now may have changed since it was checked. */
		if (!e4t_undo_replaceable(img->undo_path)) {
			if (!err)
				err = E4T_ERR_UNDO_NOT_UNDO;
			if (undo_kept)
				*undo_kept = strdup(img->undo_new);
		} else if (rename(img->undo_new, img->undo_path)) {
			if (!err)
				err = errno;
			if (undo_kept)
				*undo_kept = strdup(img->undo_new);
		} else if (undo_kept) {
			*undo_kept = strdup(img->undo_path);
		}
	}
	release_write(img, !wrote);
	e4t_image_close(img);
	return err;
}

errcode_t e4t_image_close_write(struct e4t_image *img)
{
	return e4t_image_finish_write(img, NULL);
}
