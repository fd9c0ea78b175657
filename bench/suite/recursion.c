/* SPDX-License-Identifier: MIT */
/* recursion - call-heavy recursion: Fibonacci, Ackermann, the n-queens
 * search and a recursive binary tree build and walk. */
#include "bench.h"

static __attribute__((noinline)) long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) long ack(long m, long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

static __attribute__((noinline)) int queens(int row, int n, unsigned cols,
					    unsigned d1, unsigned d2)
{
	int count = 0, c;

	if (row == n)
		return 1;
	for (c = 0; c < n; c++) {
		unsigned a = 1u << c, b = 1u << (row + c),
			 d = 1u << (row - c + n);

		if ((cols & a) || (d1 & b) || (d2 & d))
			continue;
		count += queens(row + 1, n, cols | a, d1 | b, d2 | d);
	}
	return count;
}

struct node { struct node *l, *r; long v; };

static struct node *tree(int depth, long v)
{
	struct node *t = malloc(sizeof(*t));

	if (!t)
		abort();
	t->v = v;
	t->l = depth ? tree(depth - 1, 2 * v) : NULL;
	t->r = depth ? tree(depth - 1, 2 * v + 1) : NULL;
	return t;
}

static long walk(struct node *t)
{
	long s;

	if (!t)
		return 0;
	s = t->v + walk(t->l) - walk(t->r);
	free(t);
	return s;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 50), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++) {
		sum = bench_mix(sum, (uint64_t)fib(27));
		sum = bench_mix(sum, (uint64_t)ack(2, 1500 + k));
		sum = bench_mix(sum, (uint64_t)queens(0, 9, 0, 0, 0));
		sum = bench_mix(sum, (uint64_t)walk(tree(16, 1)));
	}
	bench_print("recursion", sum);
	return 0;
}
