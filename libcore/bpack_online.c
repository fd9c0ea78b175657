/* SPDX-License-Identifier: MIT */
/*
 * bpack_online.c - packing breakpoints as they are made (bpack_online.h).
 *
 * The states follow pap_bpack()'s loop.  At a position where pap_bpack()
 * looks a candidate up, the breakpoint is compared with the candidate's;
 * equal, it opens a run of length 1 (nothing written, the table not yet
 * told); the next breakpoint either extends it into a repeat or makes the
 * held one a literal and is looked up itself.  A repeat grows while the
 * breakpoints match and is written when one does not, or at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "bpack_online.h"

/* An item's bytes: out[k], first[k] and period[k], in one block. */
#define BPON_ITEM_BYTES (sizeof(struct pap_breakpoint) + sizeof(uint64_t) + \
			 sizeof(size_t))
/* period[k] of an item without a period table */
#define BPON_NO_TABLE SIZE_MAX
/* period[k] of a repeat that gets one when a read first goes through
 * it (bpon_literal) */
#define BPON_TABLE_LATER (SIZE_MAX - 1)

/* Does item @k (a repeat) have its period table? */
static inline int bpon_has_table(const struct pap_bpack_online *s, size_t k)
{
	return s->period[k] < BPON_TABLE_LATER;
}

/* A read went through repeat @k: if its table is due, it is made when
 * the read ends (bpon_literal). */
static inline void bpon_through(struct pap_bpack_online *s, size_t k)
{
	if (s->period[k] == BPON_TABLE_LATER)
		s->table_due = k + 1;
}

void pap_bpack_online_init(struct pap_bpack_online *s,
			   const struct pap_mem *mem)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
}

void pap_bpack_online_reset(struct pap_bpack_online *s)
{
	s->n = 0;
	s->npool = 0;
	s->pushed = 0;
	s->wfrom = 0;
	s->run_len = 0;
	s->depth = 0;
	s->table_due = 0;
	s->used = 0;
	if (s->nslots)
		memset(s->slot_bucket, 0, s->nslots * sizeof(*s->slot_bucket));
}

void pap_bpack_online_free(struct pap_bpack_online *s)
{
	const struct pap_mem *mem = s->mem;

	pap_mem_release(s->mem, s->out, s->cap * BPON_ITEM_BYTES);
	pap_mem_release(s->mem, s->pool, s->cap_pool * sizeof(*s->pool));
	pap_mem_release(s->mem, s->slot_bucket,
			s->nslots * sizeof(*s->slot_bucket));
	pap_mem_release(s->mem, s->slot_pos,
			s->nslots * sizeof(*s->slot_pos));
	pap_mem_release(s->mem, s->window, s->wsize * sizeof(*s->window));
	pap_mem_release(s->mem, s->level, s->nlevel * sizeof(*s->level));
	pap_bpack_online_init(s, mem);
}

size_t pap_bpack_online_memory(const struct pap_bpack_online *s)
{
	return s->cap * BPON_ITEM_BYTES + s->cap_pool * sizeof(*s->pool) +
	       s->nslots * (sizeof(*s->slot_bucket) + sizeof(*s->slot_pos)) +
	       s->wsize * sizeof(*s->window) +
	       s->nlevel * sizeof(*s->level);
}

static inline int bpon_same(const struct pap_breakpoint *a,
			    const struct pap_breakpoint *b)
{
	return a->site == b->site && a->r == b->r;
}

/* The slot of @bucket: where it is, or the empty one where it would go. */
static size_t bpon_slot(const struct pap_bpack_online *s, size_t bucket)
{
	size_t mask = s->nslots - 1, i = (bucket * 0x9e3779b1u >> 7) & mask;

	while (s->slot_bucket[i] && s->slot_bucket[i] != bucket + 1)
		i = (i + 1) & mask;
	return i;
}

/* The latest position + 1 in @bucket, 0 for none. */
static uint64_t bpon_latest(const struct pap_bpack_online *s, size_t bucket)
{
	size_t i;

	if (!s->nslots)
		return 0;
	i = bpon_slot(s, bucket);
	return s->slot_bucket[i] ? s->slot_pos[i] : 0;
}

/* Position @pos is the latest in @bucket (room made by bpon_room). */
static void bpon_enter(struct pap_bpack_online *s, size_t bucket, uint64_t pos)
{
	size_t i = bpon_slot(s, bucket);

	if (!s->slot_bucket[i]) {
		s->slot_bucket[i] = (uint16_t)(bucket + 1);
		s->used++;
	}
	s->slot_pos[i] = pos + 1;
}

/* Doubles the bucket table (rehashing); 0, or -1 with nothing changed. */
static int bpon_grow_slots(struct pap_bpack_online *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 16, i, j, mask = n - 1;
	uint16_t *b = pap_mem_resize(s->mem, NULL, 0, n * sizeof(*b));
	uint64_t *p = pap_mem_resize(s->mem, NULL, 0, n * sizeof(*p));

	if (!b || !p) {
		pap_mem_release(s->mem, b, n * sizeof(*b));
		pap_mem_release(s->mem, p, n * sizeof(*p));
		return -1;
	}
	memset(b, 0, n * sizeof(*b));
	for (i = 0; i < s->nslots; i++) {
		if (!s->slot_bucket[i])
			continue;
		j = ((size_t)(s->slot_bucket[i] - 1) * 0x9e3779b1u >> 7) &
		    mask;
		while (b[j])
			j = (j + 1) & mask;
		b[j] = s->slot_bucket[i];
		p[j] = s->slot_pos[i];
	}
	pap_mem_release(s->mem, s->slot_bucket,
			s->nslots * sizeof(*s->slot_bucket));
	pap_mem_release(s->mem, s->slot_pos,
			s->nslots * sizeof(*s->slot_pos));
	s->slot_bucket = b;
	s->slot_pos = p;
	s->nslots = n;
	return 0;
}

/*
 * Doubles the room for items: out, first and period move together into
 * one new block.  0, or -1 with nothing changed.
 */
static int bpon_grow_items(struct pap_bpack_online *s)
{
	size_t cap = s->cap ? s->cap * 2 : 2 * PAP_BPACK_SHORT;
	char *b = pap_mem_resize(s->mem, NULL, 0, cap * BPON_ITEM_BYTES);
	struct pap_breakpoint *out = (struct pap_breakpoint *)b;
	uint64_t *first = (uint64_t *)(out + cap);
	size_t *period = (size_t *)(first + cap);

	if (!b)
		return -1;
	if (s->n) {
		memcpy(out, s->out, s->n * sizeof(*out));
		memcpy(first, s->first, s->n * sizeof(*first));
		memcpy(period, s->period, s->n * sizeof(*period));
	}

	pap_mem_release(s->mem, s->out, s->cap * BPON_ITEM_BYTES);
	s->out = out;
	s->first = first;
	s->period = period;
	s->cap = cap;
	return 0;
}

/*
 * Room for what one push may add: two items (a run ended and a literal)
 * and two buckets, leaving room for the item pap_bpack_online_finish()
 * may add, and for PAP_BPACK_SHORT literals.  The positions of a repeat
 * entered when it ends add no bucket: each equals an earlier position,
 * whose bucket is already there.  0, or -1 with @s unchanged.
 */
static int bpon_room(struct pap_bpack_online *s)
{
	if (!s->window) {
		s->window = pap_mem_resize(s->mem, NULL, 0,
					PAP_BPACK_WINDOW * sizeof(*s->window));
		if (!s->window)
			return -1;
		s->wsize = PAP_BPACK_WINDOW;
	}
	if (s->n + 3 > s->cap && bpon_grow_items(s))
		return -1;
	/* at most 3/4 full after two more */
	if ((s->used + 2) * 4 > s->nslots * 3 && s->used < PAP_BPACK_BUCKETS &&
	    bpon_grow_slots(s))
		return -1;
	return 0;
}

/*
 * Grows the window towards @want breakpoints (at most
 * PAP_BPACK_WINDOW_MAX), keeping the ones it holds.  Optional: on failure
 * it stays as it is, and reading back takes the slower way.
 */
static void bpon_grow_window(struct pap_bpack_online *s, uint64_t want)
{
	size_t size = s->wsize, i;
	struct pap_breakpoint *w;
	uint64_t q;

	while (size < want && size < PAP_BPACK_WINDOW_MAX)
		size *= 2;
	if (size == s->wsize)
		return;
	w = pap_mem_resize(s->mem, NULL, 0, size * sizeof(*w));
	if (!w)
		return;
	/* the last wsize positions, or all of them */
	q = s->pushed > s->wsize ? s->pushed - s->wsize : 0;
	for (i = 0; q + i < s->pushed; i++)
		w[(q + i) & (size - 1)] = s->window[(q + i) & (s->wsize - 1)];
	pap_mem_release(s->mem, s->window, s->wsize * sizeof(*s->window));
	s->window = w;
	s->wsize = size;
	if (q > s->wfrom)
		s->wfrom = q;
}

/*
 * The item holding position @q, which lies before the open run: the last
 * one starting at or before @q.  Searched outwards from @hint (an item
 * index, or anything >= s->n for none) in steps that double, then by
 * halves: a read next to the last one at this level costs a step or two,
 * one d items away about 2 log2 d.
 */
static size_t bpon_item(struct pap_bpack_online *s, uint64_t q, size_t hint)
{
	size_t lo, hi, step, mid;

	if (hint >= s->n) {
		lo = 0;
		hi = s->n;
	} else if (s->first[hint] <= q) {
		lo = hint;
		for (step = 1;; step *= 2) {
			s->steps++;
			hi = lo + step;
			if (hi >= s->n) {
				hi = s->n;
				break;
			}
			if (s->first[hi] > q)
				break;
			lo = hi;
		}
	} else {
		hi = hint;
		for (step = 1;; step *= 2) {
			s->steps++;
			if (hi < step) {
				lo = 0;
				break;
			}
			lo = hi - step;
			if (s->first[lo] <= q)
				break;
			hi = lo;
		}
	}
	/* first[lo] <= q, and first[hi] > q or hi == n */
	while (hi - lo > 1) {
		s->steps++;
		mid = lo + (hi - lo) / 2;
		if (s->first[mid] <= q)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The number of positions item @k stands for. */
static inline uint64_t bpon_len(const struct pap_bpack_online *s, size_t k)
{
	return pap_bp_is_repeat(&s->out[k]) ? (s->out[k].r & UINT32_MAX) : 1;
}

/*
 * The reader.  A position inside a repeat of distance d starting at
 * position st stands for the one at st - d + (q - st) % d, before the
 * repeat (the overlap folded); followed down, a position reaches a
 * literal, or a repeat whose period table names the literal.  The reader
 * keeps that chain for the position it read last, one level per item
 * (level i: the item position at - level[i].shift lies in), and with
 * each level the first position above it where the chain down to it
 * changes (the item ends, or the fold wraps round): reading the next
 * position keeps the levels that stay and rebuilds only those below,
 * each from the item its level held last time.  A read next to the last
 * one thus costs the levels that change, not the chain's depth.
 */

/*
 * Room for level @i; 0, or -1 when out of memory (the levels kept as
 * they were).
 */
static int bpon_level_room(struct pap_bpack_online *s, size_t i)
{
	size_t n = s->nlevel ? s->nlevel * 2 : 16;
	struct pap_bpack_level *l;

	if (i < s->nlevel)
		return 0;
	l = pap_mem_resize(s->mem, s->level, s->nlevel * sizeof(*l),
			   n * sizeof(*l));
	if (!l)
		return -1;
	/* no item yet: the first search at a level is a whole one */
	memset(l + s->nlevel, 0xff, (n - s->nlevel) * sizeof(*l));
	s->level = l;
	s->nlevel = n;
	return 0;
}

/*
 * Without room for the levels: the literal item that position @q
 * equals, followed down the chain without keeping it.
 */
static size_t bpon_walk(struct pap_bpack_online *s, uint64_t q)
{
	for (;;) {
		size_t k = bpon_item(s, q, s->n);
		uint64_t st = s->first[k], d;

		s->steps++;
		if (!pap_bp_is_repeat(&s->out[k]))
			return k;
		d = s->out[k].r >> 32;
		if (bpon_has_table(s, k))
			return s->pool[s->period[k] + (q - st) % d];
		bpon_through(s, k);
		q = st - d + (q - st) % d;
	}
}

/*
 * Rebuilds the levels from @i down for position s->at, level @i's
 * position being @q.  0, or -1 when there was no room for them: the
 * reader then has none, and bpon_walk() is the way.
 */
static int bpon_descend(struct pap_bpack_online *s, size_t i, uint64_t q)
{
	uint64_t lim = i ? s->level[i - 1].lim : UINT64_MAX;

	for (;; i++) {
		struct pap_bpack_level *l;
		size_t k;
		uint64_t st, left, d, off;

		if (bpon_level_room(s, i)) {
			s->depth = 0;
			return -1;
		}
		l = &s->level[i];
		k = bpon_item(s, q, l->k);
		st = s->first[k];

		s->steps++;
		l->k = k;
		l->shift = s->at - q;
		left = st + bpon_len(s, k) - q;
		if (!pap_bp_is_repeat(&s->out[k]) || bpon_has_table(s, k)) {
			l->lim = lim < s->at + left ? lim : s->at + left;
			s->depth = i + 1;
			return 0;
		}
		bpon_through(s, k);
		d = s->out[k].r >> 32;
		off = (q - st) % d;
		if (left > d - off)
			left = d - off;
		if (lim > s->at + left)
			lim = s->at + left;
		l->lim = lim;
		q = st - d + off;
	}
}

/* The literal item the reader's position equals. */
static size_t bpon_found(const struct pap_bpack_online *s)
{
	const struct pap_bpack_level *l = &s->level[s->depth - 1];
	size_t k = l->k;
	uint64_t q, st, d;

	if (!pap_bp_is_repeat(&s->out[k]))
		return k;
	q = s->at - l->shift;
	st = s->first[k];
	d = s->out[k].r >> 32;
	return s->pool[s->period[k] + (q - st) % d];
}

/*
 * The literal item that position @q, before the open run, equals.  The
 * position after the last one read costs what changes in the chain
 * (above); any other rebuilds the chain, each level searched from the
 * item it held.
 */
static size_t bpon_read(struct pap_bpack_online *s, uint64_t q)
{
	size_t i;

	if (s->depth && q == s->at)
		return bpon_found(s);
	if (s->depth && q == s->at + 1) {
		s->at = q;
		i = s->depth - 1;
		/* levels whose chain above is still what it was keep their
		 * position's place; the first that does not is rebuilt */
		while (i && s->level[i - 1].lim <= q)
			i--;
		if (s->level[i].lim > q) {
			s->depth = i + 1;
			return bpon_found(s);
		}
		if (bpon_descend(s, i, q - s->level[i].shift))
			return bpon_walk(s, q);
		return bpon_found(s);
	}
	s->at = q;
	if (bpon_descend(s, 0, q))
		return bpon_walk(s, q);
	return bpon_found(s);
}

static void bpon_table(struct pap_bpack_online *s, size_t k);

/*
 * bpon_read(), and then the period table of a repeat the read went
 * through whose table was left for later (BPON_TABLE_LATER): most
 * repeats are never read back, and theirs is never made.
 */
static size_t bpon_literal(struct pap_bpack_online *s, uint64_t q)
{
	size_t r = bpon_read(s, q);

	if (s->table_due) {
		size_t k = s->table_due - 1;

		s->table_due = 0;
		bpon_table(s, k);
	}
	return r;
}

/*
 * The breakpoint at position @q (< pushed): from the window when recent,
 * else through the open repeat to the packed items (bpon_literal).
 */
static const struct pap_breakpoint *bpon_at(struct pap_bpack_online *s,
					    uint64_t q)
{
	for (;;) {
		if (s->pushed - q <= s->wsize && q >= s->wfrom)
			return &s->window[q & (s->wsize - 1)];
		if (s->run_len < 2 || q < s->run_start)
			return &s->out[bpon_literal(s, q)];
		q = s->run_start - s->run_dist +
		    (q - s->run_start) % s->run_dist;
	}
}

/*
 * Does the repeat being written, of distance @d and length @len, get a
 * period table?  Always up to PAP_BPACK_PERIOD; up to
 * PAP_BPACK_PERIOD_MAX when it is at least half as long as its period,
 * so that the tables never hold more than twice as many entries as the
 * breakpoints their repeats stand for (bpack_online.h).  Without the
 * longer ones the reader still reads a repeat's source in order, but
 * lua's bench.lua under pap-epp took 5% more instructions, its reads
 * jumping into long periods.
 */
static int bpon_wants_table(const struct pap_bpack_online *s, uint64_t d,
			    uint64_t len)
{
	if (s->n > UINT32_MAX)
		return 0;
	return d <= PAP_BPACK_PERIOD ||
	       (d <= PAP_BPACK_PERIOD_MAX && d <= 2 * len);
}

/*
 * Lists in @out[0..) the literal items that positions @from up to item
 * @k's start equal, from the last one back, as far as the items before
 * @k are literals or repeats with a period table.  Returns how many at
 * the front are left (to read through the reader); each entry is what
 * bpon_literal() gives for its position.
 */
static uint64_t bpon_table_near(const struct pap_bpack_online *s, size_t k,
				uint64_t from, uint32_t *out)
{
	uint64_t left = s->first[k] - from;

	while (left && k--) {
		uint64_t st = s->first[k], q, d;

		if (!pap_bp_is_repeat(&s->out[k])) {
			out[--left] = (uint32_t)k;
			continue;
		}
		if (!bpon_has_table(s, k))
			break;
		d = s->out[k].r >> 32;
		/* positions from max(st, from) to from + left - 1 */
		for (q = from + left; q > st && left; left--)
			out[left - 1] = s->pool[s->period[k] + (--q - st) % d];
	}
	return left;
}

/*
 * Gives repeat @k its period table: the literal each position of its
 * period equals, so that reading it back is one step.  Made the first
 * time a read goes through it (bpon_literal); the positions it lists
 * are before it, so it is what it would have been when the repeat was
 * written.  Optional: without memory it has none, and reading takes the
 * longer way.
 */
static void bpon_table(struct pap_bpack_online *s, size_t k)
{
	size_t j;
	uint64_t d = s->out[k].r >> 32, from = s->first[k] - d, left;

	if (s->npool + d > s->cap_pool) {
		size_t cap = s->cap_pool ? s->cap_pool : PAP_BPACK_PERIOD;
		uint32_t *pool;

		while (cap < s->npool + d)
			cap *= 2;
		pool = pap_mem_resize(s->mem, s->pool, s->cap_pool * sizeof(*pool),
				   cap * sizeof(*pool));
		if (!pool) {
			s->period[k] = BPON_NO_TABLE;
			return;
		}
		s->pool = pool;
		s->cap_pool = cap;
	}
	/* the items just before the repeat hold its source: literals and
	 * repeats with tables, from the last back, are copied; the rest
	 * (a repeat without one) is read through the reader */
	left = bpon_table_near(s, k, from, s->pool + s->npool);
	for (j = 0; j < left; j++)	/* in order, as the reader reads best */
		s->pool[s->npool + j] = (uint32_t)bpon_read(s, from + j);
	s->table_due = 0;	/* tables of the repeats read through: later */
	s->period[k] = s->npool;
	s->npool += d;
}

static void bpon_write(struct pap_bpack_online *s,
		       const struct pap_breakpoint *bp, uint64_t pos)
{
	s->out[s->n] = *bp;
	s->period[s->n] = BPON_NO_TABLE;
	s->first[s->n++] = pos;
}

/*
 * Does the open run enter its positions' buckets only when it ends?
 * When its source is in the window (its distance below the window's
 * size, which stays while the run is open): then its last min(length,
 * distance) positions are entered from the window as it ends.  Any
 * earlier position of the repeat has an equal breakpoint, so the same
 * bucket, a distance later inside the repeat: only those can be their
 * bucket's latest, and no bucket is looked up while the run is open.
 * A farther source enters each position as it comes, so that the
 * reader's reads stay in order.
 */
static inline int bpon_run_deferred(const struct pap_bpack_online *s)
{
	return s->run_dist < s->wsize;
}

/*
 * Writes the open run: a repeat, or its one breakpoint as a literal.
 * With @enter, the positions of a deferred repeat that may be the latest
 * of their bucket are entered in order (each bucket already there,
 * bpon_room); at the end of the sequence nothing looks a bucket up
 * again.
 */
static void bpon_close_run(struct pap_bpack_online *s, int enter)
{
	if (s->run_len >= 2) {
		struct pap_breakpoint rep;
		uint64_t end = s->run_start + s->run_len, q;

		rep.site = PAP_BP_REPEAT;
		rep.r = s->run_dist << 32 | s->run_len;
		if (enter && bpon_run_deferred(s))
			for (q = end - (s->run_len < s->run_dist ?
					s->run_len : s->run_dist); q < end; q++)
				bpon_enter(s, pap_bpack_bucket(bpon_at(s, q)), q);
		bpon_write(s, &rep, s->run_start);
		if (bpon_wants_table(s, s->run_dist, s->run_len))
			s->period[s->n - 1] = BPON_TABLE_LATER;
	} else if (s->run_len == 1) {
		const struct pap_breakpoint *bp = bpon_at(s, s->run_start);

		bpon_write(s, bp, s->run_start);
		bpon_enter(s, pap_bpack_bucket(bp), s->run_start);
	}
	s->run_len = 0;
}

/* pap_bpack_online_push() but for its fast path: the breakpoint at
 * position @p, the next. */
static __attribute__((noinline)) int
bpon_push(struct pap_bpack_online *s, const struct pap_breakpoint *bp,
	  uint64_t p)
{
	uint64_t latest;
	size_t bucket;

	if (bpon_room(s))
		return PAP_ENOMEM;
	s->window[p & (s->wsize - 1)] = *bp;
	s->pushed = p + 1;
	if (s->run_len) {
		if (s->run_len < UINT32_MAX &&
		    bpon_same(bp, bpon_at(s, p - s->run_dist))) {
			if (!bpon_run_deferred(s)) {
				if (s->run_len == 1)
					bpon_enter(s, pap_bpack_bucket(
						bpon_at(s, s->run_start)),
						s->run_start);
				bpon_enter(s, pap_bpack_bucket(bp), p);
			}
			s->run_len++;
			return PAP_OK;
		}
		bpon_close_run(s, 1);
	}
	bucket = pap_bpack_bucket(bp);
	latest = bpon_latest(s, bucket);
	if (latest && p - (latest - 1) <= UINT32_MAX &&
	    bpon_same(bp, bpon_at(s, latest - 1))) {
		s->run_start = p;
		s->run_dist = p - (latest - 1);
		s->run_len = 1;
		/* a window beyond the distance would not help */
		if (s->run_dist > s->wsize &&
		    s->run_dist <= PAP_BPACK_WINDOW_MAX)
			bpon_grow_window(s, s->run_dist);
		return PAP_OK;
	}
	bpon_write(s, bp, p);
	bpon_enter(s, bucket, p);
	return PAP_OK;
}

/*
 * A repeat whose source is in the window enters its positions' buckets
 * only when it ends (bpon_run_deferred), so a breakpoint that extends
 * it costs a compare and a store, here, without the slow path's frame.
 */
int pap_bpack_online_push(struct pap_bpack_online *s,
			  const struct pap_breakpoint *bp)
{
	uint64_t p = s->pushed, q = p - s->run_dist;

	/* the window holds q while p's store leaves it there */
	if (s->run_len >= 2 && s->run_len < UINT32_MAX &&
	    s->run_dist < s->wsize && q >= s->wfrom &&
	    bpon_same(bp, &s->window[q & (s->wsize - 1)])) {
		s->window[p & (s->wsize - 1)] = *bp;
		s->pushed = p + 1;
		s->run_len++;
		return PAP_OK;
	}
	return bpon_push(s, bp, p);
}

const struct pap_breakpoint *pap_bpack_online_finish(struct pap_bpack_online *s,
						     size_t *n)
{
	uint64_t i;

	bpon_close_run(s, 0);
	s->depth = 0;
	if (s->pushed <= PAP_BPACK_SHORT) {
		/* left as it is; all of it still in the window */
		s->n = 0;
		for (i = 0; i < s->pushed; i++)
			bpon_write(s, &s->window[i], i);
	}
	*n = s->n;
	return s->out;
}
