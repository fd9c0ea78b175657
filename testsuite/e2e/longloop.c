/* One activation, N iterations of a loop with a period-3 branch pattern. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long spin(long n)
{
	unsigned long long a = 0, b = 1;
	long i;

	for (i = 0; i < n; i++) {
		if (i % 3 == 0)
			a += (unsigned long long)i;
		else if (i % 3 == 1)
			b ^= a;
		else
			a -= b;
	}
	return a ^ b;
}

int main(int argc, char **argv)
{
	printf("%llu\n", spin(argc > 1 ? atol(argv[1]) : 10));
	return 0;
}
