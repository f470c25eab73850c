/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * undo_path.c --- where a writing command's e2undo file goes, and whether
 * it may go there: checked before the image is opened for writing, so a
 * bad undo path is refused with nothing written.
 *
 * The default name holds the image's base name and a hash of its full
 * name and offset, so two images never share an undo file.  A path may
 * name a new file, an empty one, or an earlier undo file (which is
 * replaced at the end of a run that wrote); never a directory, a device
 * or any other file, the image included.  While a run writes, the undo
 * file is PATH.new, created here and held with flock(2) until the run
 * ends: a second run finds it held and is refused, and never removes it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "e4time.h"

#define UNDO_DEFAULT_DIR "/var/lib/e2fsprogs"
#define E2UNDO_MAGIC	 "E2UNDO02"
/* The least free space an undo file starts with: one 1 MiB region, and
 * the pages of its header, superblock copy and first key block. */
#define UNDO_MIN_FREE ((1ULL << 20) + (64ULL << 10))

static errcode_t refuse(struct e4t_refusal *why, errcode_t err, errcode_t cause,
			const char *what, const char *path)
{
	if (why) {
		snprintf(why->what, sizeof(why->what), "%s %s", what, path);
		why->cause = cause;
	}
	return err;
}

/* A 32-bit FNV-1a hash of the image's full name and offset. */
static uint32_t name_hash(const char *name, uint64_t offset)
{
	char full[PATH_MAX];
	const char *s = realpath(name, full) ? full : name;
	uint32_t h = 2166136261U;
	int i;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619U;
	for (i = 0; i < 8; i++)
		h = (h ^ (unsigned char)(offset >> (8 * i))) * 16777619U;
	return h;
}

errcode_t e4t_undo_default_path(const char *image, uint64_t offset, char **path,
				struct e4t_refusal *why)
{
	const char *dir = getenv("E2FSPROGS_UNDO_DIR");
	struct stat st;
	char *copy, *base;
	size_t len;

	*path = NULL;
	if (!dir)
		dir = UNDO_DEFAULT_DIR;
	/* e2fsprogs silently skips the undo file here; e4time refuses. */
	if (!*dir || !strcmp(dir, "none"))
		return refuse(why, E4T_ERR_UNDO_DIR, 0, "undo directory",
			      *dir ? dir : "(empty)");
	if (!strcmp(dir, UNDO_DEFAULT_DIR))
		mkdir(dir, 0755); /* Debian does not always ship it */
	if (stat(dir, &st))
		return refuse(why, E4T_ERR_UNDO_DIR, errno, "undo directory",
			      dir);
	if (!S_ISDIR(st.st_mode))
		return refuse(why, E4T_ERR_UNDO_DIR, ENOTDIR, "undo directory",
			      dir);
	if (access(dir, W_OK | X_OK))
		return refuse(why, E4T_ERR_UNDO_DIR, errno, "undo directory",
			      dir);
	copy = strdup(image);
	if (!copy)
		return ENOMEM;
	base = basename(copy);
	len = strlen(dir) + strlen(base) + 40;
	*path = malloc(len);
	if (*path)
		snprintf(*path, len, "%s/e4time-%s-%08x.e2undo", dir, base,
			 name_hash(image, offset));
	free(copy);
	return *path ? 0 : ENOMEM;
}

/* Does the regular file open at fd start as an undo file does (or is it
 * empty)? */
static int fd_undo_or_empty(int fd, const struct stat *st)
{
	char magic[sizeof(E2UNDO_MAGIC) - 1];

	if (st->st_size == 0)
		return 1;
	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, E2UNDO_MAGIC, sizeof(magic));
}

/* The same for the regular file at path. */
static int undo_or_empty(const char *path, const struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret;

	if (fd < 0)
		return 0;
	ret = fd_undo_or_empty(fd, st);
	close(fd);
	return ret;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Why files cannot be created in dir (an errno), or 0. */
static errcode_t dir_unusable(const char *dir)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(dir, &st))
		return errno;
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	if (access(dir, W_OK | X_OK))
		return errno;
	if (!statvfs(dir, &vfs) && (vfs.f_flag & ST_RDONLY))
		return EROFS;
	return 0;
}

errcode_t e4t_undo_check_path(const char *path, const char *const *inputs,
			      struct e4t_refusal *why)
{
	char *copy = strdup(path), *dir;
	struct statvfs vfs;
	struct stat st, in;
	errcode_t err = 0, cause = 0;
	size_t i;

	if (!copy)
		return ENOMEM;
	/*
	 * The image or an input under any name (a hard link, a symbolic
	 * link, /proc/self/fd/N) first: said so, whatever else is wrong
	 * with the place (/proc has no room).
	 */
	for (i = 0; !stat(path, &st) && inputs && inputs[i]; i++)
		if (!stat(inputs[i], &in) && same_file(&st, &in)) {
			free(copy);
			return refuse(why, E4T_ERR_UNDO_IS_INPUT, 0,
				      "undo file", path);
		}
	dir = dirname(copy);
	/* The directory: there, a directory, writable, with room. */
	cause = dir_unusable(dir);
	if (cause)
		err = refuse(why, E4T_ERR_UNDO_PATH, cause, "undo file", path);
	else if (!statvfs(dir, &vfs) &&
		 (unsigned long long)vfs.f_bavail * vfs.f_frsize <
			 UNDO_MIN_FREE)
		err = refuse(why, E4T_ERR_UNDO_NO_SPACE, 0, "undo file", path);
	free(copy);
	if (err)
		return err;
	/* The file: none yet, or an undo file to be replaced. */
	if (lstat(path, &st))
		return errno == ENOENT ? 0
				       : refuse(why, E4T_ERR_UNDO_PATH, errno,
						"undo file", path);
	if (S_ISDIR(st.st_mode))
		return refuse(why, E4T_ERR_UNDO_PATH, EISDIR, "undo file",
			      path);
	if (!S_ISREG(st.st_mode))
		return refuse(why, E4T_ERR_UNDO_NOT_REG, 0, "undo file", path);
	if (!undo_or_empty(path, &st))
		return refuse(why, E4T_ERR_UNDO_NOT_UNDO, 0, "undo file", path);
	return 0;
}

errcode_t e4t_undo_claim_new(const char *path, int *fd, struct e4t_refusal *why)
{
	struct stat st;
	int created = 0;

	*fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		   0600);
	if (*fd >= 0) {
		created = 1;
	} else if (errno == EEXIST) {
		/* Left by an earlier run, or being written by one now. */
		*fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (*fd < 0)
			return refuse(why,
				      errno == ELOOP ? E4T_ERR_UNDO_NOT_REG
						     : E4T_ERR_UNDO_PATH,
				      errno == ELOOP ? 0 : errno, "undo file",
				      path);
	} else {
		return refuse(why, E4T_ERR_UNDO_PATH, errno, "undo file", path);
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		/* Held: another run writes it (or has just created it). */
		close(*fd);
		*fd = -1;
		return refuse(why, E4T_ERR_UNDO_BUSY, 0, "undo file", path);
	}
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode) ||
	    (!created && st.st_size != 0)) {
		/* Left by a run that saved something, or not ours at all. */
		errcode_t err = !S_ISREG(st.st_mode) ? E4T_ERR_UNDO_NOT_REG
				: fd_undo_or_empty(*fd, &st)
					? E4T_ERR_UNDO_LEFTOVER
					: E4T_ERR_UNDO_NOT_UNDO;

		close(*fd);
		*fd = -1;
		return refuse(why, err, 0, "undo file", path);
	}
	/*
	 * Ours now.  An empty one left behind was left by a run killed
	 * before it saved anything, so before it wrote anything: it is taken
	 * over as it is.
	 */
	return 0;
}

int e4t_undo_replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT;
	return S_ISREG(st.st_mode) && undo_or_empty(path, &st);
}
