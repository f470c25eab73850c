/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mfread.c --- reading a whole manifest for import: every line checked
 * (e4t_mf_parse), the entries kept with the times of the fields imported
 * only, their paths in large blocks.  The file is read in large blocks
 * too; a regular file of some size is read by two threads, each taking
 * half of it (the lines that start in its half), and the halves are
 * joined in order: the entries, their line numbers and the first bad
 * line are as one thread would find them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e4time.h"
#include "manifest_int.h"

#define READ_SIZE  (4U << 20) /* bytes read at a time */
#define BLOCK_SIZE (1U << 20) /* path bytes kept per block, at least */
#define THREAD_MIN (16 << 20) /* a file smaller: one thread */

/* One reader: a FILE read to its end, or the lines that start in
 * [start, stop) of a regular file. */
struct job {
	FILE *fp; /* NULL: fd, by pread */
	int fd;
	off_t base, start, stop, pos; /* base: the manifest's first byte */
	/* what it read */
	struct e4t_manifest m;
	unsigned long lines;	     /* lines that start in its part */
	unsigned long first;	     /* its first line not empty, or 0 */
	int first_header;	     /* that line is a header: its version */
	errcode_t err;		     /* the first bad line, or a read error */
	struct e4t_manifest_bad bad; /* bad.line: in its part */
};

static void blocks_free(struct e4t_mf_block *b)
{
	while (b) {
		struct e4t_mf_block *next = b->next;

		free(b);
		b = next;
	}
}

/* Room for n bytes in the manifest's current block (the list's head). */
static char *block_room(struct e4t_manifest *m, size_t n)
{
	struct e4t_mf_block *b = m->blocks;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > BLOCK_SIZE ? n : BLOCK_SIZE;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = m->blocks;
		m->blocks = b;
	}
	return b->data + b->used;
}

/* One line (without its '\n'), the job's lines-th. */
static errcode_t on_line(struct job *jb, const char *line, size_t n)
{
	struct e4t_manifest *m = &jb->m;
	struct e4t_mf_entry *e;
	struct e4t_mf_row r;
	errcode_t err;
	char *p;
	int f;

	jb->lines++;
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n == 0)
		return 0; /* empty lines, before the header too */
	err = e4t_mf_parse(line, n, &r, &jb->bad.why);
	if (!jb->first) {
		jb->first = jb->lines;
		jb->first_header = err ? 0 : r.header_version;
	}
	if (err || (r.header_version && jb->lines != jb->first) ||
	    r.header_version > 1) {
		jb->bad.line = jb->lines;
		jb->bad.unknown_version = r.header_version > 1;
		return err ? err : E4T_ERR_MANIFEST;
	}
	if (r.header_version)
		return 0;
	if (e4t_grow(&m->entries, &m->cap, m->n + 1, sizeof(*m->entries), 4096))
		return ENOMEM;
	if (m->nf && e4t_grow(&m->ts, &m->ts_cap, m->n + 1,
			      (size_t)m->nf * sizeof(*m->ts), 4096))
		return ENOMEM;
	p = block_room(m, e4t_mf_path_room(&r));
	if (!p)
		return ENOMEM;
	e = &m->entries[m->n];
	e->path = p;
	e->path_len = e4t_mf_path(&r, p);
	m->blocks->used += e->path_len + 1;
	e->line = jb->lines;
	e->ino = r.ino;
	e->have = r.have & m->fields;
	for (f = 0; f < E4T_DTIME; f++) {
		struct e4t_mf_ts *t;

		if (m->slot[f] < 0)
			continue;
		t = &m->ts[m->n * (size_t)m->nf + m->slot[f]];
		t->sec = r.ts[f].sec;
		t->nsec = r.ts[f].nsec;
	}
	m->n++;
	return 0;
}

/* Up to n bytes at the job's position; 0 at the end, -1 (err set) on
 * a read error. */
static ssize_t read_some(struct job *jb, char *buf, size_t n)
{
	ssize_t got;

	if (jb->fp) {
		size_t k = fread(buf, 1, n, jb->fp);

		if (k == 0 && ferror(jb->fp)) {
			jb->err = errno ? errno : EIO;
			return -1;
		}
		return (ssize_t)k;
	}
	do
		got = pread(jb->fd, buf, n, jb->pos);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		jb->err = errno ? errno : EIO;
		return -1;
	}
	jb->pos += got;
	return got;
}

/*
 * The job's lines: a FILE's, or those that start in [start, stop) of
 * the fd (the first part of a later half, the end of a line that
 * started before it, is skipped).
 */
static void *run(void *arg)
{
	struct job *jb = arg;
	size_t cap = READ_SIZE, have = 0;
	off_t at = jb->start; /* the file offset of buf[0] */
	char *buf = malloc(cap);
	int skip = 0, eof = 0;

	if (!buf) {
		jb->err = ENOMEM;
		return NULL;
	}
	if (!jb->fp && jb->start > jb->base) {
		/* the byte before: a '\n' there, and a line starts here */
		jb->pos = jb->start - 1;
		at = jb->pos;
		skip = 1;
	} else {
		jb->pos = jb->start;
	}
	errno = 0;
	while (!eof && !jb->err) {
		ssize_t got;
		size_t done = 0;
		char *nl;

		if (have == cap) { /* a line longer than buf */
			char *b = realloc(buf, cap * 2);

			if (!b) {
				jb->err = ENOMEM;
				break;
			}
			buf = b;
			cap *= 2;
		}
		got = read_some(jb, buf + have, cap - have);
		if (got < 0)
			break;
		eof = got == 0;
		have += (size_t)got;
		if (skip) {
			nl = memchr(buf, '\n', have);
			if (!nl) {
				at += (off_t)have;
				have = 0;
				continue;
			}
			done = (size_t)(nl - buf) + 1;
			skip = 0;
		}
		for (;;) {
			size_t n;

			if (!jb->fp && at + (off_t)done >= jb->stop) {
				eof = 1; /* the next line is the next job's */
				break;
			}
			nl = memchr(buf + done, '\n', have - done);
			if (!nl && !(eof && done < have))
				break;
			n = nl ? (size_t)(nl - (buf + done)) : have - done;
			jb->err = on_line(jb, buf + done, n);
			if (jb->err)
				break;
			done += n + (nl != NULL);
		}
		memmove(buf, buf + done, have - done);
		have -= done;
		at += (off_t)done;
	}
	free(buf);
	return NULL;
}

static void shape_init(struct e4t_manifest *m, unsigned fields)
{
	int f;

	memset(m, 0, sizeof(*m));
	m->fields = fields & ((1U << E4T_DTIME) - 1);
	for (f = 0; f < E4T_NFIELDS; f++)
		m->slot[f] = (m->fields & (1U << f)) ? m->nf++ : -1;
}

static void job_free(struct job *jb)
{
	free(jb->m.entries);
	free(jb->m.ts);
	blocks_free(jb->m.blocks);
	memset(&jb->m, 0, sizeof(jb->m));
}

/* Append b's entries to a's (b is emptied); the lines of b's part come
 * after lines of a's. */
static errcode_t join(struct e4t_manifest *a, struct job *jb,
		      unsigned long lines_before)
{
	struct e4t_manifest *b = &jb->m;
	struct e4t_mf_block **tail;
	size_t nf = (size_t)a->nf;

	if (b->n) {
		size_t i;

		if (e4t_grow(&a->entries, &a->cap, a->n + b->n,
			     sizeof(*a->entries), 16))
			return ENOMEM;
		if (nf) {
			if (e4t_grow(&a->ts, &a->ts_cap, a->n + b->n,
				     nf * sizeof(*a->ts), 16))
				return ENOMEM;
			memcpy(a->ts + a->n * nf, b->ts,
			       b->n * nf * sizeof(*b->ts));
		}
		for (i = 0; i < b->n; i++)
			b->entries[i].line += lines_before;
		memcpy(a->entries + a->n, b->entries,
		       b->n * sizeof(*b->entries));
		a->n += b->n;
	}
	for (tail = &a->blocks; *tail; tail = &(*tail)->next)
		;
	*tail = b->blocks;
	b->blocks = NULL;
	job_free(jb);
	return 0;
}

/* Two threads for a regular file of some size (threads 0), or as told. */
static int parts_for(FILE *fp, int threads, off_t *start, off_t *size)
{
	struct stat st;
	int fd = fileno(fp);

	if (threads == 1 || fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 1;
	*start = ftello(fp);
	if (*start < 0 || st.st_size <= *start)
		return 1;
	*size = st.st_size - *start;
	if (threads == 0 &&
	    (*size < THREAD_MIN || sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return 1;
	return 2;
}

errcode_t e4t_manifest_read_fields(FILE *fp, unsigned fields, int threads,
				   struct e4t_manifest **ret,
				   struct e4t_manifest_bad *bad)
{
	struct job jobs[2];
	struct e4t_manifest *mf;
	off_t start = 0, size = 0;
	int n = parts_for(fp, threads, &start, &size), k, worker = 0;
	unsigned long lines = 0, nonempty = 0;
	pthread_t thread;
	errcode_t err = 0;

	*ret = NULL;
	memset(bad, 0, sizeof(*bad));
	memset(jobs, 0, sizeof(jobs));
	mf = malloc(sizeof(*mf));
	if (!mf)
		return ENOMEM;
	shape_init(mf, fields);
	for (k = 0; k < n; k++) {
		struct job *jb = &jobs[k];

		jb->m = *mf;
		if (n == 1) {
			jb->fp = fp;
			continue;
		}
		jb->fd = fileno(fp);
		jb->base = start;
		jb->start = start + (off_t)k * (size / 2);
		jb->stop = k ? start + size : start + size / 2;
	}
	if (n > 1)
		worker = !pthread_create(&thread, NULL, run, &jobs[1]);
	run(&jobs[0]);
	if (n > 1 && worker)
		pthread_join(thread, NULL);
	else if (n > 1)
		run(&jobs[1]);
	/* in order: the first error; a header first in a later part is
	 * not first in the file when an earlier part held a line */
	for (k = 0; k < n && !err; k++) {
		struct job *jb = &jobs[k];

		if (jb->first_header && nonempty) {
			bad->line = lines + jb->first;
			bad->unknown_version = jb->first_header > 1;
			err = E4T_ERR_MANIFEST;
		} else if (jb->err) {
			*bad = jb->bad;
			if (bad->line)
				bad->line += lines;
			err = jb->err;
		} else if (k) {
			err = join(&jobs[0].m, jb, lines);
		}
		nonempty += jb->first != 0;
		lines += jb->lines;
	}
	if (err) {
		for (k = 0; k < n; k++)
			job_free(&jobs[k]);
		free(mf);
		return err;
	}
	*mf = jobs[0].m;
	*ret = mf;
	return 0;
}

errcode_t e4t_manifest_read(FILE *fp, struct e4t_manifest **ret,
			    struct e4t_manifest_bad *bad)
{
	return e4t_manifest_read_fields(fp, (1U << E4T_DTIME) - 1, 0, ret, bad);
}

void e4t_manifest_free(struct e4t_manifest *m)
{
	if (!m)
		return;
	free(m->entries);
	free(m->ts);
	blocks_free(m->blocks);
	free(m);
}

size_t e4t_manifest_count(const struct e4t_manifest *m)
{
	return m ? m->n : 0;
}

errcode_t e4t_manifest_map(struct e4t_manifest *mf,
			   const struct e4t_pathmap *pm, size_t *outside)
{
	size_t i, kept = 0, nf = mf ? (size_t)mf->nf : 0;

	*outside = 0;
	for (i = 0; mf && i < mf->n; i++) {
		struct e4t_mf_entry *e = &mf->entries[i];
		size_t len;
		char *p, *to;

		if (e4t_pathmap_apply(pm, e->path, e->path_len, &p, &len))
			return ENOMEM;
		if (!p) {
			(*outside)++;
			continue;
		}
		to = block_room(mf, len + 1);
		if (!to) {
			free(p);
			return ENOMEM;
		}
		memcpy(to, p, len + 1);
		free(p);
		mf->blocks->used += len + 1;
		e->path = to;
		e->path_len = len;
		if (kept != i) {
			mf->entries[kept] = *e;
			memcpy(mf->ts + kept * nf, mf->ts + i * nf,
			       nf * sizeof(*mf->ts));
		}
		kept++;
	}
	if (mf)
		mf->n = kept;
	return 0;
}
