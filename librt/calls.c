/* SPDX-License-Identifier: MIT */
/*
 * calls.c - a thread's call sequence: the shadow stack and the slow
 * paths of the probes (calls.h).  Every mark is written as
 * libcore/callseq.c:pap_cseq_exec writes it: (site, cr), the payload,
 * then cr = 1.
 */
#include <stddef.h>
#include <stdint.h>

#include "bpack_online.h"
#include "calls.h"
#include "fnkey.h"

/* Frames a thread's stack holds: 64 bytes each, reserved, and touched
 * only as deep as the calls go.  Two more are mapped: the base, and the
 * frame that entries past the bound share. */
#ifndef RT_CALLS_FRAMES
#define RT_CALLS_FRAMES (1u << 16)
#endif
#define RT_CALLS_MAP ((RT_CALLS_FRAMES + 2) * sizeof(struct pap_cframe))

/* Never written: its expect matches no address and its limit check
 * fails, so a thread's first entry takes the slow path. */
static const struct pap_cframe rt_csentinel = { .expect = PAP_CF_IDLE };

RT_TLS struct pap_cframe *__pap_cs = (struct pap_cframe *)&rt_csentinel;
RT_TLS struct pap_cframe *__pap_cs_limit;
RT_TLS uint64_t __pap_cr = 1;

#ifdef PAP_CALLS_TESTING
uint64_t rt_calls_limit = UINT64_MAX;
#endif

static RT_TLS struct pap_cframe *rt_cbase;	/* frame 0; NULL: unmapped */
static RT_TLS struct pap_cframe rt_cnomap[2];	/* when mapping failed */
/* the sequence's breakpoints, packed as they come; after
 * rt_calls_take() handed them over (rt_cdone), reset at the next one */
static RT_TLS struct pap_bpack_online *rt_cpack;
static RT_TLS int rt_cdone;
static RT_TLS int rt_clost;
/* an entry ran since the thread started or its last rt_calls_take */
static RT_TLS int rt_cbegun;

static const char *(*rt_ckey_of)(uintptr_t addr);
static uint64_t (*rt_cid_of)(const char *key);
static void (*rt_cbegin)(void);
static void (*rt_casync_end)(uint64_t value, const struct pap_breakpoint *bps,
			     size_t nbps, int lost);

/*
 * Signal handlers that interrupt instrumented code (calls.h): each runs
 * a sequence of its own.  What it interrupted is saved here, one slot a
 * level of nesting; the slots and their packers are the thread's, made
 * once and kept, so that a handler allocates nothing but, the first
 * time at a level, a packer from rt_map_mem (mmap).  A handler nested
 * deeper than RT_CSIG_MAX is taken inline and the sequence it
 * interrupted is lost.
 */
#define RT_CSIG_MAX 4
/* a frame's flag: entered by a handler that interrupted instrumented
 * code; its exit ends the handler's sequence */
#define RT_CF_ASYNC 0x100u

struct rt_csaved {
	uint64_t cr;
	struct pap_bpack_online *pack;
	struct pap_cframe *top;		/* the interrupted thread's top */
	int done, lost;
};

static RT_TLS struct rt_csaved rt_csaved[RT_CSIG_MAX];
static RT_TLS struct pap_bpack_online *rt_csigpack[RT_CSIG_MAX];
static RT_TLS volatile unsigned rt_csig;	/* handlers' sequences running */

void rt_calls_set_key_of(const char *(*key_of)(uintptr_t addr))
{
	rt_ckey_of = key_of;
}

void rt_calls_set_id_of(uint64_t (*id_of)(const char *key))
{
	rt_cid_of = id_of;
}

void rt_calls_set_begin(void (*begin)(void))
{
	rt_cbegin = begin;
}

void rt_calls_set_async_end(void (*end)(uint64_t value,
					const struct pap_breakpoint *bps,
					size_t nbps, int lost))
{
	rt_casync_end = end;
}

int rt_calls_begun(void)
{
	return rt_cbegun;
}

int rt_calls_open(void)
{
	return rt_cbase && __pap_cs > rt_cbase;
}

/* The thread's packer, made at its first use; NULL when it cannot be. */
static struct pap_bpack_online *cpack(void)
{
	if (!rt_cpack) {
		rt_cpack = rt_map_resize(NULL, 0, sizeof(*rt_cpack));
		if (!rt_cpack)
			return NULL;
		pap_bpack_online_init(rt_cpack, &rt_map_mem);
	} else if (rt_cdone) {
		pap_bpack_online_reset(rt_cpack);
	}
	rt_cdone = 0;
	return rt_cpack;
}

/* Appends a breakpoint to the sequence; when it cannot, or when the
 * sequence has more than a record holds, the record is incomplete. */
static void cbp(uint32_t site, uint64_t r)
{
	struct pap_breakpoint bp = { .site = site, .r = r };
	struct pap_bpack_online *s = cpack();

	if (!s || s->pushed >= UINT32_MAX || pap_bpack_online_push(s, &bp))
		rt_clost = 1;
}

static uint64_t fnid(const char *key)
{
	if (!key)
		return 0;
	return rt_cid_of ? rt_cid_of(key) : pap_fnid(key);
}

/* A mark: (site, cr), an ID entry naming @key when @named, an ARG entry
 * (PAP_CS_ARG | @arg, @val) when @arg is not PAP_NONE, then cr = 1. */
static void cmark(uint32_t site, int named, const char *key, uint32_t arg,
		  uint64_t val)
{
	cbp(site, __pap_cr);
	if (named)
		cbp(PAP_CS_ID, fnid(key));
	if (arg != PAP_NONE)
		cbp(PAP_CS_ARG | arg, val);
	__pap_cr = 1;
}

/* FRAMES of the frames @from..__pap_cs, bottom first; a frame whose
 * chain's last tail call left to uninstrumented code adds a TAILOUT
 * entry naming that call. */
static void cframes(struct pap_cframe *from)
{
	struct pap_cframe *f;
	uint32_t n = 0;

	for (f = from; f <= __pap_cs; f++)
		n += 1 + (f->expect == PAP_CF_TAIL);
	cbp(PAP_CS_FRAMES | n, __pap_cr);
	for (f = from; f <= __pap_cs; f++) {
		uint32_t a = f->site & PAP_CS_F_SITE;

		if (f->flags & PAP_CF_OUTSIDE)
			a |= PAP_CS_F_OUTSIDE;
		cbp(PAP_CS_ID, fnid(f->key));
		cbp(PAP_CS_ARG | a, f->tails);
		if (f->expect == PAP_CF_TAIL) {
			cbp(PAP_CS_ID, fnid(f->tkey));
			cbp(PAP_CS_ARG | PAP_CS_F_TAILOUT |
			    (f->tsite & PAP_CS_F_SITE), 0);
		}
	}
	__pap_cr = 1;
}

/* Maps the thread's stack; on failure, a two-frame stack where every
 * entry is past the bound. */
static struct pap_cframe *cmap(void)
{
	struct pap_cframe *b = rt_map_resize(NULL, 0, RT_CALLS_MAP);

	if (!b) {
		rt_clost = 1;
		b = rt_cnomap;
		__pap_cs_limit = b;
	} else {
		__pap_cs_limit = b + RT_CALLS_FRAMES;
	}
	rt_cbase = b;
	b->expect = PAP_CF_BASE;
	__pap_cs = b;
	return b;
}

/* Makes the frames @from..@to free: clean (calls.h). */
static void cclean(struct pap_cframe *from, struct pap_cframe *to)
{
	struct pap_cframe *f;

	for (f = from; f <= to; f++) {
		f->expect = PAP_CF_IDLE;
		f->flags = 0;
		f->tails = 0;
	}
}

/* Pushes the frame above @t for @key. */
static struct pap_cframe *cpush(struct pap_cframe *t, const char *key,
				uint32_t flags)
{
	struct pap_cframe *me = t + 1;

	me->key = key;
	me->expect = PAP_CF_IDLE;
	me->flags = flags;
	__pap_cs = me;
	return me;
}

/*
 * Was instrumented code running when this entry came from outside, so
 * that only an asynchronous signal can have made it?  The top frame says
 * so (design: the ordering rule) when it is in no call (IDLE), its
 * callee came back (ENTERED, ENTERED_TAILED), its own tail call is on
 * its way to an entry that did not take it back (SELFTAIL: another
 * function's entry, a handler's), or the call in progress
 * is to an instrumented function not yet entered: its entry probe may
 * be half done.  Every other state is a call to uninstrumented code
 * running, whose callbacks and handlers are inline.
 */
static int casync_p(const struct pap_cframe *t)
{
	uintptr_t e = t->expect;

	if (e == PAP_CF_IDLE || e == PAP_CF_ENTERED ||
	    e == PAP_CF_ENTERED_TAILED || e == PAP_CF_SELFTAIL)
		return 1;
	if (e == PAP_CF_BASE || e == PAP_CF_TAIL)
		return 0;
	return rt_ckey_of && rt_ckey_of(e);
}

/*
 * A handler's entry while instrumented code runs: the interrupted
 * sequence (cr, packer, lost) is saved and the handler's begins, with
 * OUT_ENTER, in a packer of its own; its frames start at @t + 2, above
 * a frame an interrupted entry may be filling.  Past RT_CSIG_MAX levels
 * (or the stack's bound) the entry is inline and the interrupted
 * sequence lost.
 */
static struct pap_cframe *casync_enter(struct pap_cframe *t, const char *key)
{
	unsigned lv = rt_csig;
	struct rt_csaved *sv;

	if (lv >= RT_CSIG_MAX || t + 2 >= __pap_cs_limit) {
		rt_clost = 1;
		cmark(PAP_CS_OUT_ENTER, 1, key, PAP_NONE, 0);
		return cpush(t, key, PAP_CF_OUTSIDE);
	}
	sv = &rt_csaved[lv];
	sv->cr = __pap_cr;
	sv->pack = rt_cpack;
	sv->top = t;
	sv->done = rt_cdone;
	sv->lost = rt_clost;
	rt_csig = lv + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_cpack = rt_csigpack[lv];
	rt_cdone = 1;		/* the packer starts empty */
	rt_clost = 0;
	__pap_cr = 1;
	cmark(PAP_CS_OUT_ENTER, 1, key, PAP_NONE, 0);
	rt_csigpack[lv] = rt_cpack;	/* made by the mark, if not yet */
	return cpush(t + 1, key, PAP_CF_OUTSIDE | RT_CF_ASYNC);
}

/* Back to what the innermost handler's sequence interrupted. */
static void casync_restore(void)
{
	struct rt_csaved *sv = &rt_csaved[rt_csig - 1];

	rt_csigpack[rt_csig - 1] = rt_cpack;
	/* the handler's frames, from the saved top + 2 up, are left free
	 * and clean (calls.h), for entries that do not initialise them */
	if (__pap_cs >= sv->top + 2)
		cclean(sv->top + 2, __pap_cs);
	__pap_cr = sv->cr;
	rt_cpack = sv->pack;
	rt_cdone = sv->done;
	rt_clost = sv->lost;
	__pap_cs = sv->top;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_csig--;
}

/*
 * The handler's outermost exit (@k 0), or its tail call at site @k: its
 * sequence, complete, goes to the recorder (callrec.c), and what it
 * interrupted is restored as it was, so that an interrupted fold
 * finishes on the value it had read.  After a tail call the handler may
 * go on in uninstrumented code, where no probe would see its end: its
 * tail callee, if instrumented, starts a sequence of its own.  With no
 * handler's sequence running (exit or a fork in a handler took it), the
 * frame below the handler's is the top again and the sequence is lost.
 */
static void casync_exit(struct pap_cframe *me, uint32_t k)
{
	const struct pap_breakpoint *bps = NULL;
	size_t nbps = 0;
	uint64_t value;
	int lost;

	if (!rt_csig) {
		rt_clost = 1;
		cclean(me, me);
		__pap_cs = me - 2;
		return;
	}
	if (k)
		cmark(PAP_CS_OUT_TAIL | k, 1, me->key, PAP_NONE, 0);
	else
		cmark(PAP_CS_OUT_RETURN, 1, me->key, PAP_NONE, 0);
	value = __pap_cr;
	if (cpack()) {
		bps = pap_bpack_online_finish(rt_cpack, &nbps);
		rt_cdone = 1;
	}
	lost = rt_clost || !rt_cpack;
	if (rt_casync_end)
		rt_casync_end(value, bps, nbps, lost);
	casync_restore();
}

/*
 * The innermost handler's sequence is abandoned (a longjmp out of the
 * handler, exit inside it): counted lost, and so is the sequence it
 * interrupted, whose interrupted fold never completes.
 */
static void casync_abandon(void)
{
	if (rt_casync_end)
		rt_casync_end(1, NULL, 0, 1);
	casync_restore();
	rt_clost = 1;
}

struct pap_cframe *__pap_center(struct pap_cframe *t, const char *key,
				uintptr_t self)
{
	/* every sequence begins here: the base's expect matches no entry */
	if (!rt_cbegun) {
		rt_cbegun = 1;
		if (rt_cbegin)
			rt_cbegin();
	}
	if (t == &rt_csentinel)
		t = cmap();
	if (t >= __pap_cs_limit) {
		/* past the bound: the frame above the limit takes every
		 * deeper activation, and the sequence is lost; an exit
		 * from it comes back to the limit.  The call it came by is
		 * consumed, as the fast path does: a site whose callee is
		 * surely entered reads no expect after it (ABI 12) */
		rt_clost = 1;
		if (t->expect == self)
			t->expect = PAP_CF_ENTERED;
		return cpush(__pap_cs_limit, key, PAP_CF_DEEP);
	}
	if (t->expect == PAP_CF_TAIL && t->texpect == self) {
		cmark(PAP_CS_TAIL_ENTRY | t->tsite, 1, t->tkey, PAP_NONE, 0);
		t->tails++;
		t->tlast = key;
		t->expect = PAP_CF_ENTERED_TAILED;
		return cpush(t, key, 0);
	}
	if (casync_p(t))
		return casync_enter(t, key);
	cmark(PAP_CS_OUT_ENTER, 1, key, PAP_NONE, 0);
	return cpush(t, key, PAP_CF_OUTSIDE);
}

void __pap_cexit(struct pap_cframe *me)
{
	if (me->flags & RT_CF_ASYNC) {
		casync_exit(me, 0);
		return;
	}
	if (me->flags & PAP_CF_OUTSIDE)
		cmark(PAP_CS_OUT_RETURN, 1, me->key, PAP_NONE, 0);
	/* free and clean; the frame past the bound keeps DEEP for the
	 * deeper activations that share it */
	me->flags &= PAP_CF_DEEP;
	__pap_cs = me - 1;
}

uint32_t __pap_creturn(struct pap_cframe *me, uintptr_t c)
{
	if (me->flags & PAP_CF_DEEP)
		return 2;
	if (c == PAP_CF_TAIL)
		cmark(PAP_CS_TAIL_OUT | me->tsite, 1, me->tkey, 0, me->tails);
	else
		cmark(PAP_CS_TAIL_RETURN, 1, me->tlast, 0, me->tails);
	me->tails = 0;
	return 2;
}

void __pap_ccallee(uintptr_t p)
{
	cmark(PAP_CS_CALLEE, 1, rt_ckey_of ? rt_ckey_of(p) : NULL, PAP_NONE,
	      0);
}

void __pap_ctail(struct pap_cframe *me, uint32_t k)
{
	if (me->flags & RT_CF_ASYNC) {
		casync_exit(me, k);
		return;
	}
	if (me->flags & PAP_CF_DEEP) {
		__pap_cs = me - 1;
		return;
	}
	cmark(PAP_CS_OUT_TAIL | k, 1, me->key, PAP_NONE, 0);
	me->flags = 0;
	__pap_cs = me - 1;
}

void __pap_cresume(struct pap_cframe *me, uint32_t s)
{
	/* a longjmp out of signal handlers: their sequences are lost */
	while (rt_csig && me <= rt_csaved[rt_csig - 1].top)
		casync_abandon();

	if (me->flags & PAP_CF_DEEP) {
		rt_clost = 1;
		return;
	}
	cframes(me);
	cmark(PAP_CS_RESUME | s, 0, NULL, PAP_NONE, 0);
	cclean(me + 1, __pap_cs);
	me->expect = PAP_CF_IDLE;
	me->tails = 0;
	__pap_cs = me;
}

uint64_t __pap_cbreak(uint64_t r, uint64_t n, uint64_t d, uint32_t site)
{
	cbp(site, r);
	return n + d;
}

int rt_calls_take(uint64_t *value, const struct pap_breakpoint **bps,
		  size_t *nbps)
{
	int lost;

	/* inside signal handlers (exit in one): theirs are lost */
	while (rt_csig)
		casync_abandon();
	if (rt_cbase && __pap_cs > rt_cbase)
		cframes(rt_cbase + 1);
	*value = __pap_cr;
	*bps = NULL;
	*nbps = 0;
	if (cpack()) {
		*bps = pap_bpack_online_finish(rt_cpack, nbps);
		rt_cdone = 1;
	}
	lost = rt_clost;
	if (rt_cbase) {
		cclean(rt_cbase + 1, __pap_cs);
		__pap_cs = rt_cbase;
		rt_cbase->expect = PAP_CF_BASE;
	}
	__pap_cr = 1;
	rt_clost = 0;
	rt_cbegun = 0;
	return lost;
}

void rt_calls_after_fork_child(void)
{
	struct pap_cframe *f;
	unsigned i;
	int lost = 0;

	/* forked by a signal handler's code: the sequences running are
	 * the parent's, and the child's are lost (counted at their end) */
	if (rt_csig) {
		for (i = 0; i < rt_csig; i++)
			rt_csaved[i].lost = 1;
		rt_clost = 1;
		return;
	}
	/* the parent's breakpoints are its own: the next push starts the
	 * child's from empty */
	if (rt_cpack)
		rt_cdone = 1;
	__pap_cr = 1;
	rt_clost = 0;
	/* at the base, the child's sequence begins at its next entry */
	rt_cbegun = rt_calls_open();
	if (!rt_cbegun)
		return;
	/* the child returns through the frames open at the fork: its
	 * record starts there (FORK_START); the callers of a tail chain
	 * entered before the fork, or frames past the bound, cannot be
	 * named, and the sequence is lost */
	for (f = rt_cbase + 1; f <= __pap_cs; f++)
		if ((f->flags & PAP_CF_DEEP) || f->tails)
			lost = 1;
	cmark(PAP_CS_FORK_START, 0, NULL, PAP_NONE, 0);
	rt_clost = lost;
}

void rt_calls_thread_end(void)
{
	unsigned i;

	if (rt_cbase && rt_cbase != rt_cnomap)
		rt_map_release(rt_cbase, RT_CALLS_MAP);
	if (rt_cpack) {
		pap_bpack_online_free(rt_cpack);
		rt_map_release(rt_cpack, sizeof(*rt_cpack));
	}
	for (i = 0; i < RT_CSIG_MAX; i++)
		if (rt_csigpack[i]) {
			pap_bpack_online_free(rt_csigpack[i]);
			rt_map_release(rt_csigpack[i], sizeof(*rt_cpack));
			rt_csigpack[i] = NULL;
		}
	rt_csig = 0;
	rt_cbase = NULL;
	rt_cpack = NULL;
	rt_cdone = 0;
	rt_clost = 0;
	rt_cbegun = 0;
	__pap_cs = (struct pap_cframe *)&rt_csentinel;
	__pap_cs_limit = NULL;
	__pap_cr = 1;
}
