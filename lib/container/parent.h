/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parent.h --- where the parent (backing) image of a differencing qcow2,
 * VMDK or VHD/VHDX is, from the name the child stores (parent.c).
 */
#ifndef E4TIME_PARENT_H
#define E4TIME_PARENT_H

#include <ext2fs/ext2fs.h>

/* How deep a chain of parents may go. */
#define E4T_PARENT_DEPTH 16

/*
 * The parent of child, stored as name: name itself when absolute, else
 * beside the child (relative to its folder, as qemu resolves it); then,
 * evidence being moved about, name's last component beside the child
 * ('\\' separates too: VHD stores Windows paths).  0 and *out the path
 * found (malloc'd); E4T_ERR_CONTAINER_PIECE and *out a copy of name when
 * none exists; ENOMEM.
 */
errcode_t e4t_parent_path(const char *child, const char *name, char **out);

#endif
