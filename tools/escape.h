/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.h --- making raw name bytes safe for each output format.
 */
#ifndef E4TIME_ESCAPE_H
#define E4TIME_ESCAPE_H

#include <stddef.h>

#include "linebuf.h"

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *p, size_t left);
int utf8_valid(const char *s, size_t len);

/* For people: C-style \n \t \r \\ and \xHH for other controls, C1
 * controls and invalid bytes.  Never lets a terminal escape through. */
void esc_text(struct lbuf *b, const char *s, size_t len);
char *escape_text(const char *s, size_t len); /* malloc'd, or NULL */
/* Extended bodyfile 3, as plaso's bodyfile parser decodes it: \\, \|,
 * \xhh for a control by code point (U+0000-001F, U+007F-009F: U+0085 is
 * \x85) and \XHH for a byte that is not UTF-8 (names never hold '/').
 * ':' is not escaped: plaso would keep the backslash. */
void esc_bodyfile(struct lbuf *b, const char *s, size_t len);
/* TSK mactime: as the bodyfile, but '|' and '%' as %7C and %25, which
 * mactime decodes (it leaves the backslash escapes as they are). */
void esc_mactime(struct lbuf *b, const char *s, size_t len);
/* JSON string body (no quotes); invalid UTF-8 becomes U+FFFD. */
void esc_json(struct lbuf *b, const char *s, size_t len);
void esc_hex(struct lbuf *b, const char *s, size_t len);
/* The bytes as they are, but each byte that is not part of valid UTF-8
 * as U+FFFD (as esc_json writes it). */
void utf8_lossy(struct lbuf *b, const char *s, size_t len);
/* One RFC 4180 field, quoted when it must be. */
void esc_csv(struct lbuf *b, const char *s, size_t len);
/* Output bound for a terminal: every byte as it is but controls other
 * than newline and tab, DEL, C1 controls and invalid UTF-8, which become
 * \xHH (the bytes of a C1 control each).  Applied by lb_flush() to
 * whatever a format wrote when the stream is a terminal. */
void esc_terminal(struct lbuf *b, const char *s, size_t len);

#endif
