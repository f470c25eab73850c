/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holders.c --- is the image in use where no block device shows it?
 *
 * inuse.c sees the bytes through every block device.  A FUSE mount of the
 * image file (fuse2fs, a FUSE server of a container), a virtual machine
 * running from the raw file, dd, or any tool that takes no lock hold the
 * file itself, and no device does.  They are found by the file's identity
 * (device and inode), never its name:
 *
 * - a mount whose source, stat()ed, is the image file (its name as the
 *   mount was given it, when absolute: a hard link or a symbolic link
 *   is the same file);
 * - a descriptor of another process (every /proc/PID/fd/N) on the image
 *   file, or on a block device whose bytes overlap the image's (inuse.c
 *   traces them), open for writing (its fdinfo flags); or open at all by
 *   a process that also holds /dev/fuse, a FUSE server, which serves it
 *   as a mounted filesystem.
 *
 * The descriptors are stat()ed with AT_STATX_DONT_SYNC: a file on a FUSE
 * mount whose server hangs is answered from the kernel's cache rather
 * than waited for.  A process that cannot be inspected (gone, or another
 * user's when not root) is passed over.
 */
/* statx(2) */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "e4time.h"
#include "write/refusal_int.h"

#define FUSE_MAJOR 10 /* /dev/fuse: a misc device */
#define FUSE_MINOR 229

/* path, the magic link followed, into st (type, ids); 0 or -1. */
static int stat_nosync(const char *path, struct stat *st)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_INO, &sx))
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_mode = sx.stx_mode;
	st->st_ino = sx.stx_ino;
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	return 0;
}

/* A field of mountinfo, its \ooo escapes undone, in place; the next. */
static char *field(char *p, char **next)
{
	char *out = p, *in = p;

	while (*in && *in != ' ' && *in != '\n') {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' &&
		    in[2] >= '0' && in[2] <= '7' && in[3] >= '0' &&
		    in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 +
					(in[3] - '0'));
			in += 4;
		} else {
			*out++ = *in++;
		}
	}
	*next = *in ? in + 1 : in;
	*out = '\0';
	return p;
}

/* A mount whose source is the image file, under any name? */
static errcode_t check_mounts(const struct stat *target, uint64_t offset,
			      uint64_t length, struct e4t_refusal *why)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4 * PATH_MAX + 256];
	errcode_t err = 0;

	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char *p = line, *mnt = NULL, *fstype, *source, *tok;
		struct stat st;
		int i;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPT...] - TYPE
		 * SOURCE SUPEROPTIONS */
		for (i = 0; *p; i++) {
			tok = field(p, &p);
			if (i == 4)
				mnt = tok;
			if (i >= 6 && !strcmp(tok, "-"))
				break;
		}
		if (!mnt || !*p)
			continue;
		fstype = field(p, &p);
		source = field(p, &p);
		/* Block devices: inuse.c has seen them. */
		if (source[0] != '/' || stat_nosync(source, &st) ||
		    !S_ISREG(st.st_mode) ||
		    !e4t_bytes_overlap(target, offset, length, &st))
			continue;
		e4t_refusal_note(why, "%s is mounted on %s (%s)", source, mnt,
				 fstype);
		err = E4T_ERR_MOUNTED;
	}
	fclose(f);
	return err;
}

/* The open flags of /proc/PID/fdinfo/FD, or -1. */
static long fd_flags(const char *pid, const char *fd)
{
	char path[320], line[128];
	long flags = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags:", 6)) {
			char *end;

			errno = 0;
			flags = strtol(line + 6, &end, 8);
			if (errno || end == line + 6)
				flags = -1;
			break;
		}
	fclose(f);
	return flags;
}

static void proc_comm(const char *pid, char *comm, size_t len)
{
	char path[320];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	snprintf(comm, len, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/* What one process holds of the image. */
struct held {
	int fuse;	 /* it holds /dev/fuse */
	char fd[256];	 /* the first descriptor on the image, or "" */
	int writable;	 /* that one, or a later one, open for writing */
	char what[4096]; /* what that descriptor is open on */
};

static void look_at_fd(const char *pid, const char *fd,
		       const struct stat *target, uint64_t offset,
		       uint64_t length, struct held *h)
{
	char path[320];
	struct stat st;
	long flags;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd);
	if (stat_nosync(path, &st))
		return;
	if (S_ISCHR(st.st_mode) &&
	    st.st_rdev == makedev(FUSE_MAJOR, FUSE_MINOR)) {
		h->fuse = 1;
		return;
	}
	if ((!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) ||
	    !e4t_bytes_overlap(target, offset, length, &st))
		return;
	flags = fd_flags(pid, fd);
	if (flags < 0 || (flags & O_PATH))
		return;
	if (h->fd[0] && (h->writable || (flags & O_ACCMODE) == O_RDONLY))
		return;
	snprintf(h->fd, sizeof(h->fd), "%s", fd);
	h->writable = (flags & O_ACCMODE) != O_RDONLY;
	n = readlink(path, h->what, sizeof(h->what) - 1);
	h->what[n > 0 ? n : 0] = '\0';
}

/* Does process pid hold the image? */
static errcode_t check_process(const char *pid, const struct stat *target,
			       uint64_t offset, uint64_t length,
			       struct e4t_refusal *why)
{
	struct held *h = calloc(1, sizeof(*h));
	char path[320];
	struct dirent *de;
	errcode_t err = 0;
	DIR *d;

	if (!h)
		return ENOMEM;
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d) {
		free(h);
		return 0; /* gone, a kernel thread, or not ours to see */
	}
	/* cppcheck-suppress readdirCalled ; one thread reads d */
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			look_at_fd(pid, de->d_name, target, offset, length, h);
	closedir(d);
	if (h->fd[0] && (h->writable || h->fuse)) {
		char comm[64];

		proc_comm(pid, comm, sizeof(comm));
		if (h->fuse) {
			e4t_refusal_note(
				why,
				"FUSE server %s (PID %s) has %s open%s (fd %s)",
				comm, pid, h->what,
				h->writable ? " for writing" : " read-only",
				h->fd);
			err = E4T_ERR_MOUNTED;
		} else {
			e4t_refusal_note(
				why,
				"%s (PID %s) has %s open for writing (fd %s)",
				comm, pid, h->what, h->fd);
			err = E4T_ERR_HELD;
		}
	}
	free(h);
	return err;
}

errcode_t e4t_check_holders(const struct stat *target, uint64_t offset,
			    uint64_t length, struct e4t_refusal *why)
{
	char self[32];
	struct dirent *de;
	errcode_t err;
	DIR *d;

	err = check_mounts(target, offset, length, why);
	if (err)
		return err;
	d = opendir("/proc");
	if (!d)
		return 0;
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	/* cppcheck-suppress readdirCalled ; one thread reads d */
	while (!err && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) &&
		    strcmp(de->d_name, self))
			err = check_process(de->d_name, target, offset, length,
					    why);
	closedir(d);
	return err;
}
