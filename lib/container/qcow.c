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
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBQCOW

#include <libqcow.h> /* NOLINT: libyal's header */

#include "container/parent.h"

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

static int qcow_set_parent(void *child, void *parent)
{
	libqcow_error_t *error = NULL;

	if (libqcow_file_set_parent_file(child, parent, &error) != 1) {
		libqcow_error_free(&error);
		return -1;
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
	qcow_open_one, is_qcow, qcow_set_parent, qcow_free_one, qcow_read_at,
};

errcode_t e4t_qcow_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libqcow_error_t *error = NULL;
	struct e4t_chain *q;
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
