/* SPDX-License-Identifier: MIT */
/*
 * pisp.cc - call sequences of interest (-fplugin-arg-pap-calls-spec=FILE;
 * doc/algorithms.md, "Call sequences of interest").
 *
 * The spec's "calls" lines name whole thread sequences (pathspec.h).  A
 * function that no sequence names keeps no call probes: its entry gets
 * one thread-local store instead, __pap_pisp_dead = 1 (librt/pisp.c),
 * and a thread that made it records no call sequence.  Callers count
 * such a function as uninstrumented (their sites to it are flagged o,
 * their clusters leave it out).  Every entry of an instrumented
 * function is an item of its thread's sequence, so a thread that
 * entered such a function is on no sequence of interest; a thread that
 * entered none made the same calls, entries and returns as in a build of
 * every function (it never took a site to such a function), so it
 * records the same sequence, numbered by this build's call-site graphs.
 * So each sequence of interest is counted exactly, and the functions
 * outside them pay one store per entry.
 *
 * The automaton (libcore/pispauto.h) drops the threads in functions of
 * interest but off every sequence: each such function's entry, after
 * its call probe, calls __pap_pisp_step(its letter), and the first entry
 * that no sequence of interest can make next sets __pap_pisp_dead.  The
 * unit's constructor hands the runtime the automaton, encoded, with
 * the spec's hash (__pap_pisp_unit); every unit with call probes does,
 * a unit without calls-spec with none, so that the runtime refuses a
 * program of units built with different specs.  A named function whose
 * body can be copied (selective.cc's copy) gets an uninstrumented copy
 * and, before every probe, if (__pap_pisp_dead) goto the copy: a thread
 * that left pays a load and a branch per entry (pap_pisp_guard()).
 *
 * The flag changes only inside calls (a step or a store at an entry),
 * so an activation that began while its thread was on a sequence tests
 * it right after each call that can enter the program, before the
 * call's return probe, and goes on in the copy right after the same
 * call (pap_pisp_switch()); a call in tail position, noreturn or
 * returns-twice has no such test (nothing follows it, or the function
 * has no copy).  The locals are variables shared by body and copy (no
 * SSA form yet), so the copy starts from the body's state.  An
 * activation that moved leaves its call frame on the runtime's stack,
 * without an exit probe: the frame is below the top and only a
 * function that keeps its probes enters above it, which takes the entry
 * for an asynchronous one; whatever a dead thread records is dropped
 * (librt/callrec.c).  A signal handler may set the flag between two
 * calls: the interrupted activation keeps its probes until its next
 * call returns, harmless for the same reason.  An activation with
 * intra-procedural path probes moves too: its current path is then
 * not counted, like every path of a dead thread's later entries.
 *
 * Paths inside functions (path and lines lines, here or in spec=FILE)
 * are selective profiling's (selective.cc): with calls, a function they
 * name is numbered for them without termination (psp1: the body's copy
 * would have no call probes) and has no copy, since its paths are
 * counted in every thread, and every other function keeps its call
 * probes with no path probes (mode none).
 */
#include "gcc-common.h"
#include "plugin.h"

#include "pathspec.h"
#include "pispauto.h"
#include "probes.h"
#include "rtabi.h"
#include "textfile.h"
#include "util.h"

static struct pap_spec pap_pisp_spec;
static bool pap_pisp_on;
/* the names of the sequences, sorted, each once ('>' dropped) */
static const char **pap_pisp_names;
static size_t pap_pisp_nnames;
static tree pap_pisp_var;
/* __pap_pisp_step and __pap_pisp_unit */
static tree pap_pisp_step_fn, pap_pisp_unit_fn;

static const struct ggc_root_tab pap_pisp_roots[] = {
	{ &pap_pisp_var, 1, sizeof(pap_pisp_var),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &pap_pisp_step_fn, 1, sizeof(pap_pisp_step_fn),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &pap_pisp_unit_fn, 1, sizeof(pap_pisp_unit_fn),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

const struct ggc_root_tab *pap_pisp_gc_roots(void)
{
	return pap_pisp_roots;
}

bool pap_pisp_enabled(void)
{
	return pap_pisp_on;
}

static int pap_pisp_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* pap_pisp_names from the sequences read so far: a lookup per function
 * and per call site stays a binary search, however long they are. */
static void pap_pisp_index(void)
{
	size_t i, j, n = 0;

	for (i = 0; i < pap_pisp_spec.ncalls; i++)
		n += pap_pisp_spec.calls[i].nitems;
	pap_pisp_names = XRESIZEVEC(const char *, pap_pisp_names, n + 1);
	n = 0;
	for (i = 0; i < pap_pisp_spec.ncalls; i++)
		for (j = 0; j < pap_pisp_spec.calls[i].nitems; j++) {
			const char *it = pap_pisp_spec.calls[i].item[j];

			pap_pisp_names[n++] = it + (*it == '>');
		}
	qsort(pap_pisp_names, n, sizeof(*pap_pisp_names), pap_pisp_cmp);
	for (i = j = 0; i < n; i++)
		if (!j || strcmp(pap_pisp_names[j - 1], pap_pisp_names[i]))
			pap_pisp_names[j++] = pap_pisp_names[i];
	pap_pisp_nnames = j;
}

/* @asmname's letter (its place among the names), or -1 when no
 * sequence of interest names it. */
static long pap_pisp_letter(const char *asmname)
{
	const char **p = (const char **)bsearch(&asmname, pap_pisp_names,
		pap_pisp_nnames, sizeof(*pap_pisp_names), pap_pisp_cmp);

	return p ? (long)(p - pap_pisp_names) : -1;
}

/* Does a sequence of interest name @asmname? */
static bool pap_pisp_has(const char *asmname)
{
	return pap_pisp_letter(asmname) >= 0;
}

/*
 * Reads spec @file's "calls" lines into the sequences of interest; every
 * error, "FILE:LINE: error: ...", goes to GCC, and then nothing is
 * compiled.  A spec with paths inside functions, or with no sequence,
 * is refused (PISP with PSP inside is not made yet).
 */
bool pap_pisp_add_spec(const char *file)
{
	char err[512];
	char *text;
	int r;

	if (!pap_pisp_on)
		pap_spec_init(&pap_pisp_spec);
	pap_pisp_on = true;
	text = pap_read_text_file(file, (size_t)1 << 30, err, sizeof(err));
	if (!text) {
		error("%s", err);
		return false;
	}
	r = pap_spec_parse(&pap_pisp_spec, text, file);
	free(text);
	if (r || pap_pisp_spec.nerrors) {
		const char *m = pap_pisp_spec.msgs, *nl;

		pap_spec_sort_msgs(&pap_pisp_spec);
		m = pap_pisp_spec.msgs;
		while (m && (nl = strchr(m, '\n'))) {
			error("%.*s", (int)(nl - m), m);
			m = nl + 1;
		}
		if (!pap_pisp_spec.msglen)
			error("%s: cannot read the spec: %s", file,
			      pap_strerror(r));
		return false;
	}
	/* paths inside functions: selective profiling's (PSP inside) */
	if (pap_pisp_spec.npaths && !pap_sel_add_spec(file))
		return false;
	if (!pap_pisp_spec.ncalls) {
		error("%s: no %<calls%> line: no call sequence of interest",
		      file);
		return false;
	}
	pap_pisp_index();
	return true;
}

bool pap_pisp_named(tree decl)
{
	return !pap_pisp_on ||
	       pap_pisp_has(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl)));
}

/* The runtime's flag, unsigned int, thread-local, initial-exec. */
static tree pap_pisp_dead(void)
{
	tree var = pap_pisp_var;

	if (var)
		return var;
	var = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			 get_identifier("__pap_pisp_dead"),
			 unsigned_type_node);
	TREE_PUBLIC(var) = 1;
	DECL_EXTERNAL(var) = 1;
	TREE_STATIC(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	TREE_USED(var) = 1;
	set_decl_tls_model(var, TLS_MODEL_INITIAL_EXEC);
	pap_pisp_var = var;
	return var;
}

/*
 * Does @fun (@asmname) keep its call probes?  Yes without a spec, or
 * when a sequence of interest names it; otherwise its first block
 * starts with __pap_pisp_dead = 1 (no block is added: the path model
 * is made already) and it gets no call probes.
 */
bool pap_pisp_keep(function *fun, const char *asmname)
{
	gimple_stmt_iterator gsi;
	basic_block first;

	if (!pap_pisp_on || pap_pisp_has(asmname))
		return true;
	first = single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun));
	gsi = gsi_after_labels(first);
	gsi_insert_before(&gsi, gimple_build_assign(pap_pisp_dead(),
		build_int_cst(unsigned_type_node, 1)), GSI_SAME_STMT);
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: on no "
		       "call sequence of interest: no call probes", asmname);
	return false;
}

/* A runtime function of ours: external, nothrow, leaf. */
static tree pap_pisp_fn(const char *name, tree type, bool leaf)
{
	tree decl = build_fn_decl(name, type);

	TREE_NOTHROW(decl) = 1;
	if (leaf)
		DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"),
						  NULL_TREE,
						  DECL_ATTRIBUTES(decl));
	DECL_ARTIFICIAL(decl) = 1;
	return decl;
}

/*
 * In a function that a sequence of interest names (@decl), at *@gsi,
 * after its entry's call probe: __pap_pisp_step(its letter), the
 * thread's automaton advanced by the entry.
 */
void pap_pisp_on_entry(tree decl, gimple_stmt_iterator *gsi)
{
	long letter;

	if (!pap_pisp_on)
		return;
	letter = pap_pisp_letter(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(
		decl)));
	if (letter < 0)
		return;
	if (!pap_pisp_step_fn)
		pap_pisp_step_fn = pap_pisp_fn("__pap_pisp_step",
			build_function_type_list(void_type_node,
				unsigned_type_node, NULL_TREE), true);
	gsi_insert_before(gsi, gimple_build_call(pap_pisp_step_fn, 1,
		build_int_cst(unsigned_type_node, letter)), GSI_SAME_STMT);
}

/*
 * The automaton of the sequences read (pispauto.h), encoded: malloc'ed,
 * its size in *@size; NULL after an error said to GCC.
 */
static unsigned char *pap_pisp_encoded(size_t *size)
{
	struct pap_pisp_auto a;
	struct pap_pisp_item **seq;
	size_t *len, i, j;
	unsigned char *buf = NULL;

	seq = XNEWVEC(struct pap_pisp_item *, pap_pisp_spec.ncalls + 1);
	len = XNEWVEC(size_t, pap_pisp_spec.ncalls + 1);
	for (i = 0; i < pap_pisp_spec.ncalls; i++) {
		const struct pap_spec_calls *c = &pap_pisp_spec.calls[i];

		seq[i] = XNEWVEC(struct pap_pisp_item, c->nitems + 1);
		len[i] = c->nitems;
		for (j = 0; j < c->nitems; j++) {
			const char *it = c->item[j];

			seq[i][j].letter = (uint32_t)pap_pisp_letter(
				it + (*it == '>'));
			seq[i][j].outside = *it == '>';
		}
	}
	if (pap_pisp_auto_build(&a, (uint32_t)pap_pisp_nnames,
				(const struct pap_pisp_item *const *)seq,
				len, pap_pisp_spec.ncalls,
				pap_spec_calls_hash(&pap_pisp_spec)))
		error("out of memory building the automaton of the call "
		      "sequences of interest");
	else {
		if (a.open && pap_opts.verbose)
			inform(UNKNOWN_LOCATION, "pap: the call sequences of "
			       "interest read in more than %u ways: threads "
			       "off them are not stopped", PAP_PISP_MAX_NODES);
		buf = pap_pisp_auto_encode(&a, size);
		pap_pisp_auto_free(&a);
		if (!buf)
			error("out of memory encoding the automaton of the "
			      "call sequences of interest");
	}
	for (i = 0; i < pap_pisp_spec.ncalls; i++)
		XDELETEVEC(seq[i]);
	XDELETEVEC(seq);
	XDELETEVEC(len);
	return buf;
}

/*
 * Appends to the unit's constructor @body, in a unit with call probes,
 * __pap_pisp_unit(the automaton encoded, its size), or (NULL, 0)
 * without calls-spec: the runtime takes the first and refuses any unit
 * whose spec differs (librt/pisp.h).
 */
void pap_pisp_finish(tree *body)
{
	unsigned char *buf = NULL;
	size_t size = 0;
	tree arg;

	if (!pap_opts.calls)
		return;
	if (pap_pisp_on && !(buf = pap_pisp_encoded(&size)))
		return;
	if (!pap_pisp_unit_fn)
		pap_pisp_unit_fn = pap_pisp_fn("__pap_pisp_unit",
			build_function_type_list(void_type_node,
				ptr_type_node, unsigned_type_node,
				NULL_TREE), false);
	arg = buf ? fold_convert(ptr_type_node, build_string_literal(
		(unsigned)size, (const char *)buf)) : null_pointer_node;
	append_to_statement_list(build_call_expr(pap_pisp_unit_fn, 2, arg,
		build_int_cst(unsigned_type_node, size)), body);
	free(buf);
}

/* The blocks of the current function's copy (pap_pisp_copy()), and the
 * copy of its first block; until pap_pisp_guard(). */
static hash_set<basic_block> *pap_pisp_copies;
static basic_block pap_pisp_copy_first;
/* The calls after which a running activation switches to the copy, in
 * pairs: the call in the body, then its copy (pap_pisp_switch()). */
static vec<gimple *> pap_pisp_calls;

/*
 * May call @s of @fun be followed by a switch to the copy?  Only a call
 * site (pap_calls_is_site(): a call that can enter code of the program,
 * which alone sets the flag, but for a signal handler) that returns to
 * something else than a return: not a leaf function (it calls nothing
 * of the unit back; should it reach another unit's, the move waits for
 * the next call), not noreturn, returns-twice or ending its block, not in tail
 * position (nothing but the return follows; a tail site keeps its
 * position).  A call left out only delays the move.
 */
static bool pap_pisp_switchable(function *fun, gcall *s)
{
	return pap_calls_is_site(s) && !stmt_ends_bb_p(s) &&
	       !(gimple_call_flags(s) &
		 (ECF_NORETURN | ECF_RETURNS_TWICE | ECF_LEAF)) &&
	       !pap_tail_return(fun, s);
}

/*
 * pap_pisp_calls for the body of @fun (its blocks below @first_copy)
 * and its @copy, just made: a block's copy holds its statements but its
 * labels, in order (after the labels the copy's switches gave it).
 */
static void pap_pisp_find_calls(function *fun, basic_block *copy,
				int first_copy)
{
	gimple_stmt_iterator a, b;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun) {
		if (bb->index >= first_copy || !copy[bb->index])
			continue;
		a = gsi_after_labels(bb);
		b = gsi_after_labels(copy[bb->index]);
		for (; !gsi_end_p(a); gsi_next(&a), gsi_next(&b)) {
			gimple *s = gsi_stmt(a);

			gcc_assert(!gsi_end_p(b) &&
				   gimple_code(gsi_stmt(b)) == gimple_code(s));
			if (is_gimple_call(s) &&
			    pap_pisp_switchable(fun, as_a<gcall *>(s))) {
				pap_pisp_calls.safe_push(s);
				pap_pisp_calls.safe_push(gsi_stmt(b));
			}
		}
	}
}

basic_block *pap_pisp_copy(function *fun, const struct pap_calls *calls)
{
	basic_block *copy, first;
	const char *asmname = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(
		fun->decl));
	const char *why;
	int i, first_copy;
	unsigned n;

	if (!pap_pisp_on || !calls)
		return NULL;
	/* a function with paths of interest counts them in every thread,
	 * as the full build does: no copy */
	if (pap_sel_enabled() && pap_sel_named(fun)) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: "
			       "paths of interest, counted in every thread: "
			       "no uninstrumented copy", asmname);
		return NULL;
	}
	if ((why = pap_sel_uncopyable(fun))) {
		if (pap_opts.verbose)
			inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: "
			       "no uninstrumented copy (%s): a thread off "
			       "the call sequences of interest runs its "
			       "probes", asmname, why);
		return NULL;
	}
	first = single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun));
	/* the copy array is indexed by the blocks before the copy */
	first_copy = last_basic_block_for_fn(fun);
	copy = pap_sel_copy_body(fun);
	pap_pisp_copies = new hash_set<basic_block>;
	for (i = 0; i < first_copy; i++)
		if (copy[i])
			pap_pisp_copies->add(copy[i]);
	pap_pisp_copy_first = copy[first->index];
	pap_pisp_calls.truncate(0);
	pap_pisp_find_calls(fun, copy, first_copy);
	n = pap_pisp_calls.length() / 2;
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: a dead "
		       "thread runs its uninstrumented copy from its entry "
		       "and after %u call%s", asmname, n, n == 1 ? "" : "s");
	return copy;
}

bool pap_pisp_in_copy(basic_block bb)
{
	return pap_pisp_copies && pap_pisp_copies->contains(bb);
}

/*
 * Ends @b, whose one out-edge falls through, with if (__pap_pisp_dead)
 * goto @to; the edge that fell through is the false one.
 */
static void pap_pisp_test(basic_block b, basic_block to)
{
	gimple_stmt_iterator gsi = gsi_last_bb(b);
	gimple_seq seq = NULL;
	tree d = create_tmp_var(unsigned_type_node, "pap_dead");
	edge fall, dead;

	gimple_seq_add_stmt(&seq, gimple_build_assign(d, pap_pisp_dead()));
	gimple_seq_add_stmt(&seq, gimple_build_cond(NE_EXPR, d,
		build_int_cst(unsigned_type_node, 0), NULL_TREE, NULL_TREE));
	gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
	fall = single_succ_edge(b);
	fall->flags &= ~EDGE_FALLTHRU;
	fall->flags |= EDGE_FALSE_VALUE;
	dead = make_edge(b, to, EDGE_TRUE_VALUE);
	dead->probability = profile_probability::unlikely();
	fall->probability = dead->probability.invert();
}

/*
 * Body call @s, copy call @cs: right after @s returns, before its return
 * probe, if (__pap_pisp_dead) goto the copy right after @cs.  Every
 * local is a variable there (pap_sel_copy_body(): no SSA name, no PHI),
 * so the copy goes on with the values the body made, the call's result
 * included.  The return probe a dead thread skips would only reset its
 * frame's expect or add marks to a sequence that is not recorded; the
 * frame itself is left on the stack, as by an exit the copy makes
 * (librt/pisp.h).
 */
static void pap_pisp_switch(gimple *s, gimple *cs)
{
	basic_block to = split_block(gimple_bb(cs), cs)->dest;

	split_block(gimple_bb(s), s);
	pap_pisp_test(gimple_bb(s), to);
}

/*
 * The function's entry, before every probe: if (__pap_pisp_dead) goto
 * the copy of its first block; after each call of pap_pisp_calls, the
 * same test into the copy of what follows the call.  A dead thread pays
 * the load and the branch, and runs the plain body from there on.
 */
void pap_pisp_guard(function *fun, basic_block *copy)
{
	unsigned i;

	if (!copy)
		return;
	free_dominance_info(CDI_DOMINATORS);
	free_dominance_info(CDI_POST_DOMINATORS);
	for (i = 0; i + 1 < pap_pisp_calls.length(); i += 2)
		pap_pisp_switch(pap_pisp_calls[i], pap_pisp_calls[i + 1]);
	pap_pisp_calls.release();
	pap_pisp_test(split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(
		fun))), pap_pisp_copy_first);
	XDELETEVEC(copy);
	delete pap_pisp_copies;
	pap_pisp_copies = NULL;
	pap_pisp_copy_first = NULL;
	pap_sel_copied(fun);
}
