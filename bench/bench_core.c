/* SPDX-License-Identifier: MIT */
/*
 * bench_core.c - planning time against CFG size, and decoding speed.
 *
 * Graphs are generated like compiled C: sequences of if/else diamonds,
 * switches, and loops nested up to six deep with early exits.  Planning is
 * timed from a finished, weighted graph to a complete plan; decoding from
 * recorded values to edge sequences.  Each figure is the median of
 * repeated runs.  Run with `make bench`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

struct gen {
	struct tl_rng g;
	struct pap_cfg *cfg;
	uint32_t next;		/* next free block */
	uint32_t cap;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t gen_block(struct gen *g)
{
	return g->next < g->cap ? g->next++ : g->cap - 1;
}

static void gen_edge(struct gen *g, uint32_t a, uint32_t b)
{
	pap_cfg_add_edge(g->cfg, a, b, PAP_EDGE_NORMAL);
}

/*
 * Emits a statement sequence starting in block @cur; returns the block
 * control falls out of.  @brk is the enclosing loop's exit (or NONE).
 */
static uint32_t gen_seq(struct gen *g, uint32_t cur, int depth, uint32_t brk)
{
	int n = 1 + (int)tl_below(&g->g, depth ? 3 : 4000000);

	while (n-- > 0 && g->next + 40 < g->cap) {
		uint64_t kind = tl_below(&g->g, 10);

		if (kind < 4) {		/* if / else */
			uint32_t t = gen_block(g), f = gen_block(g);
			uint32_t j;

			gen_edge(g, cur, t);
			gen_edge(g, cur, f);
			if (depth < 6)
				t = gen_seq(g, t, depth + 1, brk);
			j = gen_block(g);
			gen_edge(g, t, j);
			gen_edge(g, f, j);
			cur = j;
		} else if (kind < 5) {	/* switch */
			uint32_t j = PAP_NONE, ncase = 2 +
				(uint32_t)tl_below(&g->g, 14), i;
			uint32_t *cases = malloc(ncase * sizeof(uint32_t));

			for (i = 0; i < ncase; i++) {
				cases[i] = gen_block(g);
				gen_edge(g, cur, cases[i]);
			}
			j = gen_block(g);
			for (i = 0; i < ncase; i++)
				gen_edge(g, cases[i], j);
			free(cases);
			cur = j;
		} else if (kind < 8 && depth < 6) {	/* loop */
			uint32_t h = gen_block(g), x, b;

			gen_edge(g, cur, h);
			b = gen_block(g);
			gen_edge(g, h, b);
			x = gen_block(g);
			gen_edge(g, h, x);
			b = gen_seq(g, b, depth + 1, x);
			gen_edge(g, b, h);
			cur = x;
		} else if (kind < 9 && brk != PAP_NONE) {	/* break */
			uint32_t c = gen_block(g);

			gen_edge(g, cur, brk);
			gen_edge(g, cur, c);
			cur = c;
		} else {
			uint32_t c = gen_block(g);

			gen_edge(g, cur, c);
			cur = c;
		}
	}
	return cur;
}

/* A structured graph with about @nedges edges; with @outer, its body sits
 * in one outer loop, like a server's main loop. */
static struct pap_cfg *gen_cfg(uint64_t seed, uint32_t nedges, int outer)
{
	struct gen g;
	uint32_t last;

	g.g.s = seed;
	g.cap = nedges * 10 / 16 + 64;
	g.cfg = pap_cfg_new(g.cap);
	g.next = 1;
	last = gen_seq(&g, 0, 0, PAP_NONE);
	if (outer)
		gen_edge(&g, last, 0);
	pap_cfg_mark_return(g.cfg, last);
	if (pap_cfg_finish(g.cfg))
		abort();
	pap_cfg_estimate_weights(g.cfg);
	return g.cfg;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_planning(void)
{
	static const uint32_t sizes[] = { 10700, 32000, 107000, 320000 };
	enum { RUNS = 9 };
	size_t s;
	int m, r;

	printf("planning (median of %d runs; finished, weighted graph -> plan)\n",
	       RUNS);
	printf("%10s %8s %9s %10s %10s %10s\n", "edges", "blocks", "loops",
	       "epp ms", "pap ms", "pap-epp ms");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct pap_cfg *cfg = gen_cfg(1000 + s, sizes[s], 0);
		struct pap_loop_nest nest;
		double ms[3];

		pap_loops_find(cfg, &nest);
		for (m = 0; m < 3; m++) {
			double t[RUNS];

			for (r = 0; r < RUNS; r++) {
				struct pap_plan *plan;
				double t0 = now();
				int err = pap_plan_build(cfg, m, NULL, &plan);

				if (err) {
					fprintf(stderr, "bench: %s plan of %u "
						"edges failed: %s\n",
						pap_mode_name(m), cfg->nedges,
						pap_strerror(err));
					exit(1);
				}
				t[r] = now() - t0;
				pap_plan_free(plan);
			}
			ms[m] = median(t, RUNS) * 1e3;
		}
		printf("%10u %8u %9u %10.2f %10.2f %10.2f   (%.0f ns/edge "
		       "pap-epp)\n", cfg->nedges, cfg->nblocks, nest.nloops,
		       ms[0], ms[1], ms[2], ms[2] * 1e6 / cfg->nedges);
		pap_loops_free(&nest);
		pap_cfg_free(cfg);
	}
}

static void bench_decoding(void)
{
	enum { RUNS = 5, STEPS = 10000000 };
	struct pap_cfg *cfg = gen_cfg(77, 2000, 1);
	struct tl_rng g = { 5 };
	uint32_t *walk;
	size_t len;
	int m, r;

	if (tl_random_walk(&g, cfg, STEPS, &walk, &len))
		abort();
	printf("\ndecoding one activation of %zu blocks (graph of %u edges; "
	       "median of %d runs)\n", len, cfg->nedges, RUNS);
	printf("%8s %12s %12s %14s\n", "mode", "records", "decode ms",
	       "blocks/s");
	for (m = 0; m < 3; m++) {
		struct pap_plan *plan;
		struct pap_activation rc;
		struct pap_exec_sink sink = pap_activation_sink(&rc);
		struct pap_exec_state st = { 0, 0 };
		double t[RUNS];
		size_t i, decoded = 0;

		pap_activation_init(&rc);
		if (pap_plan_build(cfg, m, NULL, &plan))
			abort();
		for (i = 0; i < len; i++)
			pap_exec_edge(plan, &st, walk[i], &sink);
		for (r = 0; r < RUNS; r++) {
			struct pap_path p;
			double t0;

			pap_path_init(&p);
			t0 = now();
			if (m == PAP_MODE_EPP) {
				for (i = 0; i < rc.nids; i++) {
					p.len = 0;
					if (pap_decode_bl(plan, rc.ids[i], &p))
						abort();
					decoded += p.len;
				}
			} else {
				if (pap_decode_path(plan, rc.bps, rc.nbps,
						    rc.final, &p) ||
				    p.len != len)
					abort();
				decoded += p.len;
			}
			t[r] = now() - t0;
			pap_path_free(&p);
		}
		decoded /= RUNS;
		printf("%8s %12zu %12.1f %14.3g\n", pap_mode_name(m),
		       m == PAP_MODE_EPP ? rc.nids : rc.nbps + 1,
		       median(t, RUNS) * 1e3,
		       decoded / median(t, RUNS));
		pap_activation_free(&rc);
		pap_plan_free(plan);
	}
	free(walk);
	pap_cfg_free(cfg);
}

int main(void)
{
	bench_planning();
	bench_decoding();
	return 0;
}
