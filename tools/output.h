/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h --- timeline formatters: one file per format (fmt_NAME.c),
 * each a struct formatter of three callbacks.
 */
#ifndef E4TIME_OUTPUT_H
#define E4TIME_OUTPUT_H

#include <pthread.h>

#include "cmd.h"
#include "escape.h"
#include "held.h"
#include "report.h"

#define E4T_OUT_MAXFLAGS 16
/* jsonl and csv: the columns the options can give (fmt_records.c) */
#define E4T_OUT_MAXCOLS 24

struct out {
	FILE *fp;
	struct lbuf lb; /* rows are built here, written in large chunks */
	int local;	/* --local: local time in text formats */
	const char *image;
	/* the image the rows come from: symlink targets (bodyfiles), file
	 * content (--hash); NULL: neither is read */
	struct e4t_image *img;
	/* symlinks and files whose target or content could not be read:
	 * each named on stderr, exit status 1 */
	unsigned long read_errors;
	/* --hash: the algorithm (every row has its column), and this row's
	 * hash in hex, or NULL (not a regular file, deleted, unreadable) */
	enum e4t_hash_alg hash;
	const char *hash_hex;
	/* --volume all: the volume of the rows ("p1", "vg0/root"): a
	 * "VOLUME:" prefix of the path in text, bodyfile and mactime, a
	 * "volume" key or column in jsonl, timesketch and csv; or NULL */
	const char *volume;
	int no_header; /* --volume all, after the first: begin() sets up
			  what rows need, and writes no header */
	int quiet;
	/* mactime: times it cannot show or sorts wrongly */
	unsigned long neg_times, big_times;
	/* timeline --flags: the ids of the anomaly rules that fired on the
	 * row (jsonl "flags", timesketch "tag", csv "flags"); flags_on 0:
	 * no such key or column */
	int flags_on;
	unsigned nflags;
	const char *flags[E4T_OUT_MAXFLAGS];
	/* timeline --deleted from /: csv has a name_source column */
	int name_sources;
	/* timeline --journal, or --deleted from /: csv has source, tid and
	 * commit_time columns */
	int journal_rows;
	/* timeline --journal: jsonl and csv have the inode's generation
	 * (which file a row is of) */
	int generations;
	/* csv: an "encrypted" column (the filesystem has the encrypt
	 * feature, or --volume: every volume's rows alike) */
	int encrypted_col;
	/* a part made on a thread (partrun.c): what would go to stderr is
	 * held here, in order, and fp is NULL (the rows stay in lb); the
	 * image's handle is shared, its reads taken in turn (img_lock) */
	struct e4t_held *held;
	pthread_mutex_t *img_lock;
	/* jsonl and csv: the record writer, its schema and the csv
	 * columns (a thread's copy has cells of its own: report_clone) */
	struct report rep;
	struct rec_schema schema;
	const char *cols[E4T_OUT_MAXCOLS];
};

/* struct formatter.caps: what a format carries */
#define FMT_FLAGS    0x1 /* --flags: the anomaly rules' flags of a row */
#define FMT_HASH     0x2 /* --hash: a digest of any algorithm */
#define FMT_HASH_MD5 0x4 /* --hash md5 only (the bodyfile's MD5 column) */

struct formatter {
	const char *name;
	unsigned caps; /* FMT_*: the options its rows can carry */
	void (*begin)(struct out *o);
	void (*row)(struct out *o, const struct e4t_row *row);
	void (*end)(struct out *o);
};

extern const struct formatter fmt_text, fmt_bodyfile, fmt_mactime, fmt_jsonl,
	fmt_timesketch, fmt_csv, fmt_timesketch_csv;
/* Timesketch's timestamp_desc of each field (timesketch, timesketch-csv) */
extern const char *const timesketch_desc[E4T_NFIELDS];
const struct formatter *formatter_find(const char *name);

/* Field order of bodyfiles: atime, mtime, ctime, crtime. */
extern const enum e4t_field body_fields[4];

/* Is this a time to show?  Not when absent, nor an unset/orphan dtime. */
int ts_shown(const struct e4t_ts *ts, enum e4t_field f);
/* Exact decimal seconds: 1969-12-31T23:59:59.999999999Z is -0.000000001 */
void lb_decimal_time(struct lbuf *b, const struct e4t_ts *ts);
/* {"sec":S,"nsec":N,"iso":"...Z"[,"suspect":[...]]} as jsonl writes it */
void lb_time_json(struct lbuf *b, const struct e4t_ts *ts);
/* ISO 8601 UTC with 'digits' fraction digits and "Z" */
void lb_iso(struct lbuf *b, const struct e4t_ts *ts, int digits);
/* "-rw-r--r--" as ls shows it, with setuid/setgid/sticky. */
void mode_string(uint16_t mode, char out[11]);
const char *status_suffix(enum e4t_status st);
/* timeline --journal: " (journal tid N)" after the path of a journal row
 * (and of a deleted row named from the journal and shown as the journal
 * held it before the deletion: its name's tid); nothing for the others */
void journal_suffix(struct lbuf *b, const struct e4t_row *row);
/* Where the row's inode comes from: "disk", "journal" (a journaled state,
 * --journal), "journal-predelete" (a deleted inode as the journal last
 * held it before the deletion, --deleted) */
const char *row_source(const struct e4t_row_journal *j);
/* The record formats (fmt_records.c, fmt_timesketch.c): the record
 * writer set up on o->schema (the csv columns the format set), with
 * volume as its first key or column (or NULL), and the csv header
 * unless no_header; out of memory, o's buffer fails (no rows, the run
 * ends saying so).  out_records_end frees it: its `end`. */
void out_records_open(struct out *o, enum report_format fmt,
		      const char *volume);
void out_records_end(struct out *o);
/* timeline --journal and --deleted: the "source", "tid" and
 * "commit_time" (null when unknown) of a row with a journal transaction
 * (a state's; a name's from the journal): not for the others */
void rec_journal(struct report *r, const struct e4t_row *row);
/* The first line of export's manifests, into b:
 * {"e4time_manifest":1,"KEY":"NAME"[,"uuid":"UUID"],"exported":"NOW"}
 * (KEY: "image", or "dir" for --from-dir; uuid NULL: none). */
void manifest_header(struct lbuf *b, const char *key, const char *name,
		     const char *uuid);
/* The MD5 column of both bodyfiles and its '|': the hash with --hash
 * md5, else 0 (no hash: plaso and mactime read it so). */
void lb_body_md5(struct out *o);
typedef void (*esc_fn)(struct lbuf *b, const char *s, size_t len);
/* The fields both bodyfiles share after the name:
 * "(deleted) -> TARGET|ino|mode|uid|gid|size", the link's target
 * (symlinks not deleted, as fls writes it and plaso splits it off)
 * escaped by esc. */
void lb_body_middle(struct out *o, const struct e4t_row *row, const char *mode,
		    esc_fn esc);
/* Name on stderr (once, unless quiet) a row whose symlink target or
 * content could not be read, and count it in o->read_errors. */
void note_read_error(struct out *o, const struct e4t_row *row, const char *what,
		     errcode_t err);
const char *status_name(enum e4t_status st);
/* text, bodyfile and mactime append a row's status and journal suffixes
 * (" (deleted)", " (journal tid 5)") to its path: where a path itself
 * ends with one, the offset of that suffix's '(', else len. */
size_t fake_suffix_at(const char *path, size_t len);
/* The path escaped by esc, but the '(' fake_suffix_at() finds as \x28:
 * a live "a (deleted)" is then told apart from a deleted "a". */
void lb_path(struct lbuf *b, const char *path, size_t len, esc_fn esc);

#endif
