/* SPDX-License-Identifier: MIT */
/*
 * instrument.cc - one function: GCC CFG -> core model -> plan -> GIMPLE.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "meta.h"

/* Declarations of the runtime calls, made once per translation unit. */
static tree pap_enter_decl, pap_fold_decl, pap_count_decl, pap_record_decl;
static tree pap_trace_begin_decl, pap_trace_block_decl, pap_trace_end_decl;
static tree pap_u64, pap_u32;

static tree pap_runtime_decl(const char *name, tree type)
{
	tree decl = build_fn_decl(name, type);

	TREE_NOTHROW(decl) = 1;
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE,
					  DECL_ATTRIBUTES(decl));
	DECL_ARTIFICIAL(decl) = 1;
	return decl;
}

static void pap_declare_runtime(void)
{
	tree cs = build_pointer_type(build_qualified_type(char_type_node,
							  TYPE_QUAL_CONST));

	if (pap_fold_decl)
		return;
	pap_u64 = long_long_unsigned_type_node;
	pap_u32 = unsigned_type_node;
	pap_enter_decl = pap_runtime_decl("__pap_enter",
		build_function_type_list(pap_u64, NULL_TREE));
	pap_fold_decl = pap_runtime_decl("__pap_fold",
		build_function_type_list(pap_u64, pap_u64, pap_u64, pap_u64,
					 pap_u64, pap_u32, pap_u64, NULL_TREE));
	pap_count_decl = pap_runtime_decl("__pap_count",
		build_function_type_list(void_type_node, cs, pap_u64,
					 NULL_TREE));
	pap_record_decl = pap_runtime_decl("__pap_record",
		build_function_type_list(void_type_node, cs, pap_u64, pap_u64,
					 integer_type_node, NULL_TREE));
	pap_trace_begin_decl = pap_runtime_decl("__pap_trace_begin",
		build_function_type_list(void_type_node, cs, NULL_TREE));
	pap_trace_block_decl = pap_runtime_decl("__pap_trace_block",
		build_function_type_list(void_type_node, pap_u32, NULL_TREE));
	pap_trace_end_decl = pap_runtime_decl("__pap_trace_end",
		build_function_type_list(void_type_node, integer_type_node,
					 NULL_TREE));
}

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

/*
 * The model of a function's CFG that pap numbers, canonical across -O
 * levels.  GCC keeps some blocks at -O0 only, to hold debug locations:
 * empty forwarders and straight-line chains split in two.  So empty
 * forwarder blocks are transparent (an edge into one leads to where it
 * forwards), a chain of blocks joined by single-out/single-in edges is one
 * node named after its first block, and nodes are numbered by their rank
 * in block order, which removing blocks does not change.  Each model edge
 * keeps the GCC edge its probes go on: the first edge of the GCC path it
 * stands for, which runs exactly when the model edge is taken.
 */
struct pap_medge {
	int src;		/* head bb index, or -1 for ENTRY */
	int dst;		/* head bb index, or -2 for EXIT */
	edge e;
};

struct pap_model {
	int nbb;
	basic_block *real;	/* per bb: the block it forwards to (itself) */
	int *head;		/* per bb: its chain's head, -1 if forwarder */
	basic_block *tail;	/* per head: last block of its chain */
	int *number;		/* per head: canonical number, from 1 */
	struct pap_medge *edges;
	int nedges;
	int nnodes;
};

/* Is @bb an empty block that only passes control on? */
static bool pap_forwarder(function *fun, basic_block bb)
{
	gimple_stmt_iterator gsi;
	edge e;

	if (!single_succ_p(bb))
		return false;
	e = single_succ_edge(bb);
	if (e->dest == EXIT_BLOCK_PTR_FOR_FN(fun) || e->dest == bb ||
	    e->flags & (EDGE_ABNORMAL | EDGE_EH))
		return false;
	gsi = gsi_start_nondebug_after_labels_bb(bb);
	return gsi_end_p(gsi);
}

/* Where control entering @bb really goes (through forwarders). */
static basic_block pap_resolve(function *fun, basic_block bb)
{
	basic_block start = bb;
	int steps = n_basic_blocks_for_fn(fun);

	while (bb != EXIT_BLOCK_PTR_FOR_FN(fun) && pap_forwarder(fun, bb)) {
		bb = single_succ(bb);
		if (--steps < 0)
			return start;	/* an empty infinite loop */
	}
	return bb;
}

static void pap_model_free(struct pap_model *m)
{
	XDELETEVEC(m->real);
	XDELETEVEC(m->head);
	XDELETEVEC(m->tail);
	XDELETEVEC(m->number);
	XDELETEVEC(m->edges);
}

/* Is @b a chain start, or does it continue the chain of its only
 * predecessor (whose only edge leads to it)? */
static bool pap_chain_start(const int *indeg, const int *outdeg,
			    const int *from, int b)
{
	return indeg[b] != 1 || from[b] < 0 || from[b] == b ||
	       outdeg[from[b]] != 1;
}

/* Builds the canonical model of @fun. */
static void pap_model_build(function *fun, struct pap_model *m)
{
	basic_block bb, exitb = EXIT_BLOCK_PTR_FOR_FN(fun);
	int *indeg, *outdeg, *from, n = 0;
	edge e;
	edge_iterator ei;

	m->nbb = last_basic_block_for_fn(fun);
	m->real = XCNEWVEC(basic_block, m->nbb);
	m->head = XNEWVEC(int, m->nbb);
	m->tail = XCNEWVEC(basic_block, m->nbb);
	m->number = XCNEWVEC(int, m->nbb);
	m->edges = XNEWVEC(struct pap_medge, n_edges_for_fn(fun) + 2);
	m->nedges = 0;
	indeg = XCNEWVEC(int, m->nbb);
	outdeg = XCNEWVEC(int, m->nbb);
	from = XNEWVEC(int, m->nbb);
	FOR_EACH_BB_FN(bb, fun) {
		m->real[bb->index] = pap_resolve(fun, bb);
		m->head[bb->index] = -1;
		from[bb->index] = -1;
	}
#define PAP_REAL(b) ((b) == exitb ? (b) : m->real[(b)->index])
	/* degrees between real blocks, forwarders looked through */
	FOR_EACH_BB_FN(bb, fun) {
		if (m->real[bb->index] != bb)
			continue;
		FOR_EACH_EDGE(e, ei, bb->succs) {
			basic_block d = PAP_REAL(e->dest);

			outdeg[bb->index]++;
			if (d == exitb)
				continue;
			indeg[d->index]++;
			from[d->index] = e->flags & (EDGE_ABNORMAL | EDGE_EH) ?
					 -1 : bb->index;
		}
	}
	/* the entry block is entered from outside: always a chain start */
	indeg[PAP_REAL(single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)))->index] += 2;
	FOR_EACH_BB_FN(bb, fun) {
		basic_block b = bb;
		int steps = m->nbb;

		if (m->real[bb->index] != bb ||
		    !pap_chain_start(indeg, outdeg, from, bb->index))
			continue;
		m->head[bb->index] = bb->index;
		while (steps-- > 0 && outdeg[b->index] == 1) {
			basic_block d = PAP_REAL(single_succ(b));

			if (d == exitb || d == bb ||
			    pap_chain_start(indeg, outdeg, from, d->index))
				break;
			m->head[d->index] = bb->index;
			b = d;
		}
		m->tail[bb->index] = b;
		m->number[bb->index] = ++n;
	}
	/* blocks in a cycle of chained blocks (unreachable): own nodes */
	FOR_EACH_BB_FN(bb, fun) {
		if (m->real[bb->index] != bb || m->head[bb->index] >= 0)
			continue;
		m->head[bb->index] = bb->index;
		m->tail[bb->index] = bb;
		m->number[bb->index] = ++n;
	}
	m->nnodes = n;
	/* model edges: out of each chain's tail, in GCC's order */
	FOR_EACH_BB_FN(bb, fun) {
		if (m->real[bb->index] != bb || m->head[bb->index] != bb->index)
			continue;
		FOR_EACH_EDGE(e, ei, m->tail[bb->index]->succs) {
			basic_block d = PAP_REAL(e->dest);
			struct pap_medge *me = &m->edges[m->nedges++];

			me->src = bb->index;
			me->dst = d == exitb ? -2 : m->head[d->index];
			me->e = e;
		}
	}
#undef PAP_REAL
	XDELETEVEC(indeg);
	XDELETEVEC(outdeg);
	XDELETEVEC(from);
}

/* The model in pap's text format: the metadata's core, which its
 * checksum covers.  Model edge k is the k-th "edge" line. */
static void pap_graph_text(function *fun, const struct pap_model *m,
			   struct pap_text *t)
{
	basic_block bb, first;
	int k;

	pap_text_printf(t, "blocks");
	FOR_EACH_BB_FN(bb, fun)
		if (m->real[bb->index] == bb && m->head[bb->index] == bb->index)
			pap_text_printf(t, " b%d", m->number[bb->index]);
	first = pap_resolve(fun, single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	pap_text_printf(t, "\nentry b%d\n",
			m->number[m->head[first->index]]);
	for (k = 0; k < m->nedges; k++)
		if (m->edges[k].dst >= 0)
			pap_text_printf(t, "edge b%d b%d%s\n",
					m->number[m->edges[k].src],
					m->number[m->edges[k].dst],
					m->edges[k].e->flags &
					(EDGE_ABNORMAL | EDGE_EH) ?
						" abnormal" : "");
	for (k = 0; k < m->nedges; k++)
		if (m->edges[k].dst == -2)
			pap_text_printf(t, "return b%d\n",
					m->number[m->edges[k].src]);
}

/* Each node's distinct source lines in statement order. */
static void pap_lines_text(function *fun, const struct pap_model *m,
			   struct pap_text *t)
{
	basic_block head;

	FOR_EACH_BB_FN(head, fun) {
		basic_block bb = head;
		int seen[64], nseen = 0, i, steps = m->nbb;

		if (m->real[head->index] != head ||
		    m->head[head->index] != head->index)
			continue;
		pap_text_printf(t, "lines b%d", m->number[head->index]);
		while (steps-- > 0) {
			for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
			     !gsi_end_p(gsi); gsi_next(&gsi)) {
				location_t loc = gimple_location(gsi_stmt(gsi));
				int line;

				if (loc == UNKNOWN_LOCATION ||
				    is_gimple_debug(gsi_stmt(gsi)))
					continue;
				line = LOCATION_LINE(loc);
				for (i = 0; i < nseen && seen[i] != line; i++)
					;
				if (i < nseen)
					continue;
				if (nseen < 64)
					seen[nseen++] = line;
				pap_text_printf(t, " %d", line);
			}
			if (bb == m->tail[head->index])
				break;
			bb = m->real[single_succ(bb)->index];
		}
		pap_text_printf(t, "\n");
	}
}

struct pap_emit {
	tree r, a, d, act, key;
	uint64_t restart;
};

static tree pap_cst(uint64_t v)
{
	return build_int_cstu(pap_u64, v);
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
			g = gimple_build_call(pap_enter_decl, 0);
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
			g = gimple_build_call(pap_fold_decl, 6, em->act, em->r,
				pap_cst(op->n), em->d,
				build_int_cstu(pap_u32, op->site),
				pap_cst(em->restart));
			gimple_call_set_lhs(g, em->r);
			gimple_seq_add_stmt(&seq, g);
			break;
		case PAP_OP_COUNT:
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->d, PLUS_EXPR, em->a, pap_cst(op->k)));
			gimple_seq_add_stmt(&seq, gimple_build_call(
				pap_count_decl, 2, em->key, em->d));
			break;
		case PAP_OP_RECORD:
			gimple_seq_add_stmt(&seq, gimple_build_call(
				pap_record_decl, 4, em->key, em->act, em->r,
				build_int_cst(integer_type_node, complete)));
			break;
		}
	}
	return seq;
}

/*
 * The oracle's calls for core edge @id: entering a block reports its GCC
 * number; the ENTRY edge opens an activation, an edge into EXIT (or a
 * FAKE edge, cut short) closes it.  No numbering is involved.
 */
static void pap_trace_seq(const struct pap_cfgtext *g, uint32_t id,
			  tree key, gimple_seq *seq)
{
	const struct pap_edge *pe = &g->cfg->edges[id];

	if (pe->src == g->cfg->entry)
		gimple_seq_add_stmt(seq, gimple_build_call(pap_trace_begin_decl,
							   1, key));
	if (pe->dst == g->cfg->exit)
		gimple_seq_add_stmt(seq, gimple_build_call(pap_trace_end_decl,
			1, build_int_cst(integer_type_node,
					 pe->kind != PAP_EDGE_FAKE)));
	else
		gimple_seq_add_stmt(seq, gimple_build_call(pap_trace_block_decl,
			1, build_int_cstu(pap_u32, pe->dst + 1)));
}

/* Can every edge's operations be placed?  (No code on abnormal edges.) */
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
		if (pe->kind == PAP_EDGE_FAKE)
			continue;
		e = gcc_edge[id];
		if (!e || e->flags & (EDGE_ABNORMAL | EDGE_EH))
			return false;
	}
	return true;
}

/* Does @fun have exception edges (landing pads)? */
static bool pap_has_eh(function *fun)
{
	basic_block bb;
	edge e;
	edge_iterator ei;

	FOR_EACH_BB_FN(bb, fun)
		FOR_EACH_EDGE(e, ei, bb->succs)
			if (e->flags & EDGE_EH)
				return true;
	return false;
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
			t[id] = single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun));
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
	const char *asmname, *file;
	char err[256], key[4600];
	uint64_t checksum;
	uint32_t id;
	int r, have_graph = 0;

	if (!pap_selected(fun) || n_basic_blocks_for_fn(fun) <= 2)
		return 0;
	asmname = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
	file = DECL_SOURCE_FILE(fun->decl);
	pap_model_build(fun, &m);
	pap_graph_text(fun, &m, &graph);
	pap_lines_text(fun, &m, &lines);
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
		if (m.real[bb->index] == bb && m.head[bb->index] == bb->index)
			tails[m.number[bb->index] - 1] = m.tail[bb->index];
	gcc_edge = pap_edge_table(fun, &m, &g);
	if (pap_has_eh(fun)) {
		/* a record in a landing pad can run again after EH lowering
		 * and inlining: not exact yet, so not instrumented */
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl),
			       "pap: %qs not instrumented: it has exception "
			       "edges", asmname);
		goto out;
	}
	if (!pap_placeable(&g, plan, gcc_edge)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl),
			       "pap: %qs not instrumented: probes would sit on "
			       "abnormal edges", asmname);
		goto out;
	}
	pap_declare_runtime();
	/* ASMNAME:CHECKSUM[:METAFILE]; the profile format has no spaces */
	snprintf(key, sizeof(key), "%s:%016llx", asmname,
		 (unsigned long long)checksum);
	if (!strpbrk(pap_meta_path(), " \t\n") &&
	    strlen(key) + strlen(pap_meta_path()) + 2 < sizeof(key)) {
		strcat(key, ":");
		strcat(key, pap_meta_path());
	}
	em.r = create_tmp_var(pap_u64, "pap_r");
	em.a = create_tmp_var(pap_u64, "pap_a");
	em.d = create_tmp_var(pap_u64, "pap_d");
	em.act = create_tmp_var(pap_u64, "pap_act");
	em.key = build_string_literal(strlen(key) + 1, key);
	em.restart = plan->restart;
	for (id = 0; id < g.cfg->nedges; id++) {
		const struct pap_edge *pe = &g.cfg->edges[id];
		gimple_seq seq;

		if ((!pap_plan_nops(plan, id) && !pap_opts.trace) ||
		    pe->flags & PAP_EF_DEAD)
			continue;
		seq = pap_ops_seq(plan, id, &em, pe->kind != PAP_EDGE_FAKE);
		if (pap_opts.trace)
			pap_trace_seq(&g, id, em.key, &seq);
		if (pe->kind == PAP_EDGE_FAKE)
			pap_emit_fake(tails[pe->src], seq);
		else
			gsi_insert_seq_on_edge(gcc_edge[id], seq);
	}
	gsi_commit_edge_inserts();
	/* probes are side effects: the function is no longer pure or const */
	DECL_PURE_P(fun->decl) = 0;
	TREE_READONLY(fun->decl) = 0;
	DECL_LOOPING_CONST_OR_PURE_P(fun->decl) = 0;

	pap_text_printf(&pap_meta, "function %s\nfile %s\nmode %s\n%s%s"
			"checksum %016llx\nend\n", asmname, file,
			pap_mode_name(plan->mode), graph.s, lines.s,
			(unsigned long long)checksum);
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: %s", asmname,
		       plan->note);
out:
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
