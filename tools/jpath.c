/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jpath.c --- timeline --journal: the path of a directory now as the walk
 * gives it, through encrypted (fscrypt) directories too: each name in an
 * encrypted directory is the kernel's no-key name (e4t_nokey_name), as
 * tree.c shows it, where ext2fs_get_pathname gives the ciphertext bytes.
 * The path is made from the directory up: its ".." entry, then its name
 * among its parent's entries.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jrows.h"

#define MAX_DEPTH 4096

struct find {
	ext2_ino_t ino;
	char name[EXT2_NAME_LEN + 1];
	unsigned len;
	int found;
};

/* cppcheck-suppress constParameter */
/* NOLINTBEGIN(readability-non-const-parameter): ext2fs's callback */
static int on_entry(struct ext2_dir_entry *de, int offset, int blocksize,
		    char *buf, void *priv)
/* NOLINTEND(readability-non-const-parameter) */
{
	struct find *f = priv;
	unsigned len = ext2fs_dirent_name_len(de);

	(void)offset;
	(void)blocksize;
	(void)buf;
	if (de->inode != f->ino || !len ||
	    (len <= 2 && de->name[0] == '.' &&
	     (len == 1 || de->name[1] == '.')))
		return 0;
	memcpy(f->name, de->name, len);
	f->len = len;
	f->found = 1;
	return DIRENT_ABORT;
}

/* Put name (len bytes) and a '/' before the path in *p (*n bytes). */
static int prepend(char **p, size_t *n, const char *name, size_t len)
{
	char *q = malloc(*n + len + 2);

	if (!q)
		return 1;
	q[0] = '/';
	memcpy(q + 1, name, len);
	memcpy(q + 1 + len, *p, *n);
	q[1 + len + *n] = '\0';
	free(*p);
	*p = q;
	*n += len + 1;
	return 0;
}

errcode_t jpath_nokey(ext2_filsys fs, ext2_ino_t dir, char **ret)
{
	char *p = calloc(1, 1), out[E4T_NOKEY_MAX];
	size_t n = 0;
	int depth = 0;

	*ret = NULL;
	if (!p)
		return ENOMEM;
	while (dir != EXT2_ROOT_INO) {
		struct ext2_inode pin;
		struct e4t_nokey k;
		struct find f = { .ino = dir };
		ext2_ino_t parent;
		const char *name = f.name;
		size_t len;

		if (++depth > MAX_DEPTH ||
		    ext2fs_lookup(fs, dir, "..", 2, NULL, &parent) ||
		    ext2fs_read_inode(fs, parent, &pin) ||
		    ext2fs_dir_iterate(fs, parent, 0, NULL, on_entry, &f) ||
		    !f.found) {
			free(p);
			return 0; /* no path: NULL */
		}
		len = f.len;
		if (e4t_nokey_setup(fs, pin.i_flags, EXT2_I_SIZE(&pin), &k)) {
			unsigned m = e4t_nokey_name(&k, f.name, f.len, out);

			if (m) {
				name = out;
				len = m;
			}
		}
		if (prepend(&p, &n, name, len)) {
			free(p);
			return ENOMEM;
		}
		dir = parent;
	}
	if (!n) { /* the root */
		free(p);
		p = strdup("/");
		if (!p)
			return ENOMEM;
	}
	*ret = p;
	return 0;
}
