/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container.c --- opening evidence whatever holds it: the format is told
 * by the first bytes (and, for split raw, by the pieces beside the
 * first), never by the name's extension alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

errcode_t e4t_container_new(const char *path, enum e4t_ckind kind,
			    const char *kind_name,
			    const struct e4t_container_ops *ops,
			    struct e4t_container **ret)
{
	struct e4t_container *c = calloc(1, sizeof(*c));

	*ret = NULL;
	if (!c)
		return ENOMEM;
	c->path = strdup(path);
	if (!c->path) {
		free(c);
		return ENOMEM;
	}
	c->kind = kind;
	c->kind_name = kind_name;
	c->ops = ops;
	c->fd = -1;
	c->pieces = 1;
	pthread_mutex_init(&c->lock, NULL);
	*ret = c;
	return 0;
}

void e4t_container_close(struct e4t_container *c)
{
	if (!c)
		return;
	if (c->ops && c->ops->close)
		c->ops->close(c);
	if (c->fd >= 0)
		close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c->path);
	free(c);
}

errcode_t e4t_container_read(struct e4t_container *c, void *buf, size_t len,
			     uint64_t off)
{
	errcode_t err;

	if (off > c->size || len > c->size - off)
		return EXT2_ET_SHORT_READ;
	if (!len)
		return 0;
	pthread_mutex_lock(&c->lock);
	err = c->ops->read(c, buf, len, off);
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* The format the first bytes of a file say it is in. */
enum sniffed { S_RAW, S_EWF, S_QCOW, S_VMDK, S_VHD, S_VHDX };

static enum sniffed sniff(int fd)
{
	static const unsigned char ewf1[8] = { 'E',  'V',  'F',	 0x09,
					       0x0d, 0x0a, 0xff, 0x00 };
	static const unsigned char ewf2[8] = { 'E',  'V',  'F',	 '2',
					       0x0d, 0x0a, 0x81, 0x00 };
	static const unsigned char qcow[4] = { 'Q', 'F', 'I', 0xfb };
	unsigned char b[512];
	ssize_t n = pread(fd, b, sizeof(b), 0);
	off_t end;

	if (n >= 8 && (!memcmp(b, ewf1, 8) || !memcmp(b, ewf2, 8)))
		return S_EWF;
	if (n >= 4 && !memcmp(b, qcow, 4))
		return S_QCOW;
	if (n >= 4 && (!memcmp(b, "KDMV", 4) || !memcmp(b, "COWD", 4)))
		return S_VMDK;
	if (n >= 21 && !memcmp(b, "# Disk DescriptorFile", 21))
		return S_VMDK;
	if (n >= 8 && !memcmp(b, "vhdxfile", 8))
		return S_VHDX;
	if (n >= 8 && !memcmp(b, "conectix", 8)) /* dynamic: footer copy */
		return S_VHD;
	/* a fixed VHD: raw bytes and a 512-byte footer at the end */
	end = lseek(fd, 0, SEEK_END);
	if (end >= 512 && pread(fd, b, 512, end - 512) == 512 &&
	    !memcmp(b, "conectix", 8))
		return S_VHD;
	return S_RAW;
}

/* A format this build cannot read: its name and library in *what. */
static errcode_t unsupported(errcode_t err, const char *name, char **what)
{
	if (err == E4T_ERR_CONTAINER_UNSUPPORTED && !*what) {
		*what = strdup(name);
		if (!*what)
			return ENOMEM;
	}
	return err;
}

errcode_t e4t_container_open(const char *path, struct e4t_container **ret,
			     char **what)
{
	enum sniffed s;
	errcode_t err;
	int fd;

	*ret = NULL;
	*what = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	s = sniff(fd);
	close(fd);
	switch (s) {
	case S_EWF:
		return unsupported(e4t_ewf_open(path, ret, what),
				   "EWF (E01) image (libewf)", what);
	case S_QCOW:
		return unsupported(e4t_qcow_open(path, ret, what),
				   "qcow2 image (libqcow)", what);
	case S_VMDK:
		return unsupported(e4t_vmdk_open(path, ret, what),
				   "VMDK image (libvmdk)", what);
	case S_VHD:
		return unsupported(e4t_vhdi_open(path, ret, what),
				   "VHD image (libvhdi)", what);
	case S_VHDX:
		return unsupported(e4t_vhdi_open(path, ret, what),
				   "VHDX image (libvhdi)", what);
	case S_RAW: break;
	}
	/* split raw: a first piece with its second beside it */
	err = e4t_split_open(path, ret, what);
	if (err != E4T_ERR_CONTAINER_UNSUPPORTED || *what)
		return err;
	return e4t_raw_open(path, ret);
}
