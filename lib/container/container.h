/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * container.h --- evidence as examiners hold it: the layer beneath
 * libext2fs.
 *
 *   container  the bytes of an evidence file, whatever holds them: a raw
 *              file or device, split raw pieces, EWF (E01), qcow2, VMDK,
 *              VHD/VHDX (container.c detects the format by content;
 *              raw.c, split.c, ewf.c, qcow.c, vmdk.c, vhdi.c read them)
 *   view       a run of bytes inside a container: the whole of it, a
 *              partition (one extent) or an LVM logical volume (several
 *              extents) (view.c); view_io.c makes a view an io_manager
 *   volumes    what a container holds, found by the parsers: MBR and GPT
 *              partition tables (mbr.c, gpt.c), LVM2 physical volumes
 *              (lvm.c), and what is not ext2/3/4 (fsprobe.c); volumes.c
 *              puts them together as `e4time volumes` lists them
 *   digests    MD5, SHA-1 and SHA-256 through libcrypto (digest.c), for
 *              EWF's stored hashes and files' content (lib/fs/filehash.c)
 *
 * Nothing here prints: parsers return errcode_t (e4time_err.et) and
 * leave warnings (a damaged primary GPT header, say) in the caller's
 * e4t_cwarn callback.
 */
#ifndef E4TIME_CONTAINER_H
#define E4TIME_CONTAINER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "util.h"

/* ------------------------------------------------------------------ */
/* Containers (container.c and one file per format)                    */
/* ------------------------------------------------------------------ */

enum e4t_ckind {
	E4T_C_RAW,   /* a file or block device: the only writable kind */
	E4T_C_SPLIT, /* raw pieces: disk.001, disk.002, ... */
	E4T_C_EWF,   /* EnCase/EWF: .E01 .E02 ... (libewf) */
	E4T_C_QCOW,  /* qcow/qcow2 (libqcow) */
	E4T_C_VMDK,  /* VMware (libvmdk) */
	E4T_C_VHDI,  /* VHD and VHDX (libvhdi) */
};

struct e4t_container;
struct e4t_ccache;

struct e4t_container_ops {
	/* Read len bytes at off; off + len <= size (container.c checks).
	 * Called with c->lock held. */
	errcode_t (*read)(struct e4t_container *c, void *buf, size_t len,
			  uint64_t off);
	/* Verify stored hashes (EWF's MD5/SHA1): 0 when they match,
	 * E4T_ERR_CONTAINER_HASH when not (what differs in msg),
	 * E4T_ERR_CONTAINER_CHUNK when they match but chunks fail their
	 * checksums, E4T_ERR_CONTAINER_NO_HASH when none is stored.
	 * NULL: none. */
	errcode_t (*verify)(struct e4t_container *c, char *msg, size_t msgsz);
	void (*close)(struct e4t_container *c);
	/* 1: read keeps its own locks and may run in several threads at
	 * once, without c->lock (EWF: a libewf handle per thread, each
	 * decompressing its own chunks); the cache still calls it with
	 * c->lock held. */
	int parallel;
};

struct e4t_container {
	const struct e4t_container_ops *ops;
	enum e4t_ckind kind;
	const char *kind_name; /* "raw", "split raw", "EWF", "qcow2", ... */
	char *path;	       /* as given: the first piece */
	uint64_t size;	       /* of the disk it holds, in bytes */
	unsigned pieces;       /* files read (split raw, EWF segments) */
	int fd;		       /* E4T_C_RAW: the open file, else -1 */
	pthread_mutex_t lock;  /* libyal handles are not thread-safe */
	void *priv;
	struct e4t_ccache *cache; /* NULL: none (raw, split raw) */
};

/*
 * Open path, whatever it holds; the format is told by content (and, for
 * split raw, by the name of the first piece with its siblings beside
 * it).  A format whose library this build lacks is
 * E4T_ERR_CONTAINER_UNSUPPORTED, with the format and the library in
 * *what ("EWF (E01) image (libewf)", malloc'd).  A missing or short piece or
 * parent is E4T_ERR_CONTAINER_PIECE with the piece's name in *what (malloc'd,
 * the caller frees it).
 */
errcode_t e4t_container_open(const char *path, struct e4t_container **ret,
			     char **what);
errcode_t e4t_container_read(struct e4t_container *c, void *buf, size_t len,
			     uint64_t off);
void e4t_container_close(struct e4t_container *c);

/*
 * The block cache (container.c): e4t_container_read() of at most
 * 2 * E4T_CACHE_BLOCK bytes is served from aligned E4T_CACHE_BLOCK
 * blocks of the container, read whole on a miss (a read-ahead: the
 * directory and extent tree blocks libext2fs reads one by one lie close
 * together; 32 KiB is an EWF chunk as ewfacquire and EnCase make them,
 * which libewf decompresses whole anyway) and kept, up to
 * bytes / E4T_CACHE_BLOCK of them, replaced by the clock algorithm.
 * Larger reads (the inode scan's 1 MiB) go straight to the container.
 * Shared by every thread under c->lock (a parallel container's blocks
 * are read with it let go); not to be resized while reads run.  Blocks
 * are allocated when first filled: a small image never takes the whole
 * size.  e4t_container_open() gives the compressed and sparse formats
 * (EWF, qcow, VMDK, VHD/VHDX) E4T_CACHE_DEFAULT_MB MiB, raw and split
 * raw (the page cache serves them) none.  bytes 0 drops the cache; a
 * size below one block is one block.
 */
#define E4T_CACHE_BLOCK	     (32U << 10)
#define E4T_CACHE_DEFAULT_MB 8
errcode_t e4t_container_set_cache(struct e4t_container *c, uint64_t bytes);
/* Reads served from the cache and reads that filled a block. */
void e4t_container_cache_stats(struct e4t_container *c, uint64_t *hits,
			       uint64_t *misses);

/*
 * Open path read-only without blocking on it: 0 and *fd for a regular
 * file or a block device (O_NONBLOCK cleared again), else
 * E4T_ERR_CONTAINER_NOT_FILE (a FIFO, socket, character device or
 * directory: a read could wait for ever, or never end), or errno.
 */
errcode_t e4t_evidence_fd(const char *path, int *fd);

/*
 * Backing and parent images (qcow2, VMDK, VHD/VHDX) are read only from
 * the child's directory, their symbolic links followed, so that
 * evidence cannot pull host files in; dir (--parent-dir) allows one
 * more directory, and its subdirectories, for the whole process (NULL:
 * none).  0; errno or ENOTDIR when dir is no directory.
 */
errcode_t e4t_parent_allow_dir(const char *dir);

/*
 * When path is named as the first piece of split raw (NAME.000,
 * NAME.001, or split(1)'s when its second piece is there): 0 and *out
 * the name of the first piece not beside it (malloc'd), the one that
 * would follow the last; else E4T_ERR_CONTAINER_UNSUPPORTED; ENOMEM.
 * For saying which piece is missing when the filesystem runs past the
 * end.
 */
errcode_t e4t_split_missing(const char *path, char **out);

/* What container.c calls: each returns E4T_ERR_CONTAINER_UNSUPPORTED
 * when built without its library.  *what as for e4t_container_open. */
errcode_t e4t_raw_open(const char *path, struct e4t_container **ret);
errcode_t e4t_split_open(const char *path, struct e4t_container **ret,
			 char **what);
errcode_t e4t_ewf_open(const char *path, struct e4t_container **ret,
		       char **what);
errcode_t e4t_qcow_open(const char *path, struct e4t_container **ret,
			char **what);
errcode_t e4t_vmdk_open(const char *path, struct e4t_container **ret,
			char **what);
errcode_t e4t_vhdi_open(const char *path, struct e4t_container **ret,
			char **what);
/* A new container with ops, kind and path set, fd -1, lock ready. */
errcode_t e4t_container_new(const char *path, enum e4t_ckind kind,
			    const char *kind_name,
			    const struct e4t_container_ops *ops,
			    struct e4t_container **ret);

/* ------------------------------------------------------------------ */
/* Views (view.c)                                                      */
/* ------------------------------------------------------------------ */

/* Bytes [lstart, lstart+len) of the view are [pstart, pstart+len) of
 * the container. */
struct e4t_extent {
	uint64_t lstart, pstart, len;
};

struct e4t_view {
	struct e4t_container *c;
	uint64_t size;
	unsigned next; /* 0: the view is [base, base + size) */
	uint64_t base;
	struct e4t_extent *ext; /* sorted by lstart, contiguous, malloc'd */
};

/* Read len bytes at off of the view; EXT2_ET_SHORT_READ past its end. */
errcode_t e4t_view_read(const struct e4t_view *v, void *buf, size_t len,
			uint64_t off);
/* Where byte off of the view is in the container, and how many bytes
 * from there on are contiguous. */
uint64_t e4t_view_map(const struct e4t_view *v, uint64_t off, uint64_t *contig);
/* A view of [start, start + len) of another view (a partition inside a
 * partition or an LV): extents are composed.  *out's extents are
 * malloc'd (e4t_view_free). */
/* Append [start, start + len) of in to the end of *out (whose extents
 * array has capacity *cap), as extents even where in is a window:
 * logical volumes are put together so.  e4t_view_collapse() then makes
 * a one-extent view a window again. */
errcode_t e4t_view_append(struct e4t_view *out, size_t *cap,
			  const struct e4t_view *in, uint64_t start,
			  uint64_t len);
void e4t_view_collapse(struct e4t_view *v);
errcode_t e4t_view_sub(const struct e4t_view *in, uint64_t start, uint64_t len,
		       struct e4t_view *out);
void e4t_view_free(struct e4t_view *v);

/* An io_manager on a view, for ext2fs_open2() (view_io.c): the name
 * e4t_view_io_name() returns stands for the view until
 * e4t_view_io_forget().  Read-only. */
extern io_manager e4t_view_io_manager;
errcode_t e4t_view_io_name(const struct e4t_view *v, char *name, size_t namesz);
void e4t_view_io_forget(const struct e4t_view *v);

/* ------------------------------------------------------------------ */
/* Parsers: partition tables, LVM2, filesystem signatures              */
/* ------------------------------------------------------------------ */

/* Warnings: one line each, without the image's name (the caller adds
 * it), e.g. "GPT primary header checksum does not verify: the backup
 * header at sector 2097151 is used". */
typedef void (*e4t_cwarn)(void *arg, const char *msg);
/* warn(arg, the formatted line), when warn is not NULL (container.c). */
void e4t_cwarnf(e4t_cwarn warn, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum e4t_scheme {
	E4T_PT_NONE,
	E4T_PT_MBR,
	E4T_PT_GPT,
};

struct e4t_part {
	unsigned number;       /* pN: MBR 1-4 primary, 5... logical; GPT entry
				  index + 1 */
	uint64_t start;	       /* bytes from the start of the view */
	uint64_t length;       /* bytes */
	uint8_t mbr_type;      /* MBR system id (GPT: 0) */
	int logical;	       /* MBR: inside an extended partition */
	uint8_t type_guid[16]; /* GPT, as stored (mixed-endian) */
	uint8_t uuid[16];      /* GPT unique partition GUID, as stored */
	char name[109];	       /* GPT name, UTF-8 (36 UTF-16 units) */
};

struct e4t_parttable {
	enum e4t_scheme scheme;
	unsigned sector;       /* bytes: 512 or 4096 */
	uint8_t disk_guid[16]; /* GPT */
	uint32_t mbr_id;       /* MBR disk signature */
	unsigned nparts;
	struct e4t_part *parts; /* malloc'd; by number; extended
				   containers not listed */
};

/*
 * The partition table of v (mbr.c, gpt.c; e4t_parttable_read tries GPT
 * first (a protective MBR), then MBR): scheme E4T_PT_NONE and no parts
 * when there is none, which is not an error.  A table found but
 * impossible (an entry array whose CRC fails in both headers, entries
 * outside the disk, an extended chain that loops) is
 * E4T_ERR_PARTTABLE; what was wrong goes to warn.
 */
errcode_t e4t_parttable_read(const struct e4t_view *v, struct e4t_parttable *pt,
			     e4t_cwarn warn, void *arg);
errcode_t e4t_mbr_read(const struct e4t_view *v, struct e4t_parttable *pt,
		       e4t_cwarn warn, void *arg);
errcode_t e4t_gpt_read(const struct e4t_view *v, struct e4t_parttable *pt,
		       e4t_cwarn warn, void *arg);
void e4t_parttable_free(struct e4t_parttable *pt);
/* "Linux filesystem", "Linux LVM", "EFI System", "Microsoft basic
 * data", ... or NULL when not known. */
const char *e4t_gpt_type_name(const uint8_t guid[16]);
const char *e4t_mbr_type_name(uint8_t id);
/* GUID as text, lower case, 36 characters + NUL */
void e4t_guid_str(const uint8_t guid[16], char out[37]);

/* LVM2 (lvm.c): a physical volume's label and the text metadata of its
 * volume group. */
struct e4t_lvm_seg {
	uint64_t lstart_ext; /* first extent of the LV this segment maps */
	uint64_t extents;    /* its length, in extents */
	char *type;	     /* "striped" (linear is striped with 1
				stripe), "mirror", "thin", "raid1", ... */
	unsigned stripes;
	char *pv;	       /* the PV's name in the metadata ("pv0") */
	uint64_t pv_start_ext; /* where on it, in extents */
	/* raid1 and mirror: the LVs holding each leg (a full copy; raid1's
	 * rmeta LVs are not legs) and where in each the copy starts, in
	 * extents (mirror's "mirrors" pairs; 0 for raid1) */
	unsigned nlegs;
	char **legs;
	uint64_t *leg_ext;
	/* snapshot: its origin LV and copy-on-write store LV */
	char *origin, *cow;
};

struct e4t_lvm_lv {
	char *name;
	char *uuid;
	unsigned nsegs;
	struct e4t_lvm_seg *segs; /* by lstart_ext */
	uint64_t extents;	  /* its size: the segments' extents */
	int hidden;		  /* its status lacks VISIBLE */
	int mapped; /* its segments are linear, on listed PVs, and tile it
		       (an internal LV may be: a raid1 leg, a COW store) */
	/* why e4time cannot read it (a striped, mirrored, thin or raid LV;
	 * a segment on a PV not in this image), or NULL */
	char *refused;
};

struct e4t_lvm_pv {
	char *name;	   /* "pv0" */
	char *uuid;	   /* "xxxxxx-xxxx-..." as LVM writes it */
	uint64_t pe_start; /* bytes from the start of the PV */
	uint64_t pe_count;
};

struct e4t_lvm {
	char pv_uuid[40]; /* this PV's, from its label (with dashes) */
	uint64_t pv_size; /* bytes, from the PV header */
	char *vg_name;
	char *vg_uuid;
	uint64_t extent_size; /* bytes */
	uint64_t seqno;
	unsigned npvs, nlvs;
	struct e4t_lvm_pv *pvs;
	struct e4t_lvm_lv *lvs;
};

/* 0 and *found 0 when v holds no LVM2 label; E4T_ERR_LVM when it has
 * one but the metadata is unreadable (why goes to warn). */
errcode_t e4t_lvm_read(const struct e4t_view *v, struct e4t_lvm *out,
		       int *found, e4t_cwarn warn, void *arg);
void e4t_lvm_free(struct e4t_lvm *lvm);

/* What a view holds, from signatures (fsprobe.c). */
enum e4t_content {
	E4T_FS_UNKNOWN,
	E4T_FS_EMPTY,	    /* all zero where signatures would be */
	E4T_FS_EXT,	    /* ext2/3/4 */
	E4T_FS_JOURNAL_DEV, /* an ext4 external journal */
	E4T_FS_LVM_PV,
	E4T_FS_LUKS1,
	E4T_FS_LUKS2,
	E4T_FS_BITLOCKER,
	E4T_FS_XFS,
	E4T_FS_BTRFS,
	E4T_FS_NTFS,
	E4T_FS_FAT,
	E4T_FS_EXFAT,
	E4T_FS_SWAP,
	E4T_FS_ZFS,
	E4T_FS_MDRAID,
	E4T_FS_ISO9660,
	E4T_FS_SQUASHFS,
	E4T_FS_PARTTABLE, /* an MBR or GPT (a disk inside a partition) */
};

struct e4t_probe {
	enum e4t_content content;
	const char *name; /* "ext4", "LUKS2", "swap", "XFS", ... */
	/* ext2/3/4: from the superblock; others where their header says */
	char uuid[37];
	char label[65];
	/* ext2/3/4 only */
	uint64_t fs_size; /* bytes: s_blocks_count times the block size */
	char last_mounted[65];
	int64_t mtime, wtime; /* 0: never */
};

/* Probe the start of v; E4T_FS_UNKNOWN is not an error. */
errcode_t e4t_probe(const struct e4t_view *v, struct e4t_probe *out);
/* "LUKS2 encrypted: open it (cryptsetup open) and give e4time the
 * mapped device", "swap space", "XFS filesystem: not ext2/3/4", ... for
 * the message naming a volume e4time cannot read. */
const char *e4t_content_advice(enum e4t_content c);

/* ------------------------------------------------------------------ */
/* Volumes (volumes.c): what `e4time volumes` lists, and --volume      */
/* ------------------------------------------------------------------ */

struct e4t_vol {
	unsigned index; /* 1, 2, ... in listing order */
	char name[160]; /* "p1", "p2p5", "vg0/root", or "disk" for a
			   container without a partition table */
	int parent;	/* index of the enclosing volume, 0: none */
	unsigned depth;
	const char *scheme;  /* "disk", "MBR", "GPT", "LVM2" */
	char type[96];	     /* "Linux filesystem", "0x83 Linux", "linear LV,
				2 segments", ... */
	char part_name[109]; /* GPT partition name */
	char part_uuid[37];  /* GPT unique partition GUID (PARTUUID) */
	char lv_uuid[40];
	/* where it lies in the image and its size, as listed: a refused
	 * LV's size is the metadata's (start 0 when it has no one place) */
	uint64_t start, length;
	char note[200]; /* what the reader should know ("raid1: read leg
			   1 of 2, vg0/r_rimage_0 ..."), or "" */
	struct e4t_view view;
	struct e4t_probe probe;
	char *refused; /* why e4time cannot read it, or NULL */
};

struct e4t_volumes {
	struct e4t_container *c;
	unsigned bad_pvs; /* LVM2 PVs whose metadata cannot be read */
	unsigned n;
	struct e4t_vol *v; /* v[i].index == i + 1 */
};

/*
 * Every volume of c: partitions (MBR, GPT, nested), LVM2 logical volumes
 * of the physical volumes found (a VG's PVs may lie in several
 * partitions; an LV with a segment on a PV not in the image is refused),
 * and, for a container with neither, the whole of it ("disk").  Damaged
 * tables give warnings and the volumes that could be read.
 */
errcode_t e4t_volumes_scan(struct e4t_container *c, struct e4t_volumes *out,
			   e4t_cwarn warn, void *arg);
/*
 * The volume spec names: its index, pN, VG/LV, a GPT partition name or
 * PARTUUID.  spec NULL: the only ext2/3/4 volume
 * (E4T_ERR_VOLUME_CHOICE when several, E4T_ERR_NO_EXT_VOLUME when
 * none).  A spec several volumes answer to (two VGs of one name, an
 * LV name twice in crafted metadata, two GPT partitions of one name) is
 * E4T_ERR_VOLUME_AMBIGUOUS, *ret the first of them: never read.  A volume named
 * but not ext2/3/4 is E4T_ERR_VOLUME_NOT_EXT, a refused one
 * E4T_ERR_VOLUME_REFUSED (its refused text says why).
 */
errcode_t e4t_volumes_pick(const struct e4t_volumes *vs, const char *spec,
			   const struct e4t_vol **ret);
/* Does v hold ext2/3/4? */
int e4t_vol_is_ext(const struct e4t_vol *v);
void e4t_volumes_free(struct e4t_volumes *vs);

/* ------------------------------------------------------------------ */
/* Digests (digest.c): MD5, SHA-1 and SHA-256 from OpenSSL's libcrypto */
/* ------------------------------------------------------------------ */

/*
 * Through its EVP interface, for checking the hashes an EWF image stores
 * (ewf.c) and hashing files' content (lib/fs/filehash.c).  MD5 and SHA-1
 * are broken for anything that needs a secure hash.
 */
enum e4t_hash_alg {
	E4T_HASH_NONE = 0,
	E4T_HASH_MD5,
	E4T_HASH_SHA1,
	E4T_HASH_SHA256,
};
#define E4T_HASH_MAX 32 /* bytes of the longest (SHA-256) */

/*
 * One running digest; reusable: e4t_digest_start() begins a new one on
 * the same context.  e4t_digest_new(): ENOMEM, or E4T_ERR_DIGEST when
 * libcrypto has no such algorithm (MD5 under a FIPS-only provider).
 * e4t_digest_update() remembers the first failure; e4t_digest_final()
 * returns it (E4T_ERR_DIGEST), else writes e4t_hash_len(alg) bytes.
 */
struct e4t_digest;
errcode_t e4t_digest_new(enum e4t_hash_alg alg, struct e4t_digest **ret);
errcode_t e4t_digest_start(struct e4t_digest *d);
void e4t_digest_update(struct e4t_digest *d, const void *data, size_t len);
errcode_t e4t_digest_final(struct e4t_digest *d, uint8_t *out);
void e4t_digest_free(struct e4t_digest *d);

/* n bytes as lower-case hex, NUL-terminated: out holds 2n + 1 */
void e4t_hex(const uint8_t *in, size_t n, char *out);

#endif
