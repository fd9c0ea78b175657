/* SPDX-License-Identifier: MIT */
/*
 * callseq.c - the reference encoder and the decoder of a thread's call
 * sequence (callseq.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "callseq.h"
#include "util.h"

/* Would r*n + d pass @lim?  The runtime's test for lim = 2^64 - 1. */
static int cs_overflows(uint64_t r, uint64_t n, uint64_t d, uint64_t lim)
{
	if (lim == UINT64_MAX)
		return pap_fold_overflows(r, n, d);
	return d > lim || r > (lim - d) / n;
}

static int site_has_class(const struct pap_callgraph *g, uint32_t k,
			  uint32_t c)
{
	return g->has_source[pap_cg_src(k, c)];
}

/* The callee a normal entry at f's site k must be, or PAP_NONE. */
static uint32_t site_expect(const struct pap_cs_fn *f, uint32_t k)
{
	if (f->g->sites[k - 1].kind == PAP_SITE_INDIRECT)
		return PAP_NONE;
	return f->callee[k - 1];
}

/* ---- encoder ---- */

struct eframe {
	uint32_t fn;
	uint32_t last;		/* source code */
	uint32_t site;		/* call in progress, 0: none */
	uint32_t callee;	/* first function the call entered */
	uint64_t tails;		/* tail entries of the call's chain */
	uint32_t tcaller, tsite, tlast;
	uint8_t outside;
	uint8_t tailpend;	/* the chain's last tail call is running
				 * uninstrumented code */
	uint32_t selfpend;	/* a self tail call at this site is on its
				 * way to the entry, 0: none */
};

struct enc {
	const struct pap_cs_prog *prog;
	uint64_t lim, cr;
	struct pap_breakpoint *bps;
	size_t nbps, cap;
	struct eframe *fr;
	size_t depth, frcap;
	const char *why;
};

static int bp(struct enc *e, uint32_t site, uint64_t r)
{
	if (e->nbps == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		void *p = realloc(e->bps, cap * sizeof(*e->bps));

		if (!p)
			return PAP_ENOMEM;
		e->bps = p;
		e->cap = cap;
	}
	e->bps[e->nbps].site = site;
	e->bps[e->nbps++].r = r;
	return 0;
}

/* cr = cr*n + d, or the breakpoint and the restart 1*n + d. */
static int fold(struct enc *e, uint32_t n, uint32_t d, uint32_t code)
{
	if (n < 2)
		return 0;
	if (2 * (uint64_t)n - 1 > e->lim) {
		e->why = "a radix the overflow limit cannot hold";
		return PAP_EINVAL;
	}
	if (cs_overflows(e->cr, n, d, e->lim)) {
		if (bp(e, code, e->cr))
			return PAP_ENOMEM;
		e->cr = n + (uint64_t)d;
	} else {
		e->cr = e->cr * n + d;
	}
	return 0;
}

/* A mark: (site, cr), then a payload of an ID (fn != PAP_NONE) and an
 * ARG (@arg != PAP_NONE), then cr = 1. */
static int mark(struct enc *e, uint32_t site, uint32_t fn, uint32_t arg,
		uint64_t val)
{
	if (bp(e, site, e->cr))
		return PAP_ENOMEM;
	if (fn != PAP_NONE && bp(e, PAP_CS_ID, e->prog->fn[fn].id))
		return PAP_ENOMEM;
	if (arg != PAP_NONE && bp(e, PAP_CS_ARG | arg, val))
		return PAP_ENOMEM;
	e->cr = 1;
	return 0;
}

/* Folds the local digit of node @v of @fr's function, code @code. */
static int local(struct enc *e, struct eframe *fr, uint32_t v, uint32_t code)
{
	const struct pap_callgraph *g = e->prog->fn[fr->fn].g;
	uint32_t d = pap_cg_digit(g, v, fr->last);

	if (d == PAP_NONE) {
		e->why = "a call site or exit the last source does not reach";
		return PAP_EINVAL;
	}
	return fold(e, pap_cg_radix(g, v), d, code);
}

/* FRAMES of frames @from..top (pseudo-frames for tail calls out). */
static int frames(struct enc *e, size_t from)
{
	size_t i, n = 0;
	int err;

	for (i = from; i < e->depth; i++)
		n += 1 + e->fr[i].tailpend;
	if (!e->fr[e->depth - 1].site && !e->fr[e->depth - 1].tailpend) {
		e->why = "frames left open outside a call";
		return PAP_EINVAL;
	}
	if (bp(e, PAP_CS_FRAMES | (uint32_t)n, e->cr))
		return PAP_ENOMEM;
	for (i = from; i < e->depth; i++) {
		struct eframe *f = &e->fr[i];
		uint32_t a = f->site | (f->outside ? PAP_CS_F_OUTSIDE : 0);

		err = bp(e, PAP_CS_ID, e->prog->fn[f->fn].id);
		if (!err)
			err = bp(e, PAP_CS_ARG | a, f->tails);
		if (!err && f->tailpend) {
			err = bp(e, PAP_CS_ID, e->prog->fn[f->tcaller].id);
			if (!err)
				err = bp(e, PAP_CS_ARG | PAP_CS_F_TAILOUT |
					 f->tsite, 0);
		}
		if (err)
			return err;
	}
	e->cr = 1;
	return 0;
}

static struct eframe *push(struct enc *e, uint32_t fn, int outside)
{
	struct eframe *f;

	if (e->depth == e->frcap) {
		size_t cap = e->frcap ? e->frcap * 2 : 16;
		void *p = realloc(e->fr, cap * sizeof(*e->fr));

		if (!p)
			return NULL;
		e->fr = p;
		e->frcap = cap;
	}
	f = &e->fr[e->depth++];
	memset(f, 0, sizeof(*f));
	f->fn = fn;
	f->outside = (uint8_t)outside;
	f->last = PAP_CG_SRC_E;
	f->callee = PAP_NONE;
	return f;
}

static void reset_call(struct eframe *f)
{
	f->site = 0;
	f->callee = PAP_NONE;
	f->tails = 0;
	f->tailpend = 0;
}

/* The class the call in progress of @f came back with. */
static uint32_t call_class(const struct eframe *f)
{
	if (f->tails || f->tailpend)
		return 2;
	return f->callee != PAP_NONE ? 0 : 1;
}

static int ev_return(struct enc *e, struct eframe *f, const struct pap_cev *v)
{
	const struct pap_cs_fn *fn = &e->prog->fn[f->fn];
	uint32_t k = v->site, c = call_class(f), i, ncl;
	int err;

	if (!f->site || f->site != k) {
		e->why = "a return of a site not in progress";
		return PAP_EINVAL;
	}
	if (v->cls != c || !site_has_class(fn->g, k, c)) {
		e->why = "a return class the call or the site does not have";
		return PAP_EINVAL;
	}
	if (c == 2 && f->tailpend)
		err = mark(e, PAP_CS_TAIL_OUT | f->tsite, f->tcaller, 0,
			   f->tails);
	else if (c == 2)
		err = mark(e, PAP_CS_TAIL_RETURN, f->tlast, 0, f->tails);
	else
		err = 0;
	if (!err && c == 0 && fn->g->sites[k - 1].kind == PAP_SITE_INDIRECT) {
		ncl = fn->ncluster[k - 1];
		for (i = 0; i < ncl && fn->cluster[k - 1][i] != f->callee; i++)
			;
		if (i == ncl)
			err = mark(e, PAP_CS_CALLEE, f->callee, PAP_NONE, 0);
		if (!err)
			err = fold(e, ncl + 1, i, PAP_CS_CODE_CLUSTER | k);
	}
	reset_call(f);
	f->last = pap_cg_src(k, c);
	return err;
}

/* The entry that ends @f's self tail call: f again, entered as @f
 * was (from outside or not), beginning at T_k.  No mark, no fold. */
static int ev_self_entry(struct enc *e, struct eframe *f,
			 const struct pap_cev *v)
{
	if (v->fn != f->fn ||
	    (v->kind == PAP_CEV_OUT_ENTER) != (f->outside != 0)) {
		e->why = "a self tail call entered another function, or "
			 "entered it otherwise than its frame was";
		return PAP_EINVAL;
	}
	f->last = pap_cg_src(f->selfpend, 0);
	f->selfpend = 0;
	return 0;
}

static int ev_enter(struct enc *e, const struct pap_cev *v)
{
	struct eframe *p = e->depth ? &e->fr[e->depth - 1] : NULL;
	const struct pap_cs_fn *pf;
	int err;

	if (!p || !p->site) {
		e->why = "an entry with no call in progress";
		return PAP_EINVAL;
	}
	if (p->tailpend) {
		err = mark(e, PAP_CS_TAIL_ENTRY | p->tsite, p->tcaller,
			   PAP_NONE, 0);
		if (err)
			return err;
		p->tails++;
		p->tlast = v->fn;
		p->tailpend = 0;
		return push(e, v->fn, 0) ? 0 : PAP_ENOMEM;
	}
	pf = &e->prog->fn[p->fn];
	if (p->callee != PAP_NONE || p->tails) {
		e->why = "a second entry for one call";
		return PAP_EINVAL;
	}
	if (site_expect(pf, p->site) != PAP_NONE ?
	    site_expect(pf, p->site) != v->fn :
	    pf->g->sites[p->site - 1].kind != PAP_SITE_INDIRECT) {
		e->why = "a direct call entered another function";
		return PAP_EINVAL;
	}
	p->callee = v->fn;
	return push(e, v->fn, 0) ? 0 : PAP_ENOMEM;
}

static int ev_tail(struct enc *e, struct eframe *f, const struct pap_cev *v)
{
	const struct pap_callgraph *g = e->prog->fn[f->fn].g;
	struct eframe *p;
	int err;

	if (f->site || (g->sites[v->site - 1].kind != PAP_SITE_TAIL &&
			g->sites[v->site - 1].kind != PAP_SITE_SELFTAIL)) {
		e->why = "a tail call at a site that is none, or in a call";
		return PAP_EINVAL;
	}
	err = local(e, f, pap_cg_node_c(v->site), v->site);
	if (err)
		return err;
	if (g->sites[v->site - 1].kind == PAP_SITE_SELFTAIL) {
		/* the frame stays: its next activation begins at T_k */
		f->selfpend = v->site;
		return 0;
	}
	if (f->outside) {
		err = mark(e, PAP_CS_OUT_TAIL | v->site, f->fn, PAP_NONE, 0);
		e->depth--;
		return err;
	}
	p = &e->fr[e->depth - 2];
	p->tailpend = 1;
	p->tcaller = f->fn;
	p->tsite = v->site;
	e->depth--;
	return 0;
}

static int ev_longjmp(struct enc *e, const struct pap_cev *v)
{
	struct eframe *q;
	const struct pap_callgraph *g;
	uint32_t s = v->site, k, c;
	int err;

	if (v->arg >= e->depth) {
		e->why = "a longjmp past the bottom frame";
		return PAP_EINVAL;
	}
	q = &e->fr[e->depth - 1 - v->arg];
	g = e->prog->fn[q->fn].g;
	if (q->fn != v->fn || !q->site || s == PAP_CG_SRC_E ||
	    s >= g->nsources || !g->has_source[s]) {
		e->why = "a longjmp to a frame or source that cannot resume";
		return PAP_EINVAL;
	}
	k = pap_cg_src_site(s);
	c = pap_cg_src_class(s);
	if (!(c == 1 && g->sites[k - 1].kind == PAP_SITE_RETURNS_TWICE) &&
	    !(c == 3 && k == q->site)) {
		e->why = "a longjmp to a source that is no receiver";
		return PAP_EINVAL;
	}
	err = frames(e, e->depth - 1 - v->arg);
	if (!err)
		err = mark(e, PAP_CS_RESUME | s, PAP_NONE, PAP_NONE, 0);
	e->depth -= v->arg;
	reset_call(q);
	q->last = s;
	return err;
}

/* A fork's return in the child, @f calling fork: what came before is
 * the parent's; the child's record starts with FORK_START. */
static int ev_fork(struct enc *e, const struct eframe *f)
{
	size_t i;

	if (!f || !f->site || f->callee != PAP_NONE || f->tailpend ||
	    f->tails) {
		e->why = "a fork outside a call to uninstrumented code";
		return PAP_EINVAL;
	}
	for (i = 0; i < e->depth; i++)
		if (e->fr[i].tails || e->fr[i].tailpend) {
			e->why = "a fork inside a chain of tail calls";
			return PAP_EINVAL;
		}
	e->nbps = 0;
	e->cr = 1;
	return mark(e, PAP_CS_FORK_START, PAP_NONE, PAP_NONE, 0);
}

static int step(struct enc *e, const struct pap_cev *v)
{
	const struct pap_cs_prog *prog = e->prog;
	struct eframe *f = e->depth ? &e->fr[e->depth - 1] : NULL;
	const struct pap_callgraph *g;
	int err;

	if (v->fn >= prog->nfn) {
		e->why = "an event of an unknown function";
		return PAP_EINVAL;
	}
	if (f && f->selfpend) {
		if (v->kind == PAP_CEV_ENTER || v->kind == PAP_CEV_OUT_ENTER)
			return ev_self_entry(e, f, v);
		e->why = "an event between a self tail call and its entry";
		return PAP_EINVAL;
	}
	switch (v->kind) {
	case PAP_CEV_ENTER:
		return ev_enter(e, v);
	case PAP_CEV_OUT_ENTER:
		if (f && !(f->site && (f->tailpend || (f->callee == PAP_NONE &&
						       !f->tails)))) {
			e->why = "an outside entry while instrumented code "
				 "runs";
			return PAP_EINVAL;
		}
		err = mark(e, PAP_CS_OUT_ENTER, v->fn, PAP_NONE, 0);
		if (err)
			return err;
		return push(e, v->fn, 1) ? 0 : PAP_ENOMEM;
	case PAP_CEV_LONGJMP:
		return ev_longjmp(e, v);
	case PAP_CEV_FORK:
		return ev_fork(e, f);
	default:
		break;
	}
	if (!f || f->fn != v->fn) {
		e->why = "an event of a function that is not running";
		return PAP_EINVAL;
	}
	g = prog->fn[f->fn].g;
	if (v->kind != PAP_CEV_EXIT && (v->site < 1 || v->site > g->nsites)) {
		e->why = "an event at a site the function does not have";
		return PAP_EINVAL;
	}
	switch (v->kind) {
	case PAP_CEV_CALL:
		if (f->site || g->sites[v->site - 1].kind == PAP_SITE_TAIL ||
		    g->sites[v->site - 1].kind == PAP_SITE_SELFTAIL) {
			e->why = "a call in a call, or at a tail site";
			return PAP_EINVAL;
		}
		err = local(e, f, pap_cg_node_c(v->site), v->site);
		f->site = v->site;
		return err;
	case PAP_CEV_RETURN:
		return ev_return(e, f, v);
	case PAP_CEV_TAIL:
		return ev_tail(e, f, v);
	case PAP_CEV_EXIT:
		if (f->site) {
			e->why = "an exit during a call";
			return PAP_EINVAL;
		}
		err = local(e, f, pap_cg_node_x(g), PAP_CS_CODE_X);
		if (!err && f->outside)
			err = mark(e, PAP_CS_OUT_RETURN, f->fn, PAP_NONE, 0);
		e->depth--;
		return err;
	default:
		e->why = "an unknown event";
		return PAP_EINVAL;
	}
}

int pap_cseq_exec(const struct pap_cs_prog *prog, const struct pap_cev *ev,
		  size_t n, uint64_t limit, struct pap_cs_rec *rec,
		  const char **why, size_t *at)
{
	struct enc e = { 0 };
	size_t i;
	int err = 0;

	memset(rec, 0, sizeof(*rec));
	e.prog = prog;
	e.lim = limit;
	e.cr = 1;
	*why = NULL;
	*at = 0;
	if (limit < 4096) {
		*why = "an overflow limit below 2^12";
		return PAP_EINVAL;
	}
	for (i = 0; i < prog->nfn; i++)
		if (prog->fn[i].g->nsites > PAP_CS_F_SITE) {
			*why = "a function with more sites than marks can name";
			return PAP_EINVAL;
		}
	for (i = 0; i < n && !err; i++)
		err = step(&e, &ev[i]);
	if (!err && e.depth && e.fr[e.depth - 1].selfpend) {
		e.why = "a self tail call without its entry";
		err = PAP_EINVAL;
	}
	if (!err && e.depth)
		err = frames(&e, 0);
	if (err) {
		*why = e.why ? e.why : pap_strerror(err);
		*at = i ? i - 1 : 0;
		free(e.bps);
		free(e.fr);
		return err;
	}
	free(e.fr);
	rec->value = e.cr;
	rec->bps = e.bps;
	rec->nbps = e.nbps;
	return 0;
}

void pap_cs_rec_free(struct pap_cs_rec *rec)
{
	free(rec->bps);
	memset(rec, 0, sizeof(*rec));
}

/* ---- decoder ---- */

/* A segment boundary: an overflow breakpoint or a mark with payload. */
struct bnd {
	uint32_t site;
	uint64_t r;
	size_t at;		/* breakpoint index */
	size_t npay;		/* payload breakpoints after it */
};

enum dstate { D_BASE, D_X, D_SRC, D_C, D_PEND, D_E, D_DONE };

struct dent {
	uint8_t out;		/* OUT: resume @state at (fn, site) */
	uint8_t state;		/* OUT: D_BASE or D_PEND */
	uint32_t fn, site;	/* CALLER: the pending call; OUT: PEND's */
	uint64_t tails;		/* CALLER: tail entries still to meet */
	uint32_t expect;	/* CALLER: the callee a normal entry must be */
};

/* Random access to a record's breakpoints as they stand packed
 * (bpack.h): item i stands for the breakpoints start[i]..start[i + 1]. */
struct bpx {
	const struct pap_breakpoint *in;
	size_t n, hint;
	uint64_t *start;	/* n + 1 */
	/* a repeat item of a short distance D: the literal items its D
	 * source breakpoints are, at flat[off[i]..), off[i] = SIZE_MAX
	 * for the others (chains of short repeats copying each other
	 * are then one step) */
	size_t *off;
	uint32_t *flat;
	size_t nflat;
};

#define BPX_FLAT 64

/* The item holding breakpoint @pos (< start[n]). */
static size_t bpx_item(struct bpx *x, uint64_t pos)
{
	size_t lo = 0, hi = x->n, i = x->hint;

	if (x->start[i] <= pos && pos < x->start[i + 1])
		return i;
	if (i && x->start[i - 1] <= pos && pos < x->start[i])
		return x->hint = i - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->start[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return x->hint = lo;
}

/* Breakpoint @pos of the unpacked sequence, followed through repeats
 * to the item it copies: O(nesting * log items), nothing unpacked. */
static const struct pap_breakpoint *bpx_at(struct bpx *x, uint64_t pos)
{
	for (;;) {
		size_t i = bpx_item(x, pos);
		const struct pap_breakpoint *b = &x->in[i];
		uint64_t dist = b->r >> 32, p0 = x->start[i];

		if (!pap_bp_is_repeat(b))
			return b;
		if (x->off && x->off[i] != SIZE_MAX)
			return &x->in[x->flat[x->off[i] + (pos - p0) % dist]];
		pos = p0 - dist + (pos - p0) % dist;
	}
}

/* The items' starts and the short repeats' sources, in one pass
 * forward: each source resolves through the items before it. */
static int bpx_init(struct bpx *x, const struct pap_breakpoint *in, size_t n)
{
	size_t i, nflat = 0;
	uint64_t total = 0, o;

	x->in = in;
	x->start = malloc((n + 1) * sizeof(*x->start));
	x->off = malloc((n + 1) * sizeof(*x->off));
	for (i = 0; i < n; i++)
		if (pap_bp_is_repeat(&in[i]) && (in[i].r >> 32) <= BPX_FLAT)
			nflat += in[i].r >> 32;
	x->flat = malloc((nflat + 1) * sizeof(*x->flat));
	if (!x->start || !x->off || !x->flat)
		return PAP_ENOMEM;
	x->start[0] = 0;
	for (i = 0; i < n; i++) {
		uint64_t dist = in[i].r >> 32;

		x->off[i] = SIZE_MAX;
		x->start[i + 1] = total += pap_bp_is_repeat(&in[i]) ?
					   (uint32_t)in[i].r : 1;
		if (!pap_bp_is_repeat(&in[i]) || dist > BPX_FLAT)
			continue;
		x->n = i;	/* look in the items before */
		for (o = 0; o < dist; o++)
			x->flat[x->nflat + o] = (uint32_t)(bpx_at(x,
				x->start[i] - dist + o) - in);
		x->off[i] = x->nflat;
		x->nflat += dist;
	}
	x->n = n;
	x->hint = 0;
	return 0;
}

static void bpx_free(struct bpx *x)
{
	free(x->start);
	free(x->off);
	free(x->flat);
}

/* A repeat item being tried as a period: the state at its end. */
struct ckpt {
	int on;
	uint64_t end, dist, lo;	/* lo: the periodic run starts there */
	size_t nev, depth;
	uint64_t r;
	uint8_t state;
	uint32_t fn, x;
	struct dent *st;	/* copy of the stack */
	size_t stcap;
	size_t item;		/* backoff: the item, */
	uint64_t next;		/* try again at or below this end, */
	uint64_t fails;		/* after this many failures */
};

struct dec {
	const struct pap_cs_prog *prog;
	const struct pap_cs_rec *rec;
	uint64_t lim, r;
	struct bpx x;
	uint64_t end;		/* breakpoints end.. are consumed */
	struct bnd prev;	/* the boundary before end (end > 0) */
	struct bnd taken;	/* the last one consumed */
	int perr;		/* prev could not be read: why says */
	struct ckpt cp;
	struct pap_cev_rep *rep;
	size_t nrep, repcap;
	struct dent *st;
	size_t depth, stcap;
	struct pap_cev *ev;
	size_t nev, evcap, max_events;
	uint64_t *ids;		/* sorted (id << 0) with index in idx */
	uint32_t *idx;
	const char *why;
	size_t at;
};

static int corrupt(struct dec *d, const char *why)
{
	d->why = why;
	d->at = d->end ? d->prev.at : 0;
	return PAP_ECORRUPT;
}

static int is_payload(uint32_t site)
{
	return site == PAP_CS_ID || PAP_CS_KIND(site) == PAP_CS_ARG;
}

/* The number of payload entries a mark of @site has, or -1 for no mark
 * of a good form. */
static int64_t mark_npay(uint32_t site, uint64_t at)
{
	uint32_t low = PAP_CS_LOW(site);

	switch (PAP_CS_KIND(site)) {
	case PAP_CS_OUT_ENTER:
	case PAP_CS_OUT_RETURN:
	case PAP_CS_CALLEE:
		return low ? -1 : 1;
	case PAP_CS_TAIL_ENTRY:
	case PAP_CS_OUT_TAIL:
		return low ? 1 : -1;
	case PAP_CS_TAIL_RETURN:
		return low ? -1 : 2;
	case PAP_CS_TAIL_OUT:
		return low ? 2 : -1;
	case PAP_CS_FRAMES:
		return low ? 2 * (int64_t)low : -1;
	case PAP_CS_RESUME:
		return low ? 0 : -1;
	case PAP_CS_FORK_START:
		/* only the record's first breakpoint */
		return !low && at == 0 ? 0 : -1;
	default:
		return -1;
	}
}

/*
 * Moves the consumed end to @end and reads the boundary before it,
 * backward: the payload entries, then the mark or overflow breakpoint
 * they follow, checking its form.  A bad form leaves a boundary no step
 * takes and d->perr set, which ends the decoding.
 */
static void set_end(struct dec *d, uint64_t end)
{
	const struct pap_breakpoint *b;
	uint64_t i, j, npay;
	int64_t want;

	d->end = end;
	if (!end)
		return;
	i = end - 1;
	b = bpx_at(&d->x, i);
	while (is_payload(b->site) && i) {
		b = bpx_at(&d->x, --i);
	}
	npay = end - 1 - i;
	d->prev.site = b->site;
	d->prev.r = b->r;
	d->prev.at = (size_t)i;
	d->prev.npay = (size_t)npay;
	if (!b->r) {
		d->why = "a breakpoint with register 0";
		goto bad;
	}
	if (b->site < PAP_CS_MARKS) {
		if (!npay)
			return;
		d->why = "a mark's payload of a bad form";
		goto bad;
	}
	want = is_payload(b->site) ? -1 : mark_npay(b->site, i);
	if (want < 0 && !is_payload(b->site) &&
	    PAP_CS_KIND(b->site) != PAP_CS_FRAMES &&
	    (PAP_CS_KIND(b->site) < PAP_CS_OUT_ENTER ||
	     PAP_CS_KIND(b->site) > PAP_CS_OUT_TAIL)) {
		d->why = "a mark this decoder does not know";
		goto bad;
	}
	if (want < 0 || (uint64_t)want != npay) {
		d->why = "a mark of a bad form";
		goto bad;
	}
	for (j = 0; j < npay; j++) {
		uint32_t ps = bpx_at(&d->x, i + 1 + j)->site;

		if (j % 2 == 0 ? ps != PAP_CS_ID :
		    PAP_CS_KIND(ps) != PAP_CS_ARG ||
		    (PAP_CS_KIND(b->site) != PAP_CS_FRAMES && PAP_CS_LOW(ps))) {
			d->why = "a mark's payload of a bad form";
			goto bad;
		}
	}
	return;
bad:
	d->at = (size_t)i;
	if (!d->perr)
		d->perr = PAP_ECORRUPT;
	d->prev.site = UINT32_MAX;	/* no step takes it */
}

static int emit(struct dec *d, uint8_t kind, uint32_t fn, uint32_t site,
		uint8_t cls, uint32_t arg)
{
	struct pap_cev *v;

	if (d->nev >= d->max_events) {
		d->why = "more events than the limit";
		return PAP_ELIMIT;
	}
	if (d->nev == d->evcap) {
		size_t cap = d->evcap ? d->evcap * 2 : 64;
		void *p = realloc(d->ev, cap * sizeof(*d->ev));

		if (!p)
			return PAP_ENOMEM;
		d->ev = p;
		d->evcap = cap;
	}
	v = &d->ev[d->nev++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->fn = fn;
	v->site = site;
	v->cls = cls;
	v->arg = arg;
	return 0;
}

static struct dent *dpush(struct dec *d)
{
	struct dent *t;

	if (d->depth == d->stcap) {
		size_t cap = d->stcap ? d->stcap * 2 : 16;
		void *p = realloc(d->st, cap * sizeof(*d->st));

		if (!p)
			return NULL;
		d->st = p;
		d->stcap = cap;
	}
	t = &d->st[d->depth++];
	memset(t, 0, sizeof(*t));
	return t;
}

static int push_caller(struct dec *d, uint32_t fn, uint32_t site,
		       uint64_t tails, uint32_t expect)
{
	struct dent *t = dpush(d);

	if (!t)
		return PAP_ENOMEM;
	t->fn = fn;
	t->site = site;
	t->tails = tails;
	t->expect = expect;
	return 0;
}

static int push_out(struct dec *d, uint8_t state, uint32_t fn, uint32_t site)
{
	struct dent *t = dpush(d);

	if (!t)
		return PAP_ENOMEM;
	t->out = 1;
	t->state = state;
	t->fn = fn;
	t->site = site;
	return 0;
}

/* Is the segment empty and the boundary before it a mark of @kind? */
static int at_mark(const struct dec *d, uint32_t kind)
{
	return d->r == 1 && d->end && d->prev.site != UINT32_MAX &&
	       PAP_CS_KIND(d->prev.site) == kind;
}

/* Consumes the mark before the segment: the segment before it is next. */
static const struct bnd *take(struct dec *d)
{
	d->taken = d->prev;
	d->r = d->taken.r;
	set_end(d, d->taken.at);
	return &d->taken;
}

/* The function payload entry @i of mark @m names. */
static int pay_fn(struct dec *d, const struct bnd *m, size_t i, uint32_t *fn)
{
	uint64_t id = bpx_at(&d->x, m->at + 1 + i)->r;
	size_t lo = 0, hi = d->prog->nfn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->prog->nfn || d->ids[lo] != id)
		return corrupt(d, "a function id no key of the program has");
	*fn = d->idx[lo];
	return 0;
}

static const struct pap_breakpoint *pay(struct dec *d, const struct bnd *m,
					size_t i)
{
	return bpx_at(&d->x, m->at + 1 + i);
}

/* Pops the digit of a node of radix @n and overflow code @code. */
static int pop_digit(struct dec *d, uint32_t n, uint32_t code, uint32_t *dig)
{
	uint64_t q;

	*dig = 0;
	if (n < 2)
		return 0;
	if (d->r < n)
		return corrupt(d, "a digit where the register is spent");
	*dig = (uint32_t)(d->r % n);
	q = d->r / n;
	if (q == 1 && d->end && d->prev.site < PAP_CS_MARKS) {
		const struct bnd *o = &d->prev;

		if (o->site != code)
			return corrupt(d, "an overflow breakpoint of another "
					  "node");
		if (!cs_overflows(o->r, n, *dig, d->lim))
			return corrupt(d, "an overflow breakpoint whose fold "
					  "fits");
		take(d);
		return 0;
	}
	if (cs_overflows(q, n, *dig, d->lim))
		return corrupt(d, "a fold that overflows without a breakpoint");
	d->r = q;
	return 0;
}

/* Decodes the FRAMES mark before the segment: pushes its frames but the
 * innermost, whose function and site go to *@fn, *@site.  @bottom_out:
 * the bottom frame's own link is pushed (the record's end), else the
 * bottom frame is @q's activation being resumed. */
static int take_frames(struct dec *d, int at_end, uint32_t q, uint32_t *fn,
		       uint32_t *site, uint32_t *real)
{
	const struct bnd *m;
	uint32_t i, n, f0 = 0, a0 = 0;
	int err;

	if (!at_mark(d, PAP_CS_FRAMES))
		return corrupt(d, "frames missing");
	m = take(d);
	n = PAP_CS_LOW(m->site);
	if (!n)
		return corrupt(d, "no frame in a FRAMES mark");
	*real = 0;
	for (i = 0; i < n; i++) {
		uint32_t f, a = PAP_CS_LOW(pay(d, m, 2 * i + 1)->site), k;
		const struct pap_callgraph *g;

		err = pay_fn(d, m, 2 * i, &f);
		if (err)
			return err;
		g = d->prog->fn[f].g;
		k = a & PAP_CS_F_SITE;
		if (k < 1 || k > g->nsites ||
		    (a & ~(PAP_CS_F_SITE | PAP_CS_F_OUTSIDE |
			   PAP_CS_F_TAILOUT)))
			return corrupt(d, "a frame at a site its function "
					  "does not have");
		if ((a & PAP_CS_F_TAILOUT) &&
		    (g->sites[k - 1].kind != PAP_SITE_TAIL || !i ||
		     (a & PAP_CS_F_OUTSIDE) || pay(d, m, 2 * i + 1)->r))
			return corrupt(d, "a tail call out where none can be");
		if (!(a & PAP_CS_F_TAILOUT) &&
		    (g->sites[k - 1].kind == PAP_SITE_TAIL ||
		     g->sites[k - 1].kind == PAP_SITE_SELFTAIL))
			return corrupt(d, "a frame calling at a tail site");
		if (i == 0) {
			if (at_end ? !(a & PAP_CS_F_OUTSIDE) : f != q)
				return corrupt(d, "frames that do not start "
						  "where the record is");
			if (at_end) {
				err = push_out(d, D_BASE, 0, 0);
				if (err)
					return err;
			}
		} else {
			/* the frame below waits for this one */
			uint32_t k0 = a0 & PAP_CS_F_SITE;

			if (a & PAP_CS_F_OUTSIDE)
				err = pay(d, m, 2 * i - 1)->r ?
				      corrupt(d, "a tail chain under an "
						 "outside entry") :
				      push_out(d, D_PEND, f0, k0);
			else if (a0 & PAP_CS_F_TAILOUT)
				err = corrupt(d, "an instrumented call from "
						 "uninstrumented code");
			else
				err = push_caller(d, f0, k0,
						  pay(d, m, 2 * i - 1)->r,
						  site_expect(&d->prog->fn[f0],
							      k0));
			if (err)
				return err;
			if (!(a & PAP_CS_F_TAILOUT))
				(*real)++;
		}
		f0 = f;
		a0 = a;
	}
	if (pay(d, m, 2 * n - 1)->r)
		return corrupt(d, "a tail chain in the innermost frame's call");
	*fn = f0;
	*site = a0 & PAP_CS_F_SITE;
	return 0;
}

struct pos {
	uint8_t state;
	uint32_t fn, x;		/* function; source or site */
};

/* At E(f): an outside entry, a tail entry or a normal one, as the stack
 * top says; each then leads to where f was called from. */
static int dentry(struct dec *d, struct pos *p)
{
	struct dent *t;
	const struct bnd *m;
	const struct pap_callgraph *g;
	uint32_t fn;
	int err;

	if (!d->depth)
		return corrupt(d, "an entry with no call pending");
	t = &d->st[d->depth - 1];
	if (t->out) {
		if (!at_mark(d, PAP_CS_OUT_ENTER))
			return corrupt(d, "an outside frame without its entry");
		m = take(d);
		err = pay_fn(d, m, 0, &fn);
		if (!err && fn != p->fn)
			err = corrupt(d, "an outside entry of another "
					 "function");
		if (!err)
			err = emit(d, PAP_CEV_OUT_ENTER, p->fn, 0, 0, 0);
		if (err)
			return err;
		p->state = t->state;
		p->fn = t->fn;
		p->x = t->site;
		d->depth--;
		return 0;
	}
	if (t->tails) {
		if (!at_mark(d, PAP_CS_TAIL_ENTRY))
			return corrupt(d, "a tail entry without its mark");
		m = take(d);
		err = pay_fn(d, m, 0, &fn);
		if (err)
			return err;
		g = d->prog->fn[fn].g;
		p->state = D_C;
		p->x = PAP_CS_LOW(m->site);
		if (p->x < 1 || p->x > g->nsites ||
		    g->sites[p->x - 1].kind != PAP_SITE_TAIL)
			return corrupt(d, "a tail entry from no tail site");
		err = emit(d, PAP_CEV_ENTER, p->fn, 0, 0, 0);
		p->fn = fn;
		t->tails--;
		return err;
	}
	if (t->expect != PAP_NONE && t->expect != p->fn)
		return corrupt(d, "an entry of another function than the "
				  "call's");
	err = emit(d, PAP_CEV_ENTER, p->fn, 0, 0, 0);
	p->state = D_C;
	p->fn = t->fn;
	p->x = t->site;
	d->depth--;
	return err;
}

/*
 * The record's start is a fork's return in the child (FORK_START): the
 * call in progress at @p is the fork, and the stack holds the frames
 * open then.  They are emitted as FORK events, innermost first (the
 * events are reversed at the end), and decoding is done.  A tail chain
 * whose entries came before the fork cannot be named: corrupt (the
 * runtime counts such a child's sequence lost and writes none).
 */
static int fork_start(struct dec *d, struct pos *p)
{
	size_t i = d->depth;
	uint32_t fn = p->fn, site = p->x;
	int err;

	take(d);
	if (d->r != 1)
		return corrupt(d, "a fork start with a register");
	if (!d->depth || !d->st[0].out || d->st[0].state != D_BASE)
		return corrupt(d, "frames at a fork that no outside entry "
				  "began");
	err = emit(d, PAP_CEV_FORK, fn, site, 0, 1);
	while (!err && i > 0) {
		const struct dent *t = &d->st[--i];

		/* the frame above t was entered from outside: t is the
		 * state it left, a frame only when pending in a call */
		if (t->out) {
			d->ev[d->nev - 1].cls = 1;
			if (t->state == D_BASE)
				continue;
		} else if (t->tails) {
			return corrupt(d, "a fork inside a chain of tail "
					  "calls");
		}
		err = emit(d, PAP_CEV_FORK, t->fn, t->site, 0, 0);
	}
	d->depth = 0;
	p->state = D_DONE;
	return err;
}

/*
 * One backward step from @p, emitting the event it passes.  States: BASE
 * (no frame: outside frames of the thread, or the record's start), X(f)
 * (f's exit: pop X's digit, go to the source), SRC(f, s) (the source
 * says what came before: f's entry, a call's return, whose callee's exit
 * comes before it, or a resume with the abandoned frames), PEND(f, k)
 * (call k runs uninstrumented code: outside frames, then C_k), C(f, k)
 * (pop C_k's digit) and E(f) (dentry).  Outside frames are looked for
 * only at BASE and PEND: a source of class 1 always has a sibling of
 * class 0, so the node after it folds, and a mark right before an empty
 * segment anywhere else belongs to another step.
 */
static int dstep(struct dec *d, struct pos *p)
{
	const struct pap_cs_fn *F = &d->prog->fn[p->fn];
	const struct pap_callgraph *g = F->g;
	const struct bnd *m;
	uint32_t fn, k, c, dig, v, site, real;
	int err;

	switch (p->state) {
	case D_BASE:
		if (d->r == 1 && !d->end) {
			p->state = D_DONE;
			return 0;
		}
		if (at_mark(d, PAP_CS_OUT_RETURN) ||
		    at_mark(d, PAP_CS_OUT_TAIL))
			goto outside;
		return corrupt(d, "no outside frame where the thread's base "
				  "is");
	case D_PEND:
		if (at_mark(d, PAP_CS_OUT_RETURN) ||
		    at_mark(d, PAP_CS_OUT_TAIL))
			goto outside;
		if (at_mark(d, PAP_CS_FORK_START) && d->prev.at == 0)
			return fork_start(d, p);
		p->state = D_C;
		return 0;
	case D_X:
		err = emit(d, PAP_CEV_EXIT, p->fn, 0, 0, 0);
		v = pap_cg_node_x(g);
		if (!err && !pap_cg_radix(g, v))
			err = corrupt(d, "an exit the function cannot reach");
		if (!err)
			err = pop_digit(d, pap_cg_radix(g, v), PAP_CS_CODE_X,
					&dig);
		if (err)
			return err;
		p->state = D_SRC;
		p->x = g->pred[g->pred_off[v] + dig];
		return 0;
	case D_C:
		k = p->x;
		if (k < 1 || k > g->nsites)
			return corrupt(d, "a call at a site the function does "
					  "not have");
		err = emit(d, g->sites[k - 1].kind == PAP_SITE_TAIL ||
			   g->sites[k - 1].kind == PAP_SITE_SELFTAIL ?
			   PAP_CEV_TAIL : PAP_CEV_CALL, p->fn, k, 0, 0);
		v = pap_cg_node_c(k);
		if (!err && !pap_cg_radix(g, v))
			err = corrupt(d, "a call site the function cannot "
					 "reach");
		if (!err)
			err = pop_digit(d, pap_cg_radix(g, v), k, &dig);
		if (err)
			return err;
		p->state = D_SRC;
		p->x = g->pred[g->pred_off[v] + dig];
		return 0;
	case D_E:
		return dentry(d, p);
	case D_SRC:
		break;
	default:
		return corrupt(d, "bad decoder state");
	}
	/* D_SRC */
	if (p->x == PAP_CG_SRC_E) {
		p->state = D_E;
		return 0;
	}
	k = pap_cg_src_site(p->x);
	c = pap_cg_src_class(p->x);
	if (g->sites[k - 1].kind == PAP_SITE_SELFTAIL) {
		/* T_k: entered by its own tail call at k, in the frame it
		 * had, as it was entered (the stack's top says) */
		if (!d->depth)
			return corrupt(d, "a self tail entry with no frame");
		err = emit(d, d->st[d->depth - 1].out ? PAP_CEV_OUT_ENTER :
			   PAP_CEV_ENTER, p->fn, 0, 0, 0);
		p->state = D_C;
		p->x = k;
		return err;
	}
	if ((c == 3 || (c == 1 && g->sites[k - 1].kind ==
			 PAP_SITE_RETURNS_TWICE)) &&
	    d->r == 1 && d->end &&
	    d->prev.site == (PAP_CS_RESUME | p->x)) {
		take(d);
		err = emit(d, PAP_CEV_LONGJMP, p->fn, p->x, 0, 0);
		if (!err)
			err = take_frames(d, 0, p->fn, &fn, &site, &real);
		if (err)
			return err;
		d->ev[d->nev - 1].arg = real;
		p->state = D_PEND;
		p->fn = fn;
		p->x = site;
		return 0;
	}
	if (c == 3)
		return corrupt(d, "a landing pad reached without a resume");
	err = emit(d, PAP_CEV_RETURN, p->fn, k, (uint8_t)c, 0);
	if (err)
		return err;
	if (c == 1) {
		p->state = D_PEND;
		p->x = k;
		return 0;
	}
	if (c == 2) {
		if (at_mark(d, PAP_CS_TAIL_RETURN)) {
			m = take(d);
			err = pay_fn(d, m, 0, &fn);
			if (!err)
				err = push_caller(d, p->fn, k, pay(d, m, 1)->r,
						  site_expect(F, k));
			p->state = D_X;
			p->fn = fn;
			return err;
		}
		if (at_mark(d, PAP_CS_TAIL_OUT)) {
			m = take(d);
			err = pay_fn(d, m, 0, &fn);
			if (!err)
				err = push_caller(d, p->fn, k, pay(d, m, 1)->r,
						  site_expect(F, k));
			p->state = D_PEND;
			p->fn = fn;
			p->x = PAP_CS_LOW(m->site);
			if (!err && (p->x < 1 ||
				     p->x > d->prog->fn[fn].g->nsites ||
				     d->prog->fn[fn].g->sites[p->x - 1].kind !=
				     PAP_SITE_TAIL))
				err = corrupt(d, "a tail call out of no tail "
						 "site");
			return err;
		}
		return corrupt(d, "a tail chain's return without its mark");
	}
	/* class 0 */
	if (g->sites[k - 1].kind == PAP_SITE_INDIRECT) {
		uint32_t ncl = F->ncluster[k - 1];

		err = pop_digit(d, ncl + 1, PAP_CS_CODE_CLUSTER | k, &dig);
		if (err)
			return err;
		if (dig < ncl) {
			fn = F->cluster[k - 1][dig];
		} else if (at_mark(d, PAP_CS_CALLEE)) {
			m = take(d);
			err = pay_fn(d, m, 0, &fn);
			if (err)
				return err;
		} else {
			return corrupt(d, "an escape from a cluster without "
					  "its callee");
		}
	} else {
		fn = F->callee[k - 1];
		if (fn == PAP_NONE)
			return corrupt(d, "a return from an instrumented "
					  "callee the site cannot call");
	}
	err = push_caller(d, p->fn, k, 0, fn);
	p->state = D_X;
	p->fn = fn;
	return err;
outside:
	m = take(d);
	err = pay_fn(d, m, 0, &fn);
	if (!err)
		err = push_out(d, p->state, p->fn, p->x);
	if (err)
		return err;
	if (PAP_CS_KIND(m->site) == PAP_CS_OUT_TAIL) {
		p->state = D_C;
		p->x = PAP_CS_LOW(m->site);
		if (p->x < 1 || p->x > d->prog->fn[fn].g->nsites ||
		    d->prog->fn[fn].g->sites[p->x - 1].kind != PAP_SITE_TAIL)
			return corrupt(d, "a tail call out of no tail site");
	} else {
		p->state = D_X;
	}
	p->fn = fn;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The program's ids, sorted, with their functions: PAP_EINVAL when two
 * functions have one id. */
static int index_ids(struct dec *d)
{
	uint32_t n = d->prog->nfn, i;
	uint64_t *pairs = malloc(2 * (n + 1) * sizeof(*pairs));

	d->ids = malloc((n + 1) * sizeof(*d->ids));
	d->idx = malloc((n + 1) * sizeof(*d->idx));
	if (!pairs || !d->ids || !d->idx) {
		free(pairs);
		return PAP_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pairs[2 * i] = d->prog->fn[i].id;
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), id_cmp);
	for (i = 0; i < n; i++) {
		d->ids[i] = pairs[2 * i];
		d->idx[i] = (uint32_t)pairs[2 * i + 1];
		if (i && d->ids[i] == d->ids[i - 1]) {
			free(pairs);
			d->why = "two functions of the program have one id";
			return PAP_EINVAL;
		}
	}
	free(pairs);
	return 0;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The stack entries equal? */
static int dent_eq(const struct dent *a, const struct dent *b)
{
	return a->out == b->out && a->state == b->state && a->fn == b->fn &&
	       a->site == b->site && a->tails == b->tails &&
	       a->expect == b->expect;
}

/* Is the decoder where checkpoint @c left it? */
static int ckpt_same(const struct dec *d, const struct ckpt *c,
		     const struct pos *p)
{
	size_t i;

	if (d->r != c->r || p->state != c->state || p->fn != c->fn ||
	    p->x != c->x || d->depth != c->depth)
		return 0;
	for (i = 0; i < d->depth; i++)
		if (!dent_eq(&d->st[i], &c->st[i]))
			return 0;
	return 1;
}

static int add_rep(struct dec *d, size_t at, size_t len, uint64_t count)
{
	if (d->nrep == d->repcap &&
	    pap_grow(&d->rep, &d->repcap, sizeof(*d->rep), 16))
		return PAP_ENOMEM;
	d->rep[d->nrep].at = at;
	d->rep[d->nrep].len = len;
	d->rep[d->nrep++].count = count;
	return 0;
}

/*
 * Before a step: a repeat item of the record, (dist, len) at p0, makes
 * the breakpoints from lo = p0 - dist to p0 + len periodic.  At a step
 * that starts inside it with two periods or more below, the state is
 * kept; at the first step one period lower, if the decoder is back in
 * that state (node, register, whole stack), the period's events are the
 * same in every period (decoding is a function of the state and the
 * breakpoints read, which repeat), so they are kept once as a repeat of
 * k periods and the decoding jumps k - 1 periods down.  Otherwise (a
 * deepening recursion: the stack grows) it goes on period by period,
 * trying again after 1, 2, 4... periods.
 */
static int period(struct dec *d, const struct pos *p)
{
	struct ckpt *c = &d->cp;
	size_t i;
	uint64_t k, w;

	if (c->on && d->end <= c->end - c->dist) {
		c->on = 0;
		if (d->end == c->end - c->dist && ckpt_same(d, c, p) &&
		    d->nev > c->nev && !d->perr) {
			/* the next periods read down to prev.at */
			w = d->end - d->prev.at;
			k = (c->end - c->lo) / c->dist;
			while (k >= 2 && c->end - k * c->dist < c->lo + w)
				k--;
			c->fails = 0;
			if (k >= 2) {
				if (add_rep(d, c->nev, d->nev - c->nev, k))
					return PAP_ENOMEM;
				set_end(d, c->end - k * c->dist);
			}
		} else {
			c->fails = c->fails ? 2 * c->fails : 1;
			c->next = d->end - c->fails * c->dist;
		}
	}
	if (c->on || !d->end || d->perr)
		return 0;
	i = bpx_item(&d->x, d->end - 1);
	if (!pap_bp_is_repeat(&d->x.in[i]))
		return 0;
	c->dist = d->x.in[i].r >> 32;
	c->lo = d->x.start[i] - c->dist;
	if (c->item != i) {
		c->item = i;
		c->fails = 0;
	} else if (c->fails && d->end > c->next) {
		return 0;
	}
	if (d->end - c->lo < 2 * c->dist)
		return 0;
	if (d->depth > c->stcap) {
		void *q = realloc(c->st, d->depth * sizeof(*c->st));

		if (!q)
			return PAP_ENOMEM;
		c->st = q;
		c->stcap = d->depth;
	}
	if (d->depth)
		memcpy(c->st, d->st, d->depth * sizeof(*c->st));
	c->on = 1;
	c->end = d->end;
	c->nev = d->nev;
	c->depth = d->depth;
	c->r = d->r;
	c->state = p->state;
	c->fn = p->fn;
	c->x = p->x;
	return 0;
}

int pap_cseq_decode_packed(const struct pap_cs_prog *prog,
			   const struct pap_cs_rec *rec, uint64_t limit,
			   size_t max_events, struct pap_cseq_packed *out,
			   const char **why, size_t *at)
{
	struct dec d = { 0 };
	struct pos p = { D_BASE, 0, 0 };
	uint64_t total = 0;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	d.prog = prog;
	d.rec = rec;
	d.lim = limit;
	d.r = rec->value;
	d.max_events = max_events;
	d.cp.item = SIZE_MAX;
	err = index_ids(&d);
	if (!err && rec->nbps &&
	    !pap_bpack_length(rec->bps, rec->nbps, UINT64_MAX))
		err = corrupt(&d, "breakpoints whose repeats are no packing");
	if (!err)
		err = bpx_init(&d.x, rec->bps, rec->nbps);
	if (!err)
		total = d.x.start[rec->nbps];
	if (!err)
		set_end(&d, total);
	if (!err && !d.r)
		err = corrupt(&d, "a register of 0");
	if (!err && at_mark(&d, PAP_CS_FRAMES)) {
		uint32_t real;

		err = take_frames(&d, 1, 0, &p.fn, &p.x, &real);
		p.state = D_PEND;
	}
	while (!err && p.state != D_DONE) {
		err = d.perr;
		if (!err)
			err = period(&d, &p);
		if (!err)
			err = dstep(&d, &p);
	}
	if (!err && d.perr)
		err = d.perr;
	if (!err && d.depth)
		err = corrupt(&d, "calls pending at the record's start");
	if (err) {
		*why = d.why ? d.why : pap_strerror(err);
		*at = d.at;
		free(d.ev);
		free(d.rep);
	} else {
		/* backward to forward: the events, each repeat's body
		 * (the same periods read backward) and the repeats' order */
		for (i = 0; i < d.nev / 2; i++) {
			struct pap_cev t = d.ev[i];

			d.ev[i] = d.ev[d.nev - 1 - i];
			d.ev[d.nev - 1 - i] = t;
		}
		for (i = 0; i < d.nrep; i++)
			d.rep[i].at = d.nev - d.rep[i].at - d.rep[i].len;
		for (i = 0; i < d.nrep / 2; i++) {
			struct pap_cev_rep t = d.rep[i];

			d.rep[i] = d.rep[d.nrep - 1 - i];
			d.rep[d.nrep - 1 - i] = t;
		}
		out->ev = d.ev;
		out->nev = d.nev;
		out->rep = d.rep;
		out->nrep = d.nrep;
		out->total = d.nev;
		for (i = 0; i < d.nrep; i++)
			out->total = pap_sat_add(out->total,
				sat_mul(d.rep[i].len, d.rep[i].count - 1));
	}
	bpx_free(&d.x);
	free(d.st);
	free(d.cp.st);
	free(d.ids);
	free(d.idx);
	return err;
}

int pap_cseq_expand(const struct pap_cseq_packed *pk, size_t max_events,
		    struct pap_cev **ev, size_t *n)
{
	size_t i, j = 0, o = 0;
	uint64_t c;

	*ev = NULL;
	*n = 0;
	if (pk->total > max_events)
		return PAP_ELIMIT;
	*ev = malloc((pk->total + 1) * sizeof(**ev));
	if (!*ev)
		return PAP_ENOMEM;
	for (i = 0; i < pk->nrep; i++) {
		const struct pap_cev_rep *r = &pk->rep[i];

		memcpy(*ev + o, pk->ev + j, (r->at - j) * sizeof(**ev));
		o += r->at - j;
		for (c = 0; c < r->count; c++) {
			memcpy(*ev + o, pk->ev + r->at,
			       r->len * sizeof(**ev));
			o += r->len;
		}
		j = r->at + r->len;
	}
	memcpy(*ev + o, pk->ev + j, (pk->nev - j) * sizeof(**ev));
	*n = o + pk->nev - j;
	return 0;
}

int pap_cseq_expand_prefix(const struct pap_cseq_packed *pk, size_t max,
			   struct pap_cev **ev, size_t *n)
{
	size_t i, j = 0, o = 0, m;
	uint64_t c;

	m = pk->total < max ? (size_t)pk->total : max;
	*n = 0;
	*ev = malloc((m + 1) * sizeof(**ev));
	if (!*ev)
		return PAP_ENOMEM;
	for (i = 0; i <= pk->nrep && o < m; i++) {
		size_t to = i < pk->nrep ? pk->rep[i].at : pk->nev, len;

		len = to - j < m - o ? to - j : m - o;
		memcpy(*ev + o, pk->ev + j, len * sizeof(**ev));
		o += len;
		if (i == pk->nrep)
			break;
		for (c = 0; c < pk->rep[i].count && o < m; c++) {
			len = pk->rep[i].len < m - o ? pk->rep[i].len : m - o;
			memcpy(*ev + o, pk->ev + to, len * sizeof(**ev));
			o += len;
		}
		j = to + pk->rep[i].len;
	}
	*n = o;
	return 0;
}

void pap_cseq_packed_free(struct pap_cseq_packed *pk)
{
	free(pk->ev);
	free(pk->rep);
	memset(pk, 0, sizeof(*pk));
}

int pap_cseq_decode(const struct pap_cs_prog *prog,
		    const struct pap_cs_rec *rec, uint64_t limit,
		    size_t max_events, struct pap_cev **ev, size_t *n,
		    const char **why, size_t *at)
{
	struct pap_cseq_packed pk;
	int err;

	*ev = NULL;
	*n = 0;
	err = pap_cseq_decode_packed(prog, rec, limit, max_events, &pk, why,
				     at);
	if (err)
		return err;
	err = pap_cseq_expand(&pk, max_events, ev, n);
	if (err == PAP_ELIMIT) {
		*why = "more events than the limit";
		*at = 0;
	} else if (err) {
		*why = pap_strerror(err);
		*at = 0;
	}
	pap_cseq_packed_free(&pk);
	return err;
}
