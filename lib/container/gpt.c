/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gpt.c --- GUID partition tables: headers, entry arrays, CRCs, the backup.
 *
 * The header (UEFI 2.10, 5.3.2), little-endian: "EFI PART" at 0,
 * header_size at 12, its CRC-32 at 16 (over header_size bytes with
 * itself taken as 0), my_lba at 24, alternate_lba at 32, the disk GUID
 * at 56, the entry array's LBA at 72, num_entries at 80, entry_size at
 * 84 and the array's CRC-32 at 88.  An entry: type GUID at 0, unique
 * GUID at 16, first and last LBA (inclusive) at 32 and 40, attributes at
 * 48, the name (36 UTF-16LE units) at 56.
 *
 * The sector size is not written anywhere: the primary header is looked
 * for at LBA 1 of 512-byte sectors, then of 4096-byte ones, then the
 * backup at the last LBA of each.  No "EFI PART" in any of these: no GPT
 * (E4T_PT_NONE, not an error).
 *
 * A header verifies when its signature, size, CRC and my_lba are right,
 * its entry array lies inside the view (num_entries * entry_size at most
 * GPT_MAX_ARRAY bytes, entry_size at least 128 and a multiple of 8) and
 * the array's CRC is right.  The primary is used when it verifies, with
 * a warning if the backup does not; else the backup (at the last LBA, or
 * where the primary's alternate_lba says), with a warning; neither:
 * what is wrong with each goes to warn, and E4T_ERR_PARTTABLE.
 *
 * Entries with an all-zero type GUID are unused.  One whose last LBA is
 * before its first is ignored with a warning; one starting past the end
 * of the view makes the table impossible (E4T_ERR_PARTTABLE); one ending
 * past it is kept, clipped to the end of the view, with a warning (a
 * truncated image: what it holds up to there is still readable).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"
#include "container/container.h"

#define GPT_HEADER_MIN 92
#define GPT_MAX_ARRAY  (4U << 20) /* bytes: the usual array is 16 KiB */
#define GPT_NAME_UNITS 36

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* CRC-32 as zlib computes it (reflected 0xEDB88320, ~0 in and out):
 * libext2fs has only CRC32C and a big-endian CRC-32. */
static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	static int ready;
	uint32_t crc = 0xffffffffU;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		uint32_t i, j, c;

		for (i = 0; i < 256; i++) {
			for (c = i, j = 0; j < 8; j++)
				c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
			table[i] = c; /* racing threads store the same values */
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffU;
}

struct gpt_hdr {
	uint64_t lba; /* where it is */
	uint64_t alternate_lba, entries_lba;
	uint32_t num_entries, entry_size;
	uint8_t disk_guid[16];
	uint8_t *array; /* malloc'd, num_entries * entry_size bytes */
	int has_sig;
};

/* Does the sector at lba of sector size ss start with "EFI PART"? */
static int has_signature(const struct e4t_view *v, unsigned ss, uint64_t lba)
{
	char sig[8];

	if (lba >= v->size / ss)
		return 0;
	return !e4t_view_read(v, sig, sizeof(sig), lba * ss) &&
	       !memcmp(sig, "EFI PART", 8);
}

/*
 * Read and check the header at lba: 0 and h filled (h->array malloc'd)
 * when it verifies, else E4T_ERR_PARTTABLE with why (a phrase) set, or
 * another error when reading fails.
 */
static errcode_t read_header(const struct e4t_view *v, unsigned ss,
			     uint64_t lba, struct gpt_hdr *h, const char **why)
{
	uint64_t nsec = v->size / ss, bytes;
	uint32_t hsize, crc;
	uint8_t *sec;
	errcode_t err;

	memset(h, 0, sizeof(*h));
	h->lba = lba;
	*why = NULL;
	if (lba >= nsec) {
		*why = "is past the end of the disk";
		return E4T_ERR_PARTTABLE;
	}
	sec = malloc(ss);
	if (!sec)
		return ENOMEM;
	err = e4t_view_read(v, sec, ss, lba * ss);
	if (err) {
		free(sec);
		return err;
	}
	err = E4T_ERR_PARTTABLE;
	hsize = le32(sec + 12);
	h->alternate_lba = le64(sec + 32);
	h->entries_lba = le64(sec + 72);
	h->num_entries = le32(sec + 80);
	h->entry_size = le32(sec + 84);
	memcpy(h->disk_guid, sec + 56, 16);
	h->has_sig = !memcmp(sec, "EFI PART", 8);
	if (!h->has_sig) {
		*why = "is missing (no \"EFI PART\" signature)";
		goto out;
	}
	if (hsize < GPT_HEADER_MIN || hsize > ss) {
		*why = "has an impossible size";
		goto out;
	}
	crc = le32(sec + 16);
	memset(sec + 16, 0, 4);
	if (crc32_ieee(sec, hsize) != crc) {
		*why = "checksum does not verify";
		goto out;
	}
	if (le64(sec + 24) != lba) {
		*why = "says it is at another sector (my_lba)";
		goto out;
	}
	if (h->entry_size < 128 || h->entry_size % 8 ||
	    (uint64_t)h->num_entries * h->entry_size > GPT_MAX_ARRAY) {
		*why = "has an impossible entry size or number of entries";
		goto out;
	}
	bytes = (uint64_t)h->num_entries * h->entry_size;
	if (h->entries_lba < 1 || h->entries_lba >= nsec ||
	    bytes > (nsec - h->entries_lba) * ss) {
		*why = "has its entry array past the end of the disk";
		goto out;
	}
	h->array = malloc(bytes ? bytes : 1);
	if (!h->array) {
		err = ENOMEM;
		goto out;
	}
	err = e4t_view_read(v, h->array, bytes, h->entries_lba * ss);
	if (err)
		goto out;
	err = E4T_ERR_PARTTABLE;
	if (crc32_ieee(h->array, bytes) != le32(sec + 88)) {
		*why = "has an entry array whose checksum does not verify";
		goto out;
	}
	err = 0;
out:
	free(sec);
	if (err) {
		free(h->array);
		h->array = NULL;
	}
	return err;
}

/* UTF-16LE (units, at most n) to UTF-8 in out (at most 4 * n + 1
 * bytes): up to the first NUL, lone surrogates becoming U+FFFD. */
static void utf16_name(const uint8_t *p, size_t n, char *out)
{
	size_t i;
	char *o = out;

	for (i = 0; i < n; i++) {
		uint32_t c = (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;

		if (!c)
			break;
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
			uint32_t d = (uint32_t)p[2 * i + 2] |
				     (uint32_t)p[2 * i + 3] << 8;

			if (d >= 0xdc00 && d <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (d - 0xdc00);
				i++;
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c <= 0xdfff) {
			c = 0xfffd;
		}
		if (c < 0x80) {
			*o++ = (char)c;
		} else if (c < 0x800) {
			*o++ = (char)(0xc0 | c >> 6);
			*o++ = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			*o++ = (char)(0xe0 | c >> 12);
			*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		} else {
			*o++ = (char)(0xf0 | c >> 18);
			*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*o++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*o = '\0';
}

static const uint8_t zero_guid[16];

/* The partitions of a verified header's array. */
static errcode_t entries(const struct e4t_view *v, unsigned ss,
			 const struct gpt_hdr *h, struct e4t_parttable *pt,
			 e4t_cwarn warn, void *arg)
{
	uint64_t nsec = v->size / ss;
	size_t cap = 0;
	uint32_t i;

	for (i = 0; i < h->num_entries; i++) {
		const uint8_t *e = h->array + (size_t)i * h->entry_size;
		uint64_t first = le64(e + 32), last = le64(e + 40), len;
		struct e4t_part *p;

		if (!memcmp(e, zero_guid, 16))
			continue;
		if (last < first) {
			e4t_cwarnf(warn, arg,
				   "GPT partition %" PRIu32
				   " ends before it starts: ignored",
				   i + 1);
			continue;
		}
		if (first >= nsec) {
			e4t_cwarnf(warn, arg,
				   "GPT partition %" PRIu32
				   " starts at sector %" PRIu64
				   ", past the end of the disk (%" PRIu64
				   " sectors)",
				   i + 1, first, nsec);
			return E4T_ERR_PARTTABLE;
		}
		len = last - first + 1;
		if (len > nsec - first) {
			e4t_cwarnf(
				warn, arg,
				"GPT partition %" PRIu32 " ends %" PRIu64
				" sectors past the end of the disk: it is read "
				"up to there",
				i + 1, len - (nsec - first));
			len = nsec - first;
		}
		if (e4t_grow(&pt->parts, &cap, pt->nparts + 1,
			     sizeof(*pt->parts), 8))
			return ENOMEM;
		p = &pt->parts[pt->nparts++];
		memset(p, 0, sizeof(*p));
		p->number = i + 1;
		p->start = first * ss;
		p->length = len * ss;
		memcpy(p->type_guid, e, 16);
		memcpy(p->uuid, e + 16, 16);
		utf16_name(e + 56, GPT_NAME_UNITS, p->name);
	}
	return 0;
}

/* The sector size at which a GPT header's signature is, or 0. */
static unsigned sector_size(const struct e4t_view *v)
{
	static const unsigned sizes[] = { 512, 4096 };
	unsigned i;

	for (i = 0; i < 2; i++)
		if (has_signature(v, sizes[i], 1))
			return sizes[i];
	for (i = 0; i < 2; i++)
		if (v->size >= sizes[i] &&
		    has_signature(v, sizes[i], v->size / sizes[i] - 1))
			return sizes[i];
	return 0;
}

errcode_t e4t_gpt_read(const struct e4t_view *v, struct e4t_parttable *pt,
		       e4t_cwarn warn, void *arg)
{
	struct gpt_hdr pri, bak = { 0 }, *use;
	const char *pwhy, *bwhy = NULL;
	unsigned ss = sector_size(v);
	uint64_t last, where;
	errcode_t err;

	memset(pt, 0, sizeof(*pt));
	if (!ss)
		return 0;
	last = v->size / ss - 1;
	err = read_header(v, ss, 1, &pri, &pwhy);
	if (err && err != E4T_ERR_PARTTABLE)
		return err;
	use = err ? NULL : &pri;
	if (use && pri.alternate_lba > last) {
		e4t_cwarnf(warn, arg,
			   "GPT backup header at sector %" PRIu64
			   " is past the end of the disk (a truncated image?): "
			   "the "
			   "primary is used",
			   pri.alternate_lba);
		goto found;
	}
	/* the backup: where the primary says, else at the last LBA */
	where = pri.has_sig && pri.alternate_lba > 1 &&
				pri.alternate_lba <= last
			? pri.alternate_lba
			: last;
	err = read_header(v, ss, where, &bak, &bwhy);
	if (err == E4T_ERR_PARTTABLE && where != last)
		err = read_header(v, ss, last, &bak, &bwhy);
	if (err && err != E4T_ERR_PARTTABLE) {
		free(pri.array);
		return err;
	}
	if (use && err) {
		e4t_cwarnf(warn, arg,
			   "GPT backup header at sector %" PRIu64
			   " %s: the primary is used",
			   bak.lba, bwhy);
	} else if (!use && !err) {
		e4t_cwarnf(warn, arg,
			   "GPT primary header %s: the backup header at sector "
			   "%" PRIu64 " is used",
			   pwhy, bak.lba);
		use = &bak;
	} else if (!use) {
		e4t_cwarnf(warn, arg,
			   "GPT primary header %s, and the backup header at "
			   "sector %" PRIu64 " %s",
			   pwhy, bak.lba, bwhy);
		return E4T_ERR_PARTTABLE;
	}
found:
	pt->scheme = E4T_PT_GPT;
	pt->sector = ss;
	memcpy(pt->disk_guid, use->disk_guid, 16);
	err = entries(v, ss, use, pt, warn, arg);
	free(pri.array);
	free(bak.array);
	if (err)
		e4t_parttable_free(pt);
	return err;
}
