/* SPDX-License-Identifier: MIT */
/*
 * selective.cc - selective path profiling in the plugin: the path spec
 * files of -fplugin-arg-pap-spec, the selective plan (libcore/selective.h)
 * of each function they name, its metadata and checksum, and termination.
 *
 * A function named in a spec is numbered by pap_sel_build() for its paths
 * of interest; the plan's operations are re-indexed by CFG edge into a
 * plan of the usual shape (pap_sel_view()), so instrument.cc and emit.cc
 * place them as any plan's.  Termination: before the probes go in, the
 * body is duplicated into an uninstrumented copy, and each boundary edge
 * (T3) is split: the new block counts an early end (a record of the
 * function's companion key "ASMNAME%early", value 3) and jumps to the
 * copy of the edge's destination, so nothing more of the activation is
 * recorded.  A T1 or T2 check of at most PAP_SEL_MAX_CHECK values is a
 * chain of comparisons on a block split from its edge, which fails the
 * same way (value 1 or 2).  A function whose body cannot be copied
 * (exception or abnormal edges, setjmp, computed goto, asm goto) is
 * numbered over the whole graph instead (strategy psp1) and gets no
 * check: it needs no termination to be exact.  Larger checks are left
 * out too: checks only end paths not of interest early, so leaving them
 * out changes no count (doc/algorithms.md).  Strategy follow steps its
 * automaton on the step edges, except in a counted loop (a loop whose
 * iterations are forced to be alike), which only counts its iterations
 * and replays them where it ends (pap_sel_defer()); a flat automaton
 * (no blocks) steps through a table of each path's symbol codes.
 */
#include "gcc-common.h"
#include "cfghooks.h"
#include "gimple-walk.h"
#include "tree-ssanames.h"
#include "plugin.h"

#include "cfgtext.h"
#include "fnkey.h"
#include "meta.h"
#include "pathspec.h"
#include "probes.h"
#include "rtabi.h"
#include "selective.h"
#include "textfile.h"

/* The specs' paths (all files), and the strategy asked for. */
static struct pap_spec pap_spec_paths;
static const char **pap_spec_files;	/* per path: its file */
static bool *pap_spec_used;		/* per path: its function was seen */
static bool pap_sel_on;
static enum pap_sel_strategy pap_sel_asked = PAP_SEL_FOLLOW;

bool pap_sel_enabled(void)
{
	return pap_sel_on;
}

int pap_sel_set_strategy(const char *value)
{
	char buf[16];

	if (strlen(value) > 1 || !ISDIGIT(value[0]))
		return pap_sel_strategy_parse(value, &pap_sel_asked);
	snprintf(buf, sizeof(buf), "psp%s", value);
	return pap_sel_strategy_parse(buf, &pap_sel_asked);
}

/*
 * The one place that reads a spec file: its paths are added to @spec by
 * the core's reader (version 2, version 1 still read).  On any error
 * every message, "FILE:LINE: error: ...", is given to GCC and the spec
 * is not used.  Paths by source lines are resolved to their blocks
 * when their function is planned (pap_sel_resolve_lines()).
 */
static int pap_sel_read_spec(struct pap_spec *spec, const char *file,
			     char *err, size_t errlen)
{
	char *text = pap_read_text_file(file, (size_t)1 << 30, err, errlen);
	int r;

	if (!text)
		return PAP_EINVAL;
	r = pap_spec_parse(spec, text, file);
	free(text);
	if (r == PAP_OK && !spec->nerrors)
		return PAP_OK;
	if (spec->msglen) {
		const char *m = spec->msgs, *nl;

		/* each message but the last through GCC, the last back */
		while ((nl = strchr(m, '\n')) && nl[1]) {
			error("%.*s", (int)(nl - m), m);
			m = nl + 1;
		}
		snprintf(err, errlen, "%.*s", nl ? (int)(nl - m) :
			 (int)strlen(m), m);
	} else {
		snprintf(err, errlen, "%s: cannot read the spec", file);
	}
	return r ? r : PAP_ECORRUPT;
}

bool pap_sel_add_spec(const char *file)
{
	char err[512];
	size_t first = pap_spec_paths.npaths, k;

	if (!pap_sel_on)
		pap_spec_init(&pap_spec_paths);
	pap_sel_on = true;
	if (pap_sel_read_spec(&pap_spec_paths, file, err, sizeof(err))) {
		error("%s", err);
		return false;
	}
	pap_spec_files = XRESIZEVEC(const char *, pap_spec_files,
				    pap_spec_paths.npaths + 1);
	pap_spec_used = XRESIZEVEC(bool, pap_spec_used,
				   pap_spec_paths.npaths + 1);
	for (k = first; k < pap_spec_paths.npaths; k++) {
		pap_spec_files[k] = file;
		pap_spec_used[k] = false;
	}
	return true;
}

bool pap_sel_named(function *fun)
{
	const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
	size_t k;

	for (k = 0; k < pap_spec_paths.npaths; k++)
		if (!strcmp(pap_spec_paths.paths[k].name, name))
			return true;
	return false;
}

void pap_sel_finish_unit(void)
{
	size_t k, j;

	if (!pap_sel_on || !pap_opts.verbose)
		return;
	for (k = 0; k < pap_spec_paths.npaths; k++) {
		const char *name = pap_spec_paths.paths[k].name;

		for (j = 0; j < k; j++)
			if (!strcmp(pap_spec_paths.paths[j].name, name))
				break;
		if (j == k && !pap_spec_used[k])
			inform(UNKNOWN_LOCATION, "pap: %s:%u: function %qs is "
			       "not defined in this unit", pap_spec_files[k],
			       pap_spec_paths.paths[k].line, name);
	}
}

/*
 * Why @fun's body cannot be copied for termination, or NULL: every edge
 * must be an ordinary one (no exception, abnormal or computed-goto edge,
 * so no setjmp and no nonlocal label) and every block duplicable.
 */
const char *pap_sel_uncopyable(function *fun)
{
	basic_block bb;

	if (fun->calls_setjmp || fun->has_nonlocal_label)
		return "setjmp or a nonlocal label";
	FOR_EACH_BB_FN(bb, fun) {
		edge_iterator ei;
		edge e;

		FOR_EACH_EDGE(e, ei, bb->succs)
			if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
				return "exception or abnormal edges";
		if (!can_duplicate_block_p(bb))
			return "a block GCC cannot duplicate";
		gimple *last = last_stmt(bb);
		if (last && gimple_code(last) == GIMPLE_ASM &&
		    gimple_asm_nlabels(as_a<gasm *>(last)))
			return "asm goto";
	}
	return NULL;
}

/*
 * A plan of the usual shape over the CFG's edges holding @sp's
 * operations: what instrument.cc places.  The caller frees it with
 * pap_plan_free(); only the fields the probes read are set.
 */
static struct pap_plan *pap_sel_view(const struct pap_sel_plan *sp)
{
	const struct pap_cfg *cfg = sp->cfg;
	struct pap_plan *v = XCNEW(struct pap_plan);
	uint32_t e, n, k = 0;

	v->mode = sp->plan->mode;
	v->requested = sp->plan->requested;
	v->cfg = cfg;
	v->restart = sp->plan->restart;
	v->record_values = sp->plan->record_values;
	v->nfolds = sp->plan->nfolds;
	v->nfold_ops = sp->plan->nfold_ops;
	v->noverflow_tests = sp->plan->noverflow_tests;
	v->nprobe_sites = sp->nprobe_sites;
	v->op_off = (uint32_t *)xcalloc(cfg->nedges + 1, sizeof(uint32_t));
	v->ops = (struct pap_op *)xcalloc(sp->plan->nops + 1,
					  sizeof(struct pap_op));
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_op *ops = pap_sel_ops(sp, e, &n);
		uint32_t i;

		v->op_off[e] = k;
		for (i = 0; i < n; i++)
			/* follow: the automaton steps where r would fold,
			 * and records itself (pap_sel_follow()) */
			if (!sp->aut || (ops[i].kind != PAP_OP_FOLD &&
					 sp->aut->step[e] != 2))
				v->ops[k++] = ops[i];
	}
	if (sp->aut) {
		v->record_values = (uint64_t)sp->npaths + 1;
		v->nfold_ops = 0;
		v->noverflow_tests = 0;
	}
	v->op_off[cfg->nedges] = k;
	v->nops = k;
	snprintf(v->note, sizeof(v->note), "%s, %u paths of interest, %u "
		 "terminating edges: %.160s",
		 pap_sel_strategy_name(sp->strategy), sp->npaths, sp->nterm_edges, sp->note[0] ? sp->note :
		 sp->plan->note);
	return v;
}

/* @v as 16 hex digits (GCC's format has no %llx); a static buffer. */
static const char *pap_hex16(uint64_t v)
{
	static char buf[20];

	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
	return buf;
}

/*
 * Whether the spec path @p was taken from this build of its function:
 * its checksum, when it gives one, is the full-mode stamp of one of the
 * modes.
 */
static bool pap_sel_same_graph(const struct pap_spec_path *p,
			       const char *graph)
{
	enum pap_mode m[3] = { PAP_MODE_PAP_EPP, PAP_MODE_PAP, PAP_MODE_EPP };
	int i;

	if (!p->has_checksum)
		return true;
	for (i = 0; i < 3; i++)
		if (pap_meta_checksum(m[i], graph, strlen(graph)) ==
		    p->checksum)
			return true;
	return false;
}

/*
 * Resolves the spec paths by source lines that name @asmname to their
 * blocks, as pap-decode check-spec does: through the core's checker, on
 * the function's own metadata entry read back (its graph and its lines
 * as the reports give them).  Every message goes to GCC; false after
 * one.
 */
static bool pap_sel_resolve_lines(const char *asmname, const char *file,
				  const char *graph, const char *lines)
{
	uint64_t sum = pap_meta_checksum(PAP_MODE_PAP_EPP, graph,
					 strlen(graph));
	struct pap_meta meta;
	struct pap_spec_fn fn;
	char *text, err[512];
	size_t k, len, mark = pap_spec_paths.msglen;
	bool ok = true, any = false;
	int n;

	for (k = 0; k < pap_spec_paths.npaths; k++)
		if (pap_spec_paths.paths[k].kind == PAP_SPEC_LINES &&
		    !strcmp(pap_spec_paths.paths[k].name, asmname))
			any = true;
	if (!any)
		return true;
	n = pap_meta_format_fn(NULL, 0, asmname, file, PAP_MODE_PAP_EPP,
			       graph, lines, sum);
	len = strlen(PAP_META_HEADER) + (size_t)n + 1;
	text = XNEWVEC(char, len);
	strcpy(text, PAP_META_HEADER);
	pap_meta_format_fn(text + strlen(PAP_META_HEADER),
			   len - strlen(PAP_META_HEADER), asmname, file,
			   PAP_MODE_PAP_EPP, graph, lines, sum);
	err[0] = '\0';
	pap_meta_init(&meta);
	if (pap_meta_parse(&meta, text, file, err, sizeof(err)) ||
	    !meta.nfns || pap_spec_fn_from_meta(&fn, meta.fns[0])) {
		error("pap: %qs: cannot read back its own metadata: %s",
		      asmname, err);
		ok = false;
	} else {
		for (k = 0; k < pap_spec_paths.npaths; k++) {
			struct pap_spec_path *p = &pap_spec_paths.paths[k];

			if (p->kind != PAP_SPEC_LINES ||
			    strcmp(p->name, asmname))
				continue;
			/* the checksum of whichever full mode it gives */
			fn.checksum = p->has_checksum &&
				pap_sel_same_graph(p, graph) ? p->checksum :
				sum;
			if (pap_spec_check(&pap_spec_paths, k, &fn))
				ok = false;
		}
		pap_spec_fn_free(&fn);
	}
	if (!ok && pap_spec_paths.msglen > mark) {
		const char *m = pap_spec_paths.msgs + mark, *nl;

		while ((nl = strchr(m, '\n'))) {
			error("%.*s", (int)(nl - m), m);
			m = nl + 1;
		}
	}
	pap_meta_free(&meta);
	XDELETEVEC(text);
	return ok;
}

/*
 * The paths of interest of @asmname from the specs, as CFG edges of
 * @g into @paths (XNEWVEC'd edges, each path's spec index in @which);
 * their number, or -1 after an error naming FILE:LINE.
 */
static int pap_sel_paths(const char *asmname, const struct pap_cfgtext *g,
			 const char *graph, struct pap_sel_path **paths,
			 size_t **which)
{
	size_t k, n = 0;
	bool ok = true;

	*paths = XNEWVEC(struct pap_sel_path, pap_spec_paths.npaths + 1);
	*which = XNEWVEC(size_t, pap_spec_paths.npaths + 1);
	for (k = 0; k < pap_spec_paths.npaths; k++) {
		const struct pap_spec_path *p = &pap_spec_paths.paths[k];
		const char *file = pap_spec_files[k];
		uint32_t *edges;
		char err[256];

		if (strcmp(p->name, asmname))
			continue;
		pap_spec_used[k] = true;
		if (!pap_sel_same_graph(p, graph)) {
			error("%s:%u: function %qs has changed since the spec "
			      "was written (its checksum is not %s)", file,
			      p->line, asmname, pap_hex16(p->checksum));
			ok = false;
			continue;
		}
		edges = XNEWVEC(uint32_t, p->nblocks + 1);
		if (pap_sel_path_from_numbers(g, p->blocks, p->nblocks, edges,
					      err, sizeof(err))) {
			error("%s:%u: function %qs: not a path: %s", file,
			      p->line, asmname, err);
			XDELETEVEC(edges);
			ok = false;
			continue;
		}
		(*paths)[n].edges = edges;
		(*paths)[n].len = p->nblocks + 1;
		(*which)[n++] = k;
	}
	return ok ? (int)n : -1;
}

/*
 * The metadata lines of the selection (libcore/meta.h): the strategy,
 * then each path of interest as its spec gave it, with its FILE:LINE.
 */
static void pap_sel_meta_text(const struct pap_sel_plan *sp,
			      const size_t *which, size_t n,
			      struct pap_text *t)
{
	size_t k, i;

	pap_text_printf(t, "select %s %llu\n",
			pap_sel_strategy_name(sp->strategy),
			(unsigned long long)sp->max_paths);
	for (k = 0; k < n; k++) {
		const struct pap_spec_path *p = &pap_spec_paths.paths[which[k]];

		pap_text_printf(t, "spath %zu", p->nblocks);
		for (i = 0; i < p->nblocks; i++)
			pap_text_printf(t, " %u", p->blocks[i]);
		pap_text_printf(t, " %s:%u\n", pap_spec_files[which[k]],
				p->line);
	}
}

bool pap_sel_plan_fn(function *fun, const char *asmname,
		     const struct pap_cfgtext *g, const char *graph,
		     struct pap_text *lines, struct pap_plan **plan,
		     uint64_t *checksum, struct pap_sel_plan **out)
{
	struct pap_sel_path *paths;
	enum pap_sel_strategy s = pap_sel_asked;
	struct pap_sel_plan *sp = NULL;
	/* with calls, an early end would run a copy without call probes */
	const char *why = pap_opts.calls ? "call probes" :
			  pap_sel_uncopyable(fun);
	size_t *which, k;
	char err[512];
	int n, r;

	if (!pap_sel_resolve_lines(asmname, DECL_SOURCE_FILE(fun->decl),
				   graph, lines->s)) {
		n = -1;
		paths = NULL;
		which = NULL;
		goto out;
	}
	n = pap_sel_paths(asmname, g, graph, &paths, &which);
	if (n < 0)
		goto out;
	if (!n) {
		error("function %qs: the spec names no path of it", asmname);
		goto out;
	}
	if (why && (s == PAP_SEL_SPP || s == PAP_SEL_PSP2 ||
		    s == PAP_SEL_PSP3 || s == PAP_SEL_FOLLOW)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: no "
			       "uninstrumented copy (%s): strategy psp1 "
			       "without termination instead of %s", asmname,
			       why, pap_sel_strategy_name(s));
		s = PAP_SEL_PSP1;
	}
	r = pap_sel_build(g->cfg, s, paths, (size_t)n, NULL, &sp, err,
			  sizeof(err));
	if (r) {
		/* name the first path's spec line: the message names the
		 * path by its number among this function's */
		error("%s:%u: function %qs: %s", pap_spec_files[which[0]],
		      pap_spec_paths.paths[which[0]].line, asmname, err);
		sp = NULL;
		goto out;
	}
	*plan = pap_sel_view(sp);
	*checksum = pap_meta_sel_checksum(pap_meta_checksum(sp->plan->mode,
		graph, strlen(graph)), pap_sel_stamp(sp));
	pap_sel_meta_text(sp, which, (size_t)n, lines);
out:
	for (k = 0; n > 0 && k < (size_t)n; k++)
		XDELETEVEC(paths[k].edges);
	XDELETEVEC(paths);
	XDELETEVEC(which);
	*out = sp;
	return sp != NULL;
}

/*
 * The copy of @bb's switch, whose cases still name the labels of the
 * original blocks: each case names the label of its block's copy.
 */
static void pap_sel_switch_copy(gswitch *sw, basic_block *copy)
{
	unsigned i;

	for (i = 0; i < gimple_switch_num_labels(sw); i++) {
		tree c = gimple_switch_label(sw, i);
		basic_block d = label_to_block(cfun, CASE_LABEL(c));

		CASE_LABEL(c) = gimple_block_label(copy[d->index]);
	}
}

/* walk_gimple_op callback: an SSA name becomes the variable the map in
 * wi->info gives it. */
static tree pap_sel_rename(tree *tp, int *walk_subtrees, void *data)
{
	struct walk_stmt_info *wi = (struct walk_stmt_info *)data;
	hash_map<tree, tree> *map = (hash_map<tree, tree> *)wi->info;
	tree *to;

	if (TREE_CODE(*tp) == SSA_NAME) {
		to = map->get(*tp);
		if (to)
			*tp = *to;
		*walk_subtrees = 0;
	}
	return NULL_TREE;
}

/*
 * Makes each SSA name of @fun (the gimplifier makes its temporaries SSA
 * names already when optimizing) a temporary variable of its own, in
 * every statement.  An early end may leave the body between such a
 * name's definition and a use, for the use's copy: as a variable, the
 * "ssa" pass joins the two definitions where the paths meet, which no
 * renaming without PHI nodes could.
 */
static void pap_sel_unssa(function *fun)
{
	hash_map<tree, tree> map;
	gimple_stmt_iterator gsi;
	struct walk_stmt_info wi;
	basic_block bb;
	unsigned i;
	tree name;

	FOR_EACH_SSA_NAME(i, name, fun)
		if (!SSA_NAME_IS_DEFAULT_DEF(name))
			map.put(name, create_tmp_reg(TREE_TYPE(name), "pap_t"));
	if (!map.elements())
		return;
	FOR_EACH_BB_FN(bb, fun)
		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			memset(&wi, 0, sizeof(wi));
			wi.info = &map;
			walk_gimple_op(gsi_stmt(gsi), pap_sel_rename, &wi);
			update_stmt_if_modified(gsi_stmt(gsi));
		}
	FOR_EACH_SSA_NAME(i, name, fun)
		if (!SSA_NAME_IS_DEFAULT_DEF(name))
			release_ssa_name(name);
}

/*
 * Copies every block of @fun after the last one, statement by statement
 * (the function is not in SSA form: no PHI; its SSA temporaries become
 * variables first, pap_sel_unssa()), with its edges leading to the
 * copies, in no loop until the loops are found again; returns the copy
 * of each block by index (XNEWVEC).
 */
basic_block *pap_sel_copy_body(function *fun)
{
	auto_vec<basic_block> bbs;
	basic_block bb, after = EXIT_BLOCK_PTR_FOR_FN(fun)->prev_bb;
	basic_block *copy = XCNEWVEC(basic_block,
				     last_basic_block_for_fn(fun));
	unsigned i;

	pap_sel_unssa(fun);
	FOR_EACH_BB_FN(bb, fun)
		bbs.safe_push(bb);
	for (i = 0; i < bbs.length(); i++) {
		gimple_stmt_iterator from, to;

		bb = create_empty_bb(after);
		bb->count = bbs[i]->count;
		add_bb_to_loop(bb, current_loops->tree_root);
		to = gsi_start_bb(bb);
		for (from = gsi_start_bb(bbs[i]); !gsi_end_p(from);
		     gsi_next(&from)) {
			gimple *g = gsi_stmt(from);

			if (gimple_code(g) == GIMPLE_LABEL)
				continue;
			gsi_insert_after(&to, gimple_copy(g), GSI_NEW_STMT);
		}
		copy[bbs[i]->index] = after = bb;
	}
	for (i = 0; i < bbs.length(); i++) {
		basic_block c = copy[bbs[i]->index];
		gimple *last = last_stmt(c);
		edge_iterator ei;
		edge e, n;

		FOR_EACH_EDGE(e, ei, bbs[i]->succs) {
			n = make_edge(c, e->dest->index >= NUM_FIXED_BLOCKS ?
				      copy[e->dest->index] : e->dest,
				      e->flags & (EDGE_TRUE_VALUE |
						  EDGE_FALSE_VALUE |
						  EDGE_FALLTHRU));
			n->probability = e->probability;
		}
		if (last && gimple_code(last) == GIMPLE_SWITCH)
			pap_sel_switch_copy(as_a<gswitch *>(last), copy);
	}
	return copy;
}

/*
 * Deletes the blocks no path reaches any more, GCC wants every block
 * reachable: copies no boundary edge leads to, and blocks of the body
 * that only boundary edges or failing checks led to.  Their edges leave
 * @gcc_edge (of @nedges entries) and their core nodes @tails (of
 * @nnodes): no execution takes them, so their probes have no place.
 */
static void pap_sel_prune(function *fun, edge *gcc_edge, uint32_t nedges,
			  basic_block *tails, uint32_t nnodes)
{
	auto_vec<basic_block> stack, dead;
	auto_sbitmap seen(last_basic_block_for_fn(fun));
	basic_block bb;
	uint32_t id;
	unsigned i;

	bitmap_clear(seen);
	stack.safe_push(ENTRY_BLOCK_PTR_FOR_FN(fun));
	bitmap_set_bit(seen, ENTRY_BLOCK);
	while (!stack.is_empty()) {
		edge_iterator ei;
		edge e;

		bb = stack.pop();
		FOR_EACH_EDGE(e, ei, bb->succs)
			if (bitmap_set_bit(seen, e->dest->index))
				stack.safe_push(e->dest);
	}
	FOR_EACH_BB_FN(bb, fun)
		if (!bitmap_bit_p(seen, bb->index))
			dead.safe_push(bb);
	for (id = 0; id < nedges; id++)
		if (gcc_edge[id] &&
		    !bitmap_bit_p(seen, gcc_edge[id]->src->index))
			gcc_edge[id] = NULL;
	for (id = 0; id < nnodes; id++)
		if (tails[id] && !bitmap_bit_p(seen, tails[id]->index))
			tails[id] = NULL;
	for (i = 0; i < dead.length(); i++)
		delete_basic_block(dead[i]);
}

/* Early ends take the values 1 to 3 (the technique). */
#define PAP_SEL_EARLY_VALUES 4

/*
 * A complete path of @key with @value (a u64 tree) of @nvalues, counted
 * in place through @counters (pap_tally_var()) when it is not
 * NULL_TREE: the late pass makes the call one inline increment
 * (fold.cc); else a call of __pap_path.
 */
static gimple_seq pap_sel_tally_seq(tree key, tree slot, tree counters,
				    tree value, uint64_t nvalues)
{
	gimple_seq seq = NULL;
	tree arg = pap_key_arg(&seq, key, slot), addr;

	if (!counters) {
		gimple_seq_add_stmt(&seq, gimple_build_call(
			pap_rt_decl(PAP_RT_PATH), 3, arg, value,
			build_int_cst(integer_type_node, 1)));
		return seq;
	}
	addr = create_tmp_var(ptr_type_node, "pap_tp");
	gimple_seq_add_stmt(&seq, gimple_build_assign(addr,
		build_fold_addr_expr(counters)));
	gimple_seq_add_stmt(&seq, gimple_build_call(pap_rt_decl(PAP_RT_TALLY),
		5, addr, arg, value, build_int_cstu(pap_rt_u64(), nvalues),
		build_int_cst(integer_type_node, 0)));
	return seq;
}

/*
 * A record of @key's companion "ASMNAME%early": an early end by
 * technique @t (1, 2 or 3 for T1, T2, T3), counted in place when
 * @counters is given, so that an activation that ends early costs
 * little more than the plain one.
 */
static gimple_seq pap_sel_early_seq(tree key, tree slot, tree counters,
				    unsigned t)
{
	return pap_sel_tally_seq(key, slot, counters,
				 build_int_cstu(pap_rt_u64(), t),
				 PAP_SEL_EARLY_VALUES);
}

/* Checks with more values than this are left out (they only end paths
 * not of interest early): a check is a chain of comparisons. */
#define PAP_SEL_MAX_CHECK 16

/*
 * What a T2 check on core edge @id tests, the digit of its first FOLD
 * (pap_sel_digit()), computed from @a into a new temporary by @seq.
 */
static tree pap_sel_digit_seq(const struct pap_plan *plan, uint32_t id,
			      tree a, gimple_seq *seq)
{
	tree t = create_tmp_var(pap_rt_u64(), "pap_digit");
	uint32_t k;

	gimple_seq_add_stmt(seq, gimple_build_assign(t, a));
	for (k = plan->op_off[id]; k < plan->op_off[id + 1]; k++) {
		const struct pap_op *op = &plan->ops[k];

		if (op->kind == PAP_OP_ADD)
			gimple_seq_add_stmt(seq, gimple_build_assign(t,
				PLUS_EXPR, t, build_int_cstu(pap_rt_u64(),
							     op->k)));
		else if (op->kind == PAP_OP_SET || op->kind == PAP_OP_INIT)
			gimple_seq_add_stmt(seq, gimple_build_assign(t,
				build_int_cstu(pap_rt_u64(), op->k)));
		else if (op->kind == PAP_OP_FOLD)
			break;
	}
	gimple_seq_add_stmt(seq, gimple_build_assign(t, PLUS_EXPR, t,
		build_int_cstu(pap_rt_u64(), k < plan->op_off[id + 1] ?
			       plan->ops[k].k : 0)));
	return t;
}

/* A new empty block after @after, in @after's loop until the loops
 * are found again. */
static basic_block pap_sel_block(basic_block after)
{
	basic_block bb = create_empty_bb(after);

	add_bb_to_loop(bb, after->loop_father);
	bb->count = after->count;
	return bb;
}

/*
 * Puts core edge @id's check (T1 after its operations, T2 before them),
 * of one value or more, on its GCC edge @gcc_edge[@id]: a chain of
 * comparisons of the value with the table; where none holds, an early
 * end (@early) and on into the copy @to of the edge's destination.
 * @gcc_edge[@id] becomes the edge whose code runs where the operations
 * must: before the check (T1) or after it passed (T2).
 */
static void pap_sel_check(const struct pap_sel_plan *sp,
			  const struct pap_plan *plan, uint32_t id,
			  edge *gcc_edge, basic_block to, tree r, tree a,
			  gimple_seq early)
{
	edge e = gcc_edge[id];
	basic_block first, pass, fail, b;
	uint32_t lo = sp->check_off[id], hi = sp->check_off[id + 1], k;
	gimple_seq seq = NULL;
	gimple_stmt_iterator gsi;
	tree v;
	edge ne;

	first = split_edge(e);		/* e now ends at first */
	pass = split_edge(single_succ_edge(first));
	remove_edge(single_succ_edge(first));
	if (sp->check[id] == PAP_SEL_CHECK_T2) {
		v = pap_sel_digit_seq(plan, id, a, &seq);
		gcc_edge[id] = single_succ_edge(pass);
	} else {
		v = r;
	}
	/* after the label a switch's case may have given @first */
	gsi = gsi_after_labels(first);
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
	fail = pap_sel_block(first);
	gsi = gsi_start_bb(fail);
	gsi_insert_seq_after(&gsi, early, GSI_NEW_STMT);
	make_single_succ_edge(fail, to, EDGE_FALLTHRU);
	b = first;
	for (k = lo; k < hi; k++) {
		basic_block next = k + 1 < hi ? pap_sel_block(b) : fail;

		gsi = gsi_last_bb(b);
		gsi_insert_after(&gsi, gimple_build_cond(EQ_EXPR, v,
			build_int_cstu(pap_rt_u64(), sp->check_val[k]),
			NULL_TREE, NULL_TREE), GSI_NEW_STMT);
		ne = make_edge(b, pass, EDGE_TRUE_VALUE);
		ne->probability = profile_probability::likely();
		ne = make_edge(b, next, EDGE_FALSE_VALUE);
		ne->probability = profile_probability::unlikely();
		b = next;
	}
}

/* Ends @from with "if (@x @code @y)", on to @yes or @no. */
static void pap_sel_if(basic_block from, enum tree_code code, tree x, tree y,
		       basic_block yes, basic_block no, bool likely)
{
	gimple_stmt_iterator gsi = gsi_last_bb(from);

	gsi_insert_after(&gsi, gimple_build_cond(code, x, y, NULL_TREE,
		NULL_TREE), GSI_NEW_STMT);
	make_edge(from, yes, EDGE_TRUE_VALUE)->probability = likely ?
		profile_probability::likely() :
		profile_probability::unlikely();
	make_edge(from, no, EDGE_FALSE_VALUE)->probability = likely ?
		profile_probability::unlikely() :
		profile_probability::likely();
}

/* Ends @from with "if (@x == @v)": on to @yes when it holds (likely
 * or not as @likely says), else to @no. */
static void pap_sel_branch(basic_block from, tree x, uint64_t v,
			   basic_block yes, basic_block no, bool likely)
{
	pap_sel_if(from, EQ_EXPR, x, build_int_cstu(TREE_TYPE(x), v), yes, no,
		   likely);
}

/* Appends @x = @v (a constant of @x's type) or @x = @y (@y given). */
static void pap_sel_set(basic_block bb, tree x, uint64_t v, tree y)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);

	gsi_insert_after(&gsi, gimple_build_assign(x, y ? y :
		build_int_cstu(TREE_TYPE(x), v)), GSI_NEW_STMT);
}

/* Is position @p (global) of path @k inside a repeated block, i.e.
 * does a block that ends at or after it start at or before it? */
static bool pap_sel_in_repeat(const struct pap_sel_auto *au, uint32_t k,
			      uint32_t p)
{
	uint32_t q, c;

	for (q = p; q < au->off[k + 1]; q++)
		for (c = au->close_off[q]; c < au->close_off[q + 1]; c++)
			if (au->off[k] + au->close_first[c] <= p)
				return true;
	return false;
}

/*
 * The step of path @k of the automaton at core edge @id (on digit @d),
 * appended to @cur (libcore's pap_sel_auto_step() is its reference):
 * a chain comparing pos with each position of the path at this edge
 * (those in repeated blocks first), then the digit, then the move: for
 * each block ending there, innermost first, back to its first position
 * while its level's counter (@cnt[level]) is below its count, else the
 * counter to 0 and on; past the position when no block took it.  Any
 * mismatch makes the path dead.  Returns the block where all cases
 * join.
 */
static basic_block pap_sel_follow_path(const struct pap_sel_auto *au,
				       uint32_t k, uint32_t id,
				       basic_block cur, tree pos, tree *cnt,
				       tree d)
{
	auto_vec<uint32_t> at;
	basic_block join, dead, b;
	uint32_t p, i, g, c;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (p = au->off[k]; p < au->off[k + 1]; p++)
			if (au->edge[p] == id &&
			    pap_sel_in_repeat(au, k, p) == !pass)
				at.safe_push(p - au->off[k]);
	if (at.is_empty()) {
		pap_sel_set(cur, pos, PAP_SEL_DEAD, NULL_TREE);
		return cur;
	}
	join = pap_sel_block(cur);
	dead = pap_sel_block(cur);
	pap_sel_set(dead, pos, PAP_SEL_DEAD, NULL_TREE);
	make_single_succ_edge(dead, join, EDGE_FALLTHRU);
	b = cur;
	for (i = 0; i < at.length(); i++) {
		basic_block next = i + 1 < at.length() ? pap_sel_block(b) :
			dead;
		basic_block m = pap_sel_block(b), adv = pap_sel_block(b);
		uint32_t q = at[i];

		g = au->off[k] + q;
		pap_sel_branch(b, pos, q, m, next, i == 0);
		pap_sel_branch(m, d, au->digit[g], adv, dead, true);
		for (c = au->close_off[g]; c < au->close_off[g + 1]; c++) {
			tree n = cnt[au->close_level[c]];
			basic_block again = pap_sel_block(adv);
			basic_block on = pap_sel_block(adv);
			gimple_stmt_iterator gsi = gsi_last_bb(adv);

			gsi_insert_after(&gsi, gimple_build_assign(n,
				PLUS_EXPR, n, build_int_cstu(TREE_TYPE(n), 1)),
				GSI_NEW_STMT);
			pap_sel_if(adv, LT_EXPR, n,
				   build_int_cstu(TREE_TYPE(n),
						  au->close_reps[c]),
				   again, on, true);
			pap_sel_set(again, pos, au->close_first[c], NULL_TREE);
			make_single_succ_edge(again, join, EDGE_FALLTHRU);
			pap_sel_set(on, n, 0, NULL_TREE);
			adv = on;
		}
		pap_sel_set(adv, pos, q + 1, NULL_TREE);
		make_single_succ_edge(adv, join, EDGE_FALLTHRU);
		b = next;
	}
	return join;
}

/*
 * The table of path @k of flat automaton @au: the codes of its
 * positions (pap_sel_auto_code()), entries of au->flat bytes in the
 * target's order, then a 0 that no code equals, where a dead path
 * stays.
 */
static tree pap_sel_flat_table(const struct pap_sel_auto *au, uint32_t k)
{
	uint32_t n = au->off[k + 1] - au->off[k], p, i;
	unsigned w = au->flat;
	tree elt = w == 1 ? unsigned_char_type_node :
			    short_unsigned_type_node;
	tree type = build_array_type_nelts(elt, n + 1);
	tree tab = pap_static_var("pap_path", type), str;
	char *buf = XCNEWVEC(char, ((size_t)n + 1) * w);

	for (p = 0; p < n; p++) {
		uint32_t g = au->off[k] + p;
		uint64_t c = pap_sel_auto_code(au, au->edge[g], au->digit[g]);

		for (i = 0; i < w; i++)
			buf[(size_t)p * w + (BYTES_BIG_ENDIAN ? w - 1 - i : i)] =
				(char)(c >> (8 * i));
	}
	str = build_string((int)(((size_t)n + 1) * w), buf);
	TREE_TYPE(str) = type;
	TREE_CONSTANT(str) = 1;
	TREE_STATIC(str) = 1;
	XDELETEVEC(buf);
	TREE_READONLY(tab) = 1;
	TREE_CONSTANT(tab) = 1;
	DECL_INITIAL(tab) = str;
	varpool_node::finalize_decl(tab);
	return tab;
}

/*
 * The step of flat automaton @au at core edge @id (on digit @d), into
 * @seq, with each path's table @tab[k] and position @pos[k]: the code
 * of the edge and digit is compared with each path's next entry, a
 * match moves it on, a mismatch puts it on its table's end, where no
 * code matches again.  Returns a flag true while some path is alive.
 */
static tree pap_sel_flat_step(const struct pap_sel_auto *au, uint32_t id,
			      tree d, tree *tab, tree *pos, gimple_seq *seq)
{
	tree u64 = pap_rt_u64(), u32 = unsigned_type_node;
	tree c = create_tmp_var(u64, "pap_code");
	tree alive = NULL_TREE;
	uint64_t lim = (uint64_t)1 << (8 * au->flat - au->code_bits);
	uint32_t k;

	gimple_seq_add_stmt(seq, gimple_build_assign(c, MIN_EXPR, d,
		build_int_cstu(u64, lim)));
	gimple_seq_add_stmt(seq, gimple_build_assign(c, LSHIFT_EXPR, c,
		build_int_cst(integer_type_node, au->code_bits)));
	gimple_seq_add_stmt(seq, gimple_build_assign(c, BIT_IOR_EXPR, c,
		build_int_cstu(u64, au->code_edge[id])));
	for (k = 0; k < au->npaths; k++) {
		tree elt = TREE_TYPE(TREE_TYPE(tab[k]));
		tree t = create_tmp_var(elt, "pap_ent");
		tree t64 = create_tmp_var(u64, "pap_ent");
		tree hit = create_tmp_var(boolean_type_node, "pap_hit");
		tree on = create_tmp_var(u32, "pap_on");
		tree end = build_int_cstu(u32, au->off[k + 1] - au->off[k]);
		tree live = create_tmp_var(boolean_type_node, "pap_live");

		gimple_seq_add_stmt(seq, gimple_build_assign(t, build4(
			ARRAY_REF, elt, tab[k], pos[k], NULL_TREE,
			NULL_TREE)));
		gimple_seq_add_stmt(seq, gimple_build_assign(t64, NOP_EXPR,
							     t));
		gimple_seq_add_stmt(seq, gimple_build_assign(hit, EQ_EXPR,
							     t64, c));
		gimple_seq_add_stmt(seq, gimple_build_assign(on, PLUS_EXPR,
			pos[k], build_int_cstu(u32, 1)));
		gimple_seq_add_stmt(seq, gimple_build_assign(pos[k],
			COND_EXPR, hit, on, end));
		gimple_seq_add_stmt(seq, gimple_build_assign(live, NE_EXPR,
							     pos[k], end));
		if (alive)
			gimple_seq_add_stmt(seq, gimple_build_assign(live,
				BIT_IOR_EXPR, live, alive));
		alive = live;
	}
	return alive;
}

/*
 * Counted loops of strategy follow.  A loop whose one step edge is its
 * back edge @e, whose iteration is forced (every block of the loop has
 * one edge on in the loop, the only one out of the latch being @e), and
 * which is entered only at its header, repeats one symbol: the digit at
 * @e is the same in every iteration but the first (@rest), since the
 * accumulator restarts on @e.  Such an edge does not step: it counts,
 * "pend += 1", and every edge leaving the loop first replays what was
 * counted (pap_sel_flush()), so the automaton sees the same symbols in
 * the same order before any other step.  The first iteration's digit is
 * the accumulator where the loop was entered plus a constant (or a
 * constant), kept in @first on each edge into the header.
 */
struct pap_sel_defer {
	uint32_t e;			/* the back edge, core id */
	uint64_t rest;			/* its digit after the first */
	tree pend, first;
};

/* The accumulator as a function of its value at some point: @var
 * (that value) + @c, or the constant @c. */
struct pap_sel_aff {
	bool var;
	uint64_t c;
};

/* Applies plan edge @pe's operations to *@s, all of them, or those
 * before its first FOLD, giving then the digit there (a + k, as
 * pap_sel_digit()). */
static void pap_sel_aff_edge(const struct pap_plan *plan, uint32_t pe,
			     struct pap_sel_aff *s, bool digit)
{
	uint32_t k;

	for (k = plan->op_off[pe]; k < plan->op_off[pe + 1]; k++) {
		const struct pap_op *op = &plan->ops[k];

		if (op->kind == PAP_OP_ADD) {
			s->c += op->k;
		} else if (op->kind == PAP_OP_SET || op->kind == PAP_OP_INIT) {
			s->var = false;
			s->c = op->k;
		} else if (op->kind == PAP_OP_FOLD && digit) {
			s->c += op->k;
			return;
		}
	}
}

/* Can core edge @x run on into the instrumented body: on the numbered
 * graph, no boundary edge. */
static bool pap_sel_runs(const struct pap_sel_plan *sp, uint32_t x)
{
	return sp->to_plan[x] != PAP_NONE && !sp->term[x];
}

/* Does path @k hold position @q (its own numbering) at core edge @e with
 * digit @d, the innermost block ending there being @q alone?  Then
 * *@c is that block's close. */
static bool pap_sel_single(const struct pap_sel_auto *au, uint32_t k,
			   uint32_t q, uint32_t e, uint64_t d, uint32_t *c)
{
	uint32_t g = au->off[k] + q;

	if (au->edge[g] != e || au->digit[g] != d ||
	    au->close_off[g] == au->close_off[g + 1] ||
	    au->close_first[au->close_off[g]] != q)
		return false;
	*c = au->close_off[g];
	return true;
}

/*
 * Is core edge @e the back edge of a counted loop as above?  Then
 * *@df gets its digit after the first iteration and @inl marks the
 * loop's nodes, and @firsts (per core edge, for the edges into the
 * header) the first iteration's digit from the accumulator before that
 * edge.  Only where some path of interest repeats that symbol as a block
 * of its own: elsewhere counting would save nothing.
 */
static bool pap_sel_defer_find(const struct pap_sel_plan *sp,
			       const struct pap_cfgtext *g, edge *gcc_edge,
			       uint32_t e, uint8_t *inl,
			       struct pap_sel_aff *firsts, uint64_t *rest)
{
	const struct pap_cfg *cfg = g->cfg;
	const struct pap_sel_auto *au = sp->aut;
	uint32_t h = cfg->edges[e].dst, t = cfg->edges[e].src;
	uint32_t *out = XCNEWVEC(uint32_t, cfg->nnodes);
	uint32_t *next = XNEWVEC(uint32_t, cfg->nnodes);
	auto_vec<uint32_t> stack;
	struct pap_sel_aff s;
	uint32_t x, v, i, k, q, c;
	bool ok = true, used = false;

	memset(inl, 0, cfg->nnodes);
	inl[h] = inl[t] = 1;
	if (t != h)
		stack.safe_push(t);
	while (ok && !stack.is_empty()) {
		v = stack.pop();
		for (i = cfg->in_off[v]; i < cfg->in_off[v + 1]; i++) {
			x = cfg->in_edge[i];
			if (!pap_sel_runs(sp, x) || inl[cfg->edges[x].src])
				continue;
			if (cfg->edges[x].src == cfg->entry)
				ok = false;
			inl[cfg->edges[x].src] = 1;
			stack.safe_push(cfg->edges[x].src);
		}
	}
	for (x = 0; ok && x < cfg->nedges; x++) {
		const struct pap_edge *pe = &cfg->edges[x];
		bool s_in = inl[pe->src], d_in = inl[pe->dst];

		if (!pap_sel_runs(sp, x) || (!s_in && !d_in))
			continue;
		if (pe->kind == PAP_EDGE_FAKE || !gcc_edge[x] ||
		    (gcc_edge[x]->flags & (EDGE_ABNORMAL | EDGE_EH)))
			ok = false;
		else if (s_in && d_in) {
			if (x != e && au->step[x])
				ok = false;
			out[pe->src]++;
			next[pe->src] = x;
		} else if (s_in) {
			if (pe->dst == cfg->exit)
				ok = false;	/* no room before a return */
		} else if (pe->dst != h) {
			ok = false;
		}
	}
	for (v = 0; ok && v < cfg->nnodes; v++)
		if (inl[v] && out[v] != 1)
			ok = false;
	if (ok && next[t] != e)
		ok = false;
	/* the digit after a pass through @e, then before any edge in */
	if (ok) {
		s.var = true;
		s.c = 0;
		pap_sel_aff_edge(sp->plan, sp->to_plan[e], &s, false);
		for (v = h, i = 0; v != t && i < cfg->nnodes; i++) {
			pap_sel_aff_edge(sp->plan, sp->to_plan[next[v]], &s,
					 false);
			v = cfg->edges[next[v]].dst;
		}
		pap_sel_aff_edge(sp->plan, sp->to_plan[e], &s, true);
		ok = v == t && !s.var;
		*rest = s.c;
	}
	for (x = 0; ok && x < cfg->nedges; x++) {
		const struct pap_edge *pe = &cfg->edges[x];

		if (!pap_sel_runs(sp, x) || inl[pe->src] || !inl[pe->dst])
			continue;
		s.var = true;
		s.c = 0;
		pap_sel_aff_edge(sp->plan, sp->to_plan[x], &s, false);
		for (v = h; v != t; v = cfg->edges[next[v]].dst)
			pap_sel_aff_edge(sp->plan, sp->to_plan[next[v]], &s,
					 false);
		pap_sel_aff_edge(sp->plan, sp->to_plan[e], &s, true);
		firsts[x] = s;
	}
	for (k = 0; ok && k < au->npaths; k++)
		for (q = 0; q < au->off[k + 1] - au->off[k]; q++)
			if (pap_sel_single(au, k, q, e, *rest, &c))
				used = true;
	XDELETEVEC(out);
	XDELETEVEC(next);
	return ok && used;
}

/* Replaces core edge @id's GCC edge by a new block between its ends,
 * with no successor yet; gcc_edge[@id] becomes the edge out of *@pass,
 * the block that goes on to the destination. */
static basic_block pap_sel_open(edge *gcc_edge, uint32_t id,
				basic_block *pass)
{
	basic_block first = split_edge(gcc_edge[id]);

	*pass = split_edge(single_succ_edge(first));
	remove_edge(single_succ_edge(first));
	gcc_edge[id] = single_succ_edge(*pass);
	return first;
}

/* Appends "@x = @y @code @z" to @bb. */
static void pap_sel_op(basic_block bb, tree x, enum tree_code code, tree y,
		       tree z)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);

	gsi_insert_after(&gsi, gimple_build_assign(x, code, y, z),
			 GSI_NEW_STMT);
}

/*
 * Replays @df's count at the block @cur, which it ends, going on to
 * @pass: when anything was counted, the first iteration's step (digit
 * @df->first), then for each path the remaining pend - 1 steps of digit
 * @df->rest, a block of that one symbol absorbing as many as its count
 * leaves room for in one add, every other step as pap_sel_follow_path()
 * makes it; pend is 0 after.  The same state as that many steps one by
 * one: below the block's count a step adds one to its counter and stays.
 */
static void pap_sel_flush(const struct pap_sel_auto *au,
			  const struct pap_sel_defer *df, basic_block cur,
			  basic_block pass, tree *pos, tree *cnt)
{
	tree u64 = pap_rt_u64(), u32 = unsigned_type_node;
	tree rem = create_tmp_var(u64, "pap_rem");
	tree t64 = create_tmp_var(u64, "pap_t");
	tree t32 = create_tmp_var(u32, "pap_t");
	tree restd = build_int_cstu(u64, df->rest);
	basic_block b, done;
	uint32_t k, q, c;

	done = pap_sel_block(cur);
	pap_sel_set(done, df->pend, 0, NULL_TREE);
	make_single_succ_edge(done, pass, EDGE_FALLTHRU);
	b = pap_sel_block(cur);
	pap_sel_if(cur, NE_EXPR, df->pend, build_int_cstu(u64, 0), b, done,
		   false);
	for (k = 0; k < au->npaths; k++)
		b = pap_sel_follow_path(au, k, df->e, b, pos[k],
			cnt + (size_t)k * PAP_SEL_AUTO_DEPTH, df->first);
	for (k = 0; k < au->npaths; k++) {
		tree *ck = cnt + (size_t)k * PAP_SEL_AUTO_DEPTH;
		basic_block head = pap_sel_block(b), body = pap_sel_block(b);
		basic_block out = pap_sel_block(b), single = pap_sel_block(b);
		basic_block test, join;

		pap_sel_op(b, rem, MINUS_EXPR, df->pend, build_int_cstu(u64,
								       1));
		make_single_succ_edge(b, head, EDGE_FALLTHRU);
		pap_sel_if(head, EQ_EXPR, rem, build_int_cstu(u64, 0), out,
			   body, false);
		test = pap_sel_block(body);
		pap_sel_if(body, EQ_EXPR, pos[k], build_int_cstu(u32,
			   PAP_SEL_DEAD), out, test, false);
		for (q = 0; q < au->off[k + 1] - au->off[k]; q++) {
			basic_block fq, fin, part, nx;
			tree n;

			if (!pap_sel_single(au, k, q, df->e, df->rest, &c))
				continue;
			n = ck[au->close_level[c]];
			fq = pap_sel_block(test);
			fin = pap_sel_block(test);
			part = pap_sel_block(test);
			nx = pap_sel_block(test);
			pap_sel_if(test, EQ_EXPR, pos[k], build_int_cstu(u32, q),
				   fq, nx, true);
			{
				gimple_stmt_iterator gsi = gsi_last_bb(fq);

				gsi_insert_after(&gsi, gimple_build_assign(t64,
					NOP_EXPR, n), GSI_NEW_STMT);
			}
			pap_sel_op(fq, t64, PLUS_EXPR, t64, rem);
			pap_sel_if(fq, LT_EXPR, t64, build_int_cstu(u64,
				   au->close_reps[c]), fin, part, true);
			/* all of them within the block */
			{
				gimple_stmt_iterator gsi = gsi_last_bb(fin);

				gsi_insert_after(&gsi, gimple_build_assign(t32,
					NOP_EXPR, rem), GSI_NEW_STMT);
			}
			pap_sel_op(fin, n, PLUS_EXPR, n, t32);
			make_single_succ_edge(fin, out, EDGE_FALLTHRU);
			/* up to the last repeat, which the step closes */
			{
				gimple_stmt_iterator gsi = gsi_last_bb(part);

				gsi_insert_after(&gsi, gimple_build_assign(t32,
					MINUS_EXPR, build_int_cstu(u32,
					au->close_reps[c] - 1), n),
					GSI_NEW_STMT);
				gsi_insert_after(&gsi, gimple_build_assign(t64,
					NOP_EXPR, t32), GSI_NEW_STMT);
			}
			pap_sel_op(part, rem, MINUS_EXPR, rem, t64);
			pap_sel_set(part, n, au->close_reps[c] - 1, NULL_TREE);
			make_single_succ_edge(part, single, EDGE_FALLTHRU);
			test = nx;
		}
		make_single_succ_edge(test, single, EDGE_FALLTHRU);
		join = pap_sel_follow_path(au, k, df->e, single, pos[k], ck,
					   restd);
		pap_sel_op(join, rem, MINUS_EXPR, rem, build_int_cstu(u64, 1));
		make_single_succ_edge(join, head, EDGE_FALLTHRU);
		b = out;
	}
	pap_sel_set(b, df->pend, 0, NULL_TREE);
	make_single_succ_edge(b, pass, EDGE_FALLTHRU);
}

/*
 * Finds the counted loops (pap_sel_defer_find()) and puts in their
 * counting: @first on the edges into each header, "pend += 1" on the
 * back edge, the replay on the edges out; @skip[e] set for the back
 * edges, which take no step.  The counts start at 0 (@init).
 */
static void pap_sel_defer(const struct pap_sel_plan *sp,
			  const struct pap_cfgtext *g, edge *gcc_edge,
			  tree a, tree *pos, tree *cnt, gimple_seq *init,
			  uint8_t *skip, unsigned *ndefer)
{
	const struct pap_cfg *cfg = g->cfg;
	const struct pap_sel_auto *au = sp->aut;
	uint8_t *inl = XNEWVEC(uint8_t, cfg->nnodes);
	struct pap_sel_aff *firsts = XCNEWVEC(struct pap_sel_aff,
					      cfg->nedges);
	tree u64 = pap_rt_u64();
	uint32_t e, x;

	for (e = 0; e < cfg->nedges; e++) {
		struct pap_sel_defer df;
		basic_block b, pass;

		if (au->step[e] != 1 || !gcc_edge[e] ||
		    !pap_sel_runs(sp, e) ||
		    !pap_sel_defer_find(sp, g, gcc_edge, e, inl, firsts,
					&df.rest))
			continue;
		df.e = e;
		df.pend = create_tmp_var(u64, "pap_pend");
		df.first = create_tmp_var(u64, "pap_first");
		gimple_seq_add_stmt(init, gimple_build_assign(df.pend,
			build_int_cstu(u64, 0)));
		gimple_seq_add_stmt(init, gimple_build_assign(df.first,
			build_int_cstu(u64, 0)));
		skip[e] = 1;
		(*ndefer)++;
		b = pap_sel_open(gcc_edge, e, &pass);
		pap_sel_op(b, df.pend, PLUS_EXPR, df.pend,
			   build_int_cstu(u64, 1));
		make_single_succ_edge(b, pass, EDGE_FALLTHRU);
		for (x = 0; x < cfg->nedges; x++) {
			const struct pap_edge *pe = &cfg->edges[x];

			if (!pap_sel_runs(sp, x) ||
			    inl[pe->src] == inl[pe->dst])
				continue;
			b = pap_sel_open(gcc_edge, x, &pass);
			if (inl[pe->dst]) {
				/* into the header */
				if (firsts[x].var)
					pap_sel_op(b, df.first, PLUS_EXPR, a,
						   build_int_cstu(u64,
							firsts[x].c));
				else
					pap_sel_set(b, df.first, firsts[x].c,
						    NULL_TREE);
				make_single_succ_edge(b, pass, EDGE_FALLTHRU);
			} else {
				pap_sel_flush(au, &df, b, pass, pos, cnt);
			}
		}
	}
	XDELETEVEC(inl);
	XDELETEVEC(firsts);
}

/*
 * Strategy follow (libcore/selauto.c): the automaton's state, a
 * position and a repeat counter per path of interest, starts on the
 * entry edge; at each step edge that does not record, the digit the
 * register would fold is computed from @a and every path steps (by
 * compare chains, or through its table when flat); when
 * none is left alive, an early end (value 2, a digit check) and on
 * into the copy of the edge's destination.  At a recording edge, @r
 * becomes the number of the path that ended there matched (its last
 * position, a single one, matched), else the number of paths, and is
 * recorded as a complete path of the function's key @fkey (@fslot,
 * @fcounters), on the edge itself: the view has no operation there, so
 * that no return is moved before a tail call with a record of its own
 * (tailcall.cc) ahead of this code.
 */
static void pap_sel_follow(function *fun, const struct pap_sel_plan *sp,
			   const struct pap_cfgtext *g, edge *gcc_edge,
			   basic_block *copy, tree r, tree a, tree lit,
			   tree slot, tree counters, tree fkey, tree fslot,
			   tree fcounters)
{
	const struct pap_sel_auto *au = sp->aut;
	tree u32 = unsigned_type_node;
	tree *pos = XNEWVEC(tree, au->npaths);
	tree *cnt = XNEWVEC(tree, (size_t)au->npaths * PAP_SEL_AUTO_DEPTH);
	gimple_seq init = NULL;
	uint32_t id, k, p;
	unsigned ndefer = 0;
	uint8_t *skip;
	tree *tab;

	for (k = 0; k < au->npaths; k++) {
		pos[k] = create_tmp_var(u32, "pap_pos");
		gimple_seq_add_stmt(&init, gimple_build_assign(pos[k],
			build_int_cstu(u32, 0)));
	}
	for (k = 0; k < au->npaths * PAP_SEL_AUTO_DEPTH; k++) {
		cnt[k] = create_tmp_var(u32, "pap_cnt");
		gimple_seq_add_stmt(&init, gimple_build_assign(cnt[k],
			build_int_cstu(u32, 0)));
	}
	skip = XCNEWVEC(uint8_t, g->cfg->nedges);
	tab = XCNEWVEC(tree, au->npaths);
	if (au->flat && pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: follow: "
		       "flat, %u positions in tables of %u-byte codes",
		       IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl)),
		       au->npos, (unsigned)au->flat);
	if (au->flat)
		for (k = 0; k < au->npaths; k++)
			tab[k] = pap_sel_flat_table(au, k);
	else
		pap_sel_defer(sp, g, gcc_edge, a, pos, cnt, &init, skip,
			      &ndefer);
	if (ndefer && pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: follow: "
		       "%u loops counted, replayed where they end",
		       IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl)),
		       ndefer);
	gsi_insert_seq_on_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)),
			       init);
	for (id = 0; id < g->cfg->nedges; id++) {
		edge e = gcc_edge[id];
		uint32_t pe = sp->to_plan[id];
		gimple_seq seq = NULL;
		basic_block first, pass, fail, b;
		gimple_stmt_iterator gsi;
		tree d, all;

		if (!e || !au->step[id] || skip[id])
			continue;
		d = pap_sel_digit_seq(sp->plan, pe, a, &seq);
		if (au->step[id] == 2) {
			/* straight-line, before the return */
			tree hit = create_tmp_var(boolean_type_node,
						  "pap_hit");
			tree h2 = create_tmp_var(boolean_type_node, "pap_hit");

			gimple_seq_add_stmt(&seq, gimple_build_assign(r,
				build_int_cstu(pap_rt_u64(), au->npaths)));
			for (k = 0; k < au->npaths; k++) {
				p = au->off[k + 1] - 1;
				if (au->off[k + 1] == au->off[k] ||
				    au->edge[p] != id)
					continue;
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					hit, EQ_EXPR, pos[k],
					build_int_cstu(u32, p - au->off[k])));
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					h2, EQ_EXPR, d, build_int_cstu(
						pap_rt_u64(), au->digit[p])));
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					hit, BIT_AND_EXPR, hit, h2));
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					r, COND_EXPR, hit, build_int_cstu(
						pap_rt_u64(), k), r));
			}
			gimple_seq_add_seq(&seq, pap_sel_tally_seq(fkey,
				fslot, fcounters, r, (uint64_t)au->npaths + 1));
			gsi_insert_seq_on_edge(e, seq);
			continue;
		}
		first = split_edge(e);
		pass = split_edge(single_succ_edge(first));
		remove_edge(single_succ_edge(first));
		gcc_edge[id] = single_succ_edge(pass);
		if (au->flat) {
			/* all dead: the flag false */
			all = pap_sel_flat_step(au, id, d, tab, pos, &seq);
			gsi = gsi_after_labels(first);
			gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
			fail = pap_sel_block(first);
			gsi = gsi_start_bb(fail);
			gsi_insert_seq_after(&gsi, pap_sel_early_seq(lit,
				slot, counters, 2), GSI_NEW_STMT);
			make_single_succ_edge(fail,
				copy[single_succ(pass)->index], EDGE_FALLTHRU);
			pap_sel_if(first, EQ_EXPR, all, boolean_false_node,
				   fail, pass, false);
			continue;
		}
		gsi = gsi_after_labels(first);
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
		b = first;
		for (k = 0; k < au->npaths; k++)
			b = pap_sel_follow_path(au, k, id, b, pos[k],
				cnt + (size_t)k * PAP_SEL_AUTO_DEPTH, d);
		all = pos[0];
		if (au->npaths > 1) {
			all = create_tmp_var(u32, "pap_all");
			gsi = gsi_last_bb(b);
			for (k = 1; k < au->npaths; k++)
				gsi_insert_after(&gsi, gimple_build_assign(all,
					BIT_AND_EXPR, k == 1 ? pos[0] : all,
					pos[k]), GSI_NEW_STMT);
		}
		fail = pap_sel_block(b);
		gsi = gsi_start_bb(fail);
		gsi_insert_seq_after(&gsi, pap_sel_early_seq(lit, slot,
				     counters, 2), GSI_NEW_STMT);
		make_single_succ_edge(fail, copy[single_succ(pass)->index],
				      EDGE_FALLTHRU);
		pap_sel_branch(b, all, PAP_SEL_DEAD, fail, pass, false);
	}
	XDELETEVEC(pos);
	XDELETEVEC(cnt);
	XDELETEVEC(skip);
	XDELETEVEC(tab);
}

void pap_sel_terminate(function *fun, const struct pap_sel_plan *sp,
		       const struct pap_plan *plan, const char *asmname,
		       uint64_t checksum, const struct pap_cfgtext *g,
		       edge *gcc_edge, basic_block *tails, tree r, tree a)
{
	char name[PAP_FNKEY_MAX], key[PAP_FNKEY_MAX];
	bool checks = false;
	basic_block *copy;
	tree lit, slot, counters;
	uint32_t id, n;
	unsigned t;

	for (id = 0; id < g->cfg->nedges; id++) {
		n = sp->check_off[id + 1] - sp->check_off[id];
		if (sp->check[id] && gcc_edge[id] && !sp->term[id] &&
		    n <= PAP_SEL_MAX_CHECK)
			checks = true;
	}
	if ((!sp->nterm_edges && !checks && !sp->aut) ||
	    pap_sel_uncopyable(fun) || pap_opts.calls)
		return;
	snprintf(name, sizeof(name), "%s%%early", asmname);
	pap_fnkey_format(key, sizeof(key), name, checksum, pap_meta_path());
	lit = build_string_literal(strlen(key) + 1, key);
	slot = pap_key_slot(lit);
	counters = pap_tally_var(PAP_SEL_EARLY_VALUES);
	copy = pap_sel_copy_body(fun);
	if (sp->aut) {
		tree flit, fslot;

		pap_fnkey_format(key, sizeof(key), asmname, checksum,
				 pap_meta_path());
		flit = build_string_literal(strlen(key) + 1, key);
		fslot = pap_key_slot(flit);
		pap_sel_follow(fun, sp, g, gcc_edge, copy, r, a, lit, slot,
			       counters, flit, fslot,
			       pap_tally_var((uint64_t)sp->npaths + 1));
	}
	for (id = 0; id < g->cfg->nedges; id++) {
		edge e = gcc_edge[id];
		basic_block b, to;

		if (!e || g->cfg->edges[id].kind == PAP_EDGE_FAKE ||
		    (!sp->term[id] && !sp->check[id]))
			continue;
		t = sp->check[id] == PAP_SEL_CHECK_T1 ? 1 : 2;
		n = sp->check_off[id + 1] - sp->check_off[id];
		if (!sp->term[id] && (n > PAP_SEL_MAX_CHECK ||
				      e->dest == EXIT_BLOCK_PTR_FOR_FN(fun)))
			continue;
		if (!sp->term[id] && n) {
			pap_sel_check(sp, plan, id, gcc_edge,
				      copy[e->dest->index], r, a,
				      pap_sel_early_seq(lit, slot, counters,
							t));
			continue;
		}
		/* a boundary edge, or a check no value passes: the edge's
		 * operations, if any, go before the early end (on @e) */
		if (sp->term[id])
			t = 3;
		if (e->dest == EXIT_BLOCK_PTR_FOR_FN(fun)) {
			gsi_insert_seq_on_edge(e, pap_sel_early_seq(lit, slot,
							counters, t));
			continue;
		}
		to = copy[e->dest->index];
		b = split_edge(e);
		gimple_stmt_iterator gsi = gsi_after_labels(b);
		gsi_insert_seq_before(&gsi, pap_sel_early_seq(lit, slot,
				      counters, t), GSI_SAME_STMT);
		redirect_edge_and_branch(single_succ_edge(b), to);
	}
	pap_sel_prune(fun, gcc_edge, g->cfg->nedges, tails, g->nblocks);
	XDELETEVEC(copy);
	pap_sel_copied(fun);
}

void pap_sel_copied(function *fun)
{
	/* the copies' loops may now be entered anywhere: found again */
	free_dominance_info(CDI_DOMINATORS);
	calculate_dominance_info(CDI_DOMINATORS);
	loops_state_set(LOOPS_NEED_FIXUP);
	fix_loop_structure(NULL);
	/* a copied loop entered elsewhere than at its header is irreducible */
	if (loops_state_satisfies_p(LOOPS_HAVE_MARKED_IRREDUCIBLE_REGIONS))
		mark_irreducible_loops();
	free_dominance_info(CDI_DOMINATORS);
	/* the temporaries made variables may ask for an SSA update; the
	 * function is not in SSA form yet, and "ssa" builds it */
	if (!gimple_in_ssa_p(fun) && fun->gimple_df) {
		fun->gimple_df->ssa_renaming_needed = 0;
		fun->gimple_df->rename_vops = 0;
		if (need_ssa_update_p(fun))
			delete_update_ssa();
	}
}
