/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * symlink.c --- the target of a symbolic link, as readlink(2) gives it:
 * from i_block (fast symlinks), inline data, or the link's data block.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

/* Longer targets than the kernel takes (PATH_MAX with its NUL). */
#define E4T_LINK_MAX 4095

errcode_t e4t_read_link(struct e4t_image *img, ext2_ino_t ino, char **target,
			size_t *len)
{
	struct ext2_inode inode;
	ext2_file_t file = NULL;
	unsigned int got = 0;
	uint64_t size;
	errcode_t err, err2;
	char *buf;

	*target = NULL;
	*len = 0;
	err = ext2fs_read_inode(img->fs, ino, &inode);
	if (err)
		return err;
	size = EXT2_I_SIZE(&inode);
	if (!LINUX_S_ISLNK(inode.i_mode) || !size || size > E4T_LINK_MAX ||
	    (inode.i_flags & EXT4_ENCRYPT_FL))
		return E4T_ERR_LINK_TARGET;
	buf = malloc(size + 1);
	if (!buf)
		return ENOMEM;
	if (ext2fs_is_fast_symlink(&inode)) {
		memcpy(buf, inode.i_block, size);
		got = (unsigned int)size;
	} else {
		/* libext2fs reads extents, block maps and inline data */
		err = ext2fs_file_open2(img->fs, ino, &inode, 0, &file);
		if (!err)
			err = ext2fs_file_read(file, buf, (unsigned int)size,
					       &got);
		if (file) {
			err2 = ext2fs_file_close(file);
			if (!err)
				err = err2;
		}
	}
	if (!err && (got != size || memchr(buf, '\0', got)))
		err = E4T_ERR_LINK_TARGET;
	if (err) {
		free(buf);
		return err;
	}
	buf[got] = '\0';
	*target = buf;
	*len = got;
	return 0;
}
