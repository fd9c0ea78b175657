/* SPDX-License-Identifier: MIT */
/*
 * loopcount.c - loops of every shape that keeps its count in a register
 * (plugin/loopcount.cc) and some that must not, for loopcount.sh.  Every
 * count depends on argv[1], so the compiler cannot fold it away.
 *
 * Usage: loopcount N
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static jmp_buf env;

/* the same path every iteration */
static NOINLINE long straight(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i * 3;
	return s;
}

/* a path that alternates, and one that changes every third iteration:
 * these count in memory */
static NOINLINE long branchy(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i & 1 ? i : -i;
	for (i = 0; i < n; i++)
		if (i % 3 == 0)
			s ^= i;
	return s;
}

/* exits before and after the end of the body, and at the top */
static NOINLINE long exits(int n, int stop)
{
	long s = 0;
	int i = 0;

	while (i < n) {
		if (i == stop)
			break;
		s += i;
		if (s > 100000)
			break;
		i++;
	}
	return s + i;
}

static NOINLINE long dowhile(int n)
{
	long s = 0;
	int i = n;

	do {
		s += i;
		i -= 2;
	} while (i > 0);
	return s;
}

/* the inner loop keeps its count; the outer one does not */
static NOINLINE long nested(int n)
{
	long s = 0;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i % 7; j++) {
			if (j == 5 && i % 2)
				break;
			s += i ^ j;
		}
	return s;
}

/* a return from inside the loop, and a continue */
static NOINLINE int find(const int *a, int n, int x)
{
	int i;

	for (i = 0; i < n; i++) {
		if (a[i] < 0)
			continue;
		if (a[i] == x)
			return i;
	}
	return -1;
}

/* a return from inside a loop with one path, and two such loops in one
 * function */
static NOINLINE int first_at(const int *a, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i] == x)
			return i;
	return -1;
}

static NOINLINE long twoloops(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i << 1;
	for (i = n; i > 0; i -= 3)
		s -= i;
	return s;
}

/* a loop made of goto */
static NOINLINE long gotoloop(int n)
{
	long s = 0;
	int i = 0;

again:
	if (i >= n)
		return s;
	s += i % 5;
	i++;
	goto again;
}

/* the first iteration's path differs by the way in, and from the later
 * iterations' */
static NOINLINE long twoways(int n, int flag)
{
	long s = 0;
	int i = 0;

	if (flag)
		s = 7;
	else
		i = 1;
	while (i < n) {
		s += i;
		i++;
	}
	return s;
}

/* for (;;) with break, switch in the body: counted in memory */
static NOINLINE long forever(int n)
{
	long s = 0;
	int i = 0;

	for (;;) {
		switch (i % 4) {
		case 0:
			s += 1;
			break;
		case 1:
			s += 10;
			/* fall through */
		case 2:
			s += 100;
			break;
		default:
			s -= 3;
		}
		if (++i >= n)
			break;
	}
	return s;
}

struct node {
	struct node *next;
	int v;
};

static NOINLINE long chase(const struct node *p)
{
	long s = 0;

	while (p) {
		s += p->v;
		p = p->next;
	}
	return s;
}

static NOINLINE __attribute__((const)) int square(int x)
{
	return x * x;
}

static NOINLINE __attribute__((pure)) int look(const int *a, int i)
{
	return a[i & 63];
}

static NOINLINE int plain_call(int x)
{
	sink = x;
	return x + 1;
}

/* a const call lets the count wait; an ordinary call or a volatile asm
 * does not; a pure one may or may not (look is instrumented, and so no
 * longer pure once pap is done with it) */
static NOINLINE long quiet_calls(const int *a, int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += look(a, i);
	return s;
}

static NOINLINE long calls(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += square(i);
	for (i = 0; i < n; i++)
		s += plain_call(i);
	for (i = 0; i < n; i++) {
		__asm__ volatile("" ::: "memory");
		s += i;
	}
	return s;
}

/* a function that calls setjmp keeps every count in memory */
static NOINLINE long withjmp(int n)
{
	volatile long s = 0;
	int i;

	if (setjmp(env))
		return s;
	for (i = 0; i < n; i++)
		s += i;
	if (n > 3)
		longjmp(env, 1);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int a[64], k, round;
	struct node nodes[50];
	long s = 0;

	for (k = 0; k < 64; k++)
		a[k] = (k * 7 + n) % 13 - 2;
	for (k = 0; k < 50; k++) {
		nodes[k].v = k * n;
		nodes[k].next = k + 1 < 50 && k != n % 50 ? &nodes[k + 1] : NULL;
	}
	for (round = 0; round < 3; round++) {
		int m = n * round;

		s += straight(m) + straight(0);
		s += branchy(m + 1);
		s += exits(m, m / 2) + exits(m, -1) + exits(0, 0);
		s += dowhile(m) + dowhile(0);
		s += nested(m);
		for (k = 0; k < 20; k++)
			s += find(a, 64, k - 3) + first_at(a, 64, k - 3);
		s += twoloops(m) + quiet_calls(a, m);
		s += gotoloop(m) + gotoloop(0);
		s += twoways(m, round & 1) + twoways(m, 0);
		s += forever(m + 1);
		s += chase(&nodes[round]);
		s += calls(m);
		s += withjmp(m);
	}
	/* every trip count up to 200: for one of them a loop's last fold
	 * is the first to overflow, the edge of loopfold.cc's inline arm */
	if (n == 7)
		for (k = 0; k < 200; k++)
			s += straight(k) + twoloops(k) + dowhile(k);
	printf("%ld\n", s);
	return 0;
}
