/* SPDX-License-Identifier: MIT */
/*
 * report-dot.c - a function's control-flow graph for graphviz: edge width
 * and colour by flow, the hottest paths highlighted.
 *
 * An edge's count is its label, which dot lays out as a node of its own
 * between two ranks: one label doubles the ranks of the whole graph, and
 * every edge then crosses twice as many, each crossing a node that the
 * layout places.  On a graph of long edges that is most of the work
 * (zlib's deflate: 271 edges, 6,289 nodes laid out, 1.43 s), so a graph
 * of more than DOT_LABEL_EDGES edges has its counts as external labels
 * (xlabel, the count then the hot path's rank), placed beside their
 * edges once the layout is done: the same numbers, 0.15 s.
 */
#include <stdlib.h>

#include "decoder.h"


/* A colour from cold blue (@x = 0) to hot red (@x = 1), HSV. */
static void flow_colour(FILE *out, double x)
{
	fprintf(out, "\"%.3f 0.85 0.85\"", 0.66 * (1.0 - x));
}

/* Marks in @hot the edges of the hottest paths, each by the first of
 * them that takes it. */
static void dot_hot_edges(struct dfunc *f, uint8_t *hot)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	size_t i, j;
	uint32_t e;

	for (i = 0; i < f->npaths && i < FLOW_HOT_PATHS; i++) {
		if (path_long(&f->paths[i])) {
			/* the edges a long path takes, from its form */
			uint64_t *took = calloc(cfg->nedges + 1,
						sizeof(*took));

			if (took && !path_counts(f, &f->paths[i], 1, NULL,
						 took))
				for (e = 0; e < cfg->nedges; e++)
					if (took[e] && !hot[e])
						hot[e] = (uint8_t)(i + 1);
			free(took);
			continue;
		}
		if (path_open(f, &f->paths[i]))
			continue;
		for (j = 0; j < f->paths[i].nedges; j++)
			if (!hot[f->paths[i].edges[j]])
				hot[f->paths[i].edges[j]] = (uint8_t)(i + 1);
		path_close(&f->paths[i]);
	}
}

uint32_t dot_edges(const struct pap_cfg *cfg)
{
	uint32_t e, n = 0;

	for (e = 0; e < cfg->nedges; e++)
		n += !(cfg->edges[e].flags & PAP_EF_DEAD);
	return n;
}

int dot_counts_beside(const struct pap_cfg *cfg)
{
	return dot_edges(cfg) > DOT_LABEL_EDGES;
}

void print_dot_flow(FILE *out, struct dfunc *f, const uint64_t *block,
		    const uint64_t *edge, const uint8_t *hot)
{
	const struct pap_meta_fn *fn = f->fn;
	const struct pap_cfg *cfg = fn->graph.cfg;
	uint64_t max = 0;
	uint32_t b, e, k;
	int beside = dot_counts_beside(cfg);

	for (e = 0; e < cfg->nedges; e++)
		if (edge[e] > max)
			max = edge[e];
	fputs("digraph ", out);
	json_string(out, fn->name);
	fputs(" {\n  graph [fontname=\"sans-serif\" fontsize=11 label=", out);
	json_string(out, fn->name);
	fprintf(out, " labelloc=t];\n  node [shape=box style=\"rounded,filled\" "
		"fillcolor=\"#f7f7f7\" fontname=\"monospace\" fontsize=10];\n"
		"  edge [fontname=\"sans-serif\" fontsize=9];\n"
		"  n%u [label=\"ENTRY\\n%llu\" shape=oval];\n"
		"  n%u [label=\"EXIT\" shape=oval];\n", cfg->entry,
		(unsigned long long)f->total, cfg->exit);
	for (b = 0; b < cfg->nblocks; b++) {
		const uint32_t *l = blines(fn, b);

		if (!cfg->reachable[b])
			continue;
		fprintf(out, "  n%u [label=\"%s", b, fn->graph.names[b]);
		if (l[0]) {
			fputs("\\nline", out);
			for (k = 0; k < l[0] && k < 4; k++)
				fprintf(out, "%s%u", k ? "," : " ", l[k + 1]);
			if (k < l[0])
				fputs(",...", out);
		}
		fprintf(out, "\\n%llu\"%s];\n", (unsigned long long)block[b],
			block[b] ? "" : " fontcolor=\"#999999\"");
	}
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];
		double x = max ? (double)edge[e] / (double)max : 0;

		if (pe->flags & PAP_EF_DEAD)
			continue;
		fprintf(out, "  n%u -> n%u [", pe->src, pe->dst);
		if (!edge[e]) {
			fputs("color=\"#bbbbbb\" style=dashed", out);
		} else {
			fprintf(out, "penwidth=%.2f %s=\"%llu", 1.0 + 5.0 * x,
				beside ? "xlabel" : "label",
				(unsigned long long)edge[e]);
			/* one external label: the count, then the rank */
			if (beside && hot[e])
				fprintf(out, " #%u", hot[e]);
			fputs("\" color=", out);
			flow_colour(out, x);
		}
		if (pe->kind == PAP_EDGE_FAKE)
			fputs(" style=dotted", out);
		if (hot[e] && (!beside || !edge[e]))
			fprintf(out, " xlabel=\"#%u\"", hot[e]);
		if (hot[e])
			fputs(" fontcolor=\"#b00000\"", out);
		if (pe->flags & PAP_EF_BACK)
			fputs(" constraint=false", out);
		fputs("];\n", out);
	}
	fputs("}\n", out);
}

void print_dot(FILE *out, struct dfunc *f, const struct ropts *o)
{
	uint64_t *block, *edge;
	uint8_t *hot;

	(void)o;
	flow_counts(f, &block, &edge);
	hot = calloc(f->fn->graph.cfg->nedges + 1, 1);
	if (block && edge && hot) {
		dot_hot_edges(f, hot);
		print_dot_flow(out, f, block, edge, hot);
	}
	free(block);
	free(edge);
	free(hot);
}
