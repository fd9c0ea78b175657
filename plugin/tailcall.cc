/* SPDX-License-Identifier: MIT */
/*
 * tailcall.cc - a path that ends in a call in tail position ends before
 * the call.
 *
 * A block whose last statement is a call whose value the function returns
 * as it is (or a void function's last call) leaves its caller nothing to
 * do after the call but return.  The exit edge's operations (the count or
 * the record) would go after the call and keep GCC from turning it into a
 * jump: tail recursion would stay recursion, each level a frame.  So the
 * operations of the path's last edges go before the call, and the call
 * returns through a block that only ends the scopes the return block
 * ended (its clobbers, which late warnings read) and returns.  The path
 * is the same; it is recorded as the call starts instead of as it
 * returns, and a callee that never returns (exit, longjmp past its
 * caller) leaves its caller's path counted as complete, which is what it
 * is up to the return.
 *
 * Only calls that cannot throw and do not fork (both processes return
 * through the caller), in functions without setjmp receivers or
 * nonlocal labels (whose shadows track every call), and on ordinary
 * edges.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "probes.h"

/* Does @call create a process that returns through its caller too
 * (fork), so that both must record the caller's path? */
static bool pap_forks_p(gcall *call)
{
	tree fn = gimple_call_fndecl(call);
	const char *name;

	if (!fn || !DECL_NAME(fn))
		return false;
	name = IDENTIFIER_POINTER(DECL_NAME(fn));
	return !strcmp(name, "fork") || !strcmp(name, "_Fork") ||
	       !strcmp(name, "vfork") || !strcmp(name, "clone");
}

/* Is @stmt a call whose value is @retval (NULL_TREE: a call without a
 * value, before a bare return), that returns once and cannot throw? */
static gcall *pap_tail_call_p(function *fun, gimple *stmt, tree retval)
{
	gcall *call = stmt ? dyn_cast<gcall *>(stmt) : NULL;

	if (!call || gimple_call_internal_p(call) ||
	    gimple_call_flags(call) & (ECF_RETURNS_TWICE | ECF_NORETURN) ||
	    stmt_could_throw_p(fun, call) || pap_forks_p(call))
		return NULL;
	return gimple_call_lhs(call) == retval ? call : NULL;
}

/* Steps @gsi back over debug statements, prediction hints and the
 * clobbers that end a local's scope, which run nothing (GCC's tail call
 * search skips them too). */
static void pap_skip_hints(gimple_stmt_iterator *gsi)
{
	while (!gsi_end_p(*gsi) &&
	       (is_gimple_debug(gsi_stmt(*gsi)) ||
		gimple_code(gsi_stmt(*gsi)) == GIMPLE_PREDICT ||
		gimple_clobber_p(gsi_stmt(*gsi))))
		gsi_prev(gsi);
}


/* The last statement of @bb that runs something, or NULL. */
static gimple *pap_last_stmt(basic_block bb)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);

	pap_skip_hints(&gsi);
	return gsi_end_p(gsi) ? NULL : gsi_stmt(gsi);
}

/* Steps @gsi forward over what pap_skip_hints() steps back over. */
static void pap_skip_hints_fwd(gimple_stmt_iterator *gsi)
{
	while (!gsi_end_p(*gsi) &&
	       (is_gimple_debug(gsi_stmt(*gsi)) ||
		gimple_code(gsi_stmt(*gsi)) == GIMPLE_PREDICT ||
		gimple_clobber_p(gsi_stmt(*gsi))))
		gsi_next(gsi);
}

greturn *pap_tail_return(function *fun, gcall *call)
{
	basic_block bb = gimple_bb(call);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	greturn *ret = NULL;

	gsi_next(&gsi);
	pap_skip_hints_fwd(&gsi);
	if (!gsi_end_p(gsi)) {
		ret = dyn_cast<greturn *>(gsi_stmt(gsi));
	} else if (single_succ_p(bb) &&
		   !(single_succ_edge(bb)->flags & (EDGE_ABNORMAL | EDGE_EH)) &&
		   single_succ(bb) != EXIT_BLOCK_PTR_FOR_FN(fun)) {
		gsi = gsi_after_labels(single_succ(bb));
		pap_skip_hints_fwd(&gsi);
		if (!gsi_end_p(gsi))
			ret = dyn_cast<greturn *>(gsi_stmt(gsi));
	}
	if (!ret || !pap_tail_call_p(fun, call, gimple_return_retval(ret)))
		return NULL;
	return ret;
}

/* The call ending @e's source, when @e is an ordinary edge that is its
 * source's only one and the call a tail call returning @retval. */
static gcall *pap_tail_pred(function *fun, edge e, tree retval)
{
	if (e->flags & (EDGE_ABNORMAL | EDGE_EH) || !single_succ_p(e->src) ||
	    e->src == ENTRY_BLOCK_PTR_FOR_FN(fun))
		return NULL;
	return pap_tail_call_p(fun, pap_last_stmt(e->src), retval);
}

/* The core edge whose operations go on GCC edge @e, or UINT32_MAX. */
static uint32_t pap_core_edge(const struct pap_cfgtext *g, edge *gcc_edge,
			      edge e)
{
	uint32_t id;

	for (id = 0; id < g->cfg->nedges; id++)
		if (gcc_edge[id] == e)
			return id;
	return UINT32_MAX;
}

/* Core edge @id's code (pap_edge_has_code() permitting) before @call. */
static void pap_tail_emit(const struct pap_plan *plan,
			  const struct pap_cfgtext *g, uint32_t id,
			  const struct pap_emit *emit, gcall *call,
			  unsigned char *placed)
{
	gimple_stmt_iterator gsi = gsi_for_stmt(call);

	if (id == UINT32_MAX || !pap_edge_has_code(plan, g, id))
		return;
	gsi_insert_seq_before(&gsi, pap_edge_seq(plan, g, id, emit),
			      GSI_SAME_STMT);
	placed[id] = 1;
}

/*
 * Exit edge @id out of return block @x whose only statements are scope
 * clobbers and a return of @ret's value: the edges into @x that end in a tail call get their
 * own operations and then @id's before the call, and are noted in @moved
 * to return through a block of their own (pap_tail_finish); @id's go on
 * its edge only for the other edges into @x.
 */
static void pap_tail_preds(function *fun, const struct pap_plan *plan,
			   const struct pap_cfgtext *g, edge *gcc_edge,
			   const struct pap_emit *emit, uint32_t id,
			   greturn *ret, unsigned char *placed,
			   vec<edge> *moved)
{
	basic_block x = gimple_bb(ret);
	tree retval = gimple_return_retval(ret);
	unsigned ntail = 0, first = moved->length();
	edge e;
	edge_iterator ei;

	FOR_EACH_EDGE(e, ei, x->preds) {
		gcall *call = pap_tail_pred(fun, e, retval);

		if (!call)
			continue;
		pap_tail_emit(plan, g, pap_core_edge(g, gcc_edge, e), emit,
			      call, placed);
		pap_tail_emit(plan, g, id, emit, call, placed);
		moved->safe_push(e);
		ntail++;
	}
	if (ntail == EDGE_COUNT(x->preds)) {
		/* every path into @x made its record: @x only returns */
		moved->truncate(first);
		return;
	}
	placed[id] = 0;		/* the other paths still need it */
}

void pap_tail_place(function *fun, const struct pap_plan *plan,
		    const struct pap_cfgtext *g, edge *gcc_edge,
		    const struct pap_emit *emit, unsigned char *placed,
		    vec<edge> *moved)
{
	uint32_t id;

	if (emit->has_shadows)
		return;
	for (id = 0; id < g->cfg->nedges; id++) {
		const struct pap_edge *pe = &g->cfg->edges[id];
		edge e = gcc_edge[id];
		gimple_stmt_iterator gsi;
		greturn *ret;
		gcall *call;

		if (pe->dst != g->cfg->exit || pe->kind == PAP_EDGE_FAKE ||
		    !e || e->flags & (EDGE_ABNORMAL | EDGE_EH) ||
		    !pap_edge_has_code(plan, g, id))
			continue;
		ret = dyn_cast<greturn *>(pap_last_stmt(e->src));
		if (!ret)
			continue;
		gsi = gsi_for_stmt(ret);
		gsi_prev(&gsi);
		pap_skip_hints(&gsi);
		if (!gsi_end_p(gsi) &&
		    gimple_code(gsi_stmt(gsi)) != GIMPLE_LABEL) {
			/* the call and the return in one block */
			call = pap_tail_call_p(fun, gsi_stmt(gsi),
					       gimple_return_retval(ret));
			if (call)
				pap_tail_emit(plan, g, id, emit, call, placed);
			continue;
		}
		pap_tail_preds(fun, plan, g, gcc_edge, emit, id, ret, placed,
			       moved);
	}
}

/*
 * Copies into @to, in their order, the clobbers of return block @x that
 * end locals' scopes.  Every path into @x passed them, so a block that
 * returns in @x's place must end the same scopes: GCC's late warnings
 * (-Wdangling-pointer) take a use of a local that can reach the exit
 * without meeting the local's clobber for a use after its scope ended.
 * They run nothing and GCC's tail call search skips them.
 */
static void pap_copy_clobbers(basic_block x, gimple_stmt_iterator *to)
{
	gimple_stmt_iterator gsi;

	for (gsi = gsi_start_bb(x); !gsi_end_p(gsi); gsi_next(&gsi))
		if (gimple_clobber_p(gsi_stmt(gsi)))
			gsi_insert_after(to, gimple_copy(gsi_stmt(gsi)),
					 GSI_NEW_STMT);
}

void pap_tail_finish(function *fun, vec<edge> *moved)
{
	basic_block ret_bb = NULL, x = NULL;
	unsigned i;
	edge e;

	/* the edges of one return block are consecutive */
	FOR_EACH_VEC_ELT(*moved, i, e) {
		if (e->dest != x) {
			greturn *ret = as_a<greturn *>(pap_last_stmt(e->dest));
			greturn *copy;
			gimple_stmt_iterator gsi;

			x = e->dest;
			ret_bb = create_empty_bb(x);
			if (current_loops)
				add_bb_to_loop(ret_bb, x->loop_father);
			gsi = gsi_start_bb(ret_bb);
			pap_copy_clobbers(x, &gsi);
			/* a copy keeps the return's location and flags */
			copy = as_a<greturn *>(gimple_copy(ret));
			gsi_insert_after(&gsi, copy, GSI_NEW_STMT);
			make_edge(ret_bb, EXIT_BLOCK_PTR_FOR_FN(fun), 0)
				->goto_locus = single_succ_edge(x)->goto_locus;
		}
		redirect_edge_and_branch(e, ret_bb);
	}
}
