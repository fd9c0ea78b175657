/* SPDX-License-Identifier: MIT */
/*
 * instrument.cc - one function: GCC CFG -> core model -> plan -> GIMPLE.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "cfgtext.h"
#include "meta.h"

/* Declarations of the runtime calls, made once per translation unit. */
static tree pap_fold_decl, pap_count_decl, pap_record_decl;
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
	tree pp = build_pointer_type(ptr_type_node);
	tree cs = build_pointer_type(build_qualified_type(char_type_node,
							  TYPE_QUAL_CONST));

	if (pap_fold_decl)
		return;
	pap_u64 = long_long_unsigned_type_node;
	pap_u32 = unsigned_type_node;
	pap_fold_decl = pap_runtime_decl("__pap_fold",
		build_function_type_list(pap_u64, pp, pap_u64, pap_u64, pap_u64,
					 pap_u32, pap_u64, NULL_TREE));
	pap_count_decl = pap_runtime_decl("__pap_count",
		build_function_type_list(void_type_node, cs, pap_u64,
					 NULL_TREE));
	pap_record_decl = pap_runtime_decl("__pap_record",
		build_function_type_list(void_type_node, cs, pp, pap_u64,
					 integer_type_node, NULL_TREE));
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
	if (pap_opts.have_include &&
	    regexec(&pap_opts.include, name, 0, NULL, 0))
		return false;
	if (pap_opts.have_exclude &&
	    !regexec(&pap_opts.exclude, name, 0, NULL, 0))
		return false;
	return true;
}

/* The function's graph in pap's text format: the metadata's core and
 * what its checksum covers.  Block names are GCC's bb indices. */
static void pap_graph_text(function *fun, struct pap_text *t)
{
	basic_block bb;
	edge e;
	edge_iterator ei;

	pap_text_printf(t, "blocks");
	FOR_EACH_BB_FN(bb, fun)
		pap_text_printf(t, " b%d", bb->index);
	pap_text_printf(t, "\nentry b%d\n",
			single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun))->index);
	FOR_EACH_BB_FN(bb, fun) {
		FOR_EACH_EDGE(e, ei, bb->succs) {
			if (e->dest == EXIT_BLOCK_PTR_FOR_FN(fun))
				continue;
			pap_text_printf(t, "edge b%d b%d%s\n", bb->index,
					e->dest->index,
					e->flags & (EDGE_ABNORMAL | EDGE_EH) ?
						" abnormal" : "");
		}
	}
	FOR_EACH_BB_FN(bb, fun)
		if (find_edge(bb, EXIT_BLOCK_PTR_FOR_FN(fun)))
			pap_text_printf(t, "return b%d\n", bb->index);
}

/* Each block's distinct source lines in statement order. */
static void pap_lines_text(function *fun, struct pap_text *t)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun) {
		int seen[64], nseen = 0, i;

		pap_text_printf(t, "lines b%d", bb->index);
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			location_t loc = gimple_location(gsi_stmt(gsi));
			int line;

			if (loc == UNKNOWN_LOCATION)
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
		pap_text_printf(t, "\n");
	}
}

/* The GCC edge behind core edge @id, or NULL (FAKE edges). */
static edge pap_gcc_edge(function *fun, const struct pap_cfgtext *g,
			 uint32_t id, basic_block *blocks)
{
	const struct pap_edge *pe = &g->cfg->edges[id];
	basic_block src, dst;

	if (pe->kind == PAP_EDGE_FAKE)
		return NULL;
	src = pe->src == g->cfg->entry ? ENTRY_BLOCK_PTR_FOR_FN(fun) :
					 blocks[pe->src];
	dst = pe->dst == g->cfg->exit ? EXIT_BLOCK_PTR_FOR_FN(fun) :
					blocks[pe->dst];
	return find_edge(src, dst);
}

struct pap_emit {
	tree r, a, d, bps, key;
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
			gimple_seq_add_stmt(&seq, gimple_build_assign(
				em->bps, null_pointer_node));
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
			g = gimple_build_call(pap_fold_decl, 6,
				build_fold_addr_expr(em->bps), em->r,
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
				pap_record_decl, 4, em->key,
				build_fold_addr_expr(em->bps), em->r,
				build_int_cst(integer_type_node, complete)));
			break;
		}
	}
	return seq;
}

/* Can every edge's operations be placed?  (No code on abnormal edges.) */
static bool pap_placeable(function *fun, const struct pap_cfgtext *g,
			  const struct pap_plan *plan, basic_block *blocks)
{
	uint32_t id;

	for (id = 0; id < g->cfg->nedges; id++) {
		const struct pap_edge *pe = &g->cfg->edges[id];
		edge e;

		if (!pap_plan_nops(plan, id) || pe->flags & PAP_EF_DEAD)
			continue;
		if (pe->kind == PAP_EDGE_FAKE)
			continue;
		e = pap_gcc_edge(fun, g, id, blocks);
		if (!e || e->flags & (EDGE_ABNORMAL | EDGE_EH))
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

unsigned int pap_instrument_function(function *fun)
{
	struct pap_text graph = { NULL, 0, 0 };
	struct pap_text lines = { NULL, 0, 0 };
	struct pap_cfgtext g;
	struct pap_plan *plan = NULL;
	struct pap_emit em;
	basic_block bb, *blocks;
	const char *asmname, *file;
	char err[256], key[4600];
	uint64_t checksum;
	uint32_t id;
	int r, have_graph = 0;

	if (!pap_selected(fun) || n_basic_blocks_for_fn(fun) <= 2)
		return 0;
	asmname = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
	file = DECL_SOURCE_FILE(fun->decl);
	pap_graph_text(fun, &graph);
	pap_lines_text(fun, &lines);
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
	blocks = XNEWVEC(basic_block, g.nblocks);
	FOR_EACH_BB_FN(bb, fun) {
		char name[32];

		snprintf(name, sizeof(name), "b%d", bb->index);
		blocks[pap_cfgtext_block(&g, name)] = bb;
	}
	if (!pap_placeable(fun, &g, plan, blocks)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl),
			       "pap: %qs not instrumented: probes would sit on "
			       "abnormal edges", asmname);
		XDELETEVEC(blocks);
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
	em.bps = create_tmp_var(ptr_type_node, "pap_bps");
	em.key = build_string_literal(strlen(key) + 1, key);
	em.restart = plan->restart;
	for (id = 0; id < g.cfg->nedges; id++) {
		const struct pap_edge *pe = &g.cfg->edges[id];
		gimple_seq seq;

		if (!pap_plan_nops(plan, id) || pe->flags & PAP_EF_DEAD)
			continue;
		seq = pap_ops_seq(plan, id, &em, pe->kind != PAP_EDGE_FAKE);
		if (pe->kind == PAP_EDGE_FAKE)
			pap_emit_fake(blocks[pe->src], seq);
		else
			gsi_insert_seq_on_edge(pap_gcc_edge(fun, &g, id, blocks),
					       seq);
	}
	gsi_commit_edge_inserts();
	XDELETEVEC(blocks);

	pap_text_printf(&pap_meta, "function %s\nfile %s\nmode %s\n%s%s"
			"checksum %016llx\nend\n", asmname, file,
			pap_mode_name(plan->mode), graph.s, lines.s,
			(unsigned long long)checksum);
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: %s", asmname,
		       plan->note);
out:
	pap_plan_free(plan);
	if (have_graph)
		pap_cfgtext_free(&g);
	pap_text_free(&graph);
	pap_text_free(&lines);
	return 0;
}
