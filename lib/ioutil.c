/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ioutil.c --- small I/O helpers the readers and io_managers share: a
 * pread that reads all it can, and the "offset" option of an
 * io_channel.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"

errcode_t e4t_pread_full(int fd, void *buf, size_t len, uint64_t off,
			 size_t *got)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

errcode_t e4t_io_offset_option(const char *option, const char *arg,
			       uint64_t *offset)
{
	unsigned long long v;
	char *end;

	if (strcmp(option, "offset") || !arg)
		return EXT2_ET_INVALID_ARGUMENT;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end)
		return EXT2_ET_INVALID_ARGUMENT;
	*offset = v;
	return 0;
}
