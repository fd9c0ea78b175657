/* SPDX-License-Identifier: MIT */
/*
 * funcflow.c - everything a function's HTML page counts over its paths,
 * in one pass: each path is decoded (or its packed form built) once for
 * its block, edge and line counts and the hottest paths' edges, where
 * flow_counts(), line_counts() and print_dot() would each decode it.
 * The paths can be counted while func_decode() decodes them
 * (func_flow_whole(), func_flow_form()), so that they are not decoded a
 * second time.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

/* Is @p counted from its blocks one by one (else from its form)? */
static int flow_by_blocks(const struct dpath *p)
{
	return p->bl_only || (!path_long(p) &&
			      !pap_bpack_has_repeat(p->rec->bps,
						    p->rec->nbps));
}

/* Block @b is on the path being counted (fl->id): its lines in fl's
 * range count that path once (line_counts()'s rule). */
static void flow_block_lines(const struct pap_meta_fn *fn,
			     struct func_flow *fl, uint32_t b)
{
	const uint32_t *ln;
	uint32_t k, l;

	if (b >= fn->graph.nblocks)
		return;
	ln = blines(fn, b);
	for (k = 0; k < ln[0]; k++) {
		l = ln[k + 1];
		if (l < fl->lo || l > fl->hi)
			continue;
		l -= fl->lo;
		if (fl->last[l] != fl->id) {
			fl->last[l] = fl->id;
			fl->paths[l]++;
		}
	}
}

/* Block @b runs @count times more on the path being counted (fl->id):
 * its lines count that path once, however often it holds @b. */
static inline void flow_block(const struct pap_meta_fn *fn,
			      struct func_flow *fl, uint32_t b, uint64_t count)
{
	fl->block[b] += count;
	if (fl->mark[b] != fl->id) {
		fl->mark[b] = fl->id;
		flow_block_lines(fn, fl, b);
	}
}

/*
 * A path of @count runs through @blocks (@n of them) and @edges (@ne):
 * each block's count grows by its runs times @count, each edge's by
 * @count, and each line it runs through counts one path more.
 */
static void flow_blocks(const struct pap_meta_fn *fn, struct func_flow *fl,
			const uint32_t *blocks, size_t n,
			const uint32_t *edges, size_t ne, uint64_t count)
{
	const struct pap_cfg *cfg = fn->graph.cfg;
	size_t j;

	fl->id++;
	for (j = 0; j < n; j++)
		flow_block(fn, fl, blocks[j], count);
	for (j = 0; j < ne; j++)
		if (edges[j] < cfg->nedges)
			fl->edge[edges[j]] += count;
}

/*
 * flow_blocks() of path @p decoded whole into @edges, its blocks taken
 * as the edges are walked: those path_edge_blocks() gives for the
 * first edge (the path's start), then each later edge's destination.
 */
static void flow_edges(struct dfunc *f, struct func_flow *fl,
		       const struct dpath *p, const struct pap_path *edges)
{
	const struct pap_meta_fn *fn = f->fn;
	const struct pap_cfg *cfg = fn->graph.cfg;
	const struct pap_edge *ce = cfg->edges;
	uint32_t nedges = cfg->nedges, nblocks = cfg->nblocks;
	uint64_t *edge = fl->edge, *block = fl->block, count = p->count;
	uint32_t *mark = fl->mark, start[3], e, b;
	struct pap_path first = *edges;
	size_t i, n;

	fl->id++;
	first.len = edges->len ? 1 : 0;
	n = path_edge_blocks(f, p->rec, &first, start);
	for (i = 0; i < n; i++)
		flow_block(fn, fl, start[i], p->count);
	/* the hot loop of the report: the fields it uses held in locals */
	for (i = 0; i < edges->len; i++) {
		e = edges->edges[i];
		if (e >= nedges)
			continue;
		edge[e] += count;
		b = ce[e].dst;
		if (!i || b >= nblocks)
			continue;
		block[b] += count;
		if (mark[b] != fl->id) {
			mark[b] = fl->id;
			flow_block_lines(fn, fl, b);
		}
	}
}

/* Marks in fl->hot the edges of path @i (@edges, @ne of them) not
 * marked by a hotter path. */
static void flow_hot(struct func_flow *fl, size_t i, const uint32_t *edges,
		     size_t ne)
{
	size_t j;

	if (i >= FLOW_HOT_PATHS)
		return;
	for (j = 0; j < ne; j++)
		if (!fl->hot[edges[j]])
			fl->hot[edges[j]] = (uint8_t)(i + 1);
}

void func_flow_whole(void *ctx, struct dfunc *f, const struct dpath *p,
		     const struct pap_path *edges)
{
	struct func_flow *fl = ctx;

	if (fl->block && fl->whole > 0 && flow_by_blocks(p))
		flow_edges(f, fl, p, edges);
}

/* Path @i, @p, from its blocks one by one: counted unless @counted,
 * its edges marked if among the hottest. */
static int flow_open_path(struct dfunc *f, struct func_flow *fl, size_t i,
			  int counted)
{
	struct dpath *p = &f->paths[i];

	if (counted && i >= FLOW_HOT_PATHS)
		return 0;
	if (path_open(f, p))
		return -1;
	if (!counted)
		flow_blocks(f->fn, fl, p->blocks, p->n, p->edges, p->nedges,
			    p->count);
	flow_hot(fl, i, p->edges, p->nedges);
	path_close(p);
	return 0;
}

/*
 * Moves one path's block and edge counts (bc and ec, left zero) into the
 * function's flow, @count times each, when @add; marks its edges as the
 * path of rank @hot's when @hot < FLOW_HOT_PATHS.
 */
static void flow_take(struct dfunc *f, struct func_flow *fl, uint64_t count,
		      int add, size_t hot)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	uint32_t b, e;

	for (b = 0; b < cfg->nnodes; b++) {
		if (!fl->bc[b])
			continue;
		if (add) {
			fl->block[b] += fl->bc[b] * count;
			flow_block_lines(f->fn, fl, b);
		}
		fl->bc[b] = 0;
	}
	for (e = 0; e < cfg->nedges; e++) {
		if (!fl->ec[e])
			continue;
		if (add)
			fl->edge[e] += fl->ec[e] * count;
		if (hot < FLOW_HOT_PATHS && !fl->hot[e])
			fl->hot[e] = (uint8_t)(hot + 1);
		fl->ec[e] = 0;
	}
}

/* Path @i, @p, from its form's block and edge counts: counted unless
 * @counted, its edges marked if among the hottest. */
static int flow_form_path(struct dfunc *f, struct func_flow *fl, size_t i,
			  int counted)
{
	struct dpath *p = &f->paths[i];
	int err;

	if (counted && i >= FLOW_HOT_PATHS)
		return 0;
	err = path_counts(f, p, 1, counted ? NULL : fl->bc, fl->ec);
	if (!counted)
		fl->id++;
	flow_take(f, fl, p->count, !err && !counted,
		  err ? FLOW_HOT_PATHS : i);
	return err;
}

/* Pieces past this many are counted item by item (not summed first),
 * so that the sums' room stays small. */
#define FLOW_SUM_PIECES ((size_t)1 << 20)

/* The edges of piece @sym, @wk times more. */
static void flow_piece(struct dfunc *f, struct func_flow *fl, uint64_t sym,
		       uint64_t wk)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	const struct pap_edge *ce = cfg->edges;
	uint32_t nedges = cfg->nedges, nblocks = cfg->nblocks, len, i, b;
	uint64_t *ec = fl->ec, *bc = fl->bc;
	const uint32_t *pe = pap_piece_edges(&f->pieces, sym, &len);

	/* in locals: stores through ec and bc would reload fl's fields */
	for (i = 0; i < len; i++) {
		if (pe[i] < nedges)
			ec[pe[i]] += wk;
		b = ce[pe[i]].dst;
		if (b < nblocks)
			bc[b] += wk;
	}
}

/*
 * Path @p's counts from its @form (items' weights @w): each distinct
 * piece's weight summed first, then its edges walked once, however
 * often the form holds it; the blocks counted are the pieces' edges'
 * destinations, as path_counts() counts them.  -1 when memory is short.
 */
static int flow_form(struct dfunc *f, struct func_flow *fl,
		     const struct dpath *p, const struct pap_rseq *form,
		     const uint64_t *w)
{
	size_t k, nsyms = 0, npieces = f->pieces.n;
	int sum = npieces <= FLOW_SUM_PIECES;

	if (sum && npieces > fl->nweight) {
		uint64_t *nw = realloc(fl->weight, npieces * sizeof(*nw));
		uint32_t *ns = nw ? realloc(fl->syms,
					    npieces * sizeof(*ns)) : NULL;
		uint8_t *nl = ns ? realloc(fl->listed, npieces) : NULL;

		if (nw)
			fl->weight = nw;
		if (ns)
			fl->syms = ns;
		if (nl)
			fl->listed = nl;
		if (!nl)
			return -1;
		memset(fl->weight + fl->nweight, 0,
		       (npieces - fl->nweight) * sizeof(*nw));
		memset(fl->listed + fl->nweight, 0, npieces - fl->nweight);
		fl->nweight = npieces;
	}
	for (k = 0; k < form->n; k++) {
		uint64_t s = form->it[k].sym;

		if (form->it[k].dist)
			continue;
		if (!sum) {
			flow_piece(f, fl, s, w[k]);
			continue;
		}
		if (!fl->listed[s]) {
			fl->listed[s] = 1;
			fl->syms[nsyms++] = (uint32_t)s;
		}
		fl->weight[s] += w[k];
	}
	for (k = 0; k < nsyms; k++) {
		uint32_t s = fl->syms[k];

		flow_piece(f, fl, s, fl->weight[s]);
		fl->weight[s] = 0;
		fl->listed[s] = 0;
	}
	fl->id++;
	flow_take(f, fl, p->count, 1, FLOW_HOT_PATHS);
	return 0;
}

void func_flow_form(void *ctx, struct dfunc *f, const struct dpath *p,
		    const struct pap_rseq *form, const uint64_t *w)
{
	struct func_flow *fl = ctx;

	if (fl->block && fl->whole > 0 && flow_form(f, fl, p, form, w))
		fl->whole = -1;	/* counted again by func_flow() */
}

/* Lets go of what counting uses, keeping the counts. */
static void flow_scratch_free(struct func_flow *fl)
{
	free(fl->last);
	free(fl->mark);
	free(fl->bc);
	free(fl->ec);
	free(fl->weight);
	free(fl->syms);
	free(fl->listed);
	fl->last = fl->mark = fl->syms = NULL;
	fl->bc = fl->ec = fl->weight = NULL;
	fl->listed = NULL;
	fl->nweight = 0;
}

int func_flow_start(struct dfunc *f, struct func_flow *fl)
{
	const struct pap_meta_fn *fn = f->fn;
	const struct pap_cfg *cfg = fn->graph.cfg;
	uint32_t b, k, l;
	size_t n;

	memset(fl, 0, sizeof(*fl));
	fl->lo = PAP_MAX_LINE;
	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++) {
			l = blines(fn, b)[k + 1];
			if (l >= PAP_MAX_LINE)
				continue;
			if (l < fl->lo)
				fl->lo = l;
			if (l > fl->hi)
				fl->hi = l;
		}
	if (fl->lo > fl->hi)
		fl->lo = fl->hi = 0;
	n = (size_t)(fl->hi - fl->lo) + 1;
	fl->block = calloc(cfg->nnodes + 1, sizeof(*fl->block));
	fl->edge = calloc(cfg->nedges + 1, sizeof(*fl->edge));
	fl->hot = calloc(cfg->nedges + 1, 1);
	fl->count = calloc(n, sizeof(*fl->count));
	fl->paths = calloc(n, sizeof(*fl->paths));
	fl->last = calloc(n, sizeof(*fl->last));
	fl->mark = calloc(cfg->nnodes + 1, sizeof(*fl->mark));
	fl->bc = calloc(cfg->nnodes + 1, sizeof(*fl->bc));
	fl->ec = calloc(cfg->nedges + 1, sizeof(*fl->ec));
	if (!fl->block || !fl->edge || !fl->hot || !fl->count ||
	    !fl->paths || !fl->last || !fl->mark || !fl->bc ||
	    !fl->ec) {
		func_flow_free(fl);
		return -1;
	}
	return 0;
}

int func_flow(struct dfunc *f, struct func_flow *fl)
{
	const struct pap_meta_fn *fn = f->fn;
	uint32_t b, k, l;
	size_t i;

	if (!fl->block && func_flow_start(f, fl))
		return -1;
	if (fl->whole < 0) {
		/* counting while decoding failed: everything again */
		func_flow_free(fl);
		if (func_flow_start(f, fl))
			return -1;
	}
	for (i = 0; i < f->npaths; i++) {
		struct dpath *p = &f->paths[i];

		progress("counting flow", i, f->npaths);
		/* what func_decode() counted: the paths decoded whole
		 * (func_flow_whole()) and those from their form
		 * (func_flow_form()) */
		if (flow_by_blocks(p))
			flow_open_path(f, fl, i, fl->whole > 0);
		else
			flow_form_path(f, fl, i,
				       fl->whole > 0 && path_repeats(p));
	}
	progress_done();
	/* each line counts the runs of the blocks it is in */
	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++) {
			l = blines(fn, b)[k + 1];
			if (l >= fl->lo && l <= fl->hi)
				fl->count[l - fl->lo] += fl->block[b];
		}
	flow_scratch_free(fl);
	return 0;
}

void func_flow_free(struct func_flow *fl)
{
	free(fl->block);
	free(fl->edge);
	free(fl->hot);
	free(fl->count);
	free(fl->paths);
	flow_scratch_free(fl);
	memset(fl, 0, sizeof(*fl));
}
