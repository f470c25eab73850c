/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exit_status.c --- one table from condition to exit status, in the
 * spirit of e2fsck's problem.c: each condition carries the status it
 * gives and the words that e4time(8) says of it (EXIT STATUS there is
 * this table: tests/test_status.sh checks that they agree), and the
 * functions that tell which condition an error is.
 *
 * A run's status is the worst (largest) of the conditions it met.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "cmd.h"

const struct condition conditions[COND_COUNT] = {
	[COND_DAMAGE] = { EXIT_PARTIAL, "damage",
			  "a damaged inode (checksum, impossible "
			  "i_extra_isize), a damaged or unreadable directory, "
			  "a directory loop or an unreadable inode table (or "
			  "a block of one: its inodes are lost, the rest is "
			  "listed)" },
	[COND_DANGLING] = { EXIT_PARTIAL, "dangling",
			    "a directory entry that names an inode not in "
			    "use" },
	[COND_IMAGE_DAMAGE] = { EXIT_PARTIAL, "image-damage",
				"a superblock or group descriptor checksum "
				"that does not verify, a primary superblock "
				"unusable (a backup was read), an image "
				"shorter than its filesystem, or, for "
				"volumes, an LVM2 physical volume whose "
				"metadata cannot be read" },
	[COND_JOURNAL_DAMAGE] = { EXIT_PARTIAL, "journal-damage",
				  "a journal block or transaction that does "
				  "not verify; for anomalies, a journal that "
				  "cannot be opened or read (the inode rules "
				  "still run)" },
	[COND_FILESPEC] = { EXIT_PARTIAL, "filespec",
			    "a FILESPEC (or the --reference of set) that is "
			    "malformed, not found, not a directory before a "
			    "slash, out of range, or not in use" },
	[COND_NO_FIELD] = { EXIT_PARTIAL, "no-field",
			    "for set, a reference that does not store a field "
			    "to copy: nothing is then written" },
	[COND_SOURCE] = { EXIT_PARTIAL, "source",
			  "for backfill, an inode or xattr that could not be "
			  "read (but not an invalid value)" },
	[COND_AMBIGUOUS] = { EXIT_PARTIAL, "ambiguous",
			     "for import, a manifest entry that is "
			     "ambiguous, or an inode refused" },
	[COND_NULL_TIMES] = { EXIT_NULL_TIMES, "null-times",
			      "for import, a matched entry whose time of a "
			      "field imported is null or missing: that time "
			      "was neither compared nor set" },
	[COND_LEFT_OUT] = { EXIT_LEFT_OUT, "left-out",
			    "for import, a manifest entry left out: "
			    "unmatched (no such path or inode in the image), "
			    "or under no OLD of --map or --strip-prefix" },
	[COND_NOTHING] = { EXIT_NOTHING, "nothing-compared",
			   "for import, no entry compared with an inode: an "
			   "empty manifest, or every entry left out, "
			   "ambiguous, refused or without a time" },
	[COND_USAGE] = { EXIT_USAGE, "usage",
			 "an unknown command or option, a missing argument, "
			 "the wrong number of arguments, or a bad number, "
			 "format, field, time, policy or source" },
	[COND_MANIFEST] = { EXIT_USAGE, "manifest",
			    "for import, a manifest that cannot be read or "
			    "holds a malformed line: nothing is then "
			    "written" },
	[COND_OPEN] = { EXIT_IMAGE, "open",
			"the image could not be opened (missing, unreadable, "
			"a directory, empty, or shorter than the offset)" },
	[COND_NOT_EXT] = { EXIT_IMAGE, "not-ext",
			   "no ext2, ext3 or ext4 filesystem at that "
			   "offset (no good primary or backup superblock, "
			   "or none at the block -b names), in the volume "
			   "--volume names, or in any volume of the image" },
	[COND_CONTAINER] = { EXIT_IMAGE, "container",
			     "an evidence container that cannot be read: "
			     "damaged, a missing or short piece or parent, "
			     "or a format this build lacks" },
	[COND_VOLUME] = { EXIT_USAGE, "volume",
			  "several ext2, ext3 or ext4 volumes and no "
			  "--volume, or a --volume that names none or "
			  "several (two LVs or partitions of one name)" },
	[COND_INDEX] = { EXIT_IMAGE, "index",
			 "the filesystem could not be indexed" },
	[COND_JOURNAL] = { EXIT_IMAGE, "journal",
			   "a journal that cannot be opened or read (for the "
			   "commands that read it)" },
	[COND_NOMEM] = { EXIT_INTERNAL, "nomem", "out of memory" },
	[COND_OUTPUT] = { EXIT_INTERNAL, "output",
			  "a write error on standard output" },
	[COND_WRITE] = { EXIT_INTERNAL, "write",
			 "an error while writing the image or closing it, or "
			 "an undo file that could not be written: the command "
			 "stops, what was written before stays, and the undo "
			 "file restores it" },
	[COND_IN_USE] = { EXIT_REFUSED, "in-use",
			  "the filesystem is mounted or in use (a device over "
			  "its bytes, MMP), or another e4time is writing to "
			  "it" },
	[COND_READ_ONLY] = { EXIT_REFUSED, "read-only",
			     "the image file or device cannot be opened for "
			     "writing (permissions, a read-only file system)" },
	[COND_UNSAFE] = { EXIT_REFUSED, "unsafe",
			  "the filesystem is unrecovered, flagged as having "
			  "errors, or damaged (checksums, short image), or "
			  "read through a backup superblock" },
	[COND_UNDO] = { EXIT_REFUSED, "undo",
			"no usable undo file: the undo directory or file "
			"cannot take it, or the undo file of an interrupted "
			"run is in the way" },
	[COND_EVIDENCE_WRITE] = { EXIT_REFUSED, "evidence",
				  "for the writing commands, an image in an "
				  "evidence container (EWF, qcow2, VMDK, VHD), "
				  "or a logical volume with a segment before "
				  "its first in the image (an undo file could "
				  "not restore it) or read through one leg of "
				  "a raid1 or mirror volume: e4time writes raw "
				  "images only" },
	[COND_HASH] = { EXIT_PARTIAL, "hash",
			"with --verify-container, a stored hash that does "
			"not match the data" },
	[COND_TARGET] = { EXIT_REFUSED, "target",
			  "for set, an inode that cannot take one of the "
			  "times" },
	[COND_DIR] = { EXIT_IMAGE, "dir",
		       "for export --from-dir, a directory that cannot be "
		       "opened or read" },
	[COND_DIR_READ] = { EXIT_PARTIAL, "dir-read",
			    "for export --from-dir, a name below the "
			    "directory that could not be read (statx, or a "
			    "directory that cannot be opened or read)" },
	[COND_DISAGREE] = { EXIT_PARTIAL, "disagree",
			    "for import -n, a matched entry whose times the "
			    "image does not already hold to the nanosecond" },
};

const char *const exit_status_words[] = {
	[EXIT_OK] = "success",
	[EXIT_PARTIAL] = "output produced, something unread or not found",
	[EXIT_USAGE] = "usage error",
	[EXIT_IMAGE] = "the image could not be read",
	[EXIT_INTERNAL] = "internal error",
	[EXIT_REFUSED] = "a write was refused; nothing was written",
	[EXIT_NULL_TIMES] = "import: entries matched without a time",
	[EXIT_LEFT_OUT] = "import: entries left out",
	[EXIT_NOTHING] = "import: nothing compared",
};

int cond_status(enum cond c)
{
	return conditions[c].status;
}

enum cond cond_of_refusal(errcode_t err, const char *image)
{
	switch (err) {
	case E4T_ERR_MOUNTED:
	case E4T_ERR_BUSY:
	case E4T_ERR_MMP:
	case E4T_ERR_HELD:
	case E4T_ERR_IMAGE_CHANGED:
	case E4T_ERR_LOCKED: return COND_IN_USE;
	case E4T_ERR_NEEDS_RECOVERY:
	case E4T_ERR_WRITE_NEEDS_RECOVERY:
	case E4T_ERR_FS_ERRORS:
	case E4T_ERR_SB_CSUM:
	case E4T_ERR_BACKUP_SB:
	case E4T_ERR_GD_CSUM:
	case E4T_ERR_TRUNCATED: return COND_UNSAFE;
	case E4T_ERR_UNDO_DIR:
	case E4T_ERR_UNDO_LEFTOVER:
	case E4T_ERR_UNDO_PATH:
	case E4T_ERR_UNDO_NOT_REG:
	case E4T_ERR_UNDO_NOT_UNDO:
	case E4T_ERR_UNDO_IS_INPUT:
	case E4T_ERR_UNDO_BUSY:
	case E4T_ERR_UNDO_NO_SPACE: return COND_UNDO;
	case ENOMEM: return COND_NOMEM;
	case EACCES:
	case EPERM:
	case EROFS:
		/* readable but not writable: the write is refused; an image
		 * that cannot be read either is one that cannot be opened */
		return access(image, R_OK) == 0 ? COND_READ_ONLY : COND_OPEN;
	case E4T_ERR_NOT_EXT:
	case E4T_ERR_OFFSET: return COND_NOT_EXT;
	case E4T_ERR_CONTAINER_READONLY:
	case E4T_ERR_VOLUME_LAYOUT: return COND_EVIDENCE_WRITE;
	default: return COND_OPEN;
	}
}

int filespec_status(errcode_t err)
{
	switch (err) {
	case E4T_ERR_NOT_FOUND:
	case E4T_ERR_FILESPEC:
	case E4T_ERR_INO_RANGE:
	case E4T_ERR_NOT_IN_USE:
	case E4T_ERR_NOT_DIR:
	case EXT2_ET_SYMLINK_LOOP: return cond_status(COND_FILESPEC);
	case ENOMEM: return cond_status(COND_NOMEM);
	default: return cond_status(COND_DAMAGE);
	}
}

int run_error_status(errcode_t err)
{
	switch (err) {
	case E4T_ERR_NOT_FOUND:
	case E4T_ERR_FILESPEC:
	case E4T_ERR_INO_RANGE:
	case E4T_ERR_NOT_IN_USE:
	case E4T_ERR_NOT_DIR:
	case EXT2_ET_SYMLINK_LOOP: return cond_status(COND_FILESPEC);
	case ENOMEM: return cond_status(COND_NOMEM);
	default: return cond_status(COND_WRITE);
	}
}

void print_exit_statuses(FILE *fp)
{
	static const int order[] = { EXIT_OK,	      EXIT_PARTIAL,
				     EXIT_USAGE,      EXIT_IMAGE,
				     EXIT_INTERNAL,   EXIT_REFUSED,
				     EXIT_NULL_TIMES, EXIT_LEFT_OUT,
				     EXIT_NOTHING };
	size_t i, c;

	fprintf(fp, "Exit status: the worst (largest) of the conditions a "
		    "run met.\n");
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		fprintf(fp, "\n%2d  %s\n", order[i],
			exit_status_words[order[i]]);
		for (c = 0; c < COND_COUNT; c++)
			if (conditions[c].status == order[i])
				fprintf(fp, "    %-15s %s\n",
					conditions[c].name, conditions[c].text);
	}
}
