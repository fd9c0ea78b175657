/* SPDX-License-Identifier: MIT */
/*
 * test_bpack_online.c - packing breakpoints one at a time gives what
 * packing the whole sequence gives, in memory that does not grow with
 * the sequence's length.
 *
 * The sequences are walks of loops as a program makes them: each
 * iteration of a loop takes one of 1 to 50 paths, each path making a
 * breakpoint or a few; loops nest; the choice of path is periodic,
 * random, or periodic with disturbances.
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
#include "bpack_online.h"

static uint64_t seed = 7;

static uint32_t rnd(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(seed >> 33);
}

struct seq {
	struct pap_breakpoint *x;
	size_t n, cap;
};

static void put(struct seq *s, uint32_t site, uint64_t r)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->x = realloc(s->x, s->cap * sizeof(*s->x));
		assert_non_null(s->x);
	}
	s->x[s->n].site = site;
	s->x[s->n++].r = r;
}

/*
 * One loop of @iters iterations at nesting @depth: each iteration takes
 * one of @npaths paths (by @how: 0 periodic with a period of up to 9
 * iterations, 1 at random, 2 periodic and now and then another), a path
 * making one to three breakpoints; an inner loop runs in some iterations.
 */
static void walk_loop(struct seq *s, unsigned depth, unsigned npaths,
		      unsigned iters, unsigned how, size_t max)
{
	unsigned period = 1 + rnd() % 9, pick[9], i, k, base = rnd() % 1000;

	for (i = 0; i < period; i++)
		pick[i] = rnd() % npaths;
	for (i = 0; i < iters && s->n < max; i++) {
		unsigned path = pick[i % period];

		if (how == 1 || (how == 2 && rnd() % 53 == 0))
			path = rnd() % npaths;
		for (k = 0; k <= path % 3; k++)
			put(s, base + path * 3 + k,
			    (uint64_t)(depth + 1) << 40 | (path * 7919 + k));
		if (depth < 2 && path % 4 == 0)
			walk_loop(s, depth + 1, 1 + rnd() % 50,
				  1 + rnd() % (depth ? 40 : 400), rnd() % 3,
				  max);
	}
}

/* Packs @x[0..@n) with pap_bpack() into a fresh buffer; its length in
 * *@np. */
static struct pap_breakpoint *pack_whole(const struct pap_breakpoint *x,
					 size_t n, size_t *np)
{
	struct pap_breakpoint *p = malloc((n ? n : 1) * sizeof(*p));
	struct pap_bpack_table *t = calloc(1, sizeof(*t));

	assert_true(p && t);
	*np = pap_bpack(x, n, p, t);
	free(t);
	return p;
}

/* Packs @x[0..@n) online with @s (reset first) and checks the result
 * against pap_bpack() and the sequence itself. */
static void check_online(struct pap_bpack_online *s,
			 const struct pap_breakpoint *x, size_t n)
{
	const struct pap_breakpoint *o;
	struct pap_breakpoint *w, *u;
	size_t i, no, nw;

	pap_bpack_online_reset(s);
	for (i = 0; i < n; i++)
		assert_int_equal(pap_bpack_online_push(s, &x[i]), PAP_OK);
	o = pap_bpack_online_finish(s, &no);
	w = pack_whole(x, n, &nw);
	assert_int_equal(no, nw);
	assert_same_bps(o, w, no);
	assert_int_equal(pap_bpack_length(o, no, UINT64_MAX), n);
	u = malloc((n ? n : 1) * sizeof(*u));
	assert_non_null(u);
	pap_bunpack(o, no, u);
	assert_same_bps(u, x, n);
	free(u);
	free(w);
}

/*
 * test_online_equals_whole: 600 walks of nested loops (1 to 50 paths an
 * iteration, periodic, random and disturbed choices) up to 20,000
 * breakpoints, bodies longer than the largest window taken 2 to 4 times
 * with a few changes, and the shapes of test_bpack (a few values at random,
 * every one different, lengths 0 to 40), packed one after another
 * through one reused state or each through a fresh one (whose window
 * grows while it packs): each packs item for item as pap_bpack()
 * packs the whole sequence, and unpacks to it.
 */
static void test_online_equals_whole(void **state)
{
	struct pap_bpack_online s;
	struct seq q = { NULL, 0, 0 };
	unsigned k;
	size_t far = 0;

	(void)state;
	pap_bpack_online_init(&s, NULL);
	for (k = 0; k < 600; k++) {
		size_t i, np;
		struct pap_breakpoint *p;

		q.n = 0;
		switch (k % 4) {
		case 0:
			walk_loop(&q, 0, 1 + rnd() % 50, 1 + rnd() % 3000,
				  k % 3, 20000);
			break;
		case 1:		/* a long body, taken 2 to 4 times */
			if (k % 8 == 1) {
				size_t body = PAP_BPACK_WINDOW_MAX + rnd() % 5000,
				       times = 2 + rnd() % 3, t;

				for (i = 0; i < body; i++)
					put(&q, rnd() % 60, rnd() % 5);
				for (t = 1; t < times; t++)
					for (i = 0; i < body; i++) {
						struct pap_breakpoint b =
							q.x[q.n - body];

						put(&q, b.site,
						    b.r + (rnd() % 1000 == 0));
					}
			} else {
				walk_loop(&q, 0, 1 + rnd() % 50,
					  1 + rnd() % 3000, k % 3, 20000);
			}
			break;
		case 2:		/* short ones, a few values; or a body of
				 * 65 to 4,000 distinct ones taken 3 times */
			if (k % 8 == 2) {
				size_t body = PAP_BPACK_WINDOW + 1 + rnd() % 4000,
				       t;

				for (t = 0; t < 3; t++)
					for (i = 0; i < body; i++)
						put(&q, (uint32_t)i, k);
				break;
			}
			for (i = rnd() % 41; i > 0; i--)
				put(&q, rnd() % 3, rnd() % 4);
			break;
		default:	/* every one different */
			for (i = rnd() % 3000; i > 0; i--)
				put(&q, (uint32_t)i, (uint64_t)rnd() << 32 | rnd());
		}
		if (k % 2) {
			check_online(&s, q.x, q.n);
		} else {
			/* a fresh state: its window grows while in use */
			struct pap_bpack_online fresh;

			pap_bpack_online_init(&fresh, NULL);
			check_online(&fresh, q.x, q.n);
			pap_bpack_online_free(&fresh);
		}
		/* count repeats reaching past the window: the packed items,
		 * not the window, answered for them */
		p = pack_whole(q.x, q.n, &np);
		for (i = 0; i < np; i++)
			if (pap_bp_is_repeat(&p[i]) &&
			    (p[i].r >> 32) > PAP_BPACK_WINDOW_MAX)
				far++;
		free(p);
	}
	if (far < 40)
		fail_msg("only %zu repeats reach past the window", far);
	print_message("%zu repeats reach past the largest window\n", far);
	pap_bpack_online_free(&s);
	free(q.x);
}

/*
 * test_online_memory: a loop of 23 breakpoints taken 200,000 times
 * inside an outer loop with a disturbance every 50,000 (4.6 million
 * breakpoints, 74 MB unpacked) packs online in under 16 KB (the window,
 * the bucket table, 184 items and their repeats' period tables), to
 * pap_bpack()'s result.
 */
static void test_online_memory(void **state)
{
	enum { P = 23, ITERS = 200000 };
	struct pap_bpack_online s;
	struct seq q = { NULL, 0, 0 };
	const struct pap_breakpoint *o;
	size_t i, no, peak = 0;

	(void)state;
	pap_bpack_online_init(&s, NULL);
	for (i = 0; i < (size_t)P * ITERS; i++) {
		struct pap_breakpoint bp;

		bp.site = (uint32_t)(i % P) * 5 + 2;
		bp.r = i % 50000 == 49999 ? 77 : 1000003ull * (i % P) + 3;
		assert_int_equal(pap_bpack_online_push(&s, &bp), PAP_OK);
		put(&q, bp.site, bp.r);
		if (pap_bpack_online_memory(&s) > peak)
			peak = pap_bpack_online_memory(&s);
	}
	if (peak > 16384)
		fail_msg("%zu bytes held for %zu breakpoints", peak, q.n);
	o = pap_bpack_online_finish(&s, &no);
	{
		size_t nw;
		struct pap_breakpoint *w = pack_whole(q.x, q.n, &nw);

		assert_int_equal(no, nw);
		assert_same_bps(o, w, no);
		free(w);
	}
	pap_bpack_online_free(&s);
	free(q.x);
}

/* Breakpoint @v of the small alphabets below. */
static void put_sym(struct seq *q, unsigned v)
{
	put(q, 40 + v % 7, 1000 + v);
}

/*
 * The marks of a call sequence computing Ackermann's function A(m, n)
 * with both tail calls taken as tail calls (bench/suite/recursion.c):
 * an entry by a tail call marks the site and the callee, an ordinary
 * call's return after a chain of tail calls marks the return and the
 * chain's length.  Not periodic: the runs between returns grow.
 */
static long ack_marks(struct seq *q, long m, long n, int tail)
{
	long v;

	if (tail) {
		put(q, 0xf0000000u, 0x1a93d4c2u);
		put(q, 0xf0000001u, 0x77);
	}
	if (m == 0)
		return n + 1;
	if (n == 0) {
		put(q, 0xf5000000u, 1);
		return ack_marks(q, m - 1, 1, 1);
	}
	v = ack_marks(q, m, n - 1, 0);
	put(q, 0xf8000000u, 1);
	put(q, 0xf4000003u, 3 + (m & 1));
	return ack_marks(q, m - 1, v, 1);
}

/*
 * test_online_aperiodic: streams that do not repeat periodically, up to
 * a million breakpoints each - Ackermann's marks (A(2, 800)), the
 * Thue-Morse word, its square-free ternary relative, the Fibonacci word,
 * random words over 2, 5 and 300 values, loops nested four deep whose
 * bodies reach past the largest window, and a body of 5,000 taken 60
 * times with one change each time - pack online item for item as
 * pap_bpack() packs them and unpack to them; and reading back costs at
 * most 12 steps a breakpoint (levels entered and items searched, the
 * packer's counter): the chain of repeats behind a position is not
 * walked again for the position after it.
 */
static void test_online_aperiodic(void **state)
{
	struct pap_bpack_online s;
	struct seq q = { NULL, 0, 0 };
	unsigned k;

	(void)state;
	pap_bpack_online_init(&s, NULL);
	for (k = 0; k < 9; k++) {
		size_t i, j, n;
		uint64_t v;

		q.n = 0;
		switch (k) {
		case 0:
			ack_marks(&q, 2, 800, 0);
			break;
		case 1:		/* Thue-Morse: parity of the ones */
			for (i = 0; i < 1000000; i++)
				put_sym(&q, __builtin_popcountll(i) & 1);
			break;
		case 2:		/* ones between its zeros: square-free */
			for (i = 0, n = 0; q.n < 500000; i++) {
				if (__builtin_popcountll(i) & 1) {
					n++;
					continue;
				}
				if (i)
					put_sym(&q, (unsigned)n);
				n = 0;
			}
			break;
		case 3:		/* Fibonacci: i-th letter from the golden
				 * ratio's multiples */
			for (i = 1; i <= 1000000; i++) {
				const double g = 0.6180339887498949;

				put_sym(&q, (unsigned)((double)(i + 1) * g) -
					    (unsigned)((double)i * g));
			}
			break;
		case 4:
		case 5:
		case 6:
			n = k == 4 ? 2 : k == 5 ? 5 : 300;
			for (i = 0; i < 300000; i++)
				put_sym(&q, rnd() % n);
			break;
		case 7:	/* nested loops, bodies past the window */
			for (i = 0; q.n < 1000000; i++)
				for (j = 0; j < 3 + i % 4; j++) {
					for (v = 0; v < 4100 + 7 * (i % 3); v++)
						put(&q, (uint32_t)v, j % 2);
					for (v = 0; v < 1 + i % 5; v++)
						put(&q, 9, i);
				}
			break;
		default:	/* a body of 5,000 changing one at a time */
			for (i = 0; i < 5000; i++)
				put(&q, (uint32_t)i, rnd());
			for (j = 0; j < 60; j++) {
				size_t at = q.n + rnd() % 5000;

				for (i = 0; i < 5000; i++) {
					struct pap_breakpoint b;

					b = q.x[q.n - 5000];
					put(&q, b.site,
					    q.n == at ? rnd() : b.r);
				}
			}
		}
		s.steps = 0;
		check_online(&s, q.x, q.n);
		{
			size_t np, far = 0;
			struct pap_breakpoint *p = pack_whole(q.x, q.n, &np);

			for (i = 0; i < np; i++)
				if (pap_bp_is_repeat(&p[i]) &&
				    (p[i].r >> 32) > PAP_BPACK_WINDOW_MAX)
					far++;
			free(p);
			print_message("stream %u: %zu breakpoints, %zu items, "
				      "%zu repeats past the window, %.2f steps "
				      "each\n", k, q.n, np, far,
				      (double)s.steps / (double)q.n);
			/* these read their sources from the packed items */
			if ((k == 0 || k >= 7) && !far)
				fail_msg("stream %u: no repeat past the window",
					 k);
		}
		if (s.steps > 12 * (uint64_t)q.n)
			fail_msg("stream %u: %llu steps for %zu breakpoints", k,
				 (unsigned long long)s.steps, q.n);
	}
	pap_bpack_online_free(&s);
	free(q.x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_online_equals_whole),
		cmocka_unit_test(test_online_memory),
		cmocka_unit_test(test_online_aperiodic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
