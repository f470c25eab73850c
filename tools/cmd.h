/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h --- what the commands of the e4time binary share: the
 * command table entry, exit statuses, image opening with the common
 * options, diagnostics and output helpers.
 */
#ifndef E4TIME_TOOL_H
#define E4TIME_TOOL_H

#include <stdio.h>
#include <getopt.h>
#include <signal.h>

#include "lib/e4time.h"

/* Exit statuses: e4time(8), EXIT STATUS; exit_status.c says which
 * condition gives which. */
#define EXIT_OK	      0
#define EXIT_PARTIAL  1	 /* output produced, but something was unreadable */
#define EXIT_USAGE    2	 /* bad command line */
#define EXIT_IMAGE    4	 /* image could not be opened or is not ext2/3/4 */
#define EXIT_INTERNAL 8	 /* out of memory, output write error */
#define EXIT_REFUSED  16 /* a write was refused; nothing was written */
/* import's: entries that were not compared (not bits: the largest wins) */
#define EXIT_NULL_TIMES 32 /* an entry matched gives no time to compare */
#define EXIT_LEFT_OUT	64 /* an entry unmatched or under no --map */
#define EXIT_NOTHING	96 /* no entry was compared */

/* The conditions a run can meet (exit_status.c): each gives a status. */
enum cond {
	COND_DAMAGE,
	COND_DANGLING,
	COND_IMAGE_DAMAGE,
	COND_JOURNAL_DAMAGE,
	COND_FILESPEC,
	COND_NO_FIELD,
	COND_SOURCE,
	COND_AMBIGUOUS,
	COND_NULL_TIMES,
	COND_LEFT_OUT,
	COND_NOTHING,
	COND_USAGE,
	COND_MANIFEST,
	COND_OPEN,
	COND_NOT_EXT,
	COND_INDEX,
	COND_JOURNAL,
	COND_NOMEM,
	COND_OUTPUT,
	COND_WRITE,
	COND_IN_USE,
	COND_READ_ONLY,
	COND_UNSAFE,
	COND_UNDO,
	COND_TARGET,
	COND_CONTAINER,
	COND_VOLUME,
	COND_EVIDENCE_WRITE,
	COND_HASH,
	COND_DIR,
	COND_DIR_READ,
	COND_DISAGREE,
	COND_COUNT
};
struct condition {
	int status;
	const char *name; /* for e4time help exit-status */
	const char *text; /* as e4time(8) says it */
};
extern const struct condition conditions[COND_COUNT];
int cond_status(enum cond c);
/* Which condition an error of e4t_image_open_write is. */
enum cond cond_of_refusal(errcode_t err, const char *image);
/* The status of an error resolving or walking a FILESPEC. */
int filespec_status(errcode_t err);
/* The status of an error that stopped a run: a FILESPEC's, or not. */
int run_error_status(errcode_t err);
/* e4time help exit-status: the table. */
void print_exit_statuses(FILE *fp);

struct cmd_ctx;

/*
 * What a command needs (struct cmdinfo.flags): the dispatcher (context.c)
 * acts on them, so that no command repeats it.
 */
#define CMD_IMAGE                                                              \
	0x01 /* IMAGE is the first argument: --offset, -o, -q;                 \
	      * opened read-only before run() */
#define CMD_WRITE                                                              \
	0x02		 /* with CMD_IMAGE: -n, -z, --no-undo; opened for      \
			  * writing unless -n; the undo file finished after */
#define CMD_JOURNAL 0x04 /* -j FILE; ctx_journal() loads the journal */
#define CMD_TREE    0x08 /* --threads; ctx_tree() indexes the filesystem */
#define CMD_FORMATS 0x10 /* -f, --format NAME (ctx->format_name) */
#define CMD_LOCAL   0x20 /* --local (ctx->local) */
#define CMD_ALLVOL  0x40 /* --volume all: run() once per ext2/3/4 volume */
#define CMD_DRYREAD                                                            \
	0x80 /* with CMD_WRITE: -n opens as a read command does (containers,   \
	      * mounted filesystems) */

/*
 * One entry of the command table (as xfsprogs' cmdinfo_t, git's
 * cmd_struct): what the command is called, what it takes, and the
 * functions the dispatcher calls, in this order: opt() for each of the
 * command's own options, prepare() with the arguments (before the image
 * is opened: a status other than EXIT_OK ends the run there), run() with
 * the arguments after IMAGE, and done() always, last.
 */
struct cmdinfo {
	const char *name;
	const char *args;    /* "[OPTIONS] IMAGE FILESPEC...", for usage */
	const char *oneline; /* for e4time --help */
	unsigned flags;	     /* CMD_* */
	/* CMD_FORMATS: the report formats (RF_MASK()s of report.h) parsed
	 * into ctx->format; 0: the command reads ctx->format_name itself */
	unsigned formats;
	int argmin, argmax;    /* arguments, IMAGE included; argmax -1: any */
	const char *argerr;    /* the usage error when their number is wrong */
	const char *shortopts; /* the command's own options */
	const struct option *longopts; /* ... ending with a zero entry */
	void (*opt)(struct cmd_ctx *ctx, int c, const char *arg);
	int (*prepare)(struct cmd_ctx *ctx, int argc, char **argv);
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
	void (*done)(struct cmd_ctx *ctx);
	void (*help)(FILE *fp);
	/* The exit status the command gives for the dispatcher's (check's
	 * are e2fsck's), or NULL: the same. */
	int (*exit_map)(int status);
};

extern const struct cmdinfo stat_cmd;
extern const struct cmdinfo timeline_cmd;
extern const struct cmdinfo set_cmd;
extern const struct cmdinfo backfill_cmd;
extern const struct cmdinfo export_cmd;
extern const struct cmdinfo import_cmd;
extern const struct cmdinfo journal_cmd;
extern const struct cmdinfo audit_cmd;
extern const struct cmdinfo history_cmd;
extern const struct cmdinfo info_cmd;
extern const struct cmdinfo volumes_cmd;
extern const struct cmdinfo anomalies_cmd;
extern const struct cmdinfo check_cmd;

extern const char *progname;
extern char **cmd_argv; /* the command's argv, for messages */

/* Options every image-reading command takes. */
struct common_opts {
	unsigned long long offset; /* bytes */
	int offset_set;		   /* 0, 'o' (-o SECTORS) or 'O' (--offset) */
	const char *volume;	   /* --volume SPEC, or NULL */
	int verify;		   /* --verify-container */
	int quiet;
	struct e4t_sb_opts sb; /* -b BLOCK, -B SIZE (e2fsck's) */
};

enum {
	OPT_OFFSET = 0x100,
	OPT_VOLUME,
	OPT_VERIFY,
	OPT_SUPERBLOCK,
	OPT_BLOCK_SIZE,
	OPT_PARENT_DIR,
	OPT_NO_UNDO,
	OPT_CTX_LOCAL,
	OPT_CTX_THREADS,
	OPT_COMMON_LAST
};
#define COMMON_LONGOPTS                                                        \
	{ "offset", required_argument, NULL, OPT_OFFSET },                     \
		{ "sector-offset", required_argument, NULL, 'o' },             \
		{ "volume", required_argument, NULL, OPT_VOLUME },             \
		{ "verify-container", no_argument, NULL, OPT_VERIFY },         \
		{ "parent-dir", required_argument, NULL, OPT_PARENT_DIR },     \
		{ "quiet", no_argument, NULL, 'q' },                           \
		{ "superblock", required_argument, NULL, OPT_SUPERBLOCK },     \
		{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },     \
	{                                                                      \
		"help", no_argument, NULL, 'h'                                 \
	}
/* -b and -B give way to a command's own (journal -b is --blocks) */
#define COMMON_SHORTOPTS "o:qhb:B:"
#define COMMON_HELP                                                            \
	"  --volume SPEC, --offset BYTES, -o SECTORS, --verify-container, "    \
	"--parent-dir DIR, -q, "                                               \
	"-h,\n"                                                                \
	"  -b, --superblock BLOCK, -B, --block-size SIZE (journal: the long "  \
	"form)\n"                                                              \
	"                         as for every command (see e4time(8))\n"

/* Options every writing command takes (with COMMON_*). */
#define WRITE_LONGOPTS                                                         \
	{ "dry-run", no_argument, NULL, 'n' },                                 \
		{ "undo-file", required_argument, NULL, 'z' },                 \
	{                                                                      \
		"no-undo", no_argument, NULL, OPT_NO_UNDO                      \
	}
#define WRITE_SHORTOPTS "nz:"
#define WRITE_HELP                                                             \
	"  -n, --dry-run          show what would change; open the image "     \
	"read-only\n"                                                          \
	"  -z, --undo-file FILE   undo file (default: $E2FSPROGS_UNDO_DIR "    \
	"or\n"                                                                 \
	"                         /var/lib/e2fsprogs, e4time-IMAGE.e2undo)\n"  \
	"      --no-undo          write no undo file\n" COMMON_HELP
/* Handle a write option into wo; returns 1 if it was one. */
int write_opt(int c, const char *arg, struct e4t_write_opts *wo);
/* After option parsing: -z and --no-undo exclude each other. */
void check_write_opts(const struct e4t_write_opts *wo,
		      const struct cmdinfo *cmd);

/* --fields LIST of set and import: crtime, atime, mtime, ctime (a mask
 * of 1 << E4T_*); exits on a bad or empty one. */
unsigned parse_fields(const char *list, const struct cmdinfo *cmd);
/* A TIME option (--crtime, --since...): exits on a bad one. */
void parse_time_option(const struct cmdinfo *cmd, const char *what,
		       const char *arg, struct e4t_ts *ts);
/* backfill and import: --policy (exits on a bad one). */
enum e4t_policy parse_policy(const char *arg, const struct cmdinfo *cmd);
/* --threads: 0 (choose), 1 or 2 (exits on anything else). */
int parse_threads(const char *arg, const struct cmdinfo *cmd);

/* Handle a common option; returns 1 if it was one, exits on bad values
 * and on getopt's '?' (unknown option, missing argument). */
int common_opt(int c, const char *arg, struct common_opts *co,
	       const struct cmdinfo *cmd);
void usage_error(const struct cmdinfo *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Close an image opened for writing, finish its undo file, and say how
 * to undo; returns status, or EXIT_INTERNAL if closing failed. */
int finish_write(struct e4t_image *img, int status);
/* Make room for one more element in *p (doubling); 0 or ENOMEM. */
int grow_array(void *p, size_t *cap, size_t n, size_t elem);
/* A NUL-terminated malloc'd copy of len bytes at s, or NULL. */
char *dup_bytes(const char *s, size_t len);

/* Report why e4t_image_open_write failed; the exit status for it. */
int open_write_status(const char *image, const struct e4t_write_opts *wo,
		      errcode_t err);
/*
 * Report a write that failed (naming the undo file when it was the undo
 * file that could not be written); EXIT_INTERNAL.
 */
/* The filesystem's tree could not be indexed (e4t_tree_load): report it
 * as timeline does; EXIT_IMAGE, or EXIT_INTERNAL when out of memory. */
int index_error_status(const char *image, errcode_t err);
int write_error_status(const struct e4t_image *img, const char *what,
		       errcode_t err);
/* Flush stdout; on a write error say so and return EXIT_INTERNAL. */
int finish_stdout(int status);
/*
 * SIGINT, SIGTERM and SIGHUP while a writing command runs (common.c):
 * the signal, noted in stop_signal by the handler catch_stop_signals()
 * installs (fn, or one that notes it).  set, backfill and import stop
 * between two writes (a transaction, see e4time(8)), finish the image
 * and its undo file, and cmd_run() then dies of the signal as it would
 * have; check stops as on SIGINT (its own handler, status 32).
 */
extern volatile sig_atomic_t stop_signal;
void catch_stop_signals(void (*fn)(int));
/* Set by a writing command as its writes begin: until then the signal
 * kills it at once, as without the handler (a long index, say). */
extern volatile sig_atomic_t stop_armed;
/* The run is to stop: what a callback returns then (EINTR). */
int stop_requested(void);
/* EXIT_PARTIAL when the image's superblock, group descriptors or size
 * are damaged (noted at open), else EXIT_OK. */
int image_damage_status(const struct e4t_image *img);

/* The label of a FILESPEC in messages, escaped (malloc'd, or NULL):
 * "<12>" as given, a path with its inode added ("/a/b <12>"). */
char *spec_label(const char *spec, ext2_ino_t ino);
/* Diagnostics: "e4time: IMAGE: WHAT: message". */
void report(const char *image, const char *what, errcode_t err);
void warnx_img(const char *image, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Is the image's filesystem mounted (a block device over its bytes, or
 * the file through FUSE)?  why names the mount.  Never for a view.
 */
struct e4t_refusal;
int image_mounted(const struct e4t_image *img, struct e4t_refusal *why);

/* Open the image (the file at byte at, or a view of a container at
 * byte at), print its state notes; exits EXIT_IMAGE on failure (the
 * message gives -o/--offset as co has them). */
struct e4t_image *open_image_or_exit(const char *name,
				     const struct common_opts *co,
				     const struct e4t_view *view, uint64_t at);

/*
 * The IMAGE argument as examiners hold it (evidence.c): the container
 * (E01, split raw, qcow2...), the volume --volume names (or the only
 * ext2/3/4 one), the filesystem at -o inside it.  On success *ev is
 * open and either (*view NULL) the filesystem is at *offset of the
 * file IMAGE itself (raw images, partitions, one-segment LVs), or it
 * is at co->offset of *view (writable too when the container is raw:
 * e4t_image_open_write_view()).
 * Otherwise said on stderr, and the exit status returned.
 */
struct evidence;
int evidence_open(const char *name, const struct common_opts *co,
		  struct evidence **ev, uint64_t *offset,
		  const struct e4t_view **view);
void evidence_close(struct evidence *ev);
/* For `e4time volumes` and --volume all: open the container alone
 * (NULL when it cannot be: said, and *status set), then scan its
 * volumes (warnings said unless quiet; the exit status). */
struct evidence *evidence_container(const char *name, int quiet, int *status);
int evidence_scan(struct evidence *ev);
const struct e4t_volumes *evidence_volumes(const struct evidence *ev);
struct e4t_container *evidence_of(const struct evidence *ev);
/* The second half of evidence_open(), on an open container: the
 * volume co names (the scan is done once), for --volume all. */
int evidence_use(struct evidence *ev, const struct common_opts *co,
		 uint64_t *offset, const struct e4t_view **view);
/* --verify-container: check the stored hashes, say what was found. */
void evidence_verify(struct evidence *ev, int quiet);
/* --verify-container found a stored hash that does not match. */
int evidence_hash_bad(const struct evidence *ev);
/* The volume evidence_use chose is read through one leg of a raid1 or
 * mirror LV: what says so (never written: the other legs would
 * differ), else NULL. */
const char *evidence_one_leg(const struct evidence *ev);

struct warn_ctx;
void lib_warn(errcode_t err, ext2_ino_t ino, const char *detail, void *priv);

/* Progress on stderr when it is a terminal and the work takes a while. */
void progress_cb(const char *phase, uint64_t done, uint64_t total, void *priv);
/* The same, "VERB PHASE: NN%" (progress_cb's verb is "reading"). */
void progress_show(const char *verb, const char *phase, uint64_t done,
		   uint64_t total, void *priv);
void progress_done(void);

/* journal_open.c: open and load the journal of img (path: external journal or
 * NULL); warnings through wc.  Exits EXIT_IMAGE when it cannot be read. */
struct e4t_journal *open_journal_or_exit(struct e4t_image *img,
					 const char *path, unsigned flags,
					 struct warn_ctx *wc);

/* The journal's features: their names into names (room for
 * E4T_JFEATURES_MAX), how many; as words ("64bit csum_v3", "(none)");
 * as a record's "features" array (see report.h). */
#define E4T_JFEATURES_MAX 8
size_t journal_features(const struct e4t_jinfo *in, const char **names);
void print_journal_features(const struct e4t_jinfo *in, FILE *fp);
struct report;
void rec_journal_features(struct report *r, const struct e4t_jinfo *in);

/* Time text: ISO 8601 in UTC, or local time with --local. */
char *fmt_time(const struct e4t_ts *ts, int local, char sep, char *buf,
	       size_t len);

/* ------------------------------------------------------------------ */
/* The command context (context.c)                                     */
/* ------------------------------------------------------------------ */

/* Warnings from the library, counted for the exit status. */
struct warn_ctx {
	const char *image;
	int quiet;
	unsigned long count;
};

/*
 * What the dispatcher opened for a command, and the options it parsed
 * for it.  The command's own options live in its own file.
 */
struct cmd_ctx {
	const struct cmdinfo *cmd;
	struct common_opts co;	    /* CMD_IMAGE */
	struct e4t_refusal why;	    /* CMD_WRITE: why a write was refused */
	struct e4t_write_opts wo;   /* CMD_WRITE: -n, -z, --no-undo */
	const char *format_name;    /* CMD_FORMATS: -f NAME, or NULL */
	int format;		    /* ... as cmdinfo.formats allows: RF_* */
	int local;		    /* CMD_LOCAL */
	const char *jpath;	    /* CMD_JOURNAL: -j FILE, or NULL */
	unsigned jflags;	    /* CMD_JOURNAL: e4t_journal_load flags */
	struct e4t_tree_opts topts; /* CMD_TREE: threads; flags (deleted) */
	struct e4t_image *img;	    /* CMD_IMAGE: open during run() */
	struct evidence *ev;	    /* CMD_IMAGE: the container, volumes */
	int keep_ev; /* --volume all: ev outlives each volume's run */
	/* CMD_ALLVOL with --volume all: the volume run() reads now, and
	 * whether it is the first */
	const char *volume;
	int vol_first;
	struct e4t_journal *j; /* CMD_JOURNAL: once ctx_journal() loaded it */
	struct e4t_tree *tree; /* CMD_TREE: once ctx_tree() loaded it */
	struct warn_ctx wc;    /* the warning count: EXIT_PARTIAL */
	/* CMD_IMAGE: set by prepare() when this run reads no image (export
	 * --from-dir): run() gets all the arguments, nothing is opened */
	int no_image;
};

/* The exit status for status as the running command gives it
 * (cmdinfo.exit_map); for the exits before and outside run(). */
int cmd_exit_status(int status);
/* Run cmd with argv[0] its name; the exit status. */
int cmd_run(const struct cmdinfo *cmd, int argc, char **argv);
/* The journal (-j FILE, or the filesystem's), loaded once with
 * ctx->jflags; exits EXIT_IMAGE when it cannot be read. */
struct e4t_journal *ctx_journal(struct cmd_ctx *ctx);
/* The filesystem's tree, indexed once (progress shown); NULL when it
 * could not be: said, and *status set as index_error_status(). */
struct e4t_tree *ctx_tree(struct cmd_ctx *ctx, int *status);
/* The worse of two exit statuses. */
int worse_status(int a, int b);

#endif
