/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parttable.c --- the partition table of a view (GPT, then MBR), type names,
 * GUIDs.
 *
 * Which table a disk has, as Linux decides (block/partitions: GPT only
 * with a protective MBR, unless forced): a sector 0 that is a real MBR,
 * with partitions and no 0xEE entry (mbr.c's test), makes the disk MBR,
 * even when a GPT header is also there (stale, left by an earlier
 * partitioning), which is said in a warning.  Otherwise (a protective or
 * hybrid MBR, or none at all) the GPT is read, and without one there is
 * no table.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "e4time.h"
#include "container/container.h"

static int gpt_signature_at(const struct e4t_view *v, uint64_t off)
{
	char sig[8];

	return off + sizeof(sig) <= v->size &&
	       !e4t_view_read(v, sig, sizeof(sig), off) &&
	       !memcmp(sig, "EFI PART", 8);
}

errcode_t e4t_parttable_read(const struct e4t_view *v, struct e4t_parttable *pt,
			     e4t_cwarn warn, void *arg)
{
	errcode_t err;

	/* a real MBR (mbr.c returns NONE for a protective one) wins */
	err = e4t_mbr_read(v, pt, NULL, NULL);
	if (err == E4T_ERR_PARTTABLE || (!err && pt->scheme == E4T_PT_MBR)) {
		e4t_parttable_free(pt);
		err = e4t_mbr_read(v, pt, warn, arg); /* again, warning */
		if (!err && warn &&
		    (gpt_signature_at(v, 512) || gpt_signature_at(v, 4096)))
			warn(arg, "a GPT header is present, but the MBR has no "
				  "protective entry: the MBR is used, as Linux "
				  "does (the GPT is stale)");
		return err;
	}
	if (err)
		return err;
	return e4t_gpt_read(v, pt, warn, arg);
}

void e4t_parttable_free(struct e4t_parttable *pt)
{
	free(pt->parts);
	memset(pt, 0, sizeof(*pt));
}

/* GUIDs as text (upper case, as the specifications write them). */
static const struct {
	const char *guid, *name;
} gpt_types[] = {
	{ "0FC63DAF-8483-4772-8E79-3D69D8477DE4", "Linux filesystem" },
	{ "E6D6D379-F507-44C2-A23C-238F2A3DF928", "Linux LVM" },
	{ "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", "Linux swap" },
	{ "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", "Linux root (x86-64)" },
	{ "44479540-F297-41B2-9AF7-D131D5F0458A", "Linux root (x86)" },
	{ "B921B045-1DF0-41C3-AF44-4C6F280D3FAE", "Linux root (ARM-64)" },
	{ "8484680C-9521-48C6-9C11-B0720656F69E", "Linux /usr (x86-64)" },
	{ "933AC7E1-2EB4-4F13-B844-0E14E2AEF915", "Linux /home" },
	{ "3B8F8425-20E0-4F3B-907F-1A25A76F98E8", "Linux /srv" },
	{ "4D21B016-B534-45C2-A9FB-5C16E091FD2D", "Linux /var" },
	{ "7EC6F557-3BC5-4ACA-B293-16EF5DF639D1", "Linux /var/tmp" },
	{ "A19D880F-05FC-4D3B-A006-743F0F84911E", "Linux RAID" },
	{ "CA7D7CCB-63ED-4C53-861C-1742536059CC", "Linux LUKS" },
	{ "BC13C2FF-59E6-4262-A352-B275FD6F7172", "Linux extended boot" },
	{ "8DA63339-0007-60C0-C436-083AC8230908", "Linux reserved" },
	{ "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", "EFI System" },
	{ "21686148-6449-6E6F-744E-656564454649", "BIOS boot" },
	{ "024DEE41-33E7-11D3-9D69-0008C781F39F", "MBR partition scheme" },
	{ "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7", "Microsoft basic data" },
	{ "E3C9E316-0B5C-4DB8-817D-F92DF00215AE", "Microsoft reserved" },
	{ "DE94BBA4-06D1-4D40-A16A-BFD50179D6AC", "Windows recovery" },
	{ "5808C8AA-7E8F-42E0-85D2-E1E90434CFB3", "Microsoft LDM metadata" },
	{ "AF9B60A0-1431-4F62-BC68-3311714A69AD", "Microsoft LDM data" },
	{ "E75CAF8F-F680-4CEE-AFA3-B001E56EFC2D", "Microsoft Storage Spaces" },
	{ "7C3457EF-0000-11AA-AA11-00306543ECAC", "Apple APFS" },
	{ "48465300-0000-11AA-AA11-00306543ECAC", "Apple HFS/HFS+" },
	{ "426F6F74-0000-11AA-AA11-00306543ECAC", "Apple boot" },
	{ "516E7CB4-6ECF-11D6-8FF8-00022D09712B", "FreeBSD data" },
	{ "516E7CB6-6ECF-11D6-8FF8-00022D09712B", "FreeBSD UFS" },
	{ "516E7CB5-6ECF-11D6-8FF8-00022D09712B", "FreeBSD swap" },
	{ "516E7CBA-6ECF-11D6-8FF8-00022D09712B", "FreeBSD ZFS" },
	{ "6A898CC3-1DD2-11B2-99A6-080020736631", "Solaris /usr & Apple ZFS" },
	{ "6A85CF4D-1DD2-11B2-99A6-080020736631", "Solaris root" },
	{ "E2A1E728-32E3-11D6-A682-7B03A0000000", "HP-UX data" },
	{ "CEF5A9AD-73BC-4601-89F3-CDEEEEE321A1", "QNX6 filesystem" },
};

const char *e4t_gpt_type_name(const uint8_t guid[16])
{
	char text[37];
	size_t i;

	e4t_guid_str(guid, text);
	for (i = 0; i < sizeof(gpt_types) / sizeof(gpt_types[0]); i++)
		if (!strcasecmp(text, gpt_types[i].guid))
			return gpt_types[i].name;
	return NULL;
}

const char *e4t_mbr_type_name(uint8_t id)
{
	switch (id) {
	case 0x00: return "Empty";
	case 0x01: return "FAT12";
	case 0x04: return "FAT16 <32M";
	case 0x05: return "Extended";
	case 0x06: return "FAT16";
	case 0x07: return "HPFS/NTFS/exFAT";
	case 0x0b: return "W95 FAT32";
	case 0x0c: return "W95 FAT32 (LBA)";
	case 0x0e: return "W95 FAT16 (LBA)";
	case 0x0f: return "W95 Extended (LBA)";
	case 0x11: return "Hidden FAT12";
	case 0x12: return "Compaq diagnostics";
	case 0x17: return "Hidden HPFS/NTFS";
	case 0x1b: return "Hidden W95 FAT32";
	case 0x1c: return "Hidden W95 FAT32 (LBA)";
	case 0x1e: return "Hidden W95 FAT16 (LBA)";
	case 0x27: return "Hidden NTFS WinRE";
	case 0x42: return "SFS (Windows dynamic)";
	case 0x82: return "Linux swap";
	case 0x83: return "Linux";
	case 0x85: return "Linux extended";
	case 0x8e: return "Linux LVM";
	case 0xa5: return "FreeBSD";
	case 0xa6: return "OpenBSD";
	case 0xa8: return "Darwin UFS";
	case 0xa9: return "NetBSD";
	case 0xaf: return "HFS / HFS+";
	case 0xbf: return "Solaris";
	case 0xda: return "Non-FS data";
	case 0xe8: return "LUKS";
	case 0xea: return "Linux extended boot";
	case 0xee: return "GPT protective";
	case 0xef: return "EFI System";
	case 0xfd: return "Linux RAID autodetect";
	default: return NULL;
	}
}

void e4t_guid_str(const uint8_t guid[16], char out[37])
{
	/* the first three fields are little-endian */
	static const int order[16] = { 3, 2, 1,	 0,  5,	 4,  7,	 6,
				       8, 9, 10, 11, 12, 13, 14, 15 };
	static const char hex[] = "0123456789abcdef";
	char *o = out;
	int i;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[guid[order[i]] >> 4];
		*o++ = hex[guid[order[i]] & 15];
	}
	*o = '\0';
}
