/* SPDX-License-Identifier: MIT */
/*
 * distinct.c - many long paths, each taken once: walk() runs STEPS
 * iterations of a four-way choice drawn from a pseudo-random sequence,
 * so each of its N activations takes a path of its own, of about STEPS/22
 * breakpoints.  Prints a sum of what the walks computed.
 *
 *   distinct N STEPS
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state = 1;
/* twist's most iterations, unknown to the compiler: its paths are then
 * recorded one by one, not counted in place */
static volatile unsigned twist_depth = 4;

static inline unsigned draw(void)
{
	state = state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(state >> 33);
}

/* A few short paths through a loop (no breakpoints), taken in an order
 * that differs from one stretch of walks to the next: records a thread's
 * record cache finds again, made in a new order after each spill. */
__attribute__((noinline)) static unsigned twist(unsigned r)
{
	unsigned x = r, k, n = (r >> 8) % twist_depth;

	for (k = 0; k < n; k++) {
		if (r >> (12 + k) & 1)
			x = x * 3 + 1;
		else
			x >>= 1;
	}
	return x;
}

__attribute__((noinline)) static unsigned walk(unsigned steps)
{
	unsigned acc = 0, i;

	for (i = 0; i < steps; i++) {
		unsigned r = draw();

		switch (r & 3) {
		case 0:
			acc += i;
			break;
		case 1:
			acc ^= r;
			break;
		case 2:
			acc = acc * 3 + 1;
			break;
		default:
			acc -= twist(r);
			break;
		}
	}
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long long sum = 0;
	unsigned n, steps, k;

	if (argc != 3)
		return 2;
	n = (unsigned)strtoul(argv[1], NULL, 10);
	steps = (unsigned)strtoul(argv[2], NULL, 10);
	for (k = 0; k < n; k++)
		sum += walk(steps);
	printf("%llu\n", sum);
	return 0;
}
