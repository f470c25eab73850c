/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe.c --- e4t_probe on any bytes: it answers, with a name, strings
 * that end, and advice for what it found.
 */
#include "config.h"

#include <string.h>

#include "e4time.h"
#include "container/container.h"
#include "fuzz.h"

FUZZ_TARGET(probe)
{
	struct e4t_container *c;
	struct e4t_probe pr;
	struct e4t_view v = { 0 };
	errcode_t err;

	if (e4t_raw_open(fuzz_file(data, size), &c))
		return 0;
	v.c = c;
	v.size = c->size;
	err = e4t_probe(&v, &pr);
	FUZZ_CHECK(!err, "e4t_probe: %ld", (long)err);
	FUZZ_CHECK(pr.name && *pr.name, "no name");
	FUZZ_CHECK(pr.content <= E4T_FS_PARTTABLE, "content %d", pr.content);
	FUZZ_CHECK(
		memchr(pr.uuid, '\0', sizeof(pr.uuid)) &&
			memchr(pr.label, '\0', sizeof(pr.label)) &&
			memchr(pr.last_mounted, '\0', sizeof(pr.last_mounted)),
		"unterminated string");
	FUZZ_CHECK(e4t_content_advice(pr.content) &&
			   *e4t_content_advice(pr.content),
		   "no advice");
	if (size < 1024 + 1024)
		FUZZ_CHECK(pr.content != E4T_FS_EXT &&
				   pr.content != E4T_FS_JOURNAL_DEV,
			   "ext without a whole superblock");
	e4t_container_close(c);
	return 0;
}
