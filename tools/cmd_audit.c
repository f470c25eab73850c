/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_audit.c --- e4time audit: how much of the journal's traffic was
 * nothing but atime updates, on which files, and what relatime or
 * noatime would have saved.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "escape.h"
#include "linebuf.h"

static void audit_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s audit [OPTIONS] IMAGE\n\n"
		"Compare every copy of every inode-table block in the jbd2 "
		"journal with\nthe copy before it and classify each inode "
		"change: atime only, mtime\n(data), ctime (metadata), "
		"created, deleted, crtime (never done by the\nkernel to a "
		"live inode), other.  Reports the journal, each "
		"transaction,\na summary, the files with the most atime-only "
		"updates, and advice.\nStale transactions (already "
		"checkpointed) are included by default.\n\n"
		"Options:\n"
		"  -j, --journal FILE     external journal device or image\n"
		"      --no-stale         the live log only\n"
		"  -f, --format FMT       text (default), json or csv "
		"(transactions)\n"
		"  -t, --top N            files to list (default 10)\n"
		"  --offset BYTES, -o SECTORS, -q, -h    as for every "
		"command\n",
		progname);
}

struct top {
	ext2_ino_t ino;
	uint32_t atime_only;
	char *path;
};

struct path_ctx {
	struct top *top;
	size_t n;
};

static int find_paths(const struct e4t_row *row, void *priv)
{
	struct path_ctx *pc = priv;
	size_t i;

	for (i = 0; i < pc->n; i++)
		if (pc->top[i].ino == row->inode->ino && !pc->top[i].path)
			pc->top[i].path = dup_bytes(row->path, row->path_len);
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->atime_only != y->atime_only)
		return x->atime_only > y->atime_only ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void json_str(const char *s)
{
	struct lbuf b = { NULL, 0, 0 };

	lb_putc(&b, '"');
	esc_json(&b, s, strlen(s));
	lb_putc(&b, '"');
	lb_flush(&b, stdout);
	free(b.p);
}

static const char *advice(const struct e4t_audit *a)
{
	if (a->changes[E4T_CH_ATIME] == 0)
		return "no atime-only updates were journaled (noatime, or "
		       "nothing was read): nothing to save";
	if (a->relatime_would_skip)
		return "strictatime pattern: files were re-read and each read "
		       "wrote the inode; relatime would have skipped the "
		       "counted updates, noatime (or lazytime, which defers "
		       "them to other writes) all of them";
	return "relatime pattern: atime was written only on the first read "
	       "after a change; noatime would save the remaining "
	       "atime-only updates, lazytime would fold them into other "
	       "writes";
}

static int audit_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "no-stale", no_argument, NULL, 's' },
		{ "stale", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 't' },
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct common_opts co = { 0, 0 };
	const char *jpath = NULL;
	unsigned flags = E4T_J_STALE;
	int fmt = 0, c, status;
	unsigned long ntop = 10;
	struct e4t_image *img;
	struct e4t_journal *j;
	struct e4t_audit *a;
	struct warn_ctx wc;
	struct top *top = NULL;
	size_t i, k, ntops = 0;
	const struct e4t_jinfo *in;
	errcode_t err;
	char *end;

	while ((c = getopt_long(argc, argv, "j:f:t:" COMMON_SHORTOPTS, longopts,
				NULL)) != -1) {
		switch (c) {
		case 'j': jpath = optarg; break;
		case 's': flags &= ~E4T_J_STALE; break;
		case 'S': flags |= E4T_J_STALE; break;
		case 'f':
			if (strcmp(optarg, "text") == 0)
				fmt = 0;
			else if (strcmp(optarg, "json") == 0)
				fmt = 1;
			else if (strcmp(optarg, "csv") == 0)
				fmt = 2;
			else
				usage_error(&audit_cmd,
					    "unknown format '%s' (text, json, "
					    "csv)",
					    optarg);
			break;
		case 't':
			errno = 0;
			ntop = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-')
				usage_error(&audit_cmd, "bad --top '%s'",
					    optarg);
			break;
		default: common_opt(c, optarg, &co, &audit_cmd);
		}
	}
	if (argc - optind != 1)
		usage_error(&audit_cmd, "give one IMAGE");
	img = open_image_or_exit(argv[optind], &co);
	wc.image = img->name;
	wc.quiet = co.quiet;
	wc.count = 0;
	j = open_journal_or_exit(img, jpath, flags, &wc);
	in = e4t_journal_info(j);
	err = e4t_audit_run(img, j, NULL, NULL, &a);
	if (err) {
		report(img->name, "audit", err);
		e4t_journal_close(j);
		e4t_image_close(img);
		return err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE;
	}

	/* the top files by atime-only updates, with their paths */
	for (i = 0; i < a->ninodes; i++)
		if (a->inodes[i].changes[E4T_CH_ATIME])
			ntops++;
	top = calloc(ntops ? ntops : 1, sizeof(*top));
	if (!top) {
		report(img->name, "audit", ENOMEM);
		return EXIT_INTERNAL;
	}
	for (i = 0, k = 0; i < a->ninodes; i++)
		if (a->inodes[i].changes[E4T_CH_ATIME]) {
			top[k].ino = a->inodes[i].ino;
			top[k++].atime_only =
				a->inodes[i].changes[E4T_CH_ATIME];
		}
	qsort(top, ntops, sizeof(*top), cmp_top);
	if (ntops > ntop)
		ntops = ntop;
	if (ntops) {
		struct e4t_tree_opts topts = { .warn = lib_warn, .priv = &wc };
		struct e4t_tree *tree = NULL;
		struct path_ctx pc = { top, ntops };

		if (e4t_tree_load(img, &topts, &tree) == 0)
			e4t_tree_walk(tree, EXT2_ROOT_INO, "/", find_paths,
				      &pc);
		e4t_tree_free(tree);
	}

	if (fmt == 2) {
		printf("tid,state,commit_time,journal_blocks,itable_blocks");
		for (k = 0; k < E4T_NCHANGES; k++)
			printf(",%s", e4t_change_name((enum e4t_change)k));
		printf(",atime_only\n");
	} else if (fmt == 1) {
		printf("{\"journal\":{\"internal\":%s,\"blocks\":%u,"
		       "\"blocksize\":%u,\"features\":[",
		       in->internal ? "true" : "false", in->maxlen,
		       in->blocksize);
		print_journal_features(in, stdout, 1);
		printf("],\"state\":\"%s\",\"csum\":%d,\"sequence\":%u},"
		       "\"transactions\":[",
		       in->live ? "live" : "clean", in->csum_version,
		       in->sequence);
	} else {
		printf("Journal: %s, %u blocks of %u bytes, checksums %s, %s "
		       "(next tid %u)\n",
		       in->internal ? "internal" : "external", in->maxlen,
		       in->blocksize,
		       in->csum_version ? (in->csum_version == 1   ? "v1"
					   : in->csum_version == 2 ? "v2"
								   : "v3")
					: "none",
		       in->live ? "live (needs recovery)" : "clean",
		       in->sequence);
		printf("\n%-10s %-11s %-30s %6s %6s", "tid", "state",
		       "commit time", "blocks", "itable");
		for (k = 0; k < E4T_NCHANGES; k++)
			printf(" %7s", e4t_change_name((enum e4t_change)k));
		putchar('\n');
	}
	for (i = 0, k = 0; i < a->ntrans; i++) {
		const struct e4t_jtrans *t = e4t_journal_trans(j, i);
		const struct e4t_audit_trans *at = &a->trans[i];
		const char *state = (t->flags & E4T_JT_FAST_COMMIT)
					    ? "fast_commit"
				    : (t->flags & E4T_JT_LIVE) ? "live"
							       : "stale";
		char when[E4T_ISO_BUFSZ] = "";
		size_t m;

		if (!(t->flags & E4T_JT_COMMITTED) ||
		    (t->flags & E4T_JT_CSUM_BAD))
			continue;
		if (!(t->flags & E4T_JT_FAST_COMMIT) &&
		    (t->commit_sec || t->commit_nsec))
			e4t_iso8601(t->commit_sec, t->commit_nsec, 9, 'T',
				    INT32_MIN, when, sizeof(when));
		if (fmt == 2) {
			printf("%u,%s,%s,%u,%u", t->tid, state, when,
			       t->nr_jblocks, at->itable_blocks);
			for (m = 0; m < E4T_NCHANGES; m++)
				printf(",%u", at->changes[m]);
			printf(",%d\n", at->atime_only);
		} else if (fmt == 1) {
			printf("%s{\"tid\":%u,\"commit_time\":%s%s%s,"
			       "\"live\":%s,\"state\":\"%s\",\"blocks\":%u,"
			       "\"itable_blocks\":%u,\"atime_only\":%s,"
			       "\"changes\":{",
			       k++ ? "," : "", t->tid, *when ? "\"" : "",
			       *when ? when : "null", *when ? "\"" : "",
			       (t->flags & E4T_JT_LIVE) ? "true" : "false",
			       state, t->nr_jblocks, at->itable_blocks,
			       at->atime_only ? "true" : "false");
			for (m = 0; m < E4T_NCHANGES; m++)
				printf("%s\"%s\":%u", m ? "," : "",
				       e4t_change_name((enum e4t_change)m),
				       at->changes[m]);
			printf("}}");
		} else {
			printf("%-10u %-11s %-30s %6u %6u", t->tid, state, when,
			       t->nr_jblocks, at->itable_blocks);
			for (m = 0; m < E4T_NCHANGES; m++)
				printf(" %7u", at->changes[m]);
			if (at->atime_only)
				printf("  atime only");
			putchar('\n');
		}
	}
	if (fmt == 1) {
		printf("],\"summary\":{\"inode_updates\":%" PRIu64
		       ",\"atime_only\":%" PRIu64
		       ",\"atime_only_transactions\":%" PRIu64
		       ",\"atime_only_blocks\":%" PRIu64
		       ",\"relatime_would_skip\":%" PRIu64
		       ",\"journal_blocks\":%" PRIu64
		       ",\"baseline_blocks\":%" PRIu64
		       ",\"disk_baselines\":%" PRIu64
		       ",\"unusable_blocks\":%" PRIu64 ",\"changes\":{",
		       a->inode_updates, a->changes[E4T_CH_ATIME],
		       a->atime_only_transactions, a->atime_only_blocks,
		       a->relatime_would_skip, a->journal_blocks,
		       a->baseline_blocks, a->disk_baselines,
		       a->unusable_blocks);
		for (k = 0; k < E4T_NCHANGES; k++)
			printf("%s\"%s\":%" PRIu64, k ? "," : "",
			       e4t_change_name((enum e4t_change)k),
			       a->changes[k]);
		printf("}},\"top\":[");
		for (i = 0; i < ntops; i++) {
			printf("%s{", i ? "," : "");
			if (top[i].path) {
				struct lbuf b = { NULL, 0, 0 };

				esc_json_path(&b, top[i].path,
					      strlen(top[i].path));
				lb_flush(&b, stdout);
				free(b.p);
			} else {
				printf("\"path\":null");
			}
			printf(",\"ino\":%u,\"atime_only\":%u}", top[i].ino,
			       top[i].atime_only);
		}
		printf("],\"advice\":");
		json_str(advice(a));
		printf("}\n");
	} else if (fmt == 0) {
		uint64_t u = a->inode_updates;

		printf("\nSummary\n");
		printf("  inode updates:          %" PRIu64 "\n", u);
		for (k = 0; k < E4T_NCHANGES; k++)
			printf("    %-22s %" PRIu64 "\n",
			       e4t_change_name((enum e4t_change)k),
			       a->changes[k]);
		printf("  atime-only share:       %.1f%%\n",
		       u ? 100.0 * (double)a->changes[E4T_CH_ATIME] / (double)u
			 : 0.0);
		printf("  atime-only transactions: %" PRIu64 " (%" PRIu64
		       " of %" PRIu64 " journal blocks)\n",
		       a->atime_only_transactions, a->atime_only_blocks,
		       a->journal_blocks);
		printf("  relatime would skip:    %" PRIu64
		       " atime-only updates\n",
		       a->relatime_would_skip);
		printf("  first copies (baseline): %" PRIu64
		       " blocks; compared with an older home block: %" PRIu64
		       "; unusable copies: %" PRIu64 "\n",
		       a->baseline_blocks, a->disk_baselines,
		       a->unusable_blocks);
		if (ntops) {
			printf("\nTop files by atime-only updates\n");
			for (i = 0; i < ntops; i++) {
				char *p = top[i].path
						  ? escape_text(
							    top[i].path,
							    strlen(top[i].path))
						  : NULL;

				printf("  %8u  <%u> %s\n", top[i].atime_only,
				       top[i].ino, p ? p : "(no name)");
				free(p);
			}
		}
		printf("\nAdvice: %s\n", advice(a));
	}
	status =
		(wc.count || e4t_journal_damaged(j) || image_damage_status(img))
			? EXIT_PARTIAL
			: EXIT_OK;
	for (i = 0; i < ntops; i++)
		free(top[i].path);
	free(top);
	e4t_audit_free(a);
	e4t_journal_close(j);
	e4t_image_close(img);
	return finish_stdout(status);
}

const struct cmdinfo audit_cmd = {
	.name = "audit",
	.func = audit_main,
	.args = "IMAGE",
	.oneline = "atime churn and inode changes, from the journal",
	.help = audit_help,
};
