/* SPDX-License-Identifier: MIT */
/*
 * test_kipf.c - the k-IPF built through the k-slab forest against a
 * brute-force k-gram counter, and Ball-Larus stream extraction against
 * path regeneration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blstream.h"
#include "kipf.h"
#include "testlib.h"

#define MAXK 8

/* The brute-force side: every distinct gram, counted by scanning. */
struct gram {
	uint64_t id[MAXK];
	uint32_t len;
	uint64_t count;
};

struct grams {
	struct gram *g;
	size_t n, cap;
};

static void grams_add(struct grams *gs, const uint64_t *ids, uint32_t len,
		      uint64_t w)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (gs->g[i].len == len &&
		    !memcmp(gs->g[i].id, ids, len * sizeof(*ids))) {
			gs->g[i].count += w;
			return;
		}
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? 2 * gs->cap : 256;
		gs->g = realloc(gs->g, gs->cap * sizeof(*gs->g));
		assert_non_null(gs->g);
	}
	memset(&gs->g[gs->n], 0, sizeof(gs->g[0]));
	memcpy(gs->g[gs->n].id, ids, len * sizeof(*ids));
	gs->g[gs->n].len = len;
	gs->g[gs->n++].count = w;
}

/* Every k-IPF node must be a gram with the brute-force count; returns
 * the number of nodes seen. */
static size_t check_subtree(const struct pap_forest *f, uint32_t v,
			    uint64_t *path, uint32_t depth,
			    const struct grams *gs)
{
	size_t i, seen = 1;
	uint32_t c;

	path[depth] = f->nodes[v].label;
	for (i = 0; i < gs->n; i++)
		if (gs->g[i].len == depth + 1 &&
		    !memcmp(gs->g[i].id, path, (depth + 1) * sizeof(*path)))
			break;
	if (i == gs->n)
		fail_msg("k-IPF node of depth %u is no gram", depth + 1);
	assert_int_equal(f->nodes[v].count, gs->g[i].count);
	assert_int_equal(f->nodes[v].depth, depth + 1);
	for (c = f->nodes[v].child; c; c = f->nodes[c].sibling)
		seen += check_subtree(f, c, path, depth + 1, gs);
	return seen;
}

/* test_kipf_random_streams: 400 random streams (activations of random
 * length over small and large alphabets, random weights), k = 1..7: the
 * k-IPF holds exactly the grams of length <= k, with their counts. */
static void test_kipf_random_streams(void **state)
{
	struct tl_rng g = { 99 };
	int round;

	(void)state;
	for (round = 0; round < 400; round++) {
		uint32_t k = 1 + (uint32_t)tl_below(&g, 7);
		uint64_t alpha = 1 + tl_below(&g, round % 3 ? 4 : 40);
		size_t nact = 1 + tl_below(&g, 12), a, i, p, nodes = 0;
		struct pap_kslab ks;
		struct pap_forest ipf;
		struct grams gs = { NULL, 0, 0 };
		uint64_t path[MAXK], *roots;
		uint32_t r;

		pap_kslab_init(&ks, k);
		pap_forest_init(&ipf);
		for (a = 0; a < nact; a++) {
			size_t len = tl_below(&g, 40);
			uint64_t w = 1 + tl_below(&g, 3), s[40];
			uint32_t m;

			for (i = 0; i < len; i++) {
				s[i] = tl_below(&g, alpha) * 1000003;
				assert_int_equal(pap_kslab_item(&ks, s[i], w),
						 0);
			}
			pap_kslab_marker(&ks);
			for (p = 0; p < len; p++)
				for (m = 1; m <= k && p + m <= len; m++)
					grams_add(&gs, s + p, m, w);
		}
		assert_int_equal(pap_kslab_to_kipf(&ks, &ipf), 0);
		roots = (uint64_t *)pap_forest_roots(&ipf);
		for (r = 0; r < ipf.nroots; r++)
			nodes += check_subtree(&ipf, ((uint32_t *)roots)[r],
					       path, 0, &gs);
		if (nodes != gs.n)
			fail_msg("round %d k %u: k-IPF has %zu nodes, %zu "
				 "distinct grams", round, k, nodes, gs.n);
		free(roots);
		free(gs.g);
		pap_forest_free(&ipf);
		pap_kslab_free(&ks);
	}
}

struct split_check {
	const struct pap_plan *bl;
	const uint32_t *walk;
	size_t next;		/* walk index the next piece must start at */
	size_t pieces;
};

/* Each piece regenerates (pap_decode_bl) into exactly the walk's edges
 * it claims, and pieces tile the walk with a fold edge between them. */
static int split_emit(void *ctx, uint64_t id, size_t first, size_t n)
{
	struct split_check *sc = ctx;
	struct pap_path p;
	size_t i;

	assert_int_equal(first, sc->next);
	pap_path_init(&p);
	assert_int_equal(pap_decode_bl(sc->bl, id, &p), 0);
	assert_int_equal(p.len, n);
	for (i = 0; i < n; i++)
		assert_int_equal(p.edges[i], sc->walk[first + i]);
	if (first)
		assert_int_equal(p.start_fold, sc->walk[first - 1]);
	else
		assert_int_equal(p.start_fold, PAP_NONE);
	pap_path_free(&p);
	sc->next = first + n + 1;
	sc->pieces++;
	return 0;
}

/* test_kipf_bl_split_regenerates: on 2000 random graphs (loops,
 * irreducible ones, setjmp-like resumes and cuts), random walks split into
 * Ball-Larus ids that regenerate into the walk, piece by piece. */
static void test_kipf_bl_split_regenerates(void **state)
{
	struct tl_rng g = { 4242 };
	int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		struct tl_cfg_params prm;
		struct pap_cfg *cfg;
		struct pap_plan *bl;
		struct split_check sc;
		uint32_t *walk;
		size_t len;

		tl_random_params(&g, &prm);
		cfg = tl_random_cfg(&g, &prm);
		assert_non_null(cfg);
		if (pap_plan_build(cfg, PAP_MODE_EPP, NULL, &bl)) {
			pap_cfg_free(cfg);
			continue;
		}
		assert_int_equal(tl_random_walk(&g, cfg, tl_below(&g, 200),
						&walk, &len), 0);
		sc = (struct split_check){ bl, walk, 0, 0 };
		assert_int_equal(pap_bl_split(bl, walk, len, split_emit, &sc),
				 0);
		assert_int_equal(sc.next, len + 1);
		/* a path that is not one of the graph's is refused */
		if (len > 1) {
			walk[len - 1] = walk[0];
			sc = (struct split_check){ bl, walk, 0, 0 };
			assert_int_equal(pap_bl_split(bl, walk, len,
						      split_emit, &sc),
					 PAP_ECORRUPT);
		}
		free(walk);
		pap_plan_free(bl);
		pap_cfg_free(cfg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kipf_random_streams),
		cmocka_unit_test(test_kipf_bl_split_regenerates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
