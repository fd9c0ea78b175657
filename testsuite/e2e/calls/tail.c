/* Calls in tail position (calls-record.sh, calls.sh): a tail-recursive
 * loop as deep as the first argument (3 by default), mutual tail
 * recursion, tail calls into libc, a tail call from a qsort comparator
 * and a chain f -> g -> h of tail calls.  Small enough to write its call
 * sequence from the source; the loop runs in constant stack at -O2
 * however deep, as the plain build's does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char word[] = "tail";
static volatile unsigned five = 5;

__attribute__((noinline)) static long down(long n, long acc)
{
	if (n == 0)
		return acc;
	return down(n - 1, acc + (n & 3));
}

static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

__attribute__((noinline)) static size_t len(const char *s)
{
	return strlen(s);
}

__attribute__((noinline)) static int say(const char *s)
{
	return puts(s);
}

__attribute__((noinline)) static int order(int a, int b)
{
	return (a > b) - (a < b);
}

static int cmp(const void *a, const void *b)
{
	return order(*(const int *)a, *(const int *)b);
}

__attribute__((noinline)) static int h(int x)
{
	return x * 3;
}

__attribute__((noinline)) static int g(int x)
{
	return h(x + 1);
}

__attribute__((noinline)) static int f(int x)
{
	return g(x * 2);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, s;
	int v[2] = { 2, 1 };

	s = down(n, 0);
	s += is_even(five);
	s += (long)len(word);
	say(word);
	qsort(v, 2, sizeof(v[0]), cmp);
	s += f(argc);
	printf("%ld %d %d\n", s, v[0], v[1]);
	return 0;
}
