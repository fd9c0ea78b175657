/* gcovphases.c - gcov.sh: one loop whose iterations run in phases, a
 * phase coming back after others, so that the loop's one path holds
 * the same piece (breakpoint to breakpoint) at several places of its
 * packed form, not as a repeat, and that path runs twice; each line of
 * phases() is one block, so that the HTML page's counts (runs of the
 * line's blocks) are gcov's; each function has one distinct path */
#include <stdlib.h>

volatile long acc;

static void phases(const char *pat, int n)
{
	int i = 0;
again:
	if (i >= n)
		return;
	if (pat[i] == 'a')
		acc += i;
	else if (pat[i] == 'b')
		acc -= 3;
	else
		acc ^= i;
	i++;
	goto again;
}

/* @rounds rounds, each 600 'a' then 300 of "cbb" (even rounds) or 50
 * 'c' (odd ones); the length */
static int fill(char *pat, int rounds)
{
	int r, i, n = 0;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 600; i++)
			pat[n++] = 'a';
		for (i = 0; i < (r % 2 ? 50 : 300); i++)
			pat[n++] = r % 2 ? 'c' : "cbb"[i % 3];
	}
	return n;
}

int main(int argc, char **argv)
{
	static char pat[8 * 900];
	int rounds = argc > 1 ? atoi(argv[1]) : 3, n;

	if (rounds < 0 || rounds > 8)
		rounds = 3;
	n = fill(pat, rounds);
	phases(pat, n);
	phases(pat, n);		/* its one path twice */
	return 0;
}
