/* SPDX-License-Identifier: MIT */
/*
 * decode.h - from recorded values back to executed edge sequences.
 */
#ifndef PAP_CORE_DECODE_H
#define PAP_CORE_DECODE_H

#include "plan.h"

/* A growable sequence of CFG edge ids in execution order. */
struct pap_path {
	uint32_t *edges;
	size_t len, cap;
	/* EPP paths: where the acyclic path starts and ends (fold edge ids,
	 * PAP_NONE for function entry and exit). */
	uint32_t start_fold, end_fold;
};

void pap_path_init(struct pap_path *p);
void pap_path_free(struct pap_path *p);
int pap_path_push(struct pap_path *p, uint32_t edge);

/* A breakpoint as the runtime emits it: the fold edge and r before it. */
struct pap_breakpoint {
	uint32_t site;
	uint64_t r;
};

/*
 * PAP and PAP+EPP: decodes one activation, given its breakpoints in
 * emission order and the value RECORD saw, into the full edge sequence
 * from the ENTRY edge to the edge into EXIT.  Any input that no execution
 * could have produced yields PAP_ECORRUPT, never a wrong path; work is
 * bounded by 64 steps per breakpoint plus the graph size.
 */
int pap_decode_path(const struct pap_plan *plan,
		    const struct pap_breakpoint *bps, size_t nbps,
		    uint64_t final, struct pap_path *out);

/*
 * EPP: regenerates the acyclic path with Ball-Larus id @id (start_fold and
 * end_fold say where it starts and ends).  PAP_ECORRUPT if @id is out of
 * range.
 */
int pap_decode_bl(const struct pap_plan *plan, uint64_t id,
		  struct pap_path *out);

#endif /* PAP_CORE_DECODE_H */
