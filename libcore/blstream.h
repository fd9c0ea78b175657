/* SPDX-License-Identifier: MIT */
/*
 * blstream.h - a whole path as its stream of Ball-Larus path ids.
 *
 * Seen the k-BLPP way (seed 003), a function activation is a sequence of
 * acyclic Ball-Larus paths: the path is cut at every fold edge of the
 * function's EPP numbering (its back edges, and the edges the planner cut
 * to bound path counts), and each piece is named by its Ball-Larus id.
 * The numbering is always the EPP plan of the function's graph, whatever
 * mode the function was instrumented in, so an id means the same path in
 * every mode and pap_decode_bl() turns it back into its edges.
 */
#ifndef PAP_CORE_BLSTREAM_H
#define PAP_CORE_BLSTREAM_H

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Called once per acyclic piece, in execution order: its id, and the
 * range [first, first + n) of the whole path's edges it spans (the fold
 * edge that ends it is not included).  A nonzero return stops the split.
 */
typedef int (*pap_bl_emit_fn)(void *ctx, uint64_t id, size_t first,
			      size_t n);

/*
 * Splits @edges (an ENTRY edge to an edge into EXIT, as pap_decode_path()
 * gives them) into Ball-Larus paths of the EPP plan @bl.  Returns 0, the
 * emitter's nonzero value, PAP_EINVAL if @bl is not an EPP plan, or
 * PAP_ECORRUPT if @edges is not a path of @bl's graph.
 */
int pap_bl_split(const struct pap_plan *bl, const uint32_t *edges,
		 size_t len, pap_bl_emit_fn emit, void *ctx);

/*
 * The same split one edge at a time, for callers that hold a path in
 * pieces: pap_bl_begin() at the ENTRY edge, pap_bl_edge() per edge (1 and
 * the id in *@id when the edge is a fold and ends one, else 0), and
 * pap_bl_end() after the edge into EXIT for the last id.  Together they
 * give exactly pap_bl_split()'s ids and errors.  pap_bl_start_at() is the
 * state right after fold edge @fold, whatever came before it.
 */
struct pap_bl_state {
	uint64_t id;		/* the running id */
	uint32_t x;		/* the node reached */
	int first;		/* no edge yet */
};
int pap_bl_begin(const struct pap_plan *bl, struct pap_bl_state *st);
int pap_bl_edge(const struct pap_plan *bl, struct pap_bl_state *st,
		uint32_t e, uint64_t *id);
int pap_bl_start_at(const struct pap_plan *bl, struct pap_bl_state *st,
		    uint32_t fold);
int pap_bl_end(const struct pap_plan *bl, const struct pap_bl_state *st,
	       uint64_t *id);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_BLSTREAM_H */
