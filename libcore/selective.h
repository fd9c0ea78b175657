/* SPDX-License-Identifier: MIT */
/*
 * selective.h - exact selective path profiling: paths of interest,
 * acyclic (SPP, seed 002) or cyclic (PSP, seed 001 §1.2).
 *
 * Given a finished CFG and paths of interest (each a whole activation:
 * CFG edge ids from an edge out of ENTRY to an edge into EXIT, loops
 * allowed), pap_sel_build() plans the probes of one strategy and keeps
 * what the decoder needs to say which path of interest a record is.
 *
 * The numbering is a full-mode plan (plan.h) over one of two graphs:
 *   - the interesting subgraph: the union of the edges of the paths of
 *     interest (and the abnormal edges leaving it, which cannot carry
 *     code), as a graph of its own; every other CFG edge leaving it is a
 *     boundary edge that terminates the activation (T3), so a path that
 *     reaches a RECORD or COUNT never left it, and its value decodes to
 *     it exactly;
 *   - the whole CFG, where T1 or T2 checks terminate early instead.
 * Either way the value recorded at EXIT decodes to the executed path, so
 * deciding "path of interest #k or not" is a lookup, never a guess.
 *
 * Strategies:
 *   PAP_SEL_SPP   acyclic paths of interest: Ball-Larus on the subgraph,
 *                 increments on its spanning-tree chords, T3;
 *   PAP_SEL_PSP0  whole CFG, T1: at each back edge, r is checked against
 *                 the values r has there on the paths of interest;
 *   PAP_SEL_PSP1  whole CFG (pap-epp), T2: at each fold edge, the digit
 *                 (the acyclic piece's local code) is checked against the
 *                 pieces of the paths of interest ending there;
 *   PAP_SEL_PSP2  subgraph, T3;
 *   PAP_SEL_PSP3  subgraph (pap-epp), T2 + T3;
 *   PAP_SEL_FOLLOW subgraph (pap-epp digits, no register): the paths of
 *                 interest are followed as an automaton (selauto.c), T3;
 *                 the record is the number of the path that matched.
 *                 Where the automaton is too large, psp3's probes.
 * Checks and termination only ever stop paths not of interest: a prefix
 * of a path of interest has exactly the values its path has there.
 */
#ifndef PAP_CORE_SELECTIVE_H
#define PAP_CORE_SELECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "cfgtext.h"

#include "decode.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raise whenever a selective plan's probes, checks or numbering of
 * paths of interest change for the same input (pap_sel_stamp()). */
#define PAP_SEL_FORMAT 2

enum pap_sel_strategy {
	PAP_SEL_SPP = 0,
	PAP_SEL_PSP0,
	PAP_SEL_PSP1,
	PAP_SEL_PSP2,
	PAP_SEL_PSP3,
	PAP_SEL_FOLLOW,
};
#define PAP_SEL_NSTRATEGIES 6

const char *pap_sel_strategy_name(enum pap_sel_strategy s);
/* Parses "spp", "psp0".."psp3", "follow"; 0 or PAP_EINVAL. */
int pap_sel_strategy_parse(const char *s, enum pap_sel_strategy *out);

/* What the runtime checks on an edge (per CFG edge). */
enum pap_sel_check {
	PAP_SEL_CHECK_NONE = 0,
	PAP_SEL_CHECK_T1,	/* after the edge's ops: r in the table */
	PAP_SEL_CHECK_T2,	/* before them: the digit a + k of the
				 * edge's first FOLD in the table */
};

/* One path of interest: CFG edge ids in execution order. */
struct pap_sel_path {
	const uint32_t *edges;
	size_t len;
};

struct pap_sel_opts {
	/* PSP0, PSP2: number with plain pap instead of pap-epp (T2 needs
	 * pap-epp's digits).  SPP always numbers with epp. */
	int plain_pap;
	uint64_t max_paths;	/* as pap_plan_opts; 0: default */
};

#define PAP_SEL_OTHER UINT32_MAX	/* decoded: not a path of interest */

/*
 * The automaton of strategy follow (selauto.c).  A path of interest is
 * the sequence of its symbols: at each step edge (a CFG edge whose
 * plan operations fold or record), the edge and the digit
 * pap_sel_digit() gives there.  The digits of pap-epp are the local
 * codes of the acyclic pieces, and the record of pap-epp is a function
 * of that sequence, so equal sequences are equal paths.  Each path's
 * sequence is compressed into blocks repeated a fixed number of times,
 * nested up to PAP_SEL_AUTO_DEPTH levels; the state of path k is its
 * position pos (in 0..len, PAP_SEL_DEAD once it cannot match) and a
 * repeat counter per level, cnt[k * PAP_SEL_AUTO_DEPTH + level].  At a
 * step edge e with digit d, a live path at position p moves on when
 * edge[p] == e and digit[p] == d, else dies.  Moving on: for each block
 * that ends at p, innermost first, ++cnt of its level; below the
 * block's count, back to its first position and done; else that cnt
 * becomes 0 and the next block ending at p is tried; when none is left,
 * p + 1.  A path whose position reaches its length after the step of a
 * recording edge matched: it is recorded as its number, and an
 * activation that recorded with no path matched as npaths ("other").
 * An activation with every path dead at a step edge that does not
 * record ends early.
 */
#define PAP_SEL_DEAD UINT32_MAX
/* The bounds decide whether follow records path numbers or psp3's
 * registers, and the compression: raise PAP_SEL_FORMAT on a change. */
#define PAP_SEL_AUTO_MAX 64	/* positions over all paths, at most */
#define PAP_SEL_AUTO_BLOCK 16	/* longest repeated block tried */
#define PAP_SEL_AUTO_DEPTH 4	/* nesting levels of repeats */
#define PAP_SEL_FLAT_MAX (1u << 22)	/* positions of a flat automaton */
/* paths of a flat automaton, at most: each live one costs a table step
 * (about 10 instructions) where psp3's register costs about 40 */
#define PAP_SEL_FLAT_PATHS 3

struct pap_sel_auto {
	uint32_t npaths;
	uint32_t npos;
	uint32_t *off;		/* path k: positions off[k]..off[k+1] */
	uint32_t *edge;		/* per position: CFG edge */
	uint64_t *digit;	/* per position: the digit there */
	/* per position: the blocks ending there, innermost first, at
	 * close_*[close_off[p]..close_off[p+1]) (position of the path's
	 * own numbering, from 0) */
	uint32_t *close_off;
	uint32_t *close_first;	/* the block's first position */
	uint32_t *close_reps;	/* its repeat count, 2 or more */
	uint8_t *close_level;	/* its nesting level, 0 outermost */
	uint8_t *step;		/* per CFG edge: 1 step, 2 step + record */
	/*
	 * A flat automaton (flat 1 or 2: the bytes of an entry of its
	 * tables; 0 for a compressed one) has no blocks: each path is its
	 * symbols one by one, a table of their codes in the instrumented
	 * code.  The code of edge e and digit d is
	 * (min(d, 2^(8 * flat - code_bits)) << code_bits) | code_edge[e]
	 * (pap_sel_auto_code()), code_edge[e] the step edge's number from
	 * 1, below 2^code_bits: never 0, the code of no symbol, which ends
	 * each table; every position's digit is below the bound, so two
	 * codes are equal exactly when edge and digit are.
	 */
	uint8_t flat;
	uint8_t code_bits;
	uint32_t *code_edge;	/* per CFG edge (flat) */
};

/*
 * The automaton of @sp's paths of interest, planned already (pap-epp or
 * pap over the subgraph): compressed when it has at most
 * PAP_SEL_AUTO_MAX positions and repeat counts of 32 bits, else flat
 * when the paths have at most PAP_SEL_FLAT_MAX symbols in all, their
 * codes fit 16 bits, most of their symbols are not repeats of the
 * one before (psp3 folds a counted loop's repeats in one go, a table
 * would step each) and they are at most PAP_SEL_FLAT_PATHS.  0 with
 * *@out NULL otherwise, on a step on a FAKE edge (a cut or a resume,
 * where the plugin has no place for the step's branches), and when no
 * path of interest steps before its record (each is one acyclic piece:
 * psp3 counts its number in place, and the automaton would only add
 * compares).  PAP_ENOMEM.
 */
struct pap_sel_plan;
int pap_sel_auto_build(const struct pap_sel_plan *sp,
		       struct pap_sel_auto **out);
void pap_sel_auto_free(struct pap_sel_auto *au);
/* Starts every path: pos 0 (au->npaths), every cnt 0 (au->npaths *
 * PAP_SEL_AUTO_DEPTH). */
void pap_sel_auto_start(const struct pap_sel_auto *au, uint32_t *pos,
			uint32_t *cnt);
/*
 * One step at CFG edge @e with digit @d, as the instrumented code does
 * it; returns the number of paths still alive.
 */
uint32_t pap_sel_auto_step(const struct pap_sel_auto *au, uint32_t *pos,
			   uint32_t *cnt, uint32_t e, uint64_t d);
/* The code of edge @e and digit @d in a flat automaton's tables. */
uint64_t pap_sel_auto_code(const struct pap_sel_auto *au, uint32_t e,
			   uint64_t d);
/* What a recording edge records after its step: the number of the path
 * that matched, or au->npaths. */
uint32_t pap_sel_auto_result(const struct pap_sel_auto *au,
			     const uint32_t *pos);

struct pap_sel_plan {
	enum pap_sel_strategy strategy;
	const struct pap_cfg *cfg;	/* borrowed: must outlive the plan */
	struct pap_cfg *sub;		/* the interesting subgraph, or NULL */
	struct pap_plan *plan;		/* over sub, or over cfg */
	uint64_t max_paths;		/* as asked (0: default) */

	/* per CFG edge */
	uint32_t *to_plan;	/* the plan's edge, or PAP_NONE */
	uint8_t *interesting;	/* on some path of interest */
	uint8_t *term;		/* boundary edge: terminate (T3) */
	uint8_t *check;		/* enum pap_sel_check */
	uint32_t *check_off;	/* sorted distinct values of edge e's
				 * check: check_val[check_off[e]..[e+1]) */
	uint64_t *check_val;
	/* per edge of plan->cfg: the CFG edge, or PAP_NONE (an edge the
	 * subgraph's finish added, which never runs) */
	uint32_t *to_cfg;

	/* the paths of interest, by number */
	uint32_t npaths;
	uint32_t *path_off;	/* edges of path k: path_edges[off[k]..] */
	uint32_t *path_edges;
	uint32_t *hslot;	/* open addressing: path number + 1, or 0 */
	uint32_t hmask;
	/* the decode table: what each path of interest records (records,
	 * ids and each id, breakpoints and each site and r, final value)
	 * at rec_val[rec_off[k]..[k+1]), indexed by rslot like hslot */
	uint32_t *rec_off;
	uint64_t *rec_val;
	uint32_t *rslot;

	/* what the instrumented code costs (CFG edges that can run) */
	uint32_t nprobe_sites;	/* edges carrying operations */
	uint32_t nterm_edges;	/* boundary edges that terminate */
	uint32_t ncheck_sites;	/* edges with a T1 or T2 check */
	uint32_t ncheck_values;	/* table entries over all checks */
	/* follow: the automaton, or NULL (then psp3's probes) */
	struct pap_sel_auto *aut;
	char note[256];
};

/*
 * Plans strategy @s for @paths over the finished, weighted @cfg.
 * Guarantees (the executor below is their reference): an activation
 * that follows a path of interest is never terminated and decodes to
 * its number; any other activation is terminated or decodes to
 * PAP_SEL_OTHER.  A path that is not a walk from ENTRY to EXIT, or, for
 * SPP, one holding a back edge, is refused: PAP_EINVAL with a message
 * in @err naming the path and edge.  Equal paths share the lower number.
 */
int pap_sel_build(const struct pap_cfg *cfg, enum pap_sel_strategy s,
		  const struct pap_sel_path *paths, size_t npaths,
		  const struct pap_sel_opts *opts, struct pap_sel_plan **out,
		  char *err, size_t errlen);
void pap_sel_free(struct pap_sel_plan *sp);

/*
 * The operations CFG edge @e performs (plan.h), *@n of them; none on an
 * edge off the numbered graph.  Before them the runtime terminates if
 * sp->term[e], checks a T2 table if sp->check[e] says so; after them it
 * checks a T1 table.
 */
static inline const struct pap_op *pap_sel_ops(const struct pap_sel_plan *sp,
					       uint32_t e, uint32_t *n)
{
	uint32_t pe = sp->to_plan[e];

	*n = pe == PAP_NONE ? 0 : pap_plan_nops(sp->plan, pe);
	return pe == PAP_NONE ? NULL : sp->plan->ops + sp->plan->op_off[pe];
}

/*
 * The edges of a path given as GCC's blocks (user block ids, from the
 * entry block or a resume block to a block leaving the function): one
 * edge per pair, the return edge at the end before a cut.  @edges has
 * room for @n + 1.  PAP_EINVAL with a message when two blocks are not
 * joined, or joined by several edges (then blocks cannot say which).
 */
int pap_sel_path_from_blocks(const struct pap_cfg *cfg,
			     const uint32_t *blocks, size_t n,
			     uint32_t *edges, char *err, size_t errlen);
/*
 * pap_sel_path_from_blocks() for a path given by GCC's block numbers
 * (a spec's), the numbers of graph @g's blocks ("bN"); a number that is
 * no block of @g is PAP_EINVAL with "no block N" in @err.
 */
int pap_sel_path_from_numbers(const struct pap_cfgtext *g,
			      const uint32_t *numbers, size_t n,
			      uint32_t *edges, char *err, size_t errlen);

/* The number of the path of interest with these CFG edges, or
 * PAP_SEL_OTHER. */
uint32_t pap_sel_lookup(const struct pap_sel_plan *sp, const uint32_t *edges,
			size_t len);

/*
 * Decodes what a completed activation emitted (an activation that was
 * not terminated) into *@path: a path of interest's number or
 * PAP_SEL_OTHER.  PAP_ECORRUPT when no execution emits it.
 */
int pap_sel_decode(const struct pap_sel_plan *sp,
		   const struct pap_activation *act, uint32_t *path);

/*
 * The value a T2 check on plan edge @pe tests when the registers hold
 * @st before the edge: the digit its first FOLD adds, a + k after the
 * operations before it.  The FOLD computes the same value.
 */
uint64_t pap_sel_digit(const struct pap_plan *plan,
		       const struct pap_exec_state *st, uint32_t pe);

/*
 * What the decoder needs to re-plan besides the graph: FNV-1a 64 of
 * "sel FORMAT plan PLAN_FORMAT STRATEGY MODE MAX_PATHS NPATHS\n", then
 * of each path in order its length and edges (4 bytes each, least
 * significant first).  For the metadata checksum, so that records are
 * never decoded under another selection (invariant 8).
 */
uint64_t pap_sel_stamp(const struct pap_sel_plan *sp);

/*
 * The path of interest whose run emits exactly what @act holds, from
 * the decode table, without decoding: *@path gets its number or
 * PAP_SEL_OTHER.  A path's emissions are a function of the path and
 * decode back to it, so this agrees with pap_sel_decode() on every
 * record an execution emits (it just cannot tell "other" from corrupt).
 * PAP_ENOMEM or 0.
 */
int pap_sel_match(const struct pap_sel_plan *sp,
		  const struct pap_activation *act, uint32_t *path);

/* ---- reference execution (selexec.c) ---- */

enum pap_sel_verdict_kind {
	PAP_SEL_INTEREST = 0,	/* path of interest number @path */
	PAP_SEL_TERM_T1,
	PAP_SEL_TERM_T2,
	PAP_SEL_TERM_T3,
	PAP_SEL_OTHERPATH,	/* ran to EXIT, not of interest */
};

struct pap_sel_verdict {
	uint8_t kind;		/* enum pap_sel_verdict_kind */
	uint32_t path;		/* INTEREST: its number */
	size_t at;		/* TERM_*: index of the edge that stopped it */
};

/*
 * Runs the walk @edges (CFG edge ids from ENTRY to EXIT) through the
 * selective plan exactly as instrumented code does: a boundary edge
 * terminates, a failed check terminates, otherwise the plan's
 * operations run (pap_exec_edge) and, at EXIT, what they emitted is
 * decoded.  If @act is given it receives what was emitted.  PAP_EINVAL
 * if the walk leaves the instrumented code without a boundary edge (not
 * a walk of the graph), PAP_ECORRUPT if decoding fails.
 */
int pap_sel_exec(const struct pap_sel_plan *sp, const uint32_t *edges,
		 size_t len, struct pap_activation *act,
		 struct pap_sel_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_SELECTIVE_H */
