/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_journal.c --- e4time journal: the journal's geometry and every
 * transaction found in it (live log, and with --stale the older ones
 * still in the log area, and fast commits), each checked: a logdump
 * that says what it could verify.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

#define JOURNAL_FORMATS (RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV))

static void journal_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s journal [OPTIONS] IMAGE\n\n"
		"List the jbd2 journal: its geometry and state, then every "
		"transaction\nfound, oldest first, with its tid, state (live: "
		"recovery would replay it;\nstale: checkpointed, found by "
		"scanning; fast_commit), commit time,\nchecksum verdict and "
		"the filesystem blocks it journaled.\n\n"
		"Options:\n"
		"  -j, --journal FILE     external journal device or image\n"
		"      --stale            also find stale transactions\n"
		"  -f, --format FMT       text (default), jsonl or csv "
		"(transactions)\n"
		"  -b, --blocks           list every journaled block "
		"(text)\n" COMMON_HELP,
		progname);
}

static const char *state_name(const struct e4t_jtrans *t)
{
	if (t->flags & E4T_JT_FAST_COMMIT)
		return "fast_commit";
	return (t->flags & E4T_JT_LIVE) ? "live" : "stale";
}

/* A commit block's time; 0 (jbd without commit times) is no time. */
static int has_time(const struct e4t_jtrans *t)
{
	return (t->flags & E4T_JT_COMMITTED) &&
	       !(t->flags & E4T_JT_FAST_COMMIT) &&
	       (t->commit_sec || t->commit_nsec);
}

static const char *csum_name(const struct e4t_jtrans *t)
{
	if (t->flags & E4T_JT_CSUM_BAD)
		return "bad";
	if (t->flags & E4T_JT_UNVERIFIED)
		return "none";
	return "ok";
}

static void uuid_text(const uint8_t *u, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int i, k = 0;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[k++] = '-';
		buf[k++] = hex[u[i] >> 4];
		buf[k++] = hex[u[i] & 15];
	}
	buf[k] = 0;
}

static void print_geom_text(const struct e4t_jinfo *in, size_t ntrans)
{
	char uuid[40];

	uuid_text(in->uuid, uuid);
	printf("Journal:    %s", in->internal ? "internal" : "external");
	if (in->internal)
		printf(", inode %u\n", in->inum);
	else
		printf(", %s\n", in->path);
	printf("Superblock: v%u, block size %u, %u blocks (log %u..%u",
	       in->sb_version, in->blocksize, in->maxlen, in->first,
	       in->log_end - 1);
	if (in->fc_blocks)
		printf(", fast commit %u..%u", in->fc_first, in->maxlen - 1);
	printf(")\nFeatures:   ");
	print_journal_features(in, stdout);
	printf("\nChecksums:  %s%s\n",
	       in->csum_version == 0   ? "none"
	       : in->csum_version == 1 ? "v1 (crc32 in commit blocks)"
	       : in->csum_version == 2 ? "v2 (crc32c)"
				       : "v3 (crc32c)",
	       in->sb_csum == 0 ? ", SUPERBLOCK CHECKSUM BAD" : "");
	printf("UUID:       %s\n", uuid);
	if (in->live)
		printf("State:      live: needs recovery from block %u, tid "
		       "%u\n",
		       in->start, in->sequence);
	else
		printf("State:      clean, next tid %u\n", in->sequence);
	if (in->errno_val)
		printf("Error:      %d recorded by the kernel\n",
		       in->errno_val);
	printf("Transactions found: %zu\n\n", ntrans);
}

static void print_trans_text(const struct e4t_jtrans *t, int blocks)
{
	char when[E4T_ISO_BUFSZ] = "-";
	size_t i, bad = 0;

	if (has_time(t)) {
		struct e4t_ts ts = { t->commit_sec, t->commit_nsec,
				     E4T_TS_STORED | E4T_TS_EXTRA };

		fmt_time(&ts, 0, 'T', when, sizeof(when));
	}
	for (i = 0; i < t->nblocks; i++)
		if (t->blocks[i].flags & E4T_JB_UNUSABLE)
			bad++;
	printf("tid %-10u %-11s %-30s at %-8u %5u blocks  %5zu copies", t->tid,
	       state_name(t),
	       (t->flags & E4T_JT_FAST_COMMIT)	? "(fast commit: no time)"
	       : !(t->flags & E4T_JT_COMMITTED) ? "(no commit block)"
	       : has_time(t)			? when
						: "(no commit time)",
	       t->first_jblock, t->nr_jblocks,
	       (t->flags & E4T_JT_FAST_COMMIT) ? t->nfc_inodes : t->nblocks);
	if (t->nrevoked)
		printf("  %zu revoked", t->nrevoked);
	printf("  csum %s", csum_name(t));
	if (bad)
		printf("  %zu unusable", bad);
	putchar('\n');
	if (!blocks)
		return;
	for (i = 0; i < t->nblocks; i++) {
		const struct e4t_jblock *b = &t->blocks[i];

		printf("    fs block %-12" PRIu64
		       " journal block %-8u%s%s%s%s%s\n",
		       b->fsblock, b->jblock,
		       (b->flags & E4T_JB_ESCAPED) ? " escaped" : "",
		       (b->flags & E4T_JB_CSUM_BAD) ? " CSUM-BAD" : "",
		       (b->flags & E4T_JB_REVOKED) ? " revoked" : "",
		       (b->flags & E4T_JB_OUT_OF_FS) ? " OUT-OF-FS" : "",
		       (b->flags & E4T_JB_OVERWRITTEN) ? " overwritten" : "");
	}
	for (i = 0; i < t->nrevoked; i++)
		printf("    revokes fs block %" PRIu64 "\n", t->revoked[i]);
	for (i = 0; i < t->nfc_inodes; i++)
		printf("    inode %u (journal block %u offset %u, %u bytes)\n",
		       t->fc_inodes[i].ino, t->fc_inodes[i].jblock,
		       t->fc_inodes[i].offset, t->fc_inodes[i].len);
}

/* jsonl: the journal record, {"journal":{...}} (journal's records have
 * no "record" key: they are as they were before the record writers). */
static void rec_geom(struct report *r, const struct e4t_jinfo *in)
{
	char uuid[40];

	uuid_text(in->uuid, uuid);
	rec_begin(r, "journal");
	rec_obj_begin(r, "journal");
	rec_bool(r, "internal", in->internal);
	rec_u64(r, "blocksize", in->blocksize);
	rec_u64(r, "maxlen", in->maxlen);
	rec_u64(r, "first", in->first);
	rec_u64(r, "log_end", in->log_end);
	rec_u64(r, "fc_blocks", in->fc_blocks);
	rec_u64(r, "sequence", in->sequence);
	rec_u64(r, "start", in->start);
	rec_i64(r, "csum", in->csum_version);
	rec_bool(r, "live", in->live);
	rec_journal_features(r, in);
	rec_cstr(r, "uuid", uuid);
	rec_obj_end(r);
	rec_end(r);
}

static const char *const journal_cols[] = {
	"tid",	       "state",		 "committed", "csum",	 "commit_time",
	"first_block", "journal_blocks", "blocks",    "revoked", "fc_inodes",
	NULL,
};
static const struct rec_schema journal_schema = {
	.row = "transaction",
	.cols = journal_cols,
	.untyped = 1,
};

static void rec_trans(struct report *r, const struct e4t_jtrans *t)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} fl[] = {
		{ E4T_JB_ESCAPED, "escaped" },
		{ E4T_JB_CSUM_BAD, "csum_bad" },
		{ E4T_JB_REVOKED, "revoked" },
		{ E4T_JB_OUT_OF_FS, "out_of_fs" },
		{ E4T_JB_OVERWRITTEN, "overwritten" },
	};
	struct e4t_ts ts = { t->commit_sec, t->commit_nsec,
			     E4T_TS_STORED | E4T_TS_EXTRA };
	size_t i, k;

	rec_begin(r, "transaction");
	rec_u64(r, "tid", t->tid);
	rec_cstr(r, "state", state_name(t));
	rec_bool(r, "committed", !!(t->flags & E4T_JT_COMMITTED));
	rec_cstr(r, "csum", csum_name(t));
	rec_iso(r, "commit_time", has_time(t) ? &ts : NULL);
	rec_u64(r, "first_block", t->first_jblock);
	rec_u64(r, "journal_blocks", t->nr_jblocks);
	rec_objs_begin(r, "blocks");
	for (i = 0; i < t->nblocks; i++) {
		const struct e4t_jblock *b = &t->blocks[i];

		rec_obj_begin(r, NULL);
		rec_u64(r, "fsblock", b->fsblock);
		rec_u64(r, "jblock", b->jblock);
		rec_arr_begin(r, "flags");
		for (k = 0; k < sizeof(fl) / sizeof(fl[0]); k++)
			if (b->flags & fl[k].bit)
				rec_cstr(r, NULL, fl[k].name);
		rec_arr_end(r);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_arr_begin(r, "revoked");
	for (i = 0; i < t->nrevoked; i++)
		rec_u64(r, NULL, t->revoked[i]);
	rec_arr_end(r);
	rec_objs_begin(r, "fc_inodes");
	for (i = 0; i < t->nfc_inodes; i++) {
		rec_obj_begin(r, NULL);
		rec_u64(r, "ino", t->fc_inodes[i].ino);
		rec_u64(r, "jblock", t->fc_inodes[i].jblock);
		rec_u64(r, "offset", t->fc_inodes[i].offset);
		rec_u64(r, "len", t->fc_inodes[i].len);
		rec_obj_end(r);
	}
	rec_arr_end(r);
	rec_end(r);
}

/* The journal in text, jsonl or csv (transactions). */
static void print_journal(struct e4t_journal *j, enum report_format fmt,
			  int blocks)
{
	size_t i, n = e4t_journal_count(j);
	struct report r;

	if (fmt == RF_TEXT) {
		print_geom_text(e4t_journal_info(j), n);
		for (i = 0; i < n; i++)
			print_trans_text(e4t_journal_trans(j, i), blocks);
		return;
	}
	report_init(&r, fmt, stdout, &journal_schema);
	rec_geom(&r, e4t_journal_info(j));
	for (i = 0; i < n; i++)
		rec_trans(&r, e4t_journal_trans(j, i));
	report_finish(&r);
}

static const struct option journal_longopts[] = {
	{ "stale", no_argument, NULL, 's' },
	{ "blocks", no_argument, NULL, 'b' },
	{ NULL, 0, NULL, 0 },
};
static int blocks; /* -b */

static void journal_opt(struct cmd_ctx *ctx, int c, const char *arg)
{
	(void)arg;
	switch (c) {
	case 's': ctx->jflags |= E4T_J_STALE; break;
	case 'b': blocks = 1; break;
	default: usage_error(&journal_cmd, "unknown option");
	}
}

static int journal_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct e4t_journal *j;
	int status = EXIT_OK;

	(void)argc;
	(void)argv;
	j = ctx_journal(ctx, &status);
	if (!j)
		return status;
	print_journal(j, (enum report_format)ctx->format, blocks);
	return EXIT_OK;
}

const struct cmdinfo journal_cmd = {
	.name = "journal",
	.args = "IMAGE",
	.oneline = "list the jbd2 journal's transactions, checked",
	.flags = CMD_IMAGE | CMD_JOURNAL | CMD_FORMATS,
	.formats = JOURNAL_FORMATS,
	.argmin = 1,
	.argmax = 1,
	.argerr = "give one IMAGE",
	.shortopts = "b",
	.longopts = journal_longopts,
	.opt = journal_opt,
	.run = journal_run,
	.help = journal_help,
};
