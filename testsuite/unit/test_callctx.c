/* SPDX-License-Identifier: MIT */
/*
 * test_callctx.c - the calling-context tree: a sequence written by hand
 * (recursion, callbacks, a tail chain, a longjmp, a tail call from a
 * function entered from outside) gives the tree written out from it;
 * random runs of the call-sequence simulator (callsim.h) give trees in
 * which every entry is counted once, every call context names a site of
 * its parent, and a direct site's context is its callee.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "callctx.h"
#include "callseq.h"
#include "fnkey.h"
#include "testlib.h"

#include "callsim.h"

enum { MAIN, F, G, CMP, H };

/* The node reached from the roots by @n labels; 0 when there is none. */
static uint32_t find(const struct pap_forest *t, const uint64_t *path,
		     size_t n)
{
	uint32_t v, at = 0;
	size_t d;

	for (d = 0; d < n; d++) {
		for (v = 1; v < t->n; v++)
			if (t->nodes[v].parent == at &&
			    t->nodes[v].label == path[d])
				break;
		if (v == t->n)
			return 0;
		at = v;
	}
	return at;
}

#define L(fn, site, out) pap_cctx_label(fn, site, out)
#define CHECK(want, ...) \
	do { \
		const uint64_t p_[] = { __VA_ARGS__ }; \
		uint32_t v_ = find(&t, p_, sizeof(p_) / sizeof(p_[0])); \
		assert_int_not_equal(v_, 0); \
		assert_int_equal(t.nodes[v_].count, (want) * 3); \
	} while (0)

/* test_by_hand: main calls f twice at site 1 (f recurses once), qsort
 * at site 2 calls cmp back twice, g at site 3 tail-calls h at its site
 * 2, f at site 4 calls g, whose callee longjmps back into main, and f
 * once more; then g, entered from outside, tail-calls h. */
static void test_by_hand(void **state)
{
	const struct pap_cev ev[] = {
		{ PAP_CEV_OUT_ENTER, 0, MAIN, 0, 0 },
		{ PAP_CEV_CALL, 0, MAIN, 1, 0 }, { PAP_CEV_ENTER, 0, F, 0, 0 },
		{ PAP_CEV_CALL, 0, F, 1, 0 }, { PAP_CEV_ENTER, 0, F, 0, 0 },
		{ PAP_CEV_EXIT, 0, F, 0, 0 }, { PAP_CEV_RETURN, 0, F, 1, 0 },
		{ PAP_CEV_EXIT, 0, F, 0, 0 }, { PAP_CEV_RETURN, 0, MAIN, 1, 0 },
		{ PAP_CEV_CALL, 0, MAIN, 1, 0 }, { PAP_CEV_ENTER, 0, F, 0, 0 },
		{ PAP_CEV_EXIT, 0, F, 0, 0 }, { PAP_CEV_RETURN, 0, MAIN, 1, 0 },
		{ PAP_CEV_CALL, 0, MAIN, 2, 0 },
		{ PAP_CEV_OUT_ENTER, 0, CMP, 0, 0 },
		{ PAP_CEV_EXIT, 0, CMP, 0, 0 },
		{ PAP_CEV_OUT_ENTER, 0, CMP, 0, 0 },
		{ PAP_CEV_EXIT, 0, CMP, 0, 0 },
		{ PAP_CEV_RETURN, 1, MAIN, 2, 0 },
		{ PAP_CEV_CALL, 0, MAIN, 3, 0 }, { PAP_CEV_ENTER, 0, G, 0, 0 },
		{ PAP_CEV_TAIL, 0, G, 2, 0 }, { PAP_CEV_ENTER, 0, H, 0, 0 },
		{ PAP_CEV_EXIT, 0, H, 0, 0 }, { PAP_CEV_RETURN, 2, MAIN, 3, 0 },
		{ PAP_CEV_CALL, 0, MAIN, 4, 0 }, { PAP_CEV_ENTER, 0, F, 0, 0 },
		{ PAP_CEV_CALL, 0, F, 1, 0 }, { PAP_CEV_ENTER, 0, G, 0, 0 },
		{ PAP_CEV_CALL, 0, G, 1, 0 },
		{ PAP_CEV_LONGJMP, 0, MAIN, 5, 2 },
		{ PAP_CEV_CALL, 0, MAIN, 1, 0 }, { PAP_CEV_ENTER, 0, F, 0, 0 },
		{ PAP_CEV_EXIT, 0, F, 0, 0 }, { PAP_CEV_RETURN, 0, MAIN, 1, 0 },
		{ PAP_CEV_EXIT, 0, MAIN, 0, 0 },
		{ PAP_CEV_OUT_ENTER, 0, G, 0, 0 },
		{ PAP_CEV_TAIL, 0, G, 2, 0 },
		{ PAP_CEV_OUT_ENTER, 0, H, 0, 0 },
		{ PAP_CEV_EXIT, 0, H, 0, 0 },
	};
	struct pap_forest t;
	uint32_t v;
	uint64_t total = 0;

	(void)state;
	pap_forest_init(&t);
	assert_int_equal(pap_cctx_add(&t, ev, sizeof(ev) / sizeof(ev[0]), 3),
			 0);
	CHECK(1, L(MAIN, 0, 1));
	CHECK(3, L(MAIN, 0, 1), L(F, 1, 0));
	CHECK(1, L(MAIN, 0, 1), L(F, 1, 0), L(F, 1, 0));
	CHECK(2, L(MAIN, 0, 1), L(CMP, 2, 1));
	CHECK(1, L(MAIN, 0, 1), L(G, 3, 0));
	CHECK(1, L(MAIN, 0, 1), L(G, 3, 0), L(H, 2, 0));
	CHECK(1, L(MAIN, 0, 1), L(F, 4, 0));
	CHECK(1, L(MAIN, 0, 1), L(F, 4, 0), L(G, 1, 0));
	CHECK(1, L(G, 0, 1));
	CHECK(1, L(H, 0, 1));
	for (v = 1; v < t.n; v++)
		total += t.nodes[v].count;
	assert_int_equal(total, 13 * 3);	/* every entry once */
	assert_int_equal(t.n - 1, 10);		/* and nothing else */
	pap_forest_free(&t);
}

/* test_not_a_sequence: an entry with no caller and an event of a
 * function that is not running are refused. */
static void test_not_a_sequence(void **state)
{
	const struct pap_cev a[] = { { PAP_CEV_ENTER, 0, F, 0, 0 } };
	const struct pap_cev b[] = {
		{ PAP_CEV_OUT_ENTER, 0, MAIN, 0, 0 },
		{ PAP_CEV_CALL, 0, F, 1, 0 },
	};
	struct pap_forest t;

	(void)state;
	pap_forest_init(&t);
	assert_int_equal(pap_cctx_add(&t, a, 1, 1), PAP_EINVAL);
	assert_int_equal(pap_cctx_add(&t, b, 2, 1), PAP_EINVAL);
	pap_forest_free(&t);
}

/* test_random_runs: over the simulator's runs, each entry counted once,
 * each call context at a site its parent has, a direct site's context
 * its callee's. */
static void test_random_runs(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261127);
	unsigned long long i;

	(void)state;
	for (i = 0; i < 400; i++) {
		struct tl_rng g = { seed * 0x9e3779b97f4a7c15ull + i };
		struct pap_forest t;
		struct tprog p;
		struct sim s;
		uint64_t entries = 0, total = 0;
		size_t e;
		uint32_t v;

		make_prog(&g, &p);
		memset(&s, 0, sizeof(s));
		s.g = &g;
		s.p = &p;
		s.soft = 20 + tl_below(&g, 2000);
		s.hard = s.soft * 4 + 100;
		s.p_cb = (uint32_t)tl_below(&g, 60);
		s.p_lj = (uint32_t)tl_below(&g, 15);
		simulate(&s);
		for (e = 0; e < s.n; e++)
			entries += s.ev[e].kind == PAP_CEV_ENTER ||
				   s.ev[e].kind == PAP_CEV_OUT_ENTER;
		pap_forest_init(&t);
		if (pap_cctx_add(&t, s.ev, s.n, 2))
			fail_msg("seed=%llu program=%llu: refused", seed, i);
		for (v = 1; v < t.n; v++) {
			const struct pap_fnode *x = &t.nodes[v];
			uint32_t fn = pap_cctx_fn(x->label);
			uint32_t k = pap_cctx_site(x->label), pf;

			total += x->count;
			assert_true(fn < p.nfn);
			if (!x->parent) {
				assert_int_equal(k, 0);
				continue;
			}
			pf = pap_cctx_fn(t.nodes[x->parent].label);
			assert_true(k >= 1 && k <= p.f[pf].nsites);
			if (!pap_cctx_outside(x->label) &&
			    p.f[pf].sites[k - 1].kind != PAP_SITE_INDIRECT)
				assert_int_equal(fn, p.f[pf].callee[k - 1]);
		}
		assert_int_equal(total, 2 * entries);
		pap_forest_free(&t);
		free(s.ev);
		prog_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_not_a_sequence),
		cmocka_unit_test(test_random_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
