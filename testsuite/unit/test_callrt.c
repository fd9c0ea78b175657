/* SPDX-License-Identifier: MIT */
/*
 * test_callrt.c - the runtime's call-sequence probes and slow paths
 * (librt/calls.h) against the reference encoder.
 *
 * The simulator of callsim.h walks random programs and writes events.
 * A driver plays each event as the probes would: the entry, call,
 * return, cluster, tail and exit fast paths, with each activation's
 * last source in a local as the plugin keeps it, and the receivers'
 * resume.  The record the runtime makes (final cr and breakpoints,
 * packed as they come) must equal pap_cseq_exec()'s, packed by
 * pap_bpack(), for the same events at every overflow limit, and unpack
 * and decode back to the events.  The return class the runtime finds
 * must be the one the simulator took.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bpack.h"
#include "callseq.h"
#include "fnkey.h"
#include "testlib.h"

#include "calls.h"
#include "callsim.h"

/* Functions live at FN_ADDR(i); uninstrumented code at OUT_ADDR. */
#define FN_ADDR(i)	((uintptr_t)0x10000 + 64 * (uintptr_t)(i))
#define OUT_ADDR	((uintptr_t)0x90000)

static const struct tprog *cur_prog;

/* The unit registry's part for now: the function at an address. */
static const char *key_of(uintptr_t a)
{
	uintptr_t i = (a - FN_ADDR(0)) / 64;

	if (a < FN_ADDR(0) || i >= cur_prog->nfn || FN_ADDR(i) != a)
		return NULL;
	return cur_prog->key[i];
}

struct act {
	uint32_t fn;
	struct pap_cframe *me;
	uint32_t last;		/* the probe's local: last source */
	uintptr_t called;	/* the address of the call in progress */
	int selfpend;		/* its self tail call is on its way */
};

/* The callee the call event @i calls: the function whose entry follows
 * it, or uninstrumented code.  (A probe stores the address it calls; the
 * simulator decides only later whether a direct site with
 * PAP_SITE_MAYBE_OUT entered its callee, which is what a callee that
 * resolved to an uninstrumented definition does.) */
static uintptr_t called_at(const struct pap_cev *ev, size_t n, size_t i)
{
	if (i + 1 < n && ev[i + 1].kind == PAP_CEV_ENTER)
		return FN_ADDR(ev[i + 1].fn);
	return OUT_ADDR;
}

static void node(const struct pap_callgraph *g, uint32_t v, uint32_t last,
		 uint32_t code)
{
	uint32_t d = pap_cg_digit(g, v, last);

	assert_int_not_equal(d, PAP_NONE);
	pap_c_node(pap_cg_radix(g, v), d, code);
}

/* Plays @ev through the runtime's probes; the record into @rec, its
 * breakpoints packed. */
static void drive(const struct tprog *p, const struct pap_cev *ev, size_t n,
		  struct pap_cs_rec *rec, const char *ctx)
{
	struct act *st = calloc(n + 1, sizeof(*st)), *a;
	const struct pap_breakpoint *bps;
	size_t depth = 0, i;
	uint32_t j;

	assert_non_null(st);
	cur_prog = p;
	for (i = 0; i < n; i++) {
		const struct pap_cev *v = &ev[i];
		const struct tfn *f = &p->f[v->fn];
		const struct pap_callgraph *g = &f->g;

		a = depth ? &st[depth - 1] : NULL;
		switch (v->kind) {
		case PAP_CEV_ENTER:
		case PAP_CEV_OUT_ENTER:
			if (a && a->selfpend) {
				/* its own tail call: the frame again */
				a->me = pap_c_enter_self(p->key[v->fn],
							 FN_ADDR(v->fn),
							 &a->last);
				a->selfpend = 0;
				break;
			}
			a = &st[depth++];
			a->fn = v->fn;
			a->selfpend = 0;
			if (f->has_self) {
				a->me = pap_c_enter_self(p->key[v->fn],
							 FN_ADDR(v->fn),
							 &a->last);
				break;
			}
			a->me = pap_c_enter(p->key[v->fn], FN_ADDR(v->fn));
			a->last = PAP_CG_SRC_E;
			break;
		case PAP_CEV_CALL:
			assert_non_null(a);
			node(g, pap_cg_node_c(v->site), a->last, v->site);
			a->called = called_at(ev, n, i);
			pap_c_call(a->me, v->site, a->called);
			break;
		case PAP_CEV_RETURN: {
			uint32_t c = pap_c_return(a->me);

			if (c != v->cls)
				fail_msg("%s: event %zu: the runtime's class "
					 "%u, the run's %u", ctx, i, c,
					 v->cls);
			if (c == 0 &&
			    f->sites[v->site - 1].kind == PAP_SITE_INDIRECT) {
				uint32_t ncl = f->ncl[v->site - 1];

				for (j = 0; j < ncl && FN_ADDR(f->cl[
					     v->site - 1][j]) != a->called;
				     j++)
					;
				pap_c_cluster(ncl, j, a->called, v->site);
			}
			a->last = pap_cg_src(v->site, c);
			break;
		}
		case PAP_CEV_TAIL: {
			uint32_t c = f->callee[v->site - 1];

			node(g, pap_cg_node_c(v->site), a->last, v->site);
			if (f->sites[v->site - 1].kind == PAP_SITE_SELFTAIL) {
				pap_c_selftail(a->me, v->site);
				a->selfpend = 1;
				break;
			}
			pap_c_tail(a->me, v->site, p->key[v->fn],
				   c == NONE ? OUT_ADDR : FN_ADDR(c));
			depth--;
			break;
		}
		case PAP_CEV_EXIT:
			node(g, pap_cg_node_x(g), a->last, PAP_CS_CODE_X);
			pap_c_exit(a->me);
			depth--;
			break;
		case PAP_CEV_LONGJMP:
			assert_true(v->arg < depth);
			depth -= v->arg;
			a = &st[depth - 1];
			assert_int_equal(a->fn, v->fn);
			__pap_cresume(a->me, v->site);
			a->last = v->site;
			break;
		default:
			fail_msg("%s: an unknown event", ctx);
		}
	}
	free(st);
	assert_int_equal(rt_calls_take(&rec->value, &bps, &rec->nbps), 0);
	rec->bps = malloc((rec->nbps + 1) * sizeof(*bps));
	assert_non_null(rec->bps);
	if (rec->nbps)
		memcpy(rec->bps, bps, rec->nbps * sizeof(*bps));
}

static int ev_equal(const struct pap_cev *a, const struct pap_cev *b)
{
	return a->kind == b->kind && a->fn == b->fn && a->site == b->site &&
	       a->cls == b->cls && a->arg == b->arg;
}

/* The runtime's record of @ev equals the reference encoder's, packed,
 * and decodes back to @ev. */
static void check_walk(const struct tprog *p, const struct pap_cev *ev,
		       size_t n, uint64_t limit, const char *ctx,
		       size_t *nbps, size_t *marks)
{
	struct pap_cs_rec want, got, plain;
	struct pap_bpack_buf pb = { 0 }, ub = { 0 };
	const struct pap_breakpoint *packed, *un;
	struct pap_cev *out;
	size_t nout, at, i, np, nun;
	const char *why;
	int err;

	err = pap_cseq_exec(&p->prog, ev, n, limit, &want, &why, &at);
	if (err)
		fail_msg("%s: the reference encoder refuses event %zu: %s",
			 ctx, at, why);
	rt_calls_limit = limit;
	drive(p, ev, n, &got, ctx);
	np = want.nbps;
	packed = np ? pap_bpack_into(&pb, want.bps, &np) : want.bps;
	assert_non_null(packed);
	for (i = 0; i < np && i < got.nbps; i++)
		if (packed[i].site != got.bps[i].site ||
		    packed[i].r != got.bps[i].r)
			break;
	if (i < np || i < got.nbps)
		fail_msg("%s: packed item %zu of %zu (runtime %zu): site %#x r "
			 "%llu, runtime site %#x r %llu", ctx, i, np,
			 got.nbps, i < np ? packed[i].site : 0,
			 i < np ? (unsigned long long)packed[i].r : 0,
			 i < got.nbps ? got.bps[i].site : 0,
			 i < got.nbps ? (unsigned long long)got.bps[i].r : 0);
	if (want.value != got.value)
		fail_msg("%s: final cr %llu, runtime %llu", ctx,
			 (unsigned long long)want.value,
			 (unsigned long long)got.value);
	/* the runtime's record, unpacked, is the encoder's and decodes */
	if (got.nbps) {
		assert_int_equal(pap_bunpack_into(&ub, got.bps, got.nbps,
						  UINT32_MAX, &un, &nun), 0);
	} else {
		un = got.bps;
		nun = 0;
	}
	assert_int_equal(nun, want.nbps);
	for (i = 0; i < nun; i++)
		if (un[i].site != want.bps[i].site || un[i].r != want.bps[i].r)
			fail_msg("%s: unpacked breakpoint %zu differs", ctx, i);
	plain.value = got.value;
	plain.bps = (struct pap_breakpoint *)un;
	plain.nbps = nun;
	err = pap_cseq_decode(&p->prog, &plain, limit, 4 * n + 16, &out,
			      &nout, &why, &at);
	if (err)
		fail_msg("%s: the runtime's record does not decode, at "
			 "breakpoint %zu: %s", ctx, at, why);
	for (i = 0; i < n && i < nout && ev_equal(&ev[i], &out[i]); i++)
		;
	if (i < n || nout != n)
		fail_msg("%s: decoded %zu events of %zu, unequal at %zu", ctx,
			 nout, n, i);
	*nbps += nun;
	marks[18] += got.nbps;
	for (i = 0; i < nun; i++) {
		uint32_t site = un[i].site;

		if (site >= PAP_CS_MARKS)
			marks[(PAP_CS_KIND(site) - PAP_CS_MARKS) >> 24]++;
		if (PAP_CS_KIND(site) == PAP_CS_ARG &&
		    (site & PAP_CS_F_TAILOUT))
			marks[16]++;
		if (site < PAP_CS_MARKS)
			marks[17]++;
	}
	free(out);
	pap_bpack_buf_free(&pb);
	pap_bpack_buf_free(&ub);
	pap_cs_rec_free(&want);
	pap_cs_rec_free(&got);
}

static const uint64_t limits[] = { 1ull << 12, 1ull << 16, 1ull << 24,
				   1ull << 40, UINT64_MAX };

/* test_callrt_random_programs: the runtime records what the reference
 * encoder does, over random programs and runs, dense breakpoints. */
static void test_callrt_random_programs(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261127);
	unsigned long long nprog = tl_env_ull("PAP_CALLRT_PROGRAMS", 1500);
	unsigned long long i;
	size_t events = 0, bps = 0, kinds[12] = { 0 }, marks[19] = { 0 };
	static const uint32_t made[] = { PAP_CS_OUT_ENTER, PAP_CS_OUT_RETURN,
		PAP_CS_CALLEE, PAP_CS_TAIL_ENTRY, PAP_CS_TAIL_RETURN,
		PAP_CS_TAIL_OUT, PAP_CS_FRAMES, PAP_CS_RESUME,
		PAP_CS_OUT_TAIL };

	(void)state;
	rt_calls_set_key_of(key_of);
	for (i = 0; i < nprog; i++) {
		struct tl_rng g = { seed * 0x9e3779b97f4a7c15ull + i };
		struct tprog p;
		unsigned w;

		make_prog(&g, &p);
		for (w = 0; w < 4; w++) {
			struct sim s;
			char ctx[96];
			unsigned li;

			memset(&s, 0, sizeof(s));
			s.g = &g;
			s.p = &p;
			s.soft = 20 + tl_below(&g, w == 3 ? 5000 : 600);
			s.hard = s.soft * 4 + 100;
			s.p_cb = (uint32_t)tl_below(&g, 60);
			s.p_lj = (uint32_t)tl_below(&g, 15);
			simulate(&s);
			for (li = 0; li < 5; li++) {
				snprintf(ctx, sizeof(ctx), "seed=%llu program="
					 "%llu walk=%u limit=%u", seed, i, w,
					 li);
				check_walk(&p, s.ev, s.n, limits[li], ctx,
					   &bps, marks);
			}
			for (li = 0; li < s.n; li++)
				kinds[s.ev[li].kind == PAP_CEV_RETURN ?
				      8 + s.ev[li].cls :
				      s.ev[li].kind == PAP_CEV_LONGJMP &&
				      pap_cg_src_class(s.ev[li].site) == 3 ?
				      11 : s.ev[li].kind]++;
			events += s.n;
			free(s.ev);
		}
		prog_free(&p);
	}
	rt_calls_thread_end();
	print_message("callrt: %llu programs, %zu events, %zu breakpoints "
		      "over 5 limits\n", nprog, events, bps);
	print_message("callrt: %zu outside entries, returns of class 0/1/2 "
		      "%zu/%zu/%zu, %zu tail calls, %zu longjmps, %zu "
		      "throws\n", kinds[PAP_CEV_OUT_ENTER], kinds[8],
		      kinds[9], kinds[10], kinds[PAP_CEV_TAIL],
		      kinds[PAP_CEV_LONGJMP], kinds[11]);
	assert_true(kinds[9] && kinds[10] && kinds[PAP_CEV_TAIL] &&
		    kinds[PAP_CEV_LONGJMP] && kinds[PAP_CEV_OUT_ENTER] &&
		    kinds[11]);
	/* the runtime made every mark, overflow breakpoints, and FRAMES
	 * entries for tail calls out */
	print_message("callrt: %zu overflow breakpoints, %zu tail-out frame "
		      "entries, %zu packed items\n", marks[17], marks[16],
		      marks[18]);
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (!marks[(made[i] - PAP_CS_MARKS) >> 24])
			fail_msg("the runtime made no mark %#x", made[i]);
	assert_true(marks[16] && marks[17]);
}

/* One function, "deep:1", entered from outside and returning: the
 * record is OUT_ENTER, its ID, OUT_RETURN, its ID, final cr 1 (the
 * marks' layout of callseq.h, written by hand). */
static void want_one_outside(void)
{
	static const char key[] = "deep:1";
	const struct pap_breakpoint *bps;
	struct pap_cframe *me;
	uint64_t value;
	size_t n;

	me = pap_c_enter(key, FN_ADDR(0));
	pap_c_exit(me);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 0);
	assert_int_equal(value, 1);
	assert_int_equal(n, 4);
	assert_int_equal(bps[0].site, PAP_CS_OUT_ENTER);
	assert_int_equal(bps[0].r, 1);
	assert_int_equal(bps[1].site, PAP_CS_ID);
	assert_true(bps[1].r == pap_fnid(key));
	assert_int_equal(bps[2].site, PAP_CS_OUT_RETURN);
	assert_int_equal(bps[2].r, 1);
	assert_int_equal(bps[3].site, PAP_CS_ID);
	assert_true(bps[3].r == pap_fnid(key));
}

static void *thread_one_outside(void *arg)
{
	(void)arg;
	want_one_outside();
	rt_calls_thread_end();
	return NULL;
}

/*
 * test_callrt_bound: recursion past the stack's bound (64 frames in this
 * test's build) makes an incomplete record, and the stack comes back to
 * its base: the next sequence is exact.  A second thread has a stack and
 * a register of its own.
 */
static void test_callrt_bound(void **state)
{
	static const char key[] = "deep:1";
	struct pap_cframe *me[100];
	const struct pap_breakpoint *bps;
	uint64_t value;
	size_t n;
	pthread_t t;
	int d, depth;

	(void)state;
	for (depth = 60; depth <= 100; depth += 40) {
		me[0] = pap_c_enter(key, FN_ADDR(0));
		for (d = 1; d < depth; d++) {
			pap_c_call(me[d - 1], 1, FN_ADDR(0));
			me[d] = pap_c_enter(key, FN_ADDR(0));
		}
		for (d = depth - 1; d > 0; d--) {
			pap_c_exit(me[d]);
			/* the limit's call too was consumed by the entry
			 * past the bound (ABI 12); the frame past it,
			 * which every deeper activation shares, starts
			 * IDLE at each */
			assert_int_equal(pap_c_return(me[d - 1]),
					 d <= 64 ? 0 : 1);
		}
		pap_c_exit(me[0]);
		assert_int_equal(rt_calls_take(&value, &bps, &n),
				 depth > 64);
		want_one_outside();
	}
	assert_int_equal(pthread_create(&t, NULL, thread_one_outside, NULL),
			 0);
	me[0] = pap_c_enter(key, FN_ADDR(0));
	pap_c_call(me[0], 1, OUT_ADDR);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(pap_c_return(me[0]), 1);
	pap_c_exit(me[0]);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 0);
	assert_int_equal(n, 4);
	rt_calls_thread_end();
}

/* test_callrt_signals: handlers' own sequences (calls.h, "Signal
 * handlers"), recorded through the async end hook. */
static struct { uint64_t value; size_t nbps; int lost; } arec[16];
static unsigned narec;

static void async_end(uint64_t value, const struct pap_breakpoint *bps,
		      size_t nbps, int lost)
{
	(void)bps;
	if (narec < 16) {
		arec[narec].value = value;
		arec[narec].nbps = nbps;
		arec[narec].lost = lost;
	}
	narec++;
}

static const char *sig_key_of(uintptr_t a)
{
	return a == FN_ADDR(1) ? "g:1" : NULL;
}

/* A handler: its own frames and folds, enough to overflow. */
static void handler(void)
{
	struct pap_cframe *top = __pap_cs, *h = pap_c_enter("h:1", FN_ADDR(5));
	int i;

	assert_ptr_equal(h, top + 2);
	for (i = 0; i < 20; i++)
		pap_c_node(7, (uint32_t)i % 7, 1);
	pap_c_exit(h);
	assert_ptr_equal(__pap_cs, top);
}

/* A thread's run: f entered from outside calls g and uninstrumented
 * code; with @sig, handlers interrupt it where instrumented code runs. */
static void sig_run(int sig, uint64_t *value, size_t *nbps,
		    struct pap_breakpoint *copy)
{
	const struct pap_breakpoint *bps;
	struct pap_cframe *f, *g;
	uint64_t r;
	int i;

	f = pap_c_enter("f:1", FN_ADDR(0));
	for (i = 0; i < 40; i++) {
		if (sig && i % 5 == 0)
			handler();			/* f running */
		r = __pap_cr;
		if (sig && i % 7 == 0)
			handler();			/* inside the fold */
		__pap_cr = pap_cfold(r, 5, (uint64_t)i % 5, 3);
	}
	pap_c_call(f, 1, FN_ADDR(1));
	if (sig)
		handler();	/* g called, not yet entered */
	g = pap_c_enter("g:1", FN_ADDR(1));
	pap_c_node(3, 2, 1);
	pap_c_exit(g);
	if (sig)
		handler();	/* g back, its return not yet seen */
	assert_int_equal(pap_c_return(f), 0);
	pap_c_node(4, 1, 2);
	pap_c_exit(f);
	assert_int_equal(rt_calls_take(value, &bps, nbps), 0);
	assert_true(*nbps <= 64);
	memcpy(copy, bps, *nbps * sizeof(*bps));
}

static void test_callrt_signals(void **state)
{
	struct pap_breakpoint b0[64], b1[64];
	const struct pap_breakpoint *bps;
	struct pap_cframe *f, *h;
	uint64_t v0, v1, value;
	size_t n0, n1, n;
	unsigned i;

	(void)state;
	rt_calls_limit = 1u << 12;
	rt_calls_set_key_of(sig_key_of);
	rt_calls_set_async_end(async_end);
	/* the thread's record is the same with the handlers as without */
	narec = 0;
	sig_run(0, &v0, &n0, b0);
	assert_int_equal(narec, 0);
	sig_run(1, &v1, &n1, b1);
	assert_int_equal(narec, 8 + 6 + 2);
	assert_true(v0 == v1 && n0 == n1 && n0 > 2);
	for (i = 0; i < n0; i++)
		assert_true(b0[i].site == b1[i].site && b0[i].r == b1[i].r);
	for (i = 0; i < narec; i++) {
		assert_false(arec[i].lost);
		assert_true(arec[i].nbps > 4);	/* entry, overflow, return */
		assert_int_equal(arec[i].value, 1);
	}
	/* during a call to uninstrumented code: inline */
	narec = 0;
	f = pap_c_enter("f:1", FN_ADDR(0));
	pap_c_call(f, 1, OUT_ADDR);
	h = pap_c_enter("h:1", FN_ADDR(5));
	assert_ptr_equal(h, f + 1);
	pap_c_exit(h);
	assert_int_equal(pap_c_return(f), 1);
	pap_c_exit(f);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 0);
	assert_int_equal(narec, 0);
	/* a handler's tail call ends its sequence; an instrumented tail
	 * callee starts its own */
	f = pap_c_enter("f:1", FN_ADDR(0));
	h = pap_c_enter("h:1", FN_ADDR(5));
	pap_c_tail(h, 2, "h:1", FN_ADDR(6));
	assert_ptr_equal(__pap_cs, f);
	assert_int_equal(narec, 1);
	h = pap_c_enter("t:1", FN_ADDR(6));
	assert_ptr_equal(h, f + 2);
	pap_c_exit(h);
	assert_int_equal(narec, 2);
	assert_false(arec[0].lost || arec[1].lost);
	pap_c_exit(f);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 0);
	/* a longjmp out of a handler, and exit inside one: the handler's
	 * sequence and the one it interrupted are lost, the next exact */
	narec = 0;
	f = pap_c_enter("f:1", FN_ADDR(0));
	pap_c_call(f, 1, OUT_ADDR);
	assert_int_equal(pap_c_return(f), 1);
	h = pap_c_enter("h:1", FN_ADDR(5));
	__pap_cresume(f, pap_cg_src(1, 1));
	assert_ptr_equal(__pap_cs, f);
	assert_true(narec == 1 && arec[0].lost);
	pap_c_exit(f);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 1);
	f = pap_c_enter("f:1", FN_ADDR(0));
	h = pap_c_enter("h:1", FN_ADDR(5));
	(void)h;
	assert_int_equal(rt_calls_take(&value, &bps, &n), 1);
	assert_true(narec == 2 && arec[1].lost);
	f = pap_c_enter("f:1", FN_ADDR(0));
	pap_c_exit(f);
	assert_int_equal(rt_calls_take(&value, &bps, &n), 0);
	rt_calls_set_async_end(NULL);
	rt_calls_set_key_of(NULL);
	rt_calls_limit = UINT64_MAX;
	rt_calls_thread_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callrt_random_programs),
		cmocka_unit_test(test_callrt_bound),
		cmocka_unit_test(test_callrt_signals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
