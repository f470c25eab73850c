/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * image.c --- whole-image reads on a small image damaged by the input:
 * what stat (e4t_image_resolve, e4t_image_read_inode), timeline (the
 * tree: e4t_tree_load with deleted inodes, e4t_tree_walk,
 * e4t_tree_inode, e4t_xattr_get_first) and journal, audit and history
 * (check_journal.h) call, each result checked.
 *
 * The images are small images of images/, decompressed once per
 * process into unlinked temporary files; each input patches one and the
 * patches are undone after it.  Patches land in the metadata areas that
 * tests/damage_gen.h finds (superblock, group descriptors, inode-table
 * blocks in use, directory, extent-tree and xattr blocks, the journal's
 * first blocks):
 *
 *	byte 0		bits 0-1: the image (ext4-1k-inline, ext4-128,
 *			churn-fastcommit-live, samba-dosattrib); bit 7:
 *			fix the checksums of the areas patched afterwards
 *			(so that the damage reaches the parsers); bits 5
 *			and 6 both set: truncate the image
 *	[u16]		with truncation: where, in 1/65536 of the image
 *	then records	u16 area (modulo their number), u16 offset (modulo
 *			the area's length), u8 length, that many bytes
 *			(fewer at the end of the input); little-endian
 *
 * Needs $TOP_SRCDIR (make check and make fuzz set it) and xz.
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/e4time.h"
#include "tests/damage_gen.h"
#include "fuzz.h"
#include "check_journal.h"

struct ibase {
	const char *name;
	char path[64], pristine_path[64];
	int fd, pristine;
	uint8_t *orig;
	uint64_t size;
	ext2_filsys fs; /* on the pristine copy: checksum fix-ups */
	struct dmg_areas areas;
	int ready;
};

static struct ibase bases[] = {
	{ .name = "ext4-1k-inline" },
	{ .name = "ext4-128" },
	{ .name = "churn-fastcommit-live" },
	{ .name = "samba-dosattrib" },
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

struct range {
	uint64_t off, len;
};
static struct range *patched;
static size_t npatched, patched_cap;

static void base_init(struct ibase *b)
{
	struct stat st;

	b->fd = fuzz_unpack_image(b->name, b->path, sizeof(b->path));
	b->pristine = fuzz_unpack_image(b->name, b->pristine_path,
					sizeof(b->pristine_path));
	if (fstat(b->fd, &st))
		abort();
	b->size = (uint64_t)st.st_size;
	b->orig = malloc(b->size);
	if (!b->orig || dmg_pread(b->fd, b->orig, b->size, 0))
		abort();
	if (ext2fs_open2(b->pristine_path, NULL, EXT2_FLAG_64BITS, 0, 0,
			 unix_io_manager, &b->fs) ||
	    dmg_areas(b->fs, &b->areas) || b->areas.n == 0)
		abort();
	b->ready = 1;
}

static void mark(uint64_t off, uint64_t len)
{
	if (npatched == patched_cap) {
		patched_cap = patched_cap ? 2 * patched_cap : 64;
		patched = realloc(patched, patched_cap * sizeof(*patched));
		if (!patched)
			abort();
	}
	patched[npatched].off = off;
	patched[npatched].len = len;
	npatched++;
}

/* Undo every patch, and a truncation from cut on. */
static void restore(struct ibase *b, uint64_t cut)
{
	size_t i;

	for (i = 0; i < npatched; i++) {
		uint64_t off = patched[i].off, len = patched[i].len;

		if (off >= b->size)
			continue;
		if (len > b->size - off)
			len = b->size - off;
		if (dmg_pwrite(b->fd, b->orig + off, len, off))
			abort();
	}
	npatched = 0;
	if (cut < b->size) {
		uint64_t off;
		static const uint8_t zero[4096];

		if (ftruncate(b->fd, (off_t)b->size))
			abort();
		/* the file is sparse past cut: write what is not zero */
		for (off = cut; off < b->size; off += 4096) {
			uint64_t n =
				b->size - off < 4096 ? b->size - off : 4096;

			if (memcmp(b->orig + off, zero, n) &&
			    dmg_pwrite(b->fd, b->orig + off, n, off))
				abort();
		}
	}
}

struct walk_ctx {
	struct e4t_image *img;
	struct e4t_tree *tree;
	unsigned long rows;
};

static int row_cb(const struct e4t_row *r, void *priv)
{
	static const char *const names[] = { "user.DOSATTRIB",
					     "user.org.netatalk.Metadata",
					     "user.crtime_usec", NULL };
	struct walk_ctx *w = priv;
	struct e4t_inode info;
	ext2_ino_t ino;
	void *val = NULL;
	size_t len = 0;
	int which = -1, f;

	FUZZ_CHECK(r->path && r->path_len > 0, "a row without a path");
	FUZZ_CHECK(r->path[r->path_len] == '\0', "path not terminated");
	FUZZ_CHECK(r->path[0] == '/' || r->path[0] == '<', "path %s", r->path);
	FUZZ_CHECK(r->inode != NULL, "a row without an inode");
	FUZZ_CHECK(r->status <= E4T_DELETED, "status %d", (int)r->status);
	ino = r->inode->ino;
	FUZZ_CHECK(ino >= 1 && ino <= w->img->fs->super->s_inodes_count,
		   "ino %u", ino);
	for (f = 0; f < E4T_NFIELDS; f++)
		if (r->inode->ts[f].flags & E4T_TS_STORED)
			FUZZ_CHECK(r->inode->ts[f].nsec < E4T_NSEC_PER_SEC,
				   "nsec %u", r->inode->ts[f].nsec);
	if (w->rows++ < 16) {
		FUZZ_CHECK(e4t_tree_inode(w->tree, ino, &info) == 0,
			   "inode %u of a row not in the tree", ino);
		FUZZ_CHECK(info.ino == ino, "inode %u read as %u", ino,
			   info.ino);
		if (e4t_xattr_get_first(w->img, ino, names, &val, &len,
					&which) == 0) {
			FUZZ_CHECK(which >= 0 && which < 3, "which %d", which);
			free(val);
		}
	}
	return 0;
}

static void run_image(const char *path)
{
	static const char *const specs[] = { "/",	    "<2>",
					     "<11>",	    "<12>",
					     "/lost+found", "/dir/sub",
					     "/inline-dir", "<0>" };
	struct e4t_tree_opts opts;
	struct e4t_image *img;
	struct e4t_inode info;
	unsigned long warnings = 0;
	struct walk_ctx w;
	ext2_ino_t ino, last;
	size_t i;

	if (e4t_image_open(path, 0, &img))
		return;
	/* stat */
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (e4t_image_resolve(img, specs[i], &ino) == 0 &&
		    e4t_image_read_inode(img, ino, &info) == 0)
			FUZZ_CHECK(info.ino == ino, "%s: inode %u read as %u",
				   specs[i], ino, info.ino);
	last = img->fs->super->s_inodes_count;
	if (last > 40)
		last = 40;
	for (ino = 1; ino <= last; ino++)
		e4t_image_read_inode(img, ino, &info);
	/* timeline */
	memset(&opts, 0, sizeof(opts));
	opts.flags = E4T_TREE_DELETED;
	opts.threads = 1;
	opts.warn = fz_warn;
	opts.priv = &warnings;
	memset(&w, 0, sizeof(w));
	w.img = img;
	if (e4t_tree_load(img, &opts, &w.tree) == 0) {
		e4t_tree_walk(w.tree, EXT2_ROOT_INO, "/", row_cb, &w);
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "tree: %lu rows, %lu warnings\n",
				w.rows, warnings);
		e4t_tree_free(w.tree);
	}
	/* journal, audit, history */
	check_journal(img, NULL);
	e4t_image_close(img);
}

FUZZ_TARGET(image)
{
	struct ibase *b;
	uint64_t cut;
	size_t pos = 1;
	int fix;

	if (size < 1)
		return 0;
	b = &bases[data[0] % NBASES];
	fix = !!(data[0] & 0x80);
	if (!b->ready)
		base_init(b);
	cut = b->size;
	if ((data[0] & 0x60) == 0x60 && size >= 3) {
		cut = b->size * (data[1] | data[2] << 8) / 65536;
		pos = 3;
		if (ftruncate(b->fd, (off_t)cut))
			abort();
	}
	while (pos + 5 <= size) {
		const struct dmg_area *a =
			&b->areas.a[(data[pos] | data[pos + 1] << 8) %
				    b->areas.n];
		uint32_t off =
			(uint32_t)(data[pos + 2] | data[pos + 3] << 8) % a->len;
		size_t want = data[pos + 4], len;

		pos += 5;
		if (want > size - pos)
			want = size - pos;
		len = want;
		if (len > a->len - off)
			len = a->len - off;
		if (a->off + off < cut) {
			if (len > cut - (a->off + off))
				len = cut - (a->off + off);
			if (dmg_pwrite(b->fd, data + pos, len, a->off + off))
				abort();
			mark(a->off + off, len);
			if (fix) {
				int r = dmg_fix(b->fs, b->fd, b->path, a);

				if (r < 0)
					abort();
				mark(a->kind == DMG_GDT
					     ? (b->fs->super
							->s_first_data_block +
						1) * b->fs->blocksize
					     : a->off,
				     a->kind == DMG_GDT
					     ? (uint64_t)b->fs->desc_blocks *
						       b->fs->blocksize
					     : a->len);
			}
		}
		pos += want;
	}
	run_image(b->path);
	restore(b, cut);
	return 0;
}
