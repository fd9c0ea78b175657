/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what every benchmark program shares: the iteration count from
 * argv[1], a checksum that every build must print identically, and a
 * deterministic pseudo-random generator (no libc rand: same on every libc).
 */
#ifndef PAP_BENCH_H
#define PAP_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The iteration count: argv[1] when it is a number N, the default divided
 * by D when it is "/D" (the harness's quick mode), else @dflt.  Never 0.
 */
static inline long bench_iters(int argc, char **argv, long dflt)
{
	long n = dflt;

	if (argc > 1 && argv[1][0] == '/')
		n = dflt / strtol(argv[1] + 1, NULL, 10);
	else if (argc > 1)
		n = strtol(argv[1], NULL, 10);
	return n > 0 ? n : 1;
}

static inline uint64_t bench_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* xorshift64*: a fixed sequence from a fixed seed. */
static inline uint64_t bench_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline void bench_print(const char *name, uint64_t sum)
{
	printf("%s checksum %016llx\n", name, (unsigned long long)sum);
}

#endif /* PAP_BENCH_H */
