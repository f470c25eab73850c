/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nfhint_int.h --- import's hint for an unmatched entry (nfhint.c): a name of
 * the image that is the same name under Unicode normalization.  Not
 * installed.
 */
#ifndef E4T_ENGINE_NFHINT_H
#define E4T_ENGINE_NFHINT_H

#include "e4time.h"
#include "manifest_int.h"

/* The hints of a run: for some unmatched entries, a path of the image. */
struct e4t_nf_hints;

struct e4t_nf_hint {
	size_t entry;	  /* its index among the entries */
	const char *path; /* the image's name, NUL-terminated */
	size_t len;
};

/*
 * For each of the n entries e that is not matched[i], whose path holds a
 * byte above 0x7f and is valid UTF-8: the first path of tree (in the
 * order of ext2fs_casefold_cmp(), then of the bytes) that is the same
 * under libext2fs' utf8-12.1 normalization and case folding.  *ret is
 * NULL when there is none to look for (tree is then not walked).
 * 0, ENOMEM, or the walk's error.
 */
errcode_t e4t_nf_hints(struct e4t_tree *tree, const struct e4t_mf_entry *e,
		       size_t n, const char *matched,
		       struct e4t_nf_hints **ret);
/* The hint of entry (asked in increasing order of entry), or NULL. */
const struct e4t_nf_hint *e4t_nf_hint_of(struct e4t_nf_hints *h, size_t entry);
void e4t_nf_hints_free(struct e4t_nf_hints *h);

#endif
