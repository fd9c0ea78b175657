/* SPDX-License-Identifier: MIT */
/*
 * util.h - small arithmetic and array helpers for the core library
 * (internal).
 */
#ifndef PAP_CORE_UTIL_H
#define PAP_CORE_UTIL_H

#include <stddef.h>
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

/*
 * The least r for which r * n + d overflows 64 bits for some d < n, that
 * is floor(2^64 / n); UINT64_MAX when no r does (n <= 1).  Every fold
 * has d < n (plan.h), so below this limit it needs no overflow test.
 */
static inline uint64_t pap_fold_limit(uint64_t n)
{
	if (n <= 1)
		return UINT64_MAX;
	/* floor((2^64 - 1) / n) is one short exactly when n divides 2^64 */
	return UINT64_MAX / n + !(n & (n - 1));
}

/*
 * Can r * n + d overflow 64 bits for some r <= @rmax and digit d < @n?
 * Exactly when @rmax reaches pap_fold_limit(@n).
 */
static inline int pap_fold_may_overflow(uint64_t rmax, uint64_t n)
{
	if (n <= 1)
		return n == 0;	/* no radix 0 exists: assume the worst */
	return rmax >= pap_fold_limit(n);
}

/*
 * FNV-1a (64 bits) of @len bytes at @p: the metadata's graph checksum,
 * and the hash of function keys wherever they are looked up by text.
 */
static inline uint64_t pap_fnv1a(const void *p, size_t len)
{
	const unsigned char *c = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* @one or @many, as @n says: "1 record", "2 records" in messages. */
static inline const char *pap_plural(uint64_t n, const char *one,
				     const char *many)
{
	return n == 1 ? one : many;
}

/* FNV-1a of the NUL-terminated string @s, without its NUL. */
static inline uint64_t pap_fnv1a_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/*
 * Makes room for one more entry in the array whose pointer is at @arrp
 * (any object pointer type), *@cap entries of @size bytes: doubles it, or
 * allocates @first entries when empty.  PAP_ENOMEM (also when the size
 * would not fit a size_t) leaves the array and *@cap as they were.
 */
int pap_grow(void *arrp, size_t *cap, size_t size, size_t first);

/*
 * A number of bytes as people write it: digits, then nothing or one of
 * k, M, G (powers of 1024), saturating at SIZE_MAX.  0, or -1 for
 * anything else (a sign, no digits, another suffix, trailing text).
 */
int pap_parse_bytes(const char *s, size_t *out);

#endif /* PAP_CORE_UTIL_H */
