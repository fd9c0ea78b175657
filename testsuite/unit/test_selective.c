/* SPDX-License-Identifier: MIT */
/*
 * test_selective.c - selective path profiling (SPP, PSP0..PSP3) against
 * an oracle that only compares edge sequences.
 *
 * On random graphs (DAGs, reducible and irreducible loops, setjmp-like
 * resumes and cuts), 1 to 20 paths of interest are drawn from random
 * walks or spliced from two of them, some never walked afterwards.  The
 * walks run through every strategy's plan with the selective executor
 * are: the paths of interest themselves, splices of two of them where
 * they meet (made of interesting edges only, and mostly not of interest:
 * the combinations SPP's numbering alone would confuse), and fresh
 * random walks.  For each, the verdict must be the oracle's: "path of
 * interest #k" exactly when the walk equals path k; otherwise terminated
 * (by a technique the strategy has, and only where the walk has already
 * left every path of interest) or "other".  Over a multiset of walks,
 * the counts per path of interest must equal those a full plan (pap-epp,
 * pap) decodes.
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

#include "meta.h"
#include "selective.h"
#include "testlib.h"
#include "textfile.h"

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
	size_t i = (size_t)tl_below(g, a->len), j;
	size_t start = (size_t)tl_below(g, b->len);
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
	unsigned long graphs, skipped, loops, irreducible;
	unsigned long long probes_sel, probes_full;
	unsigned long follow_auto, follow_psp3, follow_repeats, follow_flat;
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
	case PAP_SEL_FOLLOW:
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
		if (v.kind == PAP_SEL_INTEREST || v.kind == PAP_SEL_OTHERPATH) {
			/* the decode table agrees with decoding */
			uint32_t k;

			assert_int_equal(pap_sel_match(sp, &act, &k), 0);
			if (k != v.path)
				fail_msg("%s: walk %zu: decoded %u, table %u",
					 ctx, i, v.path, k);
		}
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

/* Counts per path of interest as a full plan (pap or pap-epp) decodes
 * them. */
static void full_counts(const struct pap_cfg *cfg, enum pap_mode mode,
			const struct walkset *poi, const struct walkset *ws,
			const unsigned *mult, unsigned long *counts,
			const char *ctx)
{
	struct pap_plan *plan;
	struct pap_activation act;
	struct pap_exec_sink sink;
	struct pap_path p;
	size_t i, j;

	assert_int_equal(pap_plan_build(cfg, mode, NULL, &plan), 0);
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

/* Every strategy on @cfg with paths of interest and walks drawn by @g;
 * @label names the graph in failures, @gi picks the full mode. */
static void check_cfg(struct tl_rng *gp, const struct pap_cfg *cfg,
		      const char *label, unsigned long gi, struct tally *t)
{
	struct tl_rng g = *gp;
	struct walkset poi[2], ws = { 0 };
	struct pap_sel_path *paths;
	unsigned long *cnt_sel, *cnt_full;
	unsigned *mult;
	size_t nsplices = 0, i, n;
	char ctx[256];
	int s;

	memset(poi, 0, sizeof(poi));
	/* poi[0]: any paths (PSP); poi[1]: acyclic ones (SPP); a few
	 * splices of them, paths no walk took */
	draw_paths(&g, cfg, 0, &poi[0]);
	draw_paths(&g, cfg, 1, &poi[1]);
	for (i = 0; i < 2; i++) {
		size_t want = poi[i].n + tl_below(&g, 4);

		while (poi[i].n && poi[i].n < want && poi[i].n < 20 &&
		       splice(&g, cfg, &poi[i], i, &poi[i]))
			;
	}
	t->graphs++;
	{
		struct pap_loop_nest nest;

		assert_int_equal(pap_loops_find(cfg, &nest), 0);
		t->loops += nest.nloops > 0;
		t->irreducible += !nest.reducible;
		pap_loops_free(&nest);
	}
	for (s = 0; s < PAP_SEL_NSTRATEGIES; s++) {
		const struct walkset *pi = &poi[s == PAP_SEL_SPP];
		struct pap_sel_opts opts = { 0, 0 };
		struct pap_sel_plan *sp;
		char err[256];
		int rc;

		snprintf(ctx, sizeof(ctx), "%s %s", label,
			 pap_sel_strategy_name(s));
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
		/* probes only on interesting edges (SPP's phase 3) and the
		 * abnormal ones that join them, none past a termination */
		for (i = 0; i < cfg->nedges; i++) {
			uint32_t nops;

			pap_sel_ops(sp, (uint32_t)i, &nops);
			if (nops && s != PAP_SEL_PSP0 && s != PAP_SEL_PSP1 &&
			    !sp->interesting[i] &&
			    cfg->edges[i].kind != PAP_EDGE_ABNORMAL)
				fail_msg("%s: edge %zu: probes off the "
					 "subgraph", ctx, i);
			if (nops && sp->term[i])
				fail_msg("%s: edge %zu: probes on a "
					 "termination edge", ctx, i);
		}
		n = ws.n;
		mult = malloc(n * sizeof(*mult));
		cnt_sel = calloc(pi->n, sizeof(*cnt_sel));
		cnt_full = calloc(pi->n, sizeof(*cnt_full));
		assert_true(mult && cnt_sel && cnt_full);
		for (i = 0; i < n; i++)
			mult[i] = 1 + (unsigned)tl_below(&g, 5);
		check_walks(sp, pi, &ws, nsplices, mult, cnt_sel, t, ctx);
		full_counts(cfg, gi % 2 ? PAP_MODE_PAP : PAP_MODE_PAP_EPP, pi,
			    &ws, mult, cnt_full, ctx);
		for (i = 0; i < pi->n; i++)
			if (cnt_sel[i] != cnt_full[i])
				fail_msg("%s: path %zu counted %lu times, "
					 "full plan %lu", ctx, i,
					 cnt_sel[i], cnt_full[i]);
		if (s == PAP_SEL_FOLLOW && sp->aut) {
			t->follow_auto++;
			t->follow_repeats += sp->aut->close_off[
				sp->aut->npos] > 0;
			t->follow_flat += sp->aut->flat != 0;
		} else if (s == PAP_SEL_FOLLOW) {
			t->follow_psp3++;
		}
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
}

static void one_graph(unsigned long long seed, unsigned long gi,
		      struct tally *t)
{
	struct tl_rng g = { seed * 1000003 + gi };
	struct tl_cfg_params prm;
	struct pap_cfg *cfg;
	char label[64];

	tl_random_params(&g, &prm);
	if (prm.nblocks > 80)
		prm.nblocks = 80;
	prm.fan_in %= 40;
	cfg = tl_random_cfg(&g, &prm);
	assert_non_null(cfg);
	snprintf(label, sizeof(label), "PAP_TEST_SEED=%llu graph %lu", seed,
		 gi);
	check_cfg(&g, cfg, label, gi, t);
	pap_cfg_free(cfg);
}

/* A graph from pairs (src, dst) of user blocks, block 0 the entry,
 * @ret and @ret2 (unless PAP_NONE) the blocks that return. */
static struct pap_cfg *make_cfg(uint32_t nblocks, const uint32_t (*e)[2],
				size_t ne, uint32_t ret, uint32_t ret2)
{
	struct pap_cfg *cfg = pap_cfg_new(nblocks);
	size_t i;

	assert_non_null(cfg);
	for (i = 0; i < ne; i++)
		assert_true(pap_cfg_add_edge(cfg, e[i][0], e[i][1],
					     PAP_EDGE_NORMAL) >= 0);
	assert_int_equal(pap_cfg_mark_return(cfg, ret), 0);
	if (ret2 != PAP_NONE)
		assert_int_equal(pap_cfg_mark_return(cfg, ret2), 0);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	return cfg;
}

/* The edges of a block sequence (no parallel edges in these graphs). */
static size_t blocks_to_edges(const struct pap_cfg *cfg, const uint32_t *b,
			      size_t n, uint32_t *out)
{
	char err[128];

	if (pap_sel_path_from_blocks(cfg, b, n, out, err, sizeof(err)))
		fail_msg("%s", err);
	return n + 1;
}

static struct pap_sel_plan *build_blocks(const struct pap_cfg *cfg,
					 enum pap_sel_strategy s,
					 const uint32_t *const *pb,
					 const size_t *pn, size_t np,
					 uint32_t (*store)[16])
{
	struct pap_sel_path paths[4];
	struct pap_sel_plan *sp;
	char err[256];
	size_t k;

	for (k = 0; k < np; k++) {
		paths[k].edges = store[k];
		paths[k].len = blocks_to_edges(cfg, pb[k], pn[k], store[k]);
	}
	if (pap_sel_build(cfg, s, paths, np, NULL, &sp, err, sizeof(err)))
		fail_msg("build %s: %s", pap_sel_strategy_name(s), err);
	return sp;
}

static struct pap_sel_verdict run_blocks(const struct pap_sel_plan *sp,
					 const uint32_t *b, size_t n)
{
	uint32_t e[16];
	struct pap_sel_verdict v;

	n = blocks_to_edges(sp->cfg, b, n, e);
	assert_int_equal(pap_sel_exec(sp, e, n, NULL, &v), 0);
	return v;
}

/*
 * test_selective_spp_example: seed 002's Figures 1 and 2 with the back
 * edge taken out (block k there is block k - 1 here, node 8 is EXIT and
 * the dummy edge 1->4 a real one): 9 paths, of interest 1,2,4,5,7 and
 * 1,4,5,7.  Plain SPP gives 1,3,4,8 and 1,3,4,5,6,7,8 sums that other
 * paths share; here every one of the 9 paths gets the right verdict in
 * every strategy, and SPP terminates on exactly the edges 1->3, 5->6 and
 * 4->EXIT, which leave the subgraph.
 */
static void test_selective_spp_example(void **state)
{
	static const uint32_t edges[][2] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 3 }, { 2, 3 }, { 3, 4 },
		{ 4, 5 }, { 4, 6 }, { 5, 6 },
	};
	/* the 9 paths: from 1 by 2, 3 or directly to 4; then 4 leaves,
	 * or 4,5,6,7 or 4,5,7 */
	static const uint32_t heads[3][3] = { { 0, 1, 3 }, { 0, 2, 3 },
					      { 0, 3 } };
	static const size_t head_len[3] = { 3, 3, 2 };
	static const uint32_t tails[3][4] = { { 0 }, { 4, 5, 6 }, { 4, 6 } };
	static const size_t tail_len[3] = { 0, 3, 2 };
	static const uint32_t p0[] = { 0, 1, 3, 4, 6 }, p1[] = { 0, 3, 4, 6 };
	const uint32_t *pb[2] = { p0, p1 };
	const size_t pn[2] = { 5, 4 };
	uint32_t store[2][16];
	struct pap_cfg *cfg;
	struct pap_plan *full;
	int s;

	(void)state;
	/* 4 returns too (path 1,2,4,8) */
	cfg = make_cfg(7, edges, sizeof(edges) / sizeof(*edges), 6, 3);
	for (s = 0; s < PAP_SEL_NSTRATEGIES; s++) {
		struct pap_sel_plan *sp = build_blocks(cfg, s, pb, pn, 2,
						       store);
		unsigned h, t, interest = 0;

		for (h = 0; h < 3; h++) {
			for (t = 0; t < 3; t++) {
				uint32_t b[8];
				size_t n = head_len[h];
				struct pap_sel_verdict v;
				long want = -1;

				memcpy(b, heads[h], n * sizeof(*b));
				memcpy(b + n, tails[t],
				       tail_len[t] * sizeof(*b));
				n += tail_len[t];
				if (h == 0 && t == 2)
					want = 0;
				if (h == 2 && t == 2)
					want = 1;
				v = run_blocks(sp, b, n);
				if (want >= 0) {
					assert_int_equal(v.kind,
							 PAP_SEL_INTEREST);
					assert_int_equal(v.path, want);
					interest++;
				} else {
					assert_int_not_equal(v.kind,
							     PAP_SEL_INTEREST);
					/* off the subgraph at once */
					if (s == PAP_SEL_SPP && h == 1)
						assert_true(v.kind ==
							    PAP_SEL_TERM_T3 &&
							    v.at == 1);
				}
			}
		}
		assert_int_equal(interest, 2);
		if (s == PAP_SEL_SPP) {
			assert_int_equal(sp->nterm_edges, 3);
			assert_true(sp->term[tl_edge(cfg, 0, 2)]);
			assert_true(sp->term[tl_edge(cfg, 4, 5)]);
			assert_true(sp->term[tl_edge(cfg, 3, cfg->exit)]);
			/* two paths in the subgraph: one increment tells
			 * them apart, beside INIT and COUNT */
			assert_true(sp->nprobe_sites <= 3);
			assert_int_equal(pap_plan_build(cfg, PAP_MODE_EPP,
							NULL, &full), 0);
			assert_true(full->nprobe_sites > sp->nprobe_sites);
			pap_plan_free(full);
		}
		pap_sel_free(sp);
	}
	pap_cfg_free(cfg);
}

/*
 * test_selective_loop_checks: a loop 1 -> {2 | 3} -> 4 -> 1, left from
 * 1 to 5; of interest: twice around by 2.  Going around by 3 once stops
 * at the back edge under T1 (r there is not that of one or two turns by
 * 2) and T2 (the piece 1,3,4 is no piece of interest), and at the edge
 * 1->3 under T3.  Once around by 2 is a prefix of interest all the way
 * and ends as "other"; three times stops at the third back edge under
 * T1 only, since each piece is one of interest.  The stamp changes with
 * the strategy and the paths and their order.
 */
static void test_selective_loop_checks(void **state)
{
	static const uint32_t edges[][2] = {
		{ 0, 1 }, { 1, 2 }, { 1, 3 }, { 2, 4 }, { 3, 4 }, { 4, 1 },
		{ 1, 5 },
	};
	static const uint32_t poi[] = { 0, 1, 2, 4, 1, 2, 4, 1, 5 };
	static const uint32_t by3[] = { 0, 1, 3, 4, 1, 5 };
	static const uint32_t once[] = { 0, 1, 2, 4, 1, 5 };
	static const uint32_t thrice[] = { 0, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1,
					   5 };
	/* per strategy: verdict and edge for by3, once, thrice */
	static const int want[PAP_SEL_NSTRATEGIES][3][2] = {
		[PAP_SEL_PSP0] = { { PAP_SEL_TERM_T1, 4 },
				   { PAP_SEL_OTHERPATH, 0 },
				   { PAP_SEL_TERM_T1, 10 } },
		[PAP_SEL_PSP1] = { { PAP_SEL_TERM_T2, 4 },
				   { PAP_SEL_OTHERPATH, 0 },
				   { PAP_SEL_OTHERPATH, 0 } },
		[PAP_SEL_PSP2] = { { PAP_SEL_TERM_T3, 2 },
				   { PAP_SEL_OTHERPATH, 0 },
				   { PAP_SEL_OTHERPATH, 0 } },
		[PAP_SEL_PSP3] = { { PAP_SEL_TERM_T3, 2 },
				   { PAP_SEL_OTHERPATH, 0 },
				   { PAP_SEL_OTHERPATH, 0 } },
		/* the automaton expects a second back edge at the loop's
		 * exit (once), the exit at the third back edge (thrice) */
		[PAP_SEL_FOLLOW] = { { PAP_SEL_TERM_T3, 2 },
				     { PAP_SEL_TERM_T2, 5 },
				     { PAP_SEL_TERM_T2, 10 } },
	};
	const uint32_t *walks[3] = { by3, once, thrice };
	const size_t wn[3] = { 6, 6, 12 };
	const uint32_t *pb[1] = { poi };
	const size_t pn[1] = { 9 };
	uint32_t store[1][16];
	struct pap_cfg *cfg;
	struct pap_sel_path bad;
	struct pap_sel_plan *sp;
	char err[256];
	int s, w;

	(void)state;
	cfg = make_cfg(6, edges, sizeof(edges) / sizeof(*edges), 5,
		       PAP_NONE);
	for (s = PAP_SEL_PSP0; s < PAP_SEL_NSTRATEGIES; s++) {
		struct pap_sel_verdict v;

		sp = build_blocks(cfg, s, pb, pn, 1, store);
		v = run_blocks(sp, poi, 9);
		assert_int_equal(v.kind, PAP_SEL_INTEREST);
		assert_int_equal(v.path, 0);
		for (w = 0; w < 3; w++) {
			v = run_blocks(sp, walks[w], wn[w]);
			if (v.kind != want[s][w][0] ||
			    (v.kind != PAP_SEL_OTHERPATH &&
			     v.at != (size_t)want[s][w][1]))
				fail_msg("%s walk %d: verdict %d at %zu, "
					 "want %d at %d",
					 pap_sel_strategy_name(s), w, v.kind,
					 v.at, want[s][w][0], want[s][w][1]);
		}
		pap_sel_free(sp);
	}
	/* the stamp follows the strategy and the paths, nothing else */
	{
		struct pap_sel_plan *a, *b, *c;
		uint32_t st2[2][16];
		const uint32_t *two[2] = { poi, by3 };
		const size_t twon[2] = { 9, 6 };
		const uint32_t *owt[2] = { by3, poi };
		const size_t owtn[2] = { 6, 9 };

		a = build_blocks(cfg, PAP_SEL_PSP2, pb, pn, 1, store);
		b = build_blocks(cfg, PAP_SEL_PSP2, pb, pn, 1, st2);
		c = build_blocks(cfg, PAP_SEL_PSP3, pb, pn, 1, st2);
		assert_true(pap_sel_stamp(a) == pap_sel_stamp(b));
		assert_true(pap_sel_stamp(a) != pap_sel_stamp(c));
		pap_sel_free(b);
		pap_sel_free(c);
		b = build_blocks(cfg, PAP_SEL_PSP2, two, twon, 2, st2);
		c = build_blocks(cfg, PAP_SEL_PSP2, owt, owtn, 2, st2);
		assert_true(pap_sel_stamp(a) != pap_sel_stamp(b));
		assert_true(pap_sel_stamp(b) != pap_sel_stamp(c));
		pap_sel_free(a);
		pap_sel_free(b);
		pap_sel_free(c);
	}
	/* spp refuses the cyclic path, naming its back edge */
	bad.edges = store[0];
	bad.len = 10;
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_SPP, &bad, 1, NULL, &sp,
				       err, sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "path 0: edge 4"));
	assert_non_null(strstr(err, "back edge"));
	pap_cfg_free(cfg);
}

/*
 * test_selective_abnormal: an abnormal edge (no code can go on it)
 * leaving the subgraph cannot terminate; it is numbered with the
 * subgraph instead, and the path through it ends as "other" (0,3), or
 * stops at the next edge that can terminate (0,2,4,3 at 2->4).
 */
static void test_selective_abnormal(void **state)
{
	struct pap_cfg *cfg = pap_cfg_new(5);
	static const uint32_t poi[] = { 0, 1, 3 }, off[] = { 0, 3 };
	static const uint32_t off2[] = { 0, 2, 4, 3 };
	const uint32_t *pb[1] = { poi };
	const size_t pn[1] = { 3 };
	uint32_t store[1][16];
	int s;

	(void)state;
	assert_non_null(cfg);
	pap_cfg_add_edge(cfg, 0, 1, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 0, 3, PAP_EDGE_ABNORMAL);
	pap_cfg_add_edge(cfg, 0, 2, PAP_EDGE_ABNORMAL);
	pap_cfg_add_edge(cfg, 1, 3, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 2, 4, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 4, 3, PAP_EDGE_NORMAL);
	pap_cfg_mark_return(cfg, 3);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	for (s = 0; s < PAP_SEL_NSTRATEGIES; s++) {
		struct pap_sel_plan *sp = build_blocks(cfg, s, pb, pn, 1,
						       store);
		struct pap_sel_verdict v;

		assert_false(sp->term[tl_edge(cfg, 0, 2)]);
		assert_false(sp->term[tl_edge(cfg, 0, 3)]);
		v = run_blocks(sp, poi, 3);
		assert_int_equal(v.kind, PAP_SEL_INTEREST);
		v = run_blocks(sp, off, 2);
		assert_int_equal(v.kind, PAP_SEL_OTHERPATH);
		v = run_blocks(sp, off2, 4);
		if (s == PAP_SEL_SPP || s == PAP_SEL_PSP2 ||
		    s == PAP_SEL_PSP3 || s == PAP_SEL_FOLLOW) {
			/* 2->4 leaves: T3 there */
			assert_true(sp->term[tl_edge(cfg, 2, 4)]);
			assert_int_equal(v.kind, PAP_SEL_TERM_T3);
			assert_int_equal(v.at, 2);
		} else {
			assert_int_equal(v.kind, PAP_SEL_OTHERPATH);
		}
		pap_sel_free(sp);
	}
	pap_cfg_free(cfg);
}

/*
 * test_selective_follow_repeats: the automaton of paths with long loops
 * is small (blocks repeated, nested), and it counts a repeat exactly: of
 * paths with 50 and 51 iterations of one branch, 20 of two alternating
 * ones and 5 of "20 times one branch, then the other" (a nested
 * repeat), walks one iteration short or long, alternating one step
 * more, or with one inner count 19 or 21, are no path of interest, and
 * each path is itself.
 */
static void test_selective_follow_repeats(void **state)
{
	static const uint32_t edges[][2] = {
		{ 0, 1 }, { 1, 2 }, { 1, 4 }, { 2, 1 }, { 4, 1 }, { 1, 3 },
	};
	/* iterations: n of "2 1", of "2 1 4 1" (alt 1), or of
	 * "(2 1)^20 4 1" (alt 2, longer than a block of one level;
	 * iteration odd, if not 0, has "2 1" 19 times or, when odd > 100,
	 * 21 times) */
	static const struct { unsigned n; int alt; unsigned odd; } walk[] = {
		{ 50, 0, 0 }, { 51, 0, 0 }, { 20, 1, 0 },
		{ 5, 2, 0 },				/* the paths */
		{ 49, 0, 0 }, { 52, 0, 0 }, { 0, 0, 0 }, { 1, 0, 0 },
		{ 19, 1, 0 }, { 21, 1, 0 }, { 40, 0, 0 }, { 10, 1, 0 },
		{ 1, 1, 0 }, { 4, 2, 0 }, { 6, 2, 0 }, { 5, 2, 3 },
		{ 5, 2, 103 }, { 5, 2, 1 }, { 5, 2, 105 },
	};
	const size_t npoi = 4;
	const size_t nwalks = sizeof(walk) / sizeof(*walk);
	struct pap_sel_path paths[4];
	uint32_t *e[sizeof(walk) / sizeof(*walk)];
	size_t len[sizeof(walk) / sizeof(*walk)];
	struct pap_sel_plan *sp;
	struct pap_cfg *cfg;
	char err[256];
	size_t w, j, k;

	(void)state;
	cfg = make_cfg(5, edges, sizeof(edges) / sizeof(*edges), 3,
		       PAP_NONE);
	for (w = 0; w < nwalks; w++) {
		uint32_t b[512];
		size_t n = 0;

		b[n++] = 0;
		b[n++] = 1;
		for (j = 0; j < walk[w].n; j++) {
			unsigned r = walk[w].alt < 2 ? 1 : 20, i;

			if (walk[w].odd && walk[w].odd % 100 == j + 1)
				r = walk[w].odd > 100 ? 21 : 19;
			for (i = 0; i < r; i++) {
				b[n++] = 2;
				b[n++] = 1;
			}
			if (walk[w].alt) {
				b[n++] = 4;
				b[n++] = 1;
			}
		}
		b[n++] = 3;
		e[w] = malloc((n + 2) * sizeof(uint32_t));
		assert_non_null(e[w]);
		len[w] = blocks_to_edges(cfg, b, n, e[w]);
	}
	for (k = 0; k < npoi; k++) {
		paths[k].edges = e[k];
		paths[k].len = len[k];
	}
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_FOLLOW, paths, npoi,
				       NULL, &sp, err, sizeof(err)), 0);
	assert_non_null(sp->aut);
	/* each path: the loop's entry, blocks repeated, the exit */
	assert_true(sp->aut->npos <= 28);
	/* the last path's repeat is nested: a block of level 1 */
	for (j = sp->aut->close_off[sp->aut->off[3]];
	     j < sp->aut->close_off[sp->aut->off[4]]; j++)
		if (sp->aut->close_level[j] == 1)
			break;
	assert_true(j < sp->aut->close_off[sp->aut->off[4]]);
	for (w = 0; w < nwalks; w++) {
		struct pap_sel_verdict v;
		struct pap_activation act;

		pap_activation_init(&act);
		assert_int_equal(pap_sel_exec(sp, e[w], len[w], &act, &v), 0);
		if (w < npoi) {
			if (v.kind != PAP_SEL_INTEREST || v.path != w)
				fail_msg("walk %zu: verdict %d path %u", w,
					 v.kind, v.path);
			/* the record is the path's number */
			assert_int_equal(act.nrecords, 1);
			assert_int_equal(act.nbps, 0);
			assert_int_equal(act.final, w);
		} else if (v.kind == PAP_SEL_INTEREST) {
			fail_msg("walk %zu (%u iterations) counted as path %u",
				 w, walk[w].n, v.path);
		}
		pap_activation_free(&act);
	}
	pap_sel_free(sp);
	for (w = 0; w < nwalks; w++)
		free(e[w]);
	pap_cfg_free(cfg);
}

/*
 * test_selective_follow_flat: where follow's automaton is not worth
 * its compares or too large compressed.  Paths that are each one
 * acyclic piece get none (psp3 records their numbers).  Paths through a
 * loop whose branch follows no pattern (300 iterations drawn at
 * random) are too large compressed and get a flat automaton: each path
 * is itself, recorded as its number; a walk with one iteration's branch
 * flipped (first, middle, last), one iteration short or long, or the
 * two paths spliced, or a prefix, is none of them; more paths than
 * PAP_SEL_FLAT_PATHS are left to psp3, and so is a loop whose branch
 * comes in long runs (its repeats fold in one go there).
 */
static void flat_walk(const struct pap_cfg *cfg, const uint8_t *br,
		      size_t n, uint32_t **e, size_t *len)
{
	uint32_t *b = malloc((3 * n + 4) * sizeof(*b));
	size_t m = 0, j;

	assert_non_null(b);
	b[m++] = 0;
	b[m++] = 1;
	for (j = 0; j < n; j++) {
		b[m++] = br[j] ? 3 : 2;
		b[m++] = 4;
		b[m++] = 1;
	}
	b[m++] = 5;
	*e = malloc((m + 2) * sizeof(**e));
	assert_non_null(*e);
	*len = blocks_to_edges(cfg, b, m, *e);
	free(b);
}

static void test_selective_follow_flat(void **state)
{
	static const uint32_t dia[][2] = {
		{ 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 },
	};
	static const uint32_t dpath[2][3] = { { 0, 1, 3 }, { 0, 2, 3 } };
	static const uint32_t loop[][2] = {
		{ 0, 1 }, { 1, 2 }, { 1, 3 }, { 2, 4 }, { 3, 4 }, { 4, 1 },
		{ 1, 5 },
	};
	enum { N = 300, NW = 9, NR = 2000 };
	uint8_t br[2][N + 1], w[N + 1], runs[NR];
	struct tl_rng g = { 7 };
	struct pap_sel_path paths[2];
	uint32_t de[2][8], *e[NW];
	size_t len[NW], k, j;
	struct pap_sel_plan *sp;
	struct pap_cfg *cfg;
	char err[256];

	(void)state;
	/* one acyclic piece each: no automaton, each path still itself */
	cfg = make_cfg(4, dia, 4, 3, PAP_NONE);
	for (k = 0; k < 2; k++) {
		paths[k].edges = de[k];
		paths[k].len = blocks_to_edges(cfg, dpath[k], 3, de[k]);
	}
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_FOLLOW, paths, 2, NULL,
				       &sp, err, sizeof(err)), 0);
	assert_null(sp->aut);
	for (k = 0; k < 2; k++) {
		struct pap_sel_verdict v;
		struct pap_activation act;

		pap_activation_init(&act);
		assert_int_equal(pap_sel_exec(sp, de[k], paths[k].len, &act,
					      &v), 0);
		assert_int_equal(v.kind, PAP_SEL_INTEREST);
		assert_int_equal(v.path, k);
		pap_activation_free(&act);
	}
	pap_sel_free(sp);
	pap_cfg_free(cfg);

	/* a loop with a branch drawn at random: flat */
	cfg = make_cfg(6, loop, sizeof(loop) / sizeof(*loop), 5, PAP_NONE);
	for (k = 0; k < 2; k++)
		for (j = 0; j < N; j++)
			br[k][j] = (uint8_t)(tl_next(&g) & 1);
	for (k = 0; k < 2; k++)
		flat_walk(cfg, br[k], N, &e[k], &len[k]);
	for (k = 2; k < 5; k++) {	/* one branch flipped */
		size_t at = k == 2 ? 0 : k == 3 ? N / 2 : N - 1;

		memcpy(w, br[0], N);
		w[at] ^= 1;
		flat_walk(cfg, w, N, &e[k], &len[k]);
	}
	flat_walk(cfg, br[0], N - 1, &e[5], &len[5]);	/* short */
	memcpy(w, br[1], N);
	w[N] = 0;
	flat_walk(cfg, w, N + 1, &e[6], &len[6]);	/* long */
	memcpy(w, br[0], N / 2);			/* spliced */
	memcpy(w + N / 2, br[1] + N / 2, N - N / 2);
	flat_walk(cfg, w, N, &e[7], &len[7]);
	flat_walk(cfg, br[1], N / 3, &e[8], &len[8]);	/* a prefix */
	for (k = 0; k < 2; k++) {
		paths[k].edges = e[k];
		paths[k].len = len[k];
	}
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_FOLLOW, paths, 2, NULL,
				       &sp, err, sizeof(err)), 0);
	assert_non_null(sp->aut);
	assert_true(sp->aut->flat == 1);
	assert_true(sp->aut->npos > 2 * N);	/* every symbol */
	for (k = 0; k < NW; k++) {
		struct pap_sel_verdict v;
		struct pap_activation act;

		pap_activation_init(&act);
		assert_int_equal(pap_sel_exec(sp, e[k], len[k], &act, &v), 0);
		if (k < 2) {
			if (v.kind != PAP_SEL_INTEREST || v.path != k)
				fail_msg("path %zu: verdict %d path %u", k,
					 v.kind, v.path);
			assert_int_equal(act.nrecords, 1);
			assert_int_equal(act.nbps, 0);
			assert_int_equal(act.final, k);
		} else if (v.kind == PAP_SEL_INTEREST) {
			fail_msg("walk %zu counted as path %u", k, v.path);
		}
		pap_activation_free(&act);
	}
	pap_sel_free(sp);
	/* more paths than PAP_SEL_FLAT_PATHS: psp3's register */
	{
		struct pap_sel_path many[PAP_SEL_FLAT_PATHS + 1];

		for (k = 0; k <= PAP_SEL_FLAT_PATHS; k++) {
			many[k].edges = e[k];
			many[k].len = len[k];
		}
		assert_int_equal(pap_sel_build(cfg, PAP_SEL_FOLLOW, many,
					       PAP_SEL_FLAT_PATHS + 1, NULL,
					       &sp, err, sizeof(err)), 0);
		assert_null(sp->aut);
		pap_sel_free(sp);
	}
	for (k = 0; k < NW; k++)
		free(e[k]);

	/* the branch in runs of 8 to 15 (too many runs to compress):
	 * no automaton */
	for (j = 0, k = 0; j < NR; k ^= 1) {
		size_t r = 8 + (size_t)tl_below(&g, 8);

		while (r-- && j < NR)
			runs[j++] = (uint8_t)k;
	}
	flat_walk(cfg, runs, NR, &e[0], &len[0]);
	paths[0].edges = e[0];
	paths[0].len = len[0];
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_FOLLOW, paths, 1, NULL,
				       &sp, err, sizeof(err)), 0);
	assert_null(sp->aut);
	pap_sel_free(sp);
	free(e[0]);
	pap_cfg_free(cfg);
}

/* test_selective_bad_paths: paths that are no walks, and block sequences
 * that name no edge or several, are refused with the place named. */
static void test_selective_bad_paths(void **state)
{
	static const uint32_t edges[][2] = { { 0, 1 }, { 0, 1 }, { 1, 2 } };
	static const uint32_t b_par[] = { 0, 1, 2 }, b_gap[] = { 0, 2 };
	static const uint32_t b_noret[] = { 0 }, b_start[] = { 1, 2 };
	struct pap_cfg *cfg = make_cfg(3, edges, 3, 2, PAP_NONE);
	struct pap_sel_plan *sp;
	struct pap_sel_path p;
	uint32_t e[8];
	char err[256];

	(void)state;
	assert_int_equal(pap_sel_path_from_blocks(cfg, b_par, 3, e, err,
						  sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "blocks 0 and 1 are joined by 2 edges"));
	assert_int_equal(pap_sel_path_from_blocks(cfg, b_gap, 2, e, err,
						  sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "block 1: no edge from block 0 to "
				    "block 2"));
	assert_int_equal(pap_sel_path_from_blocks(cfg, b_noret, 1, e, err,
						  sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "block 0 (0) does not leave"));
	assert_int_equal(pap_sel_path_from_blocks(cfg, b_start, 2, e, err,
						  sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "neither the entry block"));
	/* a path that skips a block, and one stopping short of EXIT */
	e[0] = cfg->entry_edge;
	e[1] = tl_edge(cfg, 1, 2);
	p.edges = e;
	p.len = 2;
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_PSP2, &p, 1, NULL, &sp,
				       err, sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "path 0: edge 1"));
	e[1] = tl_edge(cfg, 0, 1);
	assert_int_equal(pap_sel_build(cfg, PAP_SEL_PSP2, &p, 1, NULL, &sp,
				       err, sizeof(err)), PAP_EINVAL);
	assert_non_null(strstr(err, "does not end at EXIT"));
	pap_cfg_free(cfg);
}

/* test_selective_random: every strategy on random graphs (see the top
 * of the file); each kind of verdict must occur, so none goes untested. */
static void test_selective_random(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261126);
	unsigned long ncfgs = (unsigned long)tl_env_ull("PAP_TEST_CFGS", 1500);
	struct tally t;
	unsigned long gi;

	(void)state;
	memset(&t, 0, sizeof(t));
	for (gi = 0; gi < ncfgs; gi++)
		one_graph(seed, gi, &t);
	print_message("selective: %lu graphs (%lu with loops, %lu "
		      "irreducible), %lu of interest (%lu with breakpoints), "
		      "%lu other (%lu splices), terminated T1 %lu T2 %lu T3 "
		      "%lu; spp probe sites %llu, full epp %llu; follow: "
		      "%lu automata (%lu with repeats, %lu flat), %lu "
		      "psp3's\n",
		      t.graphs, t.loops, t.irreducible, t.interest,
		      t.interest_bps, t.other, t.splices_other, t.term[0],
		      t.term[1], t.term[2], t.probes_sel, t.probes_full,
		      t.follow_auto, t.follow_repeats, t.follow_flat,
		      t.follow_psp3);
	assert_true(t.loops > 0 && t.irreducible > 0);
	assert_true(t.follow_repeats > 0 && t.follow_flat > 0);
	assert_true(t.interest > 0 && t.interest_bps > 0);
	assert_true(t.other > 0 && t.splices_other > 0);
	assert_true(t.term[0] > 0 && t.term[1] > 0 && t.term[2] > 0);
}

/*
 * test_selective_meta: with PAP_SEL_META=FILE (a metadata file the
 * plugin wrote), the same property on every function graph in it, 8
 * draws of paths and walks each; it runs instead of the others, and only
 * then.  Real graphs bring abnormal edges, setjmp receivers and long
 * switches.
 */
static void test_selective_meta(void **state)
{
	const char *file = getenv("PAP_SEL_META");
	struct pap_meta m;
	struct tally t;
	char err[512], label[512];
	char *text;
	size_t f;
	unsigned long r, skipped = 0;

	(void)state;
	text = pap_read_text_file(file, (size_t)1 << 30, err, sizeof(err));
	if (!text)
		fail_msg("%s", err);
	pap_meta_init(&m);
	if (pap_meta_parse(&m, text, file, err, sizeof(err)))
		fail_msg("%s", err);
	memset(&t, 0, sizeof(t));
	for (f = 0; f < m.nfns; f++) {
		struct pap_cfg *cfg = m.fns[f]->graph.cfg;
		struct tl_rng g = { f + 1 };
		uint32_t *w;
		size_t len;

		if (tl_random_walk(&g, cfg, 0, &w, &len)) {
			skipped++;	/* no way out: nothing to walk */
			continue;
		}
		free(w);
		pap_cfg_estimate_weights(cfg);
		for (r = 0; r < 8; r++) {
			g.s = f * 8 + r;
			snprintf(label, sizeof(label), "%s: %s draw %lu", file,
				 m.fns[f]->name, r);
			check_cfg(&g, cfg, label, r, &t);
		}
	}
	print_message("selective on %s: %zu functions (%lu without a way "
		      "out), %lu of interest (%lu with breakpoints), %lu "
		      "other, terminated T1 %lu T2 %lu T3 %lu\n", file,
		      m.nfns, skipped, t.interest, t.interest_bps, t.other,
		      t.term[0], t.term[1], t.term[2]);
	pap_meta_free(&m);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selective_spp_example),
		cmocka_unit_test(test_selective_loop_checks),
		cmocka_unit_test(test_selective_abnormal),
		cmocka_unit_test(test_selective_bad_paths),
		cmocka_unit_test(test_selective_follow_repeats),
		cmocka_unit_test(test_selective_follow_flat),
		cmocka_unit_test(test_selective_random),
	};
	const struct CMUnitTest meta[] = {
		cmocka_unit_test(test_selective_meta),
	};
	const char *file = getenv("PAP_SEL_META");

	/* a metadata file to check: that alone (a TAP skip would count as
	 * a failure) */
	if (file && *file)
		return cmocka_run_group_tests(meta, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
