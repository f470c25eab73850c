/*
 * crc32c.c --- CRC32C as ext2fs_crc32c_le() computes it (no inversion in
 * or out: callers seed with ~0 as e2fsprogs does), with the SSE 4.2
 * instruction when the CPU has it.  libext2fs' tables do about 1.7 GB/s
 * here, the instruction about 9 GB/s: it counts for the hundreds of MiB
 * an undo file checksums.  unit_batch checks both agree.
 */
#include "config.h"

#include <string.h>

#include "undo_io.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_CRC32C_INSN 1

__attribute__((target("sse4.2"))) static uint32_t
crc32c_insn(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; len; len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t e4t_crc32c(uint32_t crc, const void *buf, size_t len)
{
#ifdef HAVE_CRC32C_INSN
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_insn(crc, buf, len);
#endif
	return ext2fs_crc32c_le(crc, buf, len);
}
