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
	return kind != PAP_SITE_NORETURN && kind != PAP_SITE_TAIL &&
	       kind != PAP_SITE_SELFTAIL;
}

/* Which classes of return site @s has, as a bit mask of 1 << c (a
 * self tail site: its T_k as class 0). */
static unsigned site_classes(const struct pap_site *s)
{
	unsigned m;

	if (s->kind == PAP_SITE_SELFTAIL)
		return 1u;	/* T_k, in class 0's place */
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

/*
 * One source's search.  Blocks and nodes are stamped rather than
 * cleared, so a search costs what it visits, and the nodes it reaches
 * are listed in @hit.
 */
struct bfs {
	const struct pap_cfg *cfg;
	const uint32_t *first;	/* per block: first site (k) or 0 */
	const uint8_t *eh;	/* per block: its last site may throw */
	uint32_t *seen;		/* per block: stamp */
	uint32_t *hitstamp;	/* per node: stamp */
	uint32_t stamp;
	uint32_t *queue;
	uint32_t *hit, nhit;	/* nodes reached */
	uint32_t nnodes;
};

static void reach(struct bfs *b, uint32_t v)
{
	if (b->hitstamp[v] == b->stamp)
		return;
	b->hitstamp[v] = b->stamp;
	b->hit[b->nhit++] = v;
}

static void visit(struct bfs *b, uint32_t v, uint32_t *tail)
{
	if (v == b->cfg->exit) {
		reach(b, b->nnodes - 1);
		return;
	}
	if (v >= b->cfg->nblocks || b->seen[v] == b->stamp)
		return;
	b->seen[v] = b->stamp;
	if (b->first[v])
		reach(b, b->first[v] - 1);
	else
		b->queue[(*tail)++] = v;
}

/*
 * Follows the out-edges of @v: with @abnormal its abnormal ones only (a
 * landing pad's source), else its normal ones and the abnormal ones of a
 * block without a throwing site (a computed goto's: control flows along
 * them as along normal edges).
 */
static void follow(struct bfs *b, uint32_t v, int abnormal, uint32_t *tail)
{
	const struct pap_cfg *cfg = b->cfg;
	uint32_t i;

	for (i = cfg->out_off[v]; i < cfg->out_off[v + 1]; i++) {
		const struct pap_edge *e = &cfg->edges[cfg->out_edge[i]];
		int ab = e->kind == PAP_EDGE_ABNORMAL;

		if (e->kind == PAP_EDGE_FAKE)
			continue;
		if (abnormal ? !ab : ab && v < cfg->nblocks && b->eh[v])
			continue;
		visit(b, e->dst, tail);
	}
}

/* Starts a search: nothing seen, nothing reached. */
static void begin(struct bfs *b)
{
	b->stamp++;
	b->nhit = 0;
}

/* Lists in b->hit the nodes reached from block @v: at the block itself
 * when @at_block, else through its out-edges (only its abnormal ones
 * when @abnormal: a landing pad's source), then normal edges onward. */
static void search(struct bfs *b, uint32_t v, int at_block, int abnormal)
{
	uint32_t head = 0, tail = 0;

	begin(b);
	if (at_block)
		visit(b, v, &tail);
	else
		follow(b, v, abnormal, &tail);
	while (head < tail)
		follow(b, b->queue[head++], 0, &tail);
}

void pap_callgraph_free(struct pap_callgraph *g)
{
	free(g->sites);
	free(g->has_source);
	free(g->pred_off);
	free(g->pred);
	memset(g, 0, sizeof(*g));
}

uint32_t pap_cg_digit(const struct pap_callgraph *g, uint32_t v, uint32_t s)
{
	uint32_t lo = g->pred_off[v], hi = g->pred_off[v + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->pred[mid] < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->pred_off[v + 1] && g->pred[lo] == s ?
	       lo - g->pred_off[v] : PAP_NONE;
}

/* Checks the sites and links each block's: @first[b], @next[k]. */
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

/* Appends (node, source) pairs; a growing array. */
struct pairs {
	uint32_t *v;		/* node, source, node, source... */
	size_t n, cap;
};

static int pairs_add(struct pairs *p, uint32_t node, uint32_t src)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		uint32_t *v = realloc(p->v, 2 * cap * sizeof(*v));

		if (!v)
			return PAP_ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[2 * p->n] = node;
	p->v[2 * p->n + 1] = src;
	p->n++;
	return 0;
}

/* The nodes source @s reaches, into b->hit. */
static void reached(struct bfs *b, const struct pap_site *sites,
		    const uint32_t *next, uint32_t s)
{
	uint32_t k, c;

	if (s == PAP_CG_SRC_E ||
	    sites[pap_cg_src_site(s) - 1].kind == PAP_SITE_SELFTAIL) {
		search(b, b->cfg->entry_block, 1, 0);
		return;
	}
	k = pap_cg_src_site(s);
	c = pap_cg_src_class(s);
	if (c == 3) {
		search(b, sites[k - 1].block, 0, 1);
	} else if (next[k]) {
		begin(b);
		reach(b, next[k] - 1);
	} else {
		search(b, sites[k - 1].block, 0, 0);
	}
}

int pap_callsites_build(const struct pap_cfg *cfg, const struct pap_site *sites,
			uint32_t nsites, struct pap_callgraph *g)
{
	struct bfs b = { 0 };
	struct pairs pr = { 0 };
	uint32_t *first = NULL, *next = NULL, *fill = NULL;
	uint8_t *eh = NULL;
	uint32_t s, v, nsrc, nnodes;
	size_t i;
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
	fill = calloc(nnodes, sizeof(*fill));
	eh = calloc(cfg->nblocks + 1, 1);
	if (!eh)
		goto out;
	for (s = 0; s < nsites; s++)
		if (sites[s].flags & PAP_SITE_EH)
			eh[sites[s].block] = 1;
	b.cfg = cfg;
	b.first = first;
	b.eh = eh;
	b.seen = calloc(cfg->nblocks + 1, sizeof(*b.seen));
	b.hitstamp = calloc(nnodes, sizeof(*b.hitstamp));
	b.queue = malloc((cfg->nblocks + 1) * sizeof(*b.queue));
	b.hit = malloc(nnodes * sizeof(*b.hit));
	b.nnodes = nnodes;
	if (!g->sites || !g->has_source || !g->pred_off || !fill || !b.seen ||
	    !b.hitstamp || !b.queue || !b.hit)
		goto out;
	if (nsites)
		memcpy(g->sites, sites, nsites * sizeof(*sites));
	/* sources in ascending order, so each node's list comes out sorted */
	for (s = 0; s < nsrc; s++) {
		if (s != PAP_CG_SRC_E &&
		    !(site_classes(&sites[pap_cg_src_site(s) - 1]) &
		      (1u << pap_cg_src_class(s))))
			continue;
		g->has_source[s] = 1;
		reached(&b, sites, next, s);
		for (v = 0; v < b.nhit; v++) {
			if (pairs_add(&pr, b.hit[v], s))
				goto out;
			g->pred_off[b.hit[v] + 1]++;
		}
	}
	for (v = 0; v < nnodes; v++)
		g->pred_off[v + 1] += g->pred_off[v];
	g->pred = malloc((pr.n + 1) * sizeof(*g->pred));
	if (!g->pred)
		goto out;
	for (i = 0; i < pr.n; i++) {
		v = pr.v[2 * i];
		g->pred[g->pred_off[v] + fill[v]++] = pr.v[2 * i + 1];
	}
	err = PAP_OK;
out:
	if (err)
		pap_callgraph_free(g);
	free(first);
	free(next);
	free(eh);
	free(fill);
	free(pr.v);
	free(b.seen);
	free(b.hitstamp);
	free(b.queue);
	free(b.hit);
	return err;
}
