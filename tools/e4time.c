/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e4time.c --- main program: the command table and dispatch.
 *
 * Every command is one entry of cmds[] below, defined in its own
 * cmd_NAME.c file.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

const char *progname = "e4time";

static const struct cmdinfo *const cmds[] = {
	&stat_cmd,    &timeline_cmd, &set_cmd,	     &backfill_cmd, &export_cmd,
	&import_cmd,  &journal_cmd,  &audit_cmd,     &history_cmd,  &info_cmd,
	&volumes_cmd, &check_cmd,    &anomalies_cmd,
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static const struct cmdinfo *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i]->name, name) == 0)
			return cmds[i];
	return NULL;
}

static void main_usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"Usage: %s COMMAND [OPTIONS] IMAGE [ARGS]\n"
		"       %s help COMMAND | help exit-status | --help | "
		"--version\n\n"
		"Read ext4 timestamps, creation time included, from unmounted "
		"images.\n\nCommands:\n",
		progname, progname);
	for (i = 0; i < NCMDS; i++)
		fprintf(fp, "  %-10s %s\n", cmds[i]->name, cmds[i]->oneline);
	fprintf(fp,
		"\nImage options (all commands):\n"
		"  --offset BYTES         filesystem starts BYTES into IMAGE\n"
		"  -o, --sector-offset N  filesystem starts N 512-byte sectors "
		"in (as TSK's -o)\n"
		"  -q, --quiet            no progress, no warnings (the exit "
		"status still tells)\n\n"
		"Exit status: 0 ok, 1 output produced but something could not "
		"be read,\n2 usage error, 4 image could not be opened, 8 "
		"internal error, 16 write refused\n(nothing written); check "
		"gives e2fsck's (0, 1, 4, 8, 16, 32).  See e4time(8).\n");
}

/* on_path: whether PROG is an executable file of a directory of $PATH. */
static int on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	for (p = path; p && *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p,
			     prog) >= (int)sizeof(buf))
			continue;
		if (end > p && access(buf, X_OK) == 0)
			return 1;
	}
	return 0;
}

/*
 * help_man: `e4time help CMD` on a terminal opens e4time-CMD(8) with
 * man(1), as `git help CMD` does.  Returns 1 when man showed the page,
 * 0 when the usage is to be printed instead: stdout not a terminal, no
 * man on PATH, E4TIME_HELP=usage, or man failing (no such page
 * installed, say: it has said so on stderr).
 */
static int help_man(const char *name)
{
	const char *how = getenv("E4TIME_HELP");
	char page[64];
	pid_t pid;
	int st;

	if (!isatty(STDOUT_FILENO) || (how && !strcmp(how, "usage")) ||
	    !on_path("man"))
		return 0;
	snprintf(page, sizeof(page), "%s-%s", progname, name);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		execlp("man", "man", page, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void init_tables(void)
{
	add_error_table(&et_e4t_error_table);
	add_error_table(&et_ext2_error_table);
}

int main(int argc, char **argv)
{
	const struct cmdinfo *cmd;

	init_tables();
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		const char *ver;

		ext2fs_get_library_version(&ver, NULL);
		printf("%s %s (libext2fs %s)\n", progname, PACKAGE_VERSION,
		       ver);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			main_usage(stdout);
			return finish_stdout(EXIT_OK);
		}
		if (!strcmp(argv[2], "exit-status")) {
			print_exit_statuses(stdout);
			return finish_stdout(EXIT_OK);
		}
		cmd = find_cmd(argv[2]);
		if (!cmd) {
			fprintf(stderr, "%s: no such command: '%s'\n", progname,
				argv[2]);
			return EXIT_USAGE;
		}
		if (help_man(cmd->name))
			return EXIT_OK;
		cmd->help(stdout);
		return finish_stdout(EXIT_OK);
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		fprintf(stderr, "%s: no such command: '%s'\nTry '%s --help'.\n",
			progname, argv[1], progname);
		return EXIT_USAGE;
	}
	cmd_argv = argv + 1;
	opterr = 0; /* common_opt() words getopt's complaints */
	return cmd_run(cmd, argc - 1, argv + 1);
}
