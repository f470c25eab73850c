/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parent_int.h --- where the parent (backing) image of a differencing qcow2,
 * VMDK or VHD/VHDX is, from the name the child stores, and the chain of
 * images that walks it, driven by one format's library calls (parent.c).
 */
#ifndef E4TIME_PARENT_H
#define E4TIME_PARENT_H

#include <stdint.h>
#include <sys/types.h>

#include <ext2fs/ext2fs.h>

#include "container/container.h"

/* How deep a chain of parents may go. */
#define E4T_PARENT_DEPTH 16

/*
 * The parent of child, stored as name: name itself when absolute, else
 * beside the child (relative to its folder, as qemu resolves it); then,
 * evidence being moved about, name's last component beside the child
 * ('\\' separates too: VHD stores Windows paths).  Only a parent
 * that lies, its symbolic links followed, in the child's directory (or
 * below it) or in the one e4t_parent_allow_dir() allows is taken.
 * 0 and *out the path found (malloc'd); E4T_ERR_CONTAINER_PIECE and
 * *out a copy of name when none exists; E4T_ERR_CONTAINER_OUTSIDE and
 * *out the path when the only one found lies outside;
 * E4T_ERR_CONTAINER_NOT_FILE and *out the path when it is no regular
 * file or block device; ENOMEM.
 */
errcode_t e4t_parent_path(const char *child, const char *name, char **out);

/*
 * A libyal call that reads at an offset: bytes read, 0 at the end, < 0
 * on error (the library's error freed).
 */
typedef ssize_t (*e4t_read_at_fn)(void *h, void *buf, size_t len, uint64_t off);

/* len bytes at off through read_at: 0, EXT2_ET_SHORT_READ when it ends
 * early, E4T_ERR_CONTAINER when it fails. */
errcode_t e4t_read_full(e4t_read_at_fn read_at, void *h, void *buf, size_t len,
			uint64_t off);

/*
 * A string a libyal library hands over in two calls: size (1, 0 when
 * there is none, < 0 on error) then the string (1 when done); each
 * frees its library's error.  0 and *out the string (malloc'd), or NULL
 * when there is none; E4T_ERR_CONTAINER; ENOMEM.
 */
typedef int (*e4t_size_fn)(void *obj, size_t *sz);
typedef int (*e4t_get_fn)(void *obj, uint8_t *s, size_t sz);
errcode_t e4t_yal_string(void *obj, e4t_size_fn size, e4t_get_fn get,
			 char **out);

struct e4t_chain;

/* One format's library calls for a chain of images. */
struct e4t_chain_ops {
	/* Open path into img->h (left there on failure too: free_one
	 * frees it), set img->pieces when the image is more than one
	 * file; *name the parent's name as the image stores it (malloc'd),
	 * NULL when it has none.  E4T_ERR_CONTAINER_PIECE with *what
	 * set for a piece not found. */
	errcode_t (*open_one)(struct e4t_chain *img, const char *path,
			      char **name, char **what);
	/* Whether the parent found at path is one the library takes
	 * (NULL: any); when not, E4T_ERR_CONTAINER. */
	int (*parent_ok)(const char *path);
	/* 1: a parent parent_ok refuses ends the chain, its path kept in
	 * the last image's raw (the format reads it as a raw file). */
	int raw_parent;
	/* Give parent to child: 0 done, else why not
	 * (E4T_ERR_CONTAINER_PARENT_ID: not the parent the child names;
	 * E4T_ERR_CONTAINER). */
	errcode_t (*set_parent)(void *child, void *parent);
	/* Close and free a handle open_one left (not NULL). */
	void (*free_one)(void *h);
	e4t_read_at_fn read_at;
};

/* One image of the chain: the child first. */
struct e4t_chain {
	const struct e4t_chain_ops *ops;
	void *h;	 /* the library's handle, or NULL */
	unsigned pieces; /* files it is (1 unless open_one says) */
	char *path;	 /* as opened */
	char *raw;	 /* a raw parent's path (ops->raw_parent), or NULL */
	struct e4t_chain *parent;
};

/*
 * Open path and its chain of parents, each looked for as
 * e4t_parent_path says and given to the one before; deeper than
 * E4T_PARENT_DEPTH (a loop) is E4T_ERR_CONTAINER_DEPTH.  A parent not found
 * is E4T_ERR_CONTAINER_PIECE with the name as the child stores it in
 * *what (malloc'd).
 */
errcode_t e4t_chain_open(const char *path, const struct e4t_chain_ops *ops,
			 struct e4t_chain **ret, char **what);
void e4t_chain_free(struct e4t_chain *img);

/*
 * The container of chain (its priv), read through the child: kind,
 * kind_name, size, and pieces those of the whole chain.  The chain is
 * freed when this fails.
 */
errcode_t e4t_chain_container(const char *path, enum e4t_ckind kind,
			      const char *kind_name, struct e4t_chain *chain,
			      uint64_t size, struct e4t_container **ret);

#endif
