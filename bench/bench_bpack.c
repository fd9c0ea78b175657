/* SPDX-License-Identifier: MIT */
/*
 * bench_bpack.c - the online packer (libcore/bpack_online.c) timed alone
 * on streams that do not repeat periodically, against pap_bpack() on the
 * same stream.
 *
 *   bench_bpack ack N         the marks of Ackermann's A(2, N) with its
 *                             tail calls kept (recursion.c under
 *                             calls-tail; N = 1500 is its work at /400)
 *   bench_bpack body LEN TIMES a body of LEN distinct breakpoints taken
 *                             TIMES times, one changed each time
 *
 * Prints the breakpoints, the packed items, both times, the reader's
 * steps a breakpoint and the packer's memory; exits 1 when the online
 * result differs from pap_bpack()'s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpack.h"
#include "bpack_online.h"

static struct pap_breakpoint *x;
static size_t n, cap;

static void put(uint32_t site, uint64_t r)
{
	if (n == cap) {
		cap = cap ? cap * 2 : 1024;
		x = realloc(x, cap * sizeof(*x));
		if (!x) {
			fprintf(stderr, "bench_bpack: out of memory\n");
			exit(2);
		}
	}
	x[n].site = site;
	x[n++].r = r;
}

/* The marks as librt/calls.c makes them: a tail entry marks its site
 * and callee, the return ending a chain its kind, callee and length. */
static long ack(long m, long k, int tail)
{
	long v;

	if (tail) {
		put(0xf0000000u, 0x1a93d4c2u);
		put(0xf0000001u, 0x77);
	}
	if (m == 0)
		return k + 1;
	if (k == 0) {
		put(0xf5000000u, 1);
		return ack(m - 1, 1, 1);
	}
	v = ack(m, k - 1, 0);
	put(0xf8000000u, 1);
	put(0xf4000003u, 3 + (m & 1));
	return ack(m - 1, v, 1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct pap_bpack_online s;
	struct pap_bpack_table *t;
	const struct pap_breakpoint *o;
	struct pap_breakpoint *w;
	size_t i, no, nw;
	double t0, t1, t2;
	int same;

	if (argc == 3 && !strcmp(argv[1], "ack")) {
		ack(2, atol(argv[2]), 0);
	} else if (argc == 4 && !strcmp(argv[1], "body")) {
		long len = atol(argv[2]), times = atol(argv[3]), j, k;
		uint64_t seed = 1;

		for (k = 0; k < len; k++)
			put((uint32_t)k, (uint64_t)k * 7919);
		for (j = 0; j < times && len > 0; j++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			for (k = 0; k < len; k++)
				put(x[n - len].site,
				    k == (long)((seed >> 33) % (uint64_t)len) ?
				    seed : x[n - len].r);
		}
	} else {
		fprintf(stderr, "usage: bench_bpack ack N | body LEN TIMES\n");
		return 2;
	}
	pap_bpack_online_init(&s, NULL);
	t0 = now();
	for (i = 0; i < n; i++)
		if (pap_bpack_online_push(&s, &x[i]))
			return 2;
	o = pap_bpack_online_finish(&s, &no);
	t1 = now();
	t = calloc(1, sizeof(*t));
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!t || !w)
		return 2;
	nw = pap_bpack(x, n, w, t);
	t2 = now();
	same = no == nw;
	for (i = 0; same && i < no; i++)
		same = o[i].site == w[i].site && o[i].r == w[i].r;
	printf("%zu breakpoints, %zu items; online %.3f s, pap_bpack %.3f s; "
	       "%.2f reader steps a breakpoint; %zu bytes held; %s\n", n, no,
	       t1 - t0, t2 - t1, n ? (double)s.steps / (double)n : 0.0,
	       pap_bpack_online_memory(&s),
	       same ? "same" : "DIFFERENT");
	pap_bpack_online_free(&s);
	free(t);
	free(w);
	free(x);
	return !same;
}
