/* SPDX-License-Identifier: MIT */
/*
 * loopcount.cc - a call-free loop keeps the count of its path in a
 * register.
 *
 * In epp every iteration of a loop ends an acyclic path and counts it:
 * "__pap_tally(&counters, fn, d, nvalues, bl)" at the end of the body,
 * which fold.cc makes "addq $1, counters[d]".  In a tight loop each
 * iteration adds to the same counter, and each add waits for the one
 * before it (a store, then a load of the same address): several cycles
 * an iteration where the loop itself takes one or two.
 *
 * This pass runs just before GCC's loop optimisers.  An innermost loop
 * that calls nothing but that one tally (calls that are const, pure or
 * internal aside), and whose path value d is the same in every iteration
 * but the first, counts iterations instead:
 *
 *     header:      n = PHI <0, n'>
 *     the tally:   n' = n + 1
 *     each exit:   __pap_tally_add(&counters, fn, first, nvalues, bl, min(n, 1))
 *                  __pap_tally_add(&counters, fn, rest, nvalues, bl, n - min(n, 1))
 *
 * with n as it stands where the exit leaves, first the first iteration's
 * value and rest the others' (fold.cc makes each __pap_tally_add "addq
 * n, counters[value]", calling the runtime only while counters is NULL).
 * n is an induction variable, which GCC's own passes usually compute at
 * the exit from the loop's counter, so the loop body becomes the plain
 * one.  The counters end with the same totals.
 *
 * Nothing in the loop could see the difference, since it calls nothing
 * and throws nothing, and a loop without an exit is left alone.  Only
 * something outside the loop's code can: a signal handler that leaves
 * the loop by longjmp or ends the process, another thread ending the
 * process, a kill.  Then the count not yet added is lost, and a dump made
 * meanwhile does not see it yet; loop-count=memory keeps the add of every
 * iteration for programs that need that.  Sanitized builds keep it too:
 * a failed check ends the process from inside the loop.  So does a loop
 * whose path changes between iterations: a pending (value, n) pair,
 * added when the path changes, was measured slower than the add it
 * saves.
 *
 * Which n an exit sees: the tally's block dominates the latch, and an
 * innermost, reducible loop's iteration is acyclic, so every path from
 * the header to a block of the loop passes the tally exactly once if the
 * tally's block dominates that block, and never otherwise.
 */
#include "gcc-common.h"

#include "plugin.h"

/* Can statement @g of a loop let anything but the loop see its counters
 * or leave it other than by an edge: a statement that may throw, a call
 * that is not const, pure or internal nor the test oracle's
 * (-fplugin-arg-pap-trace: it only notes blocks), or a volatile asm. */
bool pap_loop_visible(function *fun, gimple *g)
{
	tree fn;
	int flags;

	if (stmt_could_throw_p(fun, g))
		return true;
	if (gasm *a = dyn_cast<gasm *>(g))
		return gimple_asm_volatile_p(a);
	if (!is_gimple_call(g) || gimple_call_internal_p(g))
		return false;
	fn = gimple_call_fndecl(g);
	if (fn && DECL_NAME(fn) &&
	    !strncmp(IDENTIFIER_POINTER(DECL_NAME(fn)), "__pap_trace_", 12))
		return false;
	flags = gimple_call_flags(g);
	return !(flags & (ECF_CONST | ECF_PURE)) ||
	       (flags & ECF_LOOPING_CONST_OR_PURE);
}

bool pap_loop_invariant(class loop *loop, tree t)
{
	return TREE_CODE(t) == INTEGER_CST ||
	       (TREE_CODE(t) == SSA_NAME &&
		(SSA_NAME_IS_DEFAULT_DEF(t) ||
		 !flow_bb_inside_loop_p(loop,
					gimple_bb(SSA_NAME_DEF_STMT(t)))));
}

/*
 * Is @value, at the tally of @loop, the same in every iteration but the
 * first: a constant or a value from outside the loop, or a + k for a
 * header PHI a whose argument from the latch is constant?  Then the
 * first iteration's value is *@base + *@k, with *@base a constant or a
 * value from before the loop, and the others' *@steady + *@k, *@steady
 * the constant from the latch or NULL_TREE when the value never changes.
 * Looks only.
 */
bool pap_loop_value_steady(class loop *loop, tree value, tree *base,
			   uint64_t *k, tree *steady)
{
	tree u64 = long_long_unsigned_type_node, t = value;
	edge pre = loop_preheader_edge(loop), latch = loop_latch_edge(loop);
	int steps;

	*k = 0;
	*steady = NULL_TREE;
	for (steps = 0; steps < 8; steps++) {
		gimple *def;
		gphi *phi;

		if (pap_loop_invariant(loop, t)) {
			*base = t;
			return true;
		}
		if (TREE_CODE(t) != SSA_NAME ||
		    !useless_type_conversion_p(u64, TREE_TYPE(t)))
			return false;
		def = SSA_NAME_DEF_STMT(t);
		if ((phi = dyn_cast<gphi *>(def)) &&
		    gimple_bb(phi) == loop->header) {
			/* the first iteration's a comes from the preheader */
			*steady = PHI_ARG_DEF_FROM_EDGE(phi, latch);
			*base = PHI_ARG_DEF_FROM_EDGE(phi, pre);
			return TREE_CODE(*steady) == INTEGER_CST &&
			       !pap_abnormal_p(*base);
		}
		if (!is_gimple_assign(def) ||
		    gimple_assign_rhs_code(def) != PLUS_EXPR ||
		    TREE_CODE(gimple_assign_rhs2(def)) != INTEGER_CST)
			return false;
		*k += tree_to_uhwi(gimple_assign_rhs2(def));
		t = gimple_assign_rhs1(def);
	}
	return false;
}

/*
 * The values pap_loop_value_steady() found, as trees every exit can see
 * (the path's value is defined inside the loop, perhaps after an exit):
 * *@first built on the preheader edge when it needs an addition.
 */
void pap_loop_steady_values(class loop *loop, tree base, uint64_t k,
			    tree steady, tree *first, tree *rest)
{
	tree u64 = long_long_unsigned_type_node;

	if (TREE_CODE(base) == INTEGER_CST) {
		*first = build_int_cstu(u64, tree_to_uhwi(base) + k);
	} else {
		*first = make_ssa_name(u64);
		gsi_insert_on_edge(loop_preheader_edge(loop),
				   gimple_build_assign(*first, PLUS_EXPR, base,
						       build_int_cstu(u64, k)));
	}
	*rest = steady ? build_int_cstu(u64, tree_to_uhwi(steady) + k) :
			 *first;
}

/* A loop to change: its one tally, its exits and the count each sees. */
struct pap_loop_count {
	class loop *loop;
	gcall *tally;
	auto_vec<edge> exits;
	auto_vec<bool> after;	/* exit leaves after the tally */
	tree base, steady_value;	/* pap_loop_value_steady() found */
	uint64_t k;
};

gcall *pap_loop_only_call(class loop *loop, tree id, unsigned nargs,
			  unsigned cst)
{
	basic_block *body = get_loop_body(loop);
	gcall *call = NULL;
	bool ok = loop->latch && !loop->inner;
	unsigned i;

	for (i = 0; ok && i < loop->num_nodes; i++) {
		gimple_stmt_iterator gsi;

		if (body[i]->flags & BB_IRREDUCIBLE_LOOP)
			ok = false;
		for (gsi = gsi_start_bb(body[i]); ok && !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *g = gsi_stmt(gsi);
			gcall *c = pap_runtime_call(g, id, nargs, cst);

			if (c && !call)
				call = c;
			else if (c || pap_loop_visible(cfun, g))
				ok = false;
		}
	}
	free(body);
	if (!ok || !call ||
	    !dominated_by_p(CDI_DOMINATORS, loop->latch, gimple_bb(call)))
		return NULL;
	return call;
}

/*
 * Is innermost @loop one whose count can wait in registers?  Fills @lc:
 * its only tally @tally_id call and its exits.  Dominators are current.
 */
static bool pap_loop_countable(class loop *loop, tree tally_id,
			       struct pap_loop_count *lc)
{
	gcall *tally = pap_loop_only_call(loop, tally_id, 5, 3);
	unsigned k;

	if (!tally ||
	    !is_gimple_min_invariant(gimple_call_arg(tally, 0)) ||
	    !is_gimple_min_invariant(gimple_call_arg(tally, 1)) ||
	    pap_abnormal_p(gimple_call_arg(tally, 2)))
		return false;
	lc->loop = loop;
	lc->tally = tally;
	if (!pap_loop_value_steady(loop, gimple_call_arg(tally, 2), &lc->base,
				   &lc->k, &lc->steady_value))
		return false;
	lc->exits = get_loop_exit_edges(loop);
	/* a loop that never leaves would never add its count */
	if (lc->exits.is_empty())
		return false;
	for (k = 0; k < lc->exits.length(); k++) {
		edge e = lc->exits[k];

		if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
			return false;
		lc->after.safe_push(dominated_by_p(CDI_DOMINATORS, e->src,
						   gimple_bb(tally)));
	}
	return true;
}

/* "__pap_tally_add(&counters, fn, @value, nvalues, bl, @n)" for @tally's
 * counters. */
static gcall *pap_tally_add_call(gcall *tally, tree value, tree n)
{
	return gimple_build_call(pap_rt_decl(PAP_RT_TALLY_ADD), 6,
				 gimple_call_arg(tally, 0),
				 gimple_call_arg(tally, 1), value,
				 gimple_call_arg(tally, 3),
				 gimple_call_arg(tally, 4), n);
}

/*
 * On exit @e: @n counts pending, the first of value @first and the rest
 * of @rest.  An index is 0 (always below nvalues) wherever it adds 0.
 */
static void pap_loop_flush(edge e, gcall *tally, tree n, tree first,
			   tree rest)
{
	tree u64 = long_long_unsigned_type_node;
	tree zero = build_int_cst(u64, 0), one = build_int_cst(u64, 1);
	tree some, more, f, fi, r, ri;
	gimple_seq seq = NULL;

	if (operand_equal_p(first, rest, 0)) {
		gsi_insert_on_edge(e, pap_tally_add_call(tally, first, n));
		return;
	}
	/* made only here: a name without a definition breaks later passes */
	some = make_ssa_name(boolean_type_node);
	more = make_ssa_name(boolean_type_node);
	f = make_ssa_name(u64);
	fi = make_ssa_name(u64);
	r = make_ssa_name(u64);
	ri = make_ssa_name(u64);
	gimple_seq_add_stmt(&seq, gimple_build_assign(some, NE_EXPR, n, zero));
	gimple_seq_add_stmt(&seq, gimple_build_assign(more, GT_EXPR, n, one));
	gimple_seq_add_stmt(&seq, gimple_build_assign(f, NOP_EXPR, some));
	gimple_seq_add_stmt(&seq, gimple_build_assign(fi, COND_EXPR, some,
						      first, zero));
	/* n - f is 0 unless n > 1 */
	gimple_seq_add_stmt(&seq, gimple_build_assign(r, MINUS_EXPR, n, f));
	gimple_seq_add_stmt(&seq, gimple_build_assign(ri, COND_EXPR, more,
						      rest, zero));
	gimple_seq_add_stmt(&seq, pap_tally_add_call(tally, fi, f));
	gimple_seq_add_stmt(&seq, pap_tally_add_call(tally, ri, r));
	gsi_insert_seq_on_edge(e, seq);
}

/* Makes @lc's loop count its iterations in a register (see above). */
static void pap_loop_count_apply(struct pap_loop_count *lc)
{
	class loop *loop = lc->loop;
	tree u64 = long_long_unsigned_type_node;
	tree n = make_ssa_name(u64), n2 = make_ssa_name(u64), first, rest;
	gphi *phi = create_phi_node(n, loop->header);
	gimple_stmt_iterator gsi = gsi_for_stmt(lc->tally);
	unsigned k;

	add_phi_arg(phi, build_int_cst(u64, 0), loop_preheader_edge(loop),
		    UNKNOWN_LOCATION);
	add_phi_arg(phi, n2, loop_latch_edge(loop), UNKNOWN_LOCATION);
	pap_loop_steady_values(loop, lc->base, lc->k, lc->steady_value, &first,
			       &rest);
	for (k = 0; k < lc->exits.length(); k++)
		pap_loop_flush(lc->exits[k], lc->tally,
			       lc->after[k] ? n2 : n, first, rest);
	unlink_stmt_vdef(lc->tally);
	gsi_replace(&gsi, gimple_build_assign(n2, PLUS_EXPR, n,
					      build_int_cst(u64, 1)), false);
}

unsigned int pap_loop_counts(function *fun)
{
	tree tally_id = pap_rt_id(PAP_RT_TALLY);
	tree fold_id = pap_rt_id(PAP_RT_FOLD);
	auto_vec<struct pap_loop_count *> todo;
	auto_vec<struct pap_loop_fold *> folds;
	bool tally = pap_tally_possible(), any = false;
	basic_block bb;
	unsigned i;

	/* a sanitizer's checks may end the process from inside a loop */
	if (!pap_opts.loop_register || fun->calls_setjmp ||
	    fun->has_nonlocal_label || flag_sanitize)
		return 0;
	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi;

		for (gsi = gsi_start_bb(bb); !any && !gsi_end_p(gsi);
		     gsi_next(&gsi))
			any = (tally && pap_runtime_call(gsi_stmt(gsi),
							 tally_id, 5, 3)) ||
			      pap_runtime_call(gsi_stmt(gsi), fold_id, 6, 2);
	}
	if (!any)
		return 0;
	loop_optimizer_init(LOOPS_NORMAL);
	calculate_dominance_info(CDI_DOMINATORS);
	for (auto loop : loops_list(fun, LI_ONLY_INNERMOST)) {
		struct pap_loop_fold *lf;

		if (tally) {
			struct pap_loop_count *lc = new pap_loop_count;

			if (pap_loop_countable(loop, tally_id, lc)) {
				todo.safe_push(lc);
				continue;
			}
			delete lc;
		}
		lf = pap_loop_fold_find(loop, fold_id);
		if (lf)
			folds.safe_push(lf);
	}
	/* decided with the dominators as they are; the changes add blocks */
	free_dominance_info(CDI_DOMINATORS);
	for (i = 0; i < todo.length(); i++) {
		pap_loop_count_apply(todo[i]);
		delete todo[i];
	}
	for (i = 0; i < folds.length(); i++)
		pap_loop_fold_apply(folds[i]);
	gsi_commit_edge_inserts();
	if (!todo.is_empty() || !folds.is_empty())
		loops_state_set(LOOPS_NEED_FIXUP);
	loop_optimizer_finalize(fun);
	if (todo.is_empty() && folds.is_empty())
		return 0;
	if (pap_opts.verbose && !todo.is_empty())
		inform(DECL_SOURCE_LOCATION(fun->decl),
		       "pap: %qs: %u loop counts kept in registers",
		       IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl)),
		       todo.length());
	if (pap_opts.verbose && !folds.is_empty())
		inform(DECL_SOURCE_LOCATION(fun->decl),
		       "pap: %qs: %u loops fold where they end",
		       IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl)),
		       folds.length());
	/* the new calls need virtual operands: the pass manager renames
	 * them (todo_flags_finish) */
	mark_virtual_operands_for_renaming(fun);
	return TODO_cleanup_cfg;
}
