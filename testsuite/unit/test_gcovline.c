/* SPDX-License-Identifier: MIT */
/*
 * test_gcovline.c - line counts as gcov defines them, on small graphs
 * whose counts follow from the definition by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfgtext.h"
#include "gcovline.h"

/* A line reaches at most this number in these tests. */
#define NLINES 16

/* Sets the executions of edge @from -> @to (block names; "ENTRY",
 * "EXIT" for the virtual nodes) to @n. */
static void set_edge(const struct pap_cfgtext *g, uint64_t *edge,
		     const char *from, const char *to, uint64_t n)
{
	const struct pap_cfg *cfg = g->cfg;
	uint32_t s = strcmp(from, "ENTRY") ? pap_cfgtext_block(g, from) :
		     cfg->entry;
	uint32_t d = strcmp(to, "EXIT") ? pap_cfgtext_block(g, to) :
		     cfg->exit;
	uint32_t e;

	for (e = 0; e < cfg->nedges; e++)
		if (cfg->edges[e].src == s && cfg->edges[e].dst == d) {
			edge[e] = n;
			return;
		}
	fail_msg("no edge %s -> %s", from, to);
}

/* Each block's executions: the sum of its in-edges'. */
static void block_counts(const struct pap_cfg *cfg, const uint64_t *edge,
			 uint64_t *block)
{
	uint32_t e;

	memset(block, 0, cfg->nnodes * sizeof(*block));
	for (e = 0; e < cfg->nedges; e++)
		block[cfg->edges[e].dst] += edge[e];
}

/*
 * test_one_line_loop: "for (i = 0; i < n; i++) s += i;" on line 6 after
 * line 5, run once with 10 turns: b1 [4 5], b2 [6] the test, b3 [6] the
 * body, b4 [7].  Line 6 counts its entry and its 10 turns (11, where the
 * sum of its blocks is 21); line 4 is carried by b1 without owning it.
 */
static void test_one_line_loop(void **state)
{
	static const char text[] = "blocks b1 b2 b3 b4\nentry b1\n"
		"edge b1 b2\nedge b2 b3\nedge b3 b2\nedge b2 b4\nreturn b4\n";
	static const uint32_t l1[] = { 2, 4, 5 }, l2[] = { 1, 6 },
			      l3[] = { 1, 6 }, l4[] = { 1, 7 };
	const uint32_t *lines[4] = { l1, l2, l3, l4 };
	struct pap_cfgtext g;
	uint64_t edge[16] = { 0 }, block[8], count[NLINES] = { 0 };
	char err[128];

	(void)state;
	assert_int_equal(pap_cfgtext_parse(text, "t", &g, err, sizeof(err)),
			 0);
	set_edge(&g, edge, "ENTRY", "b1", 1);
	set_edge(&g, edge, "b1", "b2", 1);
	set_edge(&g, edge, "b2", "b3", 10);
	set_edge(&g, edge, "b3", "b2", 10);
	set_edge(&g, edge, "b2", "b4", 1);
	set_edge(&g, edge, "b4", "EXIT", 1);
	block_counts(g.cfg, edge, block);
	assert_int_equal(pap_gcov_line_counts(g.cfg, lines, NULL, 0, block,
					      edge, NLINES, count), 0);
	assert_int_equal(count[4], 1);
	assert_int_equal(count[5], 1);
	assert_int_equal(count[6], 11);
	assert_int_equal(count[7], 1);
	assert_int_equal(count[3], 0);
	pap_cfgtext_free(&g);
}

/*
 * test_loop_header: a for header on line 3 (b1 init [2 3], b2 test [3],
 * b4 step [3]) around a body on line 4 (b3), 5 turns, twice: line 3 is
 * entered from the caller's line and back from line 4, 2 + 10 = 12
 * times, never round a cycle of its own (the loop passes line 4).
 */
static void test_loop_header(void **state)
{
	static const char text[] = "blocks b1 b2 b3 b4 b5\nentry b1\n"
		"edge b1 b2\nedge b2 b3\nedge b3 b4\nedge b4 b2\n"
		"edge b2 b5\nreturn b5\n";
	static const uint32_t l1[] = { 2, 2, 3 }, l2[] = { 1, 3 },
			      l3[] = { 1, 4 }, l4[] = { 1, 3 },
			      l5[] = { 1, 5 };
	const uint32_t *lines[5] = { l1, l2, l3, l4, l5 };
	struct pap_cfgtext g;
	uint64_t edge[16] = { 0 }, block[8], count[NLINES] = { 0 };
	char err[128];

	(void)state;
	assert_int_equal(pap_cfgtext_parse(text, "t", &g, err, sizeof(err)),
			 0);
	set_edge(&g, edge, "ENTRY", "b1", 2);
	set_edge(&g, edge, "b1", "b2", 2);
	set_edge(&g, edge, "b2", "b3", 10);
	set_edge(&g, edge, "b3", "b4", 10);
	set_edge(&g, edge, "b4", "b2", 10);
	set_edge(&g, edge, "b2", "b5", 2);
	set_edge(&g, edge, "b5", "EXIT", 2);
	block_counts(g.cfg, edge, block);
	assert_int_equal(pap_gcov_line_counts(g.cfg, lines, NULL, 0, block,
					      edge, NLINES, count), 0);
	assert_int_equal(count[2], 2);
	assert_int_equal(count[3], 12);
	assert_int_equal(count[4], 10);
	assert_int_equal(count[5], 2);
	pap_cfgtext_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_line_loop),
		cmocka_unit_test(test_loop_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
