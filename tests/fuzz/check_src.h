/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_src.h --- what every xattr decoder promises (lib/sources/sources.h),
 * for the harnesses of the decoders.
 */
#ifndef E4TIME_FUZZ_CHECK_SRC_H
#define E4TIME_FUZZ_CHECK_SRC_H

#include <string.h>

#include "lib/sources/sources.h"
#include "fuzz.h"

/* OK: a time ext4 can store, no reason; otherwise a reason. */
static inline void check_src(enum e4t_src_status st,
			     const struct e4t_src_time *t)
{
	FUZZ_CHECK(st == E4T_SRC_OK || st == E4T_SRC_NO_TIME ||
			   st == E4T_SRC_INVALID,
		   "status %d", (int)st);
	if (st == E4T_SRC_OK) {
		FUZZ_CHECK(t->sec >= E4T_SEC_MIN && t->sec <= E4T_SEC_MAX,
			   "sec %lld", (long long)t->sec);
		FUZZ_CHECK(t->nsec < E4T_NSEC_PER_SEC, "nsec %u", t->nsec);
	} else {
		FUZZ_CHECK(t->why && *t->why, "no reason for status %d",
			   (int)st);
	}
}

#endif
