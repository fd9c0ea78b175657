/* SPDX-License-Identifier: MIT */
/*
 * cunit.h - the units compiled with calls that a process registered
 * (__pap_cunit, pap/abi.h), and the program they make (internal).
 *
 * The registry maps a function's address to its key, for the CALLEE
 * marks of indirect calls (calls.c).  The program is every unit
 * registered so far, named by PROGSUM: FNV-1a 64 over the sorted
 * pap_fnid()s of the units' keys, 8 bytes each, little-endian
 * (pap/records.h, doc/formats.md).  Units are never forgotten, so a
 * dlclose changes neither.  Each registration publishes a new snapshot
 * of both, built under a lock; readers load it lock-free.  Snapshots
 * are never freed (they are small and few): a reader may hold one while
 * the next is published.
 */
#ifndef PAP_RT_CUNIT_H
#define PAP_RT_CUNIT_H

#include <stdint.h>

#include <pap/abi.h>

#include "papdefs.h"

/* A program as registered so far; never changed once published. */
struct rt_cprog {
	uint64_t sum;			/* PROGSUM */
	uint32_t nunits;
	const char *const *units;	/* unit keys (interned), by id */
	/* the PROG record's breakpoints: (i, pap_fnid(units[i])) */
	const struct pap_breakpoint *bps;
	const char *calls_key;		/* "%calls:PROGSUM" (interned) */
	const char *prog_key;		/* "%prog:PROGSUM" (interned) */
	/* the offer generation (callrec.c) its records were offered in,
	 * plus 1; 0: never */
	unsigned offered;
};

/* The program now: NULL before the first unit registered. */
const struct rt_cprog *rt_cprog_now(void);
/* The key of the function registered at @addr; NULL: none. */
const char *rt_cunit_key_of(uintptr_t addr);
/* pap_fnid(@key), looked up by the string's address among the keys
 * registered (computed once, at registration) and computed otherwise;
 * 0 for NULL. */
uint64_t rt_cunit_id_of(const char *key);
/* PROGSUM of the @n ids @ids, which it sorts. */
uint64_t rt_cprog_sum(uint64_t *ids, uint32_t n);

/* callrec.c: the end of the calling thread's sequence makes its CALLS
 * record, the program's PROG and UNIT records offered first (once per
 * process and PROGSUM); nothing when its sequence has not begun. */
void rt_calls_record(void);
/* callrec.c: a sequence begins in this thread (rt_calls_set_begin). */
void rt_calls_began(void);
/* callrec.c: a signal handler's own sequence ended, in the handler
 * (rt_calls_set_async_end). */
void rt_calls_record_async(uint64_t value, const struct pap_breakpoint *bps,
			   size_t nbps, int lost);
/* callrec.c: at exit, after the exiting thread's record: each thread
 * whose sequence is still running is one record lost. */
void rt_calls_exit(void);
/* callrec.c: pap_reset and a forked child: what was offered is not in
 * the aggregates any more, so the programs are offered again. */
void rt_calls_forget_offers(void);
/* callrec.c: in a forked child, the one thread left. */
void rt_calls_record_after_fork_child(void);

#endif /* PAP_RT_CUNIT_H */
