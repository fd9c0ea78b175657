/* SPDX-License-Identifier: MIT */
/*
 * test_bpack.c - packed breakpoint sequences: packing follows its written
 * rule, unpacks to what was packed, and corrupt packings are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "assert_bps.h"
#include "bpack.h"
#include "cfgmodel.h"

static uint64_t seed = 42;

static uint32_t rnd(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(seed >> 33);
}

/* The bucket as doc/algorithms.md defines it. */
static size_t ref_bucket(const struct pap_breakpoint *bp)
{
	uint64_t h = ((uint64_t)bp->site * 0x9e3779b97f4a7c15ull) ^ bp->r;

	return (size_t)((h * 0xbf58476d1ce4e5b9ull) >> 52);
}

/*
 * The packing rule, written from its definition with no table: the
 * candidate is found by scanning back for the latest position in the same
 * bucket.  Quadratic; for checking only.
 */
static size_t ref_pack(const struct pap_breakpoint *in, size_t n,
		       struct pap_breakpoint *out)
{
	size_t i = 0, o = 0;

	if (n <= PAP_BPACK_SHORT) {
		memcpy(out, in, n * sizeof(*in));
		return n;
	}
	while (i < n) {
		size_t j = i, len = 0, d;

		while (j > 0 && ref_bucket(&in[j - 1]) != ref_bucket(&in[i]))
			j--;
		d = i - (j - 1);
		if (j > 0)
			while (i + len < n && in[i + len].site ==
			       in[i + len - d].site &&
			       in[i + len].r == in[i + len - d].r)
				len++;
		if (len >= PAP_BPACK_MIN) {
			out[o].site = PAP_BP_REPEAT;
			out[o++].r = (uint64_t)d << 32 | len;
			i += len;
		} else {
			out[o++] = in[i++];
		}
	}
	return o;
}

/* A sequence of @n breakpoints of shape @shape. */
static void make_seq(struct pap_breakpoint *x, size_t n, int shape)
{
	size_t i, period = 1 + rnd() % 40;

	for (i = 0; i < n; i++) {
		switch (shape) {
		case 0:		/* a few values, at random */
			x[i].site = rnd() % 3;
			x[i].r = rnd() % 4;
			break;
		case 1:		/* periodic, now and then disturbed */
			if (i < period || rnd() % 97 == 0) {
				x[i].site = rnd() % 50;
				x[i].r = (uint64_t)rnd() << 32 | rnd();
			} else {
				x[i] = x[i - period];
			}
			break;
		case 2:		/* long runs of one */
			if (i == 0 || rnd() % 500 == 0) {
				x[i].site = rnd() % 7;
				x[i].r = rnd();
			} else {
				x[i] = x[i - 1];
			}
			break;
		default:	/* all different */
			x[i].site = (uint32_t)i;
			x[i].r = (uint64_t)rnd() << 32 | rnd();
		}
	}
}

/*
 * test_bpack_rule: on 400 sequences of four shapes, 0 to 6,000 long,
 * packed one after another with one table, the packing is token for
 * token the rule's (ref_pack), never longer than the sequence, and
 * unpacks to the sequence; periodic ones and runs pack to under 5%.
 */
static void test_bpack_rule(void **state)
{
	enum { MAXN = 6000 };
	struct pap_breakpoint *x = malloc(MAXN * sizeof(*x));
	struct pap_breakpoint *p = malloc(MAXN * sizeof(*p));
	struct pap_breakpoint *q = malloc(MAXN * sizeof(*q));
	struct pap_breakpoint *u = malloc(MAXN * sizeof(*u));
	struct pap_bpack_table *t = calloc(1, sizeof(*t));
	size_t k, packed = 0, total = 0;

	(void)state;
	assert_true(x && p && q && u && t);
	for (k = 0; k < 400; k++) {
		size_t n = k % 10 == 0 ? k % 40 : rnd() % MAXN, np, nq;

		make_seq(x, n, (int)(k % 4));
		np = pap_bpack(x, n, p, t);
		nq = ref_pack(x, n, q);
		assert_int_equal(np, nq);
		assert_same_bps(p, q, np);
		assert_true(np <= n);
		assert_int_equal(pap_bpack_length(p, np, UINT64_MAX), n);
		pap_bunpack(p, np, u);
		assert_same_bps(u, x, n);
		if (k % 4 == 1 || k % 4 == 2) {
			packed += np;
			total += n;
		}
	}
	/* the shapes that repeat pack well */
	if (packed * 20 > total)
		fail_msg("periodic sequences and runs packed to %zu of %zu",
			 packed, total);
	free(x);
	free(p);
	free(q);
	free(u);
	free(t);
}

/* test_bpack_period: a loop of 7 distinct breakpoints taken 10,000 times
 * packs to its 7 and one repeat; 16 or fewer are left as they are. */
static void test_bpack_period(void **state)
{
	enum { P = 7, N = P * 10000 };
	struct pap_breakpoint *x = malloc(N * sizeof(*x));
	struct pap_breakpoint *p = malloc(N * sizeof(*p));
	struct pap_bpack_table *t = calloc(1, sizeof(*t));
	size_t i;

	(void)state;
	assert_true(x && p && t);
	for (i = 0; i < N; i++) {
		x[i].site = (uint32_t)(i % P) * 3 + 1;
		x[i].r = 1000003ull * (i % P) + 17;
	}
	assert_int_equal(pap_bpack(x, N, p, t), P + 1);
	assert_int_equal(p[P].site, PAP_BP_REPEAT);
	assert_int_equal(p[P].r, (uint64_t)P << 32 | (N - P));
	for (i = 0; i < PAP_BPACK_SHORT; i++)
		x[i] = x[0];
	assert_int_equal(pap_bpack(x, PAP_BPACK_SHORT, p, t), PAP_BPACK_SHORT);
	assert_same_bps(p, x, PAP_BPACK_SHORT);
	free(x);
	free(p);
	free(t);
}

/* test_bpack_corrupt: repeats of distance or length 0, reaching before
 * the start, or making more than the limit are refused. */
static void test_bpack_corrupt(void **state)
{
	struct pap_breakpoint b[3] = {
		{ 5, 9 }, { 6, 10 }, { PAP_BP_REPEAT, (uint64_t)2 << 32 | 3 },
	};

	(void)state;
	assert_int_equal(pap_bpack_length(b, 3, UINT64_MAX), 5);
	assert_int_equal(pap_bpack_length(b, 3, 5), 5);
	assert_int_equal(pap_bpack_length(b, 3, 4), 0);
	assert_int_equal(pap_bpack_length(b, 0, UINT64_MAX), 0);
	b[2].r = (uint64_t)3 << 32 | 3;		/* reaches before the start */
	assert_int_equal(pap_bpack_length(b, 3, UINT64_MAX), 0);
	b[2].r = 3;				/* distance 0 */
	assert_int_equal(pap_bpack_length(b, 3, UINT64_MAX), 0);
	b[2].r = (uint64_t)1 << 32;		/* length 0 */
	assert_int_equal(pap_bpack_length(b, 3, UINT64_MAX), 0);
	b[0] = b[2];				/* a repeat first */
	b[0].r = (uint64_t)1 << 32 | 1;
	assert_int_equal(pap_bpack_length(b, 1, UINT64_MAX), 0);
}

/* test_bunpack_into: what pap-decode calls: a sequence without repeats
 * as it is, a packed one undone, a corrupt one and one past the limit
 * refused as such. */
static void test_bunpack_into(void **state)
{
	struct pap_breakpoint b[3] = {
		{ 5, 9 }, { 6, 10 }, { PAP_BP_REPEAT, (uint64_t)2 << 32 | 3 },
	};
	const struct pap_breakpoint *out;
	struct pap_bpack_buf buf = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(pap_bunpack_into(&buf, b, 2, 2, &out, &n), PAP_OK);
	assert_ptr_equal(out, b);
	assert_int_equal(n, 2);
	assert_int_equal(pap_bunpack_into(&buf, b, 3, 5, &out, &n), PAP_OK);
	assert_int_equal(n, 5);
	assert_int_equal(out[4].site, 5);
	assert_int_equal(out[3].r, 10);
	assert_int_equal(pap_bunpack_into(&buf, b, 3, 4, &out, &n),
			 PAP_ELIMIT);
	b[2].r = (uint64_t)3 << 32 | 3;
	assert_int_equal(pap_bunpack_into(&buf, b, 3, 100, &out, &n),
			 PAP_ECORRUPT);
	pap_bpack_buf_free(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpack_rule),
		cmocka_unit_test(test_bpack_period),
		cmocka_unit_test(test_bpack_corrupt),
		cmocka_unit_test(test_bunpack_into),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
