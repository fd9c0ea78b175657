/* SPDX-License-Identifier: MIT */
/*
 * bpack_online.h - packing a path's breakpoints as they are made.
 *
 * pap_bpack() packs a whole sequence at once, so the sequence must first
 * be held unpacked: a long activation's breakpoints, 16 bytes each, until
 * it ends.  A struct pap_bpack_online takes the breakpoints one at a time
 * and keeps only the packed items made so far, the open repeat, a window
 * of the last PAP_BPACK_WINDOW breakpoints and the latest position of
 * each bucket that occurred: memory grows with what the packing cannot
 * fold (distinct content), not with the sequence's length.
 *
 * The result is pap_bpack()'s, item for item (the rule in bpack.h), for
 * every sequence pap_bpack() accepts (at most UINT32_MAX breakpoints).
 * Longer sequences extend the rule in the one place where its encoding
 * runs out: a candidate more than UINT32_MAX positions back is not taken
 * (a repeat's distance has 32 bits).
 *
 * How an earlier breakpoint is read back (a candidate, or the source of
 * a repeat being extended): from the window when it is recent (the window
 * grows to the distance of the repeat being made, up to
 * PAP_BPACK_WINDOW_MAX), else from the packed items, where a position
 * inside a repeat of distance d stands for the one d before it, followed
 * back to a literal, or read off the repeat's period table when it has
 * one.  The reader keeps that chain for the last position it read, so
 * that reading the next one rebuilds only the part of the chain that
 * changes: a repeat's source is read in order (doc/algorithms.md).
 */
#ifndef PAP_CORE_BPACK_ONLINE_H
#define PAP_CORE_BPACK_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Breakpoints kept unpacked: a power of two above PAP_BPACK_SHORT, grown
 * up to PAP_BPACK_WINDOW_MAX to hold the distance of a repeat being made,
 * so that extending it reads the window, not the packed items.
 */
#define PAP_BPACK_WINDOW 64
#define PAP_BPACK_WINDOW_MAX 4096

/*
 * Repeats up to PAP_BPACK_PERIOD apart, and those up to
 * PAP_BPACK_PERIOD_MAX apart that are at least half as long as their
 * distance, list the literal items of their period: reading a position
 * inside one back is then one step, however often the reader goes round
 * the period or jumps into it (an interpreter's second pass over a long
 * loop reads the first one back).  A table is made the first time a
 * read goes through its repeat; most repeats are never read back.  The
 * tables cost 4 bytes an entry: at most PAP_BPACK_PERIOD per short
 * repeat, and never more than 2 per breakpoint a longer one stands for.
 */
#define PAP_BPACK_PERIOD 64
#define PAP_BPACK_PERIOD_MAX 4096

/*
 * The reader of earlier positions (bpack_online.c): level i of a read
 * back is the item k that position Q - shift falls in, Q being the
 * position read; the levels from 0 to i stay what they are for every Q
 * below lim.
 */
struct pap_bpack_level {
	size_t k;
	uint64_t shift, lim;
};

struct pap_bpack_online {
	const struct pap_mem *mem;	/* NULL: malloc (mem.h) */
	struct pap_breakpoint *out;	/* the packed items made so far */
	uint64_t *first;		/* first[k]: position out[k] starts at */
	/* period[k]: for a repeat of distance d <= PAP_BPACK_PERIOD, where
	 * in @pool the d literal items its period equals are listed */
	size_t *period;
	/* the reader's levels, level[0..depth) of position at (none while
	 * depth is 0), room for nlevel: at most one per item, a level's
	 * item being before the one above it */
	struct pap_bpack_level *level;
	size_t depth, nlevel;
	uint64_t at;
	/* k + 1 when a read went through repeat k, whose period table is
	 * made when the read ends; 0: none */
	size_t table_due;
	size_t n, cap;
	uint32_t *pool;
	size_t npool, cap_pool;
	uint64_t pushed;		/* breakpoints taken */
	/* the open run: run_len (1: a candidate, >= 2: a repeat) breakpoints
	 * from position run_start on, each equal to the one run_dist
	 * before it; none when run_len is 0 */
	uint64_t run_start, run_dist;
	uint32_t run_len;
	/* bucket -> latest position + 1: open addressing on bucket + 1 */
	uint16_t *slot_bucket;
	uint64_t *slot_pos;
	size_t nslots, used;
	/* position p at window[p & (wsize - 1)] while pushed - p <= wsize
	 * and p >= wfrom (a grown window holds only what the old one did) */
	struct pap_breakpoint *window;
	size_t wsize;
	uint64_t wfrom;
	/* the reader's work: levels it entered and items it stepped over
	 * while searching; read by the tests to bound it */
	uint64_t steps;
};

/* An empty packing, its memory from @mem (NULL: malloc); also what
 * pap_bpack_online_free() leaves. */
void pap_bpack_online_init(struct pap_bpack_online *s,
			   const struct pap_mem *mem);

/*
 * Takes the next breakpoint @bp (not a repeat).  PAP_OK, or PAP_ENOMEM
 * with @s exactly as it was (the breakpoint not taken).
 */
int pap_bpack_online_push(struct pap_bpack_online *s,
			  const struct pap_breakpoint *bp);

/*
 * Ends the sequence: the packed form of everything pushed, pap_bpack()'s
 * for the same sequence, and its length in *@n.  Owned by @s (valid until
 * it is reset or freed); never fails.
 */
const struct pap_breakpoint *pap_bpack_online_finish(struct pap_bpack_online *s,
						     size_t *n);

/* Starts a new sequence, keeping the memory. */
void pap_bpack_online_reset(struct pap_bpack_online *s);

/* Bytes of memory @s holds beyond its own struct. */
size_t pap_bpack_online_memory(const struct pap_bpack_online *s);

void pap_bpack_online_free(struct pap_bpack_online *s);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_BPACK_ONLINE_H */
