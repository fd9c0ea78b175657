/* SPDX-License-Identifier: MIT */
/*
 * bench_sel.c - seed 002's probe-count study for the selective
 * strategies: how many edges carry probes when only some paths are
 * profiled, against profiling all of them.
 *
 * Study 1 and 2 of seed 002 on random DAGs: for one path, then subsets
 * of 2 to 5 paths drawn from random walks, the probe sites of `spp`
 * over those of Ball-Larus (`epp`) on the same graph, averaged per graph
 * and then over graphs.  Then the cyclic strategies on random graphs
 * with loops (paths of interest from random walks), against a full
 * `pap-epp` plan: probe sites, termination edges, check sites and check
 * values.  Run with `make bench-sel`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selective.h"
#include "testlib.h"

#define NGRAPHS 400

/* Draws @n distinct acyclic paths by walks; returns how many it found. */
static size_t draw(struct tl_rng *g, const struct pap_cfg *cfg, int acyclic,
		   size_t n, uint32_t **e, size_t *len)
{
	size_t got = 0, tries, i, k;

	for (tries = 0; got < n && tries < 50 * n; tries++) {
		int bad = 0;

		if (tl_random_walk(g, cfg, acyclic ? 8 : tl_below(g, 60),
				   &e[got], &len[got]))
			return got;
		for (i = 0; acyclic && i < len[got]; i++)
			bad |= !!(cfg->edges[e[got][i]].flags & PAP_EF_BACK);
		for (k = 0; k < got && !bad; k++)
			bad = len[k] == len[got] &&
			      !memcmp(e[k], e[got], len[k] * sizeof(**e));
		if (bad)
			free(e[got]);
		else
			got++;
	}
	return got;
}

static int plan_sel(const struct pap_cfg *cfg, enum pap_sel_strategy s,
		    uint32_t **e, size_t *len, size_t n,
		    struct pap_sel_plan **sp)
{
	struct pap_sel_path p[20];
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].edges = e[i];
		p[i].len = len[i];
	}
	return pap_sel_build(cfg, s, p, n, NULL, sp, NULL, 0);
}

static void study_acyclic(void)
{
	double ratio[6] = { 0 };
	unsigned graphs[6] = { 0 };
	unsigned gi, k;

	for (gi = 0; gi < NGRAPHS; gi++) {
		struct tl_rng g = { 1000 + gi };
		struct tl_cfg_params prm;
		struct pap_cfg *cfg;
		struct pap_plan *bl;

		tl_random_params(&g, &prm);
		prm.forward_only = 1;
		prm.resumes = prm.cuts = 0;
		prm.fan_in %= 20;
		prm.extra_edges = prm.nblocks;
		cfg = tl_random_cfg(&g, &prm);
		if (!cfg || pap_plan_build(cfg, PAP_MODE_EPP, NULL, &bl)) {
			pap_cfg_free(cfg);
			continue;
		}
		for (k = 1; k <= 5 && bl->nprobe_sites; k++) {
			double sum = 0;
			unsigned trials = 0, t;

			for (t = 0; t < 20; t++) {
				uint32_t *e[5];
				size_t len[5], n = draw(&g, cfg, 1, k, e, len);
				struct pap_sel_plan *sp;
				size_t i;

				if (n == k && !plan_sel(cfg, PAP_SEL_SPP, e, len,
							n, &sp)) {
					sum += (double)sp->nprobe_sites /
					       bl->nprobe_sites;
					trials++;
					pap_sel_free(sp);
				}
				for (i = 0; i < n; i++)
					free(e[i]);
			}
			if (trials) {
				ratio[k] += sum / trials;
				graphs[k]++;
			}
		}
		pap_plan_free(bl);
		pap_cfg_free(cfg);
	}
	printf("seed 002 studies 1-2 on %d random DAGs: spp probe sites / "
	       "epp probe sites\n", NGRAPHS);
	printf("%8s %8s %10s\n", "paths", "graphs", "mean ratio");
	for (k = 1; k <= 5; k++)
		printf("%8u %8u %10.3f\n", k, graphs[k],
		       graphs[k] ? ratio[k] / graphs[k] : 0.0);
}

static void study_cyclic(void)
{
	static const unsigned npaths[] = { 1, 5, 20 };
	unsigned pi;
	int s;

	printf("\ncyclic strategies on %d random graphs with loops, sums "
	       "over graphs (full pap-epp: probe sites)\n", NGRAPHS);
	printf("%6s %6s %10s %10s %10s %10s %10s\n", "paths", "strat",
	       "probes", "full", "term", "checks", "values");
	for (pi = 0; pi < sizeof(npaths) / sizeof(*npaths); pi++) {
		for (s = PAP_SEL_PSP0; s < PAP_SEL_NSTRATEGIES; s++) {
			unsigned long long probes = 0, full = 0, term = 0;
			unsigned long long checks = 0, values = 0;
			unsigned gi;

			for (gi = 0; gi < NGRAPHS; gi++) {
				struct tl_rng g = { 5000 + gi };
				struct tl_cfg_params prm;
				struct pap_cfg *cfg;
				struct pap_plan *fp;
				struct pap_sel_plan *sp;
				uint32_t *e[20];
				size_t len[20], n, i;

				tl_random_params(&g, &prm);
				prm.forward_only = 0;
				prm.fan_in %= 20;
				cfg = tl_random_cfg(&g, &prm);
				if (!cfg)
					continue;
				n = draw(&g, cfg, 0, npaths[pi], e, len);
				if (n && !pap_plan_build(cfg, PAP_MODE_PAP_EPP,
							 NULL, &fp)) {
					if (!plan_sel(cfg, s, e, len, n, &sp)) {
						probes += sp->nprobe_sites;
						full += fp->nprobe_sites;
						term += sp->nterm_edges;
						checks += sp->ncheck_sites;
						values += sp->ncheck_values;
						pap_sel_free(sp);
					}
					pap_plan_free(fp);
				}
				for (i = 0; i < n; i++)
					free(e[i]);
				pap_cfg_free(cfg);
			}
			printf("%6u %6s %10llu %10llu %10llu %10llu %10llu\n",
			       npaths[pi], pap_sel_strategy_name(s), probes,
			       full, term, checks, values);
		}
	}
}

int main(void)
{
	study_acyclic();
	study_cyclic();
	return 0;
}
