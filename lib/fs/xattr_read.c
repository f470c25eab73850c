/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xattr_read.c --- reading one extended attribute of an inode, through
 * libext2fs' xattr handles (in-inode and block xattrs alike).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

errcode_t e4t_xattr_get_first(struct e4t_image *img, ext2_ino_t ino,
			      const char *const *names, void **val, size_t *len,
			      int *which)
{
	return e4t_xattr_get_first_raw(img, ino, NULL, names, val, len, which);
}

errcode_t e4t_xattr_get_first_raw(struct e4t_image *img, ext2_ino_t ino,
				  struct ext2_inode_large *raw,
				  const char *const *names, void **val,
				  size_t *len, int *which)
{
	struct ext2_xattr_handle *h = NULL;
	errcode_t err;
	int i;

	*val = NULL;
	*len = 0;
	*which = -1;
	if (!ext2fs_has_feature_xattr(img->fs->super))
		return E4T_ERR_NO_XATTR;
	err = ext2fs_xattrs_open(img->fs, ino, &h);
	if (err)
		return err;
	/* With the inode in hand, libext2fs need not read it again. */
	err = raw ? ext2fs_xattrs_read_inode(h, raw) : ext2fs_xattrs_read(h);
	for (i = 0; !err && names[i]; i++) {
		void *v = NULL;
		size_t n = 0;

		err = ext2fs_xattr_get(h, names[i], &v, &n);
		if (err == EXT2_ET_EA_KEY_NOT_FOUND) {
			err = 0;
			continue;
		}
		if (err)
			break;
		/* Our own copy: callers free() it, not ext2fs_free_mem(). */
		*val = malloc(n ? n : 1);
		if (*val) {
			memcpy(*val, v, n);
			*len = n;
			*which = i;
		} else {
			err = ENOMEM;
		}
		ext2fs_free_mem(&v);
		break;
	}
	ext2fs_xattrs_close(&h);
	if (!err && *which < 0)
		err = E4T_ERR_NO_XATTR;
	return err;
}
