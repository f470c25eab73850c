/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_parttable.c --- MBR and GPT tables and signatures, on disks built
 * here sector by sector (sparse temporary files), on disks sfdisk and
 * fdisk partition when they are installed (what they print is what
 * e4t_parttable_read must find), and on the heads of images/.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "unit.h"

static char path[4096];
static unsigned nwarn;
static char lastwarn[256];

static void collect(void *arg, const char *msg)
{
	(void)arg;
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", msg);
}

/* A new sparse disk of size bytes at path: its fd. */
static int disk(uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		perror(path);
		exit(2);
	}
	return fd;
}

static void put(int fd, const void *buf, size_t len, uint64_t off)
{
	if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
		perror("pwrite");
		exit(2);
	}
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void le64(uint8_t *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc32(const uint8_t *p, size_t len)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return ~c;
}

static void mbr_slot(uint8_t *sec, int slot, uint8_t status, uint8_t type,
		     uint32_t lba, uint32_t count)
{
	uint8_t *p = sec + 446 + 16 * slot;

	p[0] = status;
	p[4] = type;
	le32(p + 8, lba);
	le32(p + 12, count);
	sec[510] = 0x55;
	sec[511] = 0xaa;
}

/* Read the table of the disk at path, warnings counted. */
static errcode_t table(struct e4t_parttable *pt, int which)
{
	struct e4t_container *c;
	struct e4t_view v = { 0 };
	errcode_t err;

	nwarn = 0;
	lastwarn[0] = '\0';
	memset(pt, 0, sizeof(*pt));
	err = e4t_raw_open(path, &c);
	if (err)
		return err;
	v.c = c;
	v.size = c->size;
	if (which == 'm')
		err = e4t_mbr_read(&v, pt, collect, NULL);
	else if (which == 'g')
		err = e4t_gpt_read(&v, pt, collect, NULL);
	else
		err = e4t_parttable_read(&v, pt, collect, NULL);
	e4t_container_close(c);
	return err;
}

static errcode_t probe(struct e4t_probe *pr)
{
	struct e4t_container *c;
	struct e4t_view v = { 0 };
	errcode_t err;

	memset(pr, 0, sizeof(*pr));
	err = e4t_raw_open(path, &c);
	if (err)
		return err;
	v.c = c;
	v.size = c->size;
	err = e4t_probe(&v, pr);
	e4t_container_close(c);
	return err;
}

static void test_mbr(void)
{
	uint8_t s[512];
	struct e4t_parttable pt;
	int fd = disk(64 << 20);
	errcode_t err;

	/* 1 primary, 2 extended, 3 primary; logicals 5 and 6 */
	memset(s, 0, sizeof(s));
	le32(s + 440, 0xdeadbeef);
	mbr_slot(s, 0, 0x80, 0x83, 2048, 2048);
	mbr_slot(s, 1, 0, 0x0f, 8192, 40960);
	mbr_slot(s, 2, 0, 0x82, 4096, 2048);
	put(fd, s, 512, 0);
	memset(s, 0, sizeof(s)); /* EBR 1: logical at +2048, next at +16384 */
	mbr_slot(s, 0, 0, 0x83, 2048, 4096);
	mbr_slot(s, 1, 0, 0x05, 16384, 8192);
	put(fd, s, 512, 8192 * 512ULL);
	memset(s, 0, sizeof(s)); /* EBR 2: logical at +2048, no next */
	mbr_slot(s, 0, 0, 0x8e, 2048, 6144);
	put(fd, s, 512, (8192 + 16384) * 512ULL);
	err = table(&pt, 'm');
	CHECK(!err && pt.scheme == E4T_PT_MBR && pt.nparts == 4,
	      "MBR: err %ld scheme %d nparts %u", (long)err, pt.scheme,
	      pt.nparts);
	if (!err && pt.nparts == 4) {
		CHECK(pt.mbr_id == 0xdeadbeef && pt.sector == 512, "MBR id");
		CHECK(pt.parts[0].number == 1 && pt.parts[1].number == 3 &&
			      pt.parts[2].number == 5 &&
			      pt.parts[3].number == 6,
		      "MBR numbers %u %u %u %u", pt.parts[0].number,
		      pt.parts[1].number, pt.parts[2].number,
		      pt.parts[3].number);
		CHECK(pt.parts[0].start == 2048 * 512ULL &&
			      pt.parts[0].length == 2048 * 512ULL &&
			      !pt.parts[0].logical &&
			      pt.parts[0].mbr_type == 0x83,
		      "MBR p1");
		CHECK(pt.parts[2].start == (8192 + 2048) * 512ULL &&
			      pt.parts[2].length == 4096 * 512ULL &&
			      pt.parts[2].logical,
		      "MBR p5 %llu", (unsigned long long)pt.parts[2].start);
		CHECK(pt.parts[3].start == (8192 + 16384 + 2048) * 512ULL &&
			      pt.parts[3].length == 6144 * 512ULL &&
			      pt.parts[3].mbr_type == 0x8e,
		      "MBR p6 %llu", (unsigned long long)pt.parts[3].start);
		CHECK(nwarn == 0, "MBR warnings: %s", lastwarn);
	}
	e4t_parttable_free(&pt);
	err = table(&pt, 'p');
	CHECK(!err && pt.scheme == E4T_PT_MBR && pt.nparts == 4,
	      "parttable on MBR");
	e4t_parttable_free(&pt);

	/* the second EBR points back at the first: a loop */
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0, 0x8e, 2048, 6144);
	mbr_slot(s, 1, 0, 0x05, 0, 8192);
	put(fd, s, 512, (8192 + 16384) * 512ULL);
	err = table(&pt, 'm');
	/* said, and the partitions before the loop kept (issue 27) */
	CHECK(!err && pt.scheme == E4T_PT_MBR && pt.nparts >= 1 &&
		      strstr(lastwarn, "loops"),
	      "EBR loop: err %ld nparts %u warn %s", (long)err, pt.nparts,
	      lastwarn);
	e4t_parttable_free(&pt);
	/* an EBR pointing at itself */
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0, 0x83, 2048, 4096);
	mbr_slot(s, 1, 0, 0x05, 0, 8192);
	put(fd, s, 512, 8192 * 512ULL);
	err = table(&pt, 'm');
	CHECK(!err && pt.nparts >= 1 && strstr(lastwarn, "loops"),
	      "EBR self loop: err %ld nparts %u", (long)err, pt.nparts);
	e4t_parttable_free(&pt);
	close(fd);

	/* past the end: clipped when it starts inside, else impossible */
	fd = disk(1 << 20);
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0, 0x83, 1024, 4096);
	put(fd, s, 512, 0);
	err = table(&pt, 'm');
	CHECK(!err && pt.nparts == 1 &&
		      pt.parts[0].length == (2048 - 1024) * 512ULL &&
		      nwarn == 1,
	      "MBR clipped: err %ld nwarn %u", (long)err, nwarn);
	e4t_parttable_free(&pt);
	mbr_slot(s, 1, 0, 0x83, 4096, 4096);
	put(fd, s, 512, 0);
	/* the sound one kept, the other said and left out */
	err = table(&pt, 'm');
	CHECK(!err && pt.nparts == 1 && strstr(lastwarn, "past the end"),
	      "MBR outside the disk: err %ld nparts %u", (long)err, pt.nparts);
	e4t_parttable_free(&pt);

	/* protective MBR alone: not an MBR, and no GPT */
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0, 0xee, 1, 2047);
	put(fd, s, 512, 0);
	err = table(&pt, 'm');
	CHECK(!err && pt.scheme == E4T_PT_NONE, "protective MBR: NONE");
	err = table(&pt, 'p');
	CHECK(!err && pt.scheme == E4T_PT_NONE && !pt.nparts,
	      "protective MBR without GPT: NONE");

	/* a FAT boot sector (BPB, status bytes boot code) is no MBR */
	memset(s, 0, sizeof(s));
	memcpy(s + 54, "FAT16   ", 8);
	mbr_slot(s, 0, 0, 0x83, 63, 100);
	put(fd, s, 512, 0);
	CHECK(!table(&pt, 'm') && pt.scheme == E4T_PT_NONE, "FAT: no MBR");
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0x3c, 0x83, 63, 100);
	put(fd, s, 512, 0);
	CHECK(!table(&pt, 'm') && pt.scheme == E4T_PT_NONE,
	      "bad status: no MBR");
	close(fd);
}

struct gent {
	const char *type; /* 16 bytes as stored */
	uint64_t first, last;
	const uint16_t *name;
};

/*
 * A GPT disk of nsec sectors of ss bytes: protective MBR, primary and
 * backup headers and arrays (128 entries of 128 bytes).
 */
static int gpt_disk(unsigned ss, uint64_t nsec, const struct gent *e, int n)
{
	size_t asz = 128 * 128;
	uint8_t *arr = calloc(1, asz), *h = calloc(1, ss), mbr[512] = { 0 };
	uint64_t alba = nsec - 1 - asz / ss;
	int fd = disk(nsec * ss), i, k;

	mbr_slot(mbr, 0, 0, 0xee, 1, (uint32_t)(nsec - 1));
	put(fd, mbr, 512, 0);
	for (i = 0; i < n; i++) {
		uint8_t *p = arr + 128 * i;

		memcpy(p, e[i].type, 16);
		for (k = 0; k < 16; k++)
			p[16 + k] = (uint8_t)(0x10 * i + k);
		le64(p + 32, e[i].first);
		le64(p + 40, e[i].last);
		for (k = 0; e[i].name && e[i].name[k]; k++) {
			p[56 + 2 * k] = (uint8_t)e[i].name[k];
			p[57 + 2 * k] = (uint8_t)(e[i].name[k] >> 8);
		}
	}
	put(fd, arr, asz, 2 * ss);
	put(fd, arr, asz, alba * ss);
	for (i = 0; i < 2; i++) {
		memset(h, 0, ss);
		memcpy(h, "EFI PART", 8);
		le32(h + 8, 0x10000);
		le32(h + 12, 92);
		le64(h + 24, i ? nsec - 1 : 1);
		le64(h + 32, i ? 1 : nsec - 1);
		le64(h + 40, 2 + asz / ss);
		le64(h + 48, alba - 1);
		for (k = 0; k < 16; k++)
			h[56 + k] = (uint8_t)(0xa0 + k);
		le64(h + 72, i ? alba : 2);
		le32(h + 80, 128);
		le32(h + 84, 128);
		le32(h + 88, crc32(arr, asz));
		le32(h + 16, crc32(h, 92));
		put(fd, h, ss, (i ? nsec - 1 : 1) * ss);
	}
	free(arr);
	free(h);
	return fd;
}

static const char linux_fs[16] = { '\xaf', '\x3d', '\xc6', '\x0f',
				   '\x83', '\x84', '\x72', '\x47',
				   '\x8e', '\x79', '\x3d', '\x69',
				   '\xd8', '\x47', '\x7d', '\xe4' };
static const char linux_lvm[16] = { '\x79', '\xd3', '\xd6', '\xe6',
				    '\x07', '\xf5', '\xc2', '\x44',
				    '\xa2', '\x3c', '\x23', '\x8f',
				    '\x2a', '\x3d', '\xf9', '\x28' };

static void test_gpt(void)
{
	/* "Données 日本 😀" and a lone high surrogate */
	static const uint16_t n1[] = { 'D', 'o',    'n',    'n',    0xe9,
				       'e', 's',    ' ',    0x65e5, 0x672c,
				       ' ', 0xd83d, 0xde00, 0 };
	static const uint16_t n2[] = { 'x', 0xd800, 'y', 0 };
	const struct gent e[] = {
		{ linux_fs, 2048, 4095, n1 },
		{ linux_lvm, 4096, 8191, n2 },
	};
	struct e4t_parttable pt;
	uint8_t b[8];
	char g[37];
	errcode_t err;
	int fd = gpt_disk(512, 16384, e, 2);

	err = table(&pt, 'p');
	CHECK(!err && pt.scheme == E4T_PT_GPT && pt.nparts == 2 &&
		      pt.sector == 512 && nwarn == 0,
	      "GPT: err %ld scheme %d n %u warn %s", (long)err, pt.scheme,
	      pt.nparts, lastwarn);
	if (!err && pt.nparts == 2) {
		CHECK(pt.parts[0].number == 1 &&
			      pt.parts[0].start == 2048 * 512ULL &&
			      pt.parts[0].length == 2048 * 512ULL,
		      "GPT p1");
		CHECK(!strcmp(pt.parts[0].name,
			      "Donn\xc3\xa9"
			      "es \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
		      "GPT name 1: %s", pt.parts[0].name);
		CHECK(!strcmp(pt.parts[1].name, "x\xef\xbf\xbdy"),
		      "GPT name 2: %s", pt.parts[1].name);
		CHECK(!strcmp(e4t_gpt_type_name(pt.parts[0].type_guid),
			      "Linux filesystem") &&
			      !strcmp(e4t_gpt_type_name(pt.parts[1].type_guid),
				      "Linux LVM"),
		      "GPT type names");
		e4t_guid_str(pt.disk_guid, g);
		CHECK(!strcmp(g, "a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf"),
		      "disk GUID %s", g);
	}
	e4t_parttable_free(&pt);

	/* the primary header's CRC broken: the backup, with a warning */
	b[0] = 0x11;
	put(fd, b, 1, 512 + 16);
	err = table(&pt, 'g');
	CHECK(!err && pt.scheme == E4T_PT_GPT && pt.nparts == 2 && nwarn == 1 &&
		      !strcmp(lastwarn, "GPT primary header checksum does not "
					"verify: the backup header at sector "
					"16383 is used"),
	      "GPT backup: err %ld warn %s", (long)err, lastwarn);
	e4t_parttable_free(&pt);
	/* and the backup's array too: nothing left */
	b[0] ^= 0xff;
	put(fd, b, 1, (16384 - 33) * 512ULL + 40);
	err = table(&pt, 'g');
	CHECK(err == E4T_ERR_PARTTABLE && pt.scheme == E4T_PT_NONE &&
		      nwarn == 1 && strstr(lastwarn, "and the backup"),
	      "GPT both bad: err %ld warn %s", (long)err, lastwarn);
	e4t_parttable_free(&pt);
	close(fd);

	/* 4096-byte sectors */
	fd = gpt_disk(4096, 8192, e, 1);
	err = table(&pt, 'p');
	CHECK(!err && pt.scheme == E4T_PT_GPT && pt.sector == 4096 &&
		      pt.nparts == 1 && pt.parts[0].start == 2048 * 4096ULL &&
		      pt.parts[0].length == 2048 * 4096ULL,
	      "GPT 4K: err %ld sector %u", (long)err, pt.sector);
	e4t_parttable_free(&pt);
	close(fd);

	/* an entry past the end of the disk */
	{
		const struct gent far[] = { { linux_fs, 40, 20000, NULL } };

		fd = gpt_disk(512, 2048, far, 1);
		CHECK(table(&pt, 'g') == 0 && pt.nparts == 1 &&
			      pt.parts[0].length == (2048 - 40) * 512ULL &&
			      nwarn == 1,
		      "GPT clipped: %s", lastwarn);
		e4t_parttable_free(&pt);
		close(fd);
	}
	{
		const struct gent far[] = { { linux_fs, 4000, 5000, NULL } };

		fd = gpt_disk(512, 2048, far, 1);
		CHECK(table(&pt, 'g') == E4T_ERR_PARTTABLE,
		      "GPT entry outside");
		e4t_parttable_free(&pt);
		close(fd);
	}

	/* a real MBR over a GPT: the GPT is stale, as Linux decides */
	{
		uint8_t m[512] = { 0 };

		fd = gpt_disk(512, 16384, e, 2);
		mbr_slot(m, 0, 0, 0x83, 2048, 2048);
		put(fd, m, 512, 0);
		CHECK(table(&pt, 'p') == 0 && pt.scheme == E4T_PT_MBR &&
			      pt.nparts == 1 && nwarn == 1 &&
			      strstr(lastwarn, "stale"),
		      "stale GPT: scheme %d warn %s", pt.scheme, lastwarn);
		e4t_parttable_free(&pt);
		CHECK(table(&pt, 'g') == 0 && pt.scheme == E4T_PT_GPT &&
			      pt.nparts == 2,
		      "e4t_gpt_read alone still reads it");
		e4t_parttable_free(&pt);
		close(fd);
	}

	e4t_guid_str((const uint8_t *)linux_fs, g);
	CHECK(!strcmp(g, "0fc63daf-8483-4772-8e79-3d69d8477de4"), "guid_str %s",
	      g);
	CHECK(!strcmp(e4t_mbr_type_name(0x83), "Linux") &&
		      !strcmp(e4t_mbr_type_name(0xee), "GPT protective") &&
		      !e4t_mbr_type_name(0x99),
	      "mbr type names");
}

/* sfdisk -d's lines: "img5 : start= 34816, size= 8192, type=83" */
struct dumped {
	unsigned number;
	unsigned long long start, size;
	char type[40], name[120];
};

/* sfdisk writes bytes other than printable ASCII as \xNN */
static void unescape(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	unsigned x;

	while (*in && *in != '"' && n + 1 < outsz) {
		if (in[0] == '\\' && in[1] == 'x' &&
		    sscanf(in + 2, "%2x", &x)) {
			out[n++] = (char)x;
			in += 4;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

static int sfdisk_dump(struct dumped *d, int max)
{
	char cmd[4200], line[1024];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C.UTF-8 sfdisk -d '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " : start="), *q;

		if (!p)
			continue;
		memset(&d[n], 0, sizeof(d[n]));
		q = p;
		while (q > line && q[-1] >= '0' && q[-1] <= '9')
			q--;
		d[n].number = (unsigned)atoi(q);
		if (sscanf(p, " : start= %llu, size= %llu, type=%39[^,\n]",
			   &d[n].start, &d[n].size, d[n].type) != 3)
			continue;
		q = strstr(p, "name=\"");
		if (q)
			unescape(q + 6, d[n].name, sizeof(d[n].name));
		n++;
	}
	pclose(f);
	return n;
}

static int run(const char *script, const char *args)
{
	char cmd[8400];

	snprintf(cmd, sizeof(cmd),
		 "printf '%s' | LC_ALL=C.UTF-8 sfdisk -q %s '%s' >/dev/null "
		 "2>&1",
		 script, args, path);
	return system(cmd);
}

/* Compare with what sfdisk -d says (extended containers left out) */
static void compare_sfdisk(const char *what, unsigned sector)
{
	struct dumped d[16];
	struct e4t_parttable pt;
	unsigned i, j = 0;
	int n = sfdisk_dump(d, 16);
	errcode_t err = table(&pt, 'p');

	CHECK(!err && n > 0, "%s: err %ld, sfdisk -d %d", what, (long)err, n);
	for (i = 0; !err && i < (unsigned)n; i++) {
		const struct e4t_part *p;

		if (!strcmp(d[i].type, "5") || !strcmp(d[i].type, "f"))
			continue;
		if (j >= pt.nparts) {
			CHECK(0, "%s: partition %u missing", what, d[i].number);
			break;
		}
		p = &pt.parts[j++];
		CHECK(p->number == d[i].number &&
			      p->start == d[i].start * sector &&
			      p->length == d[i].size * sector,
		      "%s: p%u at %llu+%llu, sfdisk p%u %llu+%llu", what,
		      p->number, (unsigned long long)p->start,
		      (unsigned long long)p->length, d[i].number, d[i].start,
		      d[i].size);
		if (pt.scheme == E4T_PT_GPT) {
			char g[37];

			e4t_guid_str(p->type_guid, g);
			CHECK(!strcasecmp(g, d[i].type) &&
				      !strcmp(p->name, d[i].name),
			      "%s: p%u type %s name %s, sfdisk %s %s", what,
			      p->number, g, p->name, d[i].type, d[i].name);
		} else {
			CHECK(p->mbr_type == strtoul(d[i].type, NULL, 16),
			      "%s: p%u type %x, sfdisk %s", what, p->number,
			      p->mbr_type, d[i].type);
		}
	}
	CHECK(!err && j == pt.nparts, "%s: %u parts, sfdisk %u", what,
	      pt.nparts, j);
	e4t_parttable_free(&pt);
}

static void test_sfdisk(void)
{
	struct e4t_parttable pt;
	int fd;

	if (system("command -v sfdisk >/dev/null 2>&1")) {
		printf("SKIP: sfdisk not installed\n");
		return;
	}
	close(disk(64 << 20));
	CHECK(!run("label: dos\\nlabel-id: 0x12345678\\n"
		   "start=2048, size=20480, type=83\\n"
		   "start=22528, size=10240, type=82\\n"
		   "start=32768, size=65536, type=5\\n"
		   "start=34816, size=8192, type=83\\n"
		   "start=45056, size=16384, type=8e\\n",
		   ""),
	      "sfdisk dos");
	compare_sfdisk("sfdisk dos", 512);
	CHECK(!table(&pt, 'p') && pt.mbr_id == 0x12345678, "sfdisk label-id");
	e4t_parttable_free(&pt);

	close(disk(64 << 20));
	CHECK(!run("label: gpt\\n"
		   "label-id: 01234567-89AB-CDEF-0123-456789ABCDEF\\n"
		   "start=2048, size=20480, type=0FC63DAF-8483-4772-8E79-"
		   "3D69D8477DE4, name=\"root fs\"\\n"
		   "start=22528, size=40960, type=E6D6D379-F507-44C2-A23C-"
		   "238F2A3DF928, name=\"data\"\\n",
		   ""),
	      "sfdisk gpt");
	/* a non-ASCII name (sfdisk takes it with --part-label only) */
	CHECK(!system("LC_ALL=C.UTF-8 sfdisk -q --part-label "
		      "\"$E4T_UNIT_DISK\" 2 'Donn\xc3\xa9"
		      "es \xe6\x97\xa5\xe6\x9c\xac' >/dev/null 2>&1"),
	      "sfdisk --part-label");
	compare_sfdisk("sfdisk gpt", 512);
	CHECK(!table(&pt, 'p') && pt.nparts == 2 &&
		      !strcmp(pt.parts[1].name, "Donn\xc3\xa9"
						"es \xe6\x97\xa5\xe6\x9c\xac"),
	      "sfdisk non-ASCII name");
	e4t_parttable_free(&pt);

	/* fdisk makes 4096-byte-sector tables (sfdisk 2.38 cannot) */
	fd = disk(64 << 20);
	close(fd);
	if (system("command -v fdisk >/dev/null 2>&1")) {
		printf("SKIP: fdisk not installed\n");
		return;
	}
	CHECK(!system("printf 'g\\nn\\n1\\n256\\n+8M\\nw\\n' | fdisk -b 4096 "
		      "\"$E4T_UNIT_DISK\" >/dev/null 2>&1"),
	      "fdisk -b 4096");
	CHECK(!table(&pt, 'p') && pt.scheme == E4T_PT_GPT &&
		      pt.sector == 4096 && pt.nparts == 1 &&
		      pt.parts[0].start == 256 * 4096ULL &&
		      pt.parts[0].length == 8 << 20 && nwarn == 0,
	      "fdisk 4K GPT: sector %u n %u warn %s", pt.sector, pt.nparts,
	      lastwarn);
	e4t_parttable_free(&pt);
}

/* A disk of size bytes holding buf at off. */
static void head(const void *buf, size_t len, size_t off, uint64_t size)
{
	int fd = disk(size);

	put(fd, buf, len, off);
	close(fd);
}

static void expect(enum e4t_content c, const char *name, const char *what)
{
	struct e4t_probe pr;
	errcode_t err = probe(&pr);

	CHECK(!err && pr.content == c && !strcmp(pr.name, name),
	      "probe %s: err %ld content %d name %s", what, (long)err,
	      pr.content, pr.name);
}

static void test_probe(const char *top)
{
	uint8_t s[512];
	struct e4t_probe pr;
	char cmd[8400];
	static const uint8_t le_ub[8] = { 0x0c, 0xb1, 0xba, 0 };
	static const uint8_t md[4] = { 0xfc, 0x4e, 0x2b, 0xa9 };

	head("", 0, 0, 1 << 20);
	expect(E4T_FS_EMPTY, "empty", "zeros");
	head("x", 1, 100, 1 << 20);
	expect(E4T_FS_UNKNOWN, "unknown", "unknown");
	head("LUKS\xba\xbe\0\x02", 8, 0, 1 << 20);
	expect(E4T_FS_LUKS2, "LUKS2", "LUKS2");
	head("LUKS\xba\xbe\0\x01", 8, 0, 1 << 20);
	expect(E4T_FS_LUKS1, "LUKS1", "LUKS1");
	head("LABELONE\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0LVM2 001", 32, 512,
	     1 << 20);
	expect(E4T_FS_LVM_PV, "LVM2_member", "LVM2");
	head("\xeb\x58\x90-FVE-FS-", 11, 0, 1 << 20);
	expect(E4T_FS_BITLOCKER, "BitLocker", "BitLocker");
	head("XFSB", 4, 0, 1 << 20);
	expect(E4T_FS_XFS, "XFS", "XFS");
	head("_BHRfS_M", 8, 65536 + 64, 1 << 20);
	expect(E4T_FS_BTRFS, "btrfs", "btrfs");
	head("hsqs", 4, 0, 1 << 20);
	expect(E4T_FS_SQUASHFS, "squashfs", "squashfs");
	head("\xeb\x52\x90NTFS    ", 11, 0, 1 << 20);
	expect(E4T_FS_NTFS, "NTFS", "NTFS");
	head("\xeb\x76\x90"
	     "EXFAT   ",
	     11, 0, 1 << 20);
	expect(E4T_FS_EXFAT, "exFAT", "exFAT");
	head("CD001", 5, 32769, 1 << 20);
	expect(E4T_FS_ISO9660, "iso9660", "ISO 9660");
	head("SWAPSPACE2", 10, 4086, 1 << 20);
	expect(E4T_FS_SWAP, "swap", "swap");
	head("SWAPSPACE2", 10, 65526, 1 << 20);
	expect(E4T_FS_SWAP, "swap", "swap 64K pages");
	head(le_ub, 8, 128 * 1024 + 3 * 1024, 1 << 20);
	expect(E4T_FS_ZFS, "zfs_member", "ZFS");
	head(md, 4, 4096, 1 << 20);
	expect(E4T_FS_MDRAID, "linux_raid_member", "md 1.2");
	head(md, 4, (1 << 20) - 65536, 1 << 20);
	expect(E4T_FS_MDRAID, "linux_raid_member", "md 0.90");
	head("EFI PART", 8, 512, 1 << 20);
	expect(E4T_FS_PARTTABLE, "GPT", "GPT");
	/* FAT32 with a BPB; and the same sector without it is an MBR */
	memset(s, 0, sizeof(s));
	s[11] = 0;
	s[12] = 2;  /* 512 bytes per sector */
	s[13] = 8;  /* sectors per cluster */
	s[14] = 32; /* reserved sectors */
	s[16] = 2;  /* FATs */
	memcpy(s + 71, "MYLABEL    ", 11);
	memcpy(s + 82, "FAT32   ", 8);
	mbr_slot(s, 0, 0, 0, 0, 0);
	head(s, 512, 0, 1 << 20);
	expect(E4T_FS_FAT, "FAT", "FAT32");
	CHECK(!probe(&pr) && !strcmp(pr.label, "MYLABEL"), "FAT label %s",
	      pr.label);
	memset(s, 0, sizeof(s));
	mbr_slot(s, 0, 0x80, 0x83, 2048, 100);
	head(s, 512, 0, 1 << 20);
	expect(E4T_FS_PARTTABLE, "MBR", "MBR");
	head("LUKS", 4, 0, 100); /* shorter than the offsets */
	expect(E4T_FS_UNKNOWN, "unknown", "short view");
	head("", 0, 0, 0);
	expect(E4T_FS_EMPTY, "empty", "zero-length view");

	/* ext4 and an external journal: the heads of images/ */
	snprintf(cmd, sizeof(cmd),
		 "xz -dc '%s/images/ext4-4k.img.xz' | head -c 131072 > '%s'",
		 top, path);
	if (!system(cmd)) {
		expect(E4T_FS_EXT, "ext4", "ext4-4k");
		CHECK(!probe(&pr) && strlen(pr.uuid) == 36 && pr.wtime > 0,
		      "ext4 uuid %s wtime %lld", pr.uuid, (long long)pr.wtime);
	} else {
		CHECK(0, "cannot unpack ext4-4k");
	}
	snprintf(cmd, sizeof(cmd),
		 "xz -dc '%s/images/churn-extjournal-clean-jdev.img.xz' | "
		 "head -c 131072 > '%s'",
		 top, path);
	if (!system(cmd))
		expect(E4T_FS_JOURNAL_DEV, "jbd", "journal device");
	else
		CHECK(0, "cannot unpack churn-extjournal-clean-jdev");
	/* ext2 (no journal, no ext4 feature): a hand-made superblock */
	{
		uint8_t sb[1024] = { 0 };

		sb[56] = 0x53;
		sb[57] = 0xef;
		memcpy(sb + 120, "lbl", 3);
		head(sb, sizeof(sb), 1024, 1 << 20);
		expect(E4T_FS_EXT, "ext2", "ext2");
		sb[92] = 4; /* has_journal */
		head(sb, sizeof(sb), 1024, 1 << 20);
		expect(E4T_FS_EXT, "ext3", "ext3");
		CHECK(!probe(&pr) && !strcmp(pr.label, "lbl"), "ext label");
	}
	CHECK(!strcmp(e4t_content_advice(E4T_FS_SWAP),
		      "swap space, no filesystem"),
	      "advice");
}

int main(void)
{
	const char *top = getenv("TOP_SRCDIR"), *tmp = getenv("TMPDIR");

	if (!top)
		top = ".";
	if (!tmp)
		tmp = "/tmp";
	snprintf(path, sizeof(path), "%s/e4time-unit-parttable.%ld.img", tmp,
		 (long)getpid());
	setenv("E4T_UNIT_DISK", path, 1);
	test_mbr();
	test_gpt();
	test_sfdisk();
	test_probe(top);
	unlink(path);
	return unit_report("unit_parttable");
}
