/* SPDX-License-Identifier: MIT */
/*
 * test_fold.c - the facts the inline fold and the untested folds rest
 * on: below pap_fold_limit(n) no fold overflows, at it one can, and so
 * an r bound allows an overflow exactly from the limit on; and every
 * fold a plan performs adds a digit d below its radix n.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"
#include "foldrun.h"
#include "util.h"

/* Checks the limit of radix @n against the exact overflow test. */
static void fold_limit_check(uint64_t n, struct tl_rng *g)
{
	uint64_t lim = pap_fold_limit(n), d = tl_below(g, n);

	if (n <= 1) {
		assert_true(lim == UINT64_MAX);
		return;
	}
	assert_true(lim > 0);
	/* below the limit: no digit overflows */
	assert_false(pap_fold_overflows(lim - 1, n, n - 1));
	assert_false(pap_fold_overflows(lim - 1, n, d));
	assert_false(pap_fold_overflows(tl_below(g, lim), n, n - 1));
	/* at the limit: the largest digit does */
	assert_true(pap_fold_overflows(lim, n, n - 1));
}

/* test_fold_limit_exact: for small, power-of-two, near-2^64 and 20000
 * random radices, pap_fold_limit(n) is exactly the least r that can
 * overflow. */
static void test_fold_limit_exact(void **state)
{
	static const uint64_t fixed[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 255, 256, 257, 1000003,
		(uint64_t)1 << 32, ((uint64_t)1 << 32) + 1, (uint64_t)1 << 63,
		((uint64_t)1 << 63) - 1, ((uint64_t)1 << 63) + 1,
		UINT64_MAX - 1, UINT64_MAX,
	};
	struct tl_rng g = { 77 };
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		fold_limit_check(fixed[i], &g);
	for (i = 0; i < 64; i++)
		fold_limit_check((uint64_t)1 << i, &g);
	for (i = 0; i < 20000; i++)
		fold_limit_check(tl_next(&g) >> tl_below(&g, 64), &g);
}

/* Checks pap_fold_may_overflow(@rmax, @n) against 128-bit arithmetic:
 * the largest digit on the largest r overflows or not. */
static void fold_may_check(uint64_t rmax, uint64_t n)
{
	unsigned __int128 top = (unsigned __int128)rmax * n + (n - 1);

	if (pap_fold_may_overflow(rmax, n) != (int)(top >> 64 != 0))
		fail_msg("rmax %llu n %llu: may_overflow %d",
			 (unsigned long long)rmax, (unsigned long long)n,
			 pap_fold_may_overflow(rmax, n));
}

/* test_fold_may_overflow: around the limit of small, power-of-two and
 * 20000 random radices, an r bound is said to allow an overflow exactly
 * when the largest fold from it overflows. */
static void test_fold_may_overflow(void **state)
{
	struct tl_rng g = { 78 };
	unsigned i;

	(void)state;
	for (i = 0; i < 20064; i++) {
		uint64_t n = i < 64 ? (uint64_t)1 << i :
				      1 + (tl_next(&g) >> tl_below(&g, 64));
		uint64_t lim = pap_fold_limit(n);

		fold_may_check(lim - 1, n);
		fold_may_check(lim, n);
		if (lim < UINT64_MAX)
			fold_may_check(lim + 1, n);
		fold_may_check(tl_below(&g, lim), n);
		fold_may_check(0, n);
		fold_may_check(UINT64_MAX, n);
	}
	for (i = 1; i < 1000; i++)
		fold_may_check(pap_fold_limit(i) - 1 + tl_below(&g, 3), i);
}

/* test_fold_digit_below_radix: over 2000 random graphs (cyclic,
 * irreducible, setjmp blocks) and a random walk on each, every FOLD of
 * the pap and pap-epp plans folds a digit a + k below its radix n. */
static void test_fold_digit_below_radix(void **state)
{
	static const enum pap_mode modes[] = { PAP_MODE_PAP,
					       PAP_MODE_PAP_EPP };
	struct tl_rng g = { 4242 };
	unsigned long folds = 0;
	int i, m;

	(void)state;
	for (i = 0; i < 2000; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		uint32_t *walk;
		size_t len, s;

		tl_random_params(&g, &p);
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		assert_int_equal(tl_random_walk(&g, cfg, 200, &walk, &len), 0);
		for (m = 0; m < 2; m++) {
			struct pap_plan *plan;
			uint64_t a = 0;

			assert_int_equal(pap_plan_build(cfg, modes[m], NULL,
							&plan), 0);
			for (s = 0; s < len; s++) {
				uint32_t k;

				for (k = plan->op_off[walk[s]];
				     k < plan->op_off[walk[s] + 1]; k++) {
					const struct pap_op *op = &plan->ops[k];

					if (op->kind == PAP_OP_INIT ||
					    op->kind == PAP_OP_SET)
						a = op->k;
					else if (op->kind == PAP_OP_ADD)
						a += op->k;
					else if (op->kind == PAP_OP_FOLD) {
						if (a + op->k >= op->n)
							fail_msg("graph %d: digit %llu, radix %llu",
								 i, (unsigned long long)(a + op->k),
								 (unsigned long long)op->n);
						folds++;
					}
				}
			}
			pap_plan_free(plan);
		}
		free(walk);
		pap_cfg_free(cfg);
	}
	print_message("# %lu folds checked\n", folds);
}

struct record_check {
	const struct pap_plan *plan;
	unsigned long checked;
	int graph;
};

static void rc_value(void *ctx, uint64_t v)
{
	struct record_check *rc = ctx;

	if (rc->plan->record_values && v >= rc->plan->record_values)
		fail_msg("graph %d, mode %s: recorded %llu, bound %llu",
			 rc->graph, pap_mode_name(rc->plan->mode),
			 (unsigned long long)v,
			 (unsigned long long)rc->plan->record_values);
	rc->checked += rc->plan->record_values != 0;
}

static void rc_breakpoint(void *ctx, uint32_t site, uint64_t r)
{
	(void)ctx;
	(void)site;
	(void)r;
}

/* test_fold_record_values: over 3000 random graphs, half of them DAGs,
 * and a random walk on each, every value a COUNT or RECORD reports is
 * below the plan's record_values, the size of the counter block the
 * instrumented code indexes with it (pap/abi.h, __pap_tally); and the
 * bound exists for every DAG's EPP and pap-epp plan. */
static void test_fold_record_values(void **state)
{
	static const enum pap_mode modes[] = { PAP_MODE_EPP, PAP_MODE_PAP,
					       PAP_MODE_PAP_EPP };
	struct tl_rng g = { 777 };
	struct record_check rc = { NULL, 0, 0 };
	unsigned long bounded = 0;
	int i, m;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		uint32_t *walk;
		size_t len, s;

		tl_random_params(&g, &p);
		p.forward_only = i & 1;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		assert_int_equal(tl_random_walk(&g, cfg, 200, &walk, &len), 0);
		for (m = 0; m < 3; m++) {
			struct pap_plan *plan;
			struct pap_exec_state st = { 0, 0 };
			struct pap_exec_sink sink = { rc_breakpoint, rc_value,
						      rc_value, &rc };

			assert_int_equal(pap_plan_build(cfg, modes[m], NULL,
							&plan), 0);
			if (p.forward_only && plan->mode != PAP_MODE_PAP &&
			    !plan->record_values)
				fail_msg("DAG %d, mode %s: no bound", i,
					 pap_mode_name(plan->mode));
			bounded += plan->record_values != 0;
			rc.plan = plan;
			rc.graph = i;
			for (s = 0; s < len; s++)
				pap_exec_edge(plan, &st, walk[s], &sink);
			pap_plan_free(plan);
		}
		free(walk);
		pap_cfg_free(cfg);
	}
	print_message("# %lu plans of 9000 bounded, %lu values checked\n",
		      bounded, rc.checked);
	assert_true(rc.checked > 10000);
}

/* Breakpoints one by one, as the runtime's stack would hold them. */
struct run_bps {
	uint64_t *r;
	size_t n, cap;
	unsigned calls;		/* emit calls */
};

static void run_push(struct run_bps *b, uint64_t r)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->r = realloc(b->r, b->cap * sizeof(*b->r));
		assert_non_null(b->r);
	}
	b->r[b->n++] = r;
}

static void run_emit(void *arg, uint64_t r, uint64_t count)
{
	struct run_bps *b = arg;

	assert_true(count >= 1);
	b->calls++;
	while (count--)
		run_push(b, r);
}

/* The folds one at a time, written from the ABI's words for __pap_fold
 * with 128-bit arithmetic: the reference pap_fold_run() must equal. */
static uint64_t run_reference(uint64_t r, uint64_t n, uint64_t first,
			      uint64_t d, uint64_t restart, uint64_t m,
			      struct run_bps *b)
{
	uint64_t i;

	for (i = 0; i < m; i++) {
		uint64_t digit = i ? d : first;
		unsigned __int128 v = (unsigned __int128)r * n + digit;

		if (v >> 64) {
			run_push(b, r);
			r = restart * n + digit;
		} else {
			r = (uint64_t)v;
		}
	}
	return r;
}

/* A value for r or restart: 0, small, near a radix's limit, or any. */
static uint64_t run_value(struct tl_rng *g, uint64_t n)
{
	uint64_t lim = pap_fold_limit(n);

	switch (tl_below(g, 5)) {
	case 0:
		return 0;
	case 1:
		return tl_below(g, 8);
	case 2:
		return lim == UINT64_MAX ? UINT64_MAX - tl_below(g, 8) :
					   lim - 1 + tl_below(g, 3);
	case 3:
		return tl_next(g) >> tl_below(g, 64);
	default:
		return tl_next(g);
	}
}

/* test_fold_run_equals_folds: for 30000 random loops (radix 1, 2, powers
 * of two, small, huge; digits 0 and n - 1 among them; r and restart 0,
 * near the limit and anywhere; up to 5000 iterations), pap_fold_run()
 * gives the value and the breakpoints of folding one iteration at a
 * time, in at most four emit calls. */
static void test_fold_run_equals_folds(void **state)
{
	struct tl_rng g = { 79 };
	struct run_bps want = { 0 }, got = { 0 };
	unsigned long broke = 0, periods = 0;
	unsigned i;

	(void)state;
	for (i = 0; i < 30000; i++) {
		uint64_t n, first, d, r, restart, m, a, b;

		switch (tl_below(&g, 6)) {
		case 0:
			n = 1 + tl_below(&g, 2);
			break;
		case 1:
			n = (uint64_t)1 << tl_below(&g, 64);
			break;
		case 2:
			n = 2 + tl_below(&g, 10);
			break;
		case 3:
			n = 1 + (tl_next(&g) >> tl_below(&g, 64));
			break;
		default:
			n = 2 + tl_below(&g, 4);
			break;
		}
		first = tl_below(&g, 4) ? tl_below(&g, n) : n - 1;
		d = tl_below(&g, 4) ? tl_below(&g, n) : tl_below(&g, 2) * (n - 1);
		r = run_value(&g, n);
		restart = tl_below(&g, 3) ? tl_below(&g, 4) : run_value(&g, n);
		m = tl_below(&g, 4) ? tl_below(&g, 5000) : tl_below(&g, 4);
		want.n = got.n = 0;
		got.calls = 0;
		a = run_reference(r, n, first, d, restart, m, &want);
		b = pap_fold_run(r, n, first, d, restart, m, run_emit, &got);
		if (a != b || want.n != got.n ||
		    (want.n && memcmp(want.r, got.r, want.n * 8)) ||
		    got.calls > 4)
			fail_msg("r %llu n %llu first %llu d %llu restart %llu "
				 "m %llu: value %llu want %llu, %zu breakpoints "
				 "want %zu, %u calls",
				 (unsigned long long)r, (unsigned long long)n,
				 (unsigned long long)first,
				 (unsigned long long)d,
				 (unsigned long long)restart,
				 (unsigned long long)m, (unsigned long long)b,
				 (unsigned long long)a, got.n, want.n,
				 got.calls);
		broke += want.n > 0;
		periods += want.n > 2;
	}
	print_message("# %lu runs broke, %lu more than twice\n", broke,
		      periods);
	assert_true(broke > 5000 && periods > 3000);
	free(want.r);
	free(got.r);
}

/* Breakpoints as runs of equal values, for counts too large to spell
 * out. */
struct run_rle {
	uint64_t r[16], count[16];
	unsigned n;
	int full;
};

static void rle_emit(void *arg, uint64_t r, uint64_t count)
{
	struct run_rle *b = arg;

	if (b->n && b->r[b->n - 1] == r) {
		b->count[b->n - 1] += count;
	} else if (b->n < 16) {
		b->r[b->n] = r;
		b->count[b->n++] = count;
	} else {
		b->full = 1;
	}
}

/* test_fold_run_splits: for 200000 random loops with up to 2^64 - 1
 * iterations (radices and values as above), m1 + m2 folds in one run
 * make the value and breakpoints of m1 folds and then m2 more of d:
 * the whole periods are counted right however many there are. */
static void test_fold_run_splits(void **state)
{
	struct tl_rng g = { 80 };
	unsigned i, k;

	(void)state;
	for (i = 0; i < 200000; i++) {
		struct run_rle one = { 0 }, two = { 0 };
		uint64_t n = tl_below(&g, 2) ?
			(uint64_t)1 << (1 + tl_below(&g, 63)) :
			2 + (tl_next(&g) >> tl_below(&g, 63));
		uint64_t first = tl_below(&g, n), d = tl_below(&g, n);
		uint64_t r = run_value(&g, n);
		uint64_t restart = tl_below(&g, 3) ? tl_below(&g, 4) :
						     run_value(&g, n);
		uint64_t m1 = 1 + (tl_next(&g) >> (1 + tl_below(&g, 63)));
		uint64_t m2 = tl_next(&g) >> (1 + tl_below(&g, 63));
		uint64_t a, b;

		a = pap_fold_run(r, n, first, d, restart, m1 + m2, rle_emit,
				 &one);
		b = pap_fold_run(r, n, first, d, restart, m1, rle_emit, &two);
		b = pap_fold_run(b, n, d, d, restart, m2, rle_emit, &two);
		assert_false(one.full || two.full);
		if (a != b || one.n != two.n)
			fail_msg("r %llu n %llu m1 %llu m2 %llu: %llu != %llu",
				 (unsigned long long)r, (unsigned long long)n,
				 (unsigned long long)m1,
				 (unsigned long long)m2,
				 (unsigned long long)a, (unsigned long long)b);
		for (k = 0; k < one.n; k++)
			assert_true(one.r[k] == two.r[k] &&
				    one.count[k] == two.count[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_limit_exact),
		cmocka_unit_test(test_fold_may_overflow),
		cmocka_unit_test(test_fold_digit_below_radix),
		cmocka_unit_test(test_fold_record_values),
		cmocka_unit_test(test_fold_run_equals_folds),
		cmocka_unit_test(test_fold_run_splits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
