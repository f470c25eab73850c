/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parent.c --- finding the parent image of a differencing image, and
 * walking the chain of them with one format's library calls (qcow.c,
 * vmdk.c, vhdi.c); the read loop those and ewf.c share.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

#include "e4time.h"
#include "container/parent_int.h"

/* The directory --parent-dir allows (resolved), or NULL. */
static char *allow_dir;

errcode_t e4t_parent_allow_dir(const char *dir)
{
	char *r = NULL;
	struct stat st;

	if (dir) {
		r = realpath(dir, NULL);
		if (!r)
			return errno;
		if (stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
			free(r);
			return ENOTDIR;
		}
	}
	free(allow_dir);
	allow_dir = r;
	return 0;
}

/* Whether the resolved path p lies in the resolved directory dir. */
static int under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1) /* "/" */
		return 1;
	return !strncmp(p, dir, n) && p[n] == '/';
}

/* Whether the parent at p, its symbolic links followed, lies in the
 * child's directory (its links followed too) or the allowed one. */
static int inside(const char *child, const char *p)
{
	const char *slash = strrchr(child, '/');
	char *rp = realpath(p, NULL), *cdir, *rc;
	int ok = 0;

	if (!rp)
		return 0;
	cdir = slash ? strndup(child, (size_t)(slash - child + 1))
		     : strdup(".");
	rc = cdir ? realpath(cdir, NULL) : NULL;
	if (rc && under(rp, rc))
		ok = 1;
	if (allow_dir && under(rp, allow_dir))
		ok = 1;
	free(rc);
	free(cdir);
	free(rp);
	return ok;
}

/* dir of child (with its '/', or "") + rest, malloc'd */
static char *beside(const char *child, const char *rest)
{
	const char *slash = strrchr(child, '/');
	int dlen = slash ? (int)(slash - child + 1) : 0;
	size_t sz = (size_t)dlen + strlen(rest) + 1;
	char *p = malloc(sz);

	if (p)
		snprintf(p, sz, "%.*s%s", dlen, child, rest);
	return p;
}

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Whether the parent found at p may be read: a regular file or block
 * device (nothing that could block: a FIFO, a socket, a character
 * device). */
static errcode_t parent_kind(const char *p)
{
	struct stat st;

	if (stat(p, &st) != 0)
		return E4T_ERR_CONTAINER_PIECE;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return E4T_ERR_CONTAINER_NOT_FILE;
	return 0;
}

errcode_t e4t_parent_path(const char *child, const char *name, char **out)
{
	const char *last = name, *s;
	char *p, *outside = NULL;

	*out = NULL;
	for (s = name; *s; s++)
		if (*s == '/' || *s == '\\')
			last = s + 1;
	if (*name) {
		p = name[0] == '/' ? strdup(name) : beside(child, name);
		if (!p)
			return ENOMEM;
		if (is_file(p) && inside(child, p)) {
			*out = p;
			return parent_kind(p);
		}
		if (is_file(p))
			outside = p; /* unless beside the child, refused */
		else
			free(p);
	}
	if (*last) {
		p = beside(child, last);
		if (!p) {
			free(outside);
			return ENOMEM;
		}
		if (is_file(p) && inside(child, p)) {
			free(outside);
			*out = p;
			return parent_kind(p);
		}
		if (is_file(p) && !outside)
			outside = p; /* a symbolic link leading out */
		else
			free(p);
	}
	if (outside) {
		*out = outside;
		return E4T_ERR_CONTAINER_OUTSIDE;
	}
	*out = strdup(name);
	return *out ? E4T_ERR_CONTAINER_PIECE : ENOMEM;
}

errcode_t e4t_read_full(e4t_read_at_fn read_at, void *h, void *buf, size_t len,
			uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n =
			read_at(h, (char *)buf + done, len - done, off + done);

		if (n < 0)
			return E4T_ERR_CONTAINER;
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		done += (size_t)n;
	}
	return 0;
}

errcode_t e4t_yal_string(void *obj, e4t_size_fn size, e4t_get_fn get,
			 char **out)
{
	size_t sz = 0;
	int r;

	*out = NULL;
	r = size(obj, &sz);
	if (r < 0)
		return E4T_ERR_CONTAINER;
	if (r == 0 || sz <= 1)
		return 0;
	*out = malloc(sz);
	if (!*out)
		return ENOMEM;
	if (get(obj, (uint8_t *)*out, sz) != 1) {
		free(*out);
		*out = NULL;
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

void e4t_chain_free(struct e4t_chain *img)
{
	while (img) {
		struct e4t_chain *p = img->parent;

		if (img->h)
			img->ops->free_one(img->h);
		free(img->path);
		free(img->raw);
		free(img);
		img = p;
	}
}

/* Open path; *next the path of its parent, or NULL. */
static errcode_t chain_one(const char *path, const struct e4t_chain_ops *ops,
			   struct e4t_chain **ret, char **next, char **what)
{
	struct e4t_chain *img = calloc(1, sizeof(*img));
	char *name = NULL;
	errcode_t err;

	*ret = NULL;
	*next = NULL;
	if (!img)
		return ENOMEM;
	img->ops = ops;
	img->pieces = 1;
	img->path = strdup(path);
	if (!img->path) {
		free(img);
		return ENOMEM;
	}
	err = ops->open_one(img, path, &name, what);
	if (!err && name) {
		err = e4t_parent_path(path, name, next);
		if (err && err != ENOMEM) {
			*what = *next; /* the name as stored, or the path */
			*next = NULL;
		} else if (!err && ops->parent_ok && !ops->parent_ok(*next)) {
			if (ops->raw_parent) {
				img->raw = *next; /* the chain ends here */
				*next = NULL;
			} else {
				err = E4T_ERR_CONTAINER;
			}
		}
	}
	free(name);
	if (err) {
		free(*next);
		*next = NULL;
		e4t_chain_free(img);
		return err;
	}
	*ret = img;
	return 0;
}

errcode_t e4t_chain_open(const char *path, const struct e4t_chain_ops *ops,
			 struct e4t_chain **ret, char **what)
{
	struct e4t_chain *head = NULL, *last = NULL;
	char *cur = strdup(path);
	unsigned depth;
	errcode_t err = 0;

	*ret = NULL;
	if (!cur)
		return ENOMEM;
	for (depth = 0; cur; depth++) {
		struct e4t_chain *img;
		char *next;

		if (depth > E4T_PARENT_DEPTH) {
			err = E4T_ERR_CONTAINER_DEPTH; /* or a loop */
			break;
		}
		err = chain_one(cur, ops, &img, &next, what);
		free(cur);
		cur = next;
		if (err)
			break;
		if (!last) {
			head = img;
		} else {
			last->parent = img;
			err = ops->set_parent(last->h, img->h);
			if (err) {
				if (!*what)
					*what = strdup(img->path);
				break; /* img is freed with head */
			}
		}
		last = img;
	}
	free(cur);
	if (err) {
		e4t_chain_free(head);
		return err;
	}
	*ret = head;
	return 0;
}

static errcode_t chain_read(struct e4t_container *c, void *buf, size_t len,
			    uint64_t off)
{
	struct e4t_chain *img = c->priv;

	return e4t_read_full(img->ops->read_at, img->h, buf, len, off);
}

static void chain_close(struct e4t_container *c)
{
	e4t_chain_free(c->priv);
	c->priv = NULL;
}

static const struct e4t_container_ops chain_ops = {
	.read = chain_read,
	.close = chain_close,
};

errcode_t e4t_chain_container(const char *path, enum e4t_ckind kind,
			      const char *kind_name, struct e4t_chain *chain,
			      uint64_t size, struct e4t_container **ret)
{
	struct e4t_container *c;
	struct e4t_chain *img;
	errcode_t err;

	*ret = NULL;
	err = e4t_container_new(path, kind, kind_name, &chain_ops, &c);
	if (err) {
		e4t_chain_free(chain);
		return err;
	}
	c->priv = chain;
	c->size = size;
	for (c->pieces = 0, img = chain; img; img = img->parent)
		c->pieces += img->pieces;
	*ret = c;
	return 0;
}
