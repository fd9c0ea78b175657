/* SPDX-License-Identifier: MIT */
/*
 * test_callseq.c - a thread's calls and returns as one PAP path.
 *
 * The oracle is a simulator that walks random programs: a set of
 * functions, each a random CFG with random call sites, calling each
 * other directly, through pointers (a cluster and escapes), into
 * uninstrumented code that calls back, by tail calls, by setjmp and
 * longjmp, and ending at exit with frames open (callsim.h, shared with
 * test_callrt.c).  It walks the CFGs block by block and writes the
 * events it performs; it never looks at the call-site graphs.  The
 * events are encoded by the reference encoder, decoded, and must come
 * back equal.  Small hand-written runs check the register's value,
 * computed by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "callseq.h"
#include "fnkey.h"
#include "testlib.h"

#include "callsim.h"

/* ---- checks ---- */

static const char *kind_name(uint8_t k)
{
	static const char *const names[] = { "?", "enter", "out-enter",
		"call", "return", "exit", "tail", "longjmp", "fork" };

	return k < 9 ? names[k] : "?";
}

static int ev_equal(const struct pap_cev *a, const struct pap_cev *b)
{
	return a->kind == b->kind && a->fn == b->fn && a->site == b->site &&
	       a->cls == b->cls && a->arg == b->arg;
}

/* Encodes @ev, decodes, and requires the same events back. */
static void round_trip(const struct tprog *p, const struct pap_cev *ev,
		       size_t n, uint64_t limit, const char *ctx,
		       size_t *nbps)
{
	struct pap_cs_rec rec;
	struct pap_cev *out;
	size_t nout, at, i;
	const char *why;
	int err;

	err = pap_cseq_exec(&p->prog, ev, n, limit, &rec, &why, &at);
	if (err && getenv("PAP_CALLSEQ_DUMP"))
		for (i = 0; i <= at; i++)
			print_message("%zu %s fn %u site %u cls %u arg %u\n", i,
				      kind_name(ev[i].kind), ev[i].fn,
				      ev[i].site, ev[i].cls, ev[i].arg);
	if (err)
		fail_msg("%s: encoding fails at event %zu (%s): %s", ctx, at,
			 kind_name(ev[at].kind), why);
	err = pap_cseq_decode(&p->prog, &rec, limit, 4 * n + 16, &out,
			      &nout, &why, &at);
	if (err)
		fail_msg("%s: %zu events, %zu breakpoints: decoding fails "
			 "at breakpoint %zu: %s", ctx, n, rec.nbps, at, why);
	for (i = 0; i < n && i < nout; i++)
		if (!ev_equal(&ev[i], &out[i]))
			break;
	if (i < n || nout != n)
		fail_msg("%s: event %zu of %zu (decoded %zu): %s fn %u site "
			 "%u cls %u arg %u, decoded %s fn %u site %u cls %u "
			 "arg %u", ctx, i, n, nout, kind_name(ev[i].kind),
			 ev[i].fn, ev[i].site, ev[i].cls, ev[i].arg,
			 i < nout ? kind_name(out[i].kind) : "none",
			 i < nout ? out[i].fn : 0, i < nout ? out[i].site : 0,
			 i < nout ? out[i].cls : 0,
			 i < nout ? out[i].arg : 0);
	if (nbps)
		*nbps += rec.nbps;
	free(out);
	pap_cs_rec_free(&rec);
}

static const uint64_t limits[] = { 1ull << 12, 1ull << 16, 1ull << 24,
				   1ull << 40, UINT64_MAX };

/* test_callseq_random_programs: the exactness property over random
 * programs and runs, with dense breakpoints at small limits. */
static void test_callseq_random_programs(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261127);
	unsigned long long nprog = tl_env_ull("PAP_CALLSEQ_PROGRAMS", 3000);
	unsigned long long i;
	size_t events = 0, bps = 0, longest = 0, kinds[12] = { 0 };

	(void)state;
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
			s.soft = 20 + tl_below(&g, w == 3 ? 20000 : 600);
			s.hard = s.soft * 4 + 100;
			s.p_cb = (uint32_t)tl_below(&g, 60);
			s.p_lj = (uint32_t)tl_below(&g, 15);
			simulate(&s);
			for (li = 0; li < 5; li++) {
				snprintf(ctx, sizeof(ctx), "seed=%llu program="
					 "%llu walk=%u limit=%u", seed, i, w,
					 li);
				round_trip(&p, s.ev, s.n, limits[li], ctx,
					   &bps);
			}
			for (li = 0; li < s.n; li++)
				kinds[s.ev[li].kind == PAP_CEV_RETURN ?
				      8 + s.ev[li].cls :
				      s.ev[li].kind == PAP_CEV_LONGJMP &&
				      pap_cg_src_class(s.ev[li].site) == 3 ?
				      11 : s.ev[li].kind]++;
			events += s.n;
			if (s.n > longest)
				longest = s.n;
			free(s.ev);
		}
		prog_free(&p);
	}
	print_message("callseq: %llu programs, %zu events, longest %zu, "
		      "%zu breakpoints over 5 limits\n", nprog, events,
		      longest, bps);
	print_message("callseq: %zu outside entries, returns of class "
		      "0/1/2, %zu/%zu/%zu, %zu tail calls, %zu longjmps, "
		      "%zu throws\n",
		      kinds[PAP_CEV_OUT_ENTER], kinds[8], kinds[9], kinds[10],
		      kinds[PAP_CEV_TAIL], kinds[PAP_CEV_LONGJMP], kinds[11]);
	/* every feature the property covers was exercised */
	assert_true(kinds[9] && kinds[10] && kinds[PAP_CEV_TAIL] &&
		    kinds[PAP_CEV_LONGJMP] && kinds[PAP_CEV_OUT_ENTER] &&
		    kinds[11]);
}

/*
 * test_callseq_fork: a forked child's record.  A walk is cut at a return
 * of class 1 (the call to uninstrumented code was the fork); the child's
 * record, FORK_START and the events from there, must decode to the
 * frames open at the fork (FORK events, bottom first, the innermost at
 * the fork's site) and then exactly those events.  The frames are
 * replayed here from the walk's events, independently of the decoder.
 * Walks with tail calls or longjmps before the cut are left out.
 */
static void test_callseq_fork(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261127);
	unsigned long long nprog = tl_env_ull("PAP_CALLSEQ_PROGRAMS", 3000);
	unsigned long long i;
	size_t forks = 0, deepest = 0;

	(void)state;
	for (i = 0; i < nprog; i++) {
		struct tl_rng g = { seed * 0x2545f4914f6cdd1dull + i };
		struct pap_cev *fev = NULL, *want = NULL, *out;
		struct pap_cs_rec rec;
		struct tprog p;
		struct sim s;
		struct { uint32_t fn, site; uint8_t out; } st[MAXDEPTH + 4];
		size_t d = 0, k, cut, nout, at, nw;
		const char *why;
		char ctx[96];
		int err;

		make_prog(&g, &p);
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.p = &p;
		s.soft = 20 + tl_below(&g, 600);
		s.hard = s.soft * 4 + 100;
		s.p_cb = (uint32_t)tl_below(&g, 60);
		s.p_lj = 0;
		simulate(&s);
		/* the cut: a random return of class 1 with none of the
		 * left-out kinds before it */
		cut = s.n;
		for (k = 0; k < s.n; k++) {
			const struct pap_cev *v = &s.ev[k];

			if (v->kind == PAP_CEV_TAIL ||
			    v->kind == PAP_CEV_LONGJMP)
				break;
			if (v->kind == PAP_CEV_RETURN && v->cls == 1 &&
			    (cut == s.n || tl_below(&g, 3) == 0))
				cut = k;
		}
		if (cut == s.n)
			goto next;
		for (k = 0; k < cut; k++) {
			const struct pap_cev *v = &s.ev[k];

			if (v->kind == PAP_CEV_ENTER ||
			    v->kind == PAP_CEV_OUT_ENTER) {
				st[d].fn = v->fn;
				st[d].site = 0;
				st[d++].out = v->kind == PAP_CEV_OUT_ENTER;
			} else if (v->kind == PAP_CEV_CALL) {
				st[d - 1].site = v->site;
			} else if (v->kind == PAP_CEV_RETURN) {
				st[d - 1].site = 0;
			} else if (v->kind == PAP_CEV_EXIT) {
				d--;
			}
		}
		assert_true(d > 0 && st[d - 1].site == s.ev[cut].site);
		fev = malloc((s.n - cut + 1) * sizeof(*fev));
		want = malloc((s.n - cut + d) * sizeof(*want));
		assert_non_null(fev);
		assert_non_null(want);
		memset(fev, 0, sizeof(*fev));
		fev[0].kind = PAP_CEV_FORK;
		memcpy(fev + 1, s.ev + cut, (s.n - cut) * sizeof(*fev));
		memset(want, 0, d * sizeof(*want));
		for (k = 0; k < d; k++) {
			want[k].kind = PAP_CEV_FORK;
			want[k].fn = st[k].fn;
			want[k].site = st[k].site;
			want[k].cls = st[k].out;
			want[k].arg = k == d - 1;
		}
		memcpy(want + d, s.ev + cut, (s.n - cut) * sizeof(*want));
		nw = s.n - cut + d;
		/* the parent's events, then the fork: only the child's is
		 * recorded */
		{
			struct pap_cev *all = malloc((s.n + 1) *
						     sizeof(*all));

			assert_non_null(all);
			memcpy(all, s.ev, cut * sizeof(*all));
			memcpy(all + cut, fev, (s.n - cut + 1) *
			       sizeof(*all));
			err = pap_cseq_exec(&p.prog, all, s.n + 1, 1ull << 16,
					    &rec, &why, &at);
			free(all);
		}
		snprintf(ctx, sizeof(ctx), "seed=%llu program=%llu cut=%zu",
			 seed, i, cut);
		if (err)
			fail_msg("%s: encoding fails at %zu: %s", ctx, at,
				 why);
		assert_true(rec.nbps > 0 &&
			    rec.bps[0].site == PAP_CS_FORK_START);
		err = pap_cseq_decode(&p.prog, &rec, 1ull << 16, 4 * nw + 16,
				      &out, &nout, &why, &at);
		if (err)
			fail_msg("%s: decoding fails at %zu: %s", ctx, at, why);
		for (k = 0; k < nw && k < nout; k++)
			if (!ev_equal(&want[k], &out[k]))
				break;
		if (k < nw || nout != nw)
			fail_msg("%s: event %zu of %zu (decoded %zu): %s fn %u "
				 "site %u cls %u, decoded %s fn %u site %u "
				 "cls %u", ctx, k, nw, nout,
				 kind_name(want[k].kind), want[k].fn,
				 want[k].site, want[k].cls,
				 k < nout ? kind_name(out[k].kind) : "none",
				 k < nout ? out[k].fn : 0,
				 k < nout ? out[k].site : 0,
				 k < nout ? out[k].cls : 0);
		forks++;
		if (d > deepest)
			deepest = d;
		free(out);
		pap_cs_rec_free(&rec);
next:
		free(fev);
		free(want);
		free(s.ev);
		prog_free(&p);
	}
	print_message("callseq: %zu forked children decoded, %zu frames "
		      "open at the deepest fork\n", forks, deepest);
	assert_true(forks > nprog / 10 && deepest > 2);
}

/*
 * test_callseq_damaged: a damaged record (a breakpoint's site or value
 * changed, one dropped, the value changed) is refused with a named
 * error, or decodes to events whose record is exactly the damaged one:
 * the decoder never guesses.
 */
static void test_callseq_damaged(void **state)
{
	struct tl_rng g = { 4242 };
	unsigned i, refused = 0, other = 0;

	(void)state;
	for (i = 0; i < 600; i++) {
		struct tprog p;
		struct sim s;
		struct pap_cs_rec rec, again;
		struct pap_cev *out;
		size_t nout, at, j;
		const char *why;
		uint64_t lim = limits[tl_below(&g, 5)];
		int err;

		make_prog(&g, &p);
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.p = &p;
		s.soft = 20 + tl_below(&g, 300);
		s.hard = s.soft * 4 + 100;
		s.p_cb = 30;
		s.p_lj = 5;
		simulate(&s);
		assert_int_equal(pap_cseq_exec(&p.prog, s.ev, s.n, lim, &rec,
					       &why, &at), 0);
		j = rec.nbps ? (size_t)tl_below(&g, rec.nbps) : 0;
		switch (rec.nbps ? tl_below(&g, 4) : 3) {
		case 0:
			rec.bps[j].site ^= 1u << tl_below(&g, 32);
			break;
		case 1:
			rec.bps[j].r ^= 1ull << tl_below(&g, 64);
			break;
		case 2:
			memmove(&rec.bps[j], &rec.bps[j + 1],
				(rec.nbps - j - 1) * sizeof(*rec.bps));
			rec.nbps--;
			break;
		default:
			rec.value ^= 1ull << tl_below(&g, 12);
			break;
		}
		err = pap_cseq_decode(&p.prog, &rec, lim, 4 * s.n + 64, &out,
				      &nout, &why, &at);
		if (err) {
			assert_true(err == PAP_ECORRUPT || err == PAP_ELIMIT);
			assert_non_null(why);
			refused++;
		} else {
			assert_int_equal(pap_cseq_exec(&p.prog, out, nout, lim,
						       &again, &why, &at), 0);
			assert_int_equal(again.value, rec.value);
			assert_int_equal(again.nbps, rec.nbps);
			for (j = 0; j < rec.nbps; j++) {
				assert_int_equal(again.bps[j].site,
						 rec.bps[j].site);
				assert_int_equal(again.bps[j].r, rec.bps[j].r);
			}
			pap_cs_rec_free(&again);
			free(out);
			other++;
		}
		pap_cs_rec_free(&rec);
		free(s.ev);
		prog_free(&p);
	}
	print_message("callseq damaged: %u refused, %u decoded to the run "
		      "they encode\n", refused, other);
	assert_true(refused > 400);
}

/* ---- hand-written runs ---- */

static struct pap_cfg *cfg_of(uint32_t n, const uint32_t (*edges)[2],
			      uint32_t ne, uint32_t ret)
{
	struct pap_cfg *cfg = pap_cfg_new(n);
	uint32_t i;

	assert_non_null(cfg);
	for (i = 0; i < ne; i++)
		assert_true(pap_cfg_add_edge(cfg, edges[i][0], edges[i][1],
					     PAP_EDGE_NORMAL) >= 0);
	assert_int_equal(pap_cfg_set_entry(cfg, 0), 0);
	assert_int_equal(pap_cfg_mark_return(cfg, ret), 0);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	return cfg;
}

static void want_record(const struct pap_cs_prog *prog,
			const struct pap_cev *ev, size_t n, uint64_t lim,
			uint64_t value, const struct pap_breakpoint *bps,
			size_t nbps)
{
	struct pap_cs_rec rec;
	struct pap_cev *out;
	size_t at, i, nout;
	const char *why;

	assert_int_equal(pap_cseq_exec(prog, ev, n, lim, &rec, &why, &at), 0);
	assert_int_equal(rec.value, value);
	assert_int_equal(rec.nbps, nbps);
	for (i = 0; i < nbps; i++) {
		assert_int_equal(rec.bps[i].site, bps[i].site);
		assert_int_equal(rec.bps[i].r, bps[i].r);
	}
	assert_int_equal(pap_cseq_decode(prog, &rec, lim, 1000, &out, &nout,
					 &why, &at), 0);
	assert_int_equal(nout, n);
	for (i = 0; i < n; i++)
		assert_true(ev_equal(&ev[i], &out[i]));
	free(out);
	pap_cs_rec_free(&rec);
}

#define EV(k, f, s, c, a) { PAP_CEV_##k, c, f, s, a }

/*
 * test_callseq_by_hand: f is b0 -> b1 (site 1: f itself, may be
 * outside) -> b2 -> b1 | b3 (returns).  C_1's sources are E, R^0, R^1
 * (digits 0, 1, 2, radix 3); X's are R^0, R^1 (radix 2).  The run:
 * f from outside, C_1 (cr = 1*3+0 = 3), f entered, its C_1 (3*3+0 =
 * 9), back with class 1, X (9*2+1 = 19), back in the outer f with
 * class 0, C_1 again (19*3+1 = 58), class 1, X (58*2+1 = 117), out.
 * With a limit of 2^12, the run at 5 levels of recursion breaks where
 * the register would pass 4095.
 */
static void test_callseq_by_hand(void **state)
{
	static const uint32_t edges[][2] = { { 0, 1 }, { 1, 2 }, { 2, 1 },
					     { 2, 3 } };
	struct pap_site site = { 1, PAP_SITE_DIRECT, PAP_SITE_MAYBE_OUT };
	uint32_t callee[1] = { 0 }, ncl[1] = { 0 };
	const uint32_t *cl[1] = { NULL };
	struct pap_cfg *cfg = cfg_of(4, edges, 4, 3);
	struct pap_callgraph g;
	struct pap_cs_fn fn;
	struct pap_cs_prog prog = { 1, &fn };
	uint64_t id = pap_fnid("f:0000000000000001");
	const struct pap_cev run[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(RETURN, 0, 1, 1, 0), EV(EXIT, 0, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(RETURN, 0, 1, 1, 0), EV(EXIT, 0, 0, 0, 0) };
	const struct pap_breakpoint bps[] = {
		{ PAP_CS_OUT_ENTER, 1 }, { PAP_CS_ID, id },
		{ PAP_CS_OUT_RETURN, 117 }, { PAP_CS_ID, id } };
	/* 5 levels: C_1 from E five times: 3, 9, 27, 81, 243; class 1,
	 * then X: 487; three returns of class 0 then X (digit 0): 974,
	 * 1948, 3896; the outer's C_1 after R^0 (digit 1): 3896*3+1 =
	 * 11689 passes 4095: breakpoint (C_1, 3896), restart 1*3+1 = 4;
	 * class 1, X: 4*2+1 = 9, flushed by OUT_RETURN. */
	const struct pap_cev deep[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(RETURN, 0, 1, 1, 0), EV(EXIT, 0, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(EXIT, 0, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(EXIT, 0, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(EXIT, 0, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(RETURN, 0, 1, 1, 0), EV(EXIT, 0, 0, 0, 0) };
	const struct pap_breakpoint deep_bps[] = {
		{ PAP_CS_OUT_ENTER, 1 }, { PAP_CS_ID, id },
		{ 1, 3896 },
		{ PAP_CS_OUT_RETURN, 9 }, { PAP_CS_ID, id } };

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, &site, 1, &g), 0);
	fn.g = &g;
	fn.callee = callee;
	fn.ncluster = ncl;
	fn.cluster = cl;
	fn.id = id;
	want_record(&prog, run, 10, UINT64_MAX, 1, bps, 4);
	want_record(&prog, deep, 22, 1u << 12, 1, deep_bps, 5);
	pap_callgraph_free(&g);
	pap_cfg_free(cfg);
}

/*
 * test_callseq_by_hand_indirect_tail: m (b0: site 1 indirect, cluster
 * {a}; b0 -> b1 returns) calls through a pointer; a is b0 (site 1, a
 * tail call of b) -> b1 returns; b is one block that returns.
 * Run 1: m calls a, a tail-calls b, b returns to m: the return has class
 * 2: TAIL_ENTRY(a, 1) at b's entry, TAIL_RETURN(b, 1 entry) at the
 * return, and no cluster digit; m's X has sources R^0, R^1, R^2, so its
 * digit 2 makes cr = 1*3+2 = 5.  Run 2: m calls b (not in the cluster):
 * CALLEE(b) then the cluster digit 1 of radix 2, cr = 1*2+1 = 3, then X
 * after R^0: 3*3+0 = 9.
 */
static void test_callseq_by_hand_indirect_tail(void **state)
{
	static const uint32_t e01[][2] = { { 0, 1 } };
	struct pap_site sm = { 0, PAP_SITE_INDIRECT,
			       PAP_SITE_MAYBE_OUT | PAP_SITE_MAYBE_TAIL };
	struct pap_site sa = { 0, PAP_SITE_TAIL, 0 };
	uint32_t none[1] = { NONE }, ab[1] = { 2 }, zero[1] = { 0 };
	uint32_t one[1] = { 1 }, clm[1] = { 1 };
	const uint32_t *clusters[1] = { clm }, *nocl[1] = { NULL };
	struct pap_cfg *cm = cfg_of(2, e01, 1, 1), *ca = cfg_of(2, e01, 1, 1);
	struct pap_cfg *cb = cfg_of(1, NULL, 0, 0);
	struct pap_callgraph gm, ga, gb;
	struct pap_cs_fn fn[3];
	struct pap_cs_prog prog = { 3, fn };
	uint64_t im = pap_fnid("m:0000000000000000");
	uint64_t ia = pap_fnid("a:0000000000000000");
	uint64_t ib = pap_fnid("b:0000000000000000");
	const struct pap_cev run1[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 1, 0, 0, 0), EV(TAIL, 1, 1, 0, 0),
		EV(ENTER, 2, 0, 0, 0), EV(EXIT, 2, 0, 0, 0),
		EV(RETURN, 0, 1, 2, 0), EV(EXIT, 0, 0, 0, 0) };
	const struct pap_breakpoint bps1[] = {
		{ PAP_CS_OUT_ENTER, 1 }, { PAP_CS_ID, im },
		{ PAP_CS_TAIL_ENTRY | 1, 1 }, { PAP_CS_ID, ia },
		{ PAP_CS_TAIL_RETURN, 1 }, { PAP_CS_ID, ib },
		{ PAP_CS_ARG, 1 },
		{ PAP_CS_OUT_RETURN, 5 }, { PAP_CS_ID, im } };
	const struct pap_cev run2[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 2, 0, 0, 0), EV(EXIT, 2, 0, 0, 0),
		EV(RETURN, 0, 1, 0, 0), EV(EXIT, 0, 0, 0, 0) };
	const struct pap_breakpoint bps2[] = {
		{ PAP_CS_OUT_ENTER, 1 }, { PAP_CS_ID, im },
		{ PAP_CS_CALLEE, 1 }, { PAP_CS_ID, ib },
		{ PAP_CS_OUT_RETURN, 9 }, { PAP_CS_ID, im } };

	(void)state;
	(void)zero;
	(void)one;
	assert_int_equal(pap_callsites_build(cm, &sm, 1, &gm), 0);
	assert_int_equal(pap_callsites_build(ca, &sa, 1, &ga), 0);
	assert_int_equal(pap_callsites_build(cb, NULL, 0, &gb), 0);
	fn[0] = (struct pap_cs_fn){ &gm, none, one, clusters, im };
	fn[1] = (struct pap_cs_fn){ &ga, ab, zero, nocl, ia };
	fn[2] = (struct pap_cs_fn){ &gb, none, zero, nocl, ib };
	want_record(&prog, run1, 8, UINT64_MAX, 1, bps1, 9);
	want_record(&prog, run2, 6, UINT64_MAX, 1, bps2, 6);
	pap_callgraph_free(&gm);
	pap_callgraph_free(&ga);
	pap_callgraph_free(&gb);
	pap_cfg_free(cm);
	pap_cfg_free(ca);
	pap_cfg_free(cb);
}

/* test_callseq_bad_runs: events that no run makes are refused by the
 * encoder, and two functions with one id by the decoder. */
static void test_callseq_bad_runs(void **state)
{
	static const uint32_t edges[][2] = { { 0, 1 } };
	struct pap_site site = { 0, PAP_SITE_DIRECT, 0 };
	uint32_t callee[1] = { 1 }, zero[1] = { 0 };
	const uint32_t *nocl[1] = { NULL };
	struct pap_cfg *cfg = cfg_of(2, edges, 1, 1);
	struct pap_callgraph g;
	struct pap_cs_fn fn[2];
	struct pap_cs_prog prog = { 2, fn };
	struct pap_cs_rec rec;
	struct pap_cev *out;
	size_t at, n;
	const char *why;
	const struct pap_cev wrong_callee[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 0, 0, 0, 0) };
	const struct pap_cev wrong_class[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(RETURN, 0, 1, 1, 0) };
	const struct pap_cev ok[] = {
		EV(OUT_ENTER, 0, 0, 0, 0), EV(CALL, 0, 1, 0, 0),
		EV(ENTER, 1, 0, 0, 0), EV(CALL, 1, 1, 0, 0) };

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, &site, 1, &g), 0);
	fn[0] = (struct pap_cs_fn){ &g, callee, zero, nocl, 1 };
	fn[1] = (struct pap_cs_fn){ &g, callee, zero, nocl, 2 };
	assert_int_equal(pap_cseq_exec(&prog, wrong_callee, 3, UINT64_MAX,
				       &rec, &why, &at), PAP_EINVAL);
	assert_int_equal(at, 2);
	assert_non_null(why);
	assert_int_equal(pap_cseq_exec(&prog, wrong_class, 3, UINT64_MAX,
				       &rec, &why, &at), PAP_EINVAL);
	assert_int_equal(at, 2);
	/* open frames: f0 calling f1, f1 calling f1 (not entered yet) */
	assert_int_equal(pap_cseq_exec(&prog, ok, 4, UINT64_MAX, &rec, &why,
				       &at), 0);
	assert_int_equal(rec.nbps, 2 + 1 + 4);
	assert_int_equal(rec.bps[2].site, PAP_CS_FRAMES | 2);
	assert_int_equal(rec.bps[4].site, PAP_CS_ARG | PAP_CS_F_OUTSIDE | 1);
	assert_int_equal(pap_cseq_decode(&prog, &rec, UINT64_MAX, 100, &out,
					 &n, &why, &at), 0);
	assert_int_equal(n, 4);
	free(out);
	assert_int_equal(pap_cseq_decode(&prog, &rec, UINT64_MAX, 3, &out,
					 &n, &why, &at), PAP_ELIMIT);
	fn[1].id = 1;
	assert_int_equal(pap_cseq_decode(&prog, &rec, UINT64_MAX, 100, &out,
					 &n, &why, &at), PAP_EINVAL);
	pap_cs_rec_free(&rec);
	pap_callgraph_free(&g);
	pap_cfg_free(cfg);
}

/* test_callseq_fnid: an id is a function of the whole key text: equal
 * texts give equal ids, keys differing in any part differ. */
static void test_callseq_fnid(void **state)
{
	static const char *const keys[] = {
		"main:0123456789abcdef",
		"main:0123456789abcdef:a.papm",
		"main:0123456789abcdef:b.papm",
		"main:0123456789abcdee:a.papm",
		"main2:0123456789abcdef:a.papm",
		"%calls:0000000000000001" };
	char copy[64];
	unsigned i, j;

	(void)state;
	for (i = 0; i < 6; i++) {
		snprintf(copy, sizeof(copy), "%s", keys[i]);
		assert_int_equal(pap_fnid(copy), pap_fnid(keys[i]));
		for (j = 0; j < i; j++)
			assert_int_not_equal(pap_fnid(keys[i]),
					     pap_fnid(keys[j]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callseq_fnid),
		cmocka_unit_test(test_callseq_by_hand),
		cmocka_unit_test(test_callseq_by_hand_indirect_tail),
		cmocka_unit_test(test_callseq_bad_runs),
		cmocka_unit_test(test_callseq_random_programs),
		cmocka_unit_test(test_callseq_damaged),
		cmocka_unit_test(test_callseq_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
