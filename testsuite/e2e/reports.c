/* A program for the report tests: loops whose iterations take different
 * arms, so the k-IPF has something to say, and several functions. */
#include <stdio.h>
#include <stdlib.h>

static int classify(int x)
{
	int kind = 0;

	if (x % 15 == 0)
		kind = 3;
	else if (x % 5 == 0)
		kind = 2;
	else if (x % 3 == 0)
		kind = 1;
	return kind;
}

static long walk(int n)
{
	long s = 0;
	int i, j;

	for (i = 0; i < n; i++) {
		if (i & 1)
			s += i;
		else
			s -= classify(i);
		for (j = 0; j < i % 4; j++)
			s ^= j;
	}
	return s;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 20;
	long total = 0;

	for (i = 0; i < n; i++)
		total += walk(i % 9);
	printf("%ld\n", total);
	return 0;
}
