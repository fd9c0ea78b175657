/* SPDX-License-Identifier: MIT */
/*
 * calls-hand - hand-written programs whose call sequences calls.sh knows
 * from the source: `calls-hand CASE` runs one case.  Every function but
 * main is noipa, so that -O2 keeps each call a call to the function
 * written (no inlining, cloning or merging).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI __attribute__((noipa))

void oracle_resumed(void *fn);
/* calls-hand.c is also built without the oracle */
__attribute__((weak, no_instrument_function)) void oracle_resumed(void *fn)
{
	(void)fn;
}

static volatile unsigned sink;

/* recursion and mutual recursion */
NI static unsigned fact(unsigned n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

NI static int is_odd(unsigned n);

NI static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

NI static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

/* a qsort callback that calls an instrumented function */
NI static int key(const int *p)
{
	return *p;
}

NI static int cmp(const void *a, const void *b)
{
	return key(a) - key(b);
}

NI static void g(void)
{
	sink++;
}

NI static void sorter(void)
{
	int a[2] = { 2, 1 };

	qsort(a, 2, sizeof(a[0]), cmp);	/* two elements: one comparison */
	g();
	sink += (unsigned)a[0];
}

/* threads */
NI static void leaf(void)
{
	sink++;
}

NI static void *worker(void *arg)
{
	leaf();
	return arg;
}

/* exit() three frames deep, an atexit handler that calls */
NI static void handler(void)
{
	leaf();
}

NI static void c3(void)
{
	exit(0);
}

NI static void b2(void)
{
	c3();
	sink++;
}

NI static void a1(void)
{
	b2();
	sink++;
}

/* longjmp through two frames */
static jmp_buf jb;

NI static void t2(void)
{
	longjmp(jb, 1);
}

NI static void t1(void)
{
	t2();
	sink++;
}

NI static void after(void)
{
	sink++;
}

NI static void catcher(void)
{
	if (setjmp(jb)) {
		oracle_resumed((void *)catcher);
		after();
		return;
	}
	t1();
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "rec")) {
		sink += fact(3);
		sink += (unsigned)is_even(2);
	} else if (!strcmp(c, "qsort")) {
		sorter();
	} else if (!strcmp(c, "threads")) {
		pthread_t t[2];
		int i;

		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(c, "exit")) {
		atexit(handler);
		a1();
	} else if (!strcmp(c, "longjmp")) {
		catcher();
		leaf();
	}
	return 0;
}
