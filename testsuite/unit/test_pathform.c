/* SPDX-License-Identifier: MIT */
/*
 * test_pathform.c - a path in its packed form (pathform.h) against the
 * path itself.
 *
 * Walks of nested loops on random graphs (1 to 50 ways around a loop,
 * periodic and aperiodic stretches, an inner loop repeated inside an
 * outer one) are run through the plan's probes (pap_exec_edge), their
 * breakpoints packed, and the form built from the packing.  Everything a
 * report needs is then computed from the form and by brute force over the
 * walk, and must agree: the edges, the block and line counts, the length,
 * the Ball-Larus ids and their k-gram counts for k = 1..4.  Damaged
 * records must fail exactly when pap_decode_path() fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blstream.h"
#include "bpack.h"
#include "pathform.h"
#include "testlib.h"

struct vec {
	uint32_t *v;
	size_t n, cap;
};

static void vput(struct vec *w, uint32_t e)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		assert_non_null(w->v);
	}
	w->v[w->n++] = e;
}

/* Distances to @target over real edges (edges into EXIT only when it is
 * the target); PAP_NONE where it cannot be reached. */
static uint32_t *dist_to(const struct pap_cfg *cfg, uint32_t target)
{
	uint32_t *d = malloc(cfg->nnodes * sizeof(*d));
	uint32_t *q = malloc(cfg->nnodes * sizeof(*q)), h = 0, t = 0, i, k;

	assert_true(d && q);
	for (i = 0; i < cfg->nnodes; i++)
		d[i] = PAP_NONE;
	d[target] = 0;
	q[t++] = target;
	while (h < t) {
		uint32_t v = q[h++];

		for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++) {
			const struct pap_edge *e = &cfg->edges[cfg->in_edge[k]];

			if (e->kind == PAP_EDGE_FAKE || d[e->src] != PAP_NONE ||
			    e->src == cfg->entry)
				continue;
			d[e->src] = d[v] + 1;
			q[t++] = e->src;
		}
	}
	free(q);
	return d;
}

/* A random real edge out of @v to a block from which @a and @b (if
 * given) can be reached; PAP_NONE if there is none. */
static uint32_t step(struct tl_rng *g, const struct pap_cfg *cfg, uint32_t v,
		     const uint32_t *a, const uint32_t *b)
{
	uint32_t k, ok = 0, pick = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
			const struct pap_edge *e = &cfg->edges[cfg->out_edge[k]];

			if (e->kind == PAP_EDGE_FAKE || e->dst >= cfg->nblocks ||
			    a[e->dst] == PAP_NONE ||
			    (b && b[e->dst] == PAP_NONE))
				continue;
			if (pass == 0)
				ok++;
			else if (pick-- == 0)
				return cfg->out_edge[k];
		}
		if (!ok)
			return PAP_NONE;
		pick = (uint32_t)tl_below(g, ok);
	}
	return PAP_NONE;
}

/* The shortest way from @v to the node @d measures to, appended. */
static uint32_t go_to(const struct pap_cfg *cfg, uint32_t v, const uint32_t *d,
		      struct vec *w)
{
	while (d[v]) {
		uint32_t k;

		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
			const struct pap_edge *e = &cfg->edges[cfg->out_edge[k]];

			if (e->kind != PAP_EDGE_FAKE && d[e->dst] != PAP_NONE &&
			    d[e->dst] + 1 == d[v])
				break;
		}
		vput(w, cfg->out_edge[k]);
		v = cfg->edges[cfg->out_edge[k]].dst;
	}
	return v;
}

/* A closed walk from @h back to @h, or an empty one if none is found. */
static void cycle_at(struct tl_rng *g, const struct pap_cfg *cfg, uint32_t h,
		     const uint32_t *dh, const uint32_t *dx, struct vec *c)
{
	uint32_t v = h, n = 1 + (uint32_t)tl_below(g, 8), e;

	c->n = 0;
	do {
		e = step(g, cfg, v, dh, dx);
		if (e == PAP_NONE) {
			c->n = 0;
			return;
		}
		vput(c, e);
		v = cfg->edges[e].dst;
	} while (--n && v != h);
	if (v != h)
		go_to(cfg, v, dh, c);
}

static void append(struct vec *w, const struct vec *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		vput(w, c->v[i]);
}

/*
 * A walk of about @target edges: a random start, a loop at a block with
 * 1 to 50 ways around it taken in periodic and aperiodic stretches, an
 * inner loop repeated inside the first way, and the shortest way out.
 */
static void loop_walk(struct tl_rng *g, const struct pap_cfg *cfg,
		      size_t target, struct vec *w)
{
	uint32_t *dx = dist_to(cfg, cfg->exit), *dh = NULL, *du = NULL;
	uint32_t v = cfg->entry, e, h = PAP_NONE, u = PAP_NONE;
	struct vec cyc[50], inner[5];
	uint32_t ncyc = 0, ninner = 0, i, at = 0, tries;
	uint64_t inner_reps = 1 + tl_below(g, 20);
	int inner_varies = tl_below(g, 2);

	memset(cyc, 0, sizeof(cyc));
	memset(inner, 0, sizeof(inner));
	w->n = 0;
	/* the ENTRY edge, then a few random steps */
	vput(w, cfg->out_edge[cfg->out_off[cfg->entry]]);
	v = cfg->edges[w->v[0]].dst;
	for (tries = 0; tries < 40 && h == PAP_NONE; tries++) {
		free(dh);
		dh = dist_to(cfg, v);
		if (step(g, cfg, v, dh, dx) != PAP_NONE) {
			h = v;
			break;
		}
		e = step(g, cfg, v, dx, NULL);
		if (e == PAP_NONE)
			break;
		vput(w, e);
		v = cfg->edges[e].dst;
	}
	if (h != PAP_NONE) {
		uint32_t want = 1 + (uint32_t)tl_below(g, 50);

		for (i = 0; i < 4 * want && ncyc < want; i++) {
			cycle_at(g, cfg, h, dh, dx, &cyc[ncyc]);
			ncyc += cyc[ncyc].n > 0;
		}
	}
	if (ncyc && cyc[0].n > 1) {
		at = (uint32_t)tl_below(g, cyc[0].n);
		u = cfg->edges[cyc[0].v[at]].dst;
		du = dist_to(cfg, u);
		for (i = 0; i < 5 && ninner < 1 + tl_below(g, 5); i++) {
			cycle_at(g, cfg, u, du, dx, &inner[ninner]);
			ninner += inner[ninner].n > 0;
		}
	}
	while (ncyc && w->n < target) {
		int periodic = tl_below(g, 3) != 0;
		uint32_t period = 1 + (uint32_t)tl_below(g, ncyc), pat[50];
		uint64_t reps = 1 + tl_below(g, 2000), r, k;

		for (i = 0; i < period; i++)
			pat[i] = (uint32_t)tl_below(g, ncyc);
		for (r = 0; r < reps && w->n < target; r++)
			for (i = 0; i < period; i++) {
				uint32_t c = periodic ? pat[i] :
					(uint32_t)tl_below(g, ncyc);
				uint64_t in = inner_varies ?
					tl_below(g, inner_reps + 1) : inner_reps;

				if (c || !ninner) {
					append(w, &cyc[c]);
					continue;
				}
				/* the first way, with the inner loop at u */
				for (k = 0; k <= at; k++)
					vput(w, cyc[0].v[k]);
				for (k = 0; k < in; k++)
					append(w, &inner[k % ninner]);
				for (k = at + 1; k < cyc[0].n; k++)
					vput(w, cyc[0].v[k]);
			}
	}
	go_to(cfg, cfg->edges[w->v[w->n - 1]].dst, dx, w);
	for (i = 0; i < 50; i++)
		free(cyc[i].v);
	for (i = 0; i < 5; i++)
		free(inner[i].v);
	free(dx);
	free(dh);
	free(du);
}

/* The edges @form stands for, expanded (the oracle's side only). */
static void expand(const struct pap_pieces *pc, const struct pap_rseq *form,
		   struct vec *out)
{
	uint64_t i;
	uint32_t len, k;

	out->n = 0;
	for (i = 0; i < form->len; i++) {
		const uint32_t *e = pap_piece_edges(pc, pap_rseq_get(form, i),
						    &len);

		for (k = 0; k < len; k++)
			vput(out, e[k]);
	}
}

struct gram {
	uint64_t v[4];
	uint64_t count;
};

static int gram_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(((struct gram *)0)->v));
}

struct grams {
	struct gram *g;
	size_t n, cap;
};

static int gram_put(void *ctx, const uint64_t *run, uint32_t k,
		    uint64_t count)
{
	struct grams *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->g = realloc(s->g, s->cap * sizeof(*s->g));
		assert_non_null(s->g);
	}
	memset(&s->g[s->n], 0, sizeof(s->g[0]));
	memcpy(s->g[s->n].v, run, k * sizeof(*run));
	s->g[s->n++].count = count;
	return 0;
}

/* The k-gram counts of @ids by sorting every run. */
static void brute_grams(const uint64_t *ids, size_t n, uint32_t k,
			struct grams *out)
{
	struct grams all = { NULL, 0, 0 };
	size_t i, j;

	out->n = 0;
	for (i = 0; i + k <= n; i++)
		gram_put(&all, ids + i, k, 1);
	if (all.n)
		qsort(all.g, all.n, sizeof(*all.g), gram_cmp);
	for (i = 0; i < all.n; i = j) {
		for (j = i + 1; j < all.n && !gram_cmp(&all.g[i], &all.g[j]);
		     j++)
			;
		gram_put(out, all.g[i].v, k, j - i);
	}
	free(all.g);
}

struct idv {
	uint64_t *v;
	size_t n, cap;
};

static int id_put(void *ctx, uint64_t id, size_t first, size_t n)
{
	struct idv *s = ctx;

	(void)first;
	(void)n;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n++] = id;
	return 0;
}

struct totals {
	unsigned long long walks, edges, bps, packed, items, pieces;
	unsigned long long longest, grams_checked, damaged, damaged_failed;
};

/* Everything computed from the form of @walk under @plan against the
 * walk itself. */
static void check_walk(const struct pap_plan *plan, const struct pap_plan *bl,
		       const struct vec *walk, const uint32_t *const *lines,
		       uint32_t maxline, const char *ctx, struct totals *t)
{
	const struct pap_cfg *cfg = plan->cfg;
	struct pap_activation act;
	struct pap_exec_sink sink = pap_activation_sink(&act);
	struct pap_exec_state st = { 0, 0 };
	struct pap_bpack_buf pb = { 0 };
	struct pap_pieces pc;
	struct pap_rseq form, ids;
	struct pap_memo *memo = pap_memo_new(1 << 16);
	const struct pap_breakpoint *packed;
	struct vec ex = { NULL, 0, 0 };
	uint64_t *w, *bc, *bbrute, *lc, *lbrute, n = 0;
	size_t np, i;
	uint32_t k, len, b;
	int err;

	pap_activation_init(&act);
	for (i = 0; i < walk->n; i++)
		pap_exec_edge(plan, &st, walk->v[i], &sink);
	assert_int_equal(act.nrecords, 1);
	np = act.nbps;
	packed = np ? pap_bpack_into(&pb, act.bps, &np) : act.bps;
	assert_true(packed || !np);
	pap_pieces_init(&pc);
	pap_rseq_init(&form);
	pap_rseq_init(&ids);
	err = pap_pathform_build(plan, memo, &pc, packed, np, act.final,
				 &form);
	if (err)
		fail_msg("%s: form not built: %s", ctx, pap_strerror(err));
	t->walks++;
	t->edges += walk->n;
	t->bps += act.nbps;
	t->packed += np;
	t->items += form.n;
	t->pieces += pc.n;
	if (walk->n > t->longest)
		t->longest = walk->n;
	/* the edges */
	expand(&pc, &form, &ex);
	if (ex.n != walk->n || memcmp(ex.v, walk->v, ex.n * sizeof(*ex.v)))
		fail_msg("%s: the form stands for %zu edges, the walk has %zu",
			 ctx, ex.n, walk->n);
	/* block counts and length from the weights */
	w = calloc(form.n + 1, sizeof(*w));
	bc = calloc(cfg->nnodes, sizeof(*bc));
	bbrute = calloc(cfg->nnodes, sizeof(*bbrute));
	lc = calloc(maxline + 1, sizeof(*lc));
	lbrute = calloc(maxline + 1, sizeof(*lbrute));
	assert_true(w && bc && bbrute && lc && lbrute);
	assert_int_equal(pap_rseq_weights(&form, w), 0);
	for (i = 0; i < form.n; i++) {
		const uint32_t *e;

		if (form.it[i].dist)
			continue;
		e = pap_piece_edges(&pc, form.it[i].sym, &len);
		for (k = 0; k < len; k++)
			if (cfg->edges[e[k]].dst < cfg->nblocks) {
				bc[cfg->edges[e[k]].dst] += w[i];
				n += w[i];
			}
	}
	for (i = 0; i < walk->n; i++)
		if (cfg->edges[walk->v[i]].dst < cfg->nblocks)
			bbrute[cfg->edges[walk->v[i]].dst]++;
	for (b = 0; b < cfg->nblocks; b++) {
		if (bc[b] != bbrute[b])
			fail_msg("%s: block %u counted %llu times, walked %llu",
				 ctx, b, (unsigned long long)bc[b],
				 (unsigned long long)bbrute[b]);
		n -= bbrute[b];
		for (k = 0; k < lines[b][0]; k++)
			lc[lines[b][k + 1]] += bc[b];
	}
	assert_int_equal(n, 0);	/* the length is the sum */
	for (i = 0; i < walk->n; i++) {
		uint32_t d = cfg->edges[walk->v[i]].dst;

		if (d < cfg->nblocks)
			for (k = 0; k < lines[d][0]; k++)
				lbrute[lines[d][k + 1]]++;
	}
	for (k = 0; k <= maxline; k++)
		if (lc[k] != lbrute[k])
			fail_msg("%s: line %u: %llu from the form, %llu "
				 "walked", ctx, k, (unsigned long long)lc[k],
				 (unsigned long long)lbrute[k]);
	/* Ball-Larus ids and their k-grams */
	if (bl) {
		struct idv brute = { NULL, 0, 0 };
		struct grams a = { NULL, 0, 0 }, bb = { NULL, 0, 0 };
		uint64_t x;

		assert_int_equal(pap_bl_split(bl, walk->v, walk->n, id_put,
					      &brute), 0);
		err = pap_pathform_bl_ids(bl, &pc, &form, &ids);
		if (err)
			fail_msg("%s: no ids from the form: %s", ctx,
				 pap_strerror(err));
		if (ids.len != brute.n)
			fail_msg("%s: %llu ids from the form, %zu split", ctx,
				 (unsigned long long)ids.len, brute.n);
		for (x = 0; x < ids.len; x++)
			if (pap_rseq_get(&ids, x) != brute.v[x])
				fail_msg("%s: id %llu differs", ctx,
					 (unsigned long long)x);
		for (k = 1; k <= 4; k++) {
			a.n = 0;
			assert_int_equal(pap_rseq_kgrams(&ids, k, gram_put, &a),
					 0);
			if (a.n)
				qsort(a.g, a.n, sizeof(*a.g), gram_cmp);
			brute_grams(brute.v, brute.n, k, &bb);
			if (a.n != bb.n)
				fail_msg("%s: %zu distinct %u-grams from the "
					 "form, %zu", ctx, a.n, k, bb.n);
			for (i = 0; i < a.n; i++)
				if (gram_cmp(&a.g[i], &bb.g[i]) ||
				    a.g[i].count != bb.g[i].count)
					fail_msg("%s: %u-gram %zu: count %llu, "
						 "brute force %llu", ctx, k, i,
						 (unsigned long long)
						 a.g[i].count,
						 (unsigned long long)
						 bb.g[i].count);
			t->grams_checked += a.n;
		}
		free(a.g);
		free(bb.g);
		free(brute.v);
	}
	/* a damaged record fails exactly when decoding it does */
	if (act.nbps) {
		struct pap_path p;
		struct pap_breakpoint *bad = malloc(act.nbps * sizeof(*bad));
		size_t at = (size_t)(walk->n * 2654435761u % act.nbps), nb;
		int e1, e2;

		assert_non_null(bad);
		memcpy(bad, act.bps, act.nbps * sizeof(*bad));
		if (walk->n & 1)
			bad[at].r ^= 1ull << (walk->n % 61);
		else
			bad[at].site = (uint32_t)(walk->n % cfg->nedges);
		pap_path_init(&p);
		e1 = pap_decode_path(plan, bad, act.nbps, act.final, &p);
		nb = act.nbps;
		packed = pap_bpack_into(&pb, bad, &nb);
		assert_non_null(packed);
		e2 = pap_pathform_build(plan, memo, &pc, packed, nb,
					act.final, &form);
		if (e1 != e2)
			fail_msg("%s: damaged record: decoding gives %d, the "
				 "form %d", ctx, e1, e2);
		if (!e2) {
			expand(&pc, &form, &ex);
			assert_int_equal(ex.n, p.len);
			assert_memory_equal(ex.v, p.edges,
					    ex.n * sizeof(*ex.v));
		}
		t->damaged++;
		t->damaged_failed += e1 != 0;
		pap_path_free(&p);
		free(bad);
	}
	free(w);
	free(bc);
	free(bbrute);
	free(lc);
	free(lbrute);
	free(ex.v);
	pap_rseq_free(&form);
	pap_rseq_free(&ids);
	pap_pieces_free(&pc);
	pap_memo_free(memo);
	pap_bpack_buf_free(&pb);
	pap_activation_free(&act);
}

/*
 * test_pathform_walks: on random graphs, walks of nested loops from 10^2
 * to 10^6 edges in PAP and PAP+EPP; every report's quantity from the
 * packed form equals the brute force over the walk.
 */
static void test_pathform_walks(void **state)
{
	unsigned long long seed = 20260301, ngraphs = 120, gi;
	struct totals t;

	(void)state;
	memset(&t, 0, sizeof(t));
	if (getenv("PAP_TEST_SEED"))
		seed = strtoull(getenv("PAP_TEST_SEED"), NULL, 0);
	for (gi = 0; gi < ngraphs; gi++) {
		struct tl_rng g = { seed * 0x9e3779b97f4a7c15ull + gi };
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		struct pap_plan *bl = NULL;
		uint32_t **lines, b, maxline = 40;
		int m, wi;

		tl_random_params(&g, &p);
		p.forward_only = 0;
		p.self_loops += 1;
		p.extra_edges += p.nblocks;
		p.resumes = p.cuts = 0;
		if (p.nblocks > 300)
			p.nblocks = 300;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		lines = malloc(cfg->nblocks * sizeof(*lines));
		assert_non_null(lines);
		for (b = 0; b < cfg->nblocks; b++) {
			uint32_t n = (uint32_t)tl_below(&g, 4), k;

			lines[b] = malloc((n + 1) * sizeof(**lines));
			assert_non_null(lines[b]);
			lines[b][0] = n;
			for (k = 0; k < n; k++)
				lines[b][k + 1] = 1 + (uint32_t)tl_below(&g,
									 maxline);
		}
		if (pap_plan_build(cfg, PAP_MODE_EPP, NULL, &bl))
			bl = NULL;
		for (wi = 0; wi < 3; wi++) {
			struct vec walk = { NULL, 0, 0 };
			size_t target = gi % 40 == 0 && wi == 0 ? 1000000 :
				(size_t)100 << (2 * tl_below(&g, 5));

			loop_walk(&g, cfg, target, &walk);
			for (m = 0; m < 2; m++) {
				enum pap_mode mode = m ? PAP_MODE_PAP_EPP :
							 PAP_MODE_PAP;
				struct pap_plan *plan;
				char ctx[128];

				if (pap_plan_build(cfg, mode, NULL, &plan))
					continue;
				snprintf(ctx, sizeof(ctx),
					 "seed=%llu graph=%llu walk=%d mode=%s",
					 seed, gi, wi, m ? "pap-epp" : "pap");
				check_walk(plan, bl, &walk,
					   (const uint32_t *const *)lines,
					   maxline, ctx, &t);
				pap_plan_free(plan);
			}
			free(walk.v);
		}
		for (b = 0; b < cfg->nblocks; b++)
			free(lines[b]);
		free(lines);
		pap_plan_free(bl);
		pap_cfg_free(cfg);
	}
	print_message("%llu walks, %llu edges (longest %llu), %llu "
		      "breakpoints packed to %llu, forms of %llu items over "
		      "%llu pieces, %llu k-grams checked, %llu damaged records "
		      "(%llu refused)\n", t.walks, t.edges, t.longest, t.bps,
		      t.packed, t.items, t.pieces, t.grams_checked, t.damaged,
		      t.damaged_failed);
}

/*
 * test_pathform_long_body: a loop whose body is a chain of 100 two-way
 * choices overflows r inside an iteration, so some pieces hold no fold
 * edge and a Ball-Larus id spans pieces; iterations repeat with periods
 * of 1 to 5, with aperiodic stretches between.
 */
static void test_pathform_long_body(void **state)
{
	const uint32_t K = 100;
	struct pap_cfg *cfg = pap_cfg_new(3 * K + 2);
	struct pap_plan *bl, *plan;
	struct tl_rng g = { 5 };
	struct totals t;
	uint32_t i, **lines, b;
	int round, m;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_non_null(cfg);
	for (i = 0; i < K; i++) {
		pap_cfg_add_edge(cfg, 3 * i, 3 * i + 1, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 3 * i, 3 * i + 2, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 3 * i + 1, 3 * i + 3, PAP_EDGE_NORMAL);
		pap_cfg_add_edge(cfg, 3 * i + 2, 3 * i + 3, PAP_EDGE_NORMAL);
	}
	pap_cfg_add_edge(cfg, 3 * K, 0, PAP_EDGE_NORMAL);
	pap_cfg_add_edge(cfg, 3 * K, 3 * K + 1, PAP_EDGE_NORMAL);
	pap_cfg_mark_return(cfg, 3 * K + 1);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_estimate_weights(cfg);
	lines = malloc(cfg->nblocks * sizeof(*lines));
	assert_non_null(lines);
	for (b = 0; b < cfg->nblocks; b++) {
		lines[b] = malloc(2 * sizeof(**lines));
		assert_non_null(lines[b]);
		lines[b][0] = 1;
		lines[b][1] = 1 + b % 40;
	}
	assert_int_equal(pap_plan_build(cfg, PAP_MODE_EPP, NULL, &bl), 0);
	for (round = 0; round < 40; round++) {
		struct vec walk = { NULL, 0, 0 };
		uint32_t period = 1 + (uint32_t)tl_below(&g, 5), it, n;
		uint64_t pat[5];

		for (i = 0; i < period; i++)
			pat[i] = tl_next(&g);
		vput(&walk, cfg->out_edge[cfg->out_off[cfg->entry]]);
		n = 10 + (uint32_t)tl_below(&g, 400);
		for (it = 0; it < n; it++) {
			/* an aperiodic iteration now and then */
			uint64_t c = tl_below(&g, 8) ? pat[it % period] :
						       tl_next(&g);

			if (it)
				vput(&walk, tl_edge(cfg, 3 * K, 0));
			for (i = 0; i < K; i++) {
				uint32_t side = 3 * i + 1 + (uint32_t)(c >> (i % 64) & 1);

				vput(&walk, tl_edge(cfg, 3 * i, side));
				vput(&walk, tl_edge(cfg, side, 3 * i + 3));
			}
		}
		vput(&walk, tl_edge(cfg, 3 * K, 3 * K + 1));
		vput(&walk, tl_edge(cfg, 3 * K + 1, cfg->exit));
		for (m = 0; m < 2; m++) {
			char ctx[64];

			assert_int_equal(pap_plan_build(cfg, m ? PAP_MODE_PAP_EPP :
							PAP_MODE_PAP, NULL,
							&plan), 0);
			snprintf(ctx, sizeof(ctx), "long body round %d mode %d",
				 round, m);
			check_walk(plan, bl, &walk,
				   (const uint32_t *const *)lines, 40, ctx, &t);
			pap_plan_free(plan);
		}
		free(walk.v);
	}
	print_message("%llu walks, %llu edges, %llu breakpoints packed to "
		      "%llu, %llu items over %llu pieces\n", t.walks, t.edges,
		      t.bps, t.packed, t.items, t.pieces);
	for (b = 0; b < cfg->nblocks; b++)
		free(lines[b]);
	free(lines);
	pap_plan_free(bl);
	pap_cfg_free(cfg);
}

static uint64_t sym_plus_1(void *ctx, uint64_t sym)
{
	(void)ctx;
	return sym + 1;
}

/*
 * test_rseq_weights: weights and prefix sums on sequences made of
 * nested, overlapping and copying repeats, against expansion.
 */
static void test_rseq_weights(void **state)
{
	struct tl_rng g = { 99 };
	int round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		struct pap_rseq s;
		uint64_t *w, *cnt, *brute, *acc, *src, i, sum = 0;
		size_t k, nsym = 1 + tl_below(&g, 6);

		pap_rseq_init(&s);
		while (s.len < 1 + tl_below(&g, 3000)) {
			if (s.len && tl_below(&g, 3)) {
				uint64_t d = 1 + tl_below(&g, s.len);

				assert_int_equal(pap_rseq_repeat(&s, d,
					1 + tl_below(&g, 4 * d)), 0);
			} else {
				assert_int_equal(pap_rseq_sym(&s,
					tl_below(&g, nsym)), 0);
			}
		}
		w = calloc(s.n, sizeof(*w));
		cnt = calloc(nsym, sizeof(*cnt));
		brute = calloc(nsym, sizeof(*brute));
		acc = calloc(s.n + 1, sizeof(*acc));
		src = calloc(s.n + 1, sizeof(*src));
		assert_true(w && cnt && brute && acc && src);
		assert_int_equal(pap_rseq_weights(&s, w), 0);
		for (k = 0; k < s.n; k++)
			if (!s.it[k].dist)
				cnt[s.it[k].sym] += w[k];
		for (i = 0; i < s.len; i++)
			brute[pap_rseq_get(&s, i)]++;
		assert_memory_equal(cnt, brute, nsym * sizeof(*cnt));
		/* prefix sums of weight sym + 1 */
		assert_int_equal(pap_rseq_sums(&s, sym_plus_1, NULL, acc, src), 0);
		for (i = 0; i <= s.len; i++) {
			if (i % 7 == 0 || i == s.len)
				assert_int_equal(pap_rseq_prefix(&s, acc, src,
						sym_plus_1, NULL, i),
						 sum);
			if (i < s.len)
				sum += pap_rseq_get(&s, i) + 1;
		}
		free(w);
		free(cnt);
		free(brute);
		free(acc);
		free(src);
		pap_rseq_free(&s);
	}
}

/*
 * test_rseq_cursor: reading positions one after another through a cursor,
 * in runs back and forth with jumps between, names the item that the
 * expansion (built forward, copy by copy) puts at each position.
 */
static void test_rseq_cursor(void **state)
{
	struct tl_rng g = { 7 };
	int round;

	(void)state;
	for (round = 0; round < 2000; round++) {
		struct pap_rseq s;
		struct pap_rseq_cursor c;
		size_t *flat, k, filled = 0, step;
		uint64_t i, pos, limit = 1 + tl_below(&g, round < 1000 ?
							300 : 20000);

		pap_rseq_init(&s);
		while (s.len < limit) {
			if (s.len && tl_below(&g, 3)) {
				/* short and long distances, nested copies */
				uint64_t d = 1 + (tl_below(&g, 2) ?
					tl_below(&g, s.len < 8 ? s.len : 8) :
					tl_below(&g, s.len));

				assert_int_equal(pap_rseq_repeat(&s, d,
					1 + tl_below(&g, 3 * d)), 0);
			} else {
				assert_int_equal(pap_rseq_sym(&s,
					tl_below(&g, 5)), 0);
			}
		}
		flat = calloc(s.len, sizeof(*flat));
		assert_non_null(flat);
		for (k = 0; k < s.n; k++)
			for (i = 0; i < s.it[k].len; i++) {
				uint64_t at = s.it[k].pos + i;

				flat[at] = s.it[k].dist ?
					flat[at - s.it[k].dist] : k;
				filled++;
			}
		assert_int_equal(filled, s.len);
		pap_rseq_cursor_init(&c, &s);
		pos = tl_below(&g, s.len);
		for (step = 0; step < 4 * s.len + 10; step++) {
			uint64_t r = tl_below(&g, 100);

			if (r < 2)
				pos = tl_below(&g, s.len);	/* a jump */
			else if (r < 60 && pos > 0)
				pos--;
			else if (r < 98 && pos + 1 < s.len)
				pos++;
			assert_int_equal(pap_rseq_cursor_at(&c, pos),
					 flat[pos]);
		}
		/* a whole pass from the end back, as the decoder reads */
		for (i = s.len; i-- > 0;)
			assert_int_equal(pap_rseq_cursor_at(&c, i), flat[i]);
		pap_rseq_cursor_free(&c);
		free(flat);
		pap_rseq_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rseq_weights),
		cmocka_unit_test(test_rseq_cursor),
		cmocka_unit_test(test_pathform_walks),
		cmocka_unit_test(test_pathform_long_body),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
