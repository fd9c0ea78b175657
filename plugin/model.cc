/* SPDX-License-Identifier: MIT */
/*
 * model.cc - GCC's CFG of one function -> pap's canonical model (model.h).
 */
#include "gcc-common.h"
#include "model.h"

/* Does @bb start with GCC's abnormal dispatcher (setjmp, nonlocal goto)? */
static bool pap_is_dispatcher(basic_block bb)
{
	gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb(bb);

	return !gsi_end_p(gsi) &&
	       gimple_call_internal_p(gsi_stmt(gsi), IFN_ABNORMAL_DISPATCHER);
}

gimple *pap_returns_twice(gimple_stmt_iterator gsi)
{
	if (gsi_end_p(gsi) || !is_gimple_call(gsi_stmt(gsi)) ||
	    !(gimple_call_flags(gsi_stmt(gsi)) & ECF_RETURNS_TWICE))
		return NULL;
	return gsi_stmt(gsi);
}

/*
 * Marks dispatchers, their targets (RESUME) and the blocks whose final
 * call leads into one: CUT when the call may also return normally,
 * NORETURN_JMP when it cannot; the setjmp call's own edge is neither.
 */
static void pap_model_roles(function *fun, struct pap_model *m)
{
	basic_block bb;
	edge e;
	edge_iterator ei;

	FOR_EACH_BB_FN(bb, fun) {
		if (!pap_is_dispatcher(bb))
			continue;
		m->role[bb->index] |= PAP_BB_DISPATCHER;
		FOR_EACH_EDGE(e, ei, bb->succs)
			if (e->dest != EXIT_BLOCK_PTR_FOR_FN(fun))
				m->role[e->dest->index] |= PAP_BB_RESUME;
	}
	FOR_EACH_BB_FN(bb, fun) {
		bool into = false, other = false;

		if (m->role[bb->index] & PAP_BB_DISPATCHER)
			continue;
		FOR_EACH_EDGE(e, ei, bb->succs) {
			if (e->dest != EXIT_BLOCK_PTR_FOR_FN(fun) &&
			    m->role[e->dest->index] & PAP_BB_DISPATCHER)
				into = true;
			else
				other = true;
		}
		if (!into || pap_returns_twice(gsi_last_nondebug_bb(bb)))
			continue;
		m->role[bb->index] |= other ? PAP_BB_CUT : PAP_BB_NORETURN_JMP;
	}
}

bool pap_model_is_node(const struct pap_model *m, basic_block bb)
{
	return m->real[bb->index] == bb && m->head[bb->index] == bb->index;
}

bool pap_nonlocal_label_p(basic_block bb)
{
	gimple_stmt_iterator gsi = gsi_start_bb(bb);
	glabel *l = gsi_end_p(gsi) ? NULL : dyn_cast<glabel *>(gsi_stmt(gsi));

	return l && DECL_NONLOCAL(gimple_label_label(l));
}

/* Is @bb an empty block that only passes control on?  A nonlocal label's
 * block is not: a nonlocal goto resumes a path there. */
static bool pap_forwarder(function *fun, basic_block bb)
{
	gimple_stmt_iterator gsi;
	edge e;

	if (!single_succ_p(bb) || pap_nonlocal_label_p(bb))
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

void pap_model_free(struct pap_model *m)
{
	XDELETEVEC(m->real);
	XDELETEVEC(m->head);
	XDELETEVEC(m->tail);
	XDELETEVEC(m->number);
	XDELETEVEC(m->role);
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

void pap_model_build(function *fun, struct pap_model *m)
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
	m->role = XCNEWVEC(unsigned char, m->nbb);
	m->edges = XNEWVEC(struct pap_medge, n_edges_for_fn(fun) + 2);
	m->nedges = 0;
	indeg = XCNEWVEC(int, m->nbb);
	outdeg = XCNEWVEC(int, m->nbb);
	from = XNEWVEC(int, m->nbb);
	pap_model_roles(fun, m);
	FOR_EACH_BB_FN(bb, fun) {
		m->real[bb->index] = m->role[bb->index] & PAP_BB_DISPATCHER ?
				     NULL : pap_resolve(fun, bb);
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
			if (d == exitb || !d)
				continue;
			indeg[d->index]++;
			from[d->index] = e->flags & (EDGE_ABNORMAL | EDGE_EH) ?
					 -1 : bb->index;
		}
	}
	/* the entry block and setjmp receivers are entered from outside:
	 * always chain starts */
	indeg[PAP_REAL(single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)))->index] += 2;
	FOR_EACH_BB_FN(bb, fun)
		if (m->role[bb->index] & PAP_BB_RESUME)
			indeg[bb->index] += 2;
	FOR_EACH_BB_FN(bb, fun) {
		basic_block b = bb;
		int steps = m->nbb;

		if (m->real[bb->index] != bb ||
		    !pap_chain_start(indeg, outdeg, from, bb->index))
			continue;
		m->head[bb->index] = bb->index;
		while (steps-- > 0 && outdeg[b->index] == 1) {
			basic_block d = PAP_REAL(single_succ(b));

			if (!d || d == exitb || d == bb ||
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
		if (!pap_model_is_node(m, bb))
			continue;
		FOR_EACH_EDGE(e, ei, m->tail[bb->index]->succs) {
			basic_block d = PAP_REAL(e->dest);
			struct pap_medge *me;

			if (!d)
				continue;	/* into the dispatcher */
			me = &m->edges[m->nedges++];
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

void pap_model_graph_text(function *fun, const struct pap_model *m,
			   struct pap_text *t)
{
	basic_block bb, first;
	int k;

	pap_text_printf(t, "blocks");
	FOR_EACH_BB_FN(bb, fun)
		if (pap_model_is_node(m, bb))
			pap_text_printf(t, " b%d", m->number[bb->index]);
	first = pap_resolve(fun, single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	pap_text_printf(t, "\nentry b%d\n",
			m->number[m->head[first->index]]);
	for (k = 0; k < m->nedges; k++)
		if (m->edges[k].dst >= 0)
			pap_text_printf(t, "edge b%d b%d%s\n",
					m->number[m->edges[k].src],
					m->number[m->edges[k].dst],
					m->edges[k].e->flags & EDGE_ABNORMAL ?
						" abnormal" : "");
	for (k = 0; k < m->nedges; k++)
		if (m->edges[k].dst == -2)
			pap_text_printf(t, "return b%d\n",
					m->number[m->edges[k].src]);
	FOR_EACH_BB_FN(bb, fun)
		if (m->role[bb->index] & PAP_BB_RESUME)
			pap_text_printf(t, "resume b%d\n",
					m->number[bb->index]);
	FOR_EACH_BB_FN(bb, fun)
		if (m->role[bb->index] & PAP_BB_CUT)
			pap_text_printf(t, "cut b%d\n",
					m->number[m->head[bb->index]]);
}

/* Orders locations for the sorted table of statement locations. */
static int pap_loc_cmp(const void *a, const void *b)
{
	location_t x = *(const location_t *)a, y = *(const location_t *)b;

	return x < y ? -1 : x > y;
}

/* Adds @line to the node's @seen lines (printing it) unless it is there. */
static void pap_line_add(struct pap_text *t, int *seen, int *nseen, int line)
{
	int i;

	if (line <= 0)
		return;		/* built-in location */
	for (i = 0; i < *nseen && seen[i] != line; i++)
		;
	if (i < *nseen)
		return;
	if (*nseen < 64)
		seen[(*nseen)++] = line;
	pap_text_printf(t, " %d", line);
}

/*
 * The lines gcov gives block @bb after the function's own: each
 * statement's, then the location of a jump GCC removed when it built the
 * CFG (a break, a goto: the single out-edge's goto_locus, when no
 * statement has that location; @locs sorted).
 */
static void pap_bb_lines(basic_block bb, const location_t *locs,
			 size_t nlocs, struct pap_text *t, int *seen,
			 int *nseen)
{
	location_t go;

	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
	     gsi_next(&gsi)) {
		location_t loc = gimple_location(gsi_stmt(gsi));

		if (loc == UNKNOWN_LOCATION || is_gimple_debug(gsi_stmt(gsi)))
			continue;
		pap_line_add(t, seen, nseen, LOCATION_LINE(loc));
	}
	if (single_succ_p(bb) &&
	    (go = single_succ_edge(bb)->goto_locus) != UNKNOWN_LOCATION &&
	    !bsearch(&go, locs, nlocs, sizeof(*locs), pap_loc_cmp))
		pap_line_add(t, seen, nseen, LOCATION_LINE(go));
}

/* The "elines" records of pap_model_lines_text(). */
static void pap_edge_lines_text(function *fun, const struct pap_model *m,
				const location_t *locs, size_t nlocs,
				struct pap_text *t)
{
	struct pap_text one = { NULL, 0, 0 };
	int k, rank = 0;

	for (k = 0; k < m->nedges; k++) {
		basic_block f = m->edges[k].e->dest;
		int seen[64], nseen = 0, steps = m->nbb;

		if (m->edges[k].dst < 0)
			continue;
		one.len = 0;
		while (f != EXIT_BLOCK_PTR_FOR_FN(fun) && steps-- > 0 &&
		       m->real[f->index] && m->real[f->index] != f) {
			pap_bb_lines(f, locs, nlocs, &one, seen, &nseen);
			f = single_succ(f);
		}
		if (one.len)
			pap_text_printf(t, "elines %d%s\n", rank, one.s);
		rank++;
	}
	pap_text_free(&one);
}

/*
 * Each node's lines, as gcov gives its blocks theirs (pap_bb_lines()),
 * the function's own line first in the entry node; then, for each model
 * edge that passes through empty forwarders (a label and a folded jump:
 * "if (x) break;"), their lines as "elines K LINE...", K the edge's rank
 * among the graph's edge lines.
 */
void pap_model_lines_text(function *fun, const struct pap_model *m,
			  struct pap_text *t)
{
	basic_block head, bb, first;
	location_t *locs = NULL;
	size_t nlocs = 0, cap = 0;

	FOR_EACH_BB_FN(bb, fun)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
		     !gsi_end_p(gsi); gsi_next(&gsi)) {
			location_t loc = gimple_location(gsi_stmt(gsi));

			if (loc == UNKNOWN_LOCATION)
				continue;
			if (nlocs == cap) {
				cap = cap * 2 + 64;
				locs = XRESIZEVEC(location_t, locs, cap);
			}
			locs[nlocs++] = loc;
		}
	if (nlocs)
		qsort(locs, nlocs, sizeof(*locs), pap_loc_cmp);
	first = pap_resolve(fun, single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)));
	FOR_EACH_BB_FN(head, fun) {
		int seen[64], nseen = 0, steps = m->nbb;

		if (!pap_model_is_node(m, head))
			continue;
		pap_text_printf(t, "lines b%d", m->number[head->index]);
		if (m->head[first->index] == head->index)
			pap_line_add(t, seen, &nseen, LOCATION_LINE(
				DECL_SOURCE_LOCATION(fun->decl)));
		bb = head;
		while (steps-- > 0) {
			basic_block next;

			pap_bb_lines(bb, locs, nlocs, t, seen, &nseen);
			if (bb == m->tail[head->index])
				break;
			next = m->real[single_succ(bb)->index];
			/* forwarders between the chain's blocks */
			for (bb = single_succ(bb); bb != next && steps-- > 0;
			     bb = single_succ(bb))
				pap_bb_lines(bb, locs, nlocs, t, seen, &nseen);
		}
		pap_text_printf(t, "\n");
	}
	pap_edge_lines_text(fun, m, locs, nlocs, t);
	XDELETEVEC(locs);
}

