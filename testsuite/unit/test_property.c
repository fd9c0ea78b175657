/* SPDX-License-Identifier: MIT */
/*
 * test_property.c - random graphs, random walks, every mode: what the
 * probes emit must decode to exactly the walk.
 *
 * 10,000 graphs by default (PAP_TEST_CFGS), reducible and irreducible,
 * with self-loops, parallel edges and fan-in up to 1000; walks up to 10^6
 * edges.  One graph in eight gets a small path limit so that cutting and
 * the fallback to PAP are exercised too.  Deterministic: the seed is
 * PAP_TEST_SEED (default fixed), and a failure prints the seed and graph
 * number; PAP_TEST_ONLY=N reruns graph N alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

/* Walk lengths: mostly short, some long, a few of 10^6 edges. */
static size_t walk_length(struct tl_rng *g, unsigned long long i, int w)
{
	uint64_t c = tl_below(g, 1000);

	if (w == 0 && i % 1000 == 999)
		return 1000000;
	if (c < 700)
		return (size_t)tl_below(g, 64);
	if (c < 950)
		return (size_t)tl_below(g, 2000);
	return (size_t)tl_below(g, 40000);
}

/* Structural promises of a plan, checked apart from decoding. */
static void check_plan_shape(const struct pap_plan *plan, const char *ctx)
{
	const struct pap_cfg *cfg = plan->cfg;
	uint32_t v, e;

	if (plan->mode == PAP_MODE_PAP) {
		for (v = 0; v < cfg->nnodes; v++) {
			uint32_t first;

			if (pap_cfg_fanin(cfg, v) < 2)
				continue;
			first = plan->in_index[cfg->in_off[v]];
			if (cfg->edges[first].flags & PAP_EF_BACK)
				fail_msg("%s: index 0 of node %u is a back edge",
					 ctx, v);
		}
		return;
	}
	for (e = 0; e < cfg->nedges; e++)
		if ((cfg->edges[e].flags & PAP_EF_BACK) &&
		    !(cfg->edges[e].flags & PAP_EF_DEAD) && !plan->is_fold[e])
			fail_msg("%s: back edge %u is not a fold", ctx, e);
}

static void null_breakpoint(void *ctx, uint32_t site, uint64_t r)
{
	(void)ctx;
	(void)site;
	(void)r;
}

static void null_value(void *ctx, uint64_t v)
{
	(void)ctx;
	(void)v;
}

/*
 * Runs @walk through @plan's operations with 128-bit arithmetic of its
 * own (not exec.c, not util.h) beside pap_exec_edge().  Checks after
 * every edge that both agree on r and that r is within the bound
 * pap_plan_bound_r() gives for the node entered, and at every fold the
 * plan left without an overflow test that r*n + d really fits in 64
 * bits.  Adds to *@near the untested folds whose result came within a
 * factor 2 of overflowing: the bounds are put to work where they
 * matter.
 */
static void check_r_bounds(struct pap_plan *plan, const uint32_t *walk,
			   size_t len, const char *ctx,
			   unsigned long long *near)
{
	const struct pap_cfg *cfg = plan->cfg;
	struct pap_exec_sink sink = { null_breakpoint, null_value,
				      null_value, NULL };
	struct pap_exec_state st = { 0, 0 };
	uint64_t *bound = malloc((cfg->nnodes + 1) * sizeof(uint64_t));
	unsigned __int128 r = 0, v;
	uint64_t a = 0, d;
	size_t i;
	uint32_t k;

	assert_non_null(bound);
	assert_int_equal(pap_plan_bound_r(plan, bound), 0);
	for (i = 0; i < len; i++) {
		uint32_t e = walk[i], dst = cfg->edges[e].dst;

		for (k = plan->op_off[e]; k < plan->op_off[e + 1]; k++) {
			const struct pap_op *op = &plan->ops[k];

			switch (op->kind) {
			case PAP_OP_INIT:
				r = op->n;
				a = op->k;
				break;
			case PAP_OP_ADD:
				a += op->k;
				break;
			case PAP_OP_SET:
				a = op->k;
				break;
			case PAP_OP_FOLD:
				d = a + op->k;
				v = r * op->n + d;
				if (!op->may_overflow && (v >> 64))
					fail_msg("%s: edge %u folds without a "
						 "test and overflows (r=%llu "
						 "n=%llu d=%llu)", ctx, e,
						 (unsigned long long)r,
						 (unsigned long long)op->n,
						 (unsigned long long)d);
				if (!op->may_overflow && (v >> 63))
					++*near;
				r = (v >> 64) ? (unsigned __int128)
					plan->restart * op->n + d : v;
				break;
			}
		}
		pap_exec_edge(plan, &st, e, &sink);
		if (st.r != (uint64_t)r)
			fail_msg("%s: after edge %u exec has r=%llu, the "
				 "oracle %llu", ctx, e,
				 (unsigned long long)st.r,
				 (unsigned long long)r);
		if (r > bound[dst])
			fail_msg("%s: r=%llu entering node %u is above its "
				 "bound %llu", ctx, (unsigned long long)r,
				 dst, (unsigned long long)bound[dst]);
	}
	free(bound);
}

/* test_property_random_walks: the main exactness property. */
static void test_property_random_walks(void **state)
{
	unsigned long long seed = tl_env_ull("PAP_TEST_SEED", 20261122);
	unsigned long long ncfg = tl_env_ull("PAP_TEST_CFGS", 10000);
	unsigned long long only = tl_env_ull("PAP_TEST_ONLY", ~0ull);
	unsigned long long i, walked = 0, bps = 0, irreducible = 0, cuts = 0;
	unsigned long long fallbacks = 0, longest = 0, walks = 0;
	unsigned long long epp_refused = 0, resumed = 0, cut_short = 0;
	unsigned long long nobreak = 0, near = 0;

	(void)state;
	for (i = 0; i < ncfg; i++) {
		struct tl_rng g = { seed * 0x9e3779b97f4a7c15ull + i };
		struct tl_cfg_params p;
		struct pap_plan_opts opts = { 0 };
		struct pap_loop_nest nest;
		struct pap_cfg *cfg;
		int m, w;

		if (only != ~0ull && i != only)
			continue;
		tl_random_params(&g, &p);
		if (i % 1000 == 999) {
			/* the 10^6-edge walks need cycles to walk */
			p.forward_only = 0;
			p.self_loops += 1;
			p.extra_edges += p.nblocks;
		}
		cfg = tl_random_cfg(&g, &p);
		if (!cfg)
			fail_msg("seed=%llu graph=%llu: cannot build graph",
				 seed, i);
		if (tl_below(&g, 8) == 0)
			opts.max_paths = 2 + tl_below(&g, 1000);
		if (!pap_loops_find(cfg, &nest)) {
			irreducible += !nest.reducible;
			pap_loops_free(&nest);
		}
		for (w = 0; w < 2; w++) {
			uint32_t *walk;
			size_t len;

			if (tl_random_walk(&g, cfg, walk_length(&g, i, w),
					   &walk, &len))
				fail_msg("seed=%llu graph=%llu: cannot walk",
					 seed, i);
			for (m = 0; m < 3; m++) {
				struct pap_plan *plan;
				struct tl_result res;
				char why[256], ctx[128];
				int err;

				snprintf(ctx, sizeof(ctx),
					 "seed=%llu graph=%llu mode=%s "
					 "max_paths=%llu walk=%zu edges",
					 seed, i, pap_mode_name(m),
					 (unsigned long long)opts.max_paths,
					 len);
				err = pap_plan_build(cfg, m, &opts, &plan);
				/* EPP under a forced small limit may be
				 * unboundable (more out-edges than the
				 * limit): documented, and counted. */
				if (err == PAP_ELIMIT && m == PAP_MODE_EPP &&
				    opts.max_paths) {
					epp_refused += w == 0;
					continue;
				}
				if (err)
					fail_msg("%s: plan: %s", ctx,
						 pap_strerror(err));
				check_plan_shape(plan, ctx);
				check_r_bounds(plan, walk, len, ctx, &near);
				if (tl_check_walk(plan, walk, len, &res, why,
						  sizeof(why)))
					fail_msg("%s: %s (rerun with "
						 "PAP_TEST_SEED=%llu "
						 "PAP_TEST_ONLY=%llu)",
						 ctx, why, seed, i);
				if (res.nbreakpoints && !pap_plan_may_break(plan))
					fail_msg("%s: %llu breakpoints from a plan "
						 "that can have none", ctx,
						 (unsigned long long)
						 res.nbreakpoints);
				nobreak += !pap_plan_may_break(plan);
				bps += res.nbreakpoints;
				if (w == 0) {
					cuts += plan->ncuts;
					fallbacks += plan->fell_back;
				}
				pap_plan_free(plan);
			}
			walked += len;
			walks++;
			resumed += walk[0] != cfg->entry_edge;
			cut_short += cfg->edges[walk[len - 1]].kind ==
				     PAP_EDGE_FAKE;
			if (len > longest)
				longest = len;
			free(walk);
		}
		pap_cfg_free(cfg);
	}
	print_message("# %llu graphs (%llu irreducible), %llu walks, %llu "
		      "edges walked (longest %llu), %llu breakpoints, %llu "
		      "cut edges, %llu fallbacks to pap, %llu epp plans "
		      "refused under a forced limit; %llu walks resumed at a "
		      "setjmp receiver, %llu cut by a longjmp; %llu folds "
		      "without a test within a factor 2 of overflowing; "
		      "%llu walked plans could have no breakpoint\n",
		      ncfg, irreducible, walks, walked, longest, bps, cuts,
		      fallbacks, epp_refused, resumed, cut_short, near,
		      nobreak);
	if (only == ~0ull && ncfg >= 1000) {
		assert_true(irreducible > ncfg / 100);
		assert_true(bps > 1000);
		assert_true(cuts > 0);
		assert_true(longest >= 1000000);
		assert_true(resumed > ncfg / 100);
		assert_true(cut_short > ncfg / 100);
	}
}

/*
 * A chain of @stages merges: block i goes to block i + 1 along 1 to 3
 * parallel edges (now and then up to 300), so r grows by that factor per
 * merge without any cycle; one graph in three gets a back edge too.
 */
static struct pap_cfg *ladder_cfg(struct tl_rng *g, uint32_t stages)
{
	struct pap_cfg *cfg = pap_cfg_new(stages + 1);
	uint32_t i, f, j;

	assert_non_null(cfg);
	for (i = 0; i < stages; i++) {
		f = tl_below(g, 10) ? 1 + (uint32_t)tl_below(g, 3) :
				     1 + (uint32_t)tl_below(g, 300);
		for (j = 0; j < f; j++)
			pap_cfg_add_edge(cfg, i, i + 1, PAP_EDGE_NORMAL);
	}
	if (tl_below(g, 3) == 0) {
		i = (uint32_t)tl_below(g, stages + 1);
		pap_cfg_add_edge(cfg, i + (uint32_t)tl_below(g, stages + 1 - i),
				 i, PAP_EDGE_NORMAL);
	}
	pap_cfg_mark_return(cfg, stages);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	return cfg;
}

/* test_property_fold_bounds: on 3000 chains of merges, long enough for
 * r to overflow without a loop, in pap and pap-epp (with small path
 * limits, so that cuts fold inside the chain): every walk decodes
 * exactly, r stays within the plan's bounds, no untested fold overflows,
 * and untested folds do come close to overflowing. */
static void test_property_fold_bounds(void **state)
{
	struct tl_rng g = { 6464 };
	unsigned long long near = 0, untested = 0, tested = 0, walks = 0;
	int i, m, w;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct pap_cfg *cfg = ladder_cfg(&g, 2 + (uint32_t)tl_below(&g,
								       100));

		for (m = PAP_MODE_PAP; m <= PAP_MODE_PAP_EPP; m++) {
			struct pap_plan_opts opts = { 0 };
			struct pap_plan *plan;
			uint32_t k;

			if (m == PAP_MODE_PAP_EPP && tl_below(&g, 4))
				opts.max_paths = 2 + tl_below(&g, 64);
			assert_int_equal(pap_plan_build(cfg, m, &opts, &plan),
					 0);
			for (k = 0; k < plan->nops; k++)
				if (plan->ops[k].kind == PAP_OP_FOLD) {
					tested += plan->ops[k].may_overflow;
					untested += !plan->ops[k].may_overflow;
				}
			for (w = 0; w < 4; w++) {
				struct tl_result res;
				uint32_t *walk;
				size_t len;
				char why[256], ctx[96];

				assert_int_equal(tl_random_walk(&g, cfg, 300,
						 &walk, &len), 0);
				snprintf(ctx, sizeof(ctx), "chain %d mode %s "
					 "max_paths %llu", i, pap_mode_name(m),
					 (unsigned long long)opts.max_paths);
				check_r_bounds(plan, walk, len, ctx, &near);
				if (tl_check_walk(plan, walk, len, &res, why,
						  sizeof(why)))
					fail_msg("%s: %s", ctx, why);
				walks++;
				free(walk);
			}
			pap_plan_free(plan);
		}
		pap_cfg_free(cfg);
	}
	print_message("# %llu walks of merge chains; folds: %llu tested, "
		      "%llu untested, %llu untested folds within a factor 2 "
		      "of overflowing\n", walks, tested, untested, near);
	assert_true(tested > 0);
	assert_true(untested > 0);
	assert_true(near > 100);
}

/*
 * test_property_fold_bound_tight: a chain of 70 two-way merges in mode
 * pap.  r starts at 0 and the i-th merge makes it r*2 + (0 or 1), so
 * before the i-th fold r < 2^(i-1); a fold by 2 can overflow from
 * r = 2^63 on.  The first 64 folds need no test, the rest do.
 */
static void test_property_fold_bound_tight(void **state)
{
	struct pap_cfg *cfg = pap_cfg_new(71);
	struct pap_plan *plan;
	uint32_t i, k, e;

	(void)state;
	assert_non_null(cfg);
	for (i = 0; i < 70; i++) {
		pap_cfg_add_edge(cfg, i, i + 1, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, i, i + 1, PAP_EDGE_NORMAL);
	}
	pap_cfg_mark_return(cfg, 70);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	assert_int_equal(pap_plan_build(cfg, PAP_MODE_PAP, NULL, &plan), 0);
	for (e = 0; e < cfg->nedges; e++) {
		uint32_t dst = cfg->edges[e].dst;

		for (k = plan->op_off[e]; k < plan->op_off[e + 1]; k++) {
			if (plan->ops[k].kind != PAP_OP_FOLD)
				continue;
			/* an edge into block dst is the dst-th fold */
			assert_true(dst >= 1 && dst <= 70);
			if (plan->ops[k].may_overflow != (dst >= 65))
				fail_msg("fold %u into block %u: may_overflow "
					 "%d", e, dst, plan->ops[k].may_overflow);
		}
	}
	pap_plan_free(plan);
	pap_cfg_free(cfg);
}

/*
 * Decoding @a with @plan either fails with PAP_ECORRUPT or yields a path
 * whose execution emits exactly @a again: the decoder never invents a
 * path that did not produce the records it was given.
 */
static void check_round_trip(const struct pap_plan *plan,
			     const struct pap_activation *a, const char *ctx,
			     unsigned long long *accepted)
{
	struct pap_activation b;
	struct pap_exec_sink sink = pap_activation_sink(&b);
	struct pap_exec_state st = { 0, 0 };
	struct pap_path out;
	size_t i;
	int err;

	pap_path_init(&out);
	err = pap_decode_path(plan, a->bps, a->nbps, a->final, &out);
	if (err) {
		if (err != PAP_ECORRUPT)
			fail_msg("%s: decode returned %d", ctx, err);
		assert_int_equal(out.len, 0);
		pap_path_free(&out);
		return;
	}
	++*accepted;
	pap_activation_init(&b);
	for (i = 0; i < out.len; i++)
		pap_exec_edge(plan, &st, out.edges[i], &sink);
	if (b.nrecords != 1 || b.final != a->final || b.nbps != a->nbps)
		fail_msg("%s: accepted records that its path does not emit",
			 ctx);
	for (i = 0; i < a->nbps; i++)
		if (b.bps[i].site != a->bps[i].site || b.bps[i].r != a->bps[i].r)
			fail_msg("%s: breakpoint %zu differs on re-execution",
				 ctx, i);
	pap_activation_free(&b);
	pap_path_free(&out);
}

/* Damages a real activation's records in one of several ways. */
static void tamper(struct tl_rng *g, const struct pap_cfg *cfg,
		   struct pap_activation *a)
{
	size_t k = a->nbps ? (size_t)tl_below(g, a->nbps) : 0;
	uint32_t e, src, kk;

	switch (tl_below(g, 6)) {
	case 0:		/* flip one bit of the final value */
		a->final ^= 1ull << tl_below(g, 64);
		break;
	case 1:		/* flip one bit of a breakpoint value */
		if (a->nbps)
			a->bps[k].r ^= 1ull << tl_below(g, 64);
		break;
	case 2:		/* move a breakpoint to a sibling edge */
		if (!a->nbps || a->bps[k].site >= cfg->nedges)
			break;
		src = cfg->edges[a->bps[k].site].src;
		kk = cfg->out_off[src] +
		     (uint32_t)tl_below(g, pap_cfg_fanout(cfg, src));
		e = cfg->out_edge[kk];
		a->bps[k].site = e;
		break;
	case 3:		/* drop a breakpoint */
		if (a->nbps) {
			memmove(a->bps + k, a->bps + k + 1,
				(a->nbps - k - 1) * sizeof(*a->bps));
			a->nbps--;
		}
		break;
	case 4:		/* duplicate a breakpoint */
		if (a->nbps && a->nbps < a->cap_bps) {
			memmove(a->bps + k + 1, a->bps + k,
				(a->nbps - k) * sizeof(*a->bps));
			a->nbps++;
		}
		break;
	default:	/* swap two breakpoints */
		if (a->nbps > 1) {
			size_t m = (size_t)tl_below(g, a->nbps);
			struct pap_breakpoint t = a->bps[k];

			a->bps[k] = a->bps[m];
			a->bps[m] = t;
		}
		break;
	}
}

/* test_property_corrupt_records: random and tampered record streams never
 * crash the decoder, and whatever it accepts re-executes to exactly the
 * records given (so a damaged stream is refused or means what it says). */
static void test_property_corrupt_records(void **state)
{
	struct tl_rng g = { 99 };
	unsigned long long accepted = 0, tampered = 0, i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		struct pap_activation a;
		struct pap_exec_sink sink;
		uint32_t *walk;
		size_t len, k;
		int m;
		char ctx[96];

		tl_random_params(&g, &p);
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		assert_int_equal(tl_random_walk(&g, cfg, tl_below(&g, 3000),
						&walk, &len), 0);
		for (m = PAP_MODE_PAP; m <= PAP_MODE_PAP_EPP; m++) {
			struct pap_plan *plan;
			struct pap_exec_state st = { 0, 0 };
			struct pap_path out;

			snprintf(ctx, sizeof(ctx), "graph %llu mode %s", i,
				 pap_mode_name(m));
			assert_int_equal(pap_plan_build(cfg, m, NULL, &plan),
					 0);
			/* a real activation, then damaged */
			pap_activation_init(&a);
			sink = pap_activation_sink(&a);
			for (k = 0; k < len; k++)
				pap_exec_edge(plan, &st, walk[k], &sink);
			check_round_trip(plan, &a, ctx, &accepted);
			tamper(&g, cfg, &a);
			tampered++;
			check_round_trip(plan, &a, ctx, &accepted);
			/* pure noise */
			a.nbps = a.nbps > 3 ? 3 : a.nbps;
			for (k = 0; k < a.nbps; k++) {
				a.bps[k].site = tl_below(&g, 2) ?
					(uint32_t)tl_below(&g, cfg->nedges + 2) :
					(uint32_t)tl_next(&g);
				a.bps[k].r = tl_below(&g, 2) ? tl_next(&g) :
							      tl_below(&g, 16);
			}
			a.final = tl_below(&g, 2) ? tl_next(&g) :
						   tl_below(&g, 64);
			check_round_trip(plan, &a, ctx, &accepted);
			pap_activation_free(&a);
			pap_path_init(&out);
			assert_int_equal(pap_decode_bl(plan, 0, &out),
					 PAP_EINVAL);
			pap_path_free(&out);
			pap_plan_free(plan);
		}
		free(walk);
		pap_cfg_free(cfg);
	}
	print_message("# %llu tampered streams; %llu streams accepted, each "
		      "re-executing to exactly its records\n", tampered,
		      accepted);
}

/*
 * Decodes @a through @m and checks the result against @walk, the edges
 * really executed (NULL: against the decoder without a memo, for records
 * no walk produced).  Returns the decode's result.
 */
/* The pieces a PAP+EPP decoding told, in order. */
struct told {
	struct told_piece {
		uint32_t end, start;
		uint64_t d;
		size_t at, len;
	} p[4096];
	size_t n;
	int over;
};

static void tell_piece(void *ctx, uint32_t end, uint64_t d, uint32_t start,
		       size_t at, size_t len)
{
	struct told *t = ctx;

	if (t->n == sizeof(t->p) / sizeof(t->p[0])) {
		t->over = 1;
		return;
	}
	t->p[t->n++] = (struct told_piece){ end, start, d, at, len };
}

/*
 * A PAP+EPP decoding through @m tells the pieces one without a memo
 * tells (whole segments found in the memo are told again from what it
 * kept of them), and yields the same edges.
 */
static void check_memo_visit(const struct pap_plan *plan, struct pap_memo *m,
			     const struct pap_activation *a, const char *ctx)
{
	static struct told got, want;
	struct pap_piece_visit vg = { tell_piece, &got }, vw = { tell_piece,
								 &want };
	struct pap_path eg, ew;
	int errg, errw;
	size_t i;

	if (plan->mode != PAP_MODE_PAP_EPP)
		return;
	got.n = want.n = 0;
	got.over = want.over = 0;
	pap_path_init(&eg);
	pap_path_init(&ew);
	errg = pap_decode_path_visit(plan, m, a->bps, a->nbps, a->final, &eg,
				     &vg);
	errw = pap_decode_path_visit(plan, NULL, a->bps, a->nbps, a->final,
				     &ew, &vw);
	if (errg != errw)
		fail_msg("%s: visited through the memo %s, without %s", ctx,
			 pap_strerror(errg), pap_strerror(errw));
	if (!errg && !got.over && !want.over) {
		if (got.n != want.n || eg.len != ew.len)
			fail_msg("%s: through the memo %zu pieces and %zu edges, "
				 "without %zu and %zu", ctx, got.n, eg.len,
				 want.n, ew.len);
		for (i = 0; i < got.n; i++)
			if (memcmp(&got.p[i], &want.p[i], sizeof(got.p[i])))
				fail_msg("%s: through the memo piece %zu is "
					 "(%u, %llu, %u, %zu, %zu), without "
					 "(%u, %llu, %u, %zu, %zu)", ctx, i,
					 got.p[i].end,
					 (unsigned long long)got.p[i].d,
					 got.p[i].start, got.p[i].at,
					 got.p[i].len, want.p[i].end,
					 (unsigned long long)want.p[i].d,
					 want.p[i].start, want.p[i].at,
					 want.p[i].len);
		for (i = 0; i < eg.len; i++)
			if (eg.edges[i] != ew.edges[i])
				fail_msg("%s: visited through the memo edge %zu "
					 "is %u, without %u", ctx, i,
					 eg.edges[i], ew.edges[i]);
	}
	pap_path_free(&eg);
	pap_path_free(&ew);
}

static int check_memo_decode(const struct pap_plan *plan, struct pap_memo *m,
			     const struct pap_activation *a,
			     const uint32_t *walk, size_t len, const char *ctx)
{
	struct pap_path got, want;
	int err, werr = PAP_OK;
	size_t i;

	pap_path_init(&got);
	pap_path_init(&want);
	err = pap_decode_path_memo(plan, m, a->bps, a->nbps, a->final, &got);
	if (!walk) {
		werr = pap_decode_path(plan, a->bps, a->nbps, a->final, &want);
		walk = want.edges;
		len = want.len;
	}
	if (err != werr)
		fail_msg("%s: through the memo %s, without %s", ctx,
			 pap_strerror(err), pap_strerror(werr));
	if (!err && got.len != len)
		fail_msg("%s: through the memo %zu edges, walked %zu", ctx,
			 got.len, len);
	for (i = 0; !err && i < len; i++)
		if (got.edges[i] != walk[i])
			fail_msg("%s: through the memo edge %zu is %u, walked "
				 "%u", ctx, i, got.edges[i], walk[i]);
	pap_path_free(&got);
	pap_path_free(&want);
	check_memo_visit(plan, m, a, ctx);
	return err;
}

/*
 * test_property_memo: decoding through a memo shared by many activations
 * of one plan yields exactly the executed walks, with a roomy memo and
 * with one too small to hold much, and tells the pieces a decoding
 * without a memo tells; on damaged records it fails exactly when and as
 * the plain decoder does.
 */
static void test_property_memo(void **state)
{
	struct tl_rng g = { 777 };
	unsigned long long i, hits = 0, misses = 0, bps = 0;

	(void)state;
	for (i = 0; i < 400; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		int m;

		tl_random_params(&g, &p);
		p.forward_only = 0;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		for (m = PAP_MODE_PAP; m <= PAP_MODE_PAP_EPP; m++) {
			struct pap_plan_opts opts = { 0 };
			struct pap_memo *big, *tiny;
			struct pap_plan *plan;
			uint64_t h, mi;
			size_t e;
			int w;

			/* small radices: many breakpoints, repeated pieces */
			if (i % 2)
				opts.max_paths = 2 + tl_below(&g, 30);
			assert_int_equal(pap_plan_build(cfg, m, &opts, &plan),
					 0);
			big = pap_memo_new(1u << 20);
			tiny = pap_memo_new(37);
			assert_non_null(big);
			assert_non_null(tiny);
			for (w = 0; w < 12; w++) {
				struct pap_activation a;
				struct pap_exec_sink sink;
				struct pap_exec_state st = { 0, 0 };
				uint32_t *walk;
				size_t len, k;
				char ctx[96];

				assert_int_equal(tl_random_walk(&g, cfg,
						tl_below(&g, 4000), &walk,
						&len), 0);
				pap_activation_init(&a);
				sink = pap_activation_sink(&a);
				for (k = 0; k < len; k++)
					pap_exec_edge(plan, &st, walk[k], &sink);
				bps += a.nbps;
				snprintf(ctx, sizeof(ctx), "graph %llu mode %s "
					 "walk %d", i, pap_mode_name(plan->mode),
					 w);
				assert_int_equal(check_memo_decode(plan, big,
						&a, walk, len, ctx), 0);
				assert_int_equal(check_memo_decode(plan, tiny,
						&a, walk, len, ctx), 0);
				tamper(&g, cfg, &a);
				check_memo_decode(plan, big, &a, NULL, 0, ctx);
				check_memo_decode(plan, tiny, &a, NULL, 0, ctx);
				pap_activation_free(&a);
				free(walk);
			}
			pap_memo_stats(big, &h, &mi, &e);
			hits += h;
			misses += mi;
			pap_memo_stats(tiny, &h, &mi, &e);
			assert_true(e <= 37);
			pap_memo_free(big);
			pap_memo_free(tiny);
			pap_plan_free(plan);
		}
		pap_cfg_free(cfg);
	}
	print_message("# memo: %llu breakpoints, %llu pieces found, %llu "
		      "decoded\n", bps, hits, misses);
	/* the check above must have exercised the memo */
	assert_true(hits > misses);
	assert_true(bps > 10000);
}

/*
 * A loop whose body is a chain of @d diamonds (2^@d acyclic paths):
 * block 0 enters the head 1, the body starts at 2, diamond k branches
 * to 3 + 3k or 4 + 3k and joins at 5 + 3k, the last join goes back to
 * the head, and the head leaves to block 3 + 3d, which returns.
 */
static struct pap_cfg *wide_loop_cfg(uint32_t d)
{
	uint32_t k, cur = 2, x = 3 + 3 * d;
	struct pap_cfg *cfg = pap_cfg_new(x + 1);

	assert_non_null(cfg);
	pap_cfg_add_edge(cfg, 0, 1, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 1, 2, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 1, x, PAP_EDGE_NORMAL);
	for (k = 0; k < d; k++) {
		pap_cfg_add_edge(cfg, cur, 3 + 3 * k, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, cur, 4 + 3 * k, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 3 + 3 * k, 5 + 3 * k, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 4 + 3 * k, 5 + 3 * k, PAP_EDGE_NORMAL);
		cur = 5 + 3 * k;
	}
	pap_cfg_add_edge(cfg, cur, 1, PAP_EDGE_NORMAL);
	pap_cfg_mark_return(cfg, x);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	return cfg;
}

/* The walk of wide_loop_cfg(@d) whose iteration i takes, at diamond k,
 * the second way when bit k of @bits[i] is set (@n iterations). */
static uint32_t *wide_loop_walk(const struct pap_cfg *cfg, uint32_t d,
				const uint64_t *bits, size_t n, size_t *len)
{
	uint32_t *w = malloc((4 + n * (2 * d + 2)) * sizeof(*w)), k, cur, b;
	size_t i, m = 0;

	assert_non_null(w);
	w[m++] = cfg->entry_edge;
	w[m++] = tl_edge(cfg, 0, 1);
	for (i = 0; i < n; i++) {
		w[m++] = tl_edge(cfg, 1, 2);
		for (k = 0, cur = 2; k < d; k++) {
			b = (bits[i] >> k & 1) ? 4 + 3 * k : 3 + 3 * k;
			w[m++] = tl_edge(cfg, cur, b);
			w[m++] = tl_edge(cfg, b, 5 + 3 * k);
			cur = 5 + 3 * k;
		}
		w[m++] = tl_edge(cfg, cur, 1);
	}
	w[m++] = tl_edge(cfg, 1, 3 + 3 * d);
	w[m++] = tl_edge(cfg, 3 + 3 * d, cfg->exit);
	for (i = 0; i < m; i++)
		assert_int_not_equal(w[i], PAP_NONE);
	*len = m;
	return w;
}

/*
 * test_property_memo_wide: test_property_memo's checks on loops of 33
 * to 40 diamonds, whose digits (a body's Ball-Larus ids) pass 2^32:
 * iterations drawn from a few patterns and their variants in the high
 * diamonds, so that whole segments recur and are found in the memo,
 * told again from what it kept of them, digits whole.
 */
static void test_property_memo_wide(void **state)
{
	struct tl_rng g = { 4242 };
	unsigned long long hits = 0, misses = 0, wide = 0;
	uint32_t d;

	(void)state;
	for (d = 33; d <= 40; d++) {
		struct pap_cfg *cfg = wide_loop_cfg(d);
		struct pap_plan *plan;
		struct pap_memo *memo = pap_memo_new(1u << 20);
		uint64_t base[3], bits[8], h, mi;
		size_t e;
		int w, j;

		assert_non_null(memo);
		assert_int_equal(pap_plan_build(cfg, PAP_MODE_PAP_EPP, NULL,
						&plan), 0);
		for (j = 0; j < 3; j++)
			base[j] = tl_next(&g) & (((uint64_t)1 << d) - 1);
		for (w = 0; w < 60; w++) {
			struct pap_activation a;
			struct pap_exec_sink sink;
			struct pap_exec_state st = { 0, 0 };
			size_t n = 1 + tl_below(&g, 8), i, len, k;
			uint32_t *walk;
			char ctx[96];

			/* a base pattern, or one with a diamond above the
			 * 32nd turned the other way */
			for (i = 0; i < n; i++) {
				bits[i] = base[tl_below(&g, 3)];
				if (tl_below(&g, 2))
					bits[i] ^= (uint64_t)1 <<
						   (32 + tl_below(&g, d - 32));
				wide += bits[i] >> 32 != 0;
			}
			walk = wide_loop_walk(cfg, d, bits, n, &len);
			pap_activation_init(&a);
			sink = pap_activation_sink(&a);
			for (k = 0; k < len; k++)
				pap_exec_edge(plan, &st, walk[k], &sink);
			snprintf(ctx, sizeof(ctx), "%u diamonds walk %d", d, w);
			assert_int_equal(check_memo_decode(plan, memo, &a,
							   walk, len, ctx), 0);
			pap_activation_free(&a);
			free(walk);
		}
		pap_memo_stats(memo, &h, &mi, &e);
		hits += h;
		misses += mi;
		pap_memo_free(memo);
		pap_plan_free(plan);
		pap_cfg_free(cfg);
	}
	print_message("# wide memo: %llu pieces found, %llu decoded, %llu "
		      "iterations past bit 32\n", hits, misses, wide);
	assert_true(hits > misses);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_property_random_walks),
		cmocka_unit_test(test_property_corrupt_records),
		cmocka_unit_test(test_property_fold_bounds),
		cmocka_unit_test(test_property_fold_bound_tight),
		cmocka_unit_test(test_property_memo),
		cmocka_unit_test(test_property_memo_wide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
