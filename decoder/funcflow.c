/* SPDX-License-Identifier: MIT */
/*
 * funcflow.c - everything a function's HTML page counts over its paths,
 * in one pass: each path is decoded (or its packed form built) once for
 * its block, edge and line counts and the hottest paths' edges, where
 * flow_counts(), line_counts() and print_dot() would each decode it.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

/* Block @b ran @times more on path @i: its lines in fl's range count
 * them, and count path @i once (line_counts()'s rule). */
static void flow_block_lines(const struct pap_meta_fn *fn,
			     struct func_flow *fl, uint32_t b, size_t i,
			     uint64_t times, uint32_t *last)
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
		if (last[l] != i + 1) {
			last[l] = (uint32_t)i + 1;
			fl->paths[l]++;
		}
		fl->count[l] += times;
	}
}

/* Path @i, @p, from its blocks one by one. */
static int flow_open_path(struct dfunc *f, struct func_flow *fl, size_t i,
			  uint32_t *last)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	struct dpath *p = &f->paths[i];
	size_t j;

	if (path_open(f, p))
		return -1;
	for (j = 0; j < p->n; j++) {
		fl->block[p->blocks[j]] += p->count;
		flow_block_lines(f->fn, fl, p->blocks[j], i, p->count, last);
	}
	for (j = 0; j < p->nedges; j++) {
		if (p->edges[j] < cfg->nedges)
			fl->edge[p->edges[j]] += p->count;
		if (i < FLOW_HOT_PATHS && !fl->hot[p->edges[j]])
			fl->hot[p->edges[j]] = (uint8_t)(i + 1);
	}
	path_close(p);
	return 0;
}

/* Path @i, @p, from its form's block and edge counts (@bc, @ec, zero
 * on entry and on return). */
static int flow_form_path(struct dfunc *f, struct func_flow *fl, size_t i,
			  uint64_t *bc, uint64_t *ec, uint32_t *last)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	struct dpath *p = &f->paths[i];
	uint32_t b, e;
	int err = path_counts(f, p, 1, bc, ec);

	for (b = 0; b < cfg->nnodes; b++) {
		if (!bc[b])
			continue;
		if (!err) {
			fl->block[b] += bc[b] * p->count;
			flow_block_lines(f->fn, fl, b, i, bc[b] * p->count,
					 last);
		}
		bc[b] = 0;
	}
	for (e = 0; e < cfg->nedges; e++) {
		if (!ec[e])
			continue;
		if (!err) {
			fl->edge[e] += ec[e] * p->count;
			if (i < FLOW_HOT_PATHS && !fl->hot[e])
				fl->hot[e] = (uint8_t)(i + 1);
		}
		ec[e] = 0;
	}
	return err;
}

int func_flow(struct dfunc *f, struct func_flow *fl)
{
	const struct pap_meta_fn *fn = f->fn;
	const struct pap_cfg *cfg = fn->graph.cfg;
	uint32_t b, k, l, *last = NULL;
	uint64_t *bc = NULL, *ec = NULL;
	size_t i, n;
	int rc = 0;

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
	last = calloc(n, sizeof(*last));
	bc = calloc(cfg->nnodes + 1, sizeof(*bc));
	ec = calloc(cfg->nedges + 1, sizeof(*ec));
	if (!fl->block || !fl->edge || !fl->hot || !fl->count ||
	    !fl->paths || !last || !bc || !ec) {
		func_flow_free(fl);
		rc = -1;
		goto out;
	}
	for (i = 0; i < f->npaths; i++) {
		struct dpath *p = &f->paths[i];

		progress("counting flow", i, f->npaths);
		if (p->bl_only || (!path_long(p) &&
				   !pap_bpack_has_repeat(p->rec->bps,
							 p->rec->nbps)))
			flow_open_path(f, fl, i, last);
		else
			flow_form_path(f, fl, i, bc, ec, last);
	}
	progress_done();
out:
	free(last);
	free(bc);
	free(ec);
	return rc;
}

void func_flow_free(struct func_flow *fl)
{
	free(fl->block);
	free(fl->edge);
	free(fl->hot);
	free(fl->count);
	free(fl->paths);
	memset(fl, 0, sizeof(*fl));
}
