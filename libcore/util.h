/* SPDX-License-Identifier: MIT */
/*
 * util.h - small arithmetic helpers for the core library (internal).
 */
#ifndef PAP_CORE_UTIL_H
#define PAP_CORE_UTIL_H

#include <stdint.h>

/* a + b, or UINT64_MAX when the sum does not fit. */
static inline uint64_t pap_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Would r * n + d exceed 64 bits?  Exact for every n >= 1. */
static inline int pap_fold_overflows(uint64_t r, uint64_t n, uint64_t d)
{
	return r > (UINT64_MAX - d) / n;
}

#endif /* PAP_CORE_UTIL_H */
