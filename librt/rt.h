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

/* Stream one record to this thread's ring: 1 if it went, 0 if the caller
 * must keep it (no collector, ring full, or called from inside the ring
 * code by a signal handler).  No lock, no system call on the common path. */
int rt_ring_bl(const char *fn, uint64_t id);
int rt_ring_path(const char *fn, uint8_t complete, uint64_t value,
		 const struct pap_breakpoint *bps, uint32_t nbps);

/* A longjmp came back to the frame at @frame (see __pap_resume). */
/* rt_ring_path for a path without breakpoints, the common case. */
int rt_ring_path0(const char *fn, uint8_t complete, uint64_t value);

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
/* The process's own aggregate was written: nothing is held any more. */
void rt_ring_dumped(void);

/* Implemented by paprt.c for the ring code. */
void rt_start(void);
void rt_keep_record(const char *fn, uint8_t kind, uint8_t complete,
		    uint64_t value, const struct pap_breakpoint *bps,
		    uint32_t nbps);
void rt_report_lost(uint64_t n);

#endif /* PAP_RT_H */
