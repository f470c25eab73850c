/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c --- the --from SOURCE spec parser (e4t_source_parse), then
 * the source it gives on a value: the input is the spec, a NUL, and the
 * value (no NUL: the spec alone).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "check_src.h"

FUZZ_TARGET(source)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t spec_len = nul ? (size_t)(nul - data) : size;
	const uint8_t *val = nul ? nul + 1 : data + size;
	size_t len = nul ? size - spec_len - 1 : 0;
	char *spec = fuzz_cstring(data, spec_len);
	struct e4t_source *src = NULL;
	struct e4t_src_time t;
	const char *const *x;
	errcode_t err;
	size_t n;

	err = e4t_source_parse(spec, &src);
	if (err) {
		FUZZ_CHECK(err == EINVAL || err == ENOMEM, "\"%s\": %ld", spec,
			   (long)err);
		FUZZ_CHECK(src == NULL, "\"%s\": a source and an error", spec);
		free(spec);
		return 0;
	}
	FUZZ_CHECK(src != NULL, "\"%s\": no source", spec);
	FUZZ_CHECK(e4t_source_name(src) && *e4t_source_name(src),
		   "\"%s\": no name", spec);
	x = e4t_source_xattrs(src);
	FUZZ_CHECK(x && x[0], "\"%s\": no xattr name", spec);
	for (n = 0; x[n]; n++) {
		FUZZ_CHECK(strchr(x[n], '.'), "\"%s\": xattr \"%s\"", spec,
			   x[n]);
		check_src(e4t_source_decode(src, x[n], val, len, &t), &t);
	}
	check_src(e4t_source_decode(src, NULL, val, len, &t), &t);
	FUZZ_CHECK(e4t_source_decode(src, "user.not-this-one", val, len, &t) ==
				   E4T_SRC_INVALID ||
			   !strcmp(x[0], "user.not-this-one"),
		   "\"%s\": decoded an xattr it does not read", spec);
	e4t_source_free(src);
	free(spec);
	return 0;
}
