/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal_open.c --- what the journal-reading commands (journal, audit,
 * history) share: opening and loading an image's journal, and its
 * feature words.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "cmd.h"
#include "report.h"

/* Open the image's journal and load it; said on failure. */
struct e4t_journal *open_journal_status(struct e4t_image *img, const char *path,
					unsigned flags, struct warn_ctx *wc,
					int *status)
{
	struct e4t_journal *j;
	errcode_t err;

	err = e4t_journal_open(img, path, &j);
	if (err) {
		report(img->name, path ? path : "journal", err);
		*status = EXIT_IMAGE;
		return NULL;
	}
	err = e4t_journal_load(j, flags, lib_warn, wc);
	if (err) {
		report(img->name, "journal", err);
		e4t_journal_close(j);
		*status = err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE;
		return NULL;
	}
	return j;
}

/* The journal's features (cmd.h). */
size_t journal_features(const struct e4t_jinfo *in, const char **names)
{
	static const struct {
		int incompat;
		uint32_t bit;
		const char *name;
	} f[] = {
		{ 0, 0x1, "checksum" },	    { 1, 0x1, "revoke" },
		{ 1, 0x2, "64bit" },	    { 1, 0x4, "async_commit" },
		{ 1, 0x8, "csum_v2" },	    { 1, 0x10, "csum_v3" },
		{ 1, 0x20, "fast_commit" },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint32_t v = f[i].incompat ? in->incompat : in->compat;

		if (v & f[i].bit)
			names[n++] = f[i].name;
	}
	return n;
}

void print_journal_features(const struct e4t_jinfo *in, FILE *fp)
{
	const char *names[E4T_JFEATURES_MAX];
	size_t i, n = journal_features(in, names);

	for (i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? " " : "", names[i]);
	if (!n)
		fputs("(none)", fp);
}

void rec_journal_features(struct report *r, const struct e4t_jinfo *in)
{
	const char *names[E4T_JFEATURES_MAX];
	size_t i, n = journal_features(in, names);

	rec_arr_begin(r, "features");
	for (i = 0; i < n; i++)
		rec_cstr(r, NULL, names[i]);
	rec_arr_end(r);
}
