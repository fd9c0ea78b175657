/* SPDX-License-Identifier: MIT */
/*
 * dom.c - dominators and post-dominators of the finished CFG.
 *
 * The iterative two-finger algorithm of Cooper, Harvey and Kennedy over a
 * reverse postorder: simple, and fast on the graphs compilers produce.
 */
#include <stdlib.h>

#include "cfgmodel.h"

/* Reverse postorder of the reversed graph from EXIT into @order. */
static uint32_t dom_post_order(const struct pap_cfg *cfg, uint32_t *order)
{
	uint32_t n = cfg->nnodes, sp = 0, npost = 0, i;
	uint32_t *stack = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *next = malloc((size_t)n * sizeof(uint32_t));
	uint8_t *seen = calloc(n, 1);

	if (!stack || !next || !seen) {
		npost = PAP_NONE;
		goto out;
	}
	stack[sp++] = cfg->exit;
	seen[cfg->exit] = 1;
	next[cfg->exit] = cfg->in_off[cfg->exit];
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (next[v] < cfg->in_off[v + 1]) {
			uint32_t w = cfg->edges[cfg->in_edge[next[v]++]].src;

			if (!seen[w]) {
				seen[w] = 1;
				next[w] = cfg->in_off[w];
				stack[sp++] = w;
			}
		} else {
			order[npost++] = v;
			sp--;
		}
	}
	for (i = 0; i < npost / 2; i++) {
		uint32_t t = order[i];

		order[i] = order[npost - 1 - i];
		order[npost - 1 - i] = t;
	}
out:
	free(stack);
	free(next);
	free(seen);
	return npost;
}

int pap_dominators(const struct pap_cfg *cfg, int post, uint32_t *idom)
{
	uint32_t n = cfg->nnodes, norder, i, k;
	uint32_t *order, *index;
	uint32_t root = post ? cfg->exit : cfg->entry;
	int changed = 1;

	if (!cfg->finished)
		return PAP_EINVAL;
	order = malloc((size_t)n * sizeof(uint32_t));
	index = malloc((size_t)n * sizeof(uint32_t));
	if (!order || !index) {
		free(order);
		free(index);
		return PAP_ENOMEM;
	}
	if (post) {
		norder = dom_post_order(cfg, order);
		if (norder == PAP_NONE) {
			free(order);
			free(index);
			return PAP_ENOMEM;
		}
	} else {
		norder = cfg->nrpo;
		for (i = 0; i < norder; i++)
			order[i] = cfg->rpo[i];
	}
	for (i = 0; i < n; i++) {
		idom[i] = PAP_NONE;
		index[i] = PAP_NONE;
	}
	for (i = 0; i < norder; i++)
		index[order[i]] = i;
	idom[root] = root;
	while (changed) {
		changed = 0;
		for (i = 1; i < norder; i++) {
			uint32_t v = order[i], nd = PAP_NONE;
			uint32_t lo = post ? cfg->out_off[v] : cfg->in_off[v];
			uint32_t hi = post ? cfg->out_off[v + 1] :
					     cfg->in_off[v + 1];

			for (k = lo; k < hi; k++) {
				const struct pap_edge *e = &cfg->edges[
					post ? cfg->out_edge[k] :
					       cfg->in_edge[k]];
				uint32_t p = post ? e->dst : e->src;

				if (index[p] == PAP_NONE ||
				    idom[p] == PAP_NONE)
					continue;
				if (nd == PAP_NONE) {
					nd = p;
					continue;
				}
				while (nd != p) {
					while (index[nd] > index[p])
						nd = idom[nd];
					while (index[p] > index[nd])
						p = idom[p];
				}
			}
			if (nd != PAP_NONE && idom[v] != nd) {
				idom[v] = nd;
				changed = 1;
			}
		}
	}
	free(order);
	free(index);
	return PAP_OK;
}

int pap_dominates(const uint32_t *idom, uint32_t root, uint32_t a, uint32_t b)
{
	if (idom[b] == PAP_NONE)
		return 0;
	for (;;) {
		if (b == a)
			return 1;
		if (b == root)
			return 0;
		b = idom[b];
	}
}
