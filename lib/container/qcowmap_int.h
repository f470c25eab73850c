/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qcowmap_int.h --- which clusters a qcow2 image holds itself (qcowmap.c),
 * for a chain whose last backing file is raw: libqcow takes only a
 * qcow image as a parent, so what no image of the chain holds is read
 * from the raw file here.
 */
#ifndef E4TIME_QCOWMAP_H
#define E4TIME_QCOWMAP_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

struct e4t_qmap;

/* The cluster map of the qcow2 image at path: 0; E4T_ERR_CONTAINER
 * when its header or L1 table cannot be read (or it is encrypted, or
 * has extended L2 entries); ENOMEM. */
errcode_t e4t_qmap_open(const char *path, struct e4t_qmap **ret);
void e4t_qmap_free(struct e4t_qmap *m);

/* What the image holds at byte off, for *run bytes from there (to the
 * end of its cluster, or its L2 table's reach). */
enum e4t_qheld {
	E4T_Q_ERR = -1,	 /* an L2 table cannot be read */
	E4T_Q_NONE,	 /* nothing: its backing file's bytes */
	E4T_Q_DATA,	 /* the bytes at *host of its file */
	E4T_Q_ZERO,	 /* a zero cluster */
	E4T_Q_COMPRESSED /* a compressed cluster (libqcow reads it) */
};
enum e4t_qheld e4t_qmap_holds(struct e4t_qmap *m, uint64_t off, uint64_t *run,
			      uint64_t *host);
/* The image's file, open (for E4T_Q_DATA). */
int e4t_qmap_fd(const struct e4t_qmap *m);

#endif
