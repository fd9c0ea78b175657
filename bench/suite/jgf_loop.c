/* SPDX-License-Identifier: MIT */
/* jgf_loop - JGF section 1 Loop: for loops counting up and down, while
 * and do-while loops, nested loops with short bodies. */
#include "bench.h"

static __attribute__((noinline)) int64_t loop_round(int n, int seed)
{
	int64_t sum = seed;
	int i, j;

	for (i = 0; i < n; i++)
		sum += i & 3;
	for (i = n; i > 0; i--)
		sum ^= i;
	i = 0;
	while (i < n) {
		sum += i >> 4;
		i += 2;
	}
	do {
		sum -= i & 1;
		i -= 3;
	} while (i > 0);
	for (i = 0; i < n / 64; i++)
		for (j = 0; j < 64; j++)
			sum += (i ^ j) & 5;
	return sum;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 6400), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)loop_round(100000, (int)k));
	bench_print("jgf_loop", sum);
	return 0;
}
