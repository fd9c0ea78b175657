/* SPDX-License-Identifier: MIT */
/*
 * probes.h - turning a plan's per-edge operations into GIMPLE, and placing
 * the operations that no ordinary GCC edge can carry (nonlocal.cc).
 */
#ifndef PAP_PLUGIN_PROBES_H
#define PAP_PLUGIN_PROBES_H

#include "cfgtext.h"
#include "model.h"

/*
 * What the code on a function's edges works with (instrument.cc sets it
 * up, emit.cc writes the code): its locals, and what it passes the
 * runtime (pap/abi.h).
 */
struct pap_emit {
	/* the path register; the acyclic (Ball-Larus) sum of the region
	 * the path is in; a temporary for the digit a fold takes and the
	 * id an EPP count records */
	tree r, a, d;
	/* the activation's number from __pap_enter, which tells the runtime
	 * whose breakpoints are whose (unset under @no_activation) */
	tree activation;
	/* the function's key string; in code for a shared object the static
	 * slot that holds it (keys.cc), else NULL_TREE and @key is passed
	 * as it is */
	tree key, key_slot;
	/* trace: the activation's depth in the tracer's stack, from
	 * __pap_trace_begin */
	tree trace_depth;
	uint64_t restart;	/* r's value after a breakpoint (the plan's) */
	/*
	 * No fold may make a breakpoint and no jump comes back into the
	 * function: its activations need no number, and a record is the
	 * value of r alone (__pap_path, or counted in place).
	 */
	bool no_activation;
	/*
	 * A longjmp or nonlocal goto may come back into the function: the
	 * shadows, volatile copies of r, a, @activation and @trace_depth,
	 * are stored after every edge's operations that change them, so
	 * that they hold the activation's state when the jump comes back;
	 * @at notes where its last call was (PAP_AT_*, or a cut block).
	 */
	bool has_shadows;
	tree shadow_r, shadow_a, shadow_activation, shadow_trace_depth, at;
	/*
	 * Records without breakpoints are counted in place (pap/abi.h,
	 * __pap_tally): the function's thread-local counters pointer
	 * (NULL_TREE: records are calls), a temporary for its address, and
	 * the number of values, one counter each.
	 */
	tree tally_counters, tally_counters_addr;
	uint64_t tally_nvalues;
};

/* The special values of pap_emit.at beside a cut block's number. */
#define PAP_AT_SETJMP	0		/* setjmp returns for the first time */
#define PAP_AT_RECORDED	0xffffffffu	/* the path was recorded already */
#define PAP_AT_BETWEEN	0xfffffffeu	/* no call is running: a longjmp now
					 * comes from a signal handler */

/* Core edge @id's operations (and trace calls) as a GIMPLE sequence. */
gimple_seq pap_edge_seq(const struct pap_plan *plan,
			const struct pap_cfgtext *g, uint32_t id,
			const struct pap_emit *emit);
/* Does core edge @id get code: operations, or the oracle's calls, on an
 * edge that is taken (not dead, not a resume or cut edge)? */
bool pap_edge_has_code(const struct pap_plan *plan,
		       const struct pap_cfgtext *g, uint32_t id);
tree pap_u32_cst(uint32_t v);
/* A call truncating the trace oracle's activation stack to @depth. */
gimple *pap_trace_unwind_call(tree depth);
/* A call counting activation @act's path as lost. */
gimple *pap_lost_call(tree act);
/* A call telling the runtime a longjmp came back to the frame holding
 * @frame_var (addressable). */
gimple *pap_resume_call(tree frame_var);

/*
 * nonlocal.cc.  Can @fun's non-local control be instrumented: setjmp
 * receivers that start with the setjmp call and go on along one ordinary
 * edge, nonlocal labels that only a nonlocal goto reaches, no vfork?
 * Else *why says what stops it.
 */
bool pap_nonlocal_supported(function *fun, const struct pap_model *m,
			    const char **why);
/* Creates the volatile shadows of @emit for a function with receivers. */
void pap_nonlocal_shadows(struct pap_emit *emit);
/*
 * Places what setjmp and nonlocal gotos need, after the ordinary edges'
 * operations are committed: the note of which block's call is running
 * before each call that may jump back, and after each setjmp call (at
 * each nonlocal label) the code that, when a jump came back, records the
 * cut path and starts the resumed one.
 */
void pap_nonlocal_emit(function *fun, const struct pap_model *m,
		       const struct pap_plan *plan,
		       const struct pap_cfgtext *g,
		       const struct pap_emit *emit);
/* Can @seq go on abnormal edge @e: into a label a computed goto takes, or
 * an exception edge into a landing pad?  Then pap_emit_on_label_edge()
 * places it there, so that it runs exactly when @e is taken. */
bool pap_label_edge_p(edge e);
void pap_emit_on_label_edge(edge e, gimple_seq seq,
			    const struct pap_emit *emit);

/*
 * tailcall.cc.  Places the code of each path that ends in a call in tail
 * position before the call, marking the core edges it placed in
 * @placed; the edges into a return block that must then return through a
 * block of their own go into @moved, for pap_tail_finish() once the
 * other edges' code is committed.  Nothing in a function with shadows.
 */
void pap_tail_place(function *fun, const struct pap_plan *plan,
		    const struct pap_cfgtext *g, edge *gcc_edge,
		    const struct pap_emit *emit, unsigned char *placed,
		    vec<edge> *moved);
void pap_tail_finish(function *fun, vec<edge> *moved);
/*
 * The return through which @call returns when it is in tail position as
 * pap_tail_place() takes it (a call whose value is returned as it is, or
 * a void call before a bare return, that returns once, cannot throw and
 * does not fork): the next statement that runs something in its block,
 * or the first of its block's only successor, reached on an ordinary
 * edge.  NULL when it is none.  Whether the function has shadows is the
 * caller's business.
 */
greturn *pap_tail_return(function *fun, gcall *call);

#endif /* PAP_PLUGIN_PROBES_H */
