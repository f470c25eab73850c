/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mbr.c --- MBR partition tables, with extended and logical partitions.
 *
 * Sector 0 (512 bytes, whatever the disk's sector size, as Linux and
 * sfdisk read it): the disk signature at 440, four 16-byte entries at
 * 446 (status, CHS, system id at 4, first LBA at 8, sector count at 12,
 * little-endian), 0x55 0xAA at 510.
 *
 * What is not an MBR (scheme E4T_PT_NONE, no error), as libblkid and
 * the kernel decide:
 *  - no 0x55AA, or a status byte other than 0x00 and 0x80 (boot code
 *    or a BPB where the entries would be);
 *  - a FAT, NTFS or exFAT boot sector (its name where a BPB has it);
 *  - a non-empty entry starting at sector 0;
 *  - no non-empty entry at all;
 *  - any entry of type 0xEE: a protective (or hybrid) MBR, which says
 *    the disk is GPT (gpt.c reads it; e4t_parttable_read tries it).
 *
 * Primary partitions are numbered 1-4 by slot, empty slots and the
 * extended one leaving their numbers unused.  Each extended partition
 * (0x05, 0x0f, 0x85) is a chain of EBRs: in each, entry 0 is a logical
 * partition (its start relative to this EBR) and entry 1 the next EBR
 * (its start relative to the extended partition); logical partitions
 * are numbered 5, 6, ... in chain order, EBRs with an empty entry 0
 * taking no number.  An EBR without 0x55AA ends the chain, with a
 * warning.
 *
 * What is unsound is left out with a warning, and every sound entry
 * kept (mmls lists them too): a partition or EBR starting at or past the
 * end of the view, a chain that comes back to an EBR already read (the
 * logicals before it are kept), more than 128 logical partitions, an
 * extended partition at sector 0 (the MBR itself).
 * A partition that starts inside the view but ends past it (a truncated
 * image, usually) is kept, clipped to the end of the view, with a
 * warning: what it holds up to there is still readable.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#define MBR_SECTOR	512
#define MBR_MAX_LOGICAL 128

struct mbr_entry {
	uint8_t status, type;
	uint32_t lba, count;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void entry(const uint8_t *sec, size_t slot, struct mbr_entry *e)
{
	const uint8_t *p = sec + 446 + 16 * slot;

	e->status = p[0];
	e->type = p[4];
	e->lba = le32(p + 8);
	e->count = le32(p + 12);
}

static int is_empty(const struct mbr_entry *e)
{
	return !e->type || !e->count;
}

static int is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

/* A boot sector whose BPB names a filesystem: not a partition table. */
static int is_fs_boot_sector(const uint8_t *sec)
{
	return !memcmp(sec + 3, "NTFS    ", 8) ||
	       !memcmp(sec + 3, "EXFAT   ", 8) ||
	       !memcmp(sec + 54, "FAT12   ", 8) ||
	       !memcmp(sec + 54, "FAT16   ", 8) ||
	       !memcmp(sec + 82, "FAT32   ", 8);
}

/* Is sec (512 bytes) an MBR with partitions that are not GPT's? */
static int is_mbr(const uint8_t *sec)
{
	size_t slot;
	int used = 0;

	if (sec[510] != 0x55 || sec[511] != 0xaa || is_fs_boot_sector(sec))
		return 0;
	for (slot = 0; slot < 4; slot++) {
		struct mbr_entry e;

		entry(sec, slot, &e);
		if (e.status != 0x00 && e.status != 0x80)
			return 0;
		if (is_empty(&e))
			continue;
		if (e.type == 0xee || (!e.lba && !is_extended(e.type)))
			return 0; /* an extended one at 0: warned of, skipped */
		used++;
	}
	return used > 0;
}

struct mbr_ctx {
	const struct e4t_view *v;
	struct e4t_parttable *pt;
	size_t cap;
	e4t_cwarn warn;
	void *arg;
};

/* Add partition number: lba and count in sectors, checked against the
 * view. */
static errcode_t add(struct mbr_ctx *m, unsigned number, uint8_t type,
		     uint64_t lba, uint64_t count, int logical)
{
	uint64_t size = m->v->size, start = lba * MBR_SECTOR,
		 len = count * MBR_SECTOR;
	struct e4t_part *p;

	if (start >= size) {
		e4t_cwarnf(m->warn, m->arg,
			   "MBR partition %u starts at sector %" PRIu64
			   ", past the end of the disk (%" PRIu64 " sectors)",
			   number, lba, size / MBR_SECTOR);
		return E4T_ERR_PARTTABLE;
	}
	if (len > size - start) {
		e4t_cwarnf(m->warn, m->arg,
			   "MBR partition %u ends %" PRIu64
			   " bytes past the end of the disk: it is read up to "
			   "there",
			   number, len - (size - start));
		len = size - start;
	}
	if (e4t_grow(&m->pt->parts, &m->cap, m->pt->nparts + 1,
		     sizeof(*m->pt->parts), 8))
		return ENOMEM;
	p = &m->pt->parts[m->pt->nparts++];
	memset(p, 0, sizeof(*p));
	p->number = number;
	p->start = start;
	p->length = len;
	p->mbr_type = type;
	p->logical = logical;
	return 0;
}

/* Follow the EBR chain of the extended partition at sector base. */
static errcode_t logicals(struct mbr_ctx *m, uint64_t base, uint64_t *visited,
			  unsigned *nvisited, unsigned *next_number)
{
	uint64_t ebr = base;
	uint8_t sec[MBR_SECTOR];
	errcode_t err;

	for (;;) {
		struct mbr_entry e0, e1;
		unsigned i;

		for (i = 0; i < *nvisited; i++) {
			if (visited[i] != ebr)
				continue;
			e4t_cwarnf(m->warn, m->arg,
				   "MBR extended partition: the chain of EBRs "
				   "loops "
				   "back to sector %" PRIu64,
				   ebr);
			return E4T_ERR_PARTTABLE;
		}
		if (*nvisited > MBR_MAX_LOGICAL) {
			e4t_cwarnf(m->warn, m->arg,
				   "MBR extended partition: more than %d EBRs",
				   MBR_MAX_LOGICAL);
			return E4T_ERR_PARTTABLE;
		}
		visited[(*nvisited)++] = ebr;
		if (ebr >= m->v->size / MBR_SECTOR) {
			e4t_cwarnf(
				m->warn, m->arg,
				"MBR extended partition: EBR at sector %" PRIu64
				" is past the end of the disk",
				ebr);
			return E4T_ERR_PARTTABLE;
		}
		err = e4t_view_read(m->v, sec, sizeof(sec), ebr * MBR_SECTOR);
		if (err)
			return err;
		if (sec[510] != 0x55 || sec[511] != 0xaa) {
			e4t_cwarnf(m->warn, m->arg,
				   "MBR extended partition: no signature in "
				   "the EBR "
				   "at sector %" PRIu64
				   ": no logical partition "
				   "after it is listed",
				   ebr);
			return 0;
		}
		entry(sec, 0, &e0);
		entry(sec, 1, &e1);
		if (!is_empty(&e0) && !is_extended(e0.type)) {
			if (*next_number > 4 + MBR_MAX_LOGICAL) {
				e4t_cwarnf(
					m->warn, m->arg,
					"MBR extended partition: more than %d "
					"logical partitions",
					MBR_MAX_LOGICAL);
				return E4T_ERR_PARTTABLE;
			}
			err = add(m, (*next_number)++, e0.type, ebr + e0.lba,
				  e0.count, 1);
			if (err)
				return err;
		}
		if (is_empty(&e1) || !is_extended(e1.type))
			return 0;
		ebr = base + e1.lba;
	}
}

static int by_number(const void *a, const void *b)
{
	const struct e4t_part *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

errcode_t e4t_mbr_read(const struct e4t_view *v, struct e4t_parttable *pt,
		       e4t_cwarn warn, void *arg)
{
	struct mbr_ctx m = { v, pt, 0, warn, arg };
	uint8_t sec[MBR_SECTOR];
	uint64_t *visited = NULL;
	unsigned nvisited = 0, next_number = 5;
	errcode_t err;
	int slot;

	memset(pt, 0, sizeof(*pt));
	if (v->size < MBR_SECTOR)
		return 0;
	err = e4t_view_read(v, sec, sizeof(sec), 0);
	if (err)
		return err;
	if (!is_mbr(sec))
		return 0;
	pt->scheme = E4T_PT_MBR;
	pt->sector = MBR_SECTOR;
	pt->mbr_id = le32(sec + 440);
	for (slot = 0; slot < 4 && !err; slot++) {
		struct mbr_entry e;

		entry(sec, slot, &e);
		if (is_empty(&e))
			continue;
		if (!is_extended(e.type)) {
			err = add(&m, (unsigned)slot + 1, e.type, e.lba,
				  e.count, 0);
			if (err == E4T_ERR_PARTTABLE)
				err = 0; /* said: the others are kept */
			continue;
		}
		if (!e.lba) {
			e4t_cwarnf(warn, arg,
				   "MBR partition %d: an extended partition "
				   "at sector 0 (the MBR itself): no logical "
				   "partition is read from it",
				   slot + 1);
			continue;
		}
		if (!visited) {
			visited = calloc(MBR_MAX_LOGICAL + 2, sizeof(*visited));
			if (!visited) {
				err = ENOMEM;
				break;
			}
		}
		err = logicals(&m, e.lba, visited, &nvisited, &next_number);
		if (err == E4T_ERR_PARTTABLE)
			err = 0; /* said: what came before is kept */
	}
	free(visited);
	if (err) {
		e4t_parttable_free(pt);
		return err;
	}
	/* a primary after the extended slot comes after the logicals */
	if (pt->nparts > 1)
		qsort(pt->parts, pt->nparts, sizeof(*pt->parts), by_number);
	return 0;
}
