/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ewf.c --- EWF (E01) images through libewf (the 20140813 API Debian
 * ships): libewf_glob finds the segments beside the first (.E01, .E02,
 * ... .E99, .EAA, ...), libewf_handle_open opens them all.
 *
 * libewf's messages are not kept: the interface has no slot for them,
 * and the library prints nothing.  A segment missing in the middle or
 * at the end is E4T_ERR_CONTAINER_PIECE naming the segment that should
 * follow the last one found; any other failure to open is
 * E4T_ERR_CONTAINER.  A chunk whose checksum fails when read is
 * E4T_ERR_CONTAINER too (libewf would hand back its bytes).
 *
 * verify computes the MD5 (and SHA-1 when one is stored) of the media
 * with digest.c and compares them with the hash sections.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "e4time.h"
#include "container/container.h"

#ifdef HAVE_LIBEWF

#include <libewf.h> /* NOLINT: libyal's header */

/* Handles on the segments: h[0] opened with the container, h[1] when a
 * read finds h[0] busy (the second thread of tree.c's inode scan), so
 * that two threads decompress chunks at once.  A libewf handle is not
 * thread-safe: each has its lock, held while it is used. */
#define HANDLES 2

struct ewf {
	libewf_handle_t *h[HANDLES];
	pthread_mutex_t hl[HANDLES];
	int failed[HANDLES]; /* opening it failed: not tried again */
	char **names;	     /* the segments libewf_glob found */
	int count;
	uint32_t bps; /* bytes per sector */
};

/* The name of the segment after name (.E01 -> .E02, .E99 -> .EAA, .EAZ
 * -> .EBA), in a malloc'd string; NULL when it cannot tell. */
static char *next_segment(const char *name)
{
	size_t len = strlen(name);
	char *n, *x;
	int alpha;

	if (len < 4 || name[len - 4] != '.')
		return NULL;
	n = strdup(name);
	if (!n)
		return NULL;
	x = n + len - 2; /* the two characters after the type letter */
	if (x[0] >= '0' && x[0] <= '9' && x[1] >= '0' && x[1] <= '9') {
		if (x[0] == '9' && x[1] == '9') {
			alpha = x[-1] >= 'a';
			x[0] = x[1] = alpha ? 'a' : 'A';
		} else if (x[1] == '9') {
			x[0]++;
			x[1] = '0';
		} else {
			x[1]++;
		}
		return n;
	}
	alpha = x[1] >= 'a';
	if (x[1] != (alpha ? 'z' : 'Z')) {
		x[1]++;
		return n;
	}
	x[1] = alpha ? 'a' : 'A';
	if (x[0] != (alpha ? 'z' : 'Z')) {
		x[0]++;
		return n;
	}
	x[0] = alpha ? 'a' : 'A';
	if (x[-1] == 'z' || x[-1] == 'Z') {
		free(n);
		return NULL;
	}
	x[-1]++;
	return n;
}

static uint32_t checksum_errors(libewf_handle_t *h)
{
	libewf_error_t *error = NULL;
	uint32_t n = 0;

	if (libewf_handle_get_number_of_checksum_errors(h, &n, &error) != 1) {
		libewf_error_free(&error);
		return 0;
	}
	return n;
}

/*
 * Whether [off, off + len) holds a chunk libewf found failing its
 * checksum, now or before: libewf keeps the ranges, and a chunk read
 * again (from its own cache) is not counted again, so the ranges are
 * what tells, not the count growing.
 */
static int bad_range(const struct ewf *e, libewf_handle_t *h, uint64_t off,
		     size_t len)
{
	uint32_t i, n = checksum_errors(h);

	for (i = 0; i < n; i++) {
		libewf_error_t *error = NULL;
		uint64_t sector = 0, count = 0;

		if (libewf_handle_get_checksum_error(h, i, &sector, &count,
						     &error) != 1) {
			libewf_error_free(&error);
			return 1; /* cannot tell: not trusted */
		}
		if (sector * e->bps < off + len &&
		    (sector + count) * e->bps > off)
			return 1;
	}
	return 0;
}

static errcode_t read_handle(const struct ewf *e, libewf_handle_t *h, void *buf,
			     size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		libewf_error_t *error = NULL;
		ssize_t n = libewf_handle_read_random(
			h, (char *)buf + done, len - done,
			(off64_t)(off + done), &error);

		if (n < 0) {
			libewf_error_free(&error);
			return E4T_ERR_CONTAINER;
		}
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		done += (size_t)n;
	}
	return bad_range(e, h, off, len) ? E4T_ERR_CONTAINER : 0;
}

/* Open handle i, its lock held: 0 on success. */
static int open_more(struct ewf *e, int i)
{
	libewf_error_t *error = NULL;

	if (e->failed[i])
		return -1;
	if (libewf_handle_initialize(&e->h[i], &error) != 1) {
		libewf_error_free(&error);
		e->h[i] = NULL;
		e->failed[i] = 1;
		return -1;
	}
	if (libewf_handle_open(e->h[i], e->names, e->count, LIBEWF_OPEN_READ,
			       &error) != 1) {
		libewf_error_free(&error);
		if (libewf_handle_free(&e->h[i], &error) != 1)
			libewf_error_free(&error);
		e->h[i] = NULL;
		e->failed[i] = 1;
		return -1;
	}
	return 0;
}

/* Parallel: the first handle free, else the first. */
static errcode_t ewf_read(struct e4t_container *c, void *buf, size_t len,
			  uint64_t off)
{
	struct ewf *e = c->priv;
	errcode_t err;
	int i;

	for (i = 0; i < HANDLES; i++) {
		if (pthread_mutex_trylock(&e->hl[i]))
			continue;
		if (e->h[i] || !open_more(e, i))
			break;
		pthread_mutex_unlock(&e->hl[i]);
	}
	if (i == HANDLES) {
		i = 0;
		pthread_mutex_lock(&e->hl[0]);
	}
	err = read_handle(e, e->h[i], buf, len, off);
	pthread_mutex_unlock(&e->hl[i]);
	return err;
}

/* The hash stored as a hash value ("MD5", "SHA1"), in hex, or "". */
static void stored_hash(libewf_handle_t *h, const char *id, char *out,
			size_t outsz)
{
	libewf_error_t *error = NULL;

	out[0] = '\0';
	if (libewf_handle_get_utf8_hash_value(h, (const uint8_t *)id,
					      strlen(id), (uint8_t *)out, outsz,
					      &error) != 1) {
		libewf_error_free(&error);
		out[0] = '\0';
	}
}

/* What the checksum errors from index first on say: ", N chunks fail
 * their checksum, the first at byte X". */
static void bad_chunks(libewf_handle_t *h, uint32_t first, char *out,
		       size_t outsz)
{
	libewf_error_t *error = NULL;
	uint64_t sector = 0, count = 0;
	uint32_t bps = 512, n = checksum_errors(h) - first;

	out[0] = '\0';
	if (!n)
		return;
	if (libewf_handle_get_bytes_per_sector(h, &bps, &error) != 1)
		libewf_error_free(&error);
	if (libewf_handle_get_checksum_error(h, first, &sector, &count,
					     &error) != 1)
		libewf_error_free(&error);
	snprintf(out, outsz,
		 "; %u chunk%s fail%s the checksum, the first at byte %llu", n,
		 n == 1 ? "" : "s", n == 1 ? "s" : "",
		 (unsigned long long)sector * bps);
}

/*
 * Hash the media as libewf hands it over (a chunk whose checksum fails
 * is hashed too, as read, and counted) and compare.
 */
static errcode_t ewf_verify(struct e4t_container *c, char *msg, size_t msgsz)
{
	enum { CHUNK = 4 << 20 };
	struct ewf *e = c->priv;
	char md5[64], sha1[64], cmd5[33], csha1[41], bad[128];
	uint8_t dmd5[16], dsha1[20];
	struct e4t_digest *m = NULL, *s = NULL;
	uint64_t off;
	uint32_t bad0;
	errcode_t err;
	char *buf;
	int ok;

	buf = malloc(CHUNK);
	if (!buf)
		return ENOMEM;
	err = e4t_digest_new(E4T_HASH_MD5, &m);
	if (!err)
		err = e4t_digest_new(E4T_HASH_SHA1, &s);
	if (err) {
		e4t_digest_free(m);
		free(buf);
		return err;
	}
	pthread_mutex_lock(&c->lock);
	pthread_mutex_lock(&e->hl[0]);
	stored_hash(e->h[0], "MD5", md5, sizeof(md5));
	stored_hash(e->h[0], "SHA1", sha1, sizeof(sha1));
	if (!md5[0] && !sha1[0]) {
		pthread_mutex_unlock(&e->hl[0]);
		pthread_mutex_unlock(&c->lock);
		e4t_digest_free(m);
		e4t_digest_free(s);
		free(buf);
		snprintf(msg, msgsz, "no MD5 or SHA1 stored");
		return E4T_ERR_CONTAINER_NO_HASH;
	}
	bad0 = checksum_errors(e->h[0]);
	for (off = 0; off < c->size; off += CHUNK) {
		size_t n =
			c->size - off < CHUNK ? (size_t)(c->size - off) : CHUNK;
		size_t done = 0;

		while (done < n) {
			libewf_error_t *error = NULL;
			ssize_t r = libewf_handle_read_random(
				e->h[0], buf + done, n - done,
				(off64_t)(off + done), &error);

			if (r <= 0) {
				libewf_error_free(&error);
				pthread_mutex_unlock(&e->hl[0]);
				pthread_mutex_unlock(&c->lock);
				e4t_digest_free(m);
				e4t_digest_free(s);
				free(buf);
				snprintf(msg, msgsz, "unreadable at byte %llu",
					 (unsigned long long)off + done);
				return E4T_ERR_CONTAINER;
			}
			done += (size_t)r;
		}
		if (md5[0])
			e4t_digest_update(m, buf, n);
		if (sha1[0])
			e4t_digest_update(s, buf, n);
	}
	bad_chunks(e->h[0], bad0, bad, sizeof(bad));
	pthread_mutex_unlock(&e->hl[0]);
	pthread_mutex_unlock(&c->lock);
	free(buf);
	err = e4t_digest_final(m, dmd5);
	if (!err)
		err = e4t_digest_final(s, dsha1);
	e4t_digest_free(m);
	e4t_digest_free(s);
	if (err)
		return err; /* E4T_ERR_DIGEST says it all */
	e4t_hex(dmd5, sizeof(dmd5), cmd5);
	e4t_hex(dsha1, sizeof(dsha1), csha1);
	ok = (!md5[0] || !strcasecmp(md5, cmd5)) &&
	     (!sha1[0] || !strcasecmp(sha1, csha1));
	if (ok && bad[0]) {
		/* the hashes agree: the chunks are what failed */
		snprintf(msg, msgsz, "%s; stored %s%s%s%s, computed the same",
			 bad + 2, md5[0] ? "MD5 " : "", md5,
			 md5[0] && sha1[0] ? " SHA1 "
			 : sha1[0]	   ? "SHA1 "
					   : "",
			 sha1);
		return E4T_ERR_CONTAINER_CHUNK;
	}
	if (md5[0] && sha1[0])
		snprintf(msg, msgsz,
			 "stored MD5 %s SHA1 %s, computed MD5 %s SHA1 %s%s%s",
			 md5, sha1, cmd5, csha1, ok ? "" : ": do not match",
			 bad);
	else if (md5[0])
		snprintf(msg, msgsz, "stored MD5 %s, computed %s%s%s", md5,
			 cmd5, ok ? "" : ": MD5 does not match", bad);
	else
		snprintf(msg, msgsz, "stored SHA1 %s, computed %s%s%s", sha1,
			 csha1, ok ? "" : ": SHA1 does not match", bad);
	return ok && !bad[0] ? 0 : E4T_ERR_CONTAINER_HASH;
}

static void ewf_close(struct e4t_container *c)
{
	struct ewf *e = c->priv;
	libewf_error_t *error = NULL;

	int i;

	if (!e)
		return;
	for (i = 0; i < HANDLES; i++) {
		if (e->h[i]) {
			if (libewf_handle_close(e->h[i], &error) != 0)
				libewf_error_free(&error);
			if (libewf_handle_free(&e->h[i], &error) != 1)
				libewf_error_free(&error);
		}
		pthread_mutex_destroy(&e->hl[i]);
	}
	if (e->names && libewf_glob_free(e->names, e->count, &error) != 1)
		libewf_error_free(&error);
	free(e);
	c->priv = NULL;
}

static const struct e4t_container_ops ewf_ops = {
	.read = ewf_read,
	.verify = ewf_verify,
	.close = ewf_close,
	.parallel = 1,
};

/* Whether the EWF1 segment at path is cut short: its last 76 bytes are
 * not a "next" or "done" section's descriptor (a whole segment ends in
 * one; EWF2 is not told so, 0). */
static int truncated(const char *path)
{
	static const unsigned char ewf1[8] = { 'E',  'V',  'F',	 0x09,
					       0x0d, 0x0a, 0xff, 0x00 };
	unsigned char b[8], t[8];
	int fd, r = 0;
	off_t end;

	if (e4t_evidence_fd(path, &fd))
		return 0;
	end = lseek(fd, 0, SEEK_END);
	if (pread(fd, b, 8, 0) == 8 && !memcmp(b, ewf1, 8) &&
	    (end < 76 + 13 || pread(fd, t, 8, end - 76) != 8 ||
	     (memcmp(t, "next\0", 5) && memcmp(t, "done\0", 5))))
		r = 1;
	close(fd);
	return r;
}

/* Whether the set the glob found lacks its last segments (libewf opens
 * it, but the last segment has no "done" section). */
static int incomplete(libewf_handle_t *h)
{
	libewf_error_t *error = NULL;
	int r = libewf_handle_segment_files_corrupted(h, &error);

	if (r < 0)
		libewf_error_free(&error);
	return r == 1;
}

errcode_t e4t_ewf_open(const char *path, struct e4t_container **ret,
		       char **what)
{
	struct e4t_container *c = NULL;
	libewf_error_t *error = NULL;
	char **names = NULL;
	int count = 0;
	size64_t size = 0;
	struct ewf *e;
	errcode_t err;
	int i;

	*ret = NULL;
	*what = NULL;
	if (libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names,
			&count, &error) != 1) {
		libewf_error_free(&error);
		return E4T_ERR_CONTAINER;
	}
	err = e4t_container_new(path, E4T_C_EWF, "EWF", &ewf_ops, &c);
	if (err)
		goto out;
	e = calloc(1, sizeof(*e));
	if (!e) {
		err = ENOMEM;
		goto out;
	}
	for (i = 0; i < HANDLES; i++)
		pthread_mutex_init(&e->hl[i], NULL);
	c->priv = e;
	e->names = names; /* kept: more handles open them */
	e->count = count;
	names = NULL;
	if (libewf_handle_initialize(&e->h[0], &error) != 1) {
		err = ENOMEM;
		goto out;
	}
	if (libewf_handle_open(e->h[0], e->names, count, LIBEWF_OPEN_READ,
			       &error) != 1 ||
	    incomplete(e->h[0])) {
		/* the segment after the last one found, when it is not there */
		char *next =
			count > 0 ? next_segment(e->names[count - 1]) : NULL;

		err = E4T_ERR_CONTAINER;
		if (next && access(next, F_OK) != 0 &&
		    truncated(e->names[count - 1])) {
			free(next);
			*what = strdup(e->names[count - 1]);
			err = *what ? E4T_ERR_CONTAINER_SEGMENT_SHORT : ENOMEM;
		} else if (next && access(next, F_OK) != 0) {
			*what = next;
			err = E4T_ERR_CONTAINER_PIECE;
		} else {
			free(next);
		}
		goto out;
	}
	if (libewf_handle_get_media_size(e->h[0], &size, &error) != 1) {
		err = E4T_ERR_CONTAINER;
		goto out;
	}
	e->bps = 512;
	if (libewf_handle_get_bytes_per_sector(e->h[0], &e->bps, &error) != 1 ||
	    !e->bps) {
		libewf_error_free(&error);
		e->bps = 512;
	}
	c->size = size;
	c->pieces = (unsigned)count;
out:
	libewf_error_free(&error);
	if (names && libewf_glob_free(names, count, &error) != 1)
		libewf_error_free(&error);
	if (err) {
		e4t_container_close(c);
		return err;
	}
	*ret = c;
	return 0;
}

#else /* !HAVE_LIBEWF */

errcode_t e4t_ewf_open(const char *path, struct e4t_container **ret,
		       char **what)
{
	(void)path;
	*ret = NULL;
	*what = NULL;
	return E4T_ERR_CONTAINER_UNSUPPORTED;
}

#endif
