/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * journal.c --- read the jbd2 journal of an image: its superblock, the
 * live log as the kernel's recovery walks it (fs/jbd2/recovery.c), the
 * older (stale) transactions still in the log area, and the fast-commit
 * area.  Nothing here trusts a block number, a count or a length that
 * came from the journal without checking it against the journal and
 * the filesystem first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "e4time.h"
#include "fs/csum_int.h"
#include "journal/jbd2_int.h"
#include "journal/jmap_int.h"

#define EXT4_FEATURE_COMPAT_FAST_COMMIT	  0x0400
#define EXT3_FEATURE_INCOMPAT_JOURNAL_DEV 0x0008

static int uuid_is_null_(const uint8_t *u)
{
	int i;

	for (i = 0; i < 16; i++)
		if (u[i])
			return 0;
	return 1;
}

struct e4t_journal {
	struct e4t_image *img;
	struct e4t_jinfo info;
	char *path;
	int fd;	      /* external journal, or -1 */
	blk64_t *map; /* internal: journal block -> fs block */
	uint32_t csum_seed;
	uint32_t sb_block; /* journal block of the journal superblock */
	uint8_t *buf;	   /* one block */
	uint8_t *buf2;	   /* one more */
	size_t ntrans, cap;
	struct e4t_jtrans *trans;
	/* per journal block: index + 1 of the transaction that took it */
	uint32_t *owner;
	e4t_warn_fn warn;
	void *priv;
	int damaged;
	/* the journal in memory, from load on */
	struct e4t_jmap mm;
	uint64_t touched; /* blocks read from mm (e4t_journal_touched) */
};

static void jwarn(struct e4t_journal *j, errcode_t err, uint32_t jblock,
		  const char *what)
{
	char detail[160];

	j->damaged = 1;
	if (!j->warn)
		return;
	snprintf(detail, sizeof(detail), "journal block %u: %s", jblock, what);
	j->warn(err, 0, detail, j->priv);
}

/* ------------------------------------------------------------------ */
/* Block access                                                        */
/* ------------------------------------------------------------------ */

errcode_t e4t_journal_read(struct e4t_journal *j, uint32_t jblock,
			   uint32_t count, void *buf)
{
	uint32_t bs = j->info.blocksize;
	uint8_t *out = buf;

	if (count == 0)
		return 0;
	if (jblock >= j->info.maxlen || count > j->info.maxlen - jblock)
		return E4T_ERR_JOURNAL_MAP;
	if (j->mm.mem) {
		memcpy(out, j->mm.mem + (size_t)jblock * bs,
		       (size_t)count * bs);
		e4t_journal_touched(j, count);
		return 0;
	}
	if (j->fd >= 0) {
		size_t len = (size_t)count * bs;
		off_t off = (off_t)jblock * bs;
		size_t done = 0;

		while (done < len) {
			ssize_t r = pread(j->fd, out + done, len - done,
					  off + (off_t)done);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				return errno;
			}
			if (r == 0) {
				memset(out + done, 0, len - done);
				return E4T_ERR_JOURNAL_TRUNC;
			}
			done += (size_t)r;
		}
		return 0;
	}
	while (count) {
		blk64_t p = j->map[jblock];
		uint32_t n = 1;
		errcode_t err;

		if (p == 0)
			return E4T_ERR_JOURNAL_MAP;
		while (n < count && n < 256 && j->map[jblock + n] == p + n)
			n++;
		err = io_channel_read_blk64(j->img->fs->io, p, (int)n, out);
		if (err)
			return err;
		out += (size_t)n * bs;
		jblock += n;
		count -= n;
	}
	return 0;
}

static uint32_t data_csum(struct e4t_journal *j, uint32_t tid,
			  const uint8_t *block)
{
	uint8_t be[4];
	uint32_t c;

	be[0] = (uint8_t)(tid >> 24);
	be[1] = (uint8_t)(tid >> 16);
	be[2] = (uint8_t)(tid >> 8);
	be[3] = (uint8_t)tid;
	c = e4t_crc32c(j->csum_seed, be, 4);
	return e4t_crc32c(c, block, j->info.blocksize);
}

const uint8_t *e4t_journal_block(const struct e4t_journal *j, uint32_t jblock)
{
	if (!j->mm.mem || jblock >= j->info.maxlen)
		return NULL;
	return j->mm.mem + (size_t)jblock * j->info.blocksize;
}

void e4t_journal_touched(struct e4t_journal *j, uint32_t n)
{
	uint64_t was = __atomic_fetch_add(&j->touched, n, __ATOMIC_RELAXED);

	if (was / E4T_JOURNAL_RELEASE_BLOCKS !=
	    (was + n) / E4T_JOURNAL_RELEASE_BLOCKS)
		e4t_jmap_release(&j->mm);
}

void e4t_journal_let_go(struct e4t_journal *j)
{
	e4t_jmap_release(&j->mm);
}

/* Journal block jblock in place, or read into buf; NULL when unreadable. */
static const uint8_t *block_at(struct e4t_journal *j, uint32_t jblock,
			       uint8_t *buf)
{
	const uint8_t *p = e4t_journal_block(j, jblock);

	if (p) {
		e4t_journal_touched(j, 1);
		return p;
	}
	return e4t_journal_read(j, jblock, 1, buf) ? NULL : buf;
}

errcode_t e4t_journal_read_copy(struct e4t_journal *j,
				const struct e4t_jblock *b, void *buf)
{
	errcode_t err = e4t_journal_read(j, b->jblock, 1, buf);

	if (err)
		return err;
	if (b->flags & E4T_JB_ESCAPED) {
		uint8_t *p = buf;

		p[0] = 0xC0;
		p[1] = 0x3B;
		p[2] = 0x39;
		p[3] = 0x98;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Superblock                                                          */
/* ------------------------------------------------------------------ */

static errcode_t map_internal(struct e4t_journal *j);

struct map_ctx {
	blk64_t *map;
	uint32_t len;
	blk64_t fs_blocks;
	int bad;
};

/* cppcheck-suppress constParameter */
/* NOLINTNEXTLINE(readability-non-const-parameter): libext2fs callback */
static int map_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref, int ref_off, void *priv)
{
	struct map_ctx *m = priv;

	(void)fs;
	(void)ref;
	(void)ref_off;
	if (blockcnt < 0)
		return 0;
	if ((uint64_t)blockcnt >= m->len)
		return BLOCK_ABORT;
	if (*blocknr >= m->fs_blocks) {
		m->bad = 1;
		return 0;
	}
	m->map[blockcnt] = *blocknr;
	return 0;
}

static errcode_t map_internal(struct e4t_journal *j)
{
	ext2_filsys fs = j->img->fs;
	struct ext2_inode inode;
	struct map_ctx m;
	uint64_t size;
	errcode_t err;

	err = ext2fs_read_inode(fs, j->info.inum, &inode);
	if (err)
		return err;
	size = EXT2_I_SIZE(&inode);
	if (size < (uint64_t)fs->blocksize * 2)
		return E4T_ERR_NO_JOURNAL;
	if (size / fs->blocksize > (1U << 26)) /* 256 GiB of 4K blocks */
		return E4T_ERR_JOURNAL_MAP;
	m.len = (uint32_t)(size / fs->blocksize);
	m.map = calloc(m.len, sizeof(*m.map));
	if (!m.map)
		return ENOMEM;
	m.fs_blocks = ext2fs_blocks_count(fs->super);
	m.bad = 0;
	err = ext2fs_block_iterate3(fs, j->info.inum,
				    BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
				    NULL, map_block, &m);
	if (err) {
		free(m.map);
		return E4T_ERR_JOURNAL_MAP;
	}
	j->map = m.map;
	j->info.maxlen = m.len; /* until the superblock says */
	return m.bad ? E4T_ERR_JOURNAL_MAP : 0;
}

static errcode_t open_external(struct e4t_journal *j, const char *path,
			       uint32_t *sb_block)
{
	uint8_t sb[1024];
	struct stat st;
	ssize_t r;
	uint32_t bs;

	j->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (j->fd < 0)
		return errno;
	if (fstat(j->fd, &st) == 0 && S_ISDIR(st.st_mode))
		return E4T_ERR_IS_DIR;
	r = pread(j->fd, sb, sizeof(sb), 1024);
	if (r != (ssize_t)sizeof(sb))
		return E4T_ERR_NOT_JOURNAL_DEV;
	/* an ext2 superblock with the journal_dev feature */
	if (jbd2_le16(sb + 0x38) != EXT2_SUPER_MAGIC ||
	    !(jbd2_le32(sb + 0x60) & EXT3_FEATURE_INCOMPAT_JOURNAL_DEV))
		return E4T_ERR_NOT_JOURNAL_DEV;
	if (jbd2_le32(sb + 0x18) > 6)
		return E4T_ERR_JOURNAL_SB;
	bs = 1024U << jbd2_le32(sb + 0x18);
	*sb_block = bs == 1024 ? 2 : 1;
	j->info.blocksize = bs;
	j->info.maxlen = *sb_block + 1; /* enough to read the superblock */
	return 0;
}

static int feature_ok(const struct e4t_jinfo *in)
{
	const uint32_t known =
		JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT |
		JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT |
		JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3 |
		JBD2_FEATURE_INCOMPAT_FAST_COMMIT;

	return !(in->incompat & ~known);
}

static errcode_t read_sb(struct e4t_journal *j, uint32_t sb_block)
{
	struct e4t_jinfo *in = &j->info;
	ext2_filsys fs = j->img->fs;
	uint8_t *sb = j->buf;
	uint32_t type, maxlen_avail = in->maxlen;
	errcode_t err;

	err = e4t_journal_read(j, sb_block, 1, sb);
	if (err)
		return err == E4T_ERR_JOURNAL_TRUNC ? E4T_ERR_JOURNAL_SB : err;
	if (jbd2_be32(sb + JBD2_H_MAGIC) != JBD2_MAGIC)
		return E4T_ERR_JOURNAL_SB;
	type = jbd2_be32(sb + JBD2_H_BLOCKTYPE);
	if (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2)
		return E4T_ERR_JOURNAL_SB;
	in->sb_version = type == JBD2_SUPERBLOCK_V1 ? 1 : 2;
	if (jbd2_be32(sb + JBD2_SB_BLOCKSIZE) != in->blocksize)
		return E4T_ERR_JOURNAL_SB;
	in->maxlen = jbd2_be32(sb + JBD2_SB_MAXLEN);
	in->first = jbd2_be32(sb + JBD2_SB_FIRST);
	in->sequence = jbd2_be32(sb + JBD2_SB_SEQUENCE);
	in->start = jbd2_be32(sb + JBD2_SB_START);
	in->errno_val = (int32_t)jbd2_be32(sb + JBD2_SB_ERRNO);
	if (in->sb_version == 2) {
		in->compat = jbd2_be32(sb + JBD2_SB_COMPAT);
		in->incompat = jbd2_be32(sb + JBD2_SB_INCOMPAT);
		in->ro_compat = jbd2_be32(sb + JBD2_SB_RO_COMPAT);
		memcpy(in->uuid, sb + JBD2_SB_UUID, 16);
	}
	if (j->fd < 0) {
		/* internal: the block map bounds it */
		if (in->maxlen > maxlen_avail)
			return E4T_ERR_JOURNAL_SB;
	} else {
		struct stat st;

		if (fstat(j->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size / in->blocksize < in->maxlen)
			j->damaged = 1; /* truncated: reads past it fail */
	}
	if (in->first == 0 || in->first >= in->maxlen ||
	    in->maxlen - in->first < 8)
		return E4T_ERR_JOURNAL_SB;
	if (!feature_ok(in))
		return E4T_ERR_JOURNAL_FEATURE;

	if (in->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		in->csum_version = 3;
	else if (in->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		in->csum_version = 2;
	else if (in->compat & JBD2_FEATURE_COMPAT_CHECKSUM)
		in->csum_version = 1;
	if (in->csum_version >= 2) {
		uint32_t stored = jbd2_be32(sb + JBD2_SB_CHECKSUM), c;

		if (sb[JBD2_SB_CHECKSUM_TYPE] != JBD2_CRC32C_CHKSUM)
			return E4T_ERR_JOURNAL_SB;
		memset(j->buf2, 0, in->blocksize);
		memcpy(j->buf2, sb, JBD2_SB_SIZE);
		memset(j->buf2 + JBD2_SB_CHECKSUM, 0, 4);
		c = ext2fs_crc32c_le(~0U, j->buf2, JBD2_SB_SIZE);
		in->sb_csum = c == stored;
		j->csum_seed = ext2fs_crc32c_le(~0U, in->uuid, 16);
	} else {
		in->sb_csum = -1;
	}
	if (in->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		in->tag_bytes = 16;
	else {
		in->tag_bytes = 12;
		if (in->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
			in->tag_bytes += 2;
		if (!(in->incompat & JBD2_FEATURE_INCOMPAT_64BIT))
			in->tag_bytes -= 4;
	}

	/*
	 * The fast-commit area, as journal_load_superblock() sets it up:
	 * the last num_fc_blks blocks when the journal's fast_commit flag
	 * is set and at least JBD2_MIN_JOURNAL_BLOCKS remain for the log.
	 * Recovery of a live journal goes by that flag alone (without it
	 * the log wraps at maxlen); a clean unmount clears the flag, and
	 * then the filesystem's compat flag says where the area is.
	 */
	in->live = in->start != 0;
	in->log_end = in->maxlen;
	if ((in->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) ||
	    (!in->live &&
	     (fs->super->s_feature_compat & EXT4_FEATURE_COMPAT_FAST_COMMIT))) {
		uint32_t n = 0;

		if (in->sb_version == 2)
			n = jbd2_be32(sb + JBD2_SB_NUM_FC_BLKS);
		if (n == 0)
			n = JBD2_DEFAULT_FC_BLOCKS;
		if (n < in->maxlen &&
		    in->maxlen - n >= JBD2_MIN_JOURNAL_BLOCKS &&
		    (uint64_t)in->first + 8 <= in->maxlen - n) {
			in->log_end = in->maxlen - n;
			in->fc_first = in->log_end + 1;
			in->fc_blocks = n;
		}
	}
	if (in->live && (in->start < in->first || in->start >= in->log_end))
		return E4T_ERR_JOURNAL_SB;
	return 0;
}

errcode_t e4t_journal_open(struct e4t_image *img, const char *path,
			   struct e4t_journal **ret)
{
	ext2_filsys fs = img->fs;
	struct e4t_journal *j;
	uint32_t sb_block = 0;
	errcode_t err;

	*ret = NULL;
	if (!ext2fs_has_feature_journal(fs->super) && !path)
		return E4T_ERR_NO_JOURNAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return ENOMEM;
	j->img = img;
	j->fd = -1;
	j->info.fs_blocks = ext2fs_blocks_count(fs->super);
	if (path) {
		j->path = strdup(path);
		if (!j->path) {
			err = ENOMEM;
			goto fail;
		}
		j->info.path = j->path;
		err = open_external(j, path, &sb_block);
	} else if (fs->super->s_journal_inum == 0) {
		err = uuid_is_null_(fs->super->s_journal_uuid)
			      ? E4T_ERR_NO_JOURNAL
			      : E4T_ERR_JOURNAL_EXTERNAL;
	} else {
		j->info.internal = 1;
		j->info.inum = fs->super->s_journal_inum;
		j->info.blocksize = fs->blocksize;
		err = map_internal(j);
	}
	if (!err && j->info.blocksize < EXT2_MIN_BLOCK_SIZE)
		err = E4T_ERR_JOURNAL_SB;
	if (err)
		goto fail;
	j->buf = malloc(j->info.blocksize);
	j->buf2 = malloc(j->info.blocksize);
	if (!j->buf || !j->buf2) {
		err = ENOMEM;
		goto fail;
	}
	if (path) {
		/* now read the superblock to learn maxlen */
		j->info.maxlen = UINT32_MAX;
	}
	j->sb_block = sb_block;
	err = read_sb(j, sb_block);
	if (err)
		goto fail;
	if (path && memcmp(j->info.uuid, fs->super->s_journal_uuid, 16) != 0) {
		err = E4T_ERR_JOURNAL_UUID;
		goto fail;
	}
	*ret = j;
	return 0;
fail:
	e4t_journal_close(j);
	return err;
}

void e4t_journal_close(struct e4t_journal *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->ntrans; i++) {
		free(j->trans[i].blocks);
		free(j->trans[i].revoked);
		free(j->trans[i].fc_inodes);
	}
	free(j->trans);
	free(j->owner);
	e4t_jmap_close(&j->mm);
	free(j->map);
	free(j->buf);
	free(j->buf2);
	free(j->path);
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

const struct e4t_jinfo *e4t_journal_info(const struct e4t_journal *j)
{
	return &j->info;
}

size_t e4t_journal_count(const struct e4t_journal *j)
{
	return j->ntrans;
}

const struct e4t_jtrans *e4t_journal_trans(const struct e4t_journal *j,
					   size_t i)
{
	return i < j->ntrans ? &j->trans[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* Walking transactions                                                */
/* ------------------------------------------------------------------ */

static uint32_t next_block(const struct e4t_jinfo *in, uint32_t b)
{
	b++;
	return b >= in->log_end ? in->first : b;
}

/* Room for one more element after the n there are (the caller adds it). */
static int push(void *arrp, const size_t *n, size_t *cap, size_t elem)
{
	return e4t_grow(arrp, cap, *n + 1, elem, 16) ? ENOMEM : 0;
}

static int block_csum_ok(struct e4t_journal *j, const uint8_t *blk,
			 unsigned off)
{
	uint32_t stored = jbd2_be32(blk + off), c;

	memcpy(j->buf2, blk, j->info.blocksize);
	memset(j->buf2 + off, 0, 4);
	c = ext2fs_crc32c_le(j->csum_seed, j->buf2, j->info.blocksize);
	return c == stored;
}

struct walk {
	struct e4t_jtrans t;
	size_t bcap, rcap;
	uint32_t end; /* journal block after it */
	int torn;     /* ended without a commit */
	int v1_crc_bad;
	int hdr_csum_bad; /* a descriptor or revoke block's checksum */
	const char *why;  /* why it ended, when torn */
};

/* May the walk of a transaction take journal block b?  The live walk
 * may take any block; a stale walk stops at a block another
 * transaction took (it was overwritten, or it is the newer log). */
static int may_take(struct e4t_journal *j, uint32_t b, int stale)
{
	return !stale || !j->owner || j->owner[b] == 0;
}

/* struct e4t_jblock.flags while loading: the copy could not be read
 * (already warned about); cleared by check_replay() */
#define JB_UNREADABLE 0x80000000U

/*
 * Walk one transaction from journal block b expecting tid: descriptor
 * and revoke blocks with their data, up to its commit block.  Returns
 * ENOMEM only; how it ended is in w.  A copy whose tag checksum fails
 * or whose home is past the filesystem is flagged here, and warned
 * about by check_replay() only if recovery would replay it.
 */
static errcode_t walk_one(struct e4t_journal *j, uint32_t b, uint32_t tid,
			  int stale, uint32_t limit, struct walk *w)
{
	const struct e4t_jinfo *in = &j->info;
	uint32_t bs = in->blocksize, steps = 0;
	uint8_t *blk = j->buf;
	uint32_t crc32_sum = ~0U;
	int v1 = in->csum_version == 1, v1_partial = 0;
	int csum23 = in->csum_version >= 2;

	memset(w, 0, sizeof(*w));
	w->t.tid = tid;
	w->t.first_jblock = b;

	for (;;) {
		uint32_t type;
		errcode_t rerr;

		if (steps >= limit) {
			w->torn = 1;
			w->why = "transaction longer than the log";
			break;
		}
		if (!may_take(j, b, stale)) {
			w->torn = 1;
			w->why = "log ends (block reused)";
			break;
		}
		rerr = e4t_journal_read(j, b, 1, blk);
		if (rerr) {
			/* jread() fails: so does recovery (EIO) */
			jwarn(j, rerr, b, "journal block cannot be read");
			w->torn = 1;
			w->why = "log ends (block unreadable)";
			break;
		}
		if (jbd2_be32(blk) != JBD2_MAGIC ||
		    jbd2_be32(blk + JBD2_H_SEQUENCE) != tid) {
			w->torn = 1;
			w->why = "no commit block";
			break;
		}
		type = jbd2_be32(blk + JBD2_H_BLOCKTYPE);
		if (type == JBD2_DESCRIPTOR_BLOCK) {
			uint32_t size = bs - (csum23 ? JBD2_TAIL_SIZE : 0);
			uint32_t off = JBD2_HEADER_SIZE, db = b;
			int last = 0;

			if (csum23 && !block_csum_ok(j, blk, bs - 4)) {
				w->t.flags |= E4T_JT_CSUM_BAD;
				w->hdr_csum_bad = 1;
				jwarn(j, E4T_ERR_JOURNAL_CSUM, b,
				      "descriptor block checksum does not "
				      "verify");
			}
			if (v1)
				crc32_sum = ext2fs_crc32_be(crc32_sum, blk, bs);
			w->t.nr_jblocks++;
			steps++;
			/* the tags (count_tags()); the data follows */
			while (!last && off + in->tag_bytes <= size) {
				const uint8_t *tag = blk + off;
				struct e4t_jblock *jb;
				uint32_t flags;
				uint64_t nr;

				/* be16 at 6 for every tag size: for tag3, the
				 * low half of its be32 flags (recovery.c) */
				flags = jbd2_be16(tag + JBD2_TAG_FLAGS);
				nr = jbd2_be32(tag);
				if (in->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
					nr |= (uint64_t)jbd2_be32(
						      tag +
						      JBD2_TAG3_BLOCKNR_HI)
					      << 32;
				db = next_block(in, db);
				steps++;
				if (push(&w->t.blocks, &w->t.nblocks, &w->bcap,
					 sizeof(*w->t.blocks)))
					return ENOMEM;
				jb = &w->t.blocks[w->t.nblocks++];
				jb->fsblock = nr;
				jb->jblock = db;
				jb->flags = 0;
				if (flags & JBD2_FLAG_ESCAPE)
					jb->flags |= E4T_JB_ESCAPED;
				if (nr >= in->fs_blocks && j->fd < 0)
					jb->flags |= E4T_JB_OUT_OF_FS;
				if (steps > limit || !may_take(j, db, stale))
					jb->flags |= E4T_JB_OVERWRITTEN;
				w->t.nr_jblocks++;
				/* data tag checksum (v2: low 16 bits); an
				 * overwritten copy is gone, nothing to check */
				if (jb->flags & E4T_JB_OVERWRITTEN) {
					v1_partial = 1;
				} else if (csum23 || v1) {
					const uint8_t *d =
						block_at(j, db, j->buf2);

					if (!d) {
						/* again, for the error */
						rerr = e4t_journal_read(
							j, db, 1, j->buf2);
						jb->flags |= E4T_JB_CSUM_BAD |
							     JB_UNREADABLE;
						jwarn(j, rerr ? rerr : EIO, db,
						      "journal block cannot be "
						      "read");
					} else if (v1) {
						crc32_sum = ext2fs_crc32_be(
							crc32_sum, d, bs);
					} else {
						uint32_t c =
							data_csum(j, tid, d);
						uint32_t s;

						if (in->csum_version == 3) {
							s = jbd2_be32(
								tag +
								JBD2_TAG3_CHECKSUM);
						} else {
							s = jbd2_be16(
								tag +
								JBD2_TAG_CHECKSUM);
							c &= 0xFFFF;
						}
						if (c != s)
							jb->flags |=
								E4T_JB_CSUM_BAD;
					}
				}
				off += in->tag_bytes;
				if (!(flags & JBD2_FLAG_SAME_UUID))
					off += JBD2_UUID_SIZE;
				if (flags & JBD2_FLAG_LAST_TAG)
					last = 1;
			}
			if (!last) {
				jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b,
				      "descriptor block has no last tag");
			}
			b = next_block(in, db);
			continue;
		}
		if (type == JBD2_REVOKE_BLOCK) {
			uint32_t used = jbd2_be32(blk + JBD2_R_COUNT);
			unsigned rec =
				(in->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
					? 8
					: 4;
			uint32_t max = bs - (csum23 ? JBD2_TAIL_SIZE : 0);
			uint32_t off;

			if (csum23 && !block_csum_ok(j, blk, bs - 4)) {
				w->t.flags |= E4T_JT_CSUM_BAD;
				w->hdr_csum_bad = 1;
				jwarn(j, E4T_ERR_JOURNAL_CSUM, b,
				      "revoke block checksum does not verify");
			}
			/* scan_revoke_records(): a count past the block
			 * fails the recovery (EINVAL); whole records up to
			 * the count are read, a partial one ignored */
			if (used > max) {
				jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b,
				      "revoke block count larger than the "
				      "block: recovery fails, records "
				      "ignored");
				used = JBD2_R_HDR_SIZE;
			} else if (used < JBD2_R_HDR_SIZE ||
				   (used - JBD2_R_HDR_SIZE) % rec) {
				jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b,
				      "revoke block count is not a whole "
				      "number of records: the rest is "
				      "ignored");
			}
			for (off = JBD2_R_HDR_SIZE; off + rec <= used;
			     off += rec) {
				uint64_t nr = rec == 8 ? jbd2_be64(blk + off)
						       : jbd2_be32(blk + off);

				if (push(&w->t.revoked, &w->t.nrevoked,
					 &w->rcap, sizeof(*w->t.revoked)))
					return ENOMEM;
				w->t.revoked[w->t.nrevoked++] = nr;
			}
			w->t.nr_jblocks++;
			steps++;
			b = next_block(in, b);
			continue;
		}
		if (type == JBD2_COMMIT_BLOCK) {
			w->t.nr_jblocks++;
			w->t.flags |= E4T_JT_COMMITTED;
			w->t.commit_sec =
				(int64_t)jbd2_be64(blk + JBD2_C_COMMIT_SEC);
			w->t.commit_nsec = jbd2_be32(blk + JBD2_C_COMMIT_NSEC);
			if (w->t.commit_nsec >= E4T_NSEC_PER_SEC)
				w->t.commit_nsec = 0;
			if (csum23) {
				if (!block_csum_ok(j, blk, JBD2_C_CHKSUM)) {
					w->t.flags |= E4T_JT_CSUM_BAD;
					jwarn(j, E4T_ERR_JOURNAL_CSUM, b,
					      "commit block checksum does "
					      "not verify");
				}
			} else if (v1 && !v1_partial) {
				uint32_t found = jbd2_be32(blk + JBD2_C_CHKSUM);
				uint8_t ty = blk[JBD2_C_CHKSUM_TYPE];
				uint8_t sz = blk[JBD2_C_CHKSUM_SIZE];

				if (!(ty == JBD2_CRC32_CHKSUM &&
				      sz == JBD2_CRC32_CHKSUM_SIZE &&
				      found == crc32_sum) &&
				    !(ty == 0 && sz == 0 && found == 0)) {
					w->t.flags |= E4T_JT_CSUM_BAD;
					w->v1_crc_bad = 1;
					jwarn(j, E4T_ERR_JOURNAL_CSUM, b,
					      "commit block crc32 does not "
					      "verify");
				}
			}
			b = next_block(in, b);
			break;
		}
		w->torn = 1;
		w->why = "unknown block type";
		break;
	}
	w->end = b;
	if (in->csum_version == 0 || (v1 && v1_partial))
		w->t.flags |= E4T_JT_UNVERIFIED; /* v1: its crc32 cannot be
						    computed without the
						    overwritten copies */
	else if (!(w->t.flags & E4T_JT_CSUM_BAD))
		w->t.flags |= E4T_JT_CSUM_OK;
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->t.blocks);
	free(w->t.revoked);
	w->t.blocks = NULL;
	w->t.revoked = NULL;
}

/* Mark the journal blocks a transaction took as its own. */
static void take_blocks(struct e4t_journal *j, const struct e4t_jtrans *t,
			uint32_t idx1)
{
	const struct e4t_jinfo *in = &j->info;
	uint32_t b = t->first_jblock, n;

	for (n = 0; n < t->nr_jblocks; n++) {
		if (j->owner[b] == 0)
			j->owner[b] = idx1;
		b = next_block(in, b);
	}
}

static errcode_t add_trans(struct e4t_journal *j, struct e4t_jtrans *t)
{
	size_t i;

	if (push(&j->trans, &j->ntrans, &j->cap, sizeof(*j->trans)))
		return ENOMEM;
	for (i = 0; i < t->nblocks; i++)
		if (t->blocks[i].flags & E4T_JB_UNUSABLE)
			t->flags |= E4T_JT_DATA_BAD;
	j->trans[j->ntrans++] = *t;
	return 0;
}

/*
 * The block where the live log ended: the kernel ends it there without
 * a word, but a block of a newer tid than the one expected, or of an
 * unknown type, is none that a log's normal end leaves (older laps hold
 * older tids): transactions were lost, and those after it are never
 * replayed.
 */
static void check_log_end(struct e4t_journal *j, uint32_t b, uint32_t tid)
{
	uint8_t *blk = j->buf;
	uint32_t seq, type;

	if (e4t_journal_read(j, b, 1, blk) || jbd2_be32(blk) != JBD2_MAGIC)
		return;
	seq = jbd2_be32(blk + JBD2_H_SEQUENCE);
	type = jbd2_be32(blk + JBD2_H_BLOCKTYPE);
	if ((int32_t)(seq - tid) > 0)
		jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b,
		      "the live log ends at a block of a newer tid than the "
		      "next one: what follows is not replayed");
	else if (seq == tid && type != JBD2_DESCRIPTOR_BLOCK &&
		 type != JBD2_COMMIT_BLOCK && type != JBD2_REVOKE_BLOCK)
		jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b,
		      "the live log ends at a block of an unknown type");
}

/* The live log, as do_one_pass(PASS_SCAN) walks it. */
static errcode_t walk_live(struct e4t_journal *j)
{
	const struct e4t_jinfo *in = &j->info;
	uint32_t b = in->start, tid = in->sequence, total = 0;
	uint32_t loglen = in->log_end - in->first;
	uint64_t last_commit = 0; /* last_trans_commit_time */
	errcode_t err;

	while (total < loglen) {
		struct walk w;

		err = walk_one(j, b, tid, 0, loglen, &w);
		if (err)
			return err;
		if (w.t.nr_jblocks == 0) {
			/* the first block is not this tid's: log ends */
			walk_free(&w);
			check_log_end(j, w.end, tid);
			break;
		}
		w.t.flags |= E4T_JT_LIVE;
		if (w.torn) {
			/* in progress at the crash: recovery ignores it;
			 * listed, not an error */
			err = add_trans(j, &w.t);
			if (err)
				return err;
			take_blocks(j, &j->trans[j->ntrans - 1],
				    (uint32_t)j->ntrans);
			check_log_end(j, w.end, tid);
			break;
		}
		total += w.t.nr_jblocks;
		err = add_trans(j, &w.t);
		if (err)
			return err;
		take_blocks(j, &j->trans[j->ntrans - 1], (uint32_t)j->ntrans);
		/*
		 * A checksum failure: the kernel compares the commit time
		 * with the transaction before.  Older: stale blocks (lazy
		 * journal init), the log ends there.  Otherwise a bad
		 * descriptor or revoke block fails the whole recovery
		 * (EFSBADCRC), a bad commit block ends the log and marks
		 * the transaction failed (j_failed_commit).
		 */
		if (w.t.flags & E4T_JT_CSUM_BAD) {
			if ((uint64_t)w.t.commit_sec < last_commit)
				jwarn(j, E4T_ERR_JOURNAL_CSUM, w.t.first_jblock,
				      "the live log ends at a transaction "
				      "whose "
				      "checksum fails, taken for stale blocks "
				      "(older commit time)");
			else if (w.hdr_csum_bad)
				jwarn(j, E4T_ERR_JOURNAL_CSUM, w.t.first_jblock,
				      "a transaction whose checksum fails, "
				      "committed later than the one before: "
				      "the kernel's recovery fails, nothing "
				      "is replayed");
			else
				jwarn(j, E4T_ERR_JOURNAL_CSUM, w.t.first_jblock,
				      "the live log ends at a transaction "
				      "whose "
				      "commit checksum fails: the kernel "
				      "records it as failed");
			break;
		}
		last_commit = (uint64_t)w.t.commit_sec;
		b = w.end;
		tid++;
	}
	return 0;
}

/*
 * Apply revokes: a record in tid T cancels replay of that block from T
 * and every earlier transaction.  Only the records of transactions
 * before the end of the log count (do_one_pass(PASS_REVOKE) stops at
 * end_transaction): committed ones whose checksums verify.
 */
static void apply_revokes(struct e4t_journal *j)
{
	size_t i, k, r, m;

	for (i = 0; i < j->ntrans; i++) {
		struct e4t_jtrans *rt = &j->trans[i];

		if (!(rt->flags & E4T_JT_COMMITTED) ||
		    (rt->flags & E4T_JT_CSUM_BAD))
			continue;
		for (r = 0; r < rt->nrevoked; r++) {
			for (k = 0; k < j->ntrans; k++) {
				struct e4t_jtrans *t = &j->trans[k];

				if ((t->flags & E4T_JT_LIVE) !=
					    (rt->flags & E4T_JT_LIVE) ||
				    (int32_t)(t->tid - rt->tid) > 0)
					continue;
				for (m = 0; m < t->nblocks; m++)
					if (t->blocks[m].fsblock ==
					    rt->revoked[r])
						t->blocks[m].flags |=
							E4T_JB_REVOKED;
			}
		}
	}
}

/*
 * What do_one_pass(PASS_REPLAY) meets in the transactions it replays
 * (live, committed, checksums good) once revokes are known: a revoked
 * copy is skipped unchecked; a copy whose tag checksum fails is skipped
 * and fails the recovery at its end (EFSBADCRC); a home block past the
 * filesystem makes __getblk() fail and stops the replay there.
 */
static void check_replay(struct e4t_journal *j)
{
	size_t i, k;

	for (i = 0; i < j->ntrans; i++) {
		const struct e4t_jtrans *t = &j->trans[i];
		int replayed = (t->flags & E4T_JT_LIVE) &&
			       (t->flags & E4T_JT_COMMITTED) &&
			       !(t->flags & E4T_JT_CSUM_BAD);

		for (k = 0; k < t->nblocks; k++) {
			struct e4t_jblock *b = &t->blocks[k];
			int unreadable = !!(b->flags & JB_UNREADABLE);

			b->flags &= ~JB_UNREADABLE;
			if (!replayed || (b->flags & E4T_JB_REVOKED) ||
			    unreadable)
				continue;
			if (b->flags & E4T_JB_CSUM_BAD)
				jwarn(j, E4T_ERR_JOURNAL_CSUM, b->jblock,
				      "data block checksum does not verify: "
				      "not replayed, recovery fails");
			else if (b->flags & E4T_JB_OUT_OF_FS)
				jwarn(j, E4T_ERR_JOURNAL_CORRUPT, b->jblock,
				      "home block beyond the filesystem: the "
				      "replay stops here, recovery fails");
		}
	}
}

static int have_tid(const struct e4t_journal *j, uint32_t tid)
{
	size_t i;

	for (i = 0; i < j->ntrans; i++)
		if (j->trans[i].tid == tid &&
		    !(j->trans[i].flags & E4T_JT_FAST_COMMIT))
			return 1;
	return 0;
}

/* A block where a stale transaction may start, in walking order. */
struct stale_start {
	uint32_t tid;
	uint32_t pos; /* ring distance from the scan's start ... */
	uint32_t b;   /* ... to this journal block */
};

static uint32_t stale_ref;

/* Newest tid first (tids compare modulo 2^32); then in log order. */
static int cmp_stale(const void *a, const void *b)
{
	const struct stale_start *x = a, *y = b;
	int32_t dx = (int32_t)(x->tid - stale_ref);
	int32_t dy = (int32_t)(y->tid - stale_ref);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
}

/*
 * Older transactions in the log area.  The scan starts where the newest
 * transaction ends (oldest data first), so a transaction that wrapped is
 * met at its beginning.  Newer transactions are walked first: a walk
 * stops at blocks a newer transaction took (an older one's copies there
 * were overwritten), whichever comes first in the log.
 */
static errcode_t walk_stale(struct e4t_journal *j)
{
	const struct e4t_jinfo *in = &j->info;
	uint32_t loglen = in->log_end - in->first, chunk = 256, i, b;
	uint32_t newest_tid = 0, scan_start = in->first;
	int have_newest = 0;
	uint8_t *hdr_type = NULL;
	uint32_t *hdr_tid = NULL;
	uint8_t *cb = NULL;
	struct stale_start *st = NULL;
	size_t nst = 0, stcap = 0, si;
	errcode_t err = 0;
	size_t t;

	hdr_type = calloc(in->maxlen, 1);
	hdr_tid = calloc(in->maxlen, sizeof(*hdr_tid));
	cb = calloc(chunk, in->blocksize);
	if (!hdr_type || !hdr_tid || !cb) {
		err = ENOMEM;
		goto out;
	}
	/* one pass over the log area for block headers */
	for (i = in->first; i < in->log_end; i += chunk) {
		uint32_t n = in->log_end - i < chunk ? in->log_end - i : chunk;
		const uint8_t *scan = e4t_journal_block(j, i);
		uint32_t k;

		if (scan)
			e4t_journal_touched(j, n);

		if (!scan && e4t_journal_read(j, i, n, cb)) {
			/* read block by block what can be read */
			for (k = 0; k < n; k++) {
				uint8_t *p = cb + (size_t)k * in->blocksize;

				if (e4t_journal_read(j, i + k, 1, p))
					memset(p, 0, in->blocksize);
			}
		}
		if (!scan)
			scan = cb;
		for (k = 0; k < n; k++) {
			const uint8_t *p = scan + (size_t)k * in->blocksize;
			uint32_t ty = jbd2_be32(p + JBD2_H_BLOCKTYPE);

			if (jbd2_be32(p) != JBD2_MAGIC)
				continue;
			if (ty != JBD2_DESCRIPTOR_BLOCK &&
			    ty != JBD2_COMMIT_BLOCK && ty != JBD2_REVOKE_BLOCK)
				continue;
			hdr_type[i + k] = (uint8_t)ty;
			hdr_tid[i + k] = jbd2_be32(p + JBD2_H_SEQUENCE);
			if (ty == JBD2_COMMIT_BLOCK &&
			    (!have_newest ||
			     (int32_t)(hdr_tid[i + k] - newest_tid) > 0)) {
				newest_tid = hdr_tid[i + k];
				scan_start = next_block(in, i + k);
				have_newest = 1;
			}
		}
	}
	/* a live log ends where the newest data ends */
	for (t = 0; t < j->ntrans; t++) {
		const struct e4t_jtrans *lt = &j->trans[t];

		if (lt->flags & E4T_JT_LIVE) {
			uint32_t e = lt->first_jblock, n;

			for (n = 0; n < lt->nr_jblocks; n++)
				e = next_block(in, e);
			scan_start = e;
		}
	}
	b = scan_start;
	for (i = 0; i < loglen; i++, b = next_block(in, b)) {
		if ((hdr_type[b] != JBD2_DESCRIPTOR_BLOCK &&
		     hdr_type[b] != JBD2_REVOKE_BLOCK) ||
		    j->owner[b])
			continue;
		if (in->live && (int32_t)(hdr_tid[b] - in->sequence) >= 0)
			continue; /* newer than the live log: never committed */
		if (push(&st, &nst, &stcap, sizeof(*st))) {
			err = ENOMEM;
			goto out;
		}
		st[nst].tid = hdr_tid[b];
		st[nst].pos = i;
		st[nst++].b = b;
	}
	stale_ref = in->sequence;
	if (nst > 1)
		qsort(st, nst, sizeof(*st), cmp_stale);
	for (si = 0; si < nst; si++) {
		struct walk w;

		b = st[si].b;
		if (j->owner[b] || have_tid(j, st[si].tid))
			continue;
		err = walk_one(j, b, st[si].tid, 1, loglen - st[si].pos, &w);
		if (err)
			goto out;
		if (w.torn && w.t.nblocks == 0 && w.t.nrevoked == 0) {
			walk_free(&w);
			continue;
		}
		w.t.flags |= E4T_JT_STALE;
		/* torn (commit overwritten): listed, never used */
		err = add_trans(j, &w.t);
		if (err) {
			walk_free(&w);
			goto out;
		}
		take_blocks(j, &j->trans[j->ntrans - 1], (uint32_t)j->ntrans);
	}
out:
	free(st);
	free(hdr_type);
	free(hdr_tid);
	free(cb);
	return err;
}

/* ------------------------------------------------------------------ */
/* Fast commits (fs/ext4/fast_commit.c, ext4_fc_replay_scan)           */
/* ------------------------------------------------------------------ */

/*
 * The fast commits: from the area's first block, which must start with
 * a HEAD, TLVs up to each TAIL.  Every fast commit since the last full
 * commit carries the tid of the HEAD (the running transaction); a TAIL
 * with another tid, or whose crc fails after a good fast commit, is a
 * leftover of an older run and ends the area (ext4_fc_replay_scan:
 * JBD2_FC_REPLAY_STOP); only the first fast commit failing is damage
 * (-EFSBADCRC).  Recovery replays them when the HEAD's tid is the
 * transaction after the last full one replayed (end_transaction).
 */
/* The fast commits; stale ones (of a clean journal, or of an older tid)
 * only with stale set. */
static errcode_t walk_fast_commits(struct e4t_journal *j, int stale)
{
	const struct e4t_jinfo *in = &j->info;
	uint32_t bs = in->blocksize, b, crc = 0, head_tid = 0;
	unsigned isize = j->img->inode_size;
	struct e4t_jtrans cur;
	size_t icap = 0, ngood = 0;
	int started = 0;
	errcode_t err = 0;
	uint32_t live_tid = in->sequence;
	size_t t;

	if (!in->fc_blocks)
		return 0;
	/* end_transaction: the tid after the last committed live
	 * transaction, or the one whose checksum failed */
	for (t = 0; t < j->ntrans; t++) {
		const struct e4t_jtrans *lt = &j->trans[t];

		if (!(lt->flags & E4T_JT_LIVE) ||
		    !(lt->flags & E4T_JT_COMMITTED) ||
		    (lt->flags & E4T_JT_FAST_COMMIT))
			continue;
		if (lt->flags & E4T_JT_CSUM_BAD) {
			live_tid = lt->tid;
			break;
		}
		live_tid = lt->tid + 1;
	}

	memset(&cur, 0, sizeof(cur));
	for (b = in->fc_first; b < in->maxlen; b++) {
		uint8_t *blk = j->buf;
		uint32_t off = 0;
		errcode_t rerr = e4t_journal_read(j, b, 1, blk);

		if (rerr) {
			jwarn(j, rerr, b, "journal block cannot be read");
			break;
		}
		if (!started) {
			if (jbd2_le16(blk) != EXT4_FC_TAG_HEAD)
				break;
			started = 1;
			cur.first_jblock = b;
		}
		while (off + EXT4_FC_TL_SIZE <= bs) {
			uint16_t tag = jbd2_le16(blk + off);
			uint16_t len = jbd2_le16(blk + off + 2);
			const uint8_t *val = blk + off + EXT4_FC_TL_SIZE;
			int ok = len <= bs - off - EXT4_FC_TL_SIZE;

			if (ok) {
				switch (tag) {
				case EXT4_FC_TAG_INODE:
					ok = len >= 4 + 128 && len <= 4 + isize;
					break;
				case EXT4_FC_TAG_TAIL: ok = len >= 8; break;
				case EXT4_FC_TAG_HEAD: ok = len == 8; break;
				case EXT4_FC_TAG_ADD_RANGE:
				case EXT4_FC_TAG_DEL_RANGE:
				case EXT4_FC_TAG_CREAT:
				case EXT4_FC_TAG_LINK:
				case EXT4_FC_TAG_UNLINK:
				case EXT4_FC_TAG_PAD: break;
				default: ok = 0;
				}
			}
			if (!ok)
				goto done;
			if (tag == EXT4_FC_TAG_HEAD) {
				uint32_t tid = jbd2_le32(val + 4);

				if (b == in->fc_first && off == 0)
					head_tid = tid;
				else if (tid != head_tid)
					goto done;
			}
			if (tag == EXT4_FC_TAG_TAIL) {
				uint32_t tid = jbd2_le32(val);

				crc = ext2fs_crc32c_le(crc, blk + off,
						       EXT4_FC_TL_SIZE + 4);
				if (ngood && (tid != head_tid ||
					      crc != jbd2_le32(val + 4)))
					goto done; /* an older run's leftover */
				cur.nr_jblocks = b - cur.first_jblock + 1;
				cur.tid = tid;
				cur.flags =
					E4T_JT_FAST_COMMIT | E4T_JT_COMMITTED;
				if (tid != head_tid ||
				    crc != jbd2_le32(val + 4)) {
					cur.flags |= E4T_JT_CSUM_BAD;
					jwarn(j, E4T_ERR_JOURNAL_CSUM, b,
					      "fast commit checksum does not "
					      "verify (or its tail's tid is "
					      "not its head's)");
				} else {
					cur.flags |= E4T_JT_CSUM_OK;
				}
				cur.flags |= (in->live && tid == live_tid)
						     ? E4T_JT_LIVE
						     : E4T_JT_STALE;
				if ((cur.flags & E4T_JT_STALE) && !stale) {
					/* not what recovery would replay */
					free(cur.fc_inodes);
				} else {
					err = add_trans(j, &cur);
					if (err) {
						free(cur.fc_inodes);
						return err;
					}
				}
				if (cur.flags & E4T_JT_CSUM_BAD)
					return 0;
				ngood++;
				memset(&cur, 0, sizeof(cur));
				icap = 0;
				crc = 0;
				/* the tail fills its block */
				cur.first_jblock = b + 1;
			} else {
				crc = ext2fs_crc32c_le(crc, blk + off,
						       EXT4_FC_TL_SIZE + len);
			}
			if (tag == EXT4_FC_TAG_INODE) {
				struct e4t_fc_inode *fi;

				if (push(&cur.fc_inodes, &cur.nfc_inodes, &icap,
					 sizeof(*cur.fc_inodes))) {
					free(cur.fc_inodes);
					return ENOMEM;
				}
				fi = &cur.fc_inodes[cur.nfc_inodes++];
				fi->ino = jbd2_le32(val);
				fi->jblock = b;
				fi->offset =
					(uint16_t)(off + EXT4_FC_TL_SIZE + 4);
				fi->len = (uint16_t)(len - 4);
			}
			off += EXT4_FC_TL_SIZE + len;
		}
	}
done:
	free(cur.fc_inodes);
	return 0;
}

/* ------------------------------------------------------------------ */

static uint32_t sort_ref;

static int cmp_trans(const void *a, const void *b)
{
	const struct e4t_jtrans *x = a, *y = b;
	int32_t dx = (int32_t)(x->tid - sort_ref);
	int32_t dy = (int32_t)(y->tid - sort_ref);
	int fx = !!(x->flags & E4T_JT_FAST_COMMIT);
	int fy = !!(y->flags & E4T_JT_FAST_COMMIT);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (fx != fy)
		return fx ? -1 : 1; /* fast commits of T precede T's commit */
	if (x->first_jblock != y->first_jblock)
		return x->first_jblock < y->first_jblock ? -1 : 1;
	return 0;
}

errcode_t e4t_journal_load(struct e4t_journal *j, unsigned flags,
			   e4t_warn_fn warn, void *priv)
{
	const struct e4t_jinfo *in = &j->info;
	errcode_t err;

	if (j->owner)
		return EINVAL; /* loaded once */
	j->warn = warn;
	j->priv = priv;
	j->owner = calloc(in->maxlen, sizeof(*j->owner));
	if (!j->owner)
		return ENOMEM;
	/* jbd2's load_superblock() refuses the journal: nothing replayed */
	if (in->sb_csum == 0)
		jwarn(j, E4T_ERR_JOURNAL_CSUM, j->sb_block,
		      "journal superblock checksum does not verify: the "
		      "kernel refuses the journal");
	/* the journal in place (read-only images through unix_io only) */
	if (j->fd >= 0)
		err = e4t_jmap_open(&j->mm, NULL, 0, NULL, j->fd, in->maxlen,
				    in->blocksize, (flags & E4T_J_STALE) != 0);
	else if (!j->img->writable &&
		 j->img->fs->io->manager == unix_io_manager)
		err = e4t_jmap_open(&j->mm, j->img->name, j->img->offset,
				    j->map, -1, in->maxlen, in->blocksize,
				    (flags & E4T_J_STALE) != 0);
	else
		err = 0;
	if (err)
		return err;
	if (in->live) {
		err = walk_live(j);
		if (err)
			return err;
	}
	if (flags & E4T_J_STALE) {
		err = walk_stale(j);
		if (err)
			return err;
	}
	err = walk_fast_commits(j, (flags & E4T_J_STALE) != 0);
	if (err)
		return err;
	apply_revokes(j);
	check_replay(j);
	e4t_jmap_release(&j->mm); /* what the load read */
	sort_ref = in->sequence;
	if (j->ntrans > 1)
		qsort(j->trans, j->ntrans, sizeof(*j->trans), cmp_trans);
	return 0;
}

int e4t_journal_damaged(const struct e4t_journal *j)
{
	return j->damaged;
}
