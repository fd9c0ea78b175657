/* SPDX-License-Identifier: MIT */
/*
 * pap/abi.h - the calls the GCC plugin inserts and libpaprt provides.
 *
 * Version 9.  The plugin emits a function's probe operations (see
 * libcore/plan.h) as inline arithmetic on 64-bit locals r and a, plus:
 *
 *   act = __pap_enter()
 *       at function entry: a serial number for this activation;
 *   r = __pap_fold(act, r, n, d, site, restart)
 *       r*n + d, or, when that overflows 64 bits, records the breakpoint
 *       (site, r) for activation act and returns restart*n + d;
 *   r = __pap_fold_run(act, r, n, first, d, site, restart, m, &brk)
 *       m such folds at once, the first of digit first and the others of
 *       d (n >= 1, first and d below n, as for every fold): those of a
 *       loop that counted its iterations instead while it ran.  Sets
 *       brk, the frame byte below, when one made a breakpoint or could
 *       not keep it; brk may be NULL;
 *   __pap_count(fn, id)
 *       counts the acyclic path id of function fn (mode epp);
 *   __pap_lost(act)
 *       activation act's path could not be recorded (a longjmp came back
 *       into it between calls: from a signal handler); its breakpoints
 *       are dropped;
 *   __pap_resume(frame)
 *       a longjmp came back into the activation whose frame holds frame:
 *       runtime work it abandoned deeper in the stack is forgotten;
 *   __pap_record(fn, act, r, complete)
 *       activation act of fn ends with value r; its breakpoints are taken
 *       and any left by activations abandoned inside it (longjmp) are
 *       dropped; complete is 0 when a noreturn call cut the path;
 *   __pap_path(fn, r, complete)
 *       the same for a function that can have no breakpoint (its plan
 *       has no fold) and no longjmp coming back into it: it calls no
 *       __pap_enter, and its record is its final value alone;
 *   __pap_tally(&counters, fn, value, nvalues, bl)
 *       counts a record without breakpoints whose value the plan bounds:
 *       an EPP id (bl = 1) or the final value of a path that is complete
 *       and cannot break (bl = 0), value < nvalues.  counters is the
 *       function's own static thread-local pointer, NULL until the
 *       runtime points it at nvalues counters of this thread; from then
 *       on the instrumented code adds 1 to counters[value] itself, with
 *       one instruction that a signal cannot split, and calls only while
 *       counters is NULL.  The runtime counts the record as __pap_count
 *       or __pap_path would, and leaves counters NULL when it has no
 *       block to give (with a collector, its segment is full).  On
 *       x86-64 the instrumented code reaches it through
 *       __pap_tally_preserving (ABI 7), which is no C function: below
 *       the red zone, the five arguments pushed in order (counters
 *       first), then a call; it returns with every general register but
 *       r10 and r11, and xmm0-15's low 128 bits, as they were (the
 *       others are clobbered as by a call), and the caller pops the
 *       arguments;
 *   __pap_tally_add(&counters, fn, value, nvalues, bl, n)
 *       n records of __pap_tally's kind at once: the count of a loop
 *       that kept it in a register while it ran.  The instrumented code
 *       adds n to counters[value] itself, with one instruction, and
 *       calls only while counters is NULL; n may be 0;
 *   __pap_end(&counters, fn, act, r, nvalues)
 *       __pap_record(fn, act, r, 1) for a function that may break, with
 *       counters as in __pap_tally: the instrumented code adds 1 to
 *       counters[r] itself when no fold of the activation called the
 *       runtime (so it has no breakpoint) and r < nvalues, and calls
 *       __pap_end otherwise; the runtime counts it in place too when the
 *       activation turns out to have no breakpoint.
 *
 * Every argument is a value, and instrumented code keeps no addressable
 * state, except the thread-local counters pointer of __pap_tally and a
 * frame byte that tells __pap_end's inline test a fold called the
 * runtime.
 * fn is a string "ASMNAME:CHECKSUM[:METAFILE]" naming the function and
 * the metadata file that describes it.  Code for an executable passes
 * its own string.  Code for a shared object (-fPIC) passes the value of
 * a static slot that starts out pointing at its own string, and which a
 * constructor of its translation unit (priority 100, before any of the
 * program's) sets once to
 *
 *   slot = __pap_intern(slot)
 *       the runtime's copy of the key (ABI 8): one address per distinct
 *       key for the process's life, which no dlclose unmaps and no
 *       object loaded later reuses.
 *
 * Every translation unit with instrumented code also has a constructor
 * (priority 100) that first calls
 *
 *   __pap_abi(PAP_ABI_VERSION, key)
 *       the ABI version the unit was built for (ABI 9), and the key of
 *       one of its functions, by which the runtime names the object
 *       (dladdr): an object built for another version is named once on
 *       stderr, and the process records nothing anywhere.
 *
 * Call sequences (ABI 10, -fplugin-arg-pap-calls; doc/algorithms.md,
 * "Inter-procedural paths"): each thread has a register __pap_cr, the
 * top __pap_cs of a shadow stack of struct pap_cframe (one per open
 * instrumented activation) and its last usable frame __pap_cs_limit, all
 * initial-exec thread-local (local-exec from an executable's code, ABI
 * 12).  A direct tail call of a function to itself keeps its frame
 * (expect PAP_CF_SELFTAIL, ABI 13).  The probes are inline code whose meaning
 * librt/calls.h gives as C (pap_c_enter, pap_c_node, pap_c_call,
 * pap_c_return, pap_c_cluster, pap_c_tail, pap_c_exit); their slow paths
 * are the __pap_c* calls below.  A unit's constructor also calls
 *
 *   __pap_cunit(&unit)
 *       after __pap_abi: the unit's functions compiled with calls, each
 *       by address and key, so that an indirect call's callee outside its
 *       site's cluster can be named, and the unit's own key
 *       "%unit:UNITSUM:METAFILE" (libcore/meta.h) for the profile's
 *       PROG and UNIT records.
 */
#ifndef PAP_ABI_H
#define PAP_ABI_H

#include <stdint.h>

#include <pap/export.h>

#define PAP_ABI_VERSION 13

#ifdef __cplusplus
extern "C" {
#endif

PAP_API void __pap_abi(uint32_t version, const char *key);
PAP_API const char *__pap_intern(const char *key);
PAP_API uint64_t __pap_enter(void);
PAP_API uint64_t __pap_fold(uint64_t act, uint64_t r, uint64_t n, uint64_t d,
			    uint32_t site, uint64_t restart);
PAP_API uint64_t __pap_fold_run(uint64_t act, uint64_t r, uint64_t n,
				uint64_t first, uint64_t d, uint32_t site,
				uint64_t restart, uint64_t m,
				unsigned char *brk);
PAP_API void __pap_count(const char *fn, uint64_t id);
PAP_API void __pap_lost(uint64_t act);
PAP_API void __pap_resume(const volatile void *frame);
PAP_API void __pap_record(const char *fn, uint64_t act, uint64_t r,
			  int complete);
PAP_API void __pap_path(const char *fn, uint64_t r, int complete);
PAP_API void __pap_tally(uint64_t **counters, const char *fn, uint64_t value,
			 uint64_t nvalues, int bl);
PAP_API void __pap_tally_add(uint64_t **counters, const char *fn,
			     uint64_t value, uint64_t nvalues, int bl,
			     uint64_t n);
PAP_API void __pap_end(uint64_t **counters, const char *fn, uint64_t act,
		       uint64_t r, uint64_t nvalues);

/* One open instrumented activation of a thread's call sequence (64
 * bytes; the plugin emits stores at these offsets).  ABI 11: a free
 * frame (above the top) is clean, expect PAP_CF_IDLE or PAP_CF_ENTERED
 * and flags 0, and the runtime keeps it so where it pops or abandons a
 * frame, so that an entry's fast path stores the key alone.  ABI 12:
 * __pap_center consumes the call it came by past the stack's bound
 * too, so that the return of a call surely entered reads nothing; and
 * code that is no shared library's (not -fPIC) reaches __pap_cs,
 * __pap_cs_limit and __pap_cr local-exec: the executable defines them
 * (pap-gcc links libpaprt.a into it). */
struct pap_cframe {
	uintptr_t expect;	/* 0: PAP_CF_*, or the address called */
	const char *key;	/* 8: the activation's function key */
	uint32_t site;		/* 16: the call in progress (1-based) */
	uint32_t flags;		/* 20: PAP_CF_OUTSIDE, PAP_CF_DEEP */
	uintptr_t texpect;	/* 24: PAP_CF_TAIL: the address tail called */
	const char *tkey;	/* 32: PAP_CF_TAIL: the tail caller's key */
	const char *tlast;	/* 40: the chain's last callee's key */
	uint32_t tsite, pad;	/* 48: PAP_CF_TAIL: the tail caller's site */
	uint64_t tails;		/* 56: tail entries of the call's chain (L) */
};

#define PAP_CF_IDLE		0u
#define PAP_CF_ENTERED		1u
#define PAP_CF_BASE		2u
#define PAP_CF_TAIL		3u
#define PAP_CF_ENTERED_TAILED	4u
/* the activation's own direct tail call (site in progress) is on its way
 * to the entry, which takes this frame again (ABI 13) */
#define PAP_CF_SELFTAIL		5u

/* frame flags: the exit and the tail call take the slow path */
#define PAP_CF_OUTSIDE		0x1u	/* entered from outside */
#define PAP_CF_DEEP		0x2u	/* past the stack's bound: lost */

/* A unit's functions compiled with calls, for __pap_cunit. */
struct pap_cunit_fn {
	uintptr_t addr;		/* the function's address */
	const char *key;	/* its key, as its probes pass it */
};

struct pap_cunit {
	const char *key;	/* "%unit:UNITSUM:METAFILE" */
	uint32_t nfns;
	const struct pap_cunit_fn *fns;
};

/* Entry by other than the call in progress of the top frame @t: from
 * outside (OUT_ENTER), by a tail call (TAIL_ENTRY), the thread's first
 * (maps the stack), or past the bound.  Returns the new frame. */
PAP_API struct pap_cframe *__pap_center(struct pap_cframe *t, const char *key,
					uintptr_t self);
/* Exit of a frame with flags: OUT_RETURN; pops it. */
PAP_API void __pap_cexit(struct pap_cframe *me);
/* Return of a call whose chain of tail calls ended (expect @c was
 * PAP_CF_TAIL or PAP_CF_ENTERED_TAILED): TAIL_OUT or TAIL_RETURN.
 * Returns the class, 2. */
PAP_API uint32_t __pap_creturn(struct pap_cframe *me, uintptr_t c);
/* An indirect call entered @p, not in the site's cluster: CALLEE. */
PAP_API void __pap_ccallee(uintptr_t p);
/* Tail call at site @k of a frame with flags: OUT_TAIL; pops it. */
PAP_API void __pap_ctail(struct pap_cframe *me, uint32_t k);
/* @me resumes at source @s, the frames above it abandoned: FRAMES from
 * @me up, then RESUME. */
PAP_API void __pap_cresume(struct pap_cframe *me, uint32_t s);
/* The fold r*n + d overflowed: breakpoint (site, r); returns 1*n + d. */
PAP_API uint64_t __pap_cbreak(uint64_t r, uint64_t n, uint64_t d,
			      uint32_t site);
/* A unit's functions compiled with calls (from its constructor). */
PAP_API void __pap_cunit(const struct pap_cunit *unit);

/*
 * The test oracle (-fplugin-arg-pap-trace): every block entered.  Begin
 * returns the depth of open activations with the new one; after a
 * longjmp came back, unwind drops those opened since (abandoned).
 */
PAP_API uint64_t __pap_trace_begin(const char *fn);
PAP_API void __pap_trace_unwind(uint64_t depth);
PAP_API void __pap_trace_block(uint32_t block);
PAP_API void __pap_trace_end(int complete);

#ifdef __cplusplus
}
#endif

#endif /* PAP_ABI_H */
