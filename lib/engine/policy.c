/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy.c --- when backfill and import replace a time: the policy.
 */
#include <string.h>

#include "e4time.h"

int e4t_policy_parse(const char *name)
{
	if (!strcmp(name, "earlier"))
		return E4T_POLICY_EARLIER;
	if (!strcmp(name, "missing"))
		return E4T_POLICY_MISSING;
	if (!strcmp(name, "always"))
		return E4T_POLICY_ALWAYS;
	return -1;
}

int e4t_policy_wants(enum e4t_policy p, const struct e4t_ts *new_ts,
		     const struct e4t_ts *cur)
{
	int cmp = e4t_ts_cmp(new_ts, cur);

	switch (p) {
	case E4T_POLICY_EARLIER: return cmp < 0;
	case E4T_POLICY_MISSING: return cmp && (cur->flags & E4T_TS_ZERO);
	default: return cmp != 0;
	}
}
