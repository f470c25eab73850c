/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_answer.c --- e4time check's answers: which problems are fixed
 * (-n, -p, -y, or Fix<y>? asked on a terminal, e2fsck's way), and each
 * problem's line with the answer once the fixes are written.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>

#include "check_report.h"

/* Ask on the terminal; 1 yes, 0 no. */
static int ask(int *yes_all, volatile sig_atomic_t *interrupted)
{
	char line[64];

	if (*yes_all) {
		puts("yes");
		return 1;
	}
	for (;;) {
		fputs("Fix<y>? ", stdout);
		fflush(stdout);
		if (*interrupted || !fgets(line, sizeof(line), stdin)) {
			puts("");
			*interrupted = 1; /* EOF or ^C: stop asking */
			return 0;
		}
		switch (line[0]) {
		case '\n':
		case 'y':
		case 'Y': return 1;
		case 'n':
		case 'N': return 0;
		case 'a':
		case 'A': *yes_all = 1; return 1;
		default: fputs("(y)es, (n)o, or (a) yes to all\n", stdout);
		}
	}
}

/*
 * Decide whether each problem is to be fixed.  Asking (on a terminal),
 * each line and question is printed as it comes (in text each line);
 * else nothing is printed yet: answers() says, once the fixes are
 * written, what was (check_answers()).
 */
void check_decide(struct e4t_check_result *res, enum e4t_check_mode mode,
		  int text, volatile sig_atomic_t *interrupted)
{
	struct lbuf out = { 0 };
	struct e4t_problem p;
	int yes_all = 0, asking = mode == E4T_CHECK_ASK;
	size_t i;

	for (i = 0; i < res->n; i++) {
		int fix;

		if (mode == E4T_CHECK_ASK && *interrupted)
			mode = E4T_CHECK_NO; /* ^C or EOF: asks no more */
		fix = e4t_check_decide(res, i, mode);
		if ((!text || !asking) && fix >= 0)
			continue;
		e4t_check_get(res, i, &p);
		if (text)
			check_problem_line(&out, &p);
		if (fix < 0) {
			if (text)
				lb_puts(&out, ".  ");
			lb_flush(&out, stdout);
			e4t_check_answer(res, i, ask(&yes_all, interrupted));
			continue; /* ask() ended the line */
		}
		if (!p.nofix)
			lb_puts(&out, fix ? "? yes" : "? no");
		lb_putc(&out, '\n');
		lb_maybe_flush(&out, stdout);
	}
	lb_flush(&out, stdout);
	lb_free(&out);
}

/*
 * Each problem's line (text, not asked), with its answer as e2fsck
 * prints it: "yes" for a fix written, "no" for one not to be written;
 * a fix to be written that was not (the run stopped: a failed write,
 * SIGINT) says so.
 */
void check_answers(const struct e4t_check_result *res)
{
	struct lbuf out = { 0 };
	struct e4t_problem p;
	size_t i;

	for (i = 0; i < res->n; i++) {
		e4t_check_get(res, i, &p);
		check_problem_line(&out, &p);
		if (!p.nofix)
			lb_puts(&out,
				p.fixed ? "? yes"
				: p.fix ? "? not written (the run stopped)"
					: "? no");
		lb_putc(&out, '\n');
		lb_maybe_flush(&out, stdout);
	}
	lb_flush(&out, stdout);
	lb_free(&out);
}
