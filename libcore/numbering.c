/* SPDX-License-Identifier: MIT */
/*
 * numbering.c - Ball-Larus numbering between fold edges, chord placement.
 */
#include <stdlib.h>
#include <string.h>

#include "numbering.h"
#include "util.h"

/* Topological order of the reachable nodes over live non-fold edges. */
static int num_topo(const struct pap_cfg *cfg, const uint8_t *is_fold,
		    uint32_t *order)
{
	uint32_t *indeg = calloc(cfg->nnodes, sizeof(uint32_t));
	uint32_t head = 0, tail = 0, i, k;

	if (!indeg)
		return PAP_ENOMEM;
	for (i = 0; i < cfg->nrpo; i++) {
		uint32_t v = cfg->rpo[i];

		for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++)
			if (!is_fold[cfg->in_edge[k]])
				indeg[v]++;
	}
	for (i = 0; i < cfg->nrpo; i++)
		if (!indeg[cfg->rpo[i]])
			order[tail++] = cfg->rpo[i];
	while (head < tail) {
		uint32_t v = order[head++];

		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
			uint32_t e = cfg->out_edge[k];

			if (!is_fold[e] && --indeg[cfg->edges[e].dst] == 0)
				order[tail++] = cfg->edges[e].dst;
		}
	}
	free(indeg);
	return tail == cfg->nrpo ? PAP_OK : PAP_EINVAL;
}

/*
 * Counts paths node by node, cutting a node's region edges when its count
 * would pass @limit.  Forward: paths to T, in reverse topological order,
 * and all ids together must stay within @total_limit.  Reverse: paths
 * from S, in topological order.
 */
static int num_count(struct numbering *nb, const uint32_t *order,
		     uint64_t limit, uint64_t total_limit)
{
	const struct pap_cfg *cfg = nb->cfg;
	uint32_t i, k;

	for (i = 0; i < cfg->nrpo; i++) {
		uint32_t x = order[nb->reverse ? i : cfg->nrpo - 1 - i];
		uint32_t lo = nb->reverse ? cfg->in_off[x] : cfg->out_off[x];
		uint32_t hi = nb->reverse ? cfg->in_off[x + 1] :
					    cfg->out_off[x + 1];
		const uint32_t *adj = nb->reverse ? cfg->in_edge :
						    cfg->out_edge;
		uint64_t c = (x == (nb->reverse ? cfg->entry : cfg->exit));

		for (k = lo; k < hi; k++) {
			uint32_t e = adj[k];
			uint32_t y = nb->reverse ? cfg->edges[e].src :
						   cfg->edges[e].dst;

			c = pap_sat_add(c, nb->is_fold[e] ? 1 : nb->count[y]);
		}
		if (c > limit) {
			for (k = lo; k < hi; k++) {
				if (!nb->is_fold[adj[k]]) {
					nb->is_fold[adj[k]] = 1;
					nb->ncuts++;
				}
			}
			c = (x == (nb->reverse ? cfg->entry : cfg->exit)) +
			    (uint64_t)(hi - lo);
			if (c > limit)
				return PAP_ELIMIT;
		}
		nb->count[x] = c;
	}
	nb->count[nb->S] = 1;
	nb->count[nb->T] = 1;
	if (!nb->reverse) {
		uint64_t c = nb->count[cfg->entry];

		for (i = 0; i < cfg->nedges; i++)
			if (nb->is_fold[i] && !(cfg->edges[i].flags & PAP_EF_DEAD))
				c = pap_sat_add(c, nb->count[cfg->edges[i].dst]);
		if (c > total_limit)
			return PAP_ELIMIT;
		nb->count[nb->S] = c;
	}
	return PAP_OK;
}

static uint32_t num_add(struct numbering *nb, uint32_t src, uint32_t dst,
			enum pap_num_kind kind, uint32_t edge, uint64_t weight)
{
	struct num_edge *a = &nb->e[nb->ne];

	a->src = src;
	a->dst = dst;
	a->kind = (uint8_t)kind;
	a->edge = edge;
	a->weight = weight;
	a->val = 0;
	a->inc = 0;
	return nb->ne++;
}

/* Creates the aux edges: REAL, START and END (T->S comes last). */
static void num_edges(struct numbering *nb)
{
	const struct pap_cfg *cfg = nb->cfg;
	uint32_t i;

	nb->entry_start = num_add(nb, nb->S, cfg->entry, PAP_NUM_START,
				  PAP_NONE, 0);
	nb->exit_end = num_add(nb, cfg->exit, nb->T, PAP_NUM_END, PAP_NONE, 0);
	for (i = 0; i < cfg->nedges; i++) {
		const struct pap_edge *e = &cfg->edges[i];
		uint64_t w = e->weight;

		nb->real_of[i] = nb->start_of[i] = nb->end_of[i] = PAP_NONE;
		if (e->flags & PAP_EF_DEAD)
			continue;
		if (nb->is_fold[i]) {
			nb->start_of[i] = num_add(nb, nb->S, e->dst,
						  PAP_NUM_START, i, 0);
			nb->end_of[i] = num_add(nb, e->src, nb->T,
						PAP_NUM_END, i, 0);
			continue;
		}
		if (e->kind == PAP_EDGE_ABNORMAL)
			w = UINT64_MAX;	/* no code can go there */
		else if (e->kind == PAP_EDGE_FAKE)
			w = 0;		/* never runs: free to carry code */
		nb->real_of[i] = num_add(nb, e->src, e->dst, PAP_NUM_REAL, i, w);
	}
}

void numbering_walk(const struct numbering *nb, uint32_t x,
		    void (*fn)(struct numbering *, uint32_t, void *),
		    void *arg)
{
	const struct pap_cfg *cfg = nb->cfg;
	struct numbering *m = (struct numbering *)nb;
	uint32_t k;

	if (x == nb->S) {
		fn(m, nb->entry_start, arg);
		for (k = 0; k < cfg->nedges; k++)
			if (nb->start_of[k] != PAP_NONE)
				fn(m, nb->start_of[k], arg);
		return;
	}
	if (nb->reverse) {
		if (x == cfg->entry)
			fn(m, nb->entry_start, arg);
		for (k = cfg->in_off[x]; k < cfg->in_off[x + 1]; k++) {
			uint32_t e = cfg->in_edge[k];

			fn(m, nb->is_fold[e] ? nb->start_of[e] : nb->real_of[e],
			   arg);
		}
		return;
	}
	for (k = cfg->out_off[x]; k < cfg->out_off[x + 1]; k++) {
		uint32_t e = cfg->out_edge[k];

		fn(m, nb->is_fold[e] ? nb->end_of[e] : nb->real_of[e], arg);
	}
	if (x == cfg->exit)
		fn(m, nb->exit_end, arg);
}

static void num_assign(struct numbering *nb, uint32_t a, void *arg)
{
	uint64_t *run = arg;
	struct num_edge *ae = &nb->e[a];

	ae->val = *run;
	*run += nb->count[nb->reverse ? ae->src : ae->dst];
}

static void num_values(struct numbering *nb)
{
	const struct pap_cfg *cfg = nb->cfg;
	uint32_t i;
	uint64_t run;

	for (i = 0; i < cfg->nrpo; i++) {
		run = 0;
		numbering_walk(nb, cfg->rpo[i], num_assign, &run);
	}
	if (!nb->reverse) {
		run = 0;
		numbering_walk(nb, nb->S, num_assign, &run);
	}
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/*
 * Orders aux edge ids by falling weight, ties by id: a stable LSD radix
 * sort on 16-bit digits of ~weight, skipping digits all keys share (static
 * weights take few values, so most passes are skipped).  Linear.
 */
static int num_sort_by_weight(const struct num_edge *e, uint32_t n,
			      uint32_t *order)
{
	uint32_t *tmp = malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *count = malloc(65537 * sizeof(uint32_t));
	uint32_t i, shift;

	if (!tmp || !count) {
		free(tmp);
		free(count);
		return PAP_ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (shift = 0; shift < 64; shift += 16) {
		uint32_t first = (uint32_t)((~e[0].weight >> shift) & 0xffff);
		int same = 1;

		memset(count, 0, 65537 * sizeof(uint32_t));
		for (i = 0; i < n; i++) {
			uint32_t d = (uint32_t)((~e[i].weight >> shift) &
						0xffff);

			count[d + 1]++;
			same &= d == first;
		}
		if (same)
			continue;
		for (i = 0; i < 65536; i++)
			count[i + 1] += count[i];
		for (i = 0; i < n; i++) {
			uint32_t d = (uint32_t)((~e[order[i]].weight >> shift) &
						0xffff);

			tmp[count[d]++] = order[i];
		}
		memcpy(order, tmp, (size_t)n * sizeof(uint32_t));
	}
	free(tmp);
	free(count);
	return PAP_OK;
}

/*
 * Maximum-weight spanning tree (T->S forced in), then node potentials
 * phi with phi(dst) = phi(src) + val on tree edges; every edge's increment
 * is val + phi(src) - phi(dst), zero on the tree.  Arithmetic is modulo
 * 2^64; path sums are below 2^64, so they come out exact.
 */
static int num_chords(struct numbering *nb)
{
	uint32_t nn = nb->cfg->nnodes + 2, ne = nb->ne, i, k;
	uint32_t *order = malloc(((size_t)ne + 1) * sizeof(uint32_t));
	uint32_t *parent = malloc((size_t)nn * sizeof(uint32_t));
	uint8_t *in_tree = calloc((size_t)ne + 1, 1);
	uint32_t *off = calloc((size_t)nn + 1, sizeof(uint32_t));
	uint32_t *adj = malloc(2 * ((size_t)ne + 1) * sizeof(uint32_t));
	uint64_t *phi = calloc(nn, sizeof(uint64_t));
	uint8_t *seen = calloc(nn, 1);
	uint32_t *queue = malloc((size_t)nn * sizeof(uint32_t));
	uint32_t head = 0, tail = 0;
	int err = PAP_ENOMEM;

	if (!order || !parent || !in_tree || !off || !adj || !phi || !seen ||
	    !queue)
		goto out;
	for (i = 0; i < nn; i++)
		parent[i] = i;
	parent[nb->T] = nb->S;	/* the forced T->S edge */
	if (ne && num_sort_by_weight(nb->e, ne, order))
		goto out;
	for (i = 0; i < ne; i++) {
		const struct num_edge *ae = &nb->e[order[i]];
		uint32_t a = uf_find(parent, ae->src);
		uint32_t b = uf_find(parent, ae->dst);

		if (a == b)
			continue;
		parent[a] = b;
		in_tree[order[i]] = 1;
		off[ae->src + 1]++;
		off[ae->dst + 1]++;
	}
	for (i = 0; i < nn; i++)
		off[i + 1] += off[i];
	for (i = 0; i < ne; i++) {
		if (!in_tree[i])
			continue;
		adj[off[nb->e[i].src]++] = i;
		adj[off[nb->e[i].dst]++] = i;
	}
	for (i = nn; i > 0; i--)
		off[i] = off[i - 1];
	off[0] = 0;
	/* T and S are one tree node through the forced edge: phi(T)=phi(S). */
	queue[tail++] = nb->S;
	queue[tail++] = nb->T;
	seen[nb->S] = seen[nb->T] = 1;
	while (head < tail) {
		uint32_t x = queue[head++];

		for (k = off[x]; k < off[x + 1]; k++) {
			const struct num_edge *ae = &nb->e[adj[k]];
			uint32_t y = ae->src == x ? ae->dst : ae->src;

			if (seen[y])
				continue;
			seen[y] = 1;
			phi[y] = ae->src == x ? phi[x] + ae->val :
						phi[x] - ae->val;
			queue[tail++] = y;
		}
	}
	for (i = 0; i < ne; i++) {
		struct num_edge *ae = &nb->e[i];

		ae->inc = ae->val + phi[ae->src] - phi[ae->dst];
	}
	err = PAP_OK;
out:
	free(order);
	free(parent);
	free(in_tree);
	free(off);
	free(adj);
	free(phi);
	free(seen);
	free(queue);
	return err;
}

int numbering_build(struct numbering *nb, const struct pap_cfg *cfg,
		    uint8_t *is_fold, int reverse, uint64_t limit)
{
	uint32_t *order = NULL;
	uint8_t *initial = NULL;
	uint64_t node_limit = limit;
	size_t ne_max;
	int err;

	memset(nb, 0, sizeof(*nb));
	nb->cfg = cfg;
	nb->reverse = reverse;
	nb->is_fold = is_fold;
	nb->S = cfg->nnodes;
	nb->T = cfg->nnodes + 1;
	if (limit < 2)
		return PAP_EINVAL;
	ne_max = 2 * (size_t)cfg->nedges + 2;
	nb->count = calloc((size_t)cfg->nnodes + 2, sizeof(uint64_t));
	nb->e = malloc(ne_max * sizeof(*nb->e));
	nb->start_of = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	nb->end_of = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	nb->real_of = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	order = malloc((size_t)cfg->nnodes * sizeof(uint32_t));
	initial = malloc((size_t)cfg->nedges + 1);
	err = PAP_ENOMEM;
	if (!nb->count || !nb->e || !nb->start_of || !nb->end_of ||
	    !nb->real_of || !order || !initial)
		goto out;
	err = num_topo(cfg, is_fold, order);
	if (err)
		goto out;
	memcpy(initial, is_fold, cfg->nedges);
	/*
	 * Forward ids share one range at S: if the sum over all starts does
	 * not fit, cut harder.  Each halving cuts more, so this ends.
	 */
	for (;;) {
		nb->ncuts = 0;
		err = num_count(nb, order, node_limit, limit);
		if (err != PAP_ELIMIT || node_limit <= 2 || reverse)
			break;
		memcpy(is_fold, initial, cfg->nedges);
		node_limit /= 2;
	}
	if (err)
		goto out;
	num_edges(nb);
	num_values(nb);
	err = num_chords(nb);
out:
	free(order);
	free(initial);
	if (err)
		numbering_free(nb);
	return err;
}

void numbering_free(struct numbering *nb)
{
	free(nb->count);
	free(nb->e);
	free(nb->start_of);
	free(nb->end_of);
	free(nb->real_of);
	nb->count = NULL;
	nb->e = NULL;
	nb->start_of = nb->end_of = nb->real_of = NULL;
}
