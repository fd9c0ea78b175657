/*
 * manypaths.c - functions of many acyclic paths, for features.sh: paths13
 * has 2^13 (counted in place by default) and paths15 2^15 (too many to
 * count in place, so counted by the runtime), one for each value of
 * their argument's low bits, since each bit decides one branch.  main
 * calls paths13 with every 13-bit value K times and paths15
 * with every 15-bit value once, so in epp each of paths13's 8192 paths
 * must be counted K times and each of paths15's 32768 paths once,
 * whether counted in place or through the runtime.
 */
#include <stdio.h>
#include <stdlib.h>

#define K 3

/* one branch per bit; the empty asm keeps GCC from making it a cmov */
#define BIT(i)                                                        \
	do {                                                          \
		if (x & (1u << (i))) {                                \
			__asm__ volatile("" ::: "memory");            \
			s = s * 3 + (i);                              \
		} else {                                              \
			__asm__ volatile("");                         \
			s ^= (i) * 7u + 1;                            \
		}                                                     \
	} while (0)

static __attribute__((noinline)) unsigned paths13(unsigned x)
{
	unsigned s = 1;

	BIT(0); BIT(1); BIT(2); BIT(3); BIT(4); BIT(5); BIT(6);
	BIT(7); BIT(8); BIT(9); BIT(10); BIT(11); BIT(12);
	return s;
}

static __attribute__((noinline)) unsigned paths15(unsigned x)
{
	unsigned s = 1;

	BIT(0); BIT(1); BIT(2); BIT(3); BIT(4); BIT(5); BIT(6);
	BIT(7); BIT(8); BIT(9); BIT(10); BIT(11); BIT(12); BIT(13);
	BIT(14);
	return s;
}

int main(void)
{
	unsigned x, k, sum = 0;

	for (k = 0; k < K; k++)
		for (x = 0; x < 1u << 13; x++)
			sum += paths13(x);
	for (x = 0; x < 1u << 15; x++)
		sum += paths15(x);
	printf("%u\n", sum);
	return 0;
}
