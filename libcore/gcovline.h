/* SPDX-License-Identifier: MIT */
/*
 * gcovline.h - a function's source line counts as gcov defines them,
 * from its graph, each block's lines and each edge's executions.
 *
 * A block belongs to the last of its lines.  The count of a line that
 * blocks belong to is the number of times control entered one of them
 * from a block that does not belong to the line (or from outside the
 * function), plus the number of times control went round a cycle of its
 * blocks without leaving them (a loop written on one line).  A line that
 * blocks carry but none belongs to counts the executions of the blocks
 * that carry it.  Lines on an edge (empty blocks GCC keeps on its way)
 * are a block of their own between the edge's ends, run as often as the
 * edge is taken.
 */
#ifndef PAP_CORE_GCOVLINE_H
#define PAP_CORE_GCOVLINE_H

#include <stdint.h>

#include "cfgmodel.h"

/*
 * Adds the counts of lines below @nlines of the function with graph
 * @cfg to @count (indexed by line): @lines[b] lists user block b's lines
 * ([0] their number, then the lines; NULL: none), @elines[e] those on
 * edge e for e below @nelines (@elines may be NULL), @block and @edge are
 * each node's and each edge's executions.  0, or PAP_ENOMEM and @count
 * unchanged.
 */
int pap_gcov_line_counts(const struct pap_cfg *cfg,
			 const uint32_t *const *lines,
			 const uint32_t *const *elines, uint32_t nelines,
			 const uint64_t *block, const uint64_t *edge,
			 uint32_t nlines, uint64_t *count);

#endif /* PAP_CORE_GCOVLINE_H */
