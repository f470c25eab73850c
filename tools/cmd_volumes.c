/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_volumes.c --- e4time volumes: what an image holds, as mmls and
 * lsblk -f show it: partitions (MBR, GPT), LVM2 logical volumes, and
 * what each holds (an ext2/3/4 filesystem's UUID, label, last mount
 * point and times, or the other filesystem's name).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report.h"

static void volumes_help(FILE *fp)
{
	fprintf(fp,
		"Usage: %s volumes [OPTIONS] IMAGE\n\n"
		"List the volumes of IMAGE (a raw image or device, split "
		"raw, E01, qcow2,\nVMDK, VHD/VHDX): partitions, LVM2 logical "
		"volumes, and what each holds.\nThe first column is what "
		"--volume takes (so do NAME, a GPT partition's\nname or "
		"PARTUUID).\n\n"
		"Options:\n"
		"  -f, --format FMT       text (default), jsonl or csv\n"
		"      --local            local time instead of UTC (text)\n"
		"  --verify-container, -q, -h    as for every command "
		"(see e4time(8))\n",
		progname);
}

/* clang-format off */
static const char *const keys[] = {
	"index", "name", "parent", "scheme", "type", "start", "length",
	"extents", "part_name", "part_uuid", "fs", "uuid", "label",
	"last_mounted_on", "mount_time", "write_time", "note", NULL
};
/* clang-format on */
static const struct rec_schema schema = { .row = "volume", .cols = keys };

static const char *note_of(const struct e4t_vol *v)
{
	if (v->refused)
		return v->refused;
	if (v->note[0])
		return v->note;
	if (e4t_vol_is_ext(v) || v->probe.content == E4T_FS_LVM_PV)
		return NULL;
	return e4t_content_advice(v->probe.content);
}

static void rec_volume(struct report *r, const struct e4t_vol *v, int local)
{
	int ext = v->probe.content == E4T_FS_EXT ||
		  v->probe.content == E4T_FS_JOURNAL_DEV;

	rec_begin(r, "volume");
	rec_u64(r, "index", v->index);
	rec_cstr(r, "name", v->name);
	if (v->parent)
		rec_u64(r, "parent", (uint64_t)v->parent);
	else
		rec_null(r, "parent");
	rec_cstr(r, "scheme", v->scheme);
	rec_cstr(r, "type", v->type);
	rec_u64(r, "start", v->start);
	rec_u64(r, "length", v->length);
	rec_u64(r, "extents", v->view.next ? v->view.next : 1);
	rec_cstr(r, "part_name", v->part_name[0] ? v->part_name : NULL);
	rec_cstr(r, "part_uuid", v->part_uuid[0] ? v->part_uuid : NULL);
	rec_cstr(r, "fs", v->refused ? NULL : v->probe.name);
	rec_cstr(r, "uuid", v->probe.uuid[0] ? v->probe.uuid : NULL);
	rec_cstr(r, "label", v->probe.label[0] ? v->probe.label : NULL);
	rec_cstr(r, "last_mounted_on",
		 ext && v->probe.last_mounted[0] ? v->probe.last_mounted
						 : NULL);
	rec_epoch(r, "mount_time", ext ? v->probe.mtime : 0, local);
	rec_epoch(r, "write_time", ext ? v->probe.wtime : 0, local);
	rec_cstr(r, "note", note_of(v));
	rec_end(r);
}

/* Text: one line a volume, as mmls; what it holds after. */
static void text_volume(const struct e4t_vol *v)
{
	const char *note = note_of(v);

	/* "empty" and "unknown" say no more than their note */
	int bare = v->refused || v->probe.content == E4T_FS_EMPTY ||
		   v->probe.content == E4T_FS_UNKNOWN;

	printf("%-3u %*s%-*s %14llu %14llu  %-24s %s", v->index,
	       (int)v->depth * 2, "", 14 - (int)v->depth * 2, v->name,
	       (unsigned long long)v->start, (unsigned long long)v->length,
	       v->type, bare ? "" : v->probe.name);
	if (v->probe.label[0])
		printf(" \"%s\"", v->probe.label);
	if (v->probe.uuid[0])
		printf(" %s", v->probe.uuid);
	if (v->probe.content == E4T_FS_EXT) {
		char when[E4T_ISO_BUFSZ];

		if (v->probe.last_mounted[0])
			printf(" last mounted on %s", v->probe.last_mounted);
		if (v->probe.mtime) {
			e4t_iso8601(v->probe.mtime, 0, 0, 'T', INT32_MIN, when,
				    sizeof(when));
			printf(" at %s", when);
		}
		if (v->probe.wtime) {
			e4t_iso8601(v->probe.wtime, 0, 0, 'T', INT32_MIN, when,
				    sizeof(when));
			printf(", written %s", when);
		}
	}
	if (note)
		printf(bare ? "%s" : " (%s)", note);
	putchar('\n');
}

/*
 * The ext2/3/4 filesystems that run past their volume's end, and the
 * partitions past the image's: said, with the split piece expected
 * next when the image is split raw's first piece; how many.
 */
static unsigned say_short(const char *name, const struct e4t_volumes *vs,
			  int quiet)
{
	char *missing = NULL;
	unsigned i, n = 0;

	if (e4t_split_missing(name, &missing))
		missing = NULL;
	for (i = 0; i < vs->n; i++) {
		const struct e4t_vol *v = &vs->v[i];
		int outside = v->refused && v->scheme &&
			      strcmp(v->scheme, "LVM2") &&
			      !strcmp(v->refused, "partition outside the disk");

		if (!outside && (v->refused || v->probe.content != E4T_FS_EXT ||
				 v->probe.fs_size <= v->length))
			continue;
		if (n++, quiet)
			continue;
		if (outside)
			warnx_img(name,
				  "%s: the partition runs past the "
				  "image's end%s%s%s",
				  v->name, missing ? ": the split piece " : "",
				  missing ? missing : "",
				  missing ? " is missing" : "");
		else
			warnx_img(name,
				  "%s: %s: its %s filesystem is %llu bytes, "
				  "the volume %llu%s%s%s",
				  v->name, error_message(E4T_ERR_TRUNCATED),
				  v->probe.name,
				  (unsigned long long)v->probe.fs_size,
				  (unsigned long long)v->length,
				  missing ? ": the split piece " : "",
				  missing ? missing : "",
				  missing ? " is missing" : "");
	}
	free(missing);
	return n;
}

static int volumes_run(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct e4t_volumes *vs;
	struct e4t_container *c;
	struct evidence *ev;
	struct report r;
	unsigned i;
	int status, damaged;

	(void)argc;
	ev = evidence_container(argv[0], ctx->co.quiet, &status);
	if (!ev)
		return status;
	status = evidence_scan(ev);
	if (status) {
		evidence_close(ev);
		return status;
	}
	vs = evidence_volumes(ev);
	c = evidence_of(ev);
	/* a PV whose metadata cannot be read hides its LVs (warned) */
	damaged = vs->bad_pvs ? cond_status(COND_IMAGE_DAMAGE) : EXIT_OK;
	if (say_short(argv[0], vs, ctx->co.quiet))
		damaged = cond_status(COND_IMAGE_DAMAGE);
	if (ctx->format == RF_TEXT) {
		printf("%s: %s, %llu bytes", argv[0], c->kind_name,
		       (unsigned long long)c->size);
		if (c->pieces > 1)
			printf(" in %u pieces", c->pieces);
		printf("\n%-3s %-14s %14s %14s  %-24s %s\n", "#", "NAME",
		       "START", "LENGTH", "TYPE", "HOLDS");
		for (i = 0; i < vs->n; i++)
			text_volume(&vs->v[i]);
		status = finish_stdout(damaged);
	} else {
		report_init(&r, (enum report_format)ctx->format, stdout,
			    &schema);
		for (i = 0; i < vs->n; i++)
			rec_volume(&r, &vs->v[i], ctx->local);
		status = report_finish(&r) ? report_failed() : damaged;
	}
	evidence_close(ev);
	return status;
}

const struct cmdinfo volumes_cmd = {
	.name = "volumes",
	.args = "[OPTIONS] IMAGE",
	.oneline = "list partitions and LVM volumes, and what they hold",
	.flags = CMD_FORMATS | CMD_LOCAL,
	.formats = RF_MASK(RF_TEXT) | RF_MASK(RF_JSONL) | RF_MASK(RF_CSV),
	.argmin = 1,
	.argmax = 1,
	.argerr = "give one IMAGE",
	.run = volumes_run,
	.help = volumes_help,
};
