/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_rules.c --- the anomaly rule table and the inode rules, one case
 * each where the rule fires and the nearest where it must not (what the
 * kernel leaves: creation sets atime = mtime = ctime = crtime; a zero
 * crtime is one never written; 128-byte inodes store no nanoseconds).
 * The kernel-written cases are in tests/test_anomalies.sh.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/e4time.h"
#include "unit.h"

#define T0 1700000000LL /* mkfs */

static struct e4t_rules_ctx rc;

/* An inode the kernel just created at t (every time equal), large. */
static void fresh(struct e4t_inode *in, ext2_ino_t ino, int64_t t,
		  uint32_t nsec)
{
	int f;

	memset(in, 0, sizeof(*in));
	in->ino = ino;
	in->mode = 0100644;
	in->links = 1;
	in->inode_size = 256;
	in->extra_isize = 32;
	for (f = E4T_ATIME; f <= E4T_CRTIME; f++) {
		in->ts[f].sec = t;
		in->ts[f].nsec = nsec;
		in->ts[f].flags = E4T_TS_STORED | E4T_TS_EXTRA;
	}
	in->ts[E4T_DTIME].flags = E4T_TS_STORED | E4T_TS_ZERO;
}

static void set(struct e4t_inode *in, enum e4t_field f, int64_t t,
		uint32_t nsec)
{
	in->ts[f].sec = t;
	in->ts[f].nsec = nsec;
}

struct got {
	char ids[256];
	struct e4t_finding last;
};

static int collect(const struct e4t_finding *f, void *priv)
{
	struct got *g = priv;
	size_t n = strlen(g->ids);

	snprintf(g->ids + n, sizeof(g->ids) - n, "%s%s", n ? " " : "",
		 e4t_rule(f->rule)->id);
	g->last = *f;
	return 0;
}

/* The rule ids that fire, space-separated, in table order. */
static const char *fire(const struct e4t_inode *in,
			const struct e4t_dir_nsec *dir, struct got *g)
{
	memset(g, 0, sizeof(*g));
	e4t_rules_inode(&rc, in, dir, collect, g);
	return g->ids;
}

static void check_table(void)
{
	size_t i, n = e4t_rule_count();
	int prev = E4T_SEV_STRONG;

	CHECK(n >= 10, "%zu rules", n);
	for (i = 0; i < n; i++) {
		const struct e4t_rule *r = e4t_rule(i);

		CHECK(r->id && r->meaning && r->legit, "rule %zu complete", i);
		if (!r->id)
			continue;
		CHECK((int)r->severity <= prev, "%s: most severe first", r->id);
		prev = (int)r->severity;
		CHECK(e4t_rule_find(r->id, strlen(r->id)) == (int)i, "find %s",
		      r->id);
	}
	CHECK(e4t_rule(n) == NULL, "past the end");
	CHECK(e4t_rule_find("crtime", 6) == -1, "a prefix is no rule");
	CHECK(e4t_severity_parse("medium") == E4T_SEV_MEDIUM, "parse");
	CHECK(e4t_severity_parse("loud") == -1, "parse unknown");
}

int main(void)
{
	struct ext2_super_block sb;
	struct e4t_dir_nsec dir = { 2, 10, 9 }, flat = { 2, 10, 0 };
	struct e4t_inode in;
	struct got g;

	check_table();
	memset(&sb, 0, sizeof(sb));
	sb.s_mkfs_time = (uint32_t)T0;
	sb.s_wtime = (uint32_t)(T0 + 1000);
	sb.s_mtime = (uint32_t)(T0 + 10);
	sb.s_rev_level = 1;
	sb.s_first_ino = 11;
	e4t_rules_init(&rc, &sb);
	CHECK(rc.last_write == T0 + 1000, "last write: s_wtime");

	/* what the kernel leaves: nothing */
	fresh(&in, 12, T0 + 100, 5);
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "fresh: %s", g.ids);
	/* written later: mtime = ctime later */
	set(&in, E4T_MTIME, T0 + 200, 7);
	set(&in, E4T_CTIME, T0 + 200, 7);
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "written: %s", g.ids);
	/* chmod after creation: ctime later, atime = mtime = crtime */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_CTIME, T0 + 300, 1);
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "chmod: %s", g.ids);

	/* crtime-after-ctime, by a nanosecond */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_CRTIME, T0 + 100, 6);
	CHECK(!strcmp(fire(&in, &dir, &g),
		      "crtime-after-ctime crtime-after-mtime"),
	      "%s", g.ids);
	CHECK(g.last.fields == (1U << E4T_CRTIME | 1U << E4T_MTIME), "fields");
	/* crtime-before-mkfs (whole seconds: the same second is not) */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_CRTIME, T0, 0);
	/* (the whole second of mkfs, within its hour: what mke2fs makes) */
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "%s", g.ids);
	rc.last_write = T0 + 100000; /* (for the hour after mkfs) */
	set(&in, E4T_CRTIME, T0 + 3601, 0);
	fresh(&in, 12, T0 + 3700, 5);
	set(&in, E4T_CRTIME, T0 + 3601, 0);
	CHECK(!strcmp(fire(&in, &dir, &g), "crtime-nsec-zero"), "%s", g.ids);
	/* mke2fs -d: crtime its start, the source's ctime and mtime kept */
	fresh(&in, 12, T0 - 5000, 5);
	set(&in, E4T_CRTIME, T0 + 2, 0);
	CHECK(!strcmp(fire(&in, &dir, &g), "crtime-after-mtime mkfs-made"),
	      "mke2fs -d: %s", g.ids);
	set(&in, E4T_CRTIME, T0 + 3601, 0);
	CHECK(!strcmp(fire(&in, &dir, &g),
		      "crtime-after-ctime crtime-nsec-zero crtime-after-mtime"),
	      "past mkfs's hour: %s", g.ids);
	rc.last_write = T0 + 1000;
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_CRTIME, T0, 0);
	set(&in, E4T_CRTIME, T0 - 1, 999999999);
	CHECK(!strcmp(fire(&in, &dir, &g), "crtime-before-mkfs"), "%s", g.ids);
	CHECK(g.last.ref && !strcmp(g.last.ref, "mkfs_time") &&
		      g.last.ref_sec == T0,
	      "reference");
	/* a crtime never written (zero) is no finding */
	in.ts[E4T_CRTIME].sec = 0;
	in.ts[E4T_CRTIME].nsec = 0;
	in.ts[E4T_CRTIME].flags |= E4T_TS_ZERO;
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "zero crtime: %s", g.ids);
	/* crtime-nsec-zero: not on the reserved inodes mke2fs makes */
	fresh(&in, 11, T0, 0);
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "lost+found: %s", g.ids);
	/* no crtime stored (128-byte inode): no crtime rule */
	fresh(&in, 12, T0 + 100, 0);
	in.inode_size = 128;
	in.extra_isize = 0;
	in.ts[E4T_CRTIME].flags = 0;
	in.ts[E4T_ATIME].flags = in.ts[E4T_MTIME].flags =
		in.ts[E4T_CTIME].flags = E4T_TS_STORED;
	set(&in, E4T_CTIME, T0 + 300, 0);
	CHECK(!strcmp(fire(&in, &dir, &g), ""), "128-byte inode: %s", g.ids);

	/* time-after-last-write: each field that is */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_ATIME, T0 + 1001, 0);
	set(&in, E4T_MTIME, T0 + 1001, 0);
	CHECK(strstr(fire(&in, NULL, &g), "time-after-last-write") != NULL,
	      "%s", g.ids);
	set(&in, E4T_ATIME, T0 + 1000, 999999999); /* same second */
	set(&in, E4T_MTIME, T0 + 1000, 999999999);
	CHECK(!strstr(fire(&in, NULL, &g), "time-after-last-write"), "%s",
	      g.ids);
	/* mtime-after-ctime */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_MTIME, T0 + 100, 6);
	CHECK(!strcmp(fire(&in, &dir, &g), "mtime-after-ctime"), "%s", g.ids);

	/* mtime-nsec-zero: with a baseline of nanoseconds only */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_MTIME, T0 + 50, 0);
	set(&in, E4T_ATIME, T0 + 60, 1);
	CHECK(!strcmp(fire(&in, &dir, &g),
		      "mtime-nsec-zero crtime-after-mtime"),
	      "%s", g.ids);
	CHECK(g.last.rule == (size_t)e4t_rule_find("crtime-after-mtime", 18),
	      "last");
	fire(&in, &dir, &g);
	CHECK(!strcmp(fire(&in, &flat, &g), "crtime-after-mtime"),
	      "all whole seconds: %s", g.ids);
	CHECK(!strcmp(fire(&in, NULL, &g), "crtime-after-mtime"),
	      "no directory: %s", g.ids);
	{
		struct e4t_dir_nsec half = { 2, 11, 5 }; /* 5 of 10 others */

		CHECK(!strcmp(fire(&in, &half, &g), "crtime-after-mtime"),
		      "half is no majority: %s", g.ids);
	}

	/* atime-equals-mtime (touch -d): equal, ctime later, not crtime */
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_ATIME, T0 + 50, 123);
	set(&in, E4T_MTIME, T0 + 50, 123);
	CHECK(!strcmp(fire(&in, &dir, &g),
		      "atime-equals-mtime crtime-after-mtime"),
	      "%s", g.ids);
	set(&in, E4T_ATIME, T0 + 50, 124);
	CHECK(!strcmp(fire(&in, &dir, &g), "crtime-after-mtime"), "%s", g.ids);

	/* --rule: the mask */
	rc.mask = 1ULL << e4t_rule_find("crtime-after-mtime", 18);
	fresh(&in, 12, T0 + 100, 5);
	set(&in, E4T_ATIME, T0 + 50, 123);
	set(&in, E4T_MTIME, T0 + 50, 123);
	CHECK(!strcmp(fire(&in, &dir, &g), "crtime-after-mtime"), "%s", g.ids);
	return unit_report("unit_rules");
}
