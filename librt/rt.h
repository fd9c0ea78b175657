/* SPDX-License-Identifier: MIT */
/*
 * rt.h - what libpaprt's two sinks tell each other (internal).
 *
 * paprt.c aggregates records in the process's own memory and writes the
 * profile file (the file sink); shmsink.c streams them to pap-collector
 * through a shared-memory ring per thread.  A record goes to the ring when
 * the thread has one with room, else into the thread's aggregate.
 */
#ifndef PAP_RT_H
#define PAP_RT_H

#include <stdint.h>

#include "decode.h"

/*
 * The runtime's thread-local state: initial-exec, so that reaching it is
 * one instruction rather than a call through __tls_get_addr.  libpaprt is
 * linked into programs, not loaded by dlopen, so the static TLS block
 * always has room.
 */
#define RT_TLS __thread __attribute__((tls_model("initial-exec")))

/* Nonzero once this thread knows it has no ring (no collector, or its
 * ring is gone): a record then goes straight to the aggregate. */
extern RT_TLS int rt_ring_none;

/*
 * Hands one record to this thread's collector: 1 if it took it (counted
 * in a slot of the thread's segment, or written to its ring), 0 if the
 * caller must keep it (no collector, ring full, or called from inside the
 * ring code by a signal handler).  No lock, no system call on the common
 * path.  rt_ring_value takes a record without breakpoints (kind
 * PAP_REC_PATH or PAP_REC_BL), rt_ring_path one with.
 */
int rt_ring_value(const char *fn, uint8_t kind, uint8_t complete,
		  uint64_t value);
int rt_ring_path(const char *fn, uint8_t complete, uint64_t value,
		 const struct pap_breakpoint *bps, uint32_t nbps);	/* nbps > 0 */

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
 * aggregate (rt_keep_record) and reports what it drained but never wrote
 * as lost (rt_report_lost).
 */
void rt_ring_exit(void);
/* The process's own aggregate was written: what the rings' threads kept
 * in it is settled. */
void rt_ring_dumped(void);

/*
 * Where a record without breakpoints, (@fn, @kc = kind | complete << 8,
 * @value), is looked for in a direct-mapped table of a power of two
 * entries: the low bits of this hash.  The key is the function string's
 * address, which the ABI keeps stable, never its text.
 */
static inline uint32_t rt_record_hash(const char *fn, unsigned kc,
				      uint64_t value)
{
	return (uint32_t)((((uintptr_t)fn ^ value * 0x9e3779b97f4a7c15ull ^
			    kc) * 0xff51afd7ed558ccdull) >> 32);
}

/* Implemented by paprt.c for the ring code. */
void rt_start(void);
/* Keeps @count records in this thread's aggregate. */
void rt_keep_record(const char *fn, uint8_t kind, uint8_t complete,
		    uint64_t value, const struct pap_breakpoint *bps,
		    uint32_t nbps, uint64_t count);
void rt_report_lost(uint64_t n);

/*
 * tally.c.  Adds what the threads counted in place since the last call
 * to @into; returns how many records it could not add (out of memory).
 */
uint64_t rt_tally_take(struct pap_profile *into);
/* Forgets what the threads counted in place so far (pap_reset). */
void rt_tally_forget(void);
/* In a forked child: the parent's counts are not ours. */
void rt_tally_after_fork_child(void);

#endif /* PAP_RT_H */
