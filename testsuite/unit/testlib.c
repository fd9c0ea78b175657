/* SPDX-License-Identifier: MIT */
/*
 * testlib.c - random graphs, random walks, and the walk-equals-decode
 * oracle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

uint64_t tl_next(struct tl_rng *g)
{
	/* splitmix64 */
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t tl_below(struct tl_rng *g, uint64_t n)
{
	return n ? tl_next(g) % n : 0;
}

void tl_random_params(struct tl_rng *g, struct tl_cfg_params *p)
{
	uint64_t size = tl_below(g, 100);

	memset(p, 0, sizeof(*p));
	if (size < 60)
		p->nblocks = 1 + (uint32_t)tl_below(g, 12);
	else if (size < 95)
		p->nblocks = 2 + (uint32_t)tl_below(g, 60);
	else
		p->nblocks = 2 + (uint32_t)tl_below(g, 400);
	p->extra_edges = (uint32_t)tl_below(g, p->nblocks + 2);
	p->self_loops = tl_below(g, 4) == 0 ? 1 + (uint32_t)tl_below(g, 3) : 0;
	p->parallel = tl_below(g, 4) == 0 ? 1 + (uint32_t)tl_below(g, 4) : 0;
	if (tl_below(g, 50) == 0)
		p->fan_in = 1 + (uint32_t)tl_below(g, 1000);
	p->forward_only = tl_below(g, 5) == 0;
	if (tl_below(g, 6) == 0) {
		p->resumes = 1 + (uint32_t)tl_below(g, 3);
		p->cuts = 1 + (uint32_t)tl_below(g, p->nblocks + 1);
	}
}

struct pap_cfg *tl_random_cfg(struct tl_rng *g, const struct tl_cfg_params *p)
{
	uint32_t n = p->nblocks, i;
	struct pap_cfg *cfg = pap_cfg_new(n);

	if (!cfg)
		return NULL;
	/* Reachable from block 0, and every block reaches block n - 1. */
	for (i = 1; i < n; i++)
		pap_cfg_add_edge(cfg, (uint32_t)tl_below(g, i), i,
				 PAP_EDGE_NORMAL);
	for (i = 0; i + 1 < n; i++)
		pap_cfg_add_edge(cfg, i,
				 i + 1 + (uint32_t)tl_below(g, n - 1 - i),
				 PAP_EDGE_NORMAL);
	for (i = 0; i < p->extra_edges; i++) {
		uint32_t a = (uint32_t)tl_below(g, n);
		uint32_t b = (uint32_t)tl_below(g, n);

		if (p->forward_only) {
			if (a == b)
				continue;
			if (a > b) {
				uint32_t t = a;

				a = b;
				b = t;
			}
		}
		pap_cfg_add_edge(cfg, a, b, PAP_EDGE_NORMAL);
	}
	for (i = 0; i < p->self_loops && !p->forward_only; i++) {
		uint32_t a = (uint32_t)tl_below(g, n);

		pap_cfg_add_edge(cfg, a, a, PAP_EDGE_NORMAL);
	}
	for (i = 0; i < p->parallel && cfg->nedges; i++) {
		const struct pap_edge *e =
			&cfg->edges[tl_below(g, cfg->nedges)];

		pap_cfg_add_edge(cfg, e->src, e->dst, PAP_EDGE_NORMAL);
	}
	if (p->fan_in && n > 1) {
		uint32_t target = 1 + (uint32_t)tl_below(g, n - 1);

		for (i = 0; i < p->fan_in; i++) {
			uint32_t a = p->forward_only ?
				(uint32_t)tl_below(g, target) :
				(uint32_t)tl_below(g, n);

			pap_cfg_add_edge(cfg, a, target, PAP_EDGE_NORMAL);
		}
	}
	for (i = 0; i < p->resumes; i++)
		pap_cfg_mark_resume(cfg, (uint32_t)tl_below(g, n));
	for (i = 0; i < p->cuts; i++)
		pap_cfg_mark_cut(cfg, (uint32_t)tl_below(g, n));
	pap_cfg_mark_return(cfg, n - 1);
	if (n > 2 && tl_below(g, 3) == 0)
		pap_cfg_mark_return(cfg, (uint32_t)tl_below(g, n - 1));
	if (pap_cfg_finish(cfg)) {
		pap_cfg_free(cfg);
		return NULL;
	}
	pap_cfg_estimate_weights(cfg);
	return cfg;
}

uint32_t tl_edge(const struct pap_cfg *cfg, uint32_t src, uint32_t dst)
{
	uint32_t k;

	for (k = cfg->out_off[src]; k < cfg->out_off[src + 1]; k++)
		if (cfg->edges[cfg->out_edge[k]].dst == dst)
			return cfg->out_edge[k];
	return PAP_NONE;
}

/* Distance to EXIT over non-fake edges, for steering a walk out. */
static uint32_t *walk_exit_distance(const struct pap_cfg *cfg)
{
	uint32_t *dist = malloc(cfg->nnodes * sizeof(uint32_t));
	uint32_t *queue = malloc(cfg->nnodes * sizeof(uint32_t));
	uint32_t head = 0, tail = 0, i, k;

	if (!dist || !queue) {
		free(dist);
		free(queue);
		return NULL;
	}
	for (i = 0; i < cfg->nnodes; i++)
		dist[i] = PAP_NONE;
	dist[cfg->exit] = 0;
	queue[tail++] = cfg->exit;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (k = cfg->in_off[v]; k < cfg->in_off[v + 1]; k++) {
			const struct pap_edge *e =
				&cfg->edges[cfg->in_edge[k]];

			if (e->kind == PAP_EDGE_FAKE || dist[e->src] != PAP_NONE)
				continue;
			dist[e->src] = dist[v] + 1;
			queue[tail++] = e->src;
		}
	}
	free(queue);
	return dist;
}

/* Can the walk take edge @c without leaving the function? */
static int walk_inside(const struct pap_cfg *cfg, const uint32_t *dist,
		       uint32_t c)
{
	const struct pap_edge *e = &cfg->edges[c];

	return e->kind != PAP_EDGE_FAKE && e->dst != cfg->exit &&
	       dist[e->dst] != PAP_NONE;
}

int tl_random_walk(struct tl_rng *g, const struct pap_cfg *cfg, size_t steps,
		   uint32_t **edges, size_t *len)
{
	uint32_t *dist = walk_exit_distance(cfg);
	size_t cap = steps + cfg->nnodes + 2, n = 0;
	uint32_t *w = malloc(cap * sizeof(uint32_t));
	uint32_t v = cfg->entry;

	if (!dist || !w || dist[cfg->entry] == PAP_NONE) {
		free(dist);
		free(w);
		return -1;
	}
	while (v != cfg->exit) {
		uint32_t lo = cfg->out_off[v], fan = pap_cfg_fanout(cfg, v);
		uint32_t e = PAP_NONE, k;

		if (n < steps) {
			/* a random edge that stays inside and can get out */
			uint32_t ok = 0, pick;

			for (k = lo; k < lo + fan; k++)
				ok += walk_inside(cfg, dist, cfg->out_edge[k]);
			if (ok) {
				pick = (uint32_t)tl_below(g, ok);
				for (k = lo;; k++)
					if (walk_inside(cfg, dist,
							cfg->out_edge[k]) &&
					    pick-- == 0)
						break;
				e = cfg->out_edge[k];
			}
		}
		if (e == PAP_NONE && v < cfg->nblocks &&
		    cfg->role[v] & PAP_ROLE_CUT && tl_below(g, 2) == 0) {
			/* a longjmp out of the block's call: cut here */
			for (k = lo; k < lo + fan; k++)
				if (cfg->edges[cfg->out_edge[k]].kind ==
				    PAP_EDGE_FAKE)
					e = cfg->out_edge[k];
		}
		if (e == PAP_NONE) {
			for (k = lo; k < lo + fan; k++) {
				uint32_t c = cfg->out_edge[k];

				if (cfg->edges[c].kind != PAP_EDGE_FAKE &&
				    dist[cfg->edges[c].dst] + 1 == dist[v]) {
					e = c;
					break;
				}
			}
		}
		if (n == cap) {
			uint32_t *nw;

			cap *= 2;
			nw = realloc(w, cap * sizeof(uint32_t));
			if (!nw) {
				free(w);
				free(dist);
				return -1;
			}
			w = nw;
		}
		w[n++] = e;
		v = cfg->edges[e].dst;
	}
	free(dist);
	*edges = w;
	*len = n;
	return 0;
}

/* EPP: each COUNT must regenerate the walk's next piece between folds. */
static int check_epp(const struct pap_plan *plan, const uint32_t *walk,
		     size_t len, const struct pap_activation *s, char *why,
		     size_t whylen)
{
	size_t pos = 0, c;
	uint32_t prev_fold = PAP_NONE;
	struct pap_path p;

	pap_path_init(&p);
	for (c = 0; c < s->nids; c++) {
		size_t i, end = pos;
		int err;

		while (end < len && !plan->is_fold[walk[end]] &&
		       plan->cfg->edges[walk[end]].dst != plan->cfg->exit)
			end++;
		/* the edge into EXIT belongs to the last piece */
		if (end < len && !plan->is_fold[walk[end]])
			end++;
		p.len = 0;
		err = pap_decode_bl(plan, s->ids[c], &p);
		if (err) {
			snprintf(why, whylen, "count %zu: id %llu: %s", c,
				 (unsigned long long)s->ids[c],
				 pap_strerror(err));
			goto fail;
		}
		if (p.len != end - pos || p.start_fold != prev_fold) {
			snprintf(why, whylen,
				 "count %zu: decoded %zu edges from fold %u, "
				 "walked %zu from fold %u", c, p.len,
				 p.start_fold, end - pos, prev_fold);
			goto fail;
		}
		for (i = 0; i < p.len; i++) {
			if (p.edges[i] != walk[pos + i]) {
				snprintf(why, whylen,
					 "count %zu: edge %zu is %u, walked %u",
					 c, i, p.edges[i], walk[pos + i]);
				goto fail;
			}
		}
		if (end < len) {
			if (p.end_fold != walk[end]) {
				snprintf(why, whylen,
					 "count %zu: ends at %u, walked %u", c,
					 p.end_fold, walk[end]);
				goto fail;
			}
			prev_fold = walk[end];
			end++;
		} else if (p.end_fold != PAP_NONE) {
			snprintf(why, whylen, "last count does not end at EXIT");
			goto fail;
		}
		pos = end;
	}
	if (pos != len) {
		snprintf(why, whylen, "%zu counts cover %zu of %zu edges",
			 s->nids, pos, len);
		goto fail;
	}
	pap_path_free(&p);
	return 0;
fail:
	pap_path_free(&p);
	return 1;
}

int tl_check_walk(const struct pap_plan *plan, const uint32_t *walk,
		  size_t len, struct tl_result *res, char *why, size_t whylen)
{
	struct pap_activation s;
	struct pap_exec_sink sink = pap_activation_sink(&s);
	/* INIT must set both registers: start them with garbage */
	struct pap_exec_state st = { 0x5a5a5a5a5a5a5a5aull, 0xa5a5a5a5ull };
	struct pap_path p;
	size_t i;
	int bad = 1, err;

	pap_activation_init(&s);
	pap_path_init(&p);
	for (i = 0; i < len; i++)
		pap_exec_edge(plan, &st, walk[i], &sink);
	if (res) {
		res->nbreakpoints = s.nbps;
		res->nrecords = s.nrecords;
		res->ncounts = s.nids;
	}
	if (s.oom) {
		snprintf(why, whylen, "out of memory recording the walk");
		goto out;
	}
	if (plan->mode == PAP_MODE_EPP) {
		bad = check_epp(plan, walk, len, &s, why, whylen);
		goto out;
	}
	if (s.nrecords != 1) {
		snprintf(why, whylen, "%zu records for one activation",
			 s.nrecords);
		goto out;
	}
	err = pap_decode_path(plan, s.bps, s.nbps, s.final, &p);
	if (err) {
		snprintf(why, whylen, "decode failed: %s (%zu breakpoints)",
			 pap_strerror(err), s.nbps);
		goto out;
	}
	if (p.len != len) {
		snprintf(why, whylen, "decoded %zu edges, walked %zu", p.len,
			 len);
		goto out;
	}
	for (i = 0; i < len; i++) {
		if (p.edges[i] != walk[i]) {
			snprintf(why, whylen, "edge %zu: decoded %u, walked %u",
				 i, p.edges[i], walk[i]);
			goto out;
		}
	}
	bad = 0;
out:
	pap_path_free(&p);
	pap_activation_free(&s);
	return bad;
}

unsigned long long tl_env_ull(const char *name, unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}
