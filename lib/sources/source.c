/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.c --- "--from SOURCE" specs: which xattrs to read, and how to
 * decode them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sources/sources.h"

#define XATTR_NAME_MAX_LEN 255 /* Linux XATTR_NAME_MAX */

enum src_kind { SRC_DOSATTRIB, SRC_NETATALK, SRC_SYSTEMD, SRC_XATTR };

struct e4t_source {
	enum src_kind kind;
	enum e4t_text_format fmt; /* SRC_XATTR */
	char *spec;		  /* SRC_XATTR: the whole spec */
	char *name;		  /* SRC_XATTR: the xattr name */
	const char *names[3];
};

static const struct {
	const char *spec;
	enum src_kind kind;
	const char *names[2];
} fixed[] = {
	{ "dosattrib", SRC_DOSATTRIB, { "user.DOSATTRIB", "user.DosAttrib" } },
	{ "netatalk", SRC_NETATALK, { "user.org.netatalk.Metadata", NULL } },
	{ "systemd", SRC_SYSTEMD, { "user.crtime_usec", NULL } },
};

static const struct {
	const char *name;
	enum e4t_text_format fmt;
} formats[] = {
	{ "epoch", E4T_TF_EPOCH },
	{ "iso8601", E4T_TF_ISO8601 },
	{ "usec-le", E4T_TF_USEC_LE },
	{ "nttime-le", E4T_TF_NTTIME_LE },
};

static const char *const namespaces[] = { "user.", "trusted.", "security.",
					  "system." };

const char *e4t_source_spec_help(void)
{
	return "dosattrib, netatalk, systemd, or xattr:NAME:FORMAT with NAME a "
	       "full xattr name (user.birth) and FORMAT one of epoch, iso8601, "
	       "usec-le, nttime-le";
}

static int valid_xattr_name(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > XATTR_NAME_MAX_LEN)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 0;
	for (i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++) {
		size_t n = strlen(namespaces[i]);

		if (len > n && strncmp(name, namespaces[i], n) == 0)
			return 1;
	}
	return 0;
}

errcode_t e4t_source_parse(const char *spec, struct e4t_source **ret)
{
	struct e4t_source *src;
	const char *name, *colon;
	size_t i, nlen;
	int fmt = -1;

	*ret = NULL;
	if (!spec)
		return EINVAL;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (strcmp(spec, fixed[i].spec) != 0)
			continue;
		src = calloc(1, sizeof(*src));
		if (!src)
			return ENOMEM;
		src->kind = fixed[i].kind;
		src->names[0] = fixed[i].names[0];
		src->names[1] = fixed[i].names[1];
		*ret = src;
		return 0;
	}
	if (strncmp(spec, "xattr:", 6) != 0)
		return EINVAL;
	name = spec + 6;
	colon = strrchr(name, ':'); /* names may hold ':', formats do not */
	if (!colon)
		return EINVAL;
	nlen = (size_t)(colon - name);
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(colon + 1, formats[i].name) == 0)
			fmt = (int)formats[i].fmt;
	if (fmt < 0 || !valid_xattr_name(name, nlen))
		return EINVAL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return ENOMEM;
	src->kind = SRC_XATTR;
	src->fmt = (enum e4t_text_format)fmt;
	src->spec = strdup(spec);
	src->name = strndup(name, nlen);
	if (!src->spec || !src->name) {
		e4t_source_free(src);
		return ENOMEM;
	}
	src->names[0] = src->name;
	*ret = src;
	return 0;
}

void e4t_source_free(struct e4t_source *src)
{
	if (!src)
		return;
	free(src->spec);
	free(src->name);
	free(src);
}

const char *e4t_source_name(const struct e4t_source *src)
{
	switch (src->kind) {
	case SRC_DOSATTRIB: return "dosattrib";
	case SRC_NETATALK: return "netatalk";
	case SRC_SYSTEMD: return "systemd";
	case SRC_XATTR: return src->spec;
	}
	return "?";
}

const char *const *e4t_source_xattrs(const struct e4t_source *src)
{
	return src->names;
}

enum e4t_src_status e4t_source_decode(const struct e4t_source *src,
				      const char *xattr_name, const void *val,
				      size_t len, struct e4t_src_time *out)
{
	size_t i;

	if (xattr_name) {
		for (i = 0; src->names[i]; i++)
			if (strcmp(xattr_name, src->names[i]) == 0)
				break;
		if (!src->names[i]) {
			out->sec = 0;
			out->nsec = 0;
			out->version = 0;
			out->why = "not an xattr this source reads";
			return E4T_SRC_INVALID;
		}
	} else {
		i = 0;
	}
	switch (src->kind) {
	case SRC_DOSATTRIB:
		/* user.DosAttrib is Samba4 ntvfs': no attribute string */
		if (i == 1)
			return e4t_dosattrib_ntvfs_decode(val, len, out);
		return e4t_dosattrib_decode(val, len, out);
	case SRC_NETATALK: return e4t_netatalk_decode(val, len, out);
	case SRC_SYSTEMD: return e4t_systemd_decode(val, len, out);
	case SRC_XATTR: break;
	}
	return e4t_xattr_time_decode(val, len, src->fmt, out);
}
