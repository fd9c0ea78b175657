/*
 * periodic.c - a thread whose calls repeat N times (callslong.sh): an
 * aperiodic start (a recursion of depth 6), a loop of N iterations each
 * calling a (which calls leaf twice) and b (which calls leaf once), and
 * an aperiodic end (c, which calls leaf three times).  Calls: main 1,
 * fact 6, a N, b N, leaf 3N + 3, c 1.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long x)
{
	sink += x;
}

__attribute__((noinline)) void a(unsigned long i)
{
	leaf(i);
	leaf(i + 1);
}

__attribute__((noinline)) void b(unsigned long i)
{
	leaf(2 * i);
}

__attribute__((noinline)) unsigned long fact(unsigned long n)
{
	return n < 2 ? 1 : n * fact(n - 1);
}

__attribute__((noinline)) void c(void)
{
	leaf(1);
	leaf(2);
	leaf(3);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10, i;

	sink = fact(6);
	for (i = 0; i < n; i++) {
		a(i);
		b(i);
	}
	c();
	printf("%lu\n", sink);
	return 0;
}
