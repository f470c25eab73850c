/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpus.c --- how many threads are worth starting now: the processors
 * this process may run on, less those other tasks keep busy.
 */
/* sched_getaffinity(2), CPU_COUNT */
/* NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#define _GNU_SOURCE
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"

/* Tasks running or ready to run now, this one included (the fourth
 * field of /proc/loadavg, "RUNNING/TOTAL"), or 0 when unknown. */
static long runnable(void)
{
	FILE *fp = fopen("/proc/loadavg", "re");
	char line[128], *p = NULL, *end;
	long n;
	int field;

	if (!fp)
		return 0;
	if (fgets(line, sizeof(line), fp))
		p = line;
	fclose(fp);
	for (field = 0; p && field < 3; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	n = strtol(p, &end, 10);
	return end != p && *end == '/' && n > 0 ? n : 0;
}

/*
 * A snapshot, not the load average: that lags a minute behind, and
 * counts this program's own runs of the minute before.  A second thread
 * on a processor another task keeps busy was measured to lose: a
 * one-thread timeline of 989,078 names took 0.97-1.15 s, two threads
 * 1.22-1.26 s, with the load at 8 on two processors.
 */
int e4t_cpus_free(int max)
{
	cpu_set_t set;
	long n = 0, others;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	others = runnable() - 1;
	if (others > 0)
		n -= others;
	if (n < 1)
		n = 1;
	return n < max ? (int)n : max;
}
