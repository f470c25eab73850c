/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c --- report formats and record writers (see report.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "output.h"
#include "report.h"

static const char *const rf_names[RF_NFORMATS] = {
	[RF_TEXT] = "text",
	[RF_JSONL] = "jsonl",
	[RF_CSV] = "csv",
	[RF_JSON] = "json",
};

enum report_format report_format_parse(const char *arg, unsigned allowed,
				       const struct cmdinfo *cmd)
{
	char names[64];
	size_t len = 0, n;
	int f;

	for (f = 0; f < RF_NFORMATS; f++)
		if ((allowed & RF_MASK(f)) && !strcmp(arg, rf_names[f]))
			return (enum report_format)f;
	for (f = 0; f < RF_NFORMATS; f++) {
		if (!(allowed & RF_MASK(f)))
			continue;
		n = strlen(rf_names[f]);
		if (len + n + 3 > sizeof(names))
			break;
		if (len) {
			memcpy(names + len, ", ", 2);
			len += 2;
		}
		memcpy(names + len, rf_names[f], n);
		len += n;
	}
	names[len] = 0;
	usage_error(cmd, "unknown format '%s' (%s)", arg, names);
}

/* csv: what the values at a level do */
enum { M_COLS, M_ARRAY, M_OBJS, M_IGNORE };

/* The column of key, looked for from the one after the last found (a
 * record's keys mostly come in the columns' order): by the key's
 * address (the schema's own strings), then by its name. */
static int column(struct report *r, const char *key)
{
	const char *const *cols = r->schema->cols;
	size_t n = r->ncols, i, k;

	if (!key)
		return -1;
	for (k = 0, i = r->hint; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (cols[i] == key)
			goto found;
	for (k = 0, i = r->hint; k < n; k++, i = i + 1 < n ? i + 1 : 0)
		if (!strcmp(cols[i], key))
			goto found;
	return -1;
found:
	r->hint = i + 1 < n ? i + 1 : 0;
	return (int)i;
}

static errcode_t alloc_cells(struct report *r)
{
	size_t n = r->ncols ? r->ncols : 1;

#ifdef E4T_TEST_HOOKS
	/* test hook (test_cli): the csv writer cannot be set up */
	if (getenv("E4TIME_TEST_REPORT_NOMEM"))
		return ENOMEM;
#endif
	r->cells = calloc(n, sizeof(*r->cells));
	r->text = calloc(n, 1);
	r->early = calloc(n, 1);
	if (r->cells && r->text && r->early)
		return 0;
	free(r->cells);
	free(r->text);
	free(r->early);
	r->cells = NULL;
	r->text = NULL;
	r->early = NULL;
	return ENOMEM;
}

errcode_t report_open(struct report *r, enum report_format fmt, FILE *fp,
		      const struct rec_schema *schema, const char *volume)
{
	memset(r, 0, sizeof(*r));
	r->fp = fp;
	r->fmt = fmt;
	r->schema = schema;
	r->volume = volume;
	r->out = &r->lb;
	if (fmt == RF_TEXT && schema->labels)
		while (schema->cols[r->ncols])
			r->ncols++;
	if (fmt != RF_CSV)
		return 0;
	r->eol = isatty(fileno(fp)) ? "\n" : "\r\n";
	while (schema->cols[r->ncols])
		r->ncols++;
	return alloc_cells(r);
}

void report_header(const struct report *r, struct lbuf *b)
{
	size_t i;

	if (r->fmt != RF_CSV)
		return;
	if (r->volume)
		lb_puts(b, "volume,");
	for (i = 0; i < r->ncols; i++) {
		if (i)
			lb_putc(b, ',');
		esc_csv(b, r->schema->cols[i], strlen(r->schema->cols[i]));
	}
	lb_puts(b, r->eol);
}

errcode_t report_clone(struct report *copy, const struct report *r)
{
	*copy = *r;
	memset(&copy->lb, 0, sizeof(copy->lb));
	copy->out = &copy->lb;
	copy->cells = NULL;
	copy->text = NULL;
	copy->early = NULL;
	return r->cells ? alloc_cells(copy) : 0;
}

void report_init(struct report *r, enum report_format fmt, FILE *fp,
		 const struct rec_schema *schema)
{
	report_init_volume(r, fmt, fp, schema, NULL, 1);
}

void report_init_volume(struct report *r, enum report_format fmt, FILE *fp,
			const struct rec_schema *schema, const char *volume,
			int header)
{
	/* out of memory: no rows (no cells), and the output fails at the
	 * end (finish_stdout says so): no exit from here */
	if (report_open(r, fmt, fp, schema, volume))
		lb_fail(&r->lb);
	else if (header)
		report_header(r, &r->lb);
}

int report_finish(struct report *r)
{
	int rc = lb_flush(&r->lb, r->fp);
	size_t i;

	for (i = 0; r->cells && i < r->ncols; i++)
		lb_free(&r->cells[i]);
	free(r->cells);
	free(r->text);
	free(r->early);
	lb_free(&r->lb);
	r->cells = NULL;
	r->text = NULL;
	r->early = NULL;
	r->ncols = 0;
	return rc;
}

static int is_json(const struct report *r)
{
	return r->fmt == RF_JSONL || r->fmt == RF_JSON;
}

/* text as "Label:  value" lines (rec_schema.labels) */
static int is_labels(const struct report *r)
{
	return r->fmt == RF_TEXT && r->schema->labels;
}

void rec_begin(struct report *r, const char *kind)
{
	rec_begin_into(r, &r->lb, kind);
}

void rec_begin_into(struct report *r, struct lbuf *b, const char *kind)
{
	size_t i;

	r->out = b;
	r->depth = 0;
	r->first[0] = 1;
	r->is_arr[0] = 0;
	if (is_json(r)) {
		lb_putc(b, '{');
		if (kind && !r->schema->untyped)
			rec_cstr(r, "record", kind);
		if (r->volume)
			rec_cstr(r, "volume", r->volume);
		return;
	}
	if (is_labels(r))
		return;
	r->mode[0] = (kind && r->schema->row && r->cells &&
		      !strcmp(kind, r->schema->row))
			     ? M_COLS
			     : M_IGNORE;
	if (r->mode[0] != M_COLS)
		return;
	for (i = 0; i < r->ncols; i++) {
		r->cells[i].len = 0;
		r->text[i] = 0;
		r->early[i] = 0;
	}
	r->next = 0;
	r->streamed = 0;
	r->hint = 0;
	if (r->volume) {
		esc_csv(b, r->volume, strlen(r->volume));
		lb_putc(b, ',');
	}
}

/* csv: column c from its cell */
static void put_cell(struct report *r, size_t c)
{
	const struct lbuf *cell = &r->cells[c];

	if (c)
		lb_putc(r->out, ',');
	if (r->text[c])
		esc_csv(r->out, cell->p ? cell->p : "", cell->len);
	else if (cell->len)
		lb_write(r->out, cell->p, cell->len);
}

/* csv: the columns whose values came early, from next on */
static void drain(struct report *r)
{
	for (; r->next < r->ncols && r->early[r->next]; r->next++)
		put_cell(r, r->next);
}

/* csv: the value written in its turn is done: those that came early
 * for the columns after follow it */
static void settle(struct report *r)
{
	if (!r->streamed)
		return;
	r->streamed = 0;
	r->next++;
	drain(r);
}

void rec_end(struct report *r)
{
	struct lbuf *b = r->out;
	size_t i;

	if (is_json(r)) {
		lb_puts(b, "}\n");
	} else if (is_labels(r)) {
		if (!r->first[0])
			lb_putc(b, '\n');
	} else if (r->mode[0] == M_COLS) {
		settle(r);
		for (i = r->next; i < r->ncols; i++)
			put_cell(r, i);
		lb_puts(b, r->eol);
	}
	if (b == &r->lb)
		lb_flush(b, r->fp);
}

/* json: the separator and "key": of the next member or element */
static void json_key(struct report *r, const char *key)
{
	int d = r->depth;

	if (!r->first[d])
		lb_putc(r->out, ',');
	r->first[d] = 0;
	if (!r->is_arr[d] && key) {
		lb_putc(r->out, '"');
		lb_puts(r->out, key);
		lb_puts(r->out, "\":");
	}
}

/* csv: the cell a value goes to, or NULL when it is left out */
static struct lbuf *csv_cell(struct report *r, const char *key)
{
	int d = r->depth, c;

	switch (r->mode[d]) {
	case M_COLS:
		settle(r);
		c = column(r, key);
		if (c < 0 || (size_t)c < r->next)
			return NULL; /* none, or written: the first stands */
		if ((size_t)c == r->next) { /* its turn: straight to the row */
			if (c)
				lb_putc(r->out, ',');
			r->streamed = 1;
			return r->out;
		}
		r->cur = c;
		r->early[c] = 1;
		r->text[c] = 0;
		r->cells[c].len = 0;
		return &r->cells[c];
	case M_ARRAY:
		r->cur = r->col[d];
		if (r->count[d]++)
			lb_putc(&r->cells[r->col[d]], ' ');
		return &r->cells[r->col[d]];
	default: return NULL;
	}
}

/* Where a scalar goes: r->lb after its key (json), a cell, or NULL. */
static struct lbuf *value(struct report *r, const char *key)
{
	if (is_json(r)) {
		json_key(r, key);
		return r->out;
	}
	if (is_labels(r)) {
		int c = r->depth ? -1 : column(r, key);

		if (c < 0)
			return NULL;
		if (!r->first[0])
			lb_putc(r->out, '\n');
		r->first[0] = 0;
		lb_printf(r->out, "%-22s", r->schema->labels[c]);
		return r->out;
	}
	return csv_cell(r, key);
}

void rec_str(struct report *r, const char *key, const char *s, size_t len)
{
	struct lbuf *b = value(r, key);

	if (!b)
		return;
	if (is_labels(r)) {
		esc_text(b, s, len);
		return;
	}
	if (!is_json(r) && b == r->out) { /* csv, in its turn */
		esc_csv(b, s, len);
		return;
	}
	if (!is_json(r)) { /* csv, in a cell */
		lb_write(b, s, len);
		r->text[r->cur] = 1;
		return;
	}
	lb_putc(b, '"');
	esc_json(b, s, len);
	lb_putc(b, '"');
}

void rec_cstr(struct report *r, const char *key, const char *s)
{
	if (s)
		rec_str(r, key, s, strlen(s));
	else
		rec_null(r, key);
}

void rec_path(struct report *r, const char *key, const char *s, size_t len)
{
	struct lbuf *b = r->out;

	if (!s) {
		rec_null(r, key);
		return;
	}
	rec_str(r, key, s, len);
	if (!is_json(r) || r->is_arr[r->depth] || utf8_valid(s, len))
		return;
	lb_puts(b, ",\"");
	lb_puts(b, key);
	lb_puts(b, "_hex\":\"");
	esc_hex(b, s, len);
	lb_puts(b, "\",\"");
	lb_puts(b, key);
	lb_puts(b, "_utf8\":false");
}

void rec_u64(struct report *r, const char *key, uint64_t v)
{
	struct lbuf *b = value(r, key);

	if (b)
		lb_u64(b, v);
}

void rec_i64(struct report *r, const char *key, int64_t v)
{
	struct lbuf *b = value(r, key);

	if (b)
		lb_i64(b, v);
}

void rec_bool(struct report *r, const char *key, int v)
{
	struct lbuf *b = value(r, key);

	if (!b)
		return;
	if (is_json(r) || r->schema->csv_bool_words)
		lb_puts(b, v ? "true" : "false");
	else
		lb_putc(b, v ? '1' : '0');
}

void rec_null(struct report *r, const char *key)
{
	struct lbuf *b = value(r, key);

	if (b && is_json(r))
		lb_puts(b, "null");
}

void rec_octal(struct report *r, const char *key, unsigned v, int digits)
{
	char buf[16];
	int i = (int)sizeof(buf);

	do {
		buf[--i] = (char)('0' + (v & 7));
		v >>= 3;
		digits--;
	} while ((v || digits > 0) && i > 0);
	rec_str(r, key, buf + i, sizeof(buf) - (size_t)i);
}

/* Where a time goes; NULL when there is nothing more to write (null). */
static struct lbuf *time_value(struct report *r, const char *key,
			       const struct e4t_ts *ts)
{
	if (!ts) {
		rec_null(r, key);
		return NULL;
	}
	return value(r, key);
}

void rec_time(struct report *r, const char *key, const struct e4t_ts *ts)
{
	struct lbuf *b = time_value(r, key, ts);

	if (b && is_json(r))
		lb_time_json(b, ts);
	else if (b)
		lb_iso(b, ts, 9);
}

void rec_iso(struct report *r, const char *key, const struct e4t_ts *ts)
{
	struct lbuf *b = time_value(r, key, ts);

	if (!b)
		return;
	if (is_json(r))
		lb_putc(b, '"');
	lb_iso(b, ts, 9);
	if (is_json(r))
		lb_putc(b, '"');
}

void rec_epoch(struct report *r, const char *key, int64_t sec, int local)
{
	char when[E4T_ISO_BUFSZ];
	time_t t = (time_t)sec;
	struct tm tm;

	if (!sec) {
		rec_cstr(r, key, r->fmt == RF_TEXT ? "never" : NULL);
		return;
	}
	e4t_iso8601(sec, 0, 0, 'T',
		    local && localtime_r(&t, &tm) ? (int32_t)tm.tm_gmtoff
						  : INT32_MIN,
		    when, sizeof(when));
	rec_cstr(r, key, when);
}

/* Open a level: an object (arr 0), an array of values (1) or of
 * objects (2). */
static void open_level(struct report *r, const char *key, int arr)
{
	int d = r->depth, m = M_IGNORE, c;

	if (d + 1 >= REC_MAXDEPTH)
		abort(); /* records are described in the code: a bug */
	if (is_json(r)) {
		json_key(r, key);
		lb_putc(r->out, arr ? '[' : '{');
	} else if (r->mode[d] == M_COLS) {
		settle(r);
		if (!arr) {
			m = M_COLS; /* flattened */
		} else if ((c = column(r, key)) >= 0 &&
			   (size_t)c >= r->next) { /* in its cell */
			m = arr == 1 ? M_ARRAY : M_OBJS;
			r->col[d + 1] = c;
			r->count[d + 1] = 0;
			r->early[c] = 1;
			r->text[c] = 0;
			r->cells[c].len = 0;
		}
	} else if (r->mode[d] == M_OBJS && !arr) {
		r->count[d]++;
	}
	r->depth = ++d;
	r->first[d] = 1;
	r->is_arr[d] = arr != 0;
	r->mode[d] = (unsigned char)m;
}

static void close_level(struct report *r)
{
	int d = r->depth;

	if (is_json(r))
		lb_putc(r->out, r->is_arr[d] ? ']' : '}');
	else if (r->mode[d] == M_OBJS)
		lb_u64(&r->cells[r->col[d]], r->count[d]);
	if (r->mode[d] == M_ARRAY || r->mode[d] == M_OBJS)
		drain(r); /* its column's turn may have come */
	if (d > 0)
		r->depth = d - 1;
}

void rec_obj_begin(struct report *r, const char *key)
{
	open_level(r, key, 0);
}

void rec_obj_end(struct report *r)
{
	close_level(r);
}

void rec_arr_begin(struct report *r, const char *key)
{
	open_level(r, key, 1);
}

void rec_objs_begin(struct report *r, const char *key)
{
	open_level(r, key, 2);
}

void rec_arr_end(struct report *r)
{
	close_level(r);
}
