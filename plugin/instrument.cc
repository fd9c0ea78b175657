/* SPDX-License-Identifier: MIT */
/*
 * instrument.cc - how one function is instrumented: the pass "pap", in
 * phases, each a function below that states what it guarantees.
 *
 *   select   is the function to be instrumented at all?
 *   model    GCC's CFG as the core's model, its text and checksum
 *   plan     the core's probe plan for the model
 *   locate   the GCC block and edge of each core node and edge
 *   setup    the locals, key and counters the probes use (struct pap_emit)
 *   place    each edge's code queued on the edge, or in place already
 *   commit   the queued code in the function, then what must come after
 *            it: tail calls' return blocks, label edges, non-local control
 *   finish   the probes marked for GCC's warnings; stale dominators and
 *            the pure and const flags dropped
 *   record   the function's entry in the unit's metadata
 *
 * The first four change nothing: a function one of them turns down is
 * left as it was.  What code goes on an edge is emit.cc's.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "fnkey.h"
#include "meta.h"
#include "model.h"
#include "probes.h"
#include "rtabi.h"
#include "selective.h"

/* One function's instrumentation, from its model to its metadata. */
struct pap_fn {
	function *fun;
	const char *asmname;
	struct pap_model model;
	/* the model as text (the metadata's graph and source lines), and
	 * the checksum that pairs the metadata with profiles */
	struct pap_text graph, lines;
	uint64_t checksum;
	/* the core's CFG, parsed from @graph (valid when @have_g) */
	struct pap_cfgtext g;
	bool have_g;
	struct pap_plan *plan;
	/* selective profiling: the plan whose operations @plan holds */
	struct pap_sel_plan *sel;
	/* core node k's last GCC block; the GCC edge of each core edge
	 * (NULL for FAKE edges, see pap_edge_table()) */
	basic_block *tails;
	edge *gcc_edge;
	struct pap_emit emit;
	/* the function's key, as the probes pass it */
	char key[PAP_FNKEY_MAX];
	/* core edges whose code is in place already (tail calls); the code
	 * of abnormal edges, placed after the commit; the edges into a
	 * return block that must return through a block of their own
	 * (pap_tail_place()) */
	unsigned char *placed;
	gimple_seq *label_seq;
	vec<edge> moved;
	/* the call sequence's sites and graph (-fplugin-arg-pap-calls) */
	struct pap_calls *calls;
	/* the mode recorded when there is no plan (calls alone) */
	enum pap_mode mode;
};

tree pap_tally_var(uint64_t nvalues)
{
	tree var;

	if (!pap_opts.tally_max_values || !nvalues ||
	    nvalues > pap_opts.tally_max_values || !pap_tally_possible())
		return NULL_TREE;
	var = pap_static_var("pap_tally", build_pointer_type(pap_rt_u64()));
	TREE_ADDRESSABLE(var) = 1;
	set_decl_tls_model(var, decl_default_tls_model(var));
	varpool_node::finalize_decl(var);
	return var;
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

/*
 * select: true only for a function with a body (a block besides entry
 * and exit) that the options ask for: not no_instrument_function, not
 * from a system header unless system-headers, matching include and not
 * exclude.
 */
static bool pap_fn_select(function *fun)
{
	const char *name = IDENTIFIER_POINTER(DECL_NAME(fun->decl));

	if (n_basic_blocks_for_fn(fun) <= 2)
		return false;
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
	/* with calls, every function keeps its call probes (calls.cc) */
	return !pap_sel_enabled() || pap_sel_named(fun) || pap_opts.calls;
}

/*
 * model: @f->model is built (free it whatever the outcome).  True when
 * the function's non-local control can be instrumented and its graph
 * parses as the core's CFG: then @f->graph and @f->lines are the
 * metadata's and @f->g is the core's CFG.
 */
static bool pap_fn_model(struct pap_fn *f)
{
	const char *why = NULL;
	char err[256];

	pap_model_build(f->fun, &f->model);
	if (!pap_nonlocal_supported(f->fun, &f->model, &why)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(f->fun->decl),
			       "pap: %qs not instrumented: %s", f->asmname,
			       why);
		return false;
	}
	pap_model_graph_text(f->fun, &f->model, &f->graph);
	pap_model_lines_text(f->fun, &f->model, &f->lines);
	if (pap_cfgtext_parse(f->graph.s, f->asmname, &f->g, err,
			      sizeof(err))) {
		warning(0, "pap: %s: cannot model the CFG: %s", f->asmname,
			err);
		return false;
	}
	f->have_g = true;
	return true;
}

/* plan: true when the core planned @f->g under the mode: @f->plan, and
 * @f->checksum the stamp of that plan (the graph, the mode in effect). */
static bool pap_fn_plan(struct pap_fn *f)
{
	int r;

	if (pap_sel_enabled())
		return pap_sel_plan_fn(f->fun, f->asmname, &f->g, f->graph.s,
				       &f->lines, &f->plan, &f->checksum,
				       &f->sel);
	r = pap_plan_build(f->g.cfg, pap_opts.mode, NULL, &f->plan);

	if (r) {
		warning(0, "pap: %s: cannot plan: %s", f->asmname,
			pap_strerror(r));
		return false;
	}
	f->checksum = pap_meta_checksum(f->plan->mode, f->graph.s,
					f->graph.len);
	return true;
}

/*
 * locate: @f->tails and @f->gcc_edge say where each core node ends and
 * which GCC edge each core edge is.  True when every edge's code can be
 * placed (pap_placeable()).
 */
static bool pap_fn_locate(struct pap_fn *f)
{
	basic_block bb;

	/* core node k is the model node numbered k + 1 */
	f->tails = XCNEWVEC(basic_block, f->g.nblocks);
	FOR_EACH_BB_FN(bb, f->fun)
		if (pap_model_is_node(&f->model, bb))
			f->tails[f->model.number[bb->index] - 1] =
				f->model.tail[bb->index];
	f->gcc_edge = pap_edge_table(f->fun, &f->model, &f->g);
	if (!pap_placeable(&f->g, f->plan, f->gcc_edge)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(f->fun->decl),
			       "pap: %qs not instrumented: probes would sit on "
			       "abnormal edges", f->asmname);
		return false;
	}
	return true;
}

/*
 * setup: @f->emit holds what the probes use: the locals, the key (and
 * its static slot in code for a shared object), the shadows where a jump
 * may come back, and the thread-local counters pointer where records
 * are counted in place.  It declares variables but adds no statement.
 */
static void pap_fn_setup(struct pap_fn *f)
{
	struct pap_emit *emit = &f->emit;
	const struct pap_plan *plan = f->plan;
	char *key = f->key;
	uint32_t id;

	pap_fnkey_format(key, sizeof(f->key), f->asmname, f->checksum,
			 pap_meta_path());
	emit->r = create_tmp_var(pap_rt_u64(), "pap_r");
	emit->a = create_tmp_var(pap_rt_u64(), "pap_a");
	emit->d = create_tmp_var(pap_rt_u64(), "pap_d");
	emit->activation = create_tmp_var(pap_rt_u64(), "pap_act");
	emit->key = build_string_literal(strlen(key) + 1, key);
	emit->key_slot = pap_key_slot(emit->key);
	emit->trace_depth = create_tmp_var(pap_rt_u64(), "pap_tok");
	emit->restart = plan->restart;
	emit->has_shadows = false;
	for (id = 0; id < f->g.cfg->nblocks; id++)
		if (f->g.cfg->role[id] & PAP_ROLE_RESUME)
			emit->has_shadows = true;
	if (emit->has_shadows)
		pap_nonlocal_shadows(emit);
	emit->no_activation = !emit->has_shadows && !pap_plan_may_break(plan);
	emit->tally_counters = NULL_TREE;
	emit->tally_nvalues = plan->record_values;
	if (plan->mode == PAP_MODE_EPP || emit->no_activation) {
		emit->tally_counters = pap_tally_var(emit->tally_nvalues);
	} else if (!emit->has_shadows && pap_opts.inline_fold) {
		/* r is not bounded: the late pass tests r < tally_nvalues */
		emit->tally_nvalues = MIN(pap_opts.tally_max_values,
					  PAP_TALLY_UNBOUNDED);
		emit->tally_counters = pap_tally_var(emit->tally_nvalues);
	}
	emit->tally_counters_addr = emit->tally_counters ?
		create_tmp_var(ptr_type_node, "pap_tp") : NULL_TREE;
}

/*
 * place: every statement the function had is marked the user's
 * (pap_mark_user_stmts()); the code of each core edge that has any and
 * can be taken is in place (a path's end before its tail call, a FAKE
 * edge's before its block's noreturn call), queued on its GCC edge, or,
 * for an abnormal edge, in @f->label_seq for the commit.
 */
static void pap_fn_place(struct pap_fn *f)
{
	const struct pap_cfgtext *g = &f->g;
	uint32_t id;

	pap_mark_user_stmts(f->fun);
	f->label_seq = XCNEWVEC(gimple_seq, g->cfg->nedges);
	f->placed = XCNEWVEC(unsigned char, g->cfg->nedges);
	pap_tail_place(f->fun, f->plan, g, f->gcc_edge, &f->emit, f->placed,
		       &f->moved);
	for (id = 0; id < g->cfg->nedges; id++) {
		const struct pap_edge *pe = &g->cfg->edges[id];
		gimple_seq seq;

		if (f->placed[id] || !pap_edge_has_code(f->plan, g, id))
			continue;
		/* taken by no execution (selective profiling's early ends
		 * left it out of the function) */
		if (pe->kind == PAP_EDGE_FAKE ? !f->tails[pe->src] :
		    !f->gcc_edge[id])
			continue;
		/* a FAKE edge out of a block that goes on (in an infinite
		 * loop) is never taken: only a dead end's is, at its
		 * noreturn call */
		if (pe->kind == PAP_EDGE_FAKE &&
		    pap_cfg_fanout(g->cfg, pe->src) != 1)
			continue;
		seq = pap_edge_seq(f->plan, g, id, &f->emit);
		if (pe->kind == PAP_EDGE_FAKE)
			pap_emit_fake(f->tails[pe->src], seq);
		else if (f->gcc_edge[id]->flags & (EDGE_ABNORMAL | EDGE_EH))
			f->label_seq[id] = seq;	/* after the commit */
		else
			gsi_insert_seq_on_edge(f->gcc_edge[id], seq);
	}
}

/*
 * commit: every edge's code is in the function: the queued code on its
 * edges (split where needed), the moved return edges through blocks of
 * their own, the abnormal edges' code where their labels or landing pads
 * are, and, where a jump may come back, the notes of the running call
 * and the code that resumes a path (pap_nonlocal_emit()).
 */
static void pap_fn_commit(struct pap_fn *f)
{
	uint32_t id;

	gsi_commit_edge_inserts();
	pap_tail_finish(f->fun, &f->moved);
	for (id = 0; id < f->g.cfg->nedges; id++)
		if (f->label_seq[id])
			pap_emit_on_label_edge(f->gcc_edge[id],
					       f->label_seq[id], &f->emit);
	if (f->emit.has_shadows)
		pap_nonlocal_emit(f->fun, &f->model, f->plan, &f->g, &f->emit);
}

/*
 * finish: the probes carry GCC's no-warning mark (pap_quiet_probes());
 * no dominator tree is left (the pass manager wants none of post-
 * dominators, and one computed before the split edges would be wrong);
 * the function is neither pure nor const, since probes are side effects.
 */
static void pap_fn_finish(struct pap_fn *f)
{
	tree decl = f->fun->decl;

	pap_quiet_probes(f->fun);
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	DECL_PURE_P(decl) = 0;
	TREE_READONLY(decl) = 0;
	DECL_LOOPING_CONST_OR_PURE_P(decl) = 0;
}

/* record: the unit's metadata has the function's entry (meta.cc); under
 * verbose, a note with its plan. */
static void pap_fn_record(struct pap_fn *f)
{
	if (f->calls) {
		pap_text_printf(&f->lines, "%s", pap_calls_text(f->calls));
		pap_keys_add_calls_fn(f->fun->decl, f->key, f->emit.key_slot,
				      f->checksum);
	}
	pap_meta_add_fn(f->asmname, DECL_SOURCE_FILE(f->fun->decl),
			f->plan ? f->plan->mode : f->mode, f->graph.s,
			f->lines.s, f->checksum);
	if (pap_opts.verbose && f->plan)
		inform(DECL_SOURCE_LOCATION(f->fun->decl), "pap: %qs: %s",
		       f->asmname, f->plan->note);
}

/* Frees what the phases made of @f; the function keeps its probes. */
static void pap_fn_free(struct pap_fn *f)
{
	XDELETEVEC(f->label_seq);
	XDELETEVEC(f->placed);
	XDELETEVEC(f->tails);
	XDELETEVEC(f->gcc_edge);
	f->moved.release();
	pap_plan_free(f->plan);
	pap_sel_free(f->sel);
	pap_calls_free(f->calls);
	if (f->have_g)
		pap_cfgtext_free(&f->g);
	pap_model_free(&f->model);
	pap_text_free(&f->graph);
	pap_text_free(&f->lines);
}

/*
 * The call probes alone (mode none, or a function whose intra-procedural
 * probes cannot be placed, since its callers count on its call probes):
 * the key from the checksum of the graph under mode none and the calls
 * lines, the probes, the entry in the metadata.
 */
static void pap_fn_calls_only(struct pap_fn *f)
{
	basic_block *copy;
	tree lit;

	f->mode = PAP_MODE_NONE;
	f->checksum = pap_calls_checksum(f->calls, pap_meta_checksum(
		PAP_MODE_NONE, f->graph.s, f->graph.len));
	pap_fnkey_format(f->key, sizeof(f->key), f->asmname, f->checksum,
			 pap_meta_path());
	lit = build_string_literal(strlen(f->key) + 1, f->key);
	f->emit.key = lit;
	f->emit.key_slot = pap_key_slot(lit);
	pap_mark_user_stmts(f->fun);
	copy = pap_pisp_copy(f->fun, f->calls);
	pap_calls_emit(f->calls, f->emit.key, f->emit.key_slot);
	pap_pisp_guard(f->fun, copy);
	pap_fn_finish(f);
	pap_fn_record(f);
}

unsigned int pap_instrument_function(function *fun)
{
	struct pap_fn f;
	basic_block *copy;

	if (!pap_fn_select(fun))
		return 0;
	memset(&f, 0, sizeof(f));
	f.fun = fun;
	f.asmname = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
	if (!pap_fn_model(&f)) {
		pap_fn_free(&f);
		return 0;
	}
	if (pap_opts.calls)
		f.calls = pap_calls_collect(fun, &f.model, &f.g, f.asmname);
	if (pap_opts.mode == PAP_MODE_NONE ||
	    (pap_sel_enabled() && !pap_sel_named(fun))) {
		/* with spec, a function it does not name: calls alone */
		if (f.calls)
			pap_fn_calls_only(&f);
	} else if (pap_fn_plan(&f) && pap_fn_locate(&f)) {
		if (f.calls)
			f.checksum = pap_calls_checksum(f.calls, f.checksum);
		pap_fn_setup(&f);
		if (f.sel)
			pap_sel_terminate(fun, f.sel, f.plan, f.asmname,
					  f.checksum, &f.g, f.gcc_edge,
					  f.tails, f.emit.r, f.emit.a);
		/* calls-spec: the copy a dead thread runs (pisp.cc) */
		copy = pap_pisp_copy(fun, f.calls);
		pap_fn_place(&f);
		pap_fn_commit(&f);
		if (f.calls)
			pap_calls_emit(f.calls, f.emit.key, f.emit.key_slot);
		pap_pisp_guard(fun, copy);
		pap_fn_finish(&f);
		pap_fn_record(&f);
	} else if (f.calls) {
		/* its callers count on its call probes (calls.cc) */
		pap_plan_free(f.plan);
		f.plan = NULL;
		pap_fn_calls_only(&f);
	}
	pap_fn_free(&f);
	return 0;
}
