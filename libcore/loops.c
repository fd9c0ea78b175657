/* SPDX-License-Identifier: MIT */
/*
 * loops.c - loop-nesting forest by recursive SCC decomposition.
 *
 * Each strongly connected component that holds a cycle is a loop.  Its
 * headers are the members with an in-edge from outside the component; the
 * edges from members to headers are cut and the component is decomposed
 * again, which yields the inner loops.  This treats reducible and
 * irreducible loops alike (an irreducible loop simply has several headers).
 */
#include <stdlib.h>
#include <string.h>

#include "cfgmodel.h"

struct loops_region {
	uint32_t first, count;	/* slice of the node pool */
	uint32_t loop;		/* loop the region is the body of */
};

struct loops_ctx {
	const struct pap_cfg *cfg;
	struct pap_loop_nest *nest;
	uint8_t *cut;		/* per edge: cut at an outer level */
	uint32_t *member;	/* per node: stamp of the region it is in */
	uint32_t *idx, *low, *it;
	uint8_t *onstack;
	uint32_t *stack, *call;
	uint32_t *pool;		/* node lists of pending regions */
	size_t npool, cap_pool;
	struct loops_region *regions;
	size_t nregions, cap_regions;
	uint32_t cap_loops;
};

static int loops_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return PAP_OK;
	while (ncap < need)
		ncap *= 2;
	q = realloc(*p, ncap * size);
	if (!q)
		return PAP_ENOMEM;
	*p = q;
	*cap = ncap;
	return PAP_OK;
}

/* Records the SCC @scc[0..n) as a loop inside @parent, queues its body. */
static int loops_add(struct loops_ctx *c, const uint32_t *scc, uint32_t n,
		     uint32_t parent, uint32_t stamp)
{
	const struct pap_cfg *cfg = c->cfg;
	struct pap_loop_nest *nest = c->nest;
	struct pap_loop *L;
	uint32_t id = nest->nloops, i, k;
	int err;

	if (nest->nloops == c->cap_loops) {
		size_t cap = c->cap_loops;

		err = loops_grow((void **)&nest->loops, &cap, cap + 1,
				 sizeof(*nest->loops));
		if (err)
			return err;
		c->cap_loops = (uint32_t)cap;
	}
	L = &nest->loops[nest->nloops++];
	L->parent = parent;
	L->depth = parent == PAP_NONE ? 1 : nest->loops[parent].depth + 1;
	L->nheaders = 0;
	L->first_header = PAP_NONE;
	L->nnodes = n;
	/* Mark members with a fresh stamp to tell inside from outside. */
	for (i = 0; i < n; i++) {
		c->member[scc[i]] = stamp;
		nest->innermost[scc[i]] = id;
	}
	for (i = 0; i < n; i++) {
		uint32_t v = scc[i];
		int header = 0;

		for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++)
			if (c->member[cfg->edges[cfg->in_edge[k]].src] !=
			    stamp)
				header = 1;
		if (!header)
			continue;
		L->nheaders++;
		if (L->first_header == PAP_NONE ||
		    cfg->rpo_index[v] < cfg->rpo_index[L->first_header])
			L->first_header = v;
		for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++) {
			uint32_t e = cfg->in_edge[k];

			if (c->member[cfg->edges[e].src] == stamp)
				c->cut[e] = 1;
		}
	}
	if (L->nheaders != 1)
		nest->reducible = 0;
	err = loops_grow((void **)&c->pool, &c->cap_pool, c->npool + n,
			 sizeof(*c->pool));
	if (!err)
		err = loops_grow((void **)&c->regions, &c->cap_regions,
				 c->nregions + 1, sizeof(*c->regions));
	if (err)
		return err;
	memcpy(c->pool + c->npool, scc, n * sizeof(uint32_t));
	c->regions[c->nregions].first = (uint32_t)c->npool;
	c->regions[c->nregions].count = n;
	c->regions[c->nregions].loop = id;
	c->nregions++;
	c->npool += n;
	return PAP_OK;
}

/* Does @v have an uncut self-loop? */
static int loops_self(const struct loops_ctx *c, uint32_t v)
{
	const struct pap_cfg *cfg = c->cfg;
	uint32_t k;

	for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
		uint32_t e = cfg->out_edge[k];

		if (!c->cut[e] && cfg->edges[e].dst == v)
			return 1;
	}
	return 0;
}

/* Tarjan's SCC algorithm, iteratively, on one region's induced subgraph. */
static int loops_region(struct loops_ctx *c, struct loops_region reg,
			uint32_t *stamp)
{
	const struct pap_cfg *cfg = c->cfg;
	uint32_t *nodes = malloc(((size_t)reg.count + 1) * sizeof(uint32_t));
	uint32_t my = ++*stamp, counter = 0, sp = 0, cp = 0, i;
	int err = PAP_OK;

	if (!nodes)
		return PAP_ENOMEM;
	memcpy(nodes, c->pool + reg.first, reg.count * sizeof(uint32_t));
	for (i = 0; i < reg.count; i++) {
		c->member[nodes[i]] = my;
		c->idx[nodes[i]] = PAP_NONE;
	}
	for (i = 0; i < reg.count && !err; i++) {
		uint32_t root = nodes[i];

		if (c->idx[root] != PAP_NONE)
			continue;
		c->idx[root] = c->low[root] = counter++;
		c->stack[sp++] = root;
		c->onstack[root] = 1;
		c->it[root] = cfg->out_off[root];
		c->call[cp++] = root;
		while (cp && !err) {
			uint32_t v = c->call[cp - 1];

			if (c->it[v] < cfg->out_off[v + 1]) {
				uint32_t e = cfg->out_edge[c->it[v]++];
				uint32_t w = cfg->edges[e].dst;

				if (c->cut[e] || c->member[w] != my)
					continue;
				if (c->idx[w] == PAP_NONE) {
					c->idx[w] = c->low[w] = counter++;
					c->stack[sp++] = w;
					c->onstack[w] = 1;
					c->it[w] = cfg->out_off[w];
					c->call[cp++] = w;
				} else if (c->onstack[w] &&
					   c->idx[w] < c->low[v]) {
					c->low[v] = c->idx[w];
				}
				continue;
			}
			cp--;
			if (cp && c->low[v] < c->low[c->call[cp - 1]])
				c->low[c->call[cp - 1]] = c->low[v];
			if (c->low[v] != c->idx[v])
				continue;
			/* v roots an SCC: stack[top..] down to v. */
			{
				uint32_t base = sp;

				do {
					base--;
					c->onstack[c->stack[base]] = 0;
				} while (c->stack[base] != v);
				if (sp - base > 1 || loops_self(c, v))
					err = loops_add(c, c->stack + base,
							sp - base, reg.loop,
							++*stamp);
				sp = base;
			}
		}
	}
	free(nodes);
	return err;
}

int pap_loops_find(const struct pap_cfg *cfg, struct pap_loop_nest *nest)
{
	struct loops_ctx c;
	uint32_t n = cfg->nnodes, stamp = 0, i;
	size_t r;
	int err = PAP_ENOMEM;

	memset(nest, 0, sizeof(*nest));
	if (!cfg->finished)
		return PAP_EINVAL;
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.nest = nest;
	nest->reducible = 1;
	nest->innermost = malloc((size_t)n * sizeof(uint32_t));
	c.cut = calloc(cfg->nedges ? cfg->nedges : 1, 1);
	c.member = calloc(n, sizeof(uint32_t));
	c.idx = malloc((size_t)n * sizeof(uint32_t));
	c.low = malloc((size_t)n * sizeof(uint32_t));
	c.it = malloc((size_t)n * sizeof(uint32_t));
	c.onstack = calloc(n, 1);
	c.stack = malloc((size_t)n * sizeof(uint32_t));
	c.call = malloc((size_t)n * sizeof(uint32_t));
	if (!nest->innermost || !c.cut || !c.member || !c.idx || !c.low ||
	    !c.it || !c.onstack || !c.stack || !c.call)
		goto out;
	for (i = 0; i < n; i++)
		nest->innermost[i] = PAP_NONE;
	err = loops_grow((void **)&c.pool, &c.cap_pool, cfg->nrpo,
			 sizeof(*c.pool));
	if (!err)
		err = loops_grow((void **)&c.regions, &c.cap_regions, 1,
				 sizeof(*c.regions));
	if (err)
		goto out;
	memcpy(c.pool, cfg->rpo, cfg->nrpo * sizeof(uint32_t));
	c.npool = cfg->nrpo;
	c.regions[0].first = 0;
	c.regions[0].count = cfg->nrpo;
	c.regions[0].loop = PAP_NONE;
	c.nregions = 1;
	for (r = 0; r < c.nregions && !err; r++)
		err = loops_region(&c, c.regions[r], &stamp);
out:
	free(c.cut);
	free(c.member);
	free(c.idx);
	free(c.low);
	free(c.it);
	free(c.onstack);
	free(c.stack);
	free(c.call);
	free(c.pool);
	free(c.regions);
	if (err)
		pap_loops_free(nest);
	return err;
}

void pap_loops_free(struct pap_loop_nest *nest)
{
	free(nest->loops);
	free(nest->innermost);
	memset(nest, 0, sizeof(*nest));
}

int pap_loop_within(const struct pap_loop_nest *nest, uint32_t inner,
		    uint32_t outer)
{
	if (outer == PAP_NONE)
		return 1;
	while (inner != PAP_NONE) {
		if (inner == outer)
			return 1;
		inner = nest->loops[inner].parent;
	}
	return 0;
}
