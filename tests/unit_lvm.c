/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_lvm.c --- lvm.c on physical volumes made two ways:
 *  - by hand, here: label, PV header, metadata area and text, for what
 *    the tools do not write at will (text wrapping at a chosen place, a
 *    bad checksum, malformed text, a striped, thin, internal LV, a
 *    segment on a PV the VG does not list);
 *  - by the lvm tools on loop devices (tests/lvm_fixture.sh), compared
 *    with what vgs, pvs and lvs --segments say.  Without the tools, root
 *    or loop devices those checks are skipped, with a SKIP line.
 * E4T_LVM_DUMP=DIR writes the hand-made PVs there (seeds for
 * tests/fuzz/corpus/lvm/).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"
#include "unit.h"

#define IMG_SIZE (20 * 1024)
#define MDA_OFF	 4096

static char warnings[8192];
static unsigned nwarnings;

static void collect(void *arg, const char *msg)
{
	size_t n = strlen(warnings);

	(void)arg;
	nwarnings++;
	snprintf(warnings + n, sizeof(warnings) - n, "%s\n", msg);
}

static void reset_warnings(void)
{
	warnings[0] = '\0';
	nwarnings = 0;
}

/* CRC-32 bit by bit (lvm2's calc_crc computes it by nibbles): reflected,
 * polynomial 0xedb88320, no final inversion. */
static uint32_t crc_bits(uint32_t crc, const unsigned char *p, size_t len)
{
	unsigned k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1)));
	}
	return crc;
}

static void put32(unsigned char *p, uint32_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

struct pvspec {
	const char *text;
	uint64_t mda_size; /* bytes */
	uint64_t text_off; /* from the area's start */
	int bad_crc;
	int orphan;
};

/* A PV of IMG_SIZE bytes: label in sector 1, one metadata area at 4096. */
static void build_pv(unsigned char *img, const struct pvspec *s)
{
	unsigned char *l = img + 512, *h = img + MDA_OFF;
	size_t len = strlen(s->text) + 1, first, i;
	uint64_t area = s->mda_size;

	memset(img, 0, IMG_SIZE);
	memcpy(l, "LABELONE", 8);
	put64(l + 8, 1);
	put32(l + 20, 32);
	memcpy(l + 24, "LVM2 001", 8);
	memcpy(l + 32, "abcdefGHIJKLmnopQRSTuvwxYZ012345", 32);
	put64(l + 64, 64 << 20);
	put64(l + 72, 1 << 20); /* data area from 1 MiB */
	put64(l + 104, MDA_OFF);
	put64(l + 112, area);
	put32(l + 16, crc_bits(0xf597a6cf, l + 20, 512 - 20));

	memcpy(h + 4, " LVM2 x[5A%r0N*>", 16);
	put32(h + 20, 1);
	put64(h + 24, MDA_OFF);
	put64(h + 32, area);
	if (!s->orphan) {
		put64(h + 40, s->text_off);
		put64(h + 48, len);
		put32(h + 56, crc_bits(0xf597a6cf,
				       (const unsigned char *)s->text, len) ^
				      (s->bad_crc ? 1 : 0));
	}
	put32(h, crc_bits(0xf597a6cf, h + 4, 512 - 4));
	if (s->orphan)
		return;
	first = area - s->text_off < len ? area - s->text_off : len;
	memcpy(h + s->text_off, s->text, first);
	for (i = first; i < len; i++)
		h[512 + i - first] = (unsigned char)s->text[i];
}

static errcode_t read_buf(const unsigned char *img, size_t size,
			  struct e4t_lvm *lvm, int *found, const char *dump)
{
	char path[] = "/tmp/unit_lvm.XXXXXX";
	struct e4t_container *c;
	struct e4t_view v;
	const char *dir = getenv("E4T_LVM_DUMP");
	errcode_t err;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, img, size) != (ssize_t)size) {
		perror("unit_lvm: temporary file");
		exit(1);
	}
	close(fd);
	if (dir && dump) {
		char out[4096];
		FILE *f;

		snprintf(out, sizeof(out), "%s/%s", dir, dump);
		f = fopen(out, "wb");
		if (f) {
			fwrite(img, 1, size, f);
			fclose(f);
		}
	}
	reset_warnings();
	err = e4t_raw_open(path, &c);
	unlink(path);
	if (err)
		return err;
	memset(&v, 0, sizeof(v));
	v.c = c;
	v.size = c->size;
	err = e4t_lvm_read(&v, lvm, found, collect, NULL);
	e4t_container_close(c);
	return err;
}

static const struct e4t_lvm_lv *lv_named(const struct e4t_lvm *lvm,
					 const char *name)
{
	unsigned i;

	for (i = 0; i < lvm->nlvs; i++)
		if (!strcmp(lvm->lvs[i].name, name))
			return &lvm->lvs[i];
	return NULL;
}

static int refused_with(const struct e4t_lvm_lv *lv, const char *what)
{
	return lv && lv->refused && strstr(lv->refused, what);
}

static const char vg_text[] =
	"# made by unit_lvm\n"
	"vg0 {\n"
	"id = \"K0jiOf-8FWA-e3Gp-FRef-NivH-2aKg-JHTvaL\"\n"
	"seqno = 7\n"
	"format = \"lvm2\" # a comment\n"
	"status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\n"
	"flags = []\n"
	"extent_size = 8192\n"
	"physical_volumes {\n"
	"pv0 {\n"
	"id = \"abcdef-GHIJ-KLmn-opQR-STuv-wxYZ-012345\"\n"
	"device = \"/dev/odd \\\"name\\\\\"\n"
	"status = [\"ALLOCATABLE\"]\n"
	"dev_size = 131072\n"
	"pe_start = 2048\n"
	"pe_count = 15\n"
	"}\n"
	"pv1 {\n"
	"id = \"zzzzzz-zzzz-zzzz-zzzz-zzzz-zzzz-zzzzzz\"\n"
	"pe_start = 2048\n"
	"pe_count = 7\n"
	"}\n"
	"}\n"
	"logical_volumes {\n"
	"root {\n"
	"id = \"2BFL8J-kOfO-tBGB-iqLX-DCFu-GEdu-fKyFCO\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
	"segment_count = 2\n"
	"segment2 {\n"
	"start_extent = 2\n"
	"extent_count = 2\n"
	"type = \"striped\"\n"
	"stripe_count = 1\n"
	"stripes = [\n\"pv0\", 3\n]\n"
	"}\n"
	"segment1 {\n"
	"start_extent = 0\n"
	"extent_count = 2\n"
	"type = \"striped\"\n"
	"stripe_count = 1 # linear\n"
	"stripes = [\"pv0\", 0]\n"
	"}\n"
	"}\n"
	"stripe {\n"
	"id = \"ZF8KGB-pyy6-571M-UoCk-oWG2-ClaY-uUtbmy\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
	"segment_count = 1\n"
	"segment1 {\n"
	"start_extent = 0\n"
	"extent_count = 4\n"
	"type = \"striped\"\n"
	"stripe_count = 2\n"
	"stripe_size = 128\n"
	"stripes = [\"pv0\", 11, \"pv1\", 2]\n"
	"}\n"
	"}\n"
	"thin1 {\n"
	"id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
	"segment_count = 1\n"
	"segment1 {\n"
	"start_extent = 0\n"
	"extent_count = 1\n"
	"type = \"thin\"\n"
	"thin_pool = \"pool\"\n"
	"transaction_id = 1\n"
	"device_id = 1\n"
	"}\n"
	"}\n"
	"pool_tmeta {\n"
	"id = \"bbbbbb-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\"]\n"
	"segment_count = 1\n"
	"segment1 {\n"
	"start_extent = 0\n"
	"extent_count = 1\n"
	"type = \"striped\"\n"
	"stripe_count = 1\n"
	"stripes = [\"pv0\", 2]\n"
	"}\n"
	"}\n"
	"lost {\n"
	"id = \"cccccc-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
	"segment_count = 1\n"
	"segment1 {\n"
	"start_extent = 0\n"
	"extent_count = 1\n"
	"type = \"striped\"\n"
	"stripe_count = 1\n"
	"stripes = [\"pv9\", 0]\n"
	"}\n"
	"}\n"
	"}\n"
	"}\n"
	"contents = \"Text Format Volume Group\"\n"
	"version = 1\n"
	"description = \"\"\n"
	"creation_time = 1796396011\t# Fri Dec  4 14:53:31 2026\n";

static void check_vg0(const struct e4t_lvm *lvm, const char *what)
{
	const struct e4t_lvm_lv *lv;

	CHECK(!strcmp(lvm->pv_uuid, "abcdef-GHIJ-KLmn-opQR-STuv-wxYZ-012345"),
	      "%s: pv_uuid %s", what, lvm->pv_uuid);
	CHECK(lvm->pv_size == 64 << 20, "%s: pv_size", what);
	CHECK(lvm->vg_name && !strcmp(lvm->vg_name, "vg0"), "%s: vg_name",
	      what);
	CHECK(lvm->vg_uuid && !strcmp(lvm->vg_uuid,
				      "K0jiOf-8FWA-e3Gp-FRef-NivH-2aKg-JHTvaL"),
	      "%s: vg_uuid", what);
	CHECK(lvm->seqno == 7, "%s: seqno", what);
	CHECK(lvm->extent_size == 4 << 20, "%s: extent_size %" PRIu64, what,
	      lvm->extent_size);
	CHECK(lvm->npvs == 2 && !strcmp(lvm->pvs[0].name, "pv0") &&
		      lvm->pvs[0].pe_start == 1 << 20 &&
		      lvm->pvs[0].pe_count == 15 &&
		      !strcmp(lvm->pvs[1].uuid,
			      "zzzzzz-zzzz-zzzz-zzzz-zzzz-zzzz-zzzzzz"),
	      "%s: pvs", what);
	CHECK(lvm->nlvs == 5, "%s: %u LVs", what, lvm->nlvs);
	lv = lv_named(lvm, "root");
	CHECK(lv && !lv->refused && lv->nsegs == 2 &&
		      lv->segs[0].lstart_ext == 0 && lv->segs[0].extents == 2 &&
		      lv->segs[0].pv_start_ext == 0 &&
		      lv->segs[1].lstart_ext == 2 &&
		      lv->segs[1].pv_start_ext == 3 &&
		      !strcmp(lv->segs[1].pv, "pv0") &&
		      lv->segs[1].stripes == 1 &&
		      !strcmp(lv->segs[1].type, "striped"),
	      "%s: root, segments sorted", what);
	lv = lv_named(lvm, "stripe");
	CHECK(refused_with(lv, "striped LV (2 stripes): e4time reads linear "
			       "LVs only"),
	      "%s: stripe refused: %s", what, lv ? lv->refused : "(none)");
	CHECK(refused_with(lv_named(lvm, "thin1"), "thin LV"),
	      "%s: thin refused", what);
	CHECK(refused_with(lv_named(lvm, "pool_tmeta"), "internal LV"),
	      "%s: internal refused", what);
	lv = lv_named(lvm, "lost");
	CHECK(refused_with(lv, "pv9"), "%s: pv9 refused: %s", what,
	      lv ? lv->refused : "(none)");
}

static void test_handmade(void)
{
	static unsigned char img[IMG_SIZE];
	struct pvspec s = { vg_text, 16384, 1024, 0, 0 };
	struct e4t_lvm lvm;
	errcode_t err;
	int found;

	/* the CRC: lvm2's by nibbles against this one by bits, on a
	 * label the tools wrote (tests/lvm_fixture.sh) */
	CHECK(crc_bits(0xf597a6cf, (const unsigned char *)"", 0) == 0xf597a6cf,
	      "crc of nothing");

	memset(img, 0, sizeof(img));
	err = read_buf(img, sizeof(img), &lvm, &found, NULL);
	CHECK(!err && !found, "zeros: no label (%ld, found %d)", (long)err,
	      found);
	e4t_lvm_free(&lvm);
	err = read_buf(img, 700, &lvm, &found, NULL);
	CHECK(!err && !found, "a short image: no label");

	build_pv(img, &s);
	err = read_buf(img, sizeof(img), &lvm, &found, "linear");
	CHECK(!err && found && !nwarnings, "hand-made PV: %ld, %s", (long)err,
	      warnings);
	check_vg0(&lvm, "hand-made");
	e4t_lvm_free(&lvm);

	s.text_off = s.mda_size - 1000; /* wraps after 1000 bytes */
	build_pv(img, &s);
	err = read_buf(img, sizeof(img), &lvm, &found, "wrap");
	CHECK(!err && found && !nwarnings, "wrapped text: %ld, %s", (long)err,
	      warnings);
	check_vg0(&lvm, "wrapped");
	e4t_lvm_free(&lvm);

	s.bad_crc = 1;
	build_pv(img, &s);
	err = read_buf(img, sizeof(img), &lvm, &found, "bad-crc");
	CHECK(!err && found && nwarnings == 1 && strstr(warnings, "checksum"),
	      "bad text checksum: one warning: %s", warnings);
	check_vg0(&lvm, "bad checksum");
	e4t_lvm_free(&lvm);
	s.bad_crc = 0;

	s.orphan = 1;
	build_pv(img, &s);
	err = read_buf(img, sizeof(img), &lvm, &found, "orphan");
	CHECK(!err && found && !lvm.vg_name && !lvm.nlvs && !nwarnings,
	      "orphan PV");
	e4t_lvm_free(&lvm);
	s.orphan = 0;

	/* the label's checksum */
	build_pv(img, &s);
	img[512 + 500] ^= 1; /* unused, but checksummed */
	err = read_buf(img, sizeof(img), &lvm, &found, NULL);
	CHECK(!err && found && strstr(warnings, "label in sector 1"),
	      "bad label checksum warns: %s", warnings);
	e4t_lvm_free(&lvm);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"vg0 {\nid = \"x\"\n",		   /* no '}' */
		"vg0 {\nid = \"x\nseqno = 1\n}\n", /* unterminated string */
		"vg0 {\nid = [\"a\", 1\n}\n",	   /* unterminated list */
		"vg0 {\nid = \n}\n",		   /* no value */
		"vg0 {\nid \"x\"\n}\n",		   /* no '=' */
		"}\n",				   /* stray '}' */
		"vg0 {\nseqno = 99999999999999999999\n}\n", /* overflow */
		"vg0 {\nseqno = 12ab\n}\n",
		"version = 1\n", /* no VG section */
		"vg0 {\nseqno = 1\nextent_size = 8192\n"
		"physical_volumes {\n}\n}\n", /* no id */
		"vg0 {\nid = \"x\"\nseqno = 1\nextent_size = 0\n"
		"physical_volumes {\n}\n}\n",
		"vg0 {\nid = \"x\"\nseqno = 1\nextent_size = 8\n}\n",
		"vg0 {\nid = \"x\"\nseqno = 1\nextent_size = 8\n"
		"physical_volumes {\npv0 {\nid = \"y\"\npe_count = "
		"1\n}\n}\n}\n",
		"vg0 {\nid = \"x\"\nseqno = 1\nextent_size = 8\n"
		"physical_volumes {\npv0 {\nid = \"y\"\npe_start = 1\n"
		"pe_count = 1\n}\n}\nlogical_volumes {\nlv {\nid = \"z\"\n"
		"segment_count = 1\nsegment1 {\nstart_extent = 0\n"
		"extent_count = 1\ntype = \"striped\"\nstripe_count = 2\n"
		"stripes = [\"pv0\", 0]\n}\n}\n}\n}\n",
	};
	static unsigned char img[IMG_SIZE];
	char deep[32 * 8 + 100] = "";
	struct pvspec s = { NULL, 16384, 512, 0, 0 };
	struct e4t_lvm lvm;
	errcode_t err;
	unsigned i;
	int found;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char name[32];

		s.text = bad[i];
		build_pv(img, &s);
		snprintf(name, sizeof(name), "malformed-%u", i);
		err = read_buf(img, sizeof(img), &lvm, &found,
			       i % 4 ? NULL : name);
		CHECK(err == E4T_ERR_LVM && found && nwarnings >= 1 &&
			      !lvm.nlvs && !lvm.vg_name,
		      "malformed text %u: %ld, %s", i, (long)err, warnings);
		CHECK(i >= 8 || strstr(warnings, "line "),
		      "malformed text %u: the line in %s", i, warnings);
		e4t_lvm_free(&lvm);
	}
	for (i = 0; i < 33; i++)
		strcat(deep, "a{\n");
	for (i = 0; i < 33; i++)
		strcat(deep, "}\n");
	s.text = deep;
	build_pv(img, &s);
	err = read_buf(img, sizeof(img), &lvm, &found, NULL);
	CHECK(err == E4T_ERR_LVM && strstr(warnings, "deeper"), "33 levels: %s",
	      warnings);
	e4t_lvm_free(&lvm);
}

/* ------------------------------------------------------------------ */
/* Real PVs, written by the lvm tools                                  */
/* ------------------------------------------------------------------ */

static const struct e4t_lvm_pv *pv_by_uuid(const struct e4t_lvm *lvm,
					   const char *uuid)
{
	unsigned i;

	for (i = 0; i < lvm->npvs; i++)
		if (!strcmp(lvm->pvs[i].uuid, uuid))
			return &lvm->pvs[i];
	return NULL;
}

static int read_file(const char *dir, const char *name, struct e4t_lvm *lvm)
{
	char path[4096];
	struct e4t_container *c;
	struct e4t_view v;
	errcode_t err;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	reset_warnings();
	err = e4t_raw_open(path, &c);
	CHECK(!err, "open %s", path);
	if (err)
		return -1;
	memset(&v, 0, sizeof(v));
	v.c = c;
	v.size = c->size;
	err = e4t_lvm_read(&v, lvm, &found, collect, NULL);
	e4t_container_close(c);
	CHECK(!err && found && !nwarnings, "%s: %ld, found %d, warnings: %s",
	      name, (long)err, found, warnings);
	return err || !found ? -1 : 0;
}

/* Split line at ',' into at most n fields. */
static unsigned split(char *line, char **f, unsigned n)
{
	unsigned k = 0;

	line[strcspn(line, "\n")] = '\0';
	while (k < n) {
		f[k++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = '\0';
	}
	return k;
}

/* Each image of pvs.txt against its own label and the VG, each line of
 * vgs.txt and lvs.txt against what both PVs' metadata says. */
static void compare(const char *dir)
{
	char path[4096], line[1024], *f[8];
	struct e4t_lvm lvm[2];
	const char *img[2] = { "pv0.img", "pv1.img" };
	FILE *fp;
	unsigned i, nlines = 0;

	if (read_file(dir, img[0], &lvm[0]))
		return;
	if (read_file(dir, img[1], &lvm[1])) {
		e4t_lvm_free(&lvm[0]);
		return;
	}
	snprintf(path, sizeof(path), "%s/vgs.txt", dir);
	fp = fopen(path, "r");
	if (fp && fgets(line, sizeof(line), fp) && split(line, f, 4) == 4) {
		for (i = 0; i < 2; i++) {
			CHECK(!strcmp(lvm[i].vg_name, f[0]) &&
				      !strcmp(lvm[i].vg_uuid, f[1]) &&
				      lvm[i].seqno ==
					      strtoull(f[2], NULL, 10) &&
				      lvm[i].extent_size ==
					      strtoull(f[3], NULL, 10),
			      "%s: VG %s %s seqno %" PRIu64 " extent %" PRIu64
			      " against vgs %s,%s,%s,%s",
			      img[i], lvm[i].vg_name, lvm[i].vg_uuid,
			      lvm[i].seqno, lvm[i].extent_size, f[0], f[1],
			      f[2], f[3]);
			nlines++;
		}
	}
	if (fp)
		fclose(fp);
	snprintf(path, sizeof(path), "%s/pvs.txt", dir);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		const struct e4t_lvm_pv *pv;

		if (split(line, f, 5) != 5)
			continue;
		i = !strcmp(f[0], img[1]);
		pv = pv_by_uuid(&lvm[0], f[1]);
		CHECK(!strcmp(lvm[i].pv_uuid, f[1]),
		      "%s: label uuid %s, pvs %s", f[0], lvm[i].pv_uuid, f[1]);
		CHECK(lvm[i].pv_size == strtoull(f[4], NULL, 10),
		      "%s: size %" PRIu64 ", pvs %s", f[0], lvm[i].pv_size,
		      f[4]);
		CHECK(pv && pv->pe_start == strtoull(f[2], NULL, 10) &&
			      pv->pe_count == strtoull(f[3], NULL, 10),
		      "%s: pe_start, pe_count against pvs %s,%s", f[0], f[2],
		      f[3]);
		nlines++;
	}
	if (fp)
		fclose(fp);
	snprintf(path, sizeof(path), "%s/lvs.txt", dir);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		const struct e4t_lvm_lv *lv;
		const struct e4t_lvm_seg *seg = NULL;
		uint64_t start, size;
		unsigned stripes, k;
		char range[256], *colon;
		unsigned long long first = 0, last = 0;

		if (split(line, f, 7) != 7)
			continue;
		nlines++;
		lv = lv_named(&lvm[0], f[0]);
		CHECK(lv && !strcmp(lv->uuid, f[1]), "lv %s: uuid", f[0]);
		if (!lv)
			continue;
		start = strtoull(f[2], NULL, 10);
		size = strtoull(f[3], NULL, 10);
		stripes = (unsigned)strtoul(f[5], NULL, 10);
		for (k = 0; k < lv->nsegs; k++)
			if (lv->segs[k].lstart_ext == start)
				seg = &lv->segs[k];
		CHECK(seg && seg->extents == size && seg->stripes == stripes,
		      "lv %s: segment at %" PRIu64 " of %" PRIu64
		      " extents, %u stripes",
		      f[0], start, size, stripes);
		if (!seg)
			continue;
		if (!strcmp(f[4], "linear")) {
			CHECK(!lv->refused, "lv %s refused: %s", f[0],
			      lv->refused);
		} else {
			CHECK(refused_with(lv, "striped LV (2 stripes)"),
			      "lv %s (%s): refused %s", f[0], f[4],
			      lv->refused ? lv->refused : "(no)");
		}
		/* the first stripe: "pv0.img:5-10 pv1.img:..." */
		snprintf(range, sizeof(range), "%s", f[6]);
		range[strcspn(range, " ")] = '\0';
		colon = strchr(range, ':');
		CHECK(colon && sscanf(colon + 1, "%llu-%llu", &first, &last) ==
				       2,
		      "lv %s: range %s", f[0], f[6]);
		if (!colon)
			continue;
		*colon = '\0';
		i = !strcmp(range, img[1]);
		{
			const struct e4t_lvm_pv *pv =
				pv_by_uuid(&lvm[0], lvm[i].pv_uuid);

			CHECK(pv && seg->pv && !strcmp(pv->name, seg->pv) &&
				      seg->pv_start_ext == first &&
				      (stripes > 1 ||
				       last - first + 1 == seg->extents),
			      "lv %s: on %s (%s) from %" PRIu64 ", lvs says %s",
			      f[0], seg->pv ? seg->pv : "?", range,
			      seg->pv_start_ext, f[6]);
		}
	}
	if (fp)
		fclose(fp);
	CHECK(nlines >= 10, "%u lines of vgs, pvs, lvs compared", nlines);
	/* both PVs carry the same metadata */
	CHECK(lvm[0].nlvs == lvm[1].nlvs && lvm[0].seqno == lvm[1].seqno,
	      "pv0 and pv1 agree");
	e4t_lvm_free(&lvm[0]);
	e4t_lvm_free(&lvm[1]);
}

static void check_small(const char *dir, const char *name)
{
	struct e4t_lvm lvm;
	unsigned i, linear2 = 0;

	if (read_file(dir, name, &lvm))
		return;
	CHECK(lvm.nlvs == 2 && lvm.extent_size == 1 << 20 && lvm.npvs == 1 &&
		      lvm.pvs[0].pe_start == 65536,
	      "%s: 2 LVs, 1 MiB extents, pe_start 64 KiB", name);
	for (i = 0; i < lvm.nlvs; i++)
		if (lvm.lvs[i].nsegs == 2 && !lvm.lvs[i].refused &&
		    lvm.lvs[i].segs[1].lstart_ext == 2 &&
		    lvm.lvs[i].segs[1].pv_start_ext == 3)
			linear2++;
	CHECK(linear2 == 1, "%s: a in two segments", name);
	e4t_lvm_free(&lvm);
}

static void test_tools(void)
{
	const char *top = getenv("TOP_SRCDIR");
	char dir[] = "/tmp/unit_lvm.d.XXXXXX", cmd[8192];
	int rc;

	if (!top)
		top = ".";
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s/tests/lvm_fixture.sh", top);
	if (access(cmd, R_OK)) { /* a tarball without it (EXTRA_DIST) */
		printf("SKIP: unit_lvm: no %s\n", cmd);
		rmdir(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "bash '%s/tests/lvm_fixture.sh' '%s'", top,
		 dir);
	fflush(stdout);
	rc = system(cmd);
	rc = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	if (rc == 77) {
		printf("SKIP: unit_lvm: PVs written by the lvm tools\n");
	} else {
		CHECK(rc == 0, "tests/lvm_fixture.sh failed (%d)", rc);
		if (rc == 0) {
			compare(dir);
			check_small(dir, "small.img");
			check_small(dir, "wrap.img");
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("unit_lvm: cannot remove %s\n", dir);
}

int main(void)
{
	test_handmade();
	test_malformed();
	test_tools();
	return unit_report("unit_lvm");
}
