/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * refusal_int.h --- private to lib/write: how the checks before a write say
 * what they refused (inuse.c, holders.c).
 */
#ifndef E4T_WRITE_REFUSAL_H
#define E4T_WRITE_REFUSAL_H

#include "e4time.h"

/* why->what from fmt (why NULL: nothing), its cause cleared. */
void e4t_refusal_note(struct e4t_refusal *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
