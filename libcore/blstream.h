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

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_BLSTREAM_H */
