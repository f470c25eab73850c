/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inuse.c --- are the bytes a writer is about to change in use by anyone
 * else?
 *
 * A filesystem is bytes: a range of a regular file, or of a disk.  Every
 * block device the system has (/sys/class/block: disks, partitions, loop
 * devices and their partitions) is traced down to those bytes: a loop
 * device to its backing file (or to the disk behind it) from its offset,
 * a partition to its disk from its start.  A device whose bytes overlap
 * the range to be written is in use when it is mounted (this mount
 * namespace's /proc/self/mountinfo), swap, held by another device (device
 * mapper, md: its holders/ directory), or claimed exclusively (an open
 * with O_EXCL fails with EBUSY: a mount in any namespace, mkfs, e2fsck, a
 * writing e4time).  A whole device is busy too while any of its
 * partitions is claimed: that counts only through the partition, when its
 * bytes overlap.  ext2fs_check_if_mounted() sees only the device named
 * and the loop devices that hold a file from byte 0; this sees the same
 * bytes under every name.
 */
#include "config.h"

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

#define SYS_CLASS_BLOCK "/sys/class/block"
#define SECTOR		512ULL
#define MAX_DEPTH	4 /* loop on loop on ... */

/* Where a device's (or the target's) bytes are. */
struct bytes {
	int is_file;	/* a regular file (dev, ino), else a disk (dev) */
	dev_t dev;	/* the file's st_dev, or the whole disk's number */
	ino_t ino;	/* the file's st_ino */
	uint64_t start; /* bytes */
	uint64_t len;
	char file[PATH_MAX]; /* the backing file's name (loop devices) */
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_u64(const char *dir, const char *file, uint64_t *v)
{
	char path[PATH_MAX], buf[64], *end;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >=
		    sizeof(path) ||
	    read_line(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? -1 : 0;
}

/* "MAJ:MIN" at s into dev; *end after it.  0, or -1 when it is not. */
static int parse_devnum(const char *s, dev_t *dev, const char **end)
{
	unsigned long maj, min;
	char *e;

	errno = 0;
	maj = strtoul(s, &e, 10);
	if (errno || e == s || *e != ':')
		return -1;
	s = e + 1;
	min = strtoul(s, &e, 10);
	if (errno || e == s)
		return -1;
	*dev = makedev(maj, min);
	if (end)
		*end = e;
	return 0;
}

static int read_devnum(const char *dir, dev_t *dev)
{
	char path[PATH_MAX], buf[64];
	const char *end;

	if ((size_t)snprintf(path, sizeof(path), "%s/dev", dir) >=
		    sizeof(path) ||
	    read_line(path, buf, sizeof(buf)) || parse_devnum(buf, dev, &end) ||
	    *end)
		return -1;
	return 0;
}

static int is_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) <
		       sizeof(path) &&
	       !stat(path, &st);
}

static int trace_disk(dev_t dev, struct bytes *b, int depth);

/*
 * The bytes of the block device whose sysfs directory is dir: its own
 * range of its whole disk, and for a loop device, of what backs it.
 */
/* NOLINTNEXTLINE(misc-no-recursion): at most MAX_DEPTH deep */
static int trace_sysdir(const char *dir, struct bytes *b, int depth)
{
	char whole[PATH_MAX], path[PATH_MAX], backing[PATH_MAX];
	uint64_t start = 0, size, loop_off = 0;
	struct stat st;
	dev_t dev;

	if (depth > MAX_DEPTH || read_u64(dir, "size", &size))
		return -1;
	if (is_file(dir, "partition")) {
		if (read_u64(dir, "start", &start) ||
		    (size_t)snprintf(path, sizeof(path), "%s/..", dir) >=
			    sizeof(path) ||
		    !realpath(path, whole))
			return -1;
	} else if (!realpath(dir, whole)) {
		return -1;
	}
	if (read_devnum(whole, &dev))
		return -1;
	start *= SECTOR;
	b->len = size * SECTOR;
	b->file[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/loop/backing_file",
			     whole) < sizeof(path) &&
	    !read_line(path, backing, sizeof(backing))) {
		if (read_u64(whole, "loop/offset", &loop_off))
			loop_off = 0;
		if (!stat(backing, &st) && S_ISREG(st.st_mode)) {
			b->is_file = 1;
			b->dev = st.st_dev;
			b->ino = st.st_ino;
			b->start = loop_off + start;
			snprintf(b->file, sizeof(b->file), "%s", backing);
			return 0;
		}
		if (!stat(backing, &st) && S_ISBLK(st.st_mode)) {
			uint64_t len = b->len;

			if (trace_disk(st.st_rdev, b, depth + 1))
				return -1;
			b->start += loop_off + start;
			b->len = len;
			return 0;
		}
		/* A deleted backing file is no file of ours: the disk. */
	}
	b->is_file = 0;
	b->dev = dev;
	b->ino = 0;
	b->start = start;
	return 0;
}

/* NOLINTNEXTLINE(misc-no-recursion): at most MAX_DEPTH deep */
static int trace_disk(dev_t dev, struct bytes *b, int depth)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	return trace_sysdir(dir, b, depth);
}

static int overlap(const struct bytes *a, const struct bytes *b)
{
	if (a->is_file != b->is_file || a->dev != b->dev ||
	    (a->is_file && a->ino != b->ino))
		return 0;
	return a->start < b->start + b->len && b->start < a->start + a->len;
}

/* Is dev mounted here?  Its mount point into mnt. */
static int mounted_at(dev_t dev, char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4 * PATH_MAX];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line, *end;
		int field;
		dev_t d;

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		for (field = 0; field < 2 && p; field++) {
			p = strchr(p, ' ');
			p = p ? p + 1 : NULL;
		}
		if (!p || parse_devnum(p, &d, &end) || *end != ' ' || d != dev)
			continue;
		p = strchr(end + 1, ' '); /* past ROOT */
		if (!p)
			continue;
		p++;
		snprintf(mnt, len, "%.*s", (int)strcspn(p, " \n"), p);
		found = 1;
	}
	fclose(f);
	return found;
}

static int swap_on(dev_t dev)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128], name[PATH_MAX];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		struct stat st;

		if (sscanf(line, "%4095s", name) == 1 && !stat(name, &st) &&
		    S_ISBLK(st.st_mode) && st.st_rdev == dev)
			found = 1;
	}
	fclose(f);
	return found;
}

/* The first entry of dir/holders, into holder; 0 when there is none. */
static int held_by(const char *dir, char *holder, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int found = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/holders", dir) >=
	    sizeof(path))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	/* cppcheck-suppress readdirCalled ; one thread reads d */
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(holder, len, "%s", de->d_name);
		found = 1;
	}
	closedir(d);
	return found;
}

/* /dev/NAME when it is the node of dev, else "". */
static void dev_node(const char *name, dev_t dev, char *node, size_t len)
{
	struct stat st;

	snprintf(node, len, "/dev/%s", name);
	if (stat(node, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != dev)
		node[0] = '\0';
}

/*
 * Is the device claimed exclusively?  Opened with O_EXCL to see; on
 * success the descriptor is handed to keep (when not NULL), which then
 * holds the claim: nobody mounts it while the caller writes.
 */
static int claimed(const char *node, int *keep)
{
	int fd;

	if (!*node)
		return 0;
	fd = open(node, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == EBUSY;
	if (keep)
		*keep = fd;
	else
		close(fd);
	return 0;
}

/*
 * The bytes [offset, offset + length) of the file or device st (length 0:
 * all of them).
 */
static errcode_t stat_bytes(const struct stat *st, const char *name,
			    uint64_t offset, uint64_t length, struct bytes *t)
{
	memset(t, 0, sizeof(*t));
	if (S_ISREG(st->st_mode)) {
		t->is_file = 1;
		t->dev = st->st_dev;
		t->ino = st->st_ino;
		t->start = offset;
		t->len = length ? length : UINT64_MAX / 2;
		snprintf(t->file, sizeof(t->file), "%s", name);
		return 0;
	}
	if (!S_ISBLK(st->st_mode) || trace_disk(st->st_rdev, t, 0))
		return -1; /* nothing to compare: the open says what it is */
	t->start += offset;
	if (length)
		t->len = length;
	return 0;
}

int e4t_bytes_overlap(const struct stat *target, uint64_t offset,
		      uint64_t length, const struct stat *other)
{
	struct bytes t, o;

	if (S_ISREG(target->st_mode) && S_ISREG(other->st_mode))
		return target->st_dev == other->st_dev &&
		       target->st_ino == other->st_ino;
	return !stat_bytes(target, "", offset, length, &t) &&
	       !stat_bytes(other, "", 0, 0, &o) && overlap(&t, &o);
}

/* Does hold already claim dev (an earlier span of the same write)? */
static int ours(const struct e4t_in_use *hold, dev_t dev)
{
	struct stat st;
	int i;

	for (i = 0; hold && i < hold->nfds; i++)
		if (!fstat(hold->fds[i], &st) && S_ISBLK(st.st_mode) &&
		    st.st_rdev == dev)
			return 1;
	return 0;
}

/*
 * Calls fn on each partition of the whole device at dir (its sysfs
 * directory) until fn returns non-zero; that value, or 0.
 */
typedef int (*part_fn)(const char *name, const char *dir, dev_t dev, void *arg);

static int each_partition(const char *dir, part_fn fn, void *arg)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	dev_t dev;
	int ret = 0;

	if (!d)
		return 0;
	/* cppcheck-suppress readdirCalled ; one thread reads d */
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir,
				     de->d_name) >= sizeof(sub) ||
		    !is_file(sub, "partition") || read_devnum(sub, &dev))
			continue;
		ret = fn(de->d_name, sub, dev, arg);
	}
	closedir(d);
	return ret;
}

/*
 * Does this partition show that its whole device is busy only through
 * its partitions?  It does when it is claimed (ours, mounted, swap, held:
 * nothing else can claim the whole device then), and when it is free (a
 * claim on the whole device would make its exclusive open fail too).
 */
static int explains(const char *name, const char *dir, dev_t dev, void *arg)
{
	char info[PATH_MAX], node[PATH_MAX];
	int fd;

	if (ours(arg, dev) || mounted_at(dev, info, sizeof(info)) ||
	    swap_on(dev) || held_by(dir, info, sizeof(info)))
		return 1;
	dev_node(name, dev, node, sizeof(node));
	if (!*node)
		return 0;
	fd = open(node, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * The kernel refuses an exclusive open of a whole device while one of
 * its partitions is claimed (mounted, say): that claim is on the
 * partition's bytes, which its own check_dev() judges.  Is that why the
 * whole device at dir is busy?
 */
static int claimed_by_partitions(const char *dir, const struct e4t_in_use *hold)
{
	return each_partition(dir, explains, (void *)hold);
}

struct part_claim {
	const struct bytes *t;
	struct e4t_in_use *hold;
	struct e4t_refusal *why;
	errcode_t err;
};

#define EXCL_USE                                                               \
	"%s is in exclusive use (mounted, or opened by mkfs, e2fsck or "       \
	"another e4time)"

/* Claim the partition into hold when it holds bytes of the target. */
static int claim_part(const char *name, const char *dir, dev_t dev, void *arg)
{
	struct part_claim *pc = arg;
	char node[PATH_MAX];
	struct bytes b;
	int fd;

	if (trace_sysdir(dir, &b, 0) || !overlap(pc->t, &b) ||
	    ours(pc->hold, dev) || pc->hold->nfds >= E4T_IN_USE_MAX_FDS)
		return 0;
	dev_node(name, dev, node, sizeof(node));
	if (!*node)
		return 0;
	fd = open(node, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		pc->hold->fds[pc->hold->nfds++] = fd;
		return 0;
	}
	if (errno != EBUSY)
		return 0;
	e4t_refusal_note(pc->why, EXCL_USE, node);
	pc->err = E4T_ERR_BUSY;
	return 1;
}

static errcode_t claim_partitions(const char *dir, const struct bytes *t,
				  struct e4t_in_use *hold,
				  struct e4t_refusal *why)
{
	struct part_claim pc = { t, hold, why, 0 };

	each_partition(dir, claim_part, &pc);
	return pc.err;
}

static errcode_t target_bytes(const char *name, uint64_t offset,
			      uint64_t length, struct bytes *t)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (stat(name, &st))
		return errno;
	return stat_bytes(&st, name, offset, length, t);
}

void e4t_refusal_note(struct e4t_refusal *why, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	va_start(ap, fmt);
	vsnprintf(why->what, sizeof(why->what), fmt, ap);
	va_end(ap);
	why->cause = 0;
}

/*
 * Pass 0: is the block device name, when it holds bytes of t, mounted or
 * swap?  Pass 1: held by another device, or claimed?  Pass 2: claim it
 * (a whole device) into hold.
 */
static errcode_t check_dev(const char *name, const struct bytes *t, int pass,
			   struct e4t_in_use *hold, struct e4t_refusal *why)
{
	char dir[PATH_MAX], info[PATH_MAX], node[PATH_MAX];
	const char *label;
	struct bytes b;
	dev_t dev;
	int fd = -1;

	if (name[0] == '.')
		return 0;
	snprintf(dir, sizeof(dir), "%s/%s", SYS_CLASS_BLOCK, name);
	if (read_devnum(dir, &dev) || trace_sysdir(dir, &b, 0) ||
	    !overlap(t, &b))
		return 0;
	dev_node(name, dev, node, sizeof(node));
	label = *node ? node : name;
	switch (pass) {
	case 0:
		if (mounted_at(dev, info, sizeof(info))) {
			e4t_refusal_note(why, "%s is mounted on %s", label,
					 info);
			return E4T_ERR_MOUNTED;
		}
		if (swap_on(dev)) {
			e4t_refusal_note(why, "%s is in use as swap", label);
			return E4T_ERR_BUSY;
		}
		return 0;
	case 1:
		if (held_by(dir, info, sizeof(info))) {
			e4t_refusal_note(why, "%s is held by %s", label, info);
			return E4T_ERR_BUSY;
		}
		if (ours(hold, dev))
			return 0;
		break;
	default:
		if (is_file(dir, "partition") || ours(hold, dev) ||
		    hold->nfds >= E4T_IN_USE_MAX_FDS)
			return 0;
		break;
	}
	if (claimed(node, pass == 2 ? &fd : NULL)) {
		/*
		 * Busy because a partition is claimed: that partition's
		 * own check says whether it holds the target's bytes.
		 * Then what is kept is the partitions over them (the
		 * whole device cannot be claimed while any one is).
		 */
		if (!is_file(dir, "partition") &&
		    claimed_by_partitions(dir, hold))
			return pass == 2 ? claim_partitions(dir, t, hold, why)
					 : 0;
		e4t_refusal_note(why, EXCL_USE, label);
		return E4T_ERR_BUSY;
	}
	if (fd >= 0)
		hold->fds[hold->nfds++] = fd;
	return 0;
}

/* Is the block device of /sys/class/block/name a partition? */
static int is_partition(const char *name)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", SYS_CLASS_BLOCK, name);
	return is_file(dir, "partition");
}

errcode_t e4t_check_in_use(const char *name, uint64_t offset, uint64_t length,
			   struct e4t_in_use *hold, struct e4t_refusal *why)
{
	struct bytes t;
	struct stat st;
	errcode_t err = 0;
	int pass, keep_claims;

	if (hold)
		hold->backing[0] = '\0'; /* claims add up, span by span */
	err = target_bytes(name, offset, length, &t);
	if (err)
		return err == (errcode_t)-1 ? 0 : err;
	if (hold && t.is_file)
		snprintf(hold->backing, sizeof(hold->backing), "%s", t.file);
	/* A device named is claimed by the write's own exclusive open. */
	keep_claims = hold && !stat(name, &st) && S_ISREG(st.st_mode);
	/* Mounts and swap first: they say the most. */
	/*
	 * Mounts and swap first: they say the most.  Then holders and
	 * claims.  Last, over an image file, the whole devices are claimed
	 * and kept (a claim of a whole device refuses one of its partitions,
	 * and the other way round: so only those, and after every probe;
	 * one busy with a claimed partition, its partitions over the bytes).
	 */
	for (pass = 0; pass < (keep_claims ? 3 : 2) && !err; pass++) {
		int parts;

		/*
		 * Whole devices, then partitions: a partition of a claimed
		 * whole device cannot be opened exclusively either, and the
		 * refusal names the device that is claimed, whatever order
		 * /sys lists them in.
		 */
		for (parts = 0; parts < 2 && !err; parts++) {
			struct dirent *de;
			DIR *d = opendir(SYS_CLASS_BLOCK);

			if (!d)
				return 0;
			/* cppcheck-suppress readdirCalled ; one thread */
			while (!err && (de = readdir(d)))
				if (is_partition(de->d_name) == parts)
					err = check_dev(de->d_name, &t, pass,
							hold, why);
			closedir(d);
		}
	}
	if (err && hold)
		e4t_in_use_release(hold);
	return err;
}

errcode_t e4t_check_mounted(const char *name, uint64_t offset, uint64_t length,
			    struct e4t_refusal *why)
{
	struct dirent *de;
	struct bytes t;
	struct stat st;
	errcode_t err = 0;
	DIR *d;

	if (target_bytes(name, offset, length, &t))
		return 0;
	d = opendir(SYS_CLASS_BLOCK);
	if (!d)
		return 0;
	/* pass 0 alone: mounted or swap; nothing opened, nothing claimed */
	/* cppcheck-suppress readdirCalled ; one thread reads d */
	while (!err && (de = readdir(d)))
		err = check_dev(de->d_name, &t, 0, NULL, why);
	closedir(d);
	if (err == E4T_ERR_MOUNTED)
		return err;
	/* an image file mounted through FUSE (holders.c) */
	if (!stat(name, &st) && S_ISREG(st.st_mode) &&
	    e4t_check_holders(&st, offset, length, why) == E4T_ERR_MOUNTED)
		return E4T_ERR_MOUNTED;
	return 0;
}

void e4t_in_use_release(struct e4t_in_use *hold)
{
	int i;

	if (!hold)
		return;
	for (i = 0; i < hold->nfds; i++)
		close(hold->fds[i]);
	hold->nfds = 0;
}

errcode_t e4t_check_mmp(ext2_filsys fs, struct e4t_refusal *why)
{
	struct mmp_struct *mmp;
	errcode_t err;
	blk64_t blk;

	if (!ext2fs_has_feature_mmp(fs->super))
		return 0;
	blk = fs->super->s_mmp_block;
	if (blk < fs->super->s_first_data_block ||
	    blk >= ext2fs_blocks_count(fs->super))
		return E4T_ERR_MMP;
	mmp = malloc(fs->blocksize);
	if (!mmp)
		return ENOMEM;
	err = io_channel_read_blk64(fs->io, blk, 1, mmp);
	if (err) {
		free(mmp);
		return err;
	}
	if (mmp->mmp_magic != EXT4_MMP_MAGIC ||
	    !ext2fs_mmp_csum_verify(fs, mmp)) {
		e4t_refusal_note(why, "MMP block %llu is damaged",
				 (unsigned long long)blk);
		err = E4T_ERR_MMP;
	} else if (mmp->mmp_seq != EXT4_MMP_SEQ_CLEAN) {
		char node[sizeof(mmp->mmp_nodename) + 1];
		char bdev[sizeof(mmp->mmp_bdevname) + 1];

		memcpy(node, mmp->mmp_nodename, sizeof(mmp->mmp_nodename));
		node[sizeof(node) - 1] = '\0';
		memcpy(bdev, mmp->mmp_bdevname, sizeof(mmp->mmp_bdevname));
		bdev[sizeof(bdev) - 1] = '\0';
		if (mmp->mmp_seq == EXT4_MMP_SEQ_FSCK)
			e4t_refusal_note(
				why,
				"MMP: being checked (e2fsck) on node '%s', "
				"device '%s'",
				node, bdev);
		else
			e4t_refusal_note(
				why, "MMP: in use on node '%s', device '%s'",
				node, bdev);
		err = E4T_ERR_MMP;
	}
	free(mmp);
	return err;
}
