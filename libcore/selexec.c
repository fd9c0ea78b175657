/* SPDX-License-Identifier: MIT */
/*
 * selexec.c - reference semantics of a selective plan: what instrumented
 * code does along a walk (boundary edges, checks, probes), and what the
 * decoder makes of what it recorded.
 */
#include <stdlib.h>

#include "selective.h"

/* Is @v in the sorted check table of CFG edge @e? */
static int sel_in_table(const struct pap_sel_plan *sp, uint32_t e, uint64_t v)
{
	uint32_t lo = sp->check_off[e], hi = sp->check_off[e + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->check_val[mid] == v)
			return 1;
		if (sp->check_val[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * The prologue of edge @e at step @i, the same in every strategy: an edge
 * the CFG does not have is an error; a boundary edge ends the activation
 * (T3, recorded in @v); an edge off the subgraph with no boundary edge on
 * the way is no walk of the graph.  Returns 0 with the plan's edge in
 * *@pe to go on, 1 when the activation ended, or PAP_EINVAL.
 */
static int sel_edge_enter(const struct pap_sel_plan *sp, uint32_t e, size_t i,
			  struct pap_sel_verdict *v, uint32_t *pe)
{
	if (e >= sp->cfg->nedges)
		return PAP_EINVAL;
	*pe = sp->to_plan[e];
	if (sp->term[e]) {
		v->kind = PAP_SEL_TERM_T3;
		v->at = i;
		return 1;
	}
	if (*pe == PAP_NONE)
		return PAP_EINVAL;
	return 0;
}

/*
 * The end of a walk that was not terminated: decodes what @a recorded
 * into @v (PAP_SEL_INTEREST when it is a path of interest).
 */
static int sel_finish(const struct pap_sel_plan *sp, struct pap_activation *a,
		      struct pap_sel_verdict *v)
{
	int err;

	if (a->oom)
		return PAP_ENOMEM;
	err = pap_sel_decode(sp, a, &v->path);
	if (!err && v->path != PAP_SEL_OTHER)
		v->kind = PAP_SEL_INTEREST;
	return err;
}

/*
 * pap_sel_exec() for strategy follow with its automaton: boundary edges
 * terminate (T3); at each step edge the automaton steps on the digit
 * there, and when no path of interest is left the activation ends (T2,
 * a digit check) unless the edge records; the registers' operations run
 * only for the digits, and the record is the automaton's result.
 */
static int sel_exec_follow(const struct pap_sel_plan *sp,
			   const uint32_t *edges, size_t len,
			   struct pap_activation *a, struct pap_sel_verdict *v)
{
	const struct pap_sel_auto *au = sp->aut;
	struct pap_exec_sink sink = pap_activation_sink(a);
	struct pap_exec_state st = { 0x5a5a5a5a5a5a5a5aull, 0xa5a5a5a5ull };
	uint32_t *pos = malloc(((size_t)au->npaths + 1) *
			       (PAP_SEL_AUTO_DEPTH + 1) * sizeof(uint32_t));
	uint32_t *cnt = pos + au->npaths + 1;
	size_t i;
	int err = PAP_OK;

	if (!pos)
		return PAP_ENOMEM;
	pap_sel_auto_start(au, pos, cnt);
	for (i = 0; i < len; i++) {
		uint32_t e = edges[i], pe, alive;
		int r = sel_edge_enter(sp, e, i, v, &pe);

		if (r) {
			err = r < 0 ? r : PAP_OK;
			goto out;
		}
		if (au->step[e]) {
			alive = pap_sel_auto_step(au, pos, cnt, e,
				pap_sel_digit(sp->plan, &st, pe));
			if (au->step[e] == 2) {
				sink.record(sink.ctx,
					    pap_sel_auto_result(au, pos));
			} else if (!alive) {
				v->kind = PAP_SEL_TERM_T2;
				v->at = i;
				goto out;
			}
		}
		pap_exec_edge(sp->plan, &st, pe, &pap_exec_null_sink);
	}
	err = sel_finish(sp, a, v);
out:
	free(pos);
	return err;
}

int pap_sel_exec(const struct pap_sel_plan *sp, const uint32_t *edges,
		 size_t len, struct pap_activation *act,
		 struct pap_sel_verdict *v)
{
	struct pap_activation own;
	struct pap_activation *a = act ? act : &own;
	struct pap_exec_sink sink;
	/* INIT sets both registers: start them with garbage */
	struct pap_exec_state st = { 0x5a5a5a5a5a5a5a5aull, 0xa5a5a5a5ull };
	size_t i;
	int err = PAP_OK;

	v->kind = PAP_SEL_OTHERPATH;
	v->path = PAP_SEL_OTHER;
	v->at = 0;
	if (act)
		pap_activation_reset(act);
	else
		pap_activation_init(&own);
	if (sp->aut) {
		err = sel_exec_follow(sp, edges, len, a, v);
		goto out;
	}
	sink = pap_activation_sink(a);
	for (i = 0; i < len; i++) {
		uint32_t e = edges[i], pe;
		int r = sel_edge_enter(sp, e, i, v, &pe);

		if (r) {
			err = r < 0 ? r : PAP_OK;
			goto out;
		}
		if (sp->check[e] == PAP_SEL_CHECK_T2 &&
		    !sel_in_table(sp, e, pap_sel_digit(sp->plan, &st, pe))) {
			v->kind = PAP_SEL_TERM_T2;
			v->at = i;
			goto out;
		}
		pap_exec_edge(sp->plan, &st, pe, &sink);
		if (sp->check[e] == PAP_SEL_CHECK_T1 &&
		    !sel_in_table(sp, e, st.r)) {
			v->kind = PAP_SEL_TERM_T1;
			v->at = i;
			goto out;
		}
	}
	err = sel_finish(sp, a, v);
out:
	if (!act)
		pap_activation_free(&own);
	return err;
}
