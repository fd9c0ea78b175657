/* SPDX-License-Identifier: MIT */
/*
 * radix.h - a stable radix sort by two 64-bit keys (internal).
 *
 * The profile writer orders tens of thousands of records per function;
 * a comparison sort of them was most of what a short process spent
 * writing its profile.  Keys that order the records as the comparison
 * does, as far as 128 bits can, sort them in a few linear passes.
 */
#ifndef PAP_CORE_RADIX_H
#define PAP_CORE_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The unsigned 64-bit key at byte @off of the element at @e. */
static inline uint64_t pap_radix_key(const unsigned char *e, size_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Below this many elements pap_radix_sort() sorts by insertion. */
#define PAP_RADIX_MIN 24

/*
 * Sorts the @n elements of @size bytes at @a, stably, by the unsigned
 * 64-bit key at byte @hi of each, then by the one at byte @lo, through
 * @tmp (room for @n elements): a byte at a time, least significant
 * first, skipping the bytes in which all the elements agree; fewer than
 * PAP_RADIX_MIN by insertion.  The elements themselves move.  It
 * allocates nothing and takes 2 KB of stack, so that a signal handler's
 * writer may call it.  Inline, so that the caller's element size makes
 * each move a few instructions.
 */
static inline __attribute__((always_inline)) void
pap_radix_sort(void *a, void *tmp, size_t n, size_t size, size_t hi,
	       size_t lo)
{
	unsigned char *from = (unsigned char *)a, *to = (unsigned char *)tmp;
	unsigned char *x;
	uint64_t any[2] = { 0, 0 }, all[2] = { ~0ull, ~0ull };
	size_t at[256], i, j, d, sum;

	if (n < PAP_RADIX_MIN) {
		for (i = 1; i < n; i++) {
			uint64_t h = pap_radix_key(from + i * size, hi);
			uint64_t l = pap_radix_key(from + i * size, lo);

			memcpy(to, from + i * size, size);
			for (j = i; j > 0; j--) {
				const unsigned char *p = from + (j - 1) * size;
				uint64_t ph = pap_radix_key(p, hi);

				if (ph < h ||
				    (ph == h && pap_radix_key(p, lo) <= l))
					break;
				memcpy(from + j * size, p, size);
			}
			memcpy(from + j * size, to, size);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t l = pap_radix_key(from + i * size, lo);
		uint64_t h = pap_radix_key(from + i * size, hi);

		any[0] |= l;
		all[0] &= l;
		any[1] |= h;
		all[1] &= h;
	}
	for (d = 0; d < 16; d++) {
		size_t off = d < 8 ? lo : hi;
		unsigned shift = (unsigned)(d % 8) * 8;

		/* a byte every element has alike does not reorder them */
		if (!(((any[d / 8] ^ all[d / 8]) >> shift) & 0xff))
			continue;
		memset(at, 0, sizeof(at));
		for (i = 0; i < n; i++)
			at[pap_radix_key(from + i * size, off) >> shift & 0xff]++;
		for (i = 0, sum = 0; i < 256; i++) {
			size_t c = at[i];

			at[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			unsigned b = pap_radix_key(from + i * size, off) >>
				     shift & 0xff;

			memcpy(to + at[b]++ * size, from + i * size, size);
		}
		x = from;
		from = to;
		to = x;
	}
	if (from != (unsigned char *)a)
		memcpy(a, from, n * size);
}

#endif /* PAP_CORE_RADIX_H */
