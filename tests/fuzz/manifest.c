/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest.c --- one manifest line (e4t_manifest_parse_line, JSON as
 * export writes it) on any bytes: what it accepts is a header or an
 * entry with a usable path and times ext4 can store.
 */
#include "config.h"

#include <string.h>

#include "lib/e4time.h"
#include "fuzz.h"

FUZZ_TARGET(manifest)
{
	struct e4t_manifest_entry e;
	struct e4t_manifest_why why;
	errcode_t err;
	int f;

	err = e4t_manifest_parse_line((const char *)data, size, &e, &why);
	if (err) {
		FUZZ_CHECK(err == E4T_ERR_MANIFEST ||
				   err == E4T_ERR_MANIFEST_DUP,
			   "error %ld", (long)err);
		FUZZ_CHECK(e.path == NULL, "a path and an error");
		FUZZ_CHECK((err == E4T_ERR_MANIFEST_DUP) == why.dup_key,
			   "duplicate key said wrongly");
		FUZZ_CHECK(!why.dup_key || (why.dup_key_off < size &&
					    data[why.dup_key_off - 1] == '"'),
			   "duplicate key not in the line");
		return 0;
	}
	/* JSON has no raw NUL: not in strings, numbers, or between them. */
	FUZZ_CHECK(!memchr(data, '\0', size), "a line with a NUL accepted");
	if (e.header_version) {
		FUZZ_CHECK(e.header_version > 0, "header version %d",
			   e.header_version);
	} else {
		FUZZ_CHECK(e.path && e.path_len > 0, "no path");
		FUZZ_CHECK(e.path[e.path_len] == '\0', "path not terminated");
		FUZZ_CHECK(!memchr(e.path, '\0', e.path_len), "NUL in path");
		FUZZ_CHECK(e.path[0] == '/' || e.path[0] == '<', "path %s",
			   e.path);
	}
	for (f = 0; f < E4T_NFIELDS; f++) {
		if (!e.have[f])
			continue;
		FUZZ_CHECK(f != E4T_DTIME, "dtime taken");
		FUZZ_CHECK(e.ts[f].sec >= E4T_SEC_MIN &&
				   e.ts[f].sec <= E4T_SEC_MAX &&
				   e.ts[f].nsec < E4T_NSEC_PER_SEC,
			   "%s %lld.%u", e4t_field_name(f),
			   (long long)e.ts[f].sec, e.ts[f].nsec);
	}
	e4t_manifest_entry_free(&e);
	return 0;
}
