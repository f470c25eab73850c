/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prec_int.h --- a problem as e4time check keeps it (result.c), inside
 * lib/check only.  A million problems are kept at once (an ext3
 * filesystem converted to large inodes has one per inode), so the record
 * is small: what can be decoded again from the raw words is (the times
 * shown, T0001's and T0002's fixes), and the path is kept in the result's
 * buffer of paths.
 */
#ifndef E4T_CHECK_PREC_H
#define E4T_CHECK_PREC_H

/* struct e4t_prec.bits */
#define PREC_FIX       0x01 /* decided: fix it */
#define PREC_FIXED     0x02 /* written */
#define PREC_EXTRA     0x04 /* the field has its _extra word */
#define PREC_LIM_EXTRA 0x08 /* the limit's field has its _extra word */

#define EPOCH_MASK 3U

struct e4t_prec {
	uint32_t ino;
	uint8_t code;  /* enum e4t_pcode */
	uint8_t field; /* enum e4t_field */
	uint8_t nofix; /* enum e4t_nofix */
	uint8_t bits;  /* PREC_* */
	uint32_t raw_base, raw_extra;
	/* T0005, T0006: the words of the field compared with (ctime,
	 * mtime); T0008: s_min_extra_isize in lim_base; T0009: what the
	 * kernel grows i_extra_isize to, in lim_base. */
	uint32_t lim_base, lim_extra;
	uint64_t path_off; /* in the result's paths */
	uint32_t path_len;
	uint16_t extra_isize; /* the inode's (T0008: s_want_extra_isize) */
	uint8_t fix_flags;    /* fix_to.flags (crtime problems) */
	uint8_t src;	      /* 1 + the index of the source's xattr, or 0 */
	int64_t fix_sec;      /* fix_to (crtime problems) */
	uint32_t fix_nsec;
};

/* A new record at the end of res (zeroed but for its path); NULL when out
 * of memory. */
struct e4t_prec *e4t_prec_add(struct e4t_check_result *res, ext2_ino_t ino,
			      enum e4t_pcode code, const char *path,
			      size_t len);
/* The time a field's words give once T0001 is fixed (the nanoseconds
 * carried into the seconds, as the kernel shows them; past 2446, where
 * that has no encoding, cleared) and, with epoch, T0002 (the epoch bits
 * cleared). */
void e4t_prec_fixed(uint32_t base, uint32_t extra, int epoch,
		    struct e4t_ts *ts);
/* The time a field's words give once T0001 and T0002 are fixed (pre1970:
 * T0002 is). */
void e4t_prec_corrected(uint32_t base, uint32_t extra, int has_extra,
			int pre1970, struct e4t_ts *ts);
/* Put res's records in inode order (res->order, a stable sort). */
errcode_t e4t_prec_order(struct e4t_check_result *res);
/* The ith record in inode order. */
struct e4t_prec *e4t_prec_at(const struct e4t_check_result *res, size_t i);

#endif /* E4T_CHECK_PREC_H */
