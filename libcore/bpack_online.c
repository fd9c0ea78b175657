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
	pap_bpack_online_init(s, mem);
}

size_t pap_bpack_online_memory(const struct pap_bpack_online *s)
{
	return s->cap * BPON_ITEM_BYTES + s->cap_pool * sizeof(*s->pool) +
	       s->nslots * (sizeof(*s->slot_bucket) + sizeof(*s->slot_pos)) +
	       s->wsize * sizeof(*s->window);
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
 * may add, and for PAP_BPACK_SHORT literals.  0, or -1 with @s unchanged.
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
 * The item holding position @q, which lies before the open run and the
 * window: the last one starting at or before @q.  Searched outwards from
 * @hint (an item index, or s->n for none) in steps that double, then by
 * halves: a read next to the last one at this depth costs a step or two.
 */
static size_t bpon_item(const struct pap_bpack_online *s, uint64_t q,
			size_t hint)
{
	size_t lo, hi, step, mid;

	if (hint >= s->n) {
		lo = 0;
		hi = s->n;
	} else if (s->first[hint] <= q) {
		lo = hint;
		for (step = 1;; step *= 2) {
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
		mid = lo + (hi - lo) / 2;
		if (s->first[mid] <= q)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The literal item that position @q, before the open run, equals:
 * followed back through the packed items, each step to an earlier one,
 * until a literal or a repeat whose period table says which literal.
 * The item found at depth i is remembered in hints[i] and the next
 * search at that depth starts there: the run being extended reads
 * consecutive positions, whose chains go through the same items or the
 * next ones.
 */
static size_t bpon_literal(struct pap_bpack_online *s, uint64_t q)
{
	unsigned depth;

	for (depth = 0;; depth++) {
		size_t k, hint = depth < PAP_BPACK_HINTS ? s->hints[depth] :
							   s->n;
		uint64_t d, start;

		k = bpon_item(s, q, hint);
		if (depth < PAP_BPACK_HINTS)
			s->hints[depth] = k;
		if (!pap_bp_is_repeat(&s->out[k]))
			return k;
		start = s->first[k];
		d = s->out[k].r >> 32;
		if (s->period[k] != BPON_NO_TABLE)
			return s->pool[s->period[k] + (q - start) % d];
		q = start - d + (q - start) % d;
	}
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
 * so that the tables never hold more than half as many entries as the
 * breakpoints their repeats stand for (bpack_online.h).
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
 * Gives the repeat just written (item n - 1) its period table: the literal each position of its
 * period equals, so that reading it back is one step.  Optional: without
 * memory it has none, and reading takes the longer way.
 */
static void bpon_table(struct pap_bpack_online *s)
{
	size_t k = s->n - 1, j;
	uint64_t d = s->out[k].r >> 32, from = s->first[k] - d;

	if (s->npool + d > s->cap_pool) {
		size_t cap = s->cap_pool ? s->cap_pool : PAP_BPACK_PERIOD;
		uint32_t *pool;

		while (cap < s->npool + d)
			cap *= 2;
		pool = pap_mem_resize(s->mem, s->pool, s->cap_pool * sizeof(*pool),
				   cap * sizeof(*pool));
		if (!pool)
			return;
		s->pool = pool;
		s->cap_pool = cap;
	}
	for (j = 0; j < d; j++)
		s->pool[s->npool + j] = (uint32_t)bpon_literal(s, from + j);
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

/* Writes the open run: a repeat, or its one breakpoint as a literal. */
static void bpon_close_run(struct pap_bpack_online *s)
{
	if (s->run_len >= 2) {
		struct pap_breakpoint rep;

		rep.site = PAP_BP_REPEAT;
		rep.r = s->run_dist << 32 | s->run_len;
		bpon_write(s, &rep, s->run_start);
		if (bpon_wants_table(s, s->run_dist, s->run_len))
			bpon_table(s);
	} else if (s->run_len == 1) {
		const struct pap_breakpoint *bp = bpon_at(s, s->run_start);

		bpon_write(s, bp, s->run_start);
		bpon_enter(s, pap_bpack_bucket(bp), s->run_start);
	}
	s->run_len = 0;
}

int pap_bpack_online_push(struct pap_bpack_online *s,
			  const struct pap_breakpoint *bp)
{
	uint64_t p = s->pushed, latest;
	size_t bucket = pap_bpack_bucket(bp);

	if (bpon_room(s))
		return PAP_ENOMEM;
	s->window[p & (s->wsize - 1)] = *bp;
	s->pushed = p + 1;
	if (s->run_len) {
		if (s->run_len < UINT32_MAX &&
		    bpon_same(bp, bpon_at(s, p - s->run_dist))) {
			if (s->run_len == 1)
				bpon_enter(s, pap_bpack_bucket(bpon_at(s,
						s->run_start)), s->run_start);
			s->run_len++;
			bpon_enter(s, bucket, p);
			return PAP_OK;
		}
		bpon_close_run(s);
	}
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

const struct pap_breakpoint *pap_bpack_online_finish(struct pap_bpack_online *s,
						     size_t *n)
{
	uint64_t i;

	bpon_close_run(s);
	if (s->pushed <= PAP_BPACK_SHORT) {
		/* left as it is; all of it still in the window */
		s->n = 0;
		for (i = 0; i < s->pushed; i++)
			bpon_write(s, &s->window[i], i);
	}
	*n = s->n;
	return s->out;
}
