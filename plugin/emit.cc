/* SPDX-License-Identifier: MIT */
/*
 * emit.cc - what code goes on an edge: a plan's operations on one core
 * edge (probes.h, pap_edge_seq()) as GIMPLE, with the tracer's calls and
 * the stores into the shadows of a function that a jump may come back
 * into.  Where each sequence goes, and in what order a function is
 * instrumented, is instrument.cc's.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "model.h"
#include "probes.h"
#include "rtabi.h"

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

static tree pap_int_cst(int v)
{
	return build_int_cst(integer_type_node, v);
}

/* What a call appended to @seq passes as the key (pap_key_arg()). */
static tree pap_key(gimple_seq *seq, const struct pap_emit *emit)
{
	return pap_key_arg(seq, emit->key, emit->key_slot);
}

/* Appends tally_counters_addr = &tally_counters, the address of the
 * function's thread-local counters pointer. */
static void pap_tally_addr(gimple_seq *seq, const struct pap_emit *emit)
{
	gimple_seq_add_stmt(seq, gimple_build_assign(emit->tally_counters_addr,
				build_fold_addr_expr(emit->tally_counters)));
}

/*
 * A call counting @value of @emit's function in place (pap/abi.h): an EPP
 * id when @bl, else a complete path's final value.  The late pass
 * (fold.cc) makes it an inline increment with the call on the rare arm.
 */
static void pap_tally_call(gimple_seq *seq, const struct pap_emit *emit,
			   tree value, int bl)
{
	tree key;

	pap_tally_addr(seq, emit);
	key = pap_key(seq, emit);
	gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_TALLY), 5,
		emit->tally_counters_addr, key, value,
		pap_cst(emit->tally_nvalues), pap_int_cst(bl)));
}

/*
 * The record of a function that may break, counted in place when no fold
 * of the activation called the runtime and r is small (fold.cc).
 */
static void pap_end_call(gimple_seq *seq, const struct pap_emit *emit)
{
	tree key;

	pap_tally_addr(seq, emit);
	key = pap_key(seq, emit);
	gimple_seq_add_stmt(seq, gimple_build_call(pap_rt_decl(PAP_RT_END), 5,
		emit->tally_counters_addr, key, emit->activation, emit->r,
		pap_cst(emit->tally_nvalues)));
}

/*
 * The record of a path: counted in place when it is @complete and the
 * function counts in place, else a call of __pap_path (no activation
 * number) or __pap_record.
 */
static void pap_record_seq(gimple_seq *seq, const struct pap_emit *emit,
			   int complete)
{
	tree key;

	if (emit->tally_counters && complete) {
		if (emit->no_activation)
			pap_tally_call(seq, emit, emit->r, 0);
		else
			pap_end_call(seq, emit);
		return;
	}
	key = pap_key(seq, emit);
	if (emit->no_activation)
		gimple_seq_add_stmt(seq, gimple_build_call(
			pap_rt_decl(PAP_RT_PATH), 3, key, emit->r,
			pap_int_cst(complete)));
	else
		gimple_seq_add_stmt(seq, gimple_build_call(
			pap_rt_decl(PAP_RT_RECORD), 4, key, emit->activation,
			emit->r, pap_int_cst(complete)));
}

/*
 * The operations of core edge @id as a GIMPLE sequence, in the plan's
 * order; a RECORD on a FAKE edge (a path cut short) records it
 * incomplete.
 */
static gimple_seq pap_ops_seq(const struct pap_plan *plan, uint32_t id,
			      const struct pap_emit *emit, int complete)
{
	gimple_seq seq = NULL;
	tree key, act;
	uint32_t k;

	for (k = plan->op_off[id]; k < plan->op_off[id + 1]; k++) {
		const struct pap_op *op = &plan->ops[k];
		gimple *g;

		switch (op->kind) {
		case PAP_OP_INIT:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->r, pap_cst(op->n)));
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->a, pap_cst(op->k)));
			/* the activation number tells the runtime whose
			 * breakpoints are whose: EPP has none, and needs
			 * it only where a longjmp may cut an activation
			 * short (the shadows) */
			if ((plan->mode == PAP_MODE_EPP &&
			     !emit->has_shadows) || emit->no_activation)
				break;
			g = gimple_build_call(pap_rt_decl(PAP_RT_ENTER), 0);
			gimple_call_set_lhs(g, emit->activation);
			gimple_seq_add_stmt(&seq, g);
			break;
		case PAP_OP_ADD:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->a, PLUS_EXPR, emit->a, pap_cst(op->k)));
			break;
		case PAP_OP_SET:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->a, pap_cst(op->k)));
			break;
		case PAP_OP_FOLD:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->d, PLUS_EXPR, emit->a, pap_cst(op->k)));
			if (!op->may_overflow && pap_opts.inline_fold) {
				/* the plan proves r*n + d fits */
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					emit->r, MULT_EXPR, emit->r,
					pap_cst(op->n)));
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					emit->r, PLUS_EXPR, emit->r, emit->d));
				break;
			}
			/* without an activation number the folds (called
			 * under fold=call) never overflow: 0 stands in */
			act = emit->no_activation ? pap_cst(0) :
						    emit->activation;
			g = gimple_build_call(pap_rt_decl(PAP_RT_FOLD), 6, act,
				emit->r, pap_cst(op->n), emit->d,
				pap_u32_cst(op->site), pap_cst(emit->restart));
			gimple_call_set_lhs(g, emit->r);
			gimple_seq_add_stmt(&seq, g);
			break;
		case PAP_OP_COUNT:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				emit->d, PLUS_EXPR, emit->a, pap_cst(op->k)));
			if (emit->tally_counters) {
				pap_tally_call(&seq, emit, emit->d, 1);
				break;
			}
			key = pap_key(&seq, emit);
			gimple_seq_add_stmt(&seq, gimple_build_call(
				pap_rt_decl(PAP_RT_COUNT), 2, key, emit->d));
			break;
		case PAP_OP_RECORD:
			pap_record_seq(&seq, emit, complete);
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
 * depth only on the ENTRY edge.  A shadow changes exactly where its
 * variable does, so at every call that may jump back it holds the value
 * its variable had there, without a store on every edge.
 */
static void pap_shadow_seq(const struct pap_plan *plan, uint32_t id,
			   const struct pap_emit *emit, bool from_entry,
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
		gimple_seq_add_stmt(seq, gimple_build_assign(emit->shadow_r,
							     emit->r));
	if (a)
		gimple_seq_add_stmt(seq, gimple_build_assign(emit->shadow_a,
							     emit->a));
	if (act)
		gimple_seq_add_stmt(seq, gimple_build_assign(
			emit->shadow_activation, emit->activation));
	if (from_entry && pap_opts.trace)
		gimple_seq_add_stmt(seq, gimple_build_assign(
			emit->shadow_trace_depth, emit->trace_depth));
}

/*
 * The oracle's calls for core edge @id: entering a block reports its GCC
 * number; the ENTRY edge opens an activation, an edge into EXIT (or a
 * FAKE edge, cut short) closes it.  No numbering is involved.
 */
static void pap_trace_seq(const struct pap_cfgtext *g, uint32_t id,
			  const struct pap_emit *emit, gimple_seq *seq)
{
	const struct pap_edge *pe = &g->cfg->edges[id];

	if (pe->src == g->cfg->entry) {
		gimple *call = gimple_build_call(
			pap_rt_decl(PAP_RT_TRACE_BEGIN), 1,
			pap_key(seq, emit));

		gimple_call_set_lhs(call, emit->trace_depth);
		gimple_seq_add_stmt(seq, call);
	}
	if (pe->dst == g->cfg->exit)
		gimple_seq_add_stmt(seq, gimple_build_call(
			pap_rt_decl(PAP_RT_TRACE_END), 1,
			pap_int_cst(pe->kind != PAP_EDGE_FAKE)));
	else
		gimple_seq_add_stmt(seq, gimple_build_call(
			pap_rt_decl(PAP_RT_TRACE_BLOCK), 1,
			pap_u32_cst(pe->dst + 1)));
}

gimple_seq pap_edge_seq(const struct pap_plan *plan,
			const struct pap_cfgtext *g, uint32_t id,
			const struct pap_emit *emit)
{
	const struct pap_edge *pe = &g->cfg->edges[id];
	gimple_seq seq = pap_ops_seq(plan, id, emit, pe->kind != PAP_EDGE_FAKE);

	if (pap_opts.trace)
		pap_trace_seq(g, id, emit, &seq);
	if (emit->has_shadows)
		pap_shadow_seq(plan, id, emit, pe->src == g->cfg->entry, &seq);
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
