/* SPDX-License-Identifier: MIT */
/*
 * kipf.c - prefix forests, the k-slab forest and its k-IPF.
 */
#include <stdlib.h>
#include <string.h>

#include "cfgmodel.h"
#include "kipf.h"
#include "util.h"

void pap_forest_init(struct pap_forest *f)
{
	memset(f, 0, sizeof(*f));
}

void pap_forest_free(struct pap_forest *f)
{
	free(f->nodes);
	free(f->slots);
	free(f->cslots);
	pap_forest_init(f);
}

static uint64_t label_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint32_t forest_new(struct pap_forest *f, uint64_t label,
			   uint32_t depth)
{
	struct pap_fnode *nd;

	if (!f->n)
		f->n = 1;	/* index 0 means none */
	if (f->n >= f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 64;
		struct pap_fnode *n;

		if (cap <= f->cap)
			return 0;
		n = realloc(f->nodes, (size_t)cap * sizeof(*n));
		if (!n)
			return 0;
		f->nodes = n;
		f->cap = cap;
	}
	nd = &f->nodes[f->n];
	nd->label = label;
	nd->count = 0;
	nd->child = nd->sibling = nd->parent = 0;
	nd->depth = depth;
	return f->n++;
}

/* Doubles the root table, keeping every root. */
static int roots_grow(struct pap_forest *f)
{
	uint32_t ns = f->nslots ? f->nslots * 2 : 64, i, *s;

	s = calloc(ns, sizeof(*s));
	if (!s)
		return PAP_ENOMEM;
	for (i = 0; i < f->nslots; i++) {
		uint32_t v = f->slots[i], h;

		if (!v)
			continue;
		h = (uint32_t)label_hash(f->nodes[v].label) & (ns - 1);
		while (s[h])
			h = (h + 1) & (ns - 1);
		s[h] = v;
	}
	free(f->slots);
	f->slots = s;
	f->nslots = ns;
	return PAP_OK;
}

uint32_t pap_forest_root(struct pap_forest *f, uint64_t label)
{
	uint32_t h, v;

	if (2 * (f->nroots + 1) > f->nslots && roots_grow(f))
		return 0;
	h = (uint32_t)label_hash(label) & (f->nslots - 1);
	while ((v = f->slots[h])) {
		if (f->nodes[v].label == label)
			return v;
		h = (h + 1) & (f->nslots - 1);
	}
	v = forest_new(f, label, 1);
	if (v) {
		f->slots[h] = v;
		f->nroots++;
	}
	return v;
}

static uint32_t child_hash(uint32_t parent, uint64_t label)
{
	return (uint32_t)label_hash(label ^ ((uint64_t)parent << 32 |
					     parent));
}

/* Doubles the child table, keeping every child. */
static int children_grow(struct pap_forest *f)
{
	uint32_t ns = f->ncslots ? f->ncslots * 2 : 256, i, *s;

	if (ns <= f->ncslots)
		return PAP_ENOMEM;
	s = calloc(ns, sizeof(*s));
	if (!s)
		return PAP_ENOMEM;
	for (i = 0; i < f->ncslots; i++) {
		uint32_t v = f->cslots[i], h;

		if (!v)
			continue;
		h = child_hash(f->nodes[v].parent, f->nodes[v].label) &
		    (ns - 1);
		while (s[h])
			h = (h + 1) & (ns - 1);
		s[h] = v;
	}
	free(f->cslots);
	f->cslots = s;
	f->ncslots = ns;
	return PAP_OK;
}

uint32_t pap_forest_child(struct pap_forest *f, uint32_t parent,
			  uint64_t label)
{
	uint32_t h, v;

	if (2 * (f->nchildren + 1) > f->ncslots && children_grow(f))
		return 0;
	h = child_hash(parent, label) & (f->ncslots - 1);
	while ((v = f->cslots[h])) {
		if (f->nodes[v].parent == parent && f->nodes[v].label == label)
			return v;
		h = (h + 1) & (f->ncslots - 1);
	}
	v = forest_new(f, label, f->nodes[parent].depth + 1);
	if (v) {
		f->nodes[v].parent = parent;
		f->nodes[v].sibling = f->nodes[parent].child;
		f->nodes[parent].child = v;
		f->cslots[h] = v;
		f->nchildren++;
	}
	return v;
}

uint32_t *pap_forest_roots(const struct pap_forest *f)
{
	uint32_t *r, i, n = 0;

	if (!f->nroots)
		return NULL;
	r = malloc(f->nroots * sizeof(*r));
	if (!r)
		return NULL;
	for (i = 0; i < f->nslots; i++)
		if (f->slots[i])
			r[n++] = f->slots[i];
	return r;
}

void pap_kslab_init(struct pap_kslab *ks, uint32_t k)
{
	memset(ks, 0, sizeof(*ks));
	pap_forest_init(&ks->sf);
	ks->k = k ? k : 1;
}

void pap_kslab_free(struct pap_kslab *ks)
{
	pap_forest_free(&ks->sf);
	pap_kslab_init(ks, ks->k);
}

void pap_kslab_marker(struct pap_kslab *ks)
{
	ks->seen = 0;
	ks->top = ks->bottom = 0;
}

int pap_kslab_item(struct pap_kslab *ks, uint64_t id, uint64_t weight)
{
	struct pap_forest *f = &ks->sf;
	uint32_t prev_top = ks->top;
	int new_slab = ks->seen % ks->k == 0;

	ks->top = new_slab ? pap_forest_root(f, id) :
			     pap_forest_child(f, ks->top, id);
	if (!ks->top)
		goto oom;
	f->nodes[ks->top].count = pap_sat_add(f->nodes[ks->top].count, weight);
	if (ks->seen >= ks->k) {
		/* the previous slab continued by this one's prefix */
		ks->bottom = pap_forest_child(f, new_slab ? prev_top :
						  ks->bottom, id);
		if (!ks->bottom)
			goto oom;
		f->nodes[ks->bottom].count =
			pap_sat_add(f->nodes[ks->bottom].count, weight);
	}
	ks->seen++;
	return PAP_OK;
oom:
	ks->oom = 1;
	pap_kslab_marker(ks);
	return PAP_ENOMEM;
}

struct join_item {
	uint32_t sf, ipf;
};

/*
 * Adds the subtree of slab-forest node @v, down to k - 1 levels below it,
 * under the k-IPF root of v's label.  Only upper nodes (depth <= k) start
 * a join: an occurrence of a run inside one slab is counted by the upper
 * node, one that crosses into the next slab by the lower part below the
 * slab's upper nodes, so each occurrence is counted once.
 */
static int join_subtree(const struct pap_kslab *ks, uint32_t v,
			struct pap_forest *ipf, struct join_item *stack)
{
	const struct pap_forest *sf = &ks->sf;
	uint32_t top = 0, r, limit = sf->nodes[v].depth + ks->k - 1;

	r = pap_forest_root(ipf, sf->nodes[v].label);
	if (!r)
		return PAP_ENOMEM;
	ipf->nodes[r].count = pap_sat_add(ipf->nodes[r].count,
					  sf->nodes[v].count);
	stack[top++] = (struct join_item){ v, r };
	while (top) {
		struct join_item it = stack[--top];
		uint32_t c;

		if (sf->nodes[it.sf].depth >= limit)
			continue;
		for (c = sf->nodes[it.sf].child; c; c = sf->nodes[c].sibling) {
			uint32_t w = pap_forest_child(ipf, it.ipf,
						      sf->nodes[c].label);

			if (!w)
				return PAP_ENOMEM;
			ipf->nodes[w].count =
				pap_sat_add(ipf->nodes[w].count,
					    sf->nodes[c].count);
			stack[top++] = (struct join_item){ c, w };
		}
	}
	return PAP_OK;
}

int pap_kslab_to_kipf(const struct pap_kslab *ks, struct pap_forest *ipf)
{
	struct join_item *stack;
	uint32_t v;
	int err = PAP_OK;

	if (ks->sf.n <= 1)
		return PAP_OK;
	stack = malloc((size_t)ks->sf.n * sizeof(*stack));
	if (!stack)
		return PAP_ENOMEM;
	for (v = 1; v < ks->sf.n && !err; v++)
		if (ks->sf.nodes[v].depth <= ks->k)
			err = join_subtree(ks, v, ipf, stack);
	free(stack);
	return err;
}
