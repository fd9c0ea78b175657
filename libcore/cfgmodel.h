/* SPDX-License-Identifier: MIT */
/*
 * cfgmodel.h - the control-flow graph model every pap component shares.
 *
 * A caller (the GCC plugin, a test, the decoder reading metadata) creates a
 * graph of user blocks 0..n-1, adds edges, names the entry block and the
 * blocks that return, and calls pap_cfg_finish().  Finishing adds a virtual
 * ENTRY and EXIT node so the graph has one entry and one exit, connects
 * blocks that cannot reach EXIT with FAKE edges (as GCC does for infinite
 * loops), and computes reachability, a depth-first order and back edges.
 *
 * Edge ids are stable: the caller's edges keep the ids pap_cfg_add_edge()
 * returned, virtual edges come after them in this order: ENTRY->entry,
 * ENTRY->resume blocks, return blocks->EXIT, cut blocks->EXIT (FAKE), the
 * FAKE edges of blocks that cannot reach EXIT; each group by block.
 */
#ifndef PAP_CORE_CFGMODEL_H
#define PAP_CORE_CFGMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_NONE UINT32_MAX

enum pap_edge_kind {
	PAP_EDGE_NORMAL = 0,
	PAP_EDGE_ABNORMAL,	/* no code may be inserted on it (EH, setjmp) */
	PAP_EDGE_FAKE,		/* added by finish; never executed */
};

/* What a user block is besides a block (cfg->role bits). */
#define PAP_ROLE_RETURN	0x1u	/* it leaves the function: edge to EXIT */
#define PAP_ROLE_RESUME	0x2u	/* a path may start here: edge from ENTRY */
#define PAP_ROLE_CUT	0x4u	/* its path may be cut here: FAKE edge to EXIT */

/* Edge flags computed by pap_cfg_finish(). */
#define PAP_EF_BACK	0x1u	/* DFS retreating edge */
#define PAP_EF_DEAD	0x2u	/* source unreachable from ENTRY */
#define PAP_EF_VIRTUAL	0x4u	/* ENTRY->entry, block->EXIT, or FAKE */

struct pap_edge {
	uint32_t src, dst;
	uint8_t kind;		/* enum pap_edge_kind */
	uint8_t flags;		/* PAP_EF_* */
	uint64_t weight;	/* execution estimate: higher is hotter */
};

struct pap_cfg {
	uint32_t nblocks;	/* user blocks 0..nblocks-1 */
	uint32_t nnodes;	/* nblocks + 2 once finished */
	uint32_t entry_block;	/* the user's first block */
	uint32_t entry, exit;	/* virtual nodes: nblocks, nblocks + 1 */
	uint32_t entry_edge;	/* ENTRY->entry_block, once finished */
	uint32_t nedges, cap_edges;
	struct pap_edge *edges;
	uint8_t *role;		/* per user block: PAP_ROLE_* bits */
	int finished;

	/* Derived by pap_cfg_finish(); live edges only (not PAP_EF_DEAD). */
	uint32_t *in_off, *in_edge;	/* CSR: in-edges of node v */
	uint32_t *out_off, *out_edge;	/* CSR: out-edges of node v */
	uint8_t *reachable;		/* from ENTRY */
	uint32_t *rpo;			/* reachable nodes, reverse postorder */
	uint32_t nrpo;
	uint32_t *rpo_index;		/* node -> position in rpo, or PAP_NONE */
	uint32_t nback;			/* number of back edges */
};

/* A graph with @nblocks user blocks and no edges; NULL if out of memory. */
struct pap_cfg *pap_cfg_new(uint32_t nblocks);
void pap_cfg_free(struct pap_cfg *cfg);

/* Adds src->dst; returns the edge id, or a negative pap_err. */
int64_t pap_cfg_add_edge(struct pap_cfg *cfg, uint32_t src, uint32_t dst,
			 enum pap_edge_kind kind);
int pap_cfg_set_entry(struct pap_cfg *cfg, uint32_t block);
/* @block leaves the function (return): finish gives it an edge to EXIT. */
int pap_cfg_mark_return(struct pap_cfg *cfg, uint32_t block);
/*
 * Non-local control (setjmp/longjmp): control may come back into the
 * function at @block from outside any edge (a setjmp receiver), so finish
 * gives it a second edge from ENTRY; and a call ending @block may leave
 * without returning or reaching EXIT, so finish gives it a FAKE edge to
 * EXIT.  A path cut at a CUT block and resumed at a RESUME block is two
 * paths, the first incomplete.
 */
int pap_cfg_mark_resume(struct pap_cfg *cfg, uint32_t block);
int pap_cfg_mark_cut(struct pap_cfg *cfg, uint32_t block);

/*
 * Completes the graph: virtual ENTRY/EXIT, FAKE edges from every reachable
 * block that cannot reach EXIT, adjacency, reverse postorder and back edges.
 * Afterwards every reachable node reaches EXIT and every in-edge of a node
 * other than ENTRY that is a back edge has a sibling that is not.
 */
int pap_cfg_finish(struct pap_cfg *cfg);

static inline uint32_t pap_cfg_fanin(const struct pap_cfg *cfg, uint32_t v)
{
	return cfg->in_off[v + 1] - cfg->in_off[v];
}

static inline uint32_t pap_cfg_fanout(const struct pap_cfg *cfg, uint32_t v)
{
	return cfg->out_off[v + 1] - cfg->out_off[v];
}

/* Is edge @id an ENTRY edge into a RESUME block (a path a longjmp
 * resumed starts on it)? */
static inline int pap_cfg_is_resume(const struct pap_cfg *cfg, uint32_t id)
{
	return cfg->edges[id].src == cfg->entry && id != cfg->entry_edge;
}

/* Is edge @id the FAKE edge of a CUT block (a longjmp out of its call)? */
static inline int pap_cfg_is_cut(const struct pap_cfg *cfg, uint32_t id)
{
	const struct pap_edge *e = &cfg->edges[id];

	return e->kind == PAP_EDGE_FAKE && e->src < cfg->nblocks &&
	       (cfg->role[e->src] & PAP_ROLE_CUT);
}

/*
 * Static execution estimate written into each live edge's weight: edges
 * nested in deeper loops weigh more, a block's weight is split among its
 * out-edges.  Used when no profile is available.
 */
void pap_cfg_estimate_weights(struct pap_cfg *cfg);

/* ---- dominators (dom.c) ---- */

/*
 * Immediate dominators of the reachable nodes, @idom[v] (ENTRY is its own),
 * PAP_NONE for unreachable nodes.  With @post, immediate post-dominators
 * over the reversed graph rooted at EXIT.  @idom has cfg->nnodes entries.
 */
int pap_dominators(const struct pap_cfg *cfg, int post, uint32_t *idom);
/* Does @a dominate @b under the tree @idom (rooted at @root)? */
int pap_dominates(const uint32_t *idom, uint32_t root, uint32_t a, uint32_t b);

/* ---- loop nest (loops.c) ---- */

struct pap_loop {
	uint32_t parent;	/* enclosing loop, or PAP_NONE */
	uint32_t depth;		/* 1 for outermost */
	uint32_t nheaders;	/* > 1: irreducible */
	uint32_t first_header;
	uint32_t nnodes;	/* members, inner loops included */
};

struct pap_loop_nest {
	uint32_t nloops;
	struct pap_loop *loops;
	uint32_t *innermost;	/* node -> innermost loop or PAP_NONE */
	int reducible;		/* every loop has a single header */
};

/*
 * The loop-nesting forest by recursive strongly-connected-component
 * decomposition: each SCC with a cycle is a loop whose headers are the
 * members entered from outside it; edges from inside to a header are cut
 * and the remainder decomposed again.  Irreducible loops get several
 * headers.  Linear in edges per nesting level.
 */
int pap_loops_find(const struct pap_cfg *cfg, struct pap_loop_nest *nest);
void pap_loops_free(struct pap_loop_nest *nest);
/* Is @inner the loop @outer or nested in it?  PAP_NONE is the function. */
int pap_loop_within(const struct pap_loop_nest *nest, uint32_t inner,
		    uint32_t outer);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CFGMODEL_H */
