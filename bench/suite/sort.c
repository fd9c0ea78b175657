/* SPDX-License-Identifier: MIT */
/* sort - quicksort (median of three, insertion sort below 16), heapsort
 * and a bottom-up merge sort of the same random arrays. */
#include <string.h>
#include "bench.h"

#define LEN 50000

static int32_t src[LEN], work[LEN], tmp[LEN];

static void insertion(int32_t *v, long lo, long hi)
{
	long i, j;

	for (i = lo + 1; i <= hi; i++) {
		int32_t x = v[i];

		for (j = i - 1; j >= lo && v[j] > x; j--)
			v[j + 1] = v[j];
		v[j + 1] = x;
	}
}

static void quick(int32_t *v, long lo, long hi)
{
	while (hi - lo > 16) {
		long mid = lo + (hi - lo) / 2, i = lo, j = hi;
		int32_t p, t;

		if (v[mid] < v[lo]) { t = v[mid]; v[mid] = v[lo]; v[lo] = t; }
		if (v[hi] < v[lo]) { t = v[hi]; v[hi] = v[lo]; v[lo] = t; }
		if (v[hi] < v[mid]) { t = v[hi]; v[hi] = v[mid]; v[mid] = t; }
		p = v[mid];
		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				t = v[i]; v[i] = v[j]; v[j] = t;
				i++;
				j--;
			}
		}
		if (j - lo < hi - i) {
			quick(v, lo, j);
			lo = i;
		} else {
			quick(v, i, hi);
			hi = j;
		}
	}
	insertion(v, lo, hi);
}

static void sift(int32_t *v, long root, long n)
{
	int32_t x = v[root];
	long c;

	while ((c = 2 * root + 1) < n) {
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[c] <= x)
			break;
		v[root] = v[c];
		root = c;
	}
	v[root] = x;
}

static void heap(int32_t *v, long n)
{
	long i;
	int32_t t;

	for (i = n / 2 - 1; i >= 0; i--)
		sift(v, i, n);
	for (i = n - 1; i > 0; i--) {
		t = v[0]; v[0] = v[i]; v[i] = t;
		sift(v, 0, i);
	}
}

static void merge(int32_t *v, long n)
{
	long w, i, l, m, h, a, b, o;

	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			l = i;
			m = i + w < n ? i + w : n;
			h = i + 2 * w < n ? i + 2 * w : n;
			a = l; b = m; o = l;
			while (a < m && b < h)
				tmp[o++] = v[a] <= v[b] ? v[a++] : v[b++];
			while (a < m)
				tmp[o++] = v[a++];
			while (b < h)
				tmp[o++] = v[b++];
		}
		memcpy(v, tmp, (size_t)n * sizeof(*v));
	}
}

static uint64_t digest(const int32_t *v)
{
	uint64_t h = 0;
	long i;

	for (i = 0; i < LEN; i += 97)
		h = bench_mix(h, (uint64_t)v[i]);
	return h;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 65), k, i;
	uint64_t s = 7, sum = 0;

	for (k = 0; k < n; k++) {
		for (i = 0; i < LEN; i++)
			src[i] = (int32_t)(bench_rand(&s) % 1000000);
		memcpy(work, src, sizeof(work));
		quick(work, 0, LEN - 1);
		sum = bench_mix(sum, digest(work));
		memcpy(work, src, sizeof(work));
		heap(work, LEN);
		sum = bench_mix(sum, digest(work));
		memcpy(work, src, sizeof(work));
		merge(work, LEN);
		sum = bench_mix(sum, digest(work));
	}
	bench_print("sort", sum);
	return 0;
}
