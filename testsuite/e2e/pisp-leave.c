/* SPDX-License-Identifier: MIT */
/*
 * pisp-leave.c - threads that leave the call sequences of interest
 * mid-way, in functions the sequences name (testsuite/e2e/pisp.sh): N
 * workers, worker i of kind i % 3.  Under the spec
 *   calls main
 *   calls worker a worker b worker
 * kind 0 is on it, kind 1 leaves at its first call (b), kind 2 at its
 * second (a again), each after running instrumented code.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) void a(void) { sink++; }
__attribute__((noinline)) void b(void) { sink += 2; }

/* kind 0: a then b (on "worker a worker b worker"); kind 1: b then a
 * (off at its first call); kind 2: a twice (off at the second) */
void *worker(void *arg)
{
	int kind = (int)(long)arg;

	if (kind == 0) {
		a();
		b();
	} else if (kind == 1) {
		b();
		a();
	} else {
		a();
		a();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 9, i;
	pthread_t *t = malloc(n * sizeof(*t));

	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)(i % 3));
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	printf("%d\n", sink);
	return 0;
}
