/* SPDX-License-Identifier: MIT */
/*
 * profbin.h - the binary profile, versions 4 to 7: a log of segments
 * (internal to the core library; doc/formats.md has the layout).
 *
 *   file:     magic "\x89PAP\r\n\x1a\n", u32 version (7), u32 pap's
 *             version, u64 C (the file's committed length), then one or
 *             more segments
 *   segment:  "PSEG", u32 flags, u64 L, L bytes of body,
 *             u64 FNV-1a of the body, u64 L, "PEND", u32 0
 *
 * Flags are 0, or (version 7) PAP_PROFBIN_SEG_KINDS: each function of the
 * body then counts the program kinds' groups after its three (profbin.c,
 * pb_groups).  A segment holding no record of a program kind is written
 * without it, byte for byte as version 6 wrote it.
 *
 * Fixed-width numbers are little-endian whatever the host.  A segment
 * holds a whole profile; a file's profile is the sum of its segments.
 * The trailer repeats L so that the last segment is found, and checked,
 * from the file's end.  A writer appends a segment, then sets C to the
 * file's new length: a file shorter than C was cut, even at a segment's
 * end; one longer holds whole segments of a writer killed before it set
 * C, which count.  Version 5's header is 16 bytes, without C; version
 * 4's has flags (0) where version 5 names pap's version.
 */
#ifndef PAP_CORE_PROFBIN_H
#define PAP_CORE_PROFBIN_H

#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_PROFBIN_MAGIC "\x89PAP\r\n\x1a\n"
#define PAP_PROFBIN_MAGIC_LEN 8
#define PAP_PROFBIN_HEAD 24	/* magic, version, pap's version, C */
#define PAP_PROFBIN_HEAD_OLD 16	/* versions 4 and 5: no C */
#define PAP_PROFBIN_COMMIT_AT 16	/* where C is */
#define PAP_PROFBIN_SEG_HEAD 16	/* marker, flags, L */
#define PAP_PROFBIN_SEG_TAIL 24	/* checksum, L, end marker, 0 */
#define PAP_PROFBIN_SEG_MARK "PSEG"
/* a segment's flag: its functions have the program kinds' groups */
#define PAP_PROFBIN_SEG_KINDS 1u
#define PAP_PROFBIN_END_MARK "PEND"

/* Does @d[0..@n) start like a binary profile (its magic's first four
 * bytes)? */
int pap_profbin_is(const void *d, size_t n);

/* The file header into @out: the newest format version, this pap's
 * version (PAP_PROFBIN_PAP_VERSION) and @committed, the file's length
 * once what its writer writes now is there. */
void pap_profbin_header(unsigned char out[PAP_PROFBIN_HEAD],
			uint64_t committed);

/* pap's version as a version 5 header holds it: major << 16 | minor << 8
 * | patch, each below 256. */
#define PAP_PROFBIN_PAP_VERSION(major, minor, patch) \
	((uint32_t)(major) << 16 | (uint32_t)(minor) << 8 | (uint32_t)(patch))

/* A file header as pap_profbin_head_ok() reads it. */
struct pap_profbin_head {
	uint32_t version;	/* 4, 5 or 6 */
	uint32_t pap_version;	/* who wrote the file; 0: not said */
	size_t len;		/* PAP_PROFBIN_HEAD, or _OLD before 6 */
	uint64_t committed;	/* C; 0 before version 6 */
};

/*
 * Checks the file header at @h[0..@n): 0 when it is one this pap reads
 * (version 4, its flags 0, version 5, or version 6 whose C is at least
 * the header), with *@out (may be NULL) what it says; else -1, with *@at
 * the offset of what is wrong (0 the magic, 8 the version, 12 the flags,
 * 16 C, or @n when the header does not fit in @n bytes), the header's
 * length when it is sound.
 */
int pap_profbin_head_ok(const unsigned char *h, size_t n,
			struct pap_profbin_head *out, size_t *at);

/*
 * @p as one whole segment (header, body, trailer) in a buffer *@out of
 * *@len bytes the caller gives back with pap_mem_release(@p->mem, *@out,
 * *@len); @extra_lost is added to its lost count.  Its memory, and all
 * the writer uses meanwhile, come from @p->mem (mem.h): with the
 * runtime's, it calls no malloc.  Equal profiles give equal bytes.
 * PAP_ENOMEM.
 */
int pap_profbin_segment(const struct pap_profile *p, uint64_t extra_lost,
			unsigned char **out, size_t *len);

/* The body length a segment header at @h claims, or -1 when @h is not
 * a segment header (its flags neither 0 nor PAP_PROFBIN_SEG_KINDS). */
int pap_profbin_seg_len(const unsigned char h[PAP_PROFBIN_SEG_HEAD],
			uint64_t *len);

/*
 * Checks that @t is the trailer of a segment of body length @len (and,
 * when @body is not NULL, that the checksum is the body's); 0 or -1.
 */
int pap_profbin_seg_tail_ok(const unsigned char t[PAP_PROFBIN_SEG_TAIL],
			    uint64_t len, const unsigned char *body);

/*
 * Walks the binary profile @d[0..@n) (named @file in messages): checks
 * the header and each segment's framing and checksum, and adds each
 * segment's records to @p.  A last segment cut short (the file ends
 * inside it) is not read: *@good is where it starts, else @n.
 * *@committed is C (0 before version 6): when it is beyond @n the file
 * was cut; when it is within the whole segments read it must be where
 * one ends, else the file is corrupt.  A bad
 * header, framing or checksum, or a malformed body, is PAP_ECORRUPT
 * with "FILE: error: byte OFFSET: ..." in @err; then @p may hold the
 * records of the segments before.  PAP_ENOMEM, PAP_ELIMIT
 * (@p->max_recs).  With @p NULL, only the framing and checksums are
 * checked.
 */
int pap_profbin_read(struct pap_profile *p, const unsigned char *d, size_t n,
		     size_t *good, uint64_t *committed, const char *file,
		     char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PROFBIN_H */
