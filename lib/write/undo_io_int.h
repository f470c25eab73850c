/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * undo_io_int.h --- e4time's undo I/O manager (undo_io.c): library-internal,
 * for write.c and the tests.
 */
#ifndef E4TIME_UNDO_IO_H
#define E4TIME_UNDO_IO_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/*
 * An I/O manager that saves what every write overwrites in an e2undo
 * file (e2fsprogs' "E2UNDO02" format, replayed by e2undo), as libext2fs'
 * undo_io_manager does, at a fraction of its cost (see undo_io.c).
 */
extern io_manager e4t_undo_io_manager;

/*
 * The undo file of the next channel opened through e4t_undo_io_manager
 * (created there; it must not exist) and the bytes saved per region,
 * a power of two from 1 KiB to 1 MiB.
 */
errcode_t e4t_undo_io_setup(const char *undo_path, unsigned region_size);
/* The same with an undo file the caller has created, open read-write and
 * empty: the channel writes through a duplicate of fd. */
errcode_t e4t_undo_io_setup_fd(int fd, unsigned region_size);
/*
 * The next channel opened reads and writes a view of several extents
 * (an LVM logical volume, container.h) inside the image it is given: the
 * "offset" option is then the filesystem's place in the view, and the
 * undo file's fs_offset that place in the image (see undo_io.c).  Copied;
 * call after e4t_undo_io_setup*(), which forget it.  n 0: none.
 */
struct e4t_extent;
errcode_t e4t_undo_io_setup_map(const struct e4t_extent *ext, unsigned n);

/*
 * Commit transactions ("e4t_txn" option, see undo_io.c) through the
 * journal jw (jwrite_int.h) on ch, a channel of e4t_undo_io_manager, which
 * then owns jw.  Without, "e4t_txn=begin" fails.
 */
struct e4t_jw;
errcode_t e4t_undo_io_set_journal(io_channel ch, struct e4t_jw *jw);

#endif
