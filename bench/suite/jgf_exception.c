/* SPDX-License-Identifier: MIT */
/* jgf_exception - JGF section 1 Exception in C: error codes returned up
 * a few frames, and setjmp/longjmp for the throw/catch of the rare case. */
#include <setjmp.h>
#include "bench.h"

static jmp_buf catcher;
static uint64_t rng;	/* not a local: it must survive the longjmp */

static __attribute__((noinline)) int leaf(uint64_t v, int depth)
{
	if ((v & 1023) == 5)
		longjmp(catcher, (int)(v & 7) + 1);
	if ((v % 7) == 3)
		return -1;		/* error return */
	return depth + (int)(v & 3);
}

static __attribute__((noinline)) int middle(uint64_t v, int depth)
{
	int r = leaf(v, depth + 1);

	if (r < 0)
		return r - 1;		/* propagate */
	return r + leaf(v >> 3, depth + 1) * 0 + 1;
}

static __attribute__((noinline)) int64_t catch_round(long n, uint64_t seed)
{
	volatile int64_t sum = 0;
	volatile long i = 0;
	int code;

	rng = seed | 1;

	while (i < n) {
		code = setjmp(catcher);
		if (code) {		/* caught */
			sum += code * 100;
			i++;
			continue;
		}
		for (; i < n; i++) {
			int r = middle(bench_rand(&rng), 0);

			if (r < 0)
				sum -= r;
			else
				sum += r;
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 280), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)catch_round(300000, k + 1));
	bench_print("jgf_exception", sum);
	return 0;
}
