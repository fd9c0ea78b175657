/* SPDX-License-Identifier: MIT */
/*
 * pathform.h - the packed form of a decoded path.
 *
 * A path decoded breakpoint to breakpoint is a sequence of pieces, each
 * the run of edges between two breakpoints.  A record whose breakpoints
 * repeat gives pieces that repeat the same way, so a path is held as its
 * distinct pieces (struct pap_pieces, one table per function) and a
 * sequence of references to them with repeats (struct pap_rseq), built
 * from the record's packed breakpoints without unpacking them.  Reports
 * are computed from that form: multiplicities by carrying each repeat's
 * weight back to the range it copies, the Ball-Larus id stream and its
 * k-grams as sequences with repeats of their own.  doc/algorithms.md,
 * "A path in its packed form", gives the rules and their costs.
 */
#ifndef PAP_CORE_PATHFORM_H
#define PAP_CORE_PATHFORM_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "papdefs.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A sequence of 64-bit symbols with repeats.  An item is one symbol
 * (dist 0, len 1) or a repeat: len elements, each equal to the one dist
 * before it (dist <= pos; a repeat may overlap itself).
 */
struct pap_rseq_item {
	uint64_t pos;		/* where it starts in the expanded sequence */
	uint64_t dist;		/* 0: the symbol sym */
	uint64_t len;
	uint64_t sym;
};

struct pap_rseq {
	struct pap_rseq_item *it;
	size_t n, cap;
	uint64_t len;		/* expanded length */
};

void pap_rseq_init(struct pap_rseq *s);
void pap_rseq_free(struct pap_rseq *s);
/* Appends one symbol; PAP_ENOMEM leaves @s unchanged. */
int pap_rseq_sym(struct pap_rseq *s, uint64_t sym);
/* Appends @len elements each equal to the one @dist before (0 < @dist <=
 * s->len; @len 0 appends nothing).  PAP_EINVAL or PAP_ENOMEM. */
int pap_rseq_repeat(struct pap_rseq *s, uint64_t dist, uint64_t len);
/* The index of the symbol item that element @pos (< s->len) is a copy
 * of; O(log n) per repeat followed back. */
size_t pap_rseq_at(const struct pap_rseq *s, uint64_t pos);
/* The symbol at @pos. */
static inline uint64_t pap_rseq_get(const struct pap_rseq *s, uint64_t pos)
{
	return s->it[pap_rseq_at(s, pos)].sym;
}

/*
 * A cursor reading a sequence with repeats one position after another,
 * in either direction.  It keeps the chain of repeats a position is
 * followed back through, each link with the number of steps it stays
 * valid, so that a step re-resolves only the links that leave their item
 * or wrap around their distance: reading a stretch costs about the item
 * boundaries crossed at every depth, not the chain's depth per position.
 * Any other position is found afresh as pap_rseq_at() finds it.
 * Positions of the sequence's start are also kept expanded, as far as a
 * chain has needed to follow repeats back there and no further than a
 * few entries per position read: a long chain of short repeats each
 * copying the one before then ends at its first step into that start.
 */
struct pap_rseq_link;
struct pap_rseq_seen;

struct pap_rseq_cursor {
	const struct pap_rseq *s;
	struct pap_rseq_link *l;	/* the chain, outermost first */
	size_t depth, cap;
	size_t *hint;			/* per depth: the item last there */
	size_t caphint;
	struct pap_rseq_seen *seen;	/* positions lately resolved */
	uint32_t *flat;			/* item of each position below nflat */
	uint64_t nflat, capflat;
	size_t fitem;			/* the item holding position nflat */
	uint64_t calls;			/* positions asked for */
	uint64_t pos, step;
	int dir;			/* of the last step: 1 or -1 */
	int valid;
};

void pap_rseq_cursor_init(struct pap_rseq_cursor *c,
			  const struct pap_rseq *s);
void pap_rseq_cursor_free(struct pap_rseq_cursor *c);
/*
 * The index of the symbol item that element @pos (< s->len) is a copy
 * of, as pap_rseq_at() returns it; SIZE_MAX when memory runs out.
 */
size_t pap_rseq_cursor_at(struct pap_rseq_cursor *c, uint64_t pos);
/* The symbol at @pos; never fails (without memory for its chain, the
 * cursor finds it as pap_rseq_get() does). */
uint64_t pap_rseq_cursor_sym(struct pap_rseq_cursor *c, uint64_t pos);

/*
 * Into @w[i] for each symbol item i (repeat items get 0): how many
 * elements of the expanded sequence are copies of it, so that the
 * expanded sequence holds symbol x exactly the sum of w[i] over the items
 * i of symbol x.  Repeats are not expanded: each carries its weight back
 * to the range it copies, as a few weighted ranges.  0 or PAP_ENOMEM.
 */
int pap_rseq_weights(const struct pap_rseq *s, uint64_t *w);

/*
 * Prefix sums of a weight per symbol: with @acc (n + 1 entries) and
 * @src (n) filled by pap_rseq_sums() for weight function @symw, the sum
 * over the elements before @pos is pap_rseq_prefix().
 */
typedef uint64_t (*pap_rseq_symw)(void *ctx, uint64_t sym);
int pap_rseq_sums(const struct pap_rseq *s, pap_rseq_symw symw, void *ctx,
		  uint64_t *acc, uint64_t *src);
uint64_t pap_rseq_prefix(const struct pap_rseq *s, const uint64_t *acc,
			 const uint64_t *src, pap_rseq_symw symw, void *ctx,
			 uint64_t pos);

/*
 * A function's distinct decoded pieces.  A piece is the run of edges, in
 * execution order, that decoding one segment pushes: in PAP the segment
 * between two breakpoints (key: its end node, its stop node, its value),
 * in PAP+EPP the digits of one breakpoint's value read from the fold edge
 * the segment ends at (key: that edge, its value).  A piece is decoded
 * once, through the function's memo.
 */
struct pap_piece {
	size_t off;		/* into the edge pool */
	uint32_t len;
	uint32_t nblocks;	/* its edges that enter a user block */
	uint32_t first_end;	/* PAP+EPP: fold edge its first digit ends at */
	uint32_t start;		/* PAP+EPP: fold edge its first digit starts at */
	int at_entry;		/* PAP+EPP: its first digit starts at ENTRY */
};

struct pap_pieces {
	struct pap_piece *p;
	size_t n, cap;
	uint32_t *pool;
	size_t npool, cap_pool;
	struct pap_piece_slot *slots;	/* open addressing by key */
	size_t nslots;
};

void pap_pieces_init(struct pap_pieces *pc);
void pap_pieces_free(struct pap_pieces *pc);
/* The edges of piece @i. */
static inline const uint32_t *pap_piece_edges(const struct pap_pieces *pc,
					      uint64_t i, uint32_t *len)
{
	*len = pc->p[i].len;
	return pc->pool + pc->p[i].off;
}

/*
 * The path of a PAP or PAP+EPP record, its breakpoints @bps[0..@n) packed
 * (bpack.h) and its final value @final, as a sequence of piece indices of
 * @pc (filled as needed) into @out (emptied first).  Expanded, the pieces'
 * edges are exactly what pap_decode_path() gives for the unpacked record,
 * and the result is PAP_ECORRUPT exactly when that decoding fails (an
 * invalid packing included).  PAP: one piece decoded per symbol item and
 * one per repeat, each repeat kept.  PAP+EPP: a piece depends on the
 * segments after it, so a repeat is decoded period by period from its
 * end until the fold edge carried between periods recurs; then the rest
 * is a repeat.  Memory: the items and the distinct pieces.
 */
int pap_pathform_build(const struct pap_plan *plan, struct pap_memo *memo,
		       struct pap_pieces *pc, const struct pap_breakpoint *bps,
		       size_t n, uint64_t final, struct pap_rseq *out);

/*
 * The Ball-Larus id stream (blstream.h) of the path @form of pieces @pc,
 * with repeats, into @ids (emptied first), for the EPP plan @bl.  An id
 * ends at each EPP fold edge and at EXIT, so each piece holds a fixed
 * number of id ends; the id ending in a piece depends on the pieces since
 * the last fold, so inside a repeat the ids repeat from the first piece
 * holding a fold on.  0, PAP_ECORRUPT if the edges are not a path of
 * @bl's graph, PAP_ENOMEM.
 */
int pap_pathform_bl_ids(const struct pap_plan *bl,
			const struct pap_pieces *pc,
			const struct pap_rseq *form, struct pap_rseq *ids);

/*
 * Calls @fn once for each distinct run of @k consecutive symbols of @s
 * (@k >= 1) with the number of times it occurs; runs inside a repeat are
 * those of the range it copies, so only the k - 1 runs reaching past each
 * repeat's end are read one by one.  0, PAP_ENOMEM, or @fn's nonzero
 * return.
 */
typedef int (*pap_kgram_fn)(void *ctx, const uint64_t *run, uint32_t k,
			    uint64_t count);
int pap_rseq_kgrams(const struct pap_rseq *s, uint32_t k, pap_kgram_fn fn,
		    void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PATHFORM_H */
