/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_backfill.c --- e4t_backfill_run() (lib/engine/backfill.c) without the
 * tool: on images/samba-dosattrib.img.xz (the create times a real Samba
 * server stored in user.DOSATTRIB), a dry run under every policy, counted
 * per reason, with the records it hands out; a callback that stops the
 * run; a real write on a scratch copy, then the crtime read back.  On
 * images/ext4-4k.img.xz (3035 files, some 48 chunks), one thread and two
 * hand out the same records in the same order.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/e4time.h"
#include "lib/sources/sources.h"
#include "unit.h"

static char path[PATH_MAX];

/* What the callbacks saw. */
struct seen {
	struct e4t_backfill_rec *v; /* path and xattr are copies */
	size_t n, cap;
	unsigned chunks; /* chunk_done calls */
	size_t stop_at;	 /* > 0: the record callback returns 42 there */
};

static int on_record(const struct e4t_backfill_rec *r, void *priv)
{
	struct seen *s = priv;
	struct e4t_backfill_rec *c;

	if (s->stop_at && s->n + 1 == s->stop_at)
		return 42;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		void *p = realloc(s->v, cap * sizeof(*s->v));

		if (!p)
			return ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	c = &s->v[s->n++];
	*c = *r;
	c->path = strndup(r->path, r->path_len);
	c->xattr = r->xattr ? strdup(r->xattr) : NULL;
	return 0;
}

static int on_chunk(void *priv)
{
	((struct seen *)priv)->chunks++;
	return 0;
}

static void seen_free(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free((char *)s->v[i].path);
		free((char *)s->v[i].xattr);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* One run on the image at path; the image is opened for writing (no undo
 * file) unless dry_run. */
static errcode_t run(const char *source, enum e4t_policy policy, int dry_run,
		     int threads, struct seen *s, struct e4t_backfill_stats *st)
{
	struct e4t_write_opts wo = { .no_undo = 1, .dry_run = dry_run };
	struct e4t_tree_opts topts = { 0 };
	struct e4t_backfill_opts bo = { .policy = policy,
					.dry_run = dry_run,
					.threads = threads,
					.record = on_record,
					.chunk_done = on_chunk,
					.priv = s };
	struct e4t_source *src = NULL;
	struct e4t_image *img = NULL;
	struct e4t_tree *tree = NULL;
	ext2_ino_t start = 0;
	errcode_t err, cerr;

	err = e4t_source_parse(source, &src);
	if (!err)
		err = e4t_image_open_write(path, 0, &wo, &img);
	if (!err)
		err = e4t_image_resolve(img, "/", &start);
	if (!err)
		err = e4t_tree_load(img, &topts, &tree);
	bo.src = src;
	if (!err)
		err = e4t_backfill_run(img, tree, start, "/", &bo, st);
	e4t_tree_free(tree);
	e4t_source_free(src);
	if (!img)
		return err;
	if (dry_run) {
		e4t_image_close(img);
		return err;
	}
	cerr = e4t_image_close_write(img);
	return err ? err : cerr;
}

static unsigned long total(const struct e4t_backfill_stats *st)
{
	unsigned long n = 0;
	int r;

	for (r = 0; r < E4T_BF_NREASONS; r++)
		n += st->count[r];
	return n;
}

static void test_reasons(void)
{
	CHECK(!strcmp(e4t_bf_reason_name(E4T_BF_CHANGED), "changed"), "name");
	CHECK(!strcmp(e4t_bf_reason_name(E4T_BF_ALREADY_SET),
		      "crtime_already_set"),
	      "name");
	CHECK(!strcmp(e4t_bf_reason_text(E4T_BF_NO_TIME),
		      "no create time in it"),
	      "text");
	CHECK(e4t_bf_reason_name(E4T_BF_NREASONS) == NULL, "out of range");
	CHECK(e4t_bf_reason_text((enum e4t_bf_reason) - 1) == NULL,
	      "out of range");
}

/* The Samba image: 12 files, 10 with a DOSATTRIB create time, of which 2
 * (2040, 2110) are later than the crtime. */
static void test_dry_runs(void)
{
	struct e4t_backfill_stats st;
	struct seen s = { 0 };
	errcode_t err;
	size_t i;

	err = run("dosattrib", E4T_POLICY_EARLIER, 1, 1, &s, &st);
	CHECK(!err, "earlier: %s", error_message(err));
	CHECK(st.scanned == 12, "scanned %lu", st.scanned);
	CHECK(st.count[E4T_BF_CHANGED] == 8, "changed %lu",
	      st.count[E4T_BF_CHANGED]);
	CHECK(st.count[E4T_BF_NO_XATTR] == 2, "no xattr %lu",
	      st.count[E4T_BF_NO_XATTR]);
	CHECK(st.count[E4T_BF_NOT_EARLIER] == 2, "not earlier %lu",
	      st.count[E4T_BF_NOT_EARLIER]);
	CHECK(total(&st) == 12 && st.write_err == 0, "total %lu", total(&st));
	CHECK(s.n == 12 && s.chunks == 1, "%zu records, %u chunks", s.n,
	      s.chunks);
	for (i = 1; i < s.n; i++)
		CHECK(s.v[i - 1].ino < s.v[i].ino, "inode order at %zu", i);
	if (s.n == 12) {
		/* / and /lost+found first: no xattr, no source time */
		CHECK(!strcmp(s.v[0].path, "/") && s.v[0].ino == 2 &&
			      s.v[0].reason == E4T_BF_NO_XATTR &&
			      !s.v[0].source_time.flags && !s.v[0].xattr,
		      "record 0: %s <%u> %d", s.v[0].path, s.v[0].ino,
		      s.v[0].reason);
		CHECK(!strcmp(s.v[2].path, "/y2k.txt") && s.v[2].ino == 12 &&
			      s.v[2].reason == E4T_BF_CHANGED &&
			      s.v[2].version == 5 && s.v[2].xattr &&
			      !strcmp(s.v[2].xattr, "user.DOSATTRIB") &&
			      s.v[2].source_time.sec == 946684799 &&
			      s.v[2].source_time.nsec == 0 &&
			      (s.v[2].crtime.flags & E4T_TS_STORED),
		      "record 2: %s <%u> %d v%d", s.v[2].path, s.v[2].ino,
		      s.v[2].reason, s.v[2].version);
	}
	seen_free(&s);

	err = run("dosattrib", E4T_POLICY_MISSING, 1, 0, &s, &st);
	CHECK(!err && st.count[E4T_BF_ALREADY_SET] == 10 &&
		      st.count[E4T_BF_NO_XATTR] == 2 && s.n == 12,
	      "missing: %lu already set", st.count[E4T_BF_ALREADY_SET]);
	seen_free(&s);

	err = run("dosattrib", E4T_POLICY_ALWAYS, 1, 2, &s, &st);
	CHECK(!err && st.count[E4T_BF_CHANGED] == 10 &&
		      st.count[E4T_BF_NO_XATTR] == 2 && s.n == 12,
	      "always: %lu changed", st.count[E4T_BF_CHANGED]);
	seen_free(&s);

	/* a source none of the files has */
	err = run("systemd", E4T_POLICY_ALWAYS, 1, 1, &s, &st);
	CHECK(!err && st.count[E4T_BF_NO_XATTR] == 12 && s.n == 12,
	      "systemd: %lu no xattr", st.count[E4T_BF_NO_XATTR]);
	seen_free(&s);

	/* a callback stops the run: its value comes back */
	s.stop_at = 3;
	err = run("dosattrib", E4T_POLICY_EARLIER, 1, 1, &s, &st);
	CHECK(err == 42 && s.n == 2 && s.chunks == 1, "stopped: %ld, %zu",
	      (long)err, s.n);
	seen_free(&s);

	err = run("dosattrib", E4T_POLICY_EARLIER, 1, 3, &s, &st);
	CHECK(err == EINVAL && s.n == 0, "3 threads: %ld", (long)err);
	seen_free(&s);
}

/* A real write, then the crtime read back, and a second run that finds
 * the times equal. */
static void test_write(void)
{
	struct e4t_backfill_stats st;
	struct seen s = { 0 };
	struct e4t_image *img;
	struct e4t_inode in;
	errcode_t err;

	err = run("dosattrib", E4T_POLICY_EARLIER, 0, 1, &s, &st);
	CHECK(!err && st.write_err == 0, "write: %s", error_message(err));
	CHECK(st.count[E4T_BF_CHANGED] == 8 && s.n == 12, "changed %lu",
	      st.count[E4T_BF_CHANGED]);
	seen_free(&s);

	err = e4t_image_open(path, 0, &img);
	CHECK(!err, "reopen: %s", error_message(err));
	if (!err) {
		err = e4t_image_read_inode(img, 12, &in);
		CHECK(!err && in.ts[E4T_CRTIME].sec == 946684799 &&
			      in.ts[E4T_CRTIME].nsec == 0,
		      "/y2k.txt crtime %lld.%09u",
		      (long long)in.ts[E4T_CRTIME].sec, in.ts[E4T_CRTIME].nsec);
		e4t_image_close(img);
	}

	err = run("dosattrib", E4T_POLICY_EARLIER, 1, 1, &s, &st);
	CHECK(!err && st.count[E4T_BF_CHANGED] == 0 &&
		      st.count[E4T_BF_EQUAL] == 8 &&
		      st.count[E4T_BF_NOT_EARLIER] == 2,
	      "again: %lu changed, %lu equal", st.count[E4T_BF_CHANGED],
	      st.count[E4T_BF_EQUAL]);
	seen_free(&s);
}

static int same_records(const struct seen *a, const struct seen *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct e4t_backfill_rec *x = &a->v[i], *y = &b->v[i];

		if (x->ino != y->ino || x->reason != y->reason ||
		    x->path_len != y->path_len || strcmp(x->path, y->path) ||
		    e4t_ts_cmp(&x->crtime, &y->crtime))
			return 0;
	}
	return 1;
}

/* Many chunks: the same records, in the same order, whatever the threads. */
static void test_threads(void)
{
	struct e4t_backfill_stats st1, st2;
	struct seen s1 = { 0 }, s2 = { 0 };
	errcode_t err;

	err = run("dosattrib", E4T_POLICY_ALWAYS, 1, 1, &s1, &st1);
	CHECK(!err && s1.n == 3035 && s1.chunks > 10,
	      "1 thread: %s, %zu records, %u chunks", error_message(err), s1.n,
	      s1.chunks);
	err = run("dosattrib", E4T_POLICY_ALWAYS, 1, 2, &s2, &st2);
	CHECK(!err && s2.chunks == s1.chunks, "2 threads: %s, %u chunks",
	      error_message(err), s2.chunks);
	CHECK(same_records(&s1, &s2), "same records, same order");
	CHECK(st1.scanned == st2.scanned &&
		      !memcmp(st1.count, st2.count, sizeof(st1.count)),
	      "same counts");
	seen_free(&s1);
	seen_free(&s2);
}

static int unpack(const char *top, const char *image)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "xz -dc '%s/images/%s.img.xz' > '%s'", top,
		 image, path);
	return system(cmd);
}

int main(void)
{
	const char *top = getenv("TOP_SRCDIR"), *tmp = getenv("TMPDIR");

	if (!top)
		top = ".";
	if (!tmp)
		tmp = "/tmp";
	snprintf(path, sizeof(path), "%s/e4time-unit-backfill.%ld.img", tmp,
		 (long)getpid());
	test_reasons();
	CHECK(unpack(top, "samba-dosattrib") == 0, "unpack samba-dosattrib");
	test_dry_runs();
	test_write();
	CHECK(unpack(top, "ext4-4k") == 0, "unpack ext4-4k");
	test_threads();
	unlink(path);
	return unit_report("unit_backfill");
}
