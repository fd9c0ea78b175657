/* SPDX-License-Identifier: MIT */
/*
 * test_paper.c - hand-built graphs from the papers' prose, in every mode:
 * seed 000 Fig. 2 (a loop header with three in-edges, an irreducible
 * loop, the index-0 trap of Fig. 2(c)), a self-loop, a 1000-way switch,
 * and DAGs whose Ball-Larus ids must be dense and unique.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfgtext.h"
#include "testlib.h"

static const enum pap_mode all_modes[] = {
	PAP_MODE_EPP, PAP_MODE_PAP, PAP_MODE_PAP_EPP
};

static void parse(const char *text, struct pap_cfgtext *t)
{
	char err[256];
	int r = pap_cfgtext_parse(text, "test.cfg", t, err, sizeof(err));

	if (r)
		fail_msg("%s", err);
}

/* Walks named blocks and checks exact decoding in @mode. */
static struct tl_result check_named_walk(const struct pap_cfgtext *t,
					 enum pap_mode mode,
					 const char *walk_text)
{
	struct pap_plan *plan;
	struct tl_result res;
	uint32_t *walk;
	size_t len;
	char err[256];

	assert_int_equal(pap_cfgtext_walk(t, walk_text, "walk", &walk, &len,
					  err, sizeof(err)), 0);
	assert_int_equal(pap_plan_build(t->cfg, mode, NULL, &plan), 0);
	if (tl_check_walk(plan, walk, len, &res, err, sizeof(err)))
		fail_msg("%s: %s", pap_mode_name(mode), err);
	pap_plan_free(plan);
	free(walk);
	return res;
}

/* Walk text: @prefix, then @body repeated @n times, then @suffix. */
static char *repeat_walk(const char *prefix, const char *body, size_t n,
			 const char *suffix)
{
	size_t len = strlen(prefix) + n * (strlen(body) + 1) +
		     strlen(suffix) + 3;
	char *s = malloc(len), *p = s;
	size_t i;

	assert_non_null(s);
	p += sprintf(p, "%s ", prefix);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s ", body);
	sprintf(p, "%s", suffix);
	return s;
}

static const char fig2a[] =
	"# seed 000 Fig. 2(a): B has in-edges AB, CB and the back edge GB\n"
	"blocks A B C D E F G H\n"
	"entry A\n"
	"edge A B\nedge A C\nedge C B\n"
	"edge B D\nedge B E\nedge D F\nedge E F\n"
	"edge F G\nedge G B\nedge G H\n"
	"return H\n";

/* test_paper_fig2a: three in-edges at the header, index 0 not on GB,
 * short and breakpoint-forcing long walks decode exactly. */
static void test_paper_fig2a(void **state)
{
	struct pap_cfgtext t;
	struct pap_plan *plan;
	uint32_t b, k, i;
	char *w;

	(void)state;
	parse(fig2a, &t);
	b = pap_cfgtext_block(&t, "B");
	assert_int_equal(pap_cfg_fanin(t.cfg, b), 3);
	assert_int_equal(pap_plan_build(t.cfg, PAP_MODE_PAP, NULL, &plan), 0);
	for (k = t.cfg->in_off[b]; k < t.cfg->in_off[b + 1]; k++) {
		const struct pap_edge *e = &t.cfg->edges[t.cfg->in_edge[k]];

		if (!strcmp(pap_cfgtext_name(&t, e->src), "G"))
			assert_true(e->flags & PAP_EF_BACK);
	}
	assert_false(t.cfg->edges[plan->in_index[t.cfg->in_off[b]]].flags &
		     PAP_EF_BACK);
	pap_plan_free(plan);
	for (i = 0; i < 3; i++) {
		struct tl_result r;

		check_named_walk(&t, all_modes[i], "A B D F G H");
		check_named_walk(&t, all_modes[i], "A C B E F G B D F G H");
		w = repeat_walk("A C B", "D F G B E F G B", 500, "D F G H");
		r = check_named_walk(&t, all_modes[i], w);
		if (all_modes[i] != PAP_MODE_EPP)
			assert_true(r.nbreakpoints > 10);
		free(w);
	}
	pap_cfgtext_free(&t);
}

static const char fig2b[] =
	"# seed 000 Fig. 2(b): an irreducible loop entered at B and at C\n"
	"blocks A B C D\n"
	"edge A B\nedge A C\nedge B C\nedge C B\nedge B D\nedge C D\n"
	"return D\n";

/* test_paper_irreducible: two headers; paths entering either way. */
static void test_paper_irreducible(void **state)
{
	struct pap_cfgtext t;
	struct pap_loop_nest nest;
	size_t i;
	char *w;

	(void)state;
	parse(fig2b, &t);
	assert_int_equal(pap_loops_find(t.cfg, &nest), 0);
	assert_int_equal(nest.nloops, 1);
	assert_int_equal(nest.loops[0].nheaders, 2);
	assert_false(nest.reducible);
	pap_loops_free(&nest);
	for (i = 0; i < 3; i++) {
		check_named_walk(&t, all_modes[i], "A B D");
		check_named_walk(&t, all_modes[i], "A C B C B C D");
		w = repeat_walk("A B", "C B", 3000, "C D");
		check_named_walk(&t, all_modes[i], w);
		free(w);
		w = repeat_walk("A C", "B C", 3000, "D");
		check_named_walk(&t, all_modes[i], w);
		free(w);
	}
	pap_cfgtext_free(&t);
}

static const char fig2c[] =
	"# seed 000 Fig. 2(c): B has in-edges AB and the back edge CB;\n"
	"# C has the single in-edge BC.  Index 0 on CB would lose the loop.\n"
	"blocks A B C D\n"
	"edge A B\nedge B C\nedge C B\nedge B D\n"
	"return D\n";

/* test_paper_fig2c_index0: index 0 is AB, and 10^5 iterations of the
 * B C loop (thousands of breakpoints) decode exactly. */
static void test_paper_fig2c_index0(void **state)
{
	struct pap_cfgtext t;
	struct pap_plan *plan;
	struct tl_result r;
	uint32_t b;
	size_t i;
	char *w;

	(void)state;
	parse(fig2c, &t);
	b = pap_cfgtext_block(&t, "B");
	assert_int_equal(pap_plan_build(t.cfg, PAP_MODE_PAP, NULL, &plan), 0);
	assert_string_equal(pap_cfgtext_name(&t, t.cfg->edges[
		plan->in_index[t.cfg->in_off[b]]].src), "A");
	pap_plan_free(plan);
	w = repeat_walk("A B", "C B", 100000, "D");
	for (i = 0; i < 3; i++) {
		r = check_named_walk(&t, all_modes[i], w);
		if (all_modes[i] == PAP_MODE_PAP)
			assert_true(r.nbreakpoints >= 100000 / 64);
	}
	free(w);
	pap_cfgtext_free(&t);
}

/* test_paper_self_loop: a block that loops on itself. */
static void test_paper_self_loop(void **state)
{
	struct pap_cfgtext t;
	size_t i, n;
	char *w;

	(void)state;
	parse("blocks A B C\nedge A B\nedge B B\nedge B C\nreturn C\n", &t);
	for (i = 0; i < 3; i++) {
		for (n = 0; n < 200; n += 37) {
			w = repeat_walk("A B", "B", n, "C");
			check_named_walk(&t, all_modes[i], w);
			free(w);
		}
	}
	pap_cfgtext_free(&t);
}

/* test_paper_switch1000: a 1000-way switch in a loop: fan-out and fan-in
 * of 1000, every case taken, in every mode. */
static void test_paper_switch1000(void **state)
{
	enum { NCASE = 1000 };
	struct pap_cfg *cfg = pap_cfg_new(NCASE + 4);
	uint32_t head = 0, sw = 1, join = NCASE + 2, out = NCASE + 3;
	uint32_t *walk, i, m;
	size_t len = 0;
	char why[256];

	(void)state;
	assert_non_null(cfg);
	pap_cfg_add_edge(cfg, head, sw, PAP_EDGE_NORMAL);
	for (i = 0; i < NCASE; i++) {
		pap_cfg_add_edge(cfg, sw, 2 + i, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 2 + i, join, PAP_EDGE_NORMAL);
	}
	pap_cfg_add_edge(cfg, join, sw, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, join, out, PAP_EDGE_NORMAL);
	pap_cfg_mark_return(cfg, out);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	assert_int_equal(pap_cfg_fanin(cfg, join), NCASE);
	walk = malloc((3 * NCASE + 8) * sizeof(uint32_t));
	assert_non_null(walk);
	walk[len++] = tl_edge(cfg, cfg->entry, head);
	walk[len++] = tl_edge(cfg, head, sw);
	for (i = 0; i < NCASE; i++) {
		uint32_t c = 2 + (i * 7919) % NCASE;	/* every case once */

		walk[len++] = tl_edge(cfg, sw, c);
		walk[len++] = tl_edge(cfg, c, join);
		walk[len++] = tl_edge(cfg, join, i + 1 < NCASE ? sw : out);
	}
	walk[len++] = tl_edge(cfg, out, cfg->exit);
	for (m = 0; m < 3; m++) {
		struct pap_plan *plan;

		assert_int_equal(pap_plan_build(cfg, all_modes[m], NULL, &plan),
				 0);
		if (tl_check_walk(plan, walk, len, NULL, why, sizeof(why)))
			fail_msg("%s: %s", pap_mode_name(all_modes[m]), why);
		pap_plan_free(plan);
	}
	free(walk);
	pap_cfg_free(cfg);
}

static void last_count(void *ctx, uint64_t id)
{
	*(uint64_t *)ctx = id;
}

/* Enumerates every ENTRY->EXIT path of a DAG, running each through the
 * EPP plan; the ids must be exactly 0..N-1, each once. */
static void check_dense(struct pap_cfg *cfg)
{
	struct pap_plan *plan;
	uint32_t *stack, *next, depth = 0;
	uint8_t *seen;
	uint64_t npaths = 0;

	assert_int_equal(pap_plan_build(cfg, PAP_MODE_EPP, NULL, &plan), 0);
	assert_true(plan->start_count <= 1u << 20);
	seen = calloc(plan->start_count, 1);
	stack = malloc(cfg->nnodes * sizeof(uint32_t));
	next = malloc(cfg->nnodes * sizeof(uint32_t));
	assert_true(seen && stack && next);
	/* depth-first over out-edges; stack holds the edges taken */
	next[0] = cfg->out_off[cfg->entry];
	for (;;) {
		uint32_t v = depth ? cfg->edges[stack[depth - 1]].dst :
				     cfg->entry;

		if (v == cfg->exit) {
			struct pap_exec_state st = { 0, 0 };
			uint64_t id = UINT64_MAX;
			struct pap_exec_sink sink = { NULL, NULL, last_count,
						      &id };
			uint32_t i;

			for (i = 0; i < depth; i++)
				pap_exec_edge(plan, &st, stack[i], &sink);
			assert_true(id < plan->start_count);
			assert_false(seen[id]);
			seen[id] = 1;
			npaths++;
			goto pop;
		}
		if (next[depth] < cfg->out_off[v + 1]) {
			uint32_t e = cfg->out_edge[next[depth]++];

			stack[depth++] = e;
			next[depth] = cfg->out_off[cfg->edges[e].dst];
			continue;
		}
pop:
		if (depth == 0)
			break;
		depth--;
	}
	assert_int_equal(npaths, plan->start_count);
	free(seen);
	free(stack);
	free(next);
	pap_plan_free(plan);
}

/* test_paper_bl_dense: chains of diamonds (2^k paths) and random DAGs
 * get Ball-Larus ids that are dense and unique. */
static void test_paper_bl_dense(void **state)
{
	struct tl_rng g = { 42 };
	uint32_t k, i;

	(void)state;
	for (k = 1; k <= 12; k++) {
		struct pap_cfg *cfg = pap_cfg_new(3 * k + 1);

		for (i = 0; i < k; i++) {
			pap_cfg_add_edge(cfg, 3 * i, 3 * i + 1,
					 PAP_EDGE_NORMAL);
			pap_cfg_add_edge(cfg, 3 * i, 3 * i + 2,
					 PAP_EDGE_NORMAL);
			pap_cfg_add_edge(cfg, 3 * i + 1, 3 * i + 3,
					 PAP_EDGE_NORMAL);
			pap_cfg_add_edge(cfg, 3 * i + 2, 3 * i + 3,
					 PAP_EDGE_NORMAL);
		}
		pap_cfg_mark_return(cfg, 3 * k);
		assert_int_equal(pap_cfg_finish(cfg), 0);
		pap_cfg_estimate_weights(cfg);
		check_dense(cfg);
		pap_cfg_free(cfg);
	}
	for (i = 0; i < 300; i++) {
		struct tl_cfg_params p = { 0 };
		struct pap_cfg *cfg;

		p.nblocks = 1 + (uint32_t)tl_below(&g, 14);
		p.extra_edges = (uint32_t)tl_below(&g, 2 * p.nblocks);
		p.parallel = (uint32_t)tl_below(&g, 3);
		p.forward_only = 1;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		check_dense(cfg);
		pap_cfg_free(cfg);
	}
}

/* test_paper_loop_body_radix: pap-epp numbers each loop body on its own
 * (loop bodies first): the back edge's radix counts the body's paths, not
 * the paths that led to the loop. */
static void test_paper_loop_body_radix(void **state)
{
	struct pap_cfgtext t;
	struct pap_plan *plan;
	uint32_t back, k;

	(void)state;
	/* four paths reach the loop through two diamonds; the body has one */
	parse("blocks A X Y J P Q K H B L E\n"
	      "edge A X\nedge A Y\nedge X J\nedge Y J\n"
	      "edge J P\nedge J Q\nedge P K\nedge Q K\nedge K H\n"
	      "edge H B\nedge B L\nedge L H\nedge H E\nreturn E\n", &t);
	back = tl_edge(t.cfg, pap_cfgtext_block(&t, "L"),
		       pap_cfgtext_block(&t, "H"));
	assert_true(t.cfg->edges[back].flags & PAP_EF_BACK);
	assert_int_equal(pap_plan_build(t.cfg, PAP_MODE_PAP_EPP, NULL, &plan),
			 0);
	for (k = plan->op_off[back]; k < plan->op_off[back + 1]; k++)
		if (plan->ops[k].kind == PAP_OP_FOLD)
			/* paths ending at L: from the loop entry, from the
			 * back edge; 5 if the four prefix paths counted */
			assert_int_equal(plan->ops[k].n, 2);
	check_named_walk(&t, PAP_MODE_PAP_EPP, "A Y J Q K H B L H B L H E");
	pap_plan_free(plan);
	pap_cfgtext_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_fig2a),
		cmocka_unit_test(test_paper_irreducible),
		cmocka_unit_test(test_paper_fig2c_index0),
		cmocka_unit_test(test_paper_self_loop),
		cmocka_unit_test(test_paper_switch1000),
		cmocka_unit_test(test_paper_bl_dense),
		cmocka_unit_test(test_paper_loop_body_radix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
