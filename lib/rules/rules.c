/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rules.c --- the anomaly rules: one table (id, severity, meaning, what
 * produces it legitimately) and the evaluation of the inode rules.
 *
 * What the kernel does (checked on loop mounts of Linux 6.18, see
 * tests/test_anomalies.sh): crtime is set once, when the inode is
 * created, and no system call changes it; ctime is set to the current
 * time by every inode change, utimensat(2) and rename(2) included, and
 * creation sets atime = mtime = ctime = crtime; inodes larger than 128
 * bytes store nanoseconds, taken from the clock, so that a whole second
 * is a one in 10^9 chance.  Adding a rule: one entry in rules[] (and its
 * enum value), its test in e4t_rules_inode() or jrules.c, one case in
 * tests/test_anomalies.sh, one row in e4time(8).
 */
#include "config.h"

#include <string.h>

#include "e4time.h"

/* The index of each rule in rules[] */
enum {
	R_CRTIME_AFTER_CTIME = 0,
	R_CRTIME_BEFORE_MKFS,
	R_J_CRTIME_CHANGED,
	R_J_BACKDATED,
	R_J_FORWARD_DATED,
	R_J_DISK_NO_CTIME,
	R_J_NO_CTIME,
	R_CRTIME_NSEC_ZERO,
	R_AFTER_LAST_WRITE,
	R_MTIME_AFTER_CTIME,
	R_MTIME_NSEC_ZERO,
	R_ATIME_EQ_MTIME,
	R_CRTIME_AFTER_MTIME,
	R_J_SET_AT_CREATE,
	R_MKFS_MADE,
	R_COUNT
};

static const struct e4t_rule rules[R_COUNT] = {
	[R_CRTIME_AFTER_CTIME] = {
		"crtime-after-ctime", E4T_SEV_STRONG, E4T_RULE_INODE,
		"crtime is later than ctime: no system call can do this; "
		"crtime was written raw (debugfs sif, e4time set)",
		"the clock stepped back between the file's creation and its "
		"last change (what mke2fs -d makes, crtime the whole second "
		"of s_mkfs_time, is mkfs-made instead)",
	},
	[R_CRTIME_BEFORE_MKFS] = {
		"crtime-before-mkfs", E4T_SEV_STRONG, E4T_RULE_INODE,
		"crtime is earlier than the filesystem's creation "
		"(s_mkfs_time): crtime was written raw",
		"a restore that carries crtimes over (e4time import, "
		"backfill); a clock that was ahead when mke2fs ran",
	},
	[R_J_CRTIME_CHANGED] = {
		"journal-crtime-changed", E4T_SEV_STRONG, E4T_RULE_JOURNAL,
		"crtime differs between two copies of one live inode "
		"(journaled, or the last one and the disk): the kernel never "
		"changes it",
		"e4time set/backfill/import or debugfs on the unmounted "
		"filesystem between the two copies (a restore)",
	},
	[R_J_BACKDATED] = {
		"journal-backdated", E4T_SEV_STRONG, E4T_RULE_JOURNAL,
		"between two copies of one inode (journaled, or the last one "
		"and the disk) mtime or atime went back while ctime went "
		"forward, later than its creation: times set back by a caller "
		"(touch -d, utimensat)",
		"a copy or extraction onto an existing file (cp -p, rsync "
		"--inplace, tar or unzip overwriting) slower than the "
		"allowance; the clock stepped back.  Times set by the run "
		"that created or had just written the inode (cp -a, "
		"rsync -a, tar, unzip, mail delivery, gzip; a directory once "
		"its contents are written) are journal-set-at-create",
	},
	[R_J_FORWARD_DATED] = {
		"journal-forward-dated", E4T_SEV_STRONG, E4T_RULE_JOURNAL,
		"between two copies of one inode mtime went forward to a time "
		"later than the new ctime, later than its creation: the "
		"kernel sets mtime and ctime together, so mtime was set ahead "
		"by a caller (touch -d with a future date, utimensat)",
		"a copy or extraction onto an existing file from a source "
		"whose clock was ahead; the clock stepped back between the "
		"change and the setting.  Times set by the run that created "
		"the inode are not flagged (how copies look)",
	},
	[R_J_DISK_NO_CTIME] = {
		"journal-disk-time-without-ctime", E4T_SEV_STRONG,
		E4T_RULE_JOURNAL,
		"the inode on disk differs from its last journaled copy, "
		"nothing of the journal left to replay and no damage in it: "
		"mtime changed or atime went back while ctime stayed: written "
		"raw after the filesystem was last unmounted (debugfs sif, "
		"e4time set)",
		"none by the kernel, which writes an inode back as it "
		"journaled it; e2fsprogs or e4time run on the unmounted "
		"filesystem (a restore, a repair)",
	},
	[R_J_NO_CTIME] = {
		"journal-time-without-ctime", E4T_SEV_MEDIUM, E4T_RULE_JOURNAL,
		"between two journaled copies of one inode (or the last one "
		"and the disk, when the journal is damaged) mtime changed or "
		"atime went back while ctime stayed: written raw (debugfs "
		"sif, e4time set)",
		"a write in the same clock tick as a metadata change "
		"committed just before (mtime takes ctime's value); times "
		"set by a copy or extraction in the clock tick of its write, "
		"a commit between (Linux 6.13 on: a fine-grained ctime the "
		"coarse clock has not passed stays); a clock stepped back "
		"(atime)",
	},
	[R_CRTIME_NSEC_ZERO] = {
		"crtime-nsec-zero", E4T_SEV_MEDIUM, E4T_RULE_INODE,
		"crtime is a whole second on an inode that stores "
		"nanoseconds: the kernel's clock gives them, raw writes with "
		"whole seconds do not",
		"files created by debugfs write or e2fsck (lost+found); one "
		"crtime in 10^9 (what mke2fs -d makes, crtime the whole "
		"second of s_mkfs_time, is mkfs-made instead)",
	},
	[R_AFTER_LAST_WRITE] = {
		"time-after-last-write", E4T_SEV_MEDIUM, E4T_RULE_INODE,
		"a time is later than the filesystem's last write (s_wtime, "
		"s_mtime, the latest journal commit): set into the future, "
		"or the clock was wrong",
		"touch or tar with future dates; archives from a machine "
		"whose clock was ahead; a clock corrected backwards",
	},
	[R_MTIME_AFTER_CTIME] = {
		"mtime-after-ctime", E4T_SEV_MEDIUM, E4T_RULE_INODE,
		"mtime is later than ctime: utimensat into the future (a "
		"write sets both to the same time)",
		"files extracted or copied (tar, cp -a, rsync -a) with a "
		"future mtime; a clock that stepped back",
	},
	[R_MTIME_NSEC_ZERO] = {
		"mtime-nsec-zero", E4T_SEV_MEDIUM, E4T_RULE_INODE,
		"mtime is a whole second where the directory's other entries "
		"have nanoseconds: set by a second-precision tool (touch -t, "
		"ustar/zip extraction)",
		"a file kept from an archive or package in a directory of "
		"files edited since; whole seconds set later by a tool that "
		"keeps them (cp -p, rsync onto an existing file); one mtime "
		"in 10^9.  Not evaluated where the run that created the "
		"inode set them (tar, unzip, dpkg, rsync -a, container "
		"layers: crtime-after-mtime says copied; mke2fs -d: "
		"mkfs-made)",
	},
	[R_ATIME_EQ_MTIME] = {
		"atime-equals-mtime", E4T_SEV_MEDIUM, E4T_RULE_INODE,
		"atime equals mtime to the nanosecond, ctime is later and "
		"neither is crtime, set later than the inode's creation: both "
		"set at once (touch -d, touch -r)",
		"cp -p, rsync, tar or unzip onto an existing file from a "
		"source that had them equal; atime not updated since "
		"(noatime).  Not evaluated where the run that created the "
		"inode set them (cp -a, tar, Python's tarfile, Maildir "
		"delivery: crtime-after-mtime says copied; mke2fs -d: "
		"mkfs-made)",
	},
	[R_CRTIME_AFTER_MTIME] = {
		"crtime-after-mtime", E4T_SEV_INFO, E4T_RULE_INODE,
		"crtime is later than mtime: copied or extracted with mtime "
		"kept (MFTECmd's Copied)",
		"cp -a, cp -p, rsync -a, tar -x, dpkg, unzip: common",
	},
	[R_J_SET_AT_CREATE] = {
		"journal-set-at-create", E4T_SEV_INFO, E4T_RULE_JOURNAL,
		"between two copies of one inode mtime or atime went back "
		"while ctime went forward, set by the run that created the "
		"inode: ctime within 1 s of crtime, plus 10 ms for each inode "
		"created meanwhile and 1 s for each 4 MiB they hold; or by "
		"the run that had just written it: the earlier copy a "
		"write's (mtime = ctime), the new ctime as near to it",
		"cp -a, rsync -a, rsync --inplace, tar -x, Python's tarfile, "
		"unzip, gzip, "
		"Maildir delivery with received dates, directories whose "
		"times are restored once their contents are written: how "
		"copies look; a file dropped and stomped at once looks the "
		"same",
	},
	[R_MKFS_MADE] = {
		"mkfs-made", E4T_SEV_INFO, E4T_RULE_INODE,
		"crtime is the whole second of s_mkfs_time (or within the "
		"hour after it), no nanoseconds, and ctime is earlier: put "
		"there by mke2fs -d with the source's times",
		"images built with mke2fs -d (Yocto, Buildroot, Android); a "
		"raw write of crtime to that second looks the same",
	},
};

size_t e4t_rule_count(void)
{
	return R_COUNT;
}

const struct e4t_rule *e4t_rule(size_t i)
{
	return i < R_COUNT ? &rules[i] : NULL;
}

int e4t_rule_find(const char *id, size_t len)
{
	size_t i;

	for (i = 0; i < R_COUNT; i++)
		if (strlen(rules[i].id) == len && !memcmp(rules[i].id, id, len))
			return (int)i;
	return -1;
}

static const char *const sev_names[] = { "info", "medium", "strong" };

const char *e4t_severity_name(enum e4t_severity s)
{
	return (unsigned)s <= E4T_SEV_STRONG ? sev_names[s] : "?";
}

int e4t_severity_parse(const char *name)
{
	int i;

	for (i = 0; i <= E4T_SEV_STRONG; i++)
		if (!strcmp(name, sev_names[i]))
			return i;
	return -1;
}

#define SB_TIME(f) ((int64_t)(f) | ((int64_t)(f##_hi) << 32))

void e4t_rules_init(struct e4t_rules_ctx *rc, const struct ext2_super_block *sb)
{
	int64_t w = SB_TIME(sb->s_wtime), m = SB_TIME(sb->s_mtime);

	memset(rc, 0, sizeof(*rc));
	rc->mask = (R_COUNT >= 64) ? ~0ULL : (1ULL << R_COUNT) - 1;
	rc->mkfs_time = SB_TIME(sb->s_mkfs_time);
	rc->last_write = w;
	rc->last_write_what = "s_wtime";
	if (m > w) {
		rc->last_write = m;
		rc->last_write_what = "s_mtime";
	}
	rc->first_ino = EXT2_FIRST_INO(sb);
}

void e4t_rules_backup_sb(struct e4t_rules_ctx *rc)
{
	/* s_wtime and s_mtime are the primary's: a backup's are as old as
	 * mke2fs, resize2fs or e2fsck left them; the journal's commits
	 * (jrules.c) are still read */
	rc->last_write = 0;
	rc->last_write_what = NULL;
}

/* Stored, and (crtime) set: a zero crtime is one never written (tune2fs
 * -I made room for it), not an anomaly. */
static int have(const struct e4t_inode *in, enum e4t_field f)
{
	const struct e4t_ts *ts = &in->ts[f];

	if (!(ts->flags & E4T_TS_STORED))
		return 0;
	return f != E4T_CRTIME || !(ts->flags & E4T_TS_ZERO);
}

static int on(const struct e4t_rules_ctx *rc, unsigned r)
{
	return ((rc->mask >> r) & 1) != 0;
}

static void start(struct e4t_finding *f, unsigned r, const struct e4t_inode *in,
		  unsigned fields)
{
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->ino = in->ino;
	f->fields = fields;
	memcpy(f->ts, in->ts, sizeof(f->ts));
}

#define BIT(f) (1U << (f))

/* mke2fs -d sets crtime to its start (whole seconds; time(2) of each
 * inode in older e2fsprogs: within the hour) */
#define MKFS_WINDOW 3600

static int mkfs_second(const struct e4t_rules_ctx *rc, const struct e4t_ts *cr)
{
	return rc->mkfs_time > 0 && (cr->flags & E4T_TS_EXTRA) &&
	       cr->nsec == 0 && cr->sec >= rc->mkfs_time &&
	       cr->sec <= rc->mkfs_time + MKFS_WINDOW;
}

int e4t_rules_inode(const struct e4t_rules_ctx *rc, const struct e4t_inode *in,
		    const struct e4t_dir_nsec *dir, e4t_finding_fn fn,
		    void *priv)
{
	const struct e4t_ts *ts = in->ts;
	int cr = have(in, E4T_CRTIME), rc_ret;
	int mkfs = cr && mkfs_second(rc, &ts[E4T_CRTIME]);
	/* made by mke2fs -d (mkfs-made): every time but crtime the source's */
	int by_mkfs = mkfs && have(in, E4T_CTIME) &&
		      e4t_ts_cmp(&ts[E4T_CTIME], &ts[E4T_CRTIME]) < 0;
	struct e4t_finding f;

#define EMIT()                                                                 \
	do {                                                                   \
		rc_ret = fn(&f, priv);                                         \
		if (rc_ret)                                                    \
			return rc_ret;                                         \
	} while (0)

	if (on(rc, R_CRTIME_AFTER_CTIME) && cr && !mkfs &&
	    have(in, E4T_CTIME) &&
	    e4t_ts_cmp(&ts[E4T_CRTIME], &ts[E4T_CTIME]) > 0) {
		start(&f, R_CRTIME_AFTER_CTIME, in,
		      BIT(E4T_CRTIME) | BIT(E4T_CTIME));
		EMIT();
	}
	if (on(rc, R_CRTIME_BEFORE_MKFS) && cr && rc->mkfs_time > 0 &&
	    ts[E4T_CRTIME].sec < rc->mkfs_time) {
		start(&f, R_CRTIME_BEFORE_MKFS, in, BIT(E4T_CRTIME));
		f.ref = "mkfs_time";
		f.ref_sec = rc->mkfs_time;
		EMIT();
	}
	/* mke2fs makes the reserved inodes (root, lost+found...) with
	 * whole-second crtimes */
	if (on(rc, R_CRTIME_NSEC_ZERO) && cr && !mkfs &&
	    (ts[E4T_CRTIME].flags & E4T_TS_EXTRA) && ts[E4T_CRTIME].nsec == 0 &&
	    in->ino > rc->first_ino) {
		start(&f, R_CRTIME_NSEC_ZERO, in, BIT(E4T_CRTIME));
		EMIT();
	}
	if (on(rc, R_AFTER_LAST_WRITE) && rc->last_write > 0) {
		unsigned fields = 0;
		int k;

		for (k = E4T_ATIME; k <= E4T_CRTIME; k++)
			if (have(in, (enum e4t_field)k) &&
			    ts[k].sec > rc->last_write)
				fields |= BIT(k);
		if (fields) {
			start(&f, R_AFTER_LAST_WRITE, in, fields);
			f.ref = "last_write";
			f.ref_sec = rc->last_write;
			EMIT();
		}
	}
	if (on(rc, R_MTIME_AFTER_CTIME) && have(in, E4T_MTIME) &&
	    have(in, E4T_CTIME) &&
	    e4t_ts_cmp(&ts[E4T_MTIME], &ts[E4T_CTIME]) > 0) {
		start(&f, R_MTIME_AFTER_CTIME, in,
		      BIT(E4T_MTIME) | BIT(E4T_CTIME));
		EMIT();
	}
	if (on(rc, R_MTIME_NSEC_ZERO) && dir && in->ino > rc->first_ino &&
	    (ts[E4T_MTIME].flags & E4T_TS_EXTRA) && ts[E4T_MTIME].nsec == 0 &&
	    !by_mkfs &&
	    !e4t_copy_like(rc->copies, &ts[E4T_CRTIME], &ts[E4T_CTIME])) {
		/* the other entries: this one is counted, as a zero */
		uint32_t others = dir->entries ? dir->entries - 1 : 0;

		if (dir->nonzero && (uint64_t)dir->nonzero * 2 > others) {
			start(&f, R_MTIME_NSEC_ZERO, in, BIT(E4T_MTIME));
			f.dir = dir->dir;
			f.dir_entries = others;
			f.dir_nonzero = dir->nonzero;
			EMIT();
		}
	}
	if (on(rc, R_ATIME_EQ_MTIME) && (ts[E4T_ATIME].flags & E4T_TS_EXTRA) &&
	    (ts[E4T_MTIME].flags & E4T_TS_EXTRA) &&
	    e4t_ts_cmp(&ts[E4T_ATIME], &ts[E4T_MTIME]) == 0 &&
	    have(in, E4T_CTIME) &&
	    e4t_ts_cmp(&ts[E4T_CTIME], &ts[E4T_MTIME]) > 0 &&
	    !(cr && e4t_ts_cmp(&ts[E4T_CRTIME], &ts[E4T_MTIME]) == 0) &&
	    !by_mkfs &&
	    !e4t_copy_like(rc->copies, &ts[E4T_CRTIME], &ts[E4T_CTIME])) {
		start(&f, R_ATIME_EQ_MTIME, in,
		      BIT(E4T_ATIME) | BIT(E4T_MTIME) | BIT(E4T_CTIME));
		EMIT();
	}
	if (on(rc, R_CRTIME_AFTER_MTIME) && cr && have(in, E4T_MTIME) &&
	    e4t_ts_cmp(&ts[E4T_CRTIME], &ts[E4T_MTIME]) > 0) {
		start(&f, R_CRTIME_AFTER_MTIME, in,
		      BIT(E4T_CRTIME) | BIT(E4T_MTIME));
		EMIT();
	}
	if (on(rc, R_MKFS_MADE) && mkfs && in->ino > rc->first_ino &&
	    have(in, E4T_CTIME) &&
	    e4t_ts_cmp(&ts[E4T_CTIME], &ts[E4T_CRTIME]) < 0) {
		start(&f, R_MKFS_MADE, in, BIT(E4T_CRTIME) | BIT(E4T_CTIME));
		f.ref = "mkfs_time";
		f.ref_sec = rc->mkfs_time;
		EMIT();
	}
#undef EMIT
	return 0;
}
