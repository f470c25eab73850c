/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e4time.h --- libe4time: read (and later write) ext4 timestamps on
 * unmounted images, on top of libext2fs.
 *
 * The library never prints and never exits: every function returns an
 * errcode_t, from libext2fs' tables, errno, or libe4time's own com_err
 * table (e4time_err.et).  Diagnostics that do not stop an operation are
 * passed to a caller-supplied warning callback.
 */
#ifndef E4TIME_H
#define E4TIME_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ext2fs/ext2fs.h>

/*
 * The umbrella: one public header per lib/ folder, bottom layer first
 * (HACKING.md, "The layers").  tools/ includes this header only; a lib/
 * file may include just the folder headers it needs.
 */
#include "util.h"		 /* grow.c, ioutil.c */
#include "container/container.h" /* evidence, views, volumes, digests */
#include "fs/fs.h"		 /* the ext4 filesystem read */
#include "journal/journal.h"	 /* the jbd2 journal read */
#include "write/write.h"	 /* the safe write path */
#include "sources/sources.h"	 /* xattr time decoders */
#include "engine/engine.h"	 /* backfill, import, manifests */
#include "check/check.h"	 /* check's problems and fixes */
#include "rules/rules.h"	 /* anomaly rules */
#include "dirsrc/dirsrc.h"	 /* a mounted tree (export --from-dir) */

#endif /* E4TIME_H */
