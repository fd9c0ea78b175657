/* SPDX-License-Identifier: MIT */
/*
 * plan.h - probe plans: how a function is instrumented and decoded.
 *
 * pap_plan_build() turns a finished CFG and a mode into a list of probe
 * operations per edge.  The runtime performs exactly these operations on
 * two 64-bit registers, r (the path register) and a (the acyclic
 * accumulator); pap_exec_edge() is their reference semantics.  The decoder
 * turns what the operations emitted back into edge sequences with the same
 * plan (decode.h).
 *
 * Modes:
 *   PAP_MODE_EPP      Ball-Larus: a += k on spanning-tree chords; at back
 *                     edges, cuts and the exit COUNT the acyclic path id.
 *   PAP_MODE_PAP      seed 000 §1.1-1.2: on in-edge i of a node with fan-in
 *                     s > 1, r = r*s + i; breakpoint on overflow.
 *   PAP_MODE_PAP_EPP  PAP whose digits are acyclic path ids: a accumulates
 *                     a path number between fold edges (back edges, loop
 *                     entries and exits, cuts) and each fold does
 *                     r = r*n + a, n being the number of paths that can end
 *                     there.  One multiply per loop iteration.
 */
#ifndef PAP_CORE_PLAN_H
#define PAP_CORE_PLAN_H

#include "cfgmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The plan's format: raise it whenever planning or numbering changes the
 * values the probes of some graph and mode record, so that metadata and
 * profiles from before no longer pair (pap_meta_checksum()).
 */
#define PAP_PLAN_FORMAT 1

enum pap_mode {
	PAP_MODE_EPP = 0,
	PAP_MODE_PAP,
	PAP_MODE_PAP_EPP,
	PAP_MODE_NONE,	/* no intra-procedural paths: calls alone */
};

const char *pap_mode_name(enum pap_mode mode);
/* Parses "epp", "pap", "pap-epp"; returns 0 or PAP_EINVAL. */
int pap_mode_parse(const char *s, enum pap_mode *mode);

enum pap_op_kind {
	PAP_OP_INIT,	/* r = n; a = k                                   */
	PAP_OP_ADD,	/* a += k (mod 2^64)                              */
	PAP_OP_FOLD,	/* d = a + k; if r*n + d overflows: breakpoint    */
			/* (site, r) and r = restart; then r = r*n + d;   */
			/* with !may_overflow just r = r*n + d            */
	PAP_OP_SET,	/* a = k                                          */
	PAP_OP_COUNT,	/* count acyclic path id a + k                    */
	PAP_OP_RECORD,	/* the activation ends: record r                  */
};

struct pap_op {
	uint8_t kind;		/* enum pap_op_kind */
	/* FOLD: r*n + d may overflow here, so the fold tests it.  0 when
	 * the plan proves r below pap_fold_limit(n) on every path to the
	 * fold (pap_plan_bound_r()); then the runtime does r = r*n + d with
	 * no test, and it never wraps. */
	uint8_t may_overflow;
	uint32_t site;		/* FOLD: the edge id a breakpoint names */
	uint64_t n, k;
};

#define PAP_NUM_NONE UINT32_MAX
#define PAP_NUM_MANY (UINT32_MAX - 1)

/* What an aux edge of the numbering is. */
enum pap_num_kind {
	PAP_NUM_REAL,	/* a CFG edge inside an acyclic region */
	PAP_NUM_START,	/* a region starts: at ENTRY or after a fold edge */
	PAP_NUM_END,	/* a region ends: at EXIT or before a fold edge */
};

/* One edge of the numbered DAG, as the decoder walks it. */
struct pap_num_edge {
	uint8_t kind;		/* enum pap_num_kind */
	uint32_t edge;		/* REAL: CFG edge; START/END: fold edge or
				 * PAP_NONE for ENTRY/EXIT */
	uint32_t node;		/* the other end: REAL walk target */
	uint64_t val;		/* Ball-Larus value */
};

struct pap_plan_opts {
	/* Largest acyclic path count or fold radix allowed (default 2^63);
	 * regions with more paths are split.  Tests lower it. */
	uint64_t max_paths;
};

struct pap_plan {
	enum pap_mode mode;		/* mode in effect */
	enum pap_mode requested;	/* mode asked for */
	const struct pap_cfg *cfg;	/* borrowed: must outlive the plan */
	uint64_t restart;		/* r after INIT and before a restart */

	uint32_t *op_off;		/* per edge: ops[op_off[e]..op_off[e+1]) */
	struct pap_op *ops;
	uint32_t nops;

	/* PAP: per node, the in-edge holding index i at in_index[in_off+i] */
	uint32_t *in_index;

	/* EPP and PAP+EPP: numbered DAG, per node, values ascending.
	 * EPP walks out-edges forward from the start; PAP+EPP walks in-edges
	 * backward from the end. */
	uint32_t *num_off;
	struct pap_num_edge *num;
	uint64_t *npaths;		/* per node: paths counted through it */
	/* per CFG edge e (PAP_NONE as nedges) and kind k: the entry of num
	 * for (k, e) at [3 * e + k], PAP_NUM_NONE if there is none, and
	 * PAP_NUM_MANY if several nodes have one (then search the node) */
	uint32_t *num_index;
	uint8_t *is_fold;		/* per CFG edge */
	uint64_t start_count;		/* EPP: ids are in [0, start_count) */
	uint64_t exit_radix;		/* PAP+EPP: radix of the final fold */
	/*
	 * Every value a COUNT or RECORD can report is below this; 0 when
	 * the plan bounds none (a RECORD after a cycle).  EPP: start_count;
	 * PAP and PAP+EPP: one more than the bound on r at any RECORD.
	 */
	uint64_t record_values;

	/* What the planner did. */
	uint32_t nfolds;		/* fold edges (back, loop, cut) */
	uint32_t ncuts;			/* edges cut to bound path counts */
	uint32_t nprobe_sites;		/* executable edges carrying ops */
	uint32_t nfold_ops;		/* FOLD operations */
	uint32_t noverflow_tests;	/* of them, those that may overflow */
	int fell_back;			/* PAP+EPP gave way to PAP */
	char note[256];			/* human-readable summary */
};

/*
 * Plans @mode over the finished @cfg using the edge weights as execution
 * estimates (pap_cfg_estimate_weights() when there is no profile).
 * Guarantees: every acyclic path count and radix is within max_paths;
 * when PAP+EPP cannot be bounded by cutting, the plan is PAP and says so
 * (fell_back, note); EPP that cannot be bounded fails with PAP_ELIMIT.
 */
int pap_plan_build(const struct pap_cfg *cfg, enum pap_mode mode,
		   const struct pap_plan_opts *opts, struct pap_plan **out);
void pap_plan_free(struct pap_plan *plan);

/*
 * Upper bounds of r: on return, bound[v] >= the value r can hold when
 * control enters node v along any path of the plan's operations
 * (UINT64_MAX: no bound), for the nnodes entries of @bound.  Nodes that
 * no cycle reaches are bounded exactly by the largest digits their
 * folds can add; a node inside or after a cycle is unbounded.  Sets
 * may_overflow on each FOLD from these bounds.  pap_plan_build() calls
 * it; it is exported for the tests.  Returns 0 or PAP_ENOMEM.
 */
int pap_plan_bound_r(struct pap_plan *plan, uint64_t *bound);

static inline uint32_t pap_plan_nops(const struct pap_plan *p, uint32_t e)
{
	return p->op_off[e + 1] - p->op_off[e];
}

/*
 * Can an execution of @p record a breakpoint?  0 guarantees that none
 * does, whatever the path: the runtime then needs no activation number.
 */
int pap_plan_may_break(const struct pap_plan *p);

/* ---- reference execution (exec.c) ---- */

struct pap_exec_state {
	uint64_t r, a;
};

struct pap_exec_sink {
	void (*breakpoint)(void *ctx, uint32_t site, uint64_t r);
	void (*record)(void *ctx, uint64_t r);
	void (*count)(void *ctx, uint64_t id);
	void *ctx;
};

/* A sink that discards everything: for walks that only want the
 * registers' values (the selective strategies' digits). */
extern const struct pap_exec_sink pap_exec_null_sink;

/* Performs the operations of @edge exactly as the runtime does. */
void pap_exec_edge(const struct pap_plan *plan, struct pap_exec_state *st,
		   uint32_t edge, const struct pap_exec_sink *sink);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PLAN_H */
