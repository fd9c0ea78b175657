/* SPDX-License-Identifier: MIT */
/*
 * callrender.c - a decoded call sequence (libcore/callseq.h's events) as
 * people and the oracle read it (doc/formats.md, "call_paths"): the
 * sequence of names, and the text report's tree of calls with repeats
 * compressed.  It knows the program only through pap_cs_built (names,
 * sites' lines and callees), so that unit tests render hand-made runs.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "util.h"

/* One frame as the source sees it: a tail call keeps its caller. */
struct rframe {
	uint32_t fn;
	uint32_t node;		/* text: its entry's node */
	uint32_t call;		/* text: the node of its call in progress,
				 * or NO_NODE */
	uint8_t outside;	/* entered from outside */
	uint8_t tailed;		/* entered by the tail call of the frame
				 * below */
	uint8_t tail_wait;	/* it made a tail call: its callee runs */
	uint32_t tail_site;
};

#define NO_NODE UINT32_MAX

struct rstack {
	struct rframe *f;
	size_t n, cap;
};

static struct rframe *rpush(struct rstack *s, uint32_t fn)
{
	struct rframe *f;

	if (s->n == s->cap && pap_grow(&s->f, &s->cap, sizeof(*s->f), 64))
		return NULL;
	f = &s->f[s->n++];
	memset(f, 0, sizeof(*f));
	f->fn = fn;
	f->node = NO_NODE;
	f->call = NO_NODE;
	return f;
}

static struct rframe *rtop(struct rstack *s)
{
	return s->n ? &s->f[s->n - 1] : NULL;
}

/* Drops the frames above the innermost one of @fn (those a tail call to
 * uninstrumented code left waiting); 0, or -1 when @fn is not there. */
static int rfind(struct rstack *s, uint32_t fn)
{
	size_t i = s->n;

	while (i > 0 && s->f[i - 1].fn != fn)
		i--;
	if (!i)
		return -1;
	s->n = i;
	return 0;
}

/* Is @g the direct callee of @f's site @k? */
static int tail_callee_is(const struct pap_cs_built *b, uint32_t f,
			  uint32_t k, uint32_t g)
{
	const struct pap_cs_fn *fn = &b->prog.fn[f];

	return k >= 1 && k <= fn->g->nsites && fn->callee[k - 1] == g;
}

/*
 * Walks @ev as the source sees it, calling @emit for each element of the
 * sequence (design: an entry by a call names the function entered, an
 * entry from outside ">name" but the first plain, a return to
 * instrumented code the function returned to, a tail chain expanded into
 * returns, a longjmp the function resumed).  @on_event, if not NULL,
 * sees each event with the stack as it is after it.  0, or -1 when an
 * event does not fit the stack (never, for a decoder's output) or memory
 * is short.
 */
struct rwalk {
	const struct pap_cs_built *b;
	void (*emit)(void *ctx, int outside, uint32_t fn);
	int (*on_event)(void *ctx, const struct pap_cev *v,
			struct rstack *s, int kind);
	void *ctx;
	int first;
};

/* on_event kinds: what the event did to the stack */
enum { RW_ENTER_CALL, RW_ENTER_TAIL, RW_ENTER_OUT, RW_CALL, RW_TAIL,
       RW_RETURN, RW_LONGJMP, RW_EXIT };

static int walk_event(struct rwalk *w, struct rstack *s,
		      const struct pap_cev *v)
{
	struct rframe *t = rtop(s), *f;
	size_t popped;

	switch (v->kind) {
	case PAP_CEV_OUT_ENTER:
		if (t && t->tail_wait &&
		    tail_callee_is(w->b, t->fn, t->tail_site, v->fn)) {
			/* an outside frame's tail call: its callee */
			f = rpush(s, v->fn);
			if (!f)
				return -1;
			f->tailed = 1;
			w->emit(w->ctx, 0, v->fn);
			w->first = 0;
			return w->on_event ? w->on_event(w->ctx, v, s,
							 RW_ENTER_TAIL) : 0;
		}
		f = rpush(s, v->fn);
		if (!f)
			return -1;
		f->outside = 1;
		w->emit(w->ctx, !w->first, v->fn);
		w->first = 0;
		return w->on_event ? w->on_event(w->ctx, v, s, RW_ENTER_OUT) : 0;
	case PAP_CEV_ENTER:
		if (!t)
			return -1;
		f = rpush(s, v->fn);
		if (!f)
			return -1;
		t = &s->f[s->n - 2];
		f->tailed = t->tail_wait;
		w->emit(w->ctx, 0, v->fn);
		w->first = 0;
		return w->on_event ? w->on_event(w->ctx, v, s, f->tailed ?
						 RW_ENTER_TAIL : RW_ENTER_CALL)
				   : 0;
	case PAP_CEV_CALL:
	case PAP_CEV_TAIL:
		if (rfind(s, v->fn))
			return -1;
		t = rtop(s);
		if (v->kind == PAP_CEV_TAIL) {
			t->tail_wait = 1;
			t->tail_site = v->site;
		}
		return w->on_event ? w->on_event(w->ctx, v, s,
						 v->kind == PAP_CEV_TAIL ?
						 RW_TAIL : RW_CALL) : 0;
	case PAP_CEV_RETURN:
		if (rfind(s, v->fn))
			return -1;
		if (v->cls != 1)
			w->emit(w->ctx, 0, v->fn);
		return w->on_event ? w->on_event(w->ctx, v, s, RW_RETURN) : 0;
	case PAP_CEV_EXIT:
		if (rfind(s, v->fn))
			return -1;
		/* a tail chain returns through each function of it */
		while (s->n && s->f[s->n - 1].tailed) {
			s->n--;
			if (!s->n)
				return -1;
			w->emit(w->ctx, 0, s->f[s->n - 1].fn);
		}
		if (!s->n)
			return -1;
		s->n--;
		return w->on_event ? w->on_event(w->ctx, v, s, RW_EXIT) : 0;
	case PAP_CEV_FORK:
		/* a forked child's record: the frames open at the fork,
		 * entered and calling; the sequence starts with the
		 * innermost, where fork returns */
		f = rpush(s, v->fn);
		if (!f)
			return -1;
		f->outside = (uint8_t)v->cls;
		if (v->arg) {
			w->emit(w->ctx, 0, v->fn);
			w->first = 0;
		}
		if (!w->on_event)
			return 0;
		if (w->on_event(w->ctx, v, s, v->cls ? RW_ENTER_OUT :
				RW_ENTER_CALL))
			return -1;
		return w->on_event(w->ctx, v, s, RW_CALL);
	case PAP_CEV_LONGJMP:
		/* v->arg frames of the run (tail callers waiting are not
		 * theirs) lie above the one resumed */
		for (popped = 0; s->n && popped < v->arg; popped++) {
			while (s->n && s->f[s->n - 1].tailed)
				s->n--;
			if (s->n)
				s->n--;
		}
		if (rfind(s, v->fn))
			return -1;
		t = rtop(s);
		t->tail_wait = 0;
		w->emit(w->ctx, 0, v->fn);
		return w->on_event ? w->on_event(w->ctx, v, s, RW_LONGJMP) : 0;
	default:
		return -1;
	}
}

static int walk(struct rwalk *w, const struct pap_cev *ev, size_t n)
{
	struct rstack s = { 0 };
	size_t i;
	int r = 0;

	w->first = 1;
	for (i = 0; i < n && !r; i++)
		r = walk_event(w, &s, &ev[i]);
	free(s.f);
	return r;
}

/* --- the sequence ------------------------------------------------------ */

struct seq_ctx {
	struct call_seq *out;
	int oom;
};

static void seq_emit(void *ctx, int outside, uint32_t fn)
{
	struct seq_ctx *c = ctx;
	struct call_seq *q = c->out;

	if (q->n == q->cap &&
	    pap_grow(&q->item, &q->cap, sizeof(*q->item), 64)) {
		c->oom = 1;
		return;
	}
	q->item[q->n++] = fn | (outside ? CALL_SEQ_OUTSIDE : 0);
}

int call_sequence(const struct pap_cs_built *b, const struct pap_cev *ev,
		  size_t n, struct call_seq *out)
{
	struct seq_ctx c = { out, 0 };
	struct rwalk w = { b, seq_emit, NULL, &c, 1 };

	memset(out, 0, sizeof(*out));
	if (walk(&w, ev, n) || c.oom) {
		call_seq_free(out);
		return -1;
	}
	return 0;
}

int call_sequence_packed(const struct pap_cs_built *b,
			 const struct pap_cseq_packed *pk, struct call_seq *out,
			 struct pap_cev_rep **reps, size_t *nreps)
{
	struct seq_ctx c = { out, 0 };
	struct rwalk w = { b, seq_emit, NULL, &c, 1 };
	struct rstack s = { 0 };
	size_t i = 0, r, cap = 0, from;
	int err = 0;

	memset(out, 0, sizeof(*out));
	*reps = NULL;
	*nreps = 0;
	for (r = 0; r <= pk->nrep && !err; r++) {
		size_t to = r < pk->nrep ? pk->rep[r].at : pk->nev;
		uint64_t count = r < pk->nrep ? pk->rep[r].count : 0;

		for (; i < to && !err; i++)
			err = walk_event(&w, &s, &pk->ev[i]);
		if (r == pk->nrep || err)
			break;
		/* the first entry's name is plain, the others' not: a body
		 * holding it is walked once more, its first copy apart */
		if (w.first) {
			for (i = to; i < to + pk->rep[r].len && !err; i++)
				err = walk_event(&w, &s, &pk->ev[i]);
			count--;
		}
		from = out->n;
		for (i = to; i < to + pk->rep[r].len && !err; i++)
			err = walk_event(&w, &s, &pk->ev[i]);
		if (err || out->n == from)
			continue;
		if (*nreps == cap && pap_grow(reps, &cap, sizeof(**reps), 8)) {
			c.oom = 1;
			break;
		}
		(*reps)[*nreps].at = from;
		(*reps)[*nreps].len = out->n - from;
		(*reps)[(*nreps)++].count = count;
	}
	free(s.f);
	if (err || c.oom) {
		call_seq_free(out);
		free(*reps);
		*reps = NULL;
		*nreps = 0;
		return -1;
	}
	return 0;
}

void call_seq_free(struct call_seq *q)
{
	free(q->item);
	memset(q, 0, sizeof(*q));
}

/* --- the text tree ------------------------------------------------------ */

/* A node: an entry ("main", ">cmp") or a call ("main:12 -> f"). */
struct cnode {
	uint32_t parent, child, last, next;	/* NO_NODE: none */
	uint32_t fn;		/* entry: the function; call: the caller */
	uint32_t site;		/* call: k; 0 for an entry */
	uint32_t callee;	/* call: the function entered, or PAP_NONE */
	uint8_t kind;		/* CN_* */
	uint64_t reps;		/* consecutive equal siblings it stands for */
	uint64_t hash;
};

/* CN_GROUP: its children, consecutive siblings once, repeat reps times */
enum { CN_ENTRY, CN_OUT_ENTRY, CN_CALL, CN_TAIL, CN_LONGJMP, CN_GROUP };

/* Periods of sibling groups looked for (2 to this many siblings). */
#define GROUP_MAX_PERIOD 8

struct tree {
	struct cnode *n;
	size_t nn, cap;
	uint32_t root;
	int oom;
};

static uint32_t tnew(struct tree *t, uint32_t parent, uint8_t kind,
		     uint32_t fn, uint32_t site)
{
	struct cnode *c;
	uint32_t id;

	if (t->nn == t->cap && pap_grow(&t->n, &t->cap, sizeof(*t->n), 256)) {
		t->oom = 1;
		return NO_NODE;
	}
	id = (uint32_t)t->nn++;
	c = &t->n[id];
	memset(c, 0, sizeof(*c));
	c->parent = parent;
	c->child = c->last = c->next = NO_NODE;
	c->kind = kind;
	c->fn = fn;
	c->site = site;
	c->callee = PAP_NONE;
	c->reps = 1;
	if (parent != NO_NODE) {
		struct cnode *p = &t->n[parent];

		if (p->last == NO_NODE)
			p->child = id;
		else
			t->n[p->last].next = id;
		p->last = id;
	}
	return id;
}

static void tree_emit(void *ctx, int outside, uint32_t fn)
{
	(void)ctx;
	(void)outside;
	(void)fn;
}

/* Where an entry from outside hangs: under the call in progress that
 * let it happen, else under its frame, else at the root. */
static uint32_t out_parent(struct tree *t, struct rstack *s)
{
	size_t i = s->n;

	/* the new frame is on top already */
	if (i >= 2) {
		const struct rframe *f = &s->f[i - 2];

		return f->call != NO_NODE ? f->call : f->node;
	}
	return t->root;
}

static int tree_event(void *ctx, const struct pap_cev *v, struct rstack *s,
		      int kind)
{
	struct tree *t = ctx;
	struct rframe *top = rtop(s), *below;
	uint32_t id;

	switch (kind) {
	case RW_ENTER_OUT:
		id = tnew(t, out_parent(t, s),
			  t->nn == 1 ? CN_ENTRY : CN_OUT_ENTRY, v->fn, 0);
		top->node = id;
		break;
	case RW_ENTER_CALL:
	case RW_ENTER_TAIL:
		below = &s->f[s->n - 2];
		id = below->call;
		if (id == NO_NODE)	/* an outside frame's tail call */
			id = tnew(t, below->node, CN_TAIL, below->fn,
				  below->tail_site);
		if (id != NO_NODE)
			t->n[id].callee = v->fn;
		top->node = id;
		if (kind == RW_ENTER_TAIL)
			below->call = NO_NODE;
		break;
	case RW_CALL:
	case RW_TAIL:
		top->call = tnew(t, top->node, kind == RW_CALL ? CN_CALL :
				 CN_TAIL, v->fn, v->site);
		break;
	case RW_RETURN:
		top->call = NO_NODE;
		break;
	case RW_LONGJMP:
		tnew(t, top->node, CN_LONGJMP, v->fn, v->site);
		top->call = NO_NODE;
		break;
	default:
		break;
	}
	return t->oom ? -1 : 0;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t node_hash_self(const struct cnode *c)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, c->kind);
	h = fnv(h, c->fn);
	h = fnv(h, c->site);
	return fnv(h, c->callee);
}

/* Are the subtrees at @a and @b equal (labels, children and their
 * repeats; not the repeats of @a and @b themselves)?  Iterative: trees
 * may be as deep as the recursion that made them. */
static int tree_equal(const struct tree *t, uint32_t a, uint32_t b,
		      uint32_t **stk, size_t *cap)
{
	size_t n = 0;
	int root = 1;

	if (*cap < 2 && pap_grow(stk, cap, sizeof(**stk), 64))
		return 0;
	(*stk)[n++] = a;
	(*stk)[n++] = b;
	while (n) {
		const struct cnode *x, *y;
		uint32_t i, j;

		b = (*stk)[--n];
		a = (*stk)[--n];
		x = &t->n[a];
		y = &t->n[b];
		if (x->hash != y->hash || x->kind != y->kind ||
		    x->fn != y->fn || x->site != y->site ||
		    x->callee != y->callee || (!root && x->reps != y->reps))
			return 0;
		root = 0;
		for (i = x->child, j = y->child; i != NO_NODE && j != NO_NODE;
		     i = t->n[i].next, j = t->n[j].next) {
			while (n + 2 > *cap)
				if (pap_grow(stk, cap, sizeof(**stk), 64))
					return 0;
			(*stk)[n++] = i;
			(*stk)[n++] = j;
		}
		if (i != NO_NODE || j != NO_NODE)
			return 0;
	}
	return 1;
}

/* Are the @p siblings from a[@x] equal to those from a[@y], each with its
 * repeats? */
static int block_equal(const struct tree *t, const uint32_t *a, size_t x,
		       size_t y, size_t p, uint32_t **stk, size_t *cap)
{
	size_t j;

	for (j = 0; j < p; j++) {
		const struct cnode *u = &t->n[a[x + j]], *v = &t->n[a[y + j]];

		if (u->hash != v->hash || u->reps != v->reps ||
		    !tree_equal(t, a[x + j], a[y + j], stk, cap))
			return 0;
	}
	return 1;
}

/*
 * Gathers the children of @pi (runs of equal siblings merged already)
 * that repeat with a period of 2 to GROUP_MAX_PERIOD siblings under
 * CN_GROUP nodes: at each place the period that covers the most
 * siblings, the shortest among equals.  0, or -1 when memory is short.
 */
static int tree_group(struct tree *t, uint32_t pi, uint32_t **stk,
		      size_t *cap)
{
	uint32_t *a = NULL, k, prev = NO_NODE;
	size_t m = 0, am = 0, i, j, p;

	for (k = t->n[pi].child; k != NO_NODE; k = t->n[k].next) {
		if (m == am && pap_grow(&a, &am, sizeof(*a), 64)) {
			free(a);
			return -1;
		}
		a[m++] = k;
	}
	if (m < 4) {
		free(a);
		return 0;
	}
	t->n[pi].child = t->n[pi].last = NO_NODE;
	for (i = 0; i < m;) {
		size_t best_p = 0, best_r = 1, r;
		uint32_t g, at;
		uint64_t h;

		for (p = 2; p <= GROUP_MAX_PERIOD && i + 2 * p <= m; p++) {
			for (r = 1; i + (r + 1) * p <= m &&
			     block_equal(t, a, i, i + r * p, p, stk, cap); r++)
				;
			if (r >= 2 && r * p > best_r * best_p) {
				best_p = p;
				best_r = r;
			}
		}
		if (!best_p) {
			at = a[i++];
		} else {
			g = tnew(t, NO_NODE, CN_GROUP, PAP_NONE, 0);
			if (g == NO_NODE) {
				free(a);
				return -1;
			}
			h = node_hash_self(&t->n[g]);
			for (j = 0; j < best_p; j++) {
				struct cnode *x = &t->n[a[i + j]];

				x->parent = g;
				x->next = j + 1 < best_p ? a[i + j + 1] :
					  NO_NODE;
				h = fnv(fnv(h, x->hash), x->reps);
			}
			t->n[g].child = a[i];
			t->n[g].last = a[i + best_p - 1];
			t->n[g].reps = best_r;
			t->n[g].hash = h;
			at = g;
			i += best_p * best_r;
		}
		t->n[at].parent = pi;
		t->n[at].next = NO_NODE;
		if (prev == NO_NODE)
			t->n[pi].child = at;
		else
			t->n[prev].next = at;
		t->n[pi].last = prev = at;
	}
	free(a);
	return 0;
}

/*
 * Merges consecutive equal siblings, then gathers repeating groups of
 * siblings (tree_group), bottom up (a node is done after its children:
 * nodes are made parent first, so reverse creation order does), and
 * gives each node its hash.
 */
static int tree_compress(struct tree *t)
{
	uint32_t *stk = NULL;
	size_t cap = 0, i;

	for (i = t->nn; i-- > 0;) {
		struct cnode *c = &t->n[i];
		uint32_t k, prev = NO_NODE;
		uint64_t h = node_hash_self(c);

		for (k = c->child; k != NO_NODE; k = t->n[k].next) {
			struct cnode *x = &t->n[k];

			if (prev != NO_NODE && t->n[prev].hash == x->hash &&
			    tree_equal(t, prev, k, &stk, &cap)) {
				/* fold x into prev */
				t->n[prev].reps += x->reps;
				t->n[prev].next = x->next;
				if (c->last == k)
					c->last = prev;
				k = prev;
				continue;
			}
			prev = k;
		}
		if (tree_group(t, (uint32_t)i, &stk, &cap)) {
			free(stk);
			return -1;
		}
		c = &t->n[i];	/* tree_group may move the nodes */
		/* the hash of the children as merged */
		for (k = c->child; k != NO_NODE; k = t->n[k].next) {
			h = fnv(h, t->n[k].hash);
			h = fnv(h, t->n[k].reps);
		}
		c->hash = h;
	}
	free(stk);
	return 0;
}

static const char *fn_name(const struct pap_cs_built *b, uint32_t fn)
{
	return fn < b->prog.nfn ? b->meta[fn]->name : "?";
}

uint32_t call_site_line(const struct pap_cs_built *b, uint32_t fn,
			uint32_t k)
{
	const struct pap_meta_calls *c = fn < b->prog.nfn ?
					 b->meta[fn]->calls : NULL;

	return c && k >= 1 && k <= c->nsites ? c->line[k - 1] : 0;
}

/* The callee a site names in the metadata, or NULL (indirect). */
static const char *site_callee(const struct pap_cs_built *b, uint32_t fn,
			       uint32_t k)
{
	const struct pap_meta_calls *c = fn < b->prog.nfn ?
					 b->meta[fn]->calls : NULL;

	return c && k >= 1 && k <= c->nsites ? c->callee[k - 1] : NULL;
}

static void put_label(FILE *out, const struct pap_cs_built *b,
		      const struct cnode *c)
{
	const char *callee;
	uint32_t line;

	switch (c->kind) {
	case CN_ENTRY:
	case CN_OUT_ENTRY:
		fprintf(out, "%s%s", c->kind == CN_OUT_ENTRY ? ">" : "",
			fn_name(b, c->fn));
		break;
	case CN_CALL:
	case CN_TAIL:
		line = call_site_line(b, c->fn, c->site);
		fputs(fn_name(b, c->fn), out);
		if (line)
			fprintf(out, ":%u", line);
		if (c->callee != PAP_NONE) {
			fprintf(out, " -> %s", fn_name(b, c->callee));
		} else {
			callee = site_callee(b, c->fn, c->site);
			fprintf(out, " -> %s [outside]",
				callee ? callee : "(indirect)");
		}
		if (c->kind == CN_TAIL)
			fputs(" (tail)", out);
		break;
	case CN_LONGJMP:
		fprintf(out, "<- longjmp back to %s", fn_name(b, c->fn));
		break;
	case CN_GROUP:
		fprintf(out, "x %llu:\n", (unsigned long long)c->reps);
		return;
	}
	if (c->reps > 1)
		fprintf(out, "  x %llu", (unsigned long long)c->reps);
	fputc('\n', out);
}

/* Deeper nesting than this is indented as this. */
#define TREE_MAX_INDENT 32

int call_tree_print(FILE *out, const struct pap_cs_built *b,
		    const struct pap_cev *ev, size_t n, int indent)
{
	struct tree t = { 0 };
	struct rwalk w = { b, tree_emit, tree_event, &t, 1 };
	uint32_t v;
	size_t depth = 0;
	int r;

	t.root = tnew(&t, NO_NODE, CN_ENTRY, PAP_NONE, 0);
	r = t.oom ? -1 : walk(&w, ev, n);
	if (!r)
		r = tree_compress(&t);
	if (r) {
		free(t.n);
		return -1;
	}
	/* preorder, iteratively */
	v = t.n[t.root].child;
	depth = 0;
	while (v != NO_NODE) {
		size_t d = depth < TREE_MAX_INDENT ? depth : TREE_MAX_INDENT;

		fprintf(out, "%*s", indent + 2 * (int)d, "");
		put_label(out, b, &t.n[v]);
		if (t.n[v].child != NO_NODE) {
			v = t.n[v].child;
			depth++;
			continue;
		}
		while (v != NO_NODE && t.n[v].next == NO_NODE) {
			v = t.n[v].parent;
			if (v == t.root)
				v = NO_NODE;
			else
				depth--;
		}
		if (v != NO_NODE)
			v = t.n[v].next;
	}
	free(t.n);
	return 0;
}

void call_seq_json(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t max)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < q->n && i < max; i++) {
		uint32_t v = q->item[i];

		fputs(i ? ", " : "", out);
		json_prefixed_string(out, v & CALL_SEQ_OUTSIDE ? ">" : "",
			  fn_name(b, v & ~CALL_SEQ_OUTSIDE));
	}
	fputc(']', out);
}

void call_seq_text(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t max)
{
	size_t i;

	for (i = 0; i < q->n && i < max; i++) {
		uint32_t v = q->item[i];

		fprintf(out, "%s%s%s", i ? " " : "",
			v & CALL_SEQ_OUTSIDE ? ">" : "",
			fn_name(b, v & ~CALL_SEQ_OUTSIDE));
	}
}
