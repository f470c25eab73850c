/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c --- the formatter table and what formatters share.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"

static const struct formatter *const formatters[] = {
	&fmt_text,	 &fmt_bodyfile, &fmt_mactime,	     &fmt_jsonl,
	&fmt_timesketch, &fmt_csv,	&fmt_timesketch_csv,
};

const struct formatter *formatter_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formatters) / sizeof(formatters[0]); i++)
		if (strcmp(formatters[i]->name, name) == 0)
			return formatters[i];
	return NULL;
}

const enum e4t_field body_fields[4] = { E4T_ATIME, E4T_MTIME, E4T_CTIME,
					E4T_CRTIME };

int ts_shown(const struct e4t_ts *ts, enum e4t_field f)
{
	if (!(ts->flags & E4T_TS_STORED))
		return 0;
	if (f == E4T_DTIME && (ts->flags & (E4T_TS_ZERO | E4T_TS_ORPHAN_LINK)))
		return 0;
	return 1;
}

void lb_decimal_time(struct lbuf *b, const struct e4t_ts *ts)
{
	if (ts->sec < 0 && ts->nsec > 0) {
		lb_putc(b, '-');
		lb_u64(b, (uint64_t)(-(ts->sec + 1)));
		lb_putc(b, '.');
		lb_uint_pad(b, E4T_NSEC_PER_SEC - ts->nsec, 9);
	} else {
		lb_i64(b, ts->sec);
		lb_putc(b, '.');
		lb_uint_pad(b, ts->nsec, 9);
	}
}

void lb_iso(struct lbuf *b, const struct e4t_ts *ts, int digits)
{
	char iso[E4T_ISO_BUFSZ];

	lb_puts(b, e4t_iso8601(ts->sec, ts->nsec, digits, 'T', INT32_MIN, iso,
			       sizeof(iso)));
}

void mode_string(uint16_t mode, char out[11])
{
	static const char rwx[8][3] = { { '-', '-', '-' }, { '-', '-', 'x' },
					{ '-', 'w', '-' }, { '-', 'w', 'x' },
					{ 'r', '-', '-' }, { 'r', '-', 'x' },
					{ 'r', 'w', '-' }, { 'r', 'w', 'x' } };
	char t = e4t_mode_type_char(mode);

	out[0] = t;
	if (t == 'r')
		out[0] = '-';
	memcpy(out + 1, rwx[(mode >> 6) & 7], 3);
	memcpy(out + 4, rwx[(mode >> 3) & 7], 3);
	memcpy(out + 7, rwx[mode & 7], 3);
	if (mode & 04000)
		out[3] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		out[6] = (mode & 0010) ? 's' : 'S';
	if (mode & 01000)
		out[9] = (mode & 0001) ? 't' : 'T';
	out[10] = '\0';
}

void lb_body_md5(struct out *o)
{
	if (o->hash == E4T_HASH_MD5 && o->hash_hex)
		lb_puts(&o->lb, o->hash_hex);
	else
		lb_putc(&o->lb, '0');
	lb_putc(&o->lb, '|');
}

void note_read_error(struct out *o, const struct e4t_row *row, const char *what,
		     errcode_t err)
{
	char *name, label[64];

	o->read_errors++;
	if (o->quiet)
		return;
	name = escape_text(row->path, row->path_len);
	snprintf(label, sizeof(label), "<%u> ", row->inode->ino);
	if (o->held) {
		held_text(o->held, HELD_TEXT, "%s: %s: %s%s: %s: %s", progname,
			  o->image, label, name ? name : "?", what,
			  error_message(err));
		free(name);
		return;
	}
	progress_done();
	fprintf(stderr, "%s: %s: %s%s: %s: %s\n", progname, o->image, label,
		name ? name : "?", what, error_message(err));
	free(name);
}

static void lb_link_target(struct out *o, const struct e4t_row *row, esc_fn esc)
{
	char *target;
	size_t len;
	errcode_t err;

	if (!o->img || !LINUX_S_ISLNK(row->inode->mode) ||
	    row->status == E4T_DELETED)
		return;
	if (o->img_lock)
		pthread_mutex_lock(o->img_lock);
	err = e4t_read_link(o->img, row->inode->ino, &target, &len);
	if (o->img_lock)
		pthread_mutex_unlock(o->img_lock);
	if (err) {
		note_read_error(o, row, "symlink target", err);
		return;
	}
	lb_write(&o->lb, " -> ", 4);
	esc(&o->lb, target, len);
	free(target);
}

void lb_body_middle(struct out *o, const struct e4t_row *row, const char *mode,
		    esc_fn esc)
{
	const struct e4t_inode *in = row->inode;
	struct lbuf *b = &o->lb;
	size_t mlen = strlen(mode);
	char *d;

	journal_suffix(b, row);
	lb_puts(b, status_suffix(row->status));
	lb_link_target(o, row, esc);
	/* the rest in room reserved once: 4 numbers, the mode, 5 bars */
	d = lb_reserve(b, (size_t)4 * 20 + mlen + 6);
	if (!d)
		return; /* out of memory: b failed */
	*d++ = '|';
	d = lb_put_u64(d, in->ino);
	*d++ = '|';
	d = stpcpy(d, mode); /* its NUL: room for it, the next '|' on it */
	*d++ = '|';
	d = lb_put_u64(d, in->uid);
	*d++ = '|';
	d = lb_put_u64(d, in->gid);
	*d++ = '|';
	d = lb_put_u64(d, in->size);
	b->len = (size_t)(d - b->p);
}

/* timeline --journal (output.h) */
void journal_suffix(struct lbuf *b, const struct e4t_row *row)
{
	if (row->journal && row->journal->kind != E4T_RJ_NAME_ONLY)
		lb_printf(b, " (journal tid %u)", row->journal->tid);
	if (row->journal && row->journal->earlier == 2)
		lb_puts(b, " (earlier file)");
}

const char *row_source(const struct e4t_row_journal *j)
{
	if (!j)
		return "disk";
	switch (j->kind) {
	case E4T_RJ_PREDELETE: return "journal-predelete";
	case E4T_RJ_NAME_ONLY: return "disk";
	default: return "journal";
	}
}

void manifest_header(struct lbuf *b, const char *key, const char *name,
		     const char *uuid)
{
	static const struct rec_schema schema = { .untyped = 1 };
	char now[E4T_ISO_BUFSZ];
	struct timespec ts;
	struct report r;

	clock_gettime(CLOCK_REALTIME, &ts);
	e4t_iso8601(ts.tv_sec, 0, 0, 'T', INT32_MIN, now, sizeof(now));
	(void)report_open(&r, RF_JSONL, NULL, &schema, NULL); /* no cells */
	rec_begin_into(&r, b, "manifest");
	rec_u64(&r, "e4time_manifest", 1);
	rec_cstr(&r, key, name);
	if (uuid)
		rec_cstr(&r, "uuid", uuid);
	rec_cstr(&r, "exported", now);
	rec_end(&r);
}

void out_records_open(struct out *o, enum report_format fmt, const char *volume)
{
	if (report_open(&o->rep, fmt, o->fp, &o->schema, volume)) {
		lb_fail(&o->lb); /* no rows: the run ends out of memory */
		return;
	}
	if (!o->no_header)
		report_header(&o->rep, &o->lb);
}

void out_records_end(struct out *o)
{
	report_finish(&o->rep); /* the rows are in o->lb: frees */
}

void rec_journal(struct report *r, const struct e4t_row *row)
{
	const struct e4t_row_journal *j = row->journal;
	struct e4t_ts commit = { .sec = j->commit_sec, .nsec = j->commit_nsec };

	rec_cstr(r, "source", row_source(j));
	rec_u64(r, "tid", j->tid);
	rec_iso(r, "commit_time", j->commit_sec ? &commit : NULL);
}

const char *status_suffix(enum e4t_status st)
{
	switch (st) {
	case E4T_ORPHAN: return " (orphan)";
	case E4T_DELETED: return " (deleted)";
	case E4T_DELETED_REALLOC: return " (deleted-realloc)";
	case E4T_NAME_ONLY: return " (name only)";
	case E4T_DELETED_NOINODE: return " (deleted, no inode)";
	default: return "";
	}
}

const char *status_name(enum e4t_status st)
{
	switch (st) {
	case E4T_ORPHAN: return "orphan";
	case E4T_DELETED: return "deleted";
	case E4T_DELETED_REALLOC: return "deleted-realloc";
	case E4T_NAME_ONLY: return "name-only";
	case E4T_DELETED_NOINODE: return "deleted-noinode";
	default: return "live";
	}
}

/* Does s[0..len) end with the text t? */
static int ends_with(const char *s, size_t len, const char *t)
{
	size_t n = strlen(t);

	return len >= n && memcmp(s + len - n, t, n) == 0;
}

size_t fake_suffix_at(const char *path, size_t len)
{
	static const char *const other[] = { " (earlier file)" };
	size_t i, d;
	int st;

	for (st = E4T_LIVE; st <= E4T_DELETED_NOINODE; st++) {
		const char *s = status_suffix((enum e4t_status)st);

		if (*s && ends_with(path, len, s))
			return len - strlen(s) + 1;
	}
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (ends_with(path, len, other[i]))
			return len - strlen(other[i]) + 1;
	/* " (journal tid N)" */
	if (!len || path[len - 1] != ')')
		return len;
	for (d = len - 1; d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9';)
		d--;
	if (d == len - 1 || !ends_with(path, d, " (journal tid "))
		return len;
	return d - strlen(" (journal tid ") + 1;
}

void lb_path(struct lbuf *b, const char *path, size_t len, esc_fn esc)
{
	size_t at = fake_suffix_at(path, len);

	esc(b, path, at);
	if (at == len)
		return;
	lb_write(b, "\\x28", 4); /* the '(' that would read as a status */
	esc(b, path + at + 1, len - at - 1);
}

/* A time as jsonl writes it (output.h). */
void lb_time_json(struct lbuf *b, const struct e4t_ts *ts)
{
	lb_puts(b, "{\"sec\":");
	lb_i64(b, ts->sec);
	lb_puts(b, ",\"nsec\":");
	lb_u64(b, ts->nsec);
	lb_puts(b, ",\"iso\":\"");
	lb_iso(b, ts, 9);
	lb_putc(b, '"');
	if (ts->flags & (E4T_TS_BAD_NSEC | E4T_TS_OLD_PRE1970)) {
		const char *sep = "";

		lb_puts(b, ",\"suspect\":[");
		if (ts->flags & E4T_TS_BAD_NSEC) {
			lb_puts(b, "\"nsec_out_of_range\"");
			sep = ",";
		}
		if (ts->flags & E4T_TS_OLD_PRE1970) {
			lb_puts(b, sep);
			lb_puts(b, "\"old_pre1970_encoding\"");
		}
		lb_putc(b, ']');
	}
	lb_putc(b, '}');
}
