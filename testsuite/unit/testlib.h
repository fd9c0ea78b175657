/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - random graphs, random walks and the exactness oracle shared
 * by the unit tests and the benchmark.
 *
 * The oracle is the walk itself: the edge sequence the test executed.  It
 * is run through the plan's probe operations (pap_exec_edge, the runtime's
 * semantics), the emitted records are decoded, and the decoded edges must
 * equal the walked ones.  Nothing in the oracle uses the numbering.
 */
#ifndef PAP_TESTLIB_H
#define PAP_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include "cfgmodel.h"
#include "decode.h"
#include "plan.h"

struct tl_rng {
	uint64_t s;
};

uint64_t tl_next(struct tl_rng *g);
/* Uniform in [0, n). */
uint64_t tl_below(struct tl_rng *g, uint64_t n);

struct tl_cfg_params {
	uint32_t nblocks;
	uint32_t extra_edges;	/* random edges in any direction */
	uint32_t self_loops;
	uint32_t parallel;	/* duplicated edges */
	uint32_t fan_in;	/* one block gets this many extra in-edges */
	int forward_only;	/* a DAG: every edge goes to a later block */
	uint32_t resumes;	/* blocks marked RESUME (setjmp receivers) */
	uint32_t cuts;		/* blocks marked CUT (calls that may longjmp) */
};

/* Random parameters spanning small to large, DAG to irreducible. */
void tl_random_params(struct tl_rng *g, struct tl_cfg_params *p);

/*
 * A finished graph with weights: block 0 is the entry, every block is
 * reachable and reaches the last block, which returns.
 */
struct pap_cfg *tl_random_cfg(struct tl_rng *g, const struct tl_cfg_params *p);

/*
 * A walk of the live, non-fake edges from the ENTRY edge to an edge into
 * EXIT: about @steps random steps, then the shortest way out.
 */
int tl_random_walk(struct tl_rng *g, const struct pap_cfg *cfg, size_t steps,
		   uint32_t **edges, size_t *len);

struct tl_result {
	size_t nbreakpoints, nrecords, ncounts;
};

/*
 * Executes @walk through @plan's probes and decodes what they emitted.
 * Returns 0 when the decoded edges equal the walk; otherwise nonzero
 * with a message in @why.
 */
int tl_check_walk(const struct pap_plan *plan, const uint32_t *walk,
		  size_t len, struct tl_result *res, char *why, size_t whylen);

/* The edge id of src->dst (first of parallel ones); PAP_NONE if absent. */
uint32_t tl_edge(const struct pap_cfg *cfg, uint32_t src, uint32_t dst);

/* The number in environment variable @name (strtoull, any base), or
 * @def when it is unset or empty: seeds and sizes a run may override. */
unsigned long long tl_env_ull(const char *name, unsigned long long def);

#endif /* PAP_TESTLIB_H */
