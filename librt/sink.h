/* SPDX-License-Identifier: MIT */
/*
 * sink.h - where a finished record goes: the sinks, and the order in
 * which they are offered a record (internal; layers: rt.h).
 *
 * Two sinks take records.  The ring (shmsink.c) streams them to
 * pap-collector and may refuse one (no collector, ring full, or busy
 * with a signal handler's record); the aggregate (aggregate.h) keeps
 * them in the process, to be written to the profile file, and never
 * refuses.  A record is offered to the ring first and kept in the
 * aggregate when the ring refuses it.
 *
 * The interface is one at compile time, not a table of functions: each
 * sink implements the operations below under its prefix (rt_ring_,
 * rt_agg_), and the rt_sink_ functions, inline, give each operation to
 * them in order, so that the hot path is one function with no indirect
 * call.  The operations:
 *
 *   take a record without breakpoints   rt_ring_take_value,
 *                                       rt_agg_count_cached/rt_agg_keep
 *   take a record with breakpoints      rt_ring_take_path, rt_agg_keep
 *   a block of counters in place        rt_ring_tally, rt_tally_block
 *   a longjmp came back to a frame      rt_ring_resume, rt_agg_resume
 *   the process forked (the child)      rt_ring_after_fork_child,
 *                                       rt_agg_after_fork_child,
 *                                       rt_tally_after_fork_child
 *   the process exits                   rt_ring_exit, then rt_agg_dump
 *
 * entry.c calls the rt_sink_ functions; process.c calls the process's
 * operations of each sink.  A sink calls no layer above it but
 * rt_start and rt_on_thread_end (rt.h), which register the process's
 * hooks; the ring calls the aggregate for what it must keep, and the
 * aggregate tells the ring when a spill wrote what it kept
 * (rt_ring_spilled).
 */
#ifndef PAP_RT_SINK_H
#define PAP_RT_SINK_H

#include <stdint.h>

#include <pap/records.h>

#include "aggregate.h"
#include "papdefs.h"
#include "rt.h"

/* ---- the ring (shmsink.c) ---- */

/* Nonzero once this thread knows it has no ring (no collector, or its
 * ring is gone): a record then goes straight to the aggregate. */
extern RT_TLS int rt_ring_none;

/*
 * Hands one record to this thread's collector: 1 if it took it (counted
 * in a slot of the thread's segment, or written to its ring), 0 if the
 * caller must keep it (no collector, ring full, or called from inside the
 * ring code by a signal handler).  No lock, no system call on the common
 * path.  rt_ring_take_value takes a record without breakpoints (any
 * kind), rt_ring_take_path one with (kind PAP_REC_PATH, or from 2.4
 * PAP_REC_CALLS or PAP_REC_PROG).
 */
int rt_ring_take_value(const char *fn, uint8_t kind, uint8_t complete,
		       uint64_t value);
int rt_ring_take_path(const char *fn, uint8_t kind, uint8_t complete,
		      uint64_t value, const struct pap_breakpoint *bps,
		      uint32_t nbps);	/* nbps > 0 */

/* Does this thread give its records to a collector's ring (connecting
 * on first use)? */
int rt_ring_attached(void);
/*
 * Carves a block of @n counters for (@fn, @kind) out of this thread's
 * segment and describes it to the collector, noting @counters, the
 * thread-local pointer the caller points at it, to be dropped when the
 * segment goes; NULL when the segment has no room or no tallies, or the
 * ring is busy.
 */
uint64_t *rt_ring_tally(uint64_t **counters, const char *fn, uint8_t kind,
			uint64_t n);
/* A longjmp came back to the frame at @frame (see __pap_resume). */
void rt_ring_resume(uintptr_t frame);
/* In a forked child: the parent's rings are not ours. */
void rt_ring_after_fork_child(void);
/*
 * At exit: hands each of this process's rings back to the collector, or,
 * when the collector is gone, takes back what it did not drain into the
 * aggregate (rt_agg_keep) and reports what it drained but never wrote
 * as lost (rt_agg_lost).
 */
void rt_ring_exit(void);
/* The process's own aggregate was written: what the rings' threads kept
 * in it is settled. */
void rt_ring_dumped(void);
/* This thread's aggregate was spilled to the profile file: what its ring
 * kept there so far is settled. */
void rt_ring_spilled(void);

/* ---- the aggregate's counters in place (tally.c) ---- */

/* A block of @n zeroed counters for (@fn, @kind) in this process's
 * memory, read by the dump; NULL when out of memory.  errno is left as
 * it was. */
uint64_t *rt_tally_block(const char *fn, uint8_t kind, uint64_t n);
/* Adds what the threads counted in place since the last call to @into;
 * returns how many records it could not add (out of memory). */
uint64_t rt_tally_take(struct pap_profile *into);
/* Forgets what the threads counted in place so far (pap_reset). */
void rt_tally_forget(void);
/* In a forked child: the parent's counts are not ours. */
void rt_tally_after_fork_child(void);

/* ---- a record, offered to each sink in turn ---- */

/* A record without breakpoints (an EPP id, or a path's final value): to
 * the thread's ring, else counted in its aggregate. */
static inline void rt_sink_value(const char *fn, uint8_t kind,
				 uint8_t complete, uint64_t value)
{
	if (!rt_ring_none && rt_ring_take_value(fn, kind, complete, value))
		return;
	if (!rt_agg_count_cached(fn, kind, complete, value))
		rt_agg_keep(fn, kind, complete, value, NULL, 0, 1);
}

/* A record of @kind (PATH, CALLS or PROG) with @nbps > 0 breakpoints:
 * to the thread's ring, else into its aggregate. */
static inline void rt_sink_path(const char *fn, uint8_t kind,
				uint8_t complete, uint64_t value,
				const struct pap_breakpoint *bps, uint32_t nbps)
{
	if (rt_ring_none ||
	    !rt_ring_take_path(fn, kind, complete, value, bps, nbps))
		rt_agg_keep(fn, kind, complete, value, bps, nbps, 1);
}

/* A block of @n counters for (@fn, @kind) where this thread's records
 * go: in its collector's segment, or in this process's memory; NULL
 * when there is none (the records then take the ordinary way). */
static inline uint64_t *rt_sink_tally(uint64_t **counters, const char *fn,
				      uint8_t kind, uint64_t n)
{
	if (rt_ring_attached())
		return rt_ring_tally(counters, fn, kind, n);
	return rt_tally_block(fn, kind, n);
}

/* A longjmp came back to the frame at @frame: no sink's runtime frame
 * deeper in the stack is running any more. */
static inline void rt_sink_resume(uintptr_t frame)
{
	rt_agg_resume(frame);
	rt_ring_resume(frame);
}

#endif /* PAP_RT_SINK_H */
