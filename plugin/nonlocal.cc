/* SPDX-License-Identifier: MIT */
/*
 * nonlocal.cc - probes where control does not follow ordinary edges:
 * setjmp receivers, calls that may longjmp, labels that a nested
 * function's goto reaches, labels of computed gotos, landing pads.
 *
 * A longjmp back into an activation leaves it in the middle of a call and
 * resumes it after a setjmp; a nonlocal goto from a nested function
 * resumes it at a nonlocal label.  The model (model.h) calls the block of
 * that call a CUT node and the setjmp block (or the label's block) a
 * RESUME node; the path so far ends at the cut, incomplete, and a new
 * path starts at the receiver.  At run time:
 *  - before each call that may jump back, the volatile local `at` notes
 *    the call's node (PAP_AT_RECORDED before a noreturn call, whose FAKE
 *    edge has recorded the path already; PAP_AT_SETJMP before setjmp
 *    itself), and when the call returns, PAP_AT_BETWEEN: a longjmp that
 *    comes back then (from a signal handler) finds the path's state
 *    unknown, and the path is counted as lost, never recorded wrongly;
 *  - an edge whose operations change r, a or act ends by storing what
 *    it changed into volatile copies, which so hold the path's state at
 *    the call that jumped;
 *  - after the setjmp call, when `at` says a longjmp came back, or at the
 *    start of the nonlocal label's block, which only the goto reaches,
 *    inserted code reloads that state, performs the cut edge of the node
 *    `at` names, which records the path, and the resume edge of the
 *    receiver, which starts the new one.
 * Activations of other functions that the jump abandoned are not
 * recorded: they never end and no state of theirs survives.
 *
 * Exceptions need none of this.  A caught exception, or a cleanup that
 * runs while one passes, goes on from a landing pad along an EH edge, and
 * locals survive EH edges as they do ordinary ones: the path simply goes
 * on through the edge.  GCC allows no code on an EH edge, so each one gets
 * a landing pad of its own (redirect_eh_edge: the throwing statement
 * moves to a new pad of the same EH region) holding the edge's
 * operations, which falls through to the shared pad.  A cleanup that lets
 * the exception go on ends in resx, a dead end whose FAKE edge records
 * the path, incomplete.
 */
#include "gcc-common.h"
#include "probes.h"

/* The one ordinary edge on which a setjmp block goes on, or NULL. */
static edge pap_setjmp_exit(basic_block bb)
{
	edge e, out = NULL;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, bb->succs) {
		if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
			continue;
		if (out)
			return NULL;
		out = e;
	}
	return out;
}

/* Is every way into @bb abnormal (so code at its start runs only when a
 * nonlocal goto lands there)? */
static bool pap_only_abnormal_preds(basic_block bb)
{
	edge e;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, bb->preds)
		if (!(e->flags & EDGE_ABNORMAL))
			return false;
	return true;
}

bool pap_nonlocal_supported(function *fun, const struct pap_model *m,
			    const char **why)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun) {
		gimple *call;
		tree fn;

		if (!(pap_model_role(m, bb) & PAP_BB_RESUME))
			continue;
		if (pap_nonlocal_label_p(bb)) {
			if (!pap_only_abnormal_preds(bb) ||
			    !pap_model_is_node(m, bb)) {
				*why = "control reaches a nonlocal label other "
				       "than by a nonlocal goto";
				return false;
			}
			continue;
		}
		call = pap_returns_twice(gsi_start_nondebug_after_labels_bb(bb));
		fn = call ? gimple_call_fndecl(call) : NULL_TREE;
		if (fn && DECL_NAME(fn) &&
		    strstr(IDENTIFIER_POINTER(DECL_NAME(fn)), "vfork")) {
			*why = "it calls vfork, whose child would write into "
			       "its frame";
			return false;
		}
		if (!call || !pap_setjmp_exit(bb) ||
		    !pap_model_is_node(m, bb)) {
			*why = "control comes back into it other than after "
			       "a setjmp call or at a nonlocal label";
			return false;
		}
	}
	return true;
}

static tree pap_volatile_var(tree type, const char *name)
{
	tree v = create_tmp_var(build_qualified_type(type, TYPE_QUAL_VOLATILE),
				name);

	TREE_THIS_VOLATILE(v) = 1;
	TREE_SIDE_EFFECTS(v) = 1;
	return v;
}

void pap_nonlocal_shadows(struct pap_emit *emit)
{
	emit->shadow_r = pap_volatile_var(TREE_TYPE(emit->r), "pap_vr");
	emit->shadow_a = pap_volatile_var(TREE_TYPE(emit->a), "pap_va");
	emit->shadow_activation = pap_volatile_var(TREE_TYPE(emit->activation),
						   "pap_vact");
	emit->shadow_trace_depth =
		pap_volatile_var(TREE_TYPE(emit->trace_depth), "pap_vtok");
	emit->at = pap_volatile_var(unsigned_type_node, "pap_at");
	TREE_ADDRESSABLE(emit->at) = 1;	/* marks the frame for the runtime */
}

/* A new block after @after, in its loop, holding @seq. */
static basic_block pap_new_block(basic_block after, gimple_seq seq)
{
	basic_block bb = create_empty_bb(after);
	gimple_stmt_iterator gsi = gsi_start_bb(bb);

	add_bb_to_loop(bb, after->loop_father);
	if (seq)
		gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
	return bb;
}

/* Ends @bb with "if (@t == @v)" and its two edges. */
static void pap_branch(basic_block bb, tree t, uint32_t v, basic_block yes,
		       basic_block no, profile_probability p_yes)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);
	edge e;

	gsi_insert_after(&gsi, gimple_build_cond(EQ_EXPR, t, pap_u32_cst(v),
						 NULL_TREE, NULL_TREE),
			 GSI_NEW_STMT);
	e = make_edge(bb, yes, EDGE_TRUE_VALUE);
	e->probability = p_yes;
	e = make_edge(bb, no, EDGE_FALSE_VALUE);
	e->probability = p_yes.invert();
}

/* Notes in emit->at which node's call is about to run. */
static void pap_note_calls(function *fun, const struct pap_model *m,
			   const struct pap_emit *emit)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun) {
		unsigned char role = pap_model_role(m, bb);
		gimple_stmt_iterator gsi;
		uint32_t v;

		if (!(role & (PAP_BB_CUT | PAP_BB_NORETURN_JMP)))
			continue;
		v = role & PAP_BB_CUT ? (uint32_t)m->number[m->head[bb->index]] :
					PAP_AT_RECORDED;
		gsi = gsi_last_nondebug_bb(bb);
		gsi_insert_before(&gsi, gimple_build_assign(emit->at,
							    pap_u32_cst(v)),
				  GSI_SAME_STMT);
	}
}

/* Counts the path as lost when no call was running: its state is not
 * known (a longjmp from a signal handler); the tracer forgets it too. */
static gimple_seq pap_lost_seq(const struct pap_emit *emit)
{
	gimple_seq seq = NULL;

	gimple_seq_add_stmt(&seq, pap_lost_call(emit->activation));
	if (pap_opts.trace) {
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			emit->d, MINUS_EXPR, emit->trace_depth,
			build_int_cstu(TREE_TYPE(emit->trace_depth), 1)));
		gimple_seq_add_stmt(&seq, pap_trace_unwind_call(emit->d));
	}
	return seq;
}

/* The id of the resume edge into core node @node. */
static uint32_t pap_resume_edge(const struct pap_cfg *cfg, uint32_t node)
{
	uint32_t id;

	for (id = 0; id < cfg->nedges; id++)
		if (pap_cfg_is_resume(cfg, id) && cfg->edges[id].dst == node)
			break;
	gcc_assert(id < cfg->nedges);
	return id;
}

/*
 * Control just came back (longjmp, nonlocal goto) into block @load, where
 * t holds what `at` said.  Adds to @load:
 *	reload r, a, act (and the tracer's depth);
 *	if (t == X1) cut edge of X1; else if (t == X2) ...
 *	else if (t != RECORDED) lost;
 *	resume edge of @node;
 * and then on to @next.
 */
static void pap_resume_from(basic_block load, tree t, basic_block next,
			    uint32_t node, const struct pap_plan *plan,
			    const struct pap_cfgtext *g,
			    const struct pap_emit *emit)
{
	const struct pap_cfg *cfg = g->cfg;
	basic_block resume, lost;
	gimple_seq seq = NULL;
	gimple_stmt_iterator gsi;
	uint32_t id;

	resume = pap_new_block(load, pap_edge_seq(plan, g,
					pap_resume_edge(cfg, node), emit));
	make_single_succ_edge(resume, next, EDGE_FALLTHRU);
	gimple_seq_add_stmt(&seq, pap_resume_call(emit->at));
	gimple_seq_add_stmt(&seq, gimple_build_assign(emit->r, emit->shadow_r));
	gimple_seq_add_stmt(&seq, gimple_build_assign(emit->a, emit->shadow_a));
	gimple_seq_add_stmt(&seq, gimple_build_assign(emit->activation,
						      emit->shadow_activation));
	if (pap_opts.trace) {
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			emit->trace_depth, emit->shadow_trace_depth));
		gimple_seq_add_stmt(&seq,
				    pap_trace_unwind_call(emit->trace_depth));
	}
	gsi = gsi_last_bb(load);
	gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
	for (id = 0; id < cfg->nedges; id++) {
		const struct pap_edge *pe = &cfg->edges[id];
		basic_block cut, other;

		if (!pap_cfg_is_cut(cfg, id) || pe->flags & PAP_EF_DEAD)
			continue;
		cut = pap_new_block(load, pap_edge_seq(plan, g, id, emit));
		make_single_succ_edge(cut, resume, EDGE_FALLTHRU);
		other = pap_new_block(cut, NULL);
		/* model numbers are core node numbers + 1 */
		pap_branch(load, t, pe->src + 1, cut, other,
			   profile_probability::even());
		load = other;
	}
	lost = pap_new_block(load, pap_lost_seq(emit));
	make_single_succ_edge(lost, resume, EDGE_FALLTHRU);
	pap_branch(load, t, PAP_AT_RECORDED, resume, lost,
		   profile_probability::likely());
}

/* t = at; at = BETWEEN; */
static gimple_seq pap_take_at(tree t, const struct pap_emit *emit)
{
	gimple_seq seq = NULL;

	gimple_seq_add_stmt(&seq, gimple_build_assign(t, emit->at));
	gimple_seq_add_stmt(&seq, gimple_build_assign(emit->at,
		pap_u32_cst(PAP_AT_BETWEEN)));
	return seq;
}

/*
 * After setjmp receiver @bb (core node @node):
 *   t = at; at = BETWEEN;
 *   if (t != SETJMP)		a longjmp came back
 *	pap_resume_from();
 * then on as after the first return.
 */
static void pap_resume_after(basic_block bb, uint32_t node,
			     const struct pap_plan *plan,
			     const struct pap_cfgtext *g,
			     const struct pap_emit *emit)
{
	basic_block test, load, next;
	gimple_stmt_iterator gsi;
	edge cont;
	tree t = create_tmp_var(unsigned_type_node, "pap_t");

	test = split_edge(pap_setjmp_exit(bb));
	cont = single_succ_edge(test);
	next = cont->dest;
	gsi = gsi_last_bb(test);
	gsi_insert_seq_after(&gsi, pap_take_at(t, emit), GSI_NEW_STMT);
	remove_edge(cont);
	load = pap_new_block(test, NULL);
	pap_branch(test, t, PAP_AT_SETJMP, next, load,
		   profile_probability::very_likely());
	pap_resume_from(load, t, next, node, plan, g, emit);
}

/*
 * At nonlocal label @bb (core node @node), which only a nested function's
 * goto reaches: t = at; at = BETWEEN; pap_resume_from(); then on.
 */
static void pap_resume_at_label(basic_block bb, uint32_t node,
				const struct pap_plan *plan,
				const struct pap_cfgtext *g,
				const struct pap_emit *emit)
{
	tree t = create_tmp_var(unsigned_type_node, "pap_t");
	edge cont = split_block_after_labels(bb);
	basic_block next = cont->dest;
	gimple_stmt_iterator gsi = gsi_last_bb(bb);

	remove_edge(cont);
	gsi_insert_seq_after(&gsi, pap_take_at(t, emit), GSI_NEW_STMT);
	pap_resume_from(bb, t, next, node, plan, g, emit);
}

/* After a cut block's call returns, no call is running any more: noted
 * before the out-edge's operations change the path registers. */
static void pap_note_return(basic_block bb, const struct pap_emit *emit)
{
	edge e = pap_setjmp_exit(bb);
	gimple_stmt_iterator gsi;
	basic_block dest;

	if (!e)
		return;
	dest = e->dest;
	if (!single_pred_p(dest) || dest == EXIT_BLOCK_PTR_FOR_FN(cfun))
		dest = split_edge(e);
	gsi = gsi_after_labels(dest);
	gsi_insert_before(&gsi, gimple_build_assign(emit->at,
		pap_u32_cst(PAP_AT_BETWEEN)), GSI_SAME_STMT);
}

/* An exception that lands in @bb ended the call that was running: noted
 * as a return is. */
static void pap_note_landing(basic_block bb, const struct pap_emit *emit)
{
	gimple_stmt_iterator gsi;
	edge e;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, bb->preds)
		if (e->flags & EDGE_EH)
			break;
	if (!e)
		return;
	gsi = gsi_after_labels(bb);
	gsi_insert_before(&gsi, gimple_build_assign(emit->at,
		pap_u32_cst(PAP_AT_BETWEEN)), GSI_SAME_STMT);
}

void pap_nonlocal_emit(function *fun, const struct pap_model *m,
		       const struct pap_plan *plan,
		       const struct pap_cfgtext *g, const struct pap_emit *emit)
{
	basic_block bb;
	edge e;
	edge_iterator ei;
	auto_vec<basic_block> receivers, cuts;
	unsigned i;

	pap_note_calls(fun, m, emit);
	FOR_EACH_BB_FN(bb, fun) {
		if (pap_model_role(m, bb) & PAP_BB_RESUME)
			receivers.safe_push(bb);
		if (pap_model_role(m, bb) & PAP_BB_CUT)
			cuts.safe_push(bb);
	}
	FOR_EACH_VEC_ELT(cuts, i, bb)
		pap_note_return(bb, emit);
	FOR_EACH_BB_FN(bb, fun)
		pap_note_landing(bb, emit);
	FOR_EACH_VEC_ELT(receivers, i, bb) {
		auto_vec<edge> into;

		if (pap_nonlocal_label_p(bb)) {
			pap_resume_at_label(bb,
					    (uint32_t)m->number[bb->index] - 1,
					    plan, g, emit);
			continue;
		}

		/* before setjmp runs (GCC wants it first in its block) */
		FOR_EACH_EDGE(e, ei, bb->preds)
			if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH)))
				into.safe_push(e);
		for (unsigned j = 0; j < into.length(); j++)
			gsi_insert_on_edge_immediate(into[j],
				gimple_build_assign(emit->at,
					pap_u32_cst(PAP_AT_SETJMP)));
		pap_resume_after(bb, (uint32_t)m->number[bb->index] - 1, plan,
				 g, emit);
	}
	loops_state_set(LOOPS_NEED_FIXUP);
}

bool pap_label_edge_p(edge e)
{
	gimple *last = last_stmt(e->src);
	gimple_stmt_iterator gsi;

	if (e->flags & EDGE_EH)
		return last && lookup_stmt_eh_lp(last) > 0;
	if (!(e->flags & EDGE_ABNORMAL) || !last || !computed_goto_p(last))
		return false;
	for (gsi = gsi_start_bb(e->dest); !gsi_end_p(gsi); gsi_next(&gsi)) {
		glabel *l = dyn_cast<glabel *>(gsi_stmt(gsi));

		if (!l)
			break;
		if (FORCED_LABEL(gimple_label_label(l)))
			return true;
	}
	return false;
}

/*
 * Gives each exception edge into @lp a landing pad of its own: a new
 * block in the same EH region that falls through to @lp, which becomes
 * an ordinary block.  The throwing statement moves to the new pad.
 */
static void pap_split_landing_pad(basic_block lp)
{
	auto_vec<edge> into;
	edge e;
	edge_iterator ei;
	unsigned i;

	FOR_EACH_EDGE(e, ei, lp->preds)
		if (e->flags & EDGE_EH)
			into.safe_push(e);
	FOR_EACH_VEC_ELT(into, i, e) {
		basic_block pad = create_empty_bb(lp->prev_bb);

		add_bb_to_loop(pad, find_common_loop(e->src->loop_father,
						     lp->loop_father));
		pad->count = e->count();
		redirect_eh_edge(e, pad);
		make_single_succ_edge(pad, lp, EDGE_FALLTHRU);
	}
	loops_state_set(LOOPS_NEED_FIXUP);
}

/*
 * An exception edge's operations run in its own landing pad, after the
 * trace oracle forgets the activations the exception left (they never
 * end).  Locals, the path registers among them, reach a landing pad
 * intact: no copies are needed, unlike after a longjmp.
 */
static void pap_emit_on_eh_edge(edge e, gimple_seq seq,
				const struct pap_emit *emit)
{
	gimple_stmt_iterator gsi;

	if (!single_pred_p(e->dest))
		pap_split_landing_pad(e->dest);
	if (pap_opts.trace) {
		gimple_seq unwind = NULL;

		gimple_seq_add_stmt(&unwind,
				    pap_trace_unwind_call(emit->trace_depth));
		gimple_seq_add_seq(&unwind, seq);
		seq = unwind;
	}
	gsi = gsi_after_labels(e->dest);
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
}

/*
 * The goto lands where its label is: the labels whose address is taken
 * move into a new block holding @seq, which falls through to where they
 * were, and the computed goto's edge leads there.
 */
void pap_emit_on_label_edge(edge e, gimple_seq seq, const struct pap_emit *emit)
{
	basic_block dest = e->dest;
	basic_block a;
	gimple_stmt_iterator from, to;

	if (e->flags & EDGE_EH) {
		pap_emit_on_eh_edge(e, seq, emit);
		return;
	}
	a = create_empty_bb(dest->prev_bb);
	from = gsi_start_bb(dest);
	to = gsi_start_bb(a);
	add_bb_to_loop(a, find_common_loop(e->src->loop_father,
					   dest->loop_father));
	while (!gsi_end_p(from)) {
		glabel *l = dyn_cast<glabel *>(gsi_stmt(from));

		if (!l)
			break;
		if (!FORCED_LABEL(gimple_label_label(l))) {
			gsi_next(&from);
			continue;
		}
		gsi_remove(&from, false);
		gsi_insert_after(&to, l, GSI_NEW_STMT);
	}
	gsi_insert_seq_after(&to, seq, GSI_NEW_STMT);
	redirect_edge_succ(e, a);
	make_single_succ_edge(a, dest, EDGE_FALLTHRU);
	loops_state_set(LOOPS_NEED_FIXUP);
}
