/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhdi.c --- VHD (fixed, dynamic, differencing) and VHDX images through
 * libvhdi.
 *
 * A differencing disk is read through its parent: the name the child
 * stores (a parent locator: often a Windows path, .\base.vhd or
 * C:\...\base.vhd) is looked for as parent.c says, beside the child
 * by its last component too, opened and given to
 * libvhdi_file_set_parent_file; a parent not found is
 * E4T_ERR_CONTAINER_PIECE naming it as the child stores it.  libvhdi's
 * messages are not kept.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBVHDI

#include <libvhdi.h> /* NOLINT: libyal's header */

#include "container/parent.h"

/* one image of the chain: the child first */
struct himg {
	libvhdi_file_t *f;
	struct himg *parent;
};

static void himg_free(struct himg *q)
{
	while (q) {
		struct himg *p = q->parent;
		libvhdi_error_t *error = NULL;

		if (q->f) {
			if (libvhdi_file_close(q->f, &error) != 0)
				libvhdi_error_free(&error);
			if (libvhdi_file_free(&q->f, &error) != 1)
				libvhdi_error_free(&error);
		}
		free(q);
		q = p;
	}
}

/* The parent's name as the image stores it: 0 and *name NULL when it
 * has none. */
static errcode_t parent_name(libvhdi_file_t *f, char **name)
{
	libvhdi_error_t *error = NULL;
	size_t sz = 0;
	int r;

	*name = NULL;
	r = libvhdi_file_get_utf8_parent_filename_size(f, &sz, &error);
	if (r < 0) {
		libvhdi_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	if (r == 0 || sz <= 1)
		return 0;
	*name = malloc(sz);
	if (!*name)
		return ENOMEM;
	if (libvhdi_file_get_utf8_parent_filename(f, (uint8_t *)*name, sz,
						  &error) != 1) {
		libvhdi_error_free(&error);
		free(*name);
		*name = NULL;
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

/* Open path; *next the path of its parent, or NULL. */
static errcode_t himg_one(const char *path, struct himg **ret, char **next,
			  char **what)
{
	libvhdi_error_t *error = NULL;
	struct himg *q = calloc(1, sizeof(*q));
	char *name = NULL;
	errcode_t err;

	*ret = NULL;
	*next = NULL;
	if (!q)
		return ENOMEM;
	if (libvhdi_file_initialize(&q->f, &error) != 1) {
		libvhdi_error_free(&error);
		free(q);
		return ENOMEM;
	}
	if (libvhdi_file_open(q->f, path, LIBVHDI_OPEN_READ, &error) != 1) {
		libvhdi_error_free(&error);
		himg_free(q);
		return E4T_ERR_CONTAINER;
	}
	err = parent_name(q->f, &name);
	if (!err && name) {
		err = e4t_parent_path(path, name, next);
		if (err == E4T_ERR_CONTAINER_PIECE) {
			*what = *next; /* the name as stored */
			*next = NULL;
		}
	}
	free(name);
	if (err) {
		free(*next);
		*next = NULL;
		himg_free(q);
		return err;
	}
	*ret = q;
	return 0;
}

/* Open path and its chain of parents, each the parent of the one
 * before. */
static errcode_t himg_open(const char *path, struct himg **ret, char **what)
{
	struct himg *head = NULL, *last = NULL;
	char *cur = strdup(path);
	unsigned depth;
	errcode_t err = 0;

	*ret = NULL;
	if (!cur)
		return ENOMEM;
	for (depth = 0; cur; depth++) {
		libvhdi_error_t *error = NULL;
		struct himg *q;
		char *next;

		if (depth > E4T_PARENT_DEPTH) {
			err = E4T_ERR_CONTAINER; /* a loop */
			break;
		}
		err = himg_one(cur, &q, &next, what);
		free(cur);
		cur = next;
		if (err)
			break;
		if (!last) {
			head = q;
		} else {
			last->parent = q;
			if (libvhdi_file_set_parent_file(last->f, q->f,
							 &error) != 1) {
				libvhdi_error_free(&error);
				err = E4T_ERR_CONTAINER;
				break;
			}
		}
		last = q;
	}
	free(cur);
	if (err) {
		himg_free(head);
		return err;
	}
	*ret = head;
	return 0;
}

static errcode_t vhdi_read(struct e4t_container *c, void *buf, size_t len,
			   uint64_t off)
{
	struct himg *q = c->priv;
	size_t done = 0;

	while (done < len) {
		libvhdi_error_t *error = NULL;
		ssize_t n = libvhdi_file_read_buffer_at_offset(
			q->f, (char *)buf + done, len - done,
			(off64_t)(off + done), &error);

		if (n < 0) {
			libvhdi_error_free(&error);
			return E4T_ERR_CONTAINER;
		}
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		done += (size_t)n;
	}
	return 0;
}

static void vhdi_close(struct e4t_container *c)
{
	himg_free(c->priv);
	c->priv = NULL;
}

static const struct e4t_container_ops vhdi_ops = { vhdi_read, NULL, vhdi_close,
						   0 };

errcode_t e4t_vhdi_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libvhdi_error_t *error = NULL;
	struct e4t_container *c;
	struct himg *q;
	int type = LIBVHDI_FILE_TYPE_VHD;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = himg_open(path, &q, what);
	if (err)
		return err;
	if (libvhdi_file_get_media_size(q->f, &size, &error) != 1) {
		libvhdi_error_free(&error);
		himg_free(q);
		return E4T_ERR_CONTAINER;
	}
	if (libvhdi_file_get_file_type(q->f, &type, &error) != 1)
		libvhdi_error_free(&error);
	err = e4t_container_new(path, E4T_C_VHDI,
				type == LIBVHDI_FILE_TYPE_VHDX ? "VHDX" : "VHD",
				&vhdi_ops, &c);
	if (err) {
		himg_free(q);
		return err;
	}
	c->priv = q;
	c->size = size;
	for (c->pieces = 1; q->parent; q = q->parent)
		c->pieces++;
	*ret = c;
	return 0;
}

#else /* !HAVE_LIBVHDI */

errcode_t e4t_vhdi_open(const char *path, struct e4t_container **ret,
			char **what)
{
	(void)path;
	*ret = NULL;
	*what = NULL;
	return E4T_ERR_CONTAINER_UNSUPPORTED;
}

#endif
