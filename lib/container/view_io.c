/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_io.c --- an io_manager on a view, so that ext2fs_open2() reads a
 * filesystem inside an E01, a partition of a qcow2, or an LVM logical
 * volume whose extents lie apart.  Read-only: writes go through the
 * unix or undo managers, on raw images only (write.c).
 *
 * ext2fs_open2() gives a manager a name, not an object: a view is
 * registered under a name ("e4t-view:N") that stands for it until
 * e4t_view_io_forget().  Every channel opened on the name (the reading
 * threads reopen the filesystem) reads the same view.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#define MAX_VIEWS 64
#define PREFIX	  "e4t-view:"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct e4t_view *registered[MAX_VIEWS];

errcode_t e4t_view_io_name(const struct e4t_view *v, char *name, size_t namesz)
{
	unsigned i, slot = MAX_VIEWS;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < MAX_VIEWS; i++) {
		if (registered[i] == v) {
			slot = i;
			break;
		}
		if (!registered[i] && slot == MAX_VIEWS)
			slot = i;
	}
	if (slot < MAX_VIEWS)
		registered[slot] = v;
	pthread_mutex_unlock(&reg_lock);
	if (slot == MAX_VIEWS)
		return EMFILE;
	snprintf(name, namesz, PREFIX "%u", slot);
	return 0;
}

void e4t_view_io_forget(const struct e4t_view *v)
{
	unsigned i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < MAX_VIEWS; i++)
		if (registered[i] == v)
			registered[i] = NULL;
	pthread_mutex_unlock(&reg_lock);
}

static const struct e4t_view *lookup(const char *name)
{
	const struct e4t_view *v = NULL;
	char *end;
	unsigned long slot;

	if (strncmp(name, PREFIX, strlen(PREFIX)))
		return NULL;
	errno = 0;
	slot = strtoul(name + strlen(PREFIX), &end, 10);
	if (errno || *end || slot >= MAX_VIEWS)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	v = registered[slot];
	pthread_mutex_unlock(&reg_lock);
	return v;
}

struct view_chan {
	const struct e4t_view *v;
	uint64_t offset; /* of the filesystem in the view (-o) */
	struct struct_io_stats stats;
};

static errcode_t vio_open(const char *name, int flags, io_channel *ret)
{
	const struct e4t_view *v = lookup(name);
	struct view_chan *d;
	io_channel ch;

	if (!v)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (flags & IO_FLAG_RW)
		return EROFS;
	ch = calloc(1, sizeof(*ch));
	d = calloc(1, sizeof(*d));
	if (ch)
		ch->name = strdup(name);
	if (!ch || !d || !ch->name) {
		if (ch)
			free(ch->name);
		free(ch);
		free(d);
		return ENOMEM;
	}
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = e4t_view_io_manager;
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->private_data = d;
	d->v = v;
	d->stats.num_fields = 2;
	*ret = ch;
	return 0;
}

static errcode_t vio_close(io_channel ch)
{
	if (--ch->refcount > 0)
		return 0;
	free(ch->private_data);
	free(ch->name);
	free(ch);
	return 0;
}

static errcode_t vio_set_blksize(io_channel ch, int blksize)
{
	ch->block_size = blksize;
	return 0;
}

static errcode_t vio_read_blk64(io_channel ch, unsigned long long block,
				int count, void *buf)
{
	struct view_chan *d = ch->private_data;
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count
				 : (uint64_t)count * (uint64_t)ch->block_size;
	uint64_t off = d->offset + block * (uint64_t)ch->block_size;
	errcode_t err;

	err = e4t_view_read(d->v, buf, (size_t)len, off);
	if (err == EXT2_ET_SHORT_READ && off < d->v->size) {
		/* as unix_io: what is there, zeros after, and the error */
		uint64_t have = d->v->size - off;

		memset((char *)buf + have, 0, (size_t)(len - have));
		err = e4t_view_read(d->v, buf, (size_t)have, off);
		if (!err)
			err = EXT2_ET_SHORT_READ;
	}
	if (!err)
		d->stats.bytes_read += len;
	if (err && ch->read_error)
		return ch->read_error(ch, (unsigned long)block, count, buf,
				      (size_t)len, 0, err);
	return err;
}

static errcode_t vio_read_blk(io_channel ch, unsigned long block, int count,
			      void *buf)
{
	return vio_read_blk64(ch, block, count, buf);
}

static errcode_t vio_write_blk64(io_channel ch, unsigned long long block,
				 int count, const void *buf)
{
	(void)ch;
	(void)block;
	(void)count;
	(void)buf;
	return EROFS;
}

static errcode_t vio_write_blk(io_channel ch, unsigned long block, int count,
			       const void *buf)
{
	return vio_write_blk64(ch, block, count, buf);
}

static errcode_t vio_flush(io_channel ch)
{
	(void)ch;
	return 0;
}

static errcode_t vio_set_option(io_channel ch, const char *option,
				const char *arg)
{
	struct view_chan *d = ch->private_data;

	return e4t_io_offset_option(option, arg, &d->offset);
}

static errcode_t vio_get_stats(io_channel ch, io_stats *stats)
{
	struct view_chan *d = ch->private_data;

	*stats = &d->stats;
	return 0;
}

static struct struct_io_manager struct_view_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e4time view I/O manager",
	.open = vio_open,
	.close = vio_close,
	.set_blksize = vio_set_blksize,
	.read_blk = vio_read_blk,
	.write_blk = vio_write_blk,
	.flush = vio_flush,
	.set_option = vio_set_option,
	.get_stats = vio_get_stats,
	.read_blk64 = vio_read_blk64,
	.write_blk64 = vio_write_blk64,
};

io_manager e4t_view_io_manager = &struct_view_manager;
