/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h --- a minimal C unit test harness.  Each check prints a line
 * only on failure; the program ends with "N passed, N failed" and exits
 * non-zero when anything failed (automake's test driver reads the status).
 */
#ifndef E4TIME_UNIT_H
#define E4TIME_UNIT_H

#include <stdio.h>

static unsigned unit_passed, unit_failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			unit_passed++;                                         \
		} else {                                                       \
			unit_failed++;                                         \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);            \
			printf(__VA_ARGS__);                                   \
			putchar('\n');                                         \
		}                                                              \
	} while (0)

static inline int unit_report(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
