/* SPDX-License-Identifier: MIT */
/*
 * callgraph.c - the call-site graph of one function (callgraph.h).
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

/* Does a site of this kind come back (has it sources R_k)? */
static int site_returns(uint8_t kind)
{
	return kind != PAP_SITE_NORETURN && kind != PAP_SITE_TAIL;
}

/* Which classes of return site @s has, as a bit mask of 1 << c. */
static unsigned site_classes(const struct pap_site *s)
{
	unsigned m;

	if (!site_returns(s->kind))
		return 0;
	m = 1u;
	if (s->flags & PAP_SITE_MAYBE_OUT)
		m |= 2u;
	if (s->flags & PAP_SITE_MAYBE_TAIL)
		m |= 4u;
	if (s->flags & PAP_SITE_EH)
		m |= 8u;
	return m;
}

struct bfs {
	const struct pap_cfg *cfg;
	const uint32_t *first;	/* per block: first site (k) or 0 */
	uint32_t *seen;		/* per block: stamp */
	uint32_t stamp;
	uint32_t *queue;
	uint8_t *reach;		/* per node: reached from this source */
	uint32_t nnodes;
};

static void visit(struct bfs *b, uint32_t v, uint32_t *tail)
{
	if (v == b->cfg->exit) {
		b->reach[b->nnodes - 1] = 1;
		return;
	}
	if (v >= b->cfg->nblocks || b->seen[v] == b->stamp)
		return;
	b->seen[v] = b->stamp;
	if (b->first[v])
		b->reach[b->first[v] - 1] = 1;
	else
		b->queue[(*tail)++] = v;
}

/* Follows the normal out-edges of @v (abnormal ones with @abnormal). */
static void follow(struct bfs *b, uint32_t v, int abnormal, uint32_t *tail)
{
	const struct pap_cfg *cfg = b->cfg;
	uint32_t i;

	for (i = cfg->out_off[v]; i < cfg->out_off[v + 1]; i++) {
		const struct pap_edge *e = &cfg->edges[cfg->out_edge[i]];

		if (e->kind == PAP_EDGE_FAKE)
			continue;
		if ((e->kind == PAP_EDGE_ABNORMAL) != !!abnormal)
			continue;
		visit(b, e->dst, tail);
	}
}

/* Marks in b->reach the nodes the source starting at @v reaches: at the
 * block itself when @at_block, else through its out-edges. */
static void search(struct bfs *b, uint32_t v, int at_block, int abnormal)
{
	uint32_t head = 0, tail = 0;

	memset(b->reach, 0, b->nnodes);
	b->stamp++;
	if (at_block)
		visit(b, v, &tail);
	else
		follow(b, v, abnormal, &tail);
	while (head < tail)
		follow(b, b->queue[head++], 0, &tail);
}

/* The source after site k reaches just the next site @k1 of its block. */
static void only(struct bfs *b, uint32_t k1)
{
	memset(b->reach, 0, b->nnodes);
	b->reach[k1 - 1] = 1;
}

void pap_callgraph_free(struct pap_callgraph *g)
{
	free(g->sites);
	free(g->has_source);
	free(g->pred_off);
	free(g->pred);
	free(g->digit);
	memset(g, 0, sizeof(*g));
}

static int check_sites(const struct pap_cfg *cfg, const struct pap_site *sites,
		       uint32_t nsites, uint32_t *first, uint32_t *next)
{
	uint32_t k, *lastk;

	lastk = calloc(cfg->nblocks + 1, sizeof(*lastk));
	if (!lastk)
		return PAP_ENOMEM;
	for (k = 1; k <= nsites; k++) {
		const struct pap_site *s = &sites[k - 1];

		if (s->block >= cfg->nblocks || s->kind >= PAP_SITE_NKINDS ||
		    (!site_returns(s->kind) && s->flags) ||
		    (s->flags & ~(PAP_SITE_MAYBE_OUT | PAP_SITE_MAYBE_TAIL |
				  PAP_SITE_EH))) {
			free(lastk);
			return PAP_EINVAL;
		}
		if (lastk[s->block]) {
			if (sites[lastk[s->block] - 1].flags & PAP_SITE_EH) {
				free(lastk);
				return PAP_EINVAL;
			}
			next[lastk[s->block]] = k;
		} else {
			first[s->block] = k;
		}
		lastk[s->block] = k;
	}
	free(lastk);
	return PAP_OK;
}

int pap_callsites_build(const struct pap_cfg *cfg, const struct pap_site *sites,
			uint32_t nsites, struct pap_callgraph *g)
{
	struct bfs b = { 0 };
	uint32_t *first = NULL, *next = NULL, *count = NULL;
	uint8_t *reach_all = NULL;
	uint32_t s, v, nsrc, nnodes;
	int err = PAP_ENOMEM;

	memset(g, 0, sizeof(*g));
	if (!cfg->finished || nsites > 0x3fffffu)
		return PAP_EINVAL;
	nnodes = nsites + 1;
	nsrc = 1 + nsites * PAP_CG_NCLASSES;
	first = calloc(cfg->nblocks + 1, sizeof(*first));
	next = calloc(nsites + 2, sizeof(*next));
	if (!first || !next)
		goto out;
	err = check_sites(cfg, sites, nsites, first, next);
	if (err)
		goto out;
	err = PAP_ENOMEM;
	g->nsites = nsites;
	g->nsources = nsrc;
	g->nnodes = nnodes;
	g->sites = malloc((nsites + 1) * sizeof(*g->sites));
	g->has_source = calloc(nsrc, 1);
	g->pred_off = calloc(nnodes + 1, sizeof(*g->pred_off));
	g->digit = malloc((size_t)nnodes * nsrc * sizeof(*g->digit));
	count = calloc(nnodes, sizeof(*count));
	reach_all = calloc((size_t)nnodes * nsrc, 1);
	b.cfg = cfg;
	b.first = first;
	b.seen = calloc(cfg->nblocks + 1, sizeof(*b.seen));
	b.queue = malloc((cfg->nblocks + 1) * sizeof(*b.queue));
	b.reach = malloc(nnodes);
	b.nnodes = nnodes;
	if (!g->sites || !g->has_source || !g->pred_off || !g->digit ||
	    !count || !reach_all || !b.seen || !b.queue || !b.reach)
		goto out;
	if (nsites)
		memcpy(g->sites, sites, nsites * sizeof(*sites));
	for (s = 0; s < nsrc; s++) {
		uint32_t k, c;

		if (s == PAP_CG_SRC_E) {
			search(&b, cfg->entry_block, 1, 0);
		} else {
			k = pap_cg_src_site(s);
			c = pap_cg_src_class(s);
			if (!(site_classes(&sites[k - 1]) & (1u << c)))
				continue;
			if (c == 3)
				search(&b, sites[k - 1].block, 0, 1);
			else if (next[k])
				only(&b, next[k]);
			else
				search(&b, sites[k - 1].block, 0, 0);
		}
		g->has_source[s] = 1;
		for (v = 0; v < nnodes; v++)
			if (b.reach[v]) {
				reach_all[(size_t)v * nsrc + s] = 1;
				count[v]++;
			}
	}
	for (v = 0; v < nnodes; v++)
		g->pred_off[v + 1] = g->pred_off[v] + count[v];
	g->pred = malloc((g->pred_off[nnodes] + 1) * sizeof(*g->pred));
	if (!g->pred)
		goto out;
	for (v = 0; v < nnodes; v++) {
		uint32_t d = 0;

		for (s = 0; s < nsrc; s++) {
			size_t at = (size_t)v * nsrc + s;

			if (reach_all[at]) {
				g->pred[g->pred_off[v] + d] = s;
				g->digit[at] = d++;
			} else {
				g->digit[at] = PAP_NONE;
			}
		}
	}
	err = PAP_OK;
out:
	if (err)
		pap_callgraph_free(g);
	free(first);
	free(next);
	free(count);
	free(reach_all);
	free(b.seen);
	free(b.queue);
	free(b.reach);
	return err;
}
