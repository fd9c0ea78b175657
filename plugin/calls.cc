/* SPDX-License-Identifier: MIT */
/*
 * calls.cc - the probes of a thread's call sequence
 * (-fplugin-arg-pap-calls; doc/plugin.md, "Call sequences").
 *
 * For an instrumented function f with call sites k = 1..n (its real
 * calls at the pap pass, in the model's node order and statement order
 * within a node), the core builds the call-site graph
 * (libcore/callgraph.h); this file emits, as GIMPLE, the probes whose
 * meaning librt/calls.h gives as C:
 *
 *   entry    t = __pap_cs;
 *            if (t->expect == &f && t < __pap_cs_limit) {
 *                    t->expect = ENTERED; me = t + 1; me->key = KEY;
 *                    __pap_cs = me;    (a free frame is clean)
 *            } else
 *                    me = __pap_center(t, KEY, &f);
 *            last = E;
 *   C_k      [radix > 1] cr = cfold(cr, radix, digit of last, k);
 *            me->site = k; me->expect = p;   (p: the address called)
 *   R_k      [callee surely entered, no tail chain] nothing but last;
 *            else c = me->expect; if (c != ENTERED) me->expect = IDLE;
 *            [indirect, sc] if (c == ENTERED) __pap_ccallee(p);
 *            [setjmp] if the call did not just return from setjmp
 *                    __pap_cresume(me, R_k^1);
 *            last = R_k^0, or R_k^0 + (c != ENTERED) where the callee
 *            may be uninstrumented;
 *   X        [radix > 1] cr = cfold(cr, radix, digit of last, X);
 *            if (me->flags) __pap_cexit(me); else __pap_cs = me - 1;
 *            (in a function without sites, the test is whether the
 *            entry called __pap_center: a frame the fast path pushed
 *            has flags 0)
 *
 * cfold is r*n + d with the overflow test written without a division:
 * r*n + d overflows 64 bits exactly when r > Q or r == Q and d > R, for
 * Q = (2^64-1) / n and R = (2^64-1) % n: the hot test is r >= Q (one
 * compare with a constant; r > Q where no d exceeds R), the cold arm
 * keeps r == Q with d <= R, and otherwise __pap_cbreak() takes the
 * breakpoint and returns 1*n + d.  A digit is the position of last
 * among the node's predecessors (ascending): the number of them after
 * the first that are at most last, a sum of compares, or, for a large
 * fan-in, a static table over the range of their codes.
 *
 *   tail k   [radix > 1] cr = cfold(...);  (a call in tail position)
 *            if (me->flags) __pap_ctail(me, k);
 *            else { t = me - 1; __pap_cs = t; t->tkey = KEY;
 *                   t->tsite = k; t->texpect = p; t->expect = TAIL; }
 *            the call, then its own return without X's probe
 *   R_k, t   (a site whose callee may end in tail calls) after reading
 *            c: if (c is TAIL or ENTERED_TAILED) __pap_creturn(me, c);
 *            last = R_k^2 then
 *   self k   [radix > 1] cr = cfold(...);  (f's direct tail call of f)
 *            me->site = k; me->expect = SELFTAIL;
 *            the call, then its own return without X's probe
 *   entry    (of a function with self tail sites) where the fast check
 *            fails: if (t->expect == SELFTAIL && t->key == KEY) {
 *                    t->expect = IDLE; me = t; last = T_{t->site};
 *            } else { me = __pap_center(...); last = E; }
 *
 * A call in tail position is one tailcall.cc:pap_tail_return() finds
 * (what the intra modes keep as a tail call), in a function without
 * setjmp receivers or nonlocal labels; nothing follows a tail site, so
 * GCC may still make it a jump and a tail-recursive loop runs in the
 * plain build's stack.  By default (not with -fplugin-arg-pap-calls-
 * notail) a direct call of the function itself in tail position, bound
 * to this definition, is a self tail site: the activation keeps its
 * frame and no mark is made.  Other calls in tail position are tail
 * sites only with calls-tail (their callee's entry is a TAIL_ENTRY mark:
 * the marks name every function of a chain), but for a callee of the
 * unit that calls nothing else, which stays an ordinary call; by default
 * they are ordinary sites: the return probe after them keeps GCC from
 * making them jumps, so a mutual tail recursion uses a frame per call
 * and one that runs long enough overflows the stack that the plain build
 * runs it in (doc/benchmarks.md, "Tail calls by default").  Functions
 * with exception edges get no call probes.
 */
#include "gcc-common.h"
#include "calls.h"
#include "gimple-walk.h"
#include "plugin.h"

#include "callgraph.h"
#include "callseq.h"
#include "cfgtext.h"
#include "model.h"
#include "probes.h"
#include "rtabi.h"
#include "util.h"
#include "../libcore/meta.h"

#include <pap/abi.h>

/* Frame field offsets (pap/abi.h, struct pap_cframe). */
#define PAP_CF_OFF_EXPECT	0
#define PAP_CF_OFF_KEY		8
#define PAP_CF_OFF_SITE		16
#define PAP_CF_OFF_FLAGS	20
#define PAP_CF_OFF_TEXPECT	24
#define PAP_CF_OFF_TKEY		32
#define PAP_CF_OFF_TSITE	48
#define PAP_CF_SIZE		64

/* Fan-ins up to this many predecessors take their digit from compares;
 * larger ones from a table over their codes' range. */
#define PAP_CALLS_CHAIN_MAX	8

struct pap_csite {
	gcall *stmt;
	tree callee;		/* FUNCTION_DECL of a direct site, else NULL */
};

struct pap_calls {
	function *fun;
	const char *asmname;
	uint32_t nsites;
	uint32_t ntail;		/* sites of kind tail */
	uint32_t nself;		/* sites of kind selftail */
	struct pap_site *sites;
	struct pap_csite *cs;
	struct pap_callgraph g;
	struct pap_text text;	/* the calls and site lines */
	/* [k - 1]: an indirect site's cluster (ic, ac), FUNCTION_DECLs in
	 * digit order */
	uint32_t *ncluster;
	tree **cluster;
	/* the probes' locals: the activation's frame, its last source,
	 * whether its entry took the slow path, and a temporary per site
	 * for the address called */
	tree me, last, slow;
	tree key, key_slot;
};

/* A MEM_REF of @type at byte @off of frame pointer @base; alias set 0,
 * as the runtime writes the same memory through its own types. */
static tree pap_frame_ref(tree base, unsigned off, tree type)
{
	return build2(MEM_REF, type, base,
		      build_int_cst(build_pointer_type(char_type_node), off));
}

static tree pap_tmp(tree type, const char *name)
{
	tree v = create_tmp_var(type, name);

	suppress_warning(v);
	return v;
}

static tree pap_uptr_cst(uint64_t v)
{
	return build_int_cstu(pap_rt_uptr(), v);
}

/*
 * Ends the block of @cond, just inserted after the statement before it,
 * with @cond: the rest of the block moves to a new block J, and the arms
 * are new blocks holding @then_seq (true) and @else_seq (false, may be
 * NULL: the false edge goes to J directly), each going on to J.  Returns
 * J, whose start is where the code after the branch goes.  @p_then is
 * the probability of the true arm.
 */
static basic_block pap_calls_branch(gcond *cond, gimple_seq then_seq,
				    gimple_seq else_seq,
				    profile_probability p_then)
{
	basic_block bb = gimple_bb(cond);
	edge e = split_block(bb, cond);
	basic_block join = e->dest, arm;
	gimple_stmt_iterator gsi;
	edge t, f;

	arm = create_empty_bb(bb);
	add_bb_to_loop(arm, bb->loop_father);
	gsi = gsi_start_bb(arm);
	gsi_insert_seq_after(&gsi, then_seq, GSI_NEW_STMT);
	make_single_succ_edge(arm, join, EDGE_FALLTHRU);
	if (else_seq) {
		basic_block other = create_empty_bb(arm);

		add_bb_to_loop(other, bb->loop_father);
		gsi = gsi_start_bb(other);
		gsi_insert_seq_after(&gsi, else_seq, GSI_NEW_STMT);
		make_single_succ_edge(other, join, EDGE_FALLTHRU);
		redirect_edge_succ(e, other);
	}
	e->flags &= ~EDGE_FALLTHRU;
	e->flags |= EDGE_FALSE_VALUE;
	f = e;
	t = make_edge(bb, arm, EDGE_TRUE_VALUE);
	t->probability = p_then;
	f->probability = p_then.invert();
	return join;
}

/* Appends to @seq: @dst = the digit of last at node @v (see the head). */
static void pap_calls_digit(struct pap_calls *c, uint32_t v, tree dst,
			    gimple_seq *seq)
{
	const uint32_t *pred = c->g.pred + c->g.pred_off[v];
	uint32_t n = pap_cg_radix(&c->g, v), i;
	tree u64 = pap_rt_u64();

	if (n <= PAP_CALLS_CHAIN_MAX) {
		gimple_seq_add_stmt(seq, gimple_build_assign(
			dst, build_int_cstu(u64, 0)));
		for (i = 1; i < n; i++) {
			tree b = pap_tmp(boolean_type_node, "pap_cb");
			tree w = pap_tmp(u64, "pap_cw");

			gimple_seq_add_stmt(seq, gimple_build_assign(
				b, GE_EXPR, c->last, pap_u32_cst(pred[i])));
			gimple_seq_add_stmt(seq, gimple_build_assign(
				w, NOP_EXPR, b));
			gimple_seq_add_stmt(seq, gimple_build_assign(
				dst, PLUS_EXPR, dst, w));
		}
		return;
	}
	/* a table over pred[0]..pred[n-1]: the codes between them that are
	 * no predecessor never occur there */
	{
		uint32_t lo = pred[0], span = pred[n - 1] - pred[0] + 1;
		tree u32 = pap_rt_u32();
		tree type = build_array_type_nelts(u32, span);
		tree tab = pap_static_var("pap_cdig", type);
		vec<constructor_elt, va_gc> *elts = NULL;
		tree idx = pap_tmp(u32, "pap_ci"), d = pap_tmp(u32, "pap_cd");

		for (i = 0; i < n; i++)
			CONSTRUCTOR_APPEND_ELT(elts,
				build_int_cst(sizetype, pred[i] - lo),
				pap_u32_cst(i));
		TREE_READONLY(tab) = 1;
		TREE_CONSTANT(tab) = 1;
		DECL_INITIAL(tab) = build_constructor(type, elts);
		TREE_CONSTANT(DECL_INITIAL(tab)) = 1;
		TREE_STATIC(DECL_INITIAL(tab)) = 1;
		varpool_node::finalize_decl(tab);
		gimple_seq_add_stmt(seq, gimple_build_assign(
			idx, MINUS_EXPR, c->last, pap_u32_cst(lo)));
		gimple_seq_add_stmt(seq, gimple_build_assign(
			d, build4(ARRAY_REF, u32, tab, idx, NULL_TREE,
				  NULL_TREE)));
		gimple_seq_add_stmt(seq, gimple_build_assign(dst, NOP_EXPR, d));
	}
}

/*
 * Inserts before the statement at *@gsi the fold of radix @n (at least
 * 2) of the digit @d that @dseq computes, @code the breakpoint's node
 * code.  *@gsi stays before the same statement, which may now be in
 * another block.
 */
static void pap_calls_fold_digit(uint32_t n, tree d, gimple_seq dseq,
				 uint32_t code, gimple_stmt_iterator *gsi)
{
	tree u64 = pap_rt_u64(), cr = pap_rt_var(PAP_RV_CR);
	tree r, val, o, nn;
	gimple_seq seq = NULL, slow = NULL;
	uint64_t q, rem;
	gcond *cond;
	gcall *brk;
	gimple *at = gsi_stmt(*gsi);
	basic_block join;

	q = UINT64_MAX / n;
	rem = UINT64_MAX % n;
	nn = build_int_cstu(u64, n);
	r = pap_tmp(u64, "pap_cr");
	val = pap_tmp(u64, "pap_cv");
	o = pap_tmp(boolean_type_node, "pap_co");
	gimple_seq_add_stmt(&seq, gimple_build_assign(r, cr));
	gimple_seq_add_seq(&seq, dseq);
	gimple_seq_add_stmt(&seq, gimple_build_assign(val, MULT_EXPR, r, nn));
	gimple_seq_add_stmt(&seq, gimple_build_assign(val, PLUS_EXPR, val, d));
	if (n - 1 > rem) {
		/* d > rem is possible: r == q overflows for those d.  The
		 * hot test is r >= q, one compare with a constant; the cold
		 * arm tells r == q and d <= rem, no overflow, from the rest
		 * (r > q or d > rem) */
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			o, GE_EXPR, r, build_int_cstu(u64, q)));
	} else {
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			o, GT_EXPR, r, build_int_cstu(u64, q)));
	}
	cond = gimple_build_cond(NE_EXPR, o, boolean_false_node, NULL_TREE,
				 NULL_TREE);
	gimple_seq_add_stmt(&seq, cond);
	gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
	brk = gimple_build_call(pap_rt_decl(PAP_RT_CBREAK), 4, r, nn, d,
				pap_u32_cst(code));
	gimple_call_set_lhs(brk, val);
	if (n - 1 > rem) {
		tree b1 = pap_tmp(boolean_type_node, "pap_co");
		tree b2 = pap_tmp(boolean_type_node, "pap_co");
		gimple_seq brkseq = NULL;
		gcond *c2;

		gimple_seq_add_stmt(&slow, gimple_build_assign(
			b1, NE_EXPR, r, build_int_cstu(u64, q)));
		gimple_seq_add_stmt(&slow, gimple_build_assign(
			b2, GT_EXPR, d, build_int_cstu(u64, rem)));
		gimple_seq_add_stmt(&slow, gimple_build_assign(
			b1, BIT_IOR_EXPR, b1, b2));
		c2 = gimple_build_cond(NE_EXPR, b1, boolean_false_node,
				       NULL_TREE, NULL_TREE);
		gimple_seq_add_stmt(&slow, c2);
		join = pap_calls_branch(cond, slow, NULL,
					profile_probability::very_unlikely());
		gimple_seq_add_stmt(&brkseq, brk);
		pap_calls_branch(c2, brkseq, NULL,
				 profile_probability::likely());
	} else {
		gimple_seq_add_stmt(&slow, brk);
		join = pap_calls_branch(cond, slow, NULL,
					profile_probability::very_unlikely());
	}
	*gsi = gsi_start_bb(join);
	gsi_insert_before(gsi, gimple_build_assign(cr, val), GSI_SAME_STMT);
	gcc_assert(gsi_stmt(*gsi) == at);
}

/* Node @v's fold of the digit of last before *@gsi (nothing when its
 * radix is below 2), as pap_calls_fold_digit(). */
static void pap_calls_fold(struct pap_calls *c, uint32_t v, uint32_t code,
			   gimple_stmt_iterator *gsi)
{
	uint32_t n = pap_cg_radix(&c->g, v);
	gimple_seq dseq = NULL;
	tree d;

	if (n < 2)
		return;
	d = pap_tmp(pap_rt_u64(), "pap_cd");
	pap_calls_digit(c, v, d, &dseq);
	pap_calls_fold_digit(n, d, dseq, code, gsi);
}

/* The key as the probes pass it, loads appended to @seq. */
static tree pap_calls_key(struct pap_calls *c, gimple_seq *seq)
{
	return pap_key_arg(seq, unshare_expr(c->key), c->key_slot);
}

/* The function's address as a uintptr_t value, in @seq. */
static tree pap_calls_self(struct pap_calls *c, gimple_seq *seq)
{
	tree p = pap_tmp(pap_rt_uptr(), "pap_cself");

	gimple_seq_add_stmt(seq, gimple_build_assign(
		p, NOP_EXPR, build_fold_addr_expr(c->fun->decl)));
	return p;
}

/*
 * The arms of the entry of a function with self tail sites, after its
 * fast check @cond (@fast its push): where the frame @t, whose expect
 * @ex was read, holds this function's own tail call (expect SELFTAIL
 * and this function's key @key), the activation takes that frame again
 * and begins at T_k, k the frame's site (librt/calls.h,
 * pap_c_enter_self); else @call, __pap_center.  Returns the block after
 * them.
 */
static basic_block pap_calls_entry_self(struct pap_calls *c, gcond *cond,
					gimple_seq fast, gcall *call, tree t,
					tree ex, tree key)
{
	gimple_seq other = NULL, self = NULL, slow = NULL;
	tree tk = pap_tmp(pap_rt_cstring(), "pap_ck");
	tree b1 = pap_tmp(boolean_type_node, "pap_cb");
	tree b2 = pap_tmp(boolean_type_node, "pap_cb");
	tree k = pap_tmp(pap_rt_u32(), "pap_ck");
	gcond *c2;
	basic_block join;

	gimple_seq_add_stmt(&fast, gimple_build_assign(c->last,
		pap_u32_cst(PAP_CG_SRC_E)));
	gimple_seq_add_stmt(&other, gimple_build_assign(tk,
		pap_frame_ref(t, PAP_CF_OFF_KEY, pap_rt_cstring())));
	gimple_seq_add_stmt(&other, gimple_build_assign(b1, EQ_EXPR, ex,
		pap_uptr_cst(PAP_CF_SELFTAIL)));
	gimple_seq_add_stmt(&other, gimple_build_assign(b2, EQ_EXPR, tk,
		unshare_expr(key)));
	gimple_seq_add_stmt(&other, gimple_build_assign(b1, BIT_AND_EXPR, b1,
							b2));
	c2 = gimple_build_cond(NE_EXPR, b1, boolean_false_node, NULL_TREE,
			       NULL_TREE);
	gimple_seq_add_stmt(&other, c2);
	/* T_k = pap_cg_src(k, 0) = 4k - 3; the frame is clean again */
	gimple_seq_add_stmt(&self, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_EXPECT, pap_rt_uptr()),
		pap_uptr_cst(PAP_CF_IDLE)));
	gimple_seq_add_stmt(&self, gimple_build_assign(c->me, t));
	gimple_seq_add_stmt(&self, gimple_build_assign(k,
		pap_frame_ref(t, PAP_CF_OFF_SITE, pap_rt_u32())));
	gimple_seq_add_stmt(&self, gimple_build_assign(c->last, MULT_EXPR, k,
		pap_u32_cst(PAP_CG_NCLASSES)));
	gimple_seq_add_stmt(&self, gimple_build_assign(c->last, MINUS_EXPR,
		c->last, pap_u32_cst(PAP_CG_NCLASSES - 1)));
	gimple_seq_add_stmt(&self, gimple_build_assign(c->slow,
		boolean_false_node));
	gimple_seq_add_stmt(&slow, call);
	gimple_seq_add_stmt(&slow, gimple_build_assign(c->slow,
		boolean_true_node));
	gimple_seq_add_stmt(&slow, gimple_build_assign(c->last,
		pap_u32_cst(PAP_CG_SRC_E)));
	join = pap_calls_branch(cond, fast, other,
				profile_probability::very_likely());
	pap_calls_branch(c2, self, slow, profile_probability::likely());
	return join;
}

/* The entry probe (E), before everything else on the entry edge. */
static void pap_calls_entry(struct pap_calls *c)
{
	function *fun = c->fun;
	basic_block head = split_edge(single_succ_edge(
		ENTRY_BLOCK_PTR_FOR_FN(fun)));
	gimple_stmt_iterator gsi = gsi_start_bb(head);
	gimple_seq seq = NULL, fast = NULL, slow = NULL;
	tree t = pap_tmp(ptr_type_node, "pap_ct");
	tree lim = pap_tmp(ptr_type_node, "pap_cl");
	tree ex = pap_tmp(pap_rt_uptr(), "pap_cx");
	tree b1 = pap_tmp(boolean_type_node, "pap_cb");
	tree b2 = pap_tmp(boolean_type_node, "pap_cb");
	tree self, key;
	gcond *cond;
	gcall *call;
	basic_block join;

	gimple_seq_add_stmt(&seq, gimple_build_assign(t,
		pap_rt_var(PAP_RV_CS)));
	gimple_seq_add_stmt(&seq, gimple_build_assign(lim,
		pap_rt_var(PAP_RV_CS_LIMIT)));
	gimple_seq_add_stmt(&seq, gimple_build_assign(ex,
		pap_frame_ref(t, PAP_CF_OFF_EXPECT, pap_rt_uptr())));
	self = pap_calls_self(c, &seq);
	key = pap_calls_key(c, &seq);
	gimple_seq_add_stmt(&seq, gimple_build_assign(b1, EQ_EXPR, ex, self));
	gimple_seq_add_stmt(&seq, gimple_build_assign(b2, LT_EXPR, t, lim));
	gimple_seq_add_stmt(&seq, gimple_build_assign(b1, BIT_AND_EXPR, b1,
						      b2));
	cond = gimple_build_cond(NE_EXPR, b1, boolean_false_node, NULL_TREE,
				 NULL_TREE);
	gimple_seq_add_stmt(&seq, cond);
	gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);

	/* consume, init, publish: in this order (librt/calls.h) */
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_EXPECT, pap_rt_uptr()),
		pap_uptr_cst(PAP_CF_ENTERED)));
	gimple_seq_add_stmt(&fast, gimple_build_assign(c->me, POINTER_PLUS_EXPR,
		t, size_int(PAP_CF_SIZE)));
	/* a free frame's expect is IDLE or ENTERED and its flags 0: the
	 * runtime keeps them so (pap/abi.h), only the key is new */
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(c->me, PAP_CF_OFF_KEY, pap_rt_cstring()), key));
	gimple_seq_add_stmt(&fast, gimple_build_assign(pap_rt_var(PAP_RV_CS),
						       c->me));
	gimple_seq_add_stmt(&fast, gimple_build_assign(c->slow,
		boolean_false_node));
	call = gimple_build_call(pap_rt_decl(PAP_RT_CENTER), 3, t, key, self);
	gimple_call_set_lhs(call, c->me);
	if (!c->nself) {
		gimple_seq_add_stmt(&slow, call);
		gimple_seq_add_stmt(&slow, gimple_build_assign(c->slow,
			boolean_true_node));
		join = pap_calls_branch(cond, fast, slow,
					profile_probability::very_likely());
		gsi = gsi_start_bb(join);
		gsi_insert_before(&gsi, gimple_build_assign(c->last,
			pap_u32_cst(PAP_CG_SRC_E)), GSI_SAME_STMT);
	} else {
		join = pap_calls_entry_self(c, cond, fast, call, t, ex, key);
		gsi = gsi_start_bb(join);
	}
	pap_pisp_on_entry(fun->decl, &gsi);
}

/*
 * The block where the code after site @s's call goes: the call's block
 * after it, or, when the call ends its block (abnormal edges: setjmp in
 * the function), a new block on its normal out-edge.  *@gsi: where.
 */
static void pap_calls_after(gcall *s, gimple_stmt_iterator *gsi)
{
	basic_block bb = gimple_bb(s);
	edge e, normal = NULL;
	edge_iterator ei;

	if (!stmt_ends_bb_p(s) && gsi_stmt(gsi_last_bb(bb)) != s) {
		*gsi = gsi_for_stmt(s);
		gsi_next(gsi);
		return;
	}
	FOR_EACH_EDGE(e, ei, bb->succs)
		if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH)))
			normal = e;
	gcc_assert(normal);
	*gsi = gsi_start_bb(split_edge(normal));
}

/*
 * Tail site @k's probe, after C_k's fold, before its call at *@gsi;
 * @seq computes @p, the address called.  The frame is popped and the
 * caller's frame carries the call (librt/calls.h, pap_c_tail), or, for
 * a frame with flags (entered from outside, past the bound),
 * __pap_ctail() does.  Nothing follows the call: it keeps its tail
 * position, and its return runs no exit probe (pap_calls_emit).
 */
static void pap_calls_tail(struct pap_calls *c, uint32_t k, tree p,
			   gimple_seq seq, gimple_stmt_iterator *gsi)
{
	gimple_seq slow = NULL, fast = NULL;
	tree fl = pap_tmp(pap_rt_u32(), "pap_cf");
	tree t = pap_tmp(ptr_type_node, "pap_ct");
	tree key;
	gcond *cond;

	gimple_seq_add_stmt(&seq, gimple_build_assign(fl,
		pap_frame_ref(c->me, PAP_CF_OFF_FLAGS, pap_rt_u32())));
	cond = gimple_build_cond(NE_EXPR, fl, pap_u32_cst(0), NULL_TREE,
				 NULL_TREE);
	gimple_seq_add_stmt(&seq, cond);
	gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
	gimple_seq_add_stmt(&slow, gimple_build_call(
		pap_rt_decl(PAP_RT_CTAIL), 2, c->me, pap_u32_cst(k)));
	/* pop, then the caller's frame: expect last, so that the callee's
	 * fast check fails only once the rest is there */
	key = pap_calls_key(c, &fast);
	gimple_seq_add_stmt(&fast, gimple_build_assign(t, POINTER_PLUS_EXPR,
		c->me, size_int(-(HOST_WIDE_INT)PAP_CF_SIZE)));
	gimple_seq_add_stmt(&fast, gimple_build_assign(pap_rt_var(PAP_RV_CS),
						       t));
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_TKEY, pap_rt_cstring()), key));
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_TSITE, pap_rt_u32()),
		pap_u32_cst(k)));
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_TEXPECT, pap_rt_uptr()), p));
	gimple_seq_add_stmt(&fast, gimple_build_assign(
		pap_frame_ref(t, PAP_CF_OFF_EXPECT, pap_rt_uptr()),
		pap_uptr_cst(PAP_CF_TAIL)));
	pap_calls_branch(cond, slow, fast, profile_probability::unlikely());
}

/*
 * Site @k's C_k probe before its call, and, for a returns-twice call,
 * before its block: the code before setjmp would run again at each
 * longjmp.  Returns the temporary that holds the address called.
 */
static tree pap_calls_site_before(struct pap_calls *c, uint32_t k)
{
	gcall *s = c->cs[k - 1].stmt;
	const struct pap_site *site = &c->sites[k - 1];
	tree p = pap_tmp(pap_rt_uptr(), "pap_cp");
	gimple_stmt_iterator gsi;
	gimple_seq seq = NULL;
	gimple *anchor;

	if (site->kind == PAP_SITE_RETURNS_TWICE) {
		/* a block of its own before the receiver, which all the
		 * receiver's ordinary in-edges enter */
		basic_block bb = gimple_bb(s), pre = NULL;
		edge e;
		bool again = true;

		gcc_assert(gsi_stmt(gsi_after_labels(bb)) == s);
		while (again) {
			edge_iterator ei;

			again = false;
			FOR_EACH_EDGE(e, ei, bb->preds) {
				if (e->flags & (EDGE_ABNORMAL | EDGE_EH) ||
				    e->src == pre)
					continue;
				if (!pre) {
					pre = split_edge(e);
				} else {
					redirect_edge_and_branch(e, pre);
				}
				again = true;
				break;
			}
		}
		gcc_assert(pre);
		gsi = gsi_start_bb(pre);
		anchor = gimple_build_nop();
		gsi_insert_after(&gsi, anchor, GSI_NEW_STMT);
		gsi = gsi_for_stmt(anchor);
	} else {
		anchor = s;
		gsi = gsi_for_stmt(s);
	}
	pap_calls_fold(c, pap_cg_node_c(k), k, &gsi);
	gimple_seq_add_stmt(&seq, gimple_build_assign(p, NOP_EXPR,
		unshare_expr(gimple_call_fn(s))));
	if (site->kind == PAP_SITE_TAIL) {
		pap_calls_tail(c, k, p, seq, &gsi);
		return p;
	}
	if (site->kind == PAP_SITE_SELFTAIL) {
		/* the frame stays; the entry reads the site when it sees
		 * expect SELFTAIL, so that goes last */
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			pap_frame_ref(c->me, PAP_CF_OFF_SITE, pap_rt_u32()),
			pap_u32_cst(k)));
		gimple_seq_add_stmt(&seq, gimple_build_assign(
			pap_frame_ref(c->me, PAP_CF_OFF_EXPECT, pap_rt_uptr()),
			pap_uptr_cst(PAP_CF_SELFTAIL)));
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
		return p;
	}
	gimple_seq_add_stmt(&seq, gimple_build_assign(
		pap_frame_ref(c->me, PAP_CF_OFF_SITE, pap_rt_u32()),
		pap_u32_cst(k)));
	gimple_seq_add_stmt(&seq, gimple_build_assign(
		pap_frame_ref(c->me, PAP_CF_OFF_EXPECT, pap_rt_uptr()), p));
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
	if (anchor != s) {
		gsi = gsi_for_stmt(anchor);
		gsi_remove(&gsi, true);
	}
	return p;
}

/*
 * Puts @seq where @gsi points: before its statement, or at the end of an
 * empty block; @gsi then points into what was put there or after it.
 */
static void pap_calls_insert(gimple_stmt_iterator *gsi, gimple_seq seq)
{
	if (gsi_end_p(*gsi))
		gsi_insert_seq_after(gsi, seq, GSI_NEW_STMT);
	else
		gsi_insert_seq_before(gsi, seq, GSI_SAME_STMT);
}

/* Site @k's return probe (R_k) after its call; @p the address called. */
static void pap_calls_site_after(struct pap_calls *c, uint32_t k, tree p)
{
	gcall *s = c->cs[k - 1].stmt;
	const struct pap_site *site = &c->sites[k - 1];
	tree u32 = pap_rt_u32(), uptr = pap_rt_uptr();
	tree ex = pap_tmp(uptr, "pap_cx");
	tree ent = pap_tmp(boolean_type_node, "pap_ce");
	gimple_stmt_iterator gsi;
	gimple_seq seq = NULL, then_seq = NULL;
	uint32_t src0 = pap_cg_src(k, 0);
	tree istail = NULL_TREE;
	gcond *cond;
	basic_block join;

	pap_calls_after(s, &gsi);
	if (site->kind == PAP_SITE_DIRECT &&
	    !(site->flags & (PAP_SITE_MAYBE_OUT | PAP_SITE_MAYBE_TAIL))) {
		/* the callee is surely entered and ends in no tail chain: its
		 * entry consumed the call (fast path, or __pap_center past
		 * the bound, ABI 12), expect is ENTERED, class 0 */
		gimple_seq_add_stmt(&seq, gimple_build_assign(c->last,
			pap_u32_cst(src0)));
		pap_calls_insert(&gsi, seq);
		return;
	}
	gimple_seq_add_stmt(&seq, gimple_build_assign(ex,
		pap_frame_ref(c->me, PAP_CF_OFF_EXPECT, uptr)));
	gimple_seq_add_stmt(&seq, gimple_build_assign(ent, EQ_EXPR, ex,
		pap_uptr_cst(PAP_CF_ENTERED)));
	/* ENTERED stays, anything else becomes IDLE, before any fold: a
	 * store only when the callee was not entered */
	cond = gimple_build_cond(EQ_EXPR, ent, boolean_false_node, NULL_TREE,
				 NULL_TREE);
	gimple_seq_add_stmt(&seq, cond);
	pap_calls_insert(&gsi, seq);
	seq = NULL;
	gimple_seq_add_stmt(&then_seq, gimple_build_assign(
		pap_frame_ref(c->me, PAP_CF_OFF_EXPECT, uptr),
		pap_uptr_cst(PAP_CF_IDLE)));
	join = pap_calls_branch(cond, then_seq, NULL, site->flags &
		PAP_SITE_MAYBE_OUT ? profile_probability::even() :
		profile_probability::very_unlikely());
	then_seq = NULL;
	gsi = gsi_start_bb(join);
	if (site->flags & PAP_SITE_MAYBE_TAIL) {
		/* TAIL or ENTERED_TAILED: a chain of tail calls ended here,
		 * class 2, its mark made before any fold */
		tree tl = pap_tmp(uptr, "pap_cn");

		istail = pap_tmp(boolean_type_node, "pap_ce");
		gimple_seq_add_stmt(&seq, gimple_build_assign(tl, MINUS_EXPR,
			ex, pap_uptr_cst(PAP_CF_TAIL)));
		gimple_seq_add_stmt(&seq, gimple_build_assign(istail, LE_EXPR,
			tl, pap_uptr_cst(PAP_CF_ENTERED_TAILED - PAP_CF_TAIL)));
		cond = gimple_build_cond(NE_EXPR, istail, boolean_false_node,
					 NULL_TREE, NULL_TREE);
		gimple_seq_add_stmt(&seq, cond);
		pap_calls_insert(&gsi, seq);
		seq = NULL;
		gimple_seq_add_stmt(&then_seq, gimple_build_call(
			pap_rt_decl(PAP_RT_CRETURN), 2, c->me, ex));
		join = pap_calls_branch(cond, then_seq, NULL,
					profile_probability::unlikely());
		then_seq = NULL;
		gsi = gsi_start_bb(join);
	}
	if (site->kind == PAP_SITE_RETURNS_TWICE) {
		/* its first return: the frame is on top, its call in
		 * progress is still this one to this address */
		tree top = pap_tmp(ptr_type_node, "pap_ct");
		tree st = pap_tmp(u32, "pap_cs");
		tree b1 = pap_tmp(boolean_type_node, "pap_cb");
		tree b2 = pap_tmp(boolean_type_node, "pap_cb");

		gimple_seq_add_stmt(&seq, gimple_build_assign(top,
			pap_rt_var(PAP_RV_CS)));
		gimple_seq_add_stmt(&seq, gimple_build_assign(st,
			pap_frame_ref(c->me, PAP_CF_OFF_SITE, u32)));
		gimple_seq_add_stmt(&seq, gimple_build_assign(b1, NE_EXPR,
			top, c->me));
		gimple_seq_add_stmt(&seq, gimple_build_assign(b2, NE_EXPR,
			st, pap_u32_cst(k)));
		gimple_seq_add_stmt(&seq, gimple_build_assign(b1, BIT_IOR_EXPR,
			b1, b2));
		gimple_seq_add_stmt(&seq, gimple_build_assign(b2, NE_EXPR,
			ex, p));
		gimple_seq_add_stmt(&seq, gimple_build_assign(b1, BIT_IOR_EXPR,
			b1, b2));
		cond = gimple_build_cond(NE_EXPR, b1, boolean_false_node,
					 NULL_TREE, NULL_TREE);
		gimple_seq_add_stmt(&seq, cond);
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
		gimple_seq_add_stmt(&then_seq, gimple_build_call(
			pap_rt_decl(PAP_RT_CRESUME), 2, c->me,
			pap_u32_cst(pap_cg_src(k, 1))));
		join = pap_calls_branch(cond, then_seq, NULL,
					profile_probability::unlikely());
		gsi = gsi_start_bb(join);
		gsi_insert_before(&gsi, gimple_build_assign(c->last,
			pap_u32_cst(pap_cg_src(k, 1))), GSI_SAME_STMT);
		return;
	}
	if (site->kind == PAP_SITE_INDIRECT) {
		/* entered: the callee's index i among the site's cluster of
		 * ncl, ncl for none of them (a CALLEE mark names it), folded
		 * with radix ncl + 1 (none under sc: always the mark) */
		uint32_t ncl = c->ncluster[k - 1], j;
		tree u64 = pap_rt_u64();
		tree i = pap_tmp(u64, "pap_ci"), any = pap_tmp(u64, "pap_ca");
		gimple_seq dseq = NULL, mseq = NULL;
		gimple *nop;

		cond = gimple_build_cond(NE_EXPR, ent, boolean_false_node,
					 NULL_TREE, NULL_TREE);
		gimple_seq_add_stmt(&seq, cond);
		gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
		seq = NULL;
		nop = gimple_build_nop();
		gimple_seq_add_stmt(&then_seq, nop);
		join = pap_calls_branch(cond, then_seq, NULL,
					profile_probability::likely());
		gimple_seq_add_stmt(&mseq, gimple_build_assign(i,
			build_int_cstu(u64, 0)));
		gimple_seq_add_stmt(&mseq, gimple_build_assign(any,
			build_int_cstu(u64, 0)));
		for (j = 0; j < ncl; j++) {
			tree b = pap_tmp(boolean_type_node, "pap_cb");
			tree w = pap_tmp(u64, "pap_cw");
			tree a = pap_tmp(pap_rt_uptr(), "pap_cq");

			gimple_seq_add_stmt(&mseq, gimple_build_assign(a,
				NOP_EXPR, build_fold_addr_expr(
					c->cluster[k - 1][j])));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(b,
				EQ_EXPR, p, a));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(w,
				NOP_EXPR, b));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(any,
				PLUS_EXPR, any, w));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(w,
				MULT_EXPR, w, build_int_cstu(u64, j)));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(i,
				PLUS_EXPR, i, w));
		}
		/* i += ncl when nothing matched */
		{
			tree w = pap_tmp(u64, "pap_cw");
			gimple_seq escape = NULL;
			gcond *esc;
			basic_block ej;
			gimple_stmt_iterator ngsi;

			gimple_seq_add_stmt(&mseq, gimple_build_assign(w,
				BIT_XOR_EXPR, any, build_int_cstu(u64, 1)));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(w,
				MULT_EXPR, w, build_int_cstu(u64, ncl)));
			gimple_seq_add_stmt(&mseq, gimple_build_assign(i,
				PLUS_EXPR, i, w));
			esc = gimple_build_cond(EQ_EXPR, any,
						build_int_cstu(u64, 0),
						NULL_TREE, NULL_TREE);
			gimple_seq_add_stmt(&mseq, esc);
			ngsi = gsi_for_stmt(nop);
			gsi_insert_seq_before(&ngsi, mseq, GSI_SAME_STMT);
			gimple_seq_add_stmt(&escape, gimple_build_call(
				pap_rt_decl(PAP_RT_CCALLEE), 1, p));
			ej = pap_calls_branch(esc, escape, NULL, ncl ?
				profile_probability::unlikely() :
				profile_probability::always());
			(void)ej;
		}
		if (ncl) {
			gimple_stmt_iterator ngsi = gsi_for_stmt(nop);

			pap_calls_fold_digit(ncl + 1, i, dseq,
					     PAP_CS_CODE_CLUSTER | k, &ngsi);
		}
		{
			gimple_stmt_iterator ngsi = gsi_for_stmt(nop);

			gsi_remove(&ngsi, true);
		}
		gsi = gsi_start_bb(join);
	}
	if (site->flags & (PAP_SITE_MAYBE_OUT | PAP_SITE_MAYBE_TAIL)) {
		/* R_k^c is R_k^0 + c (callgraph.h): c = (not entered) +
		 * (a tail chain), or 2 * (a tail chain) without class 1 */
		tree cls = pap_tmp(u32, "pap_cc");
		tree w = pap_tmp(u32, "pap_cc");
		tree nent = pap_tmp(boolean_type_node, "pap_ce");

		gimple_seq_add_stmt(&seq, gimple_build_assign(cls,
			pap_u32_cst(0)));
		if (site->flags & PAP_SITE_MAYBE_OUT) {
			gimple_seq_add_stmt(&seq, gimple_build_assign(nent,
				NE_EXPR, ex, pap_uptr_cst(PAP_CF_ENTERED)));
			gimple_seq_add_stmt(&seq, gimple_build_assign(cls,
				NOP_EXPR, nent));
		}
		if (istail) {
			gimple_seq_add_stmt(&seq, gimple_build_assign(w,
				NOP_EXPR, istail));
			if (!(site->flags & PAP_SITE_MAYBE_OUT))
				gimple_seq_add_stmt(&seq, gimple_build_assign(
					w, MULT_EXPR, w, pap_u32_cst(2)));
			gimple_seq_add_stmt(&seq, gimple_build_assign(cls,
				PLUS_EXPR, cls, w));
		}
		gimple_seq_add_stmt(&seq, gimple_build_assign(c->last,
			PLUS_EXPR, cls, pap_u32_cst(src0)));
	} else {
		gimple_seq_add_stmt(&seq, gimple_build_assign(c->last,
			pap_u32_cst(src0)));
	}
	pap_calls_insert(&gsi, seq);
}

/* The exit probe (X) before the return statement @ret. */
static void pap_calls_exit(struct pap_calls *c, gimple *ret)
{
	gimple_stmt_iterator gsi = gsi_for_stmt(ret);
	gimple_seq seq = NULL, slow = NULL, fast = NULL;
	tree prev = pap_tmp(ptr_type_node, "pap_ct");
	gcond *cond;

	pap_calls_fold(c, pap_cg_node_x(&c->g), PAP_CS_CODE_X, &gsi);
	if (c->nsites) {
		tree fl = pap_tmp(pap_rt_u32(), "pap_cf");

		gimple_seq_add_stmt(&seq, gimple_build_assign(fl,
			pap_frame_ref(c->me, PAP_CF_OFF_FLAGS, pap_rt_u32())));
		cond = gimple_build_cond(NE_EXPR, fl, pap_u32_cst(0),
					 NULL_TREE, NULL_TREE);
	} else {
		/* a leaf: a frame the entry's fast path pushed has flags 0
		 * (it was clean, only __pap_center sets them), so only one
		 * it pushed may need __pap_cexit (which pops a frame without
		 * flags too); a local kept across no call, and GCC sees the
		 * fast path through */
		cond = gimple_build_cond(NE_EXPR, c->slow, boolean_false_node,
					 NULL_TREE, NULL_TREE);
	}
	gimple_seq_add_stmt(&seq, cond);
	gsi_insert_seq_before(&gsi, seq, GSI_SAME_STMT);
	gimple_seq_add_stmt(&slow, gimple_build_call(
		pap_rt_decl(PAP_RT_CEXIT), 1, c->me));
	gimple_seq_add_stmt(&fast, gimple_build_assign(prev,
		POINTER_PLUS_EXPR, c->me,
		size_int(-(HOST_WIDE_INT)PAP_CF_SIZE)));
	gimple_seq_add_stmt(&fast, gimple_build_assign(pap_rt_var(PAP_RV_CS),
						       prev));
	pap_calls_branch(cond, slow, fast, profile_probability::unlikely());
}

/*
 * Is a direct call to @callee surely entered through its entry probe:
 * defined in this unit, not replaceable at link or load time, and one
 * the plugin instruments (pap_fn_select()'s tests; spec and EH aside,
 * whose functions have no call probes or no calls at all)?
 */
static bool pap_calls_callee_in(tree callee)
{
	cgraph_node *node = cgraph_node::get(callee);
	const char *name;

	if (!node || !node->definition || DECL_EXTERNAL(callee) ||
	    DECL_WEAK(callee) || node->alias || node->thunk)
		return false;
	if (flag_shlib && TREE_PUBLIC(callee) &&
	    DECL_VISIBILITY(callee) == VISIBILITY_DEFAULT)
		return false;
	if (flag_exceptions)
		return false;
	if (lookup_attribute("no_instrument_function",
			     DECL_ATTRIBUTES(callee)))
		return false;
	if (!pap_pisp_named(callee))
		return false;
	if (DECL_IN_SYSTEM_HEADER(callee) && !pap_opts.system_headers)
		return false;
	name = IDENTIFIER_POINTER(DECL_NAME(callee));
	if (pap_opts.have_include &&
	    regexec(&pap_opts.include, name, 0, NULL, 0))
		return false;
	if (pap_opts.have_exclude &&
	    !regexec(&pap_opts.exclude, name, 0, NULL, 0))
		return false;
	return true;
}

/* The unit's functions whose address its source takes (the front end's
 * TREE_ADDRESSABLE, final once the unit is parsed, taken before any
 * probe takes one) and that pap instruments, by assembler name: the
 * candidates of ic and ac clusters. */
static vec<tree> pap_calls_taken;
static bool pap_calls_taken_done;

static int pap_calls_name_cmp(const void *a, const void *b)
{
	return strcmp(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(*(const tree *)a)),
		      IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(*(const tree *)b)));
}

static void pap_calls_snapshot(void)
{
	cgraph_node *node;

	if (pap_calls_taken_done)
		return;
	pap_calls_taken_done = true;
	FOR_EACH_FUNCTION(node)
		if (TREE_ADDRESSABLE(node->decl) &&
		    pap_calls_callee_in(node->decl))
			pap_calls_taken.safe_push(node->decl);
	pap_calls_taken.qsort(pap_calls_name_cmp);
}

/* The cluster of indirect site @k (ic, ac): at most 16 candidates, those
 * whose type is compatible with the call's under ic. */
static void pap_calls_cluster(struct pap_calls *c, uint32_t k)
{
	gcall *s = c->cs[k - 1].stmt;
	tree fntype = gimple_call_fntype(s);
	unsigned i;

	c->cluster[k - 1] = XNEWVEC(tree, 16);
	for (i = 0; i < pap_calls_taken.length() && c->ncluster[k - 1] < 16;
	     i++) {
		tree d = pap_calls_taken[i];

		if (pap_opts.clusters == pap_options::PAP_CLUSTERS_IC &&
		    (!fntype || !types_compatible_p(TREE_TYPE(d), fntype)))
			continue;
		c->cluster[k - 1][c->ncluster[k - 1]++] = d;
	}
}

/* Is @s a call site: a real call, not a builtin GCC expands in place,
 * nor a leaf C library builtin the unit does not define, nor pap's
 * runtime, nor -finstrument-functions' hooks? */
bool pap_calls_is_site(gcall *s)
{
	tree fn;
	const char *name;

	if (gimple_call_internal_p(s))
		return false;
	fn = gimple_call_fndecl(s);
	if (!fn)
		return true;
	name = IDENTIFIER_POINTER(DECL_NAME(fn));
	if (!strncmp(name, "__pap_", 6) ||
	    !strncmp(name, "__cyg_profile_func_", 19))
		return false;
	if (fndecl_built_in_p(fn, BUILT_IN_MD))
		return false;
	if (fndecl_built_in_p(fn, BUILT_IN_NORMAL) &&
	    (!strncmp(name, "__builtin_", 10) ||
	     !strncmp(name, "__atomic_", 9) || !strncmp(name, "__sync_", 7)))
		return false;
	/* a C library function GCC knows as leaf (sin, strcmp, malloc:
	 * it calls nothing of the program back) and the unit does not
	 * define enters no instrumented function: no probes around it */
	if (fndecl_built_in_p(fn, BUILT_IN_NORMAL) &&
	    (gimple_call_flags(s) & ECF_LEAF) &&
	    !(gimple_call_flags(s) & (ECF_NORETURN | ECF_RETURNS_TWICE))) {
		cgraph_node *node = cgraph_node::get(fn);

		if (!node || !node->definition)
			return false;
	}
	return true;
}


/* The unit's functions whose call probes are made and that have no tail
 * site: a direct call of one never ends in a chain of tail calls. */
static hash_set<tree> *pap_calls_notail;

/* Is @g a call that may be in tail position and may return (not
 * internal, noreturn or returns-twice), other than a direct call of @fn
 * itself (which binds to this definition)? */
static bool pap_calls_other_call(gimple *g, tree fn)
{
	gcall *call = dyn_cast<gcall *>(g);

	if (!call || gimple_call_internal_p(call) ||
	    gimple_call_flags(call) & (ECF_NORETURN | ECF_RETURNS_TWICE))
		return false;
	return gimple_call_fndecl(call) != fn ||
	       !decl_binds_to_current_def_p(fn);
}

static tree pap_calls_generic_call(tree *tp, int *walk_subtrees, void *data)
{
	tree fn = (tree)data, callee;

	(void)walk_subtrees;
	if (TREE_CODE(*tp) != CALL_EXPR || !CALL_EXPR_FN(*tp) ||
	    call_expr_flags(*tp) & (ECF_NORETURN | ECF_RETURNS_TWICE))
		return NULL_TREE;
	callee = get_callee_fndecl(*tp);
	if (callee != fn || !decl_binds_to_current_def_p(fn))
		return *tp;
	return NULL_TREE;
}

static tree pap_calls_gimple_call(gimple_stmt_iterator *gsi, bool *handled,
				  struct walk_stmt_info *wi)
{
	(void)handled;
	if (pap_calls_other_call(gsi_stmt(*gsi), (tree)wi->info)) {
		wi->callback_result = integer_one_node;
		return integer_one_node;
	}
	return NULL_TREE;
}

/*
 * May a call of @callee, a function of the unit whose probes are not
 * made yet (it comes later), end in a chain of tail calls?  Not when its
 * body, in whatever form it has now (GENERIC, GIMPLE, a CFG), calls
 * nothing that returns but itself: it has no tail site then, only self
 * tail sites and noreturn ones, whatever its own pass decides.
 * Otherwise it may (a body with probes made has their calls).
 */
static bool pap_calls_body_may_chain(tree callee)
{
	function *f = DECL_STRUCT_FUNCTION(callee);
	basic_block bb;

	if (f && f->cfg) {
		FOR_EACH_BB_FN(bb, f) {
			gimple_stmt_iterator gsi;

			for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
			     gsi_next(&gsi))
				if (pap_calls_other_call(gsi_stmt(gsi), callee))
					return true;
		}
		return false;
	}
	if (gimple_has_body_p(callee)) {
		struct walk_stmt_info wi;
		gimple_seq body = gimple_body(callee);

		memset(&wi, 0, sizeof(wi));
		wi.info = callee;
		walk_gimple_seq(body, pap_calls_gimple_call, NULL, &wi);
		return wi.callback_result != NULL_TREE;
	}
	if (DECL_SAVED_TREE(callee))
		return walk_tree_without_duplicates(&DECL_SAVED_TREE(callee),
						    pap_calls_generic_call,
						    callee) != NULL_TREE;
	return true;
}

/* The unit's functions whose probes are made and whose only sites are
 * self tail sites and noreturn ones: they call nothing else that
 * returns. */
static hash_set<tree> *pap_calls_leaf;

/*
 * Is @callee, called in tail position from @c's function, a function of
 * the unit other than it that calls nothing but itself (known from its
 * probes, or from its body)?  Such a call is made an ordinary call:
 * while the callee runs the caller's frame stays, one frame that calls
 * nothing more, so the stack stays bounded wherever the plain build's
 * is, and the call costs no mark.
 */
static bool pap_calls_leaf_callee(const struct pap_calls *c, tree callee)
{
	if (!callee || callee == c->fun->decl ||
	    !pap_calls_callee_in(callee))
		return false;
	if (pap_calls_leaf && pap_calls_leaf->contains(callee))
		return true;
	return !pap_calls_body_may_chain(callee);
}

/* One site of node @node: its kind and flags (PAP_SITE_MAYBE_TAIL
 * later, pap_calls_tail_flags()); @tails: may its calls in tail position
 * be tail sites? */
static void pap_calls_add(struct pap_calls *c, gcall *s, uint32_t node,
			  uint32_t *cap, bool tails)
{
	struct pap_site *site;
	struct pap_csite *cs;
	int ecf = gimple_call_flags(s);

	if (c->nsites == *cap) {
		*cap = *cap * 2 + 8;
		c->sites = XRESIZEVEC(struct pap_site, c->sites, *cap);
		c->cs = XRESIZEVEC(struct pap_csite, c->cs, *cap);
	}
	site = &c->sites[c->nsites];
	cs = &c->cs[c->nsites++];
	cs->stmt = s;
	cs->callee = gimple_call_fndecl(s);
	site->block = node;
	site->flags = 0;
	if (tails && pap_opts.calls_tail > 1 && pap_tail_return(c->fun, s) &&
	    pap_calls_leaf_callee(c, cs->callee)) {
		/* a call, as calls-notail makes it: the stack grows by
		 * this one frame at most, its callee calls nothing else */
		site->kind = PAP_SITE_DIRECT;
	} else if (tails && pap_tail_return(c->fun, s) && cs->callee ==
	    c->fun->decl && decl_binds_to_current_def_p(cs->callee)) {
		/* the function itself, not another definition of its
		 * name: the activation keeps its frame, no mark */
		site->kind = PAP_SITE_SELFTAIL;
		c->nself++;
	} else if (tails && pap_opts.calls_tail > 1 &&
		   pap_tail_return(c->fun, s)) {
		/* direct or indirect alike: the marks name every function
		 * of the chain, so no cluster digit is needed */
		site->kind = PAP_SITE_TAIL;
		c->ntail++;
	} else if (ecf & ECF_NORETURN) {
		site->kind = PAP_SITE_NORETURN;
	} else if (ecf & ECF_RETURNS_TWICE) {
		site->kind = PAP_SITE_RETURNS_TWICE;
		site->flags = PAP_SITE_MAYBE_OUT;
	} else if (cs->callee) {
		site->kind = PAP_SITE_DIRECT;
		if (!pap_calls_callee_in(cs->callee))
			site->flags = PAP_SITE_MAYBE_OUT;
	} else {
		site->kind = PAP_SITE_INDIRECT;
		site->flags = PAP_SITE_MAYBE_OUT;
	}
}

/*
 * PAP_SITE_MAYBE_TAIL on the sites whose call may come back through a
 * chain of tail calls (class 2): those that may enter an instrumented
 * function that has a tail site.  Not: a direct call of a function of
 * the unit known to have none (itself, or one whose probes are made
 * already, or one whose body calls nothing but itself), nor of a library
 * function (a GCC builtin, or declared in a
 * system header), which pap does not instrument.  The others may (an
 * extern function, one compiled later, an indirect call): they are
 * flagged, which costs a source, never a wrong record.
 */
static void pap_calls_tail_flags(struct pap_calls *c)
{
	uint32_t k;

	/* without calls-tail no unit of the program makes tail chains
	 * (doc/plugin.md: its units are built alike) */
	if (pap_opts.calls_tail < 2)
		return;
	for (k = 1; k <= c->nsites; k++) {
		struct pap_site *site = &c->sites[k - 1];
		tree callee = c->cs[k - 1].callee;

		if (site->kind == PAP_SITE_INDIRECT) {
			site->flags |= PAP_SITE_MAYBE_TAIL;
			continue;
		}
		if (site->kind != PAP_SITE_DIRECT)
			continue;
		if (callee == c->fun->decl) {
			if (c->ntail)
				site->flags |= PAP_SITE_MAYBE_TAIL;
			continue;
		}
		if (pap_calls_callee_in(callee)) {
			if ((!pap_calls_notail || !pap_calls_notail->contains(
				     callee)) && pap_calls_body_may_chain(callee))
				site->flags |= PAP_SITE_MAYBE_TAIL;
			continue;
		}
		if (fndecl_built_in_p(callee) ||
		    DECL_IN_SYSTEM_HEADER(callee))
			continue;
		site->flags |= PAP_SITE_MAYBE_TAIL;
	}
}

/* The calls and site lines (libcore/meta.h), through the core's writer. */
static void pap_calls_format(struct pap_calls *c)
{
	struct pap_meta_site_out *out = XCNEWVEC(struct pap_meta_site_out,
						 c->nsites + 1);
	char *names = XNEWVEC(char, 16 * ((size_t)c->nsites + 1));
	const char **members = XNEWVEC(const char *, 16 * ((size_t)c->nsites + 1));
	const char *strategy = pap_opts.clusters == pap_options::PAP_CLUSTERS_IC ?
			       "ic" : pap_opts.clusters ==
			       pap_options::PAP_CLUSTERS_AC ? "ac" : "sc";
	uint32_t k, j;
	int n;

	for (k = 1; k <= c->nsites; k++) {
		const struct pap_site *site = &c->sites[k - 1];
		location_t loc = gimple_location(c->cs[k - 1].stmt);
		tree callee = c->cs[k - 1].callee;

		snprintf(names + 16 * (k - 1), 16, "b%u", site->block + 1);
		out[k - 1].block = names + 16 * (k - 1);
		out[k - 1].kind = site->kind;
		out[k - 1].flags = site->flags;
		out[k - 1].line = loc == UNKNOWN_LOCATION ? 0 :
				  (uint32_t)LOCATION_LINE(loc);
		out[k - 1].callee = callee ? IDENTIFIER_POINTER(
			DECL_ASSEMBLER_NAME(callee)) : NULL;
		for (j = 0; j < c->ncluster[k - 1]; j++)
			members[16 * (k - 1) + j] = IDENTIFIER_POINTER(
				DECL_ASSEMBLER_NAME(c->cluster[k - 1][j]));
		out[k - 1].ncluster = c->ncluster[k - 1];
		out[k - 1].cluster = members + 16 * (k - 1);
	}
	n = pap_meta_format_calls(NULL, 0, strategy, out, c->nsites);
	c->text.s = XNEWVEC(char, n + 1);
	c->text.cap = (size_t)n + 1;
	c->text.len = (size_t)pap_meta_format_calls(c->text.s, c->text.cap,
						    strategy, out, c->nsites);
	XDELETEVEC(members);
	XDELETEVEC(names);
	XDELETEVEC(out);
}

struct pap_calls *pap_calls_collect(function *fun, const struct pap_model *m,
				    const struct pap_cfgtext *g,
				    const char *asmname)
{
	struct pap_calls *c;
	basic_block *head_of;
	basic_block bb;
	uint32_t cap = 0, k;
	bool tails = pap_opts.calls_tail > 0;
	int num, r;

	if (!pap_pisp_keep(fun, asmname))
		return NULL;
	FOR_EACH_BB_FN(bb, fun) {
		edge e;
		edge_iterator ei;

		FOR_EACH_EDGE(e, ei, bb->succs)
			if (e->flags & EDGE_EH) {
				if (pap_opts.verbose)
					inform(DECL_SOURCE_LOCATION(fun->decl),
					       "pap: %qs: no call probes: it "
					       "has exception edges", asmname);
				return NULL;
			}
	}
	c = XCNEW(struct pap_calls);
	c->fun = fun;
	c->asmname = asmname;
	/* a function whose jumps come back (setjmp receivers, nonlocal
	 * labels) keeps its calls: as pap_tail_place() does */
	for (num = 0; num < (int)g->cfg->nblocks; num++)
		if (g->cfg->role[num] & PAP_ROLE_RESUME)
			tails = false;
	/* nodes in their numbers' order, each chain from its head */
	head_of = XCNEWVEC(basic_block, m->nnodes + 1);
	FOR_EACH_BB_FN(bb, fun)
		if (pap_model_is_node(m, bb))
			head_of[m->number[bb->index]] = bb;
	for (num = 1; num <= m->nnodes; num++) {
		int steps = m->nbb;

		bb = head_of[num];
		while (bb && steps-- > 0) {
			gimple_stmt_iterator gsi;

			for (gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
			     gsi_next(&gsi)) {
				gcall *s = dyn_cast<gcall *>(gsi_stmt(gsi));

				if (s && pap_calls_is_site(s))
					pap_calls_add(c, s, (uint32_t)num - 1,
						      &cap, tails);
			}
			if (bb == m->tail[head_of[num]->index])
				break;
			bb = m->real[single_succ(bb)->index];
		}
	}
	XDELETEVEC(head_of);
	c->ncluster = XCNEWVEC(uint32_t, c->nsites + 1);
	c->cluster = XCNEWVEC(tree *, c->nsites + 1);
	if (pap_opts.clusters != pap_options::PAP_CLUSTERS_SC) {
		uint32_t k;

		pap_calls_snapshot();
		for (k = 1; k <= c->nsites; k++)
			if (c->sites[k - 1].kind == PAP_SITE_INDIRECT)
				pap_calls_cluster(c, k);
	}
	pap_calls_tail_flags(c);
	r = pap_callsites_build(g->cfg, c->sites, c->nsites, &c->g);
	if (r) {
		warning(0, "pap: %s: no call probes: the call-site graph: %s",
			asmname, pap_strerror(r));
		pap_calls_free(c);
		return NULL;
	}
	pap_calls_format(c);
	if (!c->ntail) {
		if (!pap_calls_notail)
			pap_calls_notail = new hash_set<tree>;
		pap_calls_notail->add(fun->decl);
	}
	for (k = 1; k <= c->nsites; k++)
		if (c->sites[k - 1].kind != PAP_SITE_SELFTAIL &&
		    c->sites[k - 1].kind != PAP_SITE_NORETURN)
			break;
	if (k > c->nsites) {
		if (!pap_calls_leaf)
			pap_calls_leaf = new hash_set<tree>;
		pap_calls_leaf->add(fun->decl);
	}
	if (pap_opts.verbose) {
		uint32_t v;
		struct pap_text t = { NULL, 0, 0 };

		for (k = 1; k <= c->nsites; k++) {
			v = pap_cg_node_c(k);
			pap_text_printf(&t, " C%u:%s:%u", k,
					pap_site_kind_name(c->sites[k - 1].kind),
					pap_cg_radix(&c->g, v));
		}
		inform(DECL_SOURCE_LOCATION(fun->decl),
		       "pap: %qs: %u call sites (site:kind:fan-in)%s, exit "
		       "fan-in %u", asmname, c->nsites, t.s ? t.s : "",
		       pap_cg_radix(&c->g, pap_cg_node_x(&c->g)));
		pap_text_free(&t);
	}
	return c;
}

const char *pap_calls_text(const struct pap_calls *c)
{
	return c->text.s;
}

uint64_t pap_calls_checksum(const struct pap_calls *c, uint64_t base)
{
	return pap_meta_calls_checksum(base, c->text.s, c->text.len);
}

/*
 * The return through which tail site @k's call returns, made the call's
 * own: a return block that other edges enter too gets a copy for the
 * call's edge (pap_tail_finish()), so that the exit probe, which the
 * other paths need, is not on the tail call's path (its frame is gone).
 */
static gimple *pap_calls_tail_ret(struct pap_calls *c, uint32_t k)
{
	gcall *s = c->cs[k - 1].stmt;
	greturn *ret = pap_tail_return(c->fun, s);
	basic_block x;
	auto_vec<edge> moved;

	gcc_assert(ret);
	x = gimple_bb(ret);
	if (x == gimple_bb(s) || single_pred_p(x))
		return ret;
	moved.safe_push(single_succ_edge(gimple_bb(s)));
	pap_tail_finish(c->fun, &moved);
	ret = pap_tail_return(c->fun, s);
	gcc_assert(ret && single_pred_p(gimple_bb(ret)));
	return ret;
}

void pap_calls_emit(struct pap_calls *c, tree key, tree key_slot)
{
	function *fun = c->fun;
	tree *called;
	auto_vec<gimple *> rets, tailrets;
	edge e;
	edge_iterator ei;
	uint32_t k;
	unsigned i;

	c->key = key;
	c->key_slot = key_slot;
	c->me = pap_tmp(ptr_type_node, "pap_me");
	c->last = pap_tmp(pap_rt_u32(), "pap_last");
	for (k = 1; k <= c->nsites; k++)
		if (c->sites[k - 1].kind == PAP_SITE_TAIL ||
		    c->sites[k - 1].kind == PAP_SITE_SELFTAIL)
			tailrets.safe_push(pap_calls_tail_ret(c, k));
	c->slow = pap_tmp(boolean_type_node, "pap_cslow");
	FOR_EACH_EDGE(e, ei, EXIT_BLOCK_PTR_FOR_FN(fun)->preds) {
		gimple *ret = last_stmt(e->src);

		if (ret && gimple_code(ret) == GIMPLE_RETURN &&
		    !tailrets.contains(ret) && !pap_pisp_in_copy(e->src))
			rets.safe_push(ret);
	}
	pap_calls_entry(c);
	called = XCNEWVEC(tree, c->nsites + 1);
	for (k = 1; k <= c->nsites; k++)
		called[k] = pap_calls_site_before(c, k);
	for (k = 1; k <= c->nsites; k++)
		if (c->sites[k - 1].kind != PAP_SITE_NORETURN &&
		    c->sites[k - 1].kind != PAP_SITE_TAIL &&
		    c->sites[k - 1].kind != PAP_SITE_SELFTAIL)
			pap_calls_site_after(c, k, called[k]);
	for (i = 0; i < rets.length(); i++)
		pap_calls_exit(c, rets[i]);
	XDELETEVEC(called);
}

void pap_calls_free(struct pap_calls *c)
{
	if (!c)
		return;
	pap_callgraph_free(&c->g);
	if (c->cluster)
		for (uint32_t k = 0; k < c->nsites; k++)
			XDELETEVEC(c->cluster[k]);
	XDELETEVEC(c->cluster);
	XDELETEVEC(c->ncluster);
	XDELETEVEC(c->sites);
	XDELETEVEC(c->cs);
	pap_text_free(&c->text);
	XDELETE(c);
}
