/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evidence.c --- the IMAGE argument as examiners hold it: an evidence
 * container (raw, split raw, E01, qcow2, VMDK, VHD/VHDX), the volume in
 * it (--volume, or the only ext2/3/4 one), the filesystem at -o inside
 * that.  Every command that opens an image comes through here
 * (context.c), and `e4time volumes` lists what the scan finds.
 *
 * A raw image whose start is ext2/3/4, or unknown, or given with -o, is
 * opened as before: the file at the offset, nothing scanned.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

struct evidence {
	struct e4t_container *c;
	struct e4t_volumes vols;
	struct e4t_view whole; /* the container, when not raw */
	const char *name;
	int quiet;
	int scanned;		    /* vols holds the volumes */
	int hash_bad;		    /* --verify-container found a mismatch */
	const struct e4t_vol *used; /* what evidence_use chose, or NULL */
};

void evidence_close(struct evidence *ev)
{
	if (!ev)
		return;
	e4t_volumes_free(&ev->vols);
	e4t_container_close(ev->c);
	free(ev);
}

static void scan_warn(void *arg, const char *msg)
{
	const struct evidence *ev = arg;

	if (!ev->quiet)
		warnx_img(ev->name, "%s", msg);
}

/*
 * E4TIME_CACHE_MB: the size of the container's block cache in MiB (0:
 * none), for the formats that have one (EWF, qcow, VMDK, VHD/VHDX).
 * Unset, empty or not a number: the default (a warning for the last).
 */
static void cache_size(struct evidence *ev)
{
	const char *s = getenv("E4TIME_CACHE_MB");
	unsigned long long mb;
	char *end;

	if (!s || !*s || !ev->c->cache)
		return;
	errno = 0;
	mb = strtoull(s, &end, 10);
	if (errno || *end || *s == '-' || mb > (1ULL << 20)) {
		if (!ev->quiet)
			warnx_img(ev->name,
				  "E4TIME_CACHE_MB=%s: not a size in MiB "
				  "(0 to %llu): the default %u MiB is used",
				  s, 1ULL << 20, E4T_CACHE_DEFAULT_MB);
		return;
	}
	if (e4t_container_set_cache(ev->c, mb << 20) && !ev->quiet)
		warnx_img(ev->name,
			  "E4TIME_CACHE_MB=%s: %s: the default is kept", s,
			  error_message(ENOMEM));
}

struct evidence *evidence_container(const char *name, int quiet, int *status)
{
	struct evidence *ev = calloc(1, sizeof(*ev));
	char *what = NULL;
	errcode_t err;

	*status = EXIT_OK;
	if (!ev) {
		report(name, NULL, ENOMEM);
		*status = cond_status(COND_NOMEM);
		return NULL;
	}
	ev->name = name;
	ev->quiet = quiet;
	err = e4t_container_open(name, &ev->c, &what);
	if (err || !ev->c) {
		report(name, what, err);
		free(what);
		free(ev);
		if (err == E4T_ERR_CONTAINER ||
		    err == E4T_ERR_CONTAINER_UNSUPPORTED ||
		    err == E4T_ERR_CONTAINER_PIECE ||
		    err == E4T_ERR_CONTAINER_NOT_FILE ||
		    err == E4T_ERR_CONTAINER_DEPTH ||
		    err == E4T_ERR_CONTAINER_PARENT_ID ||
		    err == E4T_ERR_CONTAINER_SEGMENT_SHORT ||
		    err == E4T_ERR_CONTAINER_OUTSIDE ||
		    err == E4T_ERR_VMDK_EXTENT_DIR)
			*status = cond_status(COND_CONTAINER);
		else
			*status = cond_status(err == ENOMEM ? COND_NOMEM
							    : COND_OPEN);
		return NULL;
	}
	if (!ev->c->size) {
		report(name, NULL, E4T_ERR_CONTAINER_EMPTY);
		evidence_close(ev);
		*status = cond_status(COND_CONTAINER);
		return NULL;
	}
	cache_size(ev);
	return ev;
}

int evidence_scan(struct evidence *ev)
{
	errcode_t err;

	if (ev->scanned)
		return EXIT_OK;
	err = e4t_volumes_scan(ev->c, &ev->vols, scan_warn, ev);
	ev->scanned = !err;
	if (err) {
		report(ev->name, "reading its volumes", err);
		return cond_status(err == ENOMEM ? COND_NOMEM : COND_CONTAINER);
	}
	return EXIT_OK;
}

const struct e4t_volumes *evidence_volumes(const struct evidence *ev)
{
	return &ev->vols;
}

struct e4t_container *evidence_of(const struct evidence *ev)
{
	return ev->c;
}

int evidence_hash_bad(const struct evidence *ev)
{
	return ev && ev->hash_bad;
}

const char *evidence_one_leg(const struct evidence *ev)
{
	return ev && ev->used && ev->used->note[0] ? ev->used->note : NULL;
}

/* "1 (p1), 3 (vg0/root)": the ext2/3/4 volumes, to choose from. */
static void say_choices(const struct evidence *ev)
{
	const struct e4t_volumes *vs = &ev->vols;
	unsigned i, n = 0;

	progress_done();
	fprintf(stderr, "%s: %s: %s:", progname, ev->name,
		error_message(E4T_ERR_VOLUME_CHOICE));
	for (i = 0; i < vs->n; i++)
		if (e4t_vol_is_ext(&vs->v[i]))
			fprintf(stderr, "%s %u (%s)", n++ ? "," : "",
				vs->v[i].index, vs->v[i].name);
	fputc('\n', stderr);
}

/* "3 (LV UUID ...), 5 (LV UUID ...)": the volumes spec names. */
static void say_ambiguous(const struct evidence *ev, const char *spec)
{
	const struct e4t_volumes *vs = &ev->vols;
	const struct e4t_vol *first = NULL;
	unsigned i, n = 0;

	progress_done();
	fprintf(stderr, "%s: %s: --volume '%s': %s:", progname, ev->name, spec,
		error_message(E4T_ERR_VOLUME_AMBIGUOUS));
	if (e4t_volumes_pick(vs, spec, &first) != E4T_ERR_VOLUME_AMBIGUOUS)
		first = NULL;
	for (i = 0; first && i < vs->n; i++) {
		const struct e4t_vol *v = &vs->v[i];
		struct e4t_volumes one = { vs->c, 0, 1, &vs->v[i] };
		const struct e4t_vol *hit;
		errcode_t err = e4t_volumes_pick(&one, spec, &hit);

		if (err == E4T_ERR_NO_VOLUME)
			continue;
		fprintf(stderr, "%s %u (%s%s%s%s)", n++ ? "," : "", v->index,
			v->lv_uuid[0]	  ? "LV UUID "
			: v->part_uuid[0] ? "PARTUUID "
					  : "",
			v->lv_uuid[0]	  ? v->lv_uuid
			: v->part_uuid[0] ? v->part_uuid
					  : v->name,
			e4t_vol_is_ext(v) ? ", " : "",
			e4t_vol_is_ext(v) ? v->probe.name : "");
	}
	fputc('\n', stderr);
}

/* Why v cannot be read: "p3: LUKS2 encrypted: open it ...". */
static void say_not_ext(const struct evidence *ev, const struct e4t_vol *v)
{
	char *missing = NULL;

	/* past the end of split raw's last piece: the next one is named */
	if (v->refused && !strcmp(v->refused, "partition outside the disk") &&
	    !e4t_split_missing(ev->name, &missing) && missing)
		warnx_img(ev->name, "%s: %s: %s: the split piece %s is missing",
			  v->name, error_message(E4T_ERR_VOLUME_REFUSED),
			  v->refused, missing);
	else if (v->refused)
		warnx_img(ev->name, "%s: %s: %s", v->name,
			  error_message(E4T_ERR_VOLUME_REFUSED), v->refused);
	else
		warnx_img(ev->name, "%s: %s", v->name,
			  e4t_content_advice(v->probe.content));
	free(missing);
}

/* No ext2/3/4 volume: name what there is, in one line. */
static void say_none(const struct evidence *ev)
{
	const struct e4t_volumes *vs = &ev->vols;
	unsigned i, n = 0;

	progress_done();
	fprintf(stderr, "%s: %s: %s", progname, ev->name,
		error_message(E4T_ERR_NO_EXT_VOLUME));
	for (i = 0; i < vs->n; i++) {
		const struct e4t_vol *v = &vs->v[i];

		if (v->probe.content == E4T_FS_LVM_PV)
			continue; /* its LVs are listed */
		fprintf(stderr, "%s %s: %s", n++ ? ";" : ":", v->name,
			v->refused ? v->refused
				   : e4t_content_advice(v->probe.content));
	}
	fputc('\n', stderr);
}

static int pick(struct evidence *ev, const char *spec, const struct e4t_vol **v)
{
	errcode_t err = e4t_volumes_pick(&ev->vols, spec, v);

	switch (err) {
	case 0: return EXIT_OK;
	case E4T_ERR_VOLUME_CHOICE:
		say_choices(ev);
		return cond_status(COND_VOLUME);
	case E4T_ERR_VOLUME_AMBIGUOUS:
		say_ambiguous(ev, spec);
		return cond_status(COND_VOLUME);
	case E4T_ERR_NO_VOLUME:
		warnx_img(ev->name, "--volume '%s': %s", spec,
			  error_message(err));
		return cond_status(COND_VOLUME);
	case E4T_ERR_NO_EXT_VOLUME:
		say_none(ev);
		return cond_status(COND_NOT_EXT);
	default: say_not_ext(ev, *v); return cond_status(COND_NOT_EXT);
	}
}

/* Is the start of the raw image something to scan for volumes? */
static int has_volumes(struct evidence *ev)
{
	struct e4t_view whole = { ev->c, ev->c->size, 0, 0, NULL };
	struct e4t_probe p;

	if (e4t_probe(&whole, &p))
		return 0;
	return p.content != E4T_FS_EXT && p.content != E4T_FS_UNKNOWN &&
	       p.content != E4T_FS_EMPTY && p.content != E4T_FS_JOURNAL_DEV;
}

int evidence_open(const char *name, const struct common_opts *co,
		  struct evidence **evp, uint64_t *offset,
		  const struct e4t_view **view)
{
	struct evidence *ev;
	int status;

	*view = NULL;
	ev = evidence_container(name, co->quiet, &status);
	*evp = ev;
	if (!ev)
		return status;
	if (co->verify)
		evidence_verify(ev, co->quiet);
	return evidence_use(ev, co, offset, view);
}

void evidence_verify(struct evidence *ev, int quiet)
{
	const char *name = ev->name;
	char msg[256] = "";
	errcode_t err = ev->c->ops->verify
				? ev->c->ops->verify(ev->c, msg, sizeof(msg))
				: E4T_ERR_CONTAINER_NO_HASH;

	if (err)
		warnx_img(name, "%s%s%s", error_message(err),
			  msg[0] ? ": " : "", msg);
	else if (!quiet)
		warnx_img(name, "%s verified: %s", ev->c->kind_name,
			  msg[0] ? msg : "stored hashes match");
	ev->hash_bad = err && err != E4T_ERR_CONTAINER_NO_HASH;
}

int evidence_use(struct evidence *ev, const struct common_opts *co,
		 uint64_t *offset, const struct e4t_view **view)
{
	const char *name = ev->name;
	const struct e4t_vol *v = NULL;
	int status;

	*view = NULL;
	*offset = co->offset;
	ev->used = NULL;
	if (!co->volume && (co->offset_set || !has_volumes(ev))) {
		/* the image as before: the file, or the whole container */
		if (ev->c->kind != E4T_C_RAW) {
			ev->whole.c = ev->c;
			ev->whole.size = ev->c->size;
			*view = &ev->whole;
		}
		return EXIT_OK;
	}
	status = evidence_scan(ev);
	if (!status)
		status = pick(ev, co->volume, &v);
	if (status)
		return status;
	ev->used = v;
	if (!co->volume && !co->quiet)
		warnx_img(name, "volume %u (%s): %s%s%s%s", v->index, v->name,
			  v->probe.name, v->probe.label[0] ? " \"" : "",
			  v->probe.label, v->probe.label[0] ? "\"" : "");
	if (v->note[0] && !co->quiet) /* raid1, mirror: the leg read */
		warnx_img(name, "%s: %s", v->name, v->note);
	if (ev->c->kind == E4T_C_RAW && !v->view.next)
		*offset = v->view.base + co->offset; /* the file, as before */
	else
		*view = &v->view;
	return EXIT_OK;
}
