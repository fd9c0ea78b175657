/* SPDX-License-Identifier: MIT */
/*
 * segsum.c - a PAP+EPP record summed up from its segments, each distinct
 * segment decoded once: what func_decode() needs of a path that a report
 * will not show (whether it decodes, its lengths, its Ball-Larus ids),
 * without expanding the path.
 *
 * A PAP+EPP record is a chain of segments, each the stretch a breakpoint
 * closed, and a segment is a pure function of the fold edge it ends at
 * and its value (decode.c).  The records of a hot function share most of
 * their segments (zlib's longest_match: 3.6M breakpoints, 262K distinct),
 * so a record whose segments were all met before is checked and measured
 * by a lookup per segment, and its Ball-Larus ids had by an addition per
 * segment (path_bl_segment()).  A segment met first is read the same way
 * from its pieces (pap_epp_segment_pieces()), each distinct piece
 * decoded once: a division and a lookup per digit.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decoder.h"

/* The most segments record @r can have: one per breakpoint and the last
 * (without repeats, its breakpoints are those it holds). */
static size_t nbps_bound(const struct pap_prof_rec *r)
{
	return (size_t)r->nbps + 1;
}

/*
 * What one segment, key (end, r), or one piece, key (end, digit r),
 * decodes to: where it starts, its lengths, and its Ball-Larus reading
 * (struct seg_bl), if noted.
 */
struct seg_sum {
	uint64_t r;
	uint64_t head, out;	/* struct seg_bl's */
	uint32_t end;
	uint32_t start;		/* the fold edge it starts after, or PAP_NONE */
	/* a segment's: where its leading digit overflowed; from the entry
	 * (start PAP_NONE), and a piece's: its first edge */
	uint32_t first;
	uint32_t nedges, nblocks;	/* its edges, those entering a block */
	uint8_t emits, abs_start;	/* struct seg_bl's */
	uint8_t used;		/* the slot holds one */
};

/* Summaries by key, in open addressing. */
struct sum_table {
	struct seg_sum *slot;
	size_t nslots, n;
};

struct seg_sums {
	struct sum_table seg, piece;
	/* the segments met most recently, by hash: the few that make most
	 * of a function's breakpoints stay in the cache close to the core */
	struct seg_sum *front;
	struct seg_sum *chain;	/* a record's segments, exit first */
	size_t capchain;
	int note;		/* their ids are noted */
	/* a record that failed had ids of its segments noted: f->blset
	 * may hold ids of no decoded path */
	int tainted;
	/* lookups in seg past the front, those that found the segment;
	 * seg is let go when they show its segments seldom come back */
	uint64_t looked, found;
	int off;
};

/* At most this many segments, and as many pieces, are remembered per
 * function (48 bytes a slot, at most three quarters of them used, 24 MB
 * at most; let go when its records are decoded).  Past it a new segment
 * is read from its pieces each time it is met (the front table keeps the
 * latest), and a record whose pieces cannot be kept is decoded whole. */
#define SEGSUM_MAX ((size_t)3 << 17)
/* Slots of the front table (direct-mapped). */
#define SEG_FRONT ((size_t)1 << 14)
/* After this many lookups past the front, a table that found fewer than
 * one segment in SEG_FEW_HITS is let go: its misses cost more than the
 * decoding its hits save (bench/gen_profile paths: nearly all new). */
#define SEG_TRIAL ((uint64_t)1 << 16)
#define SEG_FEW_HITS 8
/* The most pieces a segment has: each digit is at least binary. */
#define SEG_PIECES 64

void seg_sums_free(struct seg_sums *s)
{
	if (!s)
		return;
	free(s->seg.slot);
	free(s->piece.slot);
	free(s->front);
	free(s->chain);
	free(s);
}

static size_t sum_hash(uint32_t end, uint64_t r)
{
	uint64_t h = (r * 0x9e3779b97f4a7c15ull) ^
		     (end * 0xff51afd7ed558ccdull);

	return (size_t)(h ^ (h >> 29));
}

/* The slot of key (@end, @r) of hash @h in @t, or the empty one where it
 * goes. */
static size_t sum_slot(const struct sum_table *t, uint32_t end, uint64_t r,
		       size_t h)
{
	size_t i = h & (t->nslots - 1);

	while (t->slot[i].used && (t->slot[i].r != r || t->slot[i].end != end))
		i = (i + 1) & (t->nslots - 1);
	return i;
}

/*
 * Room in @t for @more keys without moving a slot (a slot in use stays
 * where it is until the next call): 0, or -1 when full or short of
 * memory.
 */
static int sum_room(struct sum_table *t, size_t more)
{
	struct seg_sum *g;
	size_t m = t->nslots ? t->nslots : 1024, k, i;

	if (t->n + more > SEGSUM_MAX)
		return -1;
	while (4 * (t->n + more) > 3 * m)
		m *= 2;
	if (m == t->nslots)
		return 0;
	g = calloc(m, sizeof(*g));
	if (!g)
		return -1;
	for (k = 0; k < t->nslots; k++) {
		if (!t->slot[k].used)
			continue;
		i = sum_hash(t->slot[k].end, t->slot[k].r) & (m - 1);
		while (g[i].used)
			i = (i + 1) & (m - 1);
		g[i] = t->slot[k];
	}
	free(t->slot);
	t->slot = g;
	t->nslots = m;
	return 0;
}

/*
 * The Ball-Larus reading of consecutive parts @p[@n - 1] down to @p[0]
 * (segments of a record or pieces of a segment, told from the exit back)
 * joined into @into's (struct seg_bl): the ids that end in a part entered
 * mid-path once the running id is known are noted in f->blset; the first
 * id of a join itself entered mid-path is its head.
 */
static void bl_join(struct dfunc *f, const struct seg_sum *p, size_t n,
		    struct seg_sum *into)
{
	uint64_t run = 0, head = 0;
	int absolute = 0, emitted = 0;
	size_t k;

	into->abs_start = n ? p[n - 1].abs_start : 1;
	for (k = n; k-- > 0;) {
		const struct seg_sum *b = &p[k];

		if (b->abs_start) {
			run = b->out;
			absolute = 1;
			emitted |= b->emits;
			continue;
		}
		if (!b->emits) {
			run += b->head;
			continue;
		}
		if (!absolute)
			head = run + b->head;
		else if (f->bl_noted > 0 && path_note_bl_id(f, run + b->head))
			f->bl_noted = -1;
		emitted = 1;
		absolute = 1;
		run = b->out;
	}
	into->emits = (uint8_t)emitted;
	into->head = emitted ? head : run;
	into->out = run;
}

/* What a segment's pieces are gathered into, exit first. */
struct seg_pieces {
	struct dfunc *f;
	struct pap_path *scratch;
	struct seg_sum p[SEG_PIECES];
	size_t n;
};

/*
 * Piece (@end, digit @d) of @f decoded into @x, with its Ball-Larus
 * reading when ids are noted (a numbering that fails marks the function's
 * ids as not had, as a whole path through it would).  0 or the error
 * code decoding a record through it gives.
 */
static int piece_decode(struct dfunc *f, uint32_t end, uint64_t d,
			struct pap_path *scratch, struct seg_sum *x)
{
	const struct pap_plan *plan = pap_meta_plan(f->fn);
	const struct pap_cfg *cfg = plan->cfg;
	struct seg_bl b;
	size_t i;
	int err;

	scratch->len = 0;
	err = pap_decode_epp_piece(plan, f->memo, end, d, scratch, &x->start);
	if (!err && end != PAP_NONE)
		err = pap_path_push(scratch, end);	/* it ends there */
	if (err)
		return err;
	if (scratch->len >= UINT32_MAX)
		return PAP_ELIMIT;
	x->r = d;
	x->end = end;
	x->nedges = (uint32_t)scratch->len;
	x->nblocks = 0;
	x->first = scratch->len ? scratch->edges[0] : PAP_NONE;
	for (i = 0; i < scratch->len; i++)
		x->nblocks += cfg->edges[scratch->edges[i]].dst < cfg->nblocks;
	memset(&b, 0, sizeof(b));
	if (f->segs->note && f->bl_noted >= 0) {
		f->bl_noted = 1;
		if (path_bl_segment(f, x->start, end == PAP_NONE,
				    scratch->edges, scratch->len, &b))
			f->bl_noted = -1;
	}
	x->head = b.head;
	x->out = b.out;
	x->emits = b.emits;
	x->abs_start = b.abs_start;
	return 0;
}

/* A pap_epp_piece_fn gathering each piece's summary into the struct
 * seg_pieces @ctx, from f's pieces met before or decoded now. */
static int gather_piece(void *ctx, uint32_t end, uint64_t d, uint32_t *start)
{
	struct seg_pieces *g = ctx;
	struct sum_table *t = &g->f->segs->piece;
	struct seg_sum *x;
	int err;

	if (g->n == SEG_PIECES || sum_room(t, 1))
		return PAP_ELIMIT;
	x = &t->slot[sum_slot(t, end, d, sum_hash(end, d))];
	if (!x->used) {
		err = piece_decode(g->f, end, d, g->scratch, x);
		if (err)
			return err;	/* the slot stays free */
		x->used = 1;
		t->n++;
	}
	g->p[g->n++] = *x;
	*start = x->start;
	return PAP_OK;
}

/*
 * Segment (@end, @r) of @f read into @x from its pieces, its ids noted
 * when they are.  0 or the error code decoding a record through it
 * gives (PAP_ELIMIT when the pieces cannot be kept: decoded whole).
 */
static int seg_decode(struct dfunc *f, uint32_t end, uint64_t r,
		      struct pap_path *scratch, struct seg_sum *x)
{
	struct seg_pieces g;
	int at_entry, err;
	uint64_t nedges = 0, nblocks = 0;
	size_t k;

	g.f = f;
	g.scratch = scratch;
	g.n = 0;
	err = pap_epp_segment_pieces(pap_meta_plan(f->fn), end, r,
				     gather_piece, &g, &x->first, &x->start,
				     &at_entry);
	if (err)
		return err;
	for (k = 0; k < g.n; k++) {
		nedges += g.p[k].nedges;
		nblocks += g.p[k].nblocks;
	}
	if (nedges >= UINT32_MAX)
		return PAP_ELIMIT;
	x->r = r;
	x->end = end;
	x->nedges = (uint32_t)nedges;
	x->nblocks = (uint32_t)nblocks;
	if (at_entry)
		x->first = g.n ? g.p[g.n - 1].first : PAP_NONE;
	if (f->segs->note)
		bl_join(f, g.p, g.n, x);
	else
		x->emits = x->abs_start = 0, x->head = x->out = 0;
	return 0;
}

int record_sum_tainted(const struct dfunc *f)
{
	return f->segs && f->segs->tainted;
}

static int sum_record(struct dfunc *f, const struct pap_prof_rec *r,
		      struct dpath *out, int note, struct pap_path *scratch,
		      int *noted)
{
	const struct pap_plan *plan = pap_meta_plan(f->fn);
	const struct pap_breakpoint *bps;
	struct seg_sums *s = f->segs;
	uint32_t end = PAP_NONE, first = PAP_NONE;
	uint64_t v = r->value, nedges = 0, nblocks = 0;
	size_t nbps, j, nchain = 0;
	struct seg_sum joined;
	int err, keep;

	if (!plan || plan->mode != PAP_MODE_PAP_EPP || r->kind == PAP_REC_BL ||
	    pap_bpack_has_repeat(r->bps, r->nbps) ||
	    (note && !func_bl_plan(f)))
		return 1;
	if (!s) {
		s = f->segs = calloc(1, sizeof(*s));
		if (!s)
			return 1;
		s->note = note;
		s->front = calloc(SEG_FRONT, sizeof(*s->front));
	}
	if (!s->front || s->note != note)
		return 1;
	if (!s->off && s->looked >= SEG_TRIAL &&
	    s->found * SEG_FEW_HITS < s->looked) {
		free(s->seg.slot);
		memset(&s->seg, 0, sizeof(s->seg));
		s->off = 1;
	}
	/* each of its segments may be new: kept if the table holds them */
	keep = !s->off && !sum_room(&s->seg, nbps_bound(r));
	/* without repeats: the breakpoints themselves */
	err = pap_bunpack_into(&f->unpacked, r->bps, r->nbps, UINT64_MAX,
			       &bps, &nbps);
	if (err)
		return 1;	/* decode_rec() says why */
	if (!f->memo)
		f->memo = pap_memo_new(DECODE_MEMO_EDGES);
	for (j = nbps;;) {
		size_t h = sum_hash(end, v);
		struct seg_sum *x = &s->front[h & (SEG_FRONT - 1)];

		if (!x->used || x->r != v || x->end != end) {
			struct seg_sum *m = s->seg.nslots ?
				&s->seg.slot[sum_slot(&s->seg, end, v, h)] :
				NULL;

			s->looked += m != NULL;
			if (m && m->used) {
				s->found++;
				*x = *m;
			} else {
				*noted |= note;
				/* the front slot is written over: it holds
				 * nothing until the segment is whole */
				x->used = 0;
				err = seg_decode(f, end, v, scratch, x);
				if (err)	/* PAP_ELIMIT: decoded whole */
					return err == PAP_ELIMIT ? 1 : err;
				x->used = 1;
				if (keep && m) {
					*m = *x;
					s->seg.n++;
				}
			}
		}
		if (nchain == s->capchain &&
		    pap_grow(&s->chain, &s->capchain, sizeof(*s->chain), 64))
			return PAP_ENOMEM;
		s->chain[nchain++] = *x;
		nedges += x->nedges;
		nblocks += x->nblocks;
		if (x->start == PAP_NONE) {
			if (j)
				return PAP_ECORRUPT;
			first = x->first;
			break;
		}
		/* the segment's first digit overflowed at its end */
		if (j == 0 || bps[j - 1].site != x->first)
			return PAP_ECORRUPT;
		v = bps[--j].r;
		if (v < 2)
			return PAP_ECORRUPT;
		end = x->start;
	}
	/* the ids that cross from a segment into the next */
	if (note)
		bl_join(f, s->chain, nchain, &joined);
	memset(out, 0, sizeof(*out));
	out->rec = r;
	out->count = r->count;
	out->complete = r->complete;
	out->bl_id = r->value;
	out->nedges = nedges;
	out->n = nblocks;
	if (nedges) {
		const struct pap_cfg *cfg = plan->cfg;
		uint32_t src = cfg->edges[first].src;

		out->n += src != cfg->entry && src < cfg->nblocks;
		out->resumed = pap_cfg_is_resume(cfg, first);
	}
	return PAP_OK;
}

int record_sum(struct dfunc *f, const struct pap_prof_rec *r,
	       struct dpath *out, int note, struct pap_path *scratch)
{
	int noted = 0, err = sum_record(f, r, out, note, scratch, &noted);

	if (err && noted)
		f->segs->tainted = 1;
	return err;
}
