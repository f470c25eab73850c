/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsprobe.c --- what a volume holds, from signatures: ext2/3/4 and what is not.
 *
 * The first PROBE_HEAD bytes of the view are read once (fewer when the
 * view is shorter: a signature past its end is simply not there); ZFS's
 * uberblocks at 128 KiB and md's superblocks near the end are read
 * apart.  The order is libblkid's where it matters:
 *
 *  1. headers that wrap another volume and say so at sector 0: LUKS,
 *     LVM2 (its label in sectors 0-3), BitLocker, md RAID 1.1 (at 0) and
 *     1.2 (at 4 KiB): the filesystem inside them is further on;
 *  2. a GPT header at 512 ("EFI PART", eight bytes: a disk inside a
 *     partition);
 *  3. ext2/3/4 (0xEF53 at 1080, with a sane block size): before the MBR,
 *     whose two-byte 0x55AA at 510 could be stale boot code, and before
 *     the FAT/NTFS tests, whose strings sit in sector 0 which mke2fs
 *     leaves alone;
 *  4. the other filesystems (XFS, btrfs, squashfs, NTFS, exFAT, FAT with
 *     a sane BPB, ISO 9660, swap, ZFS), md 0.90/1.0 at the end;
 *  5. ext2/3/4 through group 1's backup superblock (the primary gone);
 *     an MBR with a valid entry (a FAT or NTFS boot sector is not one);
 *  6. all zeros in the first 8 KiB: empty; else unknown.
 *
 * UUIDs are as blkid prints them (lower case, by libuuid; FAT and exFAT serials
 * as
 * XXXX-XXXX, NTFS's as 16 hex digits); an LVM2 PV's uuid is left empty
 * (with its dashes it does not fit: e4t_lvm_read gives it).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2_fs.h>
#include <uuid/uuid.h>

#include "e4time.h"
#include "container/container.h"

#define PROBE_HEAD  (65536 + 4096) /* btrfs's superblock at 64 KiB */
#define PROBE_EMPTY 8192
#define ZFS_LABEL   (128 * 1024UL) /* uberblocks in label 0 */
#define ZFS_SLOTS   32UL

struct head {
	const uint8_t *b;
	size_t len;
};

/* len bytes at off, or NULL when the view is shorter */
static const uint8_t *at(const struct head *h, size_t off, size_t len)
{
	return off <= h->len && len <= h->len - off ? h->b + off : NULL;
}

static int sig(const struct head *h, size_t off, const char *s, size_t len)
{
	const uint8_t *p = at(h, off, len);

	return p && !memcmp(p, s, len);
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A fixed-size field, maybe not NUL-terminated, into out[outsz] */
static size_t copy(const uint8_t *p, size_t len, char *out, size_t outsz)
{
	size_t n = strnlen((const char *)p, len);

	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

/* The same, trailing spaces dropped (the space-padded labels of FAT,
 * ISO 9660, XFS) */
static void field(const uint8_t *p, size_t len, char *out, size_t outsz)
{
	size_t n = copy(p, len, out, outsz);

	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
}

static void set(struct e4t_probe *out, enum e4t_content c, const char *name)
{
	out->content = c;
	out->name = name;
}

static int probe_ext(const struct head *h, struct e4t_probe *out)
{
	const uint8_t *p = at(h, 1024, sizeof(struct ext2_super_block));
	struct ext2_super_block sb;
	uint32_t compat, incompat, ro_compat;

	if (!p)
		return 0;
	memcpy(&sb, p, sizeof(sb));
	if (ext2fs_le16_to_cpu(sb.s_magic) != EXT2_SUPER_MAGIC ||
	    ext2fs_le32_to_cpu(sb.s_log_block_size) > 6)
		return 0;
	compat = ext2fs_le32_to_cpu(sb.s_feature_compat);
	incompat = ext2fs_le32_to_cpu(sb.s_feature_incompat);
	ro_compat = ext2fs_le32_to_cpu(sb.s_feature_ro_compat);
	uuid_unparse_lower(sb.s_uuid, out->uuid);
	copy(sb.s_volume_name, sizeof(sb.s_volume_name), out->label,
	     sizeof(out->label));
	if (incompat & EXT3_FEATURE_INCOMPAT_JOURNAL_DEV) {
		set(out, E4T_FS_JOURNAL_DEV, "jbd");
		return 1;
	}
	/* libblkid: ext4 when ext3 would not mount it */
	if ((incompat & ~(uint32_t)(EXT2_FEATURE_INCOMPAT_FILETYPE |
				    EXT3_FEATURE_INCOMPAT_RECOVER |
				    EXT2_FEATURE_INCOMPAT_META_BG)) ||
	    (ro_compat & ~(uint32_t)(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |
				     EXT2_FEATURE_RO_COMPAT_LARGE_FILE |
				     0x0004 /* BTREE_DIR */)))
		set(out, E4T_FS_EXT, "ext4");
	else if (compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL)
		set(out, E4T_FS_EXT, "ext3");
	else
		set(out, E4T_FS_EXT, "ext2");
	copy(sb.s_last_mounted, sizeof(sb.s_last_mounted), out->last_mounted,
	     sizeof(out->last_mounted));
	out->fs_size = ext2fs_le32_to_cpu(sb.s_blocks_count);
	if (incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		out->fs_size |=
			(uint64_t)ext2fs_le32_to_cpu(sb.s_blocks_count_hi)
			<< 32;
	out->fs_size <<= 10 + ext2fs_le32_to_cpu(sb.s_log_block_size);
	out->mtime = (int64_t)((uint64_t)sb.s_mtime_hi << 32 |
			       ext2fs_le32_to_cpu(sb.s_mtime));
	out->wtime = (int64_t)((uint64_t)sb.s_wtime_hi << 32 |
			       ext2fs_le32_to_cpu(sb.s_wtime));
	return 1;
}

/*
 * An ext2/3/4 filesystem whose primary superblock is gone (zeroed,
 * overwritten): group 1's backup, where e2fsck looks for it
 * (lib/fs/sbopen.c), of the block size it says, of group 1, and with a
 * checksum that verifies when it has one.  The image is then opened
 * through that backup.
 */
static errcode_t probe_ext_backup(const struct e4t_view *v,
				  struct e4t_probe *out, int *found)
{
	static const unsigned sizes[] = { 1024,	 2048,	4096, 8192,
					  16384, 32768, 65536 };
	uint8_t b[2048];
	const struct head h = { b, sizeof(b) };
	const struct ext2_super_block *sb = (const void *)(b + 1024);
	size_t i;
	errcode_t err;

	*found = 0;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned bs = sizes[i];
		uint64_t per = 8ULL * bs > 65528 ? 65528 : 8ULL * bs;
		uint64_t off = ((bs == 1024 ? 1 : 0) + per) * bs;

		if (off + 1024 > v->size)
			continue;
		err = e4t_view_read(v, b + 1024, 1024, off);
		if (err)
			return err;
		if (ext2fs_le16_to_cpu(sb->s_magic) != EXT2_SUPER_MAGIC ||
		    ext2fs_le32_to_cpu(sb->s_log_block_size) + 10 >= 32 ||
		    1024U << ext2fs_le32_to_cpu(sb->s_log_block_size) != bs ||
		    ext2fs_le16_to_cpu(sb->s_block_group_nr) != 1)
			continue;
		if ((ext2fs_le32_to_cpu(sb->s_feature_ro_compat) &
		     EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
		    ext2fs_crc32c_le(
			    ~0U, (const unsigned char *)sb,
			    offsetof(struct ext2_super_block, s_checksum)) !=
			    ext2fs_le32_to_cpu(sb->s_checksum))
			continue;
		*found = probe_ext(&h, out);
		if (*found)
			return 0;
	}
	return 0;
}

static int probe_lvm(const struct head *h)
{
	size_t s;

	for (s = 0; s < 4; s++)
		if (sig(h, s * 512, "LABELONE", 8) &&
		    sig(h, s * 512 + 24, "LVM2 001", 8))
			return 1;
	return 0;
}

static int probe_luks(const struct head *h, struct e4t_probe *out)
{
	const uint8_t *p = at(h, 0, 512);

	if (!p || memcmp(p, "LUKS\xba\xbe", 6))
		return 0;
	switch (p[6] << 8 | p[7]) {
	case 1: set(out, E4T_FS_LUKS1, "LUKS1"); break;
	case 2:
		set(out, E4T_FS_LUKS2, "LUKS2");
		field(p + 24, 48, out->label, sizeof(out->label));
		break;
	default: return 0;
	}
	field(p + 168, 40, out->uuid, sizeof(out->uuid));
	return 1;
}

static void serial(const uint8_t *p, char out[37])
{
	snprintf(out, 37, "%04X-%04X", le16(p + 2), le16(p));
}

/* A BPB whose numbers a FAT formatter could have written */
static int sane_bpb(const uint8_t *p)
{
	unsigned bps = le16(p + 11), spc = p[13];

	return (bps == 512 || bps == 1024 || bps == 2048 || bps == 4096) &&
	       spc && !(spc & (spc - 1)) && p[16] && le16(p + 14) &&
	       p[510] == 0x55 && p[511] == 0xaa;
}

static int probe_fat(const struct head *h, struct e4t_probe *out)
{
	const uint8_t *p = at(h, 0, 512);
	size_t ser, lab;

	if (!p || !sane_bpb(p))
		return 0;
	if (!memcmp(p + 82, "FAT32   ", 8)) {
		ser = 67;
		lab = 71;
	} else if (!memcmp(p + 54, "FAT12   ", 8) ||
		   !memcmp(p + 54, "FAT16   ", 8)) {
		ser = 39;
		lab = 43;
	} else {
		return 0;
	}
	set(out, E4T_FS_FAT, "FAT");
	serial(p + ser, out->uuid);
	if (memcmp(p + lab, "NO NAME    ", 11))
		field(p + lab, 11, out->label, sizeof(out->label));
	return 1;
}

static int probe_swap(const struct head *h, struct e4t_probe *out)
{
	static const size_t pages[] = { 4096, 8192, 16384, 65536 };
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		if (sig(h, pages[i] - 10, "SWAP-SPACE", 10)) {
			set(out, E4T_FS_SWAP, "swap");
			return 1;
		}
		if (sig(h, pages[i] - 10, "SWAPSPACE2", 10)) {
			set(out, E4T_FS_SWAP, "swap");
			uuid_unparse_lower(h->b + 1024 + 12, out->uuid);
			field(h->b + 1024 + 28, 16, out->label,
			      sizeof(out->label));
			return 1;
		}
	}
	return 0;
}

/* ZFS: an uberblock's magic, either byte order, in the first slots of
 * label 0 (1 KiB apart: 4 KiB slots of ashift 12 start on them too). */
static errcode_t probe_zfs(const struct e4t_view *v, int *found)
{
	static const uint8_t le[8] = { 0x0c, 0xb1, 0xba, 0, 0, 0, 0, 0 };
	static const uint8_t be[8] = { 0, 0, 0, 0, 0, 0xba, 0xb1, 0x0c };
	uint8_t *b;
	errcode_t err;
	size_t i;

	*found = 0;
	if (v->size < ZFS_LABEL + ZFS_SLOTS * 1024)
		return 0;
	b = malloc(ZFS_SLOTS * 1024);
	if (!b)
		return ENOMEM;
	err = e4t_view_read(v, b, ZFS_SLOTS * 1024, ZFS_LABEL);
	for (i = 0; !err && i < ZFS_SLOTS && !*found; i++)
		*found = !memcmp(b + i * 1024, le, 8) ||
			 !memcmp(b + i * 1024, be, 8);
	free(b);
	return err;
}

/* md 0.90 (64 KiB from the end, 64 KiB aligned) and 1.0 (8 KiB from
 * the end, 4 KiB aligned): the magic in the host's order for 0.90,
 * little-endian for 1.0. */
static errcode_t probe_md_end(const struct e4t_view *v, int *found)
{
	uint64_t offs[2];
	uint8_t m[4];
	errcode_t err;
	int i;

	*found = 0;
	if (v->size < 128 * 1024UL)
		return 0;
	offs[0] = (v->size & ~(uint64_t)0xffff) - 0x10000;
	offs[1] = (v->size - 8192) & ~(uint64_t)4095;
	for (i = 0; i < 2; i++) {
		err = e4t_view_read(v, m, 4, offs[i]);
		if (err)
			return err;
		if (le32(m) == 0xa92b4efc || (m[0] == 0xa9 && m[1] == 0x2b &&
					      m[2] == 0x4e && m[3] == 0xfc)) {
			*found = 1;
			return 0;
		}
	}
	return 0;
}

/* An MBR with at least one valid entry (e4t_mbr_read's test without
 * following the extended chain; *protective when one is 0xEE); a FAT or
 * NTFS boot sector is not. */
static int probe_mbr(const struct head *h, int *protective)
{
	const uint8_t *p = at(h, 0, 512);
	size_t slot;
	int used = 0;

	*protective = 0;
	if (!p || p[510] != 0x55 || p[511] != 0xaa ||
	    !memcmp(p + 3, "NTFS    ", 8) || !memcmp(p + 3, "EXFAT   ", 8) ||
	    !memcmp(p + 54, "FAT1", 4) || !memcmp(p + 82, "FAT32   ", 8))
		return 0;
	for (slot = 0; slot < 4; slot++) {
		const uint8_t *e = p + 446 + 16 * slot;

		if (e[0] != 0x00 && e[0] != 0x80)
			return 0;
		if (!e[4] || !le32(e + 12))
			continue;
		if (!le32(e + 8))
			return 0;
		if (e[4] == 0xee)
			*protective = 1;
		used++;
	}
	return used > 0;
}

static errcode_t probe_head(const struct e4t_view *v, const struct head *h,
			    struct e4t_probe *out)
{
	errcode_t err;
	size_t i;
	int found;

	if (probe_luks(h, out))
		return 0;
	if (probe_lvm(h)) {
		set(out, E4T_FS_LVM_PV, "LVM2_member");
		return 0;
	}
	if (sig(h, 3, "-FVE-FS-", 8)) {
		set(out, E4T_FS_BITLOCKER, "BitLocker");
		return 0;
	}
	if ((at(h, 0, 4) && le32(h->b) == 0xa92b4efc) ||
	    (at(h, 4096, 4) && le32(h->b + 4096) == 0xa92b4efc)) {
		set(out, E4T_FS_MDRAID, "linux_raid_member");
		return 0;
	}
	if (sig(h, 512, "EFI PART", 8)) {
		set(out, E4T_FS_PARTTABLE, "GPT");
		return 0;
	}
	if (probe_ext(h, out))
		return 0;
	if (sig(h, 0, "XFSB", 4) && at(h, 0, 120)) {
		set(out, E4T_FS_XFS, "XFS");
		uuid_unparse_lower(h->b + 32, out->uuid);
		field(h->b + 108, 12, out->label, sizeof(out->label));
		return 0;
	}
	if (sig(h, 65536 + 64, "_BHRfS_M", 8) && at(h, 65536 + 0x12b, 256)) {
		set(out, E4T_FS_BTRFS, "btrfs");
		uuid_unparse_lower(h->b + 65536 + 32, out->uuid);
		field(h->b + 65536 + 0x12b, 256, out->label,
		      sizeof(out->label));
		return 0;
	}
	if (sig(h, 0, "hsqs", 4)) {
		set(out, E4T_FS_SQUASHFS, "squashfs");
		return 0;
	}
	if (sig(h, 3, "NTFS    ", 8) && at(h, 0x48, 8)) {
		set(out, E4T_FS_NTFS, "NTFS");
		snprintf(out->uuid, sizeof(out->uuid), "%08X%08X",
			 le32(h->b + 0x4c), le32(h->b + 0x48));
		return 0;
	}
	if (sig(h, 3, "EXFAT   ", 8) && at(h, 100, 4)) {
		set(out, E4T_FS_EXFAT, "exFAT");
		serial(h->b + 100, out->uuid);
		return 0;
	}
	if (probe_fat(h, out))
		return 0;
	if (sig(h, 32769, "CD001", 5) && at(h, 32768 + 40, 32)) {
		set(out, E4T_FS_ISO9660, "iso9660");
		field(h->b + 32768 + 40, 32, out->label, sizeof(out->label));
		return 0;
	}
	if (probe_swap(h, out))
		return 0;
	err = probe_zfs(v, &found);
	if (err || found) {
		if (found)
			set(out, E4T_FS_ZFS, "zfs_member");
		return err;
	}
	err = probe_md_end(v, &found);
	if (err || found) {
		if (found)
			set(out, E4T_FS_MDRAID, "linux_raid_member");
		return err;
	}
	err = probe_ext_backup(v, out, &found);
	if (err || found)
		return err;
	if (probe_mbr(h, &found)) { /* 0xEE: GPT (of 4 KiB sectors) */
		set(out, E4T_FS_PARTTABLE, found ? "GPT" : "MBR");
		return 0;
	}
	for (i = 0; i < h->len && i < PROBE_EMPTY; i++)
		if (h->b[i])
			return 0;
	set(out, E4T_FS_EMPTY, "empty");
	return 0;
}

errcode_t e4t_probe(const struct e4t_view *v, struct e4t_probe *out)
{
	struct head h;
	uint8_t *b;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	set(out, E4T_FS_UNKNOWN, "unknown");
	h.len = v->size < PROBE_HEAD ? (size_t)v->size : PROBE_HEAD;
	b = malloc(h.len ? h.len : 1);
	if (!b)
		return ENOMEM;
	err = e4t_view_read(v, b, h.len, 0);
	h.b = b;
	if (!err)
		err = probe_head(v, &h, out);
	free(b);
	if (err) {
		memset(out, 0, sizeof(*out));
		set(out, E4T_FS_UNKNOWN, "unknown");
	}
	return err;
}

const char *e4t_content_advice(enum e4t_content c)
{
	switch (c) {
	case E4T_FS_UNKNOWN: return "no filesystem e4time recognises";
	case E4T_FS_EMPTY: return "empty (all zeros)";
	case E4T_FS_EXT: return "an ext2/3/4 filesystem";
	case E4T_FS_JOURNAL_DEV:
		return "an ext4 external journal (give it to e4time journal "
		       "-j)";
	case E4T_FS_LVM_PV:
		return "an LVM2 physical volume (e4time volumes lists its "
		       "logical volumes)";
	case E4T_FS_LUKS1:
		return "LUKS1 encrypted: open it (cryptsetup open) and give "
		       "e4time the mapped device";
	case E4T_FS_LUKS2:
		return "LUKS2 encrypted: open it (cryptsetup open) and give "
		       "e4time the mapped device";
	case E4T_FS_BITLOCKER:
		return "BitLocker encrypted: unlock it (dislocker) and give "
		       "e4time the decrypted image";
	case E4T_FS_XFS: return "an XFS filesystem, not ext2/3/4";
	case E4T_FS_BTRFS: return "a btrfs filesystem, not ext2/3/4";
	case E4T_FS_NTFS: return "an NTFS filesystem, not ext2/3/4";
	case E4T_FS_FAT: return "a FAT filesystem, not ext2/3/4";
	case E4T_FS_EXFAT: return "an exFAT filesystem, not ext2/3/4";
	case E4T_FS_SWAP: return "swap space, no filesystem";
	case E4T_FS_ZFS: return "a ZFS pool member, not ext2/3/4";
	case E4T_FS_MDRAID:
		return "a Linux md RAID member: assemble the array (mdadm "
		       "--assemble) and give e4time the md device";
	case E4T_FS_ISO9660: return "an ISO 9660 image, not ext2/3/4";
	case E4T_FS_SQUASHFS: return "a squashfs image, not ext2/3/4";
	case E4T_FS_PARTTABLE:
		return "a partition table (e4time volumes lists its "
		       "partitions)";
	}
	return "no filesystem e4time recognises";
}
