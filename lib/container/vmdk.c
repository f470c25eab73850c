/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmdk.c --- VMware VMDK images through libvmdk: monolithic sparse, a
 * descriptor file with its extents (monolithicFlat, twoGbMaxExtent*,
 * ...), stream-optimized.
 *
 * The extent data files are looked for as parents are (parent.c): in
 * the descriptor's folder, or the --parent-dir one; one outside both
 * (by name or by a symbolic link) is refused before libvmdk opens it,
 * one missing is E4T_ERR_CONTAINER_PIECE naming it as the descriptor
 * does.
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

#include "container/parent_int.h"

static void vmdk_free_one(void *h)
{
	libvmdk_handle_t *v = h;
	libvmdk_error_t *error = NULL;

	if (libvmdk_handle_close(v, &error) != 0)
		libvmdk_error_free(&error);
	if (libvmdk_handle_free(&v, &error) != 1)
		libvmdk_error_free(&error);
}

static int parent_size(void *h, size_t *sz)
{
	libvmdk_error_t *error = NULL;
	int r = libvmdk_handle_get_utf8_parent_filename_size(h, sz, &error);

	if (r < 0)
		libvmdk_error_free(&error);
	return r;
}

static int parent_get(void *h, uint8_t *s, size_t sz)
{
	libvmdk_error_t *error = NULL;
	int r = libvmdk_handle_get_utf8_parent_filename(h, s, sz, &error);

	if (r != 1)
		libvmdk_error_free(&error);
	return r;
}

static int extent_size(void *d, size_t *sz)
{
	libvmdk_error_t *error = NULL;
	int r = libvmdk_extent_descriptor_get_utf8_filename_size(d, sz, &error);

	if (r < 0)
		libvmdk_error_free(&error);
	return r;
}

static int extent_get(void *d, uint8_t *s, size_t sz)
{
	libvmdk_error_t *error = NULL;
	int r = libvmdk_extent_descriptor_get_utf8_filename(d, s, sz, &error);

	if (r != 1)
		libvmdk_error_free(&error);
	return r;
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
		err = e4t_yal_string(d, extent_size, extent_get, &name);
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

/*
 * Before libvmdk opens them (by their last component, in one folder),
 * each extent the descriptor names is looked for as parent.c looks for
 * parents: one that lies outside the descriptor's directory (by its
 * name, or a symbolic link leading out), unless in --parent-dir, is
 * E4T_ERR_CONTAINER_OUTSIDE, one that is no regular file or block
 * device (a FIFO would block the open) E4T_ERR_CONTAINER_NOT_FILE,
 * with the path in *what.  *dir: the folder of the first one found (in
 * --parent-dir, say), for libvmdk; NULL when none is.  An extent not
 * found is left to libvmdk (a monolithic image names itself).
 */
static errcode_t check_extents(const char *path, libvmdk_handle_t *h,
			       char **dir, char **what)
{
	libvmdk_error_t *error = NULL;
	int i, n = 0;

	*dir = NULL;
	if (libvmdk_handle_get_number_of_extents(h, &n, &error) != 1) {
		libvmdk_error_free(&error);
		return 0; /* libvmdk says what is wrong */
	}
	for (i = 0; i < n; i++) {
		libvmdk_extent_descriptor_t *d = NULL;
		char *name = NULL, *found = NULL, *slash;
		errcode_t err;

		if (libvmdk_handle_get_extent_descriptor(h, i, &d, &error) !=
		    1) {
			libvmdk_error_free(&error);
			return 0;
		}
		err = e4t_yal_string(d, extent_size, extent_get, &name);
		if (libvmdk_extent_descriptor_free(&d, &error) != 1)
			libvmdk_error_free(&error);
		if (!err && name)
			err = e4t_parent_path(path, name, &found);
		/* libvmdk (20200926) joins such a name to the folder past
		 * the end of its buffer: it never gets one */
		if ((!err || err == E4T_ERR_CONTAINER_PIECE) && name &&
		    strpbrk(name, "/\\")) {
			free(found);
			found = name;
			name = NULL;
			err = E4T_ERR_VMDK_EXTENT_DIR;
		}
		free(name);
		if (err == E4T_ERR_CONTAINER_OUTSIDE ||
		    err == E4T_ERR_CONTAINER_NOT_FILE ||
		    err == E4T_ERR_VMDK_EXTENT_DIR) {
			free(*dir);
			*dir = NULL;
			*what = found;
			return err;
		}
		if (!err && found && !*dir) {
			slash = strrchr(found, '/');
			if (slash)
				slash[1] = '\0';
			*dir = slash ? found : strdup("./");
			if (slash)
				found = NULL;
		}
		free(found);
		if (err == ENOMEM || (!err && !*dir))
			return ENOMEM;
	}
	return 0;
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

/* Open path and its extents; *name its parent's name as it stores it,
 * or NULL. */
static errcode_t vmdk_open_one(struct e4t_chain *img, const char *path,
			       char **name, char **what)
{
	libvmdk_error_t *error = NULL;
	libvmdk_handle_t *h = NULL;
	char *dir = NULL;
	int extents = 0;
	errcode_t err;

	*name = NULL;
	if (libvmdk_handle_initialize(&h, &error) != 1) {
		libvmdk_error_free(&error);
		return ENOMEM;
	}
	img->h = h;
	if (libvmdk_handle_open(h, path, LIBVMDK_OPEN_READ, &error) != 1) {
		libvmdk_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	err = check_extents(path, h, &dir, what);
	if (!err)
		err = set_dir(h, dir ? dir : path);
	free(dir);
	if (!err && libvmdk_handle_open_extent_data_files(h, &error) != 1) {
		libvmdk_error_free(&error);
		err = missing_extent(path, h, what);
	}
	if (err)
		return err;
	if (libvmdk_handle_get_number_of_extents(h, &extents, &error) != 1)
		libvmdk_error_free(&error);
	img->pieces = extents > 0 ? (unsigned)extents : 1;
	return e4t_yal_string(h, parent_size, parent_get, name);
}

static errcode_t vmdk_set_parent(void *child, void *parent)
{
	libvmdk_error_t *error = NULL;

	if (libvmdk_handle_set_parent_handle(child, parent, &error) != 1) {
		libvmdk_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	return 0;
}

static ssize_t vmdk_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	libvmdk_error_t *error = NULL;
	ssize_t n = libvmdk_handle_read_buffer_at_offset(h, buf, len,
							 (off64_t)off, &error);

	if (n < 0)
		libvmdk_error_free(&error);
	return n;
}

static const struct e4t_chain_ops vmdk_chain = {
	vmdk_open_one, NULL, 0, vmdk_set_parent, vmdk_free_one, vmdk_read_at,
};

errcode_t e4t_vmdk_open(const char *path, struct e4t_container **ret,
			char **what)
{
	libvmdk_error_t *error = NULL;
	struct e4t_chain *v;
	size64_t size = 0;
	errcode_t err;

	*ret = NULL;
	*what = NULL;
	err = e4t_chain_open(path, &vmdk_chain, &v, what);
	if (err)
		return err;
	if (libvmdk_handle_get_media_size(v->h, &size, &error) != 1) {
		libvmdk_error_free(&error);
		e4t_chain_free(v);
		return E4T_ERR_CONTAINER;
	}
	return e4t_chain_container(path, E4T_C_VMDK, "VMDK", v, size, ret);
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
