/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evidence.h --- the IMAGE argument: the container, the volume, the
 * filesystem in it (evidence.c), and the image opened (common.c).
 */
#ifndef E4TIME_EVIDENCE_H
#define E4TIME_EVIDENCE_H

#include "lib/e4time.h"
#include "opts.h"

/* Open the image (the file at byte at, or a view of a container at
 * byte at), print its state notes; on failure said on stderr (with -o or
 * --offset as co has them), NULL and *status EXIT_IMAGE. */
struct e4t_image *open_image_status(const char *name,
				    const struct common_opts *co,
				    const struct e4t_view *view, uint64_t at,
				    int *status);

/*
 * The IMAGE argument as examiners hold it (evidence.c): the container
 * (E01, split raw, qcow2...), the volume --volume names (or the only
 * ext2/3/4 one), the filesystem at -o inside it.  On success *ev is
 * open and either (*view NULL) the filesystem is at *offset of the
 * file IMAGE itself (raw images, partitions, one-segment LVs), or it
 * is at co->offset of *view (writable too when the container is raw:
 * e4t_image_open_write_view()).
 * Otherwise said on stderr, and the exit status returned.
 */
struct evidence;
int evidence_open(const char *name, const struct common_opts *co,
		  struct evidence **ev, uint64_t *offset,
		  const struct e4t_view **view);
void evidence_close(struct evidence *ev);
/* For `e4time volumes` and --volume all: open the container alone
 * (NULL when it cannot be: said, and *status set), then scan its
 * volumes (warnings said unless quiet; the exit status). */
struct evidence *evidence_container(const char *name, int quiet, int *status);
int evidence_scan(struct evidence *ev);
const struct e4t_volumes *evidence_volumes(const struct evidence *ev);
struct e4t_container *evidence_of(const struct evidence *ev);
/* The second half of evidence_open(), on an open container: the
 * volume co names (the scan is done once), for --volume all. */
int evidence_use(struct evidence *ev, const struct common_opts *co,
		 uint64_t *offset, const struct e4t_view **view);
/* --verify-container: check the stored hashes, say what was found. */
void evidence_verify(struct evidence *ev, int quiet);
/* --verify-container found a stored hash that does not match. */
int evidence_hash_bad(const struct evidence *ev);
/* The volume evidence_use chose is read through one leg of a raid1 or
 * mirror LV: what says so (never written: the other legs would
 * differ), else NULL. */
const char *evidence_one_leg(const struct evidence *ev);

/* EXIT_PARTIAL when the image's superblock, group descriptors or size
 * are damaged (noted at open), else EXIT_OK. */
int image_damage_status(const struct e4t_image *img);

/* The filesystem's tree could not be indexed (e4t_tree_load): report it
 * as timeline does; EXIT_IMAGE, or EXIT_INTERNAL when out of memory. */
int index_error_status(const char *image, errcode_t err);

#endif /* E4TIME_EVIDENCE_H */
