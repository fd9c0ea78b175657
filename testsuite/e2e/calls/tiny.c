/* Small enough to write its call sequence from the source
 * (calls-record.sh): calls, a libc callback, an indirect call, recursion,
 * and a longjmp through three frames. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;

static int leaf(int x)
{
	return x + 1;
}

static int mid(int x)
{
	return leaf(x) * 2;
}

static int cb(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int twice(int (*f)(int), int x)
{
	return f(f(x));
}

static void thrower(int n)
{
	if (n == 0)
		longjmp(env, 1);
	thrower(n - 1);
}

int main(int argc, char **argv)
{
	int v[2] = { 2, 1 }, s;

	(void)argv;
	s = mid(argc);
	s += leaf(s);
	qsort(v, 2, sizeof(v[0]), cb);
	if (!setjmp(env))
		thrower(2);
	s += twice(leaf, s);
	printf("%d %d\n", s, v[0]);
	return 0;
}
