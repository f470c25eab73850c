/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_info.c --- e4time info: the filesystem at a glance: geometry,
 * features, inode size and extra_isize, the journal, and the times of
 * mkfs, the last mount and the last write.
 */
#include "config.h"

#include <time.h>

#include <e2p/e2p.h>

#include "cmd.h"
#include "escape.h"

static void info_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s info [OPTIONS] IMAGE\n\n"
		"The filesystem at a glance: geometry, features, inode size "
		"and extra_isize\n(want and min), the journal, and when it "
		"was made, last mounted and\nlast written.\n\n"
		"Options:\n"
		"  -f, --format FMT       text (default) or jsonl: one "
		"record\n"
		"      --local            local time instead of UTC\n"
		"  --offset BYTES, -o SECTORS, -q, -h    as for every "
		"command\n",
		progname);
}

/* One line of the report: "Key:  value" in text, "key":value in jsonl. */
struct info_out {
	struct lbuf b;
	int json, n;
};

static void key(struct info_out *o, const char *json, const char *text)
{
	if (o->json)
		lb_printf(&o->b, "%s\"%s\":", o->n++ ? "," : "{", json);
	else
		lb_printf(&o->b, "%-22s", text);
}

static void put_num(struct info_out *o, const char *json, const char *text,
		    uint64_t v)
{
	key(o, json, text);
	lb_u64(&o->b, v);
	if (!o->json)
		lb_putc(&o->b, '\n');
}

static void put_str(struct info_out *o, const char *json, const char *text,
		    const char *s, size_t len)
{
	key(o, json, text);
	if (!o->json) {
		esc_text(&o->b, s, len);
		lb_putc(&o->b, '\n');
	} else if (s) {
		lb_putc(&o->b, '"');
		esc_json(&o->b, s, len);
		lb_putc(&o->b, '"');
	} else {
		lb_puts(&o->b, "null");
	}
}

/* A superblock time: whole seconds, 40 bits; 0 is never. */
static void put_time(struct info_out *o, const char *json, const char *text,
		     uint32_t lo, uint8_t hi, int local)
{
	int64_t sec = (int64_t)lo | ((int64_t)hi << 32);
	int32_t off = INT32_MIN;
	char when[E4T_ISO_BUFSZ];
	struct tm tm;
	time_t t = (time_t)sec;

	if (local && localtime_r(&t, &tm))
		off = (int32_t)tm.tm_gmtoff;
	e4t_iso8601(sec, 0, 0, 'T', off, when, sizeof(when));
	put_str(o, json, text, sec ? when : (o->json ? NULL : "never"),
		sec ? strlen(when) : 5);
}

/* "has_journal ext_attr ...": the feature names e2fsprogs gives them. */
static void put_features(struct info_out *o, const struct ext2_super_block *sb)
{
	const __u32 words[3] = { sb->s_feature_compat, sb->s_feature_incompat,
				 sb->s_feature_ro_compat };
	const int kinds[3] = { E2P_FEATURE_COMPAT, E2P_FEATURE_INCOMPAT,
			       E2P_FEATURE_RO_INCOMPAT };
	struct lbuf names = { NULL, 0, 0 };
	int i, bit;

	for (i = 0; i < 3; i++)
		for (bit = 0; bit < 32; bit++)
			if (words[i] & (1U << bit))
				lb_printf(&names, "%s%s", names.len ? " " : "",
					  e2p_feature2string(kinds[i],
							     1U << bit));
	put_str(o, "features", "Features:", names.p ? names.p : "", names.len);
	lb_free(&names);
}

static void put_journal(struct info_out *o, struct cmd_ctx *ctx)
{
	struct e4t_journal *j = NULL;
	const struct e4t_jinfo *in;
	char what[128] = "none";

	if (ext2fs_has_feature_journal(ctx->img->fs->super) &&
	    e4t_journal_open(ctx->img, NULL, &j) == 0) {
		in = e4t_journal_info(j);
		snprintf(what, sizeof(what), "%s, %u blocks of %u bytes, %s",
			 in->internal ? "internal" : "external", in->maxlen,
			 in->blocksize,
			 in->live ? "live (needs recovery)" : "clean");
	} else if (ext2fs_has_feature_journal(ctx->img->fs->super)) {
		snprintf(what, sizeof(what), "%s",
			 ctx->img->fs->super->s_journal_inum
				 ? "internal, unreadable"
				 : "external (not read: e4time journal -j)");
	}
	put_str(o, "journal", "Journal:", what, strlen(what));
	e4t_journal_close(j);
}

static int info_json;

static int info_prepare(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	info_json = ctx->format_name &&
		    parse_report_format(ctx->format_name, ctx->cmd);
	return EXIT_OK;
}

static int info_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct ext2_super_block *sb = ctx->img->fs->super;
	struct info_out o = { { NULL, 0, 0 }, 0, 0 };
	int l = ctx->local, status;

	(void)argc;
	(void)argv;
	o.json = info_json;
	put_str(&o, "uuid", "UUID:", e2p_uuid2str((void *)sb->s_uuid), 36);
	put_str(&o, "label", "Label:", (const char *)sb->s_volume_name,
		strnlen((const char *)sb->s_volume_name, EXT2_LABEL_LEN));
	put_num(&o, "block_size", "Block size:", ctx->img->fs->blocksize);
	put_num(&o, "blocks",
		"Blocks:", ext2fs_blocks_count(ctx->img->fs->super));
	put_num(&o, "groups", "Groups:", ctx->img->fs->group_desc_count);
	put_num(&o, "blocks_per_group",
		"Blocks per group:", sb->s_blocks_per_group);
	put_num(&o, "inodes", "Inodes:", sb->s_inodes_count);
	put_num(&o, "inodes_per_group",
		"Inodes per group:", sb->s_inodes_per_group);
	put_num(&o, "inode_size", "Inode size:", EXT2_INODE_SIZE(sb));
	put_num(&o, "want_extra_isize",
		"Extra isize (want):", sb->s_want_extra_isize);
	put_num(&o, "min_extra_isize",
		"Extra isize (min):", sb->s_min_extra_isize);
	put_features(&o, sb);
	put_journal(&o, ctx);
	put_time(&o, "mkfs_time", "Created:", sb->s_mkfs_time,
		 sb->s_mkfs_time_hi, l);
	put_time(&o, "mount_time", "Last mounted:", sb->s_mtime, sb->s_mtime_hi,
		 l);
	put_str(&o, "last_mounted_on",
		"Last mounted on:", (const char *)sb->s_last_mounted,
		strnlen((const char *)sb->s_last_mounted, 64));
	put_time(&o, "write_time", "Last written:", sb->s_wtime, sb->s_wtime_hi,
		 l);
	put_num(&o, "mount_count", "Mount count:", sb->s_mnt_count);
	if (o.json)
		lb_puts(&o.b, "}\n");
	status = lb_flush(&o.b, stdout) ? cond_status(COND_OUTPUT) : EXIT_OK;
	lb_free(&o.b);
	return status;
}

const struct cmdinfo info_cmd = {
	.name = "info",
	.args = "[OPTIONS] IMAGE",
	.oneline = "the filesystem: geometry, features, inode size, journal",
	.flags = CMD_IMAGE | CMD_FORMATS | CMD_LOCAL,
	.argmin = 1,
	.argmax = 1,
	.argerr = "give one IMAGE",
	.prepare = info_prepare,
	.run = info_run,
	.help = info_help,
};
