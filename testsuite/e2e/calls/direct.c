/* Direct calls: straight-line, in loops, recursion, mutual recursion,
 * calls in tail position, exit deep in the stack on request.  The
 * SITE comments mark the lines calls-build.sh expects site lines for. */
#include <stdio.h>
#include <stdlib.h>

static int even(int n);

static int sq(int x)
{
	return x * x;
}

static int odd(int n)
{
	/* even is defined later: it may have tail sites */
	return n == 0 ? 0 : even(n - 1);	/* SITE odd direct t even */
}

static int even(int n)
{
	return n == 0 ? 1 : odd(n - 1);
}

static unsigned fib(unsigned n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);	/* SITE fib direct - fib */
}

int twice(int x)
{
	int a = sq(x);			/* SITE twice direct - sq */

	if (x & 1)
		a += sq(a & 15);	/* SITE twice direct - sq */
	printf("twice %d\n", a);	/* SITE twice direct o printf */
	return a;
}

static int last(int x)
{
	return twice(x + 1);		/* SITE last tail - twice */
}

int main(int argc, char **argv)
{
	int i, s = 0;

	for (i = 0; i < 20; i++)
		s += i % 3 ? sq(i) : last(i);	/* SITE main direct t last */
	/* last has a tail site (its caller's site has flag t), even has
	 * none: a call through ?: is none, its value is copied */
	printf("%d %d %u\n", s, even(17) + odd(10), fib(16));	/* SITE main direct - even */
	if (argc > 1 && argv[1][0] == 'x')
		exit(3);
	return s & 7;
}
