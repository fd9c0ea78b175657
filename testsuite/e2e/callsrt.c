/* SPDX-License-Identifier: MIT */
/*
 * callsrt.c - a program compiled with calls by hand: each function's
 * probes are written out with librt/calls.h's inline functions, as the
 * plugin will emit them, with each node's radix and digit table written
 * from the function's call-site graph (callsrt-check.c builds the same
 * graphs from the same CFGs, below each function), and its two units
 * registered by constructors (__pap_cunit).  callsrt.h says what it
 * does.  "./callsrt exit" leaves through exit() two frames deep.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "callsrt.h"

/* The digit of source @last at a node whose predecessors (ascending
 * source codes) are @pred[0..@n): the probes' constant table. */
static uint32_t digit(const uint32_t *pred, uint32_t n, uint32_t last)
{
	uint32_t i;

	for (i = 0; i < n && pred[i] != last; i++)
		;
	if (i == n)
		abort();	/* a source the graph does not have */
	return i;
}

/* leaf, twice: one block, no site; X's only predecessor is E. */
__attribute__((noinline)) static int leaf(int x)
{
	struct pap_cframe *me = pap_c_enter(CR_KEY_LEAF, (uintptr_t)&leaf);

	pap_c_exit(me);
	return x + 1;
}

__attribute__((noinline)) static int twice(int x)
{
	struct pap_cframe *me = pap_c_enter(CR_KEY_TWICE, (uintptr_t)&twice);

	pap_c_exit(me);
	return 2 * x;
}

static int (*volatile op)(int) = twice;

/*
 * work: b0 i = 0 -> b1; b1 i < n ? b2 : b6; b2 i % EVERY ? b3 : b4;
 * b3 site 1 leaf(i) -> b5; b4 site 2 (*op)(i), indirect, strategy sc
 * (no cluster) -> b5; b5 i++ -> b1; b6 returns.  Sources E = 0, R1^0 =
 * 1, R2^0 = 5 each reach C1, C2 and X: radix 3 at each.
 */
__attribute__((noinline)) static int work(int n)
{
	static const uint32_t pred[] = { 0, 1, 5 };
	struct pap_cframe *me = pap_c_enter(CR_KEY_WORK, (uintptr_t)&work);
	uint32_t last = PAP_CG_SRC_E, c;
	int i, s = 0;

	for (i = 0; i < n; i++) {
		if (i % CR_EVERY) {
			pap_c_node(3, digit(pred, 3, last), 1);
			pap_c_call(me, 1, (uintptr_t)&leaf);
			s += leaf(i);
			c = pap_c_return(me);
			last = pap_cg_src(1, c);
		} else {
			int (*p)(int) = op;

			pap_c_node(3, digit(pred, 3, last), 2);
			pap_c_call(me, 2, (uintptr_t)p);
			s += p(i);
			c = pap_c_return(me);
			if (c == 0)
				pap_c_cluster(0, 0, (uintptr_t)p, 2);
			last = pap_cg_src(2, c);
		}
	}
	pap_c_node(3, digit(pred, 3, last), PAP_CS_CODE_X);
	pap_c_exit(me);
	return s;
}

/* worker: b0 site 1 work(N3), returns.  C1: {E}; X: {R1^0}. */
__attribute__((noinline)) static void *worker(void *arg)
{
	struct pap_cframe *me = pap_c_enter(CR_KEY_WORKER,
					    (uintptr_t)&worker);

	pap_c_call(me, 1, (uintptr_t)&work);
	*(int *)arg = work(CR_N3);
	pap_c_return(me);
	pap_c_exit(me);
	return NULL;
}

/* deep: b0 site 1 exit(0), noreturn; C1: {E}. */
__attribute__((noinline, noreturn)) static void deep(void)
{
	struct pap_cframe *me = pap_c_enter(CR_KEY_DEEP, (uintptr_t)&deep);

	pap_c_call(me, 1, (uintptr_t)&exit);
	exit(0);
}

/*
 * main: b0 site 1 work(N1), site 2 pthread_create, site 3 pthread_join
 * (both may not enter instrumented code: classes 0 and 1), site 4
 * work(N2), then exit mode ? b1 : b2; b1 site 5 deep() -> b2; b2
 * returns.  C1: {E}; C2: {R1^0 = 1}; C3: {R2^0 = 5, R2^1 = 6}; C4:
 * {R3^0 = 9, R3^1 = 10}; C5: {R4^0 = 13}; X: {R4^0 = 13, R5^0 = 17}.
 */
int main(int argc, char **argv)
{
	static const uint32_t p3[] = { 5, 6 }, p4[] = { 9, 10 },
			      px[] = { 13, 17 };
	struct pap_cframe *me = pap_c_enter(CR_KEY_MAIN, (uintptr_t)&main);
	int exit_mode = argc > 1 && !strcmp(argv[1], "exit");
	uint32_t last = PAP_CG_SRC_E;
	pthread_t t;
	int r = 0, s;

	pap_c_call(me, 1, (uintptr_t)&work);
	s = work(CR_N1);
	last = pap_cg_src(1, pap_c_return(me));

	pap_c_call(me, 2, (uintptr_t)&pthread_create);
	if (pthread_create(&t, NULL, worker, &r))
		abort();
	last = pap_cg_src(2, pap_c_return(me));

	pap_c_node(2, digit(p3, 2, last), 3);
	pap_c_call(me, 3, (uintptr_t)&pthread_join);
	pthread_join(t, NULL);
	last = pap_cg_src(3, pap_c_return(me));

	pap_c_node(2, digit(p4, 2, last), 4);
	pap_c_call(me, 4, (uintptr_t)&work);
	s += work(CR_N2);
	last = pap_cg_src(4, pap_c_return(me));

	if (exit_mode) {
		pap_c_call(me, 5, (uintptr_t)&deep);
		deep();
	}
	pap_c_node(2, digit(px, 2, last), PAP_CS_CODE_X);
	pap_c_exit(me);
	return s + r == 0;
}

/* The units' constructors: unit A holds main, work, worker and deep,
 * unit B leaf and twice.  B registers first, and its id is the larger
 * (callsrt-check checks), so that PROGSUM is not the ids' sum in the
 * order they came. */
__attribute__((constructor(151))) static void unit_a(void)
{
	static const struct pap_cunit_fn fns[] = {
		{ (uintptr_t)&main, CR_KEY_MAIN },
		{ (uintptr_t)&work, CR_KEY_WORK },
		{ (uintptr_t)&worker, CR_KEY_WORKER },
		{ (uintptr_t)&deep, CR_KEY_DEEP },
	};
	static const struct pap_cunit u = { CR_UNIT_A, 4, fns };

	__pap_cunit(&u);
}

__attribute__((constructor(150))) static void unit_b(void)
{
	static const struct pap_cunit_fn fns[] = {
		{ (uintptr_t)&leaf, CR_KEY_LEAF },
		{ (uintptr_t)&twice, CR_KEY_TWICE },
	};
	static const struct pap_cunit u = { CR_UNIT_B, 2, fns };

	__pap_cunit(&u);
}
