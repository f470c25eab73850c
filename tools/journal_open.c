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

/* Open the image and its journal, load it; exits on failure. */
struct e4t_journal *open_journal_or_exit(struct e4t_image *img,
					 const char *path, unsigned flags,
					 struct warn_ctx *wc)
{
	struct e4t_journal *j;
	errcode_t err;

	err = e4t_journal_open(img, path, &j);
	if (err) {
		report(img->name, path ? path : "journal", err);
		e4t_image_close(img);
		exit(EXIT_IMAGE);
	}
	err = e4t_journal_load(j, flags, lib_warn, wc);
	if (err) {
		report(img->name, "journal", err);
		e4t_journal_close(j);
		e4t_image_close(img);
		exit(err == ENOMEM ? EXIT_INTERNAL : EXIT_IMAGE);
	}
	return j;
}

/* The journal's features as words or JSON strings (cmd.h). */
void print_journal_features(const struct e4t_jinfo *in, FILE *fp, int json)
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
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint32_t v = f[i].incompat ? in->incompat : in->compat;

		if (!(v & f[i].bit))
			continue;
		if (json)
			fprintf(fp, "%s\"%s\"", n ? "," : "", f[i].name);
		else
			fprintf(fp, "%s%s", n ? " " : "", f[i].name);
		n++;
	}
	if (!json && !n)
		fputs("(none)", fp);
}
