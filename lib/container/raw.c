/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * raw.c --- a raw image file or a block device.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

static errcode_t raw_read(struct e4t_container *c, void *buf, size_t len,
			  uint64_t off)
{
	size_t got;
	errcode_t err = e4t_pread_full(c->fd, buf, len, off, &got);

	if (!err && got < len)
		err = EXT2_ET_SHORT_READ;
	return err;
}

static const struct e4t_container_ops raw_ops = { raw_read, NULL, NULL, 0 };

errcode_t e4t_raw_open(const char *path, struct e4t_container **ret)
{
	struct e4t_container *c;
	errcode_t err;
	off_t end;

	err = e4t_container_new(path, E4T_C_RAW, "raw", &raw_ops, &c);
	if (err)
		return err;
	err = e4t_evidence_fd(path, &c->fd);
	if (err) {
		e4t_container_close(c);
		return err;
	}
	end = lseek(c->fd, 0, SEEK_END); /* files and block devices */
	if (end < 0) {
		err = errno;
		e4t_container_close(c);
		return err;
	}
	c->size = (uint64_t)end;
	*ret = c;
	return 0;
}
