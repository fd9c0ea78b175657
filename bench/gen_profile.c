/* SPDX-License-Identifier: MIT */
/*
 * gen_profile.c - writes a metadata file and a large profile for the
 * decoder benchmark: a function with a loop around a W-way switch,
 * instrumented as pap-epp, and activations run through the plan's probe
 * operations (the runtime's semantics), so every record is one a real
 * program could have written.
 *
 *   gen_profile paths N DIR   N activations of 8..39 iterations, W = 8:
 *                             about N distinct paths, few breakpoints
 *   gen_profile bps N DIR     activations of 4000 iterations, W = 200,
 *                             until about N breakpoints are recorded
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgtext.h"
#include "meta.h"
#include "profdata.h"
#include "testlib.h"

struct collect {
	struct pap_breakpoint *bps;
	size_t n, cap;
	uint64_t final;
};

static void on_bp(void *ctx, uint32_t site, uint64_t r)
{
	struct collect *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->bps = realloc(c->bps, c->cap * sizeof(*c->bps));
		if (!c->bps)
			exit(1);
	}
	c->bps[c->n].site = site;
	c->bps[c->n++].r = r;
}

static void on_record(void *ctx, uint64_t r)
{
	((struct collect *)ctx)->final = r;
}

static void on_count(void *ctx, uint64_t id)
{
	(void)ctx;
	(void)id;
}

static uint32_t edge_of(const struct pap_cfg *cfg, uint32_t s, uint32_t d)
{
	uint32_t e;

	for (e = 0; e < cfg->nedges; e++)
		if (cfg->edges[e].src == s && cfg->edges[e].dst == d)
			return e;
	fprintf(stderr, "gen_profile: no edge %u->%u\n", s, d);
	exit(1);
}

int main(int argc, char **argv)
{
	int bps_mode = argc == 4 && !strcmp(argv[1], "bps");
	unsigned long long n = argc == 4 ? strtoull(argv[2], NULL, 10) : 0;
	uint32_t w = bps_mode ? 200 : 8, i;
	char *graph, *p, path[4096], err[256], key[4200];
	struct pap_cfgtext g;
	struct pap_plan *plan;
	struct pap_profile prof;
	struct collect c = { NULL, 0, 0, 0 };
	struct pap_exec_sink sink = { on_bp, on_record, on_count, &c };
	struct tl_rng rng = { 12345 };
	unsigned long long act, total_bps = 0;
	uint32_t head, latch, out, *arm_in, *arm_out, back, first, leave, ret;
	uint64_t sum;
	FILE *f;

	if (argc != 4 || (!bps_mode && strcmp(argv[1], "paths")) || !n) {
		fprintf(stderr, "usage: gen_profile paths|bps N DIR\n");
		return 2;
	}
	/* b1 entry, b2 loop header, b3..b(w+2) arms, b(w+3) latch, b(w+4)
	 * exit */
	graph = malloc(64 * (size_t)(w + 8));
	p = graph;
	p += sprintf(p, "blocks");
	for (i = 1; i <= w + 4; i++)
		p += sprintf(p, " b%u", i);
	p += sprintf(p, "\nentry b1\nedge b1 b2\n");
	for (i = 0; i < w; i++)
		p += sprintf(p, "edge b2 b%u\nedge b%u b%u\n", i + 3, i + 3,
			     w + 3);
	p += sprintf(p, "edge b%u b2\nedge b2 b%u\nreturn b%u\n", w + 3,
		     w + 4, w + 4);
	sum = pap_fnv1a(graph, strlen(graph));
	if (pap_cfgtext_parse(graph, "bench", &g, err, sizeof(err)) ||
	    pap_plan_build(g.cfg, PAP_MODE_PAP_EPP, NULL, &plan)) {
		fprintf(stderr, "gen_profile: cannot plan: %s\n", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/bench.papm", argv[3]);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "pap-meta 1\nfunction bench\nfile bench.c\nmode pap-epp\n"
		"%s", graph);
	for (i = 1; i <= w + 4; i++)
		fprintf(f, "lines b%u %u\n", i, 10 + i);
	fprintf(f, "checksum %016llx\nend\n", (unsigned long long)sum);
	fclose(f);
	snprintf(key, sizeof(key), "bench:%016llx:%s", (unsigned long long)sum,
		 path);
	head = pap_cfgtext_block(&g, "b2");
	latch = head + w + 1;
	out = head + w + 2;
	arm_in = malloc(w * sizeof(*arm_in));
	arm_out = malloc(w * sizeof(*arm_out));
	for (i = 0; i < w; i++) {
		arm_in[i] = edge_of(g.cfg, head, head + 1 + i);
		arm_out[i] = edge_of(g.cfg, head + 1 + i, latch);
	}
	back = edge_of(g.cfg, latch, head);
	first = edge_of(g.cfg, head - 1, head);
	leave = edge_of(g.cfg, head, out);
	ret = edge_of(g.cfg, out, g.cfg->exit);
	pap_profile_init(&prof);
	for (act = 0; bps_mode ? total_bps < n : act < n; act++) {
		struct pap_exec_state st = { 0, 0 };
		uint32_t iters = bps_mode ? 4000 : 8 + (uint32_t)tl_below(&rng, 32);
		uint32_t k;

		c.n = 0;
		pap_exec_edge(plan, &st, g.cfg->entry_edge, &sink);
		pap_exec_edge(plan, &st, first, &sink);
		for (k = 0; k < iters; k++) {
			uint32_t arm = (uint32_t)tl_below(&rng, w);

			pap_exec_edge(plan, &st, arm_in[arm], &sink);
			pap_exec_edge(plan, &st, arm_out[arm], &sink);
			pap_exec_edge(plan, &st, back, &sink);
		}
		pap_exec_edge(plan, &st, leave, &sink);
		pap_exec_edge(plan, &st, ret, &sink);
		total_bps += c.n;
		if (pap_profile_add(&prof, key, PAP_REC_PATH, 1, c.final, c.bps,
				    (uint32_t)c.n, 1))
			return 1;
	}
	snprintf(path, sizeof(path), "%s/bench.prof", argv[3]);
	f = fopen(path, "w");
	if (!f || pap_profile_write(&prof, f) || fclose(f))
		return 1;
	fprintf(stderr, "gen_profile: %llu activations, %zu distinct paths, "
		"%llu breakpoints\n", act, prof.nrecs, total_bps);
	/* everything let go, so that a leak checker finds nothing */
	pap_profile_free(&prof);
	free(c.bps);
	free(arm_in);
	free(arm_out);
	pap_plan_free(plan);
	pap_cfgtext_free(&g);
	free(graph);
	return 0;
}
