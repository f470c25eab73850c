/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * image.c --- opening an ext2/3/4 image read-only, finding files in it,
 * and reading single inodes.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "fs/sbopen_int.h"

static void check_state(struct e4t_image *img, uint64_t image_size)
{
	ext2_filsys fs = img->fs;
	dgrp_t g;
	uint64_t fs_bytes;

	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		img->state |= E4T_IMG_NEEDS_RECOVERY;
	if (fs->super->s_state & EXT2_ERROR_FS)
		img->state |= E4T_IMG_ERRORS_FLAGGED;
	if (!ext2fs_superblock_csum_verify(fs, fs->super))
		img->state |= E4T_IMG_SB_CSUM_BAD;
	for (g = 0; g < fs->group_desc_count; g++) {
		if (!ext2fs_group_desc_csum_verify(fs, g)) {
			img->state |= E4T_IMG_GD_CSUM_BAD;
			break;
		}
	}
	fs_bytes = ext2fs_blocks_count(fs->super) * (uint64_t)fs->blocksize;
	if (image_size && img->offset + fs_bytes > image_size)
		img->state |= E4T_IMG_TRUNCATED;
}

/*
 * The writing handle reads as the reading ones do: a checksum that fails
 * is e4time's to report and refuse (write.c never rewrites such an inode),
 * not libext2fs' to stop at.  Without the flag, the inode scan of a writing
 * command gave up on the rest of a group at the first bad inode checksum,
 * and xattr blocks with bad checksums became unreadable: -n and the real
 * run disagreed.  The flag only concerns what libext2fs verifies on reads.
 */
#define WRITE_FLAGS                                                            \
	(EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE | EXT2_FLAG_64BITS |               \
	 EXT2_FLAG_IGNORE_CSUM_ERRORS)

errcode_t e4t_image_reopen(struct e4t_image *img, ext2_filsys *fs)
{
	return e4t_fs_open(img, E4T_READ_FLAGS, unix_io_manager, fs);
}

errcode_t e4t_image_shadow(struct e4t_image *img, struct e4t_image **ret)
{
	struct e4t_image *s = malloc(sizeof(*s));
	errcode_t err;

	*ret = NULL;
	if (!s)
		return ENOMEM;
	*s = *img; /* name, view, offsets: img's, not the shadow's to free */
	s->fs = NULL;
	s->writable = 0;
	s->undo_fd = -1;
	s->undo_path = NULL;
	s->undo_new = NULL;
	pthread_mutex_init(&s->write_lock, NULL);
	err = e4t_image_reopen(img, &s->fs);
	if (err) {
		pthread_mutex_destroy(&s->write_lock);
		free(s);
		return err;
	}
	*ret = s;
	return 0;
}

void e4t_image_shadow_free(struct e4t_image *shadow)
{
	if (!shadow)
		return;
	if (shadow->fs)
		ext2fs_close_free(&shadow->fs);
	pthread_mutex_destroy(&shadow->write_lock);
	free(shadow);
}

errcode_t e4t_image_reopen_rw(struct e4t_image *img, io_manager io)
{
	if (img->fs)
		ext2fs_close_free(&img->fs);
	return e4t_fs_open(img, WRITE_FLAGS, io, &img->fs);
}

static struct e4t_image *image_new(const char *name, uint64_t offset)
{
	struct e4t_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->name = strdup(name);
	if (!img->name) {
		free(img);
		return NULL;
	}
	img->offset = offset;
	img->backing_fd = -1;
	img->undo_fd = -1;
	img->image_fd = -1;
	pthread_mutex_init(&img->write_lock, NULL);
	return img;
}

/* Open img's first handle; on failure img is freed. */
static errcode_t image_start(struct e4t_image *img, uint64_t image_size,
			     const struct e4t_sb_opts *sb,
			     struct e4t_image **ret)
{
	errcode_t err = e4t_sb_select(img, sb, &img->fs);

	if (err) {
		img->image_fd = -1; /* the caller's on failure */
		e4t_image_close(img);
		if (err == EXT2_ET_BAD_MAGIC || err == EXT2_ET_SHORT_READ ||
		    err == EXT2_ET_UNEXPECTED_BLOCK_SIZE)
			return E4T_ERR_NOT_EXT;
		return err;
	}
	img->inode_size = EXT2_INODE_SIZE(img->fs->super);
	check_state(img, image_size);
	*ret = img;
	return 0;
}

static errcode_t open_view(const char *name, const struct e4t_view *v,
			   uint64_t offset, const struct e4t_sb_opts *sb,
			   struct e4t_image **ret)
{
	struct e4t_image *img;
	errcode_t err;

	*ret = NULL;
	if (offset >= v->size)
		return E4T_ERR_OFFSET;
	img = image_new(name, offset);
	if (!img)
		return ENOMEM;
	err = e4t_view_io_name(v, img->view_name, sizeof(img->view_name));
	if (err) {
		e4t_image_close(img);
		return err;
	}
	img->view = v;
	return image_start(img, v->size, sb, ret);
}

/* name, or with fd >= 0 the file open as fd (img owns it on success). */
static errcode_t open_file(const char *name, int fd, uint64_t offset,
			   const struct e4t_sb_opts *sb, struct e4t_image **ret)
{
	struct e4t_image *img;
	struct stat st;
	uint64_t image_size = 0;

	*ret = NULL;
	if (fd >= 0 ? fstat(fd, &st) : stat(name, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return E4T_ERR_IS_DIR;
	if (S_ISREG(st.st_mode)) {
		image_size = (uint64_t)st.st_size;
		if (image_size == 0)
			return E4T_ERR_EMPTY;
		if (offset >= image_size)
			return E4T_ERR_OFFSET;
	}
	img = image_new(name, offset);
	if (!img)
		return ENOMEM;
	if (fd >= 0)
		e4t_image_hold_fd(img, fd);
	return image_start(img, image_size, sb, ret);
}

errcode_t e4t_image_open2(const char *name, int fd, const struct e4t_view *v,
			  uint64_t offset, const struct e4t_sb_opts *sb,
			  struct e4t_image **ret)
{
	if (v)
		return open_view(name, v, offset, sb, ret);
	return open_file(name, fd, offset, sb, ret);
}

errcode_t e4t_image_open(const char *name, uint64_t offset,
			 struct e4t_image **ret)
{
	return open_file(name, -1, offset, NULL, ret);
}

errcode_t e4t_image_open_view(const char *name, const struct e4t_view *v,
			      uint64_t offset, struct e4t_image **ret)
{
	return open_view(name, v, offset, NULL, ret);
}

errcode_t e4t_image_open_fd(const char *name, int fd, uint64_t offset,
			    struct e4t_image **ret)
{
	return open_file(name, fd, offset, NULL, ret);
}

void e4t_image_hold_fd(struct e4t_image *img, int fd)
{
	img->image_fd = fd;
	snprintf(img->io_name, sizeof(img->io_name), "/proc/self/fd/%d", fd);
}

void e4t_image_close(struct e4t_image *img)
{
	if (!img)
		return;
	if (img->fs)
		ext2fs_close_free(&img->fs);
	if (img->image_fd >= 0)
		close(img->image_fd);
	if (img->view)
		e4t_view_io_forget(img->view);
	free(img->undo_path);
	free(img->undo_new);
	free(img->name);
	pthread_mutex_destroy(&img->write_lock);
	free(img);
}

static errcode_t parse_ino(struct e4t_image *img, const char *spec,
			   ext2_ino_t *ino)
{
	const char *p = spec + 1;
	char *end;
	unsigned long long v;

	if (*p < '0' || *p > '9')
		return E4T_ERR_FILESPEC;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end[0] != '>' || end[1] != '\0')
		return E4T_ERR_FILESPEC;
	if (v < 1 || v > img->fs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	*ino = (ext2_ino_t)v;
	return 0;
}

/*
 * Path lookup as the kernel does it (ext2fs_namei() compares names byte
 * for byte and takes "/file/" for the file): a name in a directory with
 * EXT4_CASEFOLD_FL, on a filesystem with the casefold feature, matches as
 * the kernel matches it (the encoding's casefold, or the exact bytes when
 * one of the names is not valid in the encoding); every component but
 * the last must be a directory, after following a symbolic link, and so
 * must the last when a slash follows it.
 */
#define MAX_LINKS 40 /* the kernel's MAXSYMLINKS */

struct lookup {
	const char *name;
	size_t len;
	const struct ext2fs_nls_table *fold; /* NULL: exact bytes */
	ext2_ino_t ino;
};

/* libext2fs' callback type: buf cannot be const */
/* NOLINTBEGIN(readability-non-const-parameter) */
static int lookup_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de,
		     int offset, int blocksize, char *buf, void *priv)
/* NOLINTEND(readability-non-const-parameter) */
{
	struct lookup *l = priv;
	size_t n = (size_t)ext2fs_dirent_name_len(de);

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (!de->inode)
		return 0;
	if ((n != l->len || memcmp(de->name, l->name, n)) &&
	    (!l->fold ||
	     ext2fs_casefold_cmp(l->fold, (const unsigned char *)l->name,
				 l->len, (const unsigned char *)de->name, n)))
		return 0;
	l->ino = de->inode;
	return DIRENT_ABORT;
}

/* The entry name[len] of directory dir (read into *dinode). */
static errcode_t lookup(ext2_filsys fs, ext2_ino_t dir,
			const struct ext2_inode *dinode, const char *name,
			size_t len, ext2_ino_t *ino)
{
	struct lookup l = { name, len, NULL, 0 };
	errcode_t err;

	if (fs->encoding && ext2fs_has_feature_casefold(fs->super) &&
	    (dinode->i_flags & EXT4_CASEFOLD_FL))
		l.fold = fs->encoding;
	err = ext2fs_dir_iterate2(fs, dir, 0, NULL, lookup_cb, &l);
	if (err == EXT2_ET_NO_DIRECTORY)
		return E4T_ERR_NOT_DIR;
	if (err)
		return err;
	if (!l.ino)
		return E4T_ERR_NOT_FOUND;
	*ino = l.ino;
	return 0;
}

/* The target of symbolic link ino (*target malloc'd, *len bytes). */
static errcode_t link_target(ext2_filsys fs, ext2_ino_t ino,
			     struct ext2_inode *inode, char **target,
			     size_t *len)
{
	size_t size = EXT2_I_SIZE(inode);
	ext2_file_t file;
	unsigned got = 0;
	char *buf;
	errcode_t err;

	if (!size || size >= fs->blocksize || size >= PATH_MAX)
		return E4T_ERR_NOT_FOUND;
	if (inode->i_flags & EXT4_ENCRYPT_FL)
		return E4T_ERR_NOT_FOUND; /* the name is ciphertext */
	buf = malloc(fs->blocksize + 1);
	if (!buf)
		return ENOMEM;
	if (ext2fs_is_fast_symlink(inode)) {
		if (size > sizeof(inode->i_block)) {
			free(buf);
			return E4T_ERR_NOT_FOUND;
		}
		memcpy(buf, inode->i_block, size);
	} else {
		/* data blocks or inline data, as libext2fs reads a file */
		err = ext2fs_file_open2(fs, ino, inode, 0, &file);
		if (!err) {
			err = ext2fs_file_read(file, buf, (unsigned)size, &got);
			ext2fs_file_close(file);
		}
		if (!err && got != size)
			err = E4T_ERR_NOT_FOUND;
		if (err) {
			free(buf);
			return err;
		}
	}
	buf[size] = '\0';
	*target = buf;
	*len = size;
	return 0;
}

static errcode_t walk_path(ext2_filsys fs, ext2_ino_t dir, const char *path,
			   size_t len, int follow_last, int *links,
			   ext2_ino_t *res);

/* ino, found in dir; a symbolic link is followed. */
/* NOLINTNEXTLINE(misc-no-recursion) */
static errcode_t follow(ext2_filsys fs, ext2_ino_t dir, ext2_ino_t ino,
			int *links, ext2_ino_t *res)
{
	struct ext2_inode inode;
	char *target;
	size_t len;
	errcode_t err;

	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISLNK(inode.i_mode)) {
		*res = ino;
		return 0;
	}
	if (++*links > MAX_LINKS)
		return EXT2_ET_SYMLINK_LOOP;
	err = link_target(fs, ino, &inode, &target, &len);
	if (err)
		return err;
	if (memchr(target, '\0', len))
		err = E4T_ERR_NOT_FOUND;
	else
		err = walk_path(fs, target[0] == '/' ? EXT2_ROOT_INO : dir,
				target, len, 1, links, res);
	free(target);
	return err;
}

/* Inode ino, which the path goes through, read into *inode. */
static errcode_t read_dir(ext2_filsys fs, ext2_ino_t ino,
			  struct ext2_inode *inode)
{
	errcode_t err = ext2fs_read_inode(fs, ino, inode);

	if (err)
		return err;
	if (!inode->i_mode || !inode->i_links_count)
		return E4T_ERR_NOT_IN_USE;
	return LINUX_S_ISDIR(inode->i_mode) ? 0 : E4T_ERR_NOT_DIR;
}

/* NOLINTNEXTLINE(misc-no-recursion) */
static errcode_t walk_path(ext2_filsys fs, ext2_ino_t dir, const char *path,
			   size_t len, int follow_last, int *links,
			   ext2_ino_t *res)
{
	const char *p = path, *end = path + len;
	struct ext2_inode dinode;
	int have_dinode = 0;
	errcode_t err;

	if (p == end)
		return E4T_ERR_NOT_FOUND; /* an empty link target */
	for (;;) {
		const char *name;
		ext2_ino_t ino;

		while (p < end && *p == '/')
			p++;
		if (p == end) {
			*res = dir;
			return 0;
		}
		if (!have_dinode) {
			err = read_dir(fs, dir, &dinode);
			if (err)
				return err;
		}
		name = p;
		while (p < end && *p != '/')
			p++;
		err = lookup(fs, dir, &dinode, name, (size_t)(p - name), &ino);
		if (err)
			return err;
		if (p < end || follow_last) {
			err = follow(fs, dir, ino, links, &ino);
			if (err)
				return err;
		}
		if (p == end) {
			*res = ino;
			return 0;
		}
		/* a slash follows, even a last one: a directory */
		err = read_dir(fs, ino, &dinode);
		if (err)
			return err;
		have_dinode = 1;
		dir = ino;
	}
}

errcode_t e4t_image_resolve(struct e4t_image *img, const char *spec,
			    ext2_ino_t *ino)
{
	int links = 0;

	if (spec[0] == '<')
		return parse_ino(img, spec, ino);
	if (spec[0] != '/')
		return E4T_ERR_FILESPEC;
	return walk_path(img->fs, EXT2_ROOT_INO, spec, strlen(spec), 0, &links,
			 ino);
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

int e4t_ino_in(const ext2_ino_t *sorted, size_t count, ext2_ino_t ino)
{
	return count &&
	       bsearch(&ino, sorted, count, sizeof(*sorted), cmp_ino) != NULL;
}

#define MAX_ORPHANS 65536

errcode_t e4t_image_orphans(struct e4t_image *img, ext2_ino_t **list,
			    size_t *count)
{
	ext2_filsys fs = img->fs;
	ext2_ino_t ino = fs->super->s_last_orphan, *v = NULL;
	size_t n = 0, cap = 0;

	*list = NULL;
	*count = 0;
	while (ino >= 1 && ino <= fs->super->s_inodes_count &&
	       n < MAX_ORPHANS) {
		struct ext2_inode inode;
		size_t i;

		for (i = 0; i < n; i++) /* short lists: a loop check is cheap */
			if (v[i] == ino)
				goto done;
		if (e4t_grow(&v, &cap, n + 1, sizeof(*v), 16)) {
			free(v);
			return ENOMEM;
		}
		v[n++] = ino;
		if (ext2fs_read_inode2(fs, ino, &inode, sizeof(inode),
				       READ_INODE_NOCSUM))
			break;
		ino = inode.i_dtime;
	}
done:
	if (n)
		qsort(v, n, sizeof(*v), cmp_ino);
	*list = v;
	*count = n;
	return 0;
}

errcode_t e4t_image_read_inode(struct e4t_image *img, ext2_ino_t ino,
			       struct e4t_inode *info)
{
	union {
		struct ext2_inode_large large;
		char buf[EXT2_MAX_BLOCK_SIZE];
	} u;
	unsigned size = img->inode_size;
	errcode_t err;

	if (ino < 1 || ino > img->fs->super->s_inodes_count)
		return E4T_ERR_INO_RANGE;
	if (size > sizeof(u))
		size = sizeof(u);
	memset(&u, 0, img->inode_size); /* not the whole 64 KiB union */
	err = ext2fs_read_inode2(img->fs, ino, (struct ext2_inode *)&u.large,
				 (int)size, READ_INODE_NOCSUM);
	if (err)
		return err;
	e4t_inode_decode(&u.large, img->inode_size, ino, info);
	if (!ext2fs_inode_csum_verify(img->fs, ino, &u.large))
		info->flags |= E4T_INO_CSUM_BAD;
	if (img->fs->super->s_last_orphan) {
		ext2_ino_t *orphans;
		size_t n;

		err = e4t_image_orphans(img, &orphans, &n);
		if (err)
			return err;
		if (e4t_ino_in(orphans, n, ino)) {
			info->flags |= E4T_INO_ORPHAN_LIST;
			e4t_inode_decode_times(info);
		}
		free(orphans);
	}
	return 0;
}
