/* SPDX-License-Identifier: MIT */
/*
 * pathform.c - a decoded path as distinct pieces and repeats, and what is
 * computed from that form without expanding it.
 */
#include <stdlib.h>
#include <string.h>

#include "blstream.h"
#include "bpack.h"
#include "pathform.h"
#include "util.h"

/* ---- sequences with repeats ---- */

void pap_rseq_init(struct pap_rseq *s)
{
	memset(s, 0, sizeof(*s));
}

void pap_rseq_free(struct pap_rseq *s)
{
	free(s->it);
	pap_rseq_init(s);
}

static int rseq_push(struct pap_rseq *s, uint64_t dist, uint64_t len,
		     uint64_t sym)
{
	if (s->n == s->cap && pap_grow(&s->it, &s->cap, sizeof(*s->it), 16))
		return PAP_ENOMEM;
	s->it[s->n++] = (struct pap_rseq_item){ s->len, dist, len, sym };
	s->len += len;
	return PAP_OK;
}

int pap_rseq_sym(struct pap_rseq *s, uint64_t sym)
{
	return rseq_push(s, 0, 1, sym);
}

int pap_rseq_repeat(struct pap_rseq *s, uint64_t dist, uint64_t len)
{
	struct pap_rseq_item *last = s->n ? &s->it[s->n - 1] : NULL;

	if (!len)
		return PAP_OK;
	if (!dist || dist > s->len)
		return PAP_EINVAL;
	/* a repeat continuing the one before it with the same distance
	 * stands for the same elements as one longer repeat */
	if (last && last->dist == dist) {
		last->len += len;
		s->len += len;
		return PAP_OK;
	}
	return rseq_push(s, dist, len, 0);
}

/* The item holding element @pos (< s->len). */
static size_t rseq_find(const struct pap_rseq *s, uint64_t pos)
{
	size_t lo = 0, hi = s->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->it[mid].pos <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t pap_rseq_at(const struct pap_rseq *s, uint64_t pos)
{
	for (;;) {
		size_t k = rseq_find(s, pos);
		const struct pap_rseq_item *it = &s->it[k];

		if (!it->dist)
			return k;
		pos = it->pos - it->dist + (pos - it->pos) % it->dist;
	}
}

/* ---- reading position after position ---- */

/*
 * A link of a cursor's chain: the position it had at step @st in item
 * @item, valid (still in the item, its copy not wrapped) up to step @ex.
 */
struct pap_rseq_link {
	size_t item;
	uint64_t pos0, st, ex;
};

void pap_rseq_cursor_init(struct pap_rseq_cursor *c,
			  const struct pap_rseq *s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->dir = -1;
}

void pap_rseq_cursor_free(struct pap_rseq_cursor *c)
{
	free(c->flat);
	free(c->l);
	free(c->hint);
	free(c->seen);
	pap_rseq_cursor_init(c, c->s);
}

static uint64_t link_pos(const struct pap_rseq_cursor *c,
			 const struct pap_rseq_link *l)
{
	uint64_t k = c->step - l->st;

	return c->dir > 0 ? l->pos0 + k : l->pos0 - k;
}

/* Steps item @it at offset @off can take in direction @dir unchanged. */
static uint64_t link_room(const struct pap_rseq_item *it, uint64_t off,
			  int dir)
{
	uint64_t in_item, in_copy;

	if (!it->dist)
		return 0;
	if (dir < 0)
		return off % it->dist;
	in_item = it->len - 1 - off;
	in_copy = it->dist - 1 - off % it->dist;
	return in_item < in_copy ? in_item : in_copy;
}

/* Does item @k of @s hold position @pos? */
static int item_holds(const struct pap_rseq *s, size_t k, uint64_t pos)
{
	return k < s->n && s->it[k].pos <= pos &&
	       pos - s->it[k].pos < s->it[k].len;
}

/* The item holding @pos, tried first at and beside the one last seen at
 * @depth. */
static size_t cursor_find(struct pap_rseq_cursor *c, size_t depth,
			  uint64_t pos)
{
	size_t h = depth < c->caphint ? c->hint[depth] : SIZE_MAX;

	if (h != SIZE_MAX) {
		if (item_holds(c->s, h, pos))
			return h;
		if (h > 0 && item_holds(c->s, h - 1, pos))
			return h - 1;
		if (item_holds(c->s, h + 1, pos))
			return h + 1;
	}
	return rseq_find(c->s, pos);
}

/* Positions lately followed to their symbol: a stretch read through a
 * short repeat comes back to the same few positions of its source. */
#define CURSOR_CACHE 4096

struct pap_rseq_seen {
	uint64_t pos1;		/* position + 1; 0: empty */
	size_t item;
};

static void link_push(struct pap_rseq_cursor *c, size_t k, uint64_t pos,
		      uint64_t room)
{
	struct pap_rseq_link *l = &c->l[c->depth];

	l->item = k;
	l->pos0 = pos;
	l->st = c->step;
	l->ex = c->step + room;
	if (c->depth && l->ex > l[-1].ex)
		l->ex = l[-1].ex;
	c->depth++;
}

/* The most positions a cursor keeps expanded (4 bytes each). */
#define CURSOR_FLAT_MAX ((uint64_t)1 << 22)
/* ... and per position read or item of the sequence. */
#define CURSOR_FLAT_PER 8

/*
 * Is @pos among the positions kept expanded, once they are extended to
 * it if the bounds allow?  Extending costs one step per position added,
 * at most CURSOR_FLAT_PER per position read or item; without memory the
 * cursor goes on without it.
 */
static int flat_holds(struct pap_rseq_cursor *c, uint64_t pos)
{
	const struct pap_rseq *s = c->s;
	uint64_t q, need = pos + 1;

	if (pos < c->nflat)
		return 1;
	if (need > CURSOR_FLAT_MAX || s->n > UINT32_MAX ||
	    need / CURSOR_FLAT_PER > c->calls + s->n)
		return 0;
	if (need > c->capflat) {
		uint64_t cap = c->capflat ? c->capflat : 1024;
		uint32_t *n;

		while (cap < need)
			cap *= 2;
		if (cap > CURSOR_FLAT_MAX)
			cap = CURSOR_FLAT_MAX;
		n = realloc(c->flat, cap * sizeof(*n));
		if (!n)
			return 0;
		c->flat = n;
		c->capflat = cap;
	}
	for (q = c->nflat; q < need; q++) {
		const struct pap_rseq_item *it;

		while (s->it[c->fitem].pos + s->it[c->fitem].len <= q)
			c->fitem++;
		it = &s->it[c->fitem];
		c->flat[q] = it->dist ? c->flat[q - it->dist] :
					(uint32_t)c->fitem;
	}
	c->nflat = need;
	return 1;
}

/* Links from @pos down to its symbol, below the chain's current end. */
static int cursor_descend(struct pap_rseq_cursor *c, uint64_t pos)
{
	size_t top = c->depth, i, k;
	struct pap_rseq_seen *seen;

	for (;;) {
		const struct pap_rseq_item *it;
		uint64_t off;

		if (c->depth == c->cap &&
		    pap_grow(&c->l, &c->cap, sizeof(*c->l), 16))
			return PAP_ENOMEM;
		if (flat_holds(c, pos)) {
			/* a symbol link, as below */
			link_push(c, c->flat[pos], pos, 0);
			break;
		}
		/* made only when needed: most cursors of short forms
		 * read the positions they keep expanded */
		if (!c->seen &&
		    !(c->seen = calloc(CURSOR_CACHE, sizeof(*c->seen))))
			return PAP_ENOMEM;
		seen = &c->seen[pos % CURSOR_CACHE];
		if (seen->pos1 == pos + 1) {
			/* a symbol link: its position is never read */
			link_push(c, seen->item, pos, 0);
			break;
		}
		if (c->depth >= c->caphint) {
			size_t old = c->caphint;

			if (pap_grow(&c->hint, &c->caphint, sizeof(*c->hint),
				     16))
				return PAP_ENOMEM;
			while (old < c->caphint)
				c->hint[old++] = SIZE_MAX;
		}
		k = cursor_find(c, c->depth, pos);
		c->hint[c->depth] = k;
		it = &c->s->it[k];
		off = pos - it->pos;
		link_push(c, k, pos, link_room(it, off, c->dir));
		if (!it->dist)
			break;
		pos = it->pos - it->dist + off % it->dist;
	}
	k = c->l[c->depth - 1].item;
	for (i = top; c->seen && i < c->depth; i++) {
		uint64_t p = link_pos(c, &c->l[i]);

		c->seen[p % CURSOR_CACHE] = (struct pap_rseq_seen){ p + 1, k };
	}
	return PAP_OK;
}

/* The chain's links anew for stepping in direction @dir. */
static void cursor_turn(struct pap_rseq_cursor *c, int dir)
{
	size_t i;

	for (i = 0; i < c->depth; i++) {
		struct pap_rseq_link *l = &c->l[i];
		const struct pap_rseq_item *it = &c->s->it[l->item];

		l->pos0 = link_pos(c, l);
		l->st = c->step;
		l->ex = c->step + link_room(it, l->pos0 - it->pos, dir);
		if (i && l->ex > l[-1].ex)
			l->ex = l[-1].ex;
	}
	c->dir = dir;
}

size_t pap_rseq_cursor_at(struct pap_rseq_cursor *c, uint64_t pos)
{
	const struct pap_rseq_link *l;
	const struct pap_rseq_item *it;
	uint64_t p;

	c->calls++;
	if (c->valid && pos == c->pos)
		return c->l[c->depth - 1].item;
	if (c->valid && (pos == c->pos + 1 || pos + 1 == c->pos)) {
		int dir = pos > c->pos ? 1 : -1;

		if (dir != c->dir)
			cursor_turn(c, dir);
		c->step++;
		while (c->depth && c->l[c->depth - 1].ex < c->step)
			c->depth--;
	} else {
		c->depth = 0;
	}
	c->valid = 0;
	if (!c->depth) {
		p = pos;
	} else {
		l = &c->l[c->depth - 1];
		it = &c->s->it[l->item];
		p = link_pos(c, l);
		p = it->pos - it->dist + (p - it->pos) % it->dist;
	}
	if (cursor_descend(c, p))
		return SIZE_MAX;
	c->pos = pos;
	c->valid = 1;
	return c->l[c->depth - 1].item;
}

uint64_t pap_rseq_cursor_sym(struct pap_rseq_cursor *c, uint64_t pos)
{
	size_t k = pap_rseq_cursor_at(c, pos);

	return c->s->it[k == SIZE_MAX ? pap_rseq_at(c->s, pos) : k].sym;
}

/* Weight events: every element before t gets delta more (mod 2^64). */
struct wevent {
	uint64_t t, delta;
};

struct wheap {
	struct wevent *e;
	size_t n, cap;
};

static int wheap_push(struct wheap *h, uint64_t t, uint64_t delta)
{
	size_t i;

	if (h->n == h->cap && pap_grow(&h->e, &h->cap, sizeof(*h->e), 64))
		return PAP_ENOMEM;
	i = h->n++;
	while (i && h->e[(i - 1) / 2].t < t) {
		h->e[i] = h->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->e[i] = (struct wevent){ t, delta };
	return PAP_OK;
}

static struct wevent wheap_pop(struct wheap *h)
{
	struct wevent top = h->e[0], last = h->e[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->e[c + 1].t > h->e[c].t)
			c++;
		if (h->e[c].t <= last.t)
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n)
		h->e[i] = last;
	return top;
}

/* Adds weight @w to every element of [a, b). */
static int wrange(struct wheap *h, uint64_t a, uint64_t b, uint64_t w)
{
	int err;

	if (a >= b || !w)
		return PAP_OK;
	err = wheap_push(h, b, w);
	return err ? err : wheap_push(h, a, -w);
}

/*
 * Elements [a, b) of repeat item @it, each of weight @w, carried to the
 * range it copies: offset k goes to it->pos - dist + k % dist, so each
 * residue gets the number of offsets in [a, b) congruent to it.
 */
static int wcarry(struct wheap *h, const struct pap_rseq_item *it,
		  uint64_t a, uint64_t b, uint64_t w)
{
	uint64_t d = it->dist, base = it->pos - d;
	uint64_t k0 = a - it->pos, cnt = b - a, q = cnt / d, r = cnt % d;
	uint64_t s = k0 % d;
	int err = PAP_OK;

	if (q)
		err = wrange(h, base, base + d, q * w);
	if (!err && s + r <= d)
		err = wrange(h, base + s, base + s + r, w);
	else if (!err) {
		err = wrange(h, base + s, base + d, w);
		if (!err)
			err = wrange(h, base, base + s + r - d, w);
	}
	return err;
}

int pap_rseq_weights(const struct pap_rseq *s, uint64_t *w)
{
	struct wheap h = { NULL, 0, 0 };
	uint64_t cur = 1;	/* every element counts itself once */
	size_t k = s->n;
	int err = PAP_OK;

	while (k-- > 0 && !err) {
		const struct pap_rseq_item *it = &s->it[k];
		uint64_t end = it->pos + it->len, seg = end;

		w[k] = 0;
		while (h.n && h.e[0].t > it->pos && !err) {
			struct wevent ev = wheap_pop(&h);

			if (ev.t < seg) {
				if (it->dist)
					err = wcarry(&h, it, ev.t, seg, cur);
				else
					w[k] += cur;
				seg = ev.t;
			}
			cur += ev.delta;
		}
		if (err || seg <= it->pos)
			continue;
		if (it->dist)
			err = wcarry(&h, it, it->pos, seg, cur);
		else
			w[k] += cur;
	}
	free(h.e);
	return err;
}

int pap_rseq_sums(const struct pap_rseq *s, pap_rseq_symw symw, void *ctx,
		  uint64_t *acc, uint64_t *src)
{
	size_t k;

	acc[0] = 0;
	for (k = 0; k < s->n; k++) {
		const struct pap_rseq_item *it = &s->it[k];

		if (!it->dist) {
			src[k] = 0;
			acc[k + 1] = acc[k] + symw(ctx, it->sym);
			continue;
		}
		src[k] = pap_rseq_prefix(s, acc, src, symw, ctx,
					 it->pos - it->dist);
		acc[k + 1] = acc[k] + (it->len / it->dist) * (acc[k] - src[k]) +
			     pap_rseq_prefix(s, acc, src, symw, ctx,
					     it->pos - it->dist +
					     it->len % it->dist) - src[k];
	}
	return PAP_OK;
}

uint64_t pap_rseq_prefix(const struct pap_rseq *s, const uint64_t *acc,
			 const uint64_t *src, pap_rseq_symw symw, void *ctx,
			 uint64_t pos)
{
	uint64_t total = 0;

	(void)symw;
	(void)ctx;
	for (;;) {
		size_t k;
		const struct pap_rseq_item *it;
		uint64_t off;

		if (pos >= s->len)
			return total + acc[s->n];
		k = rseq_find(s, pos);
		it = &s->it[k];
		if (!it->dist || pos == it->pos)
			return total + acc[k];
		/* a period of the repeat adds acc[k] - src[k] */
		off = pos - it->pos;
		total += acc[k] + (off / it->dist) * (acc[k] - src[k]) - src[k];
		pos = it->pos - it->dist + off % it->dist;
	}
}

/* ---- distinct pieces ---- */

struct pap_piece_slot {
	uint64_t r;
	uint32_t a, b;
	uint32_t idx;		/* UINT32_MAX: free */
};

void pap_pieces_init(struct pap_pieces *pc)
{
	memset(pc, 0, sizeof(*pc));
}

void pap_pieces_free(struct pap_pieces *pc)
{
	free(pc->p);
	free(pc->pool);
	free(pc->slots);
	pap_pieces_init(pc);
}

static size_t piece_hash(uint32_t a, uint32_t b, uint64_t r)
{
	uint64_t h = (r ^ ((uint64_t)a << 32 | b)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h = (h + a) * 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

/* The slot of key (a, b, r): its piece, or the free slot to put it in. */
static struct pap_piece_slot *piece_slot(struct pap_pieces *pc, uint32_t a,
					 uint32_t b, uint64_t r)
{
	size_t i = piece_hash(a, b, r) & (pc->nslots - 1);

	while (pc->slots[i].idx != UINT32_MAX &&
	       (pc->slots[i].a != a || pc->slots[i].b != b ||
		pc->slots[i].r != r))
		i = (i + 1) & (pc->nslots - 1);
	return &pc->slots[i];
}

static int pieces_grow(struct pap_pieces *pc)
{
	size_t n = pc->nslots ? 2 * pc->nslots : 256, i;
	struct pap_piece_slot *old = pc->slots, *sl;
	size_t nold = pc->nslots;

	sl = malloc(n * sizeof(*sl));
	if (!sl)
		return PAP_ENOMEM;
	for (i = 0; i < n; i++)
		sl[i].idx = UINT32_MAX;
	pc->slots = sl;
	pc->nslots = n;
	for (i = 0; i < nold; i++)
		if (old[i].idx != UINT32_MAX)
			*piece_slot(pc, old[i].a, old[i].b, old[i].r) = old[i];
	free(old);
	return PAP_OK;
}

/* Adds the piece of key (a, b, r) whose edges are @e's; its index. */
static int piece_add(struct pap_pieces *pc, const struct pap_cfg *cfg,
		     uint32_t a, uint32_t b, uint64_t r,
		     const struct pap_path *e, const struct pap_piece *info,
		     uint64_t *idx)
{
	struct pap_piece_slot *sl;
	uint32_t nblocks = 0;
	size_t i;
	int err;

	if ((pc->n + 1) * 2 > pc->nslots && (err = pieces_grow(pc)))
		return err;
	if (pc->n == pc->cap && pap_grow(&pc->p, &pc->cap, sizeof(*pc->p), 64))
		return PAP_ENOMEM;
	if (pc->npool + e->len > pc->cap_pool) {
		size_t cap = pc->cap_pool ? pc->cap_pool : 1024;
		uint32_t *pool;

		while (cap < pc->npool + e->len)
			cap *= 2;
		pool = realloc(pc->pool, cap * sizeof(*pool));
		if (!pool)
			return PAP_ENOMEM;
		pc->pool = pool;
		pc->cap_pool = cap;
	}
	if (e->len)
		memcpy(pc->pool + pc->npool, e->edges,
		       e->len * sizeof(uint32_t));
	pc->p[pc->n] = *info;
	pc->p[pc->n].off = pc->npool;
	pc->p[pc->n].len = (uint32_t)e->len;
	for (i = 0; i < e->len; i++)
		nblocks += cfg->edges[e->edges[i]].dst < cfg->nblocks;
	pc->p[pc->n].nblocks = nblocks;
	pc->npool += e->len;
	sl = piece_slot(pc, a, b, r);
	*sl = (struct pap_piece_slot){ r, a, b, (uint32_t)pc->n };
	*idx = pc->n++;
	return PAP_OK;
}

/* What building a path's form needs at hand. */
struct builder {
	const struct pap_plan *plan;
	struct pap_memo *memo;
	struct pap_pieces *pc;
	const struct pap_breakpoint *bps;
	struct pap_rseq bq;	/* breakpoint positions -> packed index */
	struct pap_rseq_cursor at;	/* reading bq */
	struct pap_path scratch;
};

/* The breakpoint at position @pos, read through the cursor. */
static const struct pap_breakpoint *bp_at(struct builder *b, uint64_t pos)
{
	return &b->bps[pap_rseq_cursor_sym(&b->at, pos)];
}

/* The PAP segment (node, stop, r), decoded once. */
static int pap_piece(struct builder *b, uint32_t node, uint32_t stop,
		     uint64_t r, uint64_t *idx)
{
	struct pap_piece info = { 0, 0, 0, PAP_NONE, PAP_NONE, 0 };
	struct pap_piece_slot *sl;
	int err;

	if (b->pc->nslots) {
		sl = piece_slot(b->pc, node, stop, r);
		if (sl->idx != UINT32_MAX) {
			*idx = sl->idx;
			return PAP_OK;
		}
	}
	b->scratch.len = 0;
	err = pap_decode_segment(b->plan, b->memo, node, r, stop,
				 &b->scratch);
	return err ? err : piece_add(b->pc, b->plan->cfg, node, stop, r,
				     &b->scratch, &info, idx);
}

/*
 * The piece at breakpoint position @j (@final: the segment after the last
 * breakpoint, of value @r) with the checks decode_pap() makes of it.
 */
static int pap_piece_at(struct builder *b, uint64_t j, int final, uint64_t r,
			uint64_t *idx)
{
	const struct pap_cfg *cfg = b->plan->cfg;
	const struct pap_breakpoint *cur = final ? NULL : bp_at(b, j);
	const struct pap_breakpoint *prev = j ? bp_at(b, j - 1) : NULL;
	uint32_t len;
	int err;

	if ((cur && cur->site >= cfg->nedges) ||
	    (prev && prev->site >= cfg->nedges) || (cur && !cur->r))
		return PAP_ECORRUPT;
	err = pap_piece(b, cur ? cfg->edges[cur->site].src : cfg->exit,
			prev ? cfg->edges[prev->site].src : cfg->entry,
			cur ? cur->r : r, idx);
	if (err)
		return err;
	/* the segment began with the breakpoint's edge */
	if (prev) {
		const uint32_t *e = pap_piece_edges(b->pc, *idx, &len);

		if (!len || e[0] != prev->site)
			return PAP_ECORRUPT;
	}
	return PAP_OK;
}

/*
 * PAP: the piece at j depends on breakpoints j - 1 and j alone, so a
 * repeat of breakpoints is a repeat of pieces from its second element on.
 */
static int build_pap(struct builder *b, const struct pap_breakpoint *bps,
		     size_t n, uint64_t final, struct pap_rseq *out)
{
	uint64_t pos = 0, idx;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		uint64_t len = pap_bp_is_repeat(&bps[i]) ?
			       (uint32_t)bps[i].r : 1;

		err = pap_piece_at(b, pos, 0, 0, &idx);
		if (!err)
			err = pap_rseq_sym(out, idx);
		if (!err && len > 1)
			err = pap_rseq_repeat(out, bps[i].r >> 32, len - 1);
		if (err)
			return err;
		pos += len;
	}
	err = pap_piece_at(b, pos, 1, final, &idx);
	return err ? err : pap_rseq_sym(out, idx);
}

/* The PAP+EPP segment (end, r), decoded once. */
static int epp_piece(struct builder *b, uint32_t end, uint64_t r,
		     uint64_t *idx)
{
	struct pap_piece info = { 0, 0, 0, PAP_NONE, PAP_NONE, 0 };
	struct pap_piece_slot *sl;
	int err;

	if (b->pc->nslots) {
		sl = piece_slot(b->pc, end, 0, r);
		if (sl->idx != UINT32_MAX) {
			*idx = sl->idx;
			return PAP_OK;
		}
	}
	b->scratch.len = 0;
	err = pap_decode_epp_segment(b->plan, b->memo, end, r, &b->scratch,
				     &info.first_end, &info.start,
				     &info.at_entry);
	return err ? err : piece_add(b->pc, b->plan->cfg, end, 0, r,
				     &b->scratch, &info, idx);
}

/*
 * The PAP+EPP piece at position @j ending at fold edge *@end (@final: the
 * last segment, of value @r), with decode_pap_epp()'s checks against the
 * breakpoint before; *@end becomes the fold edge the piece starts at.
 */
static int epp_piece_at(struct builder *b, uint64_t j, int final, uint64_t r,
			uint32_t *end, uint64_t *idx)
{
	const struct pap_piece *pi;
	int err;

	if (!final) {
		r = bp_at(b, j)->r;
		if (r < 2)
			return PAP_ECORRUPT;
	}
	err = epp_piece(b, *end, r, idx);
	if (err)
		return err;
	pi = &b->pc->p[*idx];
	if (j == 0 ? !pi->at_entry :
		     pi->at_entry || pi->first_end != bp_at(b, j - 1)->site)
		return PAP_ECORRUPT;
	*end = pi->start;
	return PAP_OK;
}

/* Pieces of one input item, left to right, made right to left. */
struct frag {
	size_t first, n;	/* in the ops */
};

/*
 * A repeat written as a copy of the pieces d before it before the pieces
 * it copies are known: it holds when the fold edge the copied range is
 * entered at from its right, met once decoding gets there, is the one
 * the repeat was entered at.
 */
struct copy_check {
	uint64_t src_end;	/* the copied range ends here */
	uint64_t p, len;	/* the repeat's positions */
	uint32_t end;		/* the fold edge it was entered at */
	size_t frag;		/* its fragment: one copy */
};

struct epp_out {
	struct pap_rseq_item *ops;	/* pos unused */
	size_t nops, capops;
	struct frag *frags;
	size_t nfrags, capfrags;
	uint64_t *tmp;		/* a repeat's pieces, right to left */
	size_t captmp;
	uint32_t *states;	/* fold edge before each period */
	size_t capstates;
	struct copy_check *checks;	/* a max-heap on src_end */
	size_t nchecks, capchecks;
	struct copy_check *failed;	/* copies to write out piece by piece */
	size_t nfailed, capfailed;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return PAP_OK;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * size);
	if (!n)
		return PAP_ENOMEM;
	*p = n;
	*cap = c;
	return PAP_OK;
}

static int op_put(struct epp_out *o, uint64_t dist, uint64_t len,
		  uint64_t sym)
{
	int err = grow((void **)&o->ops, &o->capops, o->nops + 1,
		       sizeof(*o->ops));

	if (!err)
		o->ops[o->nops++] = (struct pap_rseq_item){ 0, dist, len, sym };
	return err;
}

static int frag_start(struct epp_out *o)
{
	int err = grow((void **)&o->frags, &o->capfrags, o->nfrags + 1,
		       sizeof(*o->frags));

	if (!err)
		o->frags[o->nfrags++] = (struct frag){ o->nops, 0 };
	return err;
}

static void frag_end(struct epp_out *o)
{
	o->frags[o->nfrags - 1].n = o->nops - o->frags[o->nfrags - 1].first;
}

static int tmp_put(struct epp_out *o, size_t at, uint64_t idx)
{
	int err = grow((void **)&o->tmp, &o->captmp, at + 1, sizeof(*o->tmp));

	if (!err)
		o->tmp[at] = idx;
	return err;
}

/* epp_copy(): the repeat is no copy; decode it period by period */
#define EPP_NO_COPY 1

static int check_push(struct copy_check **h, size_t *n, size_t *cap,
		      struct copy_check c)
{
	size_t i;

	if (*n == *cap && pap_grow(h, cap, sizeof(**h), 16))
		return PAP_ENOMEM;
	i = (*n)++;
	while (i && (*h)[(i - 1) / 2].src_end < c.src_end) {
		(*h)[i] = (*h)[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	(*h)[i] = c;
	return PAP_OK;
}

static struct copy_check check_pop(struct epp_out *o)
{
	struct copy_check top = o->checks[0], last = o->checks[--o->nchecks];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= o->nchecks)
			break;
		if (c + 1 < o->nchecks &&
		    o->checks[c + 1].src_end > o->checks[c].src_end)
			c++;
		if (o->checks[c].src_end <= last.src_end)
			break;
		o->checks[i] = o->checks[c];
		i = c;
	}
	if (o->nchecks)
		o->checks[i] = last;
	return top;
}

static int check_fail(struct epp_out *o, struct copy_check c)
{
	return check_push(&o->failed, &o->nfailed, &o->capfailed, c);
}

/*
 * epp_piece_at() for position @j entered at *@end, settling first the
 * copies whose copied range ends right after j (they hold when *@end is
 * what they were entered at) or ended before (decoding passed them by
 * without reading them: they are written out piece by piece instead).
 */
static int epp_at(struct builder *b, struct epp_out *o, uint64_t j,
		  uint32_t *end, uint64_t *idx)
{
	int err;

	while (o->nchecks && o->checks[0].src_end > j) {
		struct copy_check c = check_pop(o);

		if ((c.src_end != j + 1 || c.end != *end) &&
		    (err = check_fail(o, c)))
			return err;
	}
	return epp_piece_at(b, j, 0, 0, end, idx);
}

/*
 * The repeat (@d, @len) at @p: its last min(len, d) positions decoded
 * from the right, keeping nothing but the fold edges.  When len >= d and
 * the edge d positions in is the one it was entered at, every period is
 * decoded as the one after it, the copied range before it included: the
 * repeat is one copy of distance d.  When len <= d, the copy is written


 */
static int epp_copy(struct builder *b, struct epp_out *o, uint64_t p,
		    uint64_t d, uint64_t len, uint32_t *end)
{
	uint64_t x, idx, q = len / d, stop = len > d ? p + len - d : p;
	uint32_t in = *end, aligned = *end;
	struct copy_check c;
	int err;

	for (x = p + len; x-- > stop;) {
		if ((err = epp_at(b, o, x, end, &idx)))
			return err;
		if (x == p + q * d)
			aligned = *end;
	}
	if (len >= d && *end != in) {
		*end = in;
		return EPP_NO_COPY;
	}
	if ((err = frag_start(o)) || (err = op_put(o, d, len, 0)))
		return err;
	frag_end(o);
	c = (struct copy_check){ p + len - d, p, len, in, o->nfrags - 1 };
	if (len >= d) {
		*end = aligned;
		return PAP_OK;
	}
	return check_push(&o->checks, &o->nchecks, &o->capchecks, c);
}

/* A copy that did not hold, written out piece by piece. */
static int epp_uncopy(struct builder *b, struct epp_out *o,
		      const struct copy_check *c)
{
	uint32_t end = c->end;
	uint64_t x, k, idx;
	int err;

	if ((err = tmp_put(o, c->len - 1, 0)))
		return err;
	for (x = c->p + c->len, k = 0; x-- > c->p; k++)
		if ((err = epp_piece_at(b, x, 0, 0, &end, &idx)))
			return err;
		else
			o->tmp[k] = idx;
	o->frags[c->frag].first = o->nops;
	for (k = c->len; k-- > 0;)
		if ((err = op_put(o, 0, 1, o->tmp[k])))
			return err;
	o->frags[c->frag].n = c->len;
	return PAP_OK;
}

/*
 * The repeat of @len breakpoints at distance @d at position @p: decoded
 * from its end, a period at a time, until the fold edge carried into a
 * period has been carried into an earlier one; from there on the pieces
 * repeat with that cycle of periods, which fills the rest.
 */
static int epp_repeat(struct builder *b, struct epp_out *o, uint64_t p,
		      uint64_t d, uint64_t len, uint32_t *end)
{
	uint64_t q = len / d, m = 0, x, k, nt = 0, rest = 0;
	uint64_t cyc = UINT64_MAX, c, cd, idx, s;
	int err;

	err = epp_copy(b, o, p, d, len, end);
	if (err != EPP_NO_COPY)
		return err;
	for (x = p + len; x-- > p + q * d; nt++)
		if ((err = epp_at(b, o, x, end, &idx)) ||
		    (err = tmp_put(o, nt, idx)))
			return err;
	while (m < q) {
		for (s = 0; s < m && cyc == UINT64_MAX; s++)
			if (o->states[s] == *end)
				cyc = s;
		if (cyc != UINT64_MAX)
			break;
		err = grow((void **)&o->states, &o->capstates, m + 1,
			   sizeof(*o->states));
		if (err)
			return err;
		o->states[m] = *end;
		for (x = p + (q - m) * d; x-- > p + (q - m - 1) * d; nt++)
			if ((err = epp_at(b, o, x, end, &idx)) ||
			    (err = tmp_put(o, nt, idx)))
				return err;
		m++;
	}
	if ((err = frag_start(o)))
		return err;
	if (cyc != UINT64_MAX) {
		c = m - cyc;
		cd = c * d;
		rest = (q - cyc) * d;
		*end = o->states[cyc + (q - cyc) % c];
		/* offset k of the rest is offset kk of its last cycle */
		for (k = 0; k < cd && k < rest; k++) {
			uint64_t kk = (k + cd - rest % cd) % cd + rest - cd;

			if ((err = op_put(o, 0, 1, o->tmp[len - 1 - kk])))
				return err;
		}
		if (rest > cd && (err = op_put(o, cd, rest - cd, 0)))
			return err;
	}
	for (k = rest; k < len; k++)
		if ((err = op_put(o, 0, 1, o->tmp[len - 1 - k])))
			return err;
	frag_end(o);
	return PAP_OK;
}

/*
 * PAP+EPP: a segment's digits are read from the fold edge where the next
 * segment starts, so pieces are found from the last one back; a repeat
 * is handled by epp_repeat().  The pieces, found right to left in
 * fragments, are put out left to right.
 */
static int build_epp(struct builder *b, const struct pap_breakpoint *bps,
		     size_t n, uint64_t total, uint64_t final,
		     struct pap_rseq *out)
{
	struct epp_out o;
	uint32_t end = PAP_NONE;
	uint64_t pos = total, idx;
	size_t i, k;
	int err;

	memset(&o, 0, sizeof(o));
	err = epp_piece_at(b, total, 1, final, &end, &idx);
	if (!err && !(err = frag_start(&o)) && !(err = op_put(&o, 0, 1, idx)))
		frag_end(&o);
	for (i = n; i-- > 0 && !err;) {
		if (!pap_bp_is_repeat(&bps[i])) {
			pos--;
			err = epp_at(b, &o, pos, &end, &idx);
			if (!err && !(err = frag_start(&o)) &&
			    !(err = op_put(&o, 0, 1, idx)))
				frag_end(&o);
			continue;
		}
		pos -= (uint32_t)bps[i].r;
		err = epp_repeat(b, &o, pos, bps[i].r >> 32,
				 (uint32_t)bps[i].r, &end);
	}
	/* copies whose copied range was never read */
	while (!err && o.nchecks)
		err = check_fail(&o, check_pop(&o));
	for (i = 0; i < o.nfailed && !err; i++)
		err = epp_uncopy(b, &o, &o.failed[i]);
	for (i = o.nfrags; i-- > 0 && !err;)
		for (k = 0; k < o.frags[i].n && !err; k++) {
			const struct pap_rseq_item *op =
				&o.ops[o.frags[i].first + k];

			err = op->dist ? pap_rseq_repeat(out, op->dist, op->len) :
					 pap_rseq_sym(out, op->sym);
		}
	free(o.ops);
	free(o.frags);
	free(o.tmp);
	free(o.states);
	free(o.checks);
	free(o.failed);
	return err;
}

int pap_pathform_build(const struct pap_plan *plan, struct pap_memo *memo,
		       struct pap_pieces *pc, const struct pap_breakpoint *bps,
		       size_t n, uint64_t final, struct pap_rseq *out)
{
	struct builder b = { plan, memo, pc, bps, { 0 }, { 0 }, { 0 } };
	uint64_t total = n ? pap_bpack_length(bps, n, UINT64_MAX) : 0;
	size_t i;
	int err = PAP_OK;

	out->n = 0;
	out->len = 0;
	if (plan->mode != PAP_MODE_PAP && plan->mode != PAP_MODE_PAP_EPP)
		return PAP_EINVAL;
	if (n && !total)
		return PAP_ECORRUPT;
	pap_rseq_init(&b.bq);
	pap_rseq_cursor_init(&b.at, &b.bq);
	pap_path_init(&b.scratch);
	for (i = 0; i < n && !err; i++)
		err = pap_bp_is_repeat(&bps[i]) ?
			pap_rseq_repeat(&b.bq, bps[i].r >> 32,
					(uint32_t)bps[i].r) :
			pap_rseq_sym(&b.bq, i);
	if (!err)
		err = plan->mode == PAP_MODE_PAP ?
			build_pap(&b, bps, n, final, out) :
			build_epp(&b, bps, n, total, final, out);
	pap_rseq_free(&b.bq);
	pap_rseq_cursor_free(&b.at);
	pap_path_free(&b.scratch);
	if (err) {
		out->n = 0;
		out->len = 0;
	}
	return err;
}

/* ---- the Ball-Larus id stream ---- */

/*
 * What a piece does after its first fold edge, whatever came before:
 * from there on the state is the fold's, so the ids it ends and the
 * state it leaves are the piece's own, kept after its first run.
 */
struct piece_tail {
	uint32_t fold;		/* its first fold edge's index; TAIL_* */
	size_t at, n;		/* the ids after it, in blctx's pool */
	struct pap_bl_state st;	/* the state after the piece */
};
#define TAIL_UNKNOWN UINT32_MAX		/* not run yet */
#define TAIL_NONE (UINT32_MAX - 1)	/* no fold edge, or not kept */

struct blctx {
	const struct pap_plan *bl;
	const struct pap_pieces *pc;
	const struct pap_rseq *form;
	uint64_t *nids;		/* per piece: ids ending in it; ~0: unknown */
	uint64_t *acc, *src;	/* prefix sums of nids over the form */
	struct piece_tail *tail;	/* per piece, or NULL */
	uint64_t *pool;
	size_t npool, cappool;
	struct pap_rseq_cursor at;	/* reading form */
	uint64_t *pre;		/* ids before each position below npre */
	uint64_t npre, cappre;
	size_t pitem;		/* the item holding position npre - 1 */
	uint64_t calls;		/* nids_before() calls */
};

/* The number of ids ending in piece @sym: its fold edges, and EXIT. */
static uint64_t piece_nids(void *ctx, uint64_t sym)
{
	struct blctx *c = ctx;
	const struct pap_cfg *cfg = c->bl->cfg;
	const uint32_t *e;
	uint32_t len, i;
	uint64_t n = 0;

	if (c->nids[sym] != UINT64_MAX)
		return c->nids[sym];
	e = pap_piece_edges(c->pc, sym, &len);
	for (i = 0; i < len; i++)
		if (e[i] < cfg->nedges) {
			n += c->bl->is_fold[e[i]];
			n += i + 1 == len && cfg->edges[e[i]].dst == cfg->exit;
		}
	return c->nids[sym] = n;
}

/* Keeps @id as one of the ids of piece @t's tail; 0, or -1 when out of
 * room (the tail is then not kept). */
static int tail_push(struct blctx *c, struct piece_tail *t, uint64_t id)
{
	if (t->fold == TAIL_NONE)
		return -1;
	if (c->npool == c->cappool &&
	    pap_grow(&c->pool, &c->cappool, sizeof(*c->pool), 256)) {
		t->fold = TAIL_NONE;
		return -1;
	}
	c->pool[c->npool++] = id;
	t->n++;
	return 0;
}

/*
 * Runs piece @sym from state @st, appending the ids it ends to @ids.
 * Past its first fold edge the run is the piece's own: its first run
 * keeps the ids and the state it ends with there (struct piece_tail),
 * and later runs walk only up to that fold and copy them.  The ids and
 * errors are the walk's.
 */
static int run_piece(struct blctx *c, uint64_t sym, struct pap_bl_state *st,
		     struct pap_rseq *ids)
{
	const struct pap_cfg *cfg = c->bl->cfg;
	uint32_t len, i, stop;
	const uint32_t *e = pap_piece_edges(c->pc, sym, &len);
	struct piece_tail *t = c->tail ? &c->tail[sym] : NULL;
	uint64_t id;
	size_t k;
	int r, keep = t && t->fold == TAIL_UNKNOWN;

	stop = t && t->fold < TAIL_NONE ? t->fold + 1 : len;
	if (keep) {
		t->fold = TAIL_NONE;
		for (i = 0; i < len; i++)
			if (e[i] < cfg->nedges && c->bl->is_fold[e[i]]) {
				t->fold = i;
				t->at = c->npool;
				t->n = 0;
				break;
			}
		keep = t->fold != TAIL_NONE;
	}
	for (i = 0; i < stop; i++) {
		r = pap_bl_edge(c->bl, st, e[i], &id);
		if (r < 0)
			return r;
		if (r) {
			if ((r = pap_rseq_sym(ids, id)))
				return r;
			if (keep && i > t->fold && tail_push(c, t, id))
				keep = 0;
		}
		if (cfg->edges[e[i]].dst == cfg->exit) {
			if (i + 1 != len || (r = pap_bl_end(c->bl, st, &id)))
				return PAP_ECORRUPT;
			if ((r = pap_rseq_sym(ids, id)))
				return r;
			if (keep && i > t->fold && tail_push(c, t, id))
				keep = 0;
		}
	}
	if (keep) {
		t->st = *st;
		return PAP_OK;
	}
	if (stop == len)
		return PAP_OK;
	for (k = 0; k < t->n; k++)
		if ((r = pap_rseq_sym(ids, c->pool[t->at + k])))
			return r;
	*st = t->st;
	return PAP_OK;
}

/*
 * The state before element @y of the form: the state right after the
 * last fold edge of the nearest piece before @y that has one (or the
 * path's start), carried through the pieces after it, which end no id.
 */
static int state_before(struct blctx *c, uint64_t y, struct pap_bl_state *st)
{
	uint64_t z = y, sym = 0;
	const uint32_t *e;
	uint32_t len, i, last = UINT32_MAX;
	int err;

	while (z > 0) {
		sym = pap_rseq_cursor_sym(&c->at, z - 1);
		if (piece_nids(c, sym))
			break;
		z--;
	}
	if (z == 0) {
		err = pap_bl_begin(c->bl, st);
	} else {
		e = pap_piece_edges(c->pc, sym, &len);
		for (i = 0; i < len; i++)
			if (e[i] < c->bl->cfg->nedges && c->bl->is_fold[e[i]])
				last = i;
		if (last == UINT32_MAX)
			return PAP_ECORRUPT;	/* only EXIT: no state after */
		err = pap_bl_start_at(c->bl, st, e[last]);
		for (i = last + 1; i < len && !err; i++)
			if (pap_bl_edge(c->bl, st, e[i], &(uint64_t){ 0 }))
				err = PAP_ECORRUPT;
	}
	for (; z < y && !err; z++) {
		sym = pap_rseq_cursor_sym(&c->at, z);
		e = pap_piece_edges(c->pc, sym, &len);
		for (i = 0; i < len && !err; i++)
			if (pap_bl_edge(c->bl, st, e[i], &(uint64_t){ 0 }))
				err = PAP_ECORRUPT;
	}
	return err;
}

/* The most positions nids_before() keeps (8 bytes each), and how many
 * per call or item of the form. */
#define PRE_MAX ((uint64_t)1 << 20)
#define PRE_PER 8

/*
 * Extends c->pre to position @pos if the bounds allow: one step per
 * position added, at most PRE_PER per call or item.  An element copied
 * from d before adds what that one added.  0, or -1 when it stays short.
 */
static int pre_extend(struct blctx *c, uint64_t pos)
{
	const struct pap_rseq *s = c->form;
	uint64_t q, need = pos + 1;

	if (need > PRE_MAX || need > s->len + 1 ||
	    need / PRE_PER > c->calls + s->n)
		return -1;
	if (need > c->cappre) {
		uint64_t cap = c->cappre ? c->cappre : 1024;
		uint64_t *n;

		while (cap < need)
			cap *= 2;
		if (cap > PRE_MAX)
			cap = PRE_MAX;
		n = realloc(c->pre, cap * sizeof(*n));
		if (!n)
			return -1;
		c->pre = n;
		c->cappre = cap;
	}
	if (!c->npre) {
		c->pre[0] = 0;
		c->npre = 1;
	}
	for (q = c->npre; q < need; q++) {
		const struct pap_rseq_item *it;

		/* element q - 1 */
		while (s->it[c->pitem].pos + s->it[c->pitem].len <= q - 1)
			c->pitem++;
		it = &s->it[c->pitem];
		c->pre[q] = c->pre[q - 1] +
			    (it->dist ? c->pre[q - it->dist] -
					c->pre[q - it->dist - 1] :
					piece_nids(c, it->sym));
	}
	c->npre = need;
	return 0;
}

/*
 * The ids ending before position @pos of the form: pap_rseq_prefix(),
 * its chain of repeats cut short where it reaches the positions kept in
 * c->pre.
 */
static uint64_t nids_before(struct blctx *c, uint64_t pos)
{
	const struct pap_rseq *s = c->form;
	uint64_t total = 0;

	c->calls++;
	if (pos >= c->npre)
		pre_extend(c, pos);
	for (;;) {
		size_t k;
		const struct pap_rseq_item *it;
		uint64_t off;

		if (pos < c->npre)
			return total + c->pre[pos];
		if (pos >= s->len)
			return total + c->acc[s->n];
		k = rseq_find(s, pos);
		it = &s->it[k];
		if (!it->dist || pos == it->pos)
			return total + c->acc[k];
		off = pos - it->pos;
		total += c->acc[k] + (off / it->dist) * (c->acc[k] - c->src[k]) -
			 c->src[k];
		pos = it->pos - it->dist + off % it->dist;
	}
}

/* Does @form's last element, a piece of its own, end with an edge into
 * EXIT?  Only then has pap_bl_end() been reached. */
static int ends_at_exit(const struct pap_plan *bl, const struct pap_pieces *pc,
			const struct pap_rseq *form)
{
	const struct pap_rseq_item *last = form->n ? &form->it[form->n - 1] :
						     NULL;
	const uint32_t *e;
	uint32_t len;

	if (!last || last->dist)
		return 0;
	e = pap_piece_edges(pc, last->sym, &len);
	return len && e[len - 1] < bl->cfg->nedges &&
	       bl->cfg->edges[e[len - 1]].dst == bl->cfg->exit;
}

int pap_pathform_bl_ids(const struct pap_plan *bl,
			const struct pap_pieces *pc,
			const struct pap_rseq *form, struct pap_rseq *ids)
{
	struct blctx c = { bl, pc, form, NULL, NULL, NULL, NULL, NULL, 0, 0,
			   { 0 }, NULL, 0, 0, 0, 0 };
	struct pap_bl_state st;
	size_t k;
	uint64_t i;
	int err;

	ids->n = 0;
	ids->len = 0;
	if (bl->mode != PAP_MODE_EPP)
		return PAP_EINVAL;
	pap_rseq_cursor_init(&c.at, form);
	c.nids = malloc((pc->n + 1) * sizeof(uint64_t));
	c.acc = malloc((form->n + 1) * sizeof(uint64_t));
	c.src = malloc((form->n + 1) * sizeof(uint64_t));
	c.tail = malloc((pc->n + 1) * sizeof(*c.tail));	/* may fail */
	err = c.nids && c.acc && c.src ? PAP_OK : PAP_ENOMEM;
	if (!err) {
		/* only the pieces the form names: the table may hold many
		 * more, and this runs once per path */
		for (k = 0; k < form->n; k++)
			if (!form->it[k].dist) {
				c.nids[form->it[k].sym] = UINT64_MAX;
				if (c.tail)
					c.tail[form->it[k].sym].fold =
						TAIL_UNKNOWN;
			}
		err = pap_rseq_sums(form, piece_nids, &c, c.acc, c.src);
	}
	if (!err)
		err = pap_bl_begin(bl, &st);
	for (k = 0; k < form->n && !err; k++) {
		const struct pap_rseq_item *it = &form->it[k];
		uint64_t end = it->pos + it->len, from, sym;

		if (!it->dist) {
			err = run_piece(&c, it->sym, &st, ids);
			continue;
		}
		/* until a piece with a fold edge the state may differ from
		 * the copied range's; after it, it is the same */
		for (i = it->pos; i < end && !err; i++) {
			sym = pap_rseq_cursor_sym(&c.at, i);
			err = run_piece(&c, sym, &st, ids);
			if (piece_nids(&c, sym)) {
				i++;
				break;
			}
		}
		if (err || i >= end)
			continue;
		from = nids_before(&c, i);
		err = pap_rseq_repeat(ids, from - nids_before(&c, i - it->dist),
				      nids_before(&c, end) - from);
		if (!err)
			err = state_before(&c, end, &st);
	}
	if (!err && !ends_at_exit(bl, pc, form))
		err = PAP_ECORRUPT;
	free(c.nids);
	free(c.acc);
	free(c.src);
	free(c.tail);
	free(c.pool);
	free(c.pre);
	pap_rseq_cursor_free(&c.at);
	return err;
}

/* ---- k-grams ---- */

struct grams {
	uint32_t k;
	uint64_t *runs;		/* k symbols per distinct run */
	size_t n, cap;
	uint32_t *slots;	/* run index + 1; 0 free */
	size_t nslots;
};

static size_t run_hash(const uint64_t *run, uint32_t k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < k; i++) {
		h = (h ^ run[i]) * 0x100000001b3ull;
		h ^= h >> 31;
	}
	return (size_t)(h * 0x9e3779b97f4a7c15ull >> 17);
}

static uint32_t *run_slot(struct grams *g, const uint64_t *run)
{
	size_t i = run_hash(run, g->k) & (g->nslots - 1);

	while (g->slots[i] && memcmp(g->runs + (size_t)(g->slots[i] - 1) * g->k,
				     run, g->k * sizeof(*run)))
		i = (i + 1) & (g->nslots - 1);
	return &g->slots[i];
}

/* The index of @run, added if new. */
static int run_intern(struct grams *g, const uint64_t *run, uint64_t *idx)
{
	uint32_t *sl;
	size_t i;

	if ((g->n + 1) * 2 > g->nslots) {
		size_t n = g->nslots ? 2 * g->nslots : 256;
		uint32_t *old = g->slots;
		size_t nold = g->nslots;

		g->slots = calloc(n, sizeof(*g->slots));
		if (!g->slots) {
			g->slots = old;
			return PAP_ENOMEM;
		}
		g->nslots = n;
		for (i = 0; i < nold; i++)
			if (old[i])
				*run_slot(g, g->runs + (size_t)(old[i] - 1) *
					  g->k) = old[i];
		free(old);
	}
	sl = run_slot(g, run);
	if (!*sl) {
		if (grow((void **)&g->runs, &g->cap, (g->n + 1) * g->k,
			 sizeof(*g->runs)))
			return PAP_ENOMEM;
		memcpy(g->runs + g->n * g->k, run, g->k * sizeof(*run));
		*sl = (uint32_t)++g->n;
	}
	*idx = *sl - 1;
	return PAP_OK;
}

/* The run of @g->k symbols of @s at @pos, interned into @w. */
static int window_at(const struct pap_rseq *s, struct grams *g, uint64_t pos,
		     uint64_t *run, struct pap_rseq *w)
{
	uint32_t i;
	uint64_t idx;
	int err;

	for (i = 0; i < g->k; i++)
		run[i] = pap_rseq_get(s, pos + i);
	err = run_intern(g, run, &idx);
	return err ? err : pap_rseq_sym(w, idx);
}

int pap_rseq_kgrams(const struct pap_rseq *s, uint32_t k, pap_kgram_fn fn,
		    void *ctx)
{
	struct grams g = { k, NULL, 0, 0, NULL, 0 };
	struct pap_rseq w;
	uint64_t *run = malloc(k * sizeof(*run)), *wt = NULL, *count = NULL;
	size_t i;
	int err = run ? PAP_OK : PAP_ENOMEM;

	pap_rseq_init(&w);
	if (!k || s->len < k) {
		free(run);
		return PAP_OK;
	}
	/* the runs' sequence: run x equals run x - dist wherever all its
	 * k symbols lie inside one repeat */
	for (i = 0; i < s->n && !err; i++) {
		const struct pap_rseq_item *it = &s->it[i];
		uint64_t x = it->pos, end = it->pos + it->len;

		if (it->dist && it->len >= k) {
			err = pap_rseq_repeat(&w, it->dist, it->len - k + 1);
			x = end - k + 1;
		}
		for (; x < end && x + k <= s->len && !err; x++)
			err = window_at(s, &g, x, run, &w);
	}
	if (!err) {
		wt = malloc((w.n + 1) * sizeof(*wt));
		count = calloc(g.n + 1, sizeof(*count));
		err = wt && count ? pap_rseq_weights(&w, wt) : PAP_ENOMEM;
	}
	for (i = 0; i < w.n && !err; i++)
		if (!w.it[i].dist)
			count[w.it[i].sym] += wt[i];
	for (i = 0; i < g.n && !err; i++)
		if (count[i])
			err = fn(ctx, g.runs + i * k, k, count[i]);
	free(wt);
	free(count);
	free(run);
	free(g.runs);
	free(g.slots);
	pap_rseq_free(&w);
	return err;
}
