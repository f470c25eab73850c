/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * findings.c --- the findings of one anomalies run, kept for a report:
 * the journal rules' first (sorted by inode, named when the walk reaches
 * their inode), then the inode rules' in walk order, each inode once
 * (hard links: its first name).  The report groups them by rule.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4time.h"

static char *copy_path(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

static int keep(const struct e4t_finding *f, void *priv)
{
	struct e4t_findings *fs = priv;
	struct e4t_kept *k;

	if (e4t_grow(&fs->k, &fs->cap, fs->n + 1, sizeof(*fs->k), 1024)) {
		fs->err = ENOMEM;
		return ENOMEM;
	}
	k = &fs->k[fs->n];
	memset(k, 0, sizeof(*k));
	k->f = *f;
	k->seq = fs->next_seq++;
	fs->n++;
	if (fs->row) {
		k->path = copy_path(fs->row->path, fs->row->path_len);
		if (!k->path) {
			fs->err = ENOMEM;
			return ENOMEM;
		}
		k->path_len = fs->row->path_len;
	}
	return 0;
}

static int cmp_ino(const void *x, const void *y)
{
	const struct e4t_kept *a = x, *b = y;

	if (a->f.ino != b->f.ino)
		return a->f.ino < b->f.ino ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_rule(const void *x, const void *y)
{
	const struct e4t_kept *a = x, *b = y;

	if (a->f.rule != b->f.rule)
		return a->f.rule < b->f.rule ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void e4t_findings_init(struct e4t_findings *fs, const struct e4t_rules_ctx *rc)
{
	memset(fs, 0, sizeof(*fs));
	fs->rc = rc;
}

errcode_t e4t_findings_journal(struct e4t_findings *fs, struct e4t_image *img,
			       struct e4t_journal *j)
{
	errcode_t err;

	e4t_jcoverage_of(j, &fs->cov);
	err = e4t_rules_journal_cov(img, j, fs->rc, keep, fs, &fs->cov);

	if (!err && fs->err)
		err = fs->err;
	if (err)
		return err;
	fs->njournal = fs->n;
	if (fs->n)
		qsort(fs->k, fs->n, sizeof(*fs->k), cmp_ino);
	return 0;
}

static int seen(const struct e4t_findings *fs, ext2_ino_t ino)
{
	return ino / 64 < fs->nseen_words &&
	       (fs->seen[ino / 64] & (1ULL << (ino % 64)));
}

static int on_row(const struct e4t_row *row, void *priv)
{
	struct e4t_findings *fs = priv;
	const struct e4t_inode *in = row->inode;
	ext2_ino_t ino = in->ino;
	int ret;

	if (ino / 64 >= fs->nseen_words || seen(fs, ino))
		return 0; /* hard links: the first name */
	fs->seen[ino / 64] |= 1ULL << (ino % 64);
	/* the journal's findings on this inode get its name */
	if (fs->njournal) {
		struct e4t_kept *j;
		size_t lo = E4T_LOWER_BOUND(fs->k, fs->njournal,
					    struct e4t_kept, f.ino, ino);

		for (j = fs->k + lo;
		     j < fs->k + fs->njournal && j->f.ino == ino; j++) {
			j->path = copy_path(row->path, row->path_len);
			if (!j->path)
				return ENOMEM;
			j->path_len = row->path_len;
		}
	}
	fs->row = row;
	ret = e4t_rules_inode(
		fs->rc, in,
		row->parent
			? e4t_dir_nsec_find(fs->dirs, fs->ndirs, row->parent)
			: NULL,
		keep, fs);
	fs->row = NULL;
	return ret;
}

errcode_t e4t_findings_walk(struct e4t_findings *fs, struct e4t_image *img,
			    struct e4t_tree *tree, ext2_ino_t start,
			    const char *spec)
{
	errcode_t err;

	fs->nseen_words = img->fs->super->s_inodes_count / 64 + 1;
	fs->seen = calloc(fs->nseen_words, sizeof(*fs->seen));
	if (!fs->seen)
		return ENOMEM;
	err = e4t_tree_dir_nsec(tree, &fs->dirs, &fs->ndirs);
	if (!err)
		err = e4t_tree_walk(tree, start, spec, on_row, fs);
	if (!err && fs->err)
		err = fs->err;
	return err;
}

void e4t_findings_copies(struct e4t_findings *fs,
			 const struct e4t_copyidx *copies)
{
	int r_back = e4t_rule_find("journal-backdated", 17);
	int r_create = e4t_rule_find("journal-set-at-create", 21);
	uint64_t mask = fs->rc->mask;
	size_t i, k = 0, nj = fs->njournal;

	for (i = 0; i < fs->n; i++) {
		struct e4t_kept *x = &fs->k[i];
		struct e4t_finding *f = &x->f;

		if (i < nj && f->copy_check != E4T_COPY_DECIDED) {
			int copy = e4t_copy_deferred(
				copies, f->copy_check, &f->ts[E4T_CRTIME],
				&f->ts[E4T_CTIME], &f->old_ts[E4T_MTIME],
				&f->old_ts[E4T_CTIME]);
			if (f->copy_check == E4T_COPY_UNLESS && copy) {
				free(x->path);
				fs->njournal--;
				continue;
			}
			if (f->copy_check == E4T_COPY_BACK && copy) {
				if (r_create < 0 || !((mask >> r_create) & 1)) {
					free(x->path);
					fs->njournal--;
					continue;
				}
				f->rule = (size_t)r_create;
				f->fields |= 1U << E4T_CRTIME;
				f->old_fields = f->fields;
			} else if (f->copy_check == E4T_COPY_BACK &&
				   (r_back < 0 || !((mask >> r_back) & 1))) {
				free(x->path);
				fs->njournal--;
				continue;
			} else if (f->copy_check == E4T_COPY_BACK) {
				f->rule = (size_t)r_back;
			}
			f->copy_check = E4T_COPY_DECIDED;
		}
		fs->k[k++] = *x;
	}
	fs->n = k;
}

void e4t_findings_reached_only(struct e4t_findings *fs)
{
	size_t i, k = 0;

	for (i = 0; i < fs->n; i++) {
		if (i < fs->njournal && !seen(fs, fs->k[i].f.ino)) {
			free(fs->k[i].path);
			continue;
		}
		fs->k[k++] = fs->k[i];
	}
	fs->n = k;
}

void e4t_findings_by_rule(struct e4t_findings *fs, size_t *counts)
{
	size_t i;

	if (fs->n) /* journal first, then the walk's: by rule, kept order */
		qsort(fs->k, fs->n, sizeof(*fs->k), cmp_rule);
	memset(counts, 0, e4t_rule_count() * sizeof(*counts));
	for (i = 0; i < fs->n; i++)
		counts[fs->k[i].f.rule]++;
}

void e4t_findings_free(struct e4t_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->k[i].path);
	free(fs->k);
	free(fs->seen);
	free(fs->dirs);
	memset(fs, 0, sizeof(*fs));
}
