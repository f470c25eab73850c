/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manifest_int.h --- the manifest reader's insides, shared by manifest.c (one
 * line), mfread.c (a whole manifest) and import.c (its entries).  Not
 * installed: the tools see struct e4t_manifest as opaque.
 */
#ifndef E4T_ENGINE_MANIFEST_H
#define E4T_ENGINE_MANIFEST_H

#include "e4time.h"

/*
 * One line, checked, before its path is decoded: the path is a slice of
 * the line (a JSON string's text between its quotes, or path_hex's hex
 * digits); e4t_mf_path() makes the bytes.
 */
struct e4t_mf_row {
	const char *path;   /* "path"'s text, NULL when absent */
	size_t path_len;    /* its length, as written */
	int path_esc;	    /* it holds escapes */
	const char *hex;    /* "path_hex"'s text, NULL when absent */
	size_t hex_len;	    /* its length */
	ext2_ino_t ino;	    /* 0 when absent */
	int header_version; /* > 0: the header line {"e4time_manifest":N} */
	unsigned have;	    /* 1 << E4T_* of each time given */
	struct e4t_ts ts[E4T_NFIELDS];
};

/* Parse one line (as e4t_manifest_parse_line(), whose rules these are);
 * 0, E4T_ERR_MANIFEST or E4T_ERR_MANIFEST_DUP. */
errcode_t e4t_mf_parse(const char *line, size_t len, struct e4t_mf_row *r,
		       struct e4t_manifest_why *why);
/* The most bytes e4t_mf_path() writes for r (the NUL included). */
size_t e4t_mf_path_room(const struct e4t_mf_row *r);
/* The path's bytes (path_hex's when given, else path's; "" when
 * neither) into out, e4t_mf_path_room(r) bytes, NUL-terminated: their
 * length.  r is as e4t_mf_parse() made it: the path is usable. */
size_t e4t_mf_path(const struct e4t_mf_row *r, char *out);

/* An entry of a manifest read whole; its times are in e4t_manifest.ts. */
struct e4t_mf_entry {
	const char *path; /* NUL-terminated, in one of the manifest's blocks */
	size_t path_len;
	unsigned long line; /* in the manifest */
	ext2_ino_t ino;	    /* 0 when absent */
	unsigned have;	    /* 1 << E4T_* of each time given (of fields) */
};

/* A time as an entry keeps it. */
struct e4t_mf_ts {
	int64_t sec;
	uint32_t nsec;
};

/* Blocks of path bytes, never moved. */
struct e4t_mf_block {
	struct e4t_mf_block *next;
	size_t used, cap;
	char data[];
};

struct e4t_manifest {
	struct e4t_mf_entry *entries;
	size_t n, cap;
	/* the times of entry i: ts[i * nf + slot[f]] for each field kept */
	struct e4t_mf_ts *ts;
	size_t ts_cap;	 /* entries' worth */
	unsigned fields; /* kept: 1 << E4T_* (never dtime) */
	int nf;
	int slot[E4T_NFIELDS]; /* -1: not kept */
	struct e4t_mf_block *blocks;
};

/* The time of field f of entry i (kept, and given: have says). */
static inline void e4t_mf_time(const struct e4t_manifest *m, size_t i, int f,
			       struct e4t_ts *ts)
{
	const struct e4t_mf_ts *t = &m->ts[i * (size_t)m->nf + m->slot[f]];

	ts->sec = t->sec;
	ts->nsec = t->nsec;
	ts->flags = E4T_TS_STORED | E4T_TS_EXTRA;
}

#endif
