/*
 * A loop whose iterations choose at random among many acyclic paths,
 * with a loop inside it that runs twice in one iteration of sixteen and
 * else not at all: thousands of paths of one function, most of them
 * distinct and taken once, whose breakpoints do not repeat, cut into
 * pieces at the inner loop's entry and exit as well as at the back edges
 * (an acyclic path crosses pieces, and segments); few of the acyclic
 * paths that exist are taken.  One activation takes a branch no other
 * takes, in every iteration.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long work(unsigned long seed, int n, int rare)
{
	unsigned long a = seed;
	int i, j;

	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		if (seed >> 63)
			a += seed >> 40;
		else
			a ^= seed >> 33;
		if ((seed >> 50) & 1)
			a = a * 3 + 1;
		if ((seed >> 51) & 1)
			a ^= a >> 7;
		if ((seed >> 52) & 1)
			a += 11;
		/* never taken: acyclic paths that exist but are not run,
		 * so that an id counted wrongly is one not taken */
		if (n > 1000)
			a += 1;
		if (n > 2000)
			a ^= 2;
		if (n > 3000)
			a *= 7;
		if (n > 4000)
			a -= 5;
		for (j = 0; j < ((seed >> 60) == 3 ? 2 : 0); j++) {
			if ((a >> j) & 1)
				a += (unsigned long)j;
			else
				a -= 3;
			if ((a >> (j + 5)) & 1)
				a ^= 0x55;
		}
		if ((seed >> 53) & 1)
			a = a * 5 + 1;
		if ((seed >> 54) & 1)
			a -= 17;
		if (rare)
			a = ~a;
	}
	return a;
}

/* segsum [N [FIRST]]: activations FIRST to FIRST + N - 1 of work (4000
 * from 0 by default); activation 1234 alone takes the rare branch. */
int main(int argc, char **argv)
{
	long k, m = argc > 1 ? atol(argv[1]) : 4000;
	long first = argc > 2 ? atol(argv[2]) : 0;
	unsigned long s = 0;

	/* every tenth activation one of a few paths, taken often: the
	 * hottest; the others most often taken once */
	for (k = first; k < first + m; k++)
		s += k % 10 ? work((unsigned long)k * 2654435761ul,
				   (int)(k % 23) + 1, k == 1234) :
			      work((unsigned long)k % 70, 3, 0);
	printf("%lu\n", s);
	return 0;
}
