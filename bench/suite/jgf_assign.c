/* SPDX-License-Identifier: MIT */
/* jgf_assign - JGF section 1 Assign: stores to locals, globals, array
 * elements and struct fields, with the loop tests between them. */
#include "bench.h"

struct rec { int64_t a, b, c, d; };

static int64_t g1, g2, g3, g4;
static struct rec recs[64];
static int64_t arr[256];

static __attribute__((noinline)) int64_t assign_round(long n, int64_t seed)
{
	int64_t l1 = seed, l2 = 0, l3 = 0, l4 = 0;
	long i;

	for (i = 0; i < n; i++) {
		l2 = l1; l3 = l2 + 1; l4 = l3 ^ i; l1 = l4;
		g1 = l1; g2 = g1 + l2; g3 = g2; g4 = g3 - 1;
		arr[i & 255] = g4;
		arr[(i + 7) & 255] = arr[i & 255] + 1;
		recs[i & 63].a = l1;
		recs[i & 63].b = recs[(i + 1) & 63].a;
		recs[i & 63].c = recs[i & 63].b + g2;
		recs[i & 63].d = i & 1 ? recs[i & 63].c : l4;
	}
	return g4 + arr[3] + recs[5].d;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 900), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)assign_round(500000, k));
	bench_print("jgf_assign", sum);
	return 0;
}
