/* SPDX-License-Identifier: MIT */
/*
 * callsim.h - the call-sequence tests' oracle (test-only): random
 * programs (functions with random CFGs and call sites calling each other
 * directly, through pointers, into uninstrumented code that calls back,
 * by tail calls, self tail calls, setjmp and longjmp, throws) and a
 * simulator that walks
 * them block by block and writes the events it performs.  It never looks
 * at the call-site graphs.  Included by test_callseq.c and test_callrt.c
 * after cmocka.h, callseq.h, fnkey.h and testlib.h.
 */
#ifndef PAP_TEST_CALLSIM_H
#define PAP_TEST_CALLSIM_H
#define NONE PAP_NONE
#define MAXFN 12
#define MAXDEPTH 60

/* ---- a program ---- */

struct tfn {
	struct pap_cfg *cfg;
	uint32_t nsites;
	struct pap_site *sites;
	uint32_t *callee, *ncl;
	uint32_t **cl;
	uint32_t *bfirst, *bcount;	/* per block: its sites k.. */
	uint32_t *dist;			/* per block: edges to return */
	int has_tail;			/* a tail site (not a self one) */
	int has_self;			/* a self tail site */
	struct pap_callgraph g;
};

struct tprog {
	uint32_t nfn;
	struct tfn f[MAXFN];
	struct pap_cs_fn cs[MAXFN];
	struct pap_cs_prog prog;
	char key[MAXFN][32];		/* each function's key */
};

static void prog_free(struct tprog *p)
{
	uint32_t i, k;

	for (i = 0; i < p->nfn; i++) {
		struct tfn *f = &p->f[i];

		for (k = 0; k < f->nsites; k++)
			free(f->cl[k]);
		free(f->cl);
		free(f->sites);
		free(f->callee);
		free(f->ncl);
		free(f->bfirst);
		free(f->bcount);
		free(f->dist);
		pap_callgraph_free(&f->g);
		pap_cfg_free(f->cfg);
	}
}

/* Is there a self tail site in block @b? */
static int self_block(const struct tfn *f, uint32_t b)
{
	uint32_t i;

	for (i = 0; i < f->bcount[b]; i++)
		if (f->sites[f->bfirst[b] + i - 1].kind == PAP_SITE_SELFTAIL)
			return 1;
	return 0;
}

/* Blocks to a return, over normal edges (the walk's way out), not
 * through a block with a self tail site, which would begin again. */
static void distances(struct tfn *f)
{
	const struct pap_cfg *cfg = f->cfg;
	uint32_t n = cfg->nblocks, b, i, changed = 1;

	f->dist = malloc(n * sizeof(*f->dist));
	assert_non_null(f->dist);
	for (b = 0; b < n; b++)
		f->dist[b] = UINT32_MAX;
	while (changed) {
		changed = 0;
		for (i = 0; i < cfg->nedges; i++) {
			const struct pap_edge *e = &cfg->edges[i];
			uint32_t d;

			if (e->kind != PAP_EDGE_NORMAL || e->src >= n ||
			    (e->flags & PAP_EF_DEAD) || self_block(f, e->src))
				continue;
			d = e->dst == cfg->exit ? 0 :
			    e->dst < n && f->dist[e->dst] != UINT32_MAX ?
			    f->dist[e->dst] + 1 : UINT32_MAX;
			if (d < f->dist[e->src]) {
				f->dist[e->src] = d;
				changed = 1;
			}
		}
	}
}

/*
 * @f's CFG again, now with one or two abnormal edges (to landing pads)
 * from the block of each site that may throw: some of the calls that end
 * their block.
 */
static void add_landing_pads(struct tl_rng *g, struct tfn *f)
{
	struct pap_cfg *old = f->cfg, *cfg;
	uint32_t n = old->nblocks, i, k, j;
	int any = 0;

	for (k = 1; k <= f->nsites; k++) {
		struct pap_site *x = &f->sites[k - 1];
		uint32_t b = x->block;

		if ((x->kind == PAP_SITE_DIRECT ||
		     x->kind == PAP_SITE_INDIRECT) &&
		    k == f->bfirst[b] + f->bcount[b] - 1 &&
		    tl_below(g, 4) == 0) {
			x->flags |= PAP_SITE_EH;
			any = 1;
		}
	}
	if (!any)
		return;
	cfg = pap_cfg_new(n);
	assert_non_null(cfg);
	for (i = 0; i < old->nedges; i++) {
		const struct pap_edge *e = &old->edges[i];

		if (!(e->flags & PAP_EF_VIRTUAL))
			assert_true(pap_cfg_add_edge(cfg, e->src, e->dst,
				(enum pap_edge_kind)e->kind) >= 0);
	}
	assert_int_equal(pap_cfg_set_entry(cfg, old->entry_block), 0);
	for (i = 0; i < n; i++)
		if (old->role[i] & PAP_ROLE_RETURN)
			assert_int_equal(pap_cfg_mark_return(cfg, i), 0);
	for (k = 1; k <= f->nsites; k++)
		if (f->sites[k - 1].flags & PAP_SITE_EH)
			for (j = 1 + (uint32_t)tl_below(g, 2); j; j--)
				assert_true(pap_cfg_add_edge(cfg,
					f->sites[k - 1].block,
					(uint32_t)tl_below(g, n),
					PAP_EDGE_ABNORMAL) >= 0);
	assert_int_equal(pap_cfg_finish(cfg), 0);
	pap_cfg_free(old);
	f->cfg = cfg;
}

static void make_prog(struct tl_rng *g, struct tprog *p)
{
	uint32_t i, k, b;

	memset(p, 0, sizeof(*p));
	p->nfn = 2 + (uint32_t)tl_below(g, MAXFN - 1);
	for (i = 0; i < p->nfn; i++) {
		struct tfn *f = &p->f[i];
		struct tl_cfg_params cp;

		memset(&cp, 0, sizeof(cp));
		cp.nblocks = 1 + (uint32_t)tl_below(g, 8);
		cp.extra_edges = (uint32_t)tl_below(g, cp.nblocks + 1);
		cp.self_loops = (uint32_t)tl_below(g, 2);
		cp.forward_only = tl_below(g, 3) == 0;
		f->cfg = tl_random_cfg(g, &cp);
		assert_non_null(f->cfg);
		f->nsites = (uint32_t)tl_below(g, 2 * cp.nblocks + 1);
		f->sites = calloc(f->nsites + 1, sizeof(*f->sites));
		f->callee = calloc(f->nsites + 1, sizeof(*f->callee));
		f->ncl = calloc(f->nsites + 1, sizeof(*f->ncl));
		f->cl = calloc(f->nsites + 1, sizeof(*f->cl));
		f->bfirst = calloc(cp.nblocks, sizeof(*f->bfirst));
		f->bcount = calloc(cp.nblocks, sizeof(*f->bcount));
		assert_true(f->sites && f->callee && f->ncl && f->cl &&
			    f->bfirst && f->bcount);
		/* sites sorted by block, so each block's are k, k+1, ... */
		for (k = 0; k < f->nsites; k++)
			f->sites[k].block = (uint32_t)tl_below(g, cp.nblocks);
		for (k = 1; k < f->nsites; k++) {
			uint32_t j = k, v = f->sites[k].block;

			while (j && f->sites[j - 1].block > v) {
				f->sites[j].block = f->sites[j - 1].block;
				j--;
			}
			f->sites[j].block = v;
		}
		for (k = f->nsites; k >= 1; k--) {
			b = f->sites[k - 1].block;
			f->bfirst[b] = k;
			f->bcount[b]++;
		}
	}
	for (i = 0; i < p->nfn; i++) {
		struct tfn *f = &p->f[i];

		for (k = 0; k < f->nsites; k++) {
			struct pap_site *s = &f->sites[k];
			uint64_t x = tl_below(g, 100);

			f->callee[k] = NONE;
			if (x < 55) {
				s->kind = PAP_SITE_DIRECT;
				if (tl_below(g, 4))
					f->callee[k] = (uint32_t)
						tl_below(g, p->nfn);
				if (f->callee[k] == NONE || tl_below(g, 3) == 0)
					s->flags |= PAP_SITE_MAYBE_OUT;
			} else if (x < 75) {
				uint32_t j, n = (uint32_t)tl_below(g, 4);

				s->kind = PAP_SITE_INDIRECT;
				s->flags |= PAP_SITE_MAYBE_OUT;
				f->cl[k] = calloc(n + 1, sizeof(uint32_t));
				assert_non_null(f->cl[k]);
				/* distinct members */
				for (j = 0; j < n; j++) {
					uint32_t c = (uint32_t)
						tl_below(g, p->nfn), q;

					for (q = 0; q < f->ncl[k]; q++)
						if (f->cl[k][q] == c)
							break;
					if (q == f->ncl[k])
						f->cl[k][f->ncl[k]++] = c;
				}
			} else if (x < 87 && tl_below(g, 3) == 0) {
				/* a direct tail call of the function itself */
				s->kind = PAP_SITE_SELFTAIL;
				f->has_self = 1;
				f->callee[k] = i;
			} else if (x < 87) {
				s->kind = PAP_SITE_TAIL;
				f->has_tail = 1;
				if (tl_below(g, 4))
					f->callee[k] = (uint32_t)
						tl_below(g, p->nfn);
			} else if (x < 95) {
				s->kind = PAP_SITE_RETURNS_TWICE;
				s->flags |= PAP_SITE_MAYBE_OUT;
			} else {
				s->kind = PAP_SITE_NORETURN;
			}
		}
	}
	/* a function whose every way out passes a self tail site would
	 * never end: its self tail sites are tail sites of itself then */
	for (i = 0; i < p->nfn; i++) {
		struct tfn *f = &p->f[i];

		if (!f->has_self)
			continue;
		distances(f);
		if (f->dist[f->cfg->entry_block] == UINT32_MAX) {
			f->has_self = 0;
			for (k = 0; k < f->nsites; k++)
				if (f->sites[k].kind == PAP_SITE_SELFTAIL) {
					f->sites[k].kind = PAP_SITE_TAIL;
					f->has_tail = 1;
				}
		}
		free(f->dist);
		f->dist = NULL;
	}
	for (i = 0; i < p->nfn; i++) {
		struct tfn *f = &p->f[i];
		int any_tail = 0;

		for (k = 0; k < p->nfn; k++)
			any_tail |= p->f[k].has_tail;
		for (k = 0; k < f->nsites; k++) {
			struct pap_site *s = &f->sites[k];

			if ((s->kind == PAP_SITE_DIRECT &&
			     f->callee[k] != NONE &&
			     p->f[f->callee[k]].has_tail) ||
			    (s->kind == PAP_SITE_INDIRECT && any_tail))
				s->flags |= PAP_SITE_MAYBE_TAIL;
		}
		add_landing_pads(g, f);
		distances(f);
		assert_int_equal(pap_callsites_build(f->cfg, f->sites,
						     f->nsites, &f->g), 0);
	}
	for (i = 0; i < p->nfn; i++) {
		char *key = p->key[i];

		snprintf(key, sizeof(p->key[i]), "fn%u:%016x", i, i * 7919u);
		p->cs[i].g = &p->f[i].g;
		p->cs[i].callee = p->f[i].callee;
		p->cs[i].ncluster = p->f[i].ncl;
		p->cs[i].cluster = (const uint32_t *const *)p->f[i].cl;
		p->cs[i].id = pap_fnid(key);
	}
	p->prog.nfn = p->nfn;
	p->prog.fn = p->cs;
}

/* ---- the simulator ---- */

enum { S_RET, S_UNWIND, S_END };

struct sframe {
	uint32_t fn;
	uint32_t site;			/* call in progress, 0: none */
	uint32_t armed[4], narmed;	/* setjmp sites that may resume */
};

struct sim {
	struct tl_rng *g;
	struct tprog *p;
	struct pap_cev *ev;
	size_t n, cap, soft, hard;
	struct sframe fr[MAXDEPTH + 2];
	uint32_t lj_depth, lj_site;
	int lj_eh;			/* a throw, not a longjmp */
	uint32_t p_cb, p_lj;	/* chances in 100 */
};

static void ev_add(struct sim *s, uint8_t kind, uint32_t fn, uint32_t site,
		   uint8_t cls, uint32_t arg)
{
	struct pap_cev *v;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		assert_non_null(s->ev);
	}
	v = &s->ev[s->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->fn = fn;
	v->site = site;
	v->cls = cls;
	v->arg = arg;
}

static int run_fn(struct sim *s, uint32_t fn, int outside, uint32_t d,
		  int *chain);

/* Is @q in a call that may throw? */
static int may_throw(const struct sim *s, const struct sframe *q)
{
	return q->site &&
	       (s->p->f[q->fn].sites[q->site - 1].flags & PAP_SITE_EH);
}

/*
 * Uninstrumented code running while frames 0..d-1 wait: callbacks (at
 * depth d), then back, or a longjmp to an armed frame, or exit.
 */
static int run_outside(struct sim *s, uint32_t d, int noreturn)
{
	uint32_t ncb = 0, t, r;
	int chain;

	while (s->n < s->soft && d < MAXDEPTH && ncb < 3 &&
	       tl_below(s->g, 100) < s->p_cb) {
		uint32_t fn = (uint32_t)tl_below(s->g, s->p->nfn);

		ev_add(s, PAP_CEV_OUT_ENTER, fn, 0, 0, 0);
		r = (uint32_t)run_fn(s, fn, 1, d, &chain);
		if (r != S_RET)
			return (int)r;
		ncb++;
	}
	if (noreturn || tl_below(s->g, 100) < s->p_lj) {
		uint32_t cand[MAXDEPTH + 2], nc = 0;

		/* setjmp receivers, and calls that may throw */
		for (t = 0; t < d; t++)
			if (s->fr[t].narmed || may_throw(s, &s->fr[t]))
				cand[nc++] = t;
		if (nc && (noreturn ? tl_below(s->g, 3) : 1)) {
			struct sframe *q;

			t = cand[tl_below(s->g, nc)];
			q = &s->fr[t];
			s->lj_depth = t;
			s->lj_eh = !q->narmed ||
				   (may_throw(s, q) && tl_below(s->g, 2));
			s->lj_site = s->lj_eh ? q->site :
				     q->armed[tl_below(s->g, q->narmed)];
			ev_add(s, PAP_CEV_LONGJMP, q->fn,
			       pap_cg_src(s->lj_site, s->lj_eh ? 3 : 1), 0,
			       d - 1 - t);
			return S_UNWIND;
		}
		if (noreturn)
			return S_END;
	}
	return S_RET;
}

/* The callee entered at @k, or NONE for uninstrumented code. */
static uint32_t pick_callee(struct sim *s, const struct tfn *f, uint32_t k)
{
	const struct pap_site *x = &f->sites[k - 1];
	uint64_t y = tl_below(s->g, 100);

	if (x->kind == PAP_SITE_INDIRECT) {
		if (y < 50 && f->ncl[k - 1])
			return f->cl[k - 1][tl_below(s->g, f->ncl[k - 1])];
		if (y < 85)
			return (uint32_t)tl_below(s->g, s->p->nfn);
		return NONE;
	}
	if (f->callee[k - 1] == NONE ||
	    ((x->flags & PAP_SITE_MAYBE_OUT) && y < 25))
		return NONE;
	return f->callee[k - 1];
}

/* Runs an activation of @fn at depth @d, entered already (its ENTER or
 * OUT_ENTER written).  *@chain: it ended by a tail call. */
static int run_fn(struct sim *s, uint32_t fn, int outside, uint32_t d,
		  int *chain)
{
	struct tfn *f;
	const struct pap_cfg *cfg;
	uint32_t b, i, k, c;
	int r, sub;

	*chain = 0;
again:
	f = &s->p->f[fn];
	cfg = f->cfg;
	b = cfg->entry_block;
	i = 0;
	s->fr[d].fn = fn;
	s->fr[d].site = 0;
	s->fr[d].narmed = 0;
	for (;;) {
		for (; i < f->bcount[b]; i++) {
			const struct pap_site *x;

			k = f->bfirst[b] + i;
			x = &f->sites[k - 1];
			if (x->kind == PAP_SITE_SELFTAIL) {
				/* the function again, entered as it was; no
				 * chain for its caller's return */
				/* no end here: a run ends in a call; past
				 * the soft bound the walk's way out passes
				 * no self tail site */
				ev_add(s, PAP_CEV_TAIL, fn, k, 0, 0);
				ev_add(s, outside ? PAP_CEV_OUT_ENTER :
				       PAP_CEV_ENTER, fn, 0, 0, 0);
				goto again;
			}
			if (x->kind == PAP_SITE_TAIL) {
				/* the chain goes on in this frame */
				ev_add(s, PAP_CEV_TAIL, fn, k, 0, 0);
				c = f->callee[k - 1];
				*chain = !outside;
				if (s->n > s->hard)
					return S_END;
				if (c == NONE)
					return run_outside(s, d, 0);
				ev_add(s, outside ? PAP_CEV_OUT_ENTER :
				       PAP_CEV_ENTER, c, 0, 0, 0);
				fn = c;
				goto again;
			}
			ev_add(s, PAP_CEV_CALL, fn, k, 0, 0);
			s->fr[d].site = k;
			c = NONE;
			sub = 0;
			if (s->n > s->hard || d + 1 >= MAXDEPTH)
				return S_END;
			if (x->kind == PAP_SITE_NORETURN) {
				r = run_outside(s, d + 1, 1);
			} else if (x->kind == PAP_SITE_RETURNS_TWICE) {
				if (s->fr[d].narmed < 4)
					s->fr[d].armed[s->fr[d].narmed++] = k;
				r = S_RET;
				c = NONE;
				sub = 0;
			} else {
				c = pick_callee(s, f, k);
				sub = 0;
				if (c != NONE) {
					ev_add(s, PAP_CEV_ENTER, c, 0, 0, 0);
					r = run_fn(s, c, 0, d + 1, &sub);
				} else {
					r = run_outside(s, d + 1, 0);
				}
				s->fr[d].fn = fn;
			}
			s->fr[d].site = 0;
			if (r == S_UNWIND && s->lj_depth == d && s->lj_eh) {
				/* caught here: on to a landing pad */
				uint32_t pads[8], np = 0, j;

				b = f->sites[s->lj_site - 1].block;
				for (j = cfg->out_off[b];
				     j < cfg->out_off[b + 1] && np < 8; j++)
					if (cfg->edges[cfg->out_edge[j]].kind ==
					    PAP_EDGE_ABNORMAL)
						pads[np++] = cfg->edges[
							cfg->out_edge[j]].dst;
				assert_true(np > 0);
				b = pads[tl_below(s->g, np)];
				i = UINT32_MAX;	/* i++ makes 0 */
				continue;
			}
			if (r == S_UNWIND && s->lj_depth == d) {
				/* resumed here, after the setjmp site (the
				 * loop's i++) */
				k = s->lj_site;
				b = f->sites[k - 1].block;
				i = k - f->bfirst[b];
				continue;
			}
			if (r != S_RET)
				return r;
			ev_add(s, PAP_CEV_RETURN, fn, k,
			       c == NONE ? 1 : sub ? 2 : 0, 0);
		}
		/* leave the block: a random way, or the shortest way out
		 * once the run is long enough */
		{
			uint32_t e0 = cfg->out_off[b], e1 = cfg->out_off[b + 1];
			uint32_t ways[64], nw = 0, best = UINT32_MAX, j;

			for (j = e0; j < e1 && nw < 64; j++) {
				const struct pap_edge *e =
					&cfg->edges[cfg->out_edge[j]];
				uint32_t dd;

				if (e->kind != PAP_EDGE_NORMAL)
					continue;
				dd = e->dst == cfg->exit ? 0 :
				     f->dist[e->dst] == UINT32_MAX ?
				     UINT32_MAX : f->dist[e->dst] + 1;
				if (s->n > s->soft && dd > f->dist[b])
					continue;
				if (s->n > s->soft && nw && dd >= best)
					continue;
				if (s->n > s->soft)
					nw = 0, best = dd;
				ways[nw++] = e->dst;
			}
			assert_true(nw > 0);
			b = ways[tl_below(s->g, nw)];
			i = 0;
			if (b == cfg->exit) {
				ev_add(s, PAP_CEV_EXIT, fn, 0, 0, 0);
				return S_RET;
			}
		}
	}
}

/* A thread: top-level frames entered from outside until the run ends. */
static void simulate(struct sim *s)
{
	uint32_t tops = 1 + (uint32_t)tl_below(s->g, 3), t;
	int chain, r;

	for (t = 0; t < tops; t++) {
		uint32_t fn = (uint32_t)tl_below(s->g, s->p->nfn);

		ev_add(s, PAP_CEV_OUT_ENTER, fn, 0, 0, 0);
		r = run_fn(s, fn, 1, 0, &chain);
		assert_int_not_equal(r, S_UNWIND);
		if (r == S_END)
			break;
	}
}

#endif /* PAP_TEST_CALLSIM_H */
