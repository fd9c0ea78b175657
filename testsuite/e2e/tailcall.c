/*
 * tailcall.c - calls in tail position, for tailcall.sh.
 *
 *   tailcall N
 *
 * count_down recurses N deep in tail position, is_even and is_odd call
 * each other N deep: built plain at -O2, GCC turns both into jumps and
 * they run in a small stack; the instrumented builds must too.  spin
 * loops before its tail call, walk is void, finish's callee exits.
 * The first record must leave errno alone.  Prints what it computed.
 *
 *   tailcall N self|tail
 *
 * only the call-sequence cases (tailcall.sh): self, count_down N deep
 * and mixed, a self tail recursion N deep whose every third level makes
 * an ordinary call first; tail, the is_even/is_odd pair N deep and
 * by_ptr, which tail calls itself through a pointer N deep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long sink;

/* three paths: 1, N/3 and N - N/3 of them for count_down(N, 0) */
__attribute__((noinline)) long count_down(long n, long acc)
{
	if (n == 0)
		return acc;
	if (n % 3 == 0)
		return count_down(n - 1, acc + 2);
	return count_down(n - 1, acc + (n & 1));
}

__attribute__((noinline)) long is_odd(long n);

__attribute__((noinline)) long is_even(long n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

__attribute__((noinline)) long is_odd(long n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

/*
 * A loop before the tail call: in pap and pap-epp an activation number
 * and a record that may carry breakpoints.  spin(N, 0) takes the loop 0
 * to 3 times before recursing, N/4 times each for N a multiple of 4,
 * and once more 0 times at n == 0.
 */
__attribute__((noinline)) long spin(long n, long acc)
{
	long i;

	for (i = 0; i < (n & 3); i++)
		acc += i * n;
	if (n == 0)
		return acc;
	return spin(n - 1, acc);
}

/* a void tail call */
__attribute__((noinline)) void walk(long n)
{
	if (n > 0) {
		sink ^= n * 7;
		walk(n - 1);
	}
}

/* an ordinary call: its value is used */
__attribute__((noinline)) long leaf(long n)
{
	return n * 3 + 1;
}

/* a self tail call, and on every third level an ordinary call first */
__attribute__((noinline)) long mixed(long n, long acc)
{
	if (n == 0)
		return acc;
	if (n % 3 == 0)
		acc += leaf(n);
	return mixed(n - 1, acc + 1);
}

/* a tail call through a pointer, to itself: no self tail site */
long by_ptr(long n, long acc);
long (*volatile by_ptr_fp)(long, long) = by_ptr;

__attribute__((noinline)) long by_ptr(long n, long acc)
{
	if (n == 0)
		return acc;
	return by_ptr_fp(n - 1, acc + (n & 1));
}

/* not in tail position: the value is used after the call */
__attribute__((noinline)) long depth(long n)
{
	if (n == 0)
		return 0;
	return 1 + depth(n - 1);
}

/* exits: never returns to finish */
__attribute__((noinline)) long report(long v)
{
	if (v >= 0) {
		printf("sink %ld\n", sink);
		fflush(stdout);
		exit(0);
	}
	return v;
}

/* the call and the return in one block */
__attribute__((noinline)) long finish(long v)
{
	sink += v;
	return report(sink);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (argc > 2 && !strcmp(argv[2], "self")) {
		printf("count_down %ld\n", count_down(n, 0));
		printf("mixed %ld\n", mixed(n, 0));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "tail")) {
		printf("is_even %ld\n", is_even(n));
		printf("by_ptr %ld\n", by_ptr(n, 0));
		return 0;
	}

	/* the thread's first record, which tries PAP_COLLECTOR's socket
	 * when that is set, leaves errno as the program set it */
	errno = EDOM;
	sink = report(-1) + 1;
	printf("errno %s\n", errno == EDOM ? "kept" : "changed");
	printf("count_down %ld\n", count_down(n, 0));
	printf("is_even %ld %ld\n", is_even(n), is_even(n + 1));
	printf("spin %ld\n", spin(n, 0));
	walk(n);
	printf("depth %ld\n", depth(n < 1000 ? n : 1000));
	return (int)finish(n);
}
