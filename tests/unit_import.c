/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit_import.c --- the import engine (lib/engine/import.c) without the CLI,
 * on images/ext4-4k.img.xz (unpacked into $TMPDIR; every crtime there is
 * 1796288987) with a manifest built here: matching by path and by inode,
 * two entries that disagree on one inode (hard links), an unmatched one,
 * each policy, a dry run that writes nothing and a write re-read
 * afterwards; and the manifests e4t_manifest_read refuses.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/e4time.h"
#include "unit.h"

#define IMG_CRTIME 1796288987LL

static char path[PATH_MAX];
/* crtime_now() of <12>, <15>, <16>, <19> as unpacked */
static int64_t before12, before15, before16, before19;

#define T(s, n) "{\"sec\":" #s ",\"nsec\":" #n "}"
/* lines 1..7; /fifo is <19>, <14> is /dir/sub; <16> has two names */
static const char manifest[] =
	"{\"e4time_manifest\":1,\"image\":\"old.img\"}\n"
	"{\"path\":\"/hello.txt\",\"ino\":12,\"crtime\":" T(
		1000000000,
		500000000) "}\n"
			   "{\"path\":\"/dir/"
			   "hardlink-b\",\"ino\":16,\"crtime\":" T(
				   1000000001,
				   0) "}\n"
				      "{\"path\":\"/"
				      "hardlink-a\",\"ino\":16,\"crtime\":" T(
					      1000000002,
					      0) "}\n"
						 "{\"path\":\"/"
						 "nope\",\"ino\":9999,"
						 "\"crtime\":" T(
							 1000000000,
							 0) "}\n"
							    "\n"
							    "{\"path\":\"/dir/"
							    "sub/"
							    "deep.txt\","
							    "\"ino\":15,"
							    "\"crtime\":" T(
								    2000000000,
								    0) "}\n"
								       "{\"path"
								       "\":\"/"
								       "fifo\","
								       "\"ino\""
								       ":14,"
								       "\"crtim"
								       "e\":" T(1000000003, 0) ",\"mtime\":" T(
									       1000000004,
									       0) "}\n";

struct rec {
	unsigned long line;
	ext2_ino_t ino;
	enum e4t_import_outcome outcome;
	unsigned fields;
	struct e4t_ts old_crtime, new_crtime;
};

struct recs {
	struct rec v[32];
	size_t n;
	size_t stop_at; /* return non-zero at this record (1-based) */
};

static int on_rec(const struct e4t_import_rec *r, void *priv)
{
	struct recs *rs = priv;
	struct rec *x;

	if (rs->n == sizeof(rs->v) / sizeof(rs->v[0]))
		return ENOSPC;
	x = &rs->v[rs->n++];
	x->line = r->line;
	x->ino = r->ino;
	x->outcome = r->outcome;
	x->fields = r->fields;
	x->old_crtime = r->old_ts[E4T_CRTIME];
	x->new_crtime = r->new_ts[E4T_CRTIME];
	CHECK(r->path && r->path_len == strlen(r->path), "line %lu: path",
	      r->line);
	return rs->n == rs->stop_at ? EIO : 0;
}

static struct e4t_manifest *read_str(const char *text, errcode_t *err,
				     struct e4t_manifest_bad *bad)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	struct e4t_manifest *m = NULL;

	if (!fp) {
		*err = errno;
		return NULL;
	}
	*err = e4t_manifest_read(fp, &m, bad);
	fclose(fp);
	return m;
}

/* The threads of the runs below (struct e4t_import_opts.threads). */
static int threads;

/* One run on the image as it is (opened read-only unless wo). */
static errcode_t run(const struct e4t_manifest *m, enum e4t_import_match how,
		     enum e4t_policy pol, unsigned fields,
		     const struct e4t_write_opts *wo, struct recs *rs,
		     struct e4t_import_stats *st)
{
	struct e4t_import_opts o = {
		.manifest = m,
		.match = how,
		.fields = fields,
		.policy = pol,
		.dry_run = !wo,
		.record = on_rec,
		.priv = rs,
		.threads = threads,
	};
	struct e4t_tree_opts topts = { 0 };
	struct e4t_image *img;
	struct e4t_tree *tree;
	errcode_t err, err2;

	err = wo ? e4t_image_open_write(path, 0, wo, &img)
		 : e4t_image_open(path, 0, &img);
	if (err)
		return err;
	err = e4t_tree_load(img, &topts, &tree);
	if (!err) {
		err = e4t_import_run(img, tree, &o, st);
		e4t_tree_free(tree);
	}
	err2 = wo ? e4t_image_close_write(img) : 0;
	if (!wo)
		e4t_image_close(img);
	return err ? err : err2;
}

static int has(const struct recs *rs, size_t i, unsigned long line,
	       ext2_ino_t ino, enum e4t_import_outcome o)
{
	return i < rs->n && rs->v[i].line == line && rs->v[i].ino == ino &&
	       rs->v[i].outcome == o;
}

/* The same records, in the same order? */
static int same_recs(const struct recs *a, const struct recs *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct rec *x = &a->v[i], *y = &b->v[i];

		if (x->line != y->line || x->ino != y->ino ||
		    x->outcome != y->outcome || x->fields != y->fields ||
		    e4t_ts_cmp(&x->old_crtime, &y->old_crtime) ||
		    e4t_ts_cmp(&x->new_crtime, &y->new_crtime))
			return 0;
	}
	return 1;
}

/* crtime of ino in tenths of a second; -1 when unreadable */
static int64_t crtime_now(ext2_ino_t ino)
{
	struct e4t_tree_opts topts = { 0 };
	struct e4t_image *img;
	struct e4t_tree *tree;
	struct e4t_inode in;
	int64_t sec = -1;

	if (e4t_image_open(path, 0, &img))
		return -1;
	if (!e4t_tree_load(img, &topts, &tree)) {
		if (!e4t_tree_inode(tree, ino, &in))
			sec = in.ts[E4T_CRTIME].sec * 10 +
			      in.ts[E4T_CRTIME].nsec / 100000000;
		e4t_tree_free(tree);
	}
	e4t_image_close(img);
	return sec;
}

static void test_read(struct e4t_manifest **ret)
{
	static const char *const bad[] = {
		/* not JSON, header not first, unknown version, dup key */
		"{\"path\":\"/a\",\"ino\":1}\nnot json\n",
		"{\"path\":\"/a\",\"ino\":1}\n{\"e4time_manifest\":1}\n",
		"\n{\"e4time_manifest\":2}\n",
		"{\"path\":\"/a\",\"ino\":1,\"ino\":2}\n",
	};
	static const errcode_t want[] = { E4T_ERR_MANIFEST, E4T_ERR_MANIFEST,
					  E4T_ERR_MANIFEST,
					  E4T_ERR_MANIFEST_DUP };
	static const unsigned long line[] = { 2, 2, 2, 1 };
	struct e4t_manifest_bad b;
	struct e4t_manifest *m;
	errcode_t err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		m = read_str(bad[i], &err, &b);
		CHECK(!m && err == want[i] && b.line == line[i],
		      "bad manifest %zu: %s, line %lu", i, error_message(err),
		      b.line);
	}
	CHECK(b.why.dup_key && !strcmp(b.why.key, "ino"), "dup key '%s'",
	      b.why.key);
	m = read_str(bad[2], &err, &b);
	CHECK(b.unknown_version, "unknown version");
	m = read_str("", &err, &b);
	CHECK(m && !err && e4t_manifest_count(m) == 0, "empty manifest");
	e4t_manifest_free(m);

	*ret = read_str(manifest, &err, &b);
	CHECK(*ret && !err, "manifest: %s line %lu", error_message(err),
	      b.line);
	CHECK(e4t_manifest_count(*ret) == 6, "%zu entries",
	      e4t_manifest_count(*ret));
}

/*
 * Keys of an object past the 32 the reader keeps without a malloc, an
 * escaped key, and a duplicate among them: the first second one, as
 * written, is the one reported.
 */
static void test_many_keys(void)
{
	struct e4t_manifest_entry e;
	struct e4t_manifest_why why;
	char line[2048];
	size_t n = 0;
	int i;
	errcode_t err;

	n += (size_t)snprintf(line + n, sizeof(line) - n, "{\"path\":\"/a\"");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      ",\"k%02d\":%d", i, i);
	n += (size_t)snprintf(line + n, sizeof(line) - n,
			      ",\"\\u006b07\":1,\"k39\":2}");
	err = e4t_manifest_parse_line(line, n, &e, &why);
	CHECK(err == E4T_ERR_MANIFEST_DUP && why.dup_key &&
		      !strcmp(why.key, "k07"),
	      "41 keys, an escaped duplicate: %s '%s'", error_message(err),
	      why.key);
	e4t_manifest_entry_free(&e);
	n = (size_t)snprintf(line, sizeof(line), "{\"path\":\"/a/\\\"b\\n\"");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      ",\"k%02d\":{\"x\":[1,\"y\"]}", i);
	n += (size_t)snprintf(line + n, sizeof(line) - n, "}");
	err = e4t_manifest_parse_line(line, n, &e, &why);
	CHECK(!err && e.path_len == 6 && !memcmp(e.path, "/a/\"b\n", 6),
	      "41 keys: %s", error_message(err));
	e4t_manifest_entry_free(&e);
}

static void test_dry(const struct e4t_manifest *m)
{
	struct e4t_import_stats st, st2;
	struct recs rs = { .n = 0 }, rs2 = { .n = 0 };
	errcode_t err;

	/* by path, earlier: <12> and <19> would change; <15> is later */
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_EARLIER, 0, NULL, &rs, &st);
	CHECK(!err, "by path: %s", error_message(err));
	/* two threads: the same records in the same order, the same counts */
	threads = 2;
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_EARLIER, 0, NULL, &rs2,
		  &st2);
	threads = 0;
	CHECK(!err && same_recs(&rs, &rs2) && st2.changed == st.changed &&
		      st2.unchanged == st.unchanged &&
		      st2.ambiguous == st.ambiguous &&
		      st2.unmatched == st.unmatched && st2.agree == st.agree,
	      "two threads: %s, %zu records", error_message(err), rs2.n);
	CHECK(st.entries == 6 && st.changed == 2 && st.unchanged == 1 &&
		      st.ambiguous == 2 && st.unmatched == 1 && !st.refused &&
		      !st.no_root,
	      "by path: %zu %lu %lu %lu %lu %lu", st.entries, st.changed,
	      st.unchanged, st.ambiguous, st.unmatched, st.refused);
	CHECK(rs.n == 6, "%zu records", rs.n);
	/* inode order, then the unmatched ones */
	CHECK(has(&rs, 0, 2, 12, E4T_IMPORT_WOULD_CHANGE) &&
		      rs.v[0].fields == 1U << E4T_CRTIME &&
		      rs.v[0].old_crtime.sec == IMG_CRTIME &&
		      rs.v[0].new_crtime.sec == 1000000000 &&
		      rs.v[0].new_crtime.nsec == 500000000,
	      "record 0");
	CHECK(has(&rs, 1, 7, 15, E4T_IMPORT_UNCHANGED) && !rs.v[1].fields,
	      "record 1");
	CHECK(has(&rs, 2, 3, 16, E4T_IMPORT_AMBIGUOUS) &&
		      has(&rs, 3, 4, 16, E4T_IMPORT_AMBIGUOUS),
	      "records 2, 3: ambiguous");
	CHECK(has(&rs, 4, 8, 19, E4T_IMPORT_WOULD_CHANGE), "record 4");
	CHECK(has(&rs, 5, 5, 0, E4T_IMPORT_UNMATCHED), "record 5");
	CHECK(!strcmp(e4t_import_outcome_name(E4T_IMPORT_WOULD_CHANGE),
		      "would_change") &&
		      !strcmp(e4t_import_outcome_name(E4T_IMPORT_UNMATCHED),
			      "unmatched"),
	      "outcome names");

	/* by inode, always, crtime and mtime: the line 8 entry is <14> */
	rs.n = 0;
	err = run(m, E4T_IMPORT_BY_INODE, E4T_POLICY_ALWAYS,
		  1U << E4T_CRTIME | 1U << E4T_MTIME, NULL, &rs, &st);
	CHECK(!err && st.changed == 3 && st.unchanged == 0 &&
		      st.ambiguous == 2 && st.unmatched == 1,
	      "by inode: %s %lu %lu %lu %lu", error_message(err), st.changed,
	      st.unchanged, st.ambiguous, st.unmatched);
	CHECK(has(&rs, 0, 2, 12, E4T_IMPORT_WOULD_CHANGE) &&
		      has(&rs, 1, 8, 14, E4T_IMPORT_WOULD_CHANGE) &&
		      rs.v[1].fields == (1U << E4T_CRTIME | 1U << E4T_MTIME) &&
		      has(&rs, 2, 7, 15, E4T_IMPORT_WOULD_CHANGE) &&
		      has(&rs, 5, 5, 0, E4T_IMPORT_UNMATCHED),
	      "by inode: records");

	/* missing: no crtime here is 0 */
	rs.n = 0;
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_MISSING, 0, NULL, &rs, &st);
	CHECK(!err && st.changed == 0 && st.unchanged == 3, "missing: %lu %lu",
	      st.changed, st.unchanged);

	/* only mtime: the entries agree on it (absent) where they land */
	rs.n = 0;
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_ALWAYS, 1U << E4T_MTIME,
		  NULL, &rs, &st);
	CHECK(!err && st.changed == 1 && st.ambiguous == 0 && st.unchanged == 3,
	      "mtime: %lu %lu %lu", st.changed, st.ambiguous, st.unchanged);

	/* the callback stops the run; its value is returned */
	memset(&rs, 0, sizeof(rs));
	rs.stop_at = 2;
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_EARLIER, 0, NULL, &rs, &st);
	CHECK(err == EIO && rs.n == 2, "stop: %s after %zu", error_message(err),
	      rs.n);

	CHECK(crtime_now(12) == before12 && crtime_now(15) == before15 &&
		      crtime_now(16) == before16 && crtime_now(19) == before19,
	      "a dry run writes nothing");
}

static void test_write(const struct e4t_manifest *m)
{
	struct e4t_write_opts wo = { .no_undo = 1 };
	struct e4t_import_stats st;
	struct recs rs = { .n = 0 };
	errcode_t err;

	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_EARLIER, 0, &wo, &rs, &st);
	CHECK(!err && st.changed == 2 && st.ambiguous == 2, "write: %s %lu %lu",
	      error_message(err), st.changed, st.ambiguous);
	CHECK(has(&rs, 0, 2, 12, E4T_IMPORT_CHANGED) &&
		      has(&rs, 4, 8, 19, E4T_IMPORT_CHANGED),
	      "write: records");
	CHECK(crtime_now(12) == 10000000005LL, "<12> %lld",
	      (long long)crtime_now(12));
	CHECK(crtime_now(19) == 10000000030LL, "<19> %lld",
	      (long long)crtime_now(19));
	CHECK(crtime_now(15) == before15 && crtime_now(16) == before16,
	      "<15> <16> unchanged");
	/* again: now nothing is earlier */
	rs.n = 0;
	err = run(m, E4T_IMPORT_BY_PATH, E4T_POLICY_EARLIER, 0, &wo, &rs, &st);
	CHECK(!err && st.changed == 0 && st.unchanged == 3, "again: %lu %lu",
	      st.changed, st.unchanged);
}

/* --map and --strip-prefix: whole components, the longest OLD wins. */
static void test_pathmap(void)
{
	static const struct {
		const char *in, *out; /* out NULL: no rule matches */
	} cases[] = {
		{ "/srv/old", "/data" },
		{ "/srv/old/a/b", "/data/a/b" },
		{ "/srv/older/a", NULL },
		{ "/srv/old/share", "/new/share" },
		{ "/srv/old/share/x", "/new/share/x" },
		{ "/srv/old/shared", "/data/shared" },
		{ "/strip/me/f", "/f" },
		{ "/strip/me", "/" },
		{ "/elsewhere", NULL },
	};
	struct e4t_pathmap *pm = NULL, *root = NULL;
	size_t i, len;
	char *out;

	CHECK(e4t_pathmap_add(&pm, "/srv/old/", "/data") == 0, "add");
	CHECK(e4t_pathmap_add(&pm, "/srv/old/share", "/new/share//") == 0,
	      "add a longer one");
	CHECK(e4t_pathmap_add(&pm, "/strip/me", "/") == 0, "strip");
	CHECK(e4t_pathmap_add(&pm, "/srv/old", "/x") == EEXIST, "OLD twice");
	CHECK(e4t_pathmap_add(&pm, "rel", "/x") == EINVAL, "relative OLD");
	CHECK(e4t_pathmap_add(&pm, "/a", "") == EINVAL, "empty NEW");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(e4t_pathmap_apply(pm, cases[i].in, strlen(cases[i].in),
					&out, &len) == 0,
		      "apply %s", cases[i].in);
		if (!cases[i].out)
			CHECK(!out, "%s: no rule, got %s", cases[i].in, out);
		else
			CHECK(out && !strcmp(out, cases[i].out) &&
				      len == strlen(out),
			      "%s: want %s, got %s", cases[i].in, cases[i].out,
			      out ? out : "(none)");
		free(out);
	}
	CHECK(e4t_pathmap_add(&root, "/", "/data/share") == 0, "add /");
	CHECK(e4t_pathmap_apply(root, "/", 1, &out, &len) == 0 && out &&
		      !strcmp(out, "/data/share"),
	      "/ -> /data/share: %s", out ? out : "(none)");
	free(out);
	CHECK(e4t_pathmap_apply(root, "/a/b", 4, &out, &len) == 0 && out &&
		      !strcmp(out, "/data/share/a/b"),
	      "/a/b -> /data/share/a/b: %s", out ? out : "(none)");
	free(out);
	e4t_pathmap_free(pm);
	e4t_pathmap_free(root);
}

int main(void)
{
	const char *top = getenv("TOP_SRCDIR"), *tmp = getenv("TMPDIR");
	struct e4t_manifest *m = NULL;
	char cmd[3 * PATH_MAX];

	if (!top)
		top = ".";
	if (!tmp)
		tmp = "/tmp";
	snprintf(path, sizeof(path), "%s/e4time-unit-import.%ld.img", tmp,
		 (long)getpid());
	snprintf(cmd, sizeof(cmd), "xz -dc '%s/images/ext4-4k.img.xz' > '%s'",
		 top, path);
	CHECK(system(cmd) == 0, "unpack ext4-4k");
	before12 = crtime_now(12);
	before15 = crtime_now(15);
	before16 = crtime_now(16);
	before19 = crtime_now(19);
	CHECK(before12 / 10 == IMG_CRTIME && before19 / 10 == IMG_CRTIME,
	      "crtimes as unpacked: %lld", (long long)before12);
	test_pathmap();
	test_many_keys();
	test_read(&m);
	if (m) {
		test_dry(m);
		test_write(m);
	}
	e4t_manifest_free(m);
	unlink(path);
	return unit_report("unit_import");
}
