/* SPDX-License-Identifier: MIT */
/*
 * selective.c - planning and decoding selective path profiles: the
 * interesting subgraph, boundary edges, T1/T2 check tables and the
 * lookup of paths of interest (selective.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selective.h"
#include "util.h"

static const char *const sel_names[PAP_SEL_NSTRATEGIES] = {
	"spp", "psp0", "psp1", "psp2", "psp3", "follow",
};

const char *pap_sel_strategy_name(enum pap_sel_strategy s)
{
	return (unsigned)s < PAP_SEL_NSTRATEGIES ? sel_names[s] : "?";
}

int pap_sel_strategy_parse(const char *s, enum pap_sel_strategy *out)
{
	unsigned i;

	for (i = 0; i < PAP_SEL_NSTRATEGIES; i++) {
		if (!strcmp(s, sel_names[i])) {
			*out = (enum pap_sel_strategy)i;
			return PAP_OK;
		}
	}
	return PAP_EINVAL;
}

static int sel_error(char *err, size_t errlen, int code, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

/* Writes the message to @err and returns @code. */
static int sel_error(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Does the strategy number the interesting subgraph (and so use T3)? */
static int sel_on_subgraph(enum pap_sel_strategy s)
{
	return s == PAP_SEL_SPP || s == PAP_SEL_PSP2 || s == PAP_SEL_PSP3 ||
	       s == PAP_SEL_FOLLOW;
}

/* Can edge @e run as part of an activation?  FAKE edges run only where
 * a path is cut (a longjmp out of a call) or at a dead end. */
static int sel_edge_runs(const struct pap_cfg *cfg, uint32_t e)
{
	const struct pap_edge *pe = &cfg->edges[e];

	if (pe->flags & PAP_EF_DEAD)
		return 0;
	if (pe->kind != PAP_EDGE_FAKE)
		return 1;
	return pap_cfg_is_cut(cfg, e) || pap_cfg_fanout(cfg, pe->src) == 1;
}

/* Checks that path @k is a walk from ENTRY to EXIT (without back edges
 * for SPP). */
static int sel_check_path(const struct pap_cfg *cfg, enum pap_sel_strategy s,
			  const struct pap_sel_path *p, size_t k, char *err,
			  size_t errlen)
{
	size_t i;

	if (!p->len || !p->edges)
		return sel_error(err, errlen, PAP_EINVAL,
				 "path %zu: no edges", k);
	for (i = 0; i < p->len; i++) {
		uint32_t e = p->edges[i];
		uint32_t from = i ? cfg->edges[p->edges[i - 1]].dst :
				    cfg->entry;

		if (e >= cfg->nedges)
			return sel_error(err, errlen, PAP_EINVAL,
					 "path %zu: edge %zu: no edge %u", k,
					 i, e);
		if (cfg->edges[e].src != from)
			return sel_error(err, errlen, PAP_EINVAL,
					 "path %zu: edge %zu (%u) does not "
					 "start where the path is", k, i, e);
		if (!sel_edge_runs(cfg, e))
			return sel_error(err, errlen, PAP_EINVAL,
					 "path %zu: edge %zu (%u) never runs",
					 k, i, e);
		if (s == PAP_SEL_SPP && cfg->edges[e].flags & PAP_EF_BACK)
			return sel_error(err, errlen, PAP_EINVAL,
					 "path %zu: edge %zu (%u) is a back "
					 "edge: spp takes acyclic paths, "
					 "psp0..psp3 cyclic ones", k, i, e);
		if (i + 1 < p->len && cfg->edges[e].dst == cfg->exit)
			return sel_error(err, errlen, PAP_EINVAL,
					 "path %zu: edge %zu (%u) leaves the "
					 "function before the path ends", k,
					 i, e);
	}
	if (cfg->edges[p->edges[p->len - 1]].dst != cfg->exit)
		return sel_error(err, errlen, PAP_EINVAL,
				 "path %zu: does not end at EXIT", k);
	return PAP_OK;
}

/* The edge of @sub matching the virtual CFG edge @e, or PAP_NONE. */
static uint32_t sel_match_virtual(const struct pap_cfg *cfg,
				  const struct pap_cfg *sub, uint32_t e)
{
	const struct pap_edge *pe = &cfg->edges[e];
	uint32_t k;

	if (e == cfg->entry_edge)
		return sub->entry_edge;
	for (k = sub->out_off[pe->src]; k < sub->out_off[pe->src + 1]; k++) {
		uint32_t c = sub->out_edge[k];
		const struct pap_edge *q = &sub->edges[c];

		if (q->dst == pe->dst && q->kind == pe->kind &&
		    c != sub->entry_edge)
			return c;
	}
	return PAP_NONE;
}

/*
 * The edges the subgraph numbers (@in): the interesting ones, and the
 * abnormal edges leaving it, closed under the same rule.  No code can go
 * on an abnormal edge, so it cannot terminate: the path goes on in the
 * subgraph, to terminate or decode as not of interest further on.
 */
static int sel_closure(const struct pap_cfg *cfg, const uint8_t *interesting,
		       uint8_t *in)
{
	uint8_t *seen = calloc(cfg->nnodes, 1);
	uint32_t *stack = malloc((size_t)cfg->nnodes * sizeof(uint32_t));
	uint32_t n = 0, e, k;

	if (!seen || !stack) {
		free(seen);
		free(stack);
		return PAP_ENOMEM;
	}
	memcpy(in, interesting, cfg->nedges);
	for (e = 0; e < cfg->nedges; e++) {
		uint32_t v = cfg->edges[e].dst;

		if (in[e] && !seen[v]) {
			seen[v] = 1;
			stack[n++] = v;
		}
	}
	while (n) {
		uint32_t v = stack[--n];

		for (k = cfg->out_off[v]; k < cfg->out_off[v + 1]; k++) {
			uint32_t c = cfg->out_edge[k], w = cfg->edges[c].dst;

			if (in[c] || cfg->edges[c].kind != PAP_EDGE_ABNORMAL)
				continue;
			in[c] = 1;
			if (!seen[w]) {
				seen[w] = 1;
				stack[n++] = w;
			}
		}
	}
	free(seen);
	free(stack);
	return PAP_OK;
}

/*
 * The interesting subgraph as a graph of its own: the same blocks, the
 * edges @in (sel_closure()), and ENTRY, return, cut edges only where a
 * path of interest takes them.  Fills to_plan for those edges.
 */
static int sel_subgraph(struct pap_sel_plan *sp, const uint8_t *in)
{
	const struct pap_cfg *cfg = sp->cfg;
	struct pap_cfg *sub = pap_cfg_new(cfg->nblocks);
	uint32_t e;
	int err;

	if (!sub)
		return PAP_ENOMEM;
	sp->sub = sub;
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];
		int64_t id;

		if (!in[e])
			continue;
		err = PAP_OK;
		if (!(pe->flags & PAP_EF_VIRTUAL)) {
			id = pap_cfg_add_edge(sub, pe->src, pe->dst,
					      (enum pap_edge_kind)pe->kind);
			if (id < 0)
				return (int)id;
			sp->to_plan[e] = (uint32_t)id;
		} else if (pe->src == cfg->entry && e != cfg->entry_edge) {
			err = pap_cfg_mark_resume(sub, pe->dst);
		} else if (pe->dst == cfg->exit && pe->kind == PAP_EDGE_NORMAL) {
			err = pap_cfg_mark_return(sub, pe->src);
		} else if (pap_cfg_is_cut(cfg, e)) {
			err = pap_cfg_mark_cut(sub, pe->src);
		}
		/* a dead end's FAKE edge comes back with finish */
		if (err)
			return err;
	}
	err = pap_cfg_set_entry(sub, cfg->entry_block);
	if (!err)
		err = pap_cfg_finish(sub);
	if (err)
		return err;
	pap_cfg_estimate_weights(sub);
	for (e = 0; e < cfg->nedges; e++) {
		if (!in[e])
			continue;
		if (cfg->edges[e].flags & PAP_EF_VIRTUAL)
			sp->to_plan[e] = sel_match_virtual(cfg, sub, e);
		if (sp->to_plan[e] == PAP_NONE)
			return PAP_EINVAL;	/* cannot happen */
		/* the hot edges stay off the increments, as in full mode */
		sub->edges[sp->to_plan[e]].weight = cfg->edges[e].weight;
	}
	return PAP_OK;
}

uint64_t pap_sel_digit(const struct pap_plan *plan,
		       const struct pap_exec_state *st, uint32_t pe)
{
	uint64_t a = st->a;
	uint32_t i;

	for (i = plan->op_off[pe]; i < plan->op_off[pe + 1]; i++) {
		const struct pap_op *op = &plan->ops[i];

		switch (op->kind) {
		case PAP_OP_INIT:
		case PAP_OP_SET:
			a = op->k;
			break;
		case PAP_OP_ADD:
			a += op->k;
			break;
		case PAP_OP_FOLD:
			return a + op->k;
		}
	}
	return a;
}

struct sel_pair {
	uint32_t edge;
	uint64_t val;
};

static int sel_pair_cmp(const void *x, const void *y)
{
	const struct sel_pair *a = x, *b = y;

	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	return a->val < b->val ? -1 : a->val > b->val;
}

/*
 * The check tables: each path of interest runs through the plan, and
 * at every check on its way the value it has there joins the edge's
 * table.  A prefix of a path of interest thus always passes.
 */
static int sel_tables(struct pap_sel_plan *sp, const struct pap_sel_path *paths,
		      size_t npaths)
{
	const struct pap_cfg *cfg = sp->cfg;
	const struct pap_exec_sink sink = pap_exec_null_sink;
	struct sel_pair *pairs = NULL;
	size_t n = 0, cap = 0, i, k, m;
	uint32_t e;

	for (k = 0; k < npaths; k++) {
		struct pap_exec_state st = { 0, 0 };

		for (i = 0; i < paths[k].len; i++) {
			uint32_t ce = paths[k].edges[i];
			uint32_t pe = sp->to_plan[ce];
			struct sel_pair pr = { ce, 0 };

			if (sp->check[ce] == PAP_SEL_CHECK_T2)
				pr.val = pap_sel_digit(sp->plan, &st, pe);
			pap_exec_edge(sp->plan, &st, pe, &sink);
			if (sp->check[ce] == PAP_SEL_CHECK_T1)
				pr.val = st.r;
			if (sp->check[ce] == PAP_SEL_CHECK_NONE)
				continue;
			if (n == cap && pap_grow(&pairs, &cap, sizeof(*pairs),
						 64)) {
				free(pairs);
				return PAP_ENOMEM;
			}
			pairs[n++] = pr;
		}
	}
	if (n)
		qsort(pairs, n, sizeof(*pairs), sel_pair_cmp);
	sp->check_val = malloc((n + 1) * sizeof(uint64_t));
	if (!sp->check_val) {
		free(pairs);
		return PAP_ENOMEM;
	}
	for (i = 0, m = 0, e = 0; e < cfg->nedges; e++) {
		sp->check_off[e] = (uint32_t)m;
		for (; i < n && pairs[i].edge == e; i++)
			if (m == sp->check_off[e] ||
			    sp->check_val[m - 1] != pairs[i].val)
				sp->check_val[m++] = pairs[i].val;
	}
	sp->check_off[cfg->nedges] = (uint32_t)m;
	sp->ncheck_values = (uint32_t)m;
	free(pairs);
	return PAP_OK;
}

static uint64_t sel_hash(const uint32_t *edges, size_t len)
{
	return pap_fnv1a(edges, len * sizeof(uint32_t));
}

/* Copies the paths of interest and indexes them by their edges. */
static int sel_store_paths(struct pap_sel_plan *sp,
			   const struct pap_sel_path *paths, size_t npaths)
{
	size_t total = 0, k, size = 4;

	for (k = 0; k < npaths; k++)
		total += paths[k].len;
	while (size < 2 * npaths)
		size *= 2;
	sp->path_off = malloc((npaths + 1) * sizeof(uint32_t));
	sp->path_edges = malloc((total + 1) * sizeof(uint32_t));
	sp->hslot = calloc(size, sizeof(uint32_t));
	if (!sp->path_off || !sp->path_edges || !sp->hslot)
		return PAP_ENOMEM;
	sp->hmask = (uint32_t)size - 1;
	total = 0;
	for (k = 0; k < npaths; k++) {
		sp->path_off[k] = (uint32_t)total;
		memcpy(sp->path_edges + total, paths[k].edges,
		       paths[k].len * sizeof(uint32_t));
		total += paths[k].len;
	}
	sp->path_off[npaths] = (uint32_t)total;
	sp->npaths = (uint32_t)npaths;
	for (k = 0; k < npaths; k++) {
		uint32_t h;

		if (pap_sel_lookup(sp, paths[k].edges, paths[k].len) !=
		    PAP_SEL_OTHER)
			continue;	/* a repeat keeps the lower number */
		h = (uint32_t)sel_hash(paths[k].edges, paths[k].len) &
		    sp->hmask;
		while (sp->hslot[h])
			h = (h + 1) & sp->hmask;
		sp->hslot[h] = (uint32_t)k + 1;
	}
	return PAP_OK;
}

uint32_t pap_sel_lookup(const struct pap_sel_plan *sp, const uint32_t *edges,
			size_t len)
{
	uint32_t h = (uint32_t)sel_hash(edges, len) & sp->hmask;

	for (; sp->hslot[h]; h = (h + 1) & sp->hmask) {
		uint32_t k = sp->hslot[h] - 1;
		uint32_t off = sp->path_off[k];

		if (sp->path_off[k + 1] - off == len &&
		    !memcmp(sp->path_edges + off, edges,
			    len * sizeof(uint32_t)))
			return k;
	}
	return PAP_SEL_OTHER;
}

/* The key of what an activation emitted (the decode table's order);
 * @out NULL: just its length. */
static size_t sel_record_key(const struct pap_activation *act, uint64_t *out)
{
	size_t n = 0, i;

#define PUT(x) do { if (out) out[n] = (x); n++; } while (0)
	PUT(act->nrecords);
	PUT(act->nids);
	for (i = 0; i < act->nids; i++)
		PUT(act->ids[i]);
	PUT(act->nbps);
	for (i = 0; i < act->nbps; i++) {
		PUT(act->bps[i].site);
		PUT(act->bps[i].r);
	}
	PUT(act->final);
#undef PUT
	return n;
}

/* The path number whose record is @key, or PAP_SEL_OTHER. */
static uint32_t sel_record_find(const struct pap_sel_plan *sp,
				const uint64_t *key, size_t n)
{
	uint32_t h = (uint32_t)pap_fnv1a(key, n * sizeof(*key)) & sp->hmask;

	for (; sp->rslot[h]; h = (h + 1) & sp->hmask) {
		uint32_t k = sp->rslot[h] - 1;
		uint32_t off = sp->rec_off[k];

		if (sp->rec_off[k + 1] - off == n &&
		    !memcmp(sp->rec_val + off, key, n * sizeof(*key)))
			return k;
	}
	return PAP_SEL_OTHER;
}

/* The decode table: each path of interest runs through the plan and
 * what it emits is indexed. */
static int sel_records(struct pap_sel_plan *sp)
{
	struct pap_activation act;
	struct pap_exec_sink sink = pap_activation_sink(&act);
	size_t cap = 0, n = 0, len;
	uint32_t k, i;
	int err = PAP_OK;

	pap_activation_init(&act);
	sp->rec_off = malloc(((size_t)sp->npaths + 1) * sizeof(uint32_t));
	sp->rslot = calloc((size_t)sp->hmask + 1, sizeof(uint32_t));
	if (!sp->rec_off || !sp->rslot)
		err = PAP_ENOMEM;
	for (k = 0; k < sp->npaths && !err; k++) {
		struct pap_exec_state st = { 0, 0 };
		uint32_t h;

		pap_activation_reset(&act);
		for (i = sp->path_off[k]; i < sp->path_off[k + 1]; i++)
			pap_exec_edge(sp->plan, &st,
				      sp->to_plan[sp->path_edges[i]], &sink);
		len = sel_record_key(&act, NULL);
		while (!act.oom && n + len > cap)
			if (pap_grow(&sp->rec_val, &cap, sizeof(uint64_t), 256))
				break;
		if (act.oom || n + len > cap || n + len > UINT32_MAX) {
			err = PAP_ENOMEM;
			break;
		}
		sp->rec_off[k] = (uint32_t)n;
		sel_record_key(&act, sp->rec_val + n);
		if (sel_record_find(sp, sp->rec_val + n, len) ==
		    PAP_SEL_OTHER) {
			h = (uint32_t)pap_fnv1a(sp->rec_val + n,
						len * sizeof(uint64_t)) &
			    sp->hmask;
			while (sp->rslot[h])
				h = (h + 1) & sp->hmask;
			sp->rslot[h] = k + 1;
		}
		n += len;
		sp->rec_off[k + 1] = (uint32_t)n;
	}
	pap_activation_free(&act);
	return err;
}

int pap_sel_match(const struct pap_sel_plan *sp,
		  const struct pap_activation *act, uint32_t *path)
{
	size_t n = sel_record_key(act, NULL);
	uint64_t *key = malloc(n * sizeof(*key));

	*path = PAP_SEL_OTHER;
	if (sp->aut) {
		/* follow: the record is the path's number */
		free(key);
		if (act->nrecords == 1 && !act->nids && !act->nbps &&
		    act->final < sp->npaths)
			*path = (uint32_t)act->final;
		return PAP_OK;
	}
	if (!key)
		return PAP_ENOMEM;
	sel_record_key(act, key);
	*path = sel_record_find(sp, key, n);
	free(key);
	return PAP_OK;
}

/* FNV-1a steps over the 4 bytes of @v, least significant first. */
static uint64_t sel_fnv_u32(uint64_t h, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ull;
	return h;
}

uint64_t pap_sel_stamp(const struct pap_sel_plan *sp)
{
	char head[128];
	int n = snprintf(head, sizeof(head), "sel %d plan %d %s %s %llu %u\n",
			 PAP_SEL_FORMAT, PAP_PLAN_FORMAT,
			 pap_sel_strategy_name(sp->strategy),
			 pap_mode_name(sp->plan->mode),
			 (unsigned long long)sp->max_paths, sp->npaths);
	uint64_t h = pap_fnv1a(head, (size_t)n);
	uint32_t k, i;

	for (k = 0; k < sp->npaths; k++) {
		h = sel_fnv_u32(h, sp->path_off[k + 1] - sp->path_off[k]);
		for (i = sp->path_off[k]; i < sp->path_off[k + 1]; i++)
			h = sel_fnv_u32(h, sp->path_edges[i]);
	}
	return h;
}

/* Which edges terminate, which check, and what it all costs. */
static void sel_mark(struct pap_sel_plan *sp)
{
	const struct pap_cfg *cfg = sp->cfg;
	const struct pap_plan *p = sp->plan;
	int t2 = (sp->strategy == PAP_SEL_PSP1 ||
		  sp->strategy == PAP_SEL_PSP3 ||
		  sp->strategy == PAP_SEL_FOLLOW) &&
		 p->mode == PAP_MODE_PAP_EPP;
	uint32_t e;

	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *ce = &cfg->edges[e];
		uint32_t pe = sp->to_plan[e];
		uint32_t i;

		if (!sel_edge_runs(cfg, e))
			continue;
		if (pe == PAP_NONE) {
			/* leaves the subgraph from inside it: T3 */
			if (sp->sub->reachable[ce->src]) {
				sp->term[e] = 1;
				sp->nterm_edges++;
			}
			continue;
		}
		if (sp->strategy == PAP_SEL_PSP0 && ce->flags & PAP_EF_BACK)
			sp->check[e] = PAP_SEL_CHECK_T1;
		if (t2 && p->cfg->edges[pe].dst != p->cfg->exit)
			for (i = p->op_off[pe]; i < p->op_off[pe + 1]; i++)
				if (p->ops[i].kind == PAP_OP_FOLD)
					sp->check[e] = PAP_SEL_CHECK_T2;
		sp->ncheck_sites += sp->check[e] != PAP_SEL_CHECK_NONE;
		if (ce->kind != PAP_EDGE_FAKE && pap_plan_nops(p, pe))
			sp->nprobe_sites++;
	}
}

void pap_sel_free(struct pap_sel_plan *sp)
{
	if (!sp)
		return;
	pap_sel_auto_free(sp->aut);
	pap_plan_free(sp->plan);
	pap_cfg_free(sp->sub);
	free(sp->to_plan);
	free(sp->interesting);
	free(sp->term);
	free(sp->check);
	free(sp->check_off);
	free(sp->check_val);
	free(sp->to_cfg);
	free(sp->path_off);
	free(sp->path_edges);
	free(sp->hslot);
	free(sp->rec_off);
	free(sp->rec_val);
	free(sp->rslot);
	free(sp);
}

/*
 * Strategy follow: the automaton, which makes the T2 checks needless
 * (a digit that no live path expects ends the activation there); when
 * it is too large, the plan stays psp3's.
 */
static int sel_follow(struct pap_sel_plan *sp)
{
	uint32_t e;
	int rc = pap_sel_auto_build(sp, &sp->aut);

	if (rc || !sp->aut)
		return rc;
	for (e = 0; e < sp->cfg->nedges; e++)
		sp->check[e] = PAP_SEL_CHECK_NONE;
	sp->ncheck_sites = 0;
	sp->ncheck_values = 0;
	return PAP_OK;
}

int pap_sel_build(const struct pap_cfg *cfg, enum pap_sel_strategy s,
		  const struct pap_sel_path *paths, size_t npaths,
		  const struct pap_sel_opts *opts, struct pap_sel_plan **out,
		  char *err, size_t errlen)
{
	struct pap_plan_opts po = { opts ? opts->max_paths : 0 };
	enum pap_mode mode = PAP_MODE_PAP_EPP;
	struct pap_sel_plan *sp;
	size_t k, i;
	uint32_t e, ninteresting = 0;
	int rc;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!cfg || !cfg->finished || (unsigned)s >= PAP_SEL_NSTRATEGIES ||
	    !npaths || npaths >= UINT32_MAX)
		return sel_error(err, errlen, PAP_EINVAL,
				 "no paths of interest or no graph");
	if (s == PAP_SEL_SPP)
		mode = PAP_MODE_EPP;
	else if (opts && opts->plain_pap)
		mode = PAP_MODE_PAP;
	if (mode == PAP_MODE_PAP &&
	    (s == PAP_SEL_PSP1 || s == PAP_SEL_PSP3))
		return sel_error(err, errlen, PAP_EINVAL,
				 "%s checks local codes (T2), which plain "
				 "pap has not", pap_sel_strategy_name(s));
	for (k = 0; k < npaths; k++) {
		rc = sel_check_path(cfg, s, &paths[k], k, err, errlen);
		if (rc)
			return rc;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return PAP_ENOMEM;
	sp->strategy = s;
	sp->cfg = cfg;
	sp->max_paths = po.max_paths;
	sp->to_plan = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	sp->interesting = calloc((size_t)cfg->nedges + 1, 1);
	sp->term = calloc((size_t)cfg->nedges + 1, 1);
	sp->check = calloc((size_t)cfg->nedges + 1, 1);
	sp->check_off = calloc((size_t)cfg->nedges + 1, sizeof(uint32_t));
	rc = PAP_ENOMEM;
	if (!sp->to_plan || !sp->interesting || !sp->term || !sp->check ||
	    !sp->check_off)
		goto fail;
	for (k = 0; k < npaths; k++)
		for (i = 0; i < paths[k].len; i++)
			sp->interesting[paths[k].edges[i]] = 1;
	for (e = 0; e < cfg->nedges; e++) {
		sp->to_plan[e] = sel_on_subgraph(s) ? PAP_NONE : e;
		ninteresting += sp->interesting[e];
	}
	if (sel_on_subgraph(s)) {
		uint8_t *in = malloc((size_t)cfg->nedges + 1);

		rc = in ? sel_closure(cfg, sp->interesting, in) : PAP_ENOMEM;
		if (!rc)
			rc = sel_subgraph(sp, in);
		free(in);
		if (rc)
			goto fail;
	}
	rc = pap_plan_build(sel_on_subgraph(s) ? sp->sub : cfg, mode, &po,
			    &sp->plan);
	if (rc == PAP_ELIMIT && mode == PAP_MODE_EPP) {
		/* ids beyond the limit: the register folds them instead */
		mode = PAP_MODE_PAP_EPP;
		rc = pap_plan_build(sp->sub, mode, &po, &sp->plan);
	}
	if (rc) {
		sel_error(err, errlen, rc, "numbering the %s: %s",
			  sel_on_subgraph(s) ? "interesting subgraph" :
					       "graph", pap_strerror(rc));
		goto fail;
	}
	sp->to_cfg = malloc(((size_t)sp->plan->cfg->nedges + 1) *
			    sizeof(uint32_t));
	if (!sp->to_cfg) {
		rc = PAP_ENOMEM;
		goto fail;
	}
	for (e = 0; e < sp->plan->cfg->nedges; e++)
		sp->to_cfg[e] = PAP_NONE;
	for (e = 0; e < cfg->nedges; e++)
		if (sp->to_plan[e] != PAP_NONE)
			sp->to_cfg[sp->to_plan[e]] = e;
	sel_mark(sp);
	rc = sel_tables(sp, paths, npaths);
	if (!rc)
		rc = sel_store_paths(sp, paths, npaths);
	if (!rc)
		rc = sel_records(sp);
	if (!rc && s == PAP_SEL_FOLLOW)
		rc = sel_follow(sp);
	if (rc)
		goto fail;
	snprintf(sp->note, sizeof(sp->note),
		 "%s: %s over %s (%u of %u edges interesting), %u probe "
		 "sites, %u termination edges, %u checks of %u values%s",
		 pap_sel_strategy_name(s), pap_mode_name(sp->plan->mode),
		 sp->sub ? "the interesting subgraph" : "the whole graph",
		 ninteresting, cfg->nedges, sp->nprobe_sites, sp->nterm_edges,
		 sp->ncheck_sites, sp->ncheck_values,
		 s == PAP_SEL_FOLLOW && !sp->aut ?
			"; no automaton (too large, a step on a cut, or "
			"no step before a record), psp3's probes" :
		 sp->plan->fell_back ? "; pap-epp fell back to pap, no T2" :
		 s == PAP_SEL_SPP && sp->plan->mode != PAP_MODE_EPP ?
			"; ids beyond the limit, folded as pap-epp" : "");
	*out = sp;
	return PAP_OK;
fail:
	pap_sel_free(sp);
	return rc;
}

/* EPP: the pieces an activation counted, joined at their fold edges. */
static int sel_decode_epp(const struct pap_sel_plan *sp,
			  const struct pap_activation *act,
			  struct pap_path *out)
{
	struct pap_path piece;
	uint32_t prev = PAP_NONE;
	size_t c;
	int err = PAP_OK;

	if (!act->nids || act->nrecords || act->nbps)
		return PAP_ECORRUPT;
	pap_path_init(&piece);
	for (c = 0; c < act->nids && !err; c++) {
		piece.len = 0;
		err = pap_decode_bl(sp->plan, act->ids[c], &piece);
		if (!err && (piece.start_fold != prev ||
			     (c + 1 < act->nids) != (piece.end_fold != PAP_NONE)))
			err = PAP_ECORRUPT;
		if (!err)
			err = pap_path_append(out, piece.edges, piece.len);
		if (!err && piece.end_fold != PAP_NONE)
			err = pap_path_push(out, piece.end_fold);
		prev = piece.end_fold;
	}
	pap_path_free(&piece);
	return err;
}

int pap_sel_decode(const struct pap_sel_plan *sp,
		   const struct pap_activation *act, uint32_t *path)
{
	struct pap_path p;
	size_t i;
	int err;

	*path = PAP_SEL_OTHER;
	if (sp->aut) {
		/* follow: a path's number, or npaths for any other */
		if (act->nrecords != 1 || act->nids || act->nbps ||
		    act->final > sp->npaths)
			return PAP_ECORRUPT;
		if (act->final < sp->npaths)
			*path = (uint32_t)act->final;
		return PAP_OK;
	}
	pap_path_init(&p);
	if (sp->plan->mode == PAP_MODE_EPP)
		err = sel_decode_epp(sp, act, &p);
	else if (act->nrecords != 1 || act->nids)
		err = PAP_ECORRUPT;
	else
		err = pap_decode_path(sp->plan, act->bps, act->nbps,
				      act->final, &p);
	for (i = 0; !err && i < p.len; i++) {
		p.edges[i] = sp->to_cfg[p.edges[i]];
		if (p.edges[i] == PAP_NONE)
			err = PAP_ECORRUPT;
	}
	if (!err)
		*path = pap_sel_lookup(sp, p.edges, p.len);
	pap_path_free(&p);
	return err;
}

int pap_sel_path_from_numbers(const struct pap_cfgtext *g,
			      const uint32_t *numbers, size_t n,
			      uint32_t *edges, char *err, size_t errlen)
{
	uint32_t *blocks = malloc((n + 1) * sizeof(*blocks));
	char name[32];
	size_t i;
	int r;

	if (!blocks)
		return sel_error(err, errlen, PAP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "b%u", numbers[i]);
		blocks[i] = pap_cfgtext_block(g, name);
		if (blocks[i] == PAP_NONE) {
			free(blocks);
			return sel_error(err, errlen, PAP_EINVAL,
					 "no block %u", numbers[i]);
		}
	}
	r = pap_sel_path_from_blocks(g->cfg, blocks, n, edges, err, errlen);
	free(blocks);
	return r;
}

int pap_sel_path_from_blocks(const struct pap_cfg *cfg,
			     const uint32_t *blocks, size_t n,
			     uint32_t *edges, char *err, size_t errlen)
{
	size_t i;

	if (!n)
		return sel_error(err, errlen, PAP_EINVAL, "an empty path");
	for (i = 0; i <= n; i++) {
		uint32_t from = i ? blocks[i - 1] : cfg->entry;
		uint32_t to = i < n ? blocks[i] : cfg->exit;
		uint32_t k, found = PAP_NONE, nfound = 0;

		if (from >= cfg->nnodes || to >= cfg->nnodes ||
		    (i < n && to >= cfg->nblocks))
			return sel_error(err, errlen, PAP_EINVAL,
					 "block %zu: no block %u", i,
					 i < n ? to : from);
		if (i == 0 && to == cfg->entry_block) {
			edges[0] = cfg->entry_edge;
			continue;
		}
		for (k = cfg->out_off[from]; k < cfg->out_off[from + 1]; k++) {
			uint32_t c = cfg->out_edge[k];

			if (cfg->edges[c].dst != to || !sel_edge_runs(cfg, c))
				continue;
			/* at EXIT a return is preferred to a cut */
			if (i == n && found != PAP_NONE &&
			    cfg->edges[c].kind == PAP_EDGE_FAKE)
				continue;
			if (i == n && found != PAP_NONE &&
			    cfg->edges[found].kind == PAP_EDGE_FAKE) {
				found = c;
				continue;
			}
			found = c;
			nfound++;
		}
		if (!nfound && i == n)
			return sel_error(err, errlen, PAP_EINVAL,
					 "block %zu (%u) does not leave the "
					 "function", n - 1, from);
		if (!nfound && !i)
			return sel_error(err, errlen, PAP_EINVAL,
					 "block 0 (%u) is neither the entry "
					 "block nor a resume block", to);
		if (!nfound)
			return sel_error(err, errlen, PAP_EINVAL,
					 "block %zu: no edge from block %u to "
					 "block %u", i, from, to);
		if (nfound > 1)
			return sel_error(err, errlen, PAP_EINVAL,
					 "blocks %u and %u are joined by "
					 "%u edges: blocks cannot say which",
					 from, to, nfound);
		edges[i] = found;
	}
	return PAP_OK;
}
