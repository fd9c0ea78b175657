/*
 * tailcall.c - calls in tail position, for tailcall.sh.
 *
 *   tailcall N
 *
 * count_down recurses N deep in tail position, is_even and is_odd call
 * each other N deep: built plain at -O2, GCC turns both into jumps and
 * they run in a small stack; the instrumented builds must too.  walk is
 * void, finish's callee exits.  Prints what it computed.
 */
#include <stdio.h>
#include <stdlib.h>

static long sink;

/* three paths: 1, N/3 and N - 1 - N/3 of them for count_down(N, 0) */
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

/* a void tail call */
__attribute__((noinline)) void walk(long n)
{
	if (n > 0) {
		sink ^= n * 7;
		walk(n - 1);
	}
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

	printf("count_down %ld\n", count_down(n, 0));
	printf("is_even %ld %ld\n", is_even(n), is_even(n + 1));
	walk(n);
	printf("depth %ld\n", depth(n < 1000 ? n : 1000));
	return (int)finish(n);
}
