/* SPDX-License-Identifier: MIT */
/*
 * fold.cc - the fold r = r*n + d inline, the runtime called only near
 * overflow.
 *
 * The probes are first emitted as calls "r = __pap_fold(act, r, n, d,
 * site, restart)" (the ABI's contract: r*n + d, or on overflow a
 * breakpoint and restart*n + d).  Once every probe is placed, each call
 * becomes
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
 * result is the call's in every case.  n is a constant, so GCC turns the
 * multiply into a shift for a power of two, and the test into a compare
 * with a constant that the branch predictor learns.
 */
#include "gcc-common.h"

#include "probes.h"
#include "util.h"

/* Makes fold call @call a test, the call on the rare arm, and the
 * multiply-add on the common one. */
static void pap_fold_expand(gcall *call)
{
	tree r = gimple_call_lhs(call);
	tree n = gimple_call_arg(call, 2);
	tree d = gimple_call_arg(call, 3);
	tree type = TREE_TYPE(r);
	uint64_t bound = pap_fold_limit(tree_to_uhwi(n));
	gimple_stmt_iterator gsi = gsi_for_stmt(call), at;
	basic_block then_bb, join_bb;
	gimple_seq fast = NULL;
	tree t;
	edge e;

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
	/* the common arm, on the false edge */
	t = create_tmp_var(type, "pap_t");
	gimple_seq_add_stmt(&fast, gimple_build_assign(t, MULT_EXPR, r, n));
	gimple_seq_add_stmt(&fast, gimple_build_assign(r, PLUS_EXPR, t, d));
	e = find_edge(single_pred(then_bb), join_bb);
	gsi_insert_seq_on_edge_immediate(e, fast);
}

void pap_inline_folds(function *fun, tree fold_decl)
{
	auto_vec<gcall *> calls;
	basic_block bb;
	unsigned i;

	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi;

		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));

			if (call && gimple_call_fndecl(call) == fold_decl)
				calls.safe_push(call);
		}
	}
	for (i = 0; i < calls.length(); i++)
		pap_fold_expand(calls[i]);
}
