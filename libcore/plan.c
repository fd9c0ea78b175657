/* SPDX-License-Identifier: MIT */
/*
 * plan.c - choosing fold edges, PAP in-edge indices, and the probe
 * operations of every edge for the three modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbering.h"
#include "plan.h"
#include "util.h"

#define PAP_DEFAULT_MAX_PATHS ((uint64_t)1 << 63)

const char *pap_mode_name(enum pap_mode mode)
{
	switch (mode) {
	case PAP_MODE_EPP:
		return "epp";
	case PAP_MODE_PAP:
		return "pap";
	case PAP_MODE_PAP_EPP:
		return "pap-epp";
	case PAP_MODE_NONE:
		return "none";
	}
	return "?";
}

int pap_mode_parse(const char *s, enum pap_mode *mode)
{
	if (!strcmp(s, "epp"))
		*mode = PAP_MODE_EPP;
	else if (!strcmp(s, "pap"))
		*mode = PAP_MODE_PAP;
	else if (!strcmp(s, "pap-epp"))
		*mode = PAP_MODE_PAP_EPP;
	else if (!strcmp(s, "none"))
		*mode = PAP_MODE_NONE;
	else
		return PAP_EINVAL;
	return PAP_OK;
}

void pap_plan_free(struct pap_plan *plan)
{
	if (!plan)
		return;
	free(plan->op_off);
	free(plan->ops);
	free(plan->in_index);
	free(plan->num_off);
	free(plan->num);
	free(plan->num_index);
	free(plan->npaths);
	free(plan->is_fold);
	free(plan);
}

/* Appends an op; ADD merges into a neighbour whenever it can. */
static void plan_emit(struct pap_plan *p, uint8_t kind, uint32_t site,
		      uint64_t n, uint64_t k, uint32_t first)
{
	struct pap_op *last = p->nops > first ? &p->ops[p->nops - 1] : NULL;
	struct pap_op *op;

	if (kind == PAP_OP_ADD && k == 0)
		return;
	/* INIT/SET then ADD: set the sum.  ADD then FOLD/COUNT: add in. */
	if (kind == PAP_OP_ADD && last &&
	    (last->kind == PAP_OP_INIT || last->kind == PAP_OP_SET)) {
		last->k += k;
		return;
	}
	if ((kind == PAP_OP_FOLD || kind == PAP_OP_COUNT) && last &&
	    last->kind == PAP_OP_ADD) {
		last->kind = kind;
		last->site = site;
		last->n = n;
		last->k += k;
		return;
	}
	op = &p->ops[p->nops++];
	op->kind = kind;
	op->site = site;
	op->n = n;
	op->k = k;
}

static uint64_t plan_radix(uint64_t count)
{
	/* A fold always multiplies by at least 2 so r grows with each digit
	 * and r == restart marks the start of a segment unambiguously. */
	return count < 2 ? 2 : count;
}

/* Index 0 on the heaviest in-edge that is not a back edge (seed 000
 * §1.2), the others by falling weight; ties by edge id. */
static void plan_pap_indices(struct pap_plan *p)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t v, i, j;

	for (v = 0; v < cfg->nnodes; v++) {
		uint32_t lo = cfg->in_off[v], s = pap_cfg_fanin(cfg, v);
		uint32_t *idx = p->in_index + lo;

		memcpy(idx, cfg->in_edge + lo, s * sizeof(uint32_t));
		/* insertion sort: fan-in is small except for big switches */
		for (i = 1; i < s; i++) {
			uint32_t e = idx[i];
			const struct pap_edge *pe = &cfg->edges[e];

			for (j = i; j > 0; j--) {
				const struct pap_edge *q = &cfg->edges[idx[j - 1]];
				int back_e = !!(pe->flags & PAP_EF_BACK);
				int back_q = !!(q->flags & PAP_EF_BACK);

				if (back_e > back_q ||
				    (back_e == back_q &&
				     (pe->weight < q->weight ||
				      (pe->weight == q->weight &&
				       e > idx[j - 1]))))
					break;
				idx[j] = idx[j - 1];
			}
			idx[j] = e;
		}
	}
}

/* Edge ops for PAP mode. */
static int plan_ops_pap(struct pap_plan *p)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t e, v, i;
	uint32_t *index_of = malloc(((size_t)cfg->nedges + 1) *
				    sizeof(uint32_t));

	if (!index_of)
		return PAP_ENOMEM;
	for (v = 0; v < cfg->nnodes; v++)
		for (i = 0; i < pap_cfg_fanin(cfg, v); i++)
			index_of[p->in_index[cfg->in_off[v] + i]] = i;
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];
		uint32_t first = p->nops, s;

		p->op_off[e] = p->nops;
		if (pe->flags & PAP_EF_DEAD)
			continue;
		if (pe->src == cfg->entry)
			plan_emit(p, PAP_OP_INIT, PAP_NONE, 0, 0, first);
		s = pap_cfg_fanin(cfg, pe->dst);
		if (s > 1)
			plan_emit(p, PAP_OP_FOLD, e, s, index_of[e], first);
		if (pe->dst == cfg->exit)
			plan_emit(p, PAP_OP_RECORD, PAP_NONE, 0, 0, first);
	}
	p->op_off[cfg->nedges] = p->nops;
	free(index_of);
	return PAP_OK;
}

/* Edge ops for EPP (COUNT at region ends) and PAP+EPP (FOLD there). */
static void plan_ops_num(struct pap_plan *p, const struct numbering *nb)
{
	const struct pap_cfg *cfg = p->cfg;
	int epp = p->mode == PAP_MODE_EPP;
	uint8_t end_kind = epp ? PAP_OP_COUNT : PAP_OP_FOLD;
	uint32_t e;

	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];
		uint32_t first = p->nops;

		p->op_off[e] = p->nops;
		if (pe->flags & PAP_EF_DEAD)
			continue;
		if (pe->src == cfg->entry)
			plan_emit(p, PAP_OP_INIT, PAP_NONE, p->restart,
				  nb->e[nb->entry_start].inc, first);
		if (p->is_fold[e]) {
			plan_emit(p, end_kind, e,
				  epp ? 0 : plan_radix(nb->count[pe->src]),
				  nb->e[nb->end_of[e]].inc, first);
			plan_emit(p, PAP_OP_SET, PAP_NONE, 0,
				  nb->e[nb->start_of[e]].inc, first);
		} else {
			plan_emit(p, PAP_OP_ADD, PAP_NONE, 0,
				  nb->e[nb->real_of[e]].inc, first);
		}
		if (pe->dst == cfg->exit) {
			plan_emit(p, end_kind, PAP_NONE,
				  epp ? 0 : p->exit_radix,
				  nb->e[nb->exit_end].inc, first);
			if (!epp)
				plan_emit(p, PAP_OP_RECORD, PAP_NONE, 0, 0,
					  first);
		}
	}
	p->op_off[cfg->nedges] = p->nops;
}

struct plan_fill {
	struct pap_plan *p;
	const struct numbering *nb;
	uint32_t n;
};

static void plan_table_add(struct numbering *nb, uint32_t a, void *arg)
{
	struct plan_fill *f = arg;
	const struct num_edge *ae = &nb->e[a];
	struct pap_num_edge *t = &f->p->num[f->n++];

	t->kind = ae->kind;
	t->edge = ae->edge;
	t->node = nb->reverse ? ae->src : ae->dst;
	t->val = ae->val;
}

/* The index of num by kind and CFG edge (plan.h). */
static int plan_num_index(struct pap_plan *p)
{
	size_t n = 3 * ((size_t)p->cfg->nedges + 1), i;

	free(p->num_index);
	p->num_index = malloc(n * sizeof(uint32_t));
	if (!p->num_index)
		return PAP_ENOMEM;
	memset(p->num_index, 0xff, n * sizeof(uint32_t));
	for (i = 0; i < p->num_off[p->cfg->nnodes + 2]; i++) {
		const struct pap_num_edge *ne = &p->num[i];
		uint32_t e = ne->edge == PAP_NONE ? p->cfg->nedges : ne->edge;
		uint32_t *slot;

		if (e > p->cfg->nedges || ne->kind > PAP_NUM_END)
			continue;
		slot = &p->num_index[3 * (size_t)e + ne->kind];
		*slot = *slot == PAP_NUM_NONE ? (uint32_t)i : PAP_NUM_MANY;
	}
	return PAP_OK;
}

/* Walk tables for the decoder: per aux node, edges in value order. */
static int plan_tables(struct pap_plan *p, const struct numbering *nb)
{
	const struct pap_cfg *cfg = p->cfg;
	struct plan_fill f = { p, nb, 0 };
	uint32_t nn = cfg->nnodes + 2, x;

	p->num_off = calloc((size_t)nn + 1, sizeof(uint32_t));
	p->num = malloc(((size_t)nb->ne + 1) * sizeof(*p->num));
	p->npaths = calloc(nn, sizeof(uint64_t));
	if (!p->num_off || !p->num || !p->npaths)
		return PAP_ENOMEM;
	for (x = 0; x < nn; x++) {
		p->num_off[x] = f.n;
		p->npaths[x] = nb->count[x];
		if (x == nb->T || (x != nb->S && !cfg->reachable[x]) ||
		    (x == nb->S && nb->reverse))
			continue;
		numbering_walk(nb, x, plan_table_add, &f);
	}
	p->num_off[nn] = f.n;
	return plan_num_index(p);
}

/* Fold edges for PAP+EPP: back edges, and edges entering or leaving a
 * loop so that each loop body is numbered on its own. */
static int plan_folds(struct pap_plan *p, int loop_folds)
{
	const struct pap_cfg *cfg = p->cfg;
	struct pap_loop_nest nest;
	uint32_t e;
	int err;

	for (e = 0; e < cfg->nedges; e++)
		p->is_fold[e] = !!(cfg->edges[e].flags & PAP_EF_BACK) &&
				!(cfg->edges[e].flags & PAP_EF_DEAD);
	if (!loop_folds)
		return PAP_OK;
	err = pap_loops_find(cfg, &nest);
	if (err)
		return err;
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];

		if (pe->flags & PAP_EF_DEAD || pe->src == cfg->entry ||
		    pe->dst == cfg->exit)
			continue;
		if (nest.innermost[pe->src] != nest.innermost[pe->dst])
			p->is_fold[e] = 1;
	}
	pap_loops_free(&nest);
	return PAP_OK;
}

static int plan_numbered(struct pap_plan *p, uint64_t limit)
{
	const struct pap_cfg *cfg = p->cfg;
	struct numbering nb;
	uint32_t e;
	int err;

	err = plan_folds(p, p->mode == PAP_MODE_PAP_EPP);
	if (err)
		return err;
	err = numbering_build(&nb, cfg, p->is_fold,
			      p->mode == PAP_MODE_PAP_EPP, limit);
	if (err)
		return err;
	p->ncuts = nb.ncuts;
	for (e = 0; e < cfg->nedges; e++)
		p->nfolds += p->is_fold[e];
	p->restart = p->mode == PAP_MODE_PAP_EPP ? 1 : 0;
	p->exit_radix = plan_radix(nb.count[cfg->exit]);
	p->start_count = nb.count[nb.S];
	plan_ops_num(p, &nb);
	err = plan_tables(p, &nb);
	numbering_free(&nb);
	return err;
}

int pap_plan_may_break(const struct pap_plan *p)
{
	uint32_t k;

	/* only a fold that tests for overflow can make a breakpoint */
	for (k = 0; k < p->nops; k++)
		if (p->ops[k].kind == PAP_OP_FOLD && p->ops[k].may_overflow)
			return 1;
	return 0;
}

/*
 * The most r can hold after edge @e's operations when it held at most @r
 * before them.  With @mark, also records on each FOLD whether it can
 * overflow (util.h), where it cannot, r*n + d <= r*n + n - 1 fits
 * because every digit d < n; and raises p->record_values above the r
 * any RECORD may see.
 */
static uint64_t plan_bound_edge(struct pap_plan *p, uint32_t e, uint64_t r,
				int mark)
{
	uint32_t i;

	for (i = p->op_off[e]; i < p->op_off[e + 1]; i++) {
		struct pap_op *op = &p->ops[i];
		int may;

		if (op->kind == PAP_OP_INIT) {
			r = op->n;
		} else if (op->kind == PAP_OP_FOLD) {
			may = pap_fold_may_overflow(r, op->n);
			if (mark)
				op->may_overflow = (uint8_t)may;
			r = may ? UINT64_MAX : r * op->n + (op->n - 1);
		} else if (op->kind == PAP_OP_RECORD && mark &&
			   p->mode != PAP_MODE_EPP && r >= p->record_values) {
			/* UINT64_MAX: unbounded (or as good as) */
			p->record_values = r == UINT64_MAX ? r : r + 1;
		}
	}
	return r;
}

int pap_plan_bound_r(struct pap_plan *p, uint64_t *bound)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t *indeg, *queue, head = 0, tail = 0, v, k, e;

	indeg = calloc((size_t)cfg->nnodes + 1, sizeof(uint32_t));
	queue = malloc(((size_t)cfg->nnodes + 1) * sizeof(uint32_t));
	if (!indeg || !queue) {
		free(indeg);
		free(queue);
		return PAP_ENOMEM;
	}
	/* every edge counts, dead or not: more edges only loosen bounds */
	for (e = 0; e < cfg->nedges; e++)
		indeg[cfg->edges[e].dst]++;
	/* r is unknown before an INIT, so where nothing leads in */
	for (v = 0; v < cfg->nnodes; v++) {
		bound[v] = indeg[v] ? 0 : UINT64_MAX;
		if (!indeg[v])
			queue[tail++] = v;
	}
	/* Kahn's order: a node is taken once all its predecessors are,
	 * which never happens inside or after a cycle */
	while (head < tail) {
		v = queue[head++];
		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
			uint32_t w, out;
			uint64_t b;

			e = cfg->out_edge[k];
			w = cfg->edges[e].dst;
			b = plan_bound_edge(p, e, bound[v], 0);
			if (b > bound[w])
				bound[w] = b;
			out = --indeg[w];
			if (!out)
				queue[tail++] = w;
		}
	}
	for (v = 0; v < cfg->nnodes; v++)
		if (indeg[v])
			bound[v] = UINT64_MAX;
	p->record_values = p->mode == PAP_MODE_EPP ? p->start_count : 0;
	for (e = 0; e < cfg->nedges; e++)
		plan_bound_edge(p, e, bound[cfg->edges[e].src], 1);
	if (p->record_values == UINT64_MAX)
		p->record_values = 0;
	free(indeg);
	free(queue);
	return PAP_OK;
}

int pap_plan_build(const struct pap_cfg *cfg, enum pap_mode mode,
		   const struct pap_plan_opts *opts, struct pap_plan **out)
{
	uint64_t limit = opts && opts->max_paths ? opts->max_paths :
						  PAP_DEFAULT_MAX_PATHS;
	struct pap_plan *p;
	uint64_t *bound;
	uint32_t e;
	size_t max_ops;
	int err;

	*out = NULL;
	if (!cfg || !cfg->finished || mode > PAP_MODE_PAP_EPP ||
	    limit > PAP_DEFAULT_MAX_PATHS || limit < 2)
		return PAP_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return PAP_ENOMEM;
	p->cfg = cfg;
	p->mode = p->requested = mode;
	max_ops = 5 * ((size_t)cfg->nedges + 1);
	p->op_off = calloc((size_t)cfg->nedges + 1, sizeof(uint32_t));
	p->ops = calloc(max_ops, sizeof(*p->ops));
	p->is_fold = calloc((size_t)cfg->nedges + 1, 1);
	p->in_index = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	err = PAP_ENOMEM;
	if (!p->op_off || !p->ops || !p->is_fold || !p->in_index)
		goto fail;
	plan_pap_indices(p);
	if (mode != PAP_MODE_PAP) {
		err = plan_numbered(p, limit);
		if (err == PAP_ELIMIT && mode == PAP_MODE_PAP_EPP) {
			/* Start over as plain PAP, which has no path count. */
			free(p->num_off);
			free(p->num);
			free(p->num_index);
			free(p->npaths);
			p->num_off = NULL;
			p->num = NULL;
			p->num_index = NULL;
			p->npaths = NULL;
			memset(p->is_fold, 0, cfg->nedges);
			p->nops = 0;
			p->nfolds = p->ncuts = 0;
			p->fell_back = 1;
			p->mode = PAP_MODE_PAP;
		} else if (err) {
			goto fail;
		}
	}
	if (p->mode == PAP_MODE_PAP) {
		p->restart = 0;
		err = plan_ops_pap(p);
		if (err)
			goto fail;
	}
	bound = malloc(((size_t)cfg->nnodes + 1) * sizeof(uint64_t));
	err = bound ? pap_plan_bound_r(p, bound) : PAP_ENOMEM;
	free(bound);
	if (err)
		goto fail;
	for (e = 0; e < cfg->nedges; e++)
		if (cfg->edges[e].kind != PAP_EDGE_FAKE &&
		    !(cfg->edges[e].flags & PAP_EF_DEAD) &&
		    pap_plan_nops(p, e))
			p->nprobe_sites++;
	for (e = 0; e < p->nops; e++)
		if (p->ops[e].kind == PAP_OP_FOLD) {
			p->nfold_ops++;
			p->noverflow_tests += p->ops[e].may_overflow;
		}
	snprintf(p->note, sizeof(p->note),
		 "%s: %u probe sites, %u folds, %u cut edges, %u of %u fold "
		 "operations test for overflow%s",
		 pap_mode_name(p->mode), p->nprobe_sites, p->nfolds, p->ncuts,
		 p->noverflow_tests, p->nfold_ops,
		 p->fell_back ? "; pap-epp path counts exceed the limit, "
				"fell back to pap" : "");
	*out = p;
	return PAP_OK;
fail:
	pap_plan_free(p);
	return err;
}
