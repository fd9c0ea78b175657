/* SPDX-License-Identifier: MIT */
/*
 * bench_sel.c - seed 002's probe-count study for the selective
 * strategies: how many edges carry probes when only some paths are
 * profiled, against profiling all of them.
 *
 * Study 1 and 2 of seed 002 on random DAGs: for one path, then subsets
 * of 2 to 5 paths drawn from random walks, the probes of `spp` and of
 * the paper's own Fig. 4 over those of Ball-Larus (`epp`) on the same
 * graph, averaged per graph and then over graphs; and how often Fig. 4
 * counts a walk not of interest as a path of interest.  Then the cyclic strategies on random graphs
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

/* Edges whose operations add a nonzero value: seed 002's probe count
 * ("edges whose edge values are non zero"). */
static unsigned nonzero_edges(const struct pap_plan *p,
			      const struct pap_sel_plan *sp)
{
	const struct pap_cfg *cfg = sp ? sp->cfg : p->cfg;
	unsigned n = 0;
	uint32_t e, i, nops;

	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_op *op = sp ? pap_sel_ops(sp, e, &nops) :
			p->ops + p->op_off[e];
		int nz = 0;

		if (!sp)
			nops = pap_plan_nops(p, e);
		for (i = 0; i < nops; i++)
			nz |= op[i].k != 0;
		n += nz && cfg->edges[e].kind != PAP_EDGE_FAKE;
	}
	return n;
}

/*
 * Seed 002's Fig. 4 on a DAG, as the paper gives it (not exact, the
 * baseline of the study): values with the edges off the paths of
 * interest @ei visited first, pushed down through nodes with one
 * in-edge, then removed off @ei; the number of nonzero values left.
 */
static unsigned fig4_probes(const struct pap_cfg *cfg, const uint8_t *ei,
			    uint32_t **pe, const size_t *plen, size_t np,
			    struct tl_rng *g, unsigned *walks,
			    unsigned *collisions)
{
	uint64_t *num = calloc(cfg->nnodes, sizeof(*num));
	uint64_t *val = calloc(cfg->nedges, sizeof(*val));
	unsigned n = 0;
	uint32_t i, k, e;
	int pass;

	num[cfg->exit] = 1;
	for (i = cfg->nrpo; i-- > 0;) {
		uint32_t v = cfg->rpo[i];

		if (v == cfg->exit)
			continue;
		for (pass = 0; pass < 2; pass++) {
			for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
				e = cfg->out_edge[k];
				if (ei[e] != pass ||
				    cfg->edges[e].kind == PAP_EDGE_FAKE)
					continue;
				val[e] = num[v];
				num[v] += num[cfg->edges[e].dst];
			}
		}
	}
	for (i = 0; i < cfg->nrpo; i++) {
		uint32_t v = cfg->rpo[i], in;

		if (pap_cfg_fanin(cfg, v) != 1)
			continue;
		in = cfg->in_edge[cfg->in_off[v]];
		if (!val[in])
			continue;
		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++)
			val[cfg->out_edge[k]] += val[in];
		val[in] = 0;
	}
	for (e = 0; e < cfg->nedges; e++) {
		if (!ei[e])
			val[e] = 0;	/* phase 3 */
		n += val[e] != 0;
	}
	/* the paper's guarantee: sums of the paths of interest differ */
	for (i = 0; i < np; i++) {
		for (k = 0; k < i; k++) {
			uint64_t a = 0, b = 0;
			size_t j;

			for (j = 0; j < plen[i]; j++)
				a += val[pe[i][j]];
			(void)j;
			for (j = 0; j < plen[k]; j++)
				b += val[pe[k][j]];
			if (a == b) {
				fprintf(stderr, "fig. 4: paths %u and %u "
					"share sum %llu\n", i, k,
					(unsigned long long)a);
				exit(1);
			}
		}
	}
	/* walks not of interest whose sum is a path of interest's */
	for (i = 0; i < 50; i++) {
		uint32_t *w;
		size_t len, j;
		uint64_t sum = 0;
		int poi = 0, hit = 0;

		if (tl_random_walk(g, cfg, 8, &w, &len))
			break;
		for (j = 0; j < len; j++)
			sum += val[w[j]];
		for (k = 0; k < np; k++) {
			uint64_t b = 0;
			size_t m;

			poi |= plen[k] == len &&
			       !memcmp(pe[k], w, len * sizeof(*w));
			for (m = 0; m < plen[k]; m++)
				b += val[pe[k][m]];
			hit |= b == sum;
		}
		if (!poi) {
			(*walks)++;
			*collisions += hit;
		}
		free(w);
	}
	free(num);
	free(val);
	return n;
}

static void study_acyclic(void)
{
	double ratio[6] = { 0 }, rnz[6] = { 0 }, rfig4[6] = { 0 };
	unsigned graphs[6] = { 0 }, other = 0, coll = 0;
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
		for (k = 1; k <= 5 && nonzero_edges(bl, NULL); k++) {
			double sum = 0, snz = 0, sfig4 = 0;
			unsigned trials = 0, t;

			for (t = 0; t < 20; t++) {
				uint32_t *e[5];
				size_t len[5], n = draw(&g, cfg, 1, k, e, len);
				struct pap_sel_plan *sp;
				size_t i;

				if (n == k && !plan_sel(cfg, PAP_SEL_SPP, e, len,
							n, &sp)) {
					double bnz = nonzero_edges(bl, NULL);

					sum += (double)sp->nprobe_sites /
					       bl->nprobe_sites;
					snz += nonzero_edges(NULL, sp) / bnz;
					sfig4 += fig4_probes(cfg,
							     sp->interesting,
							     e, len, n, &g,
							     &other, &coll) /
						 bnz;
					trials++;
					pap_sel_free(sp);
				}
				for (i = 0; i < n; i++)
					free(e[i]);
			}
			if (trials) {
				ratio[k] += sum / trials;
				rnz[k] += snz / trials;
				rfig4[k] += sfig4 / trials;
				graphs[k]++;
			}
		}
		pap_plan_free(bl);
		pap_cfg_free(cfg);
	}
	printf("seed 002 studies 1-2 on %d random DAGs, mean ratios to "
	       "epp: probe sites (edges with operations) of spp, and edges "
	       "adding nonzero values (the paper's count) of spp and of "
	       "the paper's Fig. 4 (not exact)\n", NGRAPHS);
	printf("%8s %8s %10s %10s %10s\n", "paths", "graphs", "sites",
	       "nonzero", "fig. 4");
	for (k = 1; k <= 5; k++)
		printf("%8u %8u %10.3f %10.3f %10.3f\n", k, graphs[k],
		       graphs[k] ? ratio[k] / graphs[k] : 0.0,
		       graphs[k] ? rnz[k] / graphs[k] : 0.0,
		       graphs[k] ? rfig4[k] / graphs[k] : 0.0);
	printf("fig. 4 counts %u of %u walks not of interest (%.1f per "
	       "million) as a path of interest; spp none (test_selective)\n",
	       coll, other, other ? 1e6 * coll / other : 0.0);
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
