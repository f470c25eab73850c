/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parent.c --- finding the parent image of a differencing image.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e4time.h"
#include "container/parent.h"

/* dir of child (with its '/', or "") + rest, malloc'd */
static char *beside(const char *child, const char *rest)
{
	const char *slash = strrchr(child, '/');
	int dlen = slash ? (int)(slash - child + 1) : 0;
	size_t sz = (size_t)dlen + strlen(rest) + 1;
	char *p = malloc(sz);

	if (p)
		snprintf(p, sz, "%.*s%s", dlen, child, rest);
	return p;
}

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

errcode_t e4t_parent_path(const char *child, const char *name, char **out)
{
	const char *last = name, *s;
	char *p;

	*out = NULL;
	for (s = name; *s; s++)
		if (*s == '/' || *s == '\\')
			last = s + 1;
	if (*name) {
		p = name[0] == '/' ? strdup(name) : beside(child, name);
		if (!p)
			return ENOMEM;
		if (is_file(p)) {
			*out = p;
			return 0;
		}
		free(p);
	}
	if (*last) {
		p = beside(child, last);
		if (!p)
			return ENOMEM;
		if (is_file(p)) {
			*out = p;
			return 0;
		}
		free(p);
	}
	*out = strdup(name);
	return *out ? E4T_ERR_CONTAINER_PIECE : ENOMEM;
}
