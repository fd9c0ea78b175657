/* SPDX-License-Identifier: MIT */
/*
 * numbering.h - Ball-Larus numbering of the acyclic regions between fold
 * edges (internal to the core; plan.c is its user).
 *
 * The numbered DAG has the live CFG edges that are not folds, a super
 * source S with a START edge to ENTRY and to the head of every fold edge,
 * and a super sink T with an END edge from EXIT and from the tail of
 * every fold edge.  Forward numbering counts paths from each node to T
 * (classic Ball-Larus: ids of S->T paths are dense in [0, count(S)));
 * reverse numbering counts paths from S to each node, so a path that ends
 * at node u has an id dense in [0, count(u)) whatever its start.
 */
#ifndef PAP_CORE_NUMBERING_H
#define PAP_CORE_NUMBERING_H

#include "plan.h"

struct num_edge {
	uint32_t src, dst;	/* aux nodes: CFG nodes, then S, T */
	uint8_t kind;		/* enum pap_num_kind */
	uint32_t edge;		/* CFG edge (REAL) or fold edge / PAP_NONE */
	uint64_t weight;
	uint64_t val;		/* Ball-Larus value */
	uint64_t inc;		/* increment after chord placement */
};

struct numbering {
	const struct pap_cfg *cfg;
	int reverse;
	uint32_t S, T;			/* aux node ids */
	uint8_t *is_fold;		/* per CFG edge, owned by the caller */
	uint64_t *count;		/* per aux node */
	struct num_edge *e;
	uint32_t ne;
	uint32_t *start_of;		/* per CFG edge: START aux edge or NONE */
	uint32_t *end_of;		/* per CFG edge: END aux edge or NONE */
	uint32_t *real_of;		/* per CFG edge: REAL aux edge or NONE */
	uint32_t entry_start, exit_end;	/* aux edges for ENTRY and EXIT */
	uint32_t ncuts;
};

/*
 * Numbers the DAG the fold edges leave, cutting more edges (marking them
 * in is_fold) wherever a count would pass @limit, then places increments
 * on chords of a maximum-weight spanning tree so that every S->T path's
 * increments add up to its value.  PAP_ELIMIT if cutting cannot bound the
 * counts; PAP_EINVAL if the non-fold edges hold a cycle.
 */
int numbering_build(struct numbering *nb, const struct pap_cfg *cfg,
		    uint8_t *is_fold, int reverse, uint64_t limit);
void numbering_free(struct numbering *nb);

/*
 * Calls @fn on the aux edges of @x in numbering order: forward, the edges
 * leaving x; reverse, the edges entering x.  Values ascend in this order,
 * which is what lets the decoder search them.
 */
void numbering_walk(const struct numbering *nb, uint32_t x,
		    void (*fn)(struct numbering *, uint32_t, void *),
		    void *arg);

#endif /* PAP_CORE_NUMBERING_H */
