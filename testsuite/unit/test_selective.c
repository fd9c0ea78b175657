/* SPDX-License-Identifier: MIT */
/*
 * test_selective.c - selective path profiling (SPP, PSP0..PSP3) against
 * an oracle that only compares edge sequences.
 *
 * On random graphs (DAGs, reducible and irreducible loops, setjmp-like
 * resumes and cuts), 1 to 20 paths of interest are drawn from random
 * walks, some of them never walked afterwards.  The walks run through
 * every strategy's plan with the selective executor are: the paths of
 * interest themselves, splices of two of them where they meet (made of
 * interesting edges only, and mostly not of interest: the combinations
 * SPP's numbering alone would confuse), and fresh random walks.  For
 * each, the verdict must be the oracle's: "path of interest #k" exactly
 * when the walk equals path k; otherwise terminated (by a technique the
 * strategy has, and only where the walk has already left every path of
 * interest) or "other".  Over a multiset of walks, the counts per path
 * of interest must equal those the full pap-epp plan decodes.
 * PAP_TEST_SEED and PAP_TEST_CFGS change the run; a failure names the
 * seed and graph.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "selective.h"
#include "testlib.h"

static unsigned long long env_ull(const char *name, unsigned long long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

struct walk {
	uint32_t *e;
	size_t len;
};

struct walkset {
	struct walk *w;
	size_t n, cap;
};

static void ws_add(struct walkset *s, uint32_t *e, size_t len)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->w = realloc(s->w, s->cap * sizeof(*s->w));
		assert_non_null(s->w);
	}
	s->w[s->n].e = e;
	s->w[s->n].len = len;
	s->n++;
}

static void ws_free(struct walkset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->w[i].e);
	free(s->w);
	memset(s, 0, sizeof(*s));
}

/* The oracle: the first path of interest equal to the walk, or -1. */
static long oracle(const struct walkset *poi, const uint32_t *e, size_t len)
{
	size_t k;

	for (k = 0; k < poi->n; k++)
		if (poi->w[k].len == len &&
		    !memcmp(poi->w[k].e, e, len * sizeof(*e)))
			return (long)k;
	return -1;
}

/* Is e[0..len) the start of some path of interest? */
static int oracle_prefix(const struct walkset *poi, const uint32_t *e,
			 size_t len)
{
	size_t k;

	for (k = 0; k < poi->n; k++)
		if (poi->w[k].len >= len &&
		    !memcmp(poi->w[k].e, e, len * sizeof(*e)))
			return 1;
	return 0;
}

static int has_back_edge(const struct pap_cfg *cfg, const uint32_t *e,
			 size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (cfg->edges[e[i]].flags & PAP_EF_BACK)
			return 1;
	return 0;
}

static size_t walk_steps(struct tl_rng *g)
{
	uint64_t c = tl_below(g, 100);

	if (c < 60)
		return (size_t)tl_below(g, 16);
	if (c < 90)
		return (size_t)tl_below(g, 200);
	return (size_t)tl_below(g, 3000);	/* breakpoints */
}

/*
 * 1 to 20 paths of interest from random walks (acyclic ones only when
 * @acyclic); 0 if none can be found.
 */
static void draw_paths(struct tl_rng *g, const struct pap_cfg *cfg,
		       int acyclic, struct walkset *poi)
{
	size_t want = 1 + (size_t)tl_below(g, 20), tries;

	for (tries = 0; poi->n < want && tries < 40 * want; tries++) {
		uint32_t *e;
		size_t len;

		assert_int_equal(tl_random_walk(g, cfg, acyclic ?
						(size_t)tl_below(g, 12) :
						walk_steps(g), &e, &len), 0);
		if (acyclic && has_back_edge(cfg, e, len)) {
			free(e);
			continue;
		}
		ws_add(poi, e, len);
	}
}

/* A path of interest up to where it reaches node v, then another from
 * there: every edge interesting, mostly not a path of interest. */
static int splice(struct tl_rng *g, const struct pap_cfg *cfg,
		  const struct walkset *poi, int acyclic, struct walkset *out)
{
	const struct walk *a = &poi->w[tl_below(g, poi->n)];
	const struct walk *b = &poi->w[tl_below(g, poi->n)];
	size_t i = (size_t)tl_below(g, a->len), j, start = (size_t)tl_below(g, b->len);
	uint32_t v = cfg->edges[a->e[i]].dst, *e;

	for (j = 0; j < b->len; j++) {
		size_t jj = (start + j) % b->len;

		if (cfg->edges[b->e[jj]].src != v)
			continue;
		e = malloc((i + 1 + b->len - jj) * sizeof(*e));
		assert_non_null(e);
		memcpy(e, a->e, (i + 1) * sizeof(*e));
		memcpy(e + i + 1, b->e + jj, (b->len - jj) * sizeof(*e));
		if (acyclic && has_back_edge(cfg, e, i + 1 + b->len - jj)) {
			free(e);
			return 0;
		}
		ws_add(out, e, i + 1 + b->len - jj);
		return 1;
	}
	return 0;
}

struct tally {
	unsigned long interest, interest_bps, other, term[4], splices_other;
	unsigned long graphs, skipped;
	unsigned long long probes_sel, probes_full;
};

/* Which terminations strategy @s may report. */
static int term_allowed(enum pap_sel_strategy s, int kind)
{
	switch (s) {
	case PAP_SEL_SPP:
	case PAP_SEL_PSP2:
		return kind == PAP_SEL_TERM_T3;
	case PAP_SEL_PSP0:
		return kind == PAP_SEL_TERM_T1;
	case PAP_SEL_PSP1:
		return kind == PAP_SEL_TERM_T2;
	case PAP_SEL_PSP3:
		return kind == PAP_SEL_TERM_T2 || kind == PAP_SEL_TERM_T3;
	}
	return 0;
}

/* Runs every walk of @ws through @sp and holds the verdict to the
 * oracle; counts per path of interest go to @counts (with @mult). */
static void check_walks(const struct pap_sel_plan *sp,
			const struct walkset *poi, const struct walkset *ws,
			size_t nsplices, const unsigned *mult,
			unsigned long *counts, struct tally *t,
			const char *ctx)
{
	struct pap_activation act;
	size_t i;

	pap_activation_init(&act);
	for (i = 0; i < ws->n; i++) {
		const struct walk *w = &ws->w[i];
		struct pap_sel_verdict v;
		long want = oracle(poi, w->e, w->len);
		int err = pap_sel_exec(sp, w->e, w->len, &act, &v);

		if (err)
			fail_msg("%s: walk %zu: exec: %s", ctx, i,
				 pap_strerror(err));
		if (want >= 0) {
			if (v.kind != PAP_SEL_INTEREST ||
			    v.path != (uint32_t)want)
				fail_msg("%s: walk %zu is path of interest "
					 "%ld, verdict %d (path %u)", ctx, i,
					 want, v.kind, v.path);
			t->interest++;
			t->interest_bps += act.nbps > 0;
			counts[want] += mult[i];
			continue;
		}
		if (v.kind == PAP_SEL_INTEREST)
			fail_msg("%s: walk %zu (%zu edges) is no path of "
				 "interest, counted as path %u", ctx, i,
				 w->len, v.path);
		if (v.kind == PAP_SEL_OTHERPATH) {
			t->other++;
			t->splices_other += i < nsplices;
			continue;
		}
		if (!term_allowed(sp->strategy, v.kind))
			fail_msg("%s: walk %zu: termination %d", ctx, i,
				 v.kind);
		if (v.at >= w->len || oracle_prefix(poi, w->e, v.at + 1))
			fail_msg("%s: walk %zu: terminated at edge %zu, "
				 "still on a path of interest", ctx, i, v.at);
		t->term[v.kind - PAP_SEL_TERM_T1]++;
	}
	pap_activation_free(&act);
}

/* Counts per path of interest as the full pap-epp plan decodes them. */
static void full_counts(const struct pap_cfg *cfg, const struct walkset *poi,
			const struct walkset *ws, const unsigned *mult,
			unsigned long *counts, const char *ctx)
{
	struct pap_plan *plan;
	struct pap_activation act;
	struct pap_exec_sink sink;
	struct pap_path p;
	size_t i, j;

	assert_int_equal(pap_plan_build(cfg, PAP_MODE_PAP_EPP, NULL, &plan),
			 0);
	pap_activation_init(&act);
	pap_path_init(&p);
	sink = pap_activation_sink(&act);
	for (i = 0; i < ws->n; i++) {
		struct pap_exec_state st = { 0, 0 };
		long k;

		pap_activation_reset(&act);
		for (j = 0; j < ws->w[i].len; j++)
			pap_exec_edge(plan, &st, ws->w[i].e[j], &sink);
		p.len = 0;
		if (act.nrecords != 1 ||
		    pap_decode_path(plan, act.bps, act.nbps, act.final, &p))
			fail_msg("%s: walk %zu: full decode failed", ctx, i);
		k = oracle(poi, p.edges, p.len);
		if (k >= 0)
			counts[k] += mult[i];
	}
	pap_path_free(&p);
	pap_activation_free(&act);
	pap_plan_free(plan);
}

static void one_graph(unsigned long long seed, unsigned long gi,
		      struct tally *t)
{
	struct tl_rng g = { seed * 1000003 + gi };
	struct tl_cfg_params prm;
	struct pap_cfg *cfg;
	struct walkset poi[2], ws = { 0 };
	struct pap_sel_path *paths;
	unsigned long *cnt_sel, *cnt_full;
	unsigned *mult;
	size_t nsplices = 0, i, n;
	char ctx[128];
	int s;

	tl_random_params(&g, &prm);
	if (prm.nblocks > 80)
		prm.nblocks = 80;
	prm.fan_in %= 40;
	cfg = tl_random_cfg(&g, &prm);
	assert_non_null(cfg);
	memset(poi, 0, sizeof(poi));
	/* poi[0]: any paths (PSP); poi[1]: acyclic ones (SPP) */
	draw_paths(&g, cfg, 0, &poi[0]);
	draw_paths(&g, cfg, 1, &poi[1]);
	t->graphs++;
	for (s = 0; s < PAP_SEL_NSTRATEGIES; s++) {
		const struct walkset *pi = &poi[s == PAP_SEL_SPP];
		struct pap_sel_opts opts = { 0, 0 };
		struct pap_sel_plan *sp;
		char err[256];
		int rc;

		snprintf(ctx, sizeof(ctx), "PAP_TEST_SEED=%llu graph %lu %s",
			 seed, gi, pap_sel_strategy_name(s));
		if (!pi->n) {
			t->skipped++;
			continue;
		}
		if (tl_below(&g, 8) == 0)
			opts.max_paths = 2 + tl_below(&g, 30);
		if ((s == PAP_SEL_PSP0 || s == PAP_SEL_PSP2) &&
		    tl_below(&g, 3) == 0)
			opts.plain_pap = 1;
		/* the walks: the paths (some never taken again), splices,
		 * fresh walks */
		ws_free(&ws);
		nsplices = 0;
		for (i = 0; i < 3 * pi->n; i++)
			nsplices += (size_t)splice(&g, cfg, pi, s == PAP_SEL_SPP,
						   &ws);
		for (i = 0; i < pi->n; i++) {
			uint32_t *e;

			if (i % 4 == 3)
				continue;	/* never walked */
			e = malloc(pi->w[i].len * sizeof(*e));
			assert_non_null(e);
			memcpy(e, pi->w[i].e, pi->w[i].len * sizeof(*e));
			ws_add(&ws, e, pi->w[i].len);
		}
		for (i = 0; i < 2 * pi->n + 4; i++) {
			uint32_t *e;
			size_t len;

			assert_int_equal(tl_random_walk(&g, cfg, walk_steps(&g),
							&e, &len), 0);
			ws_add(&ws, e, len);
		}
		paths = malloc(pi->n * sizeof(*paths));
		assert_non_null(paths);
		for (i = 0; i < pi->n; i++) {
			paths[i].edges = pi->w[i].e;
			paths[i].len = pi->w[i].len;
		}
		rc = pap_sel_build(cfg, s, paths, pi->n, &opts, &sp, err,
				   sizeof(err));
		free(paths);
		if (rc)
			fail_msg("%s: build: %s (%s)", ctx, pap_strerror(rc),
				 err);
		n = ws.n;
		mult = malloc(n * sizeof(*mult));
		cnt_sel = calloc(pi->n, sizeof(*cnt_sel));
		cnt_full = calloc(pi->n, sizeof(*cnt_full));
		assert_true(mult && cnt_sel && cnt_full);
		for (i = 0; i < n; i++)
			mult[i] = 1 + (unsigned)tl_below(&g, 5);
		check_walks(sp, pi, &ws, nsplices, mult, cnt_sel, t, ctx);
		full_counts(cfg, pi, &ws, mult, cnt_full, ctx);
		for (i = 0; i < pi->n; i++)
			if (cnt_sel[i] != cnt_full[i])
				fail_msg("%s: path %zu counted %lu times, "
					 "full pap-epp %lu", ctx, i,
					 cnt_sel[i], cnt_full[i]);
		if (s == PAP_SEL_SPP) {
			struct pap_plan *full;

			assert_int_equal(pap_plan_build(cfg, PAP_MODE_EPP,
							NULL, &full), 0);
			t->probes_sel += sp->nprobe_sites;
			t->probes_full += full->nprobe_sites;
			pap_plan_free(full);
		}
		free(mult);
		free(cnt_sel);
		free(cnt_full);
		pap_sel_free(sp);
	}
	ws_free(&ws);
	ws_free(&poi[0]);
	ws_free(&poi[1]);
	pap_cfg_free(cfg);
}

/* test_selective_random: every strategy on random graphs (see the top
 * of the file); each kind of verdict must occur, so none goes untested. */
static void test_selective_random(void **state)
{
	unsigned long long seed = env_ull("PAP_TEST_SEED", 20261126);
	unsigned long ncfgs = (unsigned long)env_ull("PAP_TEST_CFGS", 1500);
	struct tally t;
	unsigned long gi;

	(void)state;
	memset(&t, 0, sizeof(t));
	for (gi = 0; gi < ncfgs; gi++)
		one_graph(seed, gi, &t);
	print_message("selective: %lu graphs, %lu of interest (%lu with "
		      "breakpoints), %lu other (%lu splices), terminated "
		      "T1 %lu T2 %lu T3 %lu; spp probe sites %llu, full epp "
		      "%llu\n", t.graphs, t.interest, t.interest_bps, t.other,
		      t.splices_other, t.term[0], t.term[1], t.term[2],
		      t.probes_sel, t.probes_full);
	assert_true(t.interest > 0 && t.interest_bps > 0);
	assert_true(t.other > 0 && t.splices_other > 0);
	assert_true(t.term[0] > 0 && t.term[1] > 0 && t.term[2] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selective_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
