/* SPDX-License-Identifier: MIT */
/*
 * test_callgraph.c - the call-site graph of a function: hand-written CFGs
 * with their predecessor lists written out, and random CFGs with random
 * sites checked against a brute force that shares nothing with the
 * breadth-first search (a transitive closure over blocks without sites).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "callgraph.h"
#include "testlib.h"

#define E	PAP_CG_SRC_E
#define R(k, c)	pap_cg_src(k, c)
#define END	UINT32_MAX

/* Node @v of @g has exactly the predecessors @want (ascending, END). */
static void want_preds(const struct pap_callgraph *g, uint32_t v,
		       const uint32_t *want)
{
	uint32_t n = 0, i;

	while (want[n] != END)
		n++;
	assert_int_equal(pap_cg_radix(g, v), n);
	for (i = 0; i < n; i++) {
		assert_int_equal(g->pred[g->pred_off[v] + i], want[i]);
		assert_int_equal(pap_cg_digit(g, v, want[i]), i);
	}
}

static struct pap_cfg *graph(uint32_t n, const uint32_t (*edges)[3],
			     uint32_t ne, const uint32_t *ret, uint32_t nret)
{
	struct pap_cfg *cfg = pap_cfg_new(n);
	uint32_t i;

	assert_non_null(cfg);
	for (i = 0; i < ne; i++)
		assert_true(pap_cfg_add_edge(cfg, edges[i][0], edges[i][1],
				edges[i][2] ? PAP_EDGE_ABNORMAL :
					      PAP_EDGE_NORMAL) >= 0);
	assert_int_equal(pap_cfg_set_entry(cfg, 0), 0);
	for (i = 0; i < nret; i++)
		assert_int_equal(pap_cfg_mark_return(cfg, ret[i]), 0);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	return cfg;
}

/* test_callgraph_loop_around_call: b0 -> b1 (site 1, may be outside)
 * -> b2 -> b1 | b3 (returns).  C_1 is reached from E and from both
 * returns of call 1; X from both returns. */
static void test_callgraph_loop_around_call(void **state)
{
	static const uint32_t edges[][3] = {
		{ 0, 1, 0 }, { 1, 2, 0 }, { 2, 1, 0 }, { 2, 3, 0 } };
	static const uint32_t ret[] = { 3 };
	struct pap_site s[] = { { 1, PAP_SITE_DIRECT, PAP_SITE_MAYBE_OUT } };
	struct pap_cfg *cfg = graph(4, edges, 4, ret, 1);
	struct pap_callgraph g;

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, s, 1, &g), 0);
	want_preds(&g, pap_cg_node_c(1),
		   (const uint32_t[]){ E, R(1, 0), R(1, 1), END });
	want_preds(&g, pap_cg_node_x(&g),
		   (const uint32_t[]){ R(1, 0), R(1, 1), END });
	pap_callgraph_free(&g);
	pap_cfg_free(cfg);
}

/* test_callgraph_block_and_switch: b0 holds sites 1 and 2 and switches
 * to b1 (site 3), b2 (no site) and b3 (site 4, noreturn); b1 and b2 go
 * to b4, which returns. */
static void test_callgraph_block_and_switch(void **state)
{
	static const uint32_t edges[][3] = {
		{ 0, 1, 0 }, { 0, 2, 0 }, { 0, 3, 0 }, { 1, 4, 0 },
		{ 2, 4, 0 } };
	static const uint32_t ret[] = { 4 };
	struct pap_site s[] = {
		{ 0, PAP_SITE_DIRECT, 0 },
		{ 0, PAP_SITE_INDIRECT, PAP_SITE_MAYBE_OUT },
		{ 1, PAP_SITE_DIRECT, PAP_SITE_MAYBE_TAIL },
		{ 3, PAP_SITE_NORETURN, 0 } };
	struct pap_cfg *cfg = graph(5, edges, 5, ret, 1);
	struct pap_callgraph g;

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, s, 4, &g), 0);
	want_preds(&g, pap_cg_node_c(1), (const uint32_t[]){ E, END });
	want_preds(&g, pap_cg_node_c(2), (const uint32_t[]){ R(1, 0), END });
	want_preds(&g, pap_cg_node_c(3),
		   (const uint32_t[]){ R(2, 0), R(2, 1), END });
	want_preds(&g, pap_cg_node_c(4),
		   (const uint32_t[]){ R(2, 0), R(2, 1), END });
	want_preds(&g, pap_cg_node_x(&g),
		   (const uint32_t[]){ R(2, 0), R(2, 1), R(3, 0), R(3, 2),
				       END });
	assert_false(g.has_source[R(3, 1)]);
	assert_false(g.has_source[R(4, 0)]);
	pap_callgraph_free(&g);
	pap_cfg_free(cfg);
}

/* test_callgraph_eh_and_tail: site 1 may throw into landing pad b2 (an
 * abnormal edge), which calls site 2 and returns; a tail site has no
 * return, so nothing follows it; a site that is not the last of its
 * block cannot throw. */
static void test_callgraph_eh_and_tail(void **state)
{
	static const uint32_t edges[][3] = {
		{ 0, 1, 0 }, { 0, 2, 1 }, { 2, 1, 0 }, { 1, 3, 0 } };
	static const uint32_t ret[] = { 1, 3 };
	struct pap_site s[] = {
		{ 0, PAP_SITE_DIRECT, PAP_SITE_EH },
		{ 2, PAP_SITE_DIRECT, 0 },
		{ 3, PAP_SITE_TAIL, 0 } };
	struct pap_site bad[] = {
		{ 0, PAP_SITE_DIRECT, PAP_SITE_EH },
		{ 0, PAP_SITE_DIRECT, 0 } };
	struct pap_cfg *cfg = graph(4, edges, 4, ret, 2);
	struct pap_callgraph g;

	(void)state;
	assert_int_equal(pap_callsites_build(cfg, s, 3, &g), 0);
	want_preds(&g, pap_cg_node_c(2), (const uint32_t[]){ R(1, 3), END });
	want_preds(&g, pap_cg_node_c(3),
		   (const uint32_t[]){ R(1, 0), R(2, 0), END });
	want_preds(&g, pap_cg_node_x(&g),
		   (const uint32_t[]){ R(1, 0), R(2, 0), END });
	pap_callgraph_free(&g);
	assert_int_equal(pap_callsites_build(cfg, bad, 2, &g), PAP_EINVAL);
	pap_cfg_free(cfg);
}

/*
 * The brute force: T[a][b] when a path of normal edges leads from block
 * a to block b with only blocks without sites in between; then a start
 * at block b reaches b's first site, or, when b has none, the first site
 * of every block with sites it leads to and X when it or a block without
 * sites it leads to returns.
 */
struct brute {
	uint32_t n;
	uint8_t *t;		/* n x n */
	uint8_t *ret;		/* per block */
	uint32_t *first;	/* per block: first site or 0 */
};

static void brute_start(const struct brute *b, uint32_t blk, uint8_t *reach,
			uint32_t nsites)
{
	uint32_t c;

	if (b->first[blk]) {
		reach[b->first[blk] - 1] = 1;
		return;
	}
	if (b->ret[blk])
		reach[nsites] = 1;
	for (c = 0; c < b->n; c++) {
		if (!b->t[blk * b->n + c])
			continue;
		if (b->first[c])
			reach[b->first[c] - 1] = 1;
		else if (b->ret[c])
			reach[nsites] = 1;
	}
}

static void brute_check(const struct pap_cfg *cfg, const struct pap_site *s,
			uint32_t nsites, const struct pap_callgraph *g)
{
	struct brute b;
	uint32_t n = cfg->nblocks, i, j, k, v, src;
	uint8_t *reach = malloc(nsites + 1);
	uint32_t *next = calloc(nsites + 2, sizeof(*next));

	b.n = n;
	b.t = calloc((size_t)n * n, 1);
	b.ret = calloc(n, 1);
	b.first = calloc(n, sizeof(*b.first));
	assert_true(reach && next && b.t && b.ret && b.first);
	for (k = nsites; k >= 1; k--) {
		if (b.first[s[k - 1].block])
			next[k] = b.first[s[k - 1].block];
		b.first[s[k - 1].block] = k;
	}
	for (i = 0; i < cfg->nedges; i++) {
		const struct pap_edge *e = &cfg->edges[i];

		if (e->kind != PAP_EDGE_NORMAL || (e->flags & PAP_EF_DEAD))
			continue;
		if (e->dst == cfg->exit && e->src < n)
			b.ret[e->src] = 1;
		else if (e->src < n && e->dst < n)
			b.t[e->src * n + e->dst] = 1;
	}
	/* Warshall, passing only through blocks without sites */
	for (j = 0; j < n; j++) {
		if (b.first[j])
			continue;
		for (i = 0; i < n; i++) {
			if (!b.t[i * n + j])
				continue;
			for (v = 0; v < n; v++)
				if (b.t[j * n + v])
					b.t[i * n + v] = 1;
		}
	}
	for (src = 0; src < g->nsources; src++) {
		const struct pap_site *x;
		uint32_t c;

		memset(reach, 0, nsites + 1);
		if (src == E) {
			brute_start(&b, cfg->entry_block, reach, nsites);
		} else {
			k = pap_cg_src_site(src);
			c = pap_cg_src_class(src);
			x = &s[k - 1];
			/* which sources a site has, from its description:
			 * a self tail site T_k alone, in class 0's code,
			 * which reaches what E reaches */
			if (x->kind == PAP_SITE_SELFTAIL) {
				if (c) {
					assert_false(g->has_source[src]);
					continue;
				}
				assert_true(g->has_source[src]);
				brute_start(&b, cfg->entry_block, reach,
					    nsites);
			} else if (x->kind == PAP_SITE_NORETURN ||
			    x->kind == PAP_SITE_TAIL ||
			    (c == 1 && !(x->flags & PAP_SITE_MAYBE_OUT)) ||
			    (c == 2 && !(x->flags & PAP_SITE_MAYBE_TAIL)) ||
			    (c == 3 && !(x->flags & PAP_SITE_EH))) {
				assert_false(g->has_source[src]);
				continue;
			} else if (next[k]) {
				assert_true(g->has_source[src]);
				reach[next[k] - 1] = 1;
			} else {
				assert_true(g->has_source[src]);
				if (b.ret[x->block])
					reach[nsites] = 1;
				for (v = 0; v < n; v++)
					if (b.t[x->block * n + v])
						brute_start(&b, v, reach,
							    nsites);
			}
		}
		for (v = 0; v <= nsites; v++)
			if (reach[v] != (pap_cg_digit(g, v, src) != PAP_NONE))
				fail_msg("source %u node %u: brute %u, graph "
					 "%u", src, v, reach[v],
					 pap_cg_digit(g, v, src) != PAP_NONE);
	}
	/* each node's list ascends and its digits are the positions */
	for (v = 0; v <= nsites; v++)
		for (i = g->pred_off[v]; i < g->pred_off[v + 1]; i++) {
			if (i > g->pred_off[v])
				assert_true(g->pred[i - 1] < g->pred[i]);
			assert_int_equal(pap_cg_digit(g, v, g->pred[i]),
					 i - g->pred_off[v]);
		}
	free(reach);
	free(next);
	free(b.t);
	free(b.ret);
	free(b.first);
}

/* test_callgraph_random: random CFGs with random sites against the
 * brute force; every existing source of a returning site exists. */
static void test_callgraph_random(void **state)
{
	struct tl_rng rng = { 2512 };
	unsigned i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		struct pap_site *s;
		struct pap_callgraph g;
		uint32_t nsites, k;

		tl_random_params(&rng, &p);
		if (p.nblocks > 40)
			p.nblocks = 2 + (uint32_t)tl_below(&rng, 40);
		p.fan_in = 0;
		cfg = tl_random_cfg(&rng, &p);
		assert_non_null(cfg);
		nsites = (uint32_t)tl_below(&rng, 2 * p.nblocks + 2);
		s = calloc(nsites + 1, sizeof(*s));
		assert_non_null(s);
		for (k = 0; k < nsites; k++) {
			s[k].block = (uint32_t)tl_below(&rng, p.nblocks);
			s[k].kind = (uint8_t)tl_below(&rng, PAP_SITE_NKINDS);
			if (s[k].kind != PAP_SITE_NORETURN &&
			    s[k].kind != PAP_SITE_TAIL &&
			    s[k].kind != PAP_SITE_SELFTAIL)
				s[k].flags = (uint8_t)tl_below(&rng, 4);
		}
		assert_int_equal(pap_callsites_build(cfg, s, nsites, &g), 0);
		brute_check(cfg, s, nsites, &g);
		for (k = 1; k <= nsites; k++)
			assert_int_equal(g.has_source[R(k, 0)],
					 s[k - 1].kind != PAP_SITE_NORETURN &&
					 s[k - 1].kind != PAP_SITE_TAIL);
		pap_callgraph_free(&g);
		free(s);
		pap_cfg_free(cfg);
	}
}

/*
 * test_callgraph_large: a function of 20,000 blocks in a loop, each with
 * two calls, builds in time and memory linear in its edges: every C_k
 * has one predecessor but the first, which has E and the last return.
 */
static void test_callgraph_large(void **state)
{
	uint32_t n = 20000, i;
	struct pap_cfg *cfg = pap_cfg_new(n);
	struct pap_site *s = calloc(2 * n, sizeof(*s));
	struct pap_callgraph g;

	(void)state;
	assert_true(cfg && s);
	for (i = 0; i + 1 < n; i++)
		assert_true(pap_cfg_add_edge(cfg, i, i + 1,
					     PAP_EDGE_NORMAL) >= 0);
	assert_true(pap_cfg_add_edge(cfg, n - 1, 0, PAP_EDGE_NORMAL) >= 0);
	assert_int_equal(pap_cfg_set_entry(cfg, 0), 0);
	assert_int_equal(pap_cfg_mark_return(cfg, n - 1), 0);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	for (i = 0; i < 2 * n; i++)
		s[i].block = i / 2;
	assert_int_equal(pap_callsites_build(cfg, s, 2 * n, &g), 0);
	want_preds(&g, pap_cg_node_c(1),
		   (const uint32_t[]){ E, R(2 * n, 0), END });
	for (i = 2; i <= 2 * n; i++)
		assert_int_equal(pap_cg_radix(&g, pap_cg_node_c(i)), 1);
	want_preds(&g, pap_cg_node_x(&g),
		   (const uint32_t[]){ R(2 * n, 0), END });
	pap_callgraph_free(&g);
	free(s);
	pap_cfg_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callgraph_loop_around_call),
		cmocka_unit_test(test_callgraph_block_and_switch),
		cmocka_unit_test(test_callgraph_eh_and_tail),
		cmocka_unit_test(test_callgraph_random),
		cmocka_unit_test(test_callgraph_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
