/* SPDX-License-Identifier: MIT */
/*
 * decode.h - from recorded values back to executed edge sequences.
 */
#ifndef PAP_CORE_DECODE_H
#define PAP_CORE_DECODE_H

#include "papdefs.h"
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
/* Appends @n edges; PAP_ENOMEM leaves @p unchanged. */
int pap_path_append(struct pap_path *p, const uint32_t *edges, size_t n);

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
 * Pieces of decoding remembered for one plan (memo.c).  What a piece of
 * the backwalk pushes is a pure function of what it reads: in PAP+EPP an
 * acyclic piece of the node it ends at and its digit, in PAP a segment of
 * the node it ends at, the node it must stop at and its value.  Decoding
 * through a memo pushes exactly what decoding without one does, once per
 * distinct piece; the memo holds at most @max_edges edges (and a
 * sixteenth as many pieces) and stops remembering beyond.  NULL when
 * memory is short.
 */
struct pap_memo;
struct pap_memo *pap_memo_new(size_t max_edges);
void pap_memo_free(struct pap_memo *m);
/* The run remembered for key (@a, @b, @r), its length and start fold;
 * NULL if none. */
const uint32_t *pap_memo_find(struct pap_memo *m, uint32_t a, uint32_t b,
			      uint64_t r, size_t *len, uint32_t *start);
/* Remembers @edges for the key, unless full or short of memory. */
void pap_memo_put(struct pap_memo *m, uint32_t a, uint32_t b, uint64_t r,
		  uint32_t start, const uint32_t *edges, size_t len);
/* The b of a key that names a whole PAP+EPP segment (decode.c), not one
 * of its pieces (whose b is 0; a PAP segment's b is its stop node, but a
 * memo serves one plan, so one mode): whole segments take at most a
 * sixteenth of the memo's words and a 256th of its runs, so that they
 * never crowd out the pieces. */
#define PAP_MEMO_SEGMENT 1u
/* Would pap_memo_put() of @len words under a key of @b keep them? */
int pap_memo_room(const struct pap_memo *m, uint32_t b, size_t len);
/* Lookups that found a piece, lookups that did not, edges held. */
void pap_memo_stats(const struct pap_memo *m, uint64_t *hits,
		    uint64_t *misses, size_t *edges);

/* pap_decode_path() remembering pieces in @memo (one per plan; NULL:
 * none). */
int pap_decode_path_memo(const struct pap_plan *plan, struct pap_memo *memo,
			 const struct pap_breakpoint *bps, size_t nbps,
			 uint64_t final, struct pap_path *out);

/*
 * What pap_decode_path_visit() tells of each acyclic piece of a PAP+EPP
 * path as it pops its digit: the fold edge @end it ends at (PAP_NONE:
 * EXIT), its digit @d, the fold edge @start it starts at (PAP_NONE:
 * ENTRY), and where its @len edges were pushed, backward, at @at of the
 * output before it is turned round (the edge @end, when there is one,
 * just before them).  Pieces come from the exit back; a path that turns
 * out corrupt after some were told is still refused.
 */
struct pap_piece_visit {
	void (*piece)(void *ctx, uint32_t end, uint64_t d, uint32_t start,
		      size_t at, size_t len);
	void *ctx;
};
/* pap_decode_path_memo() telling @v of each piece (PAP+EPP only; other
 * modes decode as pap_decode_path_memo() and tell nothing). */
int pap_decode_path_visit(const struct pap_plan *plan,
			  struct pap_memo *memo,
			  const struct pap_breakpoint *bps, size_t nbps,
			  uint64_t final, struct pap_path *out,
			  const struct pap_piece_visit *v);

/*
 * One PAP segment, as pap_decode_path() decodes it: backward from @node
 * with value @r until it is used up at @stop, through @memo; its edges are
 * appended to @out in execution order.  PAP_ECORRUPT if no segment fits.
 */
int pap_decode_segment(const struct pap_plan *plan, struct pap_memo *memo,
		       uint32_t node, uint64_t r, uint32_t stop,
		       struct pap_path *out);

/*
 * The pieces of one PAP+EPP segment, without their edges: the digits of
 * value @r popped from fold edge @end (PAP_NONE: EXIT) and checked as
 * pap_decode_epp_segment() pops and checks them.  Each piece, the fold
 * edge it ends at and its digit, is given to @piece, which sets *@start
 * to the fold edge the piece starts at (PAP_NONE: ENTRY), as
 * pap_decode_epp_piece() finds it, and returns 0, or an error code that
 * ends the walk.  *@first_end, *@start_out and *@at_entry as
 * pap_decode_epp_segment() sets them.  @end must be PAP_NONE or an edge
 * of the plan's graph.
 */
typedef int (*pap_epp_piece_fn)(void *ctx, uint32_t end, uint64_t d,
				uint32_t *start);
int pap_epp_segment_pieces(const struct pap_plan *plan, uint32_t end,
			   uint64_t r, pap_epp_piece_fn piece, void *ctx,
			   uint32_t *first_end, uint32_t *start_out,
			   int *at_entry);
/*
 * The acyclic piece of a PAP+EPP plan that ends at fold edge @end
 * (PAP_NONE: EXIT) with digit @d: its edges appended to @out in execution
 * order (@end itself not among them), *@start the fold edge it starts at
 * (PAP_NONE: ENTRY), through @memo.  PAP_ECORRUPT if no piece fits.
 */
int pap_decode_epp_piece(const struct pap_plan *plan, struct pap_memo *memo,
			 uint32_t end, uint64_t d, struct pap_path *out,
			 uint32_t *start);

/*
 * One PAP+EPP segment: the digits of value @r popped from the fold edge
 * @end (PAP_NONE: EXIT) the segment ends at, each checked as
 * pap_decode_path() checks it, their edges appended to @out in execution
 * order.  *@first_end gets the fold edge its first digit ends at; either
 * that digit starts at ENTRY (*@at_entry 1: the path's first segment) or
 * *@start gets the fold edge it starts at, where the segment before it
 * ends.  PAP_ECORRUPT if no segment fits.
 */
int pap_decode_epp_segment(const struct pap_plan *plan,
			   struct pap_memo *memo, uint32_t end, uint64_t r,
			   struct pap_path *out, uint32_t *first_end,
			   uint32_t *start, int *at_entry);

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
