/* Indirect calls through a table and a variable, some to functions of
 * another unit compiled without pap (calls-build.sh links plainlib.c),
 * and libc's qsort calling back into instrumented code.  (Not bsearch:
 * glibc inlines it at -O2, and the -finstrument-functions oracle then
 * sees its callback called from main, while for pap it is code without
 * probes, from which the callback is entered from outside.) */
#include <stdio.h>
#include <stdlib.h>

int plain_add(int a, int b);
int plain_apply(int (*f)(int), int x);

static int inc(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }
static int neg(int x) { return -x; }

static int (*const ops[])(int) = { inc, dbl, neg };

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int apply(int (*f)(int), int x)
{
	return f(x);			/* SITE apply tail - - */
}

int main(void)
{
	int v[16], i, s = 0;

	for (i = 0; i < 16; i++)
		v[i] = ops[i % 3](i * 5 % 11);	/* SITE main indirect ot - */
	qsort(v, 16, sizeof(v[0]), cmp);
	for (i = 0; i < 16; i++)
		s = plain_add(s, apply(ops[v[i] & 1 ? 0 : 1], v[i]));
	s += plain_apply(inc, s) + plain_apply(dbl, 3);
	printf("%d %d %d\n", s, v[0], v[15]);
	return 0;
}
