/* GNU C nested functions that jump to a label of their parent (nonlocal
 * goto), from inside deeper calls, in loops.  Every function's paths
 * must equal the tracer's. */
#include <stdio.h>
#include <stdlib.h>

static long acc, jumps;

static int walk(int (*visit)(int), int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += visit(i);
	return s;
}

static int search(int limit, int seed)
{
	__label__ found, again;
	int tries = 0, hit = -1;

	int check(int v)
	{
		if ((v * 7 + seed) % 23 == limit % 23) {
			hit = v;
			jumps++;
			goto found;
		}
		if (v > 0 && v % 17 == seed % 17) {
			tries += 100;
			jumps++;
			goto again;
		}
		return v & 1;
	}

again:
	tries++;
	if (tries > 300)
		return -1;
	if (seed % 5 == 0)
		acc += check(limit * 3);	/* a direct call may jump too */
	acc += walk(check, limit);
	return tries;
found:
	acc += hit;
	if (hit % 2)
		return hit;
	return -hit;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	long total = 0;

	for (int i = 0; i < n; i++)
		total += search(i % 40 + 1, i);
	printf("%ld %ld\njumps %ld\n", total, acc, jumps);
	return 0;
}
