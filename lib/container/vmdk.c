/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmdk.c --- VMware VMDK images through libvmdk: monolithic sparse, a
 * descriptor file with its extents (monolithicFlat, twoGbMaxExtent*,
 * ...), stream-optimized.
 *
 * The extent data files are looked for in the descriptor's folder; one
 * missing is E4T_ERR_CONTAINER_PIECE naming it as the descriptor does.
 * A differencing image (a parentFileNameHint) is read through its
 * parent, looked for as parent.c says and given to
 * libvmdk_handle_set_parent_handle; a parent not found is
 * E4T_ERR_CONTAINER_PIECE naming it.  libvmdk's messages are not kept.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBVMDK

#include <libvmdk.h> /* NOLINT: libyal's header */

#include "container/parent.h"

/* one image of the chain: the child first */
struct vimg {
	libvmdk_handle_t *h;
	int extents;
	struct vimg *parent;
};

static void vimg_free(struct vimg *v)
{
	while (v) {
		struct vimg *p = v->parent;
		libvmdk_error_t *error = NULL;

		if (v->h) {
			if (libvmdk_handle_close(v->h, &error) != 0)
				libvmdk_error_free(&error);
			if (libvmdk_handle_free(&v->h, &error) != 1)
				libvmdk_error_free(&error);
		}
		free(v);
		v = p;
	}
}

/* A string libvmdk hands over in two calls (size, then the string):
 * 0 and *out NULL when it is not there. */
typedef int (*size_fn)(void *obj, size_t *sz, libvmdk_error_t **error);
typedef int (*get_fn)(void *obj, uint8_t *s, size_t sz,
		      libvmdk_error_t **error);

static errcode_t get_string(void *obj, size_fn size, get_fn get, char **out)
{
	libvmdk_error_t *error = NULL;
	size_t sz = 0;
	int r;

	*out = NULL;
	r = size(obj, &sz, &error);
	if (r < 0) {
		libvmdk_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	if (r == 0 || sz <= 1)
		return 0;
	*out = malloc(sz);
	if (!*out)
		return ENOMEM;
	if (get(obj, (uint8_t *)*out, sz, &error) != 1) {
		libvmdk_error_free(&error);
		free(*out);
		*out = NULL;
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

static int parent_size(void *h, size_t *sz, libvmdk_error_t **error)
{
	return libvmdk_handle_get_utf8_parent_filename_size(h, sz, error);
}

static int parent_get(void *h, uint8_t *s, size_t sz, libvmdk_error_t **error)
{
	return libvmdk_handle_get_utf8_parent_filename(h, s, sz, error);
}

static int extent_size(void *d, size_t *sz, libvmdk_error_t **error)
{
	return libvmdk_extent_descriptor_get_utf8_filename_size(d, sz, error);
}

static int extent_get(void *d, uint8_t *s, size_t sz, libvmdk_error_t **error)
{
	return libvmdk_extent_descriptor_get_utf8_filename(d, s, sz, error);
}

/* The extents could not be opened: E4T_ERR_CONTAINER_PIECE and the
 * first one not found in *what, else E4T_ERR_CONTAINER. */
static errcode_t missing_extent(const char *path, libvmdk_handle_t *h,
				char **what)
{
	libvmdk_error_t *error = NULL;
	int i, n = 0;

	if (libvmdk_handle_get_number_of_extents(h, &n, &error) != 1) {
		libvmdk_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	for (i = 0; i < n; i++) {
		libvmdk_extent_descriptor_t *d = NULL;
		char *name = NULL, *found = NULL;
		errcode_t err;

		if (libvmdk_handle_get_extent_descriptor(h, i, &d, &error) !=
		    1) {
			libvmdk_error_free(&error);
			return E4T_ERR_CONTAINER;
		}
		err = get_string(d, extent_size, extent_get, &name);
		if (libvmdk_extent_descriptor_free(&d, &error) != 1)
			libvmdk_error_free(&error);
		if (!err && name)
			err = e4t_parent_path(path, name, &found);
		free(name);
		if (err == E4T_ERR_CONTAINER_PIECE) {
			*what = found;
			return err;
		}
		free(found);
		if (err)
			return err;
	}
	return E4T_ERR_CONTAINER;
}

/* path's folder, for libvmdk_handle_set_extent_data_files_path */
static errcode_t set_dir(libvmdk_handle_t *h, const char *path)
{
	libvmdk_error_t *error = NULL;
	const char *slash = strrchr(path, '/');
	const char *dir = slash ? path : ".";
	size_t len = slash ? (size_t)(slash - path) + 1 : 1;

	if (libvmdk_handle_set_extent_data_files_path(h, dir, len, &error) !=
	    1) {
		libvmdk_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

/* Open path and its extents; *next the path of its parent, or NULL. */
static errcode_t vimg_one(const char *path, struct vimg **ret, char **next,
			  char **what)
{
	libvmdk_error_t *error = NULL;
	struct vimg *v = calloc(1, sizeof(*v));
	char *name = NULL;
	errcode_t err;

	*ret = NULL;
	*next = NULL;
	if (!v)
		return ENOMEM;
	if (libvmdk_handle_initialize(&v->h, &error) != 1) {
		libvmdk_error_free(&error);
		free(v);
		return ENOMEM;
	}
	if (libvmdk_handle_open(v->h, path, LIBVMDK_OPEN_READ, &error) != 1) {
		libvmdk_error_free(&error);
		vimg_free(v);
		return E4T_ERR_CONTAINER;
	}
	err = set_dir(v->h, path);
	if (!err && libvmdk_handle_open_extent_data_files(v->h, &error) != 1) {
		libvmdk_error_free(&error);
		err = missing_extent(path, v->h, what);
	}
	if (!err && libvmdk_handle_get_number_of_extents(v->h, &v->extents,
							 &error) != 1)
		libvmdk_error_free(&error);
	if (!err)
		err = get_string(v->h, parent_size, parent_get, &name);
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
		vimg_free(v);
		return err;
	}
	*ret = v;
	return 0;
}

/* Open path and its chain of parents, each the parent of the one
 * before. */
static errcode_t vimg_open(const char *path, struct vimg **ret, char **what)
{
	struct vimg *head = NULL, *last = NULL;
	char *cur = strdup(path);
	unsigned depth;
	errcode_t err = 0;

	*ret = NULL;
	if (!cur)
		return ENOMEM;
	for (depth = 0; cur; depth++) {
		libvmdk_error_t *error = NULL;
		struct vimg *v;
		char *next;

		if (depth > E4T_PARENT_DEPTH) {
			err = E4T_ERR_CONTAINER; /* a loop */
			break;
		}
		err = vimg_one(cur, &v, &next, what);
		free(cur);
		cur = next;
		if (err)
			break;
		if (!last) {
			head = v;
		} else {
			last->parent = v;
			if (libvmdk_handle_set_parent_handle(last->h, v->h,
							     &error) != 1) {
				libvmdk_error_free(&error);
				err = E4T_ERR_CONTAINER;
				break;
			}
		}
		last = v;
	}
	free(cur);
	if (err) {
		vimg_free(head);
		return err;
	}
	*ret = head;
	return 0;
}

static errcode_t vmdk_read(struct e4t_container *c, void *buf, size_t len,
			   uint64_t off)
{
	struct vimg *v = c->priv;
	size_t done = 0;

	while (done < len) {
		libvmdk_error_t *error = NULL;
		ssize_t n = libvmdk_handle_read_buffer_at_offset(
			v->h, (char *)buf + done, len - done,
			(off64_t)(off + done), &error);

		if (n < 0) {
			libvmdk_error_free(&error);
			return E4T_ERR_CONTAINER;
		}
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		done += (size_t)n;
	}
	return 0;
}

static void vmdk_close(struct e4t_container *c)
{
	vimg_free(c->priv);
	c->priv = NULL;
}

static const struct e4t_container_ops vmdk_ops = { vmdk_read, NULL, vmdk_close,
						   0 };

errcode_t e4t_vmdk_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libvmdk_error_t *error = NULL;
	struct e4t_container *c;
	struct vimg *v;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = vimg_open(path, &v, what);
	if (err)
		return err;
	if (libvmdk_handle_get_media_size(v->h, &size, &error) != 1) {
		libvmdk_error_free(&error);
		vimg_free(v);
		return E4T_ERR_CONTAINER;
	}
	err = e4t_container_new(path, E4T_C_VMDK, "VMDK", &vmdk_ops, &c);
	if (err) {
		vimg_free(v);
		return err;
	}
	c->priv = v;
	c->size = size;
	for (c->pieces = 0; v; v = v->parent)
		c->pieces += v->extents > 0 ? (unsigned)v->extents : 1;
	*ret = c;
	return 0;
}

#else /* !HAVE_LIBVMDK */

errcode_t e4t_vmdk_open(const char *path, struct e4t_container **ret,
			char **what)
{
	(void)path;
	*ret = NULL;
	*what = NULL;
	return E4T_ERR_CONTAINER_UNSUPPORTED;
}

#endif
