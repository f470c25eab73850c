/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jmap_int.h --- the journal mapped into memory (jmap.c): library-internal,
 * for journal.c, so that a scan of a whole journal reads the page cache in
 * place instead of copying every block out of it through read(2).
 */
#ifndef E4TIME_JMAP_H
#define E4TIME_JMAP_H

#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

struct e4t_jmap {
	const uint8_t *mem; /* journal block 0; NULL: not mapped */
	void *base;	    /* what munmap() takes ... */
	size_t len;	    /* ... and its length */
};

/*
 * Map the nblocks blocks of bs bytes of a journal: an internal one
 * whose block i is the filesystem block map[i] of the image file path,
 * which holds the filesystem from byte offset on; or (map NULL) the
 * external journal open on fd, block i at byte i * bs.  readahead: read
 * the journal into the page cache now (a whole-journal scan follows).
 * Nothing is mapped (m->mem NULL, 0 returned) when it cannot be done
 * safely: a hole in the map, a file shorter than the journal, extents that
 * do not fall on page boundaries, a file that cannot be mapped.  The caller
 * then reads.
 */
errcode_t e4t_jmap_open(struct e4t_jmap *m, const char *path, uint64_t offset,
			const blk64_t *map, int fd, uint32_t nblocks,
			uint32_t bs, int readahead);
/*
 * Let go of the pages of the mapping read so far (madvise MADV_DONTNEED):
 * they stay in the page cache and a later read maps them again, the same
 * bytes; the process's resident memory then does not grow with the
 * journal.
 */
void e4t_jmap_release(const struct e4t_jmap *m);
void e4t_jmap_close(struct e4t_jmap *m);

#endif
