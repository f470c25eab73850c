/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_report.c --- what e4time check prints: each problem's line as
 * e2fsck words its own (what, where, the fix, the question), the problems
 * as records (jsonl), and the summary.
 */
#include "config.h"

#include "check_report.h"
#include "escape.h"
#include "output.h"
#include "report.h"

static const char *const check_cols[] = {
	"code",	 "problem", "severity", "ino",	 "path", "field", "value",
	"limit", "fix_to",  "fixable",	"fixed", "why",	 NULL,
};
static const struct rec_schema check_schema = {
	.row = "problem",
	.cols = check_cols,
};

/* What a problem's line says of its time(s). */
static void describe(struct lbuf *b, const struct e4t_problem *p)
{
	switch (p->code) {
	case E4T_P_BAD_NSEC:
		lb_printf(b, "%u ns in _extra 0x%08x", p->raw_extra >> 2,
			  p->raw_extra);
		break;
	case E4T_P_OLD_PRE1970:
		lb_iso(b, &p->value, 9);
		lb_printf(b, " (_extra 0x%08x)", p->raw_extra);
		break;
	case E4T_P_CRTIME_NO_ROOM:
		lb_puts(b, "i_extra_isize ");
		lb_u64(b, p->extra_isize);
		break;
	case E4T_P_CRTIME_UNSET: lb_putc(b, '0'); break;
	case E4T_P_EXTRA_ISIZE_SMALL:
		lb_printf(b, "i_extra_isize %u, the kernel's %u",
			  p->extra_isize, p->min_isize);
		break;
	case E4T_P_SB_EXTRA_ISIZE:
		lb_printf(b, "s_min_extra_isize %u, s_want_extra_isize %u",
			  p->min_isize, p->extra_isize);
		break;
	case E4T_P_CRTIME_AFTER_CTIME:
	case E4T_P_CRTIME_AFTER_MTIME:
	case E4T_P_FUTURE:
		lb_iso(b, &p->value, 9);
		lb_puts(b, " > ");
		lb_iso(b, &p->limit, 9);
		break;
	default: break;
	}
}

void check_problem_line(struct lbuf *b, const struct e4t_problem *p)
{
	const struct e4t_problem_def *d = e4t_problem_def(p->code);

	if (!p->ino) {
		lb_puts(b, "superblock: ");
		lb_puts(b, d->code);
	} else {
		esc_text(b, p->path, p->path_len);
		lb_puts(b, " <");
		lb_u64(b, p->ino);
		lb_puts(b, ">: ");
		lb_puts(b, d->code);
		if (p->code != E4T_P_EXTRA_ISIZE_SMALL) { /* no time */
			lb_putc(b, ' ');
			lb_puts(b, e4t_field_name(p->field));
		}
	}
	lb_puts(b, ": ");
	lb_puts(b, d->text);
	lb_puts(b, ": ");
	describe(b, p);
	if (!p->nofix) {
		if (p->ino && p->code != E4T_P_EXTRA_ISIZE_SMALL) {
			lb_puts(b, " -> ");
			lb_iso(b, &p->fix_to, 9);
		}
		lb_puts(b, ".  ");
		lb_puts(b, d->quest);
	} else if (p->nofix != E4T_NOFIX_NEVER) {
		lb_puts(b, " (");
		lb_puts(b, e4t_nofix_text(p->nofix));
		if (p->nofix == E4T_NOFIX_WARNING) {
			lb_putc(b, ' ');
			lb_puts(b, d->code);
		}
		lb_putc(b, ')');
	}
}

void check_records(enum report_format fmt, const struct e4t_check_result *res)
{
	struct report r;
	size_t i;

	report_init(&r, fmt, stdout, &check_schema);
	for (i = 0; i < res->n; i++) {
		struct e4t_problem pb, *p = &pb;
		const struct e4t_problem_def *d;

		e4t_check_get(res, i, p);
		d = e4t_problem_def(p->code);

		rec_begin(&r, "problem");
		rec_cstr(&r, "code", d->code);
		rec_cstr(&r, "problem", d->name);
		rec_cstr(&r, "severity",
			 (d->flags & E4T_PF_WARNING) ? "warning" : "error");
		rec_u64(&r, "ino", p->ino);
		rec_path(&r, "path", p->path, p->path_len);
		if (p->code == E4T_P_SB_EXTRA_ISIZE ||
		    p->code == E4T_P_EXTRA_ISIZE_SMALL) {
			rec_null(&r, "field");
			if (p->code == E4T_P_SB_EXTRA_ISIZE) {
				rec_u64(&r, "min_extra_isize", p->min_isize);
				rec_u64(&r, "want_extra_isize", p->extra_isize);
			} else {
				rec_u64(&r, "extra_isize", p->extra_isize);
				rec_u64(&r, "want_extra_isize", p->min_isize);
			}
			rec_bool(&r, "fixable", !p->nofix);
			rec_bool(&r, "fixed", p->fixed);
			if (p->nofix && p->code == E4T_P_EXTRA_ISIZE_SMALL)
				rec_cstr(&r, "why", e4t_nofix_text(p->nofix));
			rec_end(&r);
			continue;
		}
		rec_cstr(&r, "field", e4t_field_name(p->field));
		if (p->code == E4T_P_CRTIME_NO_ROOM) {
			rec_null(&r, "value");
			rec_u64(&r, "extra_isize", p->extra_isize);
		} else {
			rec_time(&r, "value", &p->value);
			rec_u64(&r, "raw_base", p->raw_base);
			rec_u64(&r, "raw_extra", p->raw_extra);
		}
		if (p->limit.flags)
			rec_time(&r, "limit", &p->limit);
		if (!p->nofix)
			rec_time(&r, "fix_to", &p->fix_to);
		if (p->src_xattr)
			rec_cstr(&r, "source_xattr", p->src_xattr);
		rec_bool(&r, "fixable", !p->nofix);
		rec_bool(&r, "fixed", p->fixed);
		if (p->nofix)
			rec_cstr(&r, "why", e4t_nofix_text(p->nofix));
		rec_end(&r);
	}
	report_finish(&r);
}

/* 128-byte inodes: said plainly, and what would change it. */
static void small_inodes(const char *image)
{
	printf("%s: inodes of 128 bytes: no crtime (nor nanoseconds, nor a "
	       "time outside 1901..2038) can ever be stored in them, and "
	       "check cannot add one; a filesystem of larger inodes can: a "
	       "new one made with mkfs.ext4 -I 256, or this one converted "
	       "with tune2fs -I 256 (then check -y --crtime-from SOURCE sets "
	       "crtime in its inodes, T0003)\n",
	       image);
}

void check_summary(enum report_format fmt, const char *image,
		   const struct e4t_check_summary *s, int cancelled,
		   errcode_t stopped)
{
	int small = s->inode_size <= EXT2_GOOD_OLD_INODE_SIZE;
	struct report r;

	if (fmt == RF_TEXT) {
		if (small)
			small_inodes(image);
		printf("%s: %lu inodes checked, %lu problems (%lu fixed, %lu "
		       "left), %lu warnings (%lu fixed)%s%s%s\n",
		       image, s->inodes, s->errors, s->fixed, s->left,
		       s->warnings, s->warnings_fixed,
		       cancelled ? "; cancelled" : "",
		       stopped ? "; stopped: " : "",
		       stopped ? error_message(stopped) : "");
		if (s->fixed || s->warnings_fixed)
			printf("\n%s: ***** TIMESTAMPS WERE MODIFIED *****\n",
			       image);
		return;
	}
	report_init(&r, fmt, stdout, &check_schema);
	rec_begin(&r, "summary");
	rec_u64(&r, "inodes", s->inodes);
	rec_u64(&r, "problems", s->errors);
	rec_u64(&r, "fixed", s->fixed);
	rec_u64(&r, "left", s->left);
	rec_u64(&r, "warnings", s->warnings);
	rec_u64(&r, "warnings_fixed", s->warnings_fixed);
	rec_bool(&r, "cancelled", cancelled);
	if (stopped)
		rec_cstr(&r, "stopped", error_message(stopped));
	rec_u64(&r, "inode_size", s->inode_size);
	rec_bool(&r, "crtime_storable", !small);
	rec_end(&r);
	report_finish(&r);
}
