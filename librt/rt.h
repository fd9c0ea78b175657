/* SPDX-License-Identifier: MIT */
/*
 * rt.h - libpaprt's layers, and what every layer shares (internal).
 *
 * The runtime is three layers; calls go down, never up, but for the two
 * hooks of the process's life below (rt_start, rt_on_thread_end):
 *
 *       instrumented code                      the program
 *              | pap/abi.h                          | pap/pap.h
 *   +----------v---------------------+  +-----------v-----------------+
 *   | entry.c: the __pap_* entry     |  | process.c: pap_dump,        |
 *   | points, activations and their  |  | pap_reset; the process's    |
 *   | breakpoint stack, loss marks   |  | start, fork, exit and each  |
 *   |                                |  | thread's end, for every     |
 *   |                                |  | layer                       |
 *   +----------+---------------------+  +-----------+-----------------+
 *              | sink.h: a finished record          |
 *   +----------v------------------------------------v-----------------+
 *   | the sinks                                                       |
 *   |  shmsink.c: this thread's ring and slots in the collector's    |
 *   |     segment; what it cannot take goes to the aggregate         |
 *   |        | rt_agg_keep, rt_agg_lost (what the collector left)    |
 *   |        v                                                       |
 *   |  aggregate.c: each thread's aggregate, written to the profile  |
 *   |     file by pap_dump            tally.c: counters the code     |
 *   |                                 increments in process memory   |
 *   +----------+------------------------------------------------------+
 *              |
 *   libcore: profdata.h (the profile), reccache.h (where a record is),
 *            ring.h, bpack.h, foldrun.h
 *
 * A record goes to this thread's ring when it has one with room, else
 * into its aggregate (sink.h says how).  rtwhere.c (where records go),
 * intern.c (function keys of shared objects), pages.c (memory that a
 * signal handler may take) and trace.c (the test oracle's tracer) stand
 * beside the layers and call none of them.  calls.c (a thread's call
 * sequence, calls.h) and cunit.c (the units registered, cunit.h) stand
 * beside them too; callrec.c makes an ended sequence records for the
 * sinks, and process.c ends the sequences.
 */
#ifndef PAP_RT_H
#define PAP_RT_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

/*
 * The runtime's thread-local state: initial-exec, so that reaching it is
 * one instruction rather than a call through __tls_get_addr.  libpaprt is
 * linked into programs, not loaded by dlopen, so the static TLS block
 * always has room.
 */
#define RT_TLS __thread __attribute__((tls_model("initial-exec")))

/* A nonzero mark of the calling runtime frame's place on the stack: what
 * a layer's "in the middle of" flags hold, for __pap_resume. */
#define RT_HERE() ((uintptr_t)__builtin_frame_address(0) | 1)

/*
 * The process's hooks (process.c), which reach every layer: at exit the
 * rings go back to the collector and the aggregates are written, and a
 * forked child forgets what its parent counted.  A layer calls
 * rt_start() before it holds anything these hooks must see; it may be
 * called any number of times, from any thread.
 */
void rt_start(void);
/* This thread's end runs each layer's end (rt_agg_thread_end,
 * rt_entry_thread_end); after rt_start(). */
void rt_on_thread_end(void);

/*
 * The runtime's memory (pages.c): mapped pages, which a signal handler
 * may take while its thread is inside malloc.  rt_map_resize makes @p
 * (NULL: a new mapping, zeroed) of @old bytes @size bytes, keeping its
 * content; NULL, @p untouched, when it cannot.  rt_map_mem gives them to
 * the core's structures (mem.h).
 */
void *rt_map_resize(void *p, size_t old, size_t size);
void rt_map_release(void *p, size_t size);
extern const struct pap_mem rt_map_mem;

/* entry.c's part of a thread's end: its breakpoint buffers are freed;
 * and of a forked child: the parent's thread was in none of its calls. */
void rt_entry_thread_end(void);
void rt_entry_after_fork_child(void);

#endif /* PAP_RT_H */
