/* SPDX-License-Identifier: MIT */
/*
 * bpack.h - a path's breakpoints with their repeats folded.
 *
 * A long activation repeats itself: a loop whose iterations take the same
 * few paths makes the same breakpoints again and again.  A record holds
 * its breakpoints packed: a breakpoint whose site is PAP_BP_REPEAT is a
 * repeat, r = DISTANCE << 32 | LENGTH, and stands for the LENGTH
 * breakpoints that equal those DISTANCE before each of them (a repeat may
 * overlap itself: distance 1, length 1000 is 1000 more of the breakpoint
 * before it).  No real breakpoint has that site: a graph has fewer than
 * 2^31 edges (cfgmodel.c), and PAP_NONE (UINT32_MAX) is the exit fold's.
 *
 * Packing is canonical: the packed form is a function of the unpacked
 * sequence alone, so equal paths make equal records wherever they are
 * packed (runtime, collector, decoder), and a record's identity, hash and
 * order are those of its packed form.  The rule (doc/algorithms.md):
 * left to right, at position i look up the most recent earlier position
 * j whose breakpoint falls in the same one of PAP_BPACK_BUCKETS hash
 * buckets (every position is entered, those inside repeats too); if the
 * breakpoints from j on match those from i on for at least
 * PAP_BPACK_MIN, emit a repeat of distance i - j and the longest such
 * length (at most UINT32_MAX), else emit the breakpoint itself.
 * Sequences of at most PAP_BPACK_SHORT breakpoints are left as they are.
 */
#ifndef PAP_CORE_BPACK_H
#define PAP_CORE_BPACK_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_BP_REPEAT (UINT32_MAX - 1)
#define PAP_BPACK_BUCKETS 4096
#define PAP_BPACK_MIN 2
#define PAP_BPACK_SHORT 16

/* Where packing remembers positions; reusable across calls, zeroed
 * once before the first. */
struct pap_bpack_table {
	uint64_t base;		/* positions stored are base + i + 1 */
	uint64_t last[PAP_BPACK_BUCKETS];
};

/* The bucket of a breakpoint: part of the packing's definition, so it
 * never changes without a new profile version. */
static inline size_t pap_bpack_bucket(const struct pap_breakpoint *bp)
{
	uint64_t h = ((uint64_t)bp->site * 0x9e3779b97f4a7c15ull) ^ bp->r;

	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h >> 52);
}

static inline int pap_bp_is_repeat(const struct pap_breakpoint *bp)
{
	return bp->site == PAP_BP_REPEAT;
}

/*
 * Packs @in[0..@n) into @out (room for @n; not overlapping @in) and
 * returns the packed length; @n <= UINT32_MAX.  @in holds no repeat.
 */
size_t pap_bpack(const struct pap_breakpoint *in, size_t n,
		 struct pap_breakpoint *out, struct pap_bpack_table *t);

/* A packing's (or unpacking's) output buffer and table, grown as
 * needed; zeroed to start. */
struct pap_bpack_buf {
	const struct pap_mem *mem;	/* NULL: malloc (mem.h) */
	struct pap_breakpoint *out;
	size_t cap;
	struct pap_bpack_table *table;
};

/* pap_bpack() of @in[0..@n) into @b's buffer; *@n gets the packed
 * length.  NULL when out of memory. */
const struct pap_breakpoint *pap_bpack_into(struct pap_bpack_buf *b,
					    const struct pap_breakpoint *in,
					    size_t *n);
/*
 * A record from a writer older than packing (profile version 1 or 2,
 * shm 2.0 or 2.1) made canonical: packed into @b's buffer when it is
 * long and holds no repeat, else @in as it is.  NULL when out of memory.
 */
const struct pap_breakpoint *pap_bpack_old(struct pap_bpack_buf *b,
					   const struct pap_breakpoint *in,
					   size_t *n);
void pap_bpack_buf_free(struct pap_bpack_buf *b);

/* Does @bps[0..@n) hold a repeat? */
int pap_bpack_has_repeat(const struct pap_breakpoint *bps, size_t n);

/*
 * @in[0..@n) with its repeats undone: *@out is @in itself when it holds
 * none, else @b's buffer (grown as needed) holding what it stands for;
 * *@nout the number.  PAP_ECORRUPT for a packing pap_bpack_length()
 * refuses, PAP_ELIMIT when it stands for more than @max, PAP_ENOMEM.
 */
int pap_bunpack_into(struct pap_bpack_buf *b, const struct pap_breakpoint *in,
		     size_t n, uint64_t max,
		     const struct pap_breakpoint **out, size_t *nout);

/*
 * The number of breakpoints @in[0..@n) stands for, or 0 if it is not a
 * valid packing (a repeat reaching before the start, of length 0, or more
 * than @max in all).  @n of 0 gives 0 too.
 */
uint64_t pap_bpack_length(const struct pap_breakpoint *in, size_t n,
			  uint64_t max);

/*
 * Unpacks @in[0..@n), which pap_bpack_length() accepted as standing for
 * @len breakpoints, into @out (room for @len).
 */
void pap_bunpack(const struct pap_breakpoint *in, size_t n,
		 struct pap_breakpoint *out);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_BPACK_H */
