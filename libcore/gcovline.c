/* SPDX-License-Identifier: MIT */
/*
 * gcovline.c - line counts as gcov defines them (gcovline.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gcovline.h"
#include "util.h"

/* The line a list of lines @ln belongs to (its last), PAP_NONE if none. */
static uint32_t last_of(const uint32_t *ln, uint32_t nlines)
{
	if (!ln || !ln[0] || ln[ln[0]] >= nlines)
		return PAP_NONE;
	return ln[ln[0]];
}

/* The line block @v belongs to, PAP_NONE if none. */
static uint32_t owner_line(const struct pap_cfg *cfg,
			   const uint32_t *const *lines, uint32_t nlines,
			   uint32_t v)
{
	return v < cfg->nblocks ? last_of(lines[v], nlines) : PAP_NONE;
}

/* The lines on edge @e (NULL: none). */
static const uint32_t *edge_lines(const uint32_t *const *elines,
				  uint32_t nelines, uint32_t e)
{
	return elines && e < nelines && elines[e] && elines[e][0] ?
	       elines[e] : NULL;
}

/*
 * One cycle among the blocks owned by @line, over edges with @left
 * executions not yet taken by cycles counted before, as edge ids into
 * @cyc; its length, 0 if there is none.  Depth first from each block;
 * @state, @stack and @next are per node scratch.
 */
static uint32_t find_cycle(const struct pap_cfg *cfg, const uint32_t *owner,
			   const uint32_t *eowner, uint32_t line,
			   const uint64_t *left,
			   uint8_t *state, uint32_t *stack, uint32_t *next,
			   uint32_t *via, uint32_t *cyc)
{
	uint32_t s, v, sp, n, k;

	memset(state, 0, cfg->nnodes);
	for (s = 0; s < cfg->nblocks; s++) {
		if (owner[s] != line || state[s])
			continue;
		sp = 0;
		stack[sp++] = s;
		state[s] = 1;		/* on the stack */
		next[s] = cfg->out_off[s];
		while (sp) {
			v = stack[sp - 1];
			if (next[v] == cfg->out_off[v + 1]) {
				state[v] = 2;	/* done */
				sp--;
				continue;
			}
			k = cfg->out_edge[next[v]++];
			n = cfg->edges[k].dst;
			if (n >= cfg->nblocks || owner[n] != line || !left[k] ||
			    (eowner[k] != PAP_NONE && eowner[k] != line))
				continue;
			if (state[n] == 1) {
				/* the cycle: n ... v, then k back to n */
				uint32_t len = 0, i = sp - 1;

				while (stack[i] != n)
					i--;
				for (i++; i < sp; i++)
					cyc[len++] = via[stack[i]];
				cyc[len++] = k;
				return len;
			}
			if (state[n])
				continue;
			via[n] = k;
			state[n] = 1;
			next[n] = cfg->out_off[n];
			stack[sp++] = n;
		}
	}
	return 0;
}

int pap_gcov_line_counts(const struct pap_cfg *cfg,
			 const uint32_t *const *lines,
			 const uint32_t *const *elines, uint32_t nelines,
			 const uint64_t *block, const uint64_t *edge,
			 uint32_t nlines, uint64_t *count)
{
	uint32_t nn = cfg->nnodes, v, k, i, len, *owner, *stack, *next, *via;
	uint32_t *eowner, e;
	uint32_t *cyc;
	uint8_t *owns, *state;
	uint64_t *left, *add, min;
	int r = PAP_ENOMEM;

	owner = malloc(nn * sizeof(*owner));
	eowner = malloc((cfg->nedges + 1) * sizeof(*eowner));
	stack = malloc(nn * sizeof(*stack));
	next = malloc(nn * sizeof(*next));
	via = malloc(nn * sizeof(*via));
	cyc = malloc((nn + 1) * sizeof(*cyc));
	state = malloc(nn);
	owns = calloc(nlines ? nlines : 1, 1);
	left = malloc((cfg->nedges + 1) * sizeof(*left));
	add = calloc(nlines ? nlines : 1, sizeof(*add));
	if (!owner || !eowner || !stack || !next || !via || !cyc || !state ||
	    !owns ||
	    !left || !add)
		goto out;
	for (v = 0; v < nn; v++) {
		owner[v] = owner_line(cfg, lines, nlines, v);
		if (owner[v] != PAP_NONE)
			owns[owner[v]] = 1;
	}
	for (e = 0; e < cfg->nedges; e++) {
		eowner[e] = last_of(edge_lines(elines, nelines, e), nlines);
		if (eowner[e] != PAP_NONE)
			owns[eowner[e]] = 1;
	}
	/* lines no block belongs to: their blocks' executions */
	for (v = 0; v < cfg->nblocks; v++)
		for (i = 1; lines[v] && i <= lines[v][0]; i++)
			if (lines[v][i] < nlines && !owns[lines[v][i]])
				add[lines[v][i]] += block[v];
	for (e = 0; e < cfg->nedges; e++) {
		const uint32_t *ln = edge_lines(elines, nelines, e);

		for (i = 1; ln && i <= ln[0]; i++)
			if (ln[i] < nlines && !owns[ln[i]])
				add[ln[i]] += edge[e];
	}
	/* entries into a line's blocks from elsewhere: along an edge with
	 * lines, into them from the edge's source, then from them on */
	for (e = 0; e < cfg->nedges; e++) {
		uint32_t from = owner_line(cfg, lines, nlines,
					   cfg->edges[e].src);
		uint32_t to = owner_line(cfg, lines, nlines, cfg->edges[e].dst);

		if (cfg->edges[e].flags & PAP_EF_DEAD)
			continue;
		if (eowner[e] != PAP_NONE) {
			if (from != eowner[e])
				add[eowner[e]] += edge[e];
			from = eowner[e];
		}
		if (to != PAP_NONE && from != to)
			add[to] += edge[e];
	}
	/* turns round cycles within a line: each found cycle counts the
	 * executions left on its least taken edge, which it takes from
	 * every edge of it, until no cycle has executions left */
	memcpy(left, edge, (cfg->nedges + 1) * sizeof(*left));
	for (v = 0; v < cfg->nblocks; v++) {
		uint32_t line = owner[v];

		if (line == PAP_NONE || owns[line] != 1)
			continue;
		owns[line] = 2;		/* its cycles are counted */
		while ((len = find_cycle(cfg, owner, eowner, line, left, state,
					 stack, next, via, cyc))) {
			min = UINT64_MAX;
			for (k = 0; k < len; k++)
				if (left[cyc[k]] < min)
					min = left[cyc[k]];
			for (k = 0; k < len; k++)
				left[cyc[k]] -= min;
			add[line] += min;
		}
	}
	for (i = 0; i < nlines; i++)
		count[i] += add[i];
	r = PAP_OK;
out:
	free(owner);
	free(eowner);
	free(stack);
	free(next);
	free(via);
	free(cyc);
	free(state);
	free(owns);
	free(left);
	free(add);
	return r;
}
