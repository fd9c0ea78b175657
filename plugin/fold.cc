/* SPDX-License-Identifier: MIT */
/*
 * fold.cc - the fold r = r*n + d inline, the runtime called only near
 * overflow, late in the pipeline.
 *
 * A fold the plan proves safe (pap_op.may_overflow clear: r stays below
 * floor(2^64/n) on every path to it) is emitted as plain arithmetic from
 * the start (instrument.cc).  Every other fold is emitted as the call
 * "r = __pap_fold(act, r, n, d, site, restart)" (the ABI's contract: r*n
 * + d, or on overflow a breakpoint and restart*n + d) and stays a call
 * through GCC's GIMPLE optimisers: one statement for them to look at
 * instead of three blocks.  The pass "papfold", right after "optimized"
 * and before RTL expansion, then makes each remaining call
 *
 *     if (r >= B)                         B = floor(2^64 / n)
 *         r = __pap_fold(act, r, n, d, site, restart);
 *     else
 *         r = r * n + d;
 *
 * The plan guarantees d < n (d is an in-edge index below the fan-in, or
 * an acyclic path id below the count of paths that end at the fold), so
 * r <= B - 1 gives r*n + d <= B*n - 1 <= 2^64 - 1: the inline arm never
 * overflows, and from r >= B on the runtime makes the exact test
 * (pap_fold_limit() computes B; test_fold checks both facts).  The
 * result is the call's in every case.  n is a constant, so the multiply
 * becomes shifts and adds, and the test a compare with a constant that
 * the branch predictor learns.
 */
#include "gcc-common.h"

#include "probes.h"
#include "util.h"

/* Is @stmt a call "r = __pap_fold(...)" with a constant radix?  Matched
 * by name, so that calls inlined from other units (LTO) count too. */
static gcall *pap_fold_call(gimple *stmt, tree fold_id)
{
	gcall *call = dyn_cast<gcall *>(stmt);
	tree fn;

	if (!call || gimple_call_num_args(call) != 6)
		return NULL;
	fn = gimple_call_fndecl(call);
	if (!fn || DECL_NAME(fn) != fold_id ||
	    TREE_CODE(gimple_call_arg(call, 2)) != INTEGER_CST ||
	    !tree_fits_uhwi_p(gimple_call_arg(call, 2)))
		return NULL;
	return call;
}

static bool pap_abnormal_p(tree t)
{
	return t && TREE_CODE(t) == SSA_NAME &&
	       SSA_NAME_OCCURS_IN_ABNORMAL_PHI(t);
}

/*
 * Makes fold call @call a test, the call on the rare arm and the
 * multiply-add on the common one, joined by a PHI for the call's value.
 * A constant r below the limit needs neither test nor call.  Values that
 * take part in abnormal PHIs (setjmp), or a result not in an SSA name,
 * are left alone: the call is right as it is.  Virtual operands need
 * renaming afterwards.
 */
static void pap_fold_expand(gcall *call)
{
	tree lhs = gimple_call_lhs(call);
	tree r = gimple_call_arg(call, 1);
	tree n = gimple_call_arg(call, 2);
	tree d = gimple_call_arg(call, 3);
	tree type = TREE_TYPE(n);
	uint64_t bound = pap_fold_limit(tree_to_uhwi(n));
	gimple_stmt_iterator gsi = gsi_for_stmt(call), at;
	basic_block then_bb, join_bb, fast_bb;
	gimple_seq fast = NULL;
	tree t, sum, called;
	gphi *phi;
	edge e;

	if (pap_abnormal_p(r) || pap_abnormal_p(d) || pap_abnormal_p(lhs) ||
	    (lhs && TREE_CODE(lhs) != SSA_NAME))
		return;
	if (TREE_CODE(r) == INTEGER_CST && tree_fits_uhwi_p(r) &&
	    tree_to_uhwi(r) < bound) {
		uint64_t v = tree_to_uhwi(r) * tree_to_uhwi(n);
		gimple *g;

		if (!lhs)
			g = gimple_build_nop();
		else if (TREE_CODE(d) == INTEGER_CST)
			g = gimple_build_assign(lhs, build_int_cstu(type,
						v + tree_to_uhwi(d)));
		else
			g = gimple_build_assign(lhs, PLUS_EXPR, d,
						build_int_cstu(type, v));
		unlink_stmt_vdef(call);
		gsi_replace(&gsi, g, false);
		return;
	}
	at = create_cond_insert_point(&gsi, true, false, true, &then_bb,
				      &join_bb);
	gsi_insert_after(&at, gimple_build_cond(GE_EXPR, r,
			 build_int_cstu(type, bound), NULL_TREE, NULL_TREE),
			 GSI_NEW_STMT);
	/* the call moves to the rare arm */
	gsi = gsi_for_stmt(call);
	gsi_remove(&gsi, false);
	at = gsi_start_bb(then_bb);
	gsi_insert_before(&at, call, GSI_NEW_STMT);
	if (!lhs)
		return;
	/* the common arm, on the false edge, and the PHI that joins them */
	called = make_ssa_name(type);
	gimple_call_set_lhs(call, called);
	t = make_ssa_name(type);
	sum = make_ssa_name(type);
	gimple_seq_add_stmt(&fast, gimple_build_assign(t, MULT_EXPR, r, n));
	gimple_seq_add_stmt(&fast, gimple_build_assign(sum, PLUS_EXPR, t, d));
	e = find_edge(single_pred(then_bb), join_bb);
	fast_bb = gsi_insert_seq_on_edge_immediate(e, fast);
	if (fast_bb)
		e = single_succ_edge(fast_bb);
	phi = create_phi_node(lhs, join_bb);
	add_phi_arg(phi, called, single_succ_edge(then_bb), UNKNOWN_LOCATION);
	add_phi_arg(phi, sum, e, UNKNOWN_LOCATION);
}

unsigned int pap_inline_folds(function *fun)
{
	tree fold_id = get_identifier("__pap_fold");
	auto_vec<gcall *> calls;
	basic_block bb;
	unsigned i;

	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi;

		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gcall *call = pap_fold_call(gsi_stmt(gsi), fold_id);

			if (call)
				calls.safe_push(call);
		}
	}
	if (calls.is_empty())
		return 0;
	for (i = 0; i < calls.length(); i++)
		pap_fold_expand(calls[i]);
	/* the calls' memory effects now happen on one arm only */
	mark_virtual_operands_for_renaming(fun);
	update_ssa(TODO_update_ssa_only_virtuals);
	return TODO_cleanup_cfg;
}
