/* SPDX-License-Identifier: MIT */
/*
 * aggregate.h - the file sink: each thread's aggregate (internal; see
 * aggregate.c).
 *
 * What the hot path inlines is here: a record without breakpoints that
 * the thread made before is counted through the record cache
 * (libcore/reccache.h) without a call.  Everything else is a call into
 * aggregate.c.
 */
#ifndef PAP_RT_AGGREGATE_H
#define PAP_RT_AGGREGATE_H

#include <stdint.h>

#include "profdata.h"
#include "reccache.h"
#include "rt.h"
#include "util.h"

/*
 * Signal handlers: a handler that runs instrumented code while its thread
 * is inside the aggregate must not allocate or touch the half-updated
 * table.  A record made meanwhile waits in a fixed array of the thread's
 * aggregate until the next ordinary record or the dump, and what does not
 * fit is counted as lost, never silently dropped.
 */
#define RT_DEFER 32
#define RT_DEFER_BPS 8

struct rt_deferred {
	struct pap_prof_item rec;	/* its breakpoints: @bps */
	struct pap_breakpoint bps[RT_DEFER_BPS];
};

/*
 * A thread's aggregate that holds more than this many bytes (records,
 * breakpoints, tables: pap_profile_bytes) is appended to the profile
 * file as a segment and emptied, so that a process's memory stays
 * bounded however many distinct paths it makes.  PAP_SPILL overrides
 * it (bytes, with k, M or G; 0: never).
 */
#define RT_SPILL_DEFAULT ((size_t)8 << 20)

/*
 * Entries of each thread's record cache (24 bytes each).  Enough for the
 * few hundred distinct records without breakpoints that a hot loop over
 * small functions makes (coremark's crcu8 alone makes 256), so that they
 * seldom evict each other in the direct-mapped table.
 */
#define RT_CACHE 4096

/* A thread's aggregate, on the list of all threads' aggregates. */
struct rt_aggregate {
	struct pap_profile prof;
	struct rt_aggregate *next;
	struct pap_reccache_entry cache[RT_CACHE];
	struct rt_deferred defer[RT_DEFER];
	volatile unsigned ndefer;
	/* records the cache did not find, on their way to @prof together;
	 * only the owning thread touches it until @ended */
	struct pap_prof_batch batch;
	int ended;
};

/* This thread's aggregate; NULL before its first record. */
extern RT_TLS struct rt_aggregate *rt_this_aggregate;
/* 0, or the stack mark (RT_HERE) of the runtime frame that is updating
 * this thread's aggregate. */
extern RT_TLS volatile uintptr_t rt_in_aggregate;
/* Records that could not be kept, all threads; written by the dump. */
extern __attribute__((visibility("hidden"))) uint64_t rt_agg_nlost;

/*
 * Counts a record with no breakpoints that this thread has made before,
 * without the aggregate's lookup: 1 if it was counted, 0 if the caller
 * must keep it (rt_agg_keep).  The aggregate is entered as rt_agg_keep
 * enters it, so a signal handler meanwhile defers its records rather
 * than grow the records array under this increment.
 */
static inline int rt_agg_count_cached(const char *fn, uint8_t kind,
				      uint8_t complete, uint64_t value)
{
	struct rt_aggregate *t = rt_this_aggregate;
	uint64_t *count;
	int hit = 0;

	if (__builtin_expect(!t || rt_in_aggregate || t->ndefer, 0))
		return 0;
	rt_in_aggregate = RT_HERE();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	count = pap_reccache_count(t->cache, RT_CACHE, &t->prof, fn, kind,
				   complete, value);
	if (count) {
		*count = pap_sat_add(*count, 1);
		hit = 1;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_in_aggregate = 0;
	return hit;
}

/*
 * Keeps @count records in this thread's aggregate; from a signal handler
 * that interrupted the aggregate, in its deferred records, or counted as
 * lost when they are full.  errno is left as it was.
 */
void rt_agg_keep(const char *fn, uint8_t kind, uint8_t complete,
		 uint64_t value, const struct pap_breakpoint *bps,
		 uint32_t nbps, uint64_t count);

/* @n records could not be kept: reported, and counted as lost, by the
 * next dump.  Any thread, signal handlers too. */
static inline void rt_agg_lost(uint64_t n)
{
	__atomic_fetch_add(&rt_agg_nlost, n, __ATOMIC_RELAXED);
}

/* A longjmp came back to the frame at @frame (see __pap_resume): a
 * runtime frame deeper in the stack no longer updates the aggregate. */
static inline void rt_agg_resume(uintptr_t frame)
{
	if (rt_in_aggregate && rt_in_aggregate < frame)
		rt_in_aggregate = 0;
}

/*
 * pap_dump's work: every thread's aggregate, the counters of tally.c and
 * the records lost, merged into the profile file; @written() is called
 * once it is written, before the aggregates are let go.  When @exiting,
 * what a thread still running has not added is counted as lost.  0, or
 * -1.
 */
int rt_agg_dump(int exiting, void (*written)(void));
/* pap_reset's: every aggregate counts nothing. */
void rt_agg_reset(void);
/* In a forked child: the parent's aggregates count nothing here. */
void rt_agg_after_fork_child(void);
/* This thread's end: what waits in its batch and deferred records goes
 * into its aggregate, which a dump may then take whole. */
void rt_agg_thread_end(void);

#endif /* PAP_RT_AGGREGATE_H */
