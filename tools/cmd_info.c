/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_info.c --- e4time info: the filesystem at a glance: geometry,
 * features, inode size and extra_isize, the journal, and the times of
 * mkfs, the last mount and the last write.
 */
#include "config.h"

#include <e2p/e2p.h>

#include "cmd.h"
#include "report.h"

static void info_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s info [OPTIONS] IMAGE\n\n"
		"The filesystem at a glance: geometry, features, inode size "
		"and extra_isize\n(want and min), the journal, and when it "
		"was made, last mounted and\nlast written.\n\n"
		"Options:\n"
		"  -f, --format FMT       text (default), jsonl (one record) "
		"or csv (one row)\n"
		"      --local            local time instead of UTC "
		"(text)\n" COMMON_HELP,
		progname);
}

/* clang-format off */
static const char *const keys[] = {
	"uuid", "label", "block_size", "blocks", "groups", "blocks_per_group",
	"inodes", "inodes_per_group", "inode_size", "want_extra_isize",
	"min_extra_isize", "crtime", "features", "journal", "mkfs_time",
	"mount_time", "last_mounted_on", "write_time", "mount_count", NULL
};
static const char *const labels[] = {
	"UUID:", "Label:", "Block size:", "Blocks:", "Groups:",
	"Blocks per group:", "Inodes:", "Inodes per group:", "Inode size:",
	"Extra isize (want):", "Extra isize (min):", "Crtime:", "Features:",
	"Journal:", "Created:", "Last mounted:", "Last mounted on:",
	"Last written:", "Mount count:", NULL
};
/* clang-format on */
static const struct rec_schema schema = { .row = "info",
					  .cols = keys,
					  .labels = labels };

/* A superblock time: 32 bits and 8 more in ..._hi (40 bits, unsigned) */
#define SB_TIME(f) ((int64_t)(f) | ((int64_t)(f##_hi) << 32))

/* The features by the names e2fsprogs gives them. */
static void rec_features(struct report *r, const struct ext2_super_block *sb)
{
	const __u32 words[3] = { sb->s_feature_compat, sb->s_feature_incompat,
				 sb->s_feature_ro_compat };
	struct lbuf b = { 0 };
	int i, bit;

	for (i = 0; i < 3;
	     i++) /* E2P_FEATURE_COMPAT, _INCOMPAT, _RO_INCOMPAT */
		for (bit = 0; bit < 32; bit++)
			if (words[i] & (1U << bit))
				lb_printf(&b, "%s%s", b.len ? " " : "",
					  e2p_feature2string(i, 1U << bit));
	rec_str(r, "features", b.p ? b.p : "", b.len);
	lb_free(&b);
}

static void rec_journal(struct report *r, struct e4t_image *img)
{
	int has = ext2fs_has_feature_journal(img->fs->super);
	struct e4t_journal *j = NULL;
	char what[128] = "none";

	if (has && e4t_journal_open(img, NULL, &j) == 0) {
		const struct e4t_jinfo *in = e4t_journal_info(j);

		snprintf(what, sizeof(what), "%s, %u blocks of %u bytes, %s",
			 in->internal ? "internal" : "external", in->maxlen,
			 in->blocksize,
			 in->live ? "live (needs recovery)" : "clean");
	} else if (has) {
		snprintf(what, sizeof(what), "%s",
			 img->fs->super->s_journal_inum
				 ? "internal, unreadable"
				 : "external (not read: e4time journal -j)");
	}
	rec_cstr(r, "journal", what);
	e4t_journal_close(j);
}

static int info_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	ext2_filsys fs = ctx->img->fs;
	const struct ext2_super_block *sb = fs->super;
	const char *name = (const char *)sb->s_volume_name;
	const char *last = (const char *)sb->s_last_mounted;
	struct report r;

	(void)argc;
	(void)argv;
	/* the kernel writes these in the primary only */
	if (ctx->img->sb_block && !ctx->co.quiet)
		warnx_img(ctx->img->name,
			  "the backup superblock at block %llu: its last "
			  "mount, last write and mount count are as mke2fs, "
			  "resize2fs or e2fsck last wrote them",
			  (unsigned long long)ctx->img->sb_block);
	report_init(&r, (enum report_format)ctx->format, stdout, &schema);
	rec_begin(&r, "info");
	rec_cstr(&r, "uuid", e2p_uuid2str((void *)sb->s_uuid));
	rec_str(&r, "label", name, strnlen(name, EXT2_LABEL_LEN));
	rec_u64(&r, "block_size", fs->blocksize);
	rec_u64(&r, "blocks", ext2fs_blocks_count(fs->super));
	rec_u64(&r, "groups", fs->group_desc_count);
	rec_u64(&r, "blocks_per_group", sb->s_blocks_per_group);
	rec_u64(&r, "inodes", sb->s_inodes_count);
	rec_u64(&r, "inodes_per_group", sb->s_inodes_per_group);
	rec_u64(&r, "inode_size", EXT2_INODE_SIZE(sb));
	rec_u64(&r, "want_extra_isize", sb->s_want_extra_isize);
	rec_u64(&r, "min_extra_isize", sb->s_min_extra_isize);
	/* what decides whether an inode can hold a crtime, plainly */
	rec_cstr(&r, "crtime",
		 EXT2_INODE_SIZE(sb) <= EXT2_GOOD_OLD_INODE_SIZE
			 ? "never stored: 128-byte inodes have no room for "
			   "it (a filesystem of larger inodes has: a new one "
			   "made with mkfs.ext4 -I 256, or this one converted "
			   "with tune2fs -I 256)"
			 : "stored in inodes whose i_extra_isize is 24 or "
			   "more (e4time check finds the others: T0003)");
	rec_features(&r, sb);
	rec_journal(&r, ctx->img);
	rec_epoch(&r, "mkfs_time", SB_TIME(sb->s_mkfs_time), ctx->local);
	rec_epoch(&r, "mount_time", SB_TIME(sb->s_mtime), ctx->local);
	rec_str(&r, "last_mounted_on", last, strnlen(last, 64));
	rec_epoch(&r, "write_time", SB_TIME(sb->s_wtime), ctx->local);
	rec_u64(&r, "mount_count", sb->s_mnt_count);
	rec_end(&r);
	return report_finish(&r) ? report_failed() : EXIT_OK;
}

const struct cmdinfo info_cmd = {
	.name = "info",
	.args = "[OPTIONS] IMAGE",
	.oneline = "the filesystem: geometry, features, inode size, journal",
	.flags = CMD_IMAGE | CMD_FORMATS | CMD_LOCAL,
	.formats = RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV),
	.argmin = 1,
	.argmax = 1,
	.argerr = "give one IMAGE",
	.run = info_run,
	.help = info_help,
};
