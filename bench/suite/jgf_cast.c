/* SPDX-License-Identifier: MIT */
/* jgf_cast - JGF section 1 Cast: int <-> long <-> float <-> double. */
#include "bench.h"

static __attribute__((noinline)) double cast_round(long n, int seed)
{
	int i32 = seed;
	long long i64 = seed;
	float f = (float)seed;
	double d = seed, acc = 0;
	long i;

	for (i = 0; i < n; i++) {
		f = (float)i32 * 0.5f;
		i64 = (long long)f + i;
		d = (double)i64 * 0.25;
		i32 = (int)d ^ (int)i;
		if (i32 < 0)
			i32 = -i32;
		acc += (double)(float)d + (unsigned char)i32;
		i32 &= 0xffffff;
	}
	return acc + i64;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 100), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)cast_round(600000, (int)k));
	bench_print("jgf_cast", sum);
	return 0;
}
