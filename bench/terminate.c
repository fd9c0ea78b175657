/* SPDX-License-Identifier: MIT */
/*
 * terminate - activations that end early.  work() takes its rare branch
 * when told to (argv[3] "rare") and otherwise never: a spec naming the
 * rare path makes every activation of a normal run leave the paths of
 * interest on its first edge and run the uninstrumented copy of the
 * body, N iterations of a loop with a branch (argv[2], default 1000).
 *
 *   terminate CALLS|/D [N [rare]]
 */
#include <string.h>
#include "suite/bench.h"

static __attribute__((noinline)) uint64_t work(uint64_t h, long n, int rare)
{
	long i;

	if (rare)
		h ^= 0x5555;
	for (i = 0; i < n; i++) {
		h = bench_mix(h, (uint64_t)i);
		if (h & 1)
			h += 3;
		else
			h ^= (uint64_t)i;
	}
	return h;
}

int main(int argc, char **argv)
{
	long calls = bench_iters(argc, argv, 20000000);
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
	int rare = argc > 3 && !strcmp(argv[3], "rare");
	uint64_t h = 1;
	long c;

	if (n > 0)
		calls = calls * 10 / n + 1;	/* about the same work */
	for (c = 0; c < calls; c++)
		h = work(h, n, rare);
	bench_print("terminate", h);
	return 0;
}
