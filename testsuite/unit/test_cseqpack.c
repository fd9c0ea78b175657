/* SPDX-License-Identifier: MIT */
/*
 * test_cseqpack.c - call sequences decoded from packed records without
 * expansion (callseq.h, pap_cseq_decode_packed; callctx.h,
 * pap_cctx_add_packed).
 *
 * The oracle is the simulator of callsim.h: runs of random programs made
 * periodic by repeating whole top-level walks (A B^c C, B balanced: it
 * starts and ends with no frame open), and a hand-written recursion that
 * deepens then unwinds (unbalanced periods).  Each run is encoded by the
 * reference encoder, its breakpoints packed by bpack, and decoded in
 * place: the packed events expanded must be the run's, event for event,
 * and the calling-context tree built from the packed form must be the
 * one built from the simulator's events, node for node and count for
 * count.  Balanced periods must be kept once: the events kept stay
 * within a few copies of B, whatever c is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bpack.h"
#include "callctx.h"
#include "callseq.h"
#include "fnkey.h"
#include "testlib.h"

#include "callsim.h"

static int ev_equal(const struct pap_cev *a, const struct pap_cev *b)
{
	return a->kind == b->kind && a->fn == b->fn && a->site == b->site &&
	       a->cls == b->cls && a->arg == b->arg;
}

/* The two forests, node for node. */
static void same_forest(const struct pap_forest *a,
			const struct pap_forest *b, const char *ctx)
{
	uint32_t i;

	if (a->n != b->n)
		fail_msg("%s: %u contexts, packed %u", ctx, a->n, b->n);
	for (i = 1; i < a->n; i++)
		if (a->nodes[i].label != b->nodes[i].label ||
		    a->nodes[i].parent != b->nodes[i].parent ||
		    a->nodes[i].count != b->nodes[i].count)
			fail_msg("%s: context %u: count %llu, packed %llu", ctx,
				 i, (unsigned long long)a->nodes[i].count,
				 (unsigned long long)b->nodes[i].count);
}

struct stats {
	size_t runs, events, kept, reps, packed_bps;
};

/*
 * Encodes @ev, packs the record, decodes it packed and checks it
 * against @ev and its contexts; *@kept gets the events kept.
 */
static void check_run(const struct pap_cs_prog *prog,
		      const struct pap_cev *ev, size_t n, uint64_t lim,
		      const char *ctx, struct stats *st, size_t *kept,
		      size_t *npacked)
{
	struct pap_cs_rec rec, packed;
	struct pap_bpack_table *t = calloc(1, sizeof(*t));
	struct pap_cseq_packed pk;
	struct pap_forest want, got;
	struct pap_cev *out;
	size_t nout, at, i;
	const char *why;
	int err;

	assert_non_null(t);
	err = pap_cseq_exec(prog, ev, n, lim, &rec, &why, &at);
	if (err)
		fail_msg("%s: encoding fails at event %zu: %s", ctx, at, why);
	packed = rec;
	packed.bps = malloc((rec.nbps + 1) * sizeof(*packed.bps));
	assert_non_null(packed.bps);
	packed.nbps = pap_bpack(rec.bps, rec.nbps, packed.bps, t);
	free(t);
	err = pap_cseq_decode_packed(prog, &packed, lim, 4 * n + 64, &pk,
				     &why, &at);
	if (err)
		fail_msg("%s: %zu events, %zu breakpoints packed to %zu: "
			 "decoding fails at %zu: %s", ctx, n, rec.nbps,
			 packed.nbps, at, why);
	assert_int_equal(pk.total, n);
	assert_int_equal(pap_cseq_expand(&pk, n, &out, &nout), 0);
	assert_int_equal(nout, n);
	for (i = 0; i < n; i++)
		if (!ev_equal(&ev[i], &out[i]))
			fail_msg("%s: event %zu of %zu differs", ctx, i, n);
	for (i = 0; i < 3; i++) {
		/* prefixes: none, some, all and more */
		size_t m = i == 0 ? 0 : i == 1 ? n / 3 + 1 : n + 5, q;
		struct pap_cev *pre;
		size_t npre;

		assert_int_equal(pap_cseq_expand_prefix(&pk, m, &pre, &npre),
				 0);
		assert_int_equal(npre, m < n ? m : n);
		for (q = 0; q < npre; q++)
			if (!ev_equal(&ev[q], &pre[q]))
				fail_msg("%s: prefix of %zu: event %zu differs",
					 ctx, m, q);
		free(pre);
	}
	if (n) {
		struct pap_cev *none;
		size_t nnone;

		if (pap_cseq_expand(&pk, n - 1, &none, &nnone) != PAP_ELIMIT)
			fail_msg("%s: expanded past its limit", ctx);
	}
	pap_forest_init(&want);
	pap_forest_init(&got);
	assert_int_equal(pap_cctx_add(&want, ev, n, 3), 0);
	assert_int_equal(pap_cctx_add_packed(&got, &pk, 3), 0);
	same_forest(&want, &got, ctx);
	pap_forest_free(&want);
	pap_forest_free(&got);
	st->runs++;
	st->events += n;
	st->kept += pk.nev;
	st->reps += pk.nrep;
	st->packed_bps += packed.nbps;
	*kept = pk.nev;
	*npacked = packed.nbps;
	free(out);
	pap_cseq_packed_free(&pk);
	pap_cs_rec_free(&rec);
	free(packed.bps);
}

/* A walk of @p that ends with no frame open (NULL if none found);
 * *@nbps: its record's breakpoints at @lim. */
static struct pap_cev *closed_walk(struct tl_rng *g, struct tprog *p,
				   size_t *n, unsigned soft, uint64_t lim,
				   size_t *nbps)
{
	unsigned tries;

	for (tries = 0; tries < 20; tries++) {
		struct sim s;
		struct pap_cs_rec rec;
		const char *why;
		size_t at, i;
		int open = 0;

		memset(&s, 0, sizeof(s));
		s.g = g;
		s.p = p;
		s.soft = soft;
		s.hard = soft * 4 + 100;
		s.p_cb = (uint32_t)tl_below(g, 60);
		s.p_lj = (uint32_t)tl_below(g, 15);
		simulate(&s);
		/* closed: the encoder writes no FRAMES at its end */
		if (pap_cseq_exec(&p->prog, s.ev, s.n, lim, &rec, &why, &at)) {
			free(s.ev);
			continue;
		}
		for (i = 0; i < rec.nbps; i++)
			if (PAP_CS_KIND(rec.bps[i].site) == PAP_CS_FRAMES ||
			    PAP_CS_KIND(rec.bps[i].site) ==
			    PAP_CS_FORK_START)
				open = 1;
		*nbps = rec.nbps;
		pap_cs_rec_free(&rec);
		if (!open && s.n) {
			*n = s.n;
			return s.ev;
		}
		free(s.ev);
	}
	return NULL;
}

static const uint64_t limits[] = { 1ull << 12, 1ull << 16, 1ull << 24,
				   UINT64_MAX };

/* test_cseqpack_periodic: A B^c C over random programs. */
static void test_cseqpack_periodic(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261127);
	unsigned long long nprog = tl_env_ull("PAP_CSEQPACK_PROGRAMS", 300);
	unsigned long long i;
	struct stats st = { 0 };
	size_t longest = 0, bounded = 0, held = 0;

	(void)state;
	for (i = 0; i < nprog; i++) {
		struct tl_rng g = { seed * 0x9e3779b97f4a7c15ull + i + 77 };
		struct tprog p;
		struct pap_cev *a, *b, *c, *ev;
		size_t na, nb, nc, n, reps, j, kept, npacked;
		size_t ba = 0, bb = 0, bc = 0;
		uint64_t lim = limits[i % 4];
		char ctx[96];

		make_prog(&g, &p);
		a = closed_walk(&g, &p, &na, 20 + (unsigned)tl_below(&g, 200),
				lim, &ba);
		b = closed_walk(&g, &p, &nb, 5 + (unsigned)tl_below(&g, 100),
				lim, &bb);
		c = closed_walk(&g, &p, &nc, 20 + (unsigned)tl_below(&g, 200),
				lim, &bc);
		if (!a || !b || !c) {
			free(a);
			free(b);
			free(c);
			prog_free(&p);
			continue;
		}
		/* up to about 10^6 events */
		reps = 2 + (size_t)tl_below(&g, i % 10 == 0 ?
					    1000000 / nb : 300);
		n = na + reps * nb + nc;
		ev = malloc(n * sizeof(*ev));
		assert_non_null(ev);
		memcpy(ev, a, na * sizeof(*ev));
		for (j = 0; j < reps; j++)
			memcpy(ev + na + j * nb, b, nb * sizeof(*ev));
		memcpy(ev + na + reps * nb, c, nc * sizeof(*ev));
		snprintf(ctx, sizeof(ctx), "seed=%llu program=%llu reps=%zu",
			 seed, i, reps);
		check_run(&p.prog, ev, n, lim, ctx, &st, &kept, &npacked);
		/* when the record holds B's breakpoints a few times (bpack
		 * found the repeat), the events kept hold B's a few times */
		if (npacked <= ba + bc + 3 * bb + 32) {
			if (kept > na + nc + 4 * nb + 64)
				fail_msg("%s: %zu events of %zu kept (A %zu, "
					 "B %zu, C %zu)", ctx, kept, n, na, nb,
					 nc);
			bounded++;
		}
		held++;
		if (n > longest)
			longest = n;
		free(ev);
		free(a);
		free(b);
		free(c);
		prog_free(&p);
	}
	print_message("cseqpack: %zu periodic runs, %zu events, longest %zu, "
		      "%zu kept, %zu repeats, %zu packed breakpoints; %zu "
		      "records packed to a few copies of B\n",
		      st.runs, st.events, longest, st.kept, st.reps,
		      st.packed_bps, bounded);
	assert_true(held > nprog / 2);
	assert_true(bounded > held / 2);
	assert_true(st.kept * 10 < st.events);
}

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

#define EV(k, f, s, c, a) ((struct pap_cev){ PAP_CEV_##k, c, f, s, a })

/*
 * test_cseqpack_recursion: f is b0 -> b1 (site 1: f itself, may be
 * outside) -> b2 -> b1 | b3 (returns), as in test_callseq.  Runs: f
 * from outside recurses d levels, its innermost call goes outside, and
 * it unwinds; then a loop of @loop shallow recursions of depth 2.  The
 * deep part's periods never recur (the stack grows, then shrinks); the
 * loop's do.
 */
static void test_cseqpack_recursion(void **state)
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
	static const size_t depths[] = { 1, 7, 100, 3000, 100000 };
	struct stats st = { 0 };
	unsigned li, di;

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, &site, 1, &g), 0);
	fn.g = &g;
	fn.callee = callee;
	fn.ncluster = ncl;
	fn.cluster = cl;
	fn.id = pap_fnid("f:0000000000000001");
	for (di = 0; di < 5; di++)
		for (li = 0; li < 4; li++) {
			size_t d = depths[di], loop = 1000 * li, n = 0, j, kept;
			size_t cap = 4 * d + 8 * loop + 16;
			struct pap_cev *ev = malloc(cap * sizeof(*ev));
			char ctx[64];

			assert_non_null(ev);
			ev[n++] = EV(OUT_ENTER, 0, 0, 0, 0);
			for (j = 0; j < d; j++) {
				ev[n++] = EV(CALL, 0, 1, 0, 0);
				ev[n++] = EV(ENTER, 0, 0, 0, 0);
			}
			ev[n++] = EV(CALL, 0, 1, 0, 0);
			ev[n++] = EV(RETURN, 0, 1, 1, 0);
			for (j = 0; j < loop; j++) {
				ev[n++] = EV(CALL, 0, 1, 0, 0);
				ev[n++] = EV(ENTER, 0, 0, 0, 0);
				ev[n++] = EV(CALL, 0, 1, 0, 0);
				ev[n++] = EV(RETURN, 0, 1, 1, 0);
				ev[n++] = EV(EXIT, 0, 0, 0, 0);
				ev[n++] = EV(RETURN, 0, 1, 0, 0);
			}
			ev[n++] = EV(EXIT, 0, 0, 0, 0);
			for (j = 0; j < d; j++) {
				ev[n++] = EV(RETURN, 0, 1, 0, 0);
				ev[n++] = EV(EXIT, 0, 0, 0, 0);
			}
			assert_true(n <= cap);
			snprintf(ctx, sizeof(ctx), "depth %zu loop %zu "
				 "limit %u", d, loop, li);
			check_run(&prog, ev, n, limits[li], ctx, &st, &kept,
				  &j);
			free(ev);
		}
	print_message("cseqpack recursion: %zu runs, %zu events, %zu kept, "
		      "%zu repeats\n", st.runs, st.events, st.kept, st.reps);
	assert_true(st.reps > 0);
	pap_callgraph_free(&g);
	pap_cfg_free(cfg);
}

/*
 * test_cseqpack_damaged: packed records of periodic runs with one item
 * damaged (a site or register bit flipped, an item dropped) are refused,
 * or decode to a run whose record, packed, is the damaged one.
 */
static void test_cseqpack_damaged(void **state)
{
	struct tl_rng g = { 4243 };
	unsigned i, refused = 0, other = 0, tried = 0;

	(void)state;
	for (i = 0; i < 400; i++) {
		struct tprog p;
		struct pap_cev *a, *b, *ev, *out;
		struct pap_cs_rec rec, packed, again;
		struct pap_bpack_table *t;
		struct pap_cseq_packed pk;
		size_t na, nb, ba, bb, n, j, at, nout, reps;
		uint64_t lim = limits[tl_below(&g, 4)];
		const char *why;
		int err;

		make_prog(&g, &p);
		a = closed_walk(&g, &p, &na, 10 + (unsigned)tl_below(&g, 100),
				lim, &ba);
		b = closed_walk(&g, &p, &nb, 5 + (unsigned)tl_below(&g, 50),
				lim, &bb);
		if (!a || !b) {
			free(a);
			free(b);
			prog_free(&p);
			continue;
		}
		reps = 2 + (size_t)tl_below(&g, 50);
		n = na + reps * nb;
		ev = malloc(n * sizeof(*ev));
		assert_non_null(ev);
		memcpy(ev, a, na * sizeof(*ev));
		for (j = 0; j < reps; j++)
			memcpy(ev + na + j * nb, b, nb * sizeof(*ev));
		assert_int_equal(pap_cseq_exec(&p.prog, ev, n, lim, &rec, &why,
					       &at), 0);
		t = calloc(1, sizeof(*t));
		packed = rec;
		packed.bps = malloc((rec.nbps + 1) * sizeof(*packed.bps));
		assert_true(t && packed.bps);
		packed.nbps = pap_bpack(rec.bps, rec.nbps, packed.bps, t);
		j = (size_t)tl_below(&g, packed.nbps);
		switch (tl_below(&g, 3)) {
		case 0:
			packed.bps[j].site ^= 1u << tl_below(&g, 32);
			break;
		case 1:
			packed.bps[j].r ^= 1ull << tl_below(&g, 64);
			break;
		default:
			memmove(&packed.bps[j], &packed.bps[j + 1],
				(packed.nbps - j - 1) * sizeof(*packed.bps));
			packed.nbps--;
			break;
		}
		tried++;
		err = pap_cseq_decode_packed(&p.prog, &packed, lim, 4 * n + 64,
					     &pk, &why, &at);
		if (err) {
			assert_true(err == PAP_ECORRUPT || err == PAP_ELIMIT);
			assert_non_null(why);
			refused++;
		} else {
			struct pap_breakpoint *re;
			size_t nre;

			assert_int_equal(pap_cseq_expand(&pk, SIZE_MAX, &out,
							 &nout), 0);
			assert_int_equal(pap_cseq_exec(&p.prog, out, nout, lim,
						       &again, &why, &at), 0);
			re = malloc((again.nbps + 1) * sizeof(*re));
			assert_non_null(re);
			memset(t, 0, sizeof(*t));
			nre = pap_bpack(again.bps, again.nbps, re, t);
			assert_int_equal(again.value, packed.value);
			/* the same breakpoints (packings of them may
			 * differ: the damaged one need not be canonical) */
			{
				struct pap_bpack_buf x = { 0 }, y = { 0 };
				const struct pap_breakpoint *px, *py;
				size_t nx, ny, q;

				assert_int_equal(pap_bunpack_into(&x, re, nre,
					UINT64_MAX, &px, &nx), 0);
				assert_int_equal(pap_bunpack_into(&y,
					packed.bps, packed.nbps, UINT64_MAX,
					&py, &ny), 0);
				assert_int_equal(nx, ny);
				for (q = 0; q < nx; q++) {
					assert_int_equal(px[q].site,
							 py[q].site);
					assert_int_equal(px[q].r, py[q].r);
				}
				pap_bpack_buf_free(&x);
				pap_bpack_buf_free(&y);
			}
			free(re);
			pap_cs_rec_free(&again);
			pap_cseq_packed_free(&pk);
			free(out);
			other++;
		}
		free(t);
		free(packed.bps);
		pap_cs_rec_free(&rec);
		free(ev);
		free(a);
		free(b);
		prog_free(&p);
	}
	print_message("cseqpack damaged: %u tried, %u refused, %u decoded to "
		      "a run of those breakpoints\n", tried, refused, other);
	assert_true(tried > 200);
	assert_true(refused > tried / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cseqpack_recursion),
		cmocka_unit_test(test_cseqpack_periodic),
		cmocka_unit_test(test_cseqpack_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
