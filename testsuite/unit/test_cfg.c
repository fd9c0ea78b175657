/* SPDX-License-Identifier: MIT */
/*
 * test_cfg.c - the CFG model: virtual entry/exit, fake and dead edges,
 * back edges, dominators and post-dominators against a brute-force
 * definition, loop nests, and the text format's error messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfgtext.h"
#include "testlib.h"

/* Can @to be reached from @from without passing @avoid?  Forward, or
 * backward over in-edges with @back. */
static int reaches_avoiding(const struct pap_cfg *cfg, uint32_t from,
			    uint32_t to, uint32_t avoid, int back)
{
	uint8_t *seen = calloc(cfg->nnodes, 1);
	uint32_t *stack = malloc(cfg->nnodes * sizeof(uint32_t));
	uint32_t sp = 0, k;
	int found = 0;

	assert_true(seen && stack);
	if (from != avoid) {
		seen[from] = 1;
		stack[sp++] = from;
	}
	while (sp && !found) {
		uint32_t v = stack[--sp];

		if (v == to) {
			found = 1;
			break;
		}
		if (back) {
			for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++) {
				uint32_t w = cfg->edges[cfg->in_edge[k]].src;

				if (w != avoid && !seen[w]) {
					seen[w] = 1;
					stack[sp++] = w;
				}
			}
		} else {
			for (k = cfg->out_off[v]; k < cfg->out_off[v + 1];
			     k++) {
				uint32_t w = cfg->edges[cfg->out_edge[k]].dst;

				if (w != avoid && !seen[w]) {
					seen[w] = 1;
					stack[sp++] = w;
				}
			}
		}
	}
	free(seen);
	free(stack);
	return found;
}

/* test_cfg_dominators_bruteforce: on random graphs, a dominates b iff b
 * cannot be reached from ENTRY avoiding a (and dually for EXIT). */
static void test_cfg_dominators_bruteforce(void **state)
{
	struct tl_rng g = { 7 };
	int i;

	(void)state;
	for (i = 0; i < 150; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		uint32_t *idom, *ipdom, a, b;

		tl_random_params(&g, &p);
		if (p.nblocks > 40)
			p.nblocks = 40;
		p.fan_in = 0;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		idom = malloc(cfg->nnodes * sizeof(uint32_t));
		ipdom = malloc(cfg->nnodes * sizeof(uint32_t));
		assert_int_equal(pap_dominators(cfg, 0, idom), 0);
		assert_int_equal(pap_dominators(cfg, 1, ipdom), 0);
		for (a = 0; a < cfg->nnodes; a++) {
			for (b = 0; b < cfg->nnodes; b++) {
				int dom = a == b ||
					  !reaches_avoiding(cfg, cfg->entry, b,
							    a, 0);
				int pdom = a == b ||
					   !reaches_avoiding(cfg, cfg->exit, b,
							     a, 1);

				if (!cfg->reachable[a] || !cfg->reachable[b])
					continue;
				assert_int_equal(pap_dominates(idom, cfg->entry,
							       a, b), dom);
				assert_int_equal(pap_dominates(ipdom, cfg->exit,
							       a, b), pdom);
			}
		}
		free(idom);
		free(ipdom);
		pap_cfg_free(cfg);
	}
}

/* test_cfg_virtual_nodes: one entry, one exit; a block with no way out
 * gets a FAKE edge; an unreachable block's edges are dead. */
static void test_cfg_virtual_nodes(void **state)
{
	struct pap_cfg *cfg = pap_cfg_new(5);
	uint32_t k, fake = 0;

	(void)state;
	/* 0 -> 1 -> 2 (returns); 0 -> 3 -> 3 (spins); 4 -> 2 unreachable */
	pap_cfg_add_edge(cfg, 0, 1, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 1, 2, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 0, 3, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 3, 3, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 4, 2, PAP_EDGE_NORMAL);
	pap_cfg_mark_return(cfg, 2);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	assert_int_equal(pap_cfg_fanin(cfg, cfg->entry), 0);
	assert_int_equal(pap_cfg_fanout(cfg, cfg->exit), 0);
	assert_false(cfg->reachable[4]);
	assert_true(cfg->edges[4].flags & PAP_EF_DEAD);
	for (k = cfg->in_off[cfg->exit]; k < cfg->in_off[cfg->exit + 1]; k++)
		if (cfg->edges[cfg->in_edge[k]].kind == PAP_EDGE_FAKE) {
			assert_int_equal(cfg->edges[cfg->in_edge[k]].src, 3);
			fake++;
		}
	assert_int_equal(fake, 1);
	assert_true(cfg->edges[3].flags & PAP_EF_BACK);
	assert_int_equal(cfg->nback, 1);
	assert_int_equal(pap_cfg_add_edge(cfg, 0, 1, PAP_EDGE_NORMAL),
			 PAP_EINVAL);
	pap_cfg_free(cfg);
}

/* test_cfg_back_edge_sibling: on random graphs every node entered by a
 * back edge is also entered by an edge that is not one (the property
 * PAP's index-0 rule relies on). */
static void test_cfg_back_edge_sibling(void **state)
{
	struct tl_rng g = { 11 };
	int i;

	(void)state;
	for (i = 0; i < 500; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		uint32_t v, k;

		tl_random_params(&g, &p);
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		for (v = 0; v < cfg->nnodes; v++) {
			int back = 0, other = 0;

			for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++) {
				if (cfg->edges[cfg->in_edge[k]].flags &
				    PAP_EF_BACK)
					back = 1;
				else
					other = 1;
			}
			assert_true(!back || other);
		}
		pap_cfg_free(cfg);
	}
}

/* test_cfg_loop_nest: nested natural loops get depths 1 and 2; a DAG has
 * none; weights grow with depth. */
static void test_cfg_loop_nest(void **state)
{
	struct pap_cfgtext t;
	struct pap_loop_nest nest;
	char err[256];
	uint32_t inner, outer;

	(void)state;
	assert_int_equal(pap_cfgtext_parse(
		"blocks A H1 H2 B L2 L1 X\n"
		"edge A H1\nedge H1 H2\nedge H2 B\nedge B L2\nedge L2 H2\n"
		"edge L2 L1\nedge L1 H1\nedge L1 X\nedge H1 X\nreturn X\n",
		"nest.cfg", &t, err, sizeof(err)), 0);
	assert_int_equal(pap_loops_find(t.cfg, &nest), 0);
	assert_int_equal(nest.nloops, 2);
	assert_true(nest.reducible);
	outer = nest.innermost[pap_cfgtext_block(&t, "H1")];
	inner = nest.innermost[pap_cfgtext_block(&t, "B")];
	assert_int_equal(nest.loops[outer].depth, 1);
	assert_int_equal(nest.loops[inner].depth, 2);
	assert_int_equal(nest.loops[inner].parent, outer);
	assert_int_equal(nest.loops[inner].first_header,
			 pap_cfgtext_block(&t, "H2"));
	assert_int_equal(nest.innermost[pap_cfgtext_block(&t, "X")],
			 PAP_NONE);
	assert_true(t.cfg->edges[tl_edge(t.cfg, pap_cfgtext_block(&t, "B"),
				       pap_cfgtext_block(&t, "L2"))].weight >
		    t.cfg->edges[tl_edge(t.cfg, pap_cfgtext_block(&t, "A"),
				       pap_cfgtext_block(&t, "H1"))].weight);
	pap_loops_free(&nest);
	pap_cfgtext_free(&t);
}

/* test_cfg_text_errors: malformed graph text is refused with a
 * GCC-style message naming file and line. */
static void test_cfg_text_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "edge A B\n", "bad.cfg:1: error: no 'blocks' line" },
		{ "blocks A B\nedge A C\n", "bad.cfg:2: error: unknown block 'C'" },
		{ "blocks A A\n", "bad.cfg:1: error: block 'A' declared twice" },
		{ "blocks A\nfrobnicate A\n",
		  "bad.cfg:2: error: unknown directive 'frobnicate'" },
		{ "blocks A B\nedge A B weird\n",
		  "bad.cfg:2: error: unknown edge flag 'weird'" },
		{ "blocks A B\nentry A B\n", "bad.cfg:2: error: unexpected 'B'" },
		{ "blocks ENTRY\n", "bad.cfg:1: error: 'ENTRY' is reserved" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pap_cfgtext t;
		char err[256] = "";

		assert_int_not_equal(pap_cfgtext_parse(cases[i].text,
						       "bad.cfg", &t, err,
						       sizeof(err)), 0);
		assert_string_equal(err, cases[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_dominators_bruteforce),
		cmocka_unit_test(test_cfg_virtual_nodes),
		cmocka_unit_test(test_cfg_back_edge_sibling),
		cmocka_unit_test(test_cfg_loop_nest),
		cmocka_unit_test(test_cfg_text_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
