/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirwalk.c --- the times of a mounted tree of any filesystem, for
 * `e4time export --from-dir`: every name under a directory, each
 * directory read whole and sorted by bytes (the output does not depend
 * on the order the filesystem returns names in), statx(2) on each name
 * without following symlinks, one filesystem unless told otherwise.
 *
 * A file of its own folder (lib/dirsrc/), not lib/engine/ nor lib/fs/:
 * the engine and fs code read ext4 images through libext2fs; this reads
 * a live tree through the kernel, and is the one place that does.
 *
 * Where statx gives no birth time (STATX_BTIME not in stx_mask: NFS,
 * FUSE, old kernels), it is taken from an xattr source, decoded by the
 * same decoders as backfill's (lib/sources/), or from ntfs-3g's
 * system.ntfs_crtime (an NTFS time, 8 bytes in the host's order).
 */
/* statx(2), getdents64(2) */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "e4time.h"
#include "sources/sources.h"

#define NTFS_CRTIME "system.ntfs_crtime"
#define DENTS_BUFSZ 65536 /* getdents64's buffer */

struct dw {
	const struct e4t_dirwalk_opts *o;
	struct e4t_dirwalk_stats *st;
	dev_t dev;
	char *path; /* the root, then "/...": root_len + rel */
	size_t root_len, len, cap;
	errcode_t err; /* stops the walk: the callback's, or ENOMEM */
	char *dents;   /* DENTS_BUFSZ bytes for getdents64 */
};

static int path_push(struct dw *w, const char *name, size_t n)
{
	if (e4t_grow(&w->path, &w->cap, w->len + n + 2, 1, 256))
		return -1;
	w->path[w->len++] = '/';
	memcpy(w->path + w->len, name, n);
	w->len += n;
	w->path[w->len] = '\0';
	return 0;
}

static void set_ts(struct e4t_dirwalk_stats *st, struct e4t_ts *ts,
		   const struct statx_timestamp *t)
{
	memset(ts, 0, sizeof(*ts));
	if (t->tv_sec < E4T_SEC_MIN || t->tv_sec > E4T_SEC_MAX ||
	    t->tv_nsec >= E4T_NSEC_PER_SEC) {
		st->out_of_range++;
		return;
	}
	ts->sec = t->tv_sec;
	ts->nsec = t->tv_nsec;
	ts->flags = E4T_TS_STORED | E4T_TS_EXTRA;
}

/* An xattr's value, or 0 bytes (none, or unreadable). */
static ssize_t get_x(const char *path, const char *name, void *buf, size_t cap)
{
	return lgetxattr(path[0] ? path : "/", name, buf, cap);
}

/* No birth time from statx: the source's xattrs, then ntfs-3g's. */
static void crtime_fallback(struct dw *w, struct e4t_dir_row *r)
{
	unsigned char buf[4096];
	struct e4t_src_time t;
	ssize_t n;

	if (w->o->src) {
		const char *const *names = e4t_source_xattrs(w->o->src);
		size_t i;

		for (i = 0; names[i]; i++) {
			n = get_x(w->path, names[i], buf, sizeof(buf));
			if (n < 0)
				continue;
			if (e4t_source_decode(w->o->src, names[i], buf,
					      (size_t)n, &t) != E4T_SRC_OK)
				break;
			r->ts[E4T_CRTIME].sec = t.sec;
			r->ts[E4T_CRTIME].nsec = t.nsec;
			r->ts[E4T_CRTIME].flags = E4T_TS_STORED | E4T_TS_EXTRA;
			r->crtime_from = E4T_DW_SOURCE;
			return;
		}
	}
	n = get_x(w->path, NTFS_CRTIME, buf, sizeof(buf));
	if (n == 8) {
		uint64_t nt;

		memcpy(&nt, buf, 8); /* the host's byte order (ntfs-3g) */
		if (e4t_nttime_decode(nt, &t) == E4T_SRC_OK) {
			r->ts[E4T_CRTIME].sec = t.sec;
			r->ts[E4T_CRTIME].nsec = t.nsec;
			r->ts[E4T_CRTIME].flags = E4T_TS_STORED | E4T_TS_EXTRA;
			r->crtime_from = E4T_DW_NTFS;
			return;
		}
	}
	r->crtime_from = E4T_DW_NONE;
	w->st->no_crtime++;
}

static void fail(struct dw *w, errcode_t err)
{
	w->st->errors++;
	if (w->o->error)
		w->o->error(w->path + w->root_len, w->len - w->root_len, err,
			    w->o->priv);
}

/* One name (the current path), statx'd as st; 0, or stop the walk. */
static int emit(struct dw *w, const struct statx *sx)
{
	struct e4t_dir_row r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.path = w->path + w->root_len;
	r.path_len = w->len - w->root_len;
	if (!r.path_len) {
		r.path = "/";
		r.path_len = 1;
	}
	r.ino = sx->stx_ino;
	r.mode = sx->stx_mode;
	r.nlink = sx->stx_nlink;
	r.uid = sx->stx_uid;
	r.gid = sx->stx_gid;
	r.size = sx->stx_size;
	set_ts(w->st, &r.ts[E4T_ATIME], &sx->stx_atime);
	set_ts(w->st, &r.ts[E4T_MTIME], &sx->stx_mtime);
	set_ts(w->st, &r.ts[E4T_CTIME], &sx->stx_ctime);
	if (sx->stx_mask & STATX_BTIME) {
		r.crtime_from = E4T_DW_STATX;
		set_ts(w->st, &r.ts[E4T_CRTIME], &sx->stx_btime);
	} else {
		crtime_fallback(w, &r);
	}
	w->st->names++;
	ret = w->o->row(&r, w->o->priv);
	if (ret)
		w->err = ret;
	return ret;
}

/* A directory's names: in one buffer, sorted through v. */
struct name {
	const char *s;
	size_t len;
};

struct names {
	char *buf; /* the names, each NUL-ended */
	size_t used, cap;
	size_t *off; /* where each starts in buf */
	size_t n, ocap;
	struct name *v; /* sorted, once all are read */
};

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->s, y->s, n);

	if (r)
		return r;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void names_free(struct names *ns)
{
	free(ns->buf);
	free(ns->off);
	free(ns->v);
}

/* The names of the directory fd (its offset moves to the end), sorted
 * by bytes; getdents64(2) directly: no DIR, no copy per name. */
static errcode_t read_names(int fd, char *dbuf, struct names *ns)
{
	ssize_t got;
	size_t i;

	memset(ns, 0, sizeof(*ns));
	while ((got = getdents64(fd, dbuf, DENTS_BUFSZ)) > 0) {
		size_t pos = 0;

		while (pos < (size_t)got) {
			const struct dirent64 *d =
				(const struct dirent64 *)(dbuf + pos);
			const char *s = d->d_name;
			size_t len = strlen(s);

			pos += d->d_reclen;
			if (s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2])))
				continue;
			if (e4t_grow(&ns->buf, &ns->cap, ns->used + len + 1, 1,
				     4096) ||
			    e4t_grow(&ns->off, &ns->ocap, ns->n + 1,
				     sizeof(*ns->off), 64))
				return ENOMEM;
			ns->off[ns->n++] = ns->used;
			memcpy(ns->buf + ns->used, s, len + 1);
			ns->used += len + 1;
		}
	}
	if (got < 0)
		return errno;
	if (!ns->n)
		return 0;
	ns->v = malloc(ns->n * sizeof(*ns->v));
	if (!ns->v)
		return ENOMEM;
	for (i = 0; i < ns->n; i++) {
		ns->v[i].s = ns->buf + ns->off[i];
		ns->v[i].len = strlen(ns->v[i].s);
	}
	if (ns->n > 1)
		qsort(ns->v, ns->n, sizeof(*ns->v), cmp_name);
	return 0;
}

/* The directory dfd (the current path), its names and below; closes
 * dfd.  Deep as the tree: one descriptor per level. */
/* NOLINTNEXTLINE(misc-no-recursion) */
static void walk_dir(struct dw *w, int dfd)
{
	struct names ns;
	size_t i, base = w->len;
	errcode_t err = read_names(dfd, w->dents, &ns);

	if (err == ENOMEM)
		w->err = ENOMEM;
	else if (err)
		fail(w, err);
	for (i = 0; i < ns.n && !w->err; i++) {
		const struct name *nm = &ns.v[i];
		struct statx sx;
		int fd;

		w->len = base;
		if (path_push(w, nm->s, nm->len)) {
			w->err = ENOMEM;
			break;
		}
		if (statx(dfd, nm->s, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_BASIC_STATS | STATX_BTIME, &sx)) {
			fail(w, errno);
			continue;
		}
		if (!w->o->cross_mounts &&
		    (sx.stx_dev_major != major(w->dev) ||
		     sx.stx_dev_minor != minor(w->dev))) {
			w->st->other_fs++;
			continue;
		}
		if (emit(w, &sx))
			break;
		if (!S_ISDIR(sx.stx_mode))
			continue;
		fd = openat(dfd, nm->s,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			fail(w, errno);
			continue;
		}
		walk_dir(w, fd);
	}
	names_free(&ns);
	close(dfd);
	w->len = base;
	w->path[base] = '\0';
}

errcode_t e4t_dirwalk(const char *root, const struct e4t_dirwalk_opts *o,
		      struct e4t_dirwalk_stats *st)
{
	struct dw w;
	struct statx sx;
	int fd;

	memset(st, 0, sizeof(*st));
	memset(&w, 0, sizeof(w));
	w.o = o;
	w.st = st;
	w.root_len = strlen(root);
	while (w.root_len > 1 && root[w.root_len - 1] == '/')
		w.root_len--;
	if (w.root_len == 1 && root[0] == '/')
		w.root_len = 0; /* "/": the paths are "/" and the names */
	w.len = w.root_len;
	w.cap = w.root_len + 256;
	w.path = malloc(w.cap);
	w.dents = malloc(DENTS_BUFSZ);
	if (!w.path || !w.dents) {
		free(w.path);
		free(w.dents);
		return ENOMEM;
	}
	memcpy(w.path, root, w.root_len);
	w.path[w.len] = '\0';
	fd = open(w.root_len ? w.path : "/",
		  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || statx(fd, "", AT_EMPTY_PATH,
			    STATX_BASIC_STATS | STATX_BTIME, &sx)) {
		errcode_t err = errno;

		if (fd >= 0)
			close(fd);
		free(w.path);
		free(w.dents);
		return err;
	}
	w.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	if (!emit(&w, &sx))
		walk_dir(&w, fd);
	else
		close(fd);
	free(w.path);
	free(w.dents);
	return w.err;
}
