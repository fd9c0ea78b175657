/* SPDX-License-Identifier: MIT */
/*
 * test_pispauto.c - the automaton over the call sequences of interest
 * (pispauto.h), against two oracles that share none of its code:
 *   - a brute force of its definition: every reading of small random
 *     sequences enumerated with copied stacks, the set of their entry
 *     prefixes listed; every string of entries up to a length is walked
 *     and must live exactly when the set has it;
 *   - random threads: calls, entries from outside, returns and longjmp
 *     resumes simulated on a stack, their sequences written as
 *     pap-decode does (doc/reports.md); specs made of some of them, cut
 *     anywhere; a thread whose sequence is a prefix of a spec's must
 *     never die on its entries, and some threads must die.
 * Then the encoding: decoded it steps as built, a corrupt one is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "papdefs.h"
#include "pispauto.h"

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Does @a live through the @n entries of @e? */
static int lives(const struct pap_pisp_auto *a, const uint32_t *e, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		s = pap_pisp_next(a, s, e[i]);
		if (s == PAP_PISP_DEAD)
			return 0;
	}
	return 1;
}

#define MAXLEN 7
#define MAXSET 20000

/* The brute force's set of entry strings, each as letters + 1 in a
 * number of base 8 (a string of up to 7 entries over up to 7 letters). */
static uint64_t set[MAXSET];
static size_t nset;

static void add(uint64_t code)
{
	size_t i;

	for (i = 0; i < nset; i++)
		if (set[i] == code)
			return;
	assert_true(nset < MAXSET);
	set[nset++] = code;
}

static int has(uint64_t code)
{
	size_t i;

	for (i = 0; i < nset; i++)
		if (set[i] == code)
			return 1;
	return 0;
}

/* Every reading of @seq from item @i, the stack @st of @depth frames,
 * the entries so far @code: each prefix's entries into the set. */
static void brute(const struct pap_pisp_item *seq, size_t len, size_t i,
		  const uint32_t *st, size_t depth, uint64_t code)
{
	uint32_t copy[MAXLEN + 1];
	size_t j;

	add(code);
	if (i == len)
		return;
	if (depth)
		memcpy(copy, st, depth * sizeof(*st));
	copy[depth] = seq[i].letter;
	brute(seq, len, i + 1, copy, depth + 1, code * 8 + seq[i].letter + 1);
	if (!i || seq[i].outside)
		return;
	for (j = depth; j-- > 0;)
		if (st[j] == seq[i].letter) {
			brute(seq, len, i + 1, st, j + 1, code);
			break;
		}
}

static void test_brute_force(void **state)
{
	unsigned round;
	size_t dead = 0, live = 0;

	(void)state;
	for (round = 0; round < 300; round++) {
		struct pap_pisp_item items[4][MAXLEN];
		const struct pap_pisp_item *seq[4];
		size_t len[4], nseq = 1 + rnd(3), s, k, total = 1, n;
		uint32_t nl = 1 + rnd(3), e[MAXLEN];
		struct pap_pisp_auto a;

		nset = 0;
		for (s = 0; s < nseq; s++) {
			len[s] = 1 + rnd(MAXLEN);
			for (k = 0; k < len[s]; k++) {
				items[s][k].letter = rnd(nl);
				items[s][k].outside = k && !rnd(5);
			}
			seq[s] = items[s];
			brute(items[s], len[s], 0, NULL, 0, 0);
		}
		assert_int_equal(pap_pisp_auto_build(&a, nl, seq, len, nseq,
						     7), PAP_OK);
		assert_false(a.open);
		/* every string of up to MAXLEN entries over nl letters */
		for (n = 0; n <= MAXLEN; n++, total *= nl) {
			size_t m;

			for (m = 0; m < total; m++) {
				uint64_t code = 0;
				size_t x = m;

				for (k = 0; k < n; k++, x /= nl) {
					e[k] = (uint32_t)(x % nl);
					code = code * 8 + e[k] + 1;
				}
				if (lives(&a, e, n) != has(code))
					fail_msg("round %u: %zu entries: the "
						 "automaton %s, the brute "
						 "force %s", round, n,
						 has(code) ? "dies" : "lives",
						 has(code) ? "lives" : "dies");
				if (has(code))
					live++;
				else
					dead++;
			}
		}
		pap_pisp_auto_free(&a);
	}
	assert_true(live > 1000 && dead > 1000);
}

#define TLEN 24
#define NLET 4

/* A simulated thread: its sequence (items) and its entries. */
struct thread {
	struct pap_pisp_item item[TLEN];
	size_t nitems;
	int isentry[TLEN];
};

/* Does @a live through the entries of @t's first @n items? */
static int thread_lives(const struct pap_pisp_auto *a, const struct thread *t,
			size_t n)
{
	uint32_t e[TLEN];
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (t->isentry[i])
			e[k++] = t->item[i].letter;
	return lives(a, e, k);
}

/*
 * A random thread of up to TLEN events: a call of an instrumented
 * function (its name), an entry from outside ('>' name: a callback, a
 * handler run inline), a return (the function returned to, nothing when
 * the frame was entered from outside), a longjmp resume to a frame on
 * the stack (the stack cut above the topmost frame of its function, its
 * name); the thread ends when its first frame returns.
 */
static void thread(struct thread *t)
{
	uint32_t st[TLEN], out[TLEN];
	size_t depth = 0, ev;

	memset(t, 0, sizeof(*t));
	for (ev = 0; ev < TLEN && t->nitems < TLEN; ev++) {
		uint32_t k = depth ? rnd(10) : 0, f = rnd(NLET);
		struct pap_pisp_item *it = &t->item[t->nitems];

		if (ev && !depth)
			break;
		if (k < 5) {	/* a call, or an entry from outside */
			int o = ev && k == 4;

			st[depth] = f;
			out[depth++] = (uint32_t)o;
			it->letter = f;
			it->outside = (uint32_t)o;
			t->isentry[t->nitems++] = 1;
		} else if (k < 9) {	/* a return */
			depth--;
			if (!depth)
				break;
			if (!out[depth]) {
				it->letter = st[depth - 1];
				it->outside = 0;
				t->nitems++;
			}
		} else {	/* a resume */
			size_t j = rnd((uint32_t)depth), m = depth;

			while (m && st[m - 1] != st[j])
				m--;
			depth = m;
			it->letter = st[j];
			it->outside = 0;
			t->nitems++;
		}
	}
}

/* Is @t's sequence a prefix of @s's? */
static int prefix(const struct thread *t, const struct thread *s,
		  size_t slen)
{
	size_t i;

	if (t->nitems > slen)
		return 0;
	for (i = 0; i < t->nitems; i++)
		if (t->item[i].letter != s->item[i].letter ||
		    t->item[i].outside != s->item[i].outside)
			return 0;
	return 1;
}

static void test_threads(void **state)
{
	unsigned round;
	size_t on = 0, died = 0;

	(void)state;
	for (round = 0; round < 200; round++) {
		struct thread spec[3], t;
		const struct pap_pisp_item *seq[3];
		size_t len[3], s, i;
		struct pap_pisp_auto a;

		for (s = 0; s < 3; s++) {
			thread(&spec[s]);
			seq[s] = spec[s].item;
			len[s] = spec[s].nitems - rnd(
				(uint32_t)spec[s].nitems);
		}
		assert_int_equal(pap_pisp_auto_build(&a, NLET, seq, len, 3,
						     1), PAP_OK);
		if (a.open) {
			pap_pisp_auto_free(&a);
			continue;
		}
		for (i = 0; i < 400; i++) {
			int in = 0;

			if (i < 3) {	/* the specs' threads themselves */
				t = spec[i];
				t.nitems = len[i];
			} else {
				thread(&t);
			}
			for (s = 0; s < 3; s++)
				in |= prefix(&t, &spec[s], len[s]);
			if (!in) {
				died += !thread_lives(&a, &t, t.nitems);
				continue;
			}
			on++;
			if (!thread_lives(&a, &t, t.nitems))
				fail_msg("round %u: a thread on a sequence of "
					 "interest died", round);
		}
		pap_pisp_auto_free(&a);
	}
	assert_true(on > 100 && died > 1000);
}

static void test_encoding(void **state)
{
	struct pap_pisp_item it[5] = {
		{ 0, 0 }, { 1, 0 }, { 0, 0 }, { 2, 1 }, { 1, 0 }
	};
	const struct pap_pisp_item *seq[1] = { it };
	size_t len[1] = { 5 }, size, i;
	struct pap_pisp_auto a, b;
	unsigned char *buf;
	uint32_t e[4], m;

	(void)state;
	assert_int_equal(pap_pisp_auto_build(&a, 3, seq, len, 1,
					     0x1234567890abcdefull), PAP_OK);
	buf = pap_pisp_auto_encode(&a, &size);
	assert_non_null(buf);
	assert_true(pap_pisp_auto_hash(buf, size) == 0x1234567890abcdefull);
	assert_int_equal(pap_pisp_auto_decode(&b, buf, size), PAP_OK);
	assert_int_equal(b.nnodes, a.nnodes);
	/* both step alike on every string of 4 entries over 3 letters */
	for (m = 0; m < 81; m++) {
		uint32_t x = m;

		for (i = 0; i < 4; i++, x /= 3)
			e[i] = x % 3;
		assert_int_equal(lives(&a, e, 4), lives(&b, e, 4));
	}
	/* main f main >g f: "0 1 2 1" lives (main returned to), and so
	 * does "0 1 0 2" (main entered again); "0 2" does not */
	e[0] = 0, e[1] = 1, e[2] = 2, e[3] = 1;
	assert_true(lives(&b, e, 4));
	e[2] = 0, e[3] = 2;
	assert_true(lives(&b, e, 4));
	e[1] = 2;
	assert_false(lives(&b, e, 2));
	pap_pisp_auto_free(&b);
	/* a child out of range, a truncation, a bad magic: refused */
	buf[size - 1] = 0x7f;
	assert_int_equal(pap_pisp_auto_decode(&b, buf, size), PAP_EINVAL);
	assert_int_equal(pap_pisp_auto_decode(&b, buf, size - 4),
			 PAP_EINVAL);
	buf[0] = 'X';
	assert_int_equal(pap_pisp_auto_decode(&b, buf, size), PAP_EINVAL);
	assert_true(pap_pisp_auto_hash(buf, size) == 0);
	free(buf);
	pap_pisp_auto_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_encoding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
