/* SPDX-License-Identifier: MIT */
/*
 * callgraph.h - a function's call-site graph, the local half of the
 * inter-procedural numbering (doc/algorithms.md, "Inter-procedural
 * paths: numbering").
 *
 * Function f with call sites k = 1..n (in statement order) has nodes
 * C_k (just before call k) and X (f returns), and sources E (f is
 * entered), R_k^c (call k came back with class c) and, for a site of
 * kind PAP_SITE_SELFTAIL, T_k (f was entered by its own tail call at
 * site k: the code R_k^0 would have, which such a site has no use for;
 * T_k precedes what E precedes).  A source is a
 * predecessor of a node when the CFG leads from it to the node without
 * passing another call site.  A node's digit for a source is the
 * source's index in the node's sorted predecessor list; its radix is the
 * number of predecessors.  The probes keep the last source in a local
 * and fold the digit into the thread's register at each C_k and at X
 * where the radix is above 1.
 *
 * Classes of a return (the c of R_k^c):
 *   0  an instrumented callee was entered and returned normally;
 *   1  no instrumented callee was entered (PAP_SITE_MAYBE_OUT);
 *   2  the callee ended in a chain of tail calls (PAP_SITE_MAYBE_TAIL);
 *   3  the site's call threw, and control reached a landing pad
 *      (PAP_SITE_EH): the frames above were abandoned.
 *
 * What the CFG model cannot say, and so is not handled here: abnormal
 * edges (PAP_EDGE_ABNORMAL) out of a block that ends in a PAP_SITE_EH
 * site are followed only as its landing-pad edges; other abnormal edges
 * (a computed goto's, which the plugin's model keeps) are followed as
 * normal ones; the setjmp dispatcher is not in the model, and a setjmp
 * receiver is reached as the successor of its returns-twice site.  A
 * landing pad reached from a block without such a site is no source.
 */
#ifndef PAP_CORE_CALLGRAPH_H
#define PAP_CORE_CALLGRAPH_H

#include <stdint.h>

#include "cfgmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pap_site_kind {
	PAP_SITE_DIRECT = 0,
	PAP_SITE_INDIRECT,
	PAP_SITE_NORETURN,	/* C_k, no R_k */
	PAP_SITE_RETURNS_TWICE,	/* setjmp: longjmp resumes at R_k^1 */
	PAP_SITE_TAIL,		/* tail call: C_k, no R_k, f is gone */
	PAP_SITE_SELFTAIL,	/* direct tail call of f itself: C_k, no
				 * R_k; the activation keeps its frame and
				 * begins again at source T_k */
	PAP_SITE_NKINDS
};

/* Site flags: which classes of return exist besides 0. */
#define PAP_SITE_MAYBE_OUT	0x1u	/* callee may be uninstrumented */
#define PAP_SITE_MAYBE_TAIL	0x2u	/* it may end in tail calls */
#define PAP_SITE_EH		0x4u	/* may throw to its block's
					 * abnormal successors (it is
					 * the last site of its block) */

/* A call site as the caller describes it; site k is array element k-1. */
struct pap_site {
	uint32_t block;		/* the user block holding it */
	uint8_t kind;		/* enum pap_site_kind */
	uint8_t flags;		/* PAP_SITE_* */
};

/* Source codes: E is 0, R_k^c is pap_cg_src(k, c). */
#define PAP_CG_SRC_E		0u
#define PAP_CG_NCLASSES		4u
static inline uint32_t pap_cg_src(uint32_t k, uint32_t c)
{
	return (k - 1) * PAP_CG_NCLASSES + 1 + c;
}

/* Site and class of source @s (not E). */
static inline uint32_t pap_cg_src_site(uint32_t s)
{
	return (s - 1) / PAP_CG_NCLASSES + 1;
}

static inline uint32_t pap_cg_src_class(uint32_t s)
{
	return (s - 1) % PAP_CG_NCLASSES;
}

struct pap_callgraph {
	uint32_t nsites;
	struct pap_site *sites;	/* copy of the input, [k - 1] */
	uint32_t nsources;	/* codes 0..nsources-1 */
	uint8_t *has_source;	/* per code: does the source exist */
	uint32_t nnodes;	/* nsites + 1: C_k is k - 1, X is nsites */
	uint32_t *pred_off;	/* CSR, nnodes + 1 */
	uint32_t *pred;		/* source codes, ascending per node: a
				 * source's digit is its position */
};

/* Node index of C_k and of X. */
static inline uint32_t pap_cg_node_c(uint32_t k)
{
	return k - 1;
}

static inline uint32_t pap_cg_node_x(const struct pap_callgraph *g)
{
	return g->nsites;
}

/* Radix (fan-in) of node @v. */
static inline uint32_t pap_cg_radix(const struct pap_callgraph *g, uint32_t v)
{
	return g->pred_off[v + 1] - g->pred_off[v];
}

/* Digit of source @s at node @v (its position among v's predecessors),
 * or PAP_NONE when @s is none of them.  O(log fan-in). */
uint32_t pap_cg_digit(const struct pap_callgraph *g, uint32_t v, uint32_t s);

/*
 * Builds @g from the finished @cfg and its @nsites call sites: a
 * breadth-first search from each source over the blocks, stopping at the
 * first site of a block and at EXIT, following normal edges and the
 * abnormal ones of blocks without a PAP_SITE_EH site (and, for a
 * PAP_SITE_EH site's class 3, its block's abnormal out-edges).  Every
 * node gets its predecessors ascending: memory is linear in the graph's
 * edges, never nodes x sources.  The sites of
 * one block are in statement order as the array has them.  PAP_EINVAL when
 * @cfg is not finished, a site names a block out of range or an unknown
 * kind, a PAP_SITE_EH site is not the last of its block, or a site without
 * a return (noreturn, tail) has flags; PAP_ENOMEM.  O(sources x edges).
 */
int pap_callsites_build(const struct pap_cfg *cfg, const struct pap_site *sites,
			uint32_t nsites, struct pap_callgraph *g);
void pap_callgraph_free(struct pap_callgraph *g);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CALLGRAPH_H */
