/* SPDX-License-Identifier: MIT */
/* jgf_arith - JGF section 1 Arith: integer and floating add, multiply,
 * divide in unrolled chains, as the Java Grande kernel times them. */
#include "bench.h"

static __attribute__((noinline)) int64_t arith_int(long n)
{
	int64_t a = 1, b = 2, c = 3, d = 4, i;

	for (i = 0; i < n; i++) {
		a += b; b += c; c += d; d += a;
		a *= 3; b ^= a >> 3; c -= b; d += c & 7;
		if (d & 1)
			a = a / 3 + 1;
		else
			b = b % 1000003 + 2;
	}
	return a + b + c + d;
}

static __attribute__((noinline)) double arith_double(long n)
{
	double a = 1.0, b = 1.5, c = 0.75, i;

	for (i = 0; i < n; i++) {
		a = a * 1.0000001 + b;
		b = b * 0.9999999 - c;
		c = (a - b) / (1e6 + a * a);
		if (a > 1e12)
			a = 1.0;
	}
	return a + b + c;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 200), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++) {
		sum = bench_mix(sum, (uint64_t)arith_int(400000 + k));
		sum = bench_mix(sum, (uint64_t)(arith_double(200000 + k) * 1e3));
	}
	bench_print("jgf_arith", sum);
	return 0;
}
