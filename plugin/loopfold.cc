/* SPDX-License-Identifier: MIT */
/*
 * loopfold.cc - a call-free loop folds its path all at once where it ends.
 *
 * In pap and pap-epp every iteration of a loop folds a digit into the path
 * value at the loop's header: "r' = __pap_fold(act, r, n, d, site,
 * restart)", r a PHI of the header that takes r' back from the latch.
 * fold.cc makes that a multiply-add and a compare, but each iteration waits
 * for the one before it, and the call on the rare arm keeps the loop from
 * being vectorised or unrolled: a tight loop runs at the speed of the fold.
 *
 * An innermost loop with one exit, that calls nothing but that one fold
 * (calls that are const, pure or internal aside), and whose digit d is the
 * same in every iteration but the first (pap_loop_value_steady()), counts
 * its iterations instead, as loopcount.cc's loops do:
 *
 *     header:    m = PHI <0, m'>              (r's PHI goes)
 *     the fold:  m' = m + 1
 *     the exit:  r = __pap_fold_run(act, r0, n, first, rest, site,
 *                                   restart, m or m', NULL)
 *
 * with r0 the value r had before the loop, first and rest the first
 * iteration's digit and the others', and m' at an exit that the fold
 * dominates, m at any other (loopcount.cc says why).  __pap_fold_run
 * (libcore/foldrun.h) makes the same breakpoints and value as the folds one
 * by one, computed in time that does not depend on m (a store for each
 * breakpoint aside), so the profile is the same; fold.cc passes it the
 * frame byte that tells the function's end a breakpoint was made.
 *
 * The loop's value r has no use inside the loop but the fold: any other
 * would need r as it runs.  Its uses after the loop all follow the one
 * exit, and take the call's value instead.  What could see the difference
 * is what loopcount.cc lists: something outside the loop's code that leaves
 * it or ends the process meanwhile.  Then the path of the activation is cut
 * short where the loop began, and an unfinished activation written at exit
 * lacks the loop's breakpoints.
 */
#include "gcc-common.h"

#include "plugin.h"

/* A loop to change: its fold, r's PHI, its exit. */
struct pap_loop_fold {
	class loop *loop;
	gcall *fold;
	gphi *phi;
	edge exit;
	bool after;		/* the exit leaves after the fold */
	tree base, steady_value;	/* pap_loop_value_steady() found */
	uint64_t k;
};

/* Where @name is used, @except and debug statements aside: *@inside
 * @loop, *@outside it. */
static void pap_uses(class loop *loop, tree name, gimple *except,
		     bool *inside, bool *outside)
{
	imm_use_iterator it;
	use_operand_p use;

	*inside = *outside = false;
	FOR_EACH_IMM_USE_FAST(use, it, name) {
		gimple *u = USE_STMT(use);

		if (u == except || is_gimple_debug(u))
			continue;
		if (flow_bb_inside_loop_p(loop, gimple_bb(u)))
			*inside = true;
		else
			*outside = true;
	}
}

struct pap_loop_fold *pap_loop_fold_find(class loop *loop, tree fold_id)
{
	struct pap_loop_fold lf, *found;
	bool r_in, r_out, lhs_in, lhs_out;
	auto_vec<edge> exits;
	tree r, lhs;
	gphi *phi;
	edge e;

	lf.loop = loop;
	lf.fold = pap_loop_only_call(loop, fold_id, 6, 2);
	if (!lf.fold)
		return NULL;
	lhs = gimple_call_lhs(lf.fold);
	r = gimple_call_arg(lf.fold, 1);
	/* r' = __pap_fold(act, r, n, d, site, restart), r = PHI <r0, r'> */
	if (!lhs || TREE_CODE(lhs) != SSA_NAME || pap_abnormal_p(lhs) ||
	    TREE_CODE(r) != SSA_NAME || pap_abnormal_p(r) ||
	    !pap_loop_invariant(loop, gimple_call_arg(lf.fold, 0)) ||
	    pap_abnormal_p(gimple_call_arg(lf.fold, 0)) ||
	    tree_to_uhwi(gimple_call_arg(lf.fold, 2)) < 2 ||
	    TREE_CODE(gimple_call_arg(lf.fold, 4)) != INTEGER_CST ||
	    TREE_CODE(gimple_call_arg(lf.fold, 5)) != INTEGER_CST)
		return NULL;
	phi = dyn_cast<gphi *>(SSA_NAME_DEF_STMT(r));
	if (!phi || gimple_bb(phi) != loop->header ||
	    PHI_ARG_DEF_FROM_EDGE(phi, loop_latch_edge(loop)) != lhs ||
	    pap_abnormal_p(PHI_ARG_DEF_FROM_EDGE(phi,
						 loop_preheader_edge(loop))))
		return NULL;
	lf.phi = phi;
	if (!pap_loop_value_steady(loop, gimple_call_arg(lf.fold, 3),
				   &lf.base, &lf.k, &lf.steady_value))
		return NULL;
	/* one exit, which every use of r after the loop follows */
	exits = get_loop_exit_edges(loop);
	if (exits.length() != 1)
		return NULL;
	e = exits[0];
	if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
		return NULL;
	lf.exit = e;
	lf.after = dominated_by_p(CDI_DOMINATORS, e->src, gimple_bb(lf.fold));
	/* inside, r feeds the fold alone and r' the PHI alone; after the
	 * exit only the one the exit sees is used */
	pap_uses(loop, r, lf.fold, &r_in, &r_out);
	pap_uses(loop, lhs, phi, &lhs_in, &lhs_out);
	if (r_in || lhs_in || (lf.after ? r_out : lhs_out))
		return NULL;
	found = new pap_loop_fold;
	*found = lf;
	return found;
}

/* Points every use of @name outside @loop at @to; debug binds of it
 * forget their value. */
static void pap_retarget_uses(class loop *loop, tree name, tree to)
{
	imm_use_iterator it;
	use_operand_p use;
	gimple *u;

	FOR_EACH_IMM_USE_STMT(u, it, name) {
		if (gimple_debug_bind_p(u))
			gimple_debug_bind_reset_value(u);
		else if (!flow_bb_inside_loop_p(loop, gimple_bb(u)))
			FOR_EACH_IMM_USE_ON_STMT(use, it)
				SET_USE(use, to);
		else
			continue;
		update_stmt(u);
	}
}

void pap_loop_fold_apply(struct pap_loop_fold *lf)
{
	class loop *loop = lf->loop;
	tree u64 = long_long_unsigned_type_node;
	tree m = make_ssa_name(u64), m2 = make_ssa_name(u64);
	tree lhs = gimple_call_lhs(lf->fold), r = gimple_phi_result(lf->phi);
	tree rx = make_ssa_name(u64), first, rest;
	gphi *count = create_phi_node(m, loop->header);
	gimple_stmt_iterator gsi;
	basic_block at;
	gcall *run;

	add_phi_arg(count, build_int_cst(u64, 0), loop_preheader_edge(loop),
		    UNKNOWN_LOCATION);
	add_phi_arg(count, m2, loop_latch_edge(loop), UNKNOWN_LOCATION);
	pap_loop_steady_values(loop, lf->base, lf->k, lf->steady_value,
			       &first, &rest);
	/* the exit gets a block of its own, which every use of r or r'
	 * after the loop follows; only one of them has such uses */
	at = split_edge(lf->exit);
	run = gimple_build_call(pap_rt_decl(PAP_RT_FOLD_RUN), 9,
		gimple_call_arg(lf->fold, 0),
		PHI_ARG_DEF_FROM_EDGE(lf->phi, loop_preheader_edge(loop)),
		gimple_call_arg(lf->fold, 2), first, rest,
		gimple_call_arg(lf->fold, 4), gimple_call_arg(lf->fold, 5),
		lf->after ? m2 : m,
		build_int_cst(build_pointer_type(unsigned_char_type_node), 0));
	gimple_call_set_lhs(run, rx);
	gimple_set_location(run, gimple_location(lf->fold));
	gsi = gsi_after_labels(at);
	gsi_insert_before(&gsi, run, GSI_NEW_STMT);
	pap_retarget_uses(loop, lhs, rx);
	pap_retarget_uses(loop, r, rx);
	/* the fold becomes the count; r's PHI and the fold's value go */
	gsi = gsi_for_stmt(lf->fold);
	unlink_stmt_vdef(lf->fold);
	gsi_insert_before(&gsi, gimple_build_assign(m2, PLUS_EXPR, m,
						    build_int_cst(u64, 1)),
			  GSI_SAME_STMT);
	gsi_remove(&gsi, true);
	gsi = gsi_for_phi(lf->phi);
	remove_phi_node(&gsi, true);
	release_ssa_name(lhs);
	delete lf;
}
