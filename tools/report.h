/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h --- the report formats of stat, journal, audit and history,
 * and record writers: one description of a record (rec_begin, rec_str,
 * rec_u64, ..., rec_end) makes a JSON object on a line of its own
 * (jsonl) or a CSV row (RFC 4180, header line once).  Every command's
 * jsonl and csv are written so, timeline's too (fmt_records.c,
 * fmt_timesketch.c).
 *
 * jsonl: every record has a "record" key naming its kind first (unless
 * the schema says untyped: journal's, timeline's and export's records,
 * kept as they always were).
 * Nested objects and arrays are written as they are described.
 *
 * csv: only the records of the schema's row kind are rows; the others
 * (headings, summaries) are left out.  A value goes to the column named
 * by its key, a nested object's members to the columns of theirs (the
 * object is flattened), keys without a column are left out, columns
 * without a value are empty.  An array of values is one field, the
 * values separated by spaces; an array of objects (rec_objs_begin) is
 * the number of its objects.  Booleans are 1 or 0 (true or false when
 * the schema says so), null is empty.  A cell is quoted only when a
 * string went into it and it needs to be.
 */
#ifndef E4TIME_REPORT_H
#define E4TIME_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cmd.h"
#include "linebuf.h"

enum report_format {
	RF_TEXT,
	RF_JSONL,
	RF_CSV,
	RF_JSON, /* audit's single JSON document */
	RF_NFORMATS
};
#define RF_MASK(f) (1U << (f))

/* The format named by arg, if it is in allowed (a mask of RF_MASK()s);
 * else a usage error naming the allowed ones. */
enum report_format report_format_parse(const char *arg, unsigned allowed,
				       const struct cmdinfo *cmd);

struct rec_schema {
	const char *row;	 /* csv: the kind of record rows are made of */
	const char *const *cols; /* csv: the columns, NULL-terminated */
	int untyped;		 /* jsonl: no "record" key */
	/* text: "Label:" for each of cols: a record is written as one
	 * "Label:  value" line per key of cols (NULL: text is the
	 * command's own) */
	const char *const *labels;
	/* csv: booleans as true and false (timeline's "encrypted"), not
	 * 1 and 0 */
	int csv_bool_words;
};

#define REC_MAXDEPTH 8

struct report {
	FILE *fp;
	enum report_format fmt;
	const struct rec_schema *schema;
	const char *volume; /* report_init_volume(), or NULL */
	struct lbuf lb;
	/* where the record being built goes: lb (rec_begin), or the
	 * caller's buffer (rec_begin_into) */
	struct lbuf *out;
	const char *eol; /* csv: CR LF, or LF on a terminal */
	/* the record being built */
	int depth;
	unsigned char first[REC_MAXDEPTH]; /* json: no member written yet */
	unsigned char is_arr[REC_MAXDEPTH];
	unsigned char mode[REC_MAXDEPTH]; /* csv: what values at a level do */
	int col[REC_MAXDEPTH];		  /* csv: an array's column */
	size_t count[REC_MAXDEPTH];	  /* csv: an array's elements */
	size_t ncols;
	struct lbuf *cells; /* csv: one per column, raw bytes */
	/* csv: a row is written column by column as its values come; a
	 * value that comes before its column's turn waits in its cell
	 * (early), written when the turn comes.  The first value of a
	 * column stands.  text: the cell holds a string (rec_str), quoted
	 * if it needs to be; numbers, times and booleans never need it */
	unsigned char *text, *early;
	size_t next;  /* csv: the column whose turn it is */
	int streamed; /* csv: the value being written is next's */
	int cur;      /* csv: the cell of the value being written */
	size_t hint;  /* csv: where to look for the next key's column */
};

/* Start a report on fp (csv: writes the header line).  Out of memory
 * (csv's cells), r's buffer fails (lb_fail): its records are left out,
 * report_finish returns -1 and the run ends saying the output was cut
 * short (finish_stdout); it does not exit. */
void report_init(struct report *r, enum report_format fmt, FILE *fp,
		 const struct rec_schema *schema);
/* The same for the records of one volume of --volume all: each record
 * gets a "volume" key (jsonl) or a first column (csv); header: write the
 * csv header (the first volume's report only). */
void report_init_volume(struct report *r, enum report_format fmt, FILE *fp,
			const struct rec_schema *schema, const char *volume,
			int header);
/* Write out what is left and free; 0 or -1 (errno set). */
int report_finish(struct report *r);

/*
 * For a command that writes records among its own bytes (timeline's
 * jsonl and csv, made on several threads): set up r as report_init_volume
 * does but write nothing, 0 or ENOMEM; report_header() writes the csv
 * header line (nothing in other formats) into b; report_clone() gives a
 * copy of r cells of its own (a thread's), 0 or ENOMEM.  Records are
 * begun with rec_begin_into(); report_finish() frees.
 */
errcode_t report_open(struct report *r, enum report_format fmt, FILE *fp,
		      const struct rec_schema *schema, const char *volume);
void report_header(const struct report *r, struct lbuf *b);
errcode_t report_clone(struct report *copy, const struct report *r);

void rec_begin(struct report *r, const char *kind);
/* A record built in b, left there by rec_end() for the caller to write. */
void rec_begin_into(struct report *r, struct lbuf *b, const char *kind);
/* Ends the record; writes it out unless it was begun into a buffer. */
void rec_end(struct report *r);

/* key is ignored for the elements of an array. */
void rec_str(struct report *r, const char *key, const char *s, size_t len);
void rec_cstr(struct report *r, const char *key,
	      const char *s); /* NULL: null */
/* A name: as rec_str, and when it is not valid UTF-8 (jsonl) also
 * KEY_hex (its bytes) and "KEY_utf8":false, as timeline's "path". */
void rec_path(struct report *r, const char *key, const char *s, size_t len);
void rec_u64(struct report *r, const char *key, uint64_t v);
void rec_i64(struct report *r, const char *key, int64_t v);
void rec_bool(struct report *r, const char *key, int v);
void rec_null(struct report *r, const char *key);
/* v in octal, at least 'digits' digits, as a string ("0644"). */
void rec_octal(struct report *r, const char *key, unsigned v, int digits);
/* A time: jsonl {"sec":S,"nsec":N,"iso":"...Z"[,"suspect":[...]]} as
 * timeline writes it, csv ISO 8601 UTC with 9 fraction digits; null
 * (empty) when ts is NULL. */
void rec_time(struct report *r, const char *key, const struct e4t_ts *ts);
/* A time as an ISO 8601 string alone (9 fraction digits); NULL: null. */
void rec_iso(struct report *r, const char *key, const struct e4t_ts *ts);
/* A whole-second time, as the superblock keeps them: ISO 8601 with the
 * local offset when local, else UTC; 0 is "never" in text, null in
 * jsonl and empty in csv. */
void rec_epoch(struct report *r, const char *key, int64_t sec, int local);

void rec_obj_begin(struct report *r, const char *key);
void rec_obj_end(struct report *r);
/* An array of values (rec_arr_begin) or of objects (rec_objs_begin). */
void rec_arr_begin(struct report *r, const char *key);
void rec_objs_begin(struct report *r, const char *key);
void rec_arr_end(struct report *r);

#endif
