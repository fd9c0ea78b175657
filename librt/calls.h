/* SPDX-License-Identifier: MIT */
/*
 * calls.h - a thread's call sequence: the register cr, the shadow stack
 * of frames, the slow-path entry points, and the probes' fast paths as
 * inline functions (internal; the plugin emits the same operations as
 * GIMPLE).  What is recorded is exactly libcore/callseq.h's record: the
 * final cr and the breakpoints and marks of pap_cseq_exec().
 *
 * A probe's view, for an instrumented function f with key KEY_f at
 * address &f (last: the activation's last source, a local of f):
 *
 *   entry        me = pap_c_enter(KEY_f, &f); last = PAP_CG_SRC_E;
 *   C_k          pap_c_node(radix, digit of last, k);
 *                pap_c_call(me, k, address called);
 *   return of k  c = pap_c_return(me);  (c = 0 without reading it for a
 *                direct call of a function of the unit surely entered
 *                and ending in no tail chain: its entry consumed the
 *                call, whichever path it took, so expect is ENTERED)
 *                indirect, c == 0: pap_c_cluster(ncl, i, p, k);
 *                last = pap_cg_src(k, c);
 *   tail call k  pap_c_node(...); pap_c_tail(me, k, KEY_f, &g);
 *   self tail k  (a direct tail call of f itself) pap_c_node(...);
 *                pap_c_selftail(me, k); f's entry is then
 *                me = pap_c_enter_self(KEY_f, &f, &last), which takes
 *                the frame again and sets last = T_k (callgraph.h)
 *   X            pap_c_node(radix, digit of last, PAP_CS_CODE_X);
 *                pap_c_exit(me);
 *   receiver s   (a setjmp's second return, a landing pad)
 *                __pap_cresume(me, s); last = s;
 *
 * The shadow stack: frame 0 is the thread's base (expect PAP_CF_BASE);
 * an activation's frame is pushed at its entry and popped at its exit or
 * its tail call; a self tail call keeps it for the next activation.  A frame's expect says what its call in progress did:
 * the address called (nothing entered yet), PAP_CF_ENTERED (the callee
 * was entered), PAP_CF_TAIL (a tail call of the chain is running,
 * texpect the address it called), PAP_CF_ENTERED_TAILED (the chain
 * entered its last callee, tlast).  A free frame (above the top) is
 * clean: expect PAP_CF_IDLE or PAP_CF_ENTERED, flags 0 and tails 0, so
 * that an entry's fast path sets its key alone; the slow paths that pop
 * or abandon frames clean them.
 *
 * The breakpoints go to the thread's packer (bpack_online.h), whose
 * packed items rt_calls_take() hands over; callrec.c makes them the
 * thread's CALLS record (pap/records.h) when its sequence ends: at the
 * thread's end, and for the thread that calls exit, at exit.
 *
 * Signal handlers.  An entry from outside while instrumented code runs
 * (the top frame in no call, its callee back, or calling an
 * instrumented function not yet entered: only a signal can do that) is
 * a handler with a sequence of its own: the interrupted cr, packer and
 * top are saved (up to RT_CSIG_MAX levels of nesting, in the thread's
 * slots), the handler's frames start two above the top (the one above
 * may be half filled by an interrupted entry), and its outermost exit
 * hands the complete record, OUT_ENTER first, to the recorder
 * (rt_calls_set_async_end) and restores what it interrupted, so that an
 * interrupted fold ends on the value it read.  Deeper nesting is inline
 * and loses the interrupted sequence.  A handler's outermost function
 * that leaves by a tail call ends the handler's sequence there (OUT_TAIL
 * last); an instrumented tail callee starts one of its own.  A longjmp
 * out of a handler (a resume below its frames), or exit inside one,
 * loses the handler's sequence and the one it interrupted.  A handler that runs during a
 * call to uninstrumented code is inline: an outside frame of the
 * thread's sequence.  Not exact: a handler that is itself the callee
 * the interrupted call expects, landing between the call's expect and
 * the callee's entry, passes the fast check and takes the call's place;
 * the callee's own entry then finds the call consumed and becomes a
 * separate sequence (the two runs of that function swap places).
 *
 * fork: the child keeps the stack and starts a sequence at fork's
 * return, cr 1 and its packer empty, with the mark FORK_START; its
 * record begins inside the frames open at the fork (callseq.h).  A
 * child forked while a tail chain entered before the fork is open, or
 * by a handler's code, loses its sequence.
 */
#ifndef PAP_RT_CALLS_H
#define PAP_RT_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "callseq.h"
#include "pap/abi.h"
#include "pap/export.h"
#include "rt.h"

/* The thread's top frame, its last usable frame, and its register. */
extern RT_TLS PAP_API struct pap_cframe *__pap_cs;
extern RT_TLS PAP_API struct pap_cframe *__pap_cs_limit;
extern RT_TLS PAP_API uint64_t __pap_cr;

/*
 * The end of the thread's sequence: FRAMES of what is open, then the
 * record, *@value and its breakpoints packed (pap_bpack()'s form),
 * *@nbps items at *@bps (the thread's, valid until its next breakpoint),
 * and a new sequence starts at the base.  Returns 0, or 1 when the
 * record is incomplete (a breakpoint could not be kept, more than
 * UINT32_MAX of them, or calls past the stack's bound).
 */
int rt_calls_take(uint64_t *value, const struct pap_breakpoint **bps,
		  size_t *nbps);
/* The thread's end: its stack and breakpoints are released. */
void rt_calls_thread_end(void);
/* Has this thread's sequence begun (an entry ran since the thread
 * started or its last rt_calls_take)?  Only then does its end make a
 * record. */
int rt_calls_begun(void);
/* Are frames open above the thread's base: its record, taken now,
 * ends with FRAMES and is cut short? */
int rt_calls_open(void);
/* In a forked child: a fresh sequence at fork's return (above). */
void rt_calls_after_fork_child(void);
/* Names the function at an address (an indirect call's callee): the
 * unit registry (cunit.c) installs its lookup, tests their own; NULL:
 * not known. */
void rt_calls_set_key_of(const char *(*key_of)(uintptr_t addr));
/* Called when a thread's sequence begins, before its first mark (the
 * runtime registers its thread-end hook there: callrec.c); NULL in the
 * tests. */
void rt_calls_set_begin(void (*begin)(void));
/* Called, in the handler, when a signal handler's own sequence ends
 * (its outermost exit): the record as rt_calls_take() gives it, the
 * breakpoints valid until the call returns; NULL in the tests. */
void rt_calls_set_async_end(void (*end)(uint64_t value,
					const struct pap_breakpoint *bps,
					size_t nbps, int lost));
/* Names a key's id for the marks (pap_fnid() of it, by a faster way);
 * unset: pap_fnid(). */
void rt_calls_set_id_of(uint64_t (*id_of)(const char *key));

/* Tests build the fast paths with an overflow limit below 2^64. */
#ifdef PAP_CALLS_TESTING
extern uint64_t rt_calls_limit;
#endif

/* cr*n + d, or the overflow breakpoint and 1*n + d (the test of
 * libcore/util.h:pap_fold_overflows, without the division). */
static inline uint64_t pap_cfold(uint64_t r, uint64_t n, uint64_t d,
				 uint32_t site)
{
#ifdef PAP_CALLS_TESTING
	if (!(d > rt_calls_limit || r > (rt_calls_limit - d) / n))
		return r * n + d;
#else
	uint64_t v;

	if (!__builtin_mul_overflow(r, n, &v) &&
	    !__builtin_add_overflow(v, d, &v))
		return v;
#endif
	return __pap_cbreak(r, n, d, site);
}

/* A node of radix @n folds the digit @d (nothing when n < 2). */
static inline void pap_c_node(uint32_t n, uint32_t d, uint32_t code)
{
	if (n > 1)
		__pap_cr = pap_cfold(__pap_cr, n, d, code);
}

/* The entry probe of the function @key at @self. */
static inline struct pap_cframe *pap_c_enter(const char *key, uintptr_t self)
{
	struct pap_cframe *t = __pap_cs, *me;

	if (__builtin_expect(t->expect == self && t < __pap_cs_limit, 1)) {
		t->expect = PAP_CF_ENTERED;		/* consume */
		me = t + 1;
		me->key = key;		/* init: expect and flags are clean */
		__pap_cs = me;				/* publish */
		return me;
	}
	return __pap_center(t, key, self);
}

/* The entry probe of a function @key at @self with self tail sites:
 * where the top frame holds its own tail call (expect SELFTAIL, its key
 * @key) that frame again, *@last = T_k of the frame's site k; else
 * pap_c_enter(), *@last = E. */
static inline struct pap_cframe *pap_c_enter_self(const char *key,
						  uintptr_t self,
						  uint32_t *last)
{
	struct pap_cframe *t = __pap_cs;

	if (t->expect != self && t->expect == PAP_CF_SELFTAIL &&
	    t->key == key) {
		t->expect = PAP_CF_IDLE;
		*last = pap_cg_src(t->site, 0);
		return t;
	}
	*last = PAP_CG_SRC_E;
	return pap_c_enter(key, self);
}

/* Self tail site @k (after C_k's fold): the frame stays, the site
 * first, so that the entry that sees SELFTAIL reads it. */
static inline void pap_c_selftail(struct pap_cframe *me, uint32_t k)
{
	me->site = k;
	me->expect = PAP_CF_SELFTAIL;
}

/* Call site @k calls @callee (after C_k's fold). */
static inline void pap_c_call(struct pap_cframe *me, uint32_t k,
			      uintptr_t callee)
{
	me->site = k;
	me->expect = callee;
}

/* The call in progress came back: its class (callgraph.h), 0, 1 or 2,
 * with the TAIL_* mark of class 2 made. */
static inline uint32_t pap_c_return(struct pap_cframe *me)
{
	uintptr_t c = me->expect;

	if (__builtin_expect(c == PAP_CF_ENTERED, 1))
		return 0;
	me->expect = PAP_CF_IDLE;	/* before any fold */
	if (c == PAP_CF_TAIL || c == PAP_CF_ENTERED_TAILED)
		return __pap_creturn(me, c);
	return 1;
}

/* An indirect site @k's return into an instrumented callee @p, @i its
 * index among the @ncl functions of the site's cluster (ncl: none). */
static inline void pap_c_cluster(uint32_t ncl, uint32_t i, uintptr_t p,
				 uint32_t k)
{
	if (i == ncl)
		__pap_ccallee(p);
	pap_c_node(ncl + 1, i, PAP_CS_CODE_CLUSTER | k);
}

/* Tail call at site @k of the function @key to @callee (after C_k's
 * fold): the frame is gone, its caller's call goes on in @callee. */
static inline void pap_c_tail(struct pap_cframe *me, uint32_t k,
			      const char *key, uintptr_t callee)
{
	struct pap_cframe *t = me - 1;

	if (__builtin_expect(me->flags != 0, 0)) {
		__pap_ctail(me, k);
		return;
	}
	__pap_cs = t;
	t->tkey = key;
	t->tsite = k;
	t->texpect = callee;
	t->expect = PAP_CF_TAIL;	/* last: the callee's check fails */
}

/* The exit probe (after X's fold). */
static inline void pap_c_exit(struct pap_cframe *me)
{
	if (__builtin_expect(me->flags != 0, 0))
		__pap_cexit(me);
	else
		__pap_cs = me - 1;
}

#endif /* PAP_RT_CALLS_H */
