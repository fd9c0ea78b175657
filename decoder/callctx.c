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

/* The children of @v (0: the roots) of @t, hottest first, into a new
 * array; *@n of them.  NULL when there are none or memory is short. */
static const struct pap_forest *sort_tree;

static int by_calls(const void *a, const void *b)
{
	const struct pap_fnode *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct pap_fnode *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->label > y->label) - (x->label < y->label);
}

static uint32_t *children(const struct pap_forest *t, uint32_t v, size_t *n)
{
	uint32_t *c, w;

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
	sort_tree = t;
	qsort(c, *n, sizeof(*c), by_calls);
	return c;
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
		if (pap_cctx_add(&trees[j].t, runs[i].ev, runs[i].nev,
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

/* JSON: @v's context and its descendants, depth first; @parent the id
 * of its parent's entry (SIZE_MAX: none). */
static void json_node(FILE *out, const struct ctree *ct, uint32_t v,
		      uint32_t *path, size_t depth, size_t parent,
		      size_t *shown, size_t *left, int *first)
{
	const struct pap_forest *t = &ct->t;
	const struct pap_fnode *x = &t->nodes[v];
	uint32_t *c, up = x->parent;
	size_t i, n, id = SIZE_MAX;
	char name[4096];

	path[depth] = v;
	if (*shown >= CONTEXTS_MAX_JSON || (depth && parent == SIZE_MAX)) {
		(*left)++;
	} else {
		id = *shown;
		fprintf(out, "%s\n  {\"id\": %zu, \"parent\": ",
			*first ? "" : ",", id);
		if (depth)
			fprintf(out, "%zu", parent);
		else
			fputs("null", out);
		fputs(", \"context\": [", out);
		for (i = 0; i <= depth; i++) {
			uint64_t l = t->nodes[path[i]].label;

			if (i)
				fputs(", ", out);
			json_prefixed_string(out, pap_cctx_outside(l) && i ?
					     ">" : "", name_of(ct->b, l));
		}
		fputs("], \"site\": ", out);
		if (up) {
			snprintf(name, sizeof(name), "%s:%u",
				 name_of(ct->b, t->nodes[up].label),
				 call_site_line(ct->b, pap_cctx_fn(
					t->nodes[up].label),
					pap_cctx_site(x->label)));
			json_string(out, name);
			fprintf(out, ", \"call_site\": %u",
				pap_cctx_site(x->label));
		} else {
			fputs("null, \"call_site\": null", out);
		}
		fprintf(out, ", \"outside\": %s, \"calls\": %" PRIu64 "}",
			pap_cctx_outside(x->label) ? "true" : "false",
			x->count);
		*first = 0;
		(*shown)++;
	}
	c = children(t, v, &n);
	for (i = 0; c && i < n; i++)
		json_node(out, ct, c[i], path, depth + 1, id, shown, left,
			  first);
	free(c);
}

/* The deepest context of @t, for the path buffer (roots have depth 1). */
static uint32_t max_depth(const struct pap_forest *t)
{
	uint32_t v, d = 0;

	for (v = 1; v < t->n; v++)
		if (t->nodes[v].depth > d)
			d = t->nodes[v].depth;
	return d;
}

void call_contexts_json(FILE *out, const struct call_run *runs, size_t n,
			struct decoder *d, const char *file)
{
	size_t ntrees = 0, shown = 0, left = 0, i, j, nr;
	struct ctree *trees = build(runs, n, &ntrees, d, file);
	int first = 1;

	fputs(",\n\"call_contexts\": [", out);
	for (i = 0; trees && i < ntrees; i++) {
		uint32_t *path = malloc((max_depth(&trees[i].t) + 1) *
					sizeof(*path));
		uint32_t *roots = children(&trees[i].t, 0, &nr);

		for (j = 0; path && roots && j < nr; j++)
			json_node(out, &trees[i], roots[j], path, 0, SIZE_MAX,
				  &shown, &left, &first);
		free(roots);
		free(path);
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

/* Text: @v and its descendants, @top children at most per context. */
static void text_node(FILE *out, const struct ctree *ct, uint32_t v,
		      int indent, size_t top)
{
	const struct pap_forest *t = &ct->t;
	const struct pap_fnode *x = &t->nodes[v];
	uint32_t *c;
	size_t i, n;

	fprintf(out, "%12" PRIu64 "  %*s%s%s", x->count, indent, "",
		pap_cctx_outside(x->label) && x->parent ? ">" : "",
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
	c = children(t, v, &n);
	for (i = 0; c && i < n && (!top || i < top); i++)
		text_node(out, ct, c[i], indent + 2, top);
	if (c && top && n > top)
		fprintf(out, "%12s  %*s(%zu more contexts: --top)\n", "",
			indent + 2, "", n - top);
	free(c);
}

void call_contexts_text(FILE *out, const struct call_run *runs, size_t n,
			const struct ropts *o, struct decoder *d,
			const char *file)
{
	size_t ntrees = 0, i, j, nr, total = 0;
	struct ctree *trees = build(runs, n, &ntrees, d, file);

	for (i = 0; trees && i < ntrees; i++)
		total += trees[i].t.n - 1;
	fprintf(out, "\ncalling contexts: %zu distinct (calls into each "
		"context; the function; its caller and the call's line)\n",
		total);
	for (i = 0; trees && i < ntrees; i++) {
		uint32_t *roots = children(&trees[i].t, 0, &nr);

		for (j = 0; roots && j < nr; j++)
			text_node(out, &trees[i], roots[j], 0, o->top);
		free(roots);
	}
	trees_free(trees, ntrees);
}
