/* SPDX-License-Identifier: MIT */
/*
 * pisp-loop.c - threads that leave the call sequences of interest in the
 * middle of long loops of their own activation (testsuite/e2e/pisp.sh).
 * Under the spec
 *   calls main step main
 *   calls worker step worker step worker step worker other worker
 *   calls worker a worker
 * main leaves at its first round's call of off (a function no sequence
 * names), a worker of kind 1 at its third round's step (no sequence
 * goes on), one of kind 0 stays on the last sequence; main and the
 * kind 1 workers then run the rest of their loops (argv[1] rounds) in
 * their copies.  Every value that crosses a call (locals, the call's
 * result, a switch's choice) goes into the output, which must be the
 * plain build's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) int step(int i) { return i * 3 + 1; }
__attribute__((noinline)) int other(int i) { return (i ^ 5) - 2; }
__attribute__((noinline)) void off(void) { sink++; }
__attribute__((noinline)) void a(void) { sink += 2; }

static int (*const tab[2])(int) = { step, other };

/* a tail call: nothing follows it but the return */
__attribute__((noinline)) int last(int i) { return step(i + 1); }

static long rounds;

/* kind 0: one call, on "worker a worker"; kind 1: the loop below,
 * left at its third round (step after "... other worker") */
void *worker(void *arg)
{
	long kind = (long)arg, acc = kind, i, j;
	int v;

	if (kind == 0) {
		a();
		return NULL;
	}
	for (i = 0; i < rounds; i++) {
		v = step((int)i);
		switch (v & 3) {
		case 0:
			acc += tab[i & 1]((int)acc & 255);
			break;
		case 1:
			for (j = 0; j < 3; j++)
				acc ^= step((int)(j + i)) << j;
			break;
		default:
			acc -= v;
		}
		acc += tab[i & 1]((int)i);
		if (i == 4)
			off();
	}
	return (void *)acc;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 4, v, k;
	pthread_t *t;
	long acc = 0, i;
	void *r;

	rounds = argc > 1 ? atol(argv[1]) : 1000;
	t = malloc(n * sizeof(*t));
	for (k = 0; k < n; k++)
		pthread_create(&t[k], NULL, worker, (void *)(long)(k % 2));
	for (i = 0; i < rounds; i++) {
		v = step((int)i);
		acc += v;
		if (i == 0)
			off();
		acc ^= tab[i & 1]((int)i);
		if (i % 7 == 3)
			acc += last((int)acc & 1023) * 2;
		else
			acc += v > 10 ? other(v) : step(v);
	}
	printf("main %ld\n", acc);
	for (k = 0; k < n; k++) {
		pthread_join(t[k], &r);
		printf("worker %d %ld\n", k, (long)r);
	}
	free(t);
	printf("%d\n", sink);
	return 0;
}
