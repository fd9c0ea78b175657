/* SPDX-License-Identifier: MIT */
/* jgf_math - JGF section 1 Math: the libm calls (abs, max, min, sqrt,
 * sin, cos, exp, log, pow, floor, rint) in a loop. */
#include <math.h>
#include "bench.h"

static __attribute__((noinline)) double math_round(long n, double x)
{
	double acc = 0;
	long i;

	for (i = 0; i < n; i++) {
		double v = x + (double)i * 1e-4;

		acc += fabs(sin(v)) + sqrt(v) * cos(v);
		acc += fmax(log(v + 1.0), exp(-v));
		acc -= floor(acc / 1e3) * (i & 1);
		if (i % 5 == 0)
			acc += pow(v, 0.3) - rint(v);
		else if (i % 5 == 1)
			acc = fmin(acc, 1e9);
	}
	return acc;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 400), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)(math_round(60000, 1.0 + k) * 1e3));
	bench_print("jgf_math", sum);
	return 0;
}
