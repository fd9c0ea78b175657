/* setjmp and longjmp: through three instrumented frames, from the
 * function that called setjmp itself, and from uninstrumented code
 * (qsort's callback). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static int depth_reached;

static void down(int n)
{
	depth_reached++;
	if (n == 0)
		longjmp(env, 1);	/* SITE down noreturn - longjmp */
	down(n - 1);
}

static int bad_cmp(const void *a, const void *b)
{
	(void)a;
	(void)b;
	longjmp(env, 2);
}

static int here(int k)
{
	volatile int tries = 0;

	if (setjmp(env) == 0) {		/* SITE here setjmp o _setjmp */
		tries++;
		if (k == 0)
			down(2);
		else if (k == 1)
			longjmp(env, 3);
		else {
			int v[4] = { 4, 3, 2, 1 };

			qsort(v, 4, sizeof(v[0]), bad_cmp);
		}
	}
	return tries * 10 + k;
}

int main(void)
{
	int k, s = 0;

	for (k = 0; k < 3; k++)
		s += here(k);
	printf("%d %d\n", s, depth_reached);
	return 0;
}
