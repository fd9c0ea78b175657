/* gcovlines2.c - gcov.sh: while with if/else on one line, continue and
 * break, nested for headers, do-while on one line, short-circuit
 * conditions, a backward goto on one line, switch with fall-through,
 * "if (x) break;" and "default: break;" (jumps on empty blocks). */
#include <stdio.h>
#include <stdlib.h>

static int collatz(long n)
{
	int steps = 0;

	while (n != 1) {
		if (n % 2) n = 3 * n + 1; else n /= 2;
		steps++;
	}
	return steps;
}

static int search(const int *v, int n, int want)
{
	int i, found = -1;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			continue;
		if (v[i] == want) {
			found = i;
			break;
		}
	}
	return found;
}

static int nested(int n)
{
	int i, j, s = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			s += (i ^ j) & 1 ? j : -j;
	for (i = 0; i < 100; i++) {
		if (i > n + 3)
			break;
		if (i & 1)
			continue;
		s++;
	}
	do s--; while (s > 100);
	return s > 0 && n > 2 || s < -50 ? s : -s;
}

static int jumps(int x)
{
	int r = 0;
again:
	r += x;
	if (r < 20) goto again;
	switch (r & 3) {
	case 0: r++; /* fall through */
	case 1: r += 2; break;
	case 2: return r * 2;
	default: break;
	}
	return r;
}

int main(int argc, char **argv)
{
	int v[] = { 3, -1, 7, 2, -5, 9, 4 }, i, t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 6;

	for (i = 1; i <= n; i++) t += collatz(i);
	for (i = 0; i < 10; i++)
		t += search(v, 7, i);
	t += nested(n);
	for (i = 1; i < 9; i++) t += jumps(i);
	printf("%d\n", t);
	return 0;
}
