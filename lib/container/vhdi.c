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
 * E4T_ERR_CONTAINER_PIECE naming it as the child stores it; one whose
 * identifier is not the one the child stores is
 * E4T_ERR_CONTAINER_PARENT_ID naming it.  libvhdi's messages are not
 * kept.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBVHDI

#include <libvhdi.h> /* NOLINT: libyal's header */

#include "container/parent_int.h"

static void vhdi_free_one(void *h)
{
	libvhdi_file_t *f = h;
	libvhdi_error_t *error = NULL;

	if (libvhdi_file_close(f, &error) != 0)
		libvhdi_error_free(&error);
	if (libvhdi_file_free(&f, &error) != 1)
		libvhdi_error_free(&error);
}

static int parent_size(void *f, size_t *sz)
{
	libvhdi_error_t *error = NULL;
	int r = libvhdi_file_get_utf8_parent_filename_size(f, sz, &error);

	if (r < 0)
		libvhdi_error_free(&error);
	return r;
}

static int parent_get(void *f, uint8_t *s, size_t sz)
{
	libvhdi_error_t *error = NULL;
	int r = libvhdi_file_get_utf8_parent_filename(f, s, sz, &error);

	if (r != 1)
		libvhdi_error_free(&error);
	return r;
}

/* Open path; *name its parent's name as it stores it, or NULL. */
static errcode_t vhdi_open_one(struct e4t_chain *img, const char *path,
			       char **name, char **what)
{
	libvhdi_error_t *error = NULL;
	libvhdi_file_t *f = NULL;

	(void)what;
	*name = NULL;
	if (libvhdi_file_initialize(&f, &error) != 1) {
		libvhdi_error_free(&error);
		return ENOMEM;
	}
	img->h = f;
	if (libvhdi_file_open(f, path, LIBVHDI_OPEN_READ, &error) != 1) {
		libvhdi_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return e4t_yal_string(f, parent_size, parent_get, name);
}

/* The parent's identifier is the one the child stores (both read):
 * else E4T_ERR_CONTAINER_PARENT_ID, another image under its name. */
static errcode_t vhdi_set_parent(void *child, void *parent)
{
	libvhdi_error_t *error = NULL;
	uint8_t want[16], have[16];

	if (libvhdi_file_get_parent_identifier(child, want, 16, &error) == 1 &&
	    libvhdi_file_get_identifier(parent, have, 16, &error) == 1 &&
	    memcmp(want, have, 16) != 0)
		return E4T_ERR_CONTAINER_PARENT_ID;
	if (error)
		libvhdi_error_free(&error);
	if (libvhdi_file_set_parent_file(child, parent, &error) != 1) {
		libvhdi_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

static ssize_t vhdi_read_at(void *f, void *buf, size_t len, uint64_t off)
{
	libvhdi_error_t *error = NULL;
	ssize_t n = libvhdi_file_read_buffer_at_offset(f, buf, len,
						       (off64_t)off, &error);

	if (n < 0)
		libvhdi_error_free(&error);
	return n;
}

static const struct e4t_chain_ops vhdi_chain = {
	vhdi_open_one, NULL, 0, vhdi_set_parent, vhdi_free_one, vhdi_read_at,
};

errcode_t e4t_vhdi_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libvhdi_error_t *error = NULL;
	struct e4t_chain *q;
	int type = LIBVHDI_FILE_TYPE_VHD;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = e4t_chain_open(path, &vhdi_chain, &q, what);
	if (err)
		return err;
	if (libvhdi_file_get_media_size(q->h, &size, &error) != 1) {
		libvhdi_error_free(&error);
		e4t_chain_free(q);
		return E4T_ERR_CONTAINER;
	}
	if (libvhdi_file_get_file_type(q->h, &type, &error) != 1)
		libvhdi_error_free(&error);
	return e4t_chain_container(
		path, E4T_C_VHDI,
		type == LIBVHDI_FILE_TYPE_VHDX ? "VHDX" : "VHD", q, size, ret);
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
