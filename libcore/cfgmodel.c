/* SPDX-License-Identifier: MIT */
/*
 * cfgmodel.c - building and finishing the control-flow graph model.
 */
#include <stdlib.h>
#include <string.h>

#include "cfgmodel.h"
#include "util.h"

struct pap_cfg *pap_cfg_new(uint32_t nblocks)
{
	struct pap_cfg *cfg;

	if (nblocks == 0 || nblocks > UINT32_MAX / 4)
		return NULL;
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return NULL;
	cfg->nblocks = nblocks;
	cfg->nnodes = nblocks + 2;
	cfg->entry_block = 0;
	cfg->entry = nblocks;
	cfg->exit = nblocks + 1;
	cfg->role = calloc(nblocks, 1);
	if (!cfg->role) {
		free(cfg);
		return NULL;
	}
	return cfg;
}

void pap_cfg_free(struct pap_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->edges);
	free(cfg->role);
	free(cfg->in_off);
	free(cfg->in_edge);
	free(cfg->out_off);
	free(cfg->out_edge);
	free(cfg->reachable);
	free(cfg->rpo);
	free(cfg->rpo_index);
	free(cfg);
}

static int64_t cfg_push_edge(struct pap_cfg *cfg, uint32_t src, uint32_t dst,
			     enum pap_edge_kind kind, uint8_t flags)
{
	struct pap_edge *e;

	if (cfg->nedges == cfg->cap_edges) {
		uint32_t cap = cfg->cap_edges ? cfg->cap_edges * 2 : 16;

		if (cap < cfg->cap_edges || cap > UINT32_MAX / 2)
			return PAP_ELIMIT;
		e = realloc(cfg->edges, (size_t)cap * sizeof(*e));
		if (!e)
			return PAP_ENOMEM;
		cfg->edges = e;
		cfg->cap_edges = cap;
	}
	e = &cfg->edges[cfg->nedges];
	e->src = src;
	e->dst = dst;
	e->kind = (uint8_t)kind;
	e->flags = flags;
	e->weight = 0;
	return cfg->nedges++;
}

int64_t pap_cfg_add_edge(struct pap_cfg *cfg, uint32_t src, uint32_t dst,
			 enum pap_edge_kind kind)
{
	if (!cfg || cfg->finished || src >= cfg->nblocks ||
	    dst >= cfg->nblocks || kind > PAP_EDGE_ABNORMAL)
		return PAP_EINVAL;
	return cfg_push_edge(cfg, src, dst, kind, 0);
}

int pap_cfg_set_entry(struct pap_cfg *cfg, uint32_t block)
{
	if (!cfg || cfg->finished || block >= cfg->nblocks)
		return PAP_EINVAL;
	cfg->entry_block = block;
	return PAP_OK;
}

static int cfg_set_role(struct pap_cfg *cfg, uint32_t block, uint8_t role)
{
	if (!cfg || cfg->finished || block >= cfg->nblocks)
		return PAP_EINVAL;
	cfg->role[block] |= role;
	return PAP_OK;
}

int pap_cfg_mark_return(struct pap_cfg *cfg, uint32_t block)
{
	return cfg_set_role(cfg, block, PAP_ROLE_RETURN);
}

int pap_cfg_mark_resume(struct pap_cfg *cfg, uint32_t block)
{
	return cfg_set_role(cfg, block, PAP_ROLE_RESUME);
}

int pap_cfg_mark_cut(struct pap_cfg *cfg, uint32_t block)
{
	return cfg_set_role(cfg, block, PAP_ROLE_CUT);
}

/* The virtual edges of every block with @role: ENTRY->block or
 * block->EXIT of @kind. */
static int cfg_push_role_edges(struct pap_cfg *cfg, uint8_t role,
			       int from_entry, enum pap_edge_kind kind)
{
	uint32_t b;
	int64_t r;

	for (b = 0; b < cfg->nblocks; b++) {
		if (!(cfg->role[b] & role))
			continue;
		r = from_entry ?
		    cfg_push_edge(cfg, cfg->entry, b, kind, PAP_EF_VIRTUAL) :
		    cfg_push_edge(cfg, b, cfg->exit, kind, PAP_EF_VIRTUAL);
		if (r < 0)
			return (int)r;
	}
	return PAP_OK;
}

/* Builds in/out CSR arrays over the edges not flagged dead. */
static int cfg_build_adjacency(struct pap_cfg *cfg)
{
	uint32_t n = cfg->nnodes, i;
	uint32_t *in_fill, *out_fill;

	free(cfg->in_off);
	free(cfg->out_off);
	free(cfg->in_edge);
	free(cfg->out_edge);
	cfg->in_off = calloc(n + 1, sizeof(uint32_t));
	cfg->out_off = calloc(n + 1, sizeof(uint32_t));
	cfg->in_edge = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	cfg->out_edge = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	in_fill = calloc(n, sizeof(uint32_t));
	out_fill = calloc(n, sizeof(uint32_t));
	if (!cfg->in_off || !cfg->out_off || !cfg->in_edge || !cfg->out_edge ||
	    !in_fill || !out_fill) {
		free(in_fill);
		free(out_fill);
		return PAP_ENOMEM;
	}
	for (i = 0; i < cfg->nedges; i++) {
		const struct pap_edge *e = &cfg->edges[i];

		if (e->flags & PAP_EF_DEAD)
			continue;
		cfg->in_off[e->dst + 1]++;
		cfg->out_off[e->src + 1]++;
	}
	for (i = 0; i < n; i++) {
		cfg->in_off[i + 1] += cfg->in_off[i];
		cfg->out_off[i + 1] += cfg->out_off[i];
	}
	for (i = 0; i < cfg->nedges; i++) {
		const struct pap_edge *e = &cfg->edges[i];

		if (e->flags & PAP_EF_DEAD)
			continue;
		cfg->in_edge[cfg->in_off[e->dst] + in_fill[e->dst]++] = i;
		cfg->out_edge[cfg->out_off[e->src] + out_fill[e->src]++] = i;
	}
	free(in_fill);
	free(out_fill);
	return PAP_OK;
}

/*
 * Marks into @seen the nodes reachable from ENTRY (forward) or, with
 * @backward, the nodes that reach EXIT.
 */
static int cfg_mark(const struct pap_cfg *cfg, int backward, uint8_t *seen)
{
	const uint32_t *off = backward ? cfg->in_off : cfg->out_off;
	const uint32_t *adj = backward ? cfg->in_edge : cfg->out_edge;
	uint32_t *stack = malloc((size_t)cfg->nnodes * sizeof(uint32_t));
	uint32_t root = backward ? cfg->exit : cfg->entry, sp = 0, k;

	if (!stack)
		return PAP_ENOMEM;
	memset(seen, 0, cfg->nnodes);
	seen[root] = 1;
	stack[sp++] = root;
	while (sp) {
		uint32_t v = stack[--sp];

		for (k = off[v]; k < off[v + 1]; k++) {
			const struct pap_edge *e = &cfg->edges[adj[k]];
			uint32_t w = backward ? e->src : e->dst;

			if (!seen[w]) {
				seen[w] = 1;
				stack[sp++] = w;
			}
		}
	}
	free(stack);
	return PAP_OK;
}

/*
 * Iterative depth-first search from ENTRY following out-edges in id order:
 * fills the reverse postorder and flags retreating edges PAP_EF_BACK.
 */
static int cfg_dfs(struct pap_cfg *cfg)
{
	uint32_t n = cfg->nnodes, sp = 0, npost = 0, i;
	uint32_t *stack = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *next = malloc((size_t)n * sizeof(uint32_t));
	uint8_t *state = calloc(n, 1);	/* 0 new, 1 on stack, 2 done */
	uint32_t *post = malloc((size_t)n * sizeof(uint32_t));

	free(cfg->rpo);
	free(cfg->rpo_index);
	cfg->rpo = malloc((size_t)n * sizeof(uint32_t));
	cfg->rpo_index = malloc((size_t)n * sizeof(uint32_t));
	if (!stack || !next || !state || !post || !cfg->rpo ||
	    !cfg->rpo_index) {
		free(stack);
		free(next);
		free(state);
		free(post);
		return PAP_ENOMEM;
	}
	cfg->nback = 0;
	stack[sp++] = cfg->entry;
	state[cfg->entry] = 1;
	next[cfg->entry] = cfg->out_off[cfg->entry];
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (next[v] < cfg->out_off[v + 1]) {
			uint32_t eid = cfg->out_edge[next[v]++];
			uint32_t w = cfg->edges[eid].dst;

			if (state[w] == 1) {
				cfg->edges[eid].flags |= PAP_EF_BACK;
				cfg->nback++;
			} else if (state[w] == 0) {
				state[w] = 1;
				next[w] = cfg->out_off[w];
				stack[sp++] = w;
			}
		} else {
			state[v] = 2;
			post[npost++] = v;
			sp--;
		}
	}
	for (i = 0; i < n; i++)
		cfg->rpo_index[i] = PAP_NONE;
	for (i = 0; i < npost; i++) {
		cfg->rpo[i] = post[npost - 1 - i];
		cfg->rpo_index[cfg->rpo[i]] = i;
	}
	cfg->nrpo = npost;
	free(stack);
	free(next);
	free(state);
	free(post);
	return PAP_OK;
}

/* FAKE edges from the reachable blocks that cannot reach EXIT (with
 * @dead_ends, only from those with no live successor). */
static int cfg_push_fake_edges(struct pap_cfg *cfg, const uint8_t *reach_exit,
			       int dead_ends)
{
	uint32_t b;
	int64_t r;

	for (b = 0; b < cfg->nblocks; b++) {
		if (!cfg->reachable[b] || reach_exit[b])
			continue;
		if (dead_ends && pap_cfg_fanout(cfg, b))
			continue;
		r = cfg_push_edge(cfg, b, cfg->exit, PAP_EDGE_FAKE,
				  PAP_EF_VIRTUAL);
		if (r < 0)
			return (int)r;
	}
	return PAP_OK;
}

int pap_cfg_finish(struct pap_cfg *cfg)
{
	uint8_t *reach_exit = NULL;
	uint32_t i;
	int64_t r;
	int err;

	if (!cfg || cfg->finished)
		return PAP_EINVAL;
	r = cfg_push_edge(cfg, cfg->entry, cfg->entry_block, PAP_EDGE_NORMAL,
			  PAP_EF_VIRTUAL);
	if (r < 0)
		return (int)r;
	cfg->entry_edge = (uint32_t)r;
	err = cfg_push_role_edges(cfg, PAP_ROLE_RESUME, 1, PAP_EDGE_NORMAL);
	if (!err)
		err = cfg_push_role_edges(cfg, PAP_ROLE_RETURN, 0,
					  PAP_EDGE_NORMAL);
	if (!err)
		err = cfg_push_role_edges(cfg, PAP_ROLE_CUT, 0, PAP_EDGE_FAKE);
	if (err)
		return err;
	cfg->reachable = calloc(cfg->nnodes, 1);
	reach_exit = calloc(cfg->nnodes, 1);
	if (!cfg->reachable || !reach_exit) {
		free(reach_exit);
		return PAP_ENOMEM;
	}
	err = cfg_build_adjacency(cfg);
	if (!err)
		err = cfg_mark(cfg, 0, cfg->reachable);
	if (!err)
		err = cfg_mark(cfg, 1, reach_exit);
	if (err)
		goto out;
	/*
	 * Blocks that never return get a FAKE edge so every path can end:
	 * first those that end the function (a noreturn call: no
	 * successor), then, as they now reach EXIT through those, whatever
	 * still cannot (infinite loops).  Only the first kind is ever taken.
	 */
	err = cfg_push_fake_edges(cfg, reach_exit, 1);
	if (!err) {
		memset(reach_exit, 0, cfg->nnodes);
		err = cfg_build_adjacency(cfg);
	}
	if (!err)
		err = cfg_mark(cfg, 1, reach_exit);
	if (!err)
		err = cfg_push_fake_edges(cfg, reach_exit, 0);
	if (err)
		goto out;
	cfg->reachable[cfg->exit] = 1;
	for (i = 0; i < cfg->nedges; i++)
		if (!cfg->reachable[cfg->edges[i].src])
			cfg->edges[i].flags |= PAP_EF_DEAD;
	err = cfg_build_adjacency(cfg);
	if (!err)
		err = cfg_dfs(cfg);
	if (!err)
		cfg->finished = 1;
out:
	free(reach_exit);
	return err;
}
