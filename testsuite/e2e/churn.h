/* SPDX-License-Identifier: MIT */
/*
 * churn.h - a loop whose branches follow a pseudo-random sequence with a
 * periodic part: it overflows the path register every few iterations.
 * A macro, so that each function using it runs it in its own activation
 * (longact.c, stepsig.c).
 */
#ifndef PAP_TEST_CHURN_H
#define PAP_TEST_CHURN_H

#define CHURN(n, seed, acc) do {					\
	unsigned long x_ = (seed);					\
	long i_;							\
									\
	for (i_ = 0; i_ < (n); i_++) {					\
		x_ = x_ * 6364136223846793005ul + 1442695040888963407ul; \
		if (i_ % 7 == 3)					\
			(acc) += i_;					\
		else if ((x_ >> 40) % 3 == 0)				\
			(acc) ^= x_;					\
		else if ((x_ >> 41) % 2 == 0)				\
			(acc) -= x_ >> 7;				\
		else							\
			(acc) += 3;					\
	}								\
} while (0)

#endif /* PAP_TEST_CHURN_H */
