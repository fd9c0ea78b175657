/* SPDX-License-Identifier: MIT */
/*
 * util.h - small arithmetic and array helpers for the core library
 * (internal).
 */
#ifndef PAP_CORE_UTIL_H
#define PAP_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* pap_grow() with the memory from @mem (NULL: malloc; mem.h). */
struct pap_mem;
int pap_mem_grow(const struct pap_mem *mem, void *arrp, size_t *cap,
		 size_t size, size_t first);

/* Runs first sorted by insertion in pap_sort_stable(); its largest
 * element. */
#define PAP_SORT_RUN 8
#define PAP_SORT_MAX 48

/*
 * Sorts the @n elements of @size bytes (at most PAP_SORT_MAX) at @a by
 * @cmp, stably, as glibc's qsort (a merge sort) orders them, so that
 * written bytes do not depend on which sort ran: runs of PAP_SORT_RUN by
 * insertion, then merges of doubling width through @tmp (room for @n).
 * The elements themselves move, not pointers to them, so that merging
 * reads and writes memory in order.  It allocates nothing (qsort may
 * call malloc, which a signal handler must not).  Inline, so that each
 * caller's comparison and copies are inlined too: the profile writer's
 * sorts are most of its time on a profile of many distinct paths.
 */
static inline __attribute__((always_inline)) void
pap_sort_stable(void *a, void *tmp, size_t n, size_t size,
		int (*cmp)(const void *, const void *))
{
	unsigned char *from = (unsigned char *)a, *to = (unsigned char *)tmp;
	unsigned char *x, e[PAP_SORT_MAX];
	size_t i, j, k, w;

	for (i = 0; i < n; i += PAP_SORT_RUN) {
		size_t end = n - i > PAP_SORT_RUN ? i + PAP_SORT_RUN : n;

		for (j = i + 1; j < end; j++) {
			memcpy(e, from + j * size, size);
			for (k = j; k > i && cmp(from + (k - 1) * size, e) > 0;
			     k--)
				memcpy(from + k * size, from + (k - 1) * size,
				       size);
			memcpy(from + k * size, e, size);
		}
	}
	for (w = PAP_SORT_RUN; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t mid = n - i > w ? i + w : n;
			size_t end = n - mid > w ? mid + w : n;
			size_t p = i, q = mid;

			for (k = i; p < mid && q < end; k++)
				if (cmp(from + q * size, from + p * size) < 0)
					memcpy(to + k * size, from + q++ * size,
					       size);
				else
					memcpy(to + k * size, from + p++ * size,
					       size);
			memcpy(to + k * size, from + p * size,
			       (mid - p) * size);
			k += mid - p;
			memcpy(to + k * size, from + q * size,
			       (end - q) * size);
		}
		x = from;
		from = to;
		to = x;
	}
	if (from != (unsigned char *)a)
		memcpy(a, from, n * size);
}

/*
 * A number of bytes as people write it: digits, then nothing or one of
 * k, M, G (powers of 1024), saturating at SIZE_MAX.  0, or -1 for
 * anything else (a sign, no digits, another suffix, trailing text).
 */
int pap_parse_bytes(const char *s, size_t *out);

#endif /* PAP_CORE_UTIL_H */
