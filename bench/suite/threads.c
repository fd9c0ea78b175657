/* SPDX-License-Identifier: MIT */
/* threads - four threads each run a mix of branchy integer work and
 * small function calls on their own data, then join: a workload where
 * per-thread profiling state matters. */
#include <pthread.h>
#include "bench.h"

#define NTHREADS 4

struct job {
	long iters;
	uint64_t seed, out;
};

static __attribute__((noinline)) uint64_t step(uint64_t x)
{
	if (x & 1)
		return x * 3 + 1;
	return x >> 1;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t s = j->seed, acc = 0;
	long i;

	for (i = 0; i < j->iters; i++) {
		uint64_t x = (bench_rand(&s) & 0xffff) | 1;
		int k = 0;

		while (x != 1 && k < 40) {
			x = step(x);
			k++;
		}
		acc = bench_mix(acc, (uint64_t)k);
	}
	j->out = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 2100000);
	pthread_t t[NTHREADS];
	struct job jobs[NTHREADS];
	uint64_t sum = 0;
	int i;

	for (i = 0; i < NTHREADS; i++) {
		jobs[i].iters = n;
		jobs[i].seed = (uint64_t)i + 11;
		if (pthread_create(&t[i], NULL, worker, &jobs[i]))
			abort();
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		sum = bench_mix(sum, jobs[i].out);
	}
	bench_print("threads", sum);
	return 0;
}
