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
		 * from it comes back to the limit */
		rt_clost = 1;
		return cpush(__pap_cs_limit, key, PAP_CF_DEEP);
	}
	if (t->expect == PAP_CF_TAIL && t->texpect == self) {
		cmark(PAP_CS_TAIL_ENTRY | t->tsite, 1, t->tkey, PAP_NONE, 0);
		t->tails++;
		t->tlast = key;
		t->expect = PAP_CF_ENTERED_TAILED;
		return cpush(t, key, 0);
	}
	cmark(PAP_CS_OUT_ENTER, 1, key, PAP_NONE, 0);
	return cpush(t, key, PAP_CF_OUTSIDE);
}

void __pap_cexit(struct pap_cframe *me)
{
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
	/* the parent's breakpoints are its own: the next push starts the
	 * child's from empty */
	if (rt_cpack)
		rt_cdone = 1;
	__pap_cr = 1;
	rt_clost = 0;
	/* at the base, the child's sequence begins at its next entry */
	rt_cbegun = rt_calls_open();
}

void rt_calls_thread_end(void)
{
	if (rt_cbase && rt_cbase != rt_cnomap)
		rt_map_release(rt_cbase, RT_CALLS_MAP);
	if (rt_cpack) {
		pap_bpack_online_free(rt_cpack);
		rt_map_release(rt_cpack, sizeof(*rt_cpack));
	}
	rt_cbase = NULL;
	rt_cpack = NULL;
	rt_cdone = 0;
	rt_clost = 0;
	rt_cbegun = 0;
	__pap_cs = (struct pap_cframe *)&rt_csentinel;
	__pap_cs_limit = NULL;
	__pap_cr = 1;
}
