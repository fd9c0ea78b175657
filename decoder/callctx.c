/* SPDX-License-Identifier: MIT */
/*
 * callctx.c - the calling-context tree section of the reports: every
 * decoded call sequence's contexts (libcore/callctx.h), each counted as
 * many times as its sequence was recorded, in JSON as "call_contexts"
 * and in text as an indented tree, hottest first.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "callctx.h"
#include "decoder.h"

/* JSON contexts at most; more are counted in call_contexts_left_out. */
#define CONTEXTS_MAX_JSON 100000u
/* A JSON context's "context" chain is written up to this depth (the
 * work per context stays bounded; "parent" gives any chain). */
#define CONTEXT_CHAIN_MAX 64u
/* The text tree is indented up to this depth; deeper lines say theirs. */
#define CONTEXT_MAX_INDENT 32u

/* A child to sort: its count and label with it, so that the comparison
 * needs no pointer to the forest. */
struct kid {
	uint64_t count, label;
	uint32_t v;
};

/* Hottest first, then by label. */
static int by_calls(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->label > y->label) - (x->label < y->label);
}

/* The children of @v (0: the roots) of @t, hottest first, into a new
 * array; *@n of them.  NULL when there are none or memory is short. */
static uint32_t *children(const struct pap_forest *t, uint32_t v, size_t *n)
{
	struct kid *k;
	uint32_t *c, w;
	size_t i;

	*n = 0;
	if (v) {
		for (w = t->nodes[v].child; w; w = t->nodes[w].sibling)
			(*n)++;
		c = *n ? malloc(*n * sizeof(*c)) : NULL;
		if (!c)
			return NULL;
		*n = 0;
		for (w = t->nodes[v].child; w; w = t->nodes[w].sibling)
			c[(*n)++] = w;
	} else {
		c = pap_forest_roots(t);
		if (!c)
			return NULL;
		*n = t->nroots;
	}
	k = malloc(*n * sizeof(*k));
	if (!k) {
		free(c);
		*n = 0;
		return NULL;
	}
	for (i = 0; i < *n; i++) {
		k[i].count = t->nodes[c[i]].count;
		k[i].label = t->nodes[c[i]].label;
		k[i].v = c[i];
	}
	qsort(k, *n, sizeof(*k), by_calls);
	for (i = 0; i < *n; i++)
		c[i] = k[i].v;
	free(k);
	return c;
}

/*
 * A depth-first walk of a forest without recursion: one level per open
 * node, its children sorted once.  walk_next() gives the next node
 * (children hottest first, @top of them at most per node, 0: all) and
 * its depth from 0, or 0 at the end, and says, when a level is done,
 * how many children --top left out (the roots are never cut).
 */
struct level {
	uint32_t *c;
	size_t n, i;
	size_t id;		/* JSON: the entry's id, SIZE_MAX: none */
};

struct walker {
	const struct pap_forest *t;
	struct level *l;
	size_t depth, cap;	/* levels open */
	size_t top;
	int oom;
};

static int walk_open(struct walker *w, uint32_t v, size_t id)
{
	struct level *l;

	if (w->depth == w->cap &&
	    pap_grow(&w->l, &w->cap, sizeof(*w->l), 64)) {
		w->oom = 1;
		return -1;
	}
	l = &w->l[w->depth++];
	l->c = children(w->t, v, &l->n);
	l->i = 0;
	l->id = id;
	return 0;
}

/* The next node, its level's depth in *@depth; 0 when done.  Closed
 * levels are reported to @done (the number of children --top left out)
 * if not NULL. */
static uint32_t walk_next(struct walker *w, size_t *depth,
			  void (*done)(void *ctx, size_t depth, size_t left),
			  void *ctx)
{
	while (w->depth) {
		struct level *l = &w->l[w->depth - 1];

		if (l->c && l->i < l->n &&
		    (!w->top || w->depth == 1 || l->i < w->top)) {
			*depth = w->depth - 1;
			return l->c[l->i++];
		}
		if (done && l->c && w->top && w->depth > 1 && l->n > w->top)
			done(ctx, w->depth - 1, l->n - w->top);
		free(l->c);
		w->depth--;
	}
	return 0;
}

static void walk_free(struct walker *w)
{
	while (w->depth)
		free(w->l[--w->depth].c);
	free(w->l);
}

/* One program's contexts. */
struct ctree {
	const struct pap_cs_built *b;
	struct pap_forest t;
};

/* The trees of @runs, one per program; *@ntrees of them (errors named,
 * counted in @d). */
static struct ctree *build(const struct call_run *runs, size_t n,
			   size_t *ntrees, struct decoder *d,
			   const char *file)
{
	struct ctree *trees = calloc(n + 1, sizeof(*trees));
	size_t i, j;

	*ntrees = 0;
	if (!trees)
		return NULL;
	for (i = 0; i < n; i++) {
		for (j = 0; j < *ntrees && trees[j].b != runs[i].b; j++)
			;
		if (j == *ntrees) {
			trees[j].b = runs[i].b;
			pap_forest_init(&trees[j].t);
			(*ntrees)++;
		}
		if (runs[i].pk ? pap_cctx_add_packed(&trees[j].t, runs[i].pk,
						     runs[i].count) :
		    pap_cctx_add(&trees[j].t, runs[i].ev, runs[i].nev,
				 runs[i].count)) {
			fprintf(stderr, "%s: %s: the calling contexts of a "
				"sequence could not be made\n", pap_prog, file);
			d->errors++;
		}
	}
	return trees;
}

static void trees_free(struct ctree *trees, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pap_forest_free(&trees[i].t);
	free(trees);
}

static const char *name_of(const struct pap_cs_built *b, uint64_t label)
{
	uint32_t fn = pap_cctx_fn(label);

	return fn < b->prog.nfn ? b->meta[fn]->name : "?";
}

/* One JSON entry: context @v at @depth (0: a root) whose parent's entry
 * is @parent (SIZE_MAX: a root); @w's open levels above it are its
 * chain. */
static void json_entry(FILE *out, const struct ctree *ct,
		       const struct walker *w, uint32_t v, size_t depth,
		       size_t id, size_t parent, int first)
{
	const struct pap_forest *t = &ct->t;
	const struct pap_fnode *x = &t->nodes[v];
	uint32_t up = x->parent;
	size_t i;
	char name[4096];

	fprintf(out, "%s\n  {\"id\": %zu, \"parent\": ", first ? "" : ",", id);
	if (depth)
		fprintf(out, "%zu", parent);
	else
		fputs("null", out);
	fputs(", \"name\": ", out);
	json_prefixed_string(out, pap_cctx_outside(x->label) && depth ? ">" :
			     "", name_of(ct->b, x->label));
	fprintf(out, ", \"depth\": %zu", depth + 1);
	if (depth < CONTEXT_CHAIN_MAX) {
		/* the chain: the node being visited at each open level */
		fputs(", \"context\": [", out);
		for (i = 0; i <= depth; i++) {
			uint64_t l = i < depth ?
				t->nodes[w->l[i].c[w->l[i].i - 1]].label :
				x->label;

			if (i)
				fputs(", ", out);
			json_prefixed_string(out, pap_cctx_outside(l) && i ?
					     ">" : "", name_of(ct->b, l));
		}
		fputc(']', out);
	}
	fputs(", \"site\": ", out);
	if (up) {
		snprintf(name, sizeof(name), "%s:%u",
			 name_of(ct->b, t->nodes[up].label),
			 call_site_line(ct->b, pap_cctx_fn(t->nodes[up].label),
					pap_cctx_site(x->label)));
		json_string(out, name);
		fprintf(out, ", \"call_site\": %u", pap_cctx_site(x->label));
	} else {
		fputs("null, \"call_site\": null", out);
	}
	fprintf(out, ", \"outside\": %s, \"calls\": %" PRIu64 "}",
		pap_cctx_outside(x->label) ? "true" : "false", x->count);
}

void call_contexts_json(FILE *out, const struct call_run *runs, size_t n,
			struct decoder *d, const char *file)
{
	size_t ntrees = 0, shown = 0, left = 0, i, depth;
	struct ctree *trees = build(runs, n, &ntrees, d, file);
	int first = 1;

	fputs(",\n\"call_contexts\": [", out);
	for (i = 0; trees && i < ntrees; i++) {
		struct walker w = { &trees[i].t, NULL, 0, 0, 0, 0 };
		uint32_t v;

		if (walk_open(&w, 0, SIZE_MAX))
			break;
		while ((v = walk_next(&w, &depth, NULL, NULL))) {
			size_t parent = w.l[depth].id, id = SIZE_MAX;

			/* the levels above @v stay; its own is opened */
			w.depth = depth + 1;
			if (shown >= CONTEXTS_MAX_JSON ||
			    (depth && parent == SIZE_MAX)) {
				left++;
			} else {
				id = shown++;
				json_entry(out, &trees[i], &w, v, depth, id,
					   parent, first);
				first = 0;
			}
			if (walk_open(&w, v, id))
				break;
		}
		if (w.oom) {
			fprintf(stderr, "%s: %s: out of memory for the "
				"calling contexts\n", pap_prog, file);
			d->errors++;
		}
		walk_free(&w);
	}
	fprintf(out, "\n], \"call_contexts_left_out\": %zu", left);
	trees_free(trees, ntrees);
}

/* Does another call site of @fn share call site @k's line? */
static int line_shared(const struct pap_cs_built *b, uint32_t fn, uint32_t k)
{
	const struct pap_meta_calls *c = fn < b->prog.nfn ?
					 b->meta[fn]->calls : NULL;
	uint32_t j;

	for (j = 0; c && k >= 1 && k <= c->nsites && j < c->nsites; j++)
		if (j != k - 1 && c->line[j] == c->line[k - 1])
			return 1;
	return 0;
}

/* Text: one context's line at @depth (0: a root). */
static void text_line(FILE *out, const struct ctree *ct, uint32_t v,
		      size_t depth)
{
	const struct pap_forest *t = &ct->t;
	const struct pap_fnode *x = &t->nodes[v];
	size_t ind = depth < CONTEXT_MAX_INDENT ? depth : CONTEXT_MAX_INDENT;

	fprintf(out, "%12" PRIu64 "  %*s", x->count, 2 * (int)ind, "");
	if (depth > CONTEXT_MAX_INDENT)
		fprintf(out, "[depth %zu] ", depth + 1);
	fprintf(out, "%s%s", pap_cctx_outside(x->label) && x->parent ? ">" : "",
		name_of(ct->b, x->label));
	if (x->parent) {
		uint32_t pf = pap_cctx_fn(t->nodes[x->parent].label);
		uint32_t k = pap_cctx_site(x->label);

		fprintf(out, "  (%s:%u", name_of(ct->b,
			t->nodes[x->parent].label),
			call_site_line(ct->b, pf, k));
		if (line_shared(ct->b, pf, k))
			fprintf(out, ", call %u", k);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* Text: "(N more contexts: --top)" under a context whose children
 * --top cut. */
static void text_cut(void *ctx, size_t depth, size_t left)
{
	size_t ind = depth < CONTEXT_MAX_INDENT ? depth : CONTEXT_MAX_INDENT;

	fprintf(ctx, "%12s  %*s(%zu more contexts: --top)\n", "",
			2 * (int)ind, "", left);
}

void call_contexts_text(FILE *out, const struct call_run *runs, size_t n,
			const struct ropts *o, struct decoder *d,
			const char *file)
{
	size_t ntrees = 0, i, total = 0, depth;
	struct ctree *trees = build(runs, n, &ntrees, d, file);

	for (i = 0; trees && i < ntrees; i++)
		total += trees[i].t.n - 1;
	fprintf(out, "\ncalling contexts: %zu distinct (calls into each "
		"context; the function; its caller and the call's line)\n",
		total);
	for (i = 0; trees && i < ntrees; i++) {
		struct walker w = { &trees[i].t, NULL, 0, 0, o->top, 0 };
		uint32_t v;

		if (walk_open(&w, 0, SIZE_MAX))
			break;
		while ((v = walk_next(&w, &depth, text_cut, out))) {
			text_line(out, &trees[i], v, depth);
			if (walk_open(&w, v, 0))
				break;
		}
		if (w.oom) {
			fprintf(stderr, "%s: %s: out of memory for the "
				"calling contexts\n", pap_prog, file);
			d->errors++;
		}
		walk_free(&w);
	}
	trees_free(trees, ntrees);
}
