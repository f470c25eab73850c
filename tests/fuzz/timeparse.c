/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeparse.c --- e4t_time_parse on any text: a time it accepts is in
 * the ext4 range, and formats (ISO 8601, e4t_iso8601) back to text that
 * it parses to the same time.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "lib/e4time.h"
#include "fuzz.h"

FUZZ_TARGET(timeparse)
{
	char *text = fuzz_cstring(data, size);
	char iso[E4T_ISO_BUFSZ];
	int64_t sec = 0, sec2 = 0;
	uint32_t nsec = 0, nsec2 = 0;
	errcode_t err;

	err = e4t_time_parse(text, &sec, &nsec);
	if (!err) {
		FUZZ_CHECK(sec >= E4T_SEC_MIN && sec <= E4T_SEC_MAX,
			   "\"%s\" -> sec %lld", text, (long long)sec);
		FUZZ_CHECK(nsec < E4T_NSEC_PER_SEC, "\"%s\" -> nsec %u", text,
			   nsec);
		e4t_iso8601(sec, nsec, 9, 'T', INT32_MIN, iso, sizeof(iso));
		err = e4t_time_parse(iso, &sec2, &nsec2);
		FUZZ_CHECK(!err && sec2 == sec && nsec2 == nsec,
			   "\"%s\" -> %lld.%09u -> \"%s\" -> %ld %lld.%09u",
			   text, (long long)sec, nsec, iso, (long)err,
			   (long long)sec2, nsec2);
	} else {
		FUZZ_CHECK(err == E4T_ERR_TIME_SYNTAX ||
				   err == E4T_ERR_TIME_RANGE,
			   "\"%s\": error %ld", text, (long)err);
	}
	free(text);
	return 0;
}
