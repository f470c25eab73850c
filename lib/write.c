/*
 * write.c --- the one safe way libe4time writes: refuse a mounted, busy,
 * unrecovered or damaged filesystem; lock the image against a second
 * writer; save every block before it changes in an e2undo file; write
 * whole inodes with their checksums recomputed by libext2fs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"

#define UNDO_DEFAULT_DIR "/var/lib/e2fsprogs"

/*
 * Is the image file attached to a loop device that is mounted?
 * ext2fs_check_if_mounted() knows devices; a regular file is only seen
 * through the loop devices that hold it.
 */
static errcode_t check_loop_mounted(const struct stat *img_st)
{
	glob_t g;
	size_t i;
	errcode_t err = 0;

	if (glob("/sys/block/loop*/loop/backing_file", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !err; i++) {
		char backing[PATH_MAX], dev[64];
		const char *loop = g.gl_pathv[i] + strlen("/sys/block/");
		size_t n = strcspn(loop, "/");
		struct stat st;
		int flags = 0;
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		if (!fgets(backing, sizeof(backing), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		backing[strcspn(backing, "\n")] = '\0';
		if (stat(backing, &st) || st.st_dev != img_st->st_dev ||
		    st.st_ino != img_st->st_ino)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%.*s", (int)n, loop);
		if (!ext2fs_check_if_mounted(dev, &flags) &&
		    (flags & EXT2_MF_MOUNTED))
			err = E4T_ERR_MOUNTED;
	}
	globfree(&g);
	return err;
}

static errcode_t check_not_mounted(const char *name)
{
	struct stat st;
	int flags = 0;
	errcode_t err;

	err = ext2fs_check_if_mounted(name, &flags);
	if (err)
		return err;
	if (flags & EXT2_MF_MOUNTED)
		return E4T_ERR_MOUNTED;
	if (flags & EXT2_MF_BUSY)
		return E4T_ERR_BUSY;
	if (stat(name, &st))
		return errno;
	if (S_ISREG(st.st_mode))
		return check_loop_mounted(&st);
	return 0;
}

errcode_t e4t_undo_default_path(const char *image, char **path)
{
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");
	char *copy, *base;
	size_t len;

	*path = NULL;
	if (!dir)
		dir = UNDO_DEFAULT_DIR;
	/* e2fsprogs silently skips the undo file here; e4time refuses. */
	if (!*dir || !strcmp(dir, "none"))
		return E4T_ERR_UNDO_DIR;
	if (!strcmp(dir, UNDO_DEFAULT_DIR))
		mkdir(dir, 0755); /* Debian does not always ship it */
	if (access(dir, W_OK))
		return E4T_ERR_UNDO_DIR;
	copy = strdup(image);
	if (!copy)
		return ENOMEM;
	base = basename(copy);
	len = strlen(dir) + strlen(base) + 32;
	*path = malloc(len);
	if (*path)
		snprintf(*path, len, "%s/e4time-%s.e2undo", dir, base);
	free(copy);
	return *path ? 0 : ENOMEM;
}

static errcode_t undo_new_path(const char *path, char **out)
{
	size_t len = strlen(path) + 5;

	*out = malloc(len);
	if (!*out)
		return ENOMEM;
	snprintf(*out, len, "%s.new", path);
	return 0;
}

static errcode_t check_writable_state(struct e4t_image *img)
{
	if (img->state & E4T_IMG_NEEDS_RECOVERY)
		return E4T_ERR_NEEDS_RECOVERY;
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

errcode_t e4t_image_open_write(const char *name, uint64_t offset,
			       const struct e4t_write_opts *opts,
			       struct e4t_image **ret)
{
	struct e4t_image *img = NULL;
	errcode_t err;
	int fd = -1;

	*ret = NULL;
	err = check_not_mounted(name);
	if (err)
		return err;
	/* First a read-only look: refuse before anything is opened RW. */
	err = e4t_image_open(name, offset, &img);
	if (err)
		return err;
	err = check_writable_state(img);
	if (err || opts->dry_run) {
		if (err)
			e4t_image_close(img);
		else
			*ret = img;
		return err;
	}
	/* One writer at a time: an advisory lock that a second e4time sees. */
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? E4T_ERR_LOCKED : errno;
		if (fd >= 0)
			close(fd);
		e4t_image_close(img);
		return err;
	}
	ext2fs_close_free(&img->fs);

	if (!opts->no_undo) {
		if (opts->undo_path)
			img->undo_path = strdup(opts->undo_path);
		else
			err = e4t_undo_default_path(name, &img->undo_path);
		if (!err && !img->undo_path)
			err = ENOMEM;
		/*
		 * Undo into PATH.new; close renames it over PATH only when an
		 * inode was written, so a run that writes nothing (refused,
		 * nothing to change) leaves the previous undo file alone.
		 */
		if (!err)
			err = undo_new_path(img->undo_path, &img->undo_new);
		if (!err && unlink(img->undo_new) && errno != ENOENT)
			err = errno;
		if (!err)
			err = set_undo_io_backing_manager(unix_io_manager);
		if (!err)
			err = set_undo_io_backup_file(img->undo_new);
	}
	if (!err)
		err = e4t_image_reopen_rw(img, opts->no_undo ? unix_io_manager
							     : undo_io_manager);
	/*
	 * Save 1 MiB regions rather than single blocks: timestamps are
	 * rewritten across whole inode tables, and a million undo records of
	 * one block each cost more than the writes themselves.  e2undo
	 * reads the region size from the file.
	 */
	if (!err && !opts->no_undo)
		err = io_channel_set_options(img->fs->io,
					     "tdb_data_size=1048576");
	if (err) {
		close(fd);
		e4t_image_close(img);
		return err;
	}
	img->lock_fd = fd;
	img->writable = 1;
	*ret = img;
	return 0;
}

/* Does the inode hold field f with its _extra word? */
static int has_room(const struct e4t_inode *in, enum e4t_field f)
{
	if (f == E4T_CRTIME)
		return (in->present & E4T_PRESENT(f)) != 0;
	return (in->present & E4T_PRESENT_EXTRA(f)) != 0;
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
		if (f == E4T_CRTIME)
			return E4T_ERR_NO_CRTIME_ROOM;
		/* Base word only: whole seconds within 32 bits, or refuse. */
		if (ts[f].nsec || ts[f].sec < INT32_MIN ||
		    ts[f].sec > INT32_MAX)
			return E4T_ERR_NO_EXTRA_ROOM;
	}
	return 0;
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
	if (err)
		return err;
	return e4t_inode_set_times_raw(
		img, ino, &u.large,
		ext2fs_inode_csum_verify(img->fs, ino, &u.large), fields, ts);
}

errcode_t e4t_inode_set_times_raw(struct e4t_image *img, ext2_ino_t ino,
				  struct ext2_inode_large *raw, int csum_ok,
				  unsigned fields, const struct e4t_ts *ts)
{
	struct e4t_inode in;
	errcode_t err;
	int f;

	if (!img->writable)
		return EXT2_ET_RO_FILSYS;
	e4t_inode_decode(raw, img->inode_size, ino, &in);
	if (!csum_ok)
		in.flags |= E4T_INO_CSUM_BAD; /* never rewrite a bad inode */
	err = e4t_check_settable(&in, fields, ts);
	if (err)
		return err;
	for (f = 0; f < E4T_DTIME; f++) {
		uint32_t base, extra = 0;

		if (!(fields & (1U << f)))
			continue;
		if (has_room(&in, f))
			err = e4t_ts_encode(ts[f].sec, ts[f].nsec, &base,
					    &extra);
		else
			err = e4t_ts_encode_base(ts[f].sec, &base);
		if (err)
			return err;
		switch (f) {
		case E4T_ATIME:
			raw->i_atime = base;
			if (has_room(&in, f))
				raw->i_atime_extra = extra;
			break;
		case E4T_MTIME:
			raw->i_mtime = base;
			if (has_room(&in, f))
				raw->i_mtime_extra = extra;
			break;
		case E4T_CTIME:
			raw->i_ctime = base;
			if (has_room(&in, f))
				raw->i_ctime_extra = extra;
			break;
		case E4T_CRTIME:
			raw->i_crtime = base;
			raw->i_crtime_extra = extra;
			break;
		}
	}
	/* libext2fs recomputes the inode checksum on the way out. */
	err = ext2fs_write_inode_full(img->fs, ino, (struct ext2_inode *)raw,
				      (int)img->inode_size);
	if (!err)
		img->written++;
	return err;
}

errcode_t e4t_image_close_write(struct e4t_image *img)
{
	errcode_t err = 0;

	if (!img)
		return 0;
	/* Closing flushes the blocks, then finishes the undo file, whose
	 * superblock copy must match the image after the last write. */
	if (img->fs) {
		err = ext2fs_close_free(&img->fs);
		img->fs = NULL;
	}
	if (img->undo_new) {
		if (!err && img->written) {
			if (rename(img->undo_new, img->undo_path))
				err = errno;
		} else {
			unlink(img->undo_new);
			if (!img->written) {
				/* nothing to undo: the old file stays */
				free(img->undo_path);
				img->undo_path = NULL;
			}
		}
	}
	if (img->lock_fd >= 0)
		close(img->lock_fd);
	img->lock_fd = -1;
	e4t_image_close(img);
	return err;
}
