/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.c --- what every e4time command shares: common options, opening
 * the image, diagnostics, progress, time text.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "linebuf.h"
#include "escape.h"

#define SECTOR_SIZE 512ULL

char **cmd_argv;
volatile sig_atomic_t stop_signal, stop_armed;

/* Before the writes begin nothing is lost: die of it at once. */
static void note_stop(int sig)
{
	if (!stop_armed) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_signal = sig;
}

void catch_stop_signals(void (*fn)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn ? fn : note_stop;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

int stop_requested(void)
{
	return stop_signal ? EINTR : 0;
}

static unsigned long long parse_count(const char *arg, const char *what,
				      const struct cmdinfo *cmd)
{
	char *end;
	unsigned long long v;

	const char *digits = arg;
	int base = 10;

	/* Decimal even with leading zeros (mmls pads them); 0x for hex. */
	if (arg && arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) {
		digits = arg + 2;
		base = 16;
	}
	/* Digits only: strtoull() would take "", blanks, a sign or a
	 * second 0x. */
	if (!arg || !*digits ||
	    strspn(digits, base == 16 ? "0123456789abcdefABCDEF"
				      : "0123456789") != strlen(digits))
		usage_error(cmd, "%s: not a number: '%s'", what,
			    arg ? arg : "");
	errno = 0;
	v = strtoull(digits, &end, base);
	if (errno || *end)
		usage_error(cmd, "%s: not a number: '%s'", what, arg);
	return v;
}

int image_mounted(const struct e4t_image *img, struct e4t_refusal *why)
{
	uint64_t len = ext2fs_blocks_count(img->fs->super) *
		       (uint64_t)img->fs->blocksize;

	return !img->view && e4t_check_mounted(img->name, img->offset, len,
					       why) == E4T_ERR_MOUNTED;
}

/*
 * A journal to recover: on a mounted filesystem that is the mount's own
 * (its live journal), nothing to run e2fsck on; on an image at rest, a
 * copy to recover.
 */
static void recovery_note(const struct e4t_image *img, const char *name)
{
	struct e4t_refusal why;

	if (image_mounted(img, &why))
		warnx_img(name,
			  "mounted (%s): its journal is the mount's own; what "
			  "is on disk may be older than what the mounted "
			  "filesystem shows",
			  why.what);
	else
		warnx_img(name, "%s", error_message(E4T_ERR_NEEDS_RECOVERY));
}

/* -b BLOCK, -B SIZE: the superblock to read, as e2fsck's (sbopen.c). */
static int sb_opt(int c, const char *arg, struct common_opts *co,
		  const struct cmdinfo *cmd)
{
	const char *what = c == OPT_SUPERBLOCK ? "-b" : "-B";
	unsigned long long v = parse_count(arg, what, cmd);

	if (c == OPT_SUPERBLOCK) {
		/* ext2fs_open2() takes an int */
		if (v < 1 || v > INT32_MAX)
			usage_error(cmd,
				    "-b '%s': a block number, 1 to 2147483647",
				    arg);
		co->sb.block = v;
		return 1;
	}
	if (v < 1024 || v > 65536 || (v & (v - 1)))
		usage_error(cmd,
			    "-B '%s': a block size, 1024, 2048, 4096 ... "
			    "65536",
			    arg);
	co->sb.blocksize = (unsigned)v;
	return 1;
}

int common_opt(int c, const char *arg, struct common_opts *co,
	       const struct cmdinfo *cmd)
{
	unsigned long long v;

	switch (c) {
	case OPT_OFFSET:
		co->offset = parse_count(arg, "--offset", cmd);
		co->offset_set = 'O';
		return 1;
	case OPT_VOLUME:
		if (!*arg)
			usage_error(cmd, "--volume: empty SPEC");
		co->volume = arg;
		return 1;
	case OPT_VERIFY: co->verify = 1; return 1;
	case 'b':
	case 'B':
		/* a command's own -b (journal --blocks) comes first */
		if (cmd->shortopts && strchr(cmd->shortopts, c))
			return 0;
		return sb_opt(c == 'b' ? OPT_SUPERBLOCK : OPT_BLOCK_SIZE, arg,
			      co, cmd);
	case OPT_SUPERBLOCK:
	case OPT_BLOCK_SIZE: return sb_opt(c, arg, co, cmd);
	case OPT_PARENT_DIR:
		if (e4t_parent_allow_dir(arg))
			usage_error(cmd, "--parent-dir: not a directory: '%s'",
				    arg);
		return 1;
	case 'o':
		v = parse_count(arg, "-o", cmd);
		if (v > UINT64_MAX / SECTOR_SIZE)
			usage_error(cmd, "-o: offset too large: '%s'", arg);
		co->offset = v * SECTOR_SIZE;
		co->offset_set = 'o';
		return 1;
	case 'q': co->quiet = 1; return 1;
	case 'h': cmd->help(stdout); exit(finish_stdout(EXIT_OK));
	case '?':
		/* A long-only option's optopt is its value, not a letter. */
		if (optopt > 0 && optopt < 0x80 && isalnum(optopt))
			usage_error(cmd,
				    "bad option or missing argument: '-%c'",
				    optopt);
		usage_error(cmd, "bad option or missing argument: '%s'",
			    optind > 0 ? cmd_argv[optind - 1] : "?");
	default: return 0;
	}
}

static const struct cmdinfo *running;

void cmd_set_running(const struct cmdinfo *cmd)
{
	running = cmd;
}

int cmd_exit_status(int status)
{
	return running && running->exit_map ? running->exit_map(status)
					    : status;
}

void usage_error(const struct cmdinfo *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", progname, cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nUsage: %s %s %s\nTry '%s help %s' for more.\n",
		progname, cmd->name, cmd->args, progname, cmd->name);
	exit(cmd_exit_status(EXIT_USAGE));
}

int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", progname,
			strerror(errno ? errno : EIO));
		return EXIT_INTERNAL;
	}
	/* an output buffer ran out of memory (linebuf.h), where the command
	 * did not fail on it itself */
	if (lb_lost_output() && status != EXIT_INTERNAL) {
		fprintf(stderr,
			"%s: standard output: out of memory: the output is "
			"cut short\n",
			progname);
		return EXIT_INTERNAL;
	}
	return status;
}

int report_failed(void)
{
	/* a write error: finish_stdout says it */
	if (!ferror(stdout))
		fprintf(stderr, "%s: standard output: %s\n", progname,
			strerror(errno ? errno : EIO));
	return cond_status(COND_OUTPUT);
}

int grow_array(void *p, size_t *cap, size_t n, size_t elem)
{
	return e4t_grow(p, cap, n + 1, elem, 1024) ? ENOMEM : 0;
}

char *dup_bytes(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

int write_opt(int c, const char *arg, struct e4t_write_opts *wo)
{
	switch (c) {
	case 'n': wo->dry_run = 1; return 1;
	case 'z': wo->undo_path = arg; return 1;
	case OPT_NO_UNDO: wo->no_undo = 1; return 1;
	default: return 0;
	}
}

void check_write_opts(const struct e4t_write_opts *wo,
		      const struct cmdinfo *cmd)
{
	if (wo->no_undo && wo->undo_path)
		usage_error(cmd,
			    "--no-undo and --undo-file exclude each other");
}

unsigned parse_fields(const char *list, const struct cmdinfo *cmd)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned fields = 0;

	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(EXIT_INTERNAL);
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int f = e4t_field_parse(tok);

		if (f < 0 || f == E4T_DTIME)
			usage_error(cmd,
				    "--fields: '%s' is not crtime, atime, "
				    "mtime or ctime",
				    tok);
		fields |= 1U << f;
	}
	free(copy);
	if (!fields)
		usage_error(cmd, "--fields: empty list");
	return fields;
}

void parse_time_option(const struct cmdinfo *cmd, const char *what,
		       const char *arg, struct e4t_ts *ts)
{
	errcode_t err = e4t_time_parse(arg, &ts->sec, &ts->nsec);

	if (err)
		usage_error(cmd, "%s '%s': %s", what, arg, error_message(err));
	ts->flags = E4T_TS_STORED;
}

enum e4t_policy parse_policy(const char *arg, const struct cmdinfo *cmd)
{
	int p = e4t_policy_parse(arg);

	if (p < 0)
		usage_error(cmd,
			    "--policy '%s': use earlier, missing or always",
			    arg);
	return p;
}

int parse_threads(const char *arg, const struct cmdinfo *cmd)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || n > 64 || arg[0] == '-' || arg[0] == '+')
		usage_error(cmd, "--threads '%s': use 0 (choose) or 1 to 64",
			    arg);
	return (int)n;
}

int finish_write(struct e4t_image *img, int status)
{
	char *name = strdup(img->name), *undo = NULL;
	/* e2undo's -o: where the filesystem starts in the image (a volume's
	 * first segment), the undo file's fs_offset */
	unsigned long long offset = img->fs_offset;
	errcode_t err;

	/* Only a run that wrote has something to undo (see write.c). */
	err = e4t_image_finish_write(img, &undo);
	if (err) {
		report(name ? name : "image", "closing", err);
		status = EXIT_INTERNAL;
	}
	if (undo && name) {
		char off[48] = "";

		if (offset)
			snprintf(off, sizeof(off), "-o %llu ", offset);
		/* what is on stdout first: in one log, a line of its own */
		fflush(stdout);
		fprintf(stderr,
			"%s: %s: undo file %s (to undo: e2undo %s%s %s)\n",
			progname, name, undo, off, undo, name);
	}
	free(undo);
	free(name);
	return finish_stdout(status);
}

int index_error_status(const char *image, errcode_t err)
{
	report(image, "indexing the filesystem", err);
	return cond_status(err == ENOMEM ? COND_NOMEM : COND_INDEX);
}

int write_error_status(const struct e4t_image *img, const char *what,
		       errcode_t err)
{
	/* The undo file could not be written: name it. */
	if ((err == E4T_ERR_UNDO_FULL || err == E4T_ERR_UNDO_WRITE) &&
	    img->undo_new)
		what = img->undo_new;
	report(img->name, what, err);
	return EXIT_INTERNAL;
}

int open_write_status(const char *image, const struct e4t_write_opts *wo,
		      errcode_t err)
{
	const struct e4t_refusal *why = wo->why;

	progress_done();
	fprintf(stderr, "%s: %s: refusing to write: ", progname, image);
	if (why && why->what[0])
		fprintf(stderr, "%s: ", why->what);
	fputs(error_message(err), stderr);
	if (why && why->cause)
		fprintf(stderr, ": %s", error_message(why->cause));
	fputc('\n', stderr);
	return cond_status(cond_of_refusal(err, image));
}

int image_damage_status(const struct e4t_image *img)
{
	return (img->state & (E4T_IMG_SB_CSUM_BAD | E4T_IMG_GD_CSUM_BAD |
			      E4T_IMG_TRUNCATED | E4T_IMG_PRIMARY_BAD))
		       ? EXIT_PARTIAL
		       : EXIT_OK;
}

char *spec_label(const char *spec, ext2_ino_t ino)
{
	char *name = escape_text(spec, strlen(spec));
	size_t len = (name ? strlen(name) : 1) + 32;
	char *label = malloc(len);

	/* "<12>" names itself; a path gets its inode number added */
	if (label && spec[0] == '<')
		snprintf(label, len, "%s", name ? name : "?");
	else if (label)
		snprintf(label, len, "%s <%u>", name ? name : "?", ino);
	free(name);
	return label;
}

void report(const char *image, const char *what, errcode_t err)
{
	progress_done();
	fprintf(stderr, "%s: %s: %s%s%s\n", progname, image, what ? what : "",
		what ? ": " : "", error_message(err));
}

void warnx_img(const char *image, const char *fmt, ...)
{
	va_list ap;

	progress_done();
	fprintf(stderr, "%s: %s: ", progname, image);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The filesystem runs past the image's end: and when the image is
 * named as split raw's first piece, the piece missing after the last. */
static void say_truncated(const char *name, const struct common_opts *co)
{
	char *missing = NULL;

	(void)co;
	if (!e4t_split_missing(name, &missing) && missing)
		warnx_img(name, "%s: the split piece %s is missing",
			  error_message(E4T_ERR_TRUNCATED), missing);
	else
		warnx_img(name, "%s", error_message(E4T_ERR_TRUNCATED));
	free(missing);
}

struct e4t_image *open_image_status(const char *name,
				    const struct common_opts *co,
				    const struct e4t_view *view, uint64_t at,
				    int *status)
{
	struct e4t_image *img;
	errcode_t err;

	err = e4t_image_open2(name, -1, view, at, &co->sb, &img);
	if (err == E4T_ERR_NO_SB_AT) {
		char size[32] = "";

		if (co->sb.blocksize)
			snprintf(size, sizeof(size), " -B %u",
				 co->sb.blocksize);
		fprintf(stderr, "%s: %s: -b %llu%s: %s\n", progname, name,
			(unsigned long long)co->sb.block, size,
			error_message(err));
		*status = EXIT_IMAGE;
		return NULL;
	}
	if (err) {
		/* the backups were looked for too (sbopen.c) */
		const char *nor =
			err == E4T_ERR_NOT_EXT ? ", nor a good backup" : "";

		if ((err == E4T_ERR_NOT_EXT || err == E4T_ERR_OFFSET) &&
		    co->offset_set == 'o') {
			fprintf(stderr,
				"%s: %s: %s at sector %llu (byte %llu)%s%s\n",
				progname, name, error_message(err),
				co->offset / SECTOR_SIZE, co->offset,
				co->volume ? " of the volume" : "", nor);
		} else if (err == E4T_ERR_NOT_EXT && co->sb.blocksize) {
			fprintf(stderr,
				"%s: %s: -B %u: no ext2/ext3/ext4 superblock "
				"of that block size at offset %llu%s%s\n",
				progname, name, co->sb.blocksize, co->offset,
				co->volume ? " of the volume" : "", nor);
		} else if (err == E4T_ERR_NOT_EXT || err == E4T_ERR_OFFSET) {
			fprintf(stderr, "%s: %s: %s at offset %llu%s%s\n",
				progname, name, error_message(err), co->offset,
				co->volume ? " of the volume" : "", nor);
		} else {
			report(name, NULL, err);
		}
		*status = EXIT_IMAGE;
		return NULL;
	}
	/* what was read is not what the kernel would mount: said even
	 * with -q */
	if (img->state & E4T_IMG_PRIMARY_BAD)
		warnx_img(name,
			  "primary superblock unusable (%s); using the backup "
			  "at block %llu",
			  e4t_sb_fault(img->primary_err),
			  (unsigned long long)img->sb_block);
	if (img->state & E4T_IMG_NEEDS_RECOVERY)
		recovery_note(img, name);
	if (co->quiet)
		return img;
	if (img->state & E4T_IMG_ERRORS_FLAGGED)
		warnx_img(name, "the filesystem is flagged as having errors");
	if (img->state & E4T_IMG_SB_CSUM_BAD)
		warnx_img(name, "%s", error_message(E4T_ERR_SB_CSUM));
	if (img->state & E4T_IMG_GD_CSUM_BAD)
		warnx_img(name, "%s", error_message(E4T_ERR_GD_CSUM));
	if (img->state & E4T_IMG_TRUNCATED)
		say_truncated(name, co);
	return img;
}

void lib_warn(errcode_t err, ext2_ino_t ino, const char *detail, void *priv)
{
	struct warn_ctx *w = priv;

	w->count++;
	if (w->quiet)
		return;
	progress_done();
	if (ino)
		fprintf(stderr, "%s: %s: <%u>: %s", progname, w->image, ino,
			error_message(err));
	else
		fprintf(stderr, "%s: %s: %s", progname, w->image,
			error_message(err));
	if (detail)
		fprintf(stderr, " (%s)", detail);
	fputc('\n', stderr);
}

static int progress_shown;
static struct timespec progress_start, progress_last;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_cb(const char *phase, uint64_t done, uint64_t total, void *priv)
{
	progress_show("reading", phase, done, total, priv);
}

void progress_show(const char *verb, const char *phase, uint64_t done,
		   uint64_t total, void *priv)
{
	struct warn_ctx *w = priv;
	struct timespec now;

	if (w->quiet || !isatty(STDERR_FILENO))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!progress_start.tv_sec && !progress_start.tv_nsec) {
		progress_start = now;
		return;
	}
	/* Only for long scans, and not too often. */
	if (since(&progress_start, &now) < 1.0 ||
	    (progress_shown && since(&progress_last, &now) < 0.25))
		return;
	progress_last = now;
	progress_shown = 1;
	if (done > total)
		done = total;
	fprintf(stderr, "\r%s: %s %s: %3u%%", progname, verb, phase,
		total ? (unsigned)(done * 100 / total) : 0);
}

void progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

char *fmt_time(const struct e4t_ts *ts, int local, char sep, char *buf,
	       size_t len)
{
	int32_t off = INT32_MIN;

	if (local) {
		time_t t = (time_t)ts->sec;
		struct tm tm;

		if (localtime_r(&t, &tm))
			off = (int32_t)tm.tm_gmtoff;
	}
	return e4t_iso8601(ts->sec, ts->nsec, 9, sep, off, buf, len);
}
