/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * export_dir.h --- e4time export --from-dir (export_dir.c).
 */
#ifndef E4TIME_EXPORT_DIR_H
#define E4TIME_EXPORT_DIR_H

#include "cmd.h"

/*
 * The manifest of the mounted tree dir on standard output, a summary on
 * standard error (unless quiet); crtime_from a backfill source spec for
 * the names statx gives no birth time, or NULL.  The exit status.
 */
int export_dir_run(const char *dir, const char *crtime_from, int cross_mounts,
		   int quiet);

#endif
