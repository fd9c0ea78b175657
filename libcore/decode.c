/* SPDX-License-Identifier: MIT */
/*
 * decode.c - backwalk (PAP, PAP+EPP) and path regeneration (EPP).
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "util.h"

void pap_path_init(struct pap_path *p)
{
	p->edges = NULL;
	p->len = p->cap = 0;
	p->start_fold = p->end_fold = PAP_NONE;
}

void pap_path_free(struct pap_path *p)
{
	free(p->edges);
	pap_path_init(p);
}

int pap_path_push(struct pap_path *p, uint32_t edge)
{
	if (p->len == p->cap &&
	    pap_grow(&p->edges, &p->cap, sizeof(*p->edges), 64))
		return PAP_ENOMEM;
	p->edges[p->len++] = edge;
	return PAP_OK;
}

int pap_path_append(struct pap_path *p, const uint32_t *edges, size_t n)
{
	if (!n)
		return PAP_OK;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 64;
		uint32_t *e;

		while (cap < p->len + n)
			cap *= 2;
		e = realloc(p->edges, cap * sizeof(uint32_t));
		if (!e)
			return PAP_ENOMEM;
		p->edges = e;
		p->cap = cap;
	}
	memcpy(p->edges + p->len, edges, n * sizeof(uint32_t));
	p->len += n;
	return PAP_OK;
}

static void path_reverse(struct pap_path *p, size_t from)
{
	size_t i = from, j = p->len;

	while (i + 1 < j) {
		uint32_t t = p->edges[i];

		p->edges[i++] = p->edges[--j];
		p->edges[j] = t;
	}
}

/* Last table entry of node @x whose value is <= @d (values ascend). */
static const struct pap_num_edge *num_pick(const struct pap_plan *p,
					   uint32_t x, uint64_t d)
{
	uint32_t lo = p->num_off[x], hi = p->num_off[x + 1];

	if (lo == hi || p->num[lo].val > d)
		return NULL;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->num[mid].val <= d)
			lo = mid;
		else
			hi = mid;
	}
	return &p->num[lo];
}

/*
 * Backward from node @x along the reverse numbering with digit @d,
 * pushing the edges walked; *start gets the START edge's fold edge
 * (PAP_NONE: function entry).
 */
static int walk_back(const struct pap_plan *p, uint32_t x, uint64_t d,
		     struct pap_path *out, uint32_t *start)
{
	uint32_t steps = 0;

	if (d >= p->npaths[x])
		return PAP_ECORRUPT;
	for (;;) {
		const struct pap_num_edge *ne = num_pick(p, x, d);
		int err;

		if (!ne || steps++ > p->cfg->nnodes)
			return PAP_ECORRUPT;
		d -= ne->val;
		if (ne->kind == PAP_NUM_START) {
			if (d)
				return PAP_ECORRUPT;
			*start = ne->edge;
			return PAP_OK;
		}
		err = pap_path_push(out, ne->edge);
		if (err)
			return err;
		x = ne->node;
	}
}

/*
 * walk_back() through @m: the acyclic piece ending at node @x with digit
 * @d depends on nothing else, so it is decoded once per (x, d).
 */
static int piece_back(const struct pap_plan *p, struct pap_memo *m,
		      uint32_t x, uint64_t d, struct pap_path *out,
		      uint32_t *start)
{
	const uint32_t *run;
	size_t from = out->len, len;
	int err;

	if (m && (run = pap_memo_find(m, x, 0, d, &len, start)))
		return pap_path_append(out, run, len);
	err = walk_back(p, x, d, out, start);
	if (!err && m)
		pap_memo_put(m, x, 0, d, *start, out->len > from ?
			     out->edges + from : NULL, out->len - from);
	return err;
}

int pap_epp_segment_pieces(const struct pap_plan *p, uint32_t end,
			   uint64_t r, pap_epp_piece_fn piece, void *ctx,
			   uint32_t *first_end, uint32_t *start_out,
			   int *at_entry)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t start;
	int err;

	for (;;) {
		uint32_t x = end == PAP_NONE ? cfg->exit :
					       cfg->edges[end].src;
		uint64_t n = end == PAP_NONE ? p->exit_radix :
				p->npaths[x] < 2 ? 2 : p->npaths[x];
		uint64_t q = r / n;	/* one division for both */

		if (q == 0)
			return PAP_ECORRUPT;
		err = piece(ctx, end, r - q * n, &start);
		if (err)
			return err;
		r = q;
		if (start == PAP_NONE) {
			if (r != 1)
				return PAP_ECORRUPT;
			*at_entry = 1;
			*first_end = end;
			*start_out = PAP_NONE;
			return PAP_OK;
		}
		if (start >= cfg->nedges || !p->is_fold[start])
			return PAP_ECORRUPT;
		if (r == 1) {
			*at_entry = 0;
			*first_end = end;
			*start_out = start;
			return PAP_OK;
		}
		end = start;
	}
}

/* Where epp_segment()'s pieces go. */
struct piece_out {
	const struct pap_plan *p;
	struct pap_memo *m;
	struct pap_path *out;
	const struct pap_piece_visit *v;
};

/* A pap_epp_piece_fn pushing the piece's fold edge, then its edges
 * (backward), telling struct piece_out's visitor. */
static int push_piece(void *ctx, uint32_t end, uint64_t d, uint32_t *start)
{
	struct piece_out *o = ctx;
	const struct pap_cfg *cfg = o->p->cfg;
	size_t at;
	int err;

	if (end != PAP_NONE) {
		err = pap_path_push(o->out, end);
		if (err)
			return err;
	}
	at = o->out->len;
	err = piece_back(o->p, o->m, end == PAP_NONE ? cfg->exit :
			 cfg->edges[end].src, d, o->out, start);
	if (!err && o->v)
		o->v->piece(o->v->ctx, end, d, *start, at, o->out->len - at);
	return err;
}

/*
 * The edges of one PAP+EPP segment, as decode_pap_epp() pops its digits
 * from @r starting at fold edge @end, pushed backward; what it checks for
 * every digit is checked here, what it checks against the breakpoint
 * before is left to the caller (first_end, at_entry).
 */
static int epp_segment(const struct pap_plan *p, struct pap_memo *m,
		       uint32_t end, uint64_t r, struct pap_path *out,
		       uint32_t *first_end, uint32_t *start_out, int *at_entry,
		       const struct pap_piece_visit *v)
{
	struct piece_out o = { p, m, out, v };

	return pap_epp_segment_pieces(p, end, r, push_piece, &o, first_end,
				      start_out, at_entry);
}

/*
 * A PAP+EPP segment remembered whole, by the fold edge it ends at and its
 * value (key (end, PAP_MEMO_SEGMENT, r)): what epp_segment() pushes, its
 * pieces' digits and lengths (two words and one each, in the order they
 * were told), its first end, the number of its pieces, and its start
 * fold as the memo's start.  A segment is a pure function of its key, as
 * a piece is, and the segments of a function's paths repeat far more
 * than its records do (each breakpoint ends one): found, a segment costs
 * a lookup and a copy instead of a division and a lookup per digit.
 */
#define SEG_MAX_PIECES 64

struct seg_rec {
	const struct pap_piece_visit *v;	/* the caller's, or NULL */
	size_t n;
	int over;		/* more pieces than remembered */
	uint64_t d[SEG_MAX_PIECES];
	uint32_t len[SEG_MAX_PIECES];
};

static void seg_rec_piece(void *ctx, uint32_t end, uint64_t d,
			  uint32_t start, size_t at, size_t len)
{
	struct seg_rec *s = ctx;

	if (s->v)
		s->v->piece(s->v->ctx, end, d, start, at, len);
	if (s->n == SEG_MAX_PIECES || len >= UINT32_MAX) {
		s->over = 1;
		return;
	}
	s->d[s->n] = d;
	s->len[s->n++] = (uint32_t)len;
}

/* Tells @v of the pieces of remembered segment @run (@len words) pushed
 * at @base of the output, as epp_segment() told them. */
static void seg_replay(const uint32_t *run, size_t len, uint32_t end,
		       uint32_t start, size_t base,
		       const struct pap_piece_visit *v)
{
	uint32_t np = run[len - 1], k;
	const uint32_t *pc = run + len - 2 - 3 * (size_t)np;
	size_t pos = 0;

	for (k = 0; k < np; k++, pc += 3) {
		uint64_t d = pc[0] | (uint64_t)pc[1] << 32;
		size_t at;
		uint32_t next;

		pos += end != PAP_NONE;	/* the fold edge it ends at */
		at = pos;
		pos += pc[2];
		/* the next piece ends where this one starts: the fold
		 * edge pushed right after this one's edges */
		next = k + 1 < np ? run[pos] : start;
		v->piece(v->ctx, end, d, next, base + at, pc[2]);
		end = next;
	}
}

/* epp_segment() through @m's segments (above); pieces are told to @v
 * as epp_segment() tells them, found or not. */
static int epp_segment_memo(const struct pap_plan *p, struct pap_memo *m,
			    uint32_t end, uint64_t r, struct pap_path *out,
			    uint32_t *first_end, uint32_t *start_out,
			    int *at_entry, const struct pap_piece_visit *v)
{
	struct pap_piece_visit rv;
	struct seg_rec rec;
	const uint32_t *run;
	size_t from = out->len, len, ne, k;
	uint32_t *w;
	int err;

	if (!m)
		return epp_segment(p, m, end, r, out, first_end, start_out,
				   at_entry, v);
	run = pap_memo_find(m, end, PAP_MEMO_SEGMENT, r, &len, start_out);
	if (run) {
		ne = len - 3 * (size_t)run[len - 1] - 2;
		err = pap_path_append(out, run, ne);
		if (err)
			return err;
		*first_end = run[len - 2];
		*at_entry = *start_out == PAP_NONE;
		if (v)
			seg_replay(run, len, end, *start_out, from, v);
		return PAP_OK;
	}
	rec.v = v;
	rec.n = 0;
	rec.over = 0;
	rv.piece = seg_rec_piece;
	rv.ctx = &rec;
	err = epp_segment(p, m, end, r, out, first_end, start_out, at_entry,
			  &rv);
	ne = out->len - from;
	if (!err && !rec.over && pap_memo_room(m, PAP_MEMO_SEGMENT,
						 ne + 3 * rec.n + 2) &&
	    (w = malloc((ne + 3 * rec.n + 2) * sizeof(*w)))) {
		if (ne)	/* out->edges may still be NULL */
			memcpy(w, out->edges + from, ne * sizeof(*w));
		for (k = 0; k < rec.n; k++) {
			w[ne + 3 * k] = (uint32_t)rec.d[k];
			w[ne + 3 * k + 1] = (uint32_t)(rec.d[k] >> 32);
			w[ne + 3 * k + 2] = rec.len[k];
		}
		w[ne + 3 * rec.n] = *first_end;
		w[ne + 3 * rec.n + 1] = (uint32_t)rec.n;
		pap_memo_put(m, end, PAP_MEMO_SEGMENT, r, *start_out, w,
			     ne + 3 * rec.n + 2);
		free(w);
	}
	return err;
}

/* PAP+EPP: segment after segment from the exit back, each one's leading
 * digit the breakpoint made where it began. */
static int decode_pap_epp(const struct pap_plan *p, struct pap_memo *m,
			  const struct pap_breakpoint *bps, size_t nbps,
			  uint64_t r, struct pap_path *out,
			  const struct pap_piece_visit *v)
{
	uint32_t end = PAP_NONE, first_end, start;
	size_t j = nbps;
	int at_entry, err;

	for (;;) {
		err = epp_segment_memo(p, m, end, r, out, &first_end, &start,
				       &at_entry, v);
		if (err)
			return err;
		if (at_entry)
			return j == 0 ? PAP_OK : PAP_ECORRUPT;
		/* the segment's first digit overflowed at its end */
		if (j == 0 || bps[j - 1].site != first_end)
			return PAP_ECORRUPT;
		r = bps[--j].r;
		if (r < 2)
			return PAP_ECORRUPT;
		end = start;
	}
}

/*
 * One PAP segment, backward from @node with value @r until r is used up
 * at @stop, pushing the edges walked.  r == 0 walks index-0 and single
 * in-edges, which form no cycle, and r > 0 shrinks at every merge: a real
 * segment is at most 65 times the graph long, and a longer one corrupt.
 */
static int segment_back(const struct pap_plan *p, uint32_t node, uint64_t r,
			uint32_t stop, struct pap_path *out)
{
	const struct pap_cfg *cfg = p->cfg;
	uint64_t limit = 65 * ((uint64_t)cfg->nnodes + 1);
	size_t from = out->len;

	while (r || node != stop) {
		uint32_t s = pap_cfg_fanin(cfg, node), e;
		int err;

		if (node == cfg->entry || s == 0 || out->len - from > limit)
			return PAP_ECORRUPT;
		if (s == 1) {
			e = cfg->in_edge[cfg->in_off[node]];
		} else {
			e = p->in_index[cfg->in_off[node] + r % s];
			r /= s;
		}
		err = pap_path_push(out, e);
		if (err)
			return err;
		node = cfg->edges[e].src;
	}
	return PAP_OK;
}

/* segment_back() through @m, keyed by everything it reads. */
static int segment_memo(const struct pap_plan *p, struct pap_memo *m,
			uint32_t node, uint64_t r, uint32_t stop,
			struct pap_path *out)
{
	const uint32_t *run;
	size_t from = out->len, len;
	uint32_t unused;
	int err;

	if (m && (run = pap_memo_find(m, node, stop, r, &len, &unused)))
		return pap_path_append(out, run, len);
	err = segment_back(p, node, r, stop, out);
	if (!err && m)
		pap_memo_put(m, node, stop, r, 0, out->len > from ?
			     out->edges + from : NULL, out->len - from);
	return err;
}

static int decode_pap(const struct pap_plan *p, struct pap_memo *m,
		      const struct pap_breakpoint *bps, size_t nbps,
		      uint64_t r, struct pap_path *out)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t node = cfg->exit;
	size_t j = nbps;
	int err;

	for (;;) {
		uint32_t stop;

		if (j && bps[j - 1].site >= cfg->nedges)
			return PAP_ECORRUPT;
		stop = j ? cfg->edges[bps[j - 1].site].src : cfg->entry;
		err = segment_memo(p, m, node, r, stop, out);
		if (err)
			return err;
		node = stop;
		if (j == 0)
			return PAP_OK;
		/* The segment began with the breakpoint's edge. */
		if (!out->len || out->edges[out->len - 1] != bps[j - 1].site)
			return PAP_ECORRUPT;
		r = bps[--j].r;
		if (r == 0)
			return PAP_ECORRUPT;
	}
}

int pap_decode_segment(const struct pap_plan *plan, struct pap_memo *memo,
		       uint32_t node, uint64_t r, uint32_t stop,
		       struct pap_path *out)
{
	size_t from = out->len;
	int err = segment_memo(plan, memo, node, r, stop, out);

	if (err) {
		out->len = from;
		return err;
	}
	path_reverse(out, from);
	return PAP_OK;
}

int pap_decode_epp_segment(const struct pap_plan *plan,
			   struct pap_memo *memo, uint32_t end, uint64_t r,
			   struct pap_path *out, uint32_t *first_end,
			   uint32_t *start, int *at_entry)
{
	size_t from = out->len;
	int err;

	if (end != PAP_NONE && end >= plan->cfg->nedges)
		return PAP_ECORRUPT;
	err = epp_segment(plan, memo, end, r, out, first_end, start,
			  at_entry, NULL);
	if (err) {
		out->len = from;
		return err;
	}
	path_reverse(out, from);
	return PAP_OK;
}

int pap_decode_epp_piece(const struct pap_plan *plan, struct pap_memo *memo,
			 uint32_t end, uint64_t d, struct pap_path *out,
			 uint32_t *start)
{
	const struct pap_cfg *cfg = plan->cfg;
	size_t from = out->len;
	int err;

	if (end != PAP_NONE && end >= cfg->nedges)
		return PAP_ECORRUPT;
	err = piece_back(plan, memo, end == PAP_NONE ? cfg->exit :
			 cfg->edges[end].src, d, out, start);
	if (err) {
		out->len = from;
		return err;
	}
	path_reverse(out, from);
	return PAP_OK;
}

int pap_decode_path(const struct pap_plan *plan,
		    const struct pap_breakpoint *bps, size_t nbps,
		    uint64_t final, struct pap_path *out)
{
	return pap_decode_path_memo(plan, NULL, bps, nbps, final, out);
}

int pap_decode_path_memo(const struct pap_plan *plan, struct pap_memo *memo,
			 const struct pap_breakpoint *bps, size_t nbps,
			 uint64_t final, struct pap_path *out)
{
	size_t from = out->len;
	int err;

	if (plan->mode == PAP_MODE_PAP)
		err = decode_pap(plan, memo, bps, nbps, final, out);
	else if (plan->mode == PAP_MODE_PAP_EPP)
		err = decode_pap_epp(plan, memo, bps, nbps, final, out, NULL);
	else
		err = PAP_EINVAL;
	if (err) {
		out->len = from;
		return err;
	}
	path_reverse(out, from);
	return PAP_OK;
}

int pap_decode_path_visit(const struct pap_plan *plan,
			  struct pap_memo *memo,
			  const struct pap_breakpoint *bps, size_t nbps,
			  uint64_t final, struct pap_path *out,
			  const struct pap_piece_visit *v)
{
	size_t from = out->len;
	int err;

	if (plan->mode != PAP_MODE_PAP_EPP)
		return pap_decode_path_memo(plan, memo, bps, nbps, final, out);
	err = decode_pap_epp(plan, memo, bps, nbps, final, out, v);
	if (err) {
		out->len = from;
		return err;
	}
	path_reverse(out, from);
	return PAP_OK;
}

int pap_decode_bl(const struct pap_plan *p, uint64_t id,
		  struct pap_path *out)
{
	const struct pap_cfg *cfg = p->cfg;
	uint32_t x = cfg->nnodes;	/* S */
	uint32_t steps = 0;
	const struct pap_num_edge *ne;
	int err;

	if (p->mode != PAP_MODE_EPP)
		return PAP_EINVAL;
	if (id >= p->start_count)
		return PAP_ECORRUPT;
	out->start_fold = out->end_fold = PAP_NONE;
	ne = num_pick(p, x, id);
	if (!ne || ne->kind != PAP_NUM_START)
		return PAP_ECORRUPT;
	id -= ne->val;
	out->start_fold = ne->edge;
	x = ne->node;
	for (;;) {
		ne = num_pick(p, x, id);
		if (!ne || steps++ > cfg->nnodes)
			return PAP_ECORRUPT;
		id -= ne->val;
		if (ne->kind == PAP_NUM_END) {
			out->end_fold = ne->edge;
			return id == 0 ? PAP_OK : PAP_ECORRUPT;
		}
		err = pap_path_push(out, ne->edge);
		if (err)
			return err;
		x = ne->node;
	}
}
