/*
 * Loops inside a loop, each iteration a choice: long paths whose records
 * repeat, cut into pieces at the loops' entries and exits as well as at
 * their back edges, with many activations of different lengths; and
 * short paths through a loop of two back edges (jumps()).
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long work(long n, long m, long k)
{
	unsigned long a = 0;
	long i, j;

	for (i = 0; i < n; i++) {
		if (i % k)
			a += (unsigned long)i;
		else
			a ^= (unsigned long)i;
		for (j = 0; j < m; j++) {
			if ((i + j) % 3)
				a += (unsigned long)j;
			else
				a -= 1;
		}
		if (a & 4)
			a = a * 3 + 1;
	}
	return a;
}

/*
 * A loop of two back edges into its head (the gotos), each iteration
 * taking either: the same edges from the head on follow one or the
 * other, and a Ball-Larus id starts at the back edge taken.  Few
 * iterations, so that a path holds no repeat.
 */
static unsigned long jumps(long n, long sel)
{
	unsigned long a = 0;
	long i = 0;

top:
	if (i >= n)
		return a;
	i++;
	if ((i + sel) % 3 == 0) {
		a += 2;
		goto top;
	}
	if ((i ^ sel) & 1)
		a ^= (unsigned long)i;
	else
		a += 5;
	goto top;
}

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 1, n, m, k;
	unsigned long x = 0;

	for (n = 0; n <= 6; n++)
		for (k = 0; k < 6; k++)
			x ^= jumps(n, k);

	for (n = 1; n <= 60 * scale; n += 7)
		for (m = 0; m <= 4; m++)
			for (k = 2; k <= 4; k++)
				x ^= work(n, m, k);
	printf("%lu\n", x);
	return 0;
}
