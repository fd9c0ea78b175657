/* SPDX-License-Identifier: MIT */
/*
 * decode.h - from recorded values back to executed edge sequences.
 */
#ifndef PAP_CORE_DECODE_H
#define PAP_CORE_DECODE_H

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * What the probes of one activation emitted, in order: breakpoints, the
 * recorded value (PAP, PAP+EPP) and the acyclic path ids counted (EPP).
 */
struct pap_activation {
	struct pap_breakpoint *bps;
	size_t nbps, cap_bps;
	uint64_t *ids;
	size_t nids, cap_ids;
	uint64_t final;
	size_t nrecords;
	int oom;		/* an append failed: the contents are partial */
};

void pap_activation_init(struct pap_activation *act);
/* Empties @act, keeping its memory for the next activation. */
void pap_activation_reset(struct pap_activation *act);
void pap_activation_free(struct pap_activation *act);
/* A sink for pap_exec_edge() that appends what it emits to @act. */
struct pap_exec_sink pap_activation_sink(struct pap_activation *act);

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

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_DECODE_H */
