/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qcow.c --- qcow and qcow2 (v2, v3) images through libqcow.
 *
 * A backed image (qemu-img create -b base.qcow2 -F qcow2 child.qcow2)
 * is read through its chain: each backing file is looked for where the
 * child names it, then beside the child (parent.c), opened, and given to
 * libqcow_file_set_parent_file.  A backing file not found is
 * E4T_ERR_CONTAINER_PIECE naming it as the child stores it.  libqcow
 * takes only a qcow image as a parent: a raw backing file (-F raw) is
 * refused, E4T_ERR_CONTAINER.  libqcow's messages are not kept (the
 * interface has no slot for them).
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

#include "container/parent.h"

/* one image of the chain: the child first */
struct qimg {
	libqcow_file_t *f;
	struct qimg *parent;
};

static void qimg_free(struct qimg *q)
{
	while (q) {
		struct qimg *p = q->parent;
		libqcow_error_t *error = NULL;

		if (q->f) {
			if (libqcow_file_close(q->f, &error) != 0)
				libqcow_error_free(&error);
			if (libqcow_file_free(&q->f, &error) != 1)
				libqcow_error_free(&error);
		}
		free(q);
		q = p;
	}
}

/* Whether path starts as a qcow image does. */
static int is_qcow(const char *path)
{
	unsigned char b[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, b, 4, 0) == 4 && !memcmp(b, "QFI\xfb", 4);
	close(fd);
	return ok;
}

/* The backing file's name as the image stores it: 0 and *name NULL
 * when it has none. */
static errcode_t backing_name(libqcow_file_t *f, char **name)
{
	libqcow_error_t *error = NULL;
	size_t sz = 0;
	int r;

	*name = NULL;
	r = libqcow_file_get_utf8_backing_filename_size(f, &sz, &error);
	if (r < 0) {
		libqcow_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	if (r == 0 || sz <= 1)
		return 0;
	*name = malloc(sz);
	if (!*name)
		return ENOMEM;
	if (libqcow_file_get_utf8_backing_filename(f, (uint8_t *)*name, sz,
						   &error) != 1) {
		libqcow_error_free(&error);
		free(*name);
		*name = NULL;
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

/* Open path; *next the path of its backing file, or NULL. */
static errcode_t qimg_one(const char *path, struct qimg **ret, char **next,
			  char **what)
{
	libqcow_error_t *error = NULL;
	struct qimg *q = calloc(1, sizeof(*q));
	char *name = NULL;
	errcode_t err;

	*ret = NULL;
	*next = NULL;
	if (!q)
		return ENOMEM;
	if (libqcow_file_initialize(&q->f, &error) != 1) {
		libqcow_error_free(&error);
		free(q);
		return ENOMEM;
	}
	if (libqcow_file_open(q->f, path, LIBQCOW_OPEN_READ, &error) != 1) {
		libqcow_error_free(&error);
		qimg_free(q);
		return E4T_ERR_CONTAINER;
	}
	err = backing_name(q->f, &name);
	if (!err && name) {
		err = e4t_parent_path(path, name, next);
		if (err == E4T_ERR_CONTAINER_PIECE) {
			*what = *next; /* the name as stored */
			*next = NULL;
		} else if (!err && !is_qcow(*next)) {
			err = E4T_ERR_CONTAINER; /* a raw backing file */
		}
	}
	free(name);
	if (err) {
		free(*next);
		*next = NULL;
		qimg_free(q);
		return err;
	}
	*ret = q;
	return 0;
}

/* Open path and its chain of backing files, each the parent of the one
 * before. */
static errcode_t qimg_open(const char *path, struct qimg **ret, char **what)
{
	struct qimg *head = NULL, *last = NULL;
	char *cur = strdup(path);
	unsigned depth;
	errcode_t err = 0;

	*ret = NULL;
	if (!cur)
		return ENOMEM;
	for (depth = 0; cur; depth++) {
		libqcow_error_t *error = NULL;
		struct qimg *q;
		char *next;

		if (depth > E4T_PARENT_DEPTH) {
			err = E4T_ERR_CONTAINER; /* a loop */
			break;
		}
		err = qimg_one(cur, &q, &next, what);
		free(cur);
		cur = next;
		if (err)
			break;
		if (!last) {
			head = q;
		} else {
			last->parent = q;
			if (libqcow_file_set_parent_file(last->f, q->f,
							 &error) != 1) {
				libqcow_error_free(&error);
				err = E4T_ERR_CONTAINER;
				break;
			}
		}
		last = q;
	}
	free(cur);
	if (err) {
		qimg_free(head);
		return err;
	}
	*ret = head;
	return 0;
}

static errcode_t qcow_read(struct e4t_container *c, void *buf, size_t len,
			   uint64_t off)
{
	struct qimg *q = c->priv;
	size_t done = 0;

	while (done < len) {
		libqcow_error_t *error = NULL;
		ssize_t n = libqcow_file_read_buffer_at_offset(
			q->f, (char *)buf + done, len - done,
			(off64_t)(off + done), &error);

		if (n < 0) {
			libqcow_error_free(&error);
			return E4T_ERR_CONTAINER;
		}
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		done += (size_t)n;
	}
	return 0;
}

static void qcow_close(struct e4t_container *c)
{
	qimg_free(c->priv);
	c->priv = NULL;
}

static const struct e4t_container_ops qcow_ops = { qcow_read, NULL, qcow_close,
						   0 };

errcode_t e4t_qcow_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libqcow_error_t *error = NULL;
	struct e4t_container *c;
	struct qimg *q;
	uint32_t version = 2;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = qimg_open(path, &q, what);
	if (err)
		return err;
	if (libqcow_file_get_media_size(q->f, &size, &error) != 1) {
		libqcow_error_free(&error);
		qimg_free(q);
		return E4T_ERR_CONTAINER;
	}
	if (libqcow_file_get_format_version(q->f, &version, &error) != 1)
		libqcow_error_free(&error);
	err = e4t_container_new(path, E4T_C_QCOW,
				version == 1 ? "qcow" : "qcow2", &qcow_ops, &c);
	if (err) {
		qimg_free(q);
		return err;
	}
	c->priv = q;
	c->size = size;
	for (c->pieces = 1; q->parent; q = q->parent)
		c->pieces++;
	*ret = c;
	return 0;
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
