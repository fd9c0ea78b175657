/*
 * Activations of one function that make distinct long paths of one count
 * agreeing on their first blocks: each call loops N times, the same way
 * for its first iterations, then with a branch of its own period.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long spin(long n, long period)
{
	unsigned long long a = 0, b = 1;
	long i;

	for (i = 0; i < n; i++) {
		if (i < 64 || i % period)
			a += (unsigned long long)i;
		else
			b ^= a;
	}
	return a ^ b;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, p;
	unsigned long long x = 0;

	/* periods in an order that is not the paths' order */
	for (p = 13; p >= 2; p -= 2)
		x ^= spin(n, p);
	for (p = 2; p <= 12; p += 2)
		x ^= spin(n, p);
	printf("%llu\n", x);
	return 0;
}
