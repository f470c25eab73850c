/*
 * escape.h --- making raw name bytes safe for each output format.
 */
#ifndef E4TIME_ESCAPE_H
#define E4TIME_ESCAPE_H

#include <stdio.h>
#include <stdlib.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *p, size_t left);
int utf8_valid(const char *s, size_t len);

/* For people: C-style \n \t \\ \xHH for controls and invalid bytes.
 * Never lets a terminal escape sequence through. */
void put_text(FILE *fp, const char *s, size_t len);
char *escape_text(const char *s, size_t len); /* malloc'd, or NULL */
/* Extended bodyfile 3: \\, \|, \: and \xHH (always one raw byte) for
 * controls, C1 controls and invalid UTF-8 (names never hold '/'). */
void put_bodyfile(FILE *fp, const char *s, size_t len);
/* TSK mactime: %XX for %, |, controls and DEL. */
void put_percent(FILE *fp, const char *s, size_t len);
/* JSON string body (no quotes); invalid UTF-8 becomes U+FFFD. */
void put_json(FILE *fp, const char *s, size_t len);
void put_hex(FILE *fp, const char *s, size_t len);
/* One RFC 4180 field, quoted when it must be. */
void put_csv(FILE *fp, const char *s, size_t len);

#endif
