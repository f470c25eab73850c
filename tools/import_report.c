/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * import_report.c --- what e4time import prints: the (would be) changed
 * times, a line or record per field, and the refused, ambiguous and
 * unmatched entries.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "escape.h"
#include "import_report.h"

/* jsonl: untyped, as the records always were; a (would be) changed
 * entry is a record per field */
static const char *const import_cols[] = {
	"path", "line", "ino", "action", "field", "from", "to", "detail", NULL,
};
const struct rec_schema import_schema = {
	.row = "entry",
	.cols = import_cols,
	.untyped = 1,
};

/* An inode's name as the messages show it: "/a/b <12>". */
static void label(struct lbuf *b, const struct e4t_import_rec *r)
{
	esc_text(b, r->path, r->path_len);
	lb_printf(b, " <%u>", r->ino);
}

/* A record's first keys (jsonl, csv). */
static void rec_start(struct report *rp, const struct e4t_import_rec *r)
{
	rec_begin(rp, "entry");
	rec_str(rp, "path", r->path, r->path_len);
	rec_u64(rp, "line", r->line);
	if (r->outcome != E4T_IMPORT_UNMATCHED)
		rec_u64(rp, "ino", r->ino);
	rec_cstr(rp, "action", e4t_import_outcome_name(r->outcome));
}

/* An unmatched entry's hint: the image's name that is the same under
 * Unicode normalization (jsonl "hint_path", csv and jsonl "detail"). */
static void rec_hint(struct report *rp, const struct e4t_import_rec *r)
{
	if (!r->hint)
		return;
	rec_cstr(rp, "detail",
		 "hint_path is the same name after Unicode normalization "
		 "and case folding");
	rec_path(rp, "hint_path", r->hint, r->hint_len);
}

/* (Would be) changed: one line (record) per field. */
static void put_changes(struct im_out *o, const struct e4t_import_rec *r)
{
	struct lbuf *b = &o->lb;
	int f;

	for (f = 0; f < E4T_DTIME; f++) {
		if (!(r->fields & (1U << f)))
			continue;
		if (o->fmt != RF_TEXT) {
			rec_start(&o->rep, r);
			rec_cstr(&o->rep, "field", e4t_field_name(f));
			rec_iso(&o->rep, "from", &r->old_ts[f]);
			rec_iso(&o->rep, "to", &r->new_ts[f]);
			rec_end(&o->rep);
			continue;
		}
		if (r->outcome == E4T_IMPORT_WOULD_CHANGE)
			lb_puts(b, "would set ");
		label(b, r);
		lb_printf(b, ": %s ", e4t_field_name(f));
		lb_iso(b, &r->old_ts[f], 9);
		lb_puts(b, " -> ");
		lb_iso(b, &r->new_ts[f], 9);
		lb_putc(b, '\n');
	}
}

/* On stderr: a refused inode, an ambiguous or an unmatched entry. */
static void warn_rec(struct im_out *o, const struct e4t_import_rec *r)
{
	struct lbuf w = { 0 };

	if (r->outcome == E4T_IMPORT_UNMATCHED) {
		if (o->shown++ >= SHOWN_MAX) {
			o->hinted += r->hint != NULL;
			return;
		}
		esc_text(&w, r->path, r->path_len);
		if (r->hint) {
			lb_puts(&w, ": not in this image; ");
			esc_text(&w, r->hint, r->hint_len);
			lb_puts(&w, " is, the same name after Unicode "
				    "normalization (NFC/NFD) and case folding");
		} else {
			lb_puts(&w, ": not in this image");
		}
		lb_putc(&w, '\0');
		fprintf(stderr, "%s: %s: manifest line %lu: %s\n", progname,
			o->image, r->line, w.p);
		lb_free(&w);
		return;
	}
	if (r->outcome == E4T_IMPORT_AMBIGUOUS && o->amb_shown++ >= SHOWN_MAX)
		return;
	label(&w, r);
	lb_putc(&w, '\0');
	if (r->outcome == E4T_IMPORT_REFUSED)
		report(o->image, w.p, r->err);
	else
		fprintf(stderr,
			"%s: %s: %s: ambiguous: manifest line %lu disagrees "
			"with another entry for this inode; skipped\n",
			progname, o->image, w.p, r->line);
	lb_free(&w);
}

void import_more(const struct im_out *o)
{
	if (o->fmt != RF_TEXT || o->quiet)
		return;
	if (o->amb_shown > SHOWN_MAX)
		fprintf(stderr, "%s: %s: ... and %lu more ambiguous\n",
			progname, o->image, o->amb_shown - SHOWN_MAX);
	if (o->shown > SHOWN_MAX && o->hinted)
		fprintf(stderr,
			"%s: %s: ... and %lu more not in this image (%lu of "
			"them there after Unicode normalization)\n",
			progname, o->image, o->shown - SHOWN_MAX, o->hinted);
	else if (o->shown > SHOWN_MAX)
		fprintf(stderr, "%s: %s: ... and %lu more not in this image\n",
			progname, o->image, o->shown - SHOWN_MAX);
}

void import_summary(struct im_out *o, const struct e4t_import_stats *st,
		    size_t outside, int dry_run, errcode_t stopped)
{
	struct report *rp = &o->rep;

	rec_begin(rp, "summary");
	rec_cstr(rp, "record", "summary"); /* the entries have no "record" */
	rec_bool(rp, "dry_run", dry_run);
	rec_u64(rp, "entries", st->entries + outside);
	rec_u64(rp, "outside_map", outside);
	rec_u64(rp, "unmatched", st->unmatched);
	rec_u64(rp, "hinted", st->hinted);
	rec_u64(rp, "ambiguous", st->ambiguous);
	rec_u64(rp, "compared", st->compared);
	rec_u64(rp, "null", st->nulls);
	rec_u64(rp, "agree", st->agree);
	rec_u64(rp, "changed", st->changed);
	rec_u64(rp, "unchanged", st->unchanged);
	rec_u64(rp, "refused", st->refused);
	if (stopped)
		rec_cstr(rp, "stopped", error_message(stopped));
	rec_end(rp);
}

int import_on_record(const struct e4t_import_rec *r, void *priv)
{
	struct im_out *o = priv;

	switch (r->outcome) {
	case E4T_IMPORT_CHANGED:
	case E4T_IMPORT_WOULD_CHANGE: put_changes(o, r); break;
	case E4T_IMPORT_REFUSED:
		if (o->fmt != RF_TEXT) {
			rec_start(&o->rep, r);
			rec_cstr(&o->rep, "detail", error_message(r->err));
			rec_end(&o->rep);
		}
		if (!o->quiet)
			warn_rec(o, r);
		break;
	default:
		if (o->fmt != RF_TEXT) {
			rec_start(&o->rep, r);
			rec_hint(&o->rep, r);
			rec_end(&o->rep);
		} else if (!o->quiet && r->outcome != E4T_IMPORT_UNCHANGED) {
			warn_rec(o, r);
		}
	}
	if (o->fmt != RF_TEXT ? ferror(stdout) != 0
			      : lb_maybe_flush(&o->lb, stdout) != 0)
		return errno ? errno : EIO;
	return stop_requested();
}
