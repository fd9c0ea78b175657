/* SPDX-License-Identifier: MIT */
/*
 * weights.c - a static execution estimate for edges without a profile.
 */
#include "cfgmodel.h"

void pap_cfg_estimate_weights(struct pap_cfg *cfg)
{
	struct pap_loop_nest nest;
	uint32_t i;

	if (pap_loops_find(cfg, &nest))
		nest.innermost = NULL;
	for (i = 0; i < cfg->nedges; i++) {
		struct pap_edge *e = &cfg->edges[i];
		uint32_t depth = 0, fanout, l;

		if (e->flags & PAP_EF_DEAD)
			continue;
		if (e->kind == PAP_EDGE_FAKE) {
			e->weight = 0;
			continue;
		}
		/* The edge runs as often as the loops holding both ends. */
		if (nest.innermost) {
			l = nest.innermost[e->src];
			while (l != PAP_NONE &&
			       !pap_loop_within(&nest, nest.innermost[e->dst],
						l))
				l = nest.loops[l].parent;
			depth = l == PAP_NONE ? 0 : nest.loops[l].depth;
		}
		if (depth > 12)
			depth = 12;
		fanout = pap_cfg_fanout(cfg, e->src);
		e->weight = ((uint64_t)1 << (20 + 3 * depth)) /
			    (fanout ? fanout : 1);
	}
	if (nest.innermost)
		pap_loops_free(&nest);
}
