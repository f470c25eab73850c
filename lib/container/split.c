/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * split.c --- split raw: disk.001, disk.002, ... read as one disk.
 *
 * The first piece is told by its name: NAME.001 (then .002, ...; the
 * width is kept, so NAME.0001 too), NAME.000 (then .001, ...), or
 * split(1)'s alphabetic suffixes NAMEaa / NAME.aa / xaa (then ab, ...,
 * az, ba, ...).  It is a set only when the second piece is beside it;
 * otherwise E4T_ERR_CONTAINER_UNSUPPORTED with *what NULL, and
 * container.c opens the file as raw.  The pieces are collected in
 * order until the next name is absent; a piece after that gap is a hole
 * in the numbering, E4T_ERR_CONTAINER_PIECE naming the missing one.
 *
 * Pieces may differ in size.  At most SPLIT_MAX_FDS of them are held
 * open at a time (the least recently read is closed to open another),
 * so a set of thousands of pieces stays under the process's fd limit;
 * a process short of fds (EMFILE) closes held pieces and tries again.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

#define SPLIT_MAX_FDS 64

struct piece {
	char *path;
	uint64_t start, size;
	int fd;	       /* -1: closed */
	uint64_t used; /* tick of the last read, for the LRU */
};

struct split {
	struct piece *p;
	unsigned n, nopen;
	uint64_t tick;
};

/* How the suffix counts: digits or lower-case letters, width wide,
 * starting at sfx (an offset into the path). */
struct naming {
	size_t sfx, width;
	int alpha;
};

/* The next name in place: 0, or -1 when the suffix would overflow its
 * width. */
static int next_name(char *name, const struct naming *nm)
{
	size_t i = nm->sfx + nm->width;
	char lo = nm->alpha ? 'a' : '0', hi = nm->alpha ? 'z' : '9';

	while (i > nm->sfx) {
		i--;
		if (name[i] != hi) {
			name[i]++;
			return 0;
		}
		name[i] = lo;
	}
	return -1;
}

static int exists(const char *name)
{
	struct stat st;

	return stat(name, &st) == 0;
}

/* Whether path names a first piece, and how its siblings are named. */
static int first_piece(const char *path, struct naming *nm)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(path), b, i, run;

	base = base ? base + 1 : path;
	b = (size_t)(base - path);
	/* NAME.000 / NAME.001, at least 3 digits */
	for (i = len; i > b && path[i - 1] >= '0' && path[i - 1] <= '9'; i--)
		;
	if (i < len && len - i >= 3 && i > b + 1 && path[i - 1] == '.') {
		size_t k;

		for (k = i; k < len - 1 && path[k] == '0'; k++)
			;
		if (k == len - 1 && (path[k] == '0' || path[k] == '1')) {
			nm->sfx = i;
			nm->width = len - i;
			nm->alpha = 0;
			return 1;
		}
		return 0;
	}
	/* NAMEaa, NAME.aa, xaa: a run of 'a's at the end, two or more; the
	 * width is told by the second piece (dataaa: "aa" or "aaa") */
	for (run = 0; run < len - b && path[len - 1 - run] == 'a'; run++)
		;
	if (run < 2 || run == len - b)
		return 0; /* a name of only 'a's has no NAME */
	nm->alpha = 1;
	for (nm->width = 2; nm->width <= run && nm->width <= 4; nm->width++) {
		char *second = strdup(path);
		int ok;

		if (!second)
			return 0;
		nm->sfx = len - nm->width;
		ok = next_name(second, nm) == 0 && exists(second);
		free(second);
		if (ok)
			return 1;
	}
	nm->width = 2;
	nm->sfx = len - 2;
	return 1;
}

static void split_close(struct e4t_container *c)
{
	struct split *s = c->priv;
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		if (s->p[i].fd >= 0)
			close(s->p[i].fd);
		free(s->p[i].path);
	}
	free(s->p);
	free(s);
	c->priv = NULL;
}

/* Close the least recently read piece held open: 0 when none is. */
static int evict(struct split *s)
{
	unsigned i, lru = s->n;

	for (i = 0; i < s->n; i++)
		if (s->p[i].fd >= 0 &&
		    (lru == s->n || s->p[i].used < s->p[lru].used))
			lru = i;
	if (lru == s->n)
		return 0;
	close(s->p[lru].fd);
	s->p[lru].fd = -1;
	s->nopen--;
	return 1;
}

/* Open path (a file or block device: e4t_evidence_fd); when the
 * process is out of fds, close held pieces and try again. */
static errcode_t open_piece(struct split *s, const char *path, int *fd)
{
	for (;;) {
		errcode_t err = e4t_evidence_fd(path, fd);

		if (!err || (err != EMFILE && err != ENFILE) || !evict(s))
			return err;
	}
}

/* Open piece pc, closing the least recently read one when too many are
 * open. */
static errcode_t piece_fd(struct split *s, struct piece *pc)
{
	errcode_t err;

	if (pc->fd >= 0)
		return 0;
	if (s->nopen >= SPLIT_MAX_FDS)
		evict(s);
	err = open_piece(s, pc->path, &pc->fd);
	if (err)
		return err;
	s->nopen++;
	return 0;
}

static errcode_t split_read(struct e4t_container *c, void *buf, size_t len,
			    uint64_t off)
{
	struct split *s = c->priv;
	char *out = buf;

	while (len) {
		unsigned lo = 0, hi = s->n - 1;
		struct piece *pc;
		uint64_t in;
		size_t want;
		ssize_t n;
		errcode_t err;

		/* the last piece starting at or before off */
		while (lo < hi) {
			unsigned mid = lo + (hi - lo + 1) / 2;

			if (s->p[mid].start <= off)
				lo = mid;
			else
				hi = mid - 1;
		}
		pc = &s->p[lo];
		in = off - pc->start;
		if (in >= pc->size)
			return EXT2_ET_SHORT_READ;
		want = len;
		if (want > pc->size - in)
			want = (size_t)(pc->size - in);
		err = piece_fd(s, pc);
		if (err)
			return err;
		pc->used = ++s->tick;
		n = pread(pc->fd, out, want, (off_t)in);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EXT2_ET_SHORT_READ; /* shrunk since opened */
		out += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static const struct e4t_container_ops split_ops = { split_read, NULL,
						    split_close, 0 };

/* Add the piece named name (open it, take its size). */
static errcode_t add_piece(struct split *s, const char *name, uint64_t start,
			   unsigned *cap)
{
	struct piece *pc;
	errcode_t err;
	off_t end;
	int fd;

	if (s->n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 16;
		struct piece *np = realloc(s->p, ncap * sizeof(*np));

		if (!np)
			return ENOMEM;
		s->p = np;
		*cap = ncap;
	}
	err = open_piece(s, name, &fd);
	if (err == EMFILE || err == ENFILE)
		return EMFILE; /* not the piece's fault */
	if (err == E4T_ERR_CONTAINER_NOT_FILE)
		return err;
	if (err)
		return E4T_ERR_CONTAINER_PIECE;
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		close(fd);
		return E4T_ERR_CONTAINER_PIECE;
	}
	pc = &s->p[s->n];
	pc->path = strdup(name);
	if (!pc->path) {
		close(fd);
		return ENOMEM;
	}
	pc->start = start;
	pc->size = (uint64_t)end;
	pc->used = 0;
	pc->fd = -1;
	if (s->nopen < SPLIT_MAX_FDS) {
		pc->fd = fd;
		s->nopen++;
	} else {
		close(fd);
	}
	s->n++;
	return 0;
}

errcode_t e4t_split_open(const char *path, struct e4t_container **ret,
			 char **what)
{
	struct e4t_container *c = NULL;
	struct naming nm;
	struct split *s;
	char *name;
	uint64_t total = 0;
	unsigned cap = 0;
	int overflow;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	if (!first_piece(path, &nm))
		return E4T_ERR_CONTAINER_UNSUPPORTED;
	name = strdup(path);
	if (!name)
		return ENOMEM;
	/* NAME.001 beside a NAME.000 is not the first piece */
	if (!nm.alpha && name[nm.sfx + nm.width - 1] == '1') {
		name[nm.sfx + nm.width - 1] = '0';
		if (exists(name)) {
			free(name);
			return E4T_ERR_CONTAINER_UNSUPPORTED;
		}
		name[nm.sfx + nm.width - 1] = '1';
	}
	if (next_name(name, &nm)) {
		free(name);
		return E4T_ERR_CONTAINER_UNSUPPORTED;
	}
	if (!exists(name)) {
		/* disk.001 and disk.003 without disk.002: a hole, not raw */
		char *third = strdup(name);

		err = third && !next_name(third, &nm) && exists(third)
			      ? E4T_ERR_CONTAINER_PIECE
			      : E4T_ERR_CONTAINER_UNSUPPORTED;
		free(third);
		if (err == E4T_ERR_CONTAINER_PIECE)
			*what = name;
		else
			free(name);
		return err;
	}
	memcpy(name, path, strlen(path) + 1); /* the same length */
	err = e4t_container_new(path, E4T_C_SPLIT, "split raw", &split_ops, &c);
	if (err)
		goto fail;
	s = calloc(1, sizeof(*s));
	if (!s) {
		err = ENOMEM;
		goto fail;
	}
	c->priv = s;
	for (;;) {
		err = add_piece(s, name, total, &cap);
		if (err == E4T_ERR_CONTAINER_PIECE ||
		    err == E4T_ERR_CONTAINER_NOT_FILE) {
			*what = strdup(name);
			if (!*what)
				err = ENOMEM;
		}
		if (err)
			goto fail;
		total += s->p[s->n - 1].size;
		overflow = next_name(name, &nm);
		if (overflow || !exists(name))
			break;
	}
	/* a hole: the piece after the missing one is there */
	if (!overflow) {
		char *after = strdup(name);

		if (!after) {
			err = ENOMEM;
			goto fail;
		}
		if (!next_name(after, &nm) && exists(after)) {
			free(after);
			*what = name;
			name = NULL;
			err = E4T_ERR_CONTAINER_PIECE;
			goto fail;
		}
		free(after);
	}
	free(name);
	c->size = total;
	c->pieces = s->n;
	*ret = c;
	return 0;
fail:
	free(name);
	e4t_container_close(c);
	return err;
}

errcode_t e4t_split_missing(const char *path, char **out)
{
	struct naming nm;
	char *name;

	*out = NULL;
	if (!first_piece(path, &nm))
		return E4T_ERR_CONTAINER_UNSUPPORTED;
	name = strdup(path);
	if (!name)
		return ENOMEM;
	while (exists(name)) {
		if (next_name(name, &nm)) {
			free(name);
			return E4T_ERR_CONTAINER_UNSUPPORTED;
		}
	}
	*out = name;
	return 0;
}
