/* SPDX-License-Identifier: MIT */
/*
 * instrument.cc - one function: GCC CFG -> core model -> plan -> GIMPLE.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "fnkey.h"
#include "meta.h"
#include "model.h"
#include "probes.h"
#include "rtabi.h"

/* Is @fun to be instrumented under the include/exclude options? */
static bool pap_selected(function *fun)
{
	const char *name = IDENTIFIER_POINTER(DECL_NAME(fun->decl));

	/* the attribute itself: the gimplifier sets the decl flag on every
	 * function once -finstrument-functions is done with it */
	if (lookup_attribute("no_instrument_function",
			     DECL_ATTRIBUTES(fun->decl)))
		return false;
	if (DECL_IN_SYSTEM_HEADER(fun->decl) && !pap_opts.system_headers)
		return false;
	if (pap_opts.have_include &&
	    regexec(&pap_opts.include, name, 0, NULL, 0))
		return false;
	if (pap_opts.have_exclude &&
	    !regexec(&pap_opts.exclude, name, 0, NULL, 0))
		return false;
	return true;
}

static tree pap_cst(uint64_t v)
{
	return build_int_cstu(pap_rt_u64(), v);
}

tree pap_u32_cst(uint32_t v)
{
	return build_int_cstu(pap_rt_u32(), v);
}

gimple *pap_trace_unwind_call(tree depth)
{
	return gimple_build_call(pap_rt_decl(PAP_RT_TRACE_UNWIND), 1, depth);
}

gimple *pap_lost_call(tree act)
{
	return gimple_build_call(pap_rt_decl(PAP_RT_LOST), 1, act);
}

gimple *pap_resume_call(tree frame_var)
{
	return gimple_build_call(pap_rt_decl(PAP_RT_RESUME), 1,
				 build_fold_addr_expr(frame_var));
}

/* em->tally_addr = &counters, the function's thread-local pointer. */
static void pap_tally_addr(gimple_seq *seq, const struct pap_emit *em)
{
	gimple_seq_add_stmt(seq, gimple_build_assign(em->tally_addr,
				build_fold_addr_expr(em->tally)));
}

/*
 * A call counting @value of @em's function in place (pap/abi.h): an EPP
 * id when @bl, else a complete path's final value.  The late pass
 * (fold.cc) makes it an inline increment with the call on the rare arm.
 */
static void pap_tally_call(gimple_seq *seq, const struct pap_emit *em,
			   tree value, int bl)
{
	pap_tally_addr(seq, em);
	gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_TALLY), 5,
		em->tally_addr, pap_key_arg(seq, em->key, em->key_slot), value, pap_cst(em->tally_n),
		build_int_cst(integer_type_node, bl)));
}

/*
 * The record of a function that may break, counted in place when no fold
 * of the activation called the runtime and r is small (fold.cc).
 */
static void pap_end_call(gimple_seq *seq, const struct pap_emit *em)
{
	pap_tally_addr(seq, em);
	gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_END), 5,
		em->tally_addr, pap_key_arg(seq, em->key, em->key_slot),
		em->act, em->r,
		pap_cst(em->tally_n)));
}

/*
 * The static thread-local counters pointer of the function being
 * instrumented, when it may count in place: its records without
 * breakpoints take at most @nvalues values, few enough.
 */
static tree pap_tally_var(uint64_t nvalues)
{
	tree var;

	if (!pap_opts.tally || !nvalues || nvalues > pap_opts.tally ||
	    !pap_tally_possible())
		return NULL_TREE;
	var = pap_static_var("pap_tally", build_pointer_type(pap_rt_u64()));
	TREE_ADDRESSABLE(var) = 1;
	set_decl_tls_model(var, decl_default_tls_model(var));
	varpool_node::finalize_decl(var);
	return var;
}

/* The operations of one edge as a GIMPLE sequence. */
static gimple_seq pap_ops_seq(const struct pap_plan *plan, uint32_t id,
			      const struct pap_emit *em, int complete)
{
	gimple_seq seq = NULL;
	uint32_t k;

	for (k = plan->op_off[id]; k < plan->op_off[id + 1]; k++) {
		const struct pap_op *op = &plan->ops[k];
		gimple *g;

		switch (op->kind) {
		case PAP_OP_INIT:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->r, pap_cst(op->n)));
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->a, pap_cst(op->k)));
			/* the activation number tells the runtime whose
			 * breakpoints are whose: EPP has none, and needs
			 * it only where a longjmp may cut an activation
			 * short (the shadows) */
			if ((plan->mode == PAP_MODE_EPP && !em->shadow) ||
			    em->lean)
				break;
			g = gimple_build_call(pap_rt_decl(PAP_RT_ENTER), 0);
			gimple_call_set_lhs(g, em->act);
			gimple_seq_add_stmt(&seq, g);
			break;
		case PAP_OP_ADD:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->a, PLUS_EXPR, em->a, pap_cst(op->k)));
			break;
		case PAP_OP_SET:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->a, pap_cst(op->k)));
			break;
		case PAP_OP_FOLD:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->d, PLUS_EXPR, em->a, pap_cst(op->k)));
			if (!op->may_overflow && pap_opts.inline_fold) {
				/* the plan proves r*n + d fits */
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					em->r, MULT_EXPR, em->r,
					pap_cst(op->n)));
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					em->r, PLUS_EXPR, em->r, em->d));
				break;
			}
			/* a lean function has no activation number; its
			 * folds (called under fold=call) never overflow */
			g = gimple_build_call(pap_rt_decl(PAP_RT_FOLD), 6,
				em->lean ? pap_cst(0) : em->act, em->r,
				pap_cst(op->n), em->d,
				build_int_cstu(pap_rt_u32(), op->site),
				pap_cst(em->restart));
			gimple_call_set_lhs(g, em->r);
			gimple_seq_add_stmt(&seq, g);
			break;
		case PAP_OP_COUNT:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->d, PLUS_EXPR, em->a, pap_cst(op->k)));
			if (em->tally)
				pap_tally_call(&seq, em, em->d, 1);
			else
				gimple_seq_add_stmt(&seq, gimple_build_call(
					pap_rt_decl(PAP_RT_COUNT), 2,
					pap_key_arg(&seq, em->key,
						    em->key_slot), em->d));
			break;
		case PAP_OP_RECORD:
			if (em->tally && complete) {
				if (em->lean)
					pap_tally_call(&seq, em, em->r, 0);
				else
					pap_end_call(&seq, em);
				break;
			}
			if (em->lean)
				g = gimple_build_call(pap_rt_decl(PAP_RT_PATH), 3,
					pap_key_arg(&seq, em->key,
						    em->key_slot), em->r, build_int_cst(integer_type_node,
							     complete));
			else
				g = gimple_build_call(pap_rt_decl(PAP_RT_RECORD), 4,
					pap_key_arg(&seq, em->key,
						    em->key_slot),
					em->act, em->r,
					build_int_cst(integer_type_node,
						      complete));
			gimple_seq_add_stmt(&seq, g);
			break;
		}
	}
	return seq;
}

/*
 * In a function with shadows, appends to @seq the stores that copy into
 * the volatile shadows what edge @id's operations changed: r by INIT and
 * FOLD, a by INIT, ADD and SET, the activation number by INIT (which
 * starts one with __pap_enter where there are shadows), the tracer's
 * token only on the ENTRY edge.  A shadow changes exactly where its
 * variable does, so at every call that may jump back it holds the value
 * its variable had there, without a store on every edge.
 */
static void pap_shadow_seq(const struct pap_plan *plan, uint32_t id,
			   const struct pap_emit *em, bool from_entry,
			   gimple_seq *seq)
{
	bool r = false, a = false, act = false;
	uint32_t k;

	for (k = plan->op_off[id]; k < plan->op_off[id + 1]; k++) {
		switch (plan->ops[k].kind) {
		case PAP_OP_INIT:
			r = a = act = true;
			break;
		case PAP_OP_FOLD:
			r = true;
			break;
		case PAP_OP_ADD:
		case PAP_OP_SET:
			a = true;
			break;
		default:
			break;
		}
	}
	if (r)
		gimple_seq_add_stmt(seq, gimple_build_assign(em->vr, em->r));
	if (a)
		gimple_seq_add_stmt(seq, gimple_build_assign(em->va, em->a));
	if (act)
		gimple_seq_add_stmt(seq, gimple_build_assign(em->vact,
							     em->act));
	if (from_entry && pap_opts.trace)
		gimple_seq_add_stmt(seq, gimple_build_assign(em->vtok,
							     em->tok));
}

/*
 * The oracle's calls for core edge @id: entering a block reports its GCC
 * number; the ENTRY edge opens an activation, an edge into EXIT (or a
 * FAKE edge, cut short) closes it.  No numbering is involved.
 */
static void pap_trace_seq(const struct pap_cfgtext *g, uint32_t id,
			  const struct pap_emit *em, gimple_seq *seq)
{
	const struct pap_edge *pe = &g->cfg->edges[id];

	if (pe->src == g->cfg->entry) {
		gimple *call = gimple_build_call(pap_rt_decl(PAP_RT_TRACE_BEGIN), 1,
			pap_key_arg(seq, em->key, em->key_slot));

		gimple_call_set_lhs(call, em->tok);
		gimple_seq_add_stmt(seq, call);
	}
	if (pe->dst == g->cfg->exit)
		gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_TRACE_END),
			1, build_int_cst(integer_type_node,
					 pe->kind != PAP_EDGE_FAKE)));
	else
		gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_TRACE_BLOCK),
			1, build_int_cstu(pap_rt_u32(), pe->dst + 1)));
}

gimple_seq pap_edge_seq(const struct pap_plan *plan,
			const struct pap_cfgtext *g, uint32_t id,
			const struct pap_emit *em)
{
	const struct pap_edge *pe = &g->cfg->edges[id];
	gimple_seq seq = pap_ops_seq(plan, id, em, pe->kind != PAP_EDGE_FAKE);

	if (pap_opts.trace)
		pap_trace_seq(g, id, em, &seq);
	if (em->shadow)
		pap_shadow_seq(plan, id, em, pe->src == g->cfg->entry, &seq);
	return seq;
}

bool pap_edge_has_code(const struct pap_plan *plan,
		       const struct pap_cfgtext *g, uint32_t id)
{
	const struct pap_edge *pe = &g->cfg->edges[id];

	return (pap_plan_nops(plan, id) || pap_opts.trace) &&
	       !(pe->flags & PAP_EF_DEAD) && !pap_cfg_is_resume(g->cfg, id) &&
	       !pap_cfg_is_cut(g->cfg, id);
}

/*
 * Can every edge's operations be placed?  Code cannot go on abnormal
 * edges, except into the labels of a computed goto or a landing pad; the
 * edges setjmp adds (resume, cut) are placed by nonlocal.cc.
 */
static bool pap_placeable(const struct pap_cfgtext *g,
			  const struct pap_plan *plan, edge *gcc_edge)
{
	uint32_t id;

	for (id = 0; id < g->cfg->nedges; id++) {
		const struct pap_edge *pe = &g->cfg->edges[id];
		edge e;

		if ((!pap_plan_nops(plan, id) && !pap_opts.trace) ||
		    pe->flags & PAP_EF_DEAD)
			continue;
		if (pe->kind == PAP_EDGE_FAKE || pap_cfg_is_resume(g->cfg, id))
			continue;
		e = gcc_edge[id];
		if (!e || (e->flags & (EDGE_ABNORMAL | EDGE_EH) &&
			   !pap_label_edge_p(e)))
			return false;
	}
	return true;
}

/* Places FAKE edge @id's operations before the block's final call (a
 * noreturn call) or at its end. */
static void pap_emit_fake(basic_block bb, gimple_seq seq)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);

	if (gsi_end_p(gsi)) {
		gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
		return;
	}
	if (is_gimple_call(gsi_stmt(gsi)) || stmt_ends_bb_p(gsi_stmt(gsi)))
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
	else
		gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
}

/*
 * The GCC edge on which each core edge's operations go: model edges in
 * order for the user edges, the entry edge, the edges into EXIT; NULL for
 * FAKE edges, whose operations go before the block's final call.
 */
static edge *pap_edge_table(function *fun, const struct pap_model *m,
			    const struct pap_cfgtext *g)
{
	edge *t = XCNEWVEC(edge, g->cfg->nedges + 1);
	uint32_t id = 0, k;
	int j;

	for (j = 0; j < m->nedges; j++)
		if (m->edges[j].dst >= 0)
			t[id++] = m->edges[j].e;
	for (; id < g->cfg->nedges; id++) {
		const struct pap_edge *pe = &g->cfg->edges[id];

		if (pe->src == g->cfg->entry) {
			if (!pap_cfg_is_resume(g->cfg, id))
				t[id] = single_succ_edge(
					ENTRY_BLOCK_PTR_FOR_FN(fun));
			continue;
		}
		if (pe->kind == PAP_EDGE_FAKE)
			continue;
		for (k = 0; k < (uint32_t)m->nedges; k++)
			if (m->edges[k].dst == -2 &&
			    m->number[m->edges[k].src] == (int)pe->src + 1)
				t[id] = m->edges[k].e;
	}
	return t;
}

/*
 * Sets pass-local flag 1 on every statement @fun has now: they are the
 * user's.  Statements made later start without it; a copy of one of
 * these (gimple_copy) keeps it.
 */
static void pap_mark_user_stmts(function *fun)
{
	gimple_stmt_iterator gsi;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			gimple_set_plf(gsi_stmt(gsi), GF_PLF_1, true);
}

/*
 * Marks every statement of @fun that pap_mark_user_stmts() did not see,
 * the probes pap made, so that -Wdangling-pointer steps over them.  It
 * looks for stores of a local's address into memory that outlives the
 * function by walking back from the exit, and stops at the first
 * statement that could use an escaped local or that stores through
 * anything it cannot see, which in GCC 12 includes every assignment to
 * an SSA name: a probe between the store and the return (the path's
 * record is there) hid the store from it.  Probes read and write no
 * local of the user's, so stepping over them is exact.  The mark is
 * GCC's own (suppress_warning()), for -Wdangling-pointer and the warnings
 * GCC groups with it, and only on statements pap made.
 */
static void pap_quiet_probes(function *fun)
{
	gimple_stmt_iterator gsi;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun)
		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
			if (!gimple_plf(gsi_stmt(gsi), GF_PLF_1))
				suppress_warning(gsi_stmt(gsi),
						 OPT_Wdangling_pointer_);
}

unsigned int pap_instrument_function(function *fun)
{
	struct pap_text graph = { NULL, 0, 0 };
	struct pap_text lines = { NULL, 0, 0 };
	struct pap_model m;
	struct pap_cfgtext g;
	struct pap_plan *plan = NULL;
	struct pap_emit em;
	basic_block bb, *tails = NULL;
	edge *gcc_edge = NULL;
	gimple_seq *label_seq = NULL;
	unsigned char *placed = NULL;
	auto_vec<edge> moved;
	const char *asmname, *file, *why = NULL;
	char err[256], key[PAP_FNKEY_MAX];
	uint64_t checksum;
	uint32_t id;
	int r, have_graph = 0;

	if (!pap_selected(fun) || n_basic_blocks_for_fn(fun) <= 2)
		return 0;
	asmname = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
	file = DECL_SOURCE_FILE(fun->decl);
	pap_model_build(fun, &m);
	if (!pap_nonlocal_supported(fun, &m, &why)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl),
			       "pap: %qs not instrumented: %s", asmname, why);
		pap_model_free(&m);
		return 0;
	}
	pap_model_graph_text(fun, &m, &graph);
	pap_model_lines_text(fun, &m, &lines);
	checksum = pap_fnv1a(graph.s, graph.len);
	r = pap_cfgtext_parse(graph.s, asmname, &g, err, sizeof(err));
	if (r) {
		warning(0, "pap: %s: cannot model the CFG: %s", asmname, err);
		goto out;
	}
	have_graph = 1;
	r = pap_plan_build(g.cfg, pap_opts.mode, NULL, &plan);
	if (r) {
		warning(0, "pap: %s: cannot plan: %s", asmname,
			pap_strerror(r));
		goto out;
	}
	/* core node k is the model node numbered k + 1 */
	tails = XCNEWVEC(basic_block, g.nblocks);
	FOR_EACH_BB_FN(bb, fun)
		if (pap_model_is_node(&m, bb))
			tails[m.number[bb->index] - 1] = m.tail[bb->index];
	gcc_edge = pap_edge_table(fun, &m, &g);
	if (!pap_placeable(&g, plan, gcc_edge)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl),
			       "pap: %qs not instrumented: probes would sit on "
			       "abnormal edges", asmname);
		goto out;
	}
	pap_mark_user_stmts(fun);
	pap_fnkey_format(key, sizeof(key), asmname, checksum, pap_meta_path());
	em.r = create_tmp_var(pap_rt_u64(), "pap_r");
	em.a = create_tmp_var(pap_rt_u64(), "pap_a");
	em.d = create_tmp_var(pap_rt_u64(), "pap_d");
	em.act = create_tmp_var(pap_rt_u64(), "pap_act");
	em.key = build_string_literal(strlen(key) + 1, key);
	em.key_slot = pap_key_slot(em.key);
	em.tok = create_tmp_var(pap_rt_u64(), "pap_tok");
	em.restart = plan->restart;
	em.shadow = false;
	for (id = 0; id < g.cfg->nblocks; id++)
		if (g.cfg->role[id] & PAP_ROLE_RESUME)
			em.shadow = true;
	if (em.shadow)
		pap_nonlocal_shadows(&em);
	em.lean = !em.shadow && !pap_plan_may_break(plan);
	em.tally = NULL_TREE;
	em.tally_n = plan->record_values;
	if (plan->mode == PAP_MODE_EPP || em.lean) {
		em.tally = pap_tally_var(em.tally_n);
	} else if (!em.shadow && pap_opts.inline_fold) {
		/* r is not bounded: the late pass tests r < tally_n */
		em.tally_n = MIN(pap_opts.tally, PAP_TALLY_UNBOUNDED);
		em.tally = pap_tally_var(em.tally_n);
	}
	em.tally_addr = em.tally ? create_tmp_var(ptr_type_node, "pap_tp") :
				   NULL_TREE;
	label_seq = XCNEWVEC(gimple_seq, g.cfg->nedges);
	placed = XCNEWVEC(unsigned char, g.cfg->nedges);
	pap_tail_place(fun, plan, &g, gcc_edge, &em, placed, &moved);
	for (id = 0; id < g.cfg->nedges; id++) {
		const struct pap_edge *pe = &g.cfg->edges[id];
		gimple_seq seq;

		if (placed[id] || !pap_edge_has_code(plan, &g, id))
			continue;
		/* a FAKE edge out of a block that goes on (in an infinite
		 * loop) is never taken: only a dead end's is, at its
		 * noreturn call */
		if (pe->kind == PAP_EDGE_FAKE &&
		    pap_cfg_fanout(g.cfg, pe->src) != 1)
			continue;
		seq = pap_edge_seq(plan, &g, id, &em);
		if (pe->kind == PAP_EDGE_FAKE)
			pap_emit_fake(tails[pe->src], seq);
		else if (gcc_edge[id]->flags & (EDGE_ABNORMAL | EDGE_EH))
			label_seq[id] = seq;	/* after the commit */
		else
			gsi_insert_seq_on_edge(gcc_edge[id], seq);
	}
	gsi_commit_edge_inserts();
	pap_tail_finish(fun, &moved);
	for (id = 0; id < g.cfg->nedges; id++)
		if (label_seq[id])
			pap_emit_on_label_edge(gcc_edge[id], label_seq[id],
					       &em);
	if (em.shadow)
		pap_nonlocal_emit(fun, &m, plan, &g, &em);
	pap_quiet_probes(fun);
	/* the edges split and the blocks made have no place in dominator
	 * trees an earlier pass may have left */
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	/* probes are side effects: the function is no longer pure or const */
	DECL_PURE_P(fun->decl) = 0;
	TREE_READONLY(fun->decl) = 0;
	DECL_LOOPING_CONST_OR_PURE_P(fun->decl) = 0;

	pap_meta_add_fn(asmname, file, plan->mode, graph.s, lines.s,
			checksum);
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: %s", asmname,
		       plan->note);
out:
	XDELETEVEC(label_seq);
	XDELETEVEC(placed);
	XDELETEVEC(tails);
	XDELETEVEC(gcc_edge);
	pap_plan_free(plan);
	if (have_graph)
		pap_cfgtext_free(&g);
	pap_model_free(&m);
	pap_text_free(&graph);
	pap_text_free(&lines);
	return 0;
}
