/* SPDX-License-Identifier: MIT */
/*
 * fold.cc - the fold r = r*n + d inline, the runtime called only near
 * overflow, late in the pipeline.
 *
 * A fold the plan proves safe (pap_op.may_overflow clear: r stays below
 * floor(2^64/n) on every path to it) is emitted as plain arithmetic from
 * the start (emit.cc).  Every other fold is emitted as the call
 * "r = __pap_fold(act, r, n, d, site, restart)" (the ABI's contract: r*n
 * + d, or on overflow a breakpoint and restart*n + d) and stays a call
 * through GCC's GIMPLE optimisers: one statement for them to look at
 * instead of three blocks.  The pass "papfold", right after "optimized"
 * and before RTL expansion, then makes each remaining call
 *
 *     if (r >= B)                         B = floor(2^64 / n)
 *         r = __pap_fold(act, r, n, d, site, restart);
 *     else
 *         r = r * n + d;
 *
 * The plan guarantees d < n (d is an in-edge index below the fan-in, or
 * an acyclic path id below the count of paths that end at the fold), so
 * r <= B - 1 gives r*n + d <= B*n - 1 <= 2^64 - 1: the inline arm never
 * overflows, and from r >= B on the runtime makes the exact test
 * (pap_fold_limit() computes B; test_fold checks both facts).  The
 * result is the call's in every case.  n is a constant, so the multiply
 * becomes shifts and adds, and the test a compare with a constant that
 * the branch predictor learns.
 */
#include "gcc-common.h"

#include "plugin.h"
#include "probes.h"
#include "util.h"

bool pap_abnormal_p(tree t)
{
	return t && TREE_CODE(t) == SSA_NAME &&
	       SSA_NAME_OCCURS_IN_ABNORMAL_PHI(t);
}

/*
 * Moves @call onto the rare arm of "if (@x @code @y)", placed before it,
 * and returns the edge the common arm takes to the join, on which the
 * caller puts the common arm's code.  *@rare and *@join are the call's
 * new block and the block after both arms.  @before, if any, goes just
 * before the test.
 */
static edge pap_call_on_rare_arm(gcall *call, gimple_seq before,
				 enum tree_code code, tree x, tree y,
				 basic_block *rare, basic_block *join)
{
	gimple_stmt_iterator gsi = gsi_for_stmt(call), at;

	at = create_cond_insert_point(&gsi, true, false, true, rare, join);
	if (before)
		gsi_insert_seq_after(&at, before, GSI_CONTINUE_LINKING);
	gsi_insert_after(&at, gimple_build_cond(code, x, y, NULL_TREE,
						NULL_TREE), GSI_NEW_STMT);
	gsi = gsi_for_stmt(call);
	gsi_remove(&gsi, false);
	at = gsi_start_bb(*rare);
	gsi_insert_before(&at, call, GSI_NEW_STMT);
	return find_edge(single_pred(*rare), *join);
}

/* Puts @seq on edge @e; the edge that leaves it. */
static edge pap_seq_on_edge(edge e, gimple_seq seq)
{
	basic_block bb = gsi_insert_seq_on_edge_immediate(e, seq);

	return bb ? single_succ_edge(bb) : e;
}

/*
 * Makes fold call @call a test, the call on the rare arm and the
 * multiply-add on the common one, joined by a PHI for the call's value.
 * A constant r below the limit needs neither test nor call.  Values that
 * take part in abnormal PHIs (setjmp), or a result not in an SSA name,
 * are left alone: the call is right as it is.  Virtual operands need
 * renaming afterwards.
 */
static bool pap_fold_expand(gcall *call)
{
	tree lhs = gimple_call_lhs(call);
	tree r = gimple_call_arg(call, 1);
	tree n = gimple_call_arg(call, 2);
	tree d = gimple_call_arg(call, 3);
	tree type = TREE_TYPE(n);
	uint64_t bound = pap_fold_limit(tree_to_uhwi(n));
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	basic_block then_bb, join_bb;
	gimple_seq fast = NULL;
	tree t, sum, called;
	gphi *phi;
	edge e;

	if ((lhs && TREE_CODE(lhs) != SSA_NAME) || pap_abnormal_p(lhs) ||
	    pap_abnormal_p(r) || pap_abnormal_p(d))
		return true;
	if (TREE_CODE(r) == INTEGER_CST && tree_fits_uhwi_p(r) &&
	    tree_to_uhwi(r) < bound) {
		uint64_t v = tree_to_uhwi(r) * tree_to_uhwi(n);
		gimple *g;

		if (!lhs)
			g = gimple_build_nop();
		else if (TREE_CODE(d) == INTEGER_CST)
			g = gimple_build_assign(lhs, build_int_cstu(type,
						v + tree_to_uhwi(d)));
		else
			g = gimple_build_assign(lhs, PLUS_EXPR, d,
						build_int_cstu(type, v));
		unlink_stmt_vdef(call);
		gsi_replace(&gsi, g, false);
		return false;
	}
	e = pap_call_on_rare_arm(call, NULL, GE_EXPR, r,
				 build_int_cstu(type, bound), &then_bb,
				 &join_bb);
	if (!lhs)
		return true;
	/* the common arm, on the false edge, and the PHI that joins them */
	called = make_ssa_name(type);
	gimple_call_set_lhs(call, called);
	t = make_ssa_name(type);
	sum = make_ssa_name(type);
	gimple_seq_add_stmt(&fast, gimple_build_assign(t, MULT_EXPR, r, n));
	gimple_seq_add_stmt(&fast, gimple_build_assign(sum, PLUS_EXPR, t, d));
	e = pap_seq_on_edge(e, fast);
	phi = create_phi_node(lhs, join_bb);
	add_phi_arg(phi, called, single_succ_edge(then_bb), UNKNOWN_LOCATION);
	add_phi_arg(phi, sum, e, UNKNOWN_LOCATION);
	return true;
}

/* Appends "@lhs = @a @code @b" to @seq and returns @lhs, a new name of
 * @type. */
static tree pap_seq_op(gimple_seq *seq, tree type, enum tree_code code,
		       tree a, tree b)
{
	tree lhs = make_ssa_name(type);

	gimple_seq_add_stmt(seq, gimple_build_assign(lhs, code, a, b));
	return lhs;
}

/*
 * Makes run call @call, r = __pap_fold_run(act, r0, n, first, d, site,
 * restart, m, brk) with n = 2^b a constant,
 *
 *     if (m - 1 < floor(63 / b) && (r0 >> (64 - bm)) == 0)
 *         r = (r0 << bm) + (first << b(m-1)) + d * (2^b(m-1) - 1) / (n - 1);
 *     else
 *         the call;
 *
 * The m folds of a loop make no breakpoint when r0 has at most 64 - bm
 * bits: each fold shifts r left by b bits and puts its digit, below 2^b, in
 * the bits freed (libcore/foldrun.h), so the common arm is the call's
 * value, with no call for a loop that ran a few times from a small r.  Any
 * other radix, or one not constant, keeps the call.  Virtual operands need
 * renaming afterwards.
 */
static void pap_fold_run_expand(gcall *call)
{
	tree lhs = gimple_call_lhs(call);
	tree r0 = gimple_call_arg(call, 1);
	tree first = gimple_call_arg(call, 3), d = gimple_call_arg(call, 4);
	tree m = gimple_call_arg(call, 7);
	tree u64 = long_long_unsigned_type_node, bt = boolean_type_node;
	gimple_seq before = NULL, fast = NULL;
	tree s, sh, ok, bm1, q, val, called;
	basic_block rare, join;
	uint64_t n;
	unsigned b;
	gphi *phi;
	edge e;

	if (!pap_runtime_call(call, pap_rt_id(PAP_RT_FOLD_RUN), 9, 2))
		return;
	n = tree_to_uhwi(gimple_call_arg(call, 2));
	if (n < 2 || (n & (n - 1)) || !lhs || TREE_CODE(lhs) != SSA_NAME ||
	    pap_abnormal_p(lhs) || pap_abnormal_p(r0) ||
	    pap_abnormal_p(first) || pap_abnormal_p(d) || pap_abnormal_p(m))
		return;
	b = exact_log2(n);
	/* ok = m - 1 < 63/b && (r0 >> ((64 - bm) & 63)) == 0 */
	s = pap_seq_op(&before, u64, MULT_EXPR, m, build_int_cst(u64, b));
	sh = pap_seq_op(&before, u64, MINUS_EXPR, build_int_cst(u64, 64), s);
	sh = pap_seq_op(&before, u64, BIT_AND_EXPR, sh, build_int_cst(u64, 63));
	ok = pap_seq_op(&before, u64, RSHIFT_EXPR, r0, sh);
	ok = pap_seq_op(&before, bt, EQ_EXPR, ok, build_int_cst(u64, 0));
	q = pap_seq_op(&before, u64, MINUS_EXPR, m, build_int_cst(u64, 1));
	q = pap_seq_op(&before, bt, LT_EXPR, q, build_int_cst(u64, 63 / b));
	ok = pap_seq_op(&before, bt, BIT_AND_EXPR, ok, q);
	e = pap_call_on_rare_arm(call, before, EQ_EXPR, ok, boolean_false_node,
				 &rare, &join);
	/* the common arm: bm <= 63 */
	val = pap_seq_op(&fast, u64, LSHIFT_EXPR, r0, s);
	bm1 = pap_seq_op(&fast, u64, MINUS_EXPR, s, build_int_cst(u64, b));
	q = pap_seq_op(&fast, u64, LSHIFT_EXPR, first, bm1);
	val = pap_seq_op(&fast, u64, PLUS_EXPR, val, q);
	q = pap_seq_op(&fast, u64, LSHIFT_EXPR, build_int_cst(u64, 1), bm1);
	q = pap_seq_op(&fast, u64, MINUS_EXPR, q, build_int_cst(u64, 1));
	if (n > 2)
		q = pap_seq_op(&fast, u64, TRUNC_DIV_EXPR, q,
			       build_int_cstu(u64, n - 1));
	q = pap_seq_op(&fast, u64, MULT_EXPR, q, d);
	val = pap_seq_op(&fast, u64, PLUS_EXPR, val, q);
	e = pap_seq_on_edge(e, fast);
	called = make_ssa_name(u64);
	gimple_call_set_lhs(call, called);
	phi = create_phi_node(lhs, join);
	add_phi_arg(phi, called, single_succ_edge(rare), UNKNOWN_LOCATION);
	add_phi_arg(phi, val, e, UNKNOWN_LOCATION);
}

/* @list gets the clobber @name. */
static void pap_clobber(vec<tree, va_gc> **list, const char *name)
{
	vec_safe_push(*list, build_tree_list(NULL_TREE,
		build_string(strlen(name) + 1, name)));
}

/*
 * Replaces __pap_tally call @call, on its rare arm, by an asm statement
 * that pushes the arguments and calls __pap_tally_preserving
 * (librt/tally_thunk.S), which keeps the general registers but r10 and
 * r11, and xmm0-15.  As a call, the arm made the function keep its
 * integers in callee-saved registers, saved at entry on every
 * activation.  The asm clobbers what a call does less those registers:
 * r10, r11, the flags, memory, the x87 and MMX registers, and where the
 * function may use AVX every vector and mask register; it takes its
 * operands in registers or as immediates.  It steps below the red zone
 * first, since a function whose only calls are such arms may use it.
 */
static void pap_tally_preserving(gcall *call)
{
	vec<tree, va_gc> *ins = NULL, *clobbers = NULL;
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	char name[8];
	gasm *thunk;
	unsigned k;

	for (k = 0; k < 5; k++) {
		tree arg = gimple_call_arg(call, k);

		/* constants as immediates; bl (an int) widened to push */
		if (TREE_CODE(arg) == INTEGER_CST)
			arg = build_int_cst(long_long_integer_type_node,
					    tree_to_shwi(arg));
		/* registers or immediates, never memory: an operand
		 * addressed from rsp would move with the asm's pushes */
		vec_safe_push(ins, build_tree_list(build_tree_list(NULL_TREE,
			build_string(3, "re")), arg));
	}
	pap_clobber(&clobbers, "memory");
	pap_clobber(&clobbers, "cc");
	pap_clobber(&clobbers, "r10");
	pap_clobber(&clobbers, "r11");
	pap_clobber(&clobbers, "st");
	/* the thunk keeps xmm0-15's 128 bits, all there is without AVX */
	for (k = 0; TARGET_AVX && k < (TARGET_AVX512F ? 32u : 16u); k++) {
		snprintf(name, sizeof(name), "xmm%u", k);
		pap_clobber(&clobbers, name);
	}
	for (k = 1; k < 8; k++) {
		snprintf(name, sizeof(name), "st(%u)", k);
		pap_clobber(&clobbers, name);
	}
	for (k = 0; k < 8; k++) {
		snprintf(name, sizeof(name), "mm%u", k);
		pap_clobber(&clobbers, name);
		if (TARGET_AVX512F) {
			snprintf(name, sizeof(name), "k%u", k);
			pap_clobber(&clobbers, name);
		}
	}
	thunk = gimple_build_asm_vec("lea\t-128(%%rsp), %%rsp\n\t"
				     "pushq\t%q0\n\tpushq\t%q1\n\t"
				     "pushq\t%q2\n\tpushq\t%q3\n\t"
				     "pushq\t%q4\n\t"
				     "call\t" PAP_RT_TALLY_PRESERVING "@PLT\n\t"
				     "lea\t168(%%rsp), %%rsp",
				     ins, NULL, clobbers, NULL);
	gimple_asm_set_volatile(thunk, true);
	gimple_set_location(thunk, gimple_location(call));
	unlink_stmt_vdef(call);
	gsi_replace(&gsi, thunk, false);
}

/*
 * Makes tally call @call, __pap_tally(&counters, fn, value, nvalues, bl)
 * or __pap_tally_add(&counters, fn, value, nvalues, bl, n),
 *
 *     p = counters;                  the function's thread-local pointer
 *     if (p == 0)
 *         the call (__pap_tally's through the thunk that keeps every
 *         register, pap_tally_preserving());
 *     else
 *         asm volatile ("addq n, %0" : "+m" (p[value]));   n = 1: tally
 *
 * The runtime sets counters, once, to nvalues counters of the thread, or
 * leaves it NULL; the plan guarantees value < nvalues.  One instruction
 * adds, so that a signal handler counting the same record cannot land
 * between a load and a store and be lost; volatile, so that the compiler
 * neither merges nor moves it.
 */
static void pap_tally_expand(gcall *call)
{
	tree addr = gimple_call_arg(call, 0);
	tree value = gimple_call_arg(call, 2);
	tree n = gimple_call_num_args(call) == 6 ? gimple_call_arg(call, 5) :
						   NULL_TREE;
	tree u64 = long_long_unsigned_type_node;
	tree pu64 = build_pointer_type(u64);
	tree p, off, q, mem;
	basic_block rare, join;
	gimple_seq before = NULL, fast = NULL;
	vec<tree, va_gc> *ins = NULL, *outs = NULL;
	gasm *add;
	edge e;

	if (pap_abnormal_p(addr) || pap_abnormal_p(value) || pap_abnormal_p(n))
		return;
	p = make_ssa_name(pu64);
	gimple_seq_add_stmt(&before, gimple_build_assign(p,
		build2(MEM_REF, pu64, addr,
		       build_int_cst(build_pointer_type(pu64), 0))));
	e = pap_call_on_rare_arm(call, before, EQ_EXPR, p,
				 build_int_cst(pu64, 0), &rare, &join);
	if (TREE_CODE(value) == INTEGER_CST) {
		off = build_int_cstu(sizetype, tree_to_uhwi(value) * 8);
	} else {
		tree v = make_ssa_name(sizetype);

		off = make_ssa_name(sizetype);
		gimple_seq_add_stmt(&fast, gimple_build_assign(v, NOP_EXPR,
							       value));
		gimple_seq_add_stmt(&fast, gimple_build_assign(off, MULT_EXPR,
			v, build_int_cstu(sizetype, 8)));
	}
	q = make_ssa_name(pu64);
	gimple_seq_add_stmt(&fast, gimple_build_assign(q, POINTER_PLUS_EXPR,
						       p, off));
	mem = build2(MEM_REF, u64, q, build_int_cst(pu64, 0));
	vec_safe_push(outs, build_tree_list(build_tree_list(NULL_TREE,
		build_string(3, "=m")), mem));
	vec_safe_push(ins, build_tree_list(build_tree_list(NULL_TREE,
		build_string(2, "m")),
		build2(MEM_REF, u64, q, build_int_cst(pu64, 0))));
	if (n)
		vec_safe_push(ins, build_tree_list(build_tree_list(NULL_TREE,
			build_string(3, "er")), n));
	add = gimple_build_asm_vec(n ? "addq\t%2, %0" : "addq\t$1, %0", ins,
				   outs, NULL, NULL);
	gimple_asm_set_volatile(add, true);
	gimple_seq_add_stmt(&fast, add);
	pap_seq_on_edge(e, fast);
	if (!n)
		pap_tally_preserving(call);
}

/* Is @stmt a call of the function named @id, whatever its arguments? */
static bool pap_calls_p(gimple *stmt, tree id)
{
	tree fn;

	if (!is_gimple_call(stmt))
		return false;
	fn = gimple_call_fndecl(stmt);
	return fn && DECL_NAME(fn) == id;
}

/* brk = 1 just before fold call @call: on its rare arm once expanded. */
static void pap_set_brk(gcall *call, tree brk)
{
	gimple_stmt_iterator at = gsi_for_stmt(call);

	gsi_insert_before(&at, gimple_build_assign(brk, build_int_cst(
		unsigned_char_type_node, 1)), GSI_SAME_STMT);
}

/* Does an operand of end call @call take part in abnormal PHIs, so
 * that the call stays as it is? */
static bool pap_end_abnormal_p(gcall *call)
{
	return pap_abnormal_p(gimple_call_arg(call, 0)) ||
	       pap_abnormal_p(gimple_call_arg(call, 2)) ||
	       pap_abnormal_p(gimple_call_arg(call, 3));
}

/*
 * Makes end call @call
 *
 *     if (brk != 0 || r >= nvalues)
 *         __pap_end(&counters, fn, act, r, nvalues);
 *     else
 *         __pap_tally(&counters, fn, r, nvalues, 0);    made inline
 *
 * brk is the function's flag that a fold called the runtime (set on the
 * rare arm of every fold, before the call): with brk clear no fold of
 * this activation could make a breakpoint, so its record is the bare
 * value r.  brk is set by the folds of everything inlined into the
 * function as well, which only sends more records to the runtime.
 */
static void pap_end_expand(gcall *call, tree brk)
{
	tree addr = gimple_call_arg(call, 0);
	tree fn = gimple_call_arg(call, 1);
	tree r = gimple_call_arg(call, 3);
	tree n = gimple_call_arg(call, 4);
	tree b = make_ssa_name(TREE_TYPE(brk));
	tree c1 = make_ssa_name(boolean_type_node);
	tree c2 = make_ssa_name(boolean_type_node);
	tree c = make_ssa_name(boolean_type_node);
	gimple_seq before = NULL, fast = NULL;
	basic_block rare, join;
	gcall *tally;
	edge e;

	if (pap_end_abnormal_p(call))
		return;
	gimple_seq_add_stmt(&before, gimple_build_assign(b, brk));
	gimple_seq_add_stmt(&before, gimple_build_assign(c1, NE_EXPR, b,
				build_int_cst(TREE_TYPE(brk), 0)));
	gimple_seq_add_stmt(&before, gimple_build_assign(c2, GE_EXPR, r, n));
	gimple_seq_add_stmt(&before, gimple_build_assign(c, BIT_IOR_EXPR, c1,
							 c2));
	e = pap_call_on_rare_arm(call, before, NE_EXPR, c, boolean_false_node,
				 &rare, &join);
	tally = gimple_build_call(pap_rt_decl(PAP_RT_TALLY), 5, addr, fn, r, n,
				  integer_zero_node);
	gimple_seq_add_stmt(&fast, tally);
	pap_seq_on_edge(e, fast);
	pap_tally_expand(tally);
}

unsigned int pap_inline_folds(function *fun)
{
	tree fold_id = pap_rt_id(PAP_RT_FOLD);
	tree fold_run_id = pap_rt_id(PAP_RT_FOLD_RUN);
	tree tally_id = pap_rt_id(PAP_RT_TALLY);
	tree tally_add_id = pap_rt_id(PAP_RT_TALLY_ADD);
	tree end_id = pap_rt_id(PAP_RT_END);
	auto_vec<gcall *> folds, tallies, ends, others, runs;
	tree brk = NULL_TREE;
	/*
	 * A part split off by partial inlining may hold the end of an
	 * activation whose folds stayed in the function it came from, whose
	 * frame byte it cannot see: there the runtime decides (__pap_end).
	 * The header keeps only ends on paths that never enter the part.
	 */
	cgraph_node *node = cgraph_node::get(fun->decl);
	bool split_part = !node || node->split_part;
	basic_block bb;
	unsigned i;

	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi;

		for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
			gimple *g = gsi_stmt(gsi);
			/* r = __pap_fold(act, r, n, d, site, restart) */
			gcall *call = pap_runtime_call(g, fold_id, 6, 2);

			if (call && pap_opts.inline_fold)
				folds.safe_push(call);
			else if (pap_calls_p(g, fold_id))
				others.safe_push(as_a<gcall *>(g));
			/* r = __pap_fold_run(act, r, n, first, d, site,
			 * restart, m, brk), from pap_loop_counts(): each
			 * gets brk, whatever its n */
			if (pap_calls_p(g, fold_run_id) &&
			    gimple_call_num_args(g) == 9)
				runs.safe_push(as_a<gcall *>(g));
			/* __pap_tally(&counters, fn, value, nvalues, bl) */
			call = pap_runtime_call(g, tally_id, 5, 3);
			if (call && pap_tally_possible())
				tallies.safe_push(call);
			/* __pap_tally_add(&counters, fn, value, nvalues, bl,
			 * n), from pap_loop_counts() */
			call = pap_runtime_call(g, tally_add_id, 6, 3);
			if (call && pap_tally_possible())
				tallies.safe_push(call);
			/* __pap_end(&counters, fn, act, r, nvalues), but
			 * not one pap_end_expand() leaves alone: brk is
			 * made only for ends that read it (a brk that none
			 * read, in main of calls/cgoto.c, whose r is in the
			 * abnormal PHIs of its computed gotos, crashed
			 * GCC's SSA verifier after this pass) */
			call = pap_runtime_call(g, end_id, 5, 4);
			if (call && pap_tally_possible() &&
			    pap_opts.inline_fold && !split_part &&
			    !pap_end_abnormal_p(call))
				ends.safe_push(call);
		}
	}
	if (folds.is_empty() && tallies.is_empty() && ends.is_empty() &&
	    runs.is_empty())
		return 0;
	if (!ends.is_empty()) {
		/* brk: did a fold of this activation call the runtime? */
		brk = create_tmp_var(unsigned_char_type_node, "pap_brk");
		TREE_ADDRESSABLE(brk) = 1;
		gsi_insert_on_edge_immediate(
			single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)),
			gimple_build_assign(brk, build_int_cst(
				unsigned_char_type_node, 0)));
	}
	for (i = 0; i < folds.length(); i++)
		if (pap_fold_expand(folds[i]) && brk)
			pap_set_brk(folds[i], brk);
	for (i = 0; brk && i < others.length(); i++)
		pap_set_brk(others[i], brk);
	/* a run sets brk itself, only when it makes a breakpoint */
	for (i = 0; i < runs.length(); i++) {
		if (brk) {
			gimple_call_set_arg(runs[i], 8,
					    build_fold_addr_expr(brk));
			update_stmt(runs[i]);
		}
		if (pap_opts.inline_fold)
			pap_fold_run_expand(runs[i]);
	}
	for (i = 0; i < ends.length(); i++)
		pap_end_expand(ends[i], brk);
	for (i = 0; i < tallies.length(); i++)
		pap_tally_expand(tallies[i]);
	/* the calls' memory effects now happen on one arm only: the pass
	 * manager renames the virtual operands (todo_flags_finish) */
	mark_virtual_operands_for_renaming(fun);
	return TODO_cleanup_cfg;
}
