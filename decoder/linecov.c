/* SPDX-License-Identifier: MIT */
/*
 * linecov.c - each source file's coverage as gcov sees it: line counts
 * (libcore/gcovline.h), functions with their entries, and branches, from
 * the decoded paths and, for functions that never ran, their metadata.
 * The annotated source, the lcov tracefile and gcov's JSON are written
 * from it.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "gcovline.h"

/* Grows @lc's line arrays to hold line @n - 1; -1 if out of memory. */
static int grow_lines(struct linecov *lc, uint32_t n)
{
	const struct pap_meta_fn **f;
	uint64_t *c;
	uint32_t *p;
	uint8_t *k;

	if (n <= lc->nlines)
		return 0;
	f = realloc(lc->fn_of, n * sizeof(*f));
	if (f)
		lc->fn_of = f;
	c = realloc(lc->count, n * sizeof(*c));
	if (c)
		lc->count = c;
	p = realloc(lc->paths, n * sizeof(*p));
	if (p)
		lc->paths = p;
	k = realloc(lc->known, n);
	if (k)
		lc->known = k;
	if (!c || !p || !k || !f)
		return -1;
	memset(f + lc->nlines, 0, (n - lc->nlines) * sizeof(*f));
	memset(c + lc->nlines, 0, (n - lc->nlines) * sizeof(*c));
	memset(p + lc->nlines, 0, (n - lc->nlines) * sizeof(*p));
	memset(k + lc->nlines, 0, n - lc->nlines);
	lc->nlines = n;
	return 0;
}

/* The last line of @fn's block @b, 0 if it has none. */
static uint32_t last_line(const struct pap_meta_fn *fn, uint32_t b)
{
	const uint32_t *ln = blines(fn, b);

	return ln[0] && ln[ln[0]] < PAP_MAX_LINE ? ln[ln[0]] : 0;
}

/* Adds function @fn (decoded as @df, NULL if it never ran) to @lc. */
static int add_function(struct linecov *lc, struct pap_meta_fn *fn,
			struct dfunc *df)
{
	const struct pap_cfg *cfg = fn->graph.cfg;
	uint64_t *count = NULL, *block = NULL, *edge = NULL;
	uint32_t *paths = NULL, n = 0, np = 0, l, b, k, i, e, nout;
	struct linecov_fn *lf;
	int r = -1;

	if (lc->nfns == lc->capfns &&
	    pap_grow(&lc->fns, &lc->capfns, sizeof(*lc->fns), 8))
		return -1;
	lf = &lc->fns[lc->nfns];
	memset(lf, 0, sizeof(*lf));
	lf->fn = fn;
	lf->df = df;
	lf->first = UINT32_MAX;
	if (df) {
		/* the distinct paths per line; the counts gcov's way, over
		 * the lines on edges too */
		line_counts(df, &count, &paths, &np);
		free(count);
		for (n = np, e = 0; e < fn->nelines; e++)
			for (k = 1; fn->elines[e] && k <= fn->elines[e][0]; k++)
				if (fn->elines[e][k] < PAP_MAX_LINE &&
				    fn->elines[e][k] >= n)
					n = fn->elines[e][k] + 1;
		count = calloc(n ? n : 1, sizeof(*count));
		flow_counts(df, &block, &edge);
		if (!count || !paths || !block || !edge)
			goto out;
		if (pap_gcov_line_counts(cfg,
					 (const uint32_t *const *)fn->lines,
					 (const uint32_t *const *)fn->elines,
					 fn->nelines, block, edge, n, count))
			goto out;
		lf->calls = edge[cfg->entry_edge];
	}
	for (b = 0; b < fn->graph.nblocks + fn->nelines; b++) {
		/* the blocks, then the lines on edges */
		const uint32_t *ln;
		int ran;

		e = b - fn->graph.nblocks;
		ln = b < fn->graph.nblocks ? blines(fn, b) : fn->elines[e];
		ran = b < fn->graph.nblocks ? block && block[b] :
			  edge && edge[e];
		if (!ln)
			continue;
		lf->nblocks += b < fn->graph.nblocks;
		lf->blocks_run += b < fn->graph.nblocks && ran;
		for (k = 1; k <= ln[0]; k++) {
			l = ln[k];
			if (l >= PAP_MAX_LINE)
				continue;
			if (grow_lines(lc, l + 1))
				goto out;
			lc->known[l] |= LINE_CODE | (ran ? 0 : LINE_UNRUN);
			if (!lc->fn_of[l])
				lc->fn_of[l] = fn;
			if (l < n) {
				lc->count[l] += count[l];
				count[l] = 0;	/* once per function */
			}
			if (l < np) {
				lc->paths[l] += paths[l];
				paths[l] = 0;
			}
			lf->first = l < lf->first ? l : lf->first;
			lf->last = l > lf->last ? l : lf->last;
		}
		if (b >= fn->graph.nblocks)
			continue;
		/* a block of two or more ways out: a branch point */
		nout = 0;
		for (i = cfg->out_off[b]; i < cfg->out_off[b + 1]; i++)
			nout += cfg->edges[cfg->out_edge[i]].kind !=
				PAP_EDGE_FAKE;
		if (nout < 2 || !last_line(fn, b))
			continue;
		for (i = cfg->out_off[b], k = 0; i < cfg->out_off[b + 1]; i++) {
			uint32_t way = cfg->out_edge[i];
			struct linecov_branch *br;

			if (cfg->edges[way].kind == PAP_EDGE_FAKE)
				continue;
			if (lc->nbr == lc->capbr &&
			    pap_grow(&lc->br, &lc->capbr, sizeof(*br), 16))
				goto out;
			br = &lc->br[lc->nbr++];
			br->line = last_line(fn, b);
			br->fn = fn;
			br->block = b;
			br->index = k++;
			br->ran = block && block[b];
			br->count = edge ? edge[way] : 0;
			br->abnormal = cfg->edges[way].kind ==
				       PAP_EDGE_ABNORMAL;
		}
	}
	if (lf->first == UINT32_MAX)
		lf->first = lf->last = 0;
	lc->nfns++;
	r = 0;
out:
	free(count);
	free(paths);
	free(block);
	free(edge);
	return r;
}

/* Orders @lc's functions by their first line, then name. */
static int fn_cmp(const void *a, const void *b)
{
	const struct linecov_fn *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

/* Is @fn of source file @file, as @first (also its compile directory)? */
static int same_source(const struct pap_meta_fn *fn,
		       const struct pap_meta_fn *first)
{
	if (strcmp(fn->file, first->file))
		return 0;
	if (!fn->dir || !first->dir)
		return !fn->dir == !first->dir;
	return !strcmp(fn->dir, first->dir);
}

/* Is @fn decoded in @dp, or another build of a function decoded there? */
static int decoded(const struct dprofile *dp, const struct pap_meta_fn *fn)
{
	size_t i;

	for (i = 0; i < dp->nfs; i++)
		if (dp->fs[i].fn == fn || !strcmp(dp->fs[i].fn->name, fn->name))
			return 1;
	return 0;
}

/* Was metadata file @meta read for a function decoded in @dp? */
static int meta_in_use(const struct dprofile *dp, const char *meta)
{
	size_t i;

	for (i = 0; i < dp->nfs; i++)
		if (dp->fs[i].fn->meta && meta &&
		    !strcmp(dp->fs[i].fn->meta, meta))
			return 1;
	return 0;
}

int linecov_build(struct dprofile *dp, struct pap_meta *meta,
		  struct linecov **out, size_t *nout)
{
	struct linecov *lcs = NULL;
	size_t n = 0, cap = 0, f, g, i;

	for (f = 0; f < dp->nfs; f++) {
		struct linecov *lc;

		for (g = 0; g < f; g++)
			if (same_source(dp->fs[g].fn, dp->fs[f].fn))
				break;
		if (g < f)
			continue;	/* with its first function */
		if (n == cap && pap_grow(&lcs, &cap, sizeof(*lcs), 8))
			goto fail;
		lc = &lcs[n++];
		memset(lc, 0, sizeof(*lc));
		lc->file = dp->fs[f].fn->file;
		lc->src = dp->fs[f].fn;
		for (g = f; g < dp->nfs; g++)
			if (same_source(dp->fs[g].fn, lc->src) &&
			    add_function(lc, dp->fs[g].fn, &dp->fs[g]))
				goto fail;
		/* functions of the same units that never ran */
		for (i = 0; meta && i < meta->nfns; i++)
			if (same_source(meta->fns[i], lc->src) &&
			    meta_in_use(dp, meta->fns[i]->meta) &&
			    !decoded(dp, meta->fns[i]) &&
			    add_function(lc, meta->fns[i], NULL))
				goto fail;
		qsort(lc->fns, lc->nfns, sizeof(*lc->fns), fn_cmp);
	}
	*out = lcs;
	*nout = n;
	return 0;
fail:
	linecov_free(lcs, n);
	return -1;
}

void linecov_free(struct linecov *lcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(lcs[i].count);
		free(lcs[i].paths);
		free(lcs[i].known);
		free(lcs[i].fn_of);
		free(lcs[i].fns);
		free(lcs[i].br);
	}
	free(lcs);
}
