/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qcow.c --- qcow and qcow2 (v2, v3) images through libqcow.
 *
 * A backed image (qemu-img create -b base.qcow2 -F qcow2 child.qcow2)
 * is read through its chain: each backing file is looked for where the
 * child names it, then beside the child (parent.c), opened, and given to
 * libqcow_file_set_parent_file.  A backing file not found is
 * E4T_ERR_CONTAINER_PIECE naming it as the child stores it.  libqcow
 * takes only a qcow image as a parent: a raw backing file (-F raw, the
 * usual snapshot layout) ends the chain, and what no qcow image of it
 * holds (qcowmap.c) is read from the raw file (zeros past its end).
 * libqcow's messages are not kept (the interface has no slot for
 * them).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBQCOW

#include <libqcow.h> /* NOLINT: libyal's header */

#include "container/parent_int.h"
#include "container/qcowmap_int.h"

static void qcow_free_one(void *h)
{
	libqcow_file_t *f = h;
	libqcow_error_t *error = NULL;

	if (libqcow_file_close(f, &error) != 0)
		libqcow_error_free(&error);
	if (libqcow_file_free(&f, &error) != 1)
		libqcow_error_free(&error);
}

/* Whether path starts as a qcow image does. */
static int is_qcow(const char *path)
{
	unsigned char b[4];
	int fd, ok;

	if (e4t_evidence_fd(path, &fd))
		return 0;
	ok = pread(fd, b, 4, 0) == 4 && !memcmp(b, "QFI\xfb", 4);
	close(fd);
	return ok;
}

static int backing_size(void *f, size_t *sz)
{
	libqcow_error_t *error = NULL;
	int r = libqcow_file_get_utf8_backing_filename_size(f, sz, &error);

	if (r < 0)
		libqcow_error_free(&error);
	return r;
}

static int backing_get(void *f, uint8_t *s, size_t sz)
{
	libqcow_error_t *error = NULL;
	int r = libqcow_file_get_utf8_backing_filename(f, s, sz, &error);

	if (r != 1)
		libqcow_error_free(&error);
	return r;
}

/* Open path; *name its backing file's name as it stores it, or NULL. */
static errcode_t qcow_open_one(struct e4t_chain *img, const char *path,
			       char **name, char **what)
{
	libqcow_error_t *error = NULL;
	libqcow_file_t *f = NULL;

	(void)what;
	*name = NULL;
	if (libqcow_file_initialize(&f, &error) != 1) {
		libqcow_error_free(&error);
		return ENOMEM;
	}
	img->h = f;
	if (libqcow_file_open(f, path, LIBQCOW_OPEN_READ, &error) != 1) {
		libqcow_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return e4t_yal_string(f, backing_size, backing_get, name);
}

static errcode_t qcow_set_parent(void *child, void *parent)
{
	libqcow_error_t *error = NULL;

	if (libqcow_file_set_parent_file(child, parent, &error) != 1) {
		libqcow_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

static ssize_t qcow_read_at(void *f, void *buf, size_t len, uint64_t off)
{
	libqcow_error_t *error = NULL;
	ssize_t n = libqcow_file_read_buffer_at_offset(f, buf, len,
						       (off64_t)off, &error);

	if (n < 0)
		libqcow_error_free(&error);
	return n;
}

static const struct e4t_chain_ops qcow_chain = {
	qcow_open_one, is_qcow, 1, qcow_set_parent, qcow_free_one, qcow_read_at,
};

/* A chain whose last backing file is raw. */
struct qraw {
	struct e4t_chain *chain;
	struct e4t_qmap *map[E4T_PARENT_DEPTH + 2];
	unsigned n;
	int fd;		  /* the raw file */
	uint64_t rawsize; /* its size: zeros after */
};

static void qraw_close(struct e4t_container *c)
{
	struct qraw *q = c->priv;
	unsigned i;

	if (!q)
		return;
	for (i = 0; i < q->n; i++)
		e4t_qmap_free(q->map[i]);
	if (q->fd >= 0)
		close(q->fd);
	e4t_chain_free(q->chain);
	free(q);
	c->priv = NULL;
}

/* len bytes at off of the raw file, zeros past its end. */
static errcode_t raw_part(struct qraw *q, char *buf, size_t len, uint64_t off)
{
	size_t n = 0, got;
	errcode_t err;

	if (off < q->rawsize)
		n = q->rawsize - off < len ? (size_t)(q->rawsize - off) : len;
	if (n) {
		err = e4t_pread_full(q->fd, buf, n, off, &got);
		if (err)
			return err;
		if (got < n)
			return EXT2_ET_SHORT_READ;
	}
	memset(buf + n, 0, len - n);
	return 0;
}

static errcode_t qraw_read(struct e4t_container *c, void *buf, size_t len,
			   uint64_t off)
{
	struct qraw *q = c->priv;
	char *out = buf;

	while (len) {
		uint64_t run = len, r, host = 0;
		enum e4t_qheld h = E4T_Q_NONE;
		struct e4t_chain *img = q->chain;
		unsigned i;
		size_t n, got;
		errcode_t err;

		/* the first image of the chain that holds off */
		for (i = 0; i < q->n && h == E4T_Q_NONE; i++) {
			h = e4t_qmap_holds(q->map[i], off, &r, &host);
			if (h == E4T_Q_ERR)
				return E4T_ERR_CONTAINER;
			if (r < run)
				run = r;
			if (h == E4T_Q_NONE)
				img = img->parent;
		}
		n = (size_t)run;
		switch (h) {
		case E4T_Q_DATA:
			err = e4t_pread_full(e4t_qmap_fd(q->map[i - 1]), out, n,
					     host, &got);
			if (!err && got < n)
				err = EXT2_ET_SHORT_READ;
			break;
		case E4T_Q_ZERO:
			memset(out, 0, n);
			err = 0;
			break;
		case E4T_Q_COMPRESSED:
			err = e4t_read_full(qcow_read_at, img->h, out, n, off);
			break;
		default: err = raw_part(q, out, n, off); break;
		}
		if (err)
			return err;
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

static const struct e4t_container_ops qraw_ops = { qraw_read, NULL, qraw_close,
						   0 };

/* The container of chain q, whose last image has a raw backing file. */
static errcode_t qraw_container(const char *path, struct e4t_chain *chain,
				uint64_t size, struct e4t_container **ret,
				char **what)
{
	struct e4t_container *c = NULL;
	struct e4t_chain *img;
	struct qraw *q;
	errcode_t err;
	off_t end;

	q = calloc(1, sizeof(*q));
	if (!q) {
		e4t_chain_free(chain);
		return ENOMEM;
	}
	q->chain = chain;
	q->fd = -1;
	err = e4t_container_new(path, E4T_C_QCOW, "qcow2", &qraw_ops, &c);
	if (err) {
		e4t_chain_free(chain);
		free(q);
		return err;
	}
	c->priv = q;
	for (img = chain; img; img = img->parent) {
		c->pieces += img->pieces;
		err = e4t_qmap_open(img->path, &q->map[q->n]);
		if (err)
			goto fail;
		q->n++;
		if (img->raw)
			break;
	}
	if (!img) { /* e4t_qcow_open saw a raw parent */
		err = E4T_ERR_CONTAINER;
		goto fail;
	}
	err = e4t_evidence_fd(img->raw, &q->fd);
	if (err) {
		*what = strdup(img->raw);
		goto fail;
	}
	end = lseek(q->fd, 0, SEEK_END);
	if (end < 0) {
		err = errno;
		goto fail;
	}
	q->rawsize = (uint64_t)end;
	c->size = size;
	*ret = c;
	return 0;
fail:
	e4t_container_close(c);
	return err;
}

errcode_t e4t_qcow_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libqcow_error_t *error = NULL;
	struct e4t_chain *q, *last;
	uint32_t version = 2;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = e4t_chain_open(path, &qcow_chain, &q, what);
	if (err)
		return err;
	if (libqcow_file_get_media_size(q->h, &size, &error) != 1) {
		libqcow_error_free(&error);
		e4t_chain_free(q);
		return E4T_ERR_CONTAINER;
	}
	if (libqcow_file_get_format_version(q->h, &version, &error) != 1)
		libqcow_error_free(&error);
	for (last = q; last->parent; last = last->parent)
		;
	if (last->raw && version != 1)
		return qraw_container(path, q, size, ret, what);
	if (last->raw) {
		e4t_chain_free(q);
		return E4T_ERR_CONTAINER; /* qcow v1: no map read here */
	}
	return e4t_chain_container(path, E4T_C_QCOW,
				   version == 1 ? "qcow" : "qcow2", q, size,
				   ret);
}

#else /* !HAVE_LIBQCOW */

errcode_t e4t_qcow_open(const char *path, struct e4t_container **ret,
			char **what)
{
	(void)path;
	*ret = NULL;
	*what = NULL;
	return E4T_ERR_CONTAINER_UNSUPPORTED;
}

#endif
